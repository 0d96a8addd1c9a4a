//! The tuning loop: measures the baseline, then spends the budget of trials. A `Runner` owns the budget
//! and the parallel evaluation: it runs one strategy over one variant of the sources at a time, asking for
//! batches of points, sending them through the evaluator (in parallel, up to `jobs`) and telling the
//! strategy what came back. Host-side strategies are one such search; `loop` (`alternate`) interleaves
//! host searches with kernel rewrites drawn from the bank. Observers (progress, messages) are told about
//! each trial; the loop itself prints nothing and writes nothing but the journal.

pub mod alternate;
pub mod choice;
pub mod evaluate;
pub mod journal;
pub mod last_run;
pub mod probes;
pub mod variant;

use crate::backend::faults::TrialPlan;
use crate::backend::{Backend, Inputs, Measurement};
use crate::errors::{Error, Result};
use crate::fsx::{self, KeyHasher};
use crate::manifest::{Manifest, OpSpec};
use crate::search::{self, SearchContext, Strategy};
use crate::space::{Point, Space};
use evaluate::{Evaluator, Golden, ProbeBar, Reference};
use journal::{Journal, Trial};
use std::collections::BTreeMap;
use std::path::Path;
use std::sync::{Arc, Mutex};
use variant::Variant;

/// The seed of the input data when the manifest names none. Independent of the search seed, so every
/// run of an op checks candidates against the same reference.
pub const DEFAULT_DATA_SEED: u64 = 0x5EED;

#[derive(Debug, Clone)]
pub struct TuneOptions {
    pub budget: usize,
    pub strategy: String,
    pub seed: u64,
    pub jobs: usize,
    /// Stop proposing new trials after this much wall time (trials under way finish).
    pub time_limit: Option<std::time::Duration>,
    /// The lessons the kernel phase of `loop` draws on.
    pub bank: Arc<crate::bank::Bank>,
    /// External rewriter command (program and arguments), if the manifest names one.
    pub rewriter: Option<Vec<String>>,
    /// Turns the external rewriter gets.
    pub rewriter_attempts: u32,
    /// Faults to inject (`bench --inject-faults`, the soak test); None in every real run.
    pub faults: Option<Arc<crate::backend::faults::FaultPlan>>,
    /// How much faster (percent) than the sources a candidate must be to be written back (`--noise-floor`);
    /// None: the manifest's `noise-floor`, else `DEFAULT_NOISE_FLOOR_PCT`.
    pub noise_floor_pct: Option<f64>,
}

/// The default noise floor, in percent: `check`'s default tolerance, so nothing is written back that
/// `check` could not tell from the sources as they were.
pub const DEFAULT_NOISE_FLOOR_PCT: f64 = 2.0;

impl TuneOptions {
    /// The noise floor for `op` as a fraction: the flag's, else the manifest's, else the default.
    pub fn noise_floor(&self, op: &OpSpec) -> f64 {
        self.noise_floor_pct
            .or(op.tune.noise_floor)
            .unwrap_or(DEFAULT_NOISE_FLOOR_PCT)
            / 100.0
    }
}

/// Told about the loop's progress; the CLI's progress bar and JSON messages implement it.
pub trait Observer {
    fn started(&mut self, _op: &str, _baseline_us: f64, _budget: usize) {}
    /// The constraints the tool derived from the sources (`space::derived`), one line each.
    fn derived(&mut self, _op: &str, _constraints: &[String]) {}
    fn trial(&mut self, _trial: &Trial, _from_journal: bool) {}
    /// The kernel phase tried a rewrite: what came of it, in words.
    fn rewrite(&mut self, _op: &str, _rewrite: &str, _outcome: &str) {}
    /// Something the user should know that does not stop the run (a shape probe left out, ...).
    fn warning(&mut self, _message: &str) {}
}

pub struct TuneResult {
    pub op: String,
    /// The sources as they are; for an op with several shapes its `latency_us` is the weighted
    /// geometric mean of theirs (`baseline_shapes`), the figure every trial is compared with.
    pub baseline: Measurement,
    /// For an op with several shapes: the sources' latency at each, by name. Empty for one shape.
    pub baseline_shapes: BTreeMap<String, f64>,
    pub trials: Vec<Trial>,
    /// The best verified trial, if any succeeded (see `improvement` for whether it beats the baseline).
    pub best: Option<Best>,
    /// The space of the sources as they were.
    pub space: Space,
    /// Current contents of the op's source files.
    pub originals: BTreeMap<String, String>,
    pub builds: usize,
    pub build_cache_hits: usize,
    pub journal_hits: usize,
    /// Kernel rewrites the loop tried, in order: (rewrite, what came of it).
    pub rewrites_tried: Vec<(String, String)>,
    /// Every verified trial of a variant the run kept (the sources, and each kept rewrite chain): what
    /// may be written back. Trials of rewrites the loop dropped are not here.
    pub candidates: Vec<Best>,
    /// The noise floor (a fraction): a candidate must beat the baseline by more to be written back.
    pub noise_floor: f64,
    /// The shape probes candidates were verified on, and those the sources themselves could not run.
    pub probes: probes::Probes,
}

/// A verified trial, and the variant and point it measured.
#[derive(Debug, Clone)]
pub struct Best {
    pub variant: Variant,
    pub point: Point,
    pub trial: Trial,
    /// Served from the journal of an earlier run: the trial carries no run evidence (`ub_use`).
    pub from_journal: bool,
}

impl Best {
    /// The files this result changes, with their new contents.
    pub fn changed_files(&self, originals: &BTreeMap<String, String>) -> BTreeMap<String, String> {
        let mut out = self.variant.patched(&self.point);
        out.retain(|f, text| originals.get(f) != Some(text));
        out
    }
}

impl TuneResult {
    /// What is written back: among the candidates faster than the sources by more than the noise
    /// floor, those within the floor of the fastest are equal, and the one closest to the sources
    /// (fewest tunables changed plus rewrites applied) wins; then the faster, then the earlier. None
    /// when no candidate beats the floor. A candidate not run on the shape probes (`unprobed`) is
    /// never among them.
    pub fn improvement(&self) -> Option<&Best> {
        let beating: Vec<&Best> = self
            .candidates
            .iter()
            .filter(|b| {
                !b.trial.unprobed
                    && b.trial
                        .latency_us
                        .is_some_and(|l| l < self.baseline.latency_us * (1.0 - self.noise_floor))
            })
            .collect();
        let fastest = beating
            .iter()
            .filter_map(|b| b.trial.latency_us)
            .fold(f64::INFINITY, f64::min);
        beating
            .into_iter()
            .filter(|b| {
                b.trial
                    .latency_us
                    .is_some_and(|l| l <= fastest * (1.0 + self.noise_floor))
            })
            .min_by(|a, b| {
                self.distance(a)
                    .cmp(&self.distance(b))
                    .then(
                        a.trial
                            .latency_us
                            .partial_cmp(&b.trial.latency_us)
                            .unwrap_or(std::cmp::Ordering::Equal),
                    )
                    .then(a.trial.index.cmp(&b.trial.index))
            })
    }

    /// How far a candidate is from the sources as they are: tunables changed plus rewrites applied.
    pub fn distance(&self, b: &Best) -> usize {
        let changed = self
            .space
            .tunables
            .iter()
            .filter(|t| {
                b.trial
                    .params
                    .get(&t.name)
                    .is_some_and(|v| *v != t.site.value)
            })
            .count();
        changed + b.variant.rewrites.len()
    }
}

/// The verified trials that may be written back: those of the variants the run kept (`accepted`). A
/// trial of a rewrite the loop reported as dropped is not among them, even when it was faster.
pub fn kept_candidates(verified: Vec<Best>, accepted: &[Vec<String>]) -> Vec<Best> {
    verified
        .into_iter()
        .filter(|b| accepted.contains(&b.variant.rewrites))
        .collect()
}

/// Inputs of an op, generated from its data seed.
pub fn inputs(op: &OpSpec) -> Inputs {
    let seed = op.tune.data_seed.unwrap_or(DEFAULT_DATA_SEED);
    // what `data = "counts"` adds up to: the first input's rows
    let rows = op
        .inputs
        .first()
        .map_or(1, |t| t.shape.first().copied().unwrap_or(1));
    let tensors: Vec<Vec<u8>> = op
        .inputs
        .iter()
        .map(|t| crate::verify::generate(t, seed, rows))
        .collect();
    let mut h = KeyHasher::new();
    tensors.iter().for_each(|t| {
        h.part(t);
    });
    Inputs {
        tensors,
        key: h.finish(),
    }
}

/// Reads the current contents of every file the op is built from or a tunable lives in, and of the
/// op's own headers its kernel files include (`op_kernel/*.h`: real kernels keep their class there, so
/// that is where rewrites apply and what a write-back may change).
pub fn read_sources(manifest: &Manifest, op: &OpSpec) -> Result<BTreeMap<String, String>> {
    let mut out = BTreeMap::new();
    for f in op.sources().chain(op.tunables.iter().map(|t| &t.file)) {
        if !out.contains_key(f) {
            out.insert(f.clone(), fsx::read_to_string(&manifest.root.join(f))?);
        }
    }
    let mut own = vec![];
    for f in &op.kernel {
        let text = out[f].clone();
        own.push((f.clone(), text.clone()));
        for (h, t) in crate::space::discover::kernel_headers(&manifest.root, f, &text) {
            own.push((h.clone(), t.clone()));
            out.entry(h).or_insert(t);
        }
    }
    // Shared headers the kernel reaches through `include-as` folders (`../foreach_utils/...`): read, and
    // rewritten by kernel motifs like the op's own (what a tile does often lives there).
    for (h, t) in
        crate::space::discover::mounted_kernel_headers(&manifest.root, &manifest.include_as, &own)
    {
        out.entry(h).or_insert(t);
    }
    Ok(out)
}

/// Whether `rel` (a key of `read_sources`) is a shared header: of an `include-as` folder, or of an
/// `include` folder holding a tunable. (A host source above the project is the op's, and never written.)
pub fn is_shared_header(op: &OpSpec, rel: &str) -> bool {
    rel.starts_with("../") && !op.sources().any(|s| s == rel)
}

/// The op's kernel files in `sources` and, after each, the own headers it includes (as read by
/// `read_sources`): the files kernel rewrites apply to.
pub fn kernel_files(op: &OpSpec, sources: &BTreeMap<String, String>) -> Vec<String> {
    let mut out: Vec<String> = vec![];
    for f in &op.kernel {
        let Some(text) = sources.get(f) else {
            continue;
        };
        if !out.contains(f) {
            out.push(f.clone());
        }
        for (h, _) in
            crate::space::discover::kernel_headers_with(f, text, |rel| sources.get(rel).cloned())
        {
            if !out.contains(&h) {
                out.push(h);
            }
        }
    }
    for h in sources.keys() {
        if is_shared_header(op, h) && !op.tunables.iter().any(|t| t.file == *h) && !out.contains(h)
        {
            out.push(h.clone());
        }
    }
    out
}

/// The files a motif of `scope` edits: the kernel files and their own headers (`kernel_files`), or the
/// op's host files (its tiling functions) in `sources`.
pub fn rewrite_files(
    op: &OpSpec,
    sources: &BTreeMap<String, String>,
    scope: crate::rewrite::motif::Scope,
) -> Vec<String> {
    match scope {
        crate::rewrite::motif::Scope::Kernel => kernel_files(op, sources),
        // A host source of a sibling folder (`../`) is read, never rewritten.
        crate::rewrite::motif::Scope::Host => op
            .host
            .iter()
            .filter(|f| sources.contains_key(*f) && !f.starts_with("../"))
            .cloned()
            .collect(),
    }
}

/// The files of `read_sources` that a lockfile written before it read kernel headers may lack: a
/// header missing from such a lock is not a change of the sources.
pub fn header_sources(op: &OpSpec, sources: &BTreeMap<String, String>) -> Vec<String> {
    let listed: Vec<&String> = op
        .sources()
        .chain(op.tunables.iter().map(|t| &t.file))
        .collect();
    kernel_files(op, sources)
        .into_iter()
        .filter(|f| !listed.contains(&f))
        .collect()
}

/// Tunes one op. `work` is `target/ascend-tune/`.
pub fn tune_op(
    manifest: &Manifest,
    op: &OpSpec,
    backend: Arc<dyn Backend>,
    work: &Path,
    opts: &TuneOptions,
    observer: &mut dyn Observer,
) -> Result<TuneResult> {
    let originals = read_sources(manifest, op)?;
    let start = variant::original(manifest, op, backend.soc(), originals.clone())?;
    let inputs = inputs(op);
    let backend: Arc<dyn Backend> = match &opts.faults {
        Some(_) => Arc::new(crate::backend::faults::FaultyBackend::new(backend)),
        None => backend,
    };
    // The tunables where the sources hold them: the unmodified op is built in the run-time form the
    // trials share (one build fewer per tune on the twin; the form computes what the sources do).
    let current: Vec<crate::rewrite::params::Placed> = start
        .space
        .current()
        .map(|p| crate::rewrite::params::placed(&start.space, &p, &start.sources))
        .unwrap_or_default();
    let baseline = Evaluator::baseline_at(backend.as_ref(), op, &inputs, &current)
        .map_err(|f| Error::NoValidCandidate(format!("op `{}`: the sources as they are fail ({}): {}\nfix the operator first: tuning needs its own outputs as the reference", op.name, f.kind.as_str(), f.message)))?;
    // The manifest's golden command judges the unmodified operator first: a reference that fails it
    // would make every trial that reproduces it count as right.
    let golden = op.golden.as_ref().map(|command| Golden {
        command: command.clone(),
        root: manifest.root.clone(),
        work: work.to_path_buf(),
    });
    if let Some(g) = &golden {
        g.check(op, &inputs, &baseline.outputs).map_err(|why| {
            Error::NoValidCandidate(format!(
                "op `{}`: the sources as they are fail the golden check: {why}\nfix the operator (or the golden command) first: tuning needs outputs that pass it as the reference",
                op.name
            ))
        })?;
    }
    let mut h = KeyHasher::new();
    baseline.outputs.iter().for_each(|o| {
        h.part(o);
    });
    // Journal entries verified before candidates were checked for UB races, and for copies past
    // their tensor, are measured again.
    h.part(b"ub-race-check");
    h.part(b"past-tensor-check");
    let reference = Reference {
        outputs: baseline.outputs.clone(),
        key: h.finish(),
        races: !baseline.timing.ub_races.is_empty(),
        spills: crate::backend::twin::spill(&baseline.warnings).is_some(),
    };
    // The sources as they are run once on every probe shape: their outputs are the probes' references.
    // The declared shapes (`[[op.shape]]`) are probes too, measured: they are run even when
    // generated probes are off.
    let generated = op.tune.shape_probes != Some(false);
    let probes = if !generated && op.shapes.is_empty() {
        probes::Probes::default()
    } else {
        let artifact = Evaluator::original_build(backend.as_ref(), op, &current).map_err(|f| {
            Error::NoValidCandidate(format!(
                "op `{}`: the sources as they are no longer build ({}): {}",
                op.name,
                f.kind.as_str(),
                f.message
            ))
        })?;
        probes::Probes::prepare(
            backend.as_ref(),
            op,
            &artifact,
            &start.space,
            generated,
            op.tune.probe_max_elems,
        )
        .map_err(|why| {
            Error::NoValidCandidate(format!(
                "op `{}`: {why}\nfix the operator or that [[op.shape]] in ascend.toml: every shape the op declares must run before tuning",
                op.name
            ))
        })?
    };
    // With several shapes the baseline is their weighted geometric mean, as every trial is.
    let at: Vec<(String, f64)> = probes
        .declared()
        .map(|(n, m)| (n.to_string(), m.baseline_us))
        .collect();
    let mut baseline_shapes = BTreeMap::new();
    if !at.is_empty() {
        baseline_shapes.insert(
            crate::manifest::DECLARED_SHAPE.to_string(),
            baseline.latency_us,
        );
        baseline_shapes.extend(at.iter().cloned());
    }
    let mut baseline = baseline;
    baseline.latency_us = probes.objective(op.weight, baseline.latency_us, &at);
    for d in &probes.dropped {
        observer.warning(&format!(
            "op `{}`: shape probe `{} {:?}` left out: {}",
            op.name, d.probe, d.shape, d.why
        ));
    }
    let journal = Journal::open(&work.join("journal"), &op.name)?;
    let evaluator = Arc::new(Evaluator {
        backend: backend.clone(),
        op: op.clone(),
        originals: originals.clone(),
        inputs,
        reference,
        probes: probes.clone(),
        probe_bar: match op.tune.probe_every_candidate {
            Some(true) => None,
            _ => Some(ProbeBar::new(baseline.latency_us, opts.noise_floor(op))),
        },
        journal: Mutex::new(journal),
        faults: opts.faults.clone(),
        golden,
    });
    observer.started(&op.name, baseline.latency_us, opts.budget);
    let derived: Vec<String> = start.space.derived.iter().map(|d| d.describe()).collect();
    observer.derived(&op.name, &derived);
    let mut runner = Runner::new(evaluator, opts, observer)?;
    if opts.strategy == "loop" {
        let cx = alternate::Context {
            manifest,
            op,
            soc: backend.soc(),
            work,
            baseline: &baseline,
        };
        alternate::run(&mut runner, &cx, start.clone())?;
    } else {
        let strategy = search::by_name(&opts.strategy, opts.budget)?;
        let point = start.space.current();
        runner.search(&start, strategy, opts.budget, opts.seed, point)?;
    }
    // Records a full disk held back go out now, or the run stops saying how many are unsaved.
    runner
        .evaluator
        .journal
        .lock()
        .expect("journal lock")
        .flush()?;
    let Runner {
        trials,
        best,
        builds,
        build_cache_hits,
        journal_hits,
        rewrites_tried,
        verified,
        accepted,
        ..
    } = runner;
    // Only what the run kept may be written back: a rewrite reported as dropped never is.
    let candidates = kept_candidates(verified, &accepted);
    Ok(TuneResult {
        baseline_shapes,
        candidates,
        noise_floor: opts.noise_floor(op),
        probes,
        op: op.name.clone(),
        baseline,
        trials,
        best,
        space: (*start.space).clone(),
        originals,
        builds,
        build_cache_hits,
        journal_hits,
        rewrites_tried,
    })
}

/// Owns the budget: runs searches over variants, one at a time, and keeps every trial and the best.
/// Under the soak test it also runs the hostile copies the fault plan asks for: extra trials, kept and
/// reported like any other but charged outside the budget and never shown to the strategy.
pub struct Runner<'o> {
    evaluator: Arc<Evaluator>,
    runtime: tokio::runtime::Runtime,
    observer: &'o mut dyn Observer,
    pub budget: usize,
    jobs: usize,
    time_limit: Option<std::time::Duration>,
    started: std::time::Instant,
    pub trials: Vec<Trial>,
    pub best: Option<Best>,
    pub builds: usize,
    pub build_cache_hits: usize,
    pub journal_hits: usize,
    pub bank: Arc<crate::bank::Bank>,
    pub seed: u64,
    pub rewriter: Option<Vec<String>>,
    pub rewriter_attempts: u32,
    pub rewrites_tried: Vec<(String, String)>,
    /// Every (variant's rewrites, point) measured in this run.
    measured: Vec<(Vec<String>, Point)>,
    /// Extra trials of hostile candidates the soak test injected (outside the budget).
    pub injected: usize,
    /// Every verified trial (not the hostile ones), with its variant and point.
    pub verified: Vec<Best>,
    /// The rewrite chains of the variants the run kept: the sources' (none) and each one `loop` adopted.
    pub accepted: Vec<Vec<String>>,
}

impl<'o> Runner<'o> {
    fn new(
        evaluator: Arc<Evaluator>,
        opts: &TuneOptions,
        observer: &'o mut dyn Observer,
    ) -> Result<Runner<'o>> {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(opts.jobs.max(1))
            .max_blocking_threads(opts.jobs.max(1))
            .build()
            .map_err(|e| Error::Internal(format!("could not start the async runtime: {e}")))?;
        Ok(Runner {
            evaluator,
            runtime,
            observer,
            budget: opts.budget,
            jobs: opts.jobs,
            time_limit: opts.time_limit,
            started: std::time::Instant::now(),
            trials: vec![],
            best: None,
            builds: 0,
            build_cache_hits: 0,
            journal_hits: 0,
            bank: opts.bank.clone(),
            seed: opts.seed,
            rewriter: opts.rewriter.clone(),
            rewriter_attempts: opts.rewriter_attempts,
            rewrites_tried: vec![],
            measured: vec![],
            injected: 0,
            verified: vec![],
            accepted: vec![vec![]],
        })
    }

    /// Records that the run keeps `variant` (a rewrite `loop` adopted): its trials may be written back.
    pub fn accept(&mut self, variant: &Variant) {
        if !self.accepted.contains(&variant.rewrites) {
            self.accepted.push(variant.rewrites.clone());
        }
    }

    /// Records what came of a kernel rewrite and tells the observer.
    pub fn rewrite_outcome(&mut self, rewrite: &str, outcome: String) {
        self.observer
            .rewrite(&self.evaluator.op.name, rewrite, &outcome);
        self.rewrites_tried.push((rewrite.to_string(), outcome));
    }

    /// Charges one trial for a candidate that never reached the evaluator (an external rewriter that
    /// failed), so its cost counts against the budget and shows in the journal and reports.
    pub fn record_failure(
        &mut self,
        rewrites: Vec<String>,
        kind: crate::backend::FailureKind,
        message: String,
    ) -> Result<()> {
        let trial = Trial {
            v: journal::VERSION,
            key: String::new(),
            op: self.evaluator.op.name.clone(),
            index: self.trials.len(),
            params: BTreeMap::new(),
            rewrites,
            latency_us: None,
            block_dim: None,
            bound: None,
            pipes: BTreeMap::new(),
            failure: Some(kind),
            error: Some(message),
            samples: vec![],
            retried: vec![],
            injected: None,
            shapes: BTreeMap::new(),
            unprobed: false,
            ub_use: None,
        };
        self.observer.trial(&trial, false);
        self.trials.push(trial);
        Ok(())
    }

    /// Trials left in the budget (0 once the time limit has passed).
    /// The UB layout of `variant` at `point` from a fresh run (built through the cache, run once, not
    /// verified, journalled or counted as a trial): the evidence guided motifs plan from, for a best
    /// point the journal served. None when the run fails or records no layout.
    pub fn ub_use_at(
        &self,
        variant: &Variant,
        point: &Point,
    ) -> Option<Arc<crate::model::ub_layout::UbUse>> {
        self.evaluator.ub_use_at(variant, point)
    }

    pub fn remaining(&self) -> usize {
        if self
            .time_limit
            .is_some_and(|limit| self.started.elapsed() >= limit)
        {
            return 0;
        }
        self.budget
            .saturating_sub(self.trials.len() - self.injected)
    }

    /// Runs `strategy` over `variant` for up to `budget` trials (fewer if the overall budget runs out or
    /// the strategy has nothing left). Returns the best verified (point, latency) this search found.
    pub fn search(
        &mut self,
        variant: &Variant,
        mut strategy: Box<dyn Strategy>,
        budget: usize,
        seed: u64,
        start: Option<Point>,
    ) -> Result<Option<(Point, f64)>> {
        // Points this run measured on the same variant are known: a later search never spends a trial
        // on them again (the first host phase and the last one of `loop` search the same sources).
        let known: Vec<Point> = self
            .measured
            .iter()
            .filter(|(rewrites, _)| *rewrites == variant.rewrites)
            .map(|(_, p)| p.clone())
            .collect();
        // The search sees the constraints at the probes' shapes too, so it does not propose a point
        // that cannot serve one of them.
        let space = self
            .evaluator
            .probes
            .augment(&variant.space, self.evaluator.backend.soc());
        let mut ctx = SearchContext::new(&space, seed)
            .starting_at(start)
            .knowing(known);
        let mut spent = 0;
        let mut best: Option<(Point, f64)> = None;
        while spent < budget {
            let left = (budget - spent).min(self.remaining());
            if left == 0 {
                break;
            }
            let batch = strategy.propose(&mut ctx, left);
            if batch.is_empty() {
                break;
            }
            let first = self.trials.len();
            // The fault plan counts trials without the extra hostile ones, so it strikes the same
            // trials as the search would have run without faults.
            let number = first - self.injected;
            let plans: Vec<TrialPlan> = (0..batch.len())
                .map(|i| match &self.evaluator.faults {
                    Some(f) => f.for_trial(&self.evaluator.op.name, number + i),
                    None => TrialPlan::default(),
                })
                .collect();
            let mut jobs: Vec<Job> = batch
                .iter()
                .zip(&plans)
                .map(|(p, plan)| Job::Trial(p.clone(), *plan))
                .collect();
            jobs.extend(batch.iter().zip(&plans).filter_map(|(p, plan)| {
                plan.hostile
                    .filter(|_| variant.space.check(p).is_ok())
                    .map(|f| Job::Hostile(p.clone(), f))
            }));
            let mut evaluated = self.runtime.block_on(evaluate_batch(
                self.evaluator.clone(),
                Arc::new(variant.clone()),
                first,
                jobs,
                self.jobs,
            ))?;
            let hostile = evaluated.split_off(batch.len());
            let mut observations = vec![];
            for (point, e) in batch.into_iter().zip(evaluated) {
                if e.from_journal {
                    self.journal_hits += 1;
                } else {
                    self.builds += 1;
                    self.build_cache_hits += e.build_cached as usize;
                }
                self.observer.trial(&e.trial, e.from_journal);
                observations.push((point.clone(), e.trial.latency_us));
                self.measured
                    .push((variant.rewrites.clone(), point.clone()));
                if let Some(l) = e.trial.latency_us {
                    if !e.trial.unprobed {
                        self.evaluator.note_probed(l);
                    }
                    self.verified.push(Best {
                        variant: variant.clone(),
                        point: point.clone(),
                        trial: e.trial.clone(),
                        from_journal: e.from_journal,
                    });
                    // Ties go to the earliest, so the choice is reproducible.
                    if best.as_ref().is_none_or(|(_, b)| l < *b) {
                        best = Some((point.clone(), l));
                    }
                    let overall = self.best.as_ref().and_then(|b| b.trial.latency_us);
                    if overall.is_none_or(|b| l < b) {
                        self.best = Some(Best {
                            variant: variant.clone(),
                            point,
                            trial: e.trial.clone(),
                            from_journal: e.from_journal,
                        });
                    }
                }
                self.trials.push(e.trial);
                spent += 1;
            }
            // Hostile trials are recorded and reported, but the strategy never hears of them.
            for e in hostile {
                self.builds += 1;
                self.build_cache_hits += e.build_cached as usize;
                self.observer.trial(&e.trial, false);
                self.trials.push(e.trial);
                self.injected += 1;
            }
            strategy.observe(&mut ctx, &observations);
        }
        Ok(best)
    }
}

/// One evaluation of a batch: a trial of the search (with the machine faults planned for it), or the
/// hostile copy of one (the soak test).
enum Job {
    Trial(Point, TrialPlan),
    Hostile(Point, crate::backend::faults::Fault),
}

async fn evaluate_batch(
    evaluator: Arc<Evaluator>,
    variant: Arc<Variant>,
    first: usize,
    batch: Vec<Job>,
    jobs: usize,
) -> Result<Vec<evaluate::Evaluated>> {
    let permits = Arc::new(tokio::sync::Semaphore::new(jobs.max(1)));
    let mut handles = vec![];
    for (i, job) in batch.into_iter().enumerate() {
        let evaluator = evaluator.clone();
        let variant = variant.clone();
        let permits = permits.clone();
        handles.push(tokio::spawn(async move {
            let _permit = permits.acquire_owned().await.expect("semaphore open");
            tokio::task::spawn_blocking(move || match job {
                Job::Trial(point, plan) => {
                    evaluator.evaluate_planned(first + i, &variant, &point, &plan)
                }
                Job::Hostile(point, fault) => evaluator
                    .evaluate_hostile(first + i, &variant, &point, fault)?
                    .ok_or_else(|| {
                        Error::Internal("a hostile copy of a valid point was not built".into())
                    }),
            })
            .await
        }));
    }
    let mut out = vec![];
    // Collected in proposal order, whatever order they finish in, so results do not depend on `jobs`.
    for h in handles {
        let joined = h
            .await
            .map_err(|e| Error::Internal(format!("an evaluation task failed: {e}")))?;
        out.push(joined.map_err(|e| Error::Internal(format!("an evaluation panicked: {e}")))??);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    //! The choice of what is written back, on made-up trials of add_custom's space.
    use super::*;

    fn measurement(latency_us: f64) -> Measurement {
        let timing = crate::model::pipeline::simulate(
            &crate::model::trace::Trace::default(),
            crate::model::soc::lookup("Ascend910B1").unwrap(),
            &crate::model::pipeline::SimOptions {
                record_spans: false,
            },
        );
        Measurement {
            latency_us,
            samples: vec![latency_us],
            timing,
            block_dim: 8,
            outputs: vec![],
            modelled: true,
            trace: None,
            warnings: vec![],
            ub_use: None,
        }
    }

    /// add_custom's sources (block_dim 8, tile_length 256, buffer_num 1) and its space.
    fn start() -> (Manifest, Variant) {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/add_custom");
        let manifest = Manifest::load(&root.join("ascend.toml")).unwrap();
        let op = manifest.ops[0].clone();
        let soc = crate::model::soc::lookup(&manifest.soc).unwrap();
        let sources = read_sources(&manifest, &op).unwrap();
        let v = variant::original(&manifest, &op, soc, sources).unwrap();
        (manifest, v)
    }

    /// A verified trial at these values (with these rewrites), numbered `index`.
    fn candidate(
        v: &Variant,
        index: usize,
        values: &[(&str, i64)],
        rewrites: &[&str],
        l: f64,
    ) -> Best {
        let values: BTreeMap<String, i64> = v
            .space
            .tunables
            .iter()
            .map(|t| {
                let x = values
                    .iter()
                    .find(|(n, _)| *n == t.name)
                    .map_or(t.site.value, |(_, x)| *x);
                (t.name.clone(), x)
            })
            .collect();
        let point = v.space.point_of(&values).expect("a point of the space");
        let mut variant = v.clone();
        variant.rewrites = rewrites.iter().map(|r| r.to_string()).collect();
        Best {
            variant,
            point,
            trial: Trial {
                v: journal::VERSION,
                key: String::new(),
                op: "add_custom".into(),
                index,
                params: values,
                rewrites: rewrites.iter().map(|r| r.to_string()).collect(),
                latency_us: Some(l),
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
            },
            from_journal: false,
        }
    }

    fn result(v: &Variant, baseline_us: f64, candidates: Vec<Best>, floor: f64) -> TuneResult {
        TuneResult {
            op: "add_custom".into(),
            baseline: measurement(baseline_us),
            baseline_shapes: BTreeMap::new(),
            trials: candidates.iter().map(|b| b.trial.clone()).collect(),
            best: None,
            space: (*v.space).clone(),
            originals: (*v.sources).clone(),
            builds: 0,
            build_cache_hits: 0,
            journal_hits: 0,
            rewrites_tried: vec![],
            candidates,
            noise_floor: floor,
            probes: Default::default(),
        }
    }

    #[test]
    fn a_gain_within_the_noise_floor_is_not_written_back() {
        let (_, v) = start();
        // 0.1% faster than the sources: below the default 2% floor.
        let r = result(
            &v,
            100.0,
            vec![candidate(&v, 0, &[("block_dim", 16)], &[], 99.9)],
            0.02,
        );
        assert!(r.improvement().is_none());
        let c = r.choice();
        assert!(!c.improved && c.patched.is_empty());
        assert_eq!(c.latency_us, 100.0);
        assert_eq!(c.params["block_dim"], 8, "the sources' values are locked");
        // With no floor the same trial is a gain.
        let r = result(
            &v,
            100.0,
            vec![candidate(&v, 0, &[("block_dim", 16)], &[], 99.9)],
            0.0,
        );
        assert!(r.improvement().is_some());
    }

    #[test]
    fn among_near_equal_candidates_the_closest_to_the_sources_wins() {
        let (_, v) = start();
        let far = candidate(
            &v,
            0,
            &[("block_dim", 16), ("tile_length", 1024), ("buffer_num", 2)],
            &[],
            50.0,
        );
        let near = candidate(&v, 1, &[("block_dim", 16)], &[], 50.9);
        let slower = candidate(&v, 2, &[("tile_length", 512)], &[], 60.0);
        let r = result(&v, 100.0, vec![far, near, slower], 0.02);
        let chosen = r.improvement().unwrap();
        assert_eq!(
            chosen.trial.index, 1,
            "50.9 is within 2% of 50.0 and changes one value, not three"
        );
        assert_eq!(r.distance(chosen), 1);
        // Beyond the floor of each other, the faster wins.
        let far = candidate(
            &v,
            0,
            &[("block_dim", 16), ("tile_length", 1024), ("buffer_num", 2)],
            &[],
            50.0,
        );
        let near = candidate(&v, 1, &[("block_dim", 16)], &[], 51.5);
        let r = result(&v, 100.0, vec![far, near], 0.02);
        assert_eq!(r.improvement().unwrap().trial.index, 0);
    }

    /// A trial not run on the shape probes (`unprobed`: when it ran, a probed trial was faster than it
    /// by more than the floor) is never written back, even where it would now be the closest.
    #[test]
    fn an_unprobed_trial_is_never_written_back() {
        let (_, v) = start();
        let probed = candidate(
            &v,
            0,
            &[("block_dim", 16), ("tile_length", 1024)],
            &[],
            50.0,
        );
        let mut unprobed = candidate(&v, 1, &[("block_dim", 16)], &[], 50.5);
        unprobed.trial.unprobed = true;
        let r = result(&v, 100.0, vec![probed, unprobed], 0.02);
        assert_eq!(r.improvement().unwrap().trial.index, 0);
    }

    /// The path that wrote back a rewrite the loop had reported as dropped: its trial was faster than
    /// the best so far, but by less than the loop's keep margin, so the verdict was "dropped" while the
    /// runner's overall best (which the write-back took) was that trial.
    #[test]
    fn a_dropped_rewrite_is_never_a_candidate() {
        let (_, v) = start();
        let kept = candidate(&v, 0, &[("block_dim", 16)], &[], 50.0);
        let dropped = candidate(&v, 1, &[("block_dim", 16)], &["double-buffer"], 49.9);
        let adopted = candidate(&v, 2, &[("block_dim", 16)], &["narrow-barrier"], 49.8);
        let accepted = vec![vec![], vec!["narrow-barrier".to_string()]];
        let c = kept_candidates(vec![kept, dropped, adopted], &accepted);
        let rewrites: Vec<&Vec<String>> = c.iter().map(|b| &b.variant.rewrites).collect();
        assert_eq!(rewrites, [&vec![], &vec!["narrow-barrier".to_string()]]);
        let r = result(&v, 100.0, c, 0.0);
        assert_eq!(r.choice().rewrites, ["narrow-barrier"]);
    }
}
