//! gm-copy-loop from the command line: on a project of our own whose kernel moves each row between GM and
//! the UB one element at a time (rows of 1001 floats, not whole 32 B blocks), `tune` turns both copy loops
//! into DataCopyPad bursts, the copy in keeping a scalar loop for the row's last element, writes them
//! back with one barrier on each side and locks the rewrite; the tuned kernel, built and run again, still
//! computes y = 2 * x, checked here.

use super::*;

#[test]
fn scalar_row_copies_become_bursts_and_still_agree() {
    let dir = tempfile::tempdir().unwrap();
    let from = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/cli/projects/row_copy_custom");
    copy_tree(&from, dir.path());
    let p = dir.path();
    commit_all(p, "operator");
    let header = "op_kernel/row_copy_custom.h";
    let before = std::fs::read_to_string(p.join(header)).unwrap();
    assert!(before.contains("yGm.SetValue(rowOffset + k, v);"));

    let out = cargo_ascend_tune(p, &["tune", "--seed", "1"]);
    let (stdout, stderr) = text(&out);
    assert!(out.status.success(), "tune failed: {stdout}\n{stderr}");
    assert!(stderr.contains("gm-copy-loop kept"), "{stderr}");
    let after = std::fs::read_to_string(p.join(header)).unwrap();
    for needle in [
        "const uint32_t burst = this->d / (32 / sizeof(float)) * (32 / sizeof(float));",
        "AscendC::DataCopyPad(xRow, xGm[rowOffset], AscendC::DataCopyExtParams{1, static_cast<uint32_t>(burst * sizeof(float)), 0, 0, 0}, AscendC::DataCopyPadExtParams<float>{false, 0, 0, 0});",
        "for (uint32_t k = burst; k < this->d; k++) {",
        "AscendC::DataCopyPad(yGm[rowOffset], yRow, AscendC::DataCopyExtParams{1, static_cast<uint32_t>(this->d * sizeof(float)), 0, 0, 0});",
    ] {
        assert!(after.contains(needle), "{needle} missing from\n{after}");
    }
    assert!(!after.contains("yGm.SetValue"), "{after}");
    // The kernel's own barriers stand for the form's: never two in a row.
    assert!(
        !after.contains("PipeBarrier<PIPE_ALL>();\n            AscendC::PipeBarrier<PIPE_ALL>();"),
        "{after}"
    );
    let lock = std::fs::read_to_string(p.join("ascend-tune.lock")).unwrap();
    assert!(lock.contains("gm-copy-loop"), "{lock}");

    // The tuned sources, built and run afresh, against 2 * x computed here (exact in float).
    let (x, y) = first_input_and_output(p);
    assert_eq!(x.len(), 96 * 1001);
    assert_eq!(y.len(), x.len());
    for (i, (a, b)) in x.iter().zip(&y).enumerate() {
        assert_eq!(*b, 2.0 * a, "y[{i}] = {b}, x[{i}] = {a}");
    }
}
