//! `ascend-tune.lock`: what tuning chose, written by our own emitter so the file is deterministic (a
//! header, the version first, entries sorted by key, fixed float format, no timestamps) and not rewritten
//! when nothing changed. One entry per (op, shape, soc, backend).
//!
//! Versions: 1 — the first format (entries `[[op]]` with params, rewrites, latencies, source hashes).
//! Within version 1, an entry may carry `latency-samples = { n, median, p20, p80, min, max }`: the
//! spread of a measured (hardware) tuned latency, written only when there is one, so locks without it
//! read and render exactly as before. A reader that meets a newer version says which tool to use.

use crate::errors::Result;
use crate::fsx;
use crate::measure::samples::Summary;
use miette::Diagnostic;
use serde::Deserialize;
use std::collections::BTreeMap;
use std::fmt::Write;
use std::path::{Path, PathBuf};

pub const FILE_NAME: &str = "ascend-tune.lock";
pub const VERSION: u32 = 1;

#[derive(Debug, thiserror::Error, Diagnostic)]
#[error("{path}: {message}")]
pub struct LockError {
    pub path: PathBuf,
    pub message: String,
    #[help]
    pub help: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct Entry {
    pub name: String,
    pub shape: String,
    pub soc: String,
    pub backend: String,
    pub latency_us: f64,
    /// The spread of `latency_us` when it was measured from repeated samples (not modelled): what
    /// `check` compares a fresh measurement's spread with. Absent for the twin and in older locks.
    #[serde(default, deserialize_with = "samples")]
    pub latency_samples: Option<Summary>,
    pub baseline_latency_us: f64,
    /// True when latencies come from the twin's performance model, not hardware.
    pub modelled: bool,
    pub strategy: String,
    pub seed: u64,
    pub trials: usize,
    pub tool: String,
    pub toolchain: String,
    pub space: String,
    #[serde(default)]
    pub params: BTreeMap<String, i64>,
    #[serde(default)]
    pub rewrites: Vec<String>,
    /// Content hash of each source file as written back, by path relative to the project root.
    #[serde(default)]
    pub sources: BTreeMap<String, String>,
}

impl Entry {
    pub fn key(&self) -> (&str, &str, &str, &str) {
        (&self.name, &self.shape, &self.soc, &self.backend)
    }

    /// The files whose current contents no longer match what was locked. A file of `current` that the
    /// lock does not name is a change, except the `unlisted_ok` ones: files that a lock written by an
    /// older version did not record (the op's kernel headers, `tune::header_sources`).
    pub fn stale_sources(
        &self,
        current: &BTreeMap<String, String>,
        unlisted_ok: &[String],
    ) -> Vec<String> {
        let mut stale: Vec<String> = self
            .sources
            .iter()
            .filter(|(f, h)| {
                current.get(*f).map(|text| fsx::hash_hex(text.as_bytes())) != Some(h.to_string())
            })
            .map(|(f, _)| f.clone())
            .collect();
        stale.extend(
            current
                .keys()
                .filter(|f| !self.sources.contains_key(*f) && !unlisted_ok.contains(f))
                .cloned(),
        );
        stale
    }
}

/// `latency-samples` as written: every figure of a summary, nothing else.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct WireSamples {
    n: usize,
    median: f64,
    p20: f64,
    p80: f64,
    min: f64,
    max: f64,
}

/// Reads `latency-samples`, refusing a summary whose figures are out of order or not finite (it would
/// make `check` compare against nonsense).
fn samples<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<Summary>, D::Error> {
    let w = WireSamples::deserialize(d)?;
    let ordered = [w.min, w.p20, w.median, w.p80, w.max];
    if w.n == 0
        || !ordered.iter().all(|v| v.is_finite() && *v >= 0.0)
        || !ordered.windows(2).all(|p| p[0] <= p[1])
    {
        return Err(serde::de::Error::custom(
            "latency-samples needs n >= 1 and finite figures with min <= p20 <= median <= p80 <= max",
        ));
    }
    Ok(Some(Summary {
        n: w.n,
        median: w.median,
        p20: w.p20,
        p80: w.p80,
        min: w.min,
        max: w.max,
    }))
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Wire {
    version: u32,
    #[serde(default)]
    op: Vec<Entry>,
}

#[derive(Debug, Clone, Default, PartialEq)]
pub struct Lockfile {
    pub entries: Vec<Entry>,
}

impl Lockfile {
    pub fn path(root: &Path) -> PathBuf {
        root.join(FILE_NAME)
    }

    /// Reads the lockfile; a missing file is an empty lockfile.
    pub fn load(path: &Path) -> Result<Lockfile> {
        let text = match std::fs::read_to_string(path) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Lockfile::default()),
            Err(e) => return Err(crate::errors::Error::io("could not read", path, e)),
        };
        Ok(Self::parse(&text, path)?)
    }

    pub fn parse(text: &str, path: &Path) -> Result<Lockfile, LockError> {
        let err = |message: String, help: &str| LockError {
            path: path.to_path_buf(),
            message,
            help: Some(help.to_string()),
        };
        let version = text
            .parse::<toml::Table>()
            .map_err(|e| err(format!("not valid TOML: {}", e.message()), "restore it from version control, or delete it and run `cargo ascend-tune tune` again"))?
            .get("version")
            .and_then(|v| v.as_integer());
        match version {
            Some(v) if v == VERSION as i64 => {}
            Some(v) if v > VERSION as i64 => {
                return Err(err(
                    format!("lockfile version {v} is newer than this tool reads (up to {VERSION})"),
                    "upgrade cargo-ascend-tune (`cargo install cargo-ascend-tune`) to read it",
                ));
            }
            _ => {
                return Err(err(
                    "has no valid `version`".into(),
                    "restore it from version control, or delete it and tune again",
                ));
            }
        }
        let wire: Wire = toml::from_str(text).map_err(|e| {
            let line = e.span().map(|s| crate::manifest::line_col(text, s.start).0);
            let at = line.map(|l| format!(" (line {l})")).unwrap_or_default();
            err(
                format!("cannot be read{at}: {}", e.message()),
                "restore it from version control, or delete it and tune again",
            )
        })?;
        let _ = wire.version;
        Ok(Lockfile { entries: wire.op })
    }

    pub fn find(&self, name: &str, shape: &str, soc: &str, backend: &str) -> Option<&Entry> {
        self.entries
            .iter()
            .find(|e| e.key() == (name, shape, soc, backend))
    }

    /// Adds or replaces the entry with the same key.
    pub fn upsert(&mut self, entry: Entry) {
        self.entries.retain(|e| e.key() != entry.key());
        self.entries.push(entry);
    }

    /// The file's text: deterministic for the same entries.
    pub fn render(&self) -> String {
        let mut entries: Vec<&Entry> = self.entries.iter().collect();
        entries.sort_by(|a, b| a.key().cmp(&b.key()));
        let mut s = String::new();
        s.push_str(
            "# This file is written by cargo-ascend-tune. Commit it; do not edit it by hand.\n",
        );
        s.push_str("# `cargo ascend-tune check` fails when an op is slower than recorded here.\n");
        let _ = writeln!(s, "version = {VERSION}");
        for e in entries {
            s.push_str("\n[[op]]\n");
            let _ = writeln!(s, "name = {}", quote(&e.name));
            let _ = writeln!(s, "shape = {}", quote(&e.shape));
            let _ = writeln!(s, "soc = {}", quote(&e.soc));
            let _ = writeln!(s, "backend = {}", quote(&e.backend));
            let _ = writeln!(s, "latency-us = {}", float(e.latency_us));
            if let Some(m) = &e.latency_samples {
                let _ = writeln!(
                    s,
                    "latency-samples = {{ n = {}, median = {}, p20 = {}, p80 = {}, min = {}, max = {} }}",
                    m.n,
                    float(m.median),
                    float(m.p20),
                    float(m.p80),
                    float(m.min),
                    float(m.max)
                );
            }
            let _ = writeln!(s, "baseline-latency-us = {}", float(e.baseline_latency_us));
            let _ = writeln!(s, "modelled = {}", e.modelled);
            let _ = writeln!(s, "strategy = {}", quote(&e.strategy));
            let _ = writeln!(s, "seed = {}", e.seed);
            let _ = writeln!(s, "trials = {}", e.trials);
            let _ = writeln!(s, "tool = {}", quote(&e.tool));
            let _ = writeln!(s, "toolchain = {}", quote(&e.toolchain));
            let _ = writeln!(s, "space = {}", quote(&e.space));
            let params: Vec<String> = e
                .params
                .iter()
                .map(|(k, v)| format!("{} = {v}", key(k)))
                .collect();
            let _ = writeln!(s, "params = {{ {} }}", params.join(", "));
            let rewrites: Vec<String> = e.rewrites.iter().map(|r| quote(r)).collect();
            let _ = writeln!(s, "rewrites = [{}]", rewrites.join(", "));
            s.push_str("\n[op.sources]\n");
            for (f, h) in &e.sources {
                let _ = writeln!(s, "{} = {}", quote(f), quote(h));
            }
        }
        s
    }

    /// Writes the lockfile atomically, and not at all when its text would not change.
    pub fn write(&self, path: &Path) -> Result<bool> {
        let text = self.render();
        if std::fs::read_to_string(path).is_ok_and(|old| old == text) {
            return Ok(false);
        }
        fsx::write_atomic(path, text.as_bytes())?;
        Ok(true)
    }
}

/// Floats with three decimals: stable across platforms and runs, and enough for microseconds.
fn float(v: f64) -> String {
    format!("{v:.3}")
}

fn quote(s: &str) -> String {
    toml::Value::String(s.to_string()).to_string()
}

fn key(k: &str) -> String {
    if crate::manifest::is_identifier(k) {
        k.to_string()
    } else {
        quote(k)
    }
}

#[cfg(test)]
mod tests;
