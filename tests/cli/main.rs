//! End-to-end tests: the real `cargo-ascend-tune` binary on copies of the fixture projects. One test
//! binary, one module per area (as cargo-nextest does).

mod add_custom;
mod asc;
mod bank;
mod bench;
mod cann;
mod check_report;
mod cmake;
mod cube;
mod devkit;
mod entries;
mod errors;
mod fast_trials;
mod fixtures_a;
mod fixtures_b;
mod gm_copy;
mod gm_sum;
mod host_motifs;
mod init;
mod kernel_loop;
mod probes;
mod reliability;
mod run_checks;
mod scalar_loops;
mod slurm;
mod soak;
mod tensor_list;
mod twin_package;
mod twin_reference;
mod value_depend;
mod workspace;

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
    copy_tree(&Path::new(FIXTURES).join(name), dir.path());
    git(dir.path(), &["init", "-q"]);
    git(dir.path(), &["add", "-A"]);
    git(dir.path(), &["commit", "-q", "-m", "naive operator"]);
    dir
}

/// A copy of `tests/cli/projects/<name>`, committed to its own git repository.
pub fn test_project(name: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let from = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/cli/projects")
        .join(name);
    copy_tree(&from, dir.path());
    git(dir.path(), &["init", "-q"]);
    git(dir.path(), &["add", "-A"]);
    git(dir.path(), &["commit", "-q", "-m", "operator"]);
    dir
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

/// The record with this `reason` in `--message-format json` output (the first, if several).
pub fn record(o: &Output, reason: &str) -> serde_json::Value {
    records(o)
        .into_iter()
        .find(|r| r["reason"] == reason)
        .unwrap_or_else(|| panic!("no {reason} record in {:?}", text(o)))
}

/// The run folders a kernel-launch project's runs left under `target/ascend-tune/cann-runs/` (kept
/// with `ASCEND_TUNE_KEEP_RUNS`).
pub fn kept_runs(project: &Path) -> Vec<PathBuf> {
    std::fs::read_dir(project.join("target/ascend-tune/cann-runs"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect()
}

/// One fixture variant built and run on the twin through the library: the naive operator
/// (`variant` None) or its optimised `reference/`, always with the fixture's own `ascend.toml`.
pub struct FixtureRun {
    pub op: ascend_tune::manifest::OpSpec,
    pub inputs: ascend_tune::backend::Inputs,
    pub measurement: ascend_tune::backend::Measurement,
}

impl FixtureRun {
    /// Input `i` decoded to f64 (whatever its dtype).
    pub fn input(&self, i: usize) -> Vec<f64> {
        decode(self.op.inputs[i].dtype, &self.inputs.tensors[i])
    }
    /// Output `i` decoded to f64.
    pub fn output(&self, i: usize) -> Vec<f64> {
        decode(self.op.outputs[i].dtype, &self.measurement.outputs[i])
    }
    pub fn latency_us(&self) -> f64 {
        self.measurement.latency_us
    }
}

pub fn decode(dtype: ascend_tune::manifest::DType, bytes: &[u8]) -> Vec<f64> {
    (0..bytes.len() / dtype.size())
        .map(|i| ascend_tune::verify::element(dtype, bytes, i))
        .collect()
}

/// The first op of the project in `dir`, built and run afresh from its sources as they are now: its first
/// input and first output, decoded (what a tuned kernel is checked with against a reference computed here).
pub fn first_input_and_output(dir: &Path) -> (Vec<f64>, Vec<f64>) {
    let (mut inputs, mut outputs) = inputs_and_outputs(dir);
    (inputs.swap_remove(0), outputs.swap_remove(0))
}

/// The first op of the project in `dir`, built and run afresh from its sources as they are now: every
/// input and every output, decoded.
pub fn inputs_and_outputs(dir: &Path) -> (Vec<Vec<f64>>, Vec<Vec<f64>>) {
    let (manifest, b) = open_project(dir);
    let op = manifest.ops[0].clone();
    let inputs = ascend_tune::tune::inputs(&op);
    let artifact = b
        .build(&op, &Default::default())
        .unwrap_or_else(|f| panic!("{}", f.message));
    let m = b
        .run(&op, &artifact, &inputs, false)
        .unwrap_or_else(|f| panic!("{}", f.message));
    (
        op.inputs
            .iter()
            .zip(&inputs.tensors)
            .map(|(t, bytes)| decode(t.dtype, bytes))
            .collect(),
        op.outputs
            .iter()
            .zip(&m.outputs)
            .map(|(t, bytes)| decode(t.dtype, bytes))
            .collect(),
    )
}

/// The manifest of the project in `dir` and its backend, building into the tests' shared cache.
pub fn open_project(
    dir: &Path,
) -> (
    ascend_tune::manifest::Manifest,
    Box<dyn ascend_tune::backend::Backend>,
) {
    let manifest = ascend_tune::manifest::Manifest::load(&dir.join("ascend.toml"))
        .unwrap_or_else(|e| panic!("{}: {e:?}", dir.display()));
    let b = ascend_tune::backend::open_with_cache(
        &manifest,
        manifest.backend,
        &manifest.soc,
        dir.join("target/ascend-tune"),
        build_cache(),
    )
    .unwrap();
    (manifest, b)
}

pub fn run_fixture(name: &str, variant: Option<&str>) -> FixtureRun {
    let dir = tempfile::tempdir().unwrap();
    let base = Path::new(FIXTURES).join(name);
    let from = variant.map_or(base.clone(), |v| base.join(v));
    copy_tree(&from, dir.path());
    std::fs::copy(base.join("ascend.toml"), dir.path().join("ascend.toml")).unwrap();
    let (manifest, b) = open_project(dir.path());
    let op = manifest.ops[0].clone();
    let inputs = ascend_tune::tune::inputs(&op);
    let artifact = b
        .build(&op, &Default::default())
        .unwrap_or_else(|f| panic!("{name} {variant:?}: {}", f.message));
    let measurement = b
        .run(&op, &artifact, &inputs, false)
        .unwrap_or_else(|f| panic!("{name} {variant:?}: {}", f.message));
    FixtureRun {
        op,
        inputs,
        measurement,
    }
}

/// Makes `dir` a git repository holding everything in it as one commit (tune writes back only into a
/// clean checkout).
pub fn commit_all(dir: &Path, message: &str) {
    git(dir, &["init", "-q"]);
    git(dir, &["add", "-A"]);
    git(dir, &["commit", "-q", "-m", message]);
}

/// The twin's toy template op (y = x * factor, its instance picked by the tiling key,
/// `templates/twin/tests/tpl_op`) in a temp folder, with a manifest for `elements` float16 values;
/// `input_extra` is added to the input's table (`range = [-4.0, 4.0]\n`).
pub fn tpl_op_project(factor: u32, elements: u32, input_extra: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    copy_tree(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("templates/twin/tests/tpl_op"),
        dir.path(),
    );
    std::fs::write(
        dir.path().join("ascend.toml"),
        format!(
            r#"[[op]]
name = "tpl_op"
type = "TplOp"
host = ["op_host/tpl_op.cpp"]
kernel = ["op_kernel/tpl_op.cpp"]
tiling-header = "op_host/tpl_op_tiling.h"

[[op.attr]]
name = "factor"
value = {factor}

[[op.input]]
name = "x"
dtype = "float16"
shape = [{elements}]
{input_extra}
[[op.output]]
name = "y"
dtype = "float16"
shape = [{elements}]
"#
        ),
    )
    .unwrap();
    dir
}

/// Copies a fixture folder, leaving out `target/` and nested `reference/` folders.
pub fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let p = e.unwrap().path();
        let name = p.file_name().unwrap();
        if name == "target" || name == "reference" {
            continue;
        }
        if p.is_dir() {
            copy_tree(&p, &to.join(name));
        } else {
            std::fs::copy(&p, to.join(name)).unwrap();
        }
    }
}

/// Asserts `got` matches `want` element by element within `atol + rtol * |want|`.
pub fn assert_close(what: &str, got: &[f64], want: &[f64], atol: f64, rtol: f64) {
    assert_eq!(got.len(), want.len(), "{what}: length");
    let mut bad = 0;
    let mut first = None;
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        if !((g - w).abs() <= atol + rtol * w.abs() || (g.is_nan() && w.is_nan())) {
            bad += 1;
            first.get_or_insert((i, *g, *w));
        }
    }
    if let Some((i, g, w)) = first {
        panic!(
            "{what}: {bad} of {} elements differ; first at {i}: got {g}, want {w}",
            got.len()
        );
    }
}
