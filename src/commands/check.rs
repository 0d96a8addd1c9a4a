//! `check`: the regression gate. Rebuilds each op from the current sources, measures it, and compares
//! with `ascend-tune.lock`: slower than the locked latency beyond the tolerance is a regression (exit 1);
//! sources changed since the lock was written make it stale (a warning; exit 1 under `--locked`). Ends
//! with a summary table (or a `check-finished` record) and, with `--junit FILE`, a JUnit XML report; with
//! `--workspace`, does all of this over every operator member of a cargo workspace. How rows are shown
//! belongs to `report::check` and `report::junit`.

use super::Session;
use crate::cli::args::{CheckArgs, Common};
use crate::errors::{Error, Result};
use crate::exit_codes;
use crate::lockfile::Lockfile;
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
            Status::Ok => r.op.clone(),
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
        let started = Instant::now();
        let mut row = CheckRow {
            project: project.clone(),
            op: op.name.clone(),
            status: Status::Ok,
            locked_us: None,
            latency_us: None,
            change_pct: None,
            message: String::new(),
            fails: false,
            seconds: 0.0,
        };
        let Some(entry) = lock.find(&op.name, &op.shape_key(), soc.name, backend) else {
            row.status = Status::Stale;
            row.message = format!(
                "{} has no entry for this op, shape, SoC ({}) and backend ({backend}); run `cargo ascend-tune tune`",
                lock_path.display(),
                soc.name
            );
            printer.op_checked(&op.name, "stale", None, None, &row.message);
            row.fails = args.locked;
            if !args.locked {
                printer.warn(format!("{}: {}", op.name, row.message));
            }
            row.seconds = started.elapsed().as_secs_f64();
            rows.push(row);
            continue;
        };
        row.locked_us = Some(entry.latency_us);
        let sources = crate::tune::read_sources(&session.manifest, op)?;
        let stale = entry.stale_sources(&sources);
        let inputs = crate::tune::inputs(op);
        let m = match Evaluator::baseline(backend_handle.as_ref(), op, &inputs, false) {
            Ok(m) => m,
            Err(f) => {
                row.status = Status::Failed;
                row.message = format!(
                    "the current sources fail ({}): {}",
                    f.kind.as_str(),
                    f.message
                );
                printer.op_checked(
                    &op.name,
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
        if change > args.tolerance {
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
            &op.name,
            row.status.as_str(),
            Some(entry.latency_us),
            Some(m.latency_us),
            &row.message,
        );
        if row.status == Status::Stale && !args.locked {
            printer.warn(format!(
                "{}: {}; run `cargo ascend-tune tune` to refresh the lock",
                op.name, row.message
            ));
        }
        row.seconds = started.elapsed().as_secs_f64();
        rows.push(row);
    }
    Ok((rows, modelled))
}
