//! The twin package (`cargo ascend-tune twin-package DIR`) under real CMake builds. Each kernel-launch
//! fixture, naive and `reference/`, is configured exactly as a user would
//! (`cmake -B build -DRUN_MODE=cpu -DSOC_VERSION=Ascend910B1 -DASCEND_CANN_PACKAGE_PATH=<package>`),
//! built, and run: it must pass its own check, its outputs must match a reference computed here, and the
//! trace its ICPU_RUN_KF launch leaves must parse and model, the reference faster than the naive
//! version. Also: a fault in a launched kernel, `ascendc.cmake` refusing RUN_MODE=npu, and writing the
//! package twice or into a folder that is not one. Skipped, with the reason printed, only when cmake is
//! missing and CI is not set (`.ci/run` installs it).

use super::cmake::have_cmake;
use super::*;
use ascend_tune::model::{pipeline, soc, trace};
use half::f16;
use std::process::Command;
use std::sync::OnceLock;
use std::time::Instant;

const SOC: &str = "Ascend910B1";

/// The twin package written by the real binary, once per test run.
fn package() -> &'static Path {
    static PACKAGE: OnceLock<PathBuf> = OnceLock::new();
    PACKAGE.get_or_init(|| {
        let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("twin-package");
        let out = cargo_ascend_tune(
            Path::new(env!("CARGO_TARGET_TMPDIR")),
            &["twin-package", dir.to_str().unwrap()],
        );
        assert!(
            out.status.success(),
            "twin-package failed: {:?}",
            text(&out)
        );
        dir
    })
}

/// Runs a program in `dir`; (success, stdout + stderr).
fn run(program: &str, dir: &Path, args: &[&str]) -> (bool, String) {
    let out = Command::new(program)
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap_or_else(|e| panic!("{program}: {e}"));
    let (stdout, stderr) = text(&out);
    (out.status.success(), format!("{stdout}\n{stderr}"))
}

/// A copy of `fixtures/<name>` (the naive project) or of its `reference/` in a fresh folder.
fn launch_project(name: &str, reference: bool) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let base = Path::new(FIXTURES).join(name);
    copy_tree(
        &if reference {
            base.join("reference")
        } else {
            base
        },
        dir.path(),
    );
    dir
}

/// Configures and builds the project in `dir` against the twin package, as the command lines
/// say; prints the time each took (for the record; not asserted). Returns the build's log.
fn configure_and_build(dir: &Path, what: &str) -> String {
    let pkg = package();
    let t = Instant::now();
    let (ok, log) = run(
        "cmake",
        dir,
        &[
            "-B",
            "build",
            "-DRUN_MODE=cpu",
            &format!("-DSOC_VERSION={SOC}"),
            &format!("-DASCEND_CANN_PACKAGE_PATH={}", pkg.display()),
        ],
    );
    assert!(ok, "{what}: configure failed:\n{log}");
    let configured = t.elapsed();
    let t = Instant::now();
    let (ok, log) = run("cmake", dir, &["--build", "build", "-j", "2"]);
    assert!(ok, "{what}: build failed:\n{log}");
    eprintln!(
        "{what}: configure {:.1} s, build {:.1} s",
        configured.as_secs_f64(),
        t.elapsed().as_secs_f64()
    );
    log
}

/// Runs `build/ascendc_kernels_bbit` in `dir` (where its input/ and output/ folders live), with the
/// trace going to `trace` (None: the default, twin.trace in `dir`). Returns stdout + stderr.
fn run_program(dir: &Path, trace: Option<&Path>, what: &str) -> String {
    let mut cmd = Command::new(dir.join("build/ascendc_kernels_bbit"));
    cmd.current_dir(dir);
    match trace {
        Some(t) => cmd.env("ASCEND_TWIN_TRACE", t),
        None => cmd.env_remove("ASCEND_TWIN_TRACE"),
    };
    let out = cmd.output().unwrap();
    let (stdout, stderr) = text(&out);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{what}: the program failed:\n{stdout}\n{stderr}"
    );
    assert!(
        stdout.lines().any(|l| l.starts_with("check: pass (")),
        "{what}: no pass line:\n{stdout}\n{stderr}"
    );
    stdout
}

/// The modelled timing of the trace at `path`.
fn model(path: &Path, what: &str) -> pipeline::Timing {
    let text = std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("{what}: no trace at {}: {e}", path.display()));
    let t = trace::parse(&text).unwrap_or_else(|e| panic!("{what}: trace: {e}"));
    pipeline::simulate(&t, soc::lookup(SOC).unwrap(), &Default::default())
}

fn read_f16(path: &Path) -> Vec<f64> {
    std::fs::read(path)
        .unwrap()
        .chunks_exact(2)
        .map(|c| f16::from_le_bytes([c[0], c[1]]).to_f64())
        .collect()
}

fn read_f32(path: &Path) -> Vec<f64> {
    std::fs::read(path)
        .unwrap()
        .chunks_exact(4)
        .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]) as f64)
        .collect()
}

fn write_f16(path: &Path, values: impl Iterator<Item = f64>) {
    let bytes: Vec<u8> = values
        .flat_map(|v| f16::from_f64(v).to_le_bytes())
        .collect();
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, bytes).unwrap();
}

/// One variant of a kernel-launch fixture, built and run: the modelled timing of its launch.
struct Launched {
    dir: tempfile::TempDir,
    timing: pipeline::Timing,
    build_log: String,
}

/// Builds and runs `fixtures/<name>` (naive with the trace path from the environment, reference with
/// the default twin.trace), asserting the block count its launch recorded.
fn launch(name: &str, reference: bool, block_dim: u32, prepare: impl Fn(&Path)) -> Launched {
    let what = format!("{name}{}", if reference { "/reference" } else { "" });
    let dir = launch_project(name, reference);
    let p = dir.path();
    prepare(p);
    let build_log = configure_and_build(p, &what);
    let trace_path = if reference {
        run_program(p, None, &what);
        p.join("twin.trace")
    } else {
        let t = p.join("launch.trace");
        run_program(p, Some(&t), &what);
        t
    };
    let timing = model(&trace_path, &what);
    assert_eq!(timing.block_dim, block_dim, "{what}: block_dim");
    assert!(
        timing.latency_us > 0.0 && timing.latency_us.is_finite(),
        "{what}: latency {}",
        timing.latency_us
    );
    eprintln!(
        "{what}: block_dim {}, modelled {:.2} us ({:?} bound)",
        timing.block_dim, timing.latency_us, timing.bound
    );
    Launched {
        dir,
        timing,
        build_log,
    }
}

fn assert_reference_faster(name: &str, naive: &Launched, reference: &Launched) {
    assert!(
        reference.timing.latency_us < naive.timing.latency_us,
        "{name}: reference {:.2} us is not faster than naive {:.2} us",
        reference.timing.latency_us,
        naive.timing.latency_us
    );
    eprintln!(
        "{name}: naive {:.2} us, reference {:.2} us ({:.1}x)",
        naive.timing.latency_us,
        reference.timing.latency_us,
        naive.timing.latency_us / reference.timing.latency_us
    );
}

/// add_launch: the naive program reads inputs written here (the path a tuner takes); the reference
/// generates its own and writes them. z must be x + y rounded to fp16 either way. The reference, built
/// after the naive version with the same compiler and flags, links the runtime the package kept instead
/// of compiling it; it is also installed with `cmake --install` and the installed program runs.
#[test]
fn add_launch_builds_runs_and_models_on_the_twin_package() {
    if !have_cmake("add_launch_builds_runs_and_models_on_the_twin_package") {
        return;
    }
    let n = 64 * 8192;
    let naive = launch("add_launch", false, 8, |p| {
        // Not the program's own generator: values it would never make, including exact ties.
        write_f16(
            &p.join("input/input_x.bin"),
            (0..n).map(|i| ((i % 997) as f64 - 498.0) / 64.0),
        );
        write_f16(
            &p.join("input/input_y.bin"),
            (0..n).map(|i| ((i % 101) as f64 - 50.0) / 1024.0),
        );
    });
    let reference = launch("add_launch", true, 32, |_| {});
    for l in [&naive, &reference] {
        let p = l.dir.path();
        let x = read_f16(&p.join("input/input_x.bin"));
        let y = read_f16(&p.join("input/input_y.bin"));
        let z = read_f16(&p.join("output/output_z.bin"));
        assert_eq!(z.len(), n);
        let want: Vec<f64> = x.iter().zip(&y).map(|(a, b)| a + b).collect();
        // Correctly rounded fp16: within half an ulp (2^-11 relative).
        assert_close("add_launch z", &z, &want, 1e-7, 1.0 / 2048.0);
    }
    // The naive program used the inputs given to it.
    assert_eq!(
        read_f16(&naive.dir.path().join("input/input_x.bin"))[997],
        -498.0 / 64.0
    );
    assert_reference_faster("add_launch", &naive, &reference);
    // Trace version 3 and up (4 adds the core kind of mixed kernels): GM copies name their allocation
    // (`buf=`, x y z in allocation order) and the Add its UB operands (`ubd= ubs0= ubs1=`), which the
    // model's L2 and bank-conflict costs read.
    let trace = std::fs::read_to_string(reference.dir.path().join("twin.trace")).unwrap();
    assert!(trace.starts_with("twin-trace 6\n"), "{}", &trace[..40]);
    let copies: Vec<&str> = trace
        .lines()
        .filter(|l| l.starts_with("I MTE2 ") || l.starts_with("I MTE3 "))
        .collect();
    assert!(
        !copies.is_empty() && copies.iter().all(|l| l.contains(" buf=")),
        "{copies:?}"
    );
    let bufs: std::collections::BTreeSet<&str> = copies
        .iter()
        .filter_map(|l| l.split(' ').find(|kv| kv.starts_with("buf=")))
        .collect();
    assert_eq!(bufs.len(), 3, "{bufs:?}");
    assert!(
        trace
            .lines()
            .filter(|l| l.starts_with("I V Add "))
            .all(|l| l.contains(" ubd=") && l.contains(" ubs0=") && l.contains(" ubs1=")),
        "Add records without UB addresses"
    );
    assert!(
        !reference.build_log.contains("kernel_runtime.cpp"),
        "the second build folder compiled the twin runtime again:\n{}",
        reference.build_log
    );
    let cached = std::fs::read_dir(package().join("tools/tikicpulib/cache"))
        .unwrap()
        .filter(|e| {
            e.as_ref()
                .unwrap()
                .path()
                .join("libtikicpulib_twin_runtime.a")
                .is_file()
        })
        .count();
    assert!(cached >= 1);

    let p = reference.dir.path();
    let (ok, log) = run("cmake", p, &["--install", "build"]);
    assert!(ok, "install failed:\n{log}");
    let installed = p.join("out/bin/ascendc_kernels_bbit");
    let (ok, log) = run(installed.to_str().unwrap(), p, &[]);
    assert!(ok && log.contains("check: pass ("), "{log}");
}

#[test]
fn leaky_relu_launch_builds_runs_and_models_on_the_twin_package() {
    if !have_cmake("leaky_relu_launch_builds_runs_and_models_on_the_twin_package") {
        return;
    }
    let naive = launch("leaky_relu_launch", false, 8, |_| {});
    let reference = launch("leaky_relu_launch", true, 32, |_| {});
    for l in [&naive, &reference] {
        let p = l.dir.path();
        let x = read_f16(&p.join("input/input_x.bin"));
        let y = read_f16(&p.join("output/output_y.bin"));
        assert_eq!(y.len(), 64 * 8192);
        assert!(x.iter().any(|v| *v < 0.0) && x.iter().any(|v| *v > 0.0));
        let want: Vec<f64> = x
            .iter()
            .map(|&v| if v >= 0.0 { v } else { 0.01 * v })
            .collect();
        // fp16 rounding of the result and of the slope itself.
        assert_close("leaky_relu_launch y", &y, &want, 1e-6, 1.0 / 1024.0);
    }
    assert_reference_faster("leaky_relu_launch", &naive, &reference);
}

#[test]
fn softmax_launch_builds_runs_and_models_on_the_twin_package() {
    if !have_cmake("softmax_launch_builds_runs_and_models_on_the_twin_package") {
        return;
    }
    let naive = launch("softmax_launch", false, 8, |_| {});
    let reference = launch("softmax_launch", true, 32, |_| {});
    let cols = 1024;
    for l in [&naive, &reference] {
        let p = l.dir.path();
        let x = read_f32(&p.join("input/input_x.bin"));
        let y = read_f32(&p.join("output/output_y.bin"));
        assert_eq!(y.len(), 256 * cols);
        let mut want = Vec::with_capacity(x.len());
        for row in x.chunks_exact(cols) {
            let max = row.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
            let e: Vec<f64> = row.iter().map(|v| (v - max).exp()).collect();
            let sum: f64 = e.iter().sum();
            want.extend(e.iter().map(|v| v / sum));
        }
        assert_close("softmax_launch y", &y, &want, 1e-9, 1e-5);
    }
    assert_reference_faster("softmax_launch", &naive, &reference);
}

/// A kernel that writes past its output faults: the twin's located message, exit code 3, and the
/// traces of both launches (the second one numbered `.1`, cut at the fault).
#[test]
fn a_fault_in_a_launched_kernel_is_located_and_exits_3() {
    if !have_cmake("a_fault_in_a_launched_kernel_is_located_and_exits_3") {
        return;
    }
    let dir = launch_project("add_launch", false);
    let p = dir.path();
    let main = std::fs::read_to_string(p.join("main.cpp")).unwrap();
    let launch = "    ICPU_RUN_KF(add_custom, BLOCK_DIM, xGm, yGm, zGm);\n";
    assert!(
        main.contains(launch),
        "the fixture changed: update this test"
    );
    let second = "    uint8_t *small = static_cast<uint8_t *>(AscendC::GmAlloc(1024));\n    \
                  ICPU_RUN_KF(add_custom, BLOCK_DIM, xGm, yGm, small);\n";
    std::fs::write(
        p.join("main.cpp"),
        main.replace(launch, &format!("{launch}{second}")),
    )
    .unwrap();
    configure_and_build(p, "add_launch with a faulting second launch");
    let trace_path = p.join("t.trace");
    let out = Command::new(p.join("build/ascendc_kernels_bbit"))
        .current_dir(p)
        .env("ASCEND_TWIN_TRACE", &trace_path)
        .output()
        .unwrap();
    let (stdout, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(3), "{stdout}\n{stderr}");
    assert!(!stdout.contains("check:"), "{stdout}");
    for needle in [
        "error: DataCopy: GM write out of bounds",
        "of 'GmAlloc #3' which has 1024 bytes",
        "add_custom.cpp:",
        "(block 0)",
        "in ICPU_RUN_KF(add_custom, 8, ...) at ",
    ] {
        assert!(stderr.contains(needle), "{needle} not in:\n{stderr}");
    }
    let first = model(&trace_path, "first launch");
    assert_eq!(first.block_dim, 8);
    let cut = std::fs::read_to_string(p.join("t.trace.1")).unwrap();
    let cut = trace::parse(&cut).unwrap();
    assert_eq!(cut.block_dim(), 8);
    assert_eq!(cut.blocks.len(), 1, "the fault stops the launch in block 0");
}

#[test]
fn ascendc_cmake_of_the_package_refuses_npu_mode() {
    if !have_cmake("ascendc_cmake_of_the_package_refuses_npu_mode") {
        return;
    }
    let dir = launch_project("add_launch", false);
    let (ok, log) = run(
        "cmake",
        dir.path(),
        &[
            "-B",
            "build",
            "-DRUN_MODE=npu",
            &format!("-DSOC_VERSION={SOC}"),
            &format!("-DASCEND_CANN_PACKAGE_PATH={}", package().display()),
        ],
    );
    assert!(!ok, "npu mode configured against the twin package:\n{log}");
    // CMake wraps long messages: compare with the whitespace folded.
    let flat = log.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        flat.contains("is an ascend-tune twin package, which supports RUN_MODE=cpu only"),
        "{log}"
    );
}

#[test]
fn twin_package_twice_is_fine_and_a_foreign_folder_is_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("pkg");
    let mut written = vec![];
    for _ in 0..2 {
        let out = cargo_ascend_tune(
            tmp.path(),
            &["--message-format", "json", "twin-package", "pkg"],
        );
        assert!(out.status.success(), "{:?}", text(&out));
        let r = records(&out);
        assert_eq!(r.len(), 1, "{r:?}");
        assert_eq!(r[0]["reason"], "twin-package");
        assert_eq!(r[0]["path"], dir.to_str().unwrap());
        assert!(
            r[0]["socs"]
                .as_array()
                .unwrap()
                .contains(&"Ascend910B1".into())
        );
        written.push(r[0]["written"].as_bool().unwrap());
    }
    assert_eq!(written, [true, false]);
    let marker = std::fs::read_to_string(dir.join("ascend-twin-package.toml")).unwrap();
    assert!(
        marker.contains(&format!(
            "twin-version = \"{}\"",
            ascend_tune::twin::version()
        )),
        "{marker}"
    );
    for file in [
        "tools/tikicpulib/lib/cmake/tikicpulib-config.cmake",
        "tools/tikicpulib/lib/cmake/tikicpulib-config-version.cmake",
        "tools/tikicpulib/twin/include/kernel/tikicpulib.h",
        "tools/tikicpulib/twin/include/kernel/kernel_operator.h",
        "compiler/tikcpp/ascendc_kernel_cmake/ascendc.cmake",
        "bin/setenv.bash",
        "set_env.sh",
    ] {
        assert!(dir.join(file).is_file(), "{file} missing");
    }

    let foreign = tmp.path().join("mine");
    std::fs::create_dir(&foreign).unwrap();
    std::fs::write(foreign.join("notes.txt"), "keep me").unwrap();
    let out = cargo_ascend_tune(tmp.path(), &["twin-package", "mine"]);
    let (_, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("is not empty and is not a twin package"),
        "{stderr}"
    );
    assert_eq!(std::fs::read_dir(&foreign).unwrap().count(), 1);
}
