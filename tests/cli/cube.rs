//! Cube fixtures: `fixtures/matmul_custom` (the high-level Matmul with the host's matmul tiling), naive
//! (one core, 32 x 32 x 32 base blocks) and reference (8 cores, 128 x 256 x 64), each run on the twin and
//! checked against c = a x b + bias computed here in f64; the reference must be clearly faster in the
//! model, and the naive one must use one cube core and the reference eight. And `fixtures/matmul_launch`
//! (the basic cube API in a kernel-launch project with its own CMake), naive and reference, through
//! `cargo ascend-tune run` on the twin: c = a x b checked here in f64, the reference clearly faster.

#[allow(unused_imports)]
use super::*;

#[test]
fn matmul_custom_naive_and_reference_match_rust() {
    let (m, k, n) = (256usize, 256usize, 256usize);
    let mut latency = vec![];
    for (variant, cores) in [(None, 1u32), (Some("reference"), 8)] {
        let run = run_fixture("matmul_custom", variant);
        let (a, b, bias) = (run.input(0), run.input(1), run.input(2));
        let want: Vec<f64> = (0..m * n)
            .map(|e| {
                let (i, j) = (e / n, e % n);
                bias[j] + (0..k).map(|t| a[i * k + t] * b[t * n + j]).sum::<f64>()
            })
            .collect();
        // f32 accumulation of 256 products of magnitude <= 1.
        assert_close(
            &format!("matmul_custom {variant:?}"),
            &run.output(0),
            &want,
            1e-4,
            1e-5,
        );
        assert!(run.measurement.modelled);
        assert_eq!(
            run.measurement.block_dim, cores,
            "{variant:?}: the tiling's usedCoreNum is the block dim"
        );
        latency.push(run.latency_us());
    }
    assert!(
        latency[1] * 4.0 < latency[0],
        "reference {} us vs naive {} us",
        latency[1],
        latency[0]
    );
}

/// `fixtures/matmul_epilogue`: c = relu(a x b + bias) as a KERNEL_TYPE_MIX_AIC_1_2 kernel (the AIC's Matmul
/// into a GM workspace, the AIVs' bias and ReLU), naive (one logical core, 32^3 base blocks, one flag after
/// the whole product) and reference (four logical cores, one flag per base block): both checked here
/// against the product computed in f64, the reference clearly faster in the model, and the model sees
/// the cube pipes (AIC) and the vector pipes (AIVs) at work.
#[test]
fn matmul_epilogue_mixed_naive_and_reference_match_rust() {
    let (m, k, n) = (256usize, 128usize, 256usize);
    let mut latency = vec![];
    for (variant, cores) in [(None, 1u32), (Some("reference"), 4)] {
        let run = run_fixture("matmul_epilogue", variant);
        let (a, b, bias) = (run.input(0), run.input(1), run.input(2));
        let want: Vec<f64> = (0..m * n)
            .map(|e| {
                let (i, j) = (e / n, e % n);
                (bias[j] + (0..k).map(|t| a[i * k + t] * b[t * n + j]).sum::<f64>()).max(0.0)
            })
            .collect();
        assert_close(
            &format!("matmul_epilogue {variant:?}"),
            &run.output(0),
            &want,
            1e-4,
            1e-5,
        );
        assert!(run.measurement.modelled);
        assert_eq!(run.measurement.block_dim, cores, "{variant:?}");
        latency.push(run.latency_us());
    }
    eprintln!(
        "matmul_epilogue: naive {} us, reference {} us (modelled)",
        latency[0], latency[1]
    );
    assert!(
        latency[1] * 4.0 < latency[0],
        "reference {} us vs naive {} us",
        latency[1],
        latency[0]
    );
}

/// The kernel-launch matmul, naive (32 x 32 x 32 blocks, single-buffered, one block) and reference
/// (64 x 64 x 64, double-buffered, 16 blocks): each project built by its own CMakeLists.txt against the
/// twin package and run by `run`; the kept run's inputs and output give c = a x b, computed here.
#[test]
fn matmul_launch_naive_and_reference_run_through_their_cmake_and_match_rust() {
    use super::cann::without_cann;
    if !super::cmake::have_cmake(
        "matmul_launch_naive_and_reference_run_through_their_cmake_and_match_rust",
    ) {
        return;
    }
    let (m, k, n) = (256usize, 256usize, 256usize);
    let base = Path::new(FIXTURES).join("matmul_launch");
    let read = |dtype, path: &Path| {
        decode(
            dtype,
            &std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display())),
        )
    };
    let mut latency = vec![];
    for (reference, blocks) in [(false, 1u64), (true, 16)] {
        let dir = tempfile::tempdir().unwrap();
        copy_tree(&base, dir.path());
        if reference {
            copy_tree(&base.join("reference"), dir.path());
        }
        let home = tempfile::tempdir().unwrap();
        let keep = PathBuf::from("1");
        let out = without_cann(
            dir.path(),
            home.path(),
            &["run", "--message-format", "json"],
            &[("ASCEND_TUNE_KEEP_RUNS", &keep)],
        );
        assert!(
            out.status.success(),
            "reference {reference}: {:?}",
            text(&out)
        );
        let measured = record(&out, "op-measured");
        assert_eq!(measured["backend"], "twin", "{measured}");
        assert_eq!(measured["modelled"], true, "{measured}");
        assert_eq!(measured["block_dim"], blocks, "{measured}");
        let runs = kept_runs(dir.path());
        assert_eq!(runs.len(), 1, "{runs:?}");
        use ascend_tune::manifest::DType;
        let a = read(DType::Float16, &runs[0].join("input/input_a.bin"));
        let b = read(DType::Float16, &runs[0].join("input/input_b.bin"));
        let c = read(DType::Float32, &runs[0].join("output/output_c.bin"));
        assert_eq!((a.len(), b.len()), (m * k, k * n));
        assert!(
            a.iter().any(|v| *v != 0.0) && a != b,
            "inputs were not generated"
        );
        let want: Vec<f64> = (0..m * n)
            .map(|e| {
                let (i, j) = (e / n, e % n);
                (0..k).map(|t| a[i * k + t] * b[t * n + j]).sum::<f64>()
            })
            .collect();
        // f32 accumulation of 256 products of magnitude <= 1.
        assert_close(
            &format!("matmul_launch reference {reference}"),
            &c,
            &want,
            1e-4,
            1e-5,
        );
        latency.push(measured["latency_us"].as_f64().unwrap());
    }
    eprintln!(
        "matmul_launch: naive {} us, reference {} us",
        latency[0], latency[1]
    );
    assert!(
        latency[1] * 10.0 < latency[0],
        "reference {} us vs naive {} us",
        latency[1],
        latency[0]
    );
}

/// `init` on fixtures/matmul_custom without its manifest finds the matmul tiling's parameters where the
/// host sets them (`SetDim(CORE_NUM)`, `SetFixSplit(BASE_M, BASE_N, BASE_K)`) as the hand-written
/// manifest has them: the same names and symbols, base blocks as powers of two from 16 to 256, the
/// core split within the SoC's 24 cube cores (not its 48 vector cores); all four survive init's probe
/// (the op runs as written and each changes the trace).
#[test]
fn init_finds_the_matmul_tilings_parameters_as_the_hand_written_manifest_has_them() {
    use ascend_tune::manifest::{Bind, Manifest};
    let dir = project("matmul_custom");
    let p = dir.path();
    let hand = Manifest::load(&p.join("ascend.toml")).unwrap();
    std::fs::remove_file(p.join("ascend.toml")).unwrap();
    std::fs::remove_dir_all(p.join("reference")).ok();
    git(p, &["commit", "-q", "-am", "no manifest"]);
    let out = cargo_ascend_tune(
        p,
        &[
            "init",
            "--shape",
            "a=256x256",
            "--shape",
            "b=256x256",
            "--shape",
            "bias=256",
        ],
    );
    assert!(out.status.success(), "{:?}", text(&out));
    let (_, stderr) = text(&out);
    assert!(!stderr.contains("not probed"), "{stderr}");
    let found = Manifest::load(&p.join("ascend.toml")).unwrap();
    let symbols = |m: &Manifest| -> Vec<(String, String, String)> {
        let mut v: Vec<_> = m.ops[0]
            .tunables
            .iter()
            .map(|t| {
                let Bind::Symbol(s) = &t.bind else {
                    panic!("{}: {:?}", t.name, t.bind)
                };
                (t.name.clone(), t.file.clone(), s.clone())
            })
            .collect();
        v.sort();
        v
    };
    assert_eq!(symbols(&found), symbols(&hand));
    for t in &found.ops[0].tunables {
        let values = t.domain.values();
        if t.name == "core_num" {
            assert_eq!(values, [1, 2, 4, 8, 12, 16, 20, 24], "{}", t.name);
        } else {
            assert_eq!(values, [16, 32, 64, 128, 256], "{}", t.name);
        }
        let by_hand = hand.ops[0]
            .tunables
            .iter()
            .find(|h| h.name == t.name)
            .unwrap();
        assert!(
            by_hand.domain.values().iter().all(|v| values.contains(v)),
            "{}: {:?} misses some of the hand-written {:?}",
            t.name,
            values,
            by_hand.domain.values()
        );
    }
}

/// `init` with no `--shape` gives a matmul operands that agree (A [M, K] and B [K, N] square), so the op
/// runs as init wrote it; the [48, 16384] default of vector ops gave A and B different K, and the kernel
/// read B out of bounds (init then kept every tunable unprobed).
#[test]
fn init_without_shapes_gives_a_matmul_operands_that_agree() {
    use ascend_tune::manifest::Manifest;
    let dir = project("matmul_custom");
    let p = dir.path();
    std::fs::remove_file(p.join("ascend.toml")).unwrap();
    std::fs::remove_dir_all(p.join("reference")).ok();
    git(p, &["commit", "-q", "-am", "no manifest"]);
    let out = cargo_ascend_tune(p, &["init"]);
    assert!(out.status.success(), "{:?}", text(&out));
    let (_, stderr) = text(&out);
    assert!(!stderr.contains("not probed"), "{stderr}");
    assert!(stderr.contains("a matmul: operands square"), "{stderr}");
    let found = Manifest::load(&p.join("ascend.toml")).unwrap();
    let shape = |name: &str| {
        found.ops[0]
            .inputs
            .iter()
            .chain(&found.ops[0].outputs)
            .find(|t| t.name == name)
            .unwrap()
            .shape
            .clone()
    };
    assert_eq!(shape("a"), [512, 512]);
    assert_eq!(shape("b"), [512, 512]);
    assert_eq!(shape("bias"), [512]);
    assert_eq!(shape("c"), [512, 512]);
}

/// `fixtures/matmul_epilogue` at the tune's tail probe shape (M = N = 251, no multiple of 8, K = 128) on
/// one, two and four logical cores, naive and reference: each agrees with the product computed here in
/// f64. Both kernels once copied the AIV's rows with DataCopy in whole 32 B blocks (the row length
/// truncated), so at such an N the last columns of a row (or of a core's part) were never written, and
/// the tail probe rejected every candidate on more than one core.
#[test]
fn matmul_epilogue_serves_an_unaligned_n_on_every_core_count() {
    let k = 128usize;
    // (M = N, cores, variant); M = N = 1 is the one-element probe: a one-row tile once put the twin's
    // Mmad in GEMV mode on fractal data and summed only every other 16 of K.
    let cases = [251usize, 1].into_iter().flat_map(|mn| {
        [None, Some("reference")]
            .into_iter()
            .flat_map(move |v| [1u32, 2, 4].into_iter().map(move |c| (mn, c, v)))
    });
    for (mn, cores, variant) in cases {
        let (m, n) = (mn, mn);
        {
            let dir = tempfile::tempdir().unwrap();
            let base = Path::new(FIXTURES).join("matmul_epilogue");
            copy_tree(&variant.map_or(base.clone(), |v| base.join(v)), dir.path());
            let toml = std::fs::read_to_string(base.join("ascend.toml"))
                .unwrap()
                .replace("shape = [256, 128]", &format!("shape = [{mn}, 128]"))
                .replace("shape = [128, 256]", &format!("shape = [128, {mn}]"))
                .replace("shape = [256]", &format!("shape = [{mn}]"))
                .replace("shape = [256, 256]", &format!("shape = [{mn}, {mn}]"));
            std::fs::write(dir.path().join("ascend.toml"), toml).unwrap();
            let host = dir.path().join("op_host/matmul_epilogue.cpp");
            let src = std::fs::read_to_string(&host).unwrap();
            let line = src.lines().find(|l| l.contains("CORE_NUM =")).unwrap();
            let src = src.replace(
                line,
                &format!("const int32_t CORE_NUM = {cores}; // set by the test"),
            );
            std::fs::write(&host, src).unwrap();
            let (manifest, b) = open_project(dir.path());
            let op = manifest.ops[0].clone();
            let inputs = ascend_tune::tune::inputs(&op);
            let artifact = b
                .build(&op, &Default::default())
                .unwrap_or_else(|f| panic!("{variant:?} x{cores}: {}", f.message));
            let run = FixtureRun {
                measurement: b
                    .run(&op, &artifact, &inputs, false)
                    .unwrap_or_else(|f| panic!("{variant:?} x{cores}: {}", f.message)),
                op,
                inputs,
            };
            let (a, bm, bias) = (run.input(0), run.input(1), run.input(2));
            let want: Vec<f64> = (0..m * n)
                .map(|e| {
                    let (i, j) = (e / n, e % n);
                    (bias[j] + (0..k).map(|t| a[i * k + t] * bm[t * n + j]).sum::<f64>()).max(0.0)
                })
                .collect();
            assert_close(
                &format!("matmul_epilogue {variant:?} on {cores} cores at [{mn}, {mn}]"),
                &run.output(0),
                &want,
                1e-4,
                1e-5,
            );
        }
    }
}

/// The matmul-mdl motif from the command line: `fixtures/matmul_custom` at its naive tiling (one core,
/// 32^3 base blocks, stepKa chunks of K one after another; its tunables left out so the host stays
/// there) is tuned; the loop moves its Matmul to `CFG_MDL` (the next chunk loads into L1 while the cube
/// works), keeps it as faster in the model, writes it back; the written-back kernel still gives
/// c = a x b + bias computed here in f64, and `bank mine` on the tuned project rewinds it to CFG_NORM
/// as a lesson.
#[test]
fn tune_moves_the_naive_matmul_to_the_mdl_template_and_it_still_agrees() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path();
    copy_tree(&Path::new(FIXTURES).join("matmul_custom"), p);
    let toml = std::fs::read_to_string(p.join("ascend.toml")).unwrap();
    // No tunables, and so none of the constraints that name them.
    let toml = &toml[..toml.find("[[op.tunable]]").unwrap()];
    let (head, rest) = toml.split_at(toml.find("constraints = [").unwrap());
    let toml = format!("{head}{}", &rest[rest.find("]\n").unwrap() + 2..]);
    std::fs::write(p.join("ascend.toml"), toml).unwrap();
    commit_all(p, "operator");
    let kernel = "op_kernel/matmul_custom.cpp";
    let before = std::fs::read_to_string(p.join(kernel)).unwrap();
    let out = cargo_ascend_tune(p, &["tune", "--budget", "4", "--seed", "1"]);
    let (_, stderr) = text(&out);
    assert!(out.status.success(), "tune failed: {stderr}");
    assert!(stderr.contains("matmul-mdl kept"), "{stderr}");
    let after = std::fs::read_to_string(p.join(kernel)).unwrap();
    assert!(
        after.contains("Matmul<AType, BType, CType, BiasType, CFG_MDL> mm;"),
        "{after}"
    );
    assert_eq!(after.replace(", CFG_MDL>", ">"), before);

    let (manifest, b) = open_project(p);
    let op = manifest.ops[0].clone();
    let inputs = ascend_tune::tune::inputs(&op);
    let artifact = b
        .build(&op, &Default::default())
        .unwrap_or_else(|f| panic!("{}", f.message));
    let run = FixtureRun {
        measurement: b
            .run(&op, &artifact, &inputs, false)
            .unwrap_or_else(|f| panic!("{}", f.message)),
        op,
        inputs,
    };
    let (m, k, n) = (256usize, 256usize, 256usize);
    let (a, bm, bias) = (run.input(0), run.input(1), run.input(2));
    let want: Vec<f64> = (0..m * n)
        .map(|e| {
            let (i, j) = (e / n, e % n);
            bias[j] + (0..k).map(|t| a[i * k + t] * bm[t * n + j]).sum::<f64>()
        })
        .collect();
    assert_close(
        "matmul_custom on CFG_MDL",
        &run.output(0),
        &want,
        1e-4,
        1e-5,
    );

    let bank = tempfile::tempdir().unwrap();
    let out = cargo_ascend_tune(
        bank.path(),
        &[
            "bank",
            "mine",
            p.to_str().unwrap(),
            "--out",
            "b.toml",
            "--motifs",
            "matmul-mdl",
        ],
    );
    let (stdout, stderr) = text(&out);
    assert!(out.status.success(), "{stdout}\n{stderr}");
    let mined = std::fs::read_to_string(bank.path().join("b.toml")).unwrap();
    assert!(mined.contains("motif = \"matmul-mdl\""), "{mined}");
}

/// A matmul shaped like the UnitFlag case of the best-practice guide (`bp_unitflag`: M = 128, K = 64,
/// base blocks 128 x 256 x 64, singleCoreN = 1536, so six base blocks a core; here on two cores,
/// N = 3072, half C) on the MDL template, which leaves UnitFlag off: `fixtures/matmul_custom`'s reference
/// with those edits and no tunables. Tune turns UnitFlag on (matmul-unitflag), keeps it as faster in
/// the model, writes it back; the written-back kernel still gives c = a x b + bias computed here in f64,
/// and `bank mine` rewinds it as a lesson.
#[test]
fn tune_turns_unit_flag_on_for_an_mdl_matmul_shaped_like_bp_unitflag() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path();
    let base = Path::new(FIXTURES).join("matmul_custom");
    copy_tree(&base.join("reference"), p);
    let (m, k, n) = (128usize, 64usize, 3072usize);
    let toml = std::fs::read_to_string(base.join("ascend.toml")).unwrap();
    let toml = &toml[..toml.find("[[op.tunable]]").unwrap()];
    let (head, rest) = toml.split_at(toml.find("constraints = [").unwrap());
    let toml = format!("{head}{}", &rest[rest.find("]\n").unwrap() + 2..])
        .replacen("shape = [256, 256]", &format!("shape = [{m}, {k}]"), 1)
        .replacen("shape = [256, 256]", &format!("shape = [{k}, {n}]"), 1)
        .replace("shape = [256]", &format!("shape = [{n}]"))
        .replace(
            "dtype = \"float32\"\nshape = [256, 256]",
            &format!("dtype = \"float16\"\nshape = [{m}, {n}]"),
        );
    std::fs::write(p.join("ascend.toml"), toml).unwrap();
    let edit = |file: &str, pairs: &[(&str, &str)]| {
        let mut s = std::fs::read_to_string(p.join(file)).unwrap();
        for (from, to) in pairs {
            assert!(s.contains(from), "{file}: {from}");
            s = s.replace(from, to);
        }
        std::fs::write(p.join(file), s).unwrap();
    };
    edit(
        "matmul_custom.json",
        &[(
            "{\"name\": \"c\", \"param_type\": \"required\", \"format\": [\"ND\"], \"type\": [\"float\"]}",
            "{\"name\": \"c\", \"param_type\": \"required\", \"format\": [\"ND\"], \"type\": [\"fp16\"]}",
        )],
    );
    edit(
        "op_host/matmul_custom.cpp",
        &[
            ("CORE_NUM = 8", "CORE_NUM = 2"),
            (
                "SetCType(matmul_tiling::TPosition::GM, matmul_tiling::CubeFormat::ND, matmul_tiling::DataType::DT_FLOAT)",
                "SetCType(matmul_tiling::TPosition::GM, matmul_tiling::CubeFormat::ND, matmul_tiling::DataType::DT_FLOAT16)",
            ),
            (
                "SetOutputDataType(0, ge::DT_FLOAT)",
                "SetOutputDataType(0, ge::DT_FLOAT16)",
            ),
        ],
    );
    let kernel = "op_kernel/matmul_custom.cpp";
    edit(
        kernel,
        &[
            (
                "using CType = MatmulType<TPosition::GM, CubeFormat::ND, float>;",
                "using CType = MatmulType<TPosition::GM, CubeFormat::ND, half>;",
            ),
            (
                "GlobalTensor<float> biasGm, cGm;",
                "GlobalTensor<float> biasGm;\n    GlobalTensor<half> cGm;",
            ),
            (
                "cGm.SetGlobalBuffer((__gm__ float *)c",
                "cGm.SetGlobalBuffer((__gm__ half *)c",
            ),
            (
                "Matmul<AType, BType, CType, BiasType> mm;",
                "Matmul<AType, BType, CType, BiasType, CFG_MDL> mm;",
            ),
        ],
    );
    commit_all(p, "operator");
    let out = cargo_ascend_tune(p, &["tune", "--budget", "4", "--seed", "1"]);
    let (_, stderr) = text(&out);
    assert!(out.status.success(), "tune failed: {stderr}");
    assert!(stderr.contains("matmul-unitflag kept"), "{stderr}");
    let after = std::fs::read_to_string(p.join(kernel)).unwrap();
    assert!(
        after.contains("Matmul<AType, BType, CType, BiasType, CFG_MDL_UNITFLAG> mm;")
            && after.contains(
                "constexpr static MatmulConfig CFG_MDL_UNITFLAG = GetMDLConfig(false, false, 0, false, false, false, true);"
            ),
        "{after}"
    );

    let (manifest, b) = open_project(p);
    let op = manifest.ops[0].clone();
    let inputs = ascend_tune::tune::inputs(&op);
    let artifact = b
        .build(&op, &Default::default())
        .unwrap_or_else(|f| panic!("{}", f.message));
    let run = FixtureRun {
        measurement: b
            .run(&op, &artifact, &inputs, false)
            .unwrap_or_else(|f| panic!("{}", f.message)),
        op,
        inputs,
    };
    let (a, bm, bias) = (run.input(0), run.input(1), run.input(2));
    let want: Vec<f64> = (0..m * n)
        .map(|e| {
            let (i, j) = (e / n, e % n);
            bias[j] + (0..k).map(|t| a[i * k + t] * bm[t * n + j]).sum::<f64>()
        })
        .collect();
    // Half output: one rounding of a sum of magnitude up to ~65.
    assert_close("matmul with UnitFlag", &run.output(0), &want, 2e-3, 1e-3);

    let bank = tempfile::tempdir().unwrap();
    let out = cargo_ascend_tune(
        bank.path(),
        &[
            "bank",
            "mine",
            p.to_str().unwrap(),
            "--out",
            "b.toml",
            "--motifs",
            "matmul-unitflag",
        ],
    );
    let (stdout, stderr) = text(&out);
    assert!(out.status.success(), "{stdout}\n{stderr}");
    let mined = std::fs::read_to_string(bank.path().join("b.toml")).unwrap();
    assert!(mined.contains("motif = \"matmul-unitflag\""), "{mined}");
}

/// Constant tiling on the twin, shaped like the guide's `bp_const_tiling` case (M = 128, K = 64, base
/// blocks 128 x 256 x 64; here two cores, N = 3072, so singleCoreN = 1536): `fixtures/matmul_custom`'s
/// reference on CFG_MDL with its runtime tiling, and the same kernel with the fully constant form the
/// guide gives (`GetMMConfig<CONFIG_MDL>(MatmulShapeParams)`, `GetMatmulApiTiling`, a null tiling in
/// REGIST_MATMUL_OBJ, the original shape set with SetOrgShape). Both give c = a x b + bias computed here
/// in f64, and the constant one is faster in the model by the runtime tiling's scalar work; a partial
/// form whose base shape disagrees with the runtime tiling's is a fault naming both.
#[test]
fn constant_tiling_matmul_agrees_and_saves_the_runtime_tilings_scalar_work() {
    let (m, k, n) = (128usize, 64usize, 3072usize);
    let mut latency = vec![];
    for form in ["runtime", "constant", "partial-mismatch"] {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path();
        let base = Path::new(FIXTURES).join("matmul_custom");
        copy_tree(&base.join("reference"), p);
        let toml = std::fs::read_to_string(base.join("ascend.toml")).unwrap();
        let toml = &toml[..toml.find("[[op.tunable]]").unwrap()];
        let toml = toml
            .replacen("shape = [256, 256]", &format!("shape = [{m}, {k}]"), 1)
            .replacen("shape = [256, 256]", &format!("shape = [{k}, {n}]"), 1)
            .replace("shape = [256]", &format!("shape = [{n}]"))
            .replace("shape = [256, 256]", &format!("shape = [{m}, {n}]"));
        std::fs::write(p.join("ascend.toml"), toml).unwrap();
        let edit = |file: &str, pairs: &[(&str, String)]| {
            let mut s = std::fs::read_to_string(p.join(file)).unwrap();
            for (from, to) in pairs {
                assert!(s.contains(from), "{file}: {from}");
                s = s.replace(from, to);
            }
            std::fs::write(p.join(file), s).unwrap();
        };
        edit(
            "op_host/matmul_custom.cpp",
            &[("CORE_NUM = 8", "CORE_NUM = 2".into())],
        );
        let (shape, regist) = match form {
            "runtime" => (None, "&t"),
            "constant" => (
                Some("{128, 1536, 64, 128, 256, 64}"),
                "(TCubeTiling *)nullptr",
            ),
            _ => (Some("{0, 0, 0, 128, 128, 64}"), "&t"),
        };
        let mut pairs = vec![(
            "Matmul<AType, BType, CType, BiasType> mm;",
            match shape {
                None => "Matmul<AType, BType, CType, BiasType, CFG_MDL> mm;".to_string(),
                Some(_) => "Matmul<AType, BType, CType, BiasType, CONSTANT_TILING> mm;".to_string(),
            },
        )];
        if let Some(s) = shape {
            pairs.push((
                "extern \"C\"",
                format!(
                    "constexpr MatmulShapeParams SHAPE = {s};\n\
                     constexpr MatmulConfig CONST_CFG = GetMMConfig<MatmulConfigMode::CONFIG_MDL>(SHAPE);\n\
                     constexpr static auto CONSTANT_TILING = GetMatmulApiTiling<AType, BType, CType, BiasType>(CONST_CFG);\n\
                     extern \"C\""
                ),
            ));
            pairs.push((
                "REGIST_MATMUL_OBJ(&pipe, GetSysWorkSpacePtr(), mm, &t);",
                format!(
                    "REGIST_MATMUL_OBJ(&pipe, GetSysWorkSpacePtr(), mm, {regist});\n    mm.SetOrgShape(t.M, t.N, t.Ka);"
                ),
            ));
        }
        edit("op_kernel/matmul_custom.cpp", &pairs);
        let (manifest, b) = open_project(p);
        let op = manifest.ops[0].clone();
        let inputs = ascend_tune::tune::inputs(&op);
        let artifact = b
            .build(&op, &Default::default())
            .unwrap_or_else(|f| panic!("{form}: {}", f.message));
        let measured = b.run(&op, &artifact, &inputs, false);
        // A constant base shape that differs from the runtime tiling's is what runs, as it is
        // compiled in (GetMatmulApiTiling.md), and the run warns of it; the result is still c.
        if form == "partial-mismatch" {
            let m = measured
                .as_ref()
                .unwrap_or_else(|f| panic!("{form}: {}", f.message));
            assert!(
                m.warnings.iter().any(|w| w
                    .contains("constant tiling's base shape 128 x 128 x 64")
                    && w.contains("128 x 256 x 64")),
                "{:?}",
                m.warnings
            );
        }
        let run = FixtureRun {
            measurement: measured.unwrap_or_else(|f| panic!("{form}: {}", f.message)),
            op,
            inputs,
        };
        let (a, bm, bias) = (run.input(0), run.input(1), run.input(2));
        let want: Vec<f64> = (0..m * n)
            .map(|e| {
                let (i, j) = (e / n, e % n);
                bias[j] + (0..k).map(|t| a[i * k + t] * bm[t * n + j]).sum::<f64>()
            })
            .collect();
        assert_close(&format!("{form} tiling"), &run.output(0), &want, 1e-4, 1e-5);
        latency.push(run.latency_us());
    }
    eprintln!(
        "bp_const_tiling-shaped matmul: runtime tiling {} us, constant {} us (modelled)",
        latency[0], latency[1]
    );
    // Init's 1.351 us and six Iterates' 0.318 us each, less what other pipes hide.
    assert!(
        latency[1] + 1.0 < latency[0],
        "constant {} us vs runtime {} us",
        latency[1],
        latency[0]
    );
}
