//! `check`: the regression gate. Rebuilds each op from the current sources, measures it, and compares
//! with `ascend-tune.lock`: slower than the locked latency beyond the tolerance is a regression (exit 1);
//! sources changed since the lock was written make it stale (a warning; exit 1 under `--locked`).

use super::Session;
use crate::cli::args::{CheckArgs, Common};
use crate::errors::{Error, Result};
use crate::exit_codes;
use crate::lockfile::Lockfile;
use crate::report::Printer;
use crate::tune::evaluate::Evaluator;

pub fn check(common: &Common, args: &CheckArgs, printer: &Printer) -> Result<i32> {
    if !(args.tolerance >= 0.0 && args.tolerance.is_finite()) {
        return Err(Error::bad_input(
            format!("--tolerance {} is not a percentage >= 0", args.tolerance),
            Some("for example --tolerance 5".into()),
        ));
    }
    let session = Session::open(common)?;
    let ops = session.ops(args.op.as_deref())?;
    let lock_path = Lockfile::path(&session.manifest.root);
    let lock = Lockfile::load(&lock_path)?;
    let backend_handle = session.backend()?;
    let soc = backend_handle.soc();
    let backend = backend_handle.kind().as_str();
    let mut failed = vec![];
    for op in &ops {
        let Some(entry) = lock.find(&op.name, &op.shape_key(), soc.name, backend) else {
            let msg = format!(
                "{} has no entry for this op, shape, SoC ({}) and backend ({backend}); run `cargo ascend-tune tune`",
                lock_path.display(),
                soc.name
            );
            printer.op_checked(&op.name, "stale", None, None, &msg);
            if args.locked {
                failed.push(format!("{} (not in the lockfile)", op.name));
            } else {
                printer.warn(format!("{}: {msg}", op.name));
            }
            continue;
        };
        let sources = crate::tune::read_sources(&session.manifest, op)?;
        let stale = entry.stale_sources(&sources);
        let inputs = crate::tune::inputs(op);
        let m = match Evaluator::baseline(backend_handle.as_ref(), op, &inputs, false) {
            Ok(m) => m,
            Err(f) => {
                let msg = format!(
                    "the current sources fail ({}): {}",
                    f.kind.as_str(),
                    f.message
                );
                printer.op_checked(&op.name, "failed", Some(entry.latency_us), None, &msg);
                failed.push(format!("{} (fails to build or run)", op.name));
                continue;
            }
        };
        // Percent, to 0.1 (the resolution reports show); + 0.0 turns -0.0 into 0.0.
        let change = ((m.latency_us / entry.latency_us - 1.0) * 1000.0).round() / 10.0 + 0.0;
        let kind = crate::report::provenance(m.modelled);
        if change > args.tolerance {
            let msg = format!(
                "{:.3} us {kind} now vs {:.3} us locked: {change:+.1}%, beyond the {}% tolerance",
                m.latency_us, entry.latency_us, args.tolerance
            );
            printer.op_checked(
                &op.name,
                "regressed",
                Some(entry.latency_us),
                Some(m.latency_us),
                &msg,
            );
            failed.push(format!("{} regressed by {change:+.1}%", op.name));
        } else if !stale.is_empty() {
            let msg = format!(
                "sources changed since the lock was written: {} ({change:+.1}%)",
                stale.join(", ")
            );
            printer.op_checked(
                &op.name,
                "stale",
                Some(entry.latency_us),
                Some(m.latency_us),
                &msg,
            );
            if args.locked {
                failed.push(format!("{} (stale lock)", op.name));
            } else {
                printer.warn(format!(
                    "{}: {msg}; run `cargo ascend-tune tune` to refresh the lock",
                    op.name
                ));
            }
        } else {
            let msg = format!("{change:+.1}% ({kind})");
            printer.op_checked(
                &op.name,
                "ok",
                Some(entry.latency_us),
                Some(m.latency_us),
                &msg,
            );
        }
    }
    if failed.is_empty() {
        Ok(exit_codes::OK)
    } else {
        Err(Error::CheckFailed(format!(
            "check failed: {}",
            failed.join("; ")
        )))
    }
}
