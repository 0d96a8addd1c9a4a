//! `check` for CI: the summary table, `--junit FILE` with one test case per op, and the JSON records
//! (`op-checked` per op and a closing `check-finished`), on a tuned relu_custom, then with a slower kernel.

use super::*;

/// relu_custom tuned with a tiny budget, its lock committed.
fn tuned_relu() -> tempfile::TempDir {
    let dir = project("relu_custom");
    let out = cargo_ascend_tune(dir.path(), &["tune", "--budget", "4", "--seed", "1"]);
    assert!(out.status.success(), "{:?}", text(&out));
    git(dir.path(), &["add", "-A"]);
    git(dir.path(), &["commit", "-q", "-m", "tuned"]);
    dir
}

#[test]
fn check_prints_a_table_and_writes_junit_and_json() {
    let dir = tuned_relu();
    let p = dir.path();

    let out = cargo_ascend_tune(p, &["check", "--locked", "--junit", "reports/check.xml"]);
    let (stdout, stderr) = text(&out);
    assert!(out.status.success(), "{stdout}\n{stderr}");
    let table: Vec<&str> = stdout
        .lines()
        .skip_while(|l| !l.starts_with("operator "))
        .collect();
    assert!(
        table.len() >= 2
            && table[0].contains("locked (us)")
            && table[0].contains("now (us)")
            && table[0].contains("change")
            && table[0].ends_with("verdict"),
        "{stdout}"
    );
    assert!(
        table[1].starts_with("relu_custom")
            && table[1].contains("+0.0%")
            && table[1].ends_with("ok"),
        "{stdout}"
    );
    let xml = std::fs::read_to_string(p.join("reports/check.xml")).expect("a JUnit report");
    assert!(
        xml.contains("tests=\"1\" failures=\"0\"")
            && xml.contains("<testcase classname=\"ascend_tune.")
            && xml.contains("name=\"relu_custom\""),
        "{xml}"
    );
    assert!(!xml.contains("<failure"), "{xml}");

    let out = cargo_ascend_tune(p, &["check", "--locked", "--message-format", "json"]);
    assert!(out.status.success(), "{:?}", text(&out));
    let recs = records(&out);
    let checked = recs.iter().find(|r| r["reason"] == "op-checked").unwrap();
    assert_eq!(checked["status"], "ok", "{checked}");
    assert!(checked["locked_latency_us"].as_f64().unwrap() > 0.0);
    let finished = recs.last().unwrap();
    assert_eq!(finished["reason"], "check-finished", "{recs:?}");
    assert_eq!(
        (finished["ops"].as_u64(), finished["failing"].as_u64()),
        (Some(1), Some(0))
    );

    // Back to the naive sources: regressed in the table, a failure in the report, exit 1.
    git(p, &["checkout", "HEAD~1", "--", "op_host", "op_kernel"]);
    let out = cargo_ascend_tune(p, &["check", "--junit", "reports/check.xml"]);
    let (stdout, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(1), "{stdout}\n{stderr}");
    let row = stdout
        .lines()
        .skip_while(|l| !l.starts_with("operator "))
        .nth(1)
        .unwrap_or_default();
    assert!(
        row.starts_with("relu_custom") && row.ends_with("regressed"),
        "{stdout}"
    );
    let xml = std::fs::read_to_string(p.join("reports/check.xml")).unwrap();
    assert!(
        xml.contains("failures=\"1\"")
            && xml.contains("<failure type=\"regressed\" message=\"relu_custom: "),
        "{xml}"
    );
}

#[test]
fn a_stale_lock_fails_the_junit_case_only_under_locked() {
    let dir = tuned_relu();
    let p = dir.path();
    // Same speed, different text: the lock is stale but nothing regressed.
    let kernel = p.join("op_kernel/relu_custom.cpp");
    let k = std::fs::read_to_string(&kernel).unwrap();
    std::fs::write(&kernel, format!("{k}\n// a comment\n")).unwrap();

    let out = cargo_ascend_tune(p, &["check", "--junit", "warn.xml"]);
    let (stdout, stderr) = text(&out);
    assert!(out.status.success(), "{stdout}\n{stderr}");
    assert!(stdout.contains("stale (warning)"), "{stdout}");
    let xml = std::fs::read_to_string(p.join("warn.xml")).unwrap();
    assert!(
        xml.contains("failures=\"0\"") && xml.contains("verdict: stale (warning)"),
        "{xml}"
    );

    let out = cargo_ascend_tune(p, &["check", "--locked", "--junit", "locked.xml"]);
    assert_eq!(out.status.code(), Some(1), "{:?}", text(&out));
    let xml = std::fs::read_to_string(p.join("locked.xml")).unwrap();
    assert!(
        xml.contains("<failure type=\"stale\" message=\"relu_custom: sources changed since the lock was written: op_kernel/relu_custom.cpp"),
        "{xml}"
    );
}
