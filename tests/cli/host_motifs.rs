//! Host motifs from the command line: on a project with no tunable, whose kernel header declares queues
//! of literal depth 1 and whose tiling plans tiles for all of the UB it queries, `tune` doubles the
//! queues and halves the UB plan in the host file in one step, writes both files back and locks both
//! rewrites; `check` passes, and `bank mine` rewinds the kernel half of the pair.

use super::*;

#[test]
fn a_deeper_queue_is_written_back_with_the_host_ub_split_it_needs() {
    let dir = test_project("queue_add_custom");
    let p = dir.path();
    let host = "op_host/queue_add_custom.cpp";
    let header = "op_kernel/queue_add_custom.h";
    let host_before = std::fs::read_to_string(p.join(host)).unwrap();
    let header_before = std::fs::read_to_string(p.join(header)).unwrap();
    let out = cargo_ascend_tune(p, &["tune", "--budget", "8", "--seed", "1"]);
    let (_, stderr) = text(&out);
    assert!(out.status.success(), "tune failed: {stderr}");
    assert!(stderr.contains("double-buffer-queue kept"), "{stderr}");
    // The host file gains exactly the halving after its UB query, nothing else.
    let host_after = std::fs::read_to_string(p.join(host)).unwrap();
    assert_eq!(
        host_after.replacen("\n    ubSize = ubSize / 2;", "", 1),
        host_before,
        "{host_after}"
    );
    assert_ne!(host_after, host_before);
    let header_after = std::fs::read_to_string(p.join(header)).unwrap();
    assert!(
        header_after.contains("TQue<AscendC::QuePosition::VECIN, 2> inQueueX, inQueueY;")
            && header_after.contains("InitBuffer(outQueueZ, 2, "),
        "{header_after}"
    );
    assert_eq!(header_after.replace(", 2", ", 1"), header_before);
    let lock = std::fs::read_to_string(p.join("ascend-tune.lock")).unwrap();
    assert!(
        lock.contains("rewrites = [\"double-buffer-queue\", \"ub-split-double-buffer\"]"),
        "{lock}"
    );
    let out = cargo_ascend_tune(p, &["check", "--message-format", "json"]);
    assert_eq!(
        record(&out, "op-checked")["status"],
        "ok",
        "{:?}",
        text(&out)
    );

    // Mining the tuned project rewinds the queues (a lesson: slower with one buffer each); the host
    // half alone cannot be rewound, since the deeper queues no longer fit the whole-UB tile.
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
            "double-buffer-queue,ub-split-double-buffer",
        ],
    );
    let (stdout, stderr) = text(&out);
    assert!(out.status.success(), "{stdout}\n{stderr}");
    let mined = std::fs::read_to_string(bank.path().join("b.toml")).unwrap();
    assert!(mined.contains("motif = \"double-buffer-queue\""), "{mined}");
    assert!(
        stderr.contains("ub-split-double-buffer at op_host/queue_add_custom.cpp:14"),
        "{stderr}"
    );
}
