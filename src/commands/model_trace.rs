//! `model-trace FILE... [--soc SOC]`: times twin traces that a program left outside the tool (a
//! kernel-launch or `.asc` program built against the twin package writes `twin.trace`) with the
//! performance model, and prints the modelled latency, per-pipe busy time and the bound, one record per
//! file. Owns reading the files and choosing the SoC; knows nothing of how the trace was made, nor of
//! the model's insides (`crate::model::model_trace` does the timing). Figures are modelled, never
//! measured.

use crate::errors::{Error, Result};
use crate::exit_codes;
use crate::model::pipeline::SimOptions;
use crate::report::Printer;
use serde_json::json;
use std::path::Path;

/// The SoC when neither `--soc` nor `$ASCEND_TWIN_SOC` names one: twin-asc's default too.
const DEFAULT_SOC: &str = "Ascend910B1";

pub fn model_trace(
    files: &[std::path::PathBuf],
    soc: Option<&str>,
    printer: &Printer,
) -> Result<i32> {
    let env_soc = std::env::var("ASCEND_TWIN_SOC")
        .ok()
        .filter(|s| !s.trim().is_empty());
    let soc_name = soc
        .map(str::to_string)
        .or(env_soc)
        .unwrap_or_else(|| DEFAULT_SOC.into());
    let soc = crate::model::soc::lookup(&soc_name).ok_or_else(|| {
        let names: Vec<&str> = crate::model::soc::all().iter().map(|s| s.name).collect();
        Error::bad_input(
            format!("unknown SoC `{soc_name}` (from --soc or $ASCEND_TWIN_SOC)"),
            Some(format!("name one of: {}", names.join(", "))),
        )
    })?;
    if files.is_empty() {
        return Err(Error::bad_input(
            "model-trace needs at least one trace file",
            Some("pass the twin.trace a twin-package program wrote, e.g. `cargo ascend-tune model-trace twin.trace`".into()),
        ));
    }
    for file in files {
        let timing = model_file(file, soc)?;
        let path = file.display().to_string();
        if printer.json() {
            println!(
                "{}",
                json!({
                    "reason": "trace-modelled",
                    "trace": path,
                    "soc": soc.name,
                    "clock_ghz": soc.clock_ghz,
                    "modelled": true,
                    "latency_us": timing.latency_us,
                    "block_dim": timing.block_dim,
                    "cores": timing.cores,
                    "bound": timing.bound,
                    "launch_us": timing.launch_us,
                    "gm_bytes": timing.gm_bytes,
                    "roofline_us": timing.roofline_us,
                    "pipes": timing.pipes,
                    "notes": timing.notes,
                })
            );
            continue;
        }
        println!(
            "{path}: {:.3} us modelled on {} (block_dim {}, {} cores), bound: {}",
            timing.latency_us, soc.name, timing.block_dim, timing.cores, timing.bound
        );
        if !printer.quiet {
            println!("  pipe        busy (us)    ratio  msprof column");
            for p in &timing.pipes {
                println!(
                    "  {:<8} {:>12.3} {:>8.3}  {}",
                    p.pipe.as_str(),
                    p.busy_us,
                    p.ratio,
                    p.name
                );
            }
            for n in &timing.notes {
                println!("  note: {n}");
            }
            println!(
                "  note: modelled by the twin's performance model of the Ascend AI core, not measured on hardware"
            );
        }
    }
    Ok(exit_codes::OK)
}

fn model_file(file: &Path, soc: &crate::model::Soc) -> Result<crate::model::Timing> {
    let text = std::fs::read_to_string(file).map_err(|e| Error::io("could not read", file, e))?;
    crate::model::model_trace(&text, soc, &SimOptions::default()).map_err(|e| {
        let at = e.line().map(|l| format!(":{l}")).unwrap_or_default();
        Error::bad_input(
            format!("{}{at}: not a twin trace the model can read: {e}", file.display()),
            Some("pass the twin.trace that a program built against the twin package wrote (ASCEND_TWIN_TRACE names it)".into()),
        )
    })
}
