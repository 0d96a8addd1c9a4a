//! Tensor lists (OpDef `ParamType(DYNAMIC)`): `init` writes them as `list = N` and `run` hands the
//! tiling function N instances and the kernel the list's descriptor, with nothing edited by hand
//! (tests/cli/projects/tensor_list: the tiling data is defined in a host-only header of a sibling folder).

use super::*;

pub fn newest_file(dir: &Path, name: &str) -> Vec<u8> {
    let mut found: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path().join(name))
        .filter(|p| p.is_file())
        .collect();
    found.sort_by_key(|p| std::fs::metadata(p).unwrap().modified().unwrap());
    std::fs::read(
        found
            .last()
            .unwrap_or_else(|| panic!("no {name} in {}", dir.display())),
    )
    .unwrap()
}

fn floats(bytes: &[u8]) -> Vec<f64> {
    bytes
        .chunks_exact(4)
        .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]) as f64)
        .collect()
}

#[test]
fn init_writes_tensor_lists_and_run_feeds_them_as_cann_does() {
    let dir = tempfile::tempdir().unwrap();
    let from = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/cli/projects/tensor_list");
    copy_tree(&from, dir.path());
    let op = dir.path().join("list_axpy");
    let out = cargo_ascend_tune(
        &op,
        &[
            "init",
            "--no-probe",
            "--shape",
            "a=4x1000",
            "--shape",
            "b=4x1000",
        ],
    );
    assert!(out.status.success(), "{:?}", text(&out));
    let manifest = std::fs::read_to_string(op.join("ascend.toml")).unwrap();
    assert_eq!(manifest.matches("\nlist = 3").count(), 3, "{manifest}");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_cargo-ascend-tune"))
        .args(["ascend-tune", "run", "--message-format", "json"])
        .current_dir(&op)
        .env("ASCEND_TUNE_BUILD_CACHE", build_cache())
        .env("ASCEND_TUNE_KEEP_RUNS", "1")
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    assert!(out.status.success(), "{:?}", text(&out));
    let measured = record(&out, "op-measured");
    assert_eq!(measured["op"], "list_axpy", "{measured}");
    // The reference: tensor i of y is 2 a_i + b_i + i, the lists' tensors one after another.
    let work = op.join("target/ascend-tune");
    let a = floats(&newest_file(&work.join("data"), "a.bin"));
    let b = floats(&newest_file(&work.join("data"), "b.bin"));
    let y = floats(&newest_file(&work.join("runs"), "y.out.bin"));
    let per = 4000;
    assert_eq!((a.len(), b.len(), y.len()), (3 * per, 3 * per, 3 * per));
    let want: Vec<f64> = (0..3 * per)
        .map(|k| {
            let (i, x, z) = ((k / per) as f32, a[k] as f32, b[k] as f32);
            (x * 2.0 + z + i) as f64
        })
        .collect();
    assert_close("y", &y, &want, 1e-6, 1e-6);

    // A list count that is no count is an error naming the line.
    let bad = manifest.replacen("list = 3", "list = 0", 1);
    std::fs::write(op.join("ascend.toml"), bad).unwrap();
    let out = cargo_ascend_tune(&op, &["run"]);
    assert!(!out.status.success(), "{:?}", text(&out));
    assert!(
        text(&out)
            .1
            .contains("list = 0 of `a` is not a tensor count"),
        "{:?}",
        text(&out)
    );
}
