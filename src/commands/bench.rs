//! `bench`: the benchmark over a suite of operator projects; writes bench.json, bench.md and SVG pictures.

use crate::backend::faults::{Fault, FaultPlan};
use crate::bench::{self, BenchOptions, Progress, soak::SoakOptions};
use crate::cli::args::{BenchArgs, Common};
use crate::errors::{Error, Result};
use crate::report::Printer;
use std::path::PathBuf;

pub fn bench(common: &Common, args: &BenchArgs, printer: &Printer) -> Result<i32> {
    for s in &args.strategies {
        crate::search::by_name(s, 1)?;
    }
    if args.budget.contains(&0) {
        return Err(Error::bad_input(
            "a budget of 0 trials tunes nothing",
            Some("give budgets of at least 1, e.g. --budget 16,32".into()),
        ));
    }
    let soak = soak_options(args)?;
    if soak
        .as_ref()
        .is_some_and(|s| s.kinds.contains(&Fault::Hang))
        && std::env::var_os("ASCEND_TUNE_RUN_TIMEOUT").is_none()
    {
        printer.warn(
            "each injected hang waits out the run timeout (120 s by default); set ASCEND_TUNE_RUN_TIMEOUT=5 for a quicker soak",
        );
    }
    let suite = suite_of(args);
    let out = out_of(args)?;
    let opts = BenchOptions {
        suite,
        ops: args.ops.clone(),
        budgets: args.budget.clone(),
        strategies: args.strategies.clone(),
        seed: args.seed,
        jobs: args
            .jobs
            .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get())),
        out: out.clone(),
        soc: common.soc.clone(),
        bank: std::sync::Arc::new(crate::bank::Bank::chosen(args.bank.as_deref(), None)?),
        leave_one_out: args.leave_one_out,
        soak,
        noise_floor_pct: args.noise_floor,
    };
    let report = bench::run(&opts, &mut |p| match p {
        Progress::Tuned(row) => {
            let tuned = row
                .tuned_us
                .map(|t| format!("{t:.3} us ({:.2}x)", row.baseline_us / t))
                .unwrap_or_else(|| "no valid candidate".into());
            let p = &row.probes;
            let rejected: usize = p.rejected.values().sum();
            let tuned = format!(
                "{tuned}; probes {} live, {} left out, {rejected} trials rejected, written-back change failed {} of {}",
                p.live.len(),
                p.dropped.len(),
                p.written_back_failed.len(),
                p.written_back_checked
            );
            printer.status(
                "Benched",
                format!(
                    "{} {} budget {}: {tuned} in {:.1}s",
                    row.op, row.strategy, row.budget, row.wall_s
                ),
            );
        }
        Progress::Soaked(row) => {
            printer.status(
                "Soaked",
                format!(
                    "{} {} budget {}: {} trials, {} faults injected, {} survived, {} results lost{} in {:.1}s",
                    row.op,
                    row.strategy,
                    row.budget,
                    row.trials,
                    row.faults_injected,
                    row.faults_survived,
                    row.results_lost,
                    if row.same_best { ", same best" } else { ", best differs" },
                    row.wall_s
                ),
            );
            for p in &row.problems {
                printer.warn(format!("soak {} {}: {p}", row.op, row.strategy));
            }
            if let Some(e) = &row.stopped {
                printer.warn(format!(
                    "soak {} {}: the run stopped: {e}",
                    row.op, row.strategy
                ));
            }
        }
    })?;
    finish(&report, &out, args, printer)
}

/// The suite folders a bench covers: those given, else `fixtures/` here or the bundled ones.
pub fn suite_of(args: &BenchArgs) -> Vec<PathBuf> {
    if args.suite.is_empty() {
        let local = PathBuf::from("fixtures");
        let bundled = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("fixtures");
        vec![if local.is_dir() { local } else { bundled }]
    } else {
        args.suite.clone()
    }
}

/// The output folder: `--out`, else `target/ascend-tune/bench/` of the current folder.
pub fn out_of(args: &BenchArgs) -> Result<PathBuf> {
    let cwd = std::env::current_dir().map_err(|e| Error::io("could not read", ".", e))?;
    Ok(args
        .out
        .clone()
        .unwrap_or_else(|| cwd.join("target/ascend-tune/bench")))
}

/// Writes and prints a finished benchmark (however its ops were run) and updates the README table.
pub fn finish(
    report: &bench::BenchReport,
    out: &std::path::Path,
    args: &BenchArgs,
    printer: &Printer,
) -> Result<i32> {
    let files = bench::render::write_all(report, out)?;
    if printer.json() {
        println!(
            "{}",
            serde_json::json!({"reason": "bench-finished", "out": out, "summary": report.summary, "soak": report.soak})
        );
    } else {
        print!(
            "{}",
            bench::render::markdown(report)
                .split("## Operators")
                .next()
                .unwrap_or_default()
        );
        if let Some(soak) = &report.soak {
            print!("## Soak\n\n{}\n", bench::render::soak_table(soak));
        }
        for f in files {
            printer.status("Wrote", f.display().to_string());
        }
    }
    if let Some(readme) = &args.update_readme {
        let text = crate::fsx::read_to_string(readme)?;
        let updated = bench::render::readme_section(&text, report, &command_line())
            .ok_or_else(|| {
                Error::bad_input(
                    format!("{} has no bench table markers", readme.display()),
                    Some("add the lines `<!-- bench-table:start -->` and `<!-- bench-table:end -->` where the table goes".into()),
                )
            })?;
        crate::fsx::write_atomic(readme, updated.as_bytes())?;
        printer.status("Updated", readme.display().to_string());
    }
    Ok(crate::exit_codes::OK)
}

/// The soak test's options from `--inject-faults`, `--fault-seed` and `--faults`, checked.
fn soak_options(args: &BenchArgs) -> Result<Option<SoakOptions>> {
    let Some(rate) = args.inject_faults else {
        if args.faults.is_some() || args.fault_seed.is_some() {
            return Err(Error::bad_input(
                "`--faults` and `--fault-seed` choose what `--inject-faults` injects, which is not given",
                Some("add `--inject-faults RATE`, e.g. `--inject-faults 0.2`".into()),
            ));
        }
        return Ok(None);
    };
    let kinds = match &args.faults {
        None => FaultPlan::default_kinds(),
        Some(names) => names
            .iter()
            .map(|n| {
                Fault::parse(n.trim()).ok_or_else(|| {
                    let known: Vec<&str> = Fault::ALL.iter().map(|f| f.name()).collect();
                    Error::bad_input(
                        format!("unknown fault kind `{n}` in --faults"),
                        Some(format!("use some of: {}", known.join(", "))),
                    )
                })
            })
            .collect::<Result<Vec<_>>>()?,
    };
    let seed = args.fault_seed.unwrap_or(args.seed);
    // The same checks the plan makes, before anything is built.
    FaultPlan::new(rate, seed, kinds.clone()).map_err(|e| {
        Error::bad_input(
            format!("--inject-faults: {e}"),
            Some("e.g. `--inject-faults 0.2 --faults crash,hang,build-kill`".into()),
        )
    })?;
    Ok(Some(SoakOptions { rate, seed, kinds }))
}

/// The command line as a user would type it, without `--update-readme FILE`.
fn command_line() -> String {
    let mut words = vec!["cargo".to_string(), "ascend-tune".to_string()];
    let mut args = std::env::args().skip(1).peekable();
    if args.peek().is_some_and(|a| a == "ascend-tune") {
        args.next();
    }
    while let Some(a) = args.next() {
        if a == "--update-readme" {
            args.next();
        } else if !a.starts_with("--update-readme=") {
            words.push(a);
        }
    }
    words.join(" ")
}
