// The performance model of the Da Vinci AI core: a twin trace in, a modelled latency, per-pipe utilisation and
// the bound out, from public hardware figures (FACTS.md §1-§4).
// Pure and deterministic: it knows nothing of building, running, files or the command line. Its numbers are
// "modelled", never hardware measurements.
//
//   soc.rs       SoC parameter tables, each figure with its source
//   trace.rs     the twin trace format: parsing and validation, typed errors with line numbers
//   memory.rs    the memory system over a launch: L2 hits and misses, write-backs, same-address reads
//   costs.rs     what one instruction costs (DMA engine, vector classes, bank conflicts, launch, constants)
//   cube.rs      what the cube pipes' instructions cost (MTE1 loads, Mmad, FIX to L1)
//   pipeline.rs  when instructions run: pipes, flags, barriers, cores, chip bandwidth; the bound
//   unitflag.rs  the Mmad / Fixpipe overlap under UnitFlag (per 512-byte L0C block, not by flags)
//   chrome.rs    Chrome/Perfetto JSON of a modelled launch

pub mod chrome;
pub mod costs;
pub mod cube;
pub mod memory;
pub mod pipeline;
pub mod race;
pub mod soc;
pub mod trace;
pub mod ub_layout;
pub mod unitflag;

pub use chrome::chrome_trace_json;
pub use pipeline::{
    BlockTiming, Bound, PipeBusy, PipeStat, SimOptions, Span, Timing, roofline_us, simulate,
    trace_gm_bytes,
};
pub use soc::{MemSys, Soc};
pub use trace::{Pipe, Trace, TraceError, parse};

/// Parses a twin trace and models it: the one call most users need.
pub fn model_trace(text: &str, soc: &Soc, opts: &SimOptions) -> Result<Timing, TraceError> {
    Ok(simulate(&parse(text)?, soc, opts))
}
