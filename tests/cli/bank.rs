//! The experience bank from the command line: mining lessons by rewinding a fixture's reference,
//! reading them back with `bank list` and `bank show`, the motif catalogue, and bad bank files.

use super::*;

#[test]
fn mine_list_show_and_mine_again_to_the_same_bytes() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path();
    let fixture = Path::new(FIXTURES).join("add_custom");
    let fixture = fixture.to_str().unwrap();
    let out = cargo_ascend_tune(
        p,
        &[
            "bank",
            "mine",
            fixture,
            "--out",
            "b.toml",
            "--motifs",
            "double-buffer",
        ],
    );
    let (stdout, stderr) = text(&out);
    assert!(out.status.success(), "{stdout}\n{stderr}");
    assert!(stderr.contains("Mined 1 lessons"), "{stderr}");
    let first = std::fs::read_to_string(p.join("b.toml")).unwrap();
    assert!(first.contains("motif = \"double-buffer\""), "{first}");
    assert!(
        first.contains("+constexpr int32_t BUFFER_NUM = 2;"),
        "{first}"
    );

    // The lesson reads back: one line in the list, the whole lesson with its diff in show.
    let out = cargo_ascend_tune(p, &["bank", "list", "--bank", "b.toml"]);
    let (stdout, _) = text(&out);
    assert!(out.status.success());
    let row = stdout
        .lines()
        .find(|l| l.contains("double-buffer"))
        .expect(&stdout);
    assert!(
        row.contains("add_custom") && row.contains("modelled"),
        "{row}"
    );
    let out = cargo_ascend_tune(p, &["bank", "show", "1", "--bank", "b.toml"]);
    let (stdout, _) = text(&out);
    assert!(
        stdout.contains("lesson 1: double-buffer on add_custom"),
        "{stdout}"
    );
    assert!(
        stdout.contains("-constexpr int32_t BUFFER_NUM = 1;"),
        "{stdout}"
    );
    let out = cargo_ascend_tune(
        p,
        &[
            "bank",
            "list",
            "--bank",
            "b.toml",
            "--message-format",
            "json",
        ],
    );
    let lesson = &records(&out)[0];
    assert_eq!(lesson["reason"], "lesson");
    assert!(lesson["gain"].as_f64().unwrap() > 1.02, "{lesson}");

    // Mining is reproducible on the twin: the same lessons, byte for byte.
    let out = cargo_ascend_tune(
        p,
        &[
            "bank",
            "mine",
            fixture,
            "--out",
            "b.toml",
            "--motifs",
            "double-buffer",
        ],
    );
    assert!(out.status.success());
    assert_eq!(std::fs::read_to_string(p.join("b.toml")).unwrap(), first);

    // A lesson that is not there, a motif with no lessons.
    for args in [
        &["bank", "show", "7", "--bank", "b.toml"][..],
        &["bank", "show", "no-such-motif", "--bank", "b.toml"],
    ] {
        let out = cargo_ascend_tune(p, args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
    }
}

#[test]
fn the_motif_catalogue_and_the_built_in_bank_are_readable() {
    let dir = tempfile::tempdir().unwrap();
    let out = cargo_ascend_tune(dir.path(), &["bank", "motifs"]);
    let (stdout, _) = text(&out);
    assert!(out.status.success());
    for name in ascend_tune::rewrite::motifs::names() {
        assert!(stdout.contains(name), "{name} missing from:\n{stdout}");
    }
    assert!(stdout.contains("preserves meaning when"));
    // Which files each motif edits, and the host half a kernel motif needs.
    assert!(stdout.contains("ub-split-double-buffer [host]"), "{stdout}");
    assert!(
        stdout.contains(
            "double-buffer-queue [kernel] (with ub-split-double-buffer in the host files)"
        ),
        "{stdout}"
    );
    let out = cargo_ascend_tune(dir.path(), &["bank", "list"]);
    let (stdout, _) = text(&out);
    assert!(out.status.success());
    assert!(stdout.starts_with("built-in bank"), "{stdout}");
}

#[test]
fn a_broken_bank_file_is_refused_with_its_line() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("b.toml"),
        "version = 1\n\n[[lesson]]\nmotif = 3\n",
    )
    .unwrap();
    let out = cargo_ascend_tune(dir.path(), &["bank", "list", "--bank", "b.toml"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out).1.contains("b.toml:4"), "{}", text(&out).1);
    std::fs::write(dir.path().join("b.toml"), "version = 9\n").unwrap();
    let out = cargo_ascend_tune(dir.path(), &["bank", "list", "--bank", "b.toml"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out).1.contains("newer"), "{}", text(&out).1);
    let out = cargo_ascend_tune(dir.path(), &["bank", "mine", "--out", "x.toml", "nowhere"]);
    assert_eq!(out.status.code(), Some(2));
}

/// Real operators keep their kernel class in `op_kernel/*.h`: mining rewinds the sites there too (it
/// looked at the kernel's .cpp only, and found nothing to rewind in 65 public operators).
#[test]
fn mining_rewinds_sites_in_the_kernels_own_headers() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("add_custom");
    copy_tree(&Path::new(FIXTURES).join("add_custom"), &p);
    // (copy_tree leaves `reference/` out)
    copy_tree(
        &Path::new(FIXTURES).join("add_custom/reference"),
        &p.join("reference"),
    );
    // The kernel class (queues, depth constant) moves to a header; the entry stays in the .cpp.
    let kernel = p.join("reference/op_kernel/add_custom.cpp");
    let source = std::fs::read_to_string(&kernel).unwrap();
    let entry = source.find("extern \"C\"").unwrap();
    assert!(source[..entry].contains("constexpr int32_t BUFFER_NUM = 2;"));
    std::fs::write(
        p.join("reference/op_kernel/add_custom_kernel.h"),
        format!("#pragma once\n{}", &source[..entry]),
    )
    .unwrap();
    std::fs::write(
        &kernel,
        format!("#include \"add_custom_kernel.h\"\n{}", &source[entry..]),
    )
    .unwrap();
    let out = cargo_ascend_tune(
        dir.path(),
        &[
            "bank",
            "mine",
            "add_custom",
            "--out",
            "b.toml",
            "--motifs",
            "double-buffer",
            "--message-format",
            "json",
        ],
    );
    let (stdout, stderr) = text(&out);
    assert!(out.status.success(), "{stdout}\n{stderr}");
    let rewind = records(&out)
        .into_iter()
        .find(|r| r["reason"] == "rewind")
        .expect(&stdout);
    assert_eq!(rewind["file"], "op_kernel/add_custom_kernel.h", "{rewind}");
    assert_eq!(rewind["outcome"], "lesson", "{rewind}");
}

/// `bank sites` without projects reads the project `--manifest-path` names (it read the current folder
/// whatever the flag said).
#[test]
fn bank_sites_reads_the_project_the_manifest_path_names() {
    let dir = project("add_custom");
    let elsewhere = tempfile::tempdir().unwrap();
    let manifest = dir.path().join("ascend.toml");
    let out = cargo_ascend_tune(
        elsewhere.path(),
        &[
            "bank",
            "sites",
            "--manifest-path",
            manifest.to_str().unwrap(),
            "--message-format",
            "json",
        ],
    );
    let (stdout, stderr) = text(&out);
    assert!(out.status.success(), "{stdout}\n{stderr}");
    let ops: Vec<serde_json::Value> = records(&out)
        .into_iter()
        .filter(|r| r["reason"] == "sites")
        .map(|r| r["op"].clone())
        .collect();
    assert!(!ops.is_empty(), "{stdout}");
    assert!(ops.iter().all(|o| o == "add_custom"), "{ops:?}");
}
