//! One entry point per parser of outside input, each taking raw bytes and required never to panic:
//! the targets of the cargo-fuzz crate in `fuzz/` (by hand, on nightly) and of the deterministic
//! mutation test `tests/fuzz_smoke.rs` (in CI, on stable). Each reads the bytes the way the tool reads
//! the file (UTF-8 first, as `read_to_string` does) and, on an error, renders the message the user would
//! see, since a bad span or line number would panic there rather than in the parser. Knows nothing of
//! fuzzing engines.

use std::path::{Path, PathBuf};

/// An entry point: bytes in, nothing out, never a panic.
pub type Target = fn(&[u8]);

/// Every entry point by name, in the order of the fuzz targets.
pub const TARGETS: &[(&str, Target)] = &[
    ("manifest", manifest),
    ("lockfile", lockfile),
    ("journal", journal),
    ("bank", bank),
    ("trace", trace),
    ("last_run", last_run),
    ("tiling_result", tiling_result),
    ("msprof", msprof),
];

fn text(data: &[u8]) -> Option<String> {
    String::from_utf8(data.to_vec()).ok()
}

/// Renders a diagnostic as the command line would (spans, labels, help), discarding the text.
fn render(d: &dyn miette::Diagnostic) {
    let mut out = String::new();
    let _ = miette::GraphicalReportHandler::new_themed(miette::GraphicalTheme::unicode_nocolor())
        .render_report(&mut out, d);
}

/// `ascend.toml`, as `Manifest::load` reads it (paths checked against a folder that does not exist).
pub fn manifest(data: &[u8]) {
    let Some(t) = text(data) else { return };
    if let Err(e) = crate::manifest::Manifest::parse(t, Path::new("/nonexistent-fuzz/ascend.toml"))
    {
        render(&e);
    }
}

/// `ascend-tune.lock`, parsed and, when it parses, written back out.
pub fn lockfile(data: &[u8]) {
    let Some(t) = text(data) else { return };
    match crate::lockfile::Lockfile::parse(&t, Path::new("ascend-tune.lock")) {
        Ok(lock) => {
            let _ = lock.render();
        }
        Err(e) => render(&e),
    }
}

/// A journal `target/ascend-tune/journal/<op>.jsonl`. Lossy, as a torn or corrupted journal is read.
pub fn journal(data: &[u8]) {
    let _ = crate::tune::journal::Journal::parse(&String::from_utf8_lossy(data));
}

/// A bank file (`ascend-bank.toml` or `--bank FILE`).
pub fn bank(data: &[u8]) {
    let Some(t) = text(data) else { return };
    if let Err(e) = crate::bank::Bank::parse(&t, "fuzz.toml") {
        render(&e);
    }
}

/// The twin's trace, parsed and run through the performance model on the default SoC.
pub fn trace(data: &[u8]) {
    let t = String::from_utf8_lossy(data);
    if let Err(e) = crate::model::trace::parse(&t) {
        let _ = e.to_string();
        return;
    }
    let soc = &crate::model::soc::all()[0];
    let _ = crate::model::model_trace(&t, soc, &Default::default());
}

/// The run record `target/ascend-tune/runs/<op>.json` that `report` reads.
pub fn last_run(data: &[u8]) {
    let Some(t) = text(data) else { return };
    if let Err(e) = crate::tune::last_run::LastRun::parse(&t, Path::new("last-run.json")) {
        render(&e);
    }
}

/// What a candidate's tiling program writes back (a candidate is code under tuning: hostile input).
pub fn tiling_result(data: &[u8]) {
    let _ = crate::twin::protocol::parse_tiling_result(&String::from_utf8_lossy(data));
}

/// The files of a bundle: each starts at a line `==> path <==` (as `head` prints several files) and runs
/// to the next; bytes before the first such line are an `OpBasicInfo.csv`, so a bare CSV is a bundle too.
/// The seeds in `fuzz/seeds/msprof/` are recorded folders of `fixtures/msprof/` in this form.
pub fn bundle_files(data: &[u8]) -> Vec<(PathBuf, Vec<u8>)> {
    let mut files: Vec<(PathBuf, Vec<u8>)> = vec![];
    let mut current = (PathBuf::from("OpBasicInfo.csv"), vec![]);
    for line in data.split_inclusive(|&b| b == b'\n') {
        let bare = line.strip_suffix(b"\n").unwrap_or(line);
        if let Some(name) = bare
            .strip_prefix(b"==> ")
            .and_then(|r| r.strip_suffix(b" <=="))
        {
            if !(files.is_empty() && current.1.is_empty()) {
                files.push(current);
            }
            current = (PathBuf::from(String::from_utf8_lossy(name).trim()), vec![]);
        } else {
            current.1.extend_from_slice(line);
        }
    }
    files.push(current);
    files
}

/// An msprof output folder, as a bundle (`bundle_files`): read as an op run (`read_files`), as a
/// simulator run, and the launches' durations summarised and compared as `check` would.
pub fn msprof(data: &[u8]) {
    use crate::measure::{msprof as m, samples};
    let files = bundle_files(data);
    let root = Path::new("fuzz-run");
    match m::read_files(root, &files) {
        Ok(launches) => {
            let d = m::task_durations(&launches, "");
            if let Some(s) = samples::Summary::of(&d) {
                let _ = samples::compare(&s, &samples::Summary::point(s.median * 1.1), 0.02);
                let _ = samples::compare(&samples::Summary::point(s.max), &s, 0.0);
            }
        }
        Err(e) => {
            let _ = e.to_string();
            render(&e);
        }
    }
    match m::read_simulator_files(root, &files) {
        Ok(cores) => {
            for c in &cores {
                let _ = (c.running_time_us(), c.pipe_time_us());
            }
        }
        Err(e) => render(&e),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_seed_bundle_reads_as_its_recorded_folder() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        let seed = std::fs::read(root.join("fuzz/seeds/msprof/910b_single_op.bundle")).unwrap();
        let files = bundle_files(&seed);
        let names: Vec<String> = files.iter().map(|f| f.0.display().to_string()).collect();
        assert_eq!(
            names,
            [
                "OPPROF_20250110153012_KQWRTZUA/L2Cache.csv",
                "OPPROF_20250110153012_KQWRTZUA/Memory.csv",
                "OPPROF_20250110153012_KQWRTZUA/OpBasicInfo.csv",
                "OPPROF_20250110153012_KQWRTZUA/PipeUtilization.csv"
            ]
        );
        let dir = root.join("fixtures/msprof/910b_single_op");
        let from_memory = crate::measure::msprof::read_files(&dir, &files).unwrap();
        assert_eq!(from_memory, crate::measure::msprof::read_run(&dir).unwrap());
    }

    #[test]
    fn a_bare_csv_is_an_op_basic_info() {
        let files = bundle_files(b"Op Name,Op Type,Task Duration(us),Block Dim\nk,vector,1.5,2\n");
        assert_eq!(files.len(), 1);
        assert_eq!(files[0].0, Path::new("OpBasicInfo.csv"));
        let runs = crate::measure::msprof::read_files(Path::new("r"), &files).unwrap();
        assert_eq!(runs[0].task_duration_us, 1.5);
    }
}
