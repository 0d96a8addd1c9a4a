//! The tuning loop: measures the baseline, then asks a strategy for batches of points, sends them through
//! the evaluator (in parallel, up to `jobs`), tells the strategy what came back, and stops when the budget
//! of trials is spent or the strategy has nothing left. Observers (progress, messages) are told about each
//! trial; the loop itself prints nothing and writes nothing but the journal.

pub mod evaluate;
pub mod journal;

use crate::backend::{Backend, Inputs, Measurement};
use crate::errors::{Error, Result};
use crate::fsx::{self, KeyHasher};
use crate::manifest::{Manifest, OpSpec};
use crate::search::{self, SearchContext};
use crate::space::{Point, Space};
use evaluate::{Evaluator, Reference};
use journal::{Journal, Trial};
use std::collections::BTreeMap;
use std::path::Path;
use std::sync::{Arc, Mutex};

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
}

/// Told about the loop's progress; the CLI's progress bar and JSON messages implement it.
pub trait Observer {
    fn started(&mut self, _op: &str, _baseline_us: f64, _budget: usize) {}
    fn trial(&mut self, _trial: &Trial, _from_journal: bool) {}
}

pub struct TuneResult {
    pub op: String,
    pub baseline: Measurement,
    pub trials: Vec<Trial>,
    /// The best verified trial, if any succeeded (see `improvement` for whether it beats the baseline).
    pub best: Option<(Point, Trial)>,
    pub space: Space,
    /// Current contents of the op's source files.
    pub originals: BTreeMap<String, String>,
    pub builds: usize,
    pub build_cache_hits: usize,
    pub journal_hits: usize,
}

impl TuneResult {
    /// The best trial if it is faster than the sources as they are.
    pub fn improvement(&self) -> Option<&(Point, Trial)> {
        self.best
            .as_ref()
            .filter(|(_, t)| t.latency_us.is_some_and(|l| l < self.baseline.latency_us))
    }
}

/// Inputs of an op, generated from its data seed.
pub fn inputs(op: &OpSpec) -> Inputs {
    let seed = op.tune.data_seed.unwrap_or(DEFAULT_DATA_SEED);
    let tensors: Vec<Vec<u8>> = op
        .inputs
        .iter()
        .map(|t| crate::verify::generate(t, seed))
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

/// Reads the current contents of every file the op is built from or a tunable lives in.
pub fn read_sources(manifest: &Manifest, op: &OpSpec) -> Result<BTreeMap<String, String>> {
    let mut out = BTreeMap::new();
    for f in op.sources().chain(op.tunables.iter().map(|t| &t.file)) {
        if !out.contains_key(f) {
            out.insert(f.clone(), fsx::read_to_string(&manifest.root.join(f))?);
        }
    }
    Ok(out)
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
    let space = Space::resolve(manifest, op, backend.soc(), &originals)?;
    let inputs = inputs(op);
    let baseline = Evaluator::baseline(backend.as_ref(), op, &inputs, false)
        .map_err(|f| Error::NoValidCandidate(format!("op `{}`: the sources as they are fail ({}): {}\nfix the operator first: tuning needs its own outputs as the reference", op.name, f.kind.as_str(), f.message)))?;
    let mut h = KeyHasher::new();
    baseline.outputs.iter().for_each(|o| {
        h.part(o);
    });
    let reference = Reference {
        outputs: baseline.outputs.clone(),
        key: h.finish(),
    };
    let journal = Journal::open(&work.join("journal"), &op.name)?;
    let evaluator = Arc::new(Evaluator {
        backend,
        op: op.clone(),
        space: space.clone(),
        originals: originals.clone(),
        inputs,
        reference,
        journal: Mutex::new(journal),
    });
    observer.started(&op.name, baseline.latency_us, opts.budget);

    let mut strategy = search::by_name(&opts.strategy, opts.budget)?;
    let mut ctx = SearchContext::new(&space, opts.seed).starting_at(space.current());
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(opts.jobs.max(1))
        .max_blocking_threads(opts.jobs.max(1))
        .build()
        .map_err(|e| Error::Internal(format!("could not start the async runtime: {e}")))?;
    let mut trials: Vec<Trial> = vec![];
    let (mut builds, mut build_cache_hits, mut journal_hits) = (0, 0, 0);
    let mut scored: Vec<(Point, Trial)> = vec![];
    let started = std::time::Instant::now();
    while trials.len() < opts.budget {
        if opts
            .time_limit
            .is_some_and(|limit| started.elapsed() >= limit)
        {
            break;
        }
        let batch = strategy.propose(&mut ctx, opts.budget - trials.len());
        if batch.is_empty() {
            break;
        }
        let first = trials.len();
        let evaluated = runtime.block_on(evaluate_batch(
            evaluator.clone(),
            first,
            batch.clone(),
            opts.jobs,
        ))?;
        let mut observations = vec![];
        for (point, e) in batch.into_iter().zip(evaluated) {
            if e.from_journal {
                journal_hits += 1;
            } else {
                builds += 1;
                build_cache_hits += e.build_cached as usize;
            }
            observer.trial(&e.trial, e.from_journal);
            observations.push((point.clone(), e.trial.latency_us));
            scored.push((point, e.trial.clone()));
            trials.push(e.trial);
        }
        strategy.observe(&mut ctx, &observations);
    }
    // The best trial; ties go to the earliest, so the choice is reproducible.
    let best = scored
        .into_iter()
        .filter(|(_, t)| t.latency_us.is_some())
        .fold(None::<(Point, Trial)>, |acc, cur| match acc {
            Some(a) if a.1.latency_us <= cur.1.latency_us => Some(a),
            _ => Some(cur),
        });
    Ok(TuneResult {
        op: op.name.clone(),
        baseline,
        trials,
        best,
        space,
        originals,
        builds,
        build_cache_hits,
        journal_hits,
    })
}

async fn evaluate_batch(
    evaluator: Arc<Evaluator>,
    first: usize,
    batch: Vec<Point>,
    jobs: usize,
) -> Result<Vec<evaluate::Evaluated>> {
    let permits = Arc::new(tokio::sync::Semaphore::new(jobs.max(1)));
    let mut handles = vec![];
    for (i, point) in batch.into_iter().enumerate() {
        let evaluator = evaluator.clone();
        let permits = permits.clone();
        handles.push(tokio::spawn(async move {
            let _permit = permits.acquire_owned().await.expect("semaphore open");
            tokio::task::spawn_blocking(move || evaluator.evaluate(first + i, &point)).await
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
