//! The results of `check` as data (one row per op) and the human summary table printed at the end. Knows
//! nothing of how the latencies were obtained; `junit` renders the same rows for CI.

use super::{Printer, round};
use serde_json::json;
use std::fmt::Write;

/// The verdict of one op, as in the `op-checked` record's `status`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    Ok,
    Regressed,
    Stale,
    Failed,
    /// Measured on hardware, slower past the tolerance, but within the noise: cannot tell (a warning).
    Noisy,
}

impl Status {
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Ok => "ok",
            Status::Regressed => "regressed",
            Status::Stale => "stale",
            Status::Failed => "failed",
            Status::Noisy => "noisy",
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct CheckRow {
    /// The project the op belongs to (a workspace member's package name, or the project folder's name).
    pub project: String,
    pub op: String,
    pub status: Status,
    pub locked_us: Option<f64>,
    pub latency_us: Option<f64>,
    /// Percent, to 0.1.
    pub change_pct: Option<f64>,
    pub message: String,
    /// Whether this op makes `check` fail (a stale lock fails only under `--locked`).
    pub fails: bool,
    /// Wall time spent checking the op, for the JUnit report.
    pub seconds: f64,
}

impl CheckRow {
    /// The verdict as the table shows it: a stale lock that does not fail the check, and a change too
    /// noisy to judge, are warnings.
    pub fn verdict(&self) -> String {
        match (self.status, self.fails) {
            (Status::Stale, false) => "stale (warning)".into(),
            (Status::Noisy, _) => "noisy (warning)".into(),
            (s, _) => s.as_str().into(),
        }
    }
}

/// The summary table: operator, locked latency, current latency, change, verdict. Ops are named
/// `project/op` when the rows come from more than one project.
pub fn summary_table(rows: &[CheckRow]) -> String {
    let many = rows.iter().any(|r| r.project != rows[0].project);
    let name = |r: &CheckRow| {
        if many {
            format!("{}/{}", r.project, r.op)
        } else {
            r.op.clone()
        }
    };
    let us = |v: Option<f64>| v.map_or_else(|| "-".to_string(), |v| format!("{v:.3}"));
    let width = rows
        .iter()
        .map(|r| name(r).len())
        .chain(["operator".len()])
        .max()
        .unwrap_or(8);
    let mut s = String::new();
    let _ = writeln!(
        s,
        "{:<width$}  {:>12}  {:>12}  {:>8}  verdict",
        "operator", "locked (us)", "now (us)", "change"
    );
    for r in rows {
        let change = r
            .change_pct
            .map_or_else(|| "-".to_string(), |c| format!("{c:+.1}%"));
        let _ = writeln!(
            s,
            "{:<width$}  {:>12}  {:>12}  {:>8}  {}",
            name(r),
            us(r.locked_us),
            us(r.latency_us),
            change,
            r.verdict()
        );
    }
    s
}

impl Printer {
    /// After every op was checked: the table for people, or a `check-finished` record with the counts.
    pub fn check_finished(&self, rows: &[CheckRow], modelled: bool) {
        let count = |s: Status| rows.iter().filter(|r| r.status == s).count();
        let failed = rows.iter().filter(|r| r.fails).count();
        if self.json() {
            self.emit(json!({
                "reason": "check-finished", "ops": rows.len(), "ok": count(Status::Ok),
                "regressed": count(Status::Regressed), "stale": count(Status::Stale),
                "failed": count(Status::Failed), "noisy": count(Status::Noisy), "failing": failed,
                "max_change_pct": rows.iter().filter_map(|r| r.change_pct).reduce(f64::max).map(round),
            }));
            return;
        }
        if rows.is_empty() {
            return;
        }
        println!();
        print!("{}", summary_table(rows));
        let noisy = count(Status::Noisy);
        println!(
            "{} checked: {} passing{}, {} failing{}",
            if rows.len() == 1 {
                "1 op".to_string()
            } else {
                format!("{} ops", rows.len())
            },
            rows.len() - failed,
            if noisy > 0 {
                format!(" ({noisy} too noisy to tell)")
            } else {
                String::new()
            },
            failed,
            if modelled {
                " (latencies modelled by the twin, not measured on hardware)"
            } else {
                ""
            }
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    pub fn row(project: &str, op: &str, status: Status, fails: bool) -> CheckRow {
        CheckRow {
            project: project.into(),
            op: op.into(),
            status,
            locked_us: Some(10.0),
            latency_us: (status != Status::Failed).then_some(12.5),
            change_pct: (status != Status::Failed).then_some(25.0),
            message: "m".into(),
            fails,
            seconds: 0.5,
        }
    }

    #[test]
    fn the_table_has_one_aligned_line_per_op() {
        let rows = [
            row("p", "add_custom", Status::Regressed, true),
            row("p", "relu_custom", Status::Failed, true),
        ];
        let t = summary_table(&rows);
        let lines: Vec<&str> = t.lines().collect();
        assert_eq!(lines.len(), 3, "{t}");
        assert!(lines[0].starts_with("operator  "), "{t}");
        assert!(
            lines[1].contains("10.000")
                && lines[1].contains("12.500")
                && lines[1].contains("+25.0%")
                && lines[1].ends_with("regressed"),
            "{t}"
        );
        assert!(
            lines[2].contains(" - ") && lines[2].ends_with("failed"),
            "{t}"
        );
        // Columns line up: every line has its verdict at the same column.
        let at: Vec<usize> = lines.iter().map(|l| l.rfind("  ").unwrap()).collect();
        assert!(at.windows(2).all(|w| w[0] == w[1]), "{t}");
    }

    #[test]
    fn a_noisy_op_is_a_warning_in_the_table() {
        let rows = [row("p", "add_custom", Status::Noisy, false)];
        let t = summary_table(&rows);
        assert!(
            t.lines().nth(1).unwrap().ends_with("noisy (warning)"),
            "{t}"
        );
        assert_eq!(Status::Noisy.as_str(), "noisy");
    }

    #[test]
    fn ops_of_several_projects_are_named_with_their_project() {
        let rows = [
            row("a", "add_custom", Status::Ok, false),
            row("b", "relu_custom", Status::Stale, false),
        ];
        let t = summary_table(&rows);
        assert!(
            t.contains("a/add_custom") && t.contains("b/relu_custom"),
            "{t}"
        );
        assert!(t.contains("stale (warning)"), "{t}");
    }
}
