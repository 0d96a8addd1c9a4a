//! The soak test (`bench --inject-faults RATE`): after each clean tuning run of the benchmark, the same
//! run again on a fresh copy of the project with faults injected (`backend::faults`: crashing, hanging,
//! memory-hungry, fork-bombing and wrong candidates, killed builds, a full disk in the working folder),
//! then written back and locked as `tune` does. What it reports is read back from disk, never counted in
//! memory: the journal, the lockfile and the sources after each op.
//!
//! * **faults injected**: faults that struck (one armed but never reached, say a compile that ended
//!   before its kill, is counted apart as missed);
//! * **faults survived**: injected faults the journal shows handled as designed: a hostile candidate is a
//!   failed trial of the expected kind whose reason names the fault; a killed or full build or run was
//!   retried (the reason is in the trial's `retried`) or, struck again, recorded as a failed `infra`
//!   trial; a journal record refused by the full disk is on disk all the same;
//! * **results lost** (must be 0): trials the run reported whose record is missing from the journal or
//!   differs from it, journal lines that do not parse, and a lockfile or written-back source that does not
//!   parse or differs from what the run chose;
//! * **same best**: the faulted run chose the same latency, parameters and rewrites as the clean run. The
//!   search never sees the extra hostile trials, so only a trial whose retry was struck too can change it.

use crate::backend::faults::{Event, Fault, FaultPlan, Moment};
use crate::backend::{self, FailureKind};
use crate::errors::Result;
use crate::lockfile::{Entry, Lockfile};
use crate::manifest::{Manifest, OpSpec};
use crate::tune::journal::Trial;
use crate::tune::{self, Observer, TuneOptions, TuneResult};
use serde::Serialize;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

/// What to inject.
#[derive(Debug, Clone)]
pub struct SoakOptions {
    pub rate: f64,
    pub seed: u64,
    pub kinds: Vec<Fault>,
}

#[derive(Debug, Clone, Serialize)]
pub struct SoakRow {
    pub op: String,
    pub strategy: String,
    pub budget: usize,
    /// Every trial of the faulted run, the extra hostile ones included.
    pub trials: usize,
    /// Faults that struck, by kind (a full disk also by moment: build, run or journal).
    pub injected: BTreeMap<String, usize>,
    pub faults_injected: usize,
    pub faults_survived: usize,
    /// Faults armed that never struck (not counted as injected).
    pub faults_missed: usize,
    pub results_lost: usize,
    /// Trials retried after a machine fault (saved, unless the retry was struck too).
    pub retried: usize,
    pub clean_us: Option<f64>,
    pub faulted_us: Option<f64>,
    pub same_best: bool,
    /// What did not survive, what was lost, or why the best differs, in words.
    pub problems: Vec<String>,
    /// The error the faulted run stopped with, if it stopped.
    pub stopped: Option<String>,
    pub wall_s: f64,
}

#[derive(Debug, Clone, Serialize)]
pub struct SoakReport {
    pub rate: f64,
    pub fault_seed: u64,
    pub kinds: Vec<String>,
    pub rows: Vec<SoakRow>,
    pub trials: usize,
    pub faults_injected: usize,
    pub faults_survived: usize,
    pub faults_missed: usize,
    pub results_lost: usize,
    /// Rows whose faulted run chose the clean run's best.
    pub same_best: usize,
}

impl SoakReport {
    pub fn new(opts: &SoakOptions, rows: Vec<SoakRow>) -> SoakReport {
        let sum = |f: fn(&SoakRow) -> usize| rows.iter().map(f).sum();
        SoakReport {
            rate: opts.rate,
            fault_seed: opts.seed,
            kinds: opts.kinds.iter().map(|k| k.name().to_string()).collect(),
            trials: sum(|r| r.trials),
            faults_injected: sum(|r| r.faults_injected),
            faults_survived: sum(|r| r.faults_survived),
            faults_missed: sum(|r| r.faults_missed),
            results_lost: sum(|r| r.results_lost),
            same_best: rows.iter().filter(|r| r.same_best).count(),
            rows,
        }
    }
}

/// What the soak of one (op, strategy, budget) needs besides the options.
pub struct Run<'a> {
    /// The suite's project (never written).
    pub project: &'a Path,
    /// A fresh folder for the faulted copy.
    pub dir: PathBuf,
    pub op: &'a OpSpec,
    pub soc: &'a str,
    pub cache: PathBuf,
    pub options: TuneOptions,
    /// The clean run of the same options.
    pub clean: &'a TuneResult,
}

struct Quiet;
impl Observer for Quiet {}

/// Runs one faulted tune on a copy of the project, writes it back and locks it, and reads it all back.
pub fn soak(opts: &SoakOptions, run: Run) -> Result<SoakRow> {
    let started = Instant::now();
    super::copy_project(run.project, &run.dir)?;
    super::pin_includes(run.project, &run.dir)?;
    let manifest = Manifest::load(&run.dir.join(crate::manifest::FILE_NAME))?;
    let work = run.dir.join("target/ascend-tune");
    let backend: Arc<dyn backend::Backend> = Arc::from(backend::open_with_cache(
        &manifest,
        manifest.backend,
        run.soc,
        work.clone(),
        run.cache.clone(),
    )?);
    let plan = Arc::new(
        FaultPlan::new(opts.rate, opts.seed, opts.kinds.clone())
            .map_err(|e| crate::errors::Error::bad_input(e, None))?,
    );
    let mut options = run.options.clone();
    options.faults = Some(plan.clone());
    let clean_best = best_of(run.clean);
    let mut row = SoakRow {
        op: run.op.name.clone(),
        strategy: options.strategy.clone(),
        budget: options.budget,
        trials: 0,
        injected: BTreeMap::new(),
        faults_injected: 0,
        faults_survived: 0,
        faults_missed: 0,
        results_lost: 0,
        retried: 0,
        clean_us: clean_best.as_ref().map(|b| b.0),
        faulted_us: None,
        same_best: false,
        problems: vec![],
        stopped: None,
        wall_s: 0.0,
    };
    let result = tune::tune_op(
        &manifest,
        run.op,
        backend.clone(),
        &work,
        &options,
        &mut Quiet,
    );
    let events = plan.take_events();
    let journal = read_journal(&work.join("journal").join(format!("{}.jsonl", run.op.name)));
    match result {
        Err(e) => {
            // A clean stop (say the disk stayed full): what the journal holds must still be whole.
            row.stopped = Some(e.to_string());
            row.results_lost += journal.broken;
            count_faults(&mut row, &events, &journal);
        }
        Ok(result) => {
            row.trials = result.trials.len();
            row.retried = result
                .trials
                .iter()
                .filter(|t| !t.retried.is_empty())
                .count();
            count_faults(&mut row, &events, &journal);
            check_journal(&mut row, &result, &journal);
            let chosen = write_back(&manifest, run.op, backend.as_ref(), &options, &result)?;
            check_lock_and_sources(&mut row, &manifest, run.op, backend.soc(), &chosen);
            let faulted = best_of(&result);
            row.faulted_us = faulted.as_ref().map(|b| b.0);
            row.same_best = faulted == clean_best;
            if !row.same_best {
                let struck_twice = events.iter().filter(|e| e.attempt == 1 && e.fired).count();
                row.problems.push(format!(
                    "best {:?} differs from the clean run's {:?} ({struck_twice} trial(s) lost to a fault that struck the retry too)",
                    faulted, clean_best
                ));
            }
        }
    }
    row.wall_s = started.elapsed().as_secs_f64();
    Ok(row)
}

/// (latency, params, rewrites) of a run's best verified trial.
type Choice = (f64, BTreeMap<String, i64>, Vec<String>);

fn best_of(r: &TuneResult) -> Option<Choice> {
    let b = r.best.as_ref()?;
    Some((
        b.trial.latency_us?,
        b.trial.params.clone(),
        b.variant.rewrites.clone(),
    ))
}

/// The journal as read back from disk.
struct JournalText {
    /// Every line that parses, in order.
    trials: Vec<Trial>,
    /// Lines that do not parse, and a torn end.
    broken: usize,
}

impl JournalText {
    fn with_key<'a>(&'a self, key: &'a str) -> impl Iterator<Item = &'a Trial> + 'a {
        self.trials.iter().filter(move |t| t.key == key)
    }
}

fn read_journal(path: &Path) -> JournalText {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    let mut out = JournalText {
        trials: vec![],
        broken: usize::from(!text.is_empty() && !text.ends_with('\n')),
    };
    for line in text.lines() {
        match serde_json::from_str::<Trial>(line) {
            Ok(t) => out.trials.push(t),
            Err(_) => out.broken += 1,
        }
    }
    out
}

/// Checks each fault that struck against the journal (see the module comment).
fn count_faults(row: &mut SoakRow, events: &[Event], journal: &JournalText) {
    for e in events {
        if !e.fired {
            row.faults_missed += 1;
            continue;
        }
        row.faults_injected += 1;
        let name = match e.moment.filter(|_| e.fault == Fault::DiskFull) {
            Some(m) => format!("{} ({})", e.fault.name(), m.name()),
            None => e.fault.name().to_string(),
        };
        *row.injected.entry(name).or_default() += 1;
        let (kind, words) = e.fault.expected();
        let handled = |t: &Trial| -> bool {
            match (e.fault.is_candidate(), e.moment, e.attempt) {
                (true, _, _) => {
                    t.injected.as_deref() == Some(e.fault.name())
                        && t.failure == Some(kind)
                        && t.error.as_deref().is_some_and(|m| m.contains(words))
                }
                (false, Some(Moment::Journal), _) => true,
                (false, _, 0) => t.retried.first().is_some_and(|m| m.contains(words)),
                (false, _, _) => {
                    t.failure == Some(FailureKind::Infra)
                        && t.error.as_deref().is_some_and(|m| m.contains(words))
                }
            }
        };
        if journal.with_key(&e.key).any(handled) {
            row.faults_survived += 1;
        } else {
            let seen: Vec<String> = journal
                .with_key(&e.key)
                .map(|t| {
                    format!(
                        "{} {}",
                        t.failure.map_or("ok", |f| f.as_str()),
                        t.error.as_deref().unwrap_or("")
                    )
                })
                .collect();
            row.problems.push(format!(
                "fault {} ({:?}, attempt {}) at trial {}: not handled as expected ({} `{words}`); the journal holds {seen:?}",
                e.fault.name(),
                e.moment,
                e.attempt,
                e.index,
                kind.as_str()
            ));
        }
    }
}

/// Every trial the run reported that the journal is meant to hold must be there, as reported.
fn check_journal(row: &mut SoakRow, result: &TuneResult, journal: &JournalText) {
    if journal.broken > 0 {
        row.results_lost += journal.broken;
        row.problems
            .push(format!("{} journal line(s) do not parse", journal.broken));
    }
    for t in &result.trials {
        // Refused points never run and a failed rewriter call never reaches the evaluator: neither is
        // journaled (by design).
        if matches!(t.failure, Some(FailureKind::Invalid | FailureKind::Rewrite)) {
            continue;
        }
        // serde_json may read a float back one unit in the last place off.
        let close = |a: Option<f64>, b: Option<f64>| match (a, b) {
            (Some(a), Some(b)) => (a - b).abs() <= 1e-12 * a.abs().max(b.abs()),
            (a, b) => a == b,
        };
        let same = |j: &Trial| {
            close(j.latency_us, t.latency_us)
                && j.failure == t.failure
                && j.params == t.params
                && j.rewrites == t.rewrites
                && j.injected == t.injected
        };
        if !journal.with_key(&t.key).any(same) {
            row.results_lost += 1;
            row.problems.push(format!(
                "trial {} ({}, key {}) finished but its record is {} the journal",
                t.index,
                t.failure.map_or("ok", |f| f.as_str()),
                t.key,
                if journal.with_key(&t.key).next().is_some() {
                    "different in"
                } else {
                    "missing from"
                }
            ));
        }
    }
}

/// What write-back wrote: the lock entry and the full text of every op source.
struct Chosen {
    entry: Entry,
    sources: BTreeMap<String, String>,
}

/// Writes the best candidate back and locks it, as `tune` does.
fn write_back(
    manifest: &Manifest,
    op: &OpSpec,
    backend: &dyn backend::Backend,
    options: &TuneOptions,
    result: &TuneResult,
) -> Result<Chosen> {
    let choice = result.choice();
    crate::writeback::write(&manifest.root, &choice.patched, &result.originals)?;
    let sources = result.sources_after(&choice);
    let entries = result.lock_entries(op, backend, options, &choice, &|_, now| now);
    let entry = entries[0].clone();
    let path = Lockfile::path(&manifest.root);
    let mut lock = Lockfile::load(&path)?;
    for e in entries {
        lock.upsert(e);
    }
    lock.write(&path)?;
    Ok(Chosen { entry, sources })
}

/// Reads the lockfile and the sources back: the lock must parse and hold what the run chose, each
/// source must be the chosen text (and hash), and its tunables must read back as the chosen values.
fn check_lock_and_sources(
    row: &mut SoakRow,
    manifest: &Manifest,
    op: &OpSpec,
    soc: &crate::model::soc::Soc,
    chosen: &Chosen,
) {
    let lost = |row: &mut SoakRow, why: String| {
        row.results_lost += 1;
        row.problems.push(why);
    };
    let path = Lockfile::path(&manifest.root);
    match std::fs::read_to_string(&path)
        .map_err(|e| e.to_string())
        .and_then(|t| Lockfile::parse(&t, &path).map_err(|e| e.to_string()))
    {
        Err(e) => lost(row, format!("the lockfile cannot be read back: {e}")),
        Ok(lock) => {
            // As the lockfile's fixed float format writes it.
            let written = Lockfile {
                entries: vec![chosen.entry.clone()],
            }
            .render();
            let Some(e) = Lockfile::parse(&written, &path)
                .ok()
                .and_then(|l| l.entries.into_iter().next())
            else {
                return lost(
                    row,
                    "the run's lock entry does not render to a lockfile".into(),
                );
            };
            let e = &e;
            match lock.find(&e.name, &e.shape, &e.soc, &e.backend) {
                None => lost(row, "the lockfile lacks the op's entry".into()),
                Some(found) if found != e => lost(
                    row,
                    format!("the lockfile's entry differs from the run's choice: {found:?}"),
                ),
                Some(_) => {}
            }
        }
    }
    let mut on_disk = BTreeMap::new();
    for (file, text) in &chosen.sources {
        match std::fs::read_to_string(manifest.root.join(file)) {
            Ok(t) if &t == text => {
                on_disk.insert(file.clone(), t);
            }
            Ok(_) => lost(row, format!("{file} differs from the chosen text")),
            Err(e) => lost(row, format!("{file} cannot be read back: {e}")),
        }
    }
    if on_disk.len() == chosen.sources.len() {
        match crate::space::Space::resolve(manifest, op, soc, &on_disk) {
            Ok(space) => {
                let values: BTreeMap<String, i64> = space
                    .tunables
                    .iter()
                    .map(|t| (t.name.clone(), t.site.value))
                    .collect();
                if values != chosen.entry.params {
                    lost(
                        row,
                        format!(
                            "the sources read back give {values:?}, the lock says {:?}",
                            chosen.entry.params
                        ),
                    );
                }
            }
            Err(e) => lost(row, format!("the written-back sources do not parse: {e}")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn trial(key: &str) -> Trial {
        Trial {
            v: crate::tune::journal::VERSION,
            key: key.into(),
            op: "add".into(),
            index: 0,
            params: BTreeMap::new(),
            rewrites: vec![],
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

    fn event(key: &str, fault: Fault, moment: Option<Moment>, attempt: u8) -> Event {
        Event {
            op: "add".into(),
            index: 3,
            key: key.into(),
            fault,
            moment,
            attempt,
            fired: true,
        }
    }

    fn row() -> SoakRow {
        SoakRow {
            op: "add".into(),
            strategy: "host".into(),
            budget: 8,
            trials: 0,
            injected: BTreeMap::new(),
            faults_injected: 0,
            faults_survived: 0,
            faults_missed: 0,
            results_lost: 0,
            retried: 0,
            clean_us: None,
            faulted_us: None,
            same_best: true,
            problems: vec![],
            stopped: None,
            wall_s: 0.0,
        }
    }

    #[test]
    fn faults_count_as_survived_only_when_the_journal_shows_them_handled() {
        let mut crashed = trial("h");
        crashed.injected = Some("crash".into());
        crashed.failure = Some(FailureKind::Crash);
        crashed.error = Some("the kernel failed (killed by signal 11 (SIGSEGV, ...))".into());
        let mut retried = trial("r");
        retried.latency_us = Some(3.0);
        retried.retried = vec!["compiling was cut short (killed by signal 9 (SIGKILL))".into()];
        let mut wrong_reason = trial("w");
        wrong_reason.injected = Some("hang".into());
        wrong_reason.failure = Some(FailureKind::Crash);
        wrong_reason.error = Some("exit code 1".into());
        let journal = JournalText {
            trials: vec![crashed, retried, wrong_reason],
            broken: 0,
        };
        let events = vec![
            event("h", Fault::Crash, None, 0),
            event("r", Fault::BuildKill, Some(Moment::Build), 0),
            event("w", Fault::Hang, None, 0),
            event("gone", Fault::DiskFull, Some(Moment::Journal), 0),
            Event {
                fired: false,
                ..event("r", Fault::DiskFull, Some(Moment::Run), 1)
            },
        ];
        let mut r = row();
        count_faults(&mut r, &events, &journal);
        assert_eq!(r.faults_injected, 4);
        assert_eq!(r.faults_missed, 1);
        assert_eq!(r.faults_survived, 2, "{:?}", r.problems);
        assert_eq!(r.problems.len(), 2);
        assert!(r.problems[0].contains("fault hang"), "{}", r.problems[0]);
        assert!(
            r.problems[1].contains("fault disk-full"),
            "{}",
            r.problems[1]
        );
        assert_eq!(r.injected["crash"], 1);
    }

    #[test]
    fn a_torn_or_garbled_journal_line_counts_as_lost() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("add.jsonl");
        let good = serde_json::to_string(&trial("a")).unwrap();
        std::fs::write(&p, format!("{good}\nnot json\n{good}")).unwrap();
        let j = read_journal(&p);
        assert_eq!(j.trials.len(), 2);
        // The garbled line and the torn end (the last line parses, but nothing ended it).
        assert_eq!(j.broken, 2);
    }
}
