//! What a tuning run chose for an op, and the lockfile entry that records it: the best candidate when it
//! beats the sources as they are, else those sources unchanged. `tune` and the bench's soak test both
//! write back and lock through this, so the two cannot drift apart. It builds values; it writes nothing.

use super::{TuneOptions, TuneResult};
use crate::backend::Backend;
use crate::fsx;
use crate::lockfile::Entry;
use crate::manifest::OpSpec;
use crate::measure::samples::Summary;
use std::collections::BTreeMap;

pub struct Choice {
    pub params: BTreeMap<String, i64>,
    pub latency_us: f64,
    /// Files whose text the choice changes, with their new text.
    pub patched: BTreeMap<String, String>,
    pub rewrites: Vec<String>,
    /// Whether a candidate beat the sources (else the choice is the sources as they are).
    pub improved: bool,
    /// The spread of a measured (not modelled) latency, when there is more than one sample.
    pub latency_samples: Option<Summary>,
    /// For an op with several shapes: the latency at each, by name (`latency_us` is their weighted
    /// geometric mean). Empty for one shape.
    pub shapes: BTreeMap<String, f64>,
}

impl TuneResult {
    pub fn choice(&self) -> Choice {
        let modelled = self.baseline.modelled;
        let (params, latency_us, patched, rewrites, samples, shapes) = match self.improvement() {
            Some(best) => (
                best.trial.params.clone(),
                best.trial.latency_us.unwrap_or(f64::NAN),
                best.changed_files(&self.originals),
                best.variant.rewrites.clone(),
                &best.trial.samples,
                best.trial.shapes.clone(),
            ),
            None => (
                self.space
                    .tunables
                    .iter()
                    .map(|t| (t.name.clone(), t.site.value))
                    .collect(),
                self.baseline.latency_us,
                BTreeMap::new(),
                vec![],
                &self.baseline.samples,
                self.baseline_shapes.clone(),
            ),
        };
        Choice {
            params,
            latency_us,
            patched,
            rewrites,
            improved: self.improvement().is_some(),
            shapes,
            // A measured latency keeps its spread, for `check` to tell a regression from noise.
            latency_samples: if modelled {
                None
            } else {
                Summary::of(samples).filter(|s| s.n > 1)
            },
        }
    }

    /// The op's source files after write-back of `choice`.
    pub fn sources_after(&self, choice: &Choice) -> BTreeMap<String, String> {
        let mut after = self.originals.clone();
        after.extend(choice.patched.clone());
        after
    }

    /// The lock entries for `choice`: one per shape the op serves (`OpSpec::cases`), each with the
    /// latency there. `baseline_of(shape, now)` gives the baseline to record for a shape whose
    /// sources measure `now` (an earlier lock's, when tuning goes on from sources it wrote).
    pub fn lock_entries(
        &self,
        op: &OpSpec,
        backend: &dyn Backend,
        options: &TuneOptions,
        choice: &Choice,
        baseline_of: &dyn Fn(&OpSpec, f64) -> f64,
    ) -> Vec<Entry> {
        let sources: BTreeMap<String, String> = self
            .sources_after(choice)
            .iter()
            .map(|(f, text)| (f.clone(), fsx::hash_hex(text.as_bytes())))
            .collect();
        op.cases()
            .into_iter()
            .map(|(name, _, case)| {
                let latency_us = choice
                    .shapes
                    .get(&name)
                    .copied()
                    .unwrap_or(choice.latency_us);
                let now = self
                    .baseline_shapes
                    .get(&name)
                    .copied()
                    .unwrap_or(self.baseline.latency_us);
                Entry {
                    name: op.name.clone(),
                    shape: case.shape_key(),
                    soc: backend.soc().name.to_string(),
                    backend: backend.kind().as_str().to_string(),
                    latency_us,
                    // The spread is the tuned shape's (the only one measured repeatedly).
                    latency_samples: choice
                        .latency_samples
                        .filter(|_| name == crate::manifest::DECLARED_SHAPE),
                    baseline_latency_us: baseline_of(&case, now),
                    modelled: self.baseline.modelled,
                    strategy: options.strategy.clone(),
                    seed: options.seed,
                    trials: self.trials.len(),
                    tool: env!("CARGO_PKG_VERSION").to_string(),
                    toolchain: backend.fingerprint(),
                    space: self.space.fingerprint(),
                    params: choice.params.clone(),
                    rewrites: choice.rewrites.clone(),
                    sources: sources.clone(),
                }
            })
            .collect()
    }
}
