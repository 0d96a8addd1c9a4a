//! Measurements from hardware profilers, and the statistics of repeated samples: `msprof` builds the
//! command line of `msprof op` (or `msopprof`, or the simulator) and reads the folders it writes;
//! `samples` reduces repeated latencies to a median with spread and says whether two such summaries
//! differ for real. Knows nothing of building, searching, backends or lockfiles: the `cann` backend runs
//! the commands and `check` asks for the verdicts.

pub mod msprof;
pub mod samples;
