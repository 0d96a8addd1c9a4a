//! Manifest validation: the fixture reads; each kind of bad manifest is refused with its line and a fix.

use super::*;

const FIXTURE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/fixtures/add_custom/ascend.toml"
);

/// Writes `text` as ascend.toml in a copy of the add_custom fixture's sources and loads it.
fn load(text: &str) -> Result<Manifest, ManifestError> {
    let dir = tempfile::tempdir().unwrap();
    let fixture = Path::new(FIXTURE).parent().unwrap();
    for sub in ["op_host", "op_kernel"] {
        std::fs::create_dir_all(dir.path().join(sub)).unwrap();
        for e in std::fs::read_dir(fixture.join(sub)).unwrap() {
            let p = e.unwrap().path();
            std::fs::copy(&p, dir.path().join(sub).join(p.file_name().unwrap())).unwrap();
        }
    }
    let path = dir.path().join(FILE_NAME);
    std::fs::write(&path, text).unwrap();
    match Manifest::load(&path) {
        Ok(m) => Ok(m),
        Err(crate::errors::Error::Manifest(e)) => Err(e),
        Err(other) => panic!("unexpected error {other}"),
    }
}

fn fixture_text() -> String {
    std::fs::read_to_string(FIXTURE).unwrap()
}

#[test]
fn the_fixture_manifest_reads() {
    let m = load(&fixture_text()).unwrap();
    assert_eq!(m.soc, "Ascend910B1");
    let op = &m.ops[0];
    assert_eq!(
        (op.name.as_str(), op.op_type.as_str()),
        ("add_custom", "AddCustom")
    );
    assert_eq!(
        op.tiling_header.as_deref(),
        Some("op_host/add_custom_tiling.h")
    );
    assert_eq!(op.inputs[0].shape, vec![48, 16384]);
    assert_eq!(
        op.tunables
            .iter()
            .map(|t| t.name.as_str())
            .collect::<Vec<_>>(),
        ["block_dim", "tile_length", "buffer_num"]
    );
    assert_eq!(op.tunables[1].domain.values().len(), 11);
    assert_eq!(
        op.shape_key(),
        "x:float16[48,16384] y:float16[48,16384] z:float16[48,16384]"
    );
}

fn error_of(text: &str) -> ManifestError {
    load(text).expect_err("manifest should be refused")
}

#[test]
fn unknown_key_names_its_line() {
    let text = fixture_text().replace("seed = 0", "seed = 0\nsead = 1");
    let line = text.lines().position(|l| l.starts_with("sead")).unwrap() + 1;
    let e = error_of(&text);
    assert!(e.to_string().contains("unknown field `sead`"), "{e}");
    assert_eq!(e.location.as_ref().map(|l| l.1), Some(line));
}

#[test]
fn syntax_error_names_its_line() {
    let e = error_of("[project]\nsoc = \"Ascend910B1\nbackend = 1\n");
    assert_eq!(e.location.as_ref().map(|l| l.1), Some(2));
}

#[test]
fn missing_source_file_is_refused() {
    let e = error_of(
        &fixture_text().replace("op_kernel/add_custom.cpp\"]", "op_kernel/missing.cpp\"]"),
    );
    assert!(e.to_string().contains("does not exist"), "{e}");
    assert!(e.location.is_some());
}

#[test]
fn paths_outside_the_project_are_refused() {
    let e = error_of(&fixture_text().replace(
        "host = [\"op_host/add_custom.cpp\"]",
        "host = [\"../add_custom.cpp\"]",
    ));
    assert!(e.to_string().contains("outside the project"), "{e}");
}

#[test]
fn impossible_shape_is_refused() {
    let e = error_of(&fixture_text().replacen("shape = [48, 16384]", "shape = [48, 0]", 1));
    assert!(e.to_string().contains("impossible"), "{e}");
    let e =
        error_of(&fixture_text().replacen("shape = [48, 16384]", "shape = [4000000, 4000000]", 1));
    assert!(e.to_string().contains("larger than"), "{e}");
}

#[test]
fn impossible_domain_is_refused() {
    let e = error_of(&fixture_text().replace("pow2 = [32, 32768]", "pow2 = [33, 32768]"));
    assert!(e.to_string().contains("powers of two"), "{e}");
    let e = error_of(&fixture_text().replace("range = [1, 2]", "range = [2, 1]"));
    assert!(e.to_string().contains("empty"), "{e}");
    let e = error_of(&fixture_text().replace("range = [1, 2]", "range = [1, 2]\nvalues = [1]"));
    assert!(e.to_string().contains("exactly one domain"), "{e}");
}

#[test]
fn unknown_dtype_soc_and_strategy_are_refused() {
    assert!(
        error_of(&fixture_text().replacen("dtype = \"float16\"", "dtype = \"float13\"", 1))
            .to_string()
            .contains("unknown dtype")
    );
    assert!(
        error_of(&fixture_text().replace("Ascend910B1", "Ascend999"))
            .to_string()
            .contains("unknown SoC")
    );
    assert!(
        error_of(&fixture_text().replace("seed = 0", "seed = 0\nstrategy = \"annealing\""))
            .to_string()
            .contains("unknown strategy")
    );
}

#[test]
fn line_col_is_one_based() {
    assert_eq!(line_col("ab\ncd", 0), (1, 1));
    assert_eq!(line_col("ab\ncd", 4), (2, 2));
}

/// Regression: a refactor of the dtype table once dropped the float rows.
#[test]
fn every_dtype_has_a_row_and_its_names_parse() {
    for d in [
        DType::Float16,
        DType::BFloat16,
        DType::Float32,
        DType::Int8,
        DType::Int16,
        DType::Int32,
        DType::Int64,
        DType::UInt8,
        DType::UInt16,
        DType::UInt32,
        DType::UInt64,
        DType::Bool,
    ] {
        assert_eq!(DType::parse(d.name()), Some(d));
        assert!(d.size() > 0 && !d.c_type().is_empty() && d.ge_name().starts_with("DT_"));
    }
    assert_eq!(DType::parse("fp16"), Some(DType::Float16));
    assert_eq!(DType::parse("bf16"), Some(DType::BFloat16));
}

#[test]
fn derive_constraints_switch_reads_and_is_type_checked() {
    assert_eq!(
        load(&fixture_text()).unwrap().ops[0]
            .tune
            .derive_constraints,
        None
    );
    let off = fixture_text().replace("seed = 0", "seed = 0\nderive-constraints = false");
    assert_eq!(
        load(&off).unwrap().ops[0].tune.derive_constraints,
        Some(false)
    );
    let bad = fixture_text().replace("seed = 0", "seed = 0\nderive-constraints = \"no\"");
    let line = bad
        .lines()
        .position(|l| l.starts_with("derive-constraints"))
        .unwrap()
        + 1;
    let e = error_of(&bad);
    assert_eq!(e.location.as_ref().map(|l| l.1), Some(line), "{e}");
}
