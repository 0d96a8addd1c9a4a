//! One entry point per parser of outside input, each taking raw bytes and required never to panic:
//! the targets of the cargo-fuzz crate in `fuzz/` (by hand, on nightly) and of the deterministic
//! mutation test `tests/fuzz_smoke.rs` (in CI, on stable). Each reads the bytes the way the tool reads
//! the file (UTF-8 first, as `read_to_string` does) and, on an error, renders the message the user would
//! see, since a bad span or line number would panic there rather than in the parser. Knows nothing of
//! fuzzing engines.

use std::path::Path;

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
