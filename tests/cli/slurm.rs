//! `--executor slurm` against a real Slurm: a single-node cluster started on this machine by
//! `scripts/slurm-local.sh` (Debian's slurm-wlm and munge, root). `tune --workspace` and `bench` on Slurm
//! give byte for byte what local runs give (lockfiles and sources; bench.json without its times), and a
//! run cancelled half way (Ctrl-C) cancels its jobs and resumes without measuring a trial twice.
//! Without Slurm these tests skip with a message, except under `CI=true`, where they fail.

use super::*;
use std::collections::HashSet;
use std::process::{Command, Output};
use std::sync::OnceLock;

/// The `SLURM_CONF` of the cluster this test process started, or why there is none.
fn slurm() -> Option<&'static Path> {
    static CONF: OnceLock<Result<PathBuf, String>> = OnceLock::new();
    let conf = CONF.get_or_init(|| {
        let dir = std::env::temp_dir().join(format!("ascend-tune-slurm-{}", std::process::id()));
        let port = 20000 + std::process::id() % 20000;
        let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/slurm-local.sh");
        let out = Command::new("bash")
            .arg(&script)
            .arg("start")
            .arg(&dir)
            .env("ASCEND_TUNE_SLURM_PORT", port.to_string())
            .output()
            .map_err(|e| format!("could not run {}: {e}", script.display()))?;
        if !out.status.success() {
            return Err(format!(
                "scripts/slurm-local.sh start failed: {}",
                String::from_utf8_lossy(&out.stderr).trim()
            ));
        }
        STOP_DIR.set(dir.clone()).ok();
        // SAFETY: registers a plain function that runs the stop script when the test binary exits.
        unsafe {
            libc::atexit(stop_slurm);
        }
        Ok(dir.join("slurm.conf"))
    });
    match conf {
        Ok(p) => Some(p.as_path()),
        Err(why) if std::env::var("CI").is_ok_and(|v| v == "true") => {
            panic!("Slurm is needed under CI=true: {why}")
        }
        Err(why) => {
            eprintln!(
                "skipped: no single-node Slurm here ({why}); `apt-get install slurm-wlm munge` and run as root"
            );
            None
        }
    }
}

static STOP_DIR: OnceLock<PathBuf> = OnceLock::new();

extern "C" fn stop_slurm() {
    if let Some(dir) = STOP_DIR.get() {
        let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/slurm-local.sh");
        let _ = Command::new("bash")
            .arg(script)
            .arg("stop")
            .arg(dir)
            .output();
        let _ = std::fs::remove_dir_all(dir);
    }
}

fn tool(dir: &Path, conf: Option<&Path>, args: &[&str]) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_cargo-ascend-tune"));
    c.arg("ascend-tune")
        .args(args)
        .current_dir(dir)
        .env("ASCEND_TUNE_BUILD_CACHE", build_cache())
        .env("ASCEND_TUNE_SLURM_POLL", "0.3")
        .env("NO_COLOR", "1")
        .env_remove("CARGO_TARGET_DIR")
        .env_remove("CARGO_BUILD_TARGET_DIR");
    if let Some(conf) = conf {
        c.env("SLURM_CONF", conf);
    }
    c
}

fn ok(o: &Output, what: &str) {
    let (stdout, stderr) = text(o);
    assert!(o.status.success(), "{what} failed\n{stdout}\n{stderr}");
}

/// Journal lines of a journal file and whether any trial key repeats.
fn journal(path: &Path) -> (usize, bool) {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    let keys: Vec<String> = text
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .map(|v| v["key"].as_str().unwrap_or_default().to_string())
        .collect();
    let unique: HashSet<&String> = keys.iter().collect();
    (keys.len(), unique.len() != keys.len())
}

#[test]
fn tune_workspace_on_slurm_matches_local_byte_for_byte() {
    let Some(conf) = slurm() else { return };
    let on_slurm = crate::workspace::workspace();
    let local = crate::workspace::workspace();
    let args = [
        "tune",
        "--workspace",
        "--budget",
        "4",
        "--seed",
        "1",
        "--jobs",
        "2",
    ];
    let mut s = args.to_vec();
    s.extend(["--executor", "slurm"]);
    let out = tool(on_slurm.path(), Some(conf), &s).output().unwrap();
    ok(&out, "tune --workspace --executor slurm");
    let (_, stderr) = text(&out);
    assert!(stderr.contains("as Slurm job"), "{stderr}");
    assert!(stderr.contains("2 done, 0 failed"), "{stderr}");
    ok(
        &tool(local.path(), None, &args).output().unwrap(),
        "tune --workspace",
    );
    for member in ["add_op", "relu_op"] {
        let a = std::fs::read(on_slurm.path().join(member).join("ascend-tune.lock")).unwrap();
        let b = std::fs::read(local.path().join(member).join("ascend-tune.lock")).unwrap();
        assert_eq!(
            String::from_utf8_lossy(&a),
            String::from_utf8_lossy(&b),
            "{member}"
        );
        let op = if member == "add_op" {
            "add_custom"
        } else {
            "relu_custom"
        };
        let host = format!("{member}/op_host/{op}.cpp");
        assert_eq!(
            std::fs::read_to_string(on_slurm.path().join(&host)).unwrap(),
            std::fs::read_to_string(local.path().join(&host)).unwrap()
        );
        // The jobs measured every trial; finishing from the journal measured none again.
        let j = on_slurm
            .path()
            .join(format!("target/ascend-tune/{member}/journal/{op}.jsonl"));
        assert_eq!(journal(&j), (4, false), "{}", j.display());
    }
}

/// bench.json without what depends on the clock (the wall time, and the build counters: points sharing
/// one build race for it when built side by side).
fn timeless(path: &Path) -> serde_json::Value {
    let mut v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    for row in v["ops"].as_array_mut().unwrap() {
        let row = row.as_object_mut().unwrap();
        for k in ["wall_s", "trials_per_s", "builds", "build_cache_hits"] {
            row.remove(k);
        }
    }
    v
}

#[test]
fn bench_on_slurm_matches_local() {
    let Some(conf) = slurm() else { return };
    // The fixtures themselves: bench tunes copies under --out, never the suite's sources. Four, as
    // issue 20 checks: four jobs side by side on the local Slurm's slots, ending in any order.
    let suite: Vec<String> = ["add_custom", "relu_custom", "mul_custom", "sigmoid_custom"]
        .iter()
        .map(|n| format!("{FIXTURES}/{n}"))
        .collect();
    let cwd = tempfile::tempdir().unwrap();
    let bench = |executor: &str, out: &Path| {
        let mut args: Vec<&str> = vec!["bench"];
        args.extend(suite.iter().map(String::as_str));
        args.extend([
            "--budget",
            "3",
            "--strategies",
            "host",
            "--seed",
            "1",
            "--jobs",
            "2",
            "--executor",
            executor,
            "--out",
            out.to_str().unwrap(),
        ]);
        let o = tool(cwd.path(), Some(conf), &args).output().unwrap();
        ok(&o, &format!("bench --executor {executor}"));
        o
    };
    let outs = tempfile::tempdir().unwrap();
    let (a, b) = (outs.path().join("slurm"), outs.path().join("local"));
    let o = bench("slurm", &a);
    let (_, stderr) = text(&o);
    assert!(stderr.contains("4 done, 0 failed"), "{stderr}");
    bench("local", &b);
    let (x, y) = (
        timeless(&a.join("bench.json")),
        timeless(&b.join("bench.json")),
    );
    assert_eq!(x["ops"].as_array().unwrap().len(), 4);
    assert_eq!(
        serde_json::to_string_pretty(&x).unwrap(),
        serde_json::to_string_pretty(&y).unwrap()
    );
}

#[test]
fn interrupted_slurm_tune_cancels_its_jobs_and_resumes_without_remeasuring() {
    let Some(conf) = slurm() else { return };
    let p = project("add_custom");
    let dir = p.path();
    let args = [
        "tune",
        "--budget",
        "12",
        "--seed",
        "3",
        "--jobs",
        "1",
        "--no-rewrite",
        "--executor",
        "slurm",
    ];
    let child = tool(dir, Some(conf), &args)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let journal_path = dir.join("target/ascend-tune/journal/add_custom.jsonl");
    // Wait for the job to have measured a trial or two, then Ctrl-C the coordinator.
    let started = std::time::Instant::now();
    while journal(&journal_path).0 < 2 {
        assert!(
            started.elapsed() < std::time::Duration::from_secs(300),
            "the job measured nothing in 300 s"
        );
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    // SAFETY: signalling our own child.
    unsafe {
        libc::kill(child.id() as i32, libc::SIGINT);
    }
    let out = child.wait_with_output().unwrap();
    let (_, stderr) = text(&out);
    assert!(!out.status.success(), "{stderr}");
    assert!(
        stderr.contains("interrupted: cancelled 1 Slurm job"),
        "{stderr}"
    );
    let (measured, repeated) = journal(&journal_path);
    assert!(!repeated);
    assert!(
        measured < 12,
        "the job finished before the interrupt ({measured} trials)"
    );
    // The job is gone from the queue.
    let q = Command::new("squeue")
        .args(["--noheader", "--name", "ascend-tune:add_custom"])
        .env("SLURM_CONF", conf)
        .output()
        .unwrap();
    let queued = String::from_utf8_lossy(&q.stdout).to_string();
    assert!(
        queued.lines().all(|l| l.contains(" CG ")) || queued.trim().is_empty(),
        "{queued}"
    );
    // Run again: the finished trials are journal hits, the rest are measured once, and the result is
    // written back and locked.
    let out = tool(dir, Some(conf), &args).output().unwrap();
    ok(&out, "tune --executor slurm, resumed");
    let (n, repeated) = journal(&journal_path);
    assert_eq!((n, repeated), (12, false), "every trial measured once");
    assert!(dir.join("ascend-tune.lock").is_file());
}
