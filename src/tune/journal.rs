//! The journal: every trial of every run, as JSON lines under `target/ascend-tune/journal/<op>.jsonl`,
//! appended and flushed as each trial finishes (the database of TVM MetaSchedule). A trial is found again
//! by its key, a content hash of everything that decides its outcome, so an interrupted or repeated `tune`
//! never measures a candidate twice. A torn last line (a killed process) is skipped, never fatal.
//!
//! A full disk loses nothing it need not: a record that cannot be written stays in memory (and is served
//! from there) and goes out with the next write; a partly written line is cut off again, so the file only
//! ever holds whole lines. When the disk stays full for `WRITE_ATTEMPTS` writes in a row, `record` fails
//! with an error that says so, and the run stops cleanly.
//!
//! Format version 1: {"v":1,"key","op","index","params","rewrites","latency_us"?,"block_dim"?,"bound"?,
//! "pipes"?,"failure"?,"error"?,"samples"?,"retried"?,"injected"?}. Readers skip lines of other
//! versions. The last three fields were added within version 1 and are optional, so older lines read as
//! before: `samples` (the latency samples of a measured, not modelled, run; absent on twin trials),
//! `retried` and `injected` (the soak test's machine faults and injected faults).

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
    /// Why earlier attempts at this trial failed for the machine's sake (`infra`) and were retried.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub retried: Vec<String>,
    /// The fault the soak test injected into this trial (`bench --inject-faults`), if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub injected: Option<String>,
    /// For an op with several shapes (`[[op.shape]]`): the latency at each, by name (`declared` for
    /// the tensors' own); `latency_us` is then their weighted geometric mean. Empty for one shape.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub shapes: BTreeMap<String, f64>,
    /// Passed at the tuned shape (and the declared shapes) but not run on the generated shape probes:
    /// it was no faster than the baseline by the noise floor, so it could never be written back
    /// (`Evaluator::probe_bar`). Such a trial is never chosen; a later run whose bar it passes runs it
    /// again rather than take it from the journal.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub unprobed: bool,
    /// Where the run's UB buffers put its binary vector operands, for guided motifs (`Measurement::
    /// ub_use`); not journalled: a trial served from the journal has none.
    #[serde(skip)]
    pub ub_use: Option<std::sync::Arc<crate::model::ub_layout::UbUse>>,
}

/// Writes in a row a full disk may refuse before `record` gives up.
pub const WRITE_ATTEMPTS: u32 = 3;

pub struct Journal {
    path: PathBuf,
    file: std::fs::File,
    known: HashMap<String, Trial>,
    /// Lines recorded but not yet on disk (the disk was full), oldest first.
    pending: Vec<String>,
    /// Writes refused in a row.
    refused: u32,
    /// A failed write left part of a line that could not be cut off: start the next one on a new line.
    torn: bool,
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
        Ok(Journal {
            path,
            file,
            known,
            pending: vec![],
            refused: 0,
            torn: false,
        })
    }

    /// The trials a journal's text records, by key, and whether its last line is torn. Lines that do not
    /// parse, or are of another version, are skipped: the journal is a cache of results, never fatal.
    pub fn parse(text: &str) -> (HashMap<String, Trial>, bool) {
        let mut known = HashMap::new();
        let torn = !text.is_empty() && !text.ends_with('\n');
        for line in text.lines() {
            if let Ok(t) = serde_json::from_str::<Trial>(line)
                && t.v == VERSION
                && !matches!(t.failure, Some(FailureKind::Timeout | FailureKind::Infra))
            {
                // A timeout may be the machine's fault, not the candidate's, and an `infra` failure is:
                // try them again next time.
                known.insert(t.key.clone(), t);
            }
        }
        (known, torn)
    }

    pub fn get(&self, key: &str) -> Option<&Trial> {
        self.known.get(key)
    }

    /// Appends a trial and flushes it to disk before returning; on a full disk, keeps it for the next
    /// write (see the module comment).
    pub fn record(&mut self, trial: &Trial) -> Result<()> {
        let mut line = serde_json::to_string(trial).map_err(|e| Error::Internal(e.to_string()))?;
        line.push('\n');
        self.known.insert(trial.key.clone(), trial.clone());
        self.pending.push(line);
        self.flush()
    }

    /// Records not yet on disk.
    pub fn unsaved(&self) -> usize {
        self.pending.len()
    }

    /// Writes the records a full disk held back. Ok when all are on disk, or when the disk refused
    /// fewer than `WRITE_ATTEMPTS` writes in a row (they stay pending); an error otherwise.
    pub fn flush(&mut self) -> Result<()> {
        if self.pending.is_empty() {
            return Ok(());
        }
        let mut bytes = String::new();
        if self.torn {
            bytes.push('\n');
        }
        self.pending.iter().for_each(|l| bytes.push_str(l));
        let before = self.file.metadata().map(|m| m.len());
        let written = crate::fsx::append(&mut self.file, bytes.as_bytes())
            .and_then(|_| self.file.sync_data());
        let e = match written {
            Ok(()) => {
                self.pending.clear();
                self.refused = 0;
                self.torn = false;
                return Ok(());
            }
            Err(e) => e,
        };
        // Never leave part of a line: cut the file back to where this write began.
        self.torn = !before
            .as_ref()
            .is_ok_and(|&len| self.file.set_len(len).is_ok());
        if !crate::fsx::is_disk_full(&e) {
            return Err(Error::io("could not append to", &self.path, e));
        }
        self.refused += 1;
        if self.refused < WRITE_ATTEMPTS {
            return Ok(());
        }
        Err(Error::io(
            "could not append to",
            &self.path,
            std::io::Error::new(
                e.kind(),
                format!(
                    "the disk is full ({e}); {} finished trial(s) could not be saved after {} attempts. \
                     Free some space and run again: the trials already in the journal are not measured again",
                    self.pending.len(),
                    self.refused
                ),
            ),
        ))
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
            retried: vec![],
            injected: None,
            shapes: BTreeMap::new(),
            unprobed: false,
            ub_use: None,
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

#[cfg(test)]
mod full_disk_tests {
    use super::*;

    fn trial(key: &str) -> Trial {
        Trial {
            v: VERSION,
            key: key.into(),
            op: "add".into(),
            index: 0,
            params: BTreeMap::from([("t".into(), 8)]),
            rewrites: vec![],
            latency_us: Some(1.0),
            block_dim: Some(8),
            bound: None,
            pipes: BTreeMap::new(),
            failure: None,
            error: None,
            samples: vec![],
            retried: vec![],
            injected: None,
            shapes: BTreeMap::new(),
            unprobed: false,
            ub_use: None,
        }
    }

    fn lines(dir: &Path) -> Vec<Trial> {
        std::fs::read_to_string(dir.join("add.jsonl"))
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str(l).expect("every line whole"))
            .collect()
    }

    #[test]
    fn a_record_the_full_disk_refused_goes_out_with_the_next_write() {
        let dir = tempfile::tempdir().unwrap();
        let mut j = Journal::open(dir.path(), "add").unwrap();
        j.record(&trial("a")).unwrap();
        {
            let full = crate::fsx::inject::fill_disk();
            j.record(&trial("b")).unwrap();
            assert_eq!(full.refused(), 1);
        }
        assert_eq!(j.unsaved(), 1);
        assert!(j.get("b").is_some(), "served from memory meanwhile");
        let keys: Vec<String> = lines(dir.path()).into_iter().map(|t| t.key).collect();
        assert_eq!(keys, ["a"], "the half-written line was cut off");
        j.record(&trial("c")).unwrap();
        assert_eq!(j.unsaved(), 0);
        let keys: Vec<String> = lines(dir.path()).into_iter().map(|t| t.key).collect();
        assert_eq!(keys, ["a", "b", "c"]);
    }

    #[test]
    fn a_disk_that_stays_full_stops_the_run_with_whole_lines_on_disk() {
        let dir = tempfile::tempdir().unwrap();
        let mut j = Journal::open(dir.path(), "add").unwrap();
        j.record(&trial("a")).unwrap();
        let _full = crate::fsx::inject::fill_disk();
        j.record(&trial("b")).unwrap();
        j.record(&trial("c")).unwrap();
        let e = j.record(&trial("d")).unwrap_err().to_string();
        assert!(e.contains("the disk is full"), "{e}");
        assert!(
            e.contains("3 finished trial(s) could not be saved after 3 attempts"),
            "{e}"
        );
        assert!(e.contains("add.jsonl"), "{e}");
        let keys: Vec<String> = lines(dir.path()).into_iter().map(|t| t.key).collect();
        assert_eq!(keys, ["a"]);
    }
}
