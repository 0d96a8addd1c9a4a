//! The one door to evaluation (as in Kernel Tuner): a candidate point is checked against the constraints,
//! looked up in the journal, and only then patched into the sources, built, run and verified against the
//! reference outputs. Every outcome, failures included, becomes a journal `Trial`. Strategies never get
//! past this door; the loop charges the budget for what comes out of it.
//!
//! A failure that is the machine's, not the candidate's (`infra`: a killed compiler, a full disk), is
//! retried once; the reason stays in the trial's `retried`. The soak test's faults come in here as a
//! `TrialPlan` (armed on the evaluating thread for `backend::faults::FaultyBackend`) and as hostile
//! copies of points (`evaluate_hostile`); without them, nothing here knows faults exist.

use super::journal::{self, Journal, Trial};
use super::variant::Variant;
use crate::backend::faults::{self, Event, Fault, FaultPlan, TrialPlan};
use crate::backend::{
    Artifact, Backend, FailureKind, Inputs, Measurement, SourceSet, TrialFailure,
};
use crate::fsx::KeyHasher;
use crate::manifest::OpSpec;
use crate::space::Point;
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

/// The reference a candidate must reproduce: the unmodified operator's outputs on the seeded inputs.
pub struct Reference {
    pub outputs: Vec<Vec<u8>>,
    pub key: String,
    /// The unmodified op has a UB race at the tuned shape (`model::race`): a candidate's race is then
    /// the user's, not the candidate's, and `run` warns of it; otherwise a candidate with one fails.
    pub races: bool,
    /// The unmodified op's run warns of a GM -> UB copy past its destination tensor
    /// (`backend::twin::spill`): a candidate's is then the user's too.
    pub spills: bool,
}

pub struct Evaluator {
    pub backend: Arc<dyn Backend>,
    pub op: OpSpec,
    /// Current contents of every op source file, by path relative to the project root.
    pub originals: BTreeMap<String, String>,
    pub inputs: Inputs,
    pub reference: Reference,
    /// The shape probes every candidate that passes at the tuned shape must pass too.
    pub probes: super::probes::Probes,
    /// Which candidates are run on the generated shape probes: those that could be written back
    /// (`ProbeBar`). One that could not is recorded `unprobed`, its five probe runs spared. None runs
    /// every candidate on every probe. The declared shapes (`[[op.shape]]`) are run always: their
    /// latencies are part of the objective.
    pub probe_bar: Option<ProbeBar>,
    pub journal: Mutex<Journal>,
    /// Faults to inject (the soak test only); the backend is then a `faults::FaultyBackend`.
    pub faults: Option<Arc<FaultPlan>>,
    /// The manifest's `golden` command, an extra check of every trial whose outputs are not the
    /// reference's bytes (the reference passed it; the same bytes get the same verdict).
    pub golden: Option<Golden>,
}

/// The objectives a candidate must be below to be run on the generated shape probes, the bars a
/// change must pass to be written back (`TuneResult::improvement`): the baseline's less the noise
/// floor, and the fastest probed trial's plus the floor (the candidates within the floor of the
/// fastest are the ones the write-back chooses among). The second bar is widened by the margin a
/// rewrite the loop drops may be faster than the best it keeps (`alternate::KEEP_IF_FASTER`), since a
/// dropped rewrite's trials are never written back. The fastest is set by the runner between batches
/// (`note_probed`), never while one runs, so which candidates are probed does not hang on the order in
/// which a batch's trials finish.
pub struct ProbeBar {
    baseline: f64,
    band: f64,
    fastest: Mutex<Option<f64>>,
}

impl ProbeBar {
    /// The bars of a baseline objective `baseline_us` under `noise_floor` (a fraction).
    pub fn new(baseline_us: f64, noise_floor: f64) -> ProbeBar {
        ProbeBar {
            baseline: baseline_us * (1.0 - noise_floor),
            band: (1.0 + noise_floor) * DROPPED_REWRITE_MARGIN,
            fastest: Mutex::new(None),
        }
    }

    fn passes(&self, latency_us: f64) -> bool {
        let fastest = *self.fastest.lock().expect("probe bar lock");
        latency_us < self.baseline && fastest.is_none_or(|f| latency_us <= f * self.band)
    }
}

/// How much faster than the kept best a dropped rewrite's best trial may be: the loop keeps a rewrite
/// that is faster by more than half a percent (`alternate::KEEP_IF_FASTER`); one percent covers it.
const DROPPED_REWRITE_MARGIN: f64 = 1.01;

/// A golden command and the folders it needs (`crate::verify::golden`).
pub struct Golden {
    pub command: Vec<String>,
    /// The project root, where the command runs.
    pub root: std::path::PathBuf,
    /// `target/ascend-tune/`: the tensor files are written under its `golden/`.
    pub work: std::path::PathBuf,
}

impl Golden {
    /// The verdict of the command on `outputs`: Ok, or the failure of a wrong trial. A command that
    /// cannot run at all is a failure too (the trial cannot be verified).
    pub fn check(&self, op: &OpSpec, inputs: &Inputs, outputs: &[Vec<u8>]) -> Result<(), String> {
        use crate::verify::golden;
        match golden::check(
            op,
            &self.command,
            &self.root,
            &self.work,
            &inputs.tensors,
            outputs,
        ) {
            Ok(golden::Verdict::Passed) => Ok(()),
            Ok(golden::Verdict::Failed(why)) => Err(why),
            Err(golden::CannotRun(why)) => Err(why),
        }
    }
}

/// A candidate that passed: its measurement at the tuned shape, its latencies at the declared shapes,
/// and whether the generated probes were left out (`Evaluator::probe_bar`).
struct Attempted {
    m: Measurement,
    at: Vec<(String, f64)>,
    unprobed: bool,
}

/// What the loop learns from one evaluation.
pub struct Evaluated {
    pub trial: Trial,
    /// Served from the journal without building or running.
    pub from_journal: bool,
    pub build_cached: bool,
}

/// How long a baseline's build and run took on this machine (wall clock, not the op's latency).
#[derive(Debug, Clone)]
pub struct BaselineTimings {
    pub build: std::time::Duration,
    /// The build cache served the build.
    pub cached: bool,
    pub run: std::time::Duration,
    /// The build that ran, for a second run of the same programs (`run`'s unwritten-output check).
    pub artifact: Artifact,
}

impl Evaluator {
    /// Runs the unmodified sources once: the baseline measurement and the reference outputs.
    pub fn baseline(
        backend: &dyn Backend,
        op: &OpSpec,
        inputs: &Inputs,
        keep_trace: bool,
    ) -> Result<Measurement, TrialFailure> {
        Self::baseline_timed(backend, op, inputs, keep_trace).map(|(m, _)| m)
    }

    /// The unmodified sources built so that `placed` (the tunables at the values the sources hold) may
    /// be read at run time: the program the trials' points then share (`Backend::build_point`), so a
    /// tune does not compile the same sources twice. Empty `placed` builds as written.
    pub fn original_build(
        backend: &dyn Backend,
        op: &OpSpec,
        placed: &[crate::rewrite::params::Placed],
    ) -> Result<Artifact, TrialFailure> {
        match placed {
            [] => backend.build(op, &SourceSet::default()),
            _ => backend.build_point(op, &SourceSet::default(), placed),
        }
    }

    /// `baseline` from the program `original_build` gives.
    pub fn baseline_at(
        backend: &dyn Backend,
        op: &OpSpec,
        inputs: &Inputs,
        placed: &[crate::rewrite::params::Placed],
    ) -> Result<Measurement, TrialFailure> {
        Self::baseline_timed_at(backend, op, inputs, false, placed).map(|(m, _)| m)
    }

    /// `baseline`, with how long the build and the run took on this machine (wall clock).
    pub fn baseline_timed(
        backend: &dyn Backend,
        op: &OpSpec,
        inputs: &Inputs,
        keep_trace: bool,
    ) -> Result<(Measurement, BaselineTimings), TrialFailure> {
        Self::baseline_timed_at(backend, op, inputs, keep_trace, &[])
    }

    /// `baseline_timed` from the program `original_build` gives for `placed`.
    fn baseline_timed_at(
        backend: &dyn Backend,
        op: &OpSpec,
        inputs: &Inputs,
        keep_trace: bool,
        placed: &[crate::rewrite::params::Placed],
    ) -> Result<(Measurement, BaselineTimings), TrialFailure> {
        let started = std::time::Instant::now();
        let artifact = Self::original_build(backend, op, placed)?;
        let build = started.elapsed();
        let started = std::time::Instant::now();
        let m = backend.run(op, &artifact, inputs, keep_trace)?;
        let timings = BaselineTimings {
            build,
            cached: artifact.cached,
            run: started.elapsed(),
            artifact,
        };
        Ok((m, timings))
    }

    /// The journal key of a point: everything that decides its outcome.
    pub fn key(&self, patched: &BTreeMap<String, String>) -> String {
        let mut h = KeyHasher::new();
        h.part(self.backend.fingerprint())
            .part(self.backend.soc().name)
            .part(&self.op.name)
            .part(self.op.shape_key());
        h.part(&self.inputs.key).part(&self.reference.key);
        if let Some(model) = model_version(self.backend.kind()) {
            h.part(model);
        }
        if !self.probes.live.is_empty() {
            h.part(self.probes.key());
        }
        for (file, text) in &self.originals {
            h.part(file).part(patched.get(file).unwrap_or(text));
        }
        // Only when set, so journals written before `golden` existed still serve.
        if let Some(g) = &self.golden {
            h.part("golden");
            for a in &g.command {
                h.part(a);
            }
        }
        h.finish()
    }

    /// Evaluates one point of a variant (blocking: builds and runs child processes).
    pub fn evaluate(
        &self,
        index: usize,
        variant: &Variant,
        point: &Point,
    ) -> crate::errors::Result<Evaluated> {
        self.evaluate_planned(index, variant, point, &TrialPlan::default())
    }

    /// `evaluate`, with the machine faults `plan` holds for this trial. A trial that fails for the
    /// machine's sake (`infra`: a killed compiler, a full disk) is tried once more before it is recorded.
    pub fn evaluate_planned(
        &self,
        index: usize,
        variant: &Variant,
        point: &Point,
        plan: &TrialPlan,
    ) -> crate::errors::Result<Evaluated> {
        let mut trial = self.blank(index, variant, point);
        if let Err(why) = variant.space.check(point) {
            trial.failure = Some(FailureKind::Invalid);
            trial.error = Some(why);
            return Ok(Evaluated {
                trial,
                from_journal: false,
                build_cached: false,
            });
        }
        if let Some(why) = self
            .probes
            .excluded(&variant.space, point, self.backend.soc())
        {
            trial.failure = Some(FailureKind::Shape);
            trial.error = Some(why);
            return Ok(Evaluated {
                trial,
                from_journal: false,
                build_cached: false,
            });
        }
        let mut patched = variant.patched(point);
        // Where each value sits in the patched text, so a backend may read the values at run time.
        let placed = crate::rewrite::params::placed(&variant.space, point, &variant.sources);
        trial.key = self.key(&patched);
        // Only files that differ from the project's are handed to the backend.
        patched.retain(|f, text| self.originals.get(f) != Some(text));
        let known = self
            .journal
            .lock()
            .expect("journal lock")
            .get(&trial.key)
            .filter(|t| !(t.unprobed && t.latency_us.is_some_and(|l| self.must_probe(l))))
            .cloned();
        if let Some(known) = known {
            let mut t = known;
            t.index = index;
            return Ok(Evaluated {
                trial: t,
                from_journal: true,
                build_cached: true,
            });
        }
        let sources = SourceSet { overrides: patched };
        let mut build_cached = false;
        let mut attempt = 0;
        let outcome = loop {
            let armed = faults::arm(plan.attempts[attempt]);
            let outcome = self.attempt(&sources, &placed, &mut build_cached);
            if let Some(infra) = plan.attempts[attempt] {
                self.log(
                    &trial,
                    infra.fault,
                    Some(infra.moment),
                    attempt,
                    armed.fired(),
                );
            }
            drop(armed);
            match outcome {
                Err(f) if f.kind == FailureKind::Infra && attempt == 0 => {
                    trial.retried.push(f.message);
                    attempt += 1;
                }
                other => break other,
            }
        };
        self.settle(&mut trial, outcome);
        let armed = faults::arm(plan.journal_full.then_some(faults::Infra {
            fault: Fault::DiskFull,
            moment: faults::Moment::Journal,
            after: std::time::Duration::ZERO,
        }));
        self.journal.lock().expect("journal lock").record(&trial)?;
        if plan.journal_full {
            self.log(
                &trial,
                Fault::DiskFull,
                Some(faults::Moment::Journal),
                0,
                armed.fired(),
            );
        }
        Ok(Evaluated {
            trial,
            from_journal: false,
            build_cached,
        })
    }

    /// The UB layout of a point's run (`Runner::ub_use_at`): built and run as a trial would be, but
    /// neither verified nor journalled.
    pub fn ub_use_at(
        &self,
        variant: &Variant,
        point: &Point,
    ) -> Option<std::sync::Arc<crate::model::ub_layout::UbUse>> {
        let mut patched = variant.patched(point);
        let placed = crate::rewrite::params::placed(&variant.space, point, &variant.sources);
        patched.retain(|f, text| self.originals.get(f) != Some(text));
        let sources = SourceSet { overrides: patched };
        let artifact = self.build(&sources, &placed).ok()?;
        self.backend
            .run(&self.op, &artifact, &self.inputs, false)
            .ok()?
            .ub_use
    }

    /// Evaluates the hostile copy of a point (`faults::hostile_sources`): an extra trial, always built
    /// and run, never served from the journal. None when the point breaks a constraint.
    pub fn evaluate_hostile(
        &self,
        index: usize,
        variant: &Variant,
        point: &Point,
        fault: Fault,
    ) -> crate::errors::Result<Option<Evaluated>> {
        if variant.space.check(point).is_err() {
            return Ok(None);
        }
        let mut trial = self.blank(index, variant, point);
        trial.injected = Some(fault.name().to_string());
        let mut patched = variant.patched(point);
        if faults::hostile_sources(fault, &self.op, &mut patched).is_none() {
            return Ok(None);
        }
        trial.key = self.key(&patched);
        patched.retain(|f, text| self.originals.get(f) != Some(text));
        let sources = SourceSet { overrides: patched };
        let mut build_cached = false;
        // Always built as written: the hostile code must be compiled in.
        let outcome = self.attempt(&sources, &[], &mut build_cached);
        self.settle(&mut trial, outcome);
        self.journal.lock().expect("journal lock").record(&trial)?;
        self.log(&trial, fault, None, 0, true);
        Ok(Some(Evaluated {
            trial,
            from_journal: false,
            build_cached,
        }))
    }

    fn blank(&self, index: usize, variant: &Variant, point: &Point) -> Trial {
        Trial {
            v: journal::VERSION,
            key: String::new(),
            op: self.op.name.clone(),
            index,
            params: variant.space.values(point),
            rewrites: variant.rewrites.clone(),
            latency_us: None,
            block_dim: None,
            bound: None,
            pipes: BTreeMap::new(),
            failure: None,
            error: None,
            samples: vec![],
            retried: vec![],
            injected: None,
            shapes: BTreeMap::new(),
            unprobed: false,
            ub_use: None,
        }
    }

    /// Builds `sources`. `placed` (where the tunables' values sit in them) lets the backend share one
    /// build between points that differ only in those values; empty, it builds as written.
    fn build(
        &self,
        sources: &SourceSet,
        placed: &[crate::rewrite::params::Placed],
    ) -> Result<crate::backend::Artifact, TrialFailure> {
        match placed {
            [] => self.backend.build(&self.op, sources),
            _ => self.backend.build_point(&self.op, sources, placed),
        }
    }

    /// Whether a candidate of objective `latency_us` is run on the generated shape probes.
    fn must_probe(&self, latency_us: f64) -> bool {
        self.probe_bar
            .as_ref()
            .is_none_or(|bar| bar.passes(latency_us))
    }

    /// A trial of objective `latency_us` passed the generated probes: later batches probe only the
    /// candidates that could still be written back beside it (`ProbeBar`). Called by the runner
    /// between batches.
    pub fn note_probed(&self, latency_us: f64) {
        if let Some(bar) = &self.probe_bar {
            let mut fastest = bar.fastest.lock().expect("probe bar lock");
            if fastest.is_none_or(|f| latency_us < f) {
                *fastest = Some(latency_us);
            }
        }
    }

    /// Builds, runs and verifies once, at the tuned shape and then on the shape probes (same build):
    /// the declared shapes always, the generated ones when the candidate passes `probe_bar`.
    fn attempt(
        &self,
        sources: &SourceSet,
        placed: &[crate::rewrite::params::Placed],
        build_cached: &mut bool,
    ) -> Result<Attempted, TrialFailure> {
        self.build(sources, placed).and_then(|artifact| {
            *build_cached = artifact.cached;
            let m = self.backend.run(&self.op, &artifact, &self.inputs, false)?;
            self.verify(&m)?;
            let backend = self.backend.as_ref();
            let at = self
                .probes
                .check_where(backend, &artifact, |p| p.measured.is_some())?;
            let generated = self.probes.live.iter().any(|p| p.measured.is_none());
            let objective = self.probes.objective(self.op.weight, m.latency_us, &at);
            let probed = !generated || self.must_probe(objective);
            if probed {
                self.probes
                    .check_where(backend, &artifact, |p| p.measured.is_none())?;
            }
            Ok(Attempted {
                m,
                at,
                unprobed: !probed,
            })
        })
    }

    fn log(
        &self,
        trial: &Trial,
        fault: Fault,
        moment: Option<faults::Moment>,
        attempt: usize,
        fired: bool,
    ) {
        if let Some(plan) = &self.faults {
            plan.log(Event {
                op: self.op.name.clone(),
                index: trial.index,
                key: trial.key.clone(),
                fault,
                moment,
                attempt: attempt as u8,
                fired,
            });
        }
    }

    fn settle(&self, trial: &mut Trial, outcome: Result<Attempted, TrialFailure>) {
        match outcome {
            Ok(Attempted { m, at, unprobed }) => {
                trial.unprobed = unprobed;
                trial.latency_us = Some(self.probes.objective(self.op.weight, m.latency_us, &at));
                if !at.is_empty() {
                    trial.shapes = std::iter::once((
                        crate::manifest::DECLARED_SHAPE.to_string(),
                        m.latency_us,
                    ))
                    .chain(at)
                    .collect();
                }
                // A modelled latency is exact; a measured one keeps its spread for the lock.
                if !m.modelled {
                    trial.samples = m.samples.clone();
                }
                trial.block_dim = Some(m.block_dim);
                trial.ub_use = m.ub_use.clone();
                trial.bound = Some(m.timing.bound.to_string());
                trial.pipes = m
                    .timing
                    .pipes
                    .iter()
                    .map(|p| (p.name.to_string(), p.ratio))
                    .collect();
            }
            Err(f) => {
                trial.failure = Some(f.kind);
                trial.error = Some(match trial.retried.is_empty() {
                    true => f.message,
                    false => format!("{} (retried once)", f.message),
                });
            }
        }
    }

    fn verify(&self, m: &Measurement) -> Result<(), TrialFailure> {
        crate::verify::outputs_match(&self.op, &m.outputs, &self.reference.outputs)
            .map_err(|why| TrialFailure::new(FailureKind::Wrong, why))?;
        // Right outputs on the twin prove nothing of a race: it runs copies in program order.
        if let Some(r) = m.timing.ub_races.first().filter(|_| !self.reference.races) {
            return Err(TrialFailure::new(FailureKind::Fault, r.describe()));
        }
        // ... nor of a copy into UB past its tensor (the bytes after it are another buffer's).
        if let Some(w) = crate::backend::twin::spill(&m.warnings).filter(|_| !self.reference.spills)
        {
            return Err(TrialFailure::new(FailureKind::Fault, w.to_string()));
        }
        match &self.golden {
            Some(g) if m.outputs != self.reference.outputs => g
                .check(&self.op, &self.inputs, &m.outputs)
                .map_err(|why| TrialFailure::new(FailureKind::Wrong, why)),
            _ => Ok(()),
        }
    }
}

/// What a trial's latency depends on beside the sources and the backend's toolchain: the
/// performance model's own sources (hashed by build.rs) for a modelled one, so a changed model is never
/// served an older model's latency from the journal; nothing for a measured one (hardware does not
/// change with this tool, and a measurement is the expensive thing the journal saves).
fn model_version(kind: crate::manifest::BackendKind) -> Option<&'static str> {
    (kind == crate::manifest::BackendKind::Twin).then_some(env!("MODEL_SOURCES_HASH"))
}

#[cfg(test)]
mod tests {
    //! The retry policy, on a backend that fails as it is told.
    use super::*;
    use crate::backend::Artifact;
    use crate::manifest::{BackendKind, Manifest};

    /// Fails its builds with the kinds in `script`, one per build, then succeeds with `outputs`.
    struct Scripted {
        script: Mutex<Vec<FailureKind>>,
        builds: Mutex<usize>,
        outputs: Vec<Vec<u8>>,
        /// The trace its runs are modelled from (an empty one when None).
        trace: Option<&'static str>,
        /// The warnings its runs give.
        warnings: Vec<String>,
    }

    impl Backend for Scripted {
        fn kind(&self) -> BackendKind {
            BackendKind::Twin
        }
        fn soc(&self) -> &'static crate::model::soc::Soc {
            crate::model::soc::lookup("Ascend910B1").unwrap()
        }
        fn fingerprint(&self) -> String {
            "scripted".into()
        }
        fn build(&self, _: &OpSpec, _: &SourceSet) -> Result<Artifact, TrialFailure> {
            *self.builds.lock().unwrap() += 1;
            let mut s = self.script.lock().unwrap();
            if !s.is_empty() {
                let kind = s.remove(0);
                return Err(TrialFailure::new(
                    kind,
                    format!("scripted {}", kind.as_str()),
                ));
            }
            Ok(Artifact {
                key: "a".into(),
                host: "h".into(),
                kernel: "k".into(),
                cached: false,
                run_env: vec![],
            })
        }
        fn run(
            &self,
            _: &OpSpec,
            _: &Artifact,
            _: &Inputs,
            _: bool,
        ) -> Result<Measurement, TrialFailure> {
            let trace = self
                .trace
                .map_or_else(crate::model::trace::Trace::default, |t| {
                    crate::model::trace::parse(t).unwrap()
                });
            let timing = crate::model::pipeline::simulate(
                &trace,
                self.soc(),
                &crate::model::pipeline::SimOptions {
                    record_spans: false,
                },
            );
            Ok(Measurement {
                latency_us: 7.0,
                samples: vec![7.0],
                timing,
                block_dim: 8,
                outputs: self.outputs.clone(),
                modelled: true,
                trace: None,
                warnings: self.warnings.clone(),
                ub_use: None,
            })
        }
    }

    /// The trial a scripted backend gives add_custom's current point, and how many builds it took.
    fn trial_with(script: Vec<FailureKind>) -> (Trial, usize, Option<Trial>) {
        trial_checked(script, vec![], vec![], None)
    }

    /// `trial_with`, the backend giving `outputs` against the reference `reference`, with a golden
    /// command.
    fn trial_checked(
        script: Vec<FailureKind>,
        outputs: Vec<Vec<u8>>,
        reference: Vec<Vec<u8>>,
        golden: Option<Vec<String>>,
    ) -> (Trial, usize, Option<Trial>) {
        trial_traced(script, outputs, reference, golden, None, false)
    }

    /// `trial_checked` with the runs modelled from `trace`, and whether the reference races.
    fn trial_traced(
        script: Vec<FailureKind>,
        outputs: Vec<Vec<u8>>,
        reference: Vec<Vec<u8>>,
        golden: Option<Vec<String>>,
        trace: Option<&'static str>,
        races: bool,
    ) -> (Trial, usize, Option<Trial>) {
        trial_run(
            script,
            outputs,
            reference,
            golden,
            trace,
            races,
            vec![],
            false,
        )
    }

    /// `trial_traced` with the warnings the runs give, and whether the reference spills.
    #[allow(clippy::too_many_arguments)]
    fn trial_run(
        script: Vec<FailureKind>,
        outputs: Vec<Vec<u8>>,
        reference: Vec<Vec<u8>>,
        golden: Option<Vec<String>>,
        trace: Option<&'static str>,
        races: bool,
        warnings: Vec<String>,
        spills: bool,
    ) -> (Trial, usize, Option<Trial>) {
        let backend = Arc::new(Scripted {
            script: Mutex::new(script),
            builds: Mutex::new(0),
            outputs,
            trace,
            warnings,
        });
        let dir = tempfile::tempdir().unwrap();
        let reference = Reference {
            outputs: reference,
            key: "ref".into(),
            races,
            spills,
        };
        let (ev, variant) = add_custom_evaluator(backend.clone(), dir.path(), reference, golden);
        let op = ev.op.clone();
        let point = variant.space.current().unwrap();
        let t = ev.evaluate(0, &variant, &point).unwrap().trial;
        let builds = *backend.builds.lock().unwrap();
        // What a later run would be served for the same candidate.
        let served = Journal::open(dir.path(), &op.name)
            .unwrap()
            .get(&t.key)
            .cloned();
        (t, builds, served)
    }

    /// An evaluator of add_custom's sources on `backend`, journalling in `dir`, with no probes.
    fn add_custom_evaluator(
        backend: Arc<Scripted>,
        dir: &std::path::Path,
        reference: Reference,
        golden: Option<Vec<String>>,
    ) -> (Evaluator, Variant) {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/add_custom");
        let manifest = Manifest::load(&root.join("ascend.toml")).unwrap();
        let op = manifest.ops[0].clone();
        let soc = crate::model::soc::lookup(&manifest.soc).unwrap();
        let originals = crate::tune::read_sources(&manifest, &op).unwrap();
        let variant =
            crate::tune::variant::original(&manifest, &op, soc, originals.clone()).unwrap();
        let golden = golden.map(|command| Golden {
            command,
            root: root.clone(),
            work: dir.to_path_buf(),
        });
        let ev = Evaluator {
            backend,
            op: op.clone(),
            originals,
            inputs: Inputs {
                tensors: vec![],
                key: "in".into(),
            },
            reference,
            probes: Default::default(),
            probe_bar: None,
            journal: Mutex::new(Journal::open(dir, &op.name).unwrap()),
            faults: None,
            golden,
        };
        (ev, variant)
    }

    /// A candidate no faster than the probe bar (the baseline less the noise floor), or slower than a
    /// probed trial by more than the floor, is not run on the generated probes, since it could never
    /// be written back; one below both bars is, and a probe it fails fails it. A journalled unprobed
    /// trial does not serve a run whose bar it passes.
    #[test]
    fn only_a_candidate_that_could_be_written_back_runs_on_the_probes() {
        let backend = Arc::new(Scripted {
            script: Mutex::new(vec![]),
            builds: Mutex::new(0),
            // 1.0 in fp16, add_custom's output type
            outputs: vec![vec![0x00, 0x3c]],
            trace: None,
            warnings: vec![],
        });
        let dir = tempfile::tempdir().unwrap();
        let reference = Reference {
            outputs: vec![vec![0x00, 0x3c]],
            key: "ref".into(),
            races: false,
            spills: false,
        };
        let (mut ev, variant) = add_custom_evaluator(backend.clone(), dir.path(), reference, None);
        // One generated probe where the unmodified op gave other bytes than every candidate gives.
        ev.probes.live.push(super::super::probes::Probe {
            name: "tail".into(),
            op: ev.op.clone(),
            inputs: Inputs {
                tensors: vec![],
                key: "tail".into(),
            },
            reference: vec![vec![0x00, 0x40]], // 2.0
            unwritten: vec![vec![]],
            measured: None,
            overruns: false,
        });
        let point = variant.space.current().unwrap();
        // The scripted run takes 7 us: at a bar of 7 us it could not be written back.
        ev.probe_bar = Some(ProbeBar::new(7.0, 0.0));
        let t = ev.evaluate(0, &variant, &point).unwrap().trial;
        assert_eq!(
            (t.failure, t.latency_us, t.unprobed),
            (None, Some(7.0), true),
            "{t:?}"
        );
        // Below a bar of 8 us it could: the probe runs and fails it, though the journal has it.
        ev.probe_bar = Some(ProbeBar::new(8.0, 0.0));
        let t = ev.evaluate(1, &variant, &point).unwrap();
        assert!(!t.from_journal);
        assert_eq!(t.trial.failure, Some(FailureKind::Shape), "{:?}", t.trial);
        assert!(t.trial.error.unwrap().starts_with("probe `tail ["));
        // Without a bar every candidate runs on every probe.
        ev.probe_bar = None;
        let t = ev.evaluate(2, &variant, &point).unwrap();
        assert_eq!(t.trial.failure, Some(FailureKind::Shape));
        // Beside a probed trial of 6.5 us under a floor of 2%, 7 us could not be written back either:
        // it is past 6.5 x 1.02 (x 1.01 for a dropped rewrite). A later, slower probed trial moves
        // no bar; beside a probed 6.9 us it could.
        ev.probe_bar = Some(ProbeBar::new(8.0 / 0.98, 0.02));
        assert!(ev.must_probe(7.0));
        ev.note_probed(6.5);
        assert!(!ev.must_probe(7.0));
        ev.note_probed(6.9);
        assert!(!ev.must_probe(7.0));
        ev.probe_bar = Some(ProbeBar::new(8.0 / 0.98, 0.02));
        ev.note_probed(6.9);
        assert!(ev.must_probe(7.0));
        assert!(!ev.must_probe(8.0), "the baseline's bar still holds");
    }

    /// A copy-in over UB whose copy-out nothing waits for (model::race).
    const RACING: &str = "twin-trace 6\nblock 0 1\n\
        I MTE3 DataCopy bytes=64 bursts=1 burst=64 gm=0 gap=0 ub=0 ubn=64 line=12\n\
        I MTE2 DataCopy bytes=64 bursts=1 burst=64 gm=0 gap=0 ub=0 ubn=64 line=10\nend\n";

    #[test]
    fn a_candidate_that_copies_past_its_tensor_fails_unless_the_unmodified_op_does() {
        let with = |warning: &str, spills: bool| {
            let warnings = vec![warning.to_string()];
            trial_run(vec![], vec![], vec![], None, None, false, warnings, spills).0
        };
        let w = "DataCopyPad writes 128 bytes of UB from address 1024, past the end of its destination tensor (64 bytes) (op_kernel/k.h:9, block 0)";
        let t = with(w, false);
        assert_eq!(t.failure, Some(FailureKind::Fault), "{t:?}");
        assert_eq!(t.error.as_deref(), Some(w));
        let t = with(w, true);
        assert_eq!(t.failure, None, "the user's own spill: {t:?}");
        // Other warnings fail nothing.
        let t = with("TBuf::Get: 4 bytes past the buffer", false);
        assert_eq!(t.failure, None, "{t:?}");
    }

    #[test]
    fn twin_trials_are_keyed_by_the_model_and_measured_ones_are_not() {
        let twin = model_version(BackendKind::Twin).expect("a model version for the twin");
        assert_eq!(twin.len(), 16);
        assert!(twin.chars().all(|c| c.is_ascii_hexdigit()), "{twin}");
        assert_eq!(model_version(BackendKind::Cann), None);
    }

    #[test]
    fn a_candidate_with_a_ub_race_fails_unless_the_unmodified_op_has_one() {
        let (t, _, _) = trial_traced(vec![], vec![], vec![], None, Some(RACING), false);
        assert_eq!(t.failure, Some(FailureKind::Fault), "{t:?}");
        assert!(
            t.error.as_deref().unwrap().starts_with(
                "UB race: the copy into UB at line 10 may overwrite UB bytes 0..64 that the copy out at line 12"
            ),
            "{t:?}"
        );
        let (t, _, _) = trial_traced(vec![], vec![], vec![], None, Some(RACING), true);
        assert_eq!(t.failure, None, "the user's own race: {t:?}");
    }

    #[test]
    fn a_machine_failure_is_retried_once_and_the_retry_counts() {
        let (t, builds, served) = trial_with(vec![FailureKind::Infra]);
        assert_eq!(builds, 2);
        assert_eq!(t.latency_us, Some(7.0));
        assert_eq!(t.failure, None);
        assert_eq!(t.retried, ["scripted infra"]);
        assert_eq!(served.unwrap().retried, ["scripted infra"]);
    }

    #[test]
    fn a_machine_failure_twice_is_a_failed_trial_no_journal_serves_again() {
        let (t, builds, served) = trial_with(vec![FailureKind::Infra, FailureKind::Infra]);
        assert_eq!(builds, 2, "retried once, not more");
        assert_eq!(t.failure, Some(FailureKind::Infra));
        assert_eq!(t.error.as_deref(), Some("scripted infra (retried once)"));
        assert!(
            served.is_none(),
            "an infra failure is measured again next run"
        );
    }

    /// The golden command checks a trial whose outputs pass the comparison with the reference but
    /// are not its bytes; the reference's own bytes are not checked again.
    #[cfg(unix)]
    #[test]
    fn the_golden_command_is_an_extra_check_of_trials() {
        // add_custom's z is fp16: 0x0001 (6e-8) is within the tolerance of 0.
        let (near, zero) = (vec![vec![1u8, 0]], vec![vec![0u8, 0]]);
        let rejects = Some(vec![
            "sh".to_string(),
            "-c".to_string(),
            "echo no >&2; exit 1".to_string(),
        ]);
        let (t, _, _) = trial_checked(vec![], near.clone(), zero.clone(), rejects.clone());
        assert_eq!(t.failure, Some(FailureKind::Wrong), "{t:?}");
        assert!(
            t.error
                .as_deref()
                .unwrap()
                .contains("rejected the outputs (exit code 1)"),
            "{t:?}"
        );
        let (t, _, _) = trial_checked(vec![], zero.clone(), zero.clone(), rejects);
        assert_eq!(t.failure, None, "the reference's bytes: {t:?}");
        let accepts = Some(vec!["true".to_string()]);
        let (t, _, _) = trial_checked(vec![], near, zero, accepts);
        assert_eq!(t.failure, None, "{t:?}");
    }

    #[test]
    fn a_candidate_failure_is_not_retried() {
        let (t, builds, served) = trial_with(vec![FailureKind::Build]);
        assert_eq!(builds, 1);
        assert_eq!(t.failure, Some(FailureKind::Build));
        assert!(t.retried.is_empty());
        assert_eq!(served.unwrap().failure, Some(FailureKind::Build));
    }
}
