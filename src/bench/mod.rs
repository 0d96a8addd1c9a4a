//! The benchmark: runs the tuner over a suite of operator projects, each with a naive version and an
//! optimised `reference/`, and reports in the field's terms: speedup over the starting kernel, fast_p
//! against the reference and the baseline, distance to the roofline, and how each strategy does at equal
//! budgets. Tuning happens on copies under the output folder, never in the suite's own sources.
//! Rendering (JSON, markdown, SVG) lives in `render`.

pub mod render;
pub mod soak;

use crate::backend::{self, Backend, Measurement};
use crate::errors::{Error, Result};
use crate::fsx;
use crate::manifest::Manifest;
use crate::tune::evaluate::Evaluator;
use crate::tune::{self, Observer, TuneOptions};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

/// The p values of fast_p.
pub const FAST_P: [f64; 6] = [0.8, 0.9, 1.0, 1.2, 1.5, 2.0];

pub struct BenchOptions {
    pub suite: Vec<PathBuf>,
    pub ops: Option<Vec<String>>,
    pub budgets: Vec<usize>,
    pub strategies: Vec<String>,
    pub seed: u64,
    pub jobs: usize,
    pub out: PathBuf,
    pub soc: Option<String>,
    /// The lessons of the kernel phase (`loop`).
    pub bank: Arc<crate::bank::Bank>,
    /// Give each op a bank without the lessons mined from its own reference.
    pub leave_one_out: bool,
    /// After each tuning run, the soak test: the same run with faults injected (`soak`).
    pub soak: Option<soak::SoakOptions>,
    /// Noise floor of the tuning runs in percent (None: each manifest's, else the default).
    pub noise_floor_pct: Option<f64>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct OpRow {
    pub op: String,
    pub strategy: String,
    pub budget: usize,
    pub baseline_us: f64,
    /// The hand-optimised reference's latency; None for a project without `reference/` (a public op).
    pub reference_us: Option<f64>,
    /// The latency of what the run writes back (the baseline's when nothing beats the noise floor);
    /// None when no candidate was valid.
    pub tuned_us: Option<f64>,
    /// The memory roofline, or the cube's compute roofline where that is longer (`Timing::roofline_bound_us`).
    pub roofline_us: f64,
    pub speedup: Option<f64>,
    /// reference / tuned: above 1 when tuning beat the hand-optimised reference.
    pub vs_reference: Option<f64>,
    pub percent_of_roofline: Option<f64>,
    pub trials: usize,
    pub failures: BTreeMap<String, usize>,
    pub params: BTreeMap<String, i64>,
    /// Kernel rewrites of the best trial (`loop` only).
    pub rewrites: Vec<String>,
    pub wall_s: f64,
    pub builds: usize,
    pub build_cache_hits: usize,
    pub trials_per_s: f64,
    /// Best latency so far after each trial (None until the first success).
    pub convergence: Vec<Option<f64>>,
    /// The shape-probe evidence of the run.
    pub probes: ProbeEvidence,
}

/// What the shape probes of one tuning run show: which ran, which the sources could not serve, how
/// many trials each rejected, and the written-back change run again on every live probe.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct ProbeEvidence {
    /// The live probes, e.g. `tail [47, 16381]`.
    pub live: Vec<String>,
    /// Probes left out: the sources as they are cannot serve them.
    pub dropped: Vec<crate::tune::probes::Dropped>,
    /// Trials failed with reason `shape`, by probe name.
    pub rejected: BTreeMap<String, usize>,
    /// Live probes the written-back change was run on again after the tune (0 when nothing is written).
    pub written_back_checked: usize,
    /// Live probes on which the written-back change fails (must be empty), with why.
    pub written_back_failed: Vec<String>,
}

#[derive(Debug, Clone, Serialize)]
pub struct SummaryRow {
    pub strategy: String,
    pub budget: usize,
    pub geomean_speedup: f64,
    /// p -> fraction of ops whose tuned latency beats the reference by more than p (reference / tuned > p).
    pub fast_p: BTreeMap<String, f64>,
    /// p -> fraction of ops faster than their baseline by more than p.
    pub fast_p_baseline: BTreeMap<String, f64>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct OpInfo {
    pub op: String,
    pub project: String,
    pub baseline_us: f64,
    pub reference_us: Option<f64>,
    /// The memory roofline, or the cube's compute roofline where that is longer (`Timing::roofline_bound_us`).
    pub roofline_us: f64,
    pub baseline_bound: String,
    pub reference_bound: Option<String>,
}

#[derive(Debug, Serialize)]
pub struct BenchReport {
    pub tool: String,
    pub backend: String,
    pub soc: String,
    /// True when every latency is from the twin's model, not hardware.
    pub modelled: bool,
    pub seed: u64,
    pub budgets: Vec<usize>,
    pub strategies: Vec<String>,
    pub summary: Vec<SummaryRow>,
    pub ops: Vec<OpRow>,
    pub op_info: Vec<OpInfo>,
    /// The soak test's results, when faults were injected.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub soak: Option<soak::SoakReport>,
    /// Modelled pipelines (block 0) of one op before and after tuning, for the picture.
    #[serde(skip)]
    pub pipeline: Option<(String, Measurement, Measurement)>,
}

/// The projects of a suite folder: each subfolder holding an `ascend.toml` (fixtures also hold a
/// `reference/`, the hand-optimised version; public operators do not).
pub fn projects(suite: &[PathBuf]) -> Result<Vec<PathBuf>> {
    let out = crate::project::operator_projects(suite, true)?;
    if out.is_empty() {
        return Err(Error::bad_input(
            "the suite holds no operator project with an ascend.toml",
            Some("name suite folders, e.g. `cargo ascend-tune bench fixtures`".into()),
        ));
    }
    Ok(out)
}

/// Points the `include` and `include-as` folders of the copy at `to` of the project at `from` to where
/// they are for the original (absolute paths): a public operator's project includes its repository's
/// `common/` above it and shows sibling folders (`../foreach_utils/op_kernel`) inside itself, and the copy
/// takes neither along. Host sources in a sibling folder (`../<folder>/...`, read and never tuned) are
/// copied beside the copy, where the same relative path finds them. A manifest without these is left as
/// it is.
pub(crate) fn pin_includes(from: &Path, to: &Path) -> Result<()> {
    let path = to.join(crate::manifest::FILE_NAME);
    let text = crate::fsx::read_to_string(&path)?;
    let Ok(mut doc) = text.parse::<toml::Table>() else {
        return Ok(()); // loading the copy reports what is wrong with it
    };
    let pin = |v: &mut toml::Value| {
        if let Some(rel) = v.as_str() {
            let abs = from.join(rel);
            let abs = abs.canonicalize().unwrap_or(abs);
            *v = toml::Value::String(abs.display().to_string());
        }
    };
    let mut changed = false;
    if let Some(project) = doc.get_mut("project").and_then(|p| p.as_table_mut()) {
        if let Some(toml::Value::Array(include)) = project.get_mut("include") {
            include.iter_mut().for_each(pin);
            changed = true;
        }
        if let Some(toml::Value::Table(shown)) = project.get_mut("include-as") {
            shown.iter_mut().for_each(|(_, v)| pin(v));
            changed = true;
        }
    }
    link_siblings(from, to)?;
    link_climbed_host_sources(from, to, &doc)?;
    if !changed {
        return Ok(());
    }
    let text =
        toml::to_string(&doc).map_err(|e| Error::Internal(format!("{}: {e}", path.display())))?;
    crate::fsx::write_atomic(&path, text.as_bytes())
}

/// Shows the folders beside the original project beside the copy too (as links), so that sources which
/// reach them by relative paths (`#include "../../foreach_utils/op_host/x.h"` from `op_host/`, a host
/// source `../foreach_utils/op_host/x.cpp`) find them from the copy as they do from the original. A name
/// already taken beside the copy is left alone.
fn link_siblings(from: &Path, to: &Path) -> Result<()> {
    let (Some(from_parent), Some(to_parent)) = (from.parent(), to.parent()) else {
        return Ok(());
    };
    let own = from.file_name();
    let Ok(entries) = std::fs::read_dir(from_parent) else {
        return Ok(());
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let dest = to_parent.join(&name);
        if Some(name.as_os_str()) == own
            || dest.symlink_metadata().is_ok()
            || !entry.path().is_dir()
        {
            continue;
        }
        let target = entry.path().canonicalize().unwrap_or(entry.path());
        #[cfg(unix)]
        std::os::unix::fs::symlink(&target, &dest)
            .map_err(|e| Error::io("could not link", &dest, e))?;
        #[cfg(not(unix))]
        copy_project(&target, &dest)?;
    }
    Ok(())
}

/// Shows the folder a host source more than one level above the project lives in at the same relative
/// path from the copy (a link), as `link_siblings` does one level up: ops-cv's `init` lists
/// `../../common/src/op_host/tiling_util.cpp`, and bench's copy of upsample_nearest3d failed with
/// "source file does not exist". A name already taken there by another folder is an error naming both,
/// never a silent swap of one repository's helpers for another's.
fn link_climbed_host_sources(from: &Path, to: &Path, doc: &toml::Table) -> Result<()> {
    let hosts = doc
        .get("op")
        .and_then(|o| o.as_array())
        .into_iter()
        .flatten()
        .filter_map(|op| op.get("host").and_then(|h| h.as_array()))
        .flatten()
        .filter_map(|h| h.as_str());
    for host in hosts {
        let mut rest = host;
        let mut up = 0;
        while let Some(r) = rest.strip_prefix("../") {
            rest = r;
            up += 1;
        }
        let Some(first) = rest.split('/').next().filter(|f| !f.is_empty() && up >= 2) else {
            continue;
        };
        let climb = "../".repeat(up);
        let original = from.join(&climb).join(first);
        let Ok(target) = original.canonicalize() else {
            continue; // loading the copy says the source does not exist
        };
        let dest = crate::fsx::lexical(&to.join(&climb).join(first));
        match dest.canonicalize() {
            Ok(there) if there == target => continue,
            Ok(there) => {
                return Err(Error::Internal(format!(
                    "bench: the copy of {} needs {} at {} for its host source `{host}`, but {} is there; bench it into an --out folder of its own",
                    from.display(),
                    target.display(),
                    dest.display(),
                    there.display()
                )));
            }
            Err(_) => {}
        }
        if let Some(parent) = dest.parent() {
            crate::fsx::create_dir_all(parent)?;
        }
        #[cfg(unix)]
        std::os::unix::fs::symlink(&target, &dest)
            .map_err(|e| Error::io("could not link", &dest, e))?;
        #[cfg(not(unix))]
        copy_project(&target, &dest)?;
    }
    Ok(())
}

/// Lays out the optimised version of a fixture-style project (naive sources at the root, optimised ones
/// under `reference/`) as a project of its own at `to`: the reference's files with the project's manifest.
pub fn stage_reference(project: &Path, to: &Path) -> Result<()> {
    copy_project(&project.join("reference"), to)?;
    std::fs::copy(
        project.join(crate::manifest::FILE_NAME),
        to.join(crate::manifest::FILE_NAME),
    )
    .map_err(|e| Error::io("could not copy", project, e))?;
    Ok(())
}

pub(crate) fn copy_project(from: &Path, to: &Path) -> Result<()> {
    let _ = std::fs::remove_dir_all(to);
    for entry in walkdir::WalkDir::new(from).into_iter().filter_entry(|e| {
        let n = e.file_name().to_string_lossy();
        e.depth() == 0 || (n != "target" && n != "reference")
    }) {
        let entry = entry.map_err(|e| Error::Internal(e.to_string()))?;
        let rel = entry
            .path()
            .strip_prefix(from)
            .expect("walkdir stays under its root");
        let dest = to.join(rel);
        if entry.file_type().is_dir() {
            fsx::create_dir_all(&dest)?;
        } else {
            std::fs::copy(entry.path(), &dest)
                .map_err(|e| Error::io("could not copy", entry.path(), e))?;
        }
    }
    Ok(())
}

struct Quiet;
impl Observer for Quiet {}

/// What `run` tells its caller as it goes.
pub enum Progress<'a> {
    /// A tuning run finished.
    Tuned(&'a OpRow),
    /// Its soak run finished.
    Soaked(&'a soak::SoakRow),
}

/// Runs the benchmark; `progress` is told about each (op, strategy, budget) as it finishes.
pub fn run(opts: &BenchOptions, progress: &mut dyn FnMut(Progress)) -> Result<BenchReport> {
    let projects = projects(&opts.suite)?;
    let work = opts.out.join("work");
    let cache = opts.out.join("cache");
    let mut soaks = vec![];
    let mut rows = vec![];
    let mut infos = vec![];
    let mut pipeline = None;
    let mut soc_name = String::new();
    for project in &projects {
        let name = project
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let naive_dir = work.join(&name).join("naive");
        let reference_dir = work.join(&name).join("reference");
        copy_project(project, &naive_dir)?;
        pin_includes(project, &naive_dir)?;
        let has_reference = project.join("reference").is_dir();
        if has_reference {
            stage_reference(project, &reference_dir)?;
        }
        let naive = Manifest::load(&naive_dir.join(crate::manifest::FILE_NAME))?;
        let reference = match has_reference {
            true => Some(Manifest::load(
                &reference_dir.join(crate::manifest::FILE_NAME),
            )?),
            false => None,
        };
        let soc = opts.soc.clone().unwrap_or_else(|| naive.soc.clone());
        let open = |m: &Manifest, dir: &Path| -> Result<Arc<dyn Backend>> {
            Ok(Arc::from(backend::open_with_cache(
                m,
                m.backend,
                &soc,
                dir.join("target/ascend-tune"),
                cache.clone(),
            )?))
        };
        let naive_backend = open(&naive, &naive_dir)?;
        let reference_backend = match &reference {
            Some(r) => Some(open(r, &reference_dir)?),
            None => None,
        };
        soc_name = naive_backend.soc().name.to_string();
        for op in &naive.ops {
            if opts
                .ops
                .as_ref()
                .is_some_and(|only| !only.contains(&op.name))
            {
                continue;
            }
            let ref_op = match &reference {
                Some(r) => match r.op(&op.name) {
                    Some(o) => Some(o),
                    None => continue,
                },
                None => None,
            };
            let inputs = tune::inputs(op);
            let fail = |what: &str, f: crate::backend::TrialFailure| {
                Error::NoValidCandidate(format!(
                    "bench: the {what} of `{}` fails ({}): {}",
                    op.name,
                    f.kind.as_str(),
                    f.message
                ))
            };
            let base = Evaluator::baseline(naive_backend.as_ref(), op, &inputs, true)
                .map_err(|f| fail("naive version", f))?;
            let refm = match (&reference_backend, ref_op) {
                (Some(b), Some(o)) => Some(
                    Evaluator::baseline(b.as_ref(), o, &inputs, false)
                        .map_err(|f| fail("reference", f))?,
                ),
                _ => None,
            };
            // the memory roofline, or a matmul's cube roofline where that is longer
            let roofline_us = refm.as_ref().map_or(base.timing.roofline_bound_us(), |r| {
                base.timing
                    .roofline_bound_us()
                    .min(r.timing.roofline_bound_us())
            });
            let reference_us = refm.as_ref().map(|r| r.latency_us);
            infos.push(OpInfo {
                op: op.name.clone(),
                project: name.clone(),
                baseline_us: base.latency_us,
                reference_us,
                roofline_us,
                baseline_bound: base.timing.bound.to_string(),
                reference_bound: refm.as_ref().map(|r| r.timing.bound.to_string()),
            });
            for strategy in &opts.strategies {
                for &budget in &opts.budgets {
                    let run_dir = work.join(&name).join(format!("{strategy}-{budget}"));
                    let _ = std::fs::remove_dir_all(&run_dir);
                    let topts = TuneOptions {
                        budget,
                        strategy: strategy.clone(),
                        seed: opts.seed,
                        jobs: opts.jobs,
                        time_limit: None,
                        bank: if opts.leave_one_out {
                            Arc::new(opts.bank.without_op(&op.name))
                        } else {
                            opts.bank.clone()
                        },
                        rewriter: None,
                        rewriter_attempts: 0,
                        faults: None,
                        noise_floor_pct: opts.noise_floor_pct,
                    };
                    let started = Instant::now();
                    let result = tune::tune_op(
                        &naive,
                        op,
                        naive_backend.clone(),
                        &run_dir,
                        &topts,
                        &mut Quiet,
                    )?;
                    let wall_s = started.elapsed().as_secs_f64();
                    let mut failures = BTreeMap::new();
                    let mut best = None::<f64>;
                    let convergence = result
                        .trials
                        .iter()
                        .map(|t| {
                            match t.latency_us {
                                Some(l) => best = Some(best.map_or(l, |b| b.min(l))),
                                None => {
                                    *failures
                                        .entry(
                                            t.failure
                                                .map(|f| f.as_str())
                                                .unwrap_or("unknown")
                                                .to_string(),
                                        )
                                        .or_insert(0) += 1
                                }
                            }
                            best
                        })
                        .collect();
                    // The figures are those of what the run writes back, as `tune` would.
                    let choice = result.choice();
                    let chosen = result.improvement().map(|b| &b.trial);
                    let tuned_us = result.best.as_ref().map(|_| choice.latency_us);
                    let evidence = probe_evidence(&result, op, naive_backend.as_ref(), &choice);
                    // The tune's own baseline: for an op with several shapes (`[[op.shape]]`) the
                    // weighted geometric mean over them, the figure `tuned_us` is comparable with.
                    let baseline_us = result.baseline.latency_us;
                    let row = OpRow {
                        op: op.name.clone(),
                        strategy: strategy.clone(),
                        budget,
                        baseline_us,
                        reference_us,
                        tuned_us,
                        roofline_us,
                        speedup: tuned_us.map(|t| baseline_us / t),
                        vs_reference: tuned_us.and_then(|t| reference_us.map(|r| r / t)),
                        percent_of_roofline: tuned_us.map(|t| roofline_us / t * 100.0),
                        trials: result.trials.len(),
                        failures,
                        params: chosen.map(|t| t.params.clone()).unwrap_or_default(),
                        rewrites: chosen.map(|t| t.rewrites.clone()).unwrap_or_default(),
                        wall_s,
                        builds: result.builds,
                        build_cache_hits: result.build_cache_hits,
                        trials_per_s: result.trials.len() as f64 / wall_s.max(1e-9),
                        convergence,
                        probes: evidence,
                    };
                    progress(Progress::Tuned(&row));
                    if let Some(so) = &opts.soak {
                        let soaked = soak::soak(
                            so,
                            soak::Run {
                                project,
                                dir: work.join(&name).join(format!("soak-{strategy}-{budget}")),
                                op,
                                soc: &soc,
                                cache: cache.clone(),
                                options: topts.clone(),
                                clean: &result,
                            },
                        )?;
                        progress(Progress::Soaked(&soaked));
                        soaks.push(soaked);
                    }
                    if pipeline.is_none()
                        && strategy == &opts.strategies[0]
                        && budget == *opts.budgets.iter().max().unwrap_or(&budget)
                        && let Some(best) = result.improvement()
                    {
                        let patched = best.changed_files(&result.originals);
                        let sources = crate::backend::SourceSet { overrides: patched };
                        if let Ok(m) = naive_backend
                            .build(op, &sources)
                            .and_then(|a| naive_backend.run(op, &a, &inputs, true))
                        {
                            pipeline = Some((op.name.clone(), base.clone(), m));
                        }
                    }
                    rows.push(row);
                }
            }
        }
    }
    let summary = summarise(&rows, &opts.strategies, &opts.budgets);
    Ok(BenchReport {
        tool: env!("CARGO_PKG_VERSION").to_string(),
        backend: "twin".into(),
        soc: soc_name,
        modelled: true,
        seed: opts.seed,
        budgets: opts.budgets.clone(),
        strategies: opts.strategies.clone(),
        summary,
        ops: rows,
        op_info: infos,
        soak: opts
            .soak
            .as_ref()
            .map(|so| soak::SoakReport::new(so, soaks)),
        pipeline,
    })
}

/// The probe evidence of a tuning run, with the written-back change (`choice`) built and run again on
/// every live probe against the unmodified op's outputs there.
fn probe_evidence(
    result: &tune::TuneResult,
    op: &crate::manifest::OpSpec,
    backend: &dyn Backend,
    choice: &tune::choice::Choice,
) -> ProbeEvidence {
    let mut rejected = BTreeMap::new();
    for t in &result.trials {
        if t.failure == Some(crate::backend::FailureKind::Shape) {
            let probe = t
                .error
                .as_deref()
                .and_then(|e| e.strip_prefix("probe `"))
                .and_then(|e| e.split([' ', '`']).next())
                .unwrap_or("?");
            *rejected.entry(probe.to_string()).or_insert(0) += 1;
        }
    }
    let mut failed = vec![];
    let mut checked = 0;
    if choice.improved && !result.probes.live.is_empty() {
        let sources = crate::backend::SourceSet {
            overrides: choice.patched.clone(),
        };
        match backend.build(op, &sources) {
            Ok(artifact) => {
                for p in &result.probes.live {
                    checked += 1;
                    let single = tune::probes::Probes {
                        live: vec![p.clone()],
                        dropped: vec![],
                    };
                    if let Err(f) = single.check(backend, &artifact) {
                        failed.push(f.message);
                    }
                }
            }
            Err(f) => failed.push(format!(
                "the written-back sources do not build: {}",
                f.message
            )),
        }
    }
    ProbeEvidence {
        live: result.probes.live.iter().map(|p| p.label()).collect(),
        dropped: result.probes.dropped.clone(),
        rejected,
        written_back_checked: checked,
        written_back_failed: failed,
    }
}

/// Geometric-mean speedup and fast_p per strategy and budget. An op with no valid candidate counts as
/// speedup 1 (the sources are kept) and never as fast.
pub fn summarise(rows: &[OpRow], strategies: &[String], budgets: &[usize]) -> Vec<SummaryRow> {
    let mut out = vec![];
    for s in strategies {
        for &b in budgets {
            let sel: Vec<&OpRow> = rows
                .iter()
                .filter(|r| &r.strategy == s && r.budget == b)
                .collect();
            if sel.is_empty() {
                continue;
            }
            let n = sel.len() as f64;
            let geomean = (sel
                .iter()
                .map(|r| r.speedup.unwrap_or(1.0).max(1.0).ln())
                .sum::<f64>()
                / n)
                .exp();
            let frac = |f: &dyn Fn(&OpRow) -> Option<f64>, p: f64| {
                sel.iter().filter(|r| f(r).is_some_and(|v| v > p)).count() as f64 / n
            };
            let fast_p = FAST_P
                .iter()
                .map(|&p| (format!("{p}"), frac(&|r| r.vs_reference, p)))
                .collect();
            let fast_p_baseline = FAST_P
                .iter()
                .map(|&p| (format!("{p}"), frac(&|r| r.speedup, p)))
                .collect();
            out.push(SummaryRow {
                strategy: s.clone(),
                budget: b,
                geomean_speedup: geomean,
                fast_p,
                fast_p_baseline,
            });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(op: &str, strategy: &str, baseline: f64, reference: f64, tuned: Option<f64>) -> OpRow {
        OpRow {
            op: op.into(),
            strategy: strategy.into(),
            budget: 16,
            baseline_us: baseline,
            reference_us: Some(reference),
            tuned_us: tuned,
            roofline_us: 1.0,
            speedup: tuned.map(|t| baseline / t),
            vs_reference: tuned.map(|t| reference / t),
            percent_of_roofline: None,
            trials: 16,
            failures: BTreeMap::new(),
            params: BTreeMap::new(),
            rewrites: vec![],
            wall_s: 1.0,
            builds: 1,
            build_cache_hits: 0,
            trials_per_s: 16.0,
            convergence: vec![],
            probes: Default::default(),
        }
    }

    /// bench.md gives each tuning run's trials per second (wall clock), as bench.json does.
    #[test]
    fn a_copy_keeps_the_include_folders_and_sibling_host_sources_of_a_repository_operator() {
        // The layout of ops-nn's foreach operators: a shared `common/inc` above, a sibling
        // `foreach_utils` with kernel headers shown as `foreach_utils/` and host sources read from it.
        let repo = tempfile::tempdir().unwrap();
        let r = repo.path();
        for d in [
            "common/inc",
            "utils/op_kernel",
            "utils/op_host",
            "op/op_kernel",
            "op/op_host",
            "proto/op_host",
        ] {
            std::fs::create_dir_all(r.join(d)).unwrap();
        }
        std::fs::write(r.join("utils/op_host/shared_tiling.cpp"), "// host\n").unwrap();
        std::fs::write(r.join("proto/op_host/proto_utils.h"), "// header\n").unwrap();
        std::fs::write(
            r.join("op/ascend.toml"),
            "[project]\ninclude = [\"../common/inc\"]\ninclude-as = { \"utils\" = \"../utils/op_kernel\" }\n\n\
             [[op]]\nname = \"op\"\nhost = [\"../utils/op_host/shared_tiling.cpp\"]\nkernel = [\"op_kernel/op.cpp\"]\n",
        )
        .unwrap();
        let work = tempfile::tempdir().unwrap();
        let naive = work.path().join("op/naive");
        copy_project(&r.join("op"), &naive).unwrap();
        pin_includes(&r.join("op"), &naive).unwrap();
        let doc: toml::Table = std::fs::read_to_string(naive.join("ascend.toml"))
            .unwrap()
            .parse()
            .unwrap();
        let project = doc["project"].as_table().unwrap();
        let inc = project["include"].as_array().unwrap()[0].as_str().unwrap();
        assert_eq!(Path::new(inc), r.join("common/inc").canonicalize().unwrap());
        let shown = project["include-as"]["utils"].as_str().unwrap();
        assert_eq!(
            Path::new(shown),
            r.join("utils/op_kernel").canonicalize().unwrap()
        );
        assert!(naive.join("../utils/op_host/shared_tiling.cpp").is_file());
        // `#include "../../proto/op_host/proto_utils.h"` from the copy's op_host/: a sibling the
        // manifest does not name.
        assert!(
            naive
                .join("op_host/../../proto/op_host/proto_utils.h")
                .is_file()
        );
        // Linking twice (the soak copy beside the naive one) is fine.
        let soak = work.path().join("op/soak");
        copy_project(&r.join("op"), &soak).unwrap();
        pin_includes(&r.join("op"), &soak).unwrap();
        assert!(
            soak.join("op_host/../../proto/op_host/proto_utils.h")
                .is_file()
        );
        assert_eq!(
            doc["op"][0]["host"][0].as_str(),
            Some("../utils/op_host/shared_tiling.cpp")
        );
    }

    /// ops-cv's upsample_nearest3d: init lists `../../common/src/op_host/tiling_util.cpp` (the shared
    /// tiling helpers, two levels up), and bench's copy failed with "source file does not exist". The copy
    /// finds it at the same relative path; a different folder already there is an error, not a swap.
    #[test]
    fn a_copy_finds_a_host_source_two_levels_above_and_refuses_another_repositorys() {
        let repo = tempfile::tempdir().unwrap();
        let r = repo.path();
        for d in [
            "common/src/op_host",
            "image/op/op_kernel",
            "image/op/op_host",
        ] {
            std::fs::create_dir_all(r.join(d)).unwrap();
        }
        std::fs::write(r.join("common/src/op_host/tiling_util.cpp"), "// helpers\n").unwrap();
        std::fs::write(
            r.join("image/op/ascend.toml"),
            "[[op]]\nname = \"op\"\nhost = [\"op_host/op_tiling.cpp\", \"../../common/src/op_host/tiling_util.cpp\"]\nkernel = [\"op_kernel/op.cpp\"]\n",
        )
        .unwrap();
        let work = tempfile::tempdir().unwrap();
        let naive = work.path().join("out/op/naive");
        copy_project(&r.join("image/op"), &naive).unwrap();
        pin_includes(&r.join("image/op"), &naive).unwrap();
        assert!(
            naive
                .join("../../common/src/op_host/tiling_util.cpp")
                .is_file()
        );
        // a second copy beside it reuses the link
        let soak = work.path().join("out/op/soak");
        copy_project(&r.join("image/op"), &soak).unwrap();
        pin_includes(&r.join("image/op"), &soak).unwrap();
        // another repository's operator in the same place: its `common` is not this one
        let other = tempfile::tempdir().unwrap();
        let o = other.path();
        std::fs::create_dir_all(o.join("common/src/op_host")).unwrap();
        std::fs::create_dir_all(o.join("moe/op2/op_host")).unwrap();
        std::fs::write(o.join("common/src/op_host/tiling_util.cpp"), "// other\n").unwrap();
        std::fs::write(
            o.join("moe/op2/ascend.toml"),
            "[[op]]\nname = \"op2\"\nhost = [\"../../common/src/op_host/tiling_util.cpp\"]\nkernel = [\"op_kernel/op2.cpp\"]\n",
        )
        .unwrap();
        let clash = work.path().join("out/op2/naive");
        copy_project(&o.join("moe/op2"), &clash).unwrap();
        let err = pin_includes(&o.join("moe/op2"), &clash).unwrap_err();
        assert!(err.to_string().contains("--out folder of its own"), "{err}");
    }

    #[test]
    fn the_markdown_gives_trials_per_second() {
        let mut r = row("a", "host", 100.0, 10.0, Some(10.0));
        r.trials = 32;
        r.wall_s = 12.8;
        r.trials_per_s = 2.5;
        let report = BenchReport {
            tool: "t".into(),
            backend: "twin".into(),
            soc: "Ascend910B1".into(),
            modelled: true,
            seed: 0,
            budgets: vec![16],
            strategies: vec!["host".into()],
            summary: vec![],
            ops: vec![r],
            op_info: vec![],
            soak: None,
            pipeline: None,
        };
        let md = render::markdown(&report);
        assert!(md.contains("| wall (s) | trials/s |"), "{md}");
        assert!(md.contains("| 12.8 | 2.50 |"), "{md}");
    }

    #[test]
    fn geomean_and_fast_p() {
        let rows = vec![
            row("a", "host", 100.0, 10.0, Some(10.0)),
            row("b", "host", 40.0, 20.0, Some(10.0)),
            row("c", "host", 10.0, 5.0, None),
        ];
        let s = summarise(&rows, &["host".into()], &[16]);
        assert_eq!(s.len(), 1);
        // speedups 10, 4 and 1 (no valid candidate): geomean 40^(1/3).
        assert!((s[0].geomean_speedup - 40f64.powf(1.0 / 3.0)).abs() < 1e-12);
        // vs reference: a = 1.0 (ties are not faster), b = 2.0, c = none.
        assert_eq!(s[0].fast_p["0.8"], 2.0 / 3.0);
        assert_eq!(s[0].fast_p["1"], 1.0 / 3.0);
        assert_eq!(s[0].fast_p["2"], 0.0);
        assert_eq!(s[0].fast_p_baseline["2"], 2.0 / 3.0);
    }
}
