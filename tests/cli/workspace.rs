//! A cargo workspace of two operator crates (`fixtures/cargo_workspace`): `tune --workspace` tunes both
//! and keeps working files under the workspace's target directory; `check --workspace` reports both; the
//! members' build scripts (`ascend_tune::build`) let `cargo build` through on matching sources and stop
//! it, naming the op, the file and the fix, once a kernel no longer matches its lock.

use super::*;
use std::process::{Command, Output};

/// A copy of the fixture workspace whose members depend on this repository by absolute path, with the
/// repository's Cargo.lock so that `cargo build --offline` resolves the same versions the tool uses.
pub fn workspace() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path();
    copy_tree(&Path::new(FIXTURES).join("cargo_workspace"), p);
    let repo = env!("CARGO_MANIFEST_DIR");
    for member in ["add_op", "relu_op"] {
        let toml = p.join(member).join("Cargo.toml");
        let text = std::fs::read_to_string(&toml).unwrap();
        assert!(text.contains("path = \"../../..\""), "{text}");
        std::fs::write(
            &toml,
            text.replace("path = \"../../..\"", &format!("path = {repo:?}")),
        )
        .unwrap();
    }
    std::fs::copy(Path::new(repo).join("Cargo.lock"), p.join("Cargo.lock")).unwrap();
    commit_all(p, "naive operators");
    dir
}

/// `cargo build` in `dir`, offline, into a target folder shared by test runs: the tool is a build
/// dependency, and compiling it once (about 45 s from nothing) is the bulk of this test's time.
fn cargo_build(dir: &Path, args: &[&str]) -> (bool, String) {
    let out = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()))
        .args(["build", "--offline"])
        .args(args)
        .current_dir(dir)
        .env(
            "CARGO_TARGET_DIR",
            PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("cargo-workspace-target"),
        )
        .env_remove("ASCEND_TUNE_ALLOW_STALE")
        .env("CARGO_INCREMENTAL", "0")
        .output()
        .unwrap();
    let (stdout, stderr) = text(&out);
    (out.status.success(), format!("{stdout}\n{stderr}"))
}

/// `cargo ascend-tune ARGS` in `dir` with no target-directory override from the environment, so the
/// workspace's own `target/` is the one cargo metadata reports.
pub fn in_workspace(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_cargo-ascend-tune"))
        .arg("ascend-tune")
        .args(args)
        .current_dir(dir)
        .env("ASCEND_TUNE_BUILD_CACHE", build_cache())
        .env("NO_COLOR", "1")
        .env_remove("CARGO_TARGET_DIR")
        .env_remove("CARGO_BUILD_TARGET_DIR")
        .output()
        .unwrap()
}

#[test]
fn tune_workspace_then_build_scripts_guard_the_lock() {
    let dir = workspace();
    let p = dir.path();

    let out = in_workspace(
        p,
        &[
            "tune",
            "--workspace",
            "--budget",
            "4",
            "--seed",
            "1",
            "--message-format",
            "json",
        ],
    );
    let (stdout, stderr) = text(&out);
    assert!(out.status.success(), "{stdout}\n{stderr}");
    let tuned: Vec<String> = records(&out)
        .iter()
        .filter(|r| r["reason"] == "op-tuned")
        .map(|r| r["op"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(tuned, ["add_custom", "relu_custom"], "{stdout}");
    for member in ["add_op", "relu_op"] {
        let lock = std::fs::read_to_string(p.join(member).join("ascend-tune.lock"));
        assert!(lock.is_ok(), "{member} has no lock");
        assert!(
            p.join("target/ascend-tune").join(member).is_dir(),
            "{member}'s working files are not under the workspace target"
        );
        assert!(
            !p.join(member).join("target").exists(),
            "{member} got a target/ of its own"
        );
    }
    assert!(!p.join("ascend-tune.lock").exists());

    // The gate over the whole workspace: one table row and one JUnit suite per member.
    let out = in_workspace(
        p,
        &["check", "--workspace", "--locked", "--junit", "check.xml"],
    );
    let (stdout, stderr) = text(&out);
    assert!(out.status.success(), "{stdout}\n{stderr}");
    assert!(
        stdout.contains("add_op/add_custom") && stdout.contains("relu_op/relu_custom"),
        "{stdout}"
    );
    let xml = std::fs::read_to_string(p.join("check.xml")).unwrap();
    assert_eq!(xml.matches("<testsuite ").count(), 2, "{xml}");

    // --op picks the members that declare it; an op no member declares is bad input.
    let out = in_workspace(p, &["check", "--workspace", "--op", "add_custom"]);
    let (stdout, stderr) = text(&out);
    assert!(out.status.success(), "{stdout}\n{stderr}");
    assert!(
        stdout.contains("add_custom") && !stdout.contains("relu_custom"),
        "{stdout}"
    );
    let out = in_workspace(p, &["check", "--workspace", "--op", "nope"]);
    let (stdout, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(2), "{stdout}\n{stderr}");
    assert!(stderr.contains("declares an op named `nope`"), "{stderr}");

    // The build scripts accept the tuned sources and hand the tuned values to the crates.
    git(p, &["add", "-A"]);
    git(p, &["commit", "-q", "-m", "tuned"]);
    let (ok, log) = cargo_build(p, &[]);
    assert!(ok, "cargo build of the tuned workspace failed:\n{log}");

    // A kernel edited after tuning: the member's build script stops the build and says why.
    let kernel = p.join("relu_op/op_kernel/relu_custom.cpp");
    let k = std::fs::read_to_string(&kernel).unwrap();
    std::fs::write(&kernel, format!("{k}\n// edited after tuning\n")).unwrap();
    let (ok, log) = cargo_build(p, &["-p", "relu_op"]);
    assert!(!ok, "cargo build passed with a stale lock:\n{log}");
    for needle in [
        "op `relu_custom`",
        "op_kernel/relu_custom.cpp changed since",
        "run `cargo ascend-tune tune`",
    ] {
        assert!(log.contains(needle), "{needle} not in:\n{log}");
    }
    // The other member is untouched and still builds.
    let (ok, log) = cargo_build(p, &["-p", "add_op"]);
    assert!(ok, "{log}");

    // Put back, the kernel builds again; a file the build script did not name does not re-run it.
    std::fs::write(&kernel, &k).unwrap();
    let (ok, log) = cargo_build(p, &["-p", "relu_op"]);
    assert!(ok, "{log}");
    std::fs::write(p.join("relu_op/NOTES.md"), "not a source\n").unwrap();
    let (ok, log) = cargo_build(p, &["-p", "relu_op", "-v"]);
    assert!(ok, "{log}");
    assert!(
        !log.lines().any(|l| l.contains("Running `")
            && l.contains("/relu_op-")
            && l.ends_with("/build-script-build`")),
        "the build script re-ran for a file it does not watch:\n{log}"
    );
    std::fs::write(&kernel, format!("{k}\n// edited after tuning\n")).unwrap();

    // check --workspace --locked agrees: the stale member fails, named.
    let out = in_workspace(p, &["check", "--workspace", "--locked"]);
    let (stdout, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(1), "{stdout}\n{stderr}");
    assert!(stderr.contains("relu_custom (stale lock)"), "{stderr}");
}

#[test]
fn workspace_flag_outside_a_workspace_is_bad_input() {
    let dir = project("relu_custom");
    let out = cargo_ascend_tune(dir.path(), &["tune", "--workspace", "--budget", "1"]);
    let (stdout, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(2), "{stdout}\n{stderr}");
    assert!(
        stderr.contains("could not read the cargo workspace"),
        "{stderr}"
    );
    assert!(
        stderr.contains("--manifest-path path/to/Cargo.toml"),
        "{stderr}"
    );
}
