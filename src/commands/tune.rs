//! `tune`: for each op, search, then write the best verified candidate back into the sources and record
//! it in `ascend-tune.lock`. With `--dry-run` nothing is written and the diff is printed instead.

use super::Session;
use crate::bank::Bank;
use crate::cli::args::{Common, TuneArgs};
use crate::errors::{Error, Result};
use crate::exit_codes;
use crate::lockfile::Lockfile;
use crate::report::{Printer, Progress};
use crate::tune::{TuneOptions, tune_op};
use std::collections::BTreeMap;
use std::sync::Arc;

pub const DEFAULT_BUDGET: u32 = 32;

pub fn tune(common: &Common, args: &TuneArgs, printer: &Printer) -> Result<i32> {
    let session = Session::open(common)?;
    let ops = session.ops(args.op.as_deref())?;
    // One tuner per project: the journal, the sources and the lockfile have one writer at a time. A
    // search-only run (a Slurm job) writes only its op's journal, so it locks that op alone and jobs of
    // one project's ops run side by side.
    let _project_lock = match (&args.search_only, &args.op) {
        (true, Some(op)) => take_project_lock(&session.work.join("ops").join(op), "tune", printer)?,
        (true, None) => {
            return Err(Error::bad_input(
                "--search-only tunes one op",
                Some("pass --op NAME".into()),
            ));
        }
        (false, _) => take_project_lock(&session.work, "tune", printer)?,
    };
    let root = session.manifest.root.clone();
    let lock_path = Lockfile::path(&root);
    let mut lock = Lockfile::load(&lock_path)?;
    // Each op's options, flags over manifest over defaults; strategies are checked before anything is built.
    let bank = Arc::new(Bank::chosen(args.bank.as_deref(), Some(&root))?);
    let options: Vec<TuneOptions> = ops
        .iter()
        .map(|op| options_of(args, op, bank.clone()))
        .collect();
    for opts in &options {
        crate::search::by_name(&opts.strategy, 1)?;
    }
    let backend = session.backend()?;
    let soc = backend.soc();
    let backend_name = backend.kind().as_str();

    // Refuse before searching, not after: nobody should wait for a run whose result cannot be written.
    if !args.dry_run && !args.search_only {
        refuse_unwritable(&root, &ops, &lock, soc.name, backend_name, args)?;
    }

    let mut no_valid = vec![];
    let mut locked_any = false;
    for (op, opts) in ops.iter().zip(options) {
        if op.tunables.is_empty() && opts.strategy != "loop" {
            printer.warn(format!(
                "op `{}` declares no [[op.tunable]]: the {} search has nothing to vary, so only the sources as they are are measured and locked",
                op.name, opts.strategy
            ));
        }
        if let Some(note) = op.unverified_note() {
            printer.warn(note);
        }
        let mut progress = Progress::new(printer);
        let started = std::time::Instant::now();
        let result = tune_op(
            &session.manifest,
            op,
            backend.clone(),
            &session.work,
            &opts,
            &mut progress,
        );
        progress.finish();
        let result = result?;
        crate::tune::last_run::LastRun::of(
            &result,
            &opts,
            backend_name,
            soc.name,
            started.elapsed().as_secs_f64(),
        )
        .write(&session.work)?;
        if args.search_only {
            searched(printer, &result);
            continue;
        }
        let failures = result
            .trials
            .iter()
            .filter(|t| t.latency_us.is_none())
            .count();
        // An op without tunables whose loop found no rewrite to try ran no trial at all: that is not a
        // failure, the sources as they are are the result and are locked. With tunables, no trial
        // means no point of the space was valid.
        if result.best.is_none() && !(result.trials.is_empty() && op.tunables.is_empty()) {
            let mut reasons: BTreeMap<&str, usize> = BTreeMap::new();
            for t in &result.trials {
                *reasons
                    .entry(t.failure.map(|f| f.as_str()).unwrap_or("unknown"))
                    .or_default() += 1;
            }
            let reasons: Vec<String> = reasons.iter().map(|(k, v)| format!("{v} {k}")).collect();
            printer.warn(format!("op `{}`: none of {} trials gave a valid candidate ({}); the sources are left as they are", op.name, result.trials.len(), reasons.join(", ")));
            no_valid.push(op.name.clone());
            continue;
        }
        let modelled = result.baseline.modelled;
        let choice = result.choice();
        if !choice.improved {
            printer.status(
                "Kept",
                format!(
                    "{}: no candidate beat the current sources by more than the {}% noise floor",
                    op.name,
                    result.noise_floor * 100.0
                ),
            );
        }
        // Re-tuning sources that an earlier run wrote keeps that run's baseline and its rewrites (they
        // are in the sources now): the lock records how far the op has come, and by which rewrites,
        // from the sources tuning started from. Each shape keeps its own entry's baseline.
        let unlisted_ok = crate::tune::header_sources(op, &result.originals);
        let current = |shape: &crate::manifest::OpSpec| {
            lock.find(&op.name, &shape.shape_key(), soc.name, backend_name)
                .filter(|e| e.stale_sources(&result.originals, &unlisted_ok).is_empty())
                .cloned()
        };
        let mut choice = choice;
        if let Some(e) = current(op) {
            choice.rewrites = [e.rewrites.clone(), choice.rewrites].concat();
        }
        let baseline_of = |shape: &crate::manifest::OpSpec, now: f64| {
            current(shape).map_or(now, |e| e.baseline_latency_us)
        };
        let entries = result.lock_entries(op, backend.as_ref(), &opts, &choice, &baseline_of);
        // The baseline shown is the objective's: the weighted geometric mean over the shapes.
        let baseline = crate::tune::probes::weighted_geomean(
            &op.cases()
                .iter()
                .zip(&entries)
                .map(|((_, w, _), e)| (*w, e.baseline_latency_us))
                .collect::<Vec<_>>(),
        );
        printer.op_tuned(
            &op.name,
            baseline,
            choice.latency_us,
            result.trials.len(),
            failures,
            &choice.params,
            modelled,
        );
        if args.dry_run {
            for (file, new) in &choice.patched {
                if let Some(old) = result.originals.get(file).filter(|old| *old != new) {
                    print!("{}", crate::writeback::diff(file, old, new));
                }
            }
            continue;
        }
        let written = crate::writeback::write(&root, &choice.patched, &result.originals)?;
        for f in &written {
            if crate::tune::is_shared_header(op, f) {
                printer.status(
                    "Rewrote",
                    format!("{f} (a shared header: the other operators that include it change too; tune or check them)"),
                );
            } else {
                printer.status("Rewrote", f);
            }
        }
        locked_any = true;
        for e in entries {
            lock.upsert(e);
        }
    }
    if locked_any && lock.write(&lock_path)? {
        printer.status("Wrote", lock_path.display().to_string());
    }
    if !no_valid.is_empty() {
        return Err(Error::NoValidCandidate(format!(
            "no valid candidate for {}",
            no_valid.join(", ")
        )));
    }
    Ok(exit_codes::OK)
}

/// Refuses, before any search, sources that `tune` may not overwrite (uncommitted changes that an earlier
/// tune did not write, no version control): the same test the write-back makes, made early.
pub fn refuse_unwritable(
    root: &std::path::Path,
    ops: &[crate::manifest::OpSpec],
    lock: &Lockfile,
    soc: &str,
    backend_name: &str,
    args: &TuneArgs,
) -> Result<()> {
    for op in ops {
        // Kernel rewrites touch kernel files; parameters touch the tunables' files.
        let files: Vec<&String> = op
            .sources()
            .chain(op.tunables.iter().map(|t| &t.file))
            .collect();
        let ours = lock
            .find(&op.name, &op.shape_key(), soc, backend_name)
            .map(|e| e.sources.clone())
            .unwrap_or_default();
        crate::writeback::guard(root, &files, &ours, args.allow_dirty, args.allow_no_vcs)?;
    }
    Ok(())
}

/// What a search-only run (a Slurm job) tells its coordinator: the op's trials are in its journal.
fn searched(printer: &Printer, result: &crate::tune::TuneResult) {
    let best = result.best.as_ref().and_then(|b| b.trial.latency_us);
    let ok = result
        .trials
        .iter()
        .filter(|t| t.latency_us.is_some())
        .count();
    if printer.json() {
        println!(
            "{}",
            serde_json::json!({
                "reason": "op-searched",
                "op": result.op,
                "baseline_latency_us": crate::report::round(result.baseline.latency_us),
                "best_latency_us": best.map(crate::report::round),
                "trials": result.trials.len(),
                "valid": ok,
                "journal_hits": result.journal_hits,
            })
        );
    } else {
        printer.status(
            "Searched",
            format!(
                "{}: {} trials ({} valid), best {} (baseline {:.3} us); the trials are in the journal",
                result.op,
                result.trials.len(),
                ok,
                best.map_or("none".to_string(), |b| format!("{b:.3} us")),
                result.baseline.latency_us
            ),
        );
    }
}

/// Takes the project's run lock (see `project_lock`), warning when a killed run left it behind.
pub fn take_project_lock(
    work: &std::path::Path,
    command: &str,
    printer: &Printer,
) -> Result<crate::project_lock::ProjectLock> {
    let taken = crate::project_lock::ProjectLock::acquire(work, command)?;
    if let Some(stale) = &taken.stale {
        printer.warn(format!(
            "taking over the lock {} left by a run that ended without releasing it ({stale})",
            taken.lock.file_path().display()
        ));
    }
    Ok(taken.lock)
}

/// How many turns an external rewriter gets in one tune when the manifest does not say.
pub const DEFAULT_REWRITER_ATTEMPTS: u32 = 2;

fn options_of(args: &TuneArgs, op: &crate::manifest::OpSpec, bank: Arc<Bank>) -> TuneOptions {
    let strategy = args
        .strategy
        .clone()
        .or_else(|| op.tune.strategy.clone())
        .unwrap_or_else(|| crate::search::DEFAULT_STRATEGY.to_string());
    TuneOptions {
        budget: args.budget.or(op.tune.budget).unwrap_or(DEFAULT_BUDGET) as usize,
        // `--no-rewrite` keeps the host search of `loop` and drops its kernel phase.
        strategy: if args.no_rewrite && strategy == "loop" {
            "host".to_string()
        } else {
            strategy
        },
        seed: args.seed.or(op.tune.seed).unwrap_or(0),
        jobs: args
            .jobs
            .map(|j| j as usize)
            .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get())),
        time_limit: args.time_limit,
        bank,
        rewriter: op.tune.rewriter.clone(),
        rewriter_attempts: op
            .tune
            .rewriter_attempts
            .unwrap_or(DEFAULT_REWRITER_ATTEMPTS),
        faults: None,
        noise_floor_pct: args.noise_floor,
    }
}
