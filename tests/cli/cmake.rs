//! The CMake module (`cargo ascend-tune cmake-module`) in real CMake projects: in a custom-op project the
//! `ascend_tune` target tunes and writes the lock, `ctest` passes, and after the kernel is made slower
//! `ctest` fails naming the op. In a kernel-launch project only configuring is checked here (the target
//! and the test exist, with the options passed through); building, running and tuning kernel-launch
//! projects through their own CMake flow is tested in `twin_package.rs` and `cann.rs`.
//! Skipped, with the reason printed, only when cmake is missing and CI is not set.

use super::*;
use std::process::Command;

/// Whether cmake can run here; under `CI=true` its absence is a failure (`.ci/run` installs it).
pub fn have_cmake(test: &str) -> bool {
    have(
        test,
        Command::new("cmake").arg("--version"),
        "cmake is not installed (apt-get install cmake)",
    )
}

/// Whether `probe` runs and succeeds; if not, `test` is skipped with `missing` printed, or fails when
/// CI=true (where .ci/run must install what it needs).
pub fn have(test: &str, probe: &mut Command, missing: &str) -> bool {
    let found = probe.output().is_ok_and(|o| o.status.success());
    if !found {
        assert!(
            std::env::var("CI").map_or(true, |v| v != "true"),
            "{missing} but CI=true: .ci/run must install it"
        );
        eprintln!("skipping {test}: {missing}; with CI=true this fails");
    }
    found
}

/// Runs a CMake-family program in `dir` with the tests' build cache, so the tool it starts shares builds.
fn run(program: &str, dir: &Path, args: &[&str]) -> (bool, String) {
    let out = Command::new(program)
        .args(args)
        .current_dir(dir)
        .env("ASCEND_TUNE_BUILD_CACHE", build_cache())
        .env("NO_COLOR", "1")
        .output()
        .unwrap_or_else(|e| panic!("{program}: {e}"));
    let (stdout, stderr) = text(&out);
    (out.status.success(), format!("{stdout}\n{stderr}"))
}

const TOOL: &str = env!("CARGO_BIN_EXE_cargo-ascend-tune");

#[test]
fn custom_op_project_tunes_from_cmake_and_ctest_guards_the_lock() {
    if !have_cmake("custom_op_project_tunes_from_cmake_and_ctest_guards_the_lock") {
        return;
    }
    let dir = project("relu_custom");
    let p = dir.path();
    let out = cargo_ascend_tune(p, &["cmake-module", "cmake"]);
    assert!(out.status.success(), "{:?}", text(&out));
    std::fs::write(
        p.join("CMakeLists.txt"),
        "cmake_minimum_required(VERSION 3.16)\nproject(relu_custom_ops LANGUAGES NONE)\ninclude(cmake/AscendTune.cmake)\n",
    )
    .unwrap();
    git(p, &["add", "-A"]);
    git(p, &["commit", "-q", "-m", "tune from cmake"]);

    let (ok, log) = run(
        "cmake",
        p,
        &[
            "-B",
            "build",
            &format!("-DASCEND_TUNE_EXECUTABLE={TOOL}"),
            "-DASCEND_TUNE_ARGS=--budget 4 --seed 1",
        ],
    );
    assert!(ok, "configure failed:\n{log}");
    assert!(!log.contains("AscendTune:"), "configure warned:\n{log}");

    let (ok, log) = run("cmake", p, &["--build", "build", "--target", "ascend_tune"]);
    assert!(ok, "the ascend_tune target failed:\n{log}");
    assert!(
        log.contains("after 4 trials"),
        "budget not passed through:\n{log}"
    );
    let lock = std::fs::read_to_string(p.join("ascend-tune.lock")).expect("a lockfile");
    assert!(lock.contains("name = \"relu_custom\""), "{lock}");

    let build = p.join("build");
    let (ok, log) = run("ctest", &build, &["--output-on-failure"]);
    assert!(ok, "ctest failed on freshly tuned sources:\n{log}");
    assert!(
        log.contains("ascend_tune_check") && log.contains("Passed"),
        "{log}"
    );

    // A slower kernel: the vector Max done twice per tile (same result, twice the vector work).
    let kernel = p.join("op_kernel/relu_custom.cpp");
    let k = std::fs::read_to_string(&kernel).unwrap();
    let max = "AscendC::Max(outLocal, in0, zeroLocal, this->tileLength);";
    assert!(
        k.contains(max),
        "the fixture kernel changed: update this test"
    );
    std::fs::write(&kernel, k.replace(max, &format!("{max}\n        {max}"))).unwrap();
    let (ok, log) = run("ctest", &build, &["--output-on-failure"]);
    assert!(!ok, "ctest passed with a slower kernel:\n{log}");
    assert!(
        log.contains("ascend_tune_check")
            && log.contains("check failed: relu_custom regressed by +"),
        "{log}"
    );
}

#[test]
fn kernel_launch_project_configures_with_the_target_and_the_test() {
    if !have_cmake("kernel_launch_project_configures_with_the_target_and_the_test") {
        return;
    }
    // A kernel-launch project's root, cut to what the module meets: its own CMakeLists.txt with the
    // RUN_MODE/SOC_VERSION cache variables, the kernel source, and an ascend.toml beside them.
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path();
    std::fs::copy(
        Path::new(FIXTURES).join("add_custom/op_kernel/add_custom.cpp"),
        p.join("add_custom.cpp"),
    )
    .unwrap();
    std::fs::copy(
        Path::new(FIXTURES).join("add_custom/ascend.toml"),
        p.join("ascend.toml"),
    )
    .unwrap();
    std::fs::write(
        p.join("CMakeLists.txt"),
        r#"cmake_minimum_required(VERSION 3.16)
project(Ascendc_kernel_invocation LANGUAGES NONE)
set(RUN_MODE "cpu" CACHE STRING "cpu/sim/npu")
set(SOC_VERSION "Ascend910B1" CACHE STRING "system on chip type")
set(ASCEND_TUNE_SOC "${SOC_VERSION}" CACHE STRING "")
include(${CMAKE_SOURCE_DIR}/cmake/AscendTune.cmake)
"#,
    )
    .unwrap();
    let out = cargo_ascend_tune(p, &["cmake-module", "cmake"]);
    assert!(out.status.success(), "{:?}", text(&out));

    let (ok, log) = run(
        "cmake",
        p,
        &[
            "-B",
            "build",
            "-DRUN_MODE=cpu",
            &format!("-DASCEND_TUNE_EXECUTABLE={TOOL}"),
            "-DASCEND_TUNE_CHECK_ARGS=--tolerance 5",
        ],
    );
    assert!(ok, "configure failed:\n{log}");
    assert!(!log.contains("AscendTune:"), "configure warned:\n{log}");

    let build = p.join("build");
    let (ok, log) = run("cmake", &build, &["--build", ".", "--target", "help"]);
    assert!(
        ok && log.contains("ascend_tune"),
        "no ascend_tune target:\n{log}"
    );

    // The test exists and runs the check for this project with the options passed through.
    let (ok, log) = run("ctest", &build, &["-N", "-V"]);
    assert!(ok, "{log}");
    let manifest = p.join("ascend.toml");
    for needle in [
        "ascend_tune_check",
        TOOL,
        &format!("--manifest-path\" \"{}\"", manifest.display()),
        "\"--soc\" \"Ascend910B1\"",
        "\"check\" \"--locked\" \"--tolerance\" \"5\"",
    ] {
        assert!(log.contains(needle), "{needle} not in:\n{log}");
    }
}
