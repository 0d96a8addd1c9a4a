//! The whole path on the add_custom fixture, as a new user meets it: run, tune, tune again, check, and
//! check after the sources are put back to the naive version.

use super::*;

#[test]
fn run_tune_check_and_regression() {
    let dir = project("add_custom");
    let p = dir.path();

    // run: a modelled latency, per-pipe utilisation and the bound.
    let out = cargo_ascend_tune(p, &["run"]);
    let (stdout, stderr) = text(&out);
    assert!(out.status.success(), "run failed:\n{stdout}\n{stderr}");
    assert!(stdout.contains("us modelled"), "{stdout}");
    assert!(
        stdout.contains("aiv_mte2_ratio") && stdout.contains("bound:"),
        "{stdout}"
    );

    assert!(
        stderr.contains("Timings add_custom: setup") && stderr.contains(", build "),
        "{stderr}"
    );

    let out = cargo_ascend_tune(p, &["run", "--message-format", "json"]);
    let recs = records(&out);
    // The second run of the same sources builds nothing: the build cache serves it.
    let timings = recs
        .iter()
        .find(|r| r["reason"] == "op-timings")
        .expect("an op-timings record");
    assert_eq!(timings["build_cached"], true, "{timings}");
    assert!(timings["run_s"].as_f64().unwrap() > 0.0, "{timings}");
    let measured = recs
        .into_iter()
        .find(|r| r["reason"] == "op-measured")
        .expect("an op-measured record");
    let naive_us = measured["latency_us"].as_f64().unwrap();
    for field in ["op", "latency_us", "pipes", "bound", "backend", "soc"] {
        assert!(
            !measured[field].is_null(),
            "op-measured lacks {field}: {measured}"
        );
    }

    // tune: at least 1.5x faster, sources rewritten, lockfile written.
    let naive_host = std::fs::read_to_string(p.join("op_host/add_custom.cpp")).unwrap();
    let out = cargo_ascend_tune(
        p,
        &[
            "tune",
            "--budget",
            "32",
            "--seed",
            "1",
            "--message-format",
            "json",
        ],
    );
    let (stdout, stderr) = text(&out);
    assert!(out.status.success(), "tune failed:\n{stdout}\n{stderr}");
    let recs = records(&out);
    let trials = recs.iter().filter(|r| r["reason"] == "trial").count();
    assert_eq!(trials, 32, "{stdout}");
    let tuned = recs
        .iter()
        .find(|r| r["reason"] == "op-tuned")
        .expect("an op-tuned record");
    let speedup = tuned["speedup"].as_f64().unwrap();
    assert!(speedup >= 1.5, "speedup {speedup}: {tuned}");
    assert!((tuned["baseline_latency_us"].as_f64().unwrap() - naive_us).abs() < 1e-6);
    let tuned_host = std::fs::read_to_string(p.join("op_host/add_custom.cpp")).unwrap();
    assert_ne!(
        naive_host, tuned_host,
        "tune did not rewrite the host source"
    );
    let lock1 = std::fs::read_to_string(p.join("ascend-tune.lock")).expect("a lockfile");
    assert!(
        lock1.starts_with("# This file is written by cargo-ascend-tune")
            && lock1.contains("version = 1")
    );

    // Only the bound literals changed, nothing else in the file.
    let changed: Vec<(&str, &str)> = naive_host
        .lines()
        .zip(tuned_host.lines())
        .filter(|(a, b)| a != b)
        .collect();
    assert!(
        !changed.is_empty()
            && changed
                .iter()
                .all(|(a, _)| a.contains("BLOCK_DIM =") || a.contains("TILE_LENGTH =")),
        "{changed:?}"
    );

    // The same seed again gives the same lockfile, from the journal.
    let out = cargo_ascend_tune(p, &["tune", "--budget", "32", "--seed", "1"]);
    assert!(out.status.success(), "second tune failed: {:?}", text(&out));
    assert_eq!(
        lock1,
        std::fs::read_to_string(p.join("ascend-tune.lock")).unwrap()
    );

    // check passes on the tuned sources.
    let out = cargo_ascend_tune(p, &["check"]);
    assert!(out.status.success(), "check failed: {:?}", text(&out));
    let out = cargo_ascend_tune(p, &["check", "--locked", "--message-format", "json"]);
    let checked = records(&out)
        .into_iter()
        .find(|r| r["reason"] == "op-checked")
        .unwrap();
    assert_eq!(checked["status"], "ok", "{checked}");

    // Back to the naive sources: check exits 1 and says which op regressed and by how much.
    git(p, &["checkout", "--", "op_host", "op_kernel"]);
    let out = cargo_ascend_tune(p, &["check"]);
    let (stdout, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(1), "{stdout}\n{stderr}");
    assert!(
        stdout.contains("add_custom") && stdout.contains("regressed") && stdout.contains('%'),
        "{stdout}"
    );
    assert!(stderr.contains("add_custom regressed by +"), "{stderr}");
}

#[test]
fn dry_run_writes_nothing_and_prints_the_diff() {
    let dir = project("add_custom");
    let p = dir.path();
    let before = std::fs::read_to_string(p.join("op_host/add_custom.cpp")).unwrap();
    let out = cargo_ascend_tune(p, &["tune", "--budget", "8", "--seed", "3", "--dry-run"]);
    let (stdout, stderr) = text(&out);
    assert!(out.status.success(), "{stdout}\n{stderr}");
    assert!(
        stdout.contains("--- a/op_host/add_custom.cpp")
            || stdout.contains("--- a/op_kernel/add_custom.cpp"),
        "{stdout}"
    );
    assert_eq!(
        before,
        std::fs::read_to_string(p.join("op_host/add_custom.cpp")).unwrap()
    );
    assert!(!p.join("ascend-tune.lock").exists());
}

#[test]
fn tune_refuses_uncommitted_changes() {
    let dir = project("add_custom");
    let p = dir.path();
    let kernel = p.join("op_kernel/add_custom.cpp");
    let text_before = std::fs::read_to_string(&kernel).unwrap();
    std::fs::write(&kernel, format!("{text_before}\n// my unfinished edit\n")).unwrap();
    let out = cargo_ascend_tune(p, &["tune", "--budget", "4"]);
    let (_, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("uncommitted changes")
            && stderr.contains("op_kernel/add_custom.cpp")
            && stderr.contains("--allow-dirty"),
        "{stderr}"
    );
}

#[test]
fn run_writes_a_perfetto_trace_of_the_modelled_pipelines() {
    let dir = project("add_custom");
    let p = dir.path();
    let out = cargo_ascend_tune(p, &["run", "--trace", "pipes.json"]);
    assert!(out.status.success(), "{:?}", text(&out));
    let trace: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(p.join("pipes.json")).unwrap()).unwrap();
    let events = trace["traceEvents"].as_array().expect("traceEvents");
    let spans = events.iter().filter(|e| e["ph"] == "X").count();
    assert!(spans > 1000, "{spans} spans");
    assert!(events.iter().any(|e| {
        e["ph"] == "M"
            && e["args"]["name"]
                .as_str()
                .is_some_and(|n| n.contains("modelled"))
    }));
}

#[test]
fn tune_with_no_valid_candidate_exits_1_and_leaves_sources_alone() {
    let dir = project("add_custom");
    let p = dir.path();
    let manifest = std::fs::read_to_string(p.join("ascend.toml"))
        .unwrap()
        .replace(
            "constraints = [",
            "constraints = [\n    \"block_dim > 1000\",",
        );
    std::fs::write(p.join("ascend.toml"), manifest).unwrap();
    git(p, &["commit", "-q", "-am", "impossible constraint"]);
    let before = std::fs::read_to_string(p.join("op_host/add_custom.cpp")).unwrap();
    let out = cargo_ascend_tune(p, &["tune", "--budget", "4"]);
    let (_, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("no valid candidate"), "{stderr}");
    assert_eq!(
        before,
        std::fs::read_to_string(p.join("op_host/add_custom.cpp")).unwrap()
    );
    assert!(!p.join("ascend-tune.lock").exists());
}

/// A tune killed part-way and started again ends with the lockfile of an uninterrupted run with the same
/// seed, and serves the finished trials from the journal instead of running them again.
#[test]
fn killed_tune_resumes_to_the_same_lockfile() {
    let whole = project("add_custom");
    let out = cargo_ascend_tune(
        whole.path(),
        &["tune", "--budget", "12", "--seed", "4", "--jobs", "1"],
    );
    assert!(out.status.success(), "{:?}", text(&out));
    let expected = std::fs::read_to_string(whole.path().join("ascend-tune.lock")).unwrap();

    let dir = project("add_custom");
    let p = dir.path();
    let journal = p.join("target/ascend-tune/journal/add_custom.jsonl");
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_cargo-ascend-tune"))
        .args([
            "ascend-tune",
            "tune",
            "--budget",
            "12",
            "--seed",
            "4",
            "--jobs",
            "1",
            "-q",
        ])
        .current_dir(p)
        .env("ASCEND_TUNE_BUILD_CACHE", build_cache())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    // Kill it once a few trials are journaled (or give up waiting and let it finish).
    for _ in 0..600 {
        let lines = std::fs::read_to_string(&journal)
            .map(|t| t.lines().count())
            .unwrap_or(0);
        if lines >= 3 || child.try_wait().unwrap().is_some() {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    let _ = child.kill();
    let _ = child.wait();
    let done = std::fs::read_to_string(&journal)
        .map(|t| t.lines().count())
        .unwrap_or(0);
    if !p.join("ascend-tune.lock").exists() {
        // Killed before the end: the sources are exactly as they were (write-back happens once, atomically).
        let original =
            std::fs::read_to_string(Path::new(FIXTURES).join("add_custom/op_host/add_custom.cpp"))
                .unwrap();
        assert_eq!(
            std::fs::read_to_string(p.join("op_host/add_custom.cpp")).unwrap(),
            original
        );
    }

    // The killed run's project lock can outlive it for a moment (CI once met "another cargo-ascend-tune
    // run (pid N) is tuning this project" here, 4 s after the kill; what held it was not found): the
    // resume waits for the lock, as the message tells a user to, for at most a minute.
    let mut out = cargo_ascend_tune(p, &["tune", "--budget", "12", "--seed", "4", "--jobs", "1"]);
    for _ in 0..60 {
        if out.status.success() || !text(&out).1.contains("is tuning this project") {
            break;
        }
        std::thread::sleep(std::time::Duration::from_secs(1));
        out = cargo_ascend_tune(p, &["tune", "--budget", "12", "--seed", "4", "--jobs", "1"]);
    }
    assert!(out.status.success(), "{:?}", text(&out));
    assert_eq!(
        std::fs::read_to_string(p.join("ascend-tune.lock")).unwrap(),
        expected
    );
    // Every trial the killed run finished is in the journal once: the restart served it from there.
    let lines = std::fs::read_to_string(&journal).unwrap().lines().count();
    assert!(
        lines <= 12,
        "{lines} journal lines for 12 trials ({done} before the kill): trials were repeated"
    );
}

/// A queue of two buffers hands them out in turn, as AscendC's TQue does, so in the usual loop
/// (`CopyIn(i)`, `Compute(i)` freeing the inputs, `CopyOut(i)`) the next tile's copy-in goes to the other
/// buffer and overlaps the vector work on this one. The twin once handed back the lowest free buffer, the
/// one `Compute(i)` had just freed, so every copy-in waited for the vector unit and double buffering
/// modelled as single buffering.
#[test]
fn double_buffered_queues_overlap_copy_in_with_compute() {
    let dir = project("add_custom");
    let p = dir.path();
    let kernel = p.join("op_kernel/add_custom.cpp");
    let source = std::fs::read_to_string(&kernel).unwrap();
    assert!(source.contains("BUFFER_NUM = 1;"));
    std::fs::write(
        &kernel,
        source.replace("BUFFER_NUM = 1;", "BUFFER_NUM = 2;"),
    )
    .unwrap();
    let out = cargo_ascend_tune(p, &["run", "--trace", "pipes.json"]);
    assert!(out.status.success(), "{:?}", text(&out));
    let trace: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(p.join("pipes.json")).unwrap()).unwrap();
    let events = trace["traceEvents"].as_array().expect("traceEvents");
    // The pipes of core 0 (pid 1) by thread id, from the thread-name records.
    let thread = |name: &str| {
        events
            .iter()
            .find(|e| e["ph"] == "M" && e["pid"] == 1 && e["args"]["name"] == name)
            .map(|e| e["tid"].clone())
            .unwrap_or_else(|| panic!("no {name} thread on core 0"))
    };
    let spans = |tid: &serde_json::Value| -> Vec<(f64, f64)> {
        events
            .iter()
            .filter(|e| e["ph"] == "X" && e["pid"] == 1 && e["tid"] == *tid)
            .map(|e| {
                let ts = e["ts"].as_f64().unwrap();
                (ts, ts + e["dur"].as_f64().unwrap())
            })
            .collect()
    };
    let (mte2, v) = (spans(&thread("MTE2")), spans(&thread("V")));
    assert!(!mte2.is_empty() && !v.is_empty());
    // Spans are written in microseconds to three decimals: count an overlap of more than 2 ns only.
    let overlapping = mte2
        .iter()
        .filter(|(s, e)| v.iter().any(|(vs, ve)| e.min(*ve) - s.max(*vs) > 0.002))
        .count();
    assert!(
        overlapping > 0,
        "no copy-in overlaps vector work with two buffers per queue"
    );
}
