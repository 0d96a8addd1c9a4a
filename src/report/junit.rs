//! The JUnit XML report of `check` (`--junit FILE`): one `<testsuite>` per project, one `<testcase>` per
//! op, and a `<failure>` for each op that makes the check fail (regressed, failed, or stale under
//! `--locked`), so CI systems show which op broke the gate. A stale lock that only warns is a passing case
//! with the warning in `<system-out>`.
//!
//! Written by hand rather than with an XML crate: the document has one fixed shape, and all it needs is
//! the escaper below (the five XML entities, and characters XML 1.0 forbids replaced), which is tested.
//! Knows nothing of how the rows were made.

use super::check::CheckRow;
use std::fmt::Write;

/// Text safe inside an XML attribute or element: `& < > " '` as entities, and characters that XML 1.0
/// does not allow at all (most control characters, lone surrogates cannot occur in `str`) as U+FFFD.
pub fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            '\t' | '\n' | '\r' => out.push(c),
            c if (c as u32) < 0x20 || c == '\u{FFFE}' || c == '\u{FFFF}' => out.push('\u{FFFD}'),
            c => out.push(c),
        }
    }
    out
}

/// The report for `rows` (in order; rows of one project are grouped into its suite).
pub fn render(rows: &[CheckRow]) -> String {
    let mut projects: Vec<&str> = vec![];
    for r in rows {
        if !projects.contains(&r.project.as_str()) {
            projects.push(&r.project);
        }
    }
    let failures = rows.iter().filter(|r| r.fails).count();
    let total: f64 = rows.iter().map(|r| r.seconds).sum();
    let mut s = String::new();
    s.push_str("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    let _ = writeln!(
        s,
        "<testsuites name=\"cargo ascend-tune check\" tests=\"{}\" failures=\"{failures}\" errors=\"0\" time=\"{total:.3}\">",
        rows.len()
    );
    for p in projects {
        let mine: Vec<&CheckRow> = rows.iter().filter(|r| r.project == p).collect();
        let _ = writeln!(
            s,
            "  <testsuite name=\"ascend-tune check: {}\" tests=\"{}\" failures=\"{}\" errors=\"0\" skipped=\"0\" time=\"{:.3}\">",
            escape(p),
            mine.len(),
            mine.iter().filter(|r| r.fails).count(),
            mine.iter().map(|r| r.seconds).sum::<f64>()
        );
        for r in mine {
            let _ = write!(
                s,
                "    <testcase classname=\"ascend_tune.{}\" name=\"{}\" time=\"{:.3}\"",
                escape(&r.project),
                escape(&r.op),
                r.seconds
            );
            let us = |v: Option<f64>| v.map_or_else(|| "-".to_string(), |v| format!("{v:.3} us"));
            let detail = format!(
                "verdict: {}\nlocked: {}\nnow: {}\n{}",
                r.verdict(),
                us(r.locked_us),
                us(r.latency_us),
                r.message
            );
            if r.fails {
                let _ = writeln!(
                    s,
                    ">\n      <failure type=\"{}\" message=\"{}: {}\">{}</failure>\n    </testcase>",
                    r.status.as_str(),
                    escape(&r.op),
                    escape(&r.message),
                    escape(&detail)
                );
            } else {
                let _ = writeln!(
                    s,
                    ">\n      <system-out>{}</system-out>\n    </testcase>",
                    escape(&detail)
                );
            }
        }
        s.push_str("  </testsuite>\n");
    }
    s.push_str("</testsuites>\n");
    s
}

#[cfg(test)]
mod tests {
    use super::super::check::{CheckRow, Status};
    use super::*;

    fn row(op: &str, status: Status, fails: bool, message: &str) -> CheckRow {
        CheckRow {
            project: "ops".into(),
            op: op.into(),
            status,
            locked_us: Some(10.0),
            latency_us: Some(11.0),
            change_pct: Some(10.0),
            message: message.into(),
            fails,
            seconds: 0.25,
        }
    }

    #[test]
    fn escapes_entities_and_forbidden_characters() {
        assert_eq!(
            escape(r#"a<b & "c" 'd'>"#),
            "a&lt;b &amp; &quot;c&quot; &apos;d&apos;&gt;"
        );
        assert_eq!(escape("x\u{1b}[31my\u{0}"), "x\u{FFFD}[31my\u{FFFD}");
        assert_eq!(escape("line\nnext\ttab"), "line\nnext\ttab");
        assert_eq!(escape("µs → ok"), "µs → ok");
    }

    #[test]
    fn one_case_per_op_and_a_failure_for_each_failing_op() {
        let rows = [
            row("add_custom", Status::Ok, false, "+0.0% (modelled)"),
            row(
                "relu_custom",
                Status::Regressed,
                true,
                "13 us now vs 10 us <locked>",
            ),
            row("exp_custom", Status::Stale, false, "sources changed"),
            row("gelu_custom", Status::Stale, true, "sources changed"),
        ];
        let xml = render(&rows);
        assert!(xml.starts_with("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites "));
        assert!(xml.contains("tests=\"4\" failures=\"2\""), "{xml}");
        assert_eq!(xml.matches("<testcase ").count(), 4, "{xml}");
        assert_eq!(xml.matches("<failure ").count(), 2, "{xml}");
        assert!(
            xml.contains("<failure type=\"regressed\" message=\"relu_custom: 13 us now vs 10 us &lt;locked&gt;\">"),
            "{xml}"
        );
        assert!(xml.contains("<failure type=\"stale\""), "{xml}");
        assert!(xml.contains("verdict: stale (warning)"), "{xml}");
        assert!(!xml.contains("<locked>"), "{xml}");
        assert!(xml.trim_end().ends_with("</testsuites>"));
        // Balanced: every opened element is closed.
        for tag in ["testsuites", "testsuite", "testcase"] {
            assert_eq!(
                xml.matches(&format!("<{tag} ")).count(),
                xml.matches(&format!("</{tag}>")).count(),
                "{tag} in {xml}"
            );
        }
    }
}
