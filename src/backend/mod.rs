//! The build and run interface the tuner sees (the Builder/Runner split of TVM MetaSchedule). A backend
//! turns sources into an artifact and an artifact plus inputs into a measurement. Every way a candidate can
//! go wrong comes back as a `TrialFailure` (data, not a crash), so the tuner can count it and go on.
//! Backends know nothing of searching, journals or lockfiles.

pub mod cann;
pub mod cmake_flow;
pub mod data_flow;
pub mod faults;
pub mod twin;

use crate::errors::{Error, Result};
use crate::manifest::{BackendKind, Layout, Manifest, OpSpec};
use crate::model::Timing;
use std::collections::BTreeMap;
use std::path::PathBuf;

/// The sources of one candidate: the project's files, with some replaced by patched contents.
#[derive(Debug, Clone, Default)]
pub struct SourceSet {
    /// Patched contents by path relative to the project root; files not here are read from the project.
    pub overrides: BTreeMap<String, String>,
}

/// What a build produced; opaque to the tuner apart from its key.
#[derive(Debug, Clone)]
pub struct Artifact {
    /// Content hash of everything the build read.
    pub key: String,
    pub host: PathBuf,
    pub kernel: PathBuf,
    /// Served from the build cache.
    pub cached: bool,
    /// Environment the programs must run with: the values of tunables a build reads at run time
    /// (`crate::twin::runtime`); empty for a build with every value compiled in.
    pub run_env: Vec<(String, String)>,
}

impl Artifact {
    /// The project files (manifest-relative paths) that the builds of both programs read, when the
    /// backend recorded them: the twin keeps `reads.txt` beside each program (`twin::reads`). None when
    /// either program has none (another backend, or a build made before the twin kept them).
    pub fn files_read(&self) -> Option<std::collections::BTreeSet<String>> {
        let mut all = crate::twin::reads::beside(&self.host)?;
        all.extend(crate::twin::reads::beside(&self.kernel)?);
        Some(all)
    }
}

/// The result of running a candidate once.
#[derive(Debug, Clone)]
pub struct Measurement {
    pub latency_us: f64,
    /// Latency samples in us: one per measured launch on hardware (`latency_us` is their median), or the
    /// single modelled value (`vec![latency_us]`).
    pub samples: Vec<f64>,
    pub timing: Timing,
    pub block_dim: u32,
    /// Output tensors in manifest order, little-endian.
    pub outputs: Vec<Vec<u8>>,
    /// True when the latency comes from the performance model rather than hardware.
    pub modelled: bool,
    /// The raw trace, kept only when asked for (for `run --trace`).
    pub trace: Option<crate::model::trace::Trace>,
    /// What the twin's kernel warned of while it ran (a `TBuf::Get` past its buffer, a tiling key no
    /// `TILING_KEY_IS` branch matched, ...); empty on hardware.
    pub warnings: Vec<String>,
    /// Where the run's UB buffers put its binary vector operands (the twin's `carve` records): what the
    /// `ub-bank-offset` motif plans from. None on hardware and for traces without carves.
    pub ub_use: Option<std::sync::Arc<crate::model::ub_layout::UbUse>>,
}

impl Measurement {
    /// A run timed by the performance model from the twin trace it left (`writer` names what wrote the
    /// trace, for the message when the model cannot read it). The model is deterministic, so one
    /// sample says all; `block_dim` is the one the trace recorded.
    pub fn modelled(
        trace_text: &str,
        soc: &crate::model::soc::Soc,
        outputs: Vec<Vec<u8>>,
        keep_trace: bool,
        writer: &str,
    ) -> std::result::Result<Measurement, TrialFailure> {
        let trace = crate::model::trace::parse(trace_text).map_err(|e| {
            TrialFailure::new(
                FailureKind::Crash,
                format!("{writer} wrote a trace the model cannot read: {e}"),
            )
        })?;
        let timing = crate::model::pipeline::simulate(
            &trace,
            soc,
            &crate::model::pipeline::SimOptions {
                record_spans: keep_trace,
            },
        );
        Ok(Measurement {
            latency_us: timing.latency_us,
            samples: vec![timing.latency_us],
            block_dim: timing.block_dim,
            timing,
            outputs,
            modelled: true,
            ub_use: crate::model::ub_layout::UbUse::of(&trace).map(std::sync::Arc::new),
            trace: keep_trace.then_some(trace),
            warnings: vec![],
        })
    }
}

#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "kebab-case")]
pub enum FailureKind {
    /// Excluded by a constraint before building.
    Invalid,
    Build,
    /// The host tiling function failed.
    Tiling,
    /// The kernel faulted (out of bounds, UB overflow, queue misuse, ...).
    Fault,
    Timeout,
    Crash,
    /// Ran, but the outputs differ from the reference.
    Wrong,
    /// The external rewriter failed or gave sources the tuner cannot use.
    Rewrite,
    /// The machine failed, not the candidate: the compiler was killed, the disk was full. The tuner
    /// retries such a trial once; a journal never serves it, so a later run measures it again.
    Infra,
    /// Right at the tuned shape, but faults or differs from the unmodified op on a shape probe (another
    /// shape the op must serve: a tail, a single row, an unaligned length, the largest allowed, ...).
    Shape,
}

impl FailureKind {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Invalid => "invalid",
            Self::Build => "build",
            Self::Tiling => "tiling",
            Self::Fault => "fault",
            Self::Timeout => "timeout",
            Self::Crash => "crash",
            Self::Wrong => "wrong",
            Self::Rewrite => "rewrite",
            Self::Infra => "infra",
            Self::Shape => "shape",
        }
    }
}

#[derive(Debug, Clone, thiserror::Error)]
#[error("{kind:?}: {message}", kind = kind.as_str())]
pub struct TrialFailure {
    pub kind: FailureKind,
    pub message: String,
}

impl TrialFailure {
    pub fn new(kind: FailureKind, message: impl Into<String>) -> Self {
        TrialFailure {
            kind,
            message: message.into(),
        }
    }
}

/// The error a failure message reports: the text of its first `error: ` line (a kernel failure's
/// first line only says the kernel failed, and the twin's warnings come before its error), with the
/// `--> file:line` line after it when there is one. None when no line is an error line.
pub fn first_error(message: &str) -> Option<(&str, Option<&str>)> {
    let mut lines = message.lines().map(str::trim);
    let error = lines.find_map(|l| l.strip_prefix("error: "))?;
    let at = lines.next().filter(|l| l.starts_with("-->"));
    Some((error, at))
}

/// A failure in one line: its first line, and where that line only introduces what follows (`the
/// kernel failed (exit code 3):`), the error after it and its location (`first_error`).
pub fn failure_line(message: &str) -> String {
    let head = first_line(message);
    match first_error(message) {
        Some((error, at)) if head.ends_with(':') => {
            let at = at.map(|a| format!(" {a}")).unwrap_or_default();
            format!("{head} error: {error}{at}")
        }
        _ => head.to_string(),
    }
}

/// The first line of a message that is not blank, trimmed.
pub fn first_line(s: &str) -> &str {
    s.lines().find(|l| !l.trim().is_empty()).unwrap_or(s).trim()
}

/// Input data of one run.
#[derive(Debug, Clone)]
pub struct Inputs {
    pub tensors: Vec<Vec<u8>>,
    /// Content hash of the tensors, for cache keys.
    pub key: String,
}

pub trait Backend: Send + Sync {
    fn kind(&self) -> BackendKind;
    /// The SoC measured on, as its name appears in lockfiles.
    fn soc(&self) -> &'static crate::model::soc::Soc;
    /// A fingerprint of the toolchain (twin version, compiler), part of every cache key.
    fn fingerprint(&self) -> String;
    fn build(
        &self,
        op: &OpSpec,
        sources: &SourceSet,
    ) -> std::result::Result<Artifact, TrialFailure>;
    fn run(
        &self,
        op: &OpSpec,
        artifact: &Artifact,
        inputs: &Inputs,
        keep_trace: bool,
    ) -> std::result::Result<Measurement, TrialFailure>;
    /// What opening the backend made before any op was built (the twin: its runtime), for the timings
    /// `run` reports. None when there is nothing to say.
    fn setup(&self) -> Option<Setup> {
        None
    }
    /// `build`, for a point of the space: `tunables` says where each tunable's value sits in `sources`
    /// (overrides first, else the project's file). A backend that can read tunable values at run time
    /// may build one program for every point that differs only in them, giving the values in
    /// `Artifact::run_env`; it must give the same outputs and measurement as `build`. The default is
    /// `build`.
    fn build_point(
        &self,
        op: &OpSpec,
        sources: &SourceSet,
        tunables: &[crate::rewrite::params::Placed],
    ) -> std::result::Result<Artifact, TrialFailure> {
        let _ = tunables;
        self.build(op, sources)
    }
    /// The op's own InferShape run on `inputs` (the twin runs it in the op's host program): one entry
    /// per output, Ok(None) where the op registers none or the backend cannot run it.
    fn infer_outputs(
        &self,
        op: &OpSpec,
        inputs: &Inputs,
    ) -> std::result::Result<Option<Vec<crate::twin::protocol::InferredOutput>>, String> {
        let _ = (op, inputs);
        Ok(None)
    }
    /// `infer_outputs` with the host program of `built` (a build of the op's sources, in the run-time
    /// form a tune shares where the backend has one) instead of one built for the purpose. The default
    /// is `infer_outputs`.
    fn infer_outputs_built(
        &self,
        op: &OpSpec,
        inputs: &Inputs,
        built: &Artifact,
    ) -> std::result::Result<Option<Vec<crate::twin::protocol::InferredOutput>>, String> {
        let _ = built;
        self.infer_outputs(op, inputs)
    }
    /// Whether the op's tiling function refuses `inputs` (and the op's attrs): Ok(Some(why)) when it
    /// does, Ok(None) when it accepts them or the backend cannot run it alone, Err when it could not
    /// be asked (its host code does not build).
    fn tiling_refusal(
        &self,
        op: &OpSpec,
        inputs: &Inputs,
    ) -> std::result::Result<Option<String>, String> {
        let _ = (op, inputs);
        Ok(None)
    }
    /// Runs a built artifact for its outputs only (a shape probe): backends that can skip timing do.
    fn run_outputs(
        &self,
        op: &OpSpec,
        artifact: &Artifact,
        inputs: &Inputs,
    ) -> std::result::Result<Vec<Vec<u8>>, TrialFailure> {
        self.run(op, artifact, inputs, false).map(|m| m.outputs)
    }
    /// Runs a built artifact for its outputs with every output buffer starting as `fill` bytes (not
    /// zeros), where the backend can: comparing with a zero-filled run shows the bytes a kernel never
    /// writes. None where it cannot (the CANN runtime allocates the outputs).
    fn run_outputs_filled(
        &self,
        op: &OpSpec,
        artifact: &Artifact,
        inputs: &Inputs,
        fill: u8,
    ) -> Option<std::result::Result<Vec<Vec<u8>>, TrialFailure>> {
        let _ = (op, artifact, inputs, fill);
        None
    }
    /// Runs a built artifact for its outputs as `run_outputs` does, but where its instructions run
    /// past the UB buffers they were given (`twin::spill`) gives the outputs all the same, with every
    /// UB buffer carved `gap` bytes apart from the next where `gap` is not 0: outputs that agree
    /// between the two layouts do not depend on what the overrun reaches. None where the backend
    /// cannot lay out the UB itself (real hardware).
    fn run_outputs_overrunning(
        &self,
        op: &OpSpec,
        artifact: &Artifact,
        inputs: &Inputs,
        gap: u32,
    ) -> Option<std::result::Result<Vec<Vec<u8>>, TrialFailure>> {
        let _ = (op, artifact, inputs, gap);
        None
    }
}

/// What opening a backend made, and whether all of it came from a cache.
#[derive(Debug, Clone)]
pub struct Setup {
    pub what: String,
    pub cached: bool,
}

/// Opens the backend the manifest and flags ask for.
pub fn open(
    manifest: &Manifest,
    kind: BackendKind,
    soc: &str,
    work_dir: PathBuf,
) -> Result<Box<dyn Backend>> {
    // Built programs are keyed by content, so projects may share one cache (CI caches, test suites).
    let cache = std::env::var_os("ASCEND_TUNE_BUILD_CACHE")
        .map(PathBuf::from)
        .unwrap_or_else(|| work_dir.clone());
    open_with_cache(manifest, kind, soc, work_dir, cache)
}

/// `open`, with built programs kept in `cache` (which may be shared between projects).
pub fn open_with_cache(
    manifest: &Manifest,
    kind: BackendKind,
    soc: &str,
    work_dir: PathBuf,
    cache: PathBuf,
) -> Result<Box<dyn Backend>> {
    let soc = crate::model::soc::lookup(soc).ok_or_else(|| {
        let known: Vec<&str> = crate::model::soc::all().iter().map(|s| s.name).collect();
        Error::bad_input(
            format!("unknown SoC `{soc}`"),
            format!("use one of: {}", known.join(", ")),
        )
    })?;
    match (kind, manifest.layout) {
        // A kernel-launch project has its own CMake flow; on the twin it runs against a twin package.
        (BackendKind::Twin, Layout::KernelLaunch) => {
            Ok(Box::new(cann::open_twin_package(manifest, soc, &work_dir)?))
        }
        (BackendKind::Twin, Layout::CustomOp) => Ok(Box::new(twin::TwinBackend::open(
            manifest, soc, work_dir, cache,
        )?)),
        (BackendKind::Cann, _) => Ok(Box::new(cann::open(manifest, soc, &work_dir)?)),
    }
}
