//! `init` on a project without a manifest writes one that `tune` runs at once.

use super::*;

#[test]
fn init_then_tune() {
    let dir = project("add_custom");
    let p = dir.path();
    std::fs::remove_file(p.join("ascend.toml")).unwrap();
    git(p, &["commit", "-q", "-am", "no manifest"]);
    let out = cargo_ascend_tune(
        p,
        &[
            "init",
            "--shape",
            "x=48x16384",
            "--shape",
            "y=48x16384",
            "--shape",
            "z=48x16384",
        ],
    );
    assert!(out.status.success(), "{:?}", text(&out));
    let manifest = std::fs::read_to_string(p.join("ascend.toml")).unwrap();
    for needle in [
        "name = \"add_custom\"",
        "type = \"AddCustom\"",
        "symbol = \"BLOCK_DIM\"",
        "symbol = \"TILE_LENGTH\"",
        "symbol = \"BUFFER_NUM\"",
        // The constraints tune derives from the kernel, shown to the user.
        "# tune also checks these constraints",
        "#   UB capacity: 3 * (buffer_num * ",
    ] {
        assert!(
            manifest.contains(needle),
            "{needle} missing from\n{manifest}"
        );
    }
    // init refuses to overwrite without --force.
    let again = cargo_ascend_tune(p, &["init"]);
    assert_eq!(again.status.code(), Some(2));
    git(p, &["add", "ascend.toml"]);
    git(p, &["commit", "-q", "-m", "manifest from init"]);
    let out = cargo_ascend_tune(
        p,
        &[
            "tune",
            "--budget",
            "8",
            "--seed",
            "2",
            "--message-format",
            "json",
        ],
    );
    assert!(out.status.success(), "{:?}", text(&out));
    let derived = records(&out)
        .into_iter()
        .find(|r| r["reason"] == "derived-constraints")
        .expect("derived-constraints");
    assert!(
        derived["constraints"]
            .as_array()
            .is_some_and(|c| c.len() >= 3),
        "{derived}"
    );
    let tuned = records(&out)
        .into_iter()
        .find(|r| r["reason"] == "op-tuned")
        .expect("op-tuned");
    assert!(tuned["speedup"].as_f64().unwrap() > 1.0, "{tuned}");
}
