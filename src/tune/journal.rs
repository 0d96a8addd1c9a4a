//! The journal: every trial of every run, as JSON lines under `target/ascend-tune/journal/<op>.jsonl`,
//! appended and flushed as each trial finishes (the database of TVM MetaSchedule). A trial is found again
//! by its key, a content hash of everything that decides its outcome, so an interrupted or repeated `tune`
//! never measures a candidate twice. A torn last line (a killed process) is skipped, never fatal.
//!
//! Format version 1: {"v":1,"key","op","index","params","rewrites","latency_us"?,"block_dim"?,"bound"?,
//! "pipes"?,"failure"?,"error"?,"samples"?}. Readers skip lines of other versions. `samples` (the latency
//! samples of a measured, not modelled, run) was added within version 1: optional, absent on twin
//! trials, so older lines read as before.

use crate::backend::FailureKind;
use crate::errors::{Error, Result};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, HashMap};
use std::io::Write;
use std::path::{Path, PathBuf};

pub const VERSION: u32 = 1;

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Trial {
    pub v: u32,
    pub key: String,
    pub op: String,
    pub index: usize,
    pub params: BTreeMap<String, i64>,
    #[serde(default)]
    pub rewrites: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub latency_us: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub block_dim: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bound: Option<String>,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub pipes: BTreeMap<String, f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failure: Option<FailureKind>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// Latency samples (us) of a measured run, whose median is `latency_us`; empty when modelled.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub samples: Vec<f64>,
}

pub struct Journal {
    path: PathBuf,
    file: std::fs::File,
    known: HashMap<String, Trial>,
}

impl Journal {
    /// Opens (creating if needed) the journal of `op` and reads what it already knows.
    pub fn open(dir: &Path, op: &str) -> Result<Journal> {
        crate::fsx::create_dir_all(dir)?;
        let path = dir.join(format!("{op}.jsonl"));
        let (known, torn) = match std::fs::read_to_string(&path) {
            Ok(text) => Self::parse(&text),
            Err(_) => (HashMap::new(), false),
        };
        let mut file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&path)
            .map_err(|e| Error::io("could not open", &path, e))?;
        if torn {
            // End the torn line so the next record starts on a line of its own.
            file.write_all(b"\n")
                .map_err(|e| Error::io("could not append to", &path, e))?;
        }
        Ok(Journal { path, file, known })
    }

    /// The trials a journal's text records, by key, and whether its last line is torn. Lines that do not
    /// parse, or are of another version, are skipped: the journal is a cache of results, never fatal.
    pub fn parse(text: &str) -> (HashMap<String, Trial>, bool) {
        let mut known = HashMap::new();
        let torn = !text.is_empty() && !text.ends_with('\n');
        for line in text.lines() {
            if let Ok(t) = serde_json::from_str::<Trial>(line)
                && t.v == VERSION
                && t.failure != Some(FailureKind::Timeout)
            {
                // A timeout may be the machine's fault, not the candidate's: try it again next time.
                known.insert(t.key.clone(), t);
            }
        }
        (known, torn)
    }

    pub fn get(&self, key: &str) -> Option<&Trial> {
        self.known.get(key)
    }

    /// Appends a trial and flushes it to disk before returning.
    pub fn record(&mut self, trial: &Trial) -> Result<()> {
        let mut line = serde_json::to_string(trial).map_err(|e| Error::Internal(e.to_string()))?;
        line.push('\n');
        self.file
            .write_all(line.as_bytes())
            .and_then(|_| self.file.sync_data())
            .map_err(|e| Error::io("could not append to", &self.path, e))?;
        self.known.insert(trial.key.clone(), trial.clone());
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn trial(key: &str, latency: Option<f64>) -> Trial {
        Trial {
            v: VERSION,
            key: key.into(),
            op: "add".into(),
            index: 0,
            params: BTreeMap::from([("t".into(), 8)]),
            rewrites: vec![],
            latency_us: latency,
            block_dim: Some(8),
            bound: None,
            pipes: BTreeMap::new(),
            failure: None,
            error: None,
            samples: vec![],
        }
    }

    #[test]
    fn records_survive_reopening_and_torn_lines_are_skipped() {
        let dir = tempfile::tempdir().unwrap();
        let mut j = Journal::open(dir.path(), "add").unwrap();
        j.record(&trial("a", Some(1.5))).unwrap();
        j.record(&trial("b", None)).unwrap();
        drop(j);
        let path = dir.path().join("add.jsonl");
        let mut text = std::fs::read_to_string(&path).unwrap();
        text.push_str("{\"v\":1,\"key\":\"c\",\"op\""); // killed mid-write
        std::fs::write(&path, text).unwrap();
        let mut j = Journal::open(dir.path(), "add").unwrap();
        j.record(&trial("d", Some(2.0))).unwrap();
        drop(j);
        let j = Journal::open(dir.path(), "add").unwrap();
        assert_eq!(j.get("d").unwrap().latency_us, Some(2.0));
        assert_eq!(j.get("a").unwrap().latency_us, Some(1.5));
        assert!(j.get("b").is_some());
        assert!(j.get("c").is_none());
    }

    #[test]
    fn measured_samples_are_kept_and_modelled_lines_are_unchanged() {
        let twin = serde_json::to_string(&trial("a", Some(1.5))).unwrap();
        assert!(!twin.contains("samples"), "{twin}");
        let mut measured = trial("m", Some(12.4));
        measured.samples = vec![12.4, 12.5, 12.3];
        let line = serde_json::to_string(&measured).unwrap();
        assert!(line.ends_with(r#""samples":[12.4,12.5,12.3]}"#), "{line}");
        let (known, _) = Journal::parse(&format!("{twin}\n{line}\n"));
        assert_eq!(known["m"], measured);
        assert!(known["a"].samples.is_empty());
    }
}
