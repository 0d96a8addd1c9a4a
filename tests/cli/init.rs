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

/// `init` finds kernel entries whatever their linkage: one with C++ linkage (the manifest it writes
/// runs at once) and a template one.
#[test]
fn init_finds_cpp_linkage_and_template_entries() {
    let dir = project("add_custom");
    let p = dir.path();
    std::fs::remove_file(p.join("ascend.toml")).unwrap();
    let kernel = p.join("op_kernel/add_custom.cpp");
    let source = std::fs::read_to_string(&kernel).unwrap();
    let cpp = source.replace(
        "extern \"C\" __global__ __aicore__ void add_custom(",
        "__global__ __aicore__ void add_custom(",
    );
    assert_ne!(cpp, source);
    std::fs::write(&kernel, cpp).unwrap();
    let out = cargo_ascend_tune(
        p,
        &[
            "init", "--shape", "x=8x2048", "--shape", "y=8x2048", "--shape", "z=8x2048",
        ],
    );
    assert!(out.status.success(), "{:?}", text(&out));
    let manifest = std::fs::read_to_string(p.join("ascend.toml")).unwrap();
    assert!(manifest.contains("name = \"add_custom\""), "{manifest}");
    let run = cargo_ascend_tune(p, &["run"]);
    assert!(run.status.success(), "{:?}", text(&run));

    let tpl = tempfile::tempdir().unwrap();
    copy_tree(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("templates/twin/tests/tpl_op"),
        tpl.path(),
    );
    let out = cargo_ascend_tune(tpl.path(), &["init"]);
    assert!(out.status.success(), "{:?}", text(&out));
    let manifest = std::fs::read_to_string(tpl.path().join("ascend.toml")).unwrap();
    for needle in [
        "name = \"tpl_op\"",
        "kernel = [\"op_kernel/tpl_op.cpp\"]",
        // Without an op json, the GM parameters name the tensors.
        "[[op.input]]\nname = \"x\"",
        "[[op.output]]\nname = \"y\"",
    ] {
        assert!(
            manifest.contains(needle),
            "{needle} missing from\n{manifest}"
        );
    }
}

/// In the ops-math / ops-nn layout the tiling function is registered apart from the OpDef
/// (`IMPL_OP_OPTILING(Type)` in its own file): `init` lists that file among the host sources, so the
/// tiling program has its tiling function.
#[test]
fn init_finds_a_tiling_function_registered_apart_from_the_opdef() {
    let dir = project("add_custom");
    let p = dir.path();
    std::fs::remove_file(p.join("ascend.toml")).unwrap();
    std::fs::write(
        p.join("op_host/add_custom_tiling_impl.cpp"),
        "// stands for a file registering the tiling function\n// IMPL_OP_OPTILING(AddCustom).Tiling(TilingFunc);\n",
    )
    .unwrap();
    std::fs::write(p.join("op_host/unrelated.cpp"), "int unrelated = 0;\n").unwrap();
    let out = cargo_ascend_tune(p, &["init"]);
    assert!(out.status.success(), "{:?}", text(&out));
    let manifest = std::fs::read_to_string(p.join("ascend.toml")).unwrap();
    assert!(
        manifest.contains(
            "host = [\"op_host/add_custom.cpp\", \"op_host/add_custom_tiling_impl.cpp\"]"
        ),
        "{manifest}"
    );
}
