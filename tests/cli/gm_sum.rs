//! vector-gm-sum from the command line: on a project of our own whose kernel merges the cores' partial
//! sums with a scalar GetValue loop over global memory after SyncAll (as real loss kernels do), `tune`
//! turns the loop into one GM->UB copy and a ReduceSum, writes it back and locks it; the tuned kernel,
//! built and run again, still computes y = sum(x), checked against a sum computed here.

use super::*;

#[test]
fn a_gm_partial_sum_loop_is_vectorised_and_still_agrees() {
    let dir = tempfile::tempdir().unwrap();
    let from = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/cli/projects/gm_sum_custom");
    copy_tree(&from, dir.path());
    let p = dir.path();
    commit_all(p, "operator");
    let header = "op_kernel/gm_sum_custom.h";
    let before = std::fs::read_to_string(p.join(header)).unwrap();
    assert!(before.contains("total += workGm.GetValue(c);"));

    let out = cargo_ascend_tune(p, &["tune", "--budget", "4", "--seed", "1"]);
    let (stdout, stderr) = text(&out);
    assert!(out.status.success(), "tune failed: {stdout}\n{stderr}");
    let after = std::fs::read_to_string(p.join(header)).unwrap();
    assert!(!after.contains("workGm.GetValue(c)"), "{after}");
    assert!(
        after.contains("AscendC::ReduceSum<float>(gmSum, gmSum, gmSum[(blockNum + 63) / 64 * 64], static_cast<int32_t>(blockNum));"),
        "{after}"
    );
    let lock = std::fs::read_to_string(p.join("ascend-tune.lock")).unwrap();
    assert!(lock.contains("vector-gm-sum"), "{lock}");

    // The tuned sources, built and run afresh, against the sum computed here (ReduceSum adds pairwise,
    // the loop in order: equal up to float reassociation).
    let (x, y) = first_input_and_output(p);
    assert_eq!(x.len(), 48 * 512);
    let want: f64 = x.iter().sum();
    let scale: f64 = x.iter().map(|v| v.abs()).sum::<f64>().max(1.0);
    assert_eq!(y.len(), 1);
    assert!(
        (y[0] - want).abs() <= 1e-5 * scale,
        "y = {} but the sum is {want}",
        y[0]
    );
}
