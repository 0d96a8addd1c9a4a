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

/// What `run` reports of the time the user waited for one op (wall clock on this machine).
#[derive(Debug, Clone)]
pub struct RunTimings {
    /// Opening the backend, for the first op only, with what it made.
    pub setup: Option<(std::time::Duration, Option<crate::backend::Setup>)>,
    /// Generating the input data.
    pub inputs: std::time::Duration,
    pub build: std::time::Duration,
    /// The build cache served the build.
    pub cached: bool,
    pub run: std::time::Duration,
    /// Checking the outputs: the degenerate-output warnings, and the golden command if any.
    pub checks: std::time::Duration,
    /// The checks include the manifest's golden command.
    pub golden: bool,
    /// All of it, from the command's start (first op) or the previous op's end.
    pub total: std::time::Duration,
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

    /// How long the user waited for one op on this machine (wall clock, not a latency of the op):
    /// opening the backend (first op only: the twin runtime, compiled once per machine), the build,
    /// the run, the golden check, and all of it.
    pub fn op_timings(&self, op: &str, t: &RunTimings) {
        let secs = |d: std::time::Duration| round(d.as_secs_f64());
        if self.json() {
            let mut v = json!({
                "reason": "op-timings", "op": op, "inputs_s": secs(t.inputs), "build_s": secs(t.build),
                "build_cached": t.cached, "run_s": secs(t.run), "checks_s": secs(t.checks),
                "golden": t.golden, "total_s": secs(t.total),
            });
            if let Some((d, setup)) = &t.setup {
                v["setup_s"] = json!(secs(*d));
                if let Some(s) = setup {
                    v["setup_cached"] = json!(s.cached);
                    v["setup"] = json!(s.what);
                }
            }
            self.emit(v);
            return;
        }
        let mut parts = vec![];
        if let Some((d, setup)) = &t.setup {
            parts.push(match setup {
                Some(s) => format!("setup {:.2} s ({})", d.as_secs_f64(), s.what),
                None => format!("setup {:.2} s", d.as_secs_f64()),
            });
        }
        parts.push(format!("inputs {:.2} s", t.inputs.as_secs_f64()));
        parts.push(format!(
            "build {:.2} s{}",
            t.build.as_secs_f64(),
            if t.cached {
                " (from the build cache)"
            } else {
                ""
            }
        ));
        parts.push(format!("run {:.2} s", t.run.as_secs_f64()));
        parts.push(format!(
            "checks{} {:.2} s",
            if t.golden { " (golden)" } else { "" },
            t.checks.as_secs_f64()
        ));
        self.status(
            "Timings",
            format!(
                "{op}: {}; {:.2} s in all (wall clock on this machine)",
                parts.join(", "),
                t.total.as_secs_f64()
            ),
        );
    }

    /// The verdict of the manifest's golden command on one op's outputs.
    pub fn op_golden(&self, op: &str, command: &[String], v: &crate::verify::golden::Verdict) {
        use crate::verify::golden::Verdict;
        let cmd = crate::verify::golden::describe(command);
        if self.json() {
            let (passed, message) = match v {
                Verdict::Passed => (true, None),
                Verdict::Failed(why) => (false, Some(why.as_str())),
            };
            self.emit(json!({
                "reason": "op-golden", "op": op, "command": command, "passed": passed,
                "message": message,
            }));
            return;
        }
        match v {
            Verdict::Passed => self.status("Golden", format!("{op}: outputs accepted by `{cmd}`")),
            // The failure itself is the run's error, printed once at the end.
            Verdict::Failed(_) => {
                self.status("Golden", format!("{op}: outputs rejected by `{cmd}`"))
            }
        }
    }

    pub fn op_measured(&self, op: &str, m: &Measurement, backend: &str, soc: &str) {
        if self.json() {
            self.emit(json!({
                "reason": "op-measured", "op": op, "latency_us": round(m.latency_us), "modelled": m.modelled,
                "block_dim": m.block_dim, "pipes": Self::pipes_json(m), "bound": m.timing.bound.to_string(),
                "roofline_us": round(m.timing.roofline_us), "gm_bytes": m.timing.gm_bytes,
                "cube_roofline_us": round(m.timing.cube_roofline_us),
                "notes": m.timing.notes,
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
        if m.timing.cube_roofline_us > 0.0 {
            println!(
                "  cube roofline: {:.3} us (every Mmad's MACs at the cube's peak rate on all AIC cores); {:.0}% of it reached",
                m.timing.cube_roofline_us,
                m.timing.cube_roofline_us / m.latency_us * 100.0
            );
        }
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
        // What the model saw beside the figures (UB bank conflicts, APIs it costs by default); a UB
        // race is the run's warning, printed once by the caller.
        let races: Vec<String> = m.timing.ub_races.iter().map(|r| r.describe()).collect();
        for n in m.timing.notes.iter().filter(|n| !races.contains(n)) {
            println!("  note: {n}");
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
                (Some(l), _) => {
                    v["latency_us"] = json!(round(l));
                    if t.unprobed {
                        v["unprobed"] = json!(true);
                    }
                }
                (None, e) => {
                    v["error"] = json!(e.clone().unwrap_or_default());
                    v["failure"] = json!(t.failure.map(|f| f.as_str()));
                }
            }
            self.emit(v);
        } else if self.verbose > 0 {
            eprintln!("{}", trial_line(t));
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

    fn warning(&mut self, message: &str) {
        match &self.bar {
            Some(bar) if !self.printer.json() => bar.suspend(|| self.printer.warn(message)),
            _ => self.printer.warn(message),
        }
    }
}

/// Rounds to the nanosecond for JSON output, so figures are stable to read and compare.
pub fn round(v: f64) -> f64 {
    (v * 1000.0).round() / 1000.0
}

/// A trial as `tune -v` prints it: its latency and point (with the rewrites of the kernel it ran, which
/// a point alone does not tell apart: the same point is tried again on a rewritten kernel), or its
/// failure with the error it names.
fn trial_line(t: &Trial) -> String {
    let mut params: Vec<String> = t.params.iter().map(|(k, v)| format!("{k}={v}")).collect();
    params.extend(t.rewrites.iter().map(|r| format!("+ {r}")));
    match t.latency_us {
        Some(l) => format!(
            "  trial {:>3}: {l:>10.3} us  {}{}",
            t.index,
            params.join(" "),
            match t.unprobed {
                true =>
                    "  (not run on the shape probes: it could not be written back, being no faster than the baseline, or slower than a probed trial, by more than the noise floor)",
                false => "",
            }
        ),
        None => format!(
            "  trial {:>3}: {:>10}     {}  ({})",
            t.index,
            t.failure.map(|f| f.as_str()).unwrap_or("failed"),
            params.join(" "),
            // "the kernel failed (exit code 3):" and the error it introduces
            crate::backend::failure_line(t.error.as_deref().unwrap_or(""))
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn trial(v: serde_json::Value) -> Trial {
        let mut t =
            json!({"v": 1, "key": "k", "op": "fce", "index": 12, "params": {"ub_parts": 1}});
        for (k, x) in v.as_object().unwrap() {
            t[k] = x.clone();
        }
        serde_json::from_value(t).unwrap()
    }

    /// `tune -v` printed a kernel fault as "(the kernel failed (exit code 3):)", the first line of
    /// its error only, which introduces the error on a later line.
    #[test]
    fn a_failed_trial_line_names_the_error_after_the_warnings() {
        let t = trial(json!({
            "failure": "fault",
            "error": "the kernel failed (exit code 3):\nwarning: DataCopy: GM read past the end\n  --> k.cpp:31 (block 0)\nerror: InitBuffer: UB overflow: need 200704 bytes\n  --> k.h:126 (block 0)",
        }));
        assert_eq!(
            trial_line(&t),
            "  trial  12:      fault     ub_parts=1  (the kernel failed (exit code 3): error: InitBuffer: UB overflow: need 200704 bytes --> k.h:126 (block 0))"
        );
        let t = trial(json!({"latency_us": 4.5, "unprobed": true}));
        assert_eq!(
            trial_line(&t),
            "  trial  12:      4.500 us  ub_parts=1  (not run on the shape probes: it could not be written back, being no faster than the baseline, or slower than a probed trial, by more than the noise floor)"
        );
    }

    /// moe_finalize_routing_v2's `tune -v` showed `buffer_num=2 ub_parts=1` at 27.135 us and later the
    /// same point faulting: the second ran on the kernel with double-buffer-queue, which the line hid.
    #[test]
    fn a_trial_line_names_the_rewrites_of_the_kernel_it_ran() {
        let t = trial(
            json!({"latency_us": 4.5, "rewrites": ["ub-bank-offset", "double-buffer-queue"]}),
        );
        assert_eq!(
            trial_line(&t),
            "  trial  12:      4.500 us  ub_parts=1 + ub-bank-offset + double-buffer-queue"
        );
        let t = trial(
            json!({"failure": "fault", "error": "error: x", "rewrites": ["double-buffer-queue"]}),
        );
        assert_eq!(
            trial_line(&t),
            "  trial  12:      fault     ub_parts=1 + double-buffer-queue  (error: x)"
        );
    }
}
