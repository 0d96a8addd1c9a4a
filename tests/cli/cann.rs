//! The `cann` backend end to end: with no CANN anywhere it exits 2 naming every place it looked; with the
//! twin package standing in for CANN (`ASCEND_CANN_PACKAGE_PATH`), `tune --backend cann` runs a
//! kernel-launch fixture's own CMake flow and writes the lock; the twin backend runs the same flow on a
//! kernel-launch project and agrees with a reference computed in Rust. The CMake-needing tests skip, with
//! the reason printed, only when cmake is missing and CI is not set.

use super::cmake::have_cmake;
use super::*;
use std::process::Command;

const TOOL: &str = env!("CARGO_BIN_EXE_cargo-ascend-tune");

/// `cargo ascend-tune ARGS` in `dir` with no `ASCEND_*` variable of the caller's, `HOME` set to `home`,
/// and `extra` on top.
pub fn without_cann(dir: &Path, home: &Path, args: &[&str], extra: &[(&str, &Path)]) -> Output {
    let mut cmd = Command::new(TOOL);
    cmd.arg("ascend-tune").args(args).current_dir(dir);
    for (k, _) in std::env::vars_os() {
        if k.to_string_lossy().starts_with("ASCEND_") {
            cmd.env_remove(&k);
        }
    }
    cmd.env("HOME", home).env("NO_COLOR", "1");
    for (k, v) in extra {
        cmd.env(k, v);
    }
    cmd.output().unwrap()
}

#[test]
fn with_no_cann_anywhere_the_cann_backend_exits_2_naming_every_place() {
    let dir = project("add_custom");
    let home = tempfile::tempdir().unwrap();
    let out = without_cann(
        dir.path(),
        home.path(),
        &["run", "--backend", "cann", "--message-format", "json"],
        &[],
    );
    assert_eq!(out.status.code(), Some(2), "{:?}", text(&out));
    let errors: Vec<serde_json::Value> = records(&out)
        .into_iter()
        .filter(|r| r["reason"] == "error")
        .collect();
    assert_eq!(errors.len(), 1, "{:?}", text(&out));
    let message = errors[0]["message"].as_str().unwrap();
    let home = home.path().display().to_string();
    let places = [
        "1. `cann-path` in ascend.toml: not set".to_string(),
        "2. ASCEND_CANN_PACKAGE_PATH: not set".into(),
        "3. ASCEND_INSTALL_PATH: not set".into(),
        "4. ASCEND_HOME_PATH: not set".into(),
        format!(
            "5. $HOME/Ascend/ascend-toolkit/latest: {home}/Ascend/ascend-toolkit/latest: no such folder"
        ),
        "6. /usr/local/Ascend/ascend-toolkit/latest: ".into(),
        format!("7. $HOME/Ascend/cann: {home}/Ascend/cann: no such folder"),
        "8. /usr/local/Ascend/cann: ".into(),
    ];
    let mut at = 0;
    for place in &places {
        let found = message[at..]
            .find(place.as_str())
            .unwrap_or_else(|| panic!("`{place}` not listed in order in:\n{message}"));
        at += found + place.len();
    }
    let help = errors[0]["help"].as_str().unwrap();
    for fix in [
        "install the CANN toolkit",
        "ASCEND_CANN_PACKAGE_PATH",
        "cann-path",
        "twin-package DIR",
    ] {
        assert!(help.contains(fix), "`{fix}` missing from the help: {help}");
    }

    // The human form says the same and exits the same.
    let out = without_cann(
        dir.path(),
        Path::new(&home),
        &["run", "--backend", "cann"],
        &[],
    );
    assert_eq!(out.status.code(), Some(2));
    let (_, stderr) = text(&out);
    assert!(stderr.contains("found no CANN toolkit"), "{stderr}");
    assert!(stderr.contains("ASCEND_HOME_PATH: not set"), "{stderr}");
}

#[test]
fn a_cann_path_that_is_no_cann_is_refused_at_its_line() {
    let dir = project("add_custom");
    let manifest = dir.path().join("ascend.toml");
    let toml = std::fs::read_to_string(&manifest)
        .unwrap()
        .replace("[project]", "[project]\ncann-path = \"no-such-cann\"");
    std::fs::write(&manifest, &toml).unwrap();
    let home = tempfile::tempdir().unwrap();
    let out = without_cann(
        dir.path(),
        home.path(),
        &["run", "--backend", "cann", "--message-format", "json"],
        &[],
    );
    assert_eq!(out.status.code(), Some(2), "{:?}", text(&out));
    let e = records(&out)
        .into_iter()
        .find(|r| r["reason"] == "error")
        .expect("an error record");
    let message = e["message"].as_str().unwrap();
    assert!(message.starts_with("`cann-path` points at "), "{e}");
    assert!(
        message.ends_with("no-such-cann, which cannot be used: no such folder"),
        "{e}"
    );
    let line = toml
        .lines()
        .position(|l| l.starts_with("cann-path"))
        .unwrap()
        + 1;
    assert_eq!(e["line"], line as u64, "{e}");
}

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

fn executable(path: &Path, text: &str) {
    use std::os::unix::fs::PermissionsExt;
    write(path, text);
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

/// A CANN stand-in with only what the npu flow touches: `bin/setenv.bash`, which puts `tools/bin` on the
/// PATH, and there an `msprof` that checks it runs on the device asked for, runs the program and writes
/// an OPPROF folder with one launch of 11.5, 12.5, ... us (one more each run).
fn fake_cann(root: &Path) {
    write(
        &root.join("bin/setenv.bash"),
        &format!(
            "export PATH=\"{}/tools/bin:$PATH\"\nexport FAKE_CANN_SOURCED=yes\n",
            root.display()
        ),
    );
    executable(
        &root.join("tools/bin/msprof"),
        r#"#!/bin/sh
[ "$FAKE_CANN_SOURCED" = yes ] || { echo "set_env was not sourced" >&2; exit 7; }
[ "$ASCEND_RT_VISIBLE_DEVICES" = 3 ] || { echo "wrong device: $ASCEND_RT_VISIBLE_DEVICES" >&2; exit 8; }
[ "$1" = op ] || { echo "not msprof op: $*" >&2; exit 9; }
out=""; app=""
for a in "$@"; do
  case "$a" in --output=*) out="${a#--output=}";; esac
  app="$a"
done
"$app" || exit 1
n=$(cat "$COUNTER" 2>/dev/null || echo 0); n=$((n + 1)); echo "$n" > "$COUNTER"
mkdir -p "$out/OPPROF_20250101000000_FAKE"
printf 'Op Name,Op Type,Task Duration(us),Block Dim,Mix Block Dim,Device Id,Pid,Current Freq,Rated Freq\nscale_custom_mix_aiv,vector,%s.5,8,N/A,0,1,1800,1800\n' \
  "$((10 + n))" > "$out/OPPROF_20250101000000_FAKE/OpBasicInfo.csv"
printf 'block_id,sub_block_id,aiv_time(us),aiv_total_cycles,aiv_vec_time(us),aiv_vec_ratio,aiv_mte2_time(us),aiv_mte2_ratio,aiv_mte3_time(us),aiv_mte3_ratio\n0,0,10,18000,2,0.2,7,0.7,1,0.1\n' \
  > "$out/OPPROF_20250101000000_FAKE/PipeUtilization.csv"
"#,
    );
}

/// A kernel-launch project of the samples' shape whose program needs no CANN: it doubles `x` into `z`
/// and records the cache variables it was configured with.
fn scale_project(dir: &Path, cann: &Path) {
    write(
        &dir.join("CMakeLists.txt"),
        r#"cmake_minimum_required(VERSION 3.16)
project(scale_launch LANGUAGES CXX)
file(WRITE ${CMAKE_BINARY_DIR}/cache_vars.txt "${RUN_MODE} ${SOC_VERSION} ${ASCEND_CANN_PACKAGE_PATH} ${CMAKE_BUILD_TYPE}")
add_executable(ascendc_kernels_bbit main.cpp scale_custom.cpp)
"#,
    );
    write(
        &dir.join("scale_custom.cpp"),
        "float scale_custom(float v) { constexpr float FACTOR = 2.0f; return v * FACTOR; }\n",
    );
    write(
        &dir.join("main.cpp"),
        r#"#include <cstdio>
#include <vector>
float scale_custom(float v);
int main() {
    std::vector<float> x(256);
    FILE* in = std::fopen("input/input_x.bin", "rb");
    if (!in || std::fread(x.data(), 4, x.size(), in) != x.size()) { std::fprintf(stderr, "no input\n"); return 1; }
    std::fclose(in);
    for (auto& v : x) v = scale_custom(v);
    FILE* out = std::fopen("output/output_z.bin", "wb");
    if (!out) return 1;
    std::fwrite(x.data(), 4, x.size(), out);
    std::fclose(out);
    return 0;
}
"#,
    );
    write(
        &dir.join("ascend.toml"),
        &format!(
            r#"[project]
soc = "Ascend910B1"
layout = "kernel-launch"
cann-path = "{}"
run-mode = "npu"
devices = [3]

[[op]]
name = "scale_custom"
kernel = ["scale_custom.cpp"]
host = ["main.cpp"]

[[op.input]]
name = "x"
dtype = "float32"
shape = [256]

[[op.output]]
name = "z"
dtype = "float32"
shape = [256]
"#,
            cann.display()
        ),
    );
}

#[test]
fn npu_mode_builds_with_the_projects_cmake_and_measures_with_msprof() {
    if !have_cmake("npu_mode_builds_with_the_projects_cmake_and_measures_with_msprof") {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let cann = tmp.path().join("cann");
    fake_cann(&cann);
    let dir = tmp.path().join("scale");
    scale_project(&dir, &cann);
    let home = tmp.path().join("home");
    let counter = tmp.path().join("counter");
    let out = without_cann(
        &dir,
        &home,
        &["run", "--backend", "cann", "--message-format", "json"],
        &[("COUNTER", &counter)],
    );
    assert!(out.status.success(), "{:?}", text(&out));
    let measured = record(&out, "op-measured");
    // Five samples (11.5 .. 15.5 us), reduced to their median, measured rather than modelled.
    assert_eq!(std::fs::read_to_string(&counter).unwrap().trim(), "5");
    assert_eq!(measured["latency_us"], 13.5, "{measured}");
    assert_eq!(measured["modelled"], false, "{measured}");
    assert_eq!(measured["block_dim"], 8, "{measured}");
    assert_eq!(measured["backend"], "cann", "{measured}");
    assert_eq!(measured["bound"], "mte2 (GM->UB copies)", "{measured}");
    assert_eq!(measured["pipes"]["aiv_mte2_ratio"], 0.7, "{measured}");
    // The build ran in a copy under target/ascend-tune/cann/ with the samples' cache variables.
    let builds: Vec<PathBuf> = std::fs::read_dir(dir.join("target/ascend-tune/cann"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_dir())
        .collect();
    assert_eq!(builds.len(), 1, "{builds:?}");
    let vars = std::fs::read_to_string(builds[0].join("build/cache_vars.txt")).unwrap();
    assert_eq!(vars, format!("npu Ascend910B1 {} Release", cann.display()));
    assert!(
        !dir.join("build").exists(),
        "the user's project was built in"
    );
}

/// A copy of `fixtures/<name>` (the naive project, no `target/` nor `reference/`), without git.
fn launch_copy(name: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    copy_tree(&Path::new(FIXTURES).join(name), dir.path());
    dir
}

fn read_f16(path: &Path) -> Vec<f64> {
    decode(
        ascend_tune::manifest::DType::Float16,
        &std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display())),
    )
}

#[test]
fn the_twin_backend_runs_a_kernel_launch_fixture_through_its_cmake_and_agrees_with_rust() {
    if !have_cmake(
        "the_twin_backend_runs_a_kernel_launch_fixture_through_its_cmake_and_agrees_with_rust",
    ) {
        return;
    }
    let dir = launch_copy("add_launch");
    let home = tempfile::tempdir().unwrap();
    let keep = PathBuf::from("1");
    let out = without_cann(
        dir.path(),
        home.path(),
        &["run", "--message-format", "json"],
        &[("ASCEND_TUNE_KEEP_RUNS", &keep)],
    );
    assert!(out.status.success(), "{:?}", text(&out));
    let measured = record(&out, "op-measured");
    assert_eq!(measured["backend"], "twin", "{measured}");
    assert_eq!(measured["modelled"], true, "{measured}");
    assert_eq!(measured["block_dim"], 8, "{measured}");
    assert!(measured["latency_us"].as_f64().unwrap() > 0.0, "{measured}");
    // The package the backend wrote for itself, and the run it kept: z = x + y, computed here.
    let work = dir.path().join("target/ascend-tune");
    assert!(work.join("twin-package/ascend-twin-package.toml").is_file());
    let runs = kept_runs(dir.path());
    assert_eq!(runs.len(), 1, "{runs:?}");
    let x = read_f16(&runs[0].join("input/input_x.bin"));
    let y = read_f16(&runs[0].join("input/input_y.bin"));
    let z = read_f16(&runs[0].join("output/output_z.bin"));
    assert_eq!(x.len(), 64 * 8192);
    let want: Vec<f64> = x.iter().zip(&y).map(|(a, b)| a + b).collect();
    // One fp16 rounding of the exact sum: half an ulp, 2^-11 relative.
    assert_close("add_launch z", &z, &want, 1e-7, 1.0 / 2048.0);
    assert!(
        x.iter().any(|v| *v != 0.0) && x != y,
        "inputs were not generated"
    );
    assert!(runs[0].join("twin.trace").is_file(), "no trace was left");
    assert!(
        !dir.path().join("build").exists(),
        "the user's project was built in"
    );
}

#[test]
fn tune_on_the_cann_backend_with_the_twin_package_writes_the_lock() {
    if !have_cmake("tune_on_the_cann_backend_with_the_twin_package_writes_the_lock") {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let package = tmp.path().join("cann");
    let home = tmp.path().join("home");
    let out = without_cann(
        tmp.path(),
        &home,
        &["twin-package", package.to_str().unwrap()],
        &[],
    );
    assert!(out.status.success(), "{:?}", text(&out));
    let dir = launch_copy("add_launch");
    let out = without_cann(
        dir.path(),
        &home,
        &[
            "tune",
            "--backend",
            "cann",
            "--budget",
            "4",
            "--allow-no-vcs",
            "--no-rewrite",
            "--message-format",
            "json",
        ],
        &[("ASCEND_CANN_PACKAGE_PATH", &package)],
    );
    assert!(out.status.success(), "{:?}", text(&out));
    let records = records(&out);
    let trials: Vec<&serde_json::Value> =
        records.iter().filter(|r| r["reason"] == "trial").collect();
    assert_eq!(trials.len(), 4, "{records:?}");
    assert!(
        trials.iter().any(|t| t["latency_us"].as_f64().is_some()),
        "no trial ran: {trials:?}"
    );
    let tuned = records
        .iter()
        .find(|r| r["reason"] == "op-tuned")
        .expect("an op-tuned record");
    assert_eq!(tuned["modelled"], true, "{tuned}");
    assert!(tuned["speedup"].as_f64().unwrap() >= 1.0, "{tuned}");
    let lock = std::fs::read_to_string(dir.path().join("ascend-tune.lock")).expect("a lockfile");
    for line in [
        "name = \"add_custom\"",
        "soc = \"Ascend910B1\"",
        "backend = \"cann\"",
        "modelled = true",
        "trials = 4",
    ] {
        assert!(
            lock.lines().any(|l| l == line),
            "`{line}` missing from:\n{lock}"
        );
    }
    // The CMake flow ran against the package it was pointed at, in copies of the project.
    let builds = std::fs::read_dir(dir.path().join("target/ascend-tune/cann"))
        .unwrap()
        .filter(|e| e.as_ref().unwrap().path().is_dir())
        .count();
    assert!(builds >= 2, "{builds} candidate builds");
    assert!(!dir.path().join("target/ascend-tune/twin-package").exists());
}

#[test]
fn a_missing_cmake_is_a_clear_error_on_a_kernel_launch_project() {
    let tmp = tempfile::tempdir().unwrap();
    // A PATH with what sourcing the package's set-up script needs, and no cmake.
    let bin = tmp.path().join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    for tool in ["bash", "env", "dirname"] {
        let found = std::env::split_paths(&std::env::var_os("PATH").unwrap())
            .map(|d| d.join(tool))
            .find(|p| p.is_file())
            .unwrap_or_else(|| panic!("{tool} is not installed"));
        std::os::unix::fs::symlink(found, bin.join(tool)).unwrap();
    }
    let dir = launch_copy("add_launch");
    let out = without_cann(
        dir.path(),
        &tmp.path().join("home"),
        &["run", "--message-format", "json"],
        &[("PATH", &bin)],
    );
    assert_eq!(out.status.code(), Some(2), "{:?}", text(&out));
    let e = records(&out)
        .into_iter()
        .find(|r| r["reason"] == "error")
        .expect("an error record");
    assert!(
        e["message"]
            .as_str()
            .unwrap()
            .starts_with("cmake is not installed"),
        "{e}"
    );
    assert!(
        e["help"]
            .as_str()
            .unwrap()
            .contains("apt-get install cmake"),
        "{e}"
    );
}

#[test]
fn a_custom_op_project_on_cann_needs_its_aclnn_caller() {
    let tmp = tempfile::tempdir().unwrap();
    let cann = tmp.path().join("cann");
    write(
        &cann.join("bin/setenv.bash"),
        "export FAKE_CANN_SOURCED=yes\n",
    );
    let dir = project("add_custom");
    let manifest = dir.path().join("ascend.toml");
    let toml = std::fs::read_to_string(&manifest).unwrap().replace(
        "[project]",
        &format!("[project]\ncann-path = \"{}\"", cann.display()),
    );
    std::fs::write(&manifest, &toml).unwrap();
    let out = without_cann(
        dir.path(),
        &tmp.path().join("home"),
        &["run", "--backend", "cann", "--message-format", "json"],
        &[],
    );
    assert_eq!(out.status.code(), Some(2), "{:?}", text(&out));
    let e = records(&out)
        .into_iter()
        .find(|r| r["reason"] == "error")
        .expect("an error record");
    assert!(
        e["message"]
            .as_str()
            .unwrap()
            .starts_with("op `add_custom` has no `app`"),
        "{e}"
    );
    let help = e["help"].as_str().unwrap();
    assert!(help.contains("aclnnAddCustomGetWorkspaceSize"), "{help}");
    assert!(
        help.contains("input/input_x.bin, input/input_y.bin"),
        "{help}"
    );
    let line = toml.lines().position(|l| l == "[[op]]").unwrap() + 1;
    assert_eq!(e["line"], line as u64, "{e}");
}
