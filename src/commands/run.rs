//! `run`: build and run the current sources once, print latency, per-pipe utilisation and the bound,
//! and how long the build and the run took on this machine (wall clock; the build cache makes a second
//! build of the same sources cheap); `--trace` writes the modelled pipelines as a Chrome/Perfetto trace.

use super::Session;
use crate::cli::args::{Common, RunArgs};
use crate::errors::{Error, Result};
use crate::exit_codes;
use crate::report::Printer;
use crate::tune::evaluate::Evaluator;

pub fn run(common: &Common, args: &RunArgs, printer: &Printer) -> Result<i32> {
    let session = Session::open(common)?;
    let ops = session.ops(args.op.as_deref())?;
    if args.trace.is_some() && ops.len() > 1 {
        return Err(Error::bad_input(
            "--trace writes one op's pipelines; this manifest has several ops",
            Some("add --op NAME".into()),
        ));
    }
    let backend = session.backend()?;
    let soc = backend.soc();
    for op in &ops {
        printer.status(
            "Running",
            format!("{} on {} ({})", op.name, soc.name, backend.kind().as_str()),
        );
        let inputs = crate::tune::inputs(op);
        let (m, timings) =
            Evaluator::baseline_timed(backend.as_ref(), op, &inputs, args.trace.is_some())
                .map_err(|f| {
                    Error::NoValidCandidate(format!(
                        "op `{}` failed ({}): {}",
                        op.name,
                        f.kind.as_str(),
                        f.message
                    ))
                })?;
        printer.op_measured(&op.name, &m, backend.kind().as_str(), soc.name);
        printer.op_timings(&op.name, &timings);
        if let Some(note) = op.unverified_note() {
            printer.warn(note);
        }
        if let Some(path) = &args.trace {
            let json = crate::model::chrome::chrome_trace_json(&m.timing, soc);
            crate::fsx::write_atomic(path, json.as_bytes())?;
            printer.status(
                "Wrote",
                format!(
                    "{} (open it in ui.perfetto.dev or chrome://tracing)",
                    path.display()
                ),
            );
        }
    }
    Ok(exit_codes::OK)
}
