//! `bench`: the benchmark over a suite of operator projects; writes bench.json, bench.md and SVG pictures.

use crate::bench::{self, BenchOptions};
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
    let suite = if args.suite.is_empty() {
        let local = PathBuf::from("fixtures");
        let bundled = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("fixtures");
        vec![if local.is_dir() { local } else { bundled }]
    } else {
        args.suite.clone()
    };
    let cwd = std::env::current_dir().map_err(|e| Error::io("could not read", ".", e))?;
    let out = args
        .out
        .clone()
        .unwrap_or_else(|| cwd.join("target/ascend-tune/bench"));
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
    };
    let report = bench::run(&opts, &mut |row| {
        let tuned = row
            .tuned_us
            .map(|t| format!("{t:.3} us ({:.2}x)", row.baseline_us / t))
            .unwrap_or_else(|| "no valid candidate".into());
        printer.status(
            "Benched",
            format!(
                "{} {} budget {}: {tuned} in {:.1}s",
                row.op, row.strategy, row.budget, row.wall_s
            ),
        );
    })?;
    let files = bench::render::write_all(&report, &out)?;
    if printer.json() {
        println!(
            "{}",
            serde_json::json!({"reason": "bench-finished", "out": out, "summary": report.summary})
        );
    } else {
        print!(
            "{}",
            bench::render::markdown(&report)
                .split("## Operators")
                .next()
                .unwrap_or_default()
        );
        for f in files {
            printer.status("Wrote", f.display().to_string());
        }
    }
    if let Some(readme) = &args.update_readme {
        let text = crate::fsx::read_to_string(readme)?;
        let updated = bench::render::readme_section(&text, &report, &command_line())
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
