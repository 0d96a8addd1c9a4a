//! Where `tune` and `bench` run their per-op work: the executor is chosen here (`--executor`, else the
//! manifests' `[project] executor`), and under Slurm this is the coordinating command. It submits one job
//! per op, each running this same binary on its node in the project's checkout (on the shared file
//! system), waits with progress, streams each op's result as its job ends, and then finishes exactly as a
//! local run would:
//! - `tune`: a job searches its op and journals every trial (`tune --op OP --search-only`); the
//!   coordinator then runs the local `tune`, which finds every trial in the journals (none is measured
//!   again), writes the sources back and the lockfile, so the lock is byte for byte a local run's;
//! - `bench`: a job benchmarks its op into a folder of its own; the coordinator reads each job's
//!   `bench.json`, puts the rows together in the local order and summarises and renders them with the
//!   local code.
//!
//! Owns the job command lines and the merging; Slurm itself is `crate::executor`'s.

use crate::cli::args::{BenchArgs, Common, ExecutorArg, TuneArgs};
use crate::commands::Session;
use crate::errors::{Error, Result};
use crate::executor::{self, JobSpec, JobState, Submitted};
use crate::manifest::{ExecutorKind, Manifest};
use crate::report::Printer;
use std::ffi::OsString;
use std::path::{Path, PathBuf};

/// `tune`, on the executor chosen.
pub fn tune(common: &Common, args: &TuneArgs, printer: &Printer) -> Result<i32> {
    let local = |c: &Common| crate::commands::tune::tune(c, args, printer);
    if args.search_only {
        return local(common);
    }
    let targets = tune_targets(common, args)?;
    let kinds: Vec<(String, ExecutorKind)> = targets
        .iter()
        .filter_map(|(label, c)| {
            let s = Session::open(c).ok()?;
            Some((label.clone(), s.manifest.executor))
        })
        .collect();
    match executor::choose(args.executor.map(Into::into), &kinds)? {
        ExecutorKind::Local if args.workspace => {
            crate::commands::workspace::for_each_member(common, printer, args.op.as_deref(), local)
        }
        ExecutorKind::Local => local(common),
        ExecutorKind::Slurm => tune_on_slurm(&targets, args, printer),
    }
}

/// The projects a `tune` covers, each with its options: the members of the workspace (with `--op`, those
/// declaring it) or the one project.
fn tune_targets(common: &Common, args: &TuneArgs) -> Result<Vec<(String, Common)>> {
    if !args.workspace {
        return Ok(vec![(String::new(), common.clone())]);
    }
    let ws = crate::commands::workspace::find(common)?;
    Ok(
        crate::commands::workspace::members(&ws, args.op.as_deref())?
            .into_iter()
            .map(|m| {
                (
                    m.name.clone(),
                    crate::commands::workspace::member_common(common, &ws, m),
                )
            })
            .collect(),
    )
}

/// The binary the jobs run: this one (nodes reach it on the shared file system), or
/// `ASCEND_TUNE_SLURM_EXE`.
fn job_exe() -> Result<OsString> {
    if let Some(e) = std::env::var_os("ASCEND_TUNE_SLURM_EXE") {
        return Ok(e);
    }
    std::env::current_exe()
        .map(PathBuf::into_os_string)
        .map_err(|e| Error::Internal(format!("could not find this program's path: {e}")))
}

fn absolute(p: &Path) -> Result<PathBuf> {
    std::path::absolute(p).map_err(|e| Error::io("could not resolve", p, e))
}

/// The global flags a job repeats so it sees the project as the coordinator does.
fn common_argv(common: &Common, manifest: Option<&Path>, work: Option<&Path>) -> Vec<OsString> {
    let mut a: Vec<OsString> = vec![
        "ascend-tune".into(),
        "--message-format".into(),
        "json".into(),
    ];
    if let Some(m) = manifest {
        a.extend(["--manifest-path".into(), m.as_os_str().to_owned()]);
    }
    if let Some(w) = work {
        a.extend(["--work-dir".into(), w.as_os_str().to_owned()]);
    }
    if let Some(b) = common.backend {
        a.extend([
            "--backend".into(),
            match b {
                crate::cli::args::BackendArg::Twin => "twin",
                crate::cli::args::BackendArg::Cann => "cann",
            }
            .into(),
        ]);
    }
    if let Some(s) = &common.soc {
        a.extend(["--soc".into(), s.into()]);
    }
    a
}

/// A name Slurm and the file system both take.
fn job_name(parts: &[&str]) -> String {
    parts
        .iter()
        .filter(|p| !p.is_empty())
        .map(|p| {
            p.chars()
                .map(|c| {
                    if c.is_ascii_alphanumeric() || c == '_' || c == '.' {
                        c
                    } else {
                        '-'
                    }
                })
                .collect::<String>()
        })
        .collect::<Vec<_>>()
        .join("-")
}

/// The JSON record of `reason` in a job's standard output, if it printed one.
fn record(job: &Submitted, reason: &str) -> Option<serde_json::Value> {
    let text = std::fs::read_to_string(&job.stdout).ok()?;
    text.lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .find(|v| v["reason"] == reason)
}

fn tune_on_slurm(targets: &[(String, Common)], args: &TuneArgs, printer: &Printer) -> Result<i32> {
    let exe = job_exe()?;
    // The jobs and the final pass must batch trials alike, or the final pass would find trials the jobs
    // never ran: both get the coordinator's count.
    let jobs = args
        .jobs
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get() as u32));
    let mut specs = vec![];
    let mut job_dir = None;
    for (label, c) in targets {
        let session = Session::open(c)?;
        let ops = session.ops(args.op.as_deref())?;
        // Refuse now what the final pass would refuse, before the cluster spends anything.
        if !args.dry_run {
            let root = session.manifest.root.clone();
            let lock = crate::lockfile::Lockfile::load(&crate::lockfile::Lockfile::path(&root))?;
            let soc = crate::model::soc::lookup(session.soc_name())
                .map_or(session.soc_name().to_string(), |s| s.name.to_string());
            crate::commands::tune::refuse_unwritable(
                &root,
                &ops,
                &lock,
                &soc,
                session.backend_kind().as_str(),
                args,
            )?;
        }
        let work = absolute(&session.work)?;
        let manifest = absolute(&session.manifest.source.path)?;
        // The job scripts and logs go in the workspace's (or the project's) working folder.
        job_dir.get_or_insert_with(|| {
            if args.workspace {
                work.parent().unwrap_or(&work).join("slurm").join("tune")
            } else {
                work.join("slurm").join("tune")
            }
        });
        for op in &ops {
            let mut argv = vec![exe.clone()];
            argv.extend(common_argv(c, Some(&manifest), Some(&work)));
            argv.extend([
                "tune".into(),
                "--op".into(),
                op.name.clone().into(),
                "--search-only".into(),
                "--executor".into(),
                "local".into(),
                "--jobs".into(),
                jobs.to_string().into(),
            ]);
            if let Some(b) = args.budget {
                argv.extend(["--budget".into(), b.to_string().into()]);
            }
            if let Some(s) = &args.strategy {
                argv.extend(["--strategy".into(), s.into()]);
            }
            if let Some(s) = args.seed {
                argv.extend(["--seed".into(), s.to_string().into()]);
            }
            if let Some(t) = args.time_limit {
                argv.extend([
                    "--time-limit".into(),
                    format!("{}s", t.as_secs().max(1)).into(),
                ]);
            }
            if args.no_rewrite {
                argv.push("--no-rewrite".into());
            }
            if let Some(b) = &args.bank {
                argv.extend(["--bank".into(), absolute(b)?.into_os_string()]);
            }
            specs.push(JobSpec {
                name: job_name(&[label, &op.name]),
                argv,
                cwd: session.manifest.root.clone(),
                env: vec![],
                settings: session.manifest.slurm.clone(),
            });
        }
    }
    let Some(dir) = job_dir else {
        return Ok(crate::exit_codes::OK);
    };
    let finished = executor::run_slurm(specs, &dir, printer, |job, state| {
        report_job(printer, job, state, "op-searched", |r| {
            format!(
                "{}: {} trials, best {} (baseline {} us)",
                r["op"].as_str().unwrap_or("?"),
                r["trials"],
                r["best_latency_us"]
                    .as_f64()
                    .map_or("none".into(), |b| format!("{b} us")),
                r["baseline_latency_us"]
            )
        })
    })?;
    let failed: Vec<&(Submitted, JobState)> = finished
        .iter()
        .filter(|(_, s)| *s != JobState::Completed)
        .collect();
    // Finish every project whose jobs all ended well, in the local order, with the local code: the
    // trials are journal hits now.
    let mut final_args = args.clone();
    final_args.executor = Some(ExecutorArg::Local);
    final_args.jobs = Some(jobs);
    let mut code = crate::exit_codes::OK;
    for (label, c) in targets {
        let session = Session::open(c)?;
        let ops = session.ops(args.op.as_deref())?;
        let ok_ops: Vec<&str> = ops
            .iter()
            .filter(|op| {
                let name = job_name(&[label, &op.name]);
                !failed.iter().any(|(j, _)| j.spec.name == name)
            })
            .map(|op| op.name.as_str())
            .collect();
        if ok_ops.is_empty() {
            continue;
        }
        if args.workspace {
            printer.status(
                "Member",
                format!("{label} ({})", session.manifest.root.display()),
            );
        }
        let runs: Vec<Option<String>> = if ok_ops.len() == ops.len() {
            vec![args.op.clone()]
        } else {
            ok_ops.iter().map(|o| Some(o.to_string())).collect()
        };
        for op in runs {
            final_args.op = op;
            crate::commands::workspace::keep_first_failure(
                &mut code,
                crate::commands::tune::tune(c, &final_args, printer),
                printer,
            );
        }
    }
    if !failed.is_empty() {
        let lines: Vec<String> = failed
            .iter()
            .map(|(j, s)| executor::describe_failure(j, s))
            .collect();
        return Err(Error::NoValidCandidate(format!(
            "{} of {} Slurm job(s) did not finish; their ops are not written back or locked:\n  {}\nthe trials they finished are in their journals: run the same command again to resume them",
            failed.len(),
            finished.len(),
            lines.join("\n  ")
        )));
    }
    Ok(code)
}

/// Prints a job's end: its result (the record `reason` from its output, summarised by `summary`) or why
/// it failed.
fn report_job(
    printer: &Printer,
    job: &Submitted,
    state: &JobState,
    reason: &str,
    summary: impl Fn(&serde_json::Value) -> String,
) {
    match state {
        JobState::Completed => match record(job, reason) {
            Some(r) => {
                if printer.json() {
                    println!(
                        "{}",
                        serde_json::json!({"reason": "job-finished", "job": job.id, "name": job.spec.name, "result": r})
                    );
                } else {
                    printer.status("Finished", format!("job {} {}", job.id, summary(&r)));
                }
            }
            None => printer.status(
                "Finished",
                format!(
                    "job {} ({}); log {}",
                    job.id,
                    job.spec.name,
                    job.stdout.display()
                ),
            ),
        },
        _ => printer.warn(executor::describe_failure(job, state)),
    }
}

/// `bench`, on the executor chosen.
pub fn bench(common: &Common, args: &BenchArgs, printer: &Printer) -> Result<i32> {
    let suite = crate::commands::bench::suite_of(args);
    let kind = match args.executor {
        Some(e) => e.into(),
        None => {
            let kinds: Vec<(String, ExecutorKind)> = crate::bench::projects(&suite)
                .unwrap_or_default()
                .iter()
                .filter_map(|p| {
                    let m = Manifest::load(&p.join(crate::manifest::FILE_NAME)).ok()?;
                    Some((p.display().to_string(), m.executor))
                })
                .collect();
            executor::choose(None, &kinds)?
        }
    };
    match kind {
        ExecutorKind::Local => crate::commands::bench::bench(common, args, printer),
        ExecutorKind::Slurm => bench_on_slurm(common, &suite, args, printer),
    }
}

fn bench_on_slurm(
    common: &Common,
    suite: &[PathBuf],
    args: &BenchArgs,
    printer: &Printer,
) -> Result<i32> {
    if args.inject_faults.is_some() {
        return Err(Error::bad_input(
            "the soak test (--inject-faults) runs locally only",
            Some("drop --executor slurm, or --inject-faults".into()),
        ));
    }
    for s in &args.strategies {
        crate::search::by_name(s, 1)?;
    }
    let exe = job_exe()?;
    let out = absolute(&crate::commands::bench::out_of(args)?)?;
    let jobs = args
        .jobs
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    let join = |v: Vec<String>| v.join(",");
    // Jobs in the order the local run takes: projects in suite order, ops in manifest order.
    let mut specs = vec![];
    let mut outs = vec![];
    for project in crate::bench::projects(suite)? {
        let project = absolute(&project)?;
        let manifest = Manifest::load(&project.join(crate::manifest::FILE_NAME))?;
        let pname = project
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        for op in &manifest.ops {
            if args
                .ops
                .as_ref()
                .is_some_and(|only| !only.contains(&op.name))
            {
                continue;
            }
            let name = job_name(&[&pname, &op.name]);
            let job_out = out.join("slurm").join(&name);
            let mut argv = vec![exe.clone()];
            argv.extend(common_argv(common, None, None));
            argv.extend([
                "bench".into(),
                project.clone().into_os_string(),
                "--executor".into(),
                "local".into(),
                "--ops".into(),
                op.name.clone().into(),
                "--budget".into(),
                join(args.budget.iter().map(|b| b.to_string()).collect()).into(),
                "--strategies".into(),
                join(args.strategies.clone()).into(),
                "--seed".into(),
                args.seed.to_string().into(),
                "--jobs".into(),
                jobs.to_string().into(),
                "--out".into(),
                job_out.clone().into_os_string(),
            ]);
            if args.leave_one_out {
                argv.push("--leave-one-out".into());
            }
            if let Some(b) = &args.bank {
                argv.extend(["--bank".into(), absolute(b)?.into_os_string()]);
            }
            specs.push(JobSpec {
                name,
                argv,
                cwd: project.clone(),
                env: vec![],
                settings: manifest.slurm.clone(),
            });
            outs.push(job_out);
        }
    }
    if specs.is_empty() {
        return Err(Error::bad_input(
            "no op of the suite matches --ops",
            Some("name ops that the suite's manifests declare".into()),
        ));
    }
    let finished = executor::run_slurm(specs, &out.join("slurm"), printer, |job, state| {
        report_job(printer, job, state, "bench-finished", |r| {
            let s = &r["summary"];
            format!(
                "{}: {}",
                job.spec.name,
                s.as_array()
                    .map(|rows| rows
                        .iter()
                        .map(|row| format!(
                            "{} budget {}: {:.2}x",
                            row["strategy"].as_str().unwrap_or("?"),
                            row["budget"],
                            row["geomean_speedup"].as_f64().unwrap_or(f64::NAN)
                        ))
                        .collect::<Vec<_>>()
                        .join(", "))
                    .unwrap_or_default()
            )
        })
    })?;
    let failed: Vec<String> = finished
        .iter()
        .filter(|(_, s)| *s != JobState::Completed)
        .map(|(j, s)| executor::describe_failure(j, s))
        .collect();
    if !failed.is_empty() {
        return Err(Error::NoValidCandidate(format!(
            "{} of {} Slurm job(s) did not finish, so the benchmark is incomplete:\n  {}",
            failed.len(),
            finished.len(),
            failed.join("\n  ")
        )));
    }
    let report = merge_bench(&outs, args)?;
    crate::commands::bench::finish(&report, &out, args, printer)
}

/// One benchmark from the jobs' `bench.json` files, in the order given (the local run's), summarised by
/// the local code.
fn merge_bench(outs: &[PathBuf], args: &BenchArgs) -> Result<crate::bench::BenchReport> {
    #[derive(serde::Deserialize)]
    struct JobReport {
        tool: String,
        backend: String,
        soc: String,
        modelled: bool,
        ops: Vec<crate::bench::OpRow>,
        op_info: Vec<crate::bench::OpInfo>,
    }
    let (mut rows, mut infos) = (vec![], vec![]);
    let mut head = None;
    for dir in outs {
        let path = dir.join("bench.json");
        let text = crate::fsx::read_to_string(&path)?;
        let r: JobReport = serde_json::from_str(&text).map_err(|e| {
            Error::Internal(format!(
                "{}: not a bench.json this tool reads: {e}",
                path.display()
            ))
        })?;
        rows.extend(r.ops);
        infos.extend(r.op_info);
        head = Some((r.tool, r.backend, r.soc, r.modelled));
    }
    let (tool, backend, soc, modelled) = head.unwrap_or_default();
    Ok(crate::bench::BenchReport {
        tool,
        backend,
        soc,
        modelled,
        seed: args.seed,
        budgets: args.budget.clone(),
        strategies: args.strategies.clone(),
        summary: crate::bench::summarise(&rows, &args.strategies, &args.budget),
        ops: rows,
        op_info: infos,
        soak: None,
        pipeline: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn job_names_are_safe_words() {
        assert_eq!(job_name(&["", "add_custom"]), "add_custom");
        assert_eq!(job_name(&["my op", "x/y"]), "my-op-x-y");
    }
}
