//! What the user sees: human text, or one JSON object per line with a `reason` field (as cargo does) for
//! `--message-format json`, plus the progress bar while tuning. Results go to stdout, status and progress
//! to stderr. Every latency from the twin is labelled as modelled. Knows nothing of how results are made.

pub mod check;
pub mod junit;

use crate::backend::Measurement;
use crate::errors::Error;
use crate::tune::journal::Trial;
use serde_json::{Value, json};
use std::io::IsTerminal;

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum MessageFormat {
    Human,
    Json,
}

pub struct Printer {
    pub format: MessageFormat,
    pub quiet: bool,
    pub verbose: u8,
    pub color: bool,
}

/// "modelled" for the twin, "measured" for hardware: every figure says which it is.
pub fn provenance(modelled: bool) -> &'static str {
    if modelled { "modelled" } else { "measured" }
}

impl Printer {
    pub fn json(&self) -> bool {
        self.format == MessageFormat::Json
    }

    fn emit(&self, v: Value) {
        println!("{v}");
    }

    /// A status line on stderr, in the style of cargo's ("   Tuning add_custom ...").
    pub fn status(&self, verb: &str, message: impl AsRef<str>) {
        if self.quiet || self.json() {
            return;
        }
        if self.color {
            eprintln!("\x1b[1;32m{verb:>12}\x1b[0m {}", message.as_ref());
        } else {
            eprintln!("{verb:>12} {}", message.as_ref());
        }
    }

    pub fn warn(&self, message: impl AsRef<str>) {
        if self.json() {
            self.emit(json!({"reason": "warning", "message": message.as_ref()}));
        } else if self.color {
            eprintln!("\x1b[1;33mwarning\x1b[0m: {}", message.as_ref());
        } else {
            eprintln!("warning: {}", message.as_ref());
        }
    }

    pub fn pipes_json(m: &Measurement) -> Value {
        let mut pipes = serde_json::Map::new();
        for p in &m.timing.pipes {
            pipes.insert(p.name.to_string(), json!(round(p.ratio)));
            pipes.insert(
                p.name.replace("_ratio", "_time_us"),
                json!(round(p.busy_us)),
            );
        }
        Value::Object(pipes)
    }

    /// How long building and running one op took on this machine (wall clock, not a latency of the op).
    pub fn op_timings(&self, op: &str, t: &crate::tune::evaluate::BaselineTimings) {
        let (build, cached, run) = (t.build, t.cached, t.run);
        if self.json() {
            self.emit(json!({
                "reason": "op-timings", "op": op, "build_s": round(build.as_secs_f64()),
                "build_cached": cached, "run_s": round(run.as_secs_f64()),
            }));
            return;
        }
        self.status(
            "Timings",
            format!(
                "{op}: build {:.2} s{}, run {:.2} s (wall clock on this machine)",
                build.as_secs_f64(),
                if cached {
                    " (from the build cache)"
                } else {
                    ""
                },
                run.as_secs_f64()
            ),
        );
    }

    pub fn op_measured(&self, op: &str, m: &Measurement, backend: &str, soc: &str) {
        if self.json() {
            self.emit(json!({
                "reason": "op-measured", "op": op, "latency_us": round(m.latency_us), "modelled": m.modelled,
                "block_dim": m.block_dim, "pipes": Self::pipes_json(m), "bound": m.timing.bound.to_string(),
                "roofline_us": round(m.timing.roofline_us), "gm_bytes": m.timing.gm_bytes,
                "backend": backend, "soc": soc,
            }));
            return;
        }
        println!(
            "{op}: {:.3} us {} on {soc} ({backend} backend), block_dim {}",
            m.latency_us,
            provenance(m.modelled),
            m.block_dim
        );
        println!("  bound: {}", m.timing.bound);
        println!(
            "  roofline: {:.3} us ({:.2} MB between GM and the cores at the chip's streaming bandwidth); {:.0}% of it reached",
            m.timing.roofline_us,
            m.timing.gm_bytes as f64 / 1e6,
            m.timing.roofline_us / m.latency_us * 100.0
        );
        println!(
            "  {:<8} {:>12} {:>8}  msprof column",
            "pipe", "busy (us)", "ratio"
        );
        for p in &m.timing.pipes {
            println!(
                "  {:<8} {:>12.3} {:>7.1}%  {}",
                p.pipe.to_string(),
                p.busy_us,
                p.ratio * 100.0,
                p.name
            );
        }
        if m.modelled {
            println!(
                "  note: modelled by the twin's performance model of the Ascend AI core, not measured on hardware"
            );
        }
    }

    pub fn trial(&self, t: &Trial) {
        if self.json() {
            let mut v = json!({"reason": "trial", "op": t.op, "index": t.index, "params": t.params, "rewrites": t.rewrites});
            match (t.latency_us, &t.error) {
                (Some(l), _) => v["latency_us"] = json!(round(l)),
                (None, e) => {
                    v["error"] = json!(e.clone().unwrap_or_default());
                    v["failure"] = json!(t.failure.map(|f| f.as_str()));
                }
            }
            self.emit(v);
        } else if self.verbose > 0 {
            let params: Vec<String> = t.params.iter().map(|(k, v)| format!("{k}={v}")).collect();
            match t.latency_us {
                Some(l) => eprintln!("  trial {:>3}: {l:>10.3} us  {}", t.index, params.join(" ")),
                None => eprintln!(
                    "  trial {:>3}: {:>10}     {}  ({})",
                    t.index,
                    t.failure.map(|f| f.as_str()).unwrap_or("failed"),
                    params.join(" "),
                    t.error
                        .as_deref()
                        .unwrap_or("")
                        .lines()
                        .next()
                        .unwrap_or("")
                ),
            }
        }
    }

    #[allow(clippy::too_many_arguments)]
    pub fn op_tuned(
        &self,
        op: &str,
        baseline: f64,
        latency: f64,
        trials: usize,
        failures: usize,
        params: &std::collections::BTreeMap<String, i64>,
        modelled: bool,
    ) {
        let speedup = baseline / latency;
        if self.json() {
            self.emit(json!({
                "reason": "op-tuned", "op": op, "baseline_latency_us": round(baseline), "latency_us": round(latency),
                "speedup": round(speedup), "trials": trials, "failures": failures, "params": params, "modelled": modelled,
            }));
            return;
        }
        let p: Vec<String> = params.iter().map(|(k, v)| format!("{k}={v}")).collect();
        println!(
            "{op}: {baseline:.3} us -> {latency:.3} us {} ({speedup:.2}x) after {trials} trials ({failures} failed); {}",
            provenance(modelled),
            p.join(" ")
        );
    }

    pub fn op_checked(
        &self,
        op: &str,
        status: &str,
        locked: Option<f64>,
        latency: Option<f64>,
        detail: &str,
    ) {
        if self.json() {
            self.emit(json!({"reason": "op-checked", "op": op, "status": status, "locked_latency_us": locked.map(round), "latency_us": latency.map(round), "message": detail}));
            return;
        }
        let fmt = |v: Option<f64>| {
            v.map(|v| format!("{v:.3} us"))
                .unwrap_or_else(|| "-".into())
        };
        println!(
            "{op:<20} {status:<10} locked {:>14}  now {:>14}  {detail}",
            fmt(locked),
            fmt(latency)
        );
    }

    pub fn error(&self, e: &Error) {
        if self.json() {
            let mut v =
                json!({"reason": "error", "message": e.to_string(), "exit_code": e.exit_code()});
            if let Error::Manifest(m) = e
                && let Some((file, line, col)) = &m.location
            {
                v["file"] = json!(file);
                v["line"] = json!(line);
                v["column"] = json!(col);
            }
            if let Some(help) = miette::Diagnostic::help(e) {
                v["help"] = json!(help.to_string());
            }
            self.emit(v);
            return;
        }
        let theme = if self.color {
            miette::GraphicalTheme::unicode()
        } else {
            miette::GraphicalTheme::unicode_nocolor()
        };
        let mut out = String::new();
        let handler = miette::GraphicalReportHandler::new_themed(theme);
        if handler.render_report(&mut out, e).is_err() {
            out = format!("error: {e}");
        }
        eprintln!("{}", out.trim_end());
    }
}

/// Progress of a tuning run on stderr: hidden when not a terminal, with `-q`, or with JSON messages.
pub struct Progress<'p> {
    printer: &'p Printer,
    bar: Option<indicatif::ProgressBar>,
    best: Option<f64>,
    failures: usize,
}

impl<'p> Progress<'p> {
    pub fn new(printer: &'p Printer) -> Self {
        Progress {
            printer,
            bar: None,
            best: None,
            failures: 0,
        }
    }
    pub fn finish(&mut self) {
        if let Some(bar) = self.bar.take() {
            bar.finish_and_clear();
        }
    }
}

impl crate::tune::Observer for Progress<'_> {
    fn started(&mut self, op: &str, baseline_us: f64, budget: usize) {
        self.printer.status(
            "Tuning",
            format!("{op}: baseline {baseline_us:.3} us, budget {budget} trials"),
        );
        if !self.printer.quiet
            && !self.printer.json()
            && self.printer.verbose == 0
            && std::io::stderr().is_terminal()
        {
            let bar = indicatif::ProgressBar::new(budget as u64);
            if let Ok(style) =
                indicatif::ProgressStyle::with_template("{prefix:>12} [{bar:30}] {pos}/{len} {msg}")
            {
                bar.set_style(style.progress_chars("=> "));
            }
            bar.set_prefix(op.to_string());
            self.bar = Some(bar);
        }
        self.best = Some(baseline_us);
        self.failures = 0;
    }

    fn derived(&mut self, op: &str, constraints: &[String]) {
        if self.printer.json() {
            self.printer.emit(
                json!({"reason": "derived-constraints", "op": op, "constraints": constraints}),
            );
            return;
        }
        let line = if constraints.is_empty() {
            format!("{op}: none derived from the sources")
        } else {
            format!(
                "{op}: {} derived from the sources (derive-constraints = false turns them off)\n{}",
                constraints.len(),
                constraints
                    .iter()
                    .map(|c| format!("{:>12}   {c}", ""))
                    .collect::<Vec<_>>()
                    .join("\n")
            )
        };
        match &self.bar {
            Some(bar) => bar.println(format!("{:>12} {line}", "Constraints")),
            None => self.printer.status("Constraints", line),
        }
    }

    fn trial(&mut self, trial: &Trial, _from_journal: bool) {
        self.printer.trial(trial);
        match trial.latency_us {
            Some(l) => self.best = Some(self.best.map_or(l, |b| b.min(l))),
            None => self.failures += 1,
        }
        if let Some(bar) = &self.bar {
            bar.inc(1);
            bar.set_message(format!(
                "best {:.3} us, {} failed",
                self.best.unwrap_or(f64::NAN),
                self.failures
            ));
        }
    }

    fn rewrite(&mut self, op: &str, rewrite: &str, outcome: &str) {
        if self.printer.json() {
            self.printer.emit(
                json!({"reason": "rewrite", "op": op, "rewrite": rewrite, "outcome": outcome}),
            );
            return;
        }
        if self.printer.quiet {
            return;
        }
        let line = format!("{op}: {rewrite} {outcome}");
        match &self.bar {
            Some(bar) => bar.println(format!("{:>12} {line}", "Rewrite")),
            None => self.printer.status("Rewrite", line),
        }
    }
}

/// Rounds to the nanosecond for JSON output, so figures are stable to read and compare.
pub fn round(v: f64) -> f64 {
    (v * 1000.0).round() / 1000.0
}
