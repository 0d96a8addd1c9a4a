//! `run`: build and run the current sources once, print latency, per-pipe utilisation and the bound,
//! check the outputs where it can (the manifest's `golden` command; warnings for degenerate outputs),
//! and say how long every step took on this machine (wall clock: opening the backend, which compiles
//! the twin runtime once per machine, the build, the run and the golden check); `--trace` writes the
//! modelled pipelines as a Chrome/Perfetto trace.

use super::Session;
use crate::cli::args::{Common, RunArgs};
use crate::errors::{Error, Result};
use crate::exit_codes;
use crate::report::{Printer, RunTimings};
use crate::tune::evaluate::Evaluator;
use crate::verify::golden;
use std::time::Instant;

pub fn run(common: &Common, args: &RunArgs, printer: &Printer) -> Result<i32> {
    let mut waited_since = Instant::now();
    let session = Session::open(common)?;
    let ops = session.ops(args.op.as_deref())?;
    if args.trace.is_some() && ops.len() > 1 {
        return Err(Error::bad_input(
            "--trace writes one op's pipelines; this manifest has several ops",
            Some("add --op NAME".into()),
        ));
    }
    let opened = Instant::now();
    let backend = session.backend()?;
    let mut setup = Some((opened.elapsed(), backend.setup()));
    let soc = backend.soc();
    let mut failed = vec![];
    for op in &ops {
        printer.status(
            "Running",
            format!("{} on {} ({})", op.name, soc.name, backend.kind().as_str()),
        );
        let started = Instant::now();
        let inputs = crate::tune::inputs(op);
        let inputs_time = started.elapsed();
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
        if let Some(note) = crate::model::soc::assumed_figures(soc).filter(|_| m.modelled) {
            printer.warn(format!("op `{}`: {note}", op.name));
        }
        for w in folded_overruns(&m.warnings) {
            printer.warn(format!("op `{}`, in the twin's kernel run: {w}", op.name));
        }
        for r in &m.timing.ub_races {
            printer.warn(format!(
                "op `{}`: {} (the twin runs copies in program order, so its outputs cannot show it; the NPU may not)",
                op.name,
                r.describe()
            ));
        }
        let started = Instant::now();
        for w in golden::degenerate(op, &inputs.tensors, &m.outputs) {
            printer.warn(w);
        }
        for w in unwritten_warnings(
            backend.as_ref(),
            &session.manifest.root,
            op,
            &timings.artifact,
            &inputs,
            &m.outputs,
        ) {
            printer.warn(w);
        }
        let mut checks_time = started.elapsed();
        if let Some(command) = &op.golden {
            let verdict = golden::check(
                op,
                command,
                &session.manifest.root,
                &session.work,
                &inputs.tensors,
                &m.outputs,
            )
            .map_err(|e| {
                Error::bad_input(
                    format!("op `{}`: {}", op.name, e.0),
                    Some("fix `golden` of this op in ascend.toml: a program and its arguments, run without a shell in the project root".into()),
                )
            })?;
            checks_time = started.elapsed();
            printer.op_golden(&op.name, command, &verdict);
            if let golden::Verdict::Failed(why) = verdict {
                failed.push(format!("op `{}`: {why}", op.name));
            }
        }
        if let Some(note) = op.unverified_note() {
            printer.warn(note);
        }
        // The further shapes the op declares (`[[op.shape]]`), each measured and checked the same way,
        // reported as `<op>@<shape>`.
        for (shape_name, _, case) in op.cases().into_iter().skip(1) {
            let label = format!("{}@{shape_name}", op.name);
            let inputs = crate::tune::inputs(&case);
            let m = Evaluator::baseline(backend.as_ref(), &case, &inputs, false).map_err(|f| {
                Error::NoValidCandidate(format!(
                    "op `{}` failed at its shape `{shape_name}` {:?} ({}): {}",
                    op.name,
                    crate::tune::probes::main_shape(&case),
                    f.kind.as_str(),
                    f.message
                ))
            })?;
            printer.op_measured(&label, &m, backend.kind().as_str(), soc.name);
            for w in golden::degenerate(&case, &inputs.tensors, &m.outputs) {
                printer.warn(format!("shape `{shape_name}`: {w}"));
            }
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
        printer.op_timings(
            &op.name,
            &RunTimings {
                setup: setup.take(),
                inputs: inputs_time,
                build: timings.build,
                cached: timings.cached,
                run: timings.run,
                checks: checks_time,
                golden: op.golden.is_some(),
                total: waited_since.elapsed(),
            },
        );
        waited_since = Instant::now();
    }
    if !failed.is_empty() {
        return Err(Error::NoValidCandidate(failed.join("\n")));
    }
    Ok(exit_codes::OK)
}

/// Warnings for the elements of `outputs` (a run of `op` built as `artifact`) that depend on what the
/// output held before the kernel ran (`tune::probes::unwritten`: a second run with the outputs filled
/// first, only where some element is zero and so could hide one), as `run` prints them and `init`'s
/// degenerate-output fit counts them. An output the OpDef has the framework fill first (`InitValue`)
/// may be accumulated into or left as it is: nothing is said of it.
pub(crate) fn unwritten_warnings(
    backend: &dyn crate::backend::Backend,
    root: &std::path::Path,
    op: &crate::manifest::OpSpec,
    artifact: &crate::backend::Artifact,
    inputs: &crate::backend::Inputs,
    outputs: &[Vec<u8>],
) -> Vec<String> {
    if !golden::may_hide_unwritten(op, outputs) {
        return vec![];
    }
    let unwritten = crate::tune::probes::unwritten(backend, op, artifact, inputs, outputs);
    let filled = initialised_outputs(root, op);
    let unwritten: Vec<_> = op
        .outputs
        .iter()
        .zip(unwritten)
        .map(|(t, r)| if filled.contains(&t.name) { vec![] } else { r })
        .collect();
    golden::unwritten_warnings(op, &unwritten)
}

/// The outputs of `op` whose OpDef (in its host files, the `OP_ADD` of its type) sets `.InitValue(...)`:
/// the framework fills them before the kernel runs.
fn initialised_outputs(root: &std::path::Path, op: &crate::manifest::OpSpec) -> Vec<String> {
    op.host
        .iter()
        .filter_map(|f| std::fs::read_to_string(root.join(f)).ok())
        .flat_map(|text| crate::project::opdef::read_opdefs(&text))
        .filter(|d| d.op_type == op.op_type)
        .flat_map(|d| d.outputs)
        .filter(|p| p.init_value)
        .map(|p| p.name)
        .collect()
}

/// The twin's warnings as `run` shows them: a kernel that computes past its UB buffers does so at many
/// call sites (ops-math's asinh at one element: every vector instruction of its tile, 14 warnings), so
/// past the first `SHOWN` such warnings the rest become one line that counts them.
fn folded_overruns(warnings: &[String]) -> Vec<String> {
    use crate::backend::twin::past_ub_buffer;
    const SHOWN: usize = 3;
    let overruns = warnings.iter().filter(|w| past_ub_buffer(w)).count();
    let mut out: Vec<String> = warnings
        .iter()
        .scan(0, |seen, w| {
            *seen += usize::from(past_ub_buffer(w));
            Some((*seen, w))
        })
        .filter(|(seen, w)| !past_ub_buffer(w) || *seen <= SHOWN)
        .map(|(_, w)| w.clone())
        .collect();
    if overruns > SHOWN {
        out.push(format!(
            "and {} more vector instructions read or write past the end of their UB buffer \
             (ASCEND_TUNE_KEEP_RUNS=1 keeps the run's kernel.err with every one)",
            overruns - SHOWN
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::folded_overruns;

    #[test]
    fn overruns_past_the_third_are_counted_on_one_line() {
        let over = |api: &str| {
            format!(
                "{api} reads or writes 256 bytes of UB from address 0, past the end of its UB buffer (32 bytes)"
            )
        };
        let other =
            "DataCopy: 12 bytes is not a multiple of 32; only 0 bytes are copied".to_string();
        let warnings = vec![
            over("Abs"),
            other.clone(),
            over("Mul"),
            over("Add"),
            over("Sqrt"),
            over("Ln"),
        ];
        let shown = folded_overruns(&warnings);
        assert_eq!(shown.len(), 5, "{shown:?}");
        assert_eq!(shown[..4], [over("Abs"), other, over("Mul"), over("Add")]);
        assert!(
            shown[4].starts_with("and 2 more vector instructions"),
            "{}",
            shown[4]
        );
        // Three or fewer stay as they are.
        assert_eq!(folded_overruns(&warnings[..4]), warnings[..4].to_vec());
    }
}
