//! End-to-end tests: the real `cargo-ascend-tune` binary on copies of the fixture projects. One test
//! binary, one module per area (as cargo-nextest does).

mod add_custom;
mod errors;
mod init;
mod twin_reference;

use std::path::{Path, PathBuf};
use std::process::Output;

pub const FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures");

/// Built programs are keyed by content, so every test shares one build cache.
pub fn build_cache() -> PathBuf {
    PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("twin-build-cache")
}

/// A copy of `fixtures/<name>` (without `target/`) in a fresh folder, committed to its own git repository.
pub fn project(name: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    copy_dir(&Path::new(FIXTURES).join(name), dir.path());
    git(dir.path(), &["init", "-q"]);
    git(dir.path(), &["add", "-A"]);
    git(dir.path(), &["commit", "-q", "-m", "naive operator"]);
    dir
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let p = e.unwrap().path();
        let name = p.file_name().unwrap();
        if name == "target" || name == "reference" {
            continue;
        }
        if p.is_dir() {
            copy_dir(&p, &to.join(name));
        } else {
            std::fs::copy(&p, to.join(name)).unwrap();
        }
    }
}

pub fn git(dir: &Path, args: &[&str]) {
    let ok = std::process::Command::new("git")
        .args([
            "-c",
            "user.name=test",
            "-c",
            "user.email=test@example.com",
            "-c",
            "commit.gpgsign=false",
        ])
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap()
        .status
        .success();
    assert!(ok, "git {args:?} failed");
}

/// Runs `cargo ascend-tune ARGS` in `dir` the way cargo would.
pub fn cargo_ascend_tune(dir: &Path, args: &[&str]) -> Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_cargo-ascend-tune"))
        .arg("ascend-tune")
        .args(args)
        .current_dir(dir)
        .env("ASCEND_TUNE_BUILD_CACHE", build_cache())
        .env("NO_COLOR", "1")
        .output()
        .unwrap()
}

pub fn text(o: &Output) -> (String, String) {
    (
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

/// JSON records of `--message-format json` output.
pub fn records(o: &Output) -> Vec<serde_json::Value> {
    text(o)
        .0
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("not JSON: {l}: {e}")))
        .collect()
}
