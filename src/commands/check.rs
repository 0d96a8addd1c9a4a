//! `check`: the regression gate. Rebuilds each op from the current sources, measures it, and compares
//! with `ascend-tune.lock`: slower than the locked latency beyond the tolerance is a regression (exit 1);
//! sources changed since the lock was written make it stale (a warning; exit 1 under `--locked`). A
//! measured (hardware) latency is judged on its samples' spread as well (`measure::samples::compare`):
//! a regression must also lie outside the noise; a slowdown past the tolerance that the spreads cannot
//! tell from noise is `noisy`, a warning with exit 0, so a shared device never fails CI by chance. The
//! twin's modelled latencies are exact and compare by the tolerance alone. Ends
//! with a summary table (or a `check-finished` record) and, with `--junit FILE`, a JUnit XML report; with
//! `--workspace`, does all of this over every operator member of a cargo workspace. How rows are shown
//! belongs to `report::check` and `report::junit`.

use super::Session;
use crate::cli::args::{CheckArgs, Common};
use crate::errors::{Error, Result};
use crate::exit_codes;
use crate::lockfile::Lockfile;
use crate::measure::samples::{Summary, Verdict, compare};
use crate::report::Printer;
use crate::report::check::{CheckRow, Status};
use crate::tune::evaluate::Evaluator;
use std::time::Instant;

pub fn check(common: &Common, args: &CheckArgs, printer: &Printer) -> Result<i32> {
    if !(args.tolerance >= 0.0 && args.tolerance.is_finite()) {
        return Err(Error::bad_input(
            format!("--tolerance {} is not a percentage >= 0", args.tolerance),
            Some("for example --tolerance 5".into()),
        ));
    }
    let mut rows = vec![];
    let mut modelled = false;
    if args.workspace {
        let ws = super::workspace::find(common)?;
        for member in super::workspace::members(&ws, args.op.as_deref())? {
            printer.status(
                "Member",
                format!("{} ({})", member.name, member.dir.display()),
            );
            let c = super::workspace::member_common(common, &ws, member);
            let (r, m) = check_project(&c, args, printer, &member.name)?;
            rows.extend(r);
            modelled |= m;
        }
    } else {
        let (r, m) = check_project(common, args, printer, "")?;
        rows.extend(r);
        modelled |= m;
    }
    printer.check_finished(&rows, modelled);
    if let Some(path) = &args.junit {
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            crate::fsx::create_dir_all(dir)?;
        }
        crate::fsx::write_atomic(path, crate::report::junit::render(&rows).as_bytes())?;
        printer.status("Wrote", path.display().to_string());
    }
    let failed: Vec<String> = rows
        .iter()
        .filter(|r| r.fails)
        .map(|r| match r.status {
            Status::Regressed => format!(
                "{} regressed by {:+.1}%",
                r.op,
                r.change_pct.unwrap_or(f64::NAN)
            ),
            Status::Failed => format!("{} (fails to build or run)", r.op),
            Status::Stale if r.locked_us.is_none() => format!("{} (not in the lockfile)", r.op),
            Status::Stale => format!("{} (stale lock)", r.op),
            Status::Ok | Status::Noisy => r.op.clone(),
        })
        .collect();
    if failed.is_empty() {
        Ok(exit_codes::OK)
    } else {
        Err(Error::CheckFailed(format!(
            "check failed: {}",
            failed.join("; ")
        )))
    }
}

/// Checks the ops of one project; `project` names it in reports (empty: the project folder's name).
/// Returns the rows, and whether any latency was modelled.
fn check_project(
    common: &Common,
    args: &CheckArgs,
    printer: &Printer,
    project: &str,
) -> Result<(Vec<CheckRow>, bool)> {
    let session = Session::open(common)?;
    let project = if project.is_empty() {
        session
            .manifest
            .root
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| "project".into())
    } else {
        project.to_string()
    };
    let ops = session.ops(args.op.as_deref())?;
    let lock_path = Lockfile::path(&session.manifest.root);
    let lock = Lockfile::load(&lock_path)?;
    let backend_handle = session.backend()?;
    let soc = backend_handle.soc();
    let backend = backend_handle.kind().as_str();
    let mut rows = vec![];
    let mut modelled = false;
    for op in &ops {
        // An op with several shapes (`[[op.shape]]`) has a lock entry for each; each is checked,
        // the row of a further shape named `<op>@<shape>`.
        let sources = crate::tune::read_sources(&session.manifest, op)?;
        let unlisted_ok = crate::tune::header_sources(op, &sources);
        for (shape_name, _, case) in op.cases() {
            let label = match shape_name.as_str() {
                crate::manifest::DECLARED_SHAPE => op.name.clone(),
                _ => format!("{}@{shape_name}", op.name),
            };
            let started = Instant::now();
            let mut row = CheckRow {
                project: project.clone(),
                op: label.clone(),
                status: Status::Ok,
                locked_us: None,
                latency_us: None,
                change_pct: None,
                message: String::new(),
                fails: false,
                seconds: 0.0,
            };
            let Some(entry) = lock.find(&op.name, &case.shape_key(), soc.name, backend) else {
                row.status = Status::Stale;
                row.message = format!(
                    "{} has no entry for this op, shape, SoC ({}) and backend ({backend}); run `cargo ascend-tune tune`",
                    lock_path.display(),
                    soc.name
                );
                printer.op_checked(&label, "stale", None, None, &row.message);
                row.fails = args.locked;
                if !args.locked {
                    printer.warn(format!("{}: {}", label, row.message));
                }
                row.seconds = started.elapsed().as_secs_f64();
                rows.push(row);
                continue;
            };
            row.locked_us = Some(entry.latency_us);
            let stale = entry.stale_sources(&sources, &unlisted_ok);
            let inputs = crate::tune::inputs(&case);
            let m = match Evaluator::baseline(backend_handle.as_ref(), &case, &inputs, false) {
                Ok(m) => m,
                Err(f) => {
                    row.status = Status::Failed;
                    row.message = format!(
                        "the current sources fail ({}): {}",
                        f.kind.as_str(),
                        f.message
                    );
                    printer.op_checked(
                        &label,
                        "failed",
                        Some(entry.latency_us),
                        None,
                        &row.message,
                    );
                    row.fails = true;
                    row.seconds = started.elapsed().as_secs_f64();
                    rows.push(row);
                    continue;
                }
            };
            modelled |= m.modelled;
            row.latency_us = Some(m.latency_us);
            // Percent, to 0.1 (the resolution reports show); + 0.0 turns -0.0 into 0.0.
            let change = ((m.latency_us / entry.latency_us - 1.0) * 1000.0).round() / 10.0 + 0.0;
            row.change_pct = Some(change);
            let kind = crate::report::provenance(m.modelled);
            if !m.modelled {
                let j = judge_measured(
                    &Summary::of(&m.samples).unwrap_or(Summary::point(m.latency_us)),
                    &entry
                        .latency_samples
                        .unwrap_or(Summary::point(entry.latency_us)),
                    change,
                    args.tolerance,
                    &stale,
                );
                row.status = j.0;
                row.message = j.1;
                row.fails = match row.status {
                    Status::Regressed => true,
                    Status::Stale => args.locked,
                    _ => false,
                };
            } else if change > args.tolerance {
                row.status = Status::Regressed;
                row.message = format!(
                    "{:.3} us {kind} now vs {:.3} us locked: {change:+.1}%, beyond the {}% tolerance",
                    m.latency_us, entry.latency_us, args.tolerance
                );
                row.fails = true;
            } else if !stale.is_empty() {
                row.status = Status::Stale;
                row.message = format!(
                    "sources changed since the lock was written: {} ({change:+.1}%)",
                    stale.join(", ")
                );
                row.fails = args.locked;
            } else {
                row.message = format!("{change:+.1}% ({kind})");
            }
            printer.op_checked(
                &label,
                row.status.as_str(),
                Some(entry.latency_us),
                Some(m.latency_us),
                &row.message,
            );
            if row.status == Status::Stale && !args.locked {
                printer.warn(format!(
                    "{}: {}; run `cargo ascend-tune tune` to refresh the lock",
                    label, row.message
                ));
            }
            if row.status == Status::Noisy {
                printer.warn(format!("{}: {}", label, row.message));
            }
            row.seconds = started.elapsed().as_secs_f64();
            rows.push(row);
        }
    }
    Ok((rows, modelled))
}

/// The verdict on a measured latency: its summary `now` against the lock's `locked` (a point when the
/// lock kept no spread), with `change` the rounded percent change the table shows. Regressed when
/// `compare` says so; then stale when sources changed; then noisy when the slowdown is past the
/// tolerance but within the spreads; else ok.
fn judge_measured(
    now: &Summary,
    locked: &Summary,
    change: f64,
    tolerance_pct: f64,
    stale: &[String],
) -> (Status, String) {
    let spread = |s: &Summary| format!("{:.3}-{:.3} us", s.p20, s.p80);
    let verdict = compare(locked, now, tolerance_pct / 100.0);
    match verdict {
        Verdict::Regressed { .. } => (
            Status::Regressed,
            format!(
                "{:.3} us measured now vs {:.3} us locked: {change:+.1}%, beyond the {tolerance_pct}% tolerance and outside the noise (p20-p80 {} now over {} samples, {} locked)",
                now.median,
                locked.median,
                spread(now),
                now.n,
                spread(locked)
            ),
        ),
        _ if !stale.is_empty() => (
            Status::Stale,
            format!(
                "sources changed since the lock was written: {} ({change:+.1}%)",
                stale.join(", ")
            ),
        ),
        Verdict::TooNoisy { .. } => (
            Status::Noisy,
            format!(
                "{change:+.1}% is beyond the {tolerance_pct}% tolerance but within the noise (p20-p80 {} now over {} samples, {} locked): too noisy to tell; measure more launches, or on an idle device",
                spread(now),
                now.n,
                spread(locked)
            ),
        ),
        Verdict::Improved | Verdict::Ok => (Status::Ok, format!("{change:+.1}% (measured)")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(v: &[f64]) -> Summary {
        Summary::of(v).unwrap()
    }

    #[test]
    fn a_real_slowdown_on_hardware_is_a_regression() {
        let locked = s(&[9.9, 10.0, 10.1, 10.0, 10.2]);
        let now = s(&[11.9, 12.0, 12.1, 12.0, 12.2]);
        let (status, message) = judge_measured(&now, &locked, 20.0, 2.0, &[]);
        assert_eq!(status, Status::Regressed);
        assert_eq!(
            message,
            "12.000 us measured now vs 10.000 us locked: +20.0%, beyond the 2% tolerance and outside the noise (p20-p80 11.980-12.120 us now over 5 samples, 9.980-10.120 us locked)"
        );
    }

    #[test]
    fn a_slowdown_within_the_noise_is_noisy_not_regressed() {
        let locked = s(&[8.0, 9.0, 10.0, 11.0, 12.0]);
        let now = s(&[9.0, 10.0, 11.0, 12.0, 13.0]);
        let (status, message) = judge_measured(&now, &locked, 10.0, 2.0, &[]);
        assert_eq!(status, Status::Noisy);
        assert_eq!(
            message,
            "+10.0% is beyond the 2% tolerance but within the noise (p20-p80 9.800-12.200 us now over 5 samples, 8.800-11.200 us locked): too noisy to tell; measure more launches, or on an idle device"
        );
    }

    #[test]
    fn within_the_tolerance_or_faster_is_ok_and_changed_sources_are_stale() {
        let locked = s(&[10.0, 10.1, 9.9]);
        let same = s(&[10.1, 10.2, 10.0]);
        assert_eq!(
            judge_measured(&same, &locked, 1.0, 2.0, &[]),
            (Status::Ok, "+1.0% (measured)".to_string())
        );
        let faster = s(&[8.0, 8.1, 7.9]);
        assert_eq!(
            judge_measured(&faster, &locked, -20.0, 2.0, &[]).0,
            Status::Ok
        );
        let files = ["op_kernel/k.cpp".to_string()];
        assert_eq!(
            judge_measured(&same, &locked, 1.0, 2.0, &files),
            (
                Status::Stale,
                "sources changed since the lock was written: op_kernel/k.cpp (+1.0%)".to_string()
            )
        );
        // A noisy change with changed sources is stale (which fails under --locked).
        let noisy = s(&[9.0, 10.5, 12.0, 13.0]);
        assert_eq!(
            judge_measured(&noisy, &locked, 12.0, 2.0, &files).0,
            Status::Stale
        );
    }

    #[test]
    fn a_lock_without_a_spread_is_a_point() {
        // An older lock (or one tuned on the twin) has no samples: only the fresh spread counts.
        let locked = Summary::point(10.0);
        assert_eq!(
            judge_measured(&s(&[11.0, 11.1, 10.9]), &locked, 10.0, 2.0, &[]).0,
            Status::Regressed
        );
        assert_eq!(
            judge_measured(&s(&[9.0, 11.0, 13.0]), &locked, 10.0, 2.0, &[]).0,
            Status::Noisy
        );
    }
}
