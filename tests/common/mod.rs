//! What the tests that compile C++ against the twin share: where the twin's sources are, the compiler,
//! building a kernel program with the twin's runtime or a host program with its host headers, and the
//! run file of a one-block kernel program. Each test binary that needs them says `mod common;`.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Command;

pub fn twin_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("templates/twin")
}

/// The twin's kernel-side runtime, `src/kernel_*.cpp`, as the Rust side compiles it (however the
/// runtime is split into files).
pub fn kernel_runtime_sources(twin: &Path) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = std::fs::read_dir(twin.join("src"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with("kernel_") && n.ends_with(".cpp"))
        })
        .collect();
    out.sort();
    out
}

pub fn compiler() -> String {
    std::env::var("CXX").unwrap_or_else(|_| "g++".to_string())
}

pub fn run_ok(cmd: &mut Command, what: &str) -> String {
    let out = cmd
        .output()
        .unwrap_or_else(|e| panic!("{what}: could not start ({e}); install g++ or set CXX"));
    assert!(
        out.status.success(),
        "{what} failed:\n{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).to_string()
}

/// Builds `w/launch.cpp` (with `defs`, e.g. `-DX=1`) against the twin's kernel headers and runtime into
/// the program `w/name`.
pub fn build_launch(w: &Path, name: &str, defs: &[&str]) {
    let twin = twin_dir();
    let mut cc = Command::new(compiler());
    cc.args(["-std=c++17", "-O0", "-w"])
        .args(defs)
        .arg("-I")
        .arg(twin.join("include/kernel"))
        .arg(w.join("launch.cpp"));
    cc.args(kernel_runtime_sources(&twin));
    cc.arg("-o").arg(w.join(name));
    run_ok(&mut cc, &format!("building {name}"));
}

/// Writes `w/run.txt`, the run of a one-block kernel program with an empty tiling: `tensors` are its
/// `input NAME FILE BYTES` / `output NAME FILE BYTES` lines, files named relative to `w`.
pub fn write_run(w: &Path, tensors: &[(&str, &str, &str, usize)]) {
    std::fs::write(w.join("tiling.bin"), b"").unwrap();
    let mut run = format!(
        "block_dim 1\nub_bytes 196352\ntiling {}\nworkspace 0\n",
        w.join("tiling.bin").display()
    );
    for (kind, name, file, bytes) in tensors {
        run.push_str(&format!(
            "{kind} {name} {} {bytes}\n",
            w.join(file).display()
        ));
    }
    std::fs::write(w.join("run.txt"), run).unwrap();
}

/// Builds `src` against the twin's host headers into an executable beside it and returns its path.
pub fn build_host(src: &Path, what: &str) -> PathBuf {
    let exe = src.with_extension("");
    run_ok(
        Command::new(compiler())
            .args(["-std=c++17", "-w", "-I"])
            .arg(twin_dir().join("include/host"))
            .arg(src)
            .arg("-o")
            .arg(&exe),
        what,
    );
    exe
}

/// Compiles a host program against the twin's host headers beside its source, runs it, and returns
/// its output after checking it exited 0.
pub fn run_host_program(src: &Path, what: &str) -> std::process::Output {
    let exe = build_host(src, what);
    let out = Command::new(&exe).output().unwrap();
    assert!(out.status.success(), "{what}: the program failed: {out:?}");
    out
}
