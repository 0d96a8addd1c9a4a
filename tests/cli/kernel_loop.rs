//! The alternating loop (`--strategy loop`, the default) on real fixture kernels: a motif that applies is
//! kept only when it makes a verified trial faster, is listed in the lockfile and written back; an
//! external rewriter gets a turn with a prompt file, its kernel verified and measured like any other,
//! and its failures charged against the budget.

use super::*;

/// add_custom with its buffer count left out of the space, so the double-buffer motif (not the host
/// search) is what can deepen the queues.
fn add_custom_without_buffer_tunable() -> tempfile::TempDir {
    let dir = project("add_custom");
    let manifest = dir.path().join("ascend.toml");
    let text = std::fs::read_to_string(&manifest).unwrap();
    let cut = text
        .find("[[op.tunable]]\nname = \"buffer_num\"")
        .expect("the buffer_num tunable");
    let text = text[..cut].replace(
        "tile_length % (16 * buffer_num) == 0",
        "tile_length % 32 == 0",
    );
    let text = text.replace(
        "3 * tile_length * 2 <= ub_bytes",
        "3 * tile_length * 2 * 2 <= ub_bytes",
    );
    std::fs::write(&manifest, text).unwrap();
    git(dir.path(), &["commit", "-qam", "no buffer tunable"]);
    dir
}

/// sigmoid's naive kernel divides a tensor of ones refilled every tile; `Reciprocal` does the same
/// work at a quarter of the vector cost and needs no ones buffer, at any tiling, so the loop must keep it.
/// (An earlier version of this test relied on double buffering add_custom, which a stronger first host
/// phase made unnecessary: in the model one buffer at the best tiling is as fast.)
#[test]
fn loop_keeps_a_faster_rewrite_locks_it_and_writes_it_back() {
    let dir = project("sigmoid_custom");
    let p = dir.path();
    let out = cargo_ascend_tune(
        p,
        &[
            "tune",
            "--budget",
            "16",
            "--seed",
            "3",
            "--message-format",
            "json",
        ],
    );
    let (stdout, stderr) = text(&out);
    assert!(out.status.success(), "{stdout}\n{stderr}");
    let recs = records(&out);
    assert_eq!(recs.iter().filter(|r| r["reason"] == "trial").count(), 16);
    let kept = recs
        .iter()
        .find(|r| r["reason"] == "rewrite" && r["rewrite"] == "reciprocal-from-div-ones")
        .expect(&stdout);
    assert!(
        kept["outcome"].as_str().unwrap().starts_with("kept"),
        "{kept}"
    );
    // Trials after the rewrite carry it, and the kept kernel was verified like every trial.
    assert!(recs.iter().any(|r| {
        r["reason"] == "trial"
            && r["rewrites"]
                .as_array()
                .is_some_and(|a| a.iter().any(|x| x == "reciprocal-from-div-ones"))
            && r["latency_us"].is_number()
    }));
    let kernel = std::fs::read_to_string(p.join("op_kernel/sigmoid_custom.cpp")).unwrap();
    assert!(
        kernel.contains("AscendC::Reciprocal(outLocal, outLocal, this->tileLength);")
            && !kernel.contains("onesBuf"),
        "{kernel}"
    );
    let lock = std::fs::read_to_string(p.join("ascend-tune.lock")).unwrap();
    assert!(lock.contains("\"reciprocal-from-div-ones\""), "{lock}");
    assert!(lock.contains("strategy = \"loop\""), "{lock}");
    // The written-back sources are what the lock hashed: check passes.
    let out = cargo_ascend_tune(p, &["check", "--locked"]);
    assert!(out.status.success(), "{}", text(&out).1);
}

#[test]
fn no_rewrite_keeps_the_kernel_as_it_is() {
    let dir = add_custom_without_buffer_tunable();
    let p = dir.path();
    let before = std::fs::read_to_string(p.join("op_kernel/add_custom.cpp")).unwrap();
    let out = cargo_ascend_tune(
        p,
        &[
            "tune",
            "--budget",
            "8",
            "--no-rewrite",
            "--message-format",
            "json",
        ],
    );
    assert!(out.status.success(), "{}", text(&out).1);
    assert!(!records(&out).iter().any(|r| r["reason"] == "rewrite"));
    assert_eq!(
        std::fs::read_to_string(p.join("op_kernel/add_custom.cpp")).unwrap(),
        before
    );
}

/// A kernel made slow on purpose: the add repeated, each copy marked, so a scripted rewriter that
/// deletes the marked lines gives a faster kernel with the same outputs, which no motif would find.
fn add_custom_with_rewriter(script: &str) -> tempfile::TempDir {
    let dir = project("add_custom");
    let p = dir.path();
    let kernel_path = p.join("op_kernel/add_custom.cpp");
    let kernel = std::fs::read_to_string(&kernel_path).unwrap();
    let add = "        AscendC::Add(zLocal, xLocal, yLocal, this->tileLength);\n";
    let again =
        "        AscendC::Add(zLocal, xLocal, yLocal, this->tileLength); // again\n".repeat(12);
    assert!(kernel.contains(add));
    std::fs::write(&kernel_path, kernel.replace(add, &format!("{add}{again}"))).unwrap();
    std::fs::write(p.join("rewrite.sh"), script).unwrap();
    let manifest = p.join("ascend.toml");
    let text = std::fs::read_to_string(&manifest).unwrap();
    let text = text.replace(
        "[op.tune]\n",
        "[op.tune]\nrewriter = [\"sh\", \"rewrite.sh\"]\nrewriter-attempts = 1\n",
    );
    std::fs::write(&manifest, text).unwrap();
    git(p, &["add", "-A"]);
    git(p, &["commit", "-qm", "slow kernel and a rewriter"]);
    dir
}

#[test]
fn an_external_rewriter_is_prompted_verified_and_kept_when_faster() {
    // The script reads the kernel from the prompt's path, never from its command line.
    let script = "grep -q 'Current kernel' \"$1\" || exit 9\ngrep -v '// again' op_kernel/add_custom.cpp > \"$2\"\n";
    let dir = add_custom_with_rewriter(script);
    let p = dir.path();
    let out = cargo_ascend_tune(
        p,
        &[
            "tune",
            "--budget",
            "16",
            "--seed",
            "1",
            "--message-format",
            "json",
        ],
    );
    let (stdout, stderr) = text(&out);
    assert!(out.status.success(), "{stdout}\n{stderr}");
    let recs = records(&out);
    assert_eq!(recs.iter().filter(|r| r["reason"] == "trial").count(), 16);
    let turn = recs
        .iter()
        .find(|r| r["reason"] == "rewrite" && r["rewrite"] == "rewriter#1")
        .expect(&stdout);
    assert!(
        turn["outcome"].as_str().unwrap().starts_with("kept"),
        "{turn}"
    );
    let prompt =
        std::fs::read_to_string(p.join("target/ascend-tune/rewriter/add_custom/1/prompt.md"))
            .unwrap();
    assert!(
        prompt.contains("## Current profile") && prompt.contains("// again"),
        "{prompt}"
    );
    let kernel = std::fs::read_to_string(p.join("op_kernel/add_custom.cpp")).unwrap();
    assert!(!kernel.contains("// again"), "{kernel}");
    let lock = std::fs::read_to_string(p.join("ascend-tune.lock")).unwrap();
    assert!(lock.contains("\"rewriter#1\""), "{lock}");
}

#[test]
fn a_failing_rewriter_costs_a_trial_and_changes_nothing() {
    let dir = add_custom_with_rewriter("echo 'model unavailable' >&2\nexit 3\n");
    let p = dir.path();
    let out = cargo_ascend_tune(p, &["tune", "--budget", "16", "--message-format", "json"]);
    let (stdout, stderr) = text(&out);
    assert!(out.status.success(), "{stdout}\n{stderr}");
    let recs = records(&out);
    let trials: Vec<_> = recs.iter().filter(|r| r["reason"] == "trial").collect();
    assert_eq!(trials.len(), 16);
    let failed: Vec<_> = trials
        .iter()
        .filter(|t| {
            t["error"]
                .as_str()
                .is_some_and(|e| e.contains("model unavailable"))
        })
        .collect();
    assert_eq!(failed.len(), 1, "one attempt allowed: {stdout}");
    assert_eq!(failed[0]["failure"], "rewrite");
    // The host search may have changed parameters; the kernel's code is the rewriter-free one.
    let kernel = std::fs::read_to_string(p.join("op_kernel/add_custom.cpp")).unwrap();
    assert_eq!(kernel.matches("// again").count(), 12);
}

/// A tunable the search moved along with the one that gained, though its value changes nothing (a row
/// cap no shape reaches, as silu_mul's LENGTH_1024 was), is set back before write-back: the loop keeps
/// trials back to measure the best point with each changed tunable back at the sources' value, and the
/// candidate as fast and closer to the sources is the one written. Only BLOCK_DIM moves in the diff.
#[test]
fn a_tunable_whose_change_bought_nothing_is_not_written_back() {
    let dir = tempfile::tempdir().unwrap();
    let from = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/cli/projects/row_copy_custom");
    copy_tree(&from, dir.path());
    let p = dir.path();
    let host = p.join("op_host/row_copy_custom.cpp");
    let source = std::fs::read_to_string(&host).unwrap();
    let edited = source
        .replace(
            "const uint32_t BLOCK_DIM = 48;",
            "const uint32_t BLOCK_DIM = 8;\nconst uint32_t ROW_CAP = 4096; // rows a block may take: no shape here reaches it",
        )
        .replace(
            "    if (blocks == 0 || rows % blocks != 0) {",
            "    if (rows / blocks > ROW_CAP) {\n        return ge::GRAPH_FAILED;\n    }\n    if (blocks == 0 || rows % blocks != 0) {",
        );
    assert_ne!(edited, source);
    std::fs::write(&host, edited).unwrap();
    let manifest = p.join("ascend.toml");
    let spec = std::fs::read_to_string(&manifest).unwrap().replace(
        "[op.tune]\nbudget = 4",
        "[[op.tunable]]\nname = \"block_dim\"\nfile = \"op_host/row_copy_custom.cpp\"\nsymbol = \"BLOCK_DIM\"\n\
         values = [8, 16, 32, 48]\n\n[[op.tunable]]\nname = \"row_cap\"\nfile = \"op_host/row_copy_custom.cpp\"\n\
         symbol = \"ROW_CAP\"\nrange = [256, 65536]\n\n[op.tune]\nbudget = 16",
    );
    std::fs::write(&manifest, spec).unwrap();
    commit_all(p, "operator");

    let out = cargo_ascend_tune(p, &["tune", "--seed", "1"]);
    let (stdout, stderr) = text(&out);
    assert!(out.status.success(), "tune failed: {stdout}\n{stderr}");
    let after = std::fs::read_to_string(&host).unwrap();
    assert!(after.contains("const uint32_t BLOCK_DIM = 48;"), "{after}");
    assert!(after.contains("const uint32_t ROW_CAP = 4096;"), "{after}");
    let lock = std::fs::read_to_string(p.join("ascend-tune.lock")).unwrap();
    assert!(lock.contains("gm-copy-loop"), "{lock}");
}

/// `ub-bank-offset` is a finish: planned at one tiling and taking UB from it, it is tried once the
/// tiling is settled, at the best point, after every other rewrite's turn and after the last trial of
/// the host search's phases (ops-nn's rms_norm_grad, where it was kept mid-search, lost the larger
/// tiling the search found without it: 6.802 -> 7.049 us modelled). add_custom's naive kernel puts
/// its Add operands in one bank group, so a plan exists.
#[test]
fn a_finishing_layout_motif_is_tried_after_the_search_at_the_best_point() {
    let dir = project("add_custom");
    let p = dir.path();
    let out = cargo_ascend_tune(
        p,
        &[
            "tune",
            "--budget",
            "16",
            "--seed",
            "1",
            "--message-format",
            "json",
        ],
    );
    let (stdout, stderr) = text(&out);
    assert!(out.status.success(), "{stdout}\n{stderr}");
    let recs = records(&out);
    assert_eq!(recs.iter().filter(|r| r["reason"] == "trial").count(), 16);
    let at = |pred: &dyn Fn(&serde_json::Value) -> bool| recs.iter().position(|r| pred(r));
    let finish = at(&|r| r["reason"] == "rewrite" && r["rewrite"] == "ub-bank-offset")
        .unwrap_or_else(|| panic!("no ub-bank-offset turn:\n{stdout}"));
    // Every other rewrite turn comes before it.
    assert!(
        recs.iter()
            .enumerate()
            .all(|(i, r)| r["reason"] != "rewrite"
                || r["rewrite"] == "ub-bank-offset"
                || i < finish),
        "{stdout}"
    );
    // Its trial is measured at the point of the best trial before it.
    let before = recs[..finish]
        .iter()
        .filter(|r| r["reason"] == "trial" && r["latency_us"].is_number())
        .min_by(|a, b| {
            a["latency_us"]
                .as_f64()
                .unwrap()
                .total_cmp(&b["latency_us"].as_f64().unwrap())
        })
        .expect("trials before the finish");
    let its = recs[..finish]
        .iter()
        .rev()
        .find(|r| r["reason"] == "trial")
        .expect("the finish's trial");
    assert!(
        its["rewrites"]
            .as_array()
            .is_some_and(|a| a.iter().any(|x| x == "ub-bank-offset")),
        "{its}"
    );
    assert_eq!(its["params"], before["params"], "{stdout}");
}

/// A second `tune` of the same sources finds what the first found: its trials come from the journal,
/// which keeps no UB layout, and the finishing layout motif planned from nothing until the best trial
/// was run once more for it (ops-math's truncate_div: 1.07x the first time, 1.06x every time after).
#[test]
fn a_repeated_tune_served_from_the_journal_still_plans_the_layout_motif() {
    let dir = project("add_custom");
    let p = dir.path();
    let files = ["op_kernel/add_custom.cpp", "op_host/add_custom.cpp"];
    let originals: Vec<String> = files
        .iter()
        .map(|f| std::fs::read_to_string(p.join(f)).unwrap())
        .collect();
    let args = [
        "tune",
        "--budget",
        "16",
        "--seed",
        "1",
        "--message-format",
        "json",
    ];
    let tuned = |out: &std::process::Output| {
        let (stdout, stderr) = text(out);
        assert!(out.status.success(), "{stdout}\n{stderr}");
        let recs = records(out);
        let layout = recs
            .iter()
            .find(|r| r["reason"] == "rewrite" && r["rewrite"] == "ub-bank-offset")
            .map(|r| r["outcome"].as_str().unwrap().to_string());
        let latency = recs
            .iter()
            .find(|r| r["reason"] == "op-tuned")
            .map(|r| r["latency_us"].as_f64().unwrap())
            .expect("an op-tuned record");
        (layout, latency)
    };
    let first = tuned(&cargo_ascend_tune(p, &args));
    // The layout motif has its turn (add_custom's plan gains too little to be kept at this budget).
    assert!(first.0.is_some(), "{first:?}");
    for (f, text) in files.iter().zip(&originals) {
        std::fs::write(p.join(f), text).unwrap();
    }
    std::fs::remove_file(p.join("ascend-tune.lock")).unwrap();
    assert!(p.join("target/ascend-tune/journal").is_dir());
    let second = tuned(&cargo_ascend_tune(p, &args));
    assert_eq!(first, second);
}

/// Where ops-nn's foreach kernels keep their tile loop: a header of a sibling folder the kernel sees
/// through `include-as` (`../foreach_utils/`), shared by many operators. Each tile is copied out of the
/// buffer it was computed in, then MTE2 waits for that copy before the next copy-in, so copies in and
/// out never overlap. `tune` moves that wait above the copy-out (the next copy-in then waits for the
/// previous tile's copy-out only), in the shared header, says the header is shared, and `check` passes.
/// With the queue at depth one the same move would let a copy-in overwrite a tile still being copied
/// out: the model's race check fails that trial and nothing is written.
#[test]
fn a_wait_for_the_copy_out_in_a_shared_header_moves_to_the_previous_tile() {
    let header = "tile_utils/op_kernel/inplace_tile.h";
    let wait = "            event_t copiedOut = static_cast<event_t>(GetTPipePtr()->FetchEventID(AscendC::HardEvent::MTE3_MTE2));\n";
    let copy_out = "            AscendC::DataCopy(yGm[off], local, this->tile);\n";
    for depth in [2, 1] {
        let dir = test_project("shared_tile");
        let p = dir.path().join("inplace_shared");
        let h = dir.path().join(header);
        let before = std::fs::read_to_string(&h).unwrap();
        if depth == 1 {
            let one = before.replace("InitBuffer(inQueue, 2,", "InitBuffer(inQueue, 1,");
            assert_ne!(one, before);
            std::fs::write(&h, &one).unwrap();
            git(dir.path(), &["commit", "-q", "-am", "depth one"]);
        }
        let before = std::fs::read_to_string(&h).unwrap();
        assert!(before.find(copy_out).unwrap() < before.find(wait).unwrap());
        let out = cargo_ascend_tune(
            &p,
            &[
                "tune", "--budget", "4", "--seed", "1", "-v", "--color", "never",
            ],
        );
        assert_eq!(out.status.code(), Some(0), "{:?}", text(&out));
        let (_, err) = text(&out);
        let after = std::fs::read_to_string(&h).unwrap();
        if depth == 2 {
            assert!(
                err.contains("wait-previous-copy-out kept: 1.666 -> 1.143 us"),
                "{err}"
            );
            assert!(
                err.contains("Rewrote ../tile_utils/op_kernel/inplace_tile.h (a shared header"),
                "{err}"
            );
            assert!(
                after.find(wait).unwrap() < after.find(copy_out).unwrap(),
                "{after}"
            );
            let lock = std::fs::read_to_string(p.join("ascend-tune.lock")).unwrap();
            assert!(
                lock.contains("\"../tile_utils/op_kernel/inplace_tile.h\""),
                "{lock}"
            );
            let out = cargo_ascend_tune(&p, &["check", "--color", "never"]);
            assert_eq!(out.status.code(), Some(0), "{:?}", text(&out));
        } else {
            assert!(err.contains("UB race: the copy into UB"), "{err}");
            assert!(err.contains("wait-previous-copy-out dropped"), "{err}");
            assert_eq!(after, before);
        }
    }
}

/// ops-nn's foreach_copy keeps its copy-in queue at `BUFFER_NUM = 1` and waits for each tile's
/// copy-out before the next copy-in: a deeper queue alone gains nothing (the wait still serialises
/// the copies), and the wait moved one tile later alone races (one buffer). Neither step is kept on its
/// own, so the loop tries the pair: `double-buffer` unlocks `wait-previous-copy-out`.
#[test]
fn a_deeper_queue_that_gains_nothing_alone_is_tried_with_the_wait_it_unlocks() {
    let dir = test_project("inplace_scale_custom");
    let k = dir.path().join("op_kernel/inplace_scale_custom.cpp");
    let before = std::fs::read_to_string(&k).unwrap();
    let one = before
        .replace(
            "#include \"kernel_operator.h\"\n",
            "#include \"kernel_operator.h\"\n\nconstexpr int32_t BUFFER_NUM = 1;\n",
        )
        .replace("InitBuffer(inQueue, 2,", "InitBuffer(inQueue, BUFFER_NUM,")
        .replace("VECIN, 2> inQueue", "VECIN, BUFFER_NUM> inQueue");
    assert_eq!(one.matches("BUFFER_NUM").count(), 3);
    std::fs::write(&k, &one).unwrap();
    git(dir.path(), &["commit", "-q", "-am", "depth one"]);
    let out = cargo_ascend_tune(
        dir.path(),
        &[
            "tune", "--budget", "16", "--seed", "1", "-v", "--color", "never",
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{:?}", text(&out));
    let (_, err) = text(&out);
    assert!(err.contains("double-buffer dropped"), "{err}");
    assert!(
        err.contains("double-buffer + wait-previous-copy-out kept: 1.666 -> 1.143 us"),
        "{err}"
    );
    let after = std::fs::read_to_string(&k).unwrap();
    assert!(
        after.contains("constexpr int32_t BUFFER_NUM = 2;"),
        "{after}"
    );
    let wait = "AscendC::HardEvent::MTE3_MTE2));";
    let copy_out = "AscendC::DataCopy(yGm[off], local, this->tile);";
    assert!(
        after.find(wait).unwrap() < after.find(copy_out).unwrap(),
        "{after}"
    );
    let lock = std::fs::read_to_string(dir.path().join("ascend-tune.lock")).unwrap();
    assert!(lock.contains("\"double-buffer\""), "{lock}");
    assert!(lock.contains("\"wait-previous-copy-out\""), "{lock}");
    let out = cargo_ascend_tune(dir.path(), &["check", "--color", "never"]);
    assert_eq!(out.status.code(), Some(0), "{:?}", text(&out));
}

/// ops-nn's foreach tilings plan their UB split in a shared header of an `include` folder
/// (`../foreach_utils/op_host/foreach_tiling_class.h`), not in the op's own host files, so `init`
/// offered nothing to tune there. It now offers a `ub-parts-of` tunable in such a header (and nothing
/// else from it), says in the manifest that the header is shared, and the manifest accepts the file;
/// each value is built into the host program (the latencies differ) while the header on disk stays as
/// it is until a change is written back.
#[test]
fn init_offers_the_ub_split_of_a_shared_tiling_header_and_tune_builds_it() {
    let dir = test_project("shared_tile");
    let p = dir.path().join("inplace_shared");
    std::fs::remove_file(p.join("ascend.toml")).unwrap();
    let out = cargo_ascend_tune(&p, &["init", "--shape", "x=8x4096", "--shape", "y=8x4096"]);
    assert!(out.status.success(), "{:?}", text(&out));
    let manifest = std::fs::read_to_string(p.join("ascend.toml")).unwrap();
    assert!(
        manifest.contains(
            "name = \"ub_parts\"\nfile = \"../tile_utils/op_host/tile_plan.h\"   # a shared header: tune writes a change back there, for every operator that includes it\nub-parts-of = \"ubSize\""
        ),
        "{manifest}"
    );
    assert_eq!(manifest.matches("[[op.tunable]]").count(), 1, "{manifest}");
    git(dir.path(), &["add", "-A"]);
    git(dir.path(), &["commit", "-q", "-m", "manifest"]);
    let plan = dir.path().join("tile_utils/op_host/tile_plan.h");
    let before = std::fs::read_to_string(&plan).unwrap();
    let out = cargo_ascend_tune(
        &p,
        &[
            "tune", "--budget", "16", "--seed", "1", "-v", "--color", "never",
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{:?}", text(&out));
    let (_, err) = text(&out);
    // Smaller tiles are slower here: every split was built and measured, none written back.
    assert!(err.contains("1.666 us  ub_parts=1"), "{err}");
    assert!(err.contains("2.397 us  ub_parts=2"), "{err}");
    assert!(err.contains("3.860 us  ub_parts=4"), "{err}");
    assert_eq!(std::fs::read_to_string(&plan).unwrap(), before);
    assert!(
        err.contains("wait-previous-copy-out kept: 1.666 -> 1.143 us"),
        "{err}"
    );
}
