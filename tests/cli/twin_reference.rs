//! The fixtures run in the twin and agree with an independent reference computed here in Rust; a
//! deliberately broken kernel is a clear, located fault.

use super::*;
use ascend_tune::backend::{FailureKind, SourceSet};
use half::f16;

fn f16s(bytes: &[u8]) -> Vec<f16> {
    bytes
        .chunks_exact(2)
        .map(|c| f16::from_le_bytes([c[0], c[1]]))
        .collect()
}

#[test]
fn naive_and_reference_add_custom_match_rust() {
    let mut latency = vec![];
    for variant in [None, Some("reference")] {
        let run = run_fixture("add_custom", variant);
        let (x, y, z) = (
            f16s(&run.inputs.tensors[0]),
            f16s(&run.inputs.tensors[1]),
            f16s(&run.measurement.outputs[0]),
        );
        assert_eq!(z.len(), 48 * 16384);
        for i in 0..z.len() {
            // IEEE binary16 addition, rounded to nearest even: what the vector unit computes.
            let want = f16::from_f32(x[i].to_f32() + y[i].to_f32());
            assert_eq!(
                z[i].to_bits(),
                want.to_bits(),
                "{variant:?}: element {i}: {} + {}",
                x[i],
                y[i]
            );
        }
        assert!(run.measurement.modelled);
        // A modelled latency is exact: its one sample is itself.
        assert_eq!(run.measurement.samples, [run.measurement.latency_us]);
        latency.push(run.latency_us());
    }
    // The AscendC guides' advice (double buffering, 16 KiB copies, all cores) wins in the model too.
    assert!(
        latency[1] * 1.5 < latency[0],
        "reference {} us vs naive {} us",
        latency[1],
        latency[0]
    );
}

#[test]
fn an_out_of_bounds_copy_is_a_located_fault() {
    let dir = tempfile::tempdir().unwrap();
    copy_tree(&Path::new(FIXTURES).join("add_custom"), dir.path());
    let (manifest, b) = open_project(dir.path());
    let op = &manifest.ops[0];
    let kernel = std::fs::read_to_string(dir.path().join("op_kernel/add_custom.cpp")).unwrap();
    let broken = kernel.replace(
        "AscendC::DataCopy(zGm[progress * this->tileLength], zLocal, this->tileLength);",
        "AscendC::DataCopy(zGm[(progress + 1) * this->tileLength], zLocal, this->tileLength);",
    );
    assert_ne!(kernel, broken);
    let line = broken
        .lines()
        .position(|l| l.contains("(progress + 1)"))
        .unwrap()
        + 1;
    let sources = SourceSet {
        overrides: [("op_kernel/add_custom.cpp".to_string(), broken)].into(),
    };
    let artifact = b.build(op, &sources).unwrap();
    let failure = b
        .run(op, &artifact, &ascend_tune::tune::inputs(op), false)
        .unwrap_err();
    assert_eq!(failure.kind, FailureKind::Fault, "{}", failure.message);
    assert!(
        failure.message.contains(&format!("add_custom.cpp:{line}")),
        "{}",
        failure.message
    );
}

/// Regression: the twin was unpacked beside the project and then renamed into a cache folder that did not
/// exist yet, and threads of one process shared one staging folder; both left a cache without sources.
#[test]
fn concurrent_first_use_of_a_fresh_build_cache() {
    let cache = tempfile::tempdir().unwrap();
    let cache = cache.path().join("not/yet/there");
    let handles: Vec<_> = (0..3)
        .map(|_| {
            let cache = cache.clone();
            std::thread::spawn(move || {
                let work = tempfile::tempdir().unwrap();
                ascend_tune::twin::Twin::prepare(work.path(), &cache)
                    .map(|_| ())
                    .map_err(|e| e.to_string())
            })
        })
        .collect();
    for h in handles {
        h.join().unwrap().unwrap();
    }
}

/// `--soc` picks the SoC table, and the tiling program's PlatformAscendC answers from the same table: the
/// reference asks GetCoreNumAiv() for its block count.
#[test]
fn soc_flag_reaches_the_tiling_function() {
    let dir = tempfile::tempdir().unwrap();
    copy_tree(
        &Path::new(FIXTURES).join("add_custom/reference"),
        dir.path(),
    );
    std::fs::copy(
        Path::new(FIXTURES).join("add_custom/ascend.toml"),
        dir.path().join("ascend.toml"),
    )
    .unwrap();
    // 786432 elements in tiles of 16384: the reference takes the most cores that divide the work evenly.
    for (soc, block_dim) in [("Ascend910B1", 48), ("Ascend910B3", 24), ("Ascend310P3", 8)] {
        let out = cargo_ascend_tune(
            dir.path(),
            &["run", "--soc", soc, "--message-format", "json"],
        );
        let m = records(&out)
            .into_iter()
            .find(|r| r["reason"] == "op-measured")
            .unwrap_or_else(|| panic!("{soc}: {:?}", text(&out)));
        assert_eq!(
            (m["soc"].as_str().unwrap(), m["block_dim"].as_u64().unwrap()),
            (soc, block_dim)
        );
    }
}

/// A template kernel picked by ASCENDC_TPL_* tiling keys (the twin's own toy op) builds and runs through
/// the tool: the launch shim includes the kernel and instantiates it from the tiling key.
#[test]
fn template_tiling_key_kernel_runs() {
    let dir = tpl_op_project(2, 1024, "range = [-4.0, 4.0]\n");
    let (manifest, b) = open_project(dir.path());
    let op = &manifest.ops[0];
    let inputs = ascend_tune::tune::inputs(op);
    let artifact = b
        .build(op, &SourceSet::default())
        .unwrap_or_else(|f| panic!("{}", f.message));
    let m = b
        .run(op, &artifact, &inputs, false)
        .unwrap_or_else(|f| panic!("{}", f.message));
    let (x, y) = (f16s(&inputs.tensors[0]), f16s(&m.outputs[0]));
    for i in 0..x.len() {
        assert_eq!(
            y[i].to_bits(),
            f16::from_f32(x[i].to_f32() * 2.0).to_bits(),
            "element {i}"
        );
    }
}

/// An `ASCENDC_TPL_SEL` that does not compile (ops-nn's clipped_swiglu_grad names an undefined
/// `TPL_FLOOR` in it; CANN reads the selection with its own tools, so its build never compiles it) is
/// built again with the selection ignored: the op builds and runs, every declared instance compiled.
#[test]
fn a_tiling_key_selection_that_does_not_compile_is_ignored() {
    let dir = tpl_op_project(2, 1024, "");
    let key = dir.path().join("op_kernel/tiling_key_tpl_op.h");
    let text = std::fs::read_to_string(&key).unwrap();
    let broken = text.replace(
        "ASCENDC_TPL_UINT_SEL(FACTOR, ASCENDC_TPL_UI_LIST, 1)",
        "ASCENDC_TPL_UINT_SEL(FACTOR, ASCENDC_TPL_UI_LIST, 1, TPL_UNDEFINED)",
    );
    assert_ne!(broken, text);
    std::fs::write(&key, broken).unwrap();
    // every combination is instantiated then: the kernel's guard against those outside the
    // selection goes
    let kernel = dir.path().join("op_kernel/tpl_op.cpp");
    let text = std::fs::read_to_string(&kernel).unwrap();
    let open = text
        .lines()
        .filter(|l| !l.contains("static_assert"))
        .collect::<Vec<_>>()
        .join("\n");
    assert_ne!(open, text);
    std::fs::write(&kernel, open).unwrap();
    let (manifest, b) = open_project(dir.path());
    let op = &manifest.ops[0];
    let artifact = b
        .build(op, &SourceSet::default())
        .unwrap_or_else(|f| panic!("{}", f.message));
    let inputs = ascend_tune::tune::inputs(op);
    let m = b
        .run(op, &artifact, &inputs, false)
        .unwrap_or_else(|f| panic!("{}", f.message));
    let (x, y) = (f16s(&inputs.tensors[0]), f16s(&m.outputs[0]));
    assert_eq!(y[7].to_bits(), f16::from_f32(x[7].to_f32() * 2.0).to_bits());
}

/// Deliberately broken kernels are failed trials with a clear, located reason, never a crash.
#[test]
fn ub_overflow_and_empty_dequeue_are_located_faults() {
    let dir = tempfile::tempdir().unwrap();
    copy_tree(&Path::new(FIXTURES).join("add_custom"), dir.path());
    let (manifest, b) = open_project(dir.path());
    let op = &manifest.ops[0];
    let kernel = std::fs::read_to_string(dir.path().join("op_kernel/add_custom.cpp")).unwrap();
    let cases = [
        // A queue buffer larger than UB.
        (
            "pipe.InitBuffer(outQueueZ, BUFFER_NUM, this->tileLength * sizeof(DTYPE_Z));",
            "pipe.InitBuffer(outQueueZ, BUFFER_NUM, 200000 * sizeof(DTYPE_Z));",
            "UB",
        ),
        // DeQue with nothing enqueued.
        (
            "inQueueY.EnQue(yLocal);",
            "inQueueY.FreeTensor(yLocal);",
            "DeQue",
        ),
    ];
    for (from, to, needle) in cases {
        let broken = kernel.replace(from, to);
        assert_ne!(broken, kernel, "{from}");
        let sources = SourceSet {
            overrides: [("op_kernel/add_custom.cpp".to_string(), broken)].into(),
        };
        let artifact = b
            .build(op, &sources)
            .unwrap_or_else(|f| panic!("{}", f.message));
        let failure = b
            .run(op, &artifact, &ascend_tune::tune::inputs(op), false)
            .unwrap_err();
        assert_eq!(
            failure.kind,
            FailureKind::Fault,
            "{needle}: {}",
            failure.message
        );
        assert!(
            failure.message.contains(needle)
                && failure.message.contains("add_custom.cpp:")
                && failure.message.contains("block 0"),
            "{}",
            failure.message
        );
    }
}

/// The tuner judges candidates against the naive operator's own outputs within the manifest's tolerance,
/// so every hand-optimised reference must pass that same check: a tolerance that rejects the reference
/// would make the kernel phase reject its rewrites too (found when vector-reduce's reassociated sums
/// failed reduce_sum's default fp32 tolerance).
#[test]
fn every_reference_passes_the_tuners_own_output_check() {
    let mut failures = vec![];
    for entry in std::fs::read_dir(FIXTURES).unwrap() {
        let dir = entry.unwrap().path();
        // Kernel-launch fixtures build with their own CMake project and check their own output
        // (tests/cli/twin_package.rs).
        if !dir.join("reference").is_dir() || ascend_tune::project::is_kernel_launch(&dir) {
            continue;
        }
        let name = dir.file_name().unwrap().to_string_lossy().into_owned();
        let naive = run_fixture(&name, None);
        let reference = run_fixture(&name, Some("reference"));
        if let Err(why) = ascend_tune::verify::outputs_match(
            &naive.op,
            &reference.measurement.outputs,
            &naive.measurement.outputs,
        ) {
            failures.push(format!("{name}: {why}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
