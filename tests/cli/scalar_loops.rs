//! Scalar-loop motifs from the command line: on a project of our own whose kernel converts half to
//! float, fills a buffer and converts back with per-element GetValue/SetValue loops, `tune` turns the
//! loops into Cast and Duplicate fenced by full barriers (vector-cast-loop, vector-fill-loop), writes
//! them back and locks them; the tuned kernel, built and run again, still computes z = half(float(x) + 1),
//! checked against a reference computed here. Last, pack-interleave on a kernel that packs pairs.

use super::*;

#[test]
fn scalar_fill_and_conversion_loops_are_vectorised_and_still_agree() {
    let dir = tempfile::tempdir().unwrap();
    let from = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/cli/projects/scalar_loop_custom");
    copy_tree(&from, dir.path());
    let p = dir.path();
    commit_all(p, "operator");
    let header = "op_kernel/scalar_loop_custom.h";
    let before = std::fs::read_to_string(p.join(header)).unwrap();
    assert_eq!(before.matches(".SetValue(").count(), 3);

    let out = cargo_ascend_tune(p, &["tune", "--budget", "8", "--seed", "1"]);
    let (stdout, stderr) = text(&out);
    assert!(out.status.success(), "tune failed: {stdout}\n{stderr}");
    let after = std::fs::read_to_string(p.join(header)).unwrap();
    // Every scalar loop is gone, each replaced by its vector op after a full barrier (the barrier after
    // the last Cast may go: drop-queue-barrier drops a full barrier just before an EnQue, whose
    // V -> MTE3 flag orders the copy out after it).
    assert!(!after.contains(".SetValue("), "{after}");
    for op in [
        "AscendC::Cast(xFloat, xLocal, AscendC::RoundMode::CAST_NONE, n);",
        "AscendC::Duplicate(ones, 1.0f, n);",
        "AscendC::Cast(zLocal, xFloat, AscendC::RoundMode::CAST_NONE, n);",
    ] {
        assert!(
            after.contains(&format!(
                "        AscendC::PipeBarrier<PIPE_ALL>();\n        {op}\n"
            )),
            "{op} not after a full barrier in:\n{after}"
        );
    }
    assert!(after.contains(
        "        AscendC::Duplicate(ones, 1.0f, n);\n        AscendC::PipeBarrier<PIPE_ALL>();\n"
    ));
    let lock = std::fs::read_to_string(p.join("ascend-tune.lock")).unwrap();
    assert!(
        lock.contains("vector-cast-loop") && lock.contains("vector-fill-loop"),
        "{lock}"
    );

    // The tuned sources, built and run afresh, against z = half(float(x) + 1) computed here.
    let (x, z) = first_input_and_output(p);
    let want: Vec<f64> = x
        .iter()
        .map(|&v| half::f16::from_f32(v as f32 + 1.0).to_f64())
        .collect();
    assert_eq!(z.len(), 8 * 1024);
    assert_close("z", &z, &want, 0.0, 0.0);
}

/// pack-interleave from the command line, on a project of our own (`interleave_custom`) that packs
/// (re, im) pairs into `uint64_t`s four at a time and carves its queues in one branch of a mode switch:
/// `tune` writes the Gathers back in front of the loop, carves their table in the branch with the
/// queues (in the other branch the Gather's `Get` would fault), locks the rewrite, and the tuned
/// kernel, built and run again, still interleaves, checked against the interleave computed here from
/// its inputs.
#[test]
fn a_packing_loop_gets_gathers_in_front_and_still_interleaves() {
    let dir = tempfile::tempdir().unwrap();
    let from = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/cli/projects/interleave_custom");
    copy_tree(&from, dir.path());
    let p = dir.path();
    commit_all(p, "operator");
    let kernel = "op_kernel/interleave_custom.cpp";

    let out = cargo_ascend_tune(p, &["tune", "--budget", "8", "--seed", "1"]);
    let (stdout, stderr) = text(&out);
    assert!(out.status.success(), "tune failed: {stdout}\n{stderr}");
    let after = std::fs::read_to_string(p.join(kernel)).unwrap();
    assert!(after.contains("Gather(packedLanes["), "{after}");
    assert!(
        after.contains(
            "            pipe.InitBuffer(zQueue, 2, 2 * tile * sizeof(float));\n            pipe.InitBuffer(interleaveOffsetBuf, 8 * 256 / sizeof(uint32_t) * sizeof(uint32_t));\n        } else {"
        ),
        "{after}"
    );
    // The loops stay for the pairs past the whole repeats.
    assert!(after.contains("for (; i < last4; i += 4) {"), "{after}");
    let lock = std::fs::read_to_string(p.join("ascend-tune.lock")).unwrap();
    assert!(lock.contains("pack-interleave"), "{lock}");

    // The tuned sources, built and run afresh, against the interleave of the inputs computed here.
    let (inputs, outputs) = inputs_and_outputs(p);
    let want: Vec<f64> = inputs[0]
        .iter()
        .zip(&inputs[1])
        .flat_map(|(r, i)| [*r, *i])
        .collect();
    let z = &outputs[0];
    assert_eq!(z.len(), 8 * 2000);
    assert_close("z", z, &want, 0.0, 0.0);
}
