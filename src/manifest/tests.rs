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
        "host = [\"../../add_custom.cpp\"]",
    ));
    // a host source may sit above the project (read, never written back), but must exist
    assert!(e.to_string().contains("does not exist"), "{e}");
    let e = error_of(&fixture_text().replace(
        "host = [\"op_host/add_custom.cpp\"]",
        "host = [\"../x/../../../y.cpp\"]",
    ));
    assert!(e.to_string().contains("outside the project"), "{e}");
    let e = error_of(&fixture_text().replace(
        "kernel = [\"op_kernel/add_custom.cpp\"]",
        "kernel = [\"../op_kernel/add_custom.cpp\"]",
    ));
    assert!(e.to_string().contains("outside the project"), "{e}");
}

/// ops-nn's foreach ops register their tiling in `../foreach_utils/op_host/`, ops-cv's ops link
/// `../../common/src/op_host/tiling_util.cpp`: a host source in a folder above the project is read; it
/// must exist, and an absolute path still is refused.
#[test]
fn a_host_source_in_a_folder_above_is_accepted() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("image/proj");
    let fixture = Path::new(FIXTURE).parent().unwrap();
    for sub in ["op_host", "op_kernel"] {
        std::fs::create_dir_all(root.join(sub)).unwrap();
        for e in std::fs::read_dir(fixture.join(sub)).unwrap() {
            let p = e.unwrap().path();
            std::fs::copy(&p, root.join(sub).join(p.file_name().unwrap())).unwrap();
        }
    }
    for (folder, file) in [("image/utils/op_host", "t.cpp"), ("common/src", "u.cpp")] {
        std::fs::create_dir_all(dir.path().join(folder)).unwrap();
        std::fs::write(dir.path().join(folder).join(file), "\n").unwrap();
    }
    let path = root.join(FILE_NAME);
    let with = |host: &str| {
        fixture_text().replace(
            "host = [\"op_host/add_custom.cpp\"]",
            &format!("host = [\"op_host/add_custom.cpp\", \"{host}\"]"),
        )
    };
    for host in ["../utils/op_host/t.cpp", "../../common/src/u.cpp"] {
        std::fs::write(&path, with(host)).unwrap();
        let m = Manifest::load(&path).unwrap();
        assert_eq!(m.ops[0].host[1], host);
    }
    std::fs::write(&path, with("../utils/op_host/absent.cpp")).unwrap();
    let e = Manifest::load(&path).unwrap_err().to_string();
    assert!(e.contains("does not exist"), "{e}");
    let abs = dir.path().join("common/src/u.cpp").display().to_string();
    std::fs::write(&path, with(&abs)).unwrap();
    let e = Manifest::load(&path).unwrap_err().to_string();
    assert!(e.contains("absolute"), "{e}");
}

/// ops-nn's foreach ops plan their UB split in a shared header (`../foreach_utils/op_host/`): a
/// tunable may live in a folder the manifest names in `include` (also when it is reached through a
/// link, as bench's copies show sibling folders), never in another folder above the project.
#[test]
fn a_tunable_in_a_shared_include_folder_is_accepted() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("foreach/proj");
    let fixture = Path::new(FIXTURE).parent().unwrap();
    for sub in ["op_host", "op_kernel"] {
        std::fs::create_dir_all(root.join(sub)).unwrap();
        for e in std::fs::read_dir(fixture.join(sub)).unwrap() {
            let p = e.unwrap().path();
            std::fs::copy(&p, root.join(sub).join(p.file_name().unwrap())).unwrap();
        }
    }
    for folder in ["foreach/utils/op_host", "foreach/other"] {
        std::fs::create_dir_all(dir.path().join(folder)).unwrap();
        std::fs::write(
            dir.path().join(folder).join("plan.h"),
            "#define BLOCK_DIM 8\n",
        )
        .unwrap();
    }
    let path = root.join(FILE_NAME);
    let with = |include: &str, file: &str| {
        fixture_text()
            .replace(
                "[project]\n",
                &format!("[project]\ninclude = [\"{include}\"]\n"),
            )
            .replacen(
                "file = \"op_host/add_custom.cpp\"\nsymbol = \"BLOCK_DIM\"",
                &format!("file = \"{file}\"\nsymbol = \"BLOCK_DIM\""),
                1,
            )
    };
    let text = with("../utils/op_host", "../utils/op_host/plan.h");
    assert!(text.contains("include = [") && text.contains("../utils/op_host/plan.h"));
    std::fs::write(&path, &text).unwrap();
    let m = Manifest::load(&path).unwrap();
    assert_eq!(m.ops[0].tunables[0].file, "../utils/op_host/plan.h");
    // Through a link beside a copy, with the include folder pinned to where it really is.
    let copy = dir.path().join("copy/proj");
    std::fs::create_dir_all(copy.parent().unwrap()).unwrap();
    std::os::unix::fs::symlink(
        dir.path().join("foreach/utils"),
        dir.path().join("copy/utils"),
    )
    .unwrap();
    std::os::unix::fs::symlink(&root, &copy).unwrap();
    let real = dir
        .path()
        .join("foreach/utils/op_host")
        .display()
        .to_string();
    std::fs::write(copy.join(FILE_NAME), with(&real, "../utils/op_host/plan.h")).unwrap();
    assert!(Manifest::load(&copy.join(FILE_NAME)).is_ok());
    // A folder above the project that no include names.
    std::fs::write(&path, with("../utils/op_host", "../other/plan.h")).unwrap();
    let e = Manifest::load(&path).unwrap_err().to_string();
    assert!(e.contains("outside the project root"), "{e}");
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
fn pinned_values_and_scalar_shapes_read_and_bad_values_are_refused() {
    let pinned = |values: &str, shape: &str, dtype: &str| {
        fixture_text().replacen(
            "dtype = \"float16\"\nshape = [48, 16384]\nrange = [-100.0, 100.0]",
            &format!("dtype = \"{dtype}\"\nshape = {shape}\nvalues = {values}"),
            1,
        )
    };
    let m = load(&pinned("[3.0]", "[]", "int64")).unwrap();
    let x = &m.ops[0].inputs[0];
    assert_eq!(
        (x.shape.len(), x.elems(), x.values.clone()),
        (0, 1, Some(vec![3.0]))
    );
    assert!(
        m.ops[0].shape_key().starts_with("x:int64[]=3 "),
        "{}",
        m.ops[0].shape_key()
    );
    let m = load(&pinned("[0.0, 10.0, 1.5]", "[3]", "float32")).unwrap();
    assert_eq!(m.ops[0].inputs[0].values, Some(vec![0.0, 10.0, 1.5]));
    let e = error_of(&pinned("[1.0, 2.0]", "[3]", "float32"));
    assert!(
        e.to_string().contains("2 entries but the tensor has 3"),
        "{e}"
    );
    let e = error_of(&pinned("[1.5]", "[1]", "int32"));
    assert!(e.to_string().contains("cannot be stored as int32"), "{e}");
    let e = error_of(&pinned("[300]", "[1]", "uint8"));
    assert!(e.to_string().contains("cannot be stored as uint8"), "{e}");
    let e = error_of(&pinned("[1.0]\nrange = [0.0, 1.0]", "[1]", "float32"));
    assert!(e.to_string().contains("`values` and `range`"), "{e}");
    let e = error_of(&fixture_text().replacen(
        "name = \"z\"\ndtype = \"float16\"",
        "name = \"z\"\nvalues = [1.0]\ndtype = \"float16\"",
        1,
    ));
    assert!(e.to_string().contains("only meaningful on inputs"), "{e}");
}

#[test]
fn drawn_data_reads_into_the_key_and_is_refused_where_it_cannot_be_drawn() {
    let drawn = |rest: &str, dtype: &str| {
        fixture_text().replacen(
            "dtype = \"float16\"\nshape = [48, 16384]\nrange = [-100.0, 100.0]",
            &format!("dtype = \"{dtype}\"\nshape = [380]\n{rest}"),
            1,
        )
    };
    let m = load(&drawn("data = \"permutation\"", "int32")).unwrap();
    assert_eq!(m.ops[0].inputs[0].data, crate::manifest::Data::Permutation);
    assert!(
        m.ops[0]
            .shape_key()
            .starts_with("x:int32[380]=permutation "),
        "{}",
        m.ops[0].shape_key()
    );
    let m = load(&drawn("data = \"sorted\"\nrange = [0, 16]", "int64")).unwrap();
    assert_eq!(
        (m.ops[0].inputs[0].data, m.ops[0].inputs[0].range),
        (crate::manifest::Data::Sorted, (0.0, 16.0))
    );
    let m = load(&drawn("data = \"counts\"", "int32")).unwrap();
    assert_eq!(m.ops[0].inputs[0].data, crate::manifest::Data::Counts);
    assert!(m.ops[0].shape_key().starts_with("x:int32[380]=counts "));
    for (rest, dtype, want) in [
        ("data = \"shuffled\"", "int32", "unknown data `shuffled`"),
        (
            "data = \"counts\"\nrange = [0, 4]",
            "int32",
            "both data = \"counts\" and a `range`",
        ),
        ("data = \"permutation\"", "float32", "not an integer input"),
        (
            "data = \"sorted\"\nvalues = [1]",
            "int32",
            "not an integer input without `values`",
        ),
        (
            "data = \"permutation\"\nrange = [0, 4]",
            "int32",
            "both data = \"permutation\" and a `range`",
        ),
    ] {
        let e = error_of(&drawn(rest, dtype));
        assert!(e.to_string().contains(want), "{rest}: {e}");
    }
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
fn ub_parts_of_binds_a_variable_and_excludes_the_other_bindings() {
    // The fixture's host file has no UB query: the key reads, and binding it (at `tune`) says so.
    let m = load(&fixture_text().replace("symbol = \"BUFFER_NUM\"", "ub-parts-of = \"ubSize\""))
        .unwrap();
    assert!(m.ops[0].tunables.iter().any(|t| t.bind
        == Bind::UbParts {
            var: "ubSize".into(),
            function: None
        }));
    let e = error_of(&fixture_text().replace(
        "symbol = \"BUFFER_NUM\"",
        "symbol = \"BUFFER_NUM\"\nub-parts-of = \"ubSize\"",
    ));
    assert!(
        e.to_string()
            .contains("more than one of `symbol`, `call`, `ub-parts-of` and `field`"),
        "{e}"
    );
    let e =
        error_of(&fixture_text().replace("symbol = \"BUFFER_NUM\"", "ub-parts-of = \"ub size\""));
    assert!(e.to_string().contains("not a C identifier"), "{e}");
    // A member, as the query writes it, is a variable too.
    let m =
        load(&fixture_text().replace("symbol = \"BUFFER_NUM\"", "ub-parts-of = \"this->ubSize_\""))
            .unwrap();
    assert!(m.ops[0].tunables.iter().any(|t| t.bind
        == Bind::UbParts {
            var: "this->ubSize_".into(),
            function: None
        }));
    // ub-parts-in names the query's function; alone, or not an identifier, it is refused.
    let m = load(&fixture_text().replace(
        "symbol = \"BUFFER_NUM\"",
        "ub-parts-of = \"ubSize\"\nub-parts-in = \"Tiling4Real\"",
    ))
    .unwrap();
    assert!(m.ops[0].tunables.iter().any(|t| t.bind
        == Bind::UbParts {
            var: "ubSize".into(),
            function: Some("Tiling4Real".into())
        }));
    let e = error_of(&fixture_text().replace(
        "symbol = \"BUFFER_NUM\"",
        "symbol = \"BUFFER_NUM\"\nub-parts-in = \"Tiling4Real\"",
    ));
    assert!(
        e.to_string()
            .contains("`ub-parts-in` without `ub-parts-of`"),
        "{e}"
    );
    let e = error_of(&fixture_text().replace(
        "symbol = \"BUFFER_NUM\"",
        "ub-parts-of = \"ubSize\"\nub-parts-in = \"A::B\"",
    ));
    assert!(
        e.to_string().contains("`A::B` is not a C identifier"),
        "{e}"
    );
    for bad in ["a->", "a-b", "->a", "a..b", "a.b()"] {
        let e = error_of(&fixture_text().replace(
            "symbol = \"BUFFER_NUM\"",
            &format!("ub-parts-of = \"{bad}\""),
        ));
        assert!(
            e.to_string().contains("not a C identifier or member"),
            "{bad}: {e}"
        );
    }
}

#[test]
fn field_binds_a_tiling_data_field_and_excludes_the_other_bindings() {
    let m =
        load(&fixture_text().replace("symbol = \"BUFFER_NUM\"", "field = \"tileNum\"")).unwrap();
    assert!(m.ops[0].tunables.iter().any(|t| t.bind
        == Bind::Field {
            field: "tileNum".into()
        }));
    let e = error_of(&fixture_text().replace(
        "symbol = \"BUFFER_NUM\"",
        "symbol = \"BUFFER_NUM\"\nfield = \"tileNum\"",
    ));
    assert!(e.to_string().contains("more than one of"), "{e}");
    let e = error_of(&fixture_text().replace("symbol = \"BUFFER_NUM\"", "field = \"tile->num\""));
    assert!(e.to_string().contains("not a C identifier"), "{e}");
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

/// The line (1-based) of the first line of `text` that starts with `prefix`.
fn line_of(text: &str, prefix: &str) -> usize {
    text.lines().position(|l| l.starts_with(prefix)).unwrap() + 1
}

/// The fixture as a kernel-launch project (its sources serve as the kernel and host files).
fn kernel_launch_text(extra_project: &str) -> String {
    fixture_text().replace(
        "[project]",
        &format!("[project]\nlayout = \"kernel-launch\"\n{extra_project}"),
    )
}

#[test]
fn cann_keys_default_to_a_custom_op_project_with_no_cann_settings() {
    let m = load(&fixture_text()).unwrap();
    assert_eq!(m.layout, Layout::CustomOp);
    assert_eq!(
        (m.cann_path.is_none(), m.run_mode, m.devices.len()),
        (true, None, 0)
    );
    let op = &m.ops[0];
    assert_eq!((op.program.as_deref(), op.app.as_deref()), (None, None));
    assert_eq!(op.input_files, ["input/input_x.bin", "input/input_y.bin"]);
    assert_eq!(op.output_files, ["output/output_z.bin"]);
}

#[test]
fn kernel_launch_project_reads_its_keys() {
    let text =
        kernel_launch_text("cann-path = \"/opt/cann\"\nrun-mode = \"sim\"\ndevices = [2, 0, 5]\n")
            .replacen(
                "shape = [48, 16384]",
                "shape = [48, 16384]\nfile = \"data/x.bin\"",
                1,
            )
            .replace(
                "kernel = [\"op_kernel/add_custom.cpp\"]",
                "kernel = [\"op_kernel/add_custom.cpp\"]\nprogram = \"bin/add_bbit\"",
            );
    let m = load(&text).unwrap();
    assert_eq!(m.layout, Layout::KernelLaunch);
    assert_eq!(
        m.cann_path.as_ref().map(|c| c.0.clone()),
        Some(PathBuf::from("/opt/cann"))
    );
    assert_eq!(m.run_mode, Some(RunMode::Sim));
    assert_eq!(m.devices, [2, 0, 5]);
    let op = &m.ops[0];
    assert_eq!(op.program.as_deref(), Some("bin/add_bbit"));
    assert_eq!(op.input_files, ["data/x.bin", "input/input_y.bin"]);
    // Without `program`, the samples' name.
    let m = load(&kernel_launch_text("")).unwrap();
    assert_eq!(m.ops[0].program.as_deref(), Some("ascendc_kernels_bbit"));
    // A relative cann-path is relative to the project.
    let m = load(&kernel_launch_text("cann-path = \"cann\"\n")).unwrap();
    let (path, _) = m.cann_path.unwrap();
    assert!(
        path.ends_with("cann") && path.starts_with(&m.root),
        "{}",
        path.display()
    );
}

#[test]
fn kernel_launch_op_needs_no_type_nor_host() {
    let text: String = kernel_launch_text("")
        .lines()
        .filter(|l| !l.starts_with("type = ") && !l.starts_with("host = "))
        .map(|l| format!("{l}\n"))
        .collect();
    assert!(
        !text
            .lines()
            .any(|l| l.starts_with("type") || l.starts_with("host")),
        "{text}"
    );
    let m = load(&text).unwrap();
    assert!(m.ops[0].host.is_empty());
}

#[test]
fn bad_cann_keys_name_their_line_and_the_fix() {
    let cases: &[(&str, &str, &str)] = &[
        (
            "layout = \"launch\"",
            "unknown layout `launch`",
            "kernel-launch",
        ),
        ("run-mode = \"gpu\"", "unknown run-mode `gpu`", "`npu`"),
        (
            "devices = [0, 0]",
            "distinct device ids",
            "ASCEND_RT_VISIBLE_DEVICES",
        ),
        (
            "devices = [-1]",
            "distinct device ids",
            "devices = [0, 1, 2, 3]",
        ),
        (
            "devices = []",
            "distinct device ids",
            "devices = [0, 1, 2, 3]",
        ),
        ("cann-path = \" \"", "`cann-path` is empty", "cann-path = "),
    ];
    for (line, message, help) in cases {
        let text = fixture_text().replace("[project]", &format!("[project]\n{line}"));
        let e = error_of(&text);
        assert!(e.to_string().contains(message), "{line}: {e}");
        assert!(
            e.help.as_deref().unwrap_or("").contains(help),
            "{line}: {:?}",
            e.help
        );
        assert_eq!(
            e.location.as_ref().map(|l| l.1),
            Some(line_of(&text, line)),
            "{line}"
        );
    }
}

#[test]
fn program_and_app_are_checked_against_the_layout() {
    let with_program = |project: &str, program: &str| {
        let base = if project.is_empty() {
            fixture_text()
        } else {
            kernel_launch_text("")
        };
        base.replace(
            "kernel = [\"op_kernel/add_custom.cpp\"]",
            &format!("kernel = [\"op_kernel/add_custom.cpp\"]\n{program}"),
        )
    };
    let cases: &[(&str, &str, &str)] = &[
        (
            "",
            "program = \"ascendc_kernels_bbit\"",
            "is for kernel-launch projects",
        ),
        ("kl", "app = [\"./caller\"]", "is for custom-op projects"),
        (
            "kl",
            "program = \"../escape\"",
            "not a path inside the build folder",
        ),
        (
            "kl",
            "program = \"/usr/bin/env\"",
            "not a path inside the build folder",
        ),
        ("", "app = []", "the app of op `add_custom` is empty"),
    ];
    for (project, line, message) in cases {
        let text = with_program(project, line);
        let e = error_of(&text);
        assert!(e.to_string().contains(message), "{line}: {e}");
        assert_eq!(
            e.location.as_ref().map(|l| l.1),
            Some(line_of(&text, line)),
            "{line}"
        );
    }
    let text = with_program("", "app = [\"./build/caller\", \"--op\", \"add\"]");
    assert_eq!(
        load(&text).unwrap().ops[0].app.as_deref(),
        Some(&["./build/caller".to_string(), "--op".into(), "add".into()][..])
    );
}

#[test]
fn tensor_files_stay_inside_the_project_and_apart() {
    let with_file = |file: &str| {
        fixture_text().replacen(
            "shape = [48, 16384]",
            &format!("shape = [48, 16384]\nfile = \"{file}\""),
            1,
        )
    };
    for (file, message) in [
        ("../x.bin", "outside the project"),
        ("/tmp/x.bin", "absolute path"),
        ("input/", "names a folder"),
    ] {
        let text = with_file(file);
        let e = error_of(&text);
        assert!(e.to_string().contains(message), "{file}: {e}");
        assert_eq!(
            e.location.as_ref().map(|l| l.1),
            Some(line_of(&text, "file = ")),
            "{file}"
        );
    }
    let e = error_of(&with_file("input/input_y.bin"));
    assert!(
        e.to_string()
            .contains("two tensors of op `add_custom` use the file `input/input_y.bin`"),
        "{e}"
    );
}

/// The fixture's output `z` renamed: `name = "<to>"`.
fn output_named(to: &str) -> String {
    fixture_text().replace("name = \"z\"", &format!("name = \"{to}\""))
}

#[test]
fn an_output_may_share_its_name_with_an_input() {
    // Ops whose names do not clash keep their shape key (existing lockfile entries stay valid).
    let m = load(&fixture_text()).unwrap();
    assert_eq!(
        m.ops[0].shape_key(),
        "x:float16[48,16384] y:float16[48,16384] z:float16[48,16384]"
    );
    let m = load(&output_named("x")).unwrap();
    let op = &m.ops[0];
    assert_eq!(
        (
            op.inputs[0].key.as_str(),
            op.outputs[0].name.as_str(),
            op.outputs[0].key.as_str()
        ),
        ("x", "x", "x_ref")
    );
    assert_eq!(
        op.shape_key(),
        "x:float16[48,16384] y:float16[48,16384] x_ref:float16[48,16384]"
    );
    // The default data files stay apart.
    assert_eq!(
        (op.input_files[0].as_str(), op.output_files[0].as_str()),
        ("input/input_x.bin", "output/output_x.bin")
    );
    // CANN compares the names upper-cased.
    let m = load(&output_named("X")).unwrap();
    assert_eq!(m.ops[0].outputs[0].key, "X_ref");
}

#[test]
fn a_name_may_not_repeat_on_one_side_nor_give_two_tensors_one_macro() {
    let cases = [
        // Twice among the inputs.
        (
            fixture_text().replace("name = \"y\"", "name = \"x\""),
            "name = \"x\"",
            2,
            "input `x` of op `add_custom` is declared twice",
        ),
        // Twice among the outputs.
        (
            fixture_text().replace(
                "[op.tune]",
                "[[op.output]]\nname = \"z\"\ndtype = \"float16\"\nshape = [4]\n\n[op.tune]",
            ),
            "name = \"z\"",
            2,
            "output `z` of op `add_custom` is declared twice",
        ),
        // Names differing only in case share DTYPE_<NAME>.
        (
            fixture_text().replace("name = \"y\"", "name = \"X\""),
            "name = \"X\"",
            1,
            "gets the kernel macro DTYPE_X, as does the tensor `x`",
        ),
        // `x_ref` is taken by an input, so the output `x` cannot be called so.
        (
            output_named("x").replace("name = \"y\"", "name = \"x_ref\""),
            "name = \"x\"",
            2,
            "tensor `x` of op `add_custom` gets the kernel macro DTYPE_X_REF, as does the tensor `x_ref`",
        ),
    ];
    for (text, at, nth, message) in cases {
        let e = error_of(&text);
        assert!(e.to_string().contains(message), "{message}: {e}");
        let line = text
            .lines()
            .enumerate()
            .filter(|(_, l)| l.starts_with(at))
            .nth(nth - 1)
            .unwrap()
            .0
            + 1;
        assert_eq!(e.location.as_ref().map(|l| l.1), Some(line), "{message}");
    }
}

#[test]
fn an_op_may_have_no_outputs() {
    let text = fixture_text().replace(
        "[[op.output]]\nname = \"z\"\ndtype = \"float16\"\nshape = [48, 16384]\n",
        "",
    );
    let m = load(&text).unwrap();
    let op = &m.ops[0];
    assert!(op.outputs.is_empty() && op.output_files.is_empty());
    assert_eq!(op.shape_key(), "x:float16[48,16384] y:float16[48,16384]");
    assert!(op.unverified_note().unwrap().contains("has no outputs"));
    assert!(
        load(&fixture_text()).unwrap().ops[0]
            .unverified_note()
            .is_none()
    );
}

/// The default tiling header is `op_host/<name>_tiling.h` only when it defines tiling data the way the
/// device build hands it to the kernel; a host-only header of that name (the ops-nn layout) is not
/// force-included into the kernel.
#[test]
fn default_tiling_header_is_one_that_defines_tiling_data() {
    let dir = tempfile::tempdir().unwrap();
    let host = dir.path().join("op_host");
    std::fs::create_dir_all(&host).unwrap();
    let h = host.join("add_custom_tiling.h");
    std::fs::write(
        &h,
        "#include \"register/op_impl_registry.h\"\nstruct HostOnly {};\n",
    )
    .unwrap();
    let hosts = ["op_host/add_custom.cpp".to_string()];
    assert_eq!(
        default_tiling_header(dir.path(), "add_custom", &hosts),
        None
    );
    std::fs::write(
        &h,
        "BEGIN_TILING_DATA_DEF(TilingData)\nEND_TILING_DATA_DEF;\n",
    )
    .unwrap();
    assert_eq!(
        default_tiling_header(dir.path(), "add_custom", &hosts).as_deref(),
        Some("op_host/add_custom_tiling.h")
    );
}

/// `cmake-source` names the folder of a kernel-launch project's CMakeLists.txt; elsewhere, outside the
/// project, or at a folder with no CMakeLists.txt it is refused at its line.
#[test]
fn cmake_source_is_a_folder_with_a_cmakelists_inside_a_kernel_launch_project() {
    let launch = |project_extra: &str| {
        format!(
            "[project]\nlayout = \"kernel-launch\"\n{project_extra}\n[[op]]\nname = \"add_custom\"\nkernel = [\"op_kernel/add_custom.cpp\"]\n"
        )
    };
    // op_host/ holds no CMakeLists.txt in the fixture copy.
    let e = error_of(&launch("cmake-source = \"op_host\""));
    assert!(e.to_string().contains("holds no CMakeLists.txt"), "{e}");
    assert_eq!(e.location.as_ref().map(|l| l.1), Some(3));
    let e = error_of(&launch("cmake-source = \"../elsewhere\""));
    assert!(e.to_string().contains("outside the project"), "{e}");
    let e = error_of(
        "[project]\ncmake-source = \"op_host\"\n[[op]]\nname = \"add_custom\"\nhost = [\"op_host/add_custom.cpp\"]\nkernel = [\"op_kernel/add_custom.cpp\"]\n",
    );
    assert!(e.to_string().contains("for kernel-launch projects"), "{e}");
    assert!(load(&launch("")).unwrap().cmake_source.is_none());
}

/// `cmake-include` names CMake files of the larger build a kernel-launch project's CMakeLists.txt is
/// part of; a path that is no file, or the key in a custom-op project, is refused at its line.
#[test]
fn cmake_include_names_files_for_a_kernel_launch_project() {
    let launch = |project_extra: &str| {
        format!(
            "[project]\nlayout = \"kernel-launch\"\n{project_extra}\n[[op]]\nname = \"add_custom\"\nkernel = [\"op_kernel/add_custom.cpp\"]\n"
        )
    };
    let m = load(&launch("cmake-include = [\"op_host/add_custom.cpp\"]")).unwrap();
    assert_eq!(m.cmake_include, [Path::new("op_host/add_custom.cpp")]);
    let e = error_of(&launch("cmake-include = [\"cmake/none.cmake\"]"));
    assert!(
        e.to_string().contains("`cmake/none.cmake` is not a file"),
        "{e}"
    );
    assert_eq!(e.location.as_ref().map(|l| l.1), Some(3));
    let e = error_of(
        "[project]\ncmake-include = [\"op_host/add_custom.cpp\"]\n[[op]]\nname = \"add_custom\"\nhost = [\"op_host/add_custom.cpp\"]\nkernel = [\"op_kernel/add_custom.cpp\"]\n",
    );
    assert!(e.to_string().contains("for kernel-launch projects"), "{e}");
    assert!(load(&launch("")).unwrap().cmake_include.is_empty());
}

/// `starts-processes` lets a kernel-launch program start processes (it runs without the candidate
/// filter); a custom-op project's op is refused it at its line, and it defaults to false.
#[test]
fn starts_processes_is_a_kernel_launch_key() {
    let launch = |extra: &str| {
        format!(
            "[project]\nlayout = \"kernel-launch\"\n[[op]]\nname = \"add_custom\"\nkernel = [\"op_kernel/add_custom.cpp\"]\n{extra}"
        )
    };
    assert!(load(&launch("starts-processes = true\n")).unwrap().ops[0].starts_processes);
    assert!(!load(&launch("")).unwrap().ops[0].starts_processes);
    let e = error_of(
        "[[op]]\nname = \"add_custom\"\nhost = [\"op_host/add_custom.cpp\"]\nkernel = [\"op_kernel/add_custom.cpp\"]\nstarts-processes = true\n",
    );
    assert!(e.to_string().contains("for kernel-launch projects"), "{e}");
    assert_eq!(e.location.as_ref().map(|l| l.1), Some(5));
}

/// `prepare` / `verify` (an example's own gen_data and verify scripts) are read for kernel-launch
/// projects, refused elsewhere and when empty, and a `verify` counts as checking an op with no outputs.
#[test]
fn prepare_and_verify_are_kernel_launch_commands() {
    let launch = fixture_text()
        .replacen("[project]\n", "[project]\nlayout = \"kernel-launch\"\n", 1)
        .replace(
            "[[op.output]]\nname = \"z\"\ndtype = \"float16\"\nshape = [48, 16384]\n",
            "",
        );
    let with =
        |extra: &str, text: &str| text.replacen("[[op]]\n", &format!("[[op]]\n{extra}\n"), 1);
    let cmds = "prepare = [\"python3\", \"scripts/gen_data.py\"]\nverify = [\"python3\", \"scripts/verify_result.py\", \"output/output.bin\"]";
    let m = load(&with(cmds, &launch)).unwrap();
    let op = &m.ops[0];
    assert_eq!(
        op.prepare.as_deref().unwrap(),
        [["python3", "scripts/gen_data.py"]]
    );
    assert_eq!(op.verify.as_deref().unwrap()[0][2], "output/output.bin");
    // several commands, run in order
    let several = "prepare = [[\"python3\", \"scripts/gen_data.py\", \"--case-num\", \"0\"], [\"python3\", \"scripts/gen_data.py\", \"--case-num\", \"1\"]]";
    let m = load(&with(several, &launch)).unwrap();
    assert_eq!(m.ops[0].prepare.as_ref().unwrap().len(), 2);
    assert_eq!(m.ops[0].prepare.as_ref().unwrap()[1][3], "1");
    let e = load(&with("prepare = [[\"python3\"], []]", &launch)).unwrap_err();
    assert!(
        e.message.contains("a prepare command of op"),
        "{}",
        e.message
    );
    assert!(op.unverified_note().is_none());
    let plain = load(&launch).unwrap();
    assert!(plain.ops[0].prepare.is_none() && plain.ops[0].unverified_note().is_some());

    let e = load(&with(cmds, &fixture_text())).unwrap_err();
    assert!(
        e.message.contains("is for kernel-launch projects"),
        "{}",
        e.message
    );
    let e = load(&with("verify = []", &launch)).unwrap_err();
    assert!(
        e.message
            .contains("a verify command of op `add_custom` is empty"),
        "{}",
        e.message
    );
}

/// `cmake-defines` (what an example's CMakeLists.txt stops without) are read for kernel-launch projects,
/// refused elsewhere, and a definition that is no `NAME=VALUE` is refused naming it.
#[test]
fn cmake_defines_are_kernel_launch_definitions() {
    let launch =
        fixture_text().replacen("[project]\n", "[project]\nlayout = \"kernel-launch\"\n", 1);
    let with =
        |extra: &str, text: &str| text.replacen("[[op]]\n", &format!("[[op]]\n{extra}\n"), 1);
    let m = load(&with(
        "cmake-defines = [\"SCENARIO_NUM=1\", \"FAST\"]",
        &launch,
    ))
    .unwrap();
    assert_eq!(m.ops[0].cmake_defines, ["SCENARIO_NUM=1", "FAST"]);
    assert!(load(&launch).unwrap().ops[0].cmake_defines.is_empty());
    let e = load(&with(
        "cmake-defines = [\"SCENARIO_NUM=1\"]",
        &fixture_text(),
    ))
    .unwrap_err();
    assert!(
        e.message
            .contains("`cmake-defines` of op `add_custom` is for kernel-launch projects"),
        "{}",
        e.message
    );
    let e = load(&with("cmake-defines = [\"-DSCENARIO_NUM=1\"]", &launch)).unwrap_err();
    assert!(
        e.message.contains(
            "`-DSCENARIO_NUM=1` in cmake-defines of op `add_custom` is not a CMake definition"
        ),
        "{}",
        e.message
    );
}

/// `[[op.shape]]`: further shapes, each with the dims of the tensors it names (the others keep theirs),
/// named and weighted; `OpSpec::cases` gives the declared shape first.
#[test]
fn further_shapes_read_with_their_weights_and_bad_ones_are_refused() {
    let with = |extra: &str| format!("{}\n{extra}\n", fixture_text());
    let m = load(&with(
        "[[op.shape]]\nname = \"short-rows\"\nweight = 2.0\ndims = { x = [8, 2048], y = [8, 2048], z = [8, 2048] }\n\n[[op.shape]]\ndims = { x = [1, 16384], y = [1, 16384], z = [1, 16384] }",
    ))
    .unwrap();
    let op = &m.ops[0];
    assert_eq!(op.weight, 1.0);
    let cases: Vec<(String, f64, String)> = op
        .cases()
        .into_iter()
        .map(|(n, w, o)| (n, w, o.shape_key()))
        .collect();
    assert_eq!(
        cases,
        [
            (
                "declared".to_string(),
                1.0,
                "x:float16[48,16384] y:float16[48,16384] z:float16[48,16384]".to_string()
            ),
            (
                "short-rows".to_string(),
                2.0,
                "x:float16[8,2048] y:float16[8,2048] z:float16[8,2048]".to_string()
            ),
            (
                "shape-3".to_string(),
                1.0,
                "x:float16[1,16384] y:float16[1,16384] z:float16[1,16384]".to_string()
            ),
        ]
    );
    assert!(op.cases().iter().all(|(_, _, o)| o.shapes.is_empty()));

    let shape = |body: &str| with(&format!("[[op.shape]]\n{body}"));
    let e = error_of(&shape("dims = { w = [8, 2048] }"));
    assert!(
        e.to_string().contains("`w`, which is no input or output"),
        "{e}"
    );
    let e = error_of(&shape("weight = 0.0\ndims = { x = [8, 2048] }"));
    assert!(e.to_string().contains("not a positive number"), "{e}");
    let e = error_of(&shape("dims = { x = [8, 0] }"));
    assert!(e.to_string().contains("impossible"), "{e}");
    let e = error_of(&shape("name = \"declared\"\ndims = { x = [8, 2048] }"));
    assert!(e.to_string().contains("two shapes named `declared`"), "{e}");
    let e = error_of(&shape("dims = { x = [48, 16384] }"));
    assert!(
        e.to_string()
            .contains("gives the same tensors as the shape `declared`"),
        "{e}"
    );
    let e = error_of(&shape("name = \"a b\"\ndims = { x = [8, 2048] }"));
    assert!(e.to_string().contains("is not a plain name"), "{e}");
    let e = error_of(&shape("dims = { x = [8, 2048] }\nbatch = 3"));
    assert!(e.to_string().contains("unknown field `batch`"), "{e}");
}
