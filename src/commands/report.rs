//! `report`: what the last tuning run of each op did, from its run record: the result, failures by
//! reason, the kernel rewrites tried and what came of each, every trial, and a convergence picture.
//! Writes `report.md` and `convergence.svg` under `target/ascend-tune/report/<op>/` (or `--out`).

use super::Session;
use crate::cli::args::{Common, ReportArgs};
use crate::errors::Result;
use crate::exit_codes;
use crate::report::{Printer, provenance};
use crate::tune::last_run::LastRun;
use serde_json::json;
use std::collections::BTreeMap;
use std::fmt::Write;

pub fn report(common: &Common, args: &ReportArgs, printer: &Printer) -> Result<i32> {
    let session = Session::open(common)?;
    let ops = session.ops(args.op.as_deref())?;
    for op in &ops {
        let run = LastRun::read(&session.work, &op.name)?;
        let out = args
            .out
            .clone()
            .unwrap_or_else(|| session.work.join("report"))
            .join(&op.name);
        crate::fsx::create_dir_all(&out)?;
        let md = markdown(&run);
        crate::fsx::write_atomic(&out.join("report.md"), md.as_bytes())?;
        crate::fsx::write_atomic(&out.join("convergence.svg"), convergence(&run).as_bytes())?;
        if printer.json() {
            println!(
                "{}",
                json!({"reason": "op-report", "op": run.op, "strategy": run.strategy,
                       "baseline_latency_us": run.baseline_us, "latency_us": run.best_us,
                       "trials": run.trials.len(), "failures": failures(&run),
                       "rewrites": run.best_rewrites, "modelled": run.modelled,
                       "files": [out.join("report.md"), out.join("convergence.svg")]})
            );
        } else {
            print!("{md}");
            printer.status("Wrote", out.display().to_string());
        }
    }
    Ok(exit_codes::OK)
}

fn failures(run: &LastRun) -> BTreeMap<String, usize> {
    let mut out = BTreeMap::new();
    for t in &run.trials {
        if t.latency_us.is_none() {
            let kind = t.failure.map_or("unknown", |f| f.as_str());
            *out.entry(kind.to_string()).or_insert(0) += 1;
        }
    }
    out
}

fn markdown(run: &LastRun) -> String {
    let kind = provenance(run.modelled);
    let mut s = format!(
        "# Tuning report: {}\n\nStrategy `{}`, budget {}, seed {}, on {} ({}); latencies are **{kind}**.\n\n",
        run.op, run.strategy, run.budget, run.seed, run.soc, run.backend
    );
    match run.best_us {
        Some(best) => {
            let _ = writeln!(
                s,
                "| baseline | best | speedup | trials | failed | builds (cached) | journal hits | wall |\n|---|---|---|---|---|---|---|---|\n| {:.3} us | {best:.3} us | {:.2}x | {} | {} | {} ({}) | {} | {:.1} s |\n",
                run.baseline_us,
                run.baseline_us / best,
                run.trials.len(),
                run.trials.iter().filter(|t| t.latency_us.is_none()).count(),
                run.builds,
                run.build_cache_hits,
                run.journal_hits,
                run.wall_s
            );
            let params: Vec<String> = run
                .best_params
                .iter()
                .map(|(k, v)| format!("{k}={v}"))
                .collect();
            let _ = writeln!(
                s,
                "Best: {}; rewrites: {}.\n",
                params.join(" "),
                if run.best_rewrites.is_empty() {
                    "none".to_string()
                } else {
                    run.best_rewrites.join(", ")
                }
            );
        }
        None => {
            let _ = writeln!(
                s,
                "No trial gave a valid candidate (baseline {:.3} us).\n",
                run.baseline_us
            );
        }
    }
    let f = failures(run);
    if !f.is_empty() {
        s.push_str("## Failures by reason\n\n| reason | trials |\n|---|---|\n");
        for (k, n) in &f {
            let _ = writeln!(s, "| {k} | {n} |");
        }
        s.push('\n');
    }
    if !run.rewrites_tried.is_empty() {
        s.push_str("## Kernel rewrites tried\n\n| rewrite | outcome |\n|---|---|\n");
        for (r, o) in &run.rewrites_tried {
            let _ = writeln!(s, "| {r} | {o} |");
        }
        s.push('\n');
    }
    s.push_str(
        "## Trials\n\n| # | params | rewrites | latency (us) or failure |\n|---|---|---|---|\n",
    );
    for (i, t) in run.trials.iter().enumerate() {
        let params: Vec<String> = t.params.iter().map(|(k, v)| format!("{k}={v}")).collect();
        let outcome = match t.latency_us {
            Some(l) => format!("{l:.3}"),
            None => format!(
                "{}: {}",
                t.failure.map_or("failed", |f| f.as_str()),
                t.error
                    .as_deref()
                    .unwrap_or("")
                    .lines()
                    .next()
                    .unwrap_or("")
                    .replace('|', "\\|")
            ),
        };
        let _ = writeln!(
            s,
            "| {} | {} | {} | {outcome} |",
            i + 1,
            params.join(" "),
            t.rewrites.join(", ")
        );
    }
    s.push_str("\n![convergence](convergence.svg)\n");
    s
}

fn convergence(run: &LastRun) -> String {
    let mut best = run.baseline_us;
    let pts: Vec<f64> = run
        .trials
        .iter()
        .map(|t| {
            if let Some(l) = t.latency_us {
                best = best.min(l);
            }
            best / run.baseline_us
        })
        .collect();
    crate::bench::render::curves_svg(
        &format!(
            "{}: best latency vs trials ({}, {})",
            run.op,
            run.strategy,
            provenance(run.modelled)
        ),
        pts.len(),
        &[(run.strategy.clone(), pts)],
    )
}
