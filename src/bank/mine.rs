//! Mining lessons by rewinding: for each op of an optimised project, measure it as it is, then undo one
//! motif at one site at a time, measure again and check the outputs still match; an undo that costs more
//! than the threshold becomes a lesson. A project with a `reference/` folder (the fixture convention:
//! naive sources at the root, optimised ones under `reference/`) is mined from its reference; any other
//! project is mined from its sources as they are. Mining reads projects and measures through a backend;
//! it writes nothing but its own working copies (the caller writes the bank).

use super::{Lesson, Profile};
use crate::backend::{self, Backend, Measurement, SourceSet};
use crate::errors::Result;
use crate::manifest::{Manifest, OpSpec};
use crate::rewrite::motif::{Direction, Motif, Scope};
use crate::rewrite::motifs;
use std::path::{Path, PathBuf};
use std::sync::Arc;

pub struct MineOptions {
    pub projects: Vec<PathBuf>,
    /// Only these ops (all when None).
    pub ops: Option<Vec<String>>,
    /// Only these motifs (all when None).
    pub motifs: Option<Vec<String>>,
    /// A rewind is kept as a lesson when slow / fast is at least this (1.02: two percent).
    pub threshold: f64,
    pub soc: Option<String>,
    pub backend: Option<crate::manifest::BackendKind>,
    /// Working folder for staged copies (`target/ascend-tune/mine`).
    pub work: PathBuf,
    /// Build cache shared across projects.
    pub cache: PathBuf,
}

/// What happened to one rewind.
#[derive(Debug, Clone)]
pub enum Outcome {
    /// Kept as a lesson.
    Lesson(Box<Lesson>),
    /// Measured, but the loss is below the threshold (gain given).
    Small(f64),
    /// The rewound kernel failed to build or run, or changed the outputs: the motif's inverse is wrong
    /// here, which is worth knowing (reported, never kept).
    Failed(String),
}

/// One rewind tried: where, and what came of it.
#[derive(Debug, Clone)]
pub struct Rewind {
    pub op: String,
    pub motif: &'static str,
    pub file: String,
    pub line: usize,
    pub outcome: Outcome,
}

pub struct MineReport {
    pub rewinds: Vec<Rewind>,
    /// Ops that could not be measured as they are (with why); they gave no lessons.
    pub skipped: Vec<(String, String)>,
}

impl MineReport {
    pub fn lessons(&self) -> Vec<Lesson> {
        self.rewinds
            .iter()
            .filter_map(|r| match &r.outcome {
                Outcome::Lesson(l) => Some((**l).clone()),
                _ => None,
            })
            .collect()
    }
}

/// Mines every project; `on_rewind` is told about each rewind as it finishes (progress lines).
pub fn mine(opts: &MineOptions, on_rewind: &mut dyn FnMut(&Rewind)) -> Result<MineReport> {
    let mut report = MineReport {
        rewinds: vec![],
        skipped: vec![],
    };
    for project in &opts.projects {
        let (dir, manifest) = stage(project, &opts.work)?;
        let soc = opts.soc.clone().unwrap_or_else(|| manifest.soc.clone());
        let backend: Arc<dyn Backend> = Arc::from(backend::open_with_cache(
            &manifest,
            opts.backend.unwrap_or(manifest.backend),
            &soc,
            dir.join("target/ascend-tune"),
            opts.cache.clone(),
        )?);
        for op in &manifest.ops {
            if opts
                .ops
                .as_ref()
                .is_some_and(|only| !only.contains(&op.name))
            {
                continue;
            }
            match mine_op(&manifest, op, backend.as_ref(), opts, on_rewind) {
                Ok(rewinds) => report.rewinds.extend(rewinds),
                Err(why) => report.skipped.push((op.name.clone(), why)),
            }
        }
    }
    Ok(report)
}

/// The folder to mine from: a staged copy of `reference/` with the project's manifest, or the project.
fn stage(project: &Path, work: &Path) -> Result<(PathBuf, Manifest)> {
    let dir = if project.join("reference").is_dir() {
        let name = project
            .canonicalize()
            .ok()
            .and_then(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
            .unwrap_or_else(|| "project".into());
        let dest = work.join(name).join("reference");
        crate::bench::stage_reference(project, &dest)?;
        dest
    } else {
        project.to_path_buf()
    };
    let manifest = Manifest::load(&dir.join(crate::manifest::FILE_NAME))?;
    Ok((dir, manifest))
}

/// The kernel files of `op` (texts from `sources`), the op's own headers they include (real kernels
/// keep their class in `op_kernel/*.h`, where the motifs' sites are) and the shared headers of its
/// `include-as` folders: the files `tune`'s kernel motifs edit (`tune::kernel_files`).
pub fn kernel_files(
    op: &OpSpec,
    sources: &std::collections::BTreeMap<String, String>,
) -> Vec<(String, String)> {
    crate::tune::kernel_files(op, sources)
        .into_iter()
        .filter_map(|f| sources.get(&f).map(|t| (f, t.clone())))
        .collect()
}

/// The files motifs edit, with the scope of each: the kernel files and their own headers
/// (`kernel_files`), then the op's host files (tiling functions, where host motifs act).
pub fn scoped_files(
    op: &OpSpec,
    sources: &std::collections::BTreeMap<String, String>,
) -> Vec<(String, Scope, String)> {
    let mut out: Vec<(String, Scope, String)> = kernel_files(op, sources)
        .into_iter()
        .map(|(f, t)| (f, Scope::Kernel, t))
        .collect();
    for f in &op.host {
        if let Some(t) = sources.get(f)
            && !out.iter().any(|(g, _, _)| g == f)
        {
            out.push((f.clone(), Scope::Host, t.clone()));
        }
    }
    out
}

/// Whether `m` edits `file` (of `scope`): its scope, and a shared header only if it may
/// (`Motif::edits_shared_headers`), as `tune` applies it.
fn edits(m: &dyn Motif, op: &OpSpec, file: &str, scope: Scope) -> bool {
    scope == m.scope() && (m.edits_shared_headers() || !crate::tune::is_shared_header(op, file))
}

/// Per motif: its name, the sites where it applies and those where it rewinds, each as `file:line`.
pub type MotifSites = Vec<(&'static str, Vec<String>, Vec<String>)>;

/// Where each motif applies and where it rewinds in `op`'s kernel files and headers, without building.
pub fn sites(manifest: &Manifest, op: &OpSpec) -> Result<MotifSites> {
    let sources = crate::tune::read_sources(manifest, op)?;
    let files = scoped_files(op, &sources);
    let mut out = vec![];
    for m in motifs::ALL {
        let at = |d: Direction| -> Vec<String> {
            files
                .iter()
                .filter(|(f, scope, _)| edits(*m, op, f, *scope))
                .flat_map(|(f, _, t)| {
                    crate::rewrite::motif::sites_in(*m, t, f, d, None)
                        .into_iter()
                        .map(move |s| format!("{f}:{}", s.line))
                })
                .collect()
        };
        out.push((m.name(), at(Direction::Apply), at(Direction::Rewind)));
    }
    Ok(out)
}

fn mine_op(
    manifest: &Manifest,
    op: &OpSpec,
    backend: &dyn Backend,
    opts: &MineOptions,
    on_rewind: &mut dyn FnMut(&Rewind),
) -> std::result::Result<Vec<Rewind>, String> {
    let sources = crate::tune::read_sources(manifest, op).map_err(|e| e.to_string())?;
    let files = scoped_files(op, &sources);
    let wanted = |m: &dyn Motif| {
        opts.motifs
            .as_ref()
            .is_none_or(|only| only.iter().any(|n| n == m.name()))
    };
    // Nothing to rewind: no need to build anything.
    if !motifs::ALL.iter().any(|m| {
        wanted(*m)
            && files.iter().any(|(f, scope, t)| {
                edits(*m, op, f, *scope) && !m.sites(t, Direction::Rewind).is_empty()
            })
    }) {
        return Ok(vec![]);
    }
    let inputs = crate::tune::inputs(op);
    let fast = measure(backend, op, &SourceSet::default(), &inputs)
        .map_err(|why| format!("the optimised sources fail: {why}"))?;
    let after = Profile::of(&fast);
    let cx = OpContext {
        op,
        backend,
        inputs: &inputs,
        fast: &fast,
        after: &after,
        threshold: opts.threshold,
    };
    let mut out = vec![];
    for motif in motifs::ALL.iter().copied() {
        if !wanted(motif) {
            continue;
        }
        for (file, _, text) in files.iter().filter(|(f, s, _)| edits(motif, op, f, *s)) {
            for site in motif.sites(text, Direction::Rewind) {
                let outcome = rewind_one(&cx, motif, file, text, &site);
                let r = Rewind {
                    op: op.name.clone(),
                    motif: motif.name(),
                    file: file.clone(),
                    line: site.line,
                    outcome,
                };
                on_rewind(&r);
                out.push(r);
            }
        }
    }
    Ok(out)
}

/// What every rewind of one op shares: the op, where it runs, and the optimised kernel's measurement.
struct OpContext<'a> {
    op: &'a OpSpec,
    backend: &'a dyn Backend,
    inputs: &'a crate::backend::Inputs,
    fast: &'a Measurement,
    after: &'a Profile,
    threshold: f64,
}

fn rewind_one(
    cx: &OpContext,
    motif: &'static dyn Motif,
    file: &str,
    text: &str,
    site: &crate::rewrite::Site,
) -> Outcome {
    let slow_text = match motif.rewind(text, site) {
        Ok(e) => e.text,
        Err(e) => return Outcome::Failed(e.to_string()),
    };
    let sources = SourceSet {
        overrides: [(file.to_string(), slow_text.clone())].into(),
    };
    let slow = match measure(cx.backend, cx.op, &sources, cx.inputs) {
        Ok(m) => m,
        Err(why) => return Outcome::Failed(why),
    };
    if let Err(why) = crate::verify::outputs_match(cx.op, &slow.outputs, &cx.fast.outputs) {
        return Outcome::Failed(format!("the rewound kernel changed the outputs: {why}"));
    }
    let gain = slow.latency_us / cx.fast.latency_us;
    if gain < cx.threshold {
        return Outcome::Small(gain);
    }
    Outcome::Lesson(Box::new(Lesson {
        motif: motif.name().to_string(),
        op: cx.op.name.clone(),
        soc: cx.backend.soc().name.to_string(),
        backend: cx.backend.kind().as_str().to_string(),
        modelled: cx.fast.modelled,
        shape: cx.op.shape_key(),
        file: file.to_string(),
        line: site.line,
        site: site.what.clone(),
        gain: super::round(gain, 3),
        before: Profile::of(&slow),
        after: cx.after.clone(),
        diff: crate::writeback::diff(file, &slow_text, text),
    }))
}

fn measure(
    backend: &dyn Backend,
    op: &OpSpec,
    sources: &SourceSet,
    inputs: &crate::backend::Inputs,
) -> std::result::Result<Measurement, String> {
    backend
        .build(op, sources)
        .and_then(|a| backend.run(op, &a, inputs, false))
        .map_err(|f| format!("{} ({})", f.message, f.kind.as_str()))
}
