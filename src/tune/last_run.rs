//! The record of an op's last tuning run, `target/ascend-tune/journal/<op>.last-run.json`: its options,
//! baseline, every trial in the order the run charged them (journal hits included, which the append-only
//! journal does not repeat), the rewrites the loop tried and what came of them, and the best result.
//! Written atomically when a run ends; `report` renders it. Version 1.

use super::TuneResult;
use super::journal::Trial;
use crate::errors::{Error, Result};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

pub const VERSION: u32 = 1;

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct LastRun {
    pub v: u32,
    pub tool: String,
    pub op: String,
    pub strategy: String,
    pub budget: usize,
    pub seed: u64,
    pub backend: String,
    pub soc: String,
    /// True when latencies come from the twin's model, not hardware.
    pub modelled: bool,
    pub baseline_us: f64,
    pub best_us: Option<f64>,
    pub best_params: BTreeMap<String, i64>,
    pub best_rewrites: Vec<String>,
    pub wall_s: f64,
    pub builds: usize,
    pub build_cache_hits: usize,
    pub journal_hits: usize,
    pub rewrites_tried: Vec<(String, String)>,
    pub trials: Vec<Trial>,
}

impl LastRun {
    pub fn of(
        result: &TuneResult,
        opts: &super::TuneOptions,
        backend: &str,
        soc: &str,
        wall_s: f64,
    ) -> LastRun {
        let best = result.best.as_ref();
        LastRun {
            v: VERSION,
            tool: env!("CARGO_PKG_VERSION").to_string(),
            op: result.op.clone(),
            strategy: opts.strategy.clone(),
            budget: opts.budget,
            seed: opts.seed,
            backend: backend.to_string(),
            soc: soc.to_string(),
            modelled: result.baseline.modelled,
            baseline_us: result.baseline.latency_us,
            best_us: best.and_then(|b| b.trial.latency_us),
            best_params: best.map(|b| b.trial.params.clone()).unwrap_or_default(),
            best_rewrites: best.map(|b| b.variant.rewrites.clone()).unwrap_or_default(),
            wall_s,
            builds: result.builds,
            build_cache_hits: result.build_cache_hits,
            journal_hits: result.journal_hits,
            rewrites_tried: result.rewrites_tried.clone(),
            trials: result.trials.clone(),
        }
    }

    pub fn path(work: &Path, op: &str) -> PathBuf {
        work.join("journal").join(format!("{op}.last-run.json"))
    }

    pub fn write(&self, work: &Path) -> Result<()> {
        let path = Self::path(work, &self.op);
        crate::fsx::create_dir_all(path.parent().expect("a journal folder"))?;
        let text =
            serde_json::to_string_pretty(self).map_err(|e| Error::Internal(e.to_string()))?;
        crate::fsx::write_atomic(&path, text.as_bytes())
    }

    pub fn read(work: &Path, op: &str) -> Result<LastRun> {
        let path = Self::path(work, op);
        let text = std::fs::read_to_string(&path).map_err(|_| {
            Error::bad_input(
                format!(
                    "no tuning run of `{op}` on record ({} is missing)",
                    path.display()
                ),
                Some("run `cargo ascend-tune tune` first; `report` shows the last run".into()),
            )
        })?;
        Self::parse(&text, &path)
    }

    /// A run record from its text; `path` is only for messages.
    pub fn parse(text: &str, path: &Path) -> Result<LastRun> {
        let run: LastRun = serde_json::from_str(text).map_err(|e| {
            Error::bad_input(
                format!("{}:{}: not a run record: {e}", path.display(), e.line()),
                Some("run `cargo ascend-tune tune` again to rewrite it".into()),
            )
        })?;
        if run.v != VERSION {
            return Err(Error::bad_input(
                format!(
                    "{}: run record version {} is not {VERSION}",
                    path.display(),
                    run.v
                ),
                Some("run `cargo ascend-tune tune` again with this tool".into()),
            ));
        }
        Ok(run)
    }
}
