//! `init`: writes an `ascend.toml` for the project in the current directory from what `project` finds:
//! ops, tensors (from the op json), and literals that look like tuning parameters, with domains sized for
//! the SoC and the values the sources hold now. The result runs with `tune` as it is; the user refines it.

use crate::errors::{Error, Result};
use crate::project::{self, FoundOp, opdef};
use crate::report::Printer;
use crate::space::discover;
use std::collections::BTreeMap;
use std::fmt::Write;
use std::path::Path;

mod aclnn_layer;
mod examples;
mod guesses;
mod tiling_tests;
use guesses::*;

/// The shape given to tensors when `--shape` names none: a realistic size for a vector op.
const DEFAULT_SHAPE: [u64; 2] = [48, 16384];
/// Its element count: what a grown smaller default and a tiling-test case are measured against.
const DEFAULT_ELEMENTS: u64 = DEFAULT_SHAPE[0] * DEFAULT_SHAPE[1];
/// Smaller default shapes tried, in order, for an op whose tiling function refuses the default one
/// (ops that tile one row per core, or bound the last axis: "last dim should be no more than 1024"),
/// then, for a tiling function that demands a rank ("x or mask DimNum is not 4": ops-nn's
/// scaled_masked_softmax_v2), the same small size as three and four axes.
const SMALLER_SHAPES: &[&[u64]] = &[
    &[8, 1024],
    &[8, 256],
    &[2, 64],
    &[4, 16, 256],
    &[2, 4, 16, 256],
];

/// What `init` does with tunables beyond discovering them.
#[derive(Debug, Clone, Copy, Default)]
pub struct TunableOptions {
    /// Keep the existing ascend.toml and rewrite only its `[[op.tunable]]` tables.
    pub tunables_only: bool,
    /// Build and run each op with each tunable moved once, and leave out those that change nothing.
    pub probe: bool,
    /// How long the probe of one op may take; the tunables it has not reached by then are kept.
    pub probe_seconds: u64,
}

pub fn init(
    root: &Path,
    soc_name: Option<&str>,
    shapes: &[String],
    force: bool,
    opts: TunableOptions,
    printer: &Printer,
) -> Result<i32> {
    let path = root.join(crate::manifest::FILE_NAME);
    let existing = if opts.tunables_only {
        Some(std::fs::read_to_string(&path).map_err(|e| {
            Error::bad_input(
                format!(
                    "--tunables-only rewrites the tunables of an existing {}, and it could not be read: {e}",
                    path.display()
                ),
                Some("run `cargo ascend-tune init` without --tunables-only first".into()),
            )
        })?)
    } else {
        if path.exists() && !force {
            return Err(Error::bad_input(
                format!("{} already exists", path.display()),
                Some(
                    "pass --force to replace it, or --tunables-only to rewrite only its tunables"
                        .into(),
                ),
            ));
        }
        None
    };
    if let Some(name) = soc_name {
        crate::model::soc::lookup(name)
            .ok_or_else(|| Error::bad_input(format!("unknown SoC `{name}`"), None))?;
    }
    let shapes = parse_shapes(shapes)?;
    let mut ops = project::discover(root).map_err(|m| {
        Error::bad_input(
            m,
            Some(
                "write ascend.toml by hand; fixtures/add_custom/ascend.toml is a complete example"
                    .into(),
            ),
        )
    })?;
    let (soc, soc_note) = choose_soc(&ops, soc_name);
    for op in ops.iter_mut() {
        if let Some(w) = param_order_mismatch(op) {
            printer.warn(format!("`{}`: {w}", op.name));
            op.notes.push(w);
        }
        if let Some(w) = attrs_read_but_undeclared(root, op) {
            printer.warn(format!("`{}`: {w}", op.name));
            op.notes.push(w);
        }
    }
    let mut inferred = Inferred::default();
    // First, so that what is known of an op's kind (below) takes precedence over its layout.
    for op in ops.iter() {
        if let Some(d) = guesses::layout_default(op) {
            inferred.defaults.insert(op.name.clone(), d);
        }
    }
    for op in ops.iter().filter(|o| is_matmul(root, o)) {
        inferred
            .defaults
            .insert(op.name.clone(), (MATMUL_SHAPE.to_vec(), matmul_note()));
    }
    for op in ops.iter().filter(|o| is_modulate(o)) {
        inferred
            .defaults
            .insert(op.name.clone(), (MODULATE_SHAPE.to_vec(), modulate_note()));
    }
    for op in ops.iter().filter(|o| is_ctc(o)) {
        inferred
            .defaults
            .insert(op.name.clone(), (CTC_SHAPE.to_vec(), ctc_note()));
    }
    for op in ops.iter().filter(|o| is_group_norm(o)) {
        inferred.defaults.insert(
            op.name.clone(),
            (GROUP_NORM_SHAPE.to_vec(), group_norm_note()),
        );
    }
    for op in ops.iter().filter(|o| uses_elementwise_schedule(root, o)) {
        inferred.elementwise.insert(op.name.clone());
    }
    for op in ops.iter().filter(|o| takes_square_matrices(o)) {
        inferred
            .defaults
            .insert(op.name.clone(), (SQUARE_SHAPE.to_vec(), square_note()));
    }
    let text_of = |ops: &[FoundOp],
                   derived: &BTreeMap<String, Vec<String>>,
                   inferred: &Inferred| match &existing {
        Some(old) => {
            let tables: Vec<(String, String)> = ops
                .iter()
                .map(|o| {
                    (
                        o.name.clone(),
                        discover::render_tunables(&o.tunables, soc.aiv_cores, soc.aic_cores),
                    )
                })
                .collect();
            discover::replace_tunables(old, &tables)
        }
        None => render(ops, soc, soc_note.as_deref(), &shapes, derived, inferred).0,
    };
    crate::fsx::write_atomic(&path, text_of(&ops, &BTreeMap::new(), &inferred).as_bytes())?;
    if let Some(old) = &existing
        && let Err(e) = crate::manifest::Manifest::load(&path)
    {
        // The manifest was the user's: put it back as it was.
        crate::fsx::write_atomic(&path, old.as_bytes())?;
        return Err(e);
    }
    // Output shapes from the op's own InferShape, before the probe runs the op with them.
    if existing.is_none() && opts.probe {
        let defaults = std::mem::take(&mut inferred.defaults);
        let elementwise = std::mem::take(&mut inferred.elementwise);
        inferred = infer_ops(&path, &ops, printer);
        inferred.defaults = defaults;
        inferred.elementwise = elementwise;
        crate::fsx::write_atomic(&path, text_of(&ops, &BTreeMap::new(), &inferred).as_bytes())?;
        // A host program whose link misses what another host source of the op defines (an arch35
        // file the 910B tiling calls into): that source is compiled too, and InferShape run again.
        // Each round may bring sources whose own calls are missing next (ops-transformer's
        // mla_prolog_v2 takes four rounds through mla_prolog's host folder).
        for _ in 0..6 {
            let mut changed = false;
            for op in ops.iter_mut() {
                let Some(missing) = inferred
                    .undefined
                    .get(&op.name)
                    .map(|refs| project::registered::symbol_names(refs))
                else {
                    continue;
                };
                let more = project::registered::sources_defining(
                    root,
                    op.op_type.as_deref().unwrap_or(&op.name),
                    &op.host,
                    &missing,
                );
                if more.is_empty() {
                    continue;
                }
                for f in more {
                    op.notes.push(format!(
                        "{f} compiled too: it defines what the host program's link missed ({})",
                        missing.join(", ")
                    ));
                    op.host.push(f);
                }
                // the added sources' own includes (ops-cv's arch35 tiling includes its tiling data
                // by a path from the repository root)
                let sources: Vec<std::path::PathBuf> = op
                    .host
                    .iter()
                    .chain(&op.kernel)
                    .map(|f| root.join(f))
                    .collect();
                (op.include, op.include_as) = project::registered::include_layout(root, &sources);
                changed = true;
            }
            if !changed {
                break;
            }
            crate::fsx::write_atomic(&path, text_of(&ops, &BTreeMap::new(), &inferred).as_bytes())?;
            let again = infer_ops(&path, &ops, printer);
            inferred.outputs = again.outputs;
            inferred.failed = again.failed;
            inferred.undefined = again.undefined;
            crate::fsx::write_atomic(&path, text_of(&ops, &BTreeMap::new(), &inferred).as_bytes())?;
        }
        // What the link still misses, no source under the op or beside an included header defines:
        // another SoC's tiling path (ops-cv's arch35 `...Regbase` tilings) in files the 910B build does
        // not list. The twin's build stubs it (a call stops the program, naming it) and InferShape runs.
        let unresolved = std::mem::take(&mut inferred.undefined);
        if !unresolved.is_empty() {
            inferred.stubbed = unresolved;
            crate::fsx::write_atomic(&path, text_of(&ops, &BTreeMap::new(), &inferred).as_bytes())?;
            let again = infer_ops(&path, &ops, printer);
            inferred.outputs = again.outputs;
            inferred.failed = again.failed;
            crate::fsx::write_atomic(&path, text_of(&ops, &BTreeMap::new(), &inferred).as_bytes())?;
            for (op, names) in &inferred.stubbed {
                printer.warn(format!(
                    "`{op}`: no source init found defines {}; the twin links stubs for them (`stub-undefined = true`), which stop the program, naming the function, if it is called",
                    names.join(", ")
                ));
            }
        }
        let write = |inferred: &Inferred| -> Result<()> {
            crate::fsx::write_atomic(&path, text_of(&ops, &BTreeMap::new(), inferred).as_bytes())?;
            Ok(())
        };
        let fitting = Fitting {
            path: &path,
            ops: &ops,
            shapes: &shapes,
            write: &write,
            printer,
            found: Default::default(),
        };
        fitting.tiling(&mut inferred)?;
        fitting.failing_runs(&mut inferred)?;
        fitting.operands_read_past(&mut inferred)?;
        fitting.workload_examples(&mut inferred)?;
        fitting.overflowing_defaults(&mut inferred)?;
        fitting.degenerate_outputs(&mut inferred)?;
        fitting.grow_small_cases(&mut inferred)?;
        fitting.outputs_written_short(&mut inferred)?;
    }
    if opts.probe && ops.iter().any(|o| !o.tunables.is_empty()) {
        let ties = probe_ops(
            &path,
            &mut ops,
            opts.probe_seconds,
            existing.is_none(),
            printer,
        )?;
        inferred.ties = ties;
        crate::fsx::write_atomic(&path, text_of(&ops, &BTreeMap::new(), &inferred).as_bytes())?;
    }
    // The constraints `tune` will derive from the kernel, shown in the manifest as comments: they need
    // the manifest itself (tensors, bindings), so it is read back once written.
    let derived = derived_constraints(&path);
    if existing.is_none() && derived.values().any(|v| !v.is_empty()) {
        crate::fsx::write_atomic(&path, text_of(&ops, &derived, &inferred).as_bytes())?;
    }
    let guesses = if existing.is_some() {
        vec![]
    } else {
        render(&ops, soc, soc_note.as_deref(), &shapes, &derived, &inferred).1
    };
    for op in &ops {
        let names: Vec<&str> = op.tunables.iter().map(|t| t.name.as_str()).collect();
        printer.status(
            "Found",
            format!(
                "op `{}` with tunables: {}",
                op.name,
                if names.is_empty() {
                    "none".into()
                } else {
                    names.join(", ")
                }
            ),
        );
        for l in &op.left_out {
            printer.status(
                "Left out",
                format!(
                    "`{}` ({}:{}): {}",
                    l.name,
                    l.file,
                    l.line,
                    l.reason.describe()
                ),
            );
        }
    }
    printer.status("Wrote", path.display().to_string());
    for g in &guesses {
        printer.status("Guessed", g);
    }
    if !guesses.is_empty() {
        printer.status(
            "Check",
            format!(
                "the {} guess(es) above, marked `# guess:` in ascend.toml",
                guesses.len()
            ),
        );
    }
    printer.status(
        "Next",
        "`cargo ascend-tune tune`; for CMake builds, `cargo ascend-tune cmake-module cmake` writes a module with an `ascend_tune` target and an `ascend_tune_check` CTest test",
    );
    Ok(crate::exit_codes::OK)
}

/// What the ops' own InferShape functions said of their outputs, by op name, and why it could not be
/// run where it could not.
#[derive(Default)]
struct Inferred {
    outputs: BTreeMap<String, Vec<crate::twin::protocol::InferredOutput>>,
    /// Op name -> constraints keeping a kernel constant equal to the host constant it runs with only
    /// (`probe_ops`), written into the op's `[[op]]` table.
    ties: BTreeMap<String, Vec<String>>,
    failed: BTreeMap<String, String>,
    /// Op name -> the default main shape taken instead of DEFAULT_SHAPE, and the manifest's comment
    /// beside it that says why (a matmul's square default; the op's tiling function refused the
    /// larger one).
    defaults: BTreeMap<String, (Vec<u64>, String)>,
    /// Op name -> what its host program's link missed, as the linker names it (`ns::f(int)`), when that
    /// is why InferShape could not run.
    undefined: BTreeMap<String, Vec<String>>,
    /// Op name -> what no source init found defines, stubbed in the twin's build (`stub-undefined`).
    stubbed: BTreeMap<String, Vec<String>>,
    /// Ops whose tiling is element-wise (`uses_elementwise_schedule`): no per-channel operands.
    elementwise: std::collections::BTreeSet<String>,
    /// Ops whose reduced loss's incoming gradient is written as a scalar: their tiling function
    /// refused it as a full tensor (gaussian_nll_loss_grad); by default it has the main shape, which
    /// is what a kernel that reads it element-wise needs (soft_margin_loss_grad).
    scalar_grads: std::collections::BTreeSet<String>,
    /// Op name -> input -> what its tiling function's refusals asked of that input's shape (a rank,
    /// axis values: `guesses::rank_from_refusal`, `guesses::axis_from_refusal`), and the last refusal.
    rank_fits: BTreeMap<String, BTreeMap<String, (ShapeFit, String)>>,
    /// Op name -> the case of its own tiling unit tests whose input shapes, dtypes and attrs the
    /// manifest takes (the op's tiling function refused init's default, or the op failed at it).
    test_cases: BTreeMap<String, tiling_tests::TilingCase>,
    /// Op name -> list attr -> the length a refusal asked for ("ksizes must contain two values",
    /// "invalid list size: ksizes: 1: 2"), and that refusal: the attr's guess, repeated to that length.
    attr_lens: BTreeMap<String, BTreeMap<String, (usize, String)>>,
    /// Op name -> int attr -> the value a refusal asked for ("dim must be 0 now"), and that refusal.
    attr_values: BTreeMap<String, BTreeMap<String, (i64, String)>>,
    /// Op name -> attr -> the value the case taken gives it, left for the OpDef's default because
    /// the op's outputs were degenerate with it (`degenerate_outputs`), and what the run showed.
    defaulted_attrs: BTreeMap<String, BTreeMap<String, (String, String)>>,
    /// Op name -> output -> the leading axes of its guessed shape that the kernel was seen to write
    /// (`outputs_written_short`), and what the run showed.
    short_outputs: BTreeMap<String, BTreeMap<String, (Vec<u64>, String)>>,
}

/// One fit a refusal asks for: the input, an axis and its size, or a rank.
type ShapeFitStep = (String, Option<(usize, u64)>, Option<usize>);

/// A twin run of an op as the manifest on disk has it: what it warned of, and how much work it did.
struct Ran {
    warnings: Vec<String>,
    /// The outputs `golden::degenerate` warns of: all zeros, NaN or Inf where no input has any, or
    /// identical to an input.
    degenerate: Vec<String>,
    /// Bytes between GM and the cores (modelled).
    gm_bytes: u64,
    latency_us: f64,
}

/// What a tiling refusal asked of one input's shape: a rank, then values of some axes.
#[derive(Debug, Clone, Default)]
struct ShapeFit {
    rank: Option<usize>,
    axes: BTreeMap<usize, u64>,
    /// Fitted because the kernel read past the guessed shape, not at the tiling's request.
    read_past: bool,
}

impl Inferred {
    /// Gives `outputs` of `op` the shapes its InferShape computed (a `--shape` given for an output
    /// still wins), and says where it could not be run.
    fn apply(&self, op: &str, outputs: &mut [Tensor], shapes: &BTreeMap<String, Vec<u64>>) {
        if let Some(why) = self.failed.get(op) {
            for t in outputs.iter_mut() {
                if let Some(g) = &mut t.guess
                    && g.starts_with("guess:")
                {
                    g.push_str(&format!(" (the op's InferShape could not be run: {why})"));
                }
            }
        }
        for t in outputs.iter_mut() {
            if let Some((shape, why)) = self.short_outputs.get(op).and_then(|m| m.get(&t.name))
                && !shapes.contains_key(&t.name)
            {
                t.shape = shape.clone();
                t.guess = Some(format!("guess: {why}"));
            }
        }
        let Some(inferred) = self.outputs.get(op) else {
            return;
        };
        for (t, i) in outputs.iter_mut().zip(inferred) {
            if !shapes.contains_key(&t.name) {
                match &i.shape {
                    // An empty output is nothing to run or check: the guess stays, and says so.
                    Some(shape) if shape.contains(&0) => {
                        if let Some(g) = &mut t.guess {
                            g.push_str(&format!(
                                " (the op's InferShape gave {shape:?}, an empty output, at these inputs)"
                            ));
                        }
                    }
                    Some(shape) => {
                        t.shape = shape.clone();
                        t.guess = Some("from the op's InferShape at these input shapes".into());
                    }
                    None if i.unset => {
                        if let Some(g) = &mut t.guess {
                            g.push_str(" (the op's InferShape returned success without setting this output's shape)");
                        }
                    }
                    None => {}
                }
            }
            // The op's InferDataType types its outputs as the graph does, over an example's buffer
            // or the OpDef's column: ops-transformer's moe_init_routing_v3 example gives expanded_x an
            // int8 buffer with quant_mode -1, at which the op writes it as x's float32.
            if let Some(d) = i.dtype
                && d != t.dtype
            {
                let note = format!(
                    "dtype {} from the op's InferDataType, not {}",
                    d.name(),
                    t.dtype.name()
                );
                t.dtype = d;
                t.guess = Some(match t.guess.take() {
                    Some(g) => format!("{g}; {note}"),
                    None => note,
                });
            }
        }
    }
}

/// Runs each op's own InferShape (custom-op projects: the twin runs it in the op's host program) on
/// the inputs of the manifest at `path`. An op whose host program does not build or whose InferShape
/// fails keeps init's guesses, and the manifest says why.
fn infer_ops(path: &Path, ops: &[FoundOp], printer: &Printer) -> Inferred {
    let mut inferred = Inferred::default();
    let Ok(manifest) = crate::manifest::Manifest::load(path) else {
        return inferred;
    };
    let Ok(backend) = project_backend(&manifest) else {
        return inferred;
    };
    for op in ops
        .iter()
        .filter(|o| o.launch.is_none() && !o.outputs.is_empty())
    {
        let Some(spec) = manifest.op(&op.name) else {
            continue;
        };
        let inputs = crate::tune::inputs(spec);
        match backend.infer_outputs(spec, &inputs) {
            Ok(Some(outs)) => {
                let shapes: Vec<String> = spec
                    .outputs
                    .iter()
                    .zip(&outs)
                    .filter_map(|(t, o)| o.shape.as_ref().map(|s| format!("{} {s:?}", t.name)))
                    .collect();
                if !shapes.is_empty() {
                    printer.status(
                        "Inferred",
                        format!(
                            "`{}` outputs from its InferShape: {}",
                            op.name,
                            shapes.join(", ")
                        ),
                    );
                }
                inferred.outputs.insert(op.name.clone(), outs);
            }
            Ok(None) => {}
            Err(why) => {
                let undefined = crate::project::registered::undefined_references(&why);
                // the first line, and the one after it when it only announces it ("the host code
                // does not compile:")
                let mut lines = why.lines().map(str::trim).filter(|l| !l.is_empty());
                let mut first = lines.next().unwrap_or("").to_string();
                if first.ends_with(':')
                    && let Some(next) = lines.next()
                {
                    first = format!("{first} {next}");
                }
                let short: String = relative_to_project(&first, path)
                    .chars()
                    .take(160)
                    .collect();
                // A link that misses what another source defines is one init looks for and runs
                // again; what is still missing then is said with the stubs.
                if undefined.is_empty() {
                    printer.warn(format!(
                        "`{}`: its InferShape could not be run, output shapes guessed ({short})",
                        op.name
                    ));
                } else {
                    inferred.undefined.insert(op.name.clone(), undefined);
                }
                inferred.failed.insert(op.name.clone(), short);
            }
        }
    }
    inferred
}

/// `text` with the project folder's absolute path (the folder of the manifest at `path`) left out of
/// the paths it quotes: a compiler's message names the files it read absolutely, and a manifest,
/// which users commit, should not carry where one machine keeps the project.
fn relative_to_project(text: &str, path: &Path) -> String {
    match path.parent().filter(|p| p.is_absolute()) {
        Some(root) => text.replace(&format!("{}/", root.display()), ""),
        None => text.to_string(),
    }
}

/// The first line of `text`, at most 160 characters.
fn short_line(text: &str) -> String {
    text.lines()
        .next()
        .unwrap_or("")
        .trim()
        .chars()
        .take(160)
        .collect()
}

/// The fault a failed run reports: its first `error:` line (a kernel failure's first line only says
/// the kernel failed), else its first line; at most 160 characters.
fn fault_line(text: &str) -> String {
    crate::backend::first_error(text).map_or_else(|| short_line(text), |(e, _)| short_line(e))
}

/// The input a kernel fault says was read past its end: "DataCopy: GM read out of bounds: bytes
/// [32768, 40928) of 'weight' which has 32768 bytes" names `weight`.
fn read_past_input(fault: &str) -> Option<String> {
    let at = fault.find("GM read out of bounds")?;
    let rest = &fault[at..];
    let from = rest.find(" of '")? + 5;
    let len = rest[from..].find('\'')?;
    let name = &rest[from..from + len];
    crate::manifest::is_identifier(name).then(|| name.to_string())
}

/// The manifest's backend, working in the project's `target/ascend-tune` (made if missing).
fn project_backend(
    manifest: &crate::manifest::Manifest,
) -> Result<Box<dyn crate::backend::Backend>> {
    let work = manifest.root.join("target").join("ascend-tune");
    crate::fsx::create_dir_all(&work)?;
    crate::backend::open(manifest, manifest.backend, &manifest.soc, work)
}

/// What init's fits of a manifest to its ops work with: the manifest's path, the ops, the shapes
/// `--shape` gave, `write` (renders the manifest for what an `Inferred` holds) and where to say what
/// was fitted.
struct Fitting<'a> {
    path: &'a Path,
    ops: &'a [FoundOp],
    shapes: &'a BTreeMap<String, Vec<u64>>,
    write: &'a dyn Fn(&Inferred) -> Result<()>,
    printer: &'a Printer,
    /// Op name -> its cases (`cases`), read once: the tiling fit and the run fit both ask.
    found: std::cell::RefCell<BTreeMap<String, Vec<tiling_tests::TilingCase>>>,
}

impl Fitting<'_> {
    /// For an op whose tiling function refused the manifest with `why`: while the refusal asks an int
    /// attr for one value ("dim must be 0 now") or a list attr for another number of values ("ksizes
    /// must contain two values"), gives it that (at most four times). The refusal left, None when the
    /// op's tiling takes the manifest.
    fn attrs_asked(
        &self,
        op: &FoundOp,
        inferred: &mut Inferred,
        why: String,
    ) -> Result<Option<String>> {
        let of_kind = |kind: opdef::AttrKind| -> Vec<String> {
            op.opdef
                .iter()
                .flat_map(|d| &d.attrs)
                .filter(|a| a.kind == kind)
                .map(|a| a.name.clone())
                .collect()
        };
        let (lists, ints) = (
            of_kind(opdef::AttrKind::ListInt),
            of_kind(opdef::AttrKind::Int),
        );
        let mut why = why;
        for _ in 0..4 {
            let first = short_line(&why);
            // "dim must be 0 now": the one value an int attr takes; "ksizes must contain two values":
            // a list attr's count. A fit it has already is no fit.
            let (attr, given) =
                if let Some((attr, value)) = guesses::int_attr_from_refusal(&first, &ints) {
                    let entry = inferred.attr_values.entry(op.name.clone()).or_default();
                    if entry.get(&attr).is_some_and(|(v, _)| *v == value) {
                        break;
                    }
                    entry.insert(attr.clone(), (value, first.clone()));
                    (attr, value.to_string())
                } else if let Some((attr, len)) = guesses::list_len_from_refusal(&first, &lists) {
                    let entry = inferred.attr_lens.entry(op.name.clone()).or_default();
                    if entry.get(&attr).is_some_and(|(l, _)| *l == len) {
                        break;
                    }
                    entry.insert(attr.clone(), (len, first.clone()));
                    (attr, format!("{len} values"))
                } else {
                    break;
                };
            self.reinfer(op, inferred)?;
            self.printer.status(
                "Fitted",
                format!(
                    "`{}`: its tiling function refused the manifest ({first}); attr `{attr}` given {given}",
                    op.name
                ),
            );
            match self.refusal(op) {
                None => return Ok(None),
                Some(w) => why = w,
            }
        }
        Ok(Some(why))
    }

    /// Asks each op's tiling function whether it takes the manifest as written; for one that refuses it
    /// while its main input has the default shape (no `--shape`), tries the op's tiling-test cases, then
    /// SMALLER_SHAPES in turn, re-running its InferShape at each, and keeps the first that the tiling
    /// takes (the manifest says so beside the shape). An op whose host code does not build, or that
    /// nothing fits, keeps the default: `run` will say why.
    fn tiling(&self, inferred: &mut Inferred) -> Result<()> {
        let &Fitting {
            path,
            ops,
            shapes,
            write,
            printer,
            ..
        } = self;
        let refusal = |op: &FoundOp| self.refusal(op);
        let short = short_line;
        for op in ops.iter().filter(|o| o.launch.is_none()) {
            let given = op.inputs.iter().any(|(n, _)| shapes.contains_key(n));
            if given {
                continue;
            }
            let Some(why) = refusal(op) else {
                continue;
            };
            let reinfer = |inferred: &mut Inferred| self.reinfer(op, inferred);
            // A list attr of the wrong length ("ksizes must contain two values"): that many values.
            let (why, first) = match self.attrs_asked(op, inferred, why)? {
                None => continue,
                Some(w) => (w.clone(), short(&w)),
            };
            // A reduced loss's incoming gradient: the full tensor refused, try the one number.
            if has_reduced_grad(op) {
                inferred.scalar_grads.insert(op.name.clone());
                write(inferred)?;
                match refusal(op) {
                    None => {
                        printer.status(
                        "Fitted",
                        format!(
                            "`{}`: its tiling function refused the loss's incoming gradient with the main input's shape ({first}); a scalar written instead",
                            op.name
                        ),
                    );
                        continue;
                    }
                    Some(_) => {
                        inferred.scalar_grads.remove(&op.name);
                        write(inferred)?;
                    }
                }
            }
            // The op's own tiling tests: the cases that expect success and give every input (an
            // optional one left out cannot be placed), nearest the default's size first.
            let refused = {
                let (who, first) = guesses::refuser(&first);
                format!("its {who} refused the default shape ({first})")
            };
            if self.tested_case(op, self.cases(op), &refusal, inferred, &refused)? {
                continue;
            }
            let mut fitted = false;
            let before = inferred.defaults.get(&op.name).cloned();
            for &smaller in SMALLER_SHAPES {
                inferred
                    .defaults
                    .insert(op.name.clone(), (smaller.to_vec(), smaller_note(&first)));
                reinfer(inferred)?;
                if refusal(op).is_none() {
                    // The smaller shapes are small (8 K to 32 K elements): at them the launch is most of
                    // what a run measures, and no tiling choice shows. The first axis is doubled while the
                    // tiling takes it, up to the default's element count, the other axes kept (they are
                    // what the refusal bounded: a last axis of at most 1024, a rank).
                    let mut kept = smaller.to_vec();
                    let rest: u64 = smaller[1..].iter().product();
                    let most_rows = DEFAULT_ELEMENTS / rest.max(1);
                    loop {
                        let mut bigger = kept.clone();
                        bigger[0] = (kept[0] * 2).min(most_rows);
                        if bigger[0] <= kept[0] {
                            break;
                        }
                        inferred.defaults.insert(
                            op.name.clone(),
                            (bigger.clone(), guesses::grown_note(&first, smaller[0])),
                        );
                        reinfer(inferred)?;
                        // an output that grows faster than the input (an outer product) stops it
                        // too: no output past four times the default's elements
                        let most = 4 * DEFAULT_ELEMENTS;
                        let outputs_small = inferred.outputs.get(&op.name).is_none_or(|outs| {
                            outs.iter().all(|o| {
                                o.shape
                                    .as_ref()
                                    .is_none_or(|s| s.iter().product::<u64>() <= most)
                            })
                        });
                        if !outputs_small || refusal(op).is_some() {
                            break;
                        }
                        kept = bigger;
                    }
                    if inferred
                        .defaults
                        .get(&op.name)
                        .is_none_or(|(s, _)| *s != kept)
                    {
                        let note = if kept[0] == smaller[0] {
                            smaller_note(&first)
                        } else {
                            guesses::grown_note(&first, smaller[0])
                        };
                        inferred
                            .defaults
                            .insert(op.name.clone(), (kept.clone(), note));
                        reinfer(inferred)?;
                    }
                    let refused = if first.starts_with(guesses::TOO_LARGE) {
                        format!("at the default shape {DEFAULT_SHAPE:?}, {first}")
                    } else {
                        let (who, first) = guesses::refuser(&first);
                        format!("its {who} refused the default shape {DEFAULT_SHAPE:?} ({first})")
                    };
                    printer.status(
                        "Fitted",
                        format!("`{}`: {refused}; {kept:?} written instead", op.name),
                    );
                    fitted = true;
                    break;
                }
            }
            if !fitted {
                // A default whose outputs pass 4 GiB cannot be kept (the manifest would not load), nor
                // one whose outputs the twin would take minutes over: the first smaller shape stays,
                // and the fits below start from its refusal.
                let too_large = first.starts_with(guesses::TOO_LARGE);
                match (&before, too_large) {
                    (_, true) => inferred.defaults.insert(
                        op.name.clone(),
                        (SMALLER_SHAPES[0].to_vec(), smaller_note(&first)),
                    ),
                    (Some(d), false) => inferred.defaults.insert(op.name.clone(), d.clone()),
                    (None, false) => inferred.defaults.remove(&op.name),
                };
                reinfer(inferred)?;
                let why = if too_large {
                    refusal(op).unwrap_or(why)
                } else {
                    why
                };
                // No smaller shape fits, and the refusal names an input and the rank it wants ("the bias
                // of input should be 2D tensor"): give that input the rank, and again while the next
                // refusal asks for another (at most six).
                let mut why_now = why.clone();
                let mut rank_fitted = false;
                let mut fits_tried = false;
                for _ in 0..6 {
                    let Some(spec) = crate::manifest::Manifest::load(path)
                        .ok()
                        .and_then(|m| m.op(&op.name).cloned())
                    else {
                        break;
                    };
                    let names: Vec<String> = spec.inputs.iter().map(|t| t.name.clone()).collect();
                    let msg = short(&why_now);
                    // The inputs the refusal names with a rank ("x / grid shape length should be 4 or 5"
                    // names two), else one input's axis too large, else the axes a shape it spells out
                    // fixes, else another input's last axis it asks for.
                    let ranks: Vec<ShapeFitStep> = guesses::ranks_from_refusal(&msg, &names)
                        .into_iter()
                        .map(|(input, rank)| (input, None, Some(rank)))
                        .collect();
                    let fits = if ranks.is_empty() {
                        let shapes: Vec<(String, Vec<u64>)> = spec
                            .inputs
                            .iter()
                            .map(|t| (t.name.clone(), t.shape.clone()))
                            .collect();
                        match guesses::axis_from_refusal(&msg, &shapes)
                            .or_else(|| guesses::ordinal_axis_from_refusal(&msg, &shapes))
                        {
                            Some((input, axis, value)) => vec![(input, Some((axis, value)), None)],
                            // "only support (N, H, W, 2) for grid": the axes the shape spells out
                            None => {
                                let mut axes = guesses::tuple_axes_from_refusal(&msg, &shapes);
                                // "the last dim of input_scale must equal the last dim of x"
                                if axes.is_empty() {
                                    axes.extend(guesses::last_axis_from_refusal(&msg, &shapes));
                                }
                                // "rois row size must be at least 5, but got 1"
                                if axes.is_empty() {
                                    axes.extend(guesses::least_axis_from_refusal(&msg, &shapes));
                                }
                                axes.into_iter()
                                    .map(|(input, axis, value)| (input, Some((axis, value)), None))
                                    .collect()
                            }
                        }
                    } else {
                        ranks
                    };
                    // a tensor with written-out values (a permutation) keeps its shape: they were made for
                    // it; a fit it already has is no fit
                    let fits: Vec<_> = fits
                        .into_iter()
                        .filter(|(input, axis, rank)| {
                            spec.inputs
                                .iter()
                                .find(|t| t.name == *input)
                                .is_some_and(|cur| {
                                    let same_axis = axis.is_some_and(|(a, v)| {
                                        cur.shape.get(a).is_none_or(|&d| d == v)
                                    });
                                    *rank != Some(cur.shape.len())
                                        && !same_axis
                                        && cur.values.is_none()
                                })
                        })
                        .collect();
                    if fits.is_empty() {
                        break;
                    }
                    let saved = inferred.rank_fits.clone();
                    fits_tried = true;
                    for (input, axis, rank) in fits {
                        let entry = inferred
                            .rank_fits
                            .entry(op.name.clone())
                            .or_default()
                            .entry(input)
                            .or_insert_with(|| (ShapeFit::default(), String::new()));
                        if let Some(rank) = rank {
                            entry.0.rank = Some(rank);
                        }
                        if let Some((axis, value)) = axis {
                            entry.0.axes.insert(axis, value);
                        }
                        entry.1 = msg.clone();
                    }
                    reinfer(inferred)?;
                    match refusal(op) {
                        None => {
                            rank_fitted = true;
                            break;
                        }
                        // the same refusal: this fit did not help; undo it. A fit that made an output
                        // larger than a manifest may hold is undone too.
                        Some(w) if short(&w) == msg || w.starts_with(guesses::TOO_LARGE) => {
                            inferred.rank_fits = saved;
                            break;
                        }
                        Some(w) => why_now = w,
                    }
                }
                if rank_fitted {
                    printer.status(
                    "Fitted",
                    format!(
                        "`{}`: its tiling function refused the manifest ({first}); the inputs it named were given the ranks or sizes it asked for",
                        op.name
                    ),
                );
                    continue;
                }
                // Fits that moved the refusal on are kept (the op now stops at a later check, and the
                // manifest says so beside each); one that did not was undone above, and the manifest on
                // disk, which still holds it, is rendered again.
                if fits_tried {
                    reinfer(inferred)?;
                }
                // The shapes fitted, a list attr's length may be what is refused now (ops-math's im2col:
                // rank 4 first, then "ksizes must contain two values"). `why_now` is the refusal of the
                // manifest as it stands: each fit undone above went back to the state it was read at.
                let Some(left) = self.attrs_asked(op, inferred, why_now)? else {
                    continue;
                };
                let first = if left == why { first } else { short(&left) };
                printer.warn(format!(
                "`{}`: its tiling function refuses the manifest ({first}), at the default shape and at smaller ones",
                op.name
            ));
            }
        }
        Ok(())
    }

    /// Grows the case an op runs at when it is small (an aclnn example's 3 rows of 4: the launch is
    /// all a run times and no tiling choice shows, so tuning has nothing to find). First the main
    /// input's last axis, when it is narrower than `WIDE` (an example's hidden size of 4 grown by rows
    /// alone gives 196608 rows of 8 bytes, a shape no model runs and where per-row copies are all
    /// there is), then its rows: each multiplied by 4, with every tensor that shares that axis, while
    /// the tiling takes them and the op runs, up to the default's element count, the example's index
    /// data carried to each size (`examples::grown`), and not past a modelled run of `LONG_ENOUGH_US`.
    /// The last size that ran is kept, and said.
    fn grow_small_cases(&self, inferred: &mut Inferred) -> Result<()> {
        const FACTOR: u64 = 4;
        /// A row this wide (elements) is wide enough: 2 KiB of fp16, the UB tiles real row-wise
        /// kernels plan.
        const WIDE: u64 = 1024;
        /// A run this much longer (with no more GM traffic) is not more work: the model's rounding.
        const NO_MORE_WORK: f64 = 0.001;
        /// A case whose modelled run takes this long is a workload already: growing it further only
        /// slows every trial (ops-cv's roi_align_grad, its example's rois grown from 1 to 65536, ran
        /// 544 ms modelled and 29 s on the twin per trial, a scalar loop per roi).
        const LONG_ENOUGH_US: f64 = 1000.0;
        for op in self.ops.iter().filter(|o| o.launch.is_none()) {
            let (Some(taken), Some(def)) = (inferred.test_cases.get(&op.name).cloned(), &op.opdef)
            else {
                continue;
            };
            if taken.largest_input().saturating_mul(16) > DEFAULT_ELEMENTS {
                continue;
            }
            let names = def.param_names();
            let cases = self.cases(op);
            let example = cases
                .iter()
                .find(|c| c.kind == tiling_tests::CaseKind::Example && !c.kernel_view);
            // A size is grown to only while the op runs as cleanly as at the case taken: no more reads
            // past an input's end (moe_token_unpermute's example has a hidden size of 2 and a top-k of
            // 2; widening the one widened `probs` too, and its kernel read past `sorted_indices`).
            // And only while it does more work: more bytes between GM and the cores, or a longer
            // modelled run. moe_token_unpermute's example rows were grown from 2 to 131072 while its
            // kernel, which walks the tokens of `probs` ([1, 2]), still read two rows: 0.82 us, a
            // launch and nothing a tiling choice changes.
            // (None: the run failed; the work is None where nothing ran.)
            let outcome = |op: &FoundOp| match self.run_outcome(op) {
                Some(Ok(ran)) => Some((
                    ran.warnings
                        .iter()
                        .filter(|w| w.contains("runs past the") || w.contains("past the end of"))
                        .count(),
                    Some((ran.gm_bytes, ran.latency_us)),
                )),
                Some(Err(_)) => None,
                None => Some((0, None)),
            };
            let (clean, mut work) = outcome(op).unwrap_or((0, None));
            let mut good = taken.clone();
            for along in [examples::Along::Width, examples::Along::Rows] {
                let mut failed = false;
                // The last case that did more work than the one before it, while the steps since
                // did none: a tiny case's copies round to the same 32-byte blocks for one step
                // (3 -> 12 halves), never for two (3 -> 48).
                let mut stalled: Option<tiling_tests::TilingCase> = None;
                while let Some(bigger) = examples::grown(&good, example, &names, FACTOR, along) {
                    if work.is_some_and(|(_, us)| us >= LONG_ENOUGH_US) {
                        break;
                    }
                    let width_done = along == examples::Along::Width
                        && good
                            .main_shape()
                            .and_then(|s| s.last())
                            .is_none_or(|&w| w >= WIDE);
                    if width_done || bigger.largest_input() > DEFAULT_ELEMENTS {
                        break;
                    }
                    inferred.test_cases.insert(op.name.clone(), bigger.clone());
                    self.reinfer(op, inferred)?;
                    if self.refusal(op).is_some() {
                        failed = true;
                        break;
                    }
                    let now = match outcome(op) {
                        Some((n, now)) if n <= clean => now,
                        _ => {
                            failed = true;
                            break;
                        }
                    };
                    let more = match (work, now) {
                        (Some((bytes, us)), Some((bytes_now, us_now))) => {
                            bytes_now > bytes || us_now > us * (1.0 + NO_MORE_WORK)
                        }
                        _ => true,
                    };
                    if more {
                        work = now;
                        stalled = None;
                    } else if stalled.is_some() {
                        break;
                    } else {
                        stalled = Some(good.clone());
                    }
                    good = bigger;
                }
                if let Some(before) = stalled {
                    good = before;
                    failed = true;
                }
                // the manifest on disk holds the size that failed: back to the last that ran
                if failed {
                    inferred.test_cases.insert(op.name.clone(), good.clone());
                    self.reinfer(op, inferred)?;
                }
            }
            if good != taken {
                let case = format!("its {} `{}`", taken.kind.label(), taken.test);
                let grew = match (good.widened, good.grown) {
                    (Some((a, b)), Some((c, d))) => {
                        format!(
                            "the last axis of {case} from {a} to {b} and its rows from {c} to {d}"
                        )
                    }
                    (Some((a, b)), None) => format!("the last axis of {case} from {a} to {b}"),
                    (None, Some((c, d))) => format!("the rows of {case} from {c} to {d}"),
                    (None, None) => continue,
                };
                let stop = match work {
                    Some((_, us)) if us >= LONG_ENOUGH_US => format!(
                        "where its modelled run reached {us:.0} us (a workload: larger only slows each trial)"
                    ),
                    _ => "where the op still runs (a larger shape shows what a tiling choice changes)"
                        .to_string(),
                };
                self.printer
                    .status("Grew", format!("`{}`: {grew}, {stop}", op.name));
            }
        }
        Ok(())
    }

    /// Why the op's tiling function refuses the manifest as written now, if it does.
    fn refusal(&self, op: &FoundOp) -> Option<String> {
        let path = self.path;
        // An output the op's InferShape made larger than a manifest may hold (ops-cv's
        // stack_group_points: [48, 16384, 16384] floats) is refused like a tiling refusal: a smaller
        // default shape answers it.
        let manifest = match crate::manifest::Manifest::load(path) {
            Ok(m) => m,
            Err(e) => {
                let text = format!("{e:?}");
                if text.contains("larger than 4 GiB") {
                    return Some(guesses::too_large_to_hold());
                }
                // A shape derived from the default that cannot be (a pad's gradient, smaller by 2 on
                // each axis, at a smaller default of 2 rows: [0, 62]) is no shape the op takes.
                return text.contains("is impossible").then(|| {
                    format!(
                        "the manifest does not load at this shape: {}",
                        short_line(&e.to_string())
                    )
                });
            }
        };
        let backend = project_backend(&manifest).ok()?;
        let spec = manifest.op(&op.name)?;
        if let Some(why) = guesses::oversized_output(spec) {
            return Some(why);
        }
        let inputs = crate::tune::inputs(spec);
        match backend.tiling_refusal(spec, &inputs) {
            // The op's InferShape refusing the inputs with its own check (`[error] Op (file:line):
            // ...`) is a refusal too: ops-nn's chamfer_distance_grad wants rank-3 points, which its
            // tiling does not check, and its kernel then writes past the outputs guessed for it. So is
            // one that returns a failed status without a word: ops-cv's upsample_nearest3d wants a 5-D
            // input and three output sizes, its tiling ran at [48, 16384], and its aclnn example (a
            // valid call) was never tried.
            Ok(None) => match backend.infer_outputs(spec, &inputs) {
                Err(e) if e.contains("[error]") || e.contains("returned status") => {
                    let own = ["[error]", "InferShape of"]
                        .iter()
                        .find_map(|m| e.find(m))
                        .map_or(e.as_str(), |at| &e[at..]);
                    Some(format!(
                        "{}{}",
                        guesses::INFER_SHAPE_REFUSED,
                        short_line(own)
                    ))
                }
                _ => None,
            },
            Ok(refused) => refused,
            // A tiling function that crashes at a shape (ops-transformer's rope tilings divide by the
            // rows a UB holds, 0 when one row of the default shape passes the UB) is answered like a
            // refusal: a smaller default shape. A host program that does not build is not.
            Err(e) if e.contains("killed by signal") => {
                Some(format!("it crashed: {}", short_line(&e)))
            }
            Err(_) => None,
        }
    }

    /// A constraint the op's own sources imply, broken by their own values at the manifest's shapes
    /// (a tutorial's 40 blocks over [48, 16384] elements: `x_elems % block_dim == 0`): the kernel runs,
    /// but leaves the tail of the work undone, and its outputs are no reference.
    fn constraint_failure(&self, op: &FoundOp) -> Option<String> {
        let manifest = crate::manifest::Manifest::load(self.path).ok()?;
        let spec = manifest.op(&op.name)?;
        let soc = crate::model::soc::lookup(&manifest.soc)?;
        let sources = crate::tune::read_sources(&manifest, spec).ok()?;
        let space = crate::space::Space::resolve(&manifest, spec, soc, &sources).ok()?;
        let current = space.current()?;
        space
            .check(&current)
            .err()
            .map(|why| format!("its sources' own values break a constraint at these shapes: {why}"))
    }

    /// Why the op fails when built and run as the manifest now says (twin only), if it does; a
    /// build failure is not the shapes' doing and counts as none.
    fn run_failure(&self, op: &FoundOp) -> Option<String> {
        self.run_outcome(op)?.err()
    }

    /// `op` built and run on the twin as the manifest on disk has it: the run's warnings, or why it
    /// fails (its fault line, or an output the twin would take minutes over, so that another case is
    /// tried); None where nothing is run (on hardware a run is the user's to start; a build failure
    /// is not the shapes' doing).
    fn run_outcome(&self, op: &FoundOp) -> Option<std::result::Result<Ran, String>> {
        self.run_checked(op, false)
    }

    /// `run_outcome`, and with `unwritten` its outputs run again filled with 0xA5 bytes first: the
    /// elements that depend on what an output held before the kernel (`tune::probes::unwritten`, as
    /// `run` warns of them) are degenerate too.
    fn run_checked(
        &self,
        op: &FoundOp,
        unwritten: bool,
    ) -> Option<std::result::Result<Ran, String>> {
        let manifest = crate::manifest::Manifest::load(self.path).ok()?;
        if manifest.backend != crate::manifest::BackendKind::Twin {
            return None;
        }
        let backend = project_backend(&manifest).ok()?;
        let spec = manifest.op(&op.name)?;
        if let Some(why) = guesses::oversized_output(spec) {
            return Some(Err(why));
        }
        let inputs = crate::tune::inputs(spec);
        let artifact = backend
            .build(spec, &crate::backend::SourceSet::default())
            .ok()?;
        Some(
            backend
                .run(spec, &artifact, &inputs, true)
                .map(|m| {
                    use crate::verify::golden;
                    let mut degenerate = golden::degenerate(spec, &inputs.tensors, &m.outputs);
                    if unwritten {
                        degenerate.extend(crate::commands::run::unwritten_warnings(
                            backend.as_ref(),
                            &manifest.root,
                            spec,
                            &artifact,
                            &inputs,
                            &m.outputs,
                        ));
                    }
                    Ran {
                        gm_bytes: m.timing.gm_bytes,
                        latency_us: m.latency_us,
                        degenerate,
                        warnings: m.warnings,
                    }
                })
                .map_err(|f| fault_line(&f.message)),
        )
    }

    /// The manifest rendered again for what `inferred` now holds, `op`'s InferShape run on it, and
    /// rendered with its outputs.
    fn reinfer(&self, op: &FoundOp, inferred: &mut Inferred) -> Result<()> {
        inferred.outputs.remove(&op.name);
        inferred.failed.remove(&op.name);
        (self.write)(inferred)?;
        let again = infer_ops(self.path, std::slice::from_ref(op), self.printer);
        inferred.outputs.extend(again.outputs);
        inferred.failed.extend(again.failed);
        (self.write)(inferred)
    }

    /// For each op the tiling took (no `--shape` given) that fails when built and run as written (a
    /// kernel fault at guessed attrs or index data: rope_with_sin_cos_cache's head size of 1 leaves a
    /// zero-length buffer), or whose sources' own values break a constraint they imply at its shapes
    /// (`constraint_failure`), tries the cases of its own tiling tests and example, as `tiling` does for
    /// a refusal, and keeps the first with which the op runs. A case taken for a refusal that then
    /// fails to run is tried against the others, and kept when none runs. Only ops whose project has
    /// such cases are run, and only on the twin.
    fn failing_runs(&self, inferred: &mut Inferred) -> Result<()> {
        let fails = |op: &FoundOp| self.constraint_failure(op).or_else(|| self.run_failure(op));
        for op in self.ops.iter().filter(|o| o.launch.is_none()) {
            let given = op.inputs.iter().any(|(n, _)| self.shapes.contains_key(n));
            if given {
                continue;
            }
            let taken = inferred.test_cases.get(&op.name).cloned();
            let mut cases = self.cases(op);
            cases.retain(|c| Some(c) != taken.as_ref());
            if cases.is_empty() {
                continue;
            }
            let Some(why) = fails(op) else {
                continue;
            };
            let why = match &taken {
                Some(c) => format!("it failed with its {} `{}` ({why})", c.kind.label(), c.test),
                None => format!("it failed as written ({why})"),
            };
            if !self.tested_case(op, cases, &fails, inferred, &why)?
                && let Some(c) = taken
            {
                // nothing ran: the case the tiling took is still the best known
                inferred.test_cases.insert(op.name.clone(), c);
                self.reinfer(op, inferred)?;
            }
        }
        Ok(())
    }

    /// For each op with an output whose shape init guessed as the main input's (no InferShape gave it,
    /// no test or example case, no `--shape`), runs the op and looks at what its kernel writes there
    /// (`tune::probes::unwritten`: a run with the outputs filled with 0xA5 bytes against one with
    /// zeros). When it writes exactly the first N elements and N is the product of the guessed shape's
    /// leading axes, the output is those axes, said beside it: a per-row result (ops-nn's
    /// ada_layer_norm_quant writes one `quant_scale` per row of its [48, 16384] input) is not a full
    /// tensor. Outputs the OpDef has filled first (`.InitValue`) are left alone.
    fn outputs_written_short(&self, inferred: &mut Inferred) -> Result<()> {
        for op in self.ops.iter().filter(|o| o.launch.is_none()) {
            if op.inputs.iter().any(|(n, _)| self.shapes.contains_key(n))
                || inferred.test_cases.contains_key(&op.name)
            {
                continue;
            }
            let Ok(manifest) = crate::manifest::Manifest::load(self.path) else {
                continue;
            };
            if manifest.backend != crate::manifest::BackendKind::Twin {
                continue;
            }
            let Some(spec) = manifest.op(&op.name) else {
                continue;
            };
            let Some(main) = spec.inputs.first().map(|t| t.shape.clone()) else {
                continue;
            };
            let given = inferred.outputs.get(&op.name);
            let filled: Vec<&str> = op
                .opdef
                .iter()
                .flat_map(|d| &d.outputs)
                .filter(|p| p.init_value)
                .map(|p| p.name.as_str())
                .collect();
            let guessed: Vec<usize> = spec
                .outputs
                .iter()
                .enumerate()
                .filter(|(i, t)| {
                    t.shape == main
                        && main.len() > 1
                        && t.list.is_none()
                        && !self.shapes.contains_key(&t.name)
                        && !filled.contains(&t.name.as_str())
                        && given
                            .and_then(|g| g.get(*i))
                            .is_none_or(|o| o.shape.is_none())
                })
                .map(|(i, _)| i)
                .collect();
            if guessed.is_empty() {
                continue;
            }
            let Ok(backend) = project_backend(&manifest) else {
                continue;
            };
            let inputs = crate::tune::inputs(spec);
            let Ok(artifact) = backend.build(spec, &crate::backend::SourceSet::default()) else {
                continue;
            };
            let Ok(m) = backend.run(spec, &artifact, &inputs, false) else {
                continue;
            };
            let unwritten = crate::tune::probes::unwritten(
                backend.as_ref(),
                spec,
                &artifact,
                &inputs,
                &m.outputs,
            );
            let mut fitted = vec![];
            for i in guessed {
                let (Some(t), Some(ranges)) = (spec.outputs.get(i), unwritten.get(i)) else {
                    continue;
                };
                let size = t.dtype.size().max(1);
                let [only] = ranges.as_slice() else {
                    continue;
                };
                let (written, elems) = (only.start / size, t.elems() as usize);
                if written == 0 || only.end / size != elems {
                    continue;
                }
                let Some(k) = (1..main.len())
                    .find(|&k| main[..k].iter().product::<u64>() as usize == written)
                else {
                    continue;
                };
                let shape = main[..k].to_vec();
                let why = format!(
                    "{shape:?}, the main input's leading axes: its kernel wrote only the first {written} of the {elems} elements of the main input's shape, guessed for it first (a run with the output filled with 0xA5 bytes differed from one with zeros in the rest)"
                );
                inferred
                    .short_outputs
                    .entry(op.name.clone())
                    .or_default()
                    .insert(t.name.clone(), (shape, why));
                fitted.push(t.name.clone());
            }
            if fitted.is_empty() {
                continue;
            }
            (self.write)(inferred)?;
            for name in fitted {
                self.printer.status(
                    "Fitted",
                    format!(
                        "`{}`: its kernel writes only the leading axes' worth of `{name}`; the main input's leading axes written as its shape",
                        op.name
                    ),
                );
            }
        }
        Ok(())
    }

    /// For each op whose kernel reads a GM input past its end where init guessed that input smaller
    /// than the main one (a per-channel or scalar role: ops-nn's
    /// sigmoid_cross_entropy_with_logits_grad_v2 reads its `weight` element by element of the main
    /// input), gives the input the main input's shape, said beside it; undone if the tiling then
    /// refuses it. Only ops with such a guess are run here (a run builds the kernel).
    fn operands_read_past(&self, inferred: &mut Inferred) -> Result<()> {
        let elems = |s: &[u64]| s.iter().product::<u64>();
        for op in self.ops.iter().filter(|o| o.launch.is_none()) {
            if op.inputs.iter().any(|(n, _)| self.shapes.contains_key(n)) {
                continue;
            }
            let guessed_smaller = |spec: &crate::manifest::OpSpec, name: Option<&str>| {
                let main = spec.inputs.first().map(|t| elems(&t.shape)).unwrap_or(0);
                spec.inputs.iter().skip(1).any(|t| {
                    name.is_none_or(|n| t.name == n)
                        && t.values.is_none()
                        && t.list.is_none()
                        && elems(&t.shape) < main
                })
            };
            let load = || {
                crate::manifest::Manifest::load(self.path)
                    .ok()
                    .and_then(|m| m.op(&op.name).cloned())
            };
            if !load().is_some_and(|spec| guessed_smaller(&spec, None)) {
                continue;
            }
            for _ in 0..4 {
                let Some(why) = self.run_failure(op) else {
                    break;
                };
                let Some(name) = read_past_input(&why) else {
                    break;
                };
                let Some(spec) = load() else {
                    break;
                };
                let Some(main) = spec.inputs.first().map(|t| t.shape.clone()) else {
                    break;
                };
                if !guessed_smaller(&spec, Some(&name)) {
                    break;
                }
                let saved = inferred.rank_fits.clone();
                let fit = ShapeFit {
                    rank: Some(main.len()),
                    axes: main.iter().copied().enumerate().collect(),
                    read_past: true,
                };
                inferred
                    .rank_fits
                    .entry(op.name.clone())
                    .or_default()
                    .insert(name.clone(), (fit, short_line(&why)));
                self.reinfer(op, inferred)?;
                if self.refusal(op).is_some() {
                    inferred.rank_fits = saved;
                    self.reinfer(op, inferred)?;
                    break;
                }
                self.printer.status(
                    "Fitted",
                    format!(
                        "`{}`: its kernel read `{name}` past the smaller shape guessed for it; the main input's shape written instead",
                        op.name
                    ),
                );
            }
        }
        Ok(())
    }

    /// Whether `op` is still at init's default shape: no `--shape` for it, no case taken, no smaller
    /// shape fitted.
    fn at_default(&self, op: &FoundOp, inferred: &Inferred) -> bool {
        let given = op.inputs.iter().any(|(n, _)| self.shapes.contains_key(n));
        !given
            && !inferred.test_cases.contains_key(&op.name)
            && inferred
                .defaults
                .get(&op.name)
                .is_none_or(|(s, _)| s.as_slice() == DEFAULT_SHAPE)
    }

    /// For each op still at the default shape (no `--shape`, no case taken) whose own example runs it
    /// at a workload's size, not a smoke test's (its largest input at least a quarter of the default's
    /// elements: the learning hub's performance tutorials measure their add at [45, 20480] with msprof),
    /// takes the example's case when the op runs with it: the shape the author measures is the one
    /// to tune for, where the default is a guess. So too, at any size, where the default's manifest
    /// also guesses what a valid call gives (index data below an axis init picked, an attr with no
    /// default): ops-transformer's moe_init_routing ran at x, row_idx and expert_idx of [48, 16384]
    /// each, its example's agreeing [3, 4], [3, 2], [3, 2] never tried. A small example is then
    /// grown (`grow_small_cases`).
    fn workload_examples(&self, inferred: &mut Inferred) -> Result<()> {
        for op in self.ops.iter().filter(|o| o.launch.is_none()) {
            if !self.at_default(op, inferred) {
                continue;
            }
            let settles = self.guesses_a_call_settles(op);
            let workload = |c: &tiling_tests::TilingCase| {
                c.largest_input().saturating_mul(4) >= DEFAULT_ELEMENTS
            };
            let Some(example) = self.cases(op).into_iter().find(|c| {
                c.kind == tiling_tests::CaseKind::Example && (workload(c) || settles.is_some())
            }) else {
                continue;
            };
            let why = match settles.filter(|_| !workload(&example)) {
                Some(guessed) => format!(
                    "the default shape {DEFAULT_SHAPE:?} is a guess, and so are {guessed}, where its example is a valid call"
                ),
                None => format!(
                    "the default shape {DEFAULT_SHAPE:?} is a guess, and its example runs it at a workload's size ({} elements)",
                    example.largest_input()
                ),
            };
            let rejects = |op: &FoundOp| {
                self.refusal(op)
                    .or_else(|| self.constraint_failure(op))
                    .or_else(|| self.run_failure(op))
            };
            self.tested_case(op, vec![example], &rejects, inferred, &why)?;
        }
        Ok(())
    }

    /// What the manifest written for `op` guesses that a valid call would give (its `# guess:` notes of
    /// index data and of attrs without a default), said in a few words; None when it guesses neither.
    fn guesses_a_call_settles(&self, op: &FoundOp) -> Option<String> {
        let text = std::fs::read_to_string(self.path).ok()?;
        let header = format!("[[op]]\nname = \"{}\"", op.name);
        let start = text.find(&header)?;
        let end = text[start + header.len()..]
            .find("[[op]]\n")
            .map_or(text.len(), |e| start + header.len() + e);
        let section = &text[start..end];
        let guessed = |what: &str| {
            section
                .lines()
                .any(|l| l.contains("# guess:") && l.contains(what))
        };
        let index = guessed(guesses::INDEX_GUESS);
        let attrs = guessed(guesses::ATTR_REQUIRED_GUESS) || guessed(guesses::ATTR_UNSET_GUESS);
        match (index, attrs) {
            (true, true) => Some("its index data and attr values".into()),
            (true, false) => Some("its index data".into()),
            (false, true) => Some("attr values".into()),
            (false, false) => None,
        }
    }

    /// For each op at the default shape (no `--shape`, no case taken) whose kernel overflows the UB
    /// when run (a tutorial's add loads a core's whole share, tileNum = 1, and holds [48, 16384] of
    /// floats over 8 cores only up to a quarter of it): fewer rows of the default, then the smaller
    /// shapes, the first with which the op runs kept and said. Kept as it was when none runs.
    fn overflowing_defaults(&self, inferred: &mut Inferred) -> Result<()> {
        let rows = [24, 12, 6, 3, 1].map(|r| vec![r, DEFAULT_SHAPE[1]]);
        let tried: Vec<Vec<u64>> = rows
            .into_iter()
            .chain(SMALLER_SHAPES.iter().map(|s| s.to_vec()))
            .collect();
        for op in self.ops.iter().filter(|o| o.launch.is_none()) {
            if !self.at_default(op, inferred) {
                continue;
            }
            let Some(why) = self.run_failure(op).filter(|w| w.contains("UB overflow")) else {
                continue;
            };
            let before = inferred.defaults.get(&op.name).cloned();
            let mut fitted = None;
            for shape in &tried {
                inferred
                    .defaults
                    .insert(op.name.clone(), (shape.clone(), overflow_note(&why)));
                self.reinfer(op, inferred)?;
                if self.refusal(op).is_none() && self.run_failure(op).is_none() {
                    fitted = Some(shape.clone());
                    break;
                }
            }
            match fitted {
                Some(shape) => self.printer.status(
                    "Fitted",
                    format!(
                        "`{}`: its kernel overflowed the UB at the default shape {DEFAULT_SHAPE:?} ({why}); {shape:?} written instead",
                        op.name
                    ),
                ),
                None => {
                    match before {
                        Some(d) => inferred.defaults.insert(op.name.clone(), d),
                        None => inferred.defaults.remove(&op.name),
                    };
                    self.reinfer(op, inferred)?;
                }
            }
        }
        Ok(())
    }

    /// For each op (no `--shape`) whose run as written gives degenerate outputs (`golden::degenerate`:
    /// an output all zeros, NaN or Inf where no input has any, or identical to an input; and elements
    /// that depend on what an output held before the kernel, `run_checked`): a path the
    /// op's users do not run, and one tuning should not measure. Tries the case taken with its attrs at
    /// the OpDef's defaults where they differ (ops-transformer's moe_gating_top_k: its tiling test sets
    /// `routed_scaling_factor` 0, the default 1.0, and `y` came out all zeros), then the op's other
    /// cases, at most four. Keeps the one whose run has the fewest such outputs, fewer than as written,
    /// with no refusal and no more reads past an input's end, and says so; else the manifest stays.
    fn degenerate_outputs(&self, inferred: &mut Inferred) -> Result<()> {
        type Try = (
            Option<tiling_tests::TilingCase>,
            BTreeMap<String, (String, String)>,
        );
        let read_past = |r: &Ran| {
            r.warnings
                .iter()
                .filter(|w| w.contains("runs past the") || w.contains("past the end of"))
                .count()
        };
        for op in self.ops.iter().filter(|o| o.launch.is_none()) {
            if op.inputs.iter().any(|(n, _)| self.shapes.contains_key(n)) {
                continue;
            }
            let Some(Ok(ran)) = self.run_checked(op, true) else {
                continue;
            };
            // "output `y` of op `x` is all zeros (2048 elements)", without the question after it
            let Some(seen) = ran
                .degenerate
                .first()
                .map(|w| short_line(w.split(": did").next().unwrap_or(w)))
            else {
                continue;
            };
            let (written, past) = (ran.degenerate.len(), read_past(&ran));
            let taken = inferred.test_cases.get(&op.name).cloned();
            let mut tries: Vec<Try> = vec![];
            if let (Some(c), Some(def)) = (&taken, &op.opdef) {
                let off = attrs_off_default(c, def, &seen);
                if !off.is_empty() {
                    let mut at_defaults = c.clone();
                    at_defaults.attrs.retain(|(n, _)| !off.contains_key(n));
                    tries.push((Some(at_defaults), off));
                }
            }
            tries.extend(
                self.cases(op)
                    .into_iter()
                    .filter(|c| Some(c) != taken.as_ref())
                    .take(4)
                    .map(|c| (Some(c), BTreeMap::new())),
            );
            let before: Try = (
                taken.clone(),
                inferred
                    .defaulted_attrs
                    .get(&op.name)
                    .cloned()
                    .unwrap_or_default(),
            );
            let set = |inferred: &mut Inferred, t: &Try| -> Result<()> {
                match &t.0 {
                    Some(c) => inferred.test_cases.insert(op.name.clone(), c.clone()),
                    None => inferred.test_cases.remove(&op.name),
                };
                if t.1.is_empty() {
                    inferred.defaulted_attrs.remove(&op.name);
                } else {
                    inferred
                        .defaulted_attrs
                        .insert(op.name.clone(), t.1.clone());
                }
                self.reinfer(op, inferred)
            };
            let mut best: Option<(usize, Try)> = None;
            for t in tries {
                set(inferred, &t)?;
                if self.refusal(op).is_some() {
                    continue;
                }
                let Some(Ok(now)) = self.run_checked(op, true) else {
                    continue;
                };
                let n = now.degenerate.len();
                if n < best.as_ref().map_or(written, |(b, _)| *b) && read_past(&now) <= past {
                    best = Some((n, t));
                    if n == 0 {
                        break;
                    }
                }
            }
            let was = match &taken {
                Some(c) => format!("its {} `{}`", c.kind.label(), c.test),
                None => "the default shape".to_string(),
            };
            // Of several attrs put at their defaults, the case's value back for each that the outputs
            // do not need at its default: moe_gating_top_k's `y` needs only its scaling factor, not
            // a k and group count of 1.
            if let Some((n, (Some(case), off))) = best.as_mut().filter(|(_, t)| t.1.len() > 1) {
                for name in off.keys().cloned().collect::<Vec<_>>() {
                    let mut fewer = off.clone();
                    let Some((value, _)) = fewer.remove(&name) else {
                        continue;
                    };
                    let mut back = case.clone();
                    back.attrs.push((name, value));
                    let t: Try = (Some(back), fewer);
                    set(inferred, &t)?;
                    if self.refusal(op).is_some() {
                        continue;
                    }
                    if let Some(Ok(now)) = self.run_checked(op, true)
                        && now.degenerate.len() <= *n
                        && read_past(&now) <= past
                        && let (Some(kept), fewer) = t
                    {
                        *n = now.degenerate.len();
                        (*case, *off) = (kept, fewer);
                    }
                }
            }
            match best {
                Some((n, t)) => {
                    set(inferred, &t)?;
                    let instead = match (&t.0, t.1.is_empty()) {
                        (Some(_), false) => format!(
                            "{was} with attrs {} at the OpDef's defaults",
                            t.1.keys()
                                .map(|a| format!("`{a}`"))
                                .collect::<Vec<_>>()
                                .join(", ")
                        ),
                        (Some(c), true) => format!(
                            "the shapes, dtypes and attrs of its {} `{}` ({}:{})",
                            c.kind.label(),
                            c.test,
                            c.file,
                            c.line
                        ),
                        (None, _) => "the default shape".to_string(),
                    };
                    self.printer.status(
                        "Fitted",
                        format!(
                            "`{}`: {written} output(s) degenerate at {was} ({seen}); {instead} written instead, {n} left",
                            op.name
                        ),
                    );
                }
                None => set(inferred, &before)?,
            }
        }
        Ok(())
    }

    /// The cases of the op's tiling tests (`tiling_tests::find`) and aclnn example (`examples::find`)
    /// init may take, in the order it tries them: those giving every input of the manifest (an absent
    /// optional one counts, and a test's trailing optional inputs it leaves out are absent) and no
    /// tensor past 16 M elements, nearest the default's element count first, one of each, the
    /// example's no later than fourth.
    fn cases(&self, op: &FoundOp) -> Vec<tiling_tests::TilingCase> {
        if let Some(c) = self.found.borrow().get(&op.name) {
            return c.clone();
        }
        let cases = self.read_cases(op);
        self.found
            .borrow_mut()
            .insert(op.name.clone(), cases.clone());
        cases
    }

    /// `cases`, read from the project's files.
    fn read_cases(&self, op: &FoundOp) -> Vec<tiling_tests::TilingCase> {
        let (Some(root), Some(op_type)) = (self.path.parent(), op.op_type.as_deref()) else {
            return vec![];
        };
        // the OpDef's inputs, as the manifest lists them (the manifest may not load: an output past 4 GiB)
        let Some(inputs) = op.opdef.as_ref().map(|d| d.inputs.len()) else {
            return vec![];
        };
        const MOST: u64 = 16 << 20;
        let examples = op
            .opdef
            .as_ref()
            .map(|d| examples::find(root, d))
            .unwrap_or_default();
        let mut cases: Vec<_> = tiling_tests::find(root, op_type)
            .into_iter()
            .map(|mut c| {
                if let Some(def) = &op.opdef {
                    c.place_trailing_optional(def);
                }
                c
            })
            .chain(examples)
            .filter(|c| {
                c.inputs.len() == inputs
                    && c.largest_input() > 0
                    && c.largest_input() <= MOST
                    && c.outputs
                        .iter()
                        .all(|t| t.shape.iter().product::<u64>() <= 4 * MOST)
            })
            .collect();
        // the kind of index data the example gives, at the other cases' shapes
        if let (Some(example), Some(def)) = (
            cases
                .iter()
                .find(|c| c.kind == tiling_tests::CaseKind::Example && !c.kernel_view)
                .cloned(),
            op.opdef.as_ref(),
        ) {
            let names = def.param_names();
            for c in cases
                .iter_mut()
                .filter(|c| c.kind != tiling_tests::CaseKind::Example)
            {
                examples::carry(&example, c, &names);
            }
        }
        order_cases(cases)
    }

    /// Whether one of `cases` (`cases`, in order, at most four) was taken: the first that `rejects` (the
    /// tiling's refusal, or a failed run) has nothing against, each rendered into the manifest in turn.
    /// When one is, says so with `why` the default was not kept; when none is, the manifest is rendered
    /// without a case again.
    fn tested_case(
        &self,
        op: &FoundOp,
        cases: Vec<tiling_tests::TilingCase>,
        rejects: &dyn Fn(&FoundOp) -> Option<String>,
        inferred: &mut Inferred,
        why: &str,
    ) -> Result<bool> {
        if cases.is_empty() {
            return Ok(false);
        }
        for case in cases.into_iter().take(4) {
            inferred.test_cases.insert(op.name.clone(), case.clone());
            self.reinfer(op, inferred)?;
            let refused = rejects(op);
            if let Some(why_not) = refused.as_deref().filter(|_| self.printer.verbose > 0) {
                self.printer.status(
                    "Refused",
                    format!(
                        "`{}`: the shapes of its {} `{}` ({}:{}): {why_not}",
                        op.name,
                        case.kind.label(),
                        case.test,
                        case.file,
                        case.line
                    ),
                );
            }
            if refused.is_none() {
                self.printer.status(
                "Fitted",
                format!(
                    "`{}`: {why}; the shapes, dtypes and attrs of its {} `{}` ({}:{}) written instead",
                    op.name, case.kind.label(), case.test, case.file, case.line
                ),
            );
                return Ok(true);
            }
        }
        inferred.test_cases.remove(&op.name);
        self.reinfer(op, inferred)?;
        Ok(false)
    }
}

/// The order init tries an op's `cases` in: nearest the default's element count first, each set of
/// inputs and attrs once, the example's first case no later than fourth (tiling tests give no data,
/// and where operands must agree, MoE index data, only the example's runs; init tries at most four),
/// and the same call as the kernel gets it (`examples::find`: its aclnn layer's layout changes
/// applied) right after it, both within the first four.
fn order_cases(mut cases: Vec<tiling_tests::TilingCase>) -> Vec<tiling_tests::TilingCase> {
    let distance = |c: &tiling_tests::TilingCase| {
        (c.largest_input() as f64 / DEFAULT_ELEMENTS as f64)
            .ln()
            .abs()
    };
    cases.sort_by(|a, b| distance(a).total_cmp(&distance(b)));
    let mut seen: Vec<tiling_tests::TilingCase> = vec![];
    cases.retain(|c| {
        let new = !seen
            .iter()
            .any(|s| s.inputs == c.inputs && s.attrs == c.attrs);
        if new {
            seen.push(c.clone());
        }
        new
    });
    let example =
        |c: &tiling_tests::TilingCase| c.kind == tiling_tests::CaseKind::Example && !c.kernel_view;
    // the example's first case no later than fourth
    if let Some(e) = cases.iter().position(example)
        && e > 3
    {
        let first = cases.remove(e);
        cases.insert(3, first);
    }
    // and its kernel view right after it, both within the first four
    if let Some(e) = cases.iter().position(example)
        && let Some(k) = cases
            .iter()
            .position(|c| c.kernel_view && c.file == cases[e].file)
    {
        let kernel_view = cases.remove(k);
        let e = if k < e { e - 1 } else { e };
        let e = if e >= 3 {
            let first = cases.remove(e);
            cases.insert(2, first);
            2
        } else {
            e
        };
        cases.insert(e + 1, kernel_view);
    }
    cases
}

/// Probes the tunables of every op of the manifest at `path` (`probe_tunables`) and moves those whose
/// change leaves the run unchanged from `tunables` to `left_out`. When the manifest does not load or an
/// op does not run as it is, says so and keeps that op's tunables.
///
/// A kernel constant that runs at no other value alone but does moved with a host constant of the same
/// value (`Verdict::TiedWith`) brings that host constant in as a tunable, and the two are kept equal by
/// a constraint: returned by op name, as constraint texts for the `[[op]]` table, when `can_tie` (a
/// manifest init writes whole; into a user's manifest only the tunables are written, so the kernel
/// constant is left out there).
fn probe_ops(
    path: &Path,
    ops: &mut [FoundOp],
    seconds: u64,
    can_tie: bool,
    printer: &Printer,
) -> Result<BTreeMap<String, Vec<String>>> {
    let mut ties: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let manifest = match crate::manifest::Manifest::load(path) {
        Ok(m) => m,
        Err(e) => {
            printer.warn(format!(
                "tunables not probed: the manifest does not load yet ({e})"
            ));
            return Ok(ties);
        }
    };
    let backend = match project_backend(&manifest) {
        Ok(b) => b,
        Err(e) => {
            printer.warn(format!("tunables not probed: {e}"));
            return Ok(ties);
        }
    };
    // The ops are probed side by side, one per core (each build is one compile, a program of a
    // multi-stage sample one CMake target: cann-samples' rms_norm_quant_story has seven), each with its
    // own deadline from when it starts; the verdicts are taken in the manifest's order.
    let specs: Vec<Option<&crate::manifest::OpSpec>> = ops
        .iter()
        .map(|o| {
            (!o.tunables.is_empty())
                .then(|| manifest.op(&o.name))
                .flatten()
        })
        .collect();
    for (op, _) in ops.iter().zip(&specs).filter(|(_, s)| s.is_some()) {
        printer.status(
            "Probing",
            format!(
                "{} tunable(s) of `{}`: one build and run each, to leave out those that change nothing",
                op.tunables.len(),
                op.name
            ),
        );
    }
    let probed = probe_side_by_side(&specs, |spec| {
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(seconds);
        super::probe_tunables::probe(&manifest, spec, backend.as_ref(), deadline)
    });
    for (op, result) in ops.iter_mut().zip(probed) {
        let Some(result) = result else {
            continue;
        };
        match result {
            Err(why) => printer.warn(format!(
                "tunables of `{}` not probed, all kept: the op as it is fails ({why})",
                op.name
            )),
            Ok(verdicts) => {
                let late: Vec<&str> = verdicts
                    .iter()
                    .filter(|(_, v)| *v == super::probe_tunables::Verdict::NotReached)
                    .map(|(n, _)| n.as_str())
                    .collect();
                if !late.is_empty() {
                    printer.warn(format!(
                        "{} tunable(s) of `{}` not probed and kept: its probe passed {seconds} s (`init --probe-seconds` gives it longer): {}",
                        late.len(),
                        op.name,
                        late.join(", ")
                    ));
                }
                for (name, verdict) in verdicts {
                    let verdict = match verdict {
                        super::probe_tunables::Verdict::TiedWith { file, symbol } if can_tie => {
                            let Some(kernel) = op.tunables.iter().find(|t| t.name == name).cloned()
                            else {
                                continue;
                            };
                            // A host constant already tied to another kernel constant is one
                            // tunable still: two bound to one literal would not load.
                            let bound = crate::manifest::Bind::Symbol(symbol.clone());
                            let existing = op
                                .tunables
                                .iter()
                                .find(|t| t.file == file && t.bind == bound)
                                .map(|t| t.name.clone());
                            let mut host_name = existing
                                .clone()
                                .unwrap_or_else(|| symbol.to_ascii_lowercase());
                            while existing.is_none()
                                && op.tunables.iter().any(|t| t.name == host_name)
                            {
                                host_name = format!("{host_name}_host");
                            }
                            printer.status(
                                "Probed",
                                format!(
                                    "`{name}` of `{}`: no other value runs alone, but each does moved with `{symbol}` ({file}), which holds the same value: tuned together as `{name} == {host_name}`",
                                    op.name
                                ),
                            );
                            if existing.is_none() {
                                op.tunables.push(discover::FoundTunable {
                                    name: host_name.clone(),
                                    file,
                                    bind: bound,
                                    ..kernel
                                });
                            }
                            ties.entry(op.name.clone())
                                .or_default()
                                .push(format!("{name} == {host_name}"));
                            continue;
                        }
                        super::probe_tunables::Verdict::TiedWith { symbol, .. } => {
                            super::probe_tunables::Verdict::NoOtherValueRuns(format!(
                                "it runs moved with the host's `{symbol}` only, and init writes no constraint into a manifest it did not write"
                            ))
                        }
                        v => v,
                    };
                    let reason = match verdict {
                        super::probe_tunables::Verdict::Unchanged => {
                            discover::Reason::TraceUnchanged
                        }
                        super::probe_tunables::Verdict::NoOtherValueRuns(why) => {
                            printer.status(
                                "Probed",
                                format!(
                                    "`{name}` of `{}`: no neighbouring value runs ({why})",
                                    op.name
                                ),
                            );
                            discover::Reason::NoOtherValueRuns
                        }
                        super::probe_tunables::Verdict::Limit(why) => {
                            printer.status(
                                "Probed",
                                format!(
                                    "`{name}` of `{}`: a limit, the values that run change nothing ({why})",
                                    op.name
                                ),
                            );
                            discover::Reason::Limit
                        }
                        super::probe_tunables::Verdict::NotRead => discover::Reason::FileNotBuilt,
                        _ => continue,
                    };
                    let Some(i) = op.tunables.iter().position(|t| t.name == name) else {
                        continue;
                    };
                    let t = op.tunables.remove(i);
                    let line = std::fs::read_to_string(manifest.root.join(&t.file))
                        .ok()
                        .and_then(|text| {
                            crate::space::binding::find_site(&text, &t.file, &t.bind).ok()
                        })
                        .map_or(0, |s| s.line);
                    op.left_out.push(discover::LeftOut {
                        name: t.name,
                        file: t.file,
                        line,
                        reason,
                    });
                }
            }
        }
    }
    Ok(ties)
}

/// `probe` of every op that has a spec, on as many threads as this process may use (no more than
/// there are ops), each result in its op's place; None where there is no spec.
fn probe_side_by_side<'m, S: Sync, R: Send>(
    specs: &[Option<&'m S>],
    probe: impl Fn(&'m S) -> R + Sync,
) -> Vec<Option<R>> {
    let todo: Vec<usize> = (0..specs.len()).filter(|&i| specs[i].is_some()).collect();
    let workers = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .min(todo.len())
        .max(1);
    let next = std::sync::atomic::AtomicUsize::new(0);
    let done = std::sync::Mutex::new(Vec::with_capacity(todo.len()));
    std::thread::scope(|scope| {
        for _ in 0..workers {
            scope.spawn(|| {
                loop {
                    let k = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    let Some(&i) = todo.get(k) else {
                        break;
                    };
                    let Some(spec) = specs[i] else {
                        continue;
                    };
                    let r = probe(spec);
                    done.lock().unwrap_or_else(|e| e.into_inner()).push((i, r));
                }
            });
        }
    });
    let mut out: Vec<Option<R>> = (0..specs.len()).map(|_| None).collect();
    for (i, r) in done.into_inner().unwrap_or_else(|e| e.into_inner()) {
        out[i] = Some(r);
    }
    out
}

/// Op name -> the constraints derived from its sources, for the manifest at `path`. Empty when the
/// manifest does not load or bind (then `tune` says why, with its line).
fn derived_constraints(path: &Path) -> BTreeMap<String, Vec<String>> {
    let mut out = BTreeMap::new();
    let Ok(manifest) = crate::manifest::Manifest::load(path) else {
        return out;
    };
    let Some(soc) = crate::model::soc::lookup(&manifest.soc) else {
        return out;
    };
    for op in &manifest.ops {
        let Ok(sources) = crate::tune::read_sources(&manifest, op) else {
            continue;
        };
        if let Ok(space) = crate::space::Space::resolve(&manifest, op, soc, &sources) {
            out.insert(
                op.name.clone(),
                space.derived.iter().map(|d| d.describe()).collect(),
            );
        }
    }
    out
}

/// `x=48x16384` or `x=48,16384` into a map from tensor name to shape.
fn parse_shapes(args: &[String]) -> Result<BTreeMap<String, Vec<u64>>> {
    let mut out = BTreeMap::new();
    for a in args {
        let bad = || {
            Error::bad_input(
                format!("`--shape {a}` is not NAME=D0xD1..."),
                Some("for example --shape x=48x16384".into()),
            )
        };
        let (name, dims) = a.split_once('=').ok_or_else(bad)?;
        let dims: Vec<u64> = dims
            .split(['x', ','])
            .map(|d| d.trim().parse::<u64>().ok().filter(|&d| d > 0))
            .collect::<Option<_>>()
            .ok_or_else(bad)?;
        out.insert(name.trim().to_string(), dims);
    }
    Ok(out)
}

/// The SoC to write: `--soc` when given, else the first `AddConfig` SoC of the ops that the model
/// knows, else Ascend910B1 with a note saying why.
fn choose_soc(
    ops: &[FoundOp],
    given: Option<&str>,
) -> (&'static crate::model::soc::Soc, Option<String>) {
    let default = || crate::model::soc::lookup("Ascend910B1").expect("the default SoC is modelled");
    if let Some(soc) = given.and_then(crate::model::soc::lookup) {
        return (soc, None);
    }
    // A program whose CMakeLists.txt targets dav-3510 runs as an Ascend950 one.
    if ops
        .iter()
        .any(|o| o.launch.as_ref().is_some_and(|l| l.targets_dav_3510))
    {
        let a5 = crate::model::soc::lookup("Ascend950").expect("Ascend950 is in the SoC table");
        return (
            a5,
            Some(
                "from the CMakeLists.txt's CMAKE_ASC_ARCHITECTURES \"dav-3510\"; its latency is modelled with \
                 assumed dav-2201 (Ascend910B1) figures"
                    .into(),
            ),
        );
    }
    let mut configs: Vec<&String> = ops
        .iter()
        .filter_map(|o| o.opdef.as_ref())
        .flat_map(|d| &d.socs)
        .collect();
    // The 910B first when the op names it: the model's tables are calibrated on it.
    configs.sort_by_key(|c| !c.eq_ignore_ascii_case("ascend910b"));
    if configs.is_empty() {
        return (default(), None);
    }
    for c in &configs {
        if let Some(soc) = opdef::soc_of_config(c).and_then(crate::model::soc::lookup) {
            return (soc, Some(format!("from the OpDef's AddConfig(\"{c}\")")));
        }
    }
    let names: Vec<&str> = configs.iter().map(|c| c.as_str()).collect();
    (
        default(),
        Some(format!(
            "guess: the OpDef's AddConfig names {} only, which the model has no tables for",
            names.join(", ")
        )),
    )
}

/// A TOML float that reads back as the same number.
fn toml_float(f: f64) -> String {
    if f.is_nan() {
        "nan".into()
    } else if f.is_infinite() {
        if f > 0.0 { "inf".into() } else { "-inf".into() }
    } else {
        let s = format!("{f:?}");
        if s.contains(['.', 'e', 'E']) {
            s
        } else {
            format!("{s}.0")
        }
    }
}

/// An attr's `value = ...` and the note beside it: its default, or for a required attr a value of
/// its type; `None` for types the twin cannot pass (then the attr is left out, with a note).
/// The attrs `case` gives a value other than the OpDef's default (a default the manifest can write),
/// each with the case's value and `why` it is left: those a run at the defaults may try.
fn attrs_off_default(
    case: &tiling_tests::TilingCase,
    def: &opdef::OpDef,
    why: &str,
) -> BTreeMap<String, (String, String)> {
    let same = |a: &str, b: &str| match (a.parse::<f64>(), b.parse::<f64>()) {
        (Ok(x), Ok(y)) => x == y,
        _ => a == b,
    };
    case.attrs
        .iter()
        .filter_map(|(name, value)| {
            let a = def.attrs.iter().find(|a| &a.name == name)?;
            a.default.as_ref()?;
            let default = attr_value(a).0?;
            (!same(&default, value)).then(|| (name.clone(), (value.clone(), why.to_string())))
        })
        .collect()
}

fn attr_value(a: &opdef::AttrDef) -> (Option<String>, Option<String>) {
    use opdef::{AttrDefault as D, AttrKind as K};
    let written = |d: &D| -> Option<String> {
        Some(match d {
            D::Int(i) => i.to_string(),
            D::Float(f) => toml_float(*f),
            D::Bool(b) => b.to_string(),
            D::Str(s) if !s.contains(char::is_whitespace) && !s.contains(['"', '\\']) => {
                format!("\"{s}\"")
            }
            D::Ints(v) => format!("{v:?}"),
            _ => return None,
        })
    };
    if let Some(d) = &a.default {
        return match written(d) {
            Some(v) => (Some(v), None),
            None => (
                None,
                Some(format!(
                    "guess: attr `{}` left out: the twin cannot pass its default {d:?}",
                    a.name
                )),
            ),
        };
    }
    let v = match a.kind {
        K::Int => &guesses::REQUIRED_INT_ATTR.to_string(),
        K::Float => "1.0",
        K::Bool => "false",
        K::ListInt => "[1]",
        K::String => guesses::STRING_ATTRS
            .iter()
            .find(|(n, _)| a.name.eq_ignore_ascii_case(n))
            .map_or("\"\"", |(_, v)| v),
        K::ListFloat | K::ListBool | K::Unknown => {
            return (
                None,
                Some(format!(
                    "guess: attr `{}` left out: no default, and the twin cannot pass its type",
                    a.name
                )),
            );
        }
    };
    let why = if a.required {
        guesses::ATTR_REQUIRED_GUESS
    } else {
        guesses::ATTR_UNSET_GUESS
    };
    (
        Some(v.to_string()),
        Some(format!("guess: attr `{}` {why}: {v} written", a.name)),
    )
}

/// Writes `key = ["a", "b"]   # note` with each of `items` once, in first-seen order; nothing when
/// there are none.
fn distinct_list<'a>(
    s: &mut String,
    key: &str,
    items: impl Iterator<Item = &'a String>,
    note: &str,
) {
    let mut seen: Vec<&String> = vec![];
    for i in items {
        if !seen.contains(&i) {
            seen.push(i);
        }
    }
    if !seen.is_empty() {
        let list: Vec<String> = seen.iter().map(|i| format!("\"{i}\"")).collect();
        let _ = writeln!(s, "{key} = [{}]   # {note}", list.join(", "));
    }
}

fn render(
    ops: &[FoundOp],
    soc: &crate::model::soc::Soc,
    soc_note: Option<&str>,
    shapes: &BTreeMap<String, Vec<u64>>,
    derived: &BTreeMap<String, Vec<String>>,
    inferred: &Inferred,
) -> (String, Vec<String>) {
    let mut s = String::new();
    let mut guesses: Vec<String> = vec![];
    let note = |guesses: &mut Vec<String>, line: &mut String, g: Option<String>, op: &str| {
        if let Some(g) = g {
            line.push_str(&format!("   # {g}"));
            if g.starts_with("guess:") {
                guesses.push(format!("{op}: {}", g.trim_start_matches("guess: ")));
            }
        }
    };
    let _ = writeln!(
        s,
        "# Written by `cargo ascend-tune init`. Check the shapes (what the op is tuned for) and the domains,"
    );
    let _ = writeln!(
        s,
        "# and every `# guess:`, then run `cargo ascend-tune tune`."
    );
    let mut soc_line = format!("[project]\nsoc = \"{}\"", soc.name);
    note(
        &mut guesses,
        &mut soc_line,
        soc_note.map(str::to_string),
        "project",
    );
    let _ = writeln!(s, "{soc_line}\nbackend = \"twin\"");
    if ops.iter().any(|o| o.launch.is_some()) {
        let _ = writeln!(s, "layout = \"kernel-launch\"");
    }
    let launches = || ops.iter().filter_map(|o| o.launch.as_ref());
    distinct_list(
        &mut s,
        "cmake-include",
        launches().flat_map(|l| &l.cmake_include),
        "the CMakeLists.txt is part of a larger build (no project() of its own): built in a wrapper that includes these",
    );
    distinct_list(
        &mut s,
        "include",
        ops.iter().flat_map(|o| &o.include),
        "the folders holding headers the sources include",
    );
    let mut include_as: Vec<&(String, String)> = vec![];
    for m in ops.iter().flat_map(|o| &o.include_as) {
        if !include_as.iter().any(|(at, _)| *at == m.0) {
            include_as.push(m);
        }
    }
    if !include_as.is_empty() {
        let list: Vec<String> = include_as
            .iter()
            .map(|(at, d)| format!("\"{at}\" = \"{d}\""))
            .collect();
        let _ = writeln!(
            s,
            "include-as = {{ {} }}   # sibling folders the sources include as `../<name>/`, shown where the original build puts them",
            list.join(", ")
        );
    }
    for op in ops {
        let _ = writeln!(s, "\n[[op]]\nname = \"{}\"", op.name);
        for n in &op.notes {
            let _ = writeln!(s, "# {n}");
            guesses.push(format!("{}: {n}", op.name));
        }
        if let Some(t) = &op.op_type {
            let _ = writeln!(s, "type = \"{t}\"");
        }
        let list = |v: &[String]| {
            v.iter()
                .map(|f| format!("\"{f}\""))
                .collect::<Vec<_>>()
                .join(", ")
        };
        if !op.host.is_empty() || op.launch.is_none() {
            let _ = writeln!(s, "host = [{}]", list(&op.host));
        }
        let _ = writeln!(s, "kernel = [{}]", list(&op.kernel));
        if let Some(ties) = inferred.ties.get(&op.name).filter(|t| !t.is_empty()) {
            let texts: Vec<String> = ties.iter().map(|t| format!("\"{t}\"")).collect();
            let _ = writeln!(
                s,
                "constraints = [{}]   # init's probe: each kernel constant runs at another value only moved with the host constant of its value",
                texts.join(", ")
            );
        }
        if let Some(names) = inferred.stubbed.get(&op.name) {
            let mut line = "stub-undefined = true".to_string();
            note(
                &mut guesses,
                &mut line,
                Some(format!(
                    "guess: no source init found defines {} (another SoC's code path, usually): stubs that stop the program, naming the function, if it is called",
                    names
                        .iter()
                        .map(|n| format!("`{n}`"))
                        .collect::<Vec<_>>()
                        .join(", ")
                )),
                &op.name,
            );
            let _ = writeln!(s, "{line}");
        }
        if let Some(l) = &op.launch {
            let _ = writeln!(s, "program = \"{}\"", l.program);
            for (key, cmds) in [("prepare", &l.prepare), ("verify", &l.verify)] {
                match cmds.as_deref() {
                    Some([cmd]) => {
                        let _ = writeln!(s, "{key} = [{}]", list(cmd));
                    }
                    Some(cmds) => {
                        let each: Vec<String> =
                            cmds.iter().map(|c| format!("[{}]", list(c))).collect();
                        let _ = writeln!(s, "{key} = [{}]", each.join(", "));
                    }
                    None => {}
                }
            }
            if let Some(why) = &l.starts_processes {
                let _ = writeln!(
                    s,
                    "starts-processes = true   # {why}: the program runs without the filter that stops a candidate starting processes"
                );
            }
            if !l.defines.is_empty() {
                let names: Vec<&str> = l
                    .defines
                    .iter()
                    .map(|d| d.split('=').next().unwrap_or(d))
                    .collect();
                let mut line = format!("cmake-defines = [{}]", list(&l.defines));
                note(
                    &mut guesses,
                    &mut line,
                    Some(format!(
                        "guess: its CMakeLists.txt stops without -D{}; the first value its message offers",
                        names.join(", -D")
                    )),
                    &op.name,
                );
                let _ = writeln!(s, "{line}");
            }
        }
        let default = inferred.defaults.get(&op.name);
        let scalar_grad = inferred.scalar_grads.contains(&op.name);
        // A main input fitted to another rank is the shape every other tensor is derived from, as if
        // given with --shape (ops-math's pad_v3_grad_replicate wants x 4-D, then paddings of 8 and an
        // output smaller on all four axes).
        let fitted_shapes;
        let shapes = match (&op.opdef, inferred.rank_fits.get(&op.name)) {
            (Some(def), Some(fits)) => {
                let main_fit = def
                    .inputs
                    .first()
                    .filter(|p| !shapes.contains_key(&p.name))
                    .and_then(|p| Some((p, fits.get(&p.name)?.0.rank?)));
                match main_fit {
                    Some((p, rank)) => {
                        let (ins, _) = opdef_tensors(op, def, shapes, default, scalar_grad);
                        let now = ins.first().map(|t| t.shape.clone()).unwrap_or_default();
                        fitted_shapes = {
                            let mut m = shapes.clone();
                            m.insert(p.name.clone(), guesses::fit_rank(&now, rank, &now));
                            m
                        };
                        &fitted_shapes
                    }
                    None => shapes,
                }
            }
            _ => shapes,
        };
        let (mut inputs, mut outputs) = match &op.opdef {
            Some(def) => opdef_tensors(op, def, shapes, default, scalar_grad),
            None => legacy_tensors(op, shapes, default),
        };
        if inferred.elementwise.contains(&op.name) {
            elementwise_operands(shapes, &mut inputs);
        }
        // Each fit is a rank, brought about on the shapes as rendered now (a smaller default shape
        // may have been taken since); a tensor with written-out values keeps the shape they fit.
        let main = inputs.first().map(|t| t.shape.clone()).unwrap_or_default();
        for (input, (fit, why)) in inferred.rank_fits.get(&op.name).into_iter().flatten() {
            if let Some(t) = inputs
                .iter_mut()
                .find(|t| &t.name == input && t.values.is_none())
            {
                let mut asked = vec![];
                if let Some(rank) = fit.rank {
                    t.shape = guesses::fit_rank(&t.shape, rank, &main);
                    asked.push(format!(
                        "{rank} {}",
                        if rank == 1 { "axis" } else { "axes" }
                    ));
                }
                for (&axis, &value) in &fit.axes {
                    if let Some(d) = t.shape.get_mut(axis) {
                        *d = value;
                        asked.push(format!("axis {axis} of {value}"));
                    }
                }
                t.guess = Some(if fit.read_past {
                    format!(
                        "guess: the main input's shape: the kernel read past the smaller shape guessed for it ({why})"
                    )
                } else {
                    format!(
                        "guess: {}, as the op's tiling function asked when it refused the manifest ({why})",
                        asked.join(", ")
                    )
                });
            }
        }
        let case = inferred.test_cases.get(&op.name);
        if let Some(c) = case {
            let from = format!(
                "from the op's {} `{}` ({}:{}){}",
                c.kind.label(),
                c.test,
                c.file,
                c.line,
                c.widened
                    .map(|(a, b)| format!(", its last axis widened from {a} to {b}"))
                    .unwrap_or_default()
                    + &c.grown
                        .map(|(a, b)| format!(", its rows grown from {a} to {b}"))
                        .unwrap_or_default()
            );
            // A test's dtype the OpDef does not list for that tensor is the test's slip, not the op's
            // (ops-nn's chamfer_distance_grad tests its int32 indices as DT_FLOAT): the OpDef's stays.
            let allowed =
                |params: Option<&Vec<opdef::ParamDef>>, name: &str, d: crate::manifest::DType| {
                    params
                        .and_then(|ps| ps.iter().find(|p| p.name == name))
                        .is_none_or(|p| {
                            p.dtypes.is_empty() || p.dtypes.iter().any(|g| g == d.ge_name())
                        })
                };
            let def_inputs = op.opdef.as_ref().map(|d| &d.inputs);
            let def_outputs = op.opdef.as_ref().map(|d| &d.outputs);
            for (i, (t, ct)) in inputs.iter_mut().zip(&c.inputs).enumerate() {
                if c.absent.contains(&i) {
                    continue;
                }
                t.shape = ct.shape.clone();
                t.dtype = ct
                    .dtype
                    .filter(|&d| allowed(def_inputs, &t.name, d))
                    .unwrap_or(t.dtype);
                t.values = None;
                // data the test gives (a value-dependent shape operand) is the test's
                if let Some((_, v)) = c.values.iter().find(|(k, _)| *k == i) {
                    t.values = Some(v.clone());
                    t.range = None;
                    t.guess = Some(format!("shape, dtype and data {from}"));
                    continue;
                }
                // data of the kind the op's example gives (index operands that must stay in bounds)
                if let Some((_, d)) = c.carried.iter().find(|(k, _)| *k == i) {
                    let (data, range) = match d {
                        examples::Carried::Permutation => (Some("permutation"), None),
                        examples::Carried::Below { bound, sorted, .. } => {
                            (sorted.then_some("sorted"), Some(format!("[0, {bound}]")))
                        }
                        examples::Carried::Same(v) => {
                            t.values = Some(format!("[{v}]"));
                            (None, None)
                        }
                        examples::Carried::Verbatim(v) => {
                            t.values = Some(v.clone());
                            (None, None)
                        }
                    };
                    t.data = data.map(str::to_string);
                    t.range = range;
                    t.guess = Some(format!(
                        "shape and dtype {from}; data {}, as the op's example gives it",
                        d.describe()
                    ));
                    continue;
                }
                // the test gives no data: a guessed data range stays a guess, and says so
                t.guess = match (&t.range, t.guess.take()) {
                    (Some(_), Some(g)) if g.starts_with("guess:") => {
                        Some(format!("{g} (shape and dtype {from})"))
                    }
                    _ => Some(from.clone()),
                };
            }
            // An index operand's guessed positions, again at the case's shapes: a range of the
            // default's 48 rows read past the 30 of moe_token_unpermute_with_routing_map_grad's test.
            if let Some(def) = &op.opdef {
                let guessed: Vec<usize> = inputs
                    .iter()
                    .enumerate()
                    .filter(|(i, t)| {
                        !c.absent.contains(i)
                            && !c.values.iter().any(|(k, _)| k == i)
                            && !c.carried.iter().any(|(k, _)| k == i)
                            && t.range.is_some()
                            && t.guess.as_deref().is_some_and(|g| g.starts_with("guess:"))
                    })
                    .map(|(i, _)| i)
                    .collect();
                if !guessed.is_empty() {
                    let main: Vec<u64> =
                        inputs.first().map(|t| t.shape.clone()).unwrap_or_default();
                    let all: BTreeMap<String, Vec<u64>> = inputs
                        .iter()
                        .map(|t| (t.name.clone(), t.shape.clone()))
                        .collect();
                    let kept: Vec<Option<String>> =
                        guessed.iter().map(|&i| inputs[i].range.take()).collect();
                    // data a case carried is decided and left alone (a permutation must not gain a
                    // range beside its `data`)
                    guesses::index_operands(def, &main, &all, &mut inputs);
                    for (&i, old) in guessed.iter().zip(kept) {
                        let t = &mut inputs[i];
                        if t.range.is_none() && t.values.is_none() {
                            t.range = old; // not an index the guess reaches at these shapes
                        }
                        if let Some(g) = t.guess.take() {
                            t.guess = Some(if g.contains(&from) {
                                g
                            } else {
                                format!("{g} (shape and dtype {from})")
                            });
                        }
                    }
                }
            }
            for (t, ct) in outputs.iter_mut().zip(&c.outputs) {
                t.shape = ct.shape.clone();
                t.dtype = ct
                    .dtype
                    .filter(|&d| allowed(def_outputs, &t.name, d))
                    .unwrap_or(t.dtype);
                t.guess = Some(from.clone());
            }
        }
        inferred.apply(&op.name, &mut outputs, shapes);
        // A complex output (`DT_COMPLEX64` in the first column, which the manifest cannot name): float32
        // pairs, real then imaginary, along a doubled last axis: the bytes the kernel writes (ops-math's
        // polar and complex_v3 wrote past a float32 output of the complex shape).
        if let Some(def) = op.opdef.as_ref().filter(|d| d.dtype_column().is_none()) {
            for t in outputs.iter_mut() {
                if shapes.contains_key(&t.name) || t.dtype != crate::manifest::DType::Float32 {
                    continue;
                }
                let complex = def.outputs.iter().any(|p| {
                    p.name == t.name
                        && p.dtypes
                            .first()
                            .is_some_and(|d| d.ends_with("DT_COMPLEX64"))
                });
                if let Some(last) = t.shape.last_mut().filter(|_| complex) {
                    *last *= 2;
                    let was = t.guess.take().unwrap_or_default();
                    t.guess = Some(format!(
                        "guess: complex64 in the OpDef, written as float32 pairs (real, imaginary) along a doubled last axis{}",
                        if was.is_empty() {
                            String::new()
                        } else {
                            format!("; {was}")
                        }
                    ));
                }
            }
        }
        // optional inputs the case leaves out
        let absent: Vec<&str> = case
            .iter()
            .flat_map(|c| c.absent.iter().filter_map(|&i| inputs.get(i)))
            .map(|t| t.name.as_str())
            .collect();
        // where the program reads and writes its tensors, when its own code names each one
        let files = |kind: &str, k: usize, count: usize| {
            let (ins, outs) = &op.launch.as_ref()?.files;
            let named = if kind == "input" { ins } else { outs };
            (named.len() == count)
                .then(|| named.get(k).cloned())
                .flatten()
        };
        for (kind, list) in [("input", &inputs), ("output", &outputs)] {
            for (k, t) in list.iter().enumerate() {
                if kind == "input" && absent.contains(&t.name.as_str()) {
                    let c = case.expect("absent inputs come from a case");
                    let _ = writeln!(
                        s,
                        "\n[[op.input]]\nname = \"{}\"\ndtype = \"{}\"\nabsent = true   # the op's {} `{}` passes none (an optional input)",
                        t.name,
                        t.dtype.name(),
                        c.kind.label(),
                        c.test
                    );
                    continue;
                }
                let mut line = format!(
                    "\n[[op.{kind}]]\nname = \"{}\"\ndtype = \"{}\"\nshape = {:?}",
                    t.name,
                    t.dtype.name(),
                    t.shape
                );
                note(&mut guesses, &mut line, t.guess.clone(), &op.name);
                if let Some(v) = &t.values {
                    line.push_str(&format!("\nvalues = {v}"));
                }
                if let Some(r) = &t.range {
                    line.push_str(&format!("\nrange = {r}"));
                }
                if let Some(d) = &t.data {
                    line.push_str(&format!("\ndata = \"{d}\""));
                }
                if let Some((n, g)) = &t.list {
                    line.push_str(&format!("\nlist = {n}"));
                    note(&mut guesses, &mut line, Some(g.clone()), &op.name);
                }
                let default = crate::manifest::default_file(&t.name, kind == "input");
                if let Some(f) = files(kind, k, list.len()).filter(|f| *f != default) {
                    let call = if kind == "input" {
                        "ReadFile"
                    } else {
                        "WriteFile"
                    };
                    line.push_str(&format!(
                        "\nfile = {f:?}   # the program's own {call} ({} of {})",
                        k + 1,
                        list.len()
                    ));
                }
                let _ = writeln!(s, "{line}");
            }
        }
        let defaulted = inferred.defaulted_attrs.get(&op.name);
        for a in op.opdef.iter().flat_map(|d| &d.attrs) {
            let tested = case.and_then(|c| {
                let (_, v) = c.attrs.iter().find(|(n, _)| *n == a.name)?;
                Some((
                    v.clone(),
                    format!("from the op's {} `{}`", c.kind.label(), c.test),
                ))
            });
            let (mut value, mut g) =
                match tested.or_else(|| op.opdef.as_ref().and_then(|d| attr_guess(d, a))) {
                    Some((v, g)) => (Some(v), Some(g)),
                    None => attr_value(a),
                };
            if let Some((len, why)) = inferred
                .attr_lens
                .get(&op.name)
                .and_then(|m| m.get(&a.name))
                && let Some(v) = &value
                && let Some(longer) = guesses::list_of_len(v, *len)
            {
                g = Some(format!(
                    "guess: attr `{}` given {len} values, as the op's refusal asked ({why})",
                    a.name
                ));
                value = Some(longer);
            }
            if let Some((v, why)) = inferred
                .attr_values
                .get(&op.name)
                .and_then(|m| m.get(&a.name))
            {
                g = Some(format!(
                    "guess: attr `{}` {v}, as the op's refusal asked ({why})",
                    a.name
                ));
                value = Some(v.to_string());
            }
            if let (Some((was, why)), Some(c)) = (defaulted.and_then(|d| d.get(&a.name)), case) {
                value = attr_value(a).0;
                g = Some(format!(
                    "guess: the OpDef's default, where the op's {} `{}` gives {was}: the op's outputs were degenerate there ({why})",
                    c.kind.label(),
                    c.test
                ));
            }
            let mut line = match &value {
                Some(v) => format!("\n[[op.attr]]\nname = \"{}\"\nvalue = {v}", a.name),
                None => String::from("\n#"),
            };
            note(&mut guesses, &mut line, g, &op.name);
            let _ = writeln!(s, "{line}");
        }
        // attrs the tiling test gives that the OpDef does not declare: the op's aclnn layer passes them
        // (ops-math's Cross reads `dim`, attr 0, through OP_ATTR_NAMES); the twin appends them after
        // the OpDef's, in this order
        let declared = |n: &str| op.opdef.iter().flat_map(|d| &d.attrs).any(|a| a.name == n);
        for (name, value) in case.iter().flat_map(|c| &c.attrs) {
            if declared(name) {
                continue;
            }
            let _ = writeln!(
                s,
                "\n[[op.attr]]\nname = \"{name}\"\nvalue = {value}   # from the op's {} `{}`; the OpDef declares no such attr",
                case.map(|c| c.kind.label()).unwrap_or_default(),
                case.map(|c| c.test.as_str()).unwrap_or_default()
            );
        }
        let _ = writeln!(s, "\n[op.tune]\nbudget = 32\nseed = 0");
        if let Some(lines) = derived.get(&op.name).filter(|l| !l.is_empty()) {
            let _ = writeln!(
                s,
                "# tune also checks these constraints, derived from the sources, before building a candidate;\n# `derive-constraints = false` here turns them off:"
            );
            for l in lines {
                let _ = writeln!(s, "#   {l}");
            }
        }
        s.push_str(&discover::render_tunables(
            &op.tunables,
            soc.aiv_cores,
            soc.aic_cores,
        ));
    }
    (s, guesses)
}

/// Tensors of an op without an OpDef: from the op json, else the kernel's GM parameters before
/// workspace and tiling, all but the last taken as inputs (a guess the manifest says).
fn legacy_tensors(
    op: &FoundOp,
    shapes: &BTreeMap<String, Vec<u64>>,
    default: Option<&(Vec<u64>, String)>,
) -> (Vec<Tensor>, Vec<Tensor>) {
    let from_params = op.inputs.is_empty() && op.outputs.is_empty();
    let (inputs, outputs) = if from_params {
        let tensors: Vec<String> = op
            .params
            .iter()
            .filter(|p| !matches!(p.as_str(), "workspace" | "tiling" | "usrWorkspace"))
            .cloned()
            .collect();
        let n = tensors.len().saturating_sub(1);
        let f = |v: &[String]| {
            v.iter()
                .map(|n| (n.clone(), crate::manifest::DType::Float16))
                .collect::<Vec<_>>()
        };
        (f(&tensors[..n]), f(&tensors[n..]))
    } else {
        (op.inputs.clone(), op.outputs.clone())
    };
    let make = |(name, dtype): &(String, crate::manifest::DType)| {
        let shape = shapes
            .get(name)
            .cloned()
            .unwrap_or_else(|| default.map_or(DEFAULT_SHAPE.to_vec(), |d| d.0.clone()));
        let guess = if from_params {
            Some(format!(
                "guess: from the kernel's parameter `{name}` (no OpDef, no op json); float16, a default shape"
            ))
        } else if shapes.contains_key(name) {
            None
        } else {
            Some(default_note(default))
        };
        Tensor {
            name: name.clone(),
            dtype: *dtype,
            shape,
            values: None,
            range: None,
            data: None,
            guess,
            list: None,
        }
    };
    let mut inputs: Vec<Tensor> = inputs.iter().map(make).collect();
    let mut outputs: Vec<Tensor> = outputs.iter().map(make).collect();
    // A program that reads and writes one `.bin` file per tensor, each of a size its own code gives
    // as a count of one element type (cann-learning-hub's tutorial answers: `uint32_t inputNum = 33 *
    // 31; size_t dataSize = inputNum * sizeof(float);`): that many elements of that type, unless a
    // --shape names the tensor.
    if let Some(l) = op.launch.as_ref().filter(|_| from_params) {
        let pairs = [
            (&mut inputs, &l.files.0, &l.sizes.0, "ReadFile"),
            (&mut outputs, &l.files.1, &l.sizes.1, "WriteFile"),
        ];
        for (list, files, sizes, call) in pairs {
            if files.len() != list.len() || sizes.len() != list.len() {
                continue;
            }
            for ((t, file), size) in list.iter_mut().zip(files).zip(sizes) {
                let Some(size) = size.as_ref().filter(|_| !shapes.contains_key(&t.name)) else {
                    continue;
                };
                t.shape = vec![size.elements];
                t.dtype = size.dtype;
                t.guess = Some(format!(
                    "{} {} elements: the program's {call}(\"{file}\", ...) moves `{}` bytes, {} x sizeof({})",
                    size.dtype.name(),
                    size.elements,
                    size.written,
                    size.elements,
                    size.dtype.c_type()
                ));
            }
        }
    }
    (inputs, outputs)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A case of `kind` from `file` whose one input has `elems` elements.
    fn case_of(kind: tiling_tests::CaseKind, file: &str, elems: u64) -> tiling_tests::TilingCase {
        tiling_tests::TilingCase {
            kind,
            op_type: "Widget".into(),
            file: file.into(),
            line: 1,
            test: format!("{file}:{elems}"),
            inputs: vec![tiling_tests::CaseTensor {
                shape: vec![elems],
                dtype: None,
            }],
            outputs: vec![],
            attrs: vec![],
            values: vec![],
            absent: vec![],
            carried: vec![],
            grown: None,
            widened: None,
            kernel_view: false,
        }
    }

    /// init tries four cases: the example's first within them however far its size is from the
    /// default, its kernel view right after it, the tiling tests nearest the default first, a
    /// duplicate once.
    #[test]
    fn cases_are_tried_nearest_first_with_the_example_and_its_kernel_view_within_four() {
        use tiling_tests::CaseKind::{Example, TilingTest};
        let near = DEFAULT_ELEMENTS;
        let cases = vec![
            case_of(Example, "examples/e.cpp", 6),
            kernel_view(case_of(Example, "examples/e.cpp", 7)),
            case_of(TilingTest, "tests/t.cpp", near / 2),
            case_of(TilingTest, "tests/t.cpp", near),
            case_of(TilingTest, "tests/t.cpp", near),
            case_of(TilingTest, "tests/t.cpp", near * 4),
            case_of(TilingTest, "tests/t.cpp", near / 16),
        ];
        let order: Vec<u64> = order_cases(cases)
            .iter()
            .map(|c| c.inputs[0].shape[0])
            .collect();
        assert_eq!(order, [near, near / 2, 6, 7, near * 4, near / 16]);
        // an example already within four keeps its place, its kernel view next
        let cases = vec![
            case_of(TilingTest, "tests/t.cpp", near),
            case_of(Example, "examples/e.cpp", near / 2),
            case_of(TilingTest, "tests/t.cpp", near * 2),
            kernel_view(case_of(Example, "examples/e.cpp", 6)),
        ];
        let order: Vec<u64> = order_cases(cases)
            .iter()
            .map(|c| c.inputs[0].shape[0])
            .collect();
        assert_eq!(order, [near, near / 2, 6, near * 2]);
        // a kernel view nearer the default than its example (a 5HD layout pads channels) still
        // comes after it
        let cases = vec![
            case_of(Example, "examples/e.cpp", 6),
            kernel_view(case_of(Example, "examples/e.cpp", near)),
            case_of(TilingTest, "tests/t.cpp", near / 2),
        ];
        let order: Vec<u64> = order_cases(cases)
            .iter()
            .map(|c| c.inputs[0].shape[0])
            .collect();
        assert_eq!(order, [near / 2, 6, near]);
    }

    fn kernel_view(mut c: tiling_tests::TilingCase) -> tiling_tests::TilingCase {
        c.kernel_view = true;
        c
    }

    /// init probes its ops side by side (cann-samples' rms_norm_quant_story: seven programs, one
    /// CMake build each, 250.8 s one after another from a cold target folder, 149.6 s side by side on
    /// two cores): every op with a spec is probed once, on up to
    /// as many threads as there are cores, and each result lands in its op's place.
    #[test]
    fn ops_probed_side_by_side_keep_their_places() {
        let (a, b, c) = (1u32, 2u32, 3u32);
        let specs = [Some(&a), None, Some(&b), Some(&c), None];
        let calls = std::sync::atomic::AtomicUsize::new(0);
        let out = probe_side_by_side(&specs, |x| {
            calls.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            std::thread::sleep(std::time::Duration::from_millis(10 * u64::from(4 - *x)));
            x * 10
        });
        assert_eq!(out, [Some(10), None, Some(20), Some(30), None]);
        assert_eq!(calls.into_inner(), 3);
        assert!(
            probe_side_by_side::<u32, u32>(&[None, None], |x| *x)
                .iter()
                .all(Option::is_none)
        );
    }

    /// ops-transformer's moe_init_routing_v3 example gives expanded_x an int8 buffer at quant_mode -1,
    /// where the op's InferDataType (and kernel) make it x's float32: the kernel wrote past the 24-byte
    /// buffer. The InferDataType's dtype wins, with a note; a `--shape` override does not stop it.
    #[test]
    fn inferred_dtypes_replace_the_examples_and_the_columns() {
        use crate::manifest::DType;
        use crate::twin::protocol::InferredOutput;
        let tensor = |name: &str| Tensor {
            name: name.into(),
            dtype: DType::Int8,
            shape: vec![12, 2],
            values: None,
            range: None,
            data: None,
            guess: Some("from the op's example `ex` (ex.cpp:1)".into()),
            list: None,
        };
        let mut outs = vec![tensor("expanded_x"), tensor("row_idx")];
        let mut inferred = Inferred::default();
        let out = |dtype| InferredOutput {
            shape: Some(vec![12, 2]),
            dtype,
            unset: false,
        };
        inferred.outputs.insert(
            "op".into(),
            vec![out(Some(DType::Float32)), out(Some(DType::Int8))],
        );
        let given = BTreeMap::from([("expanded_x".to_string(), vec![12u64, 2])]);
        inferred.apply("op", &mut outs, &given);
        assert_eq!(outs[0].dtype, DType::Float32);
        assert_eq!(
            outs[0].guess.as_deref(),
            Some(
                "from the op's example `ex` (ex.cpp:1); dtype float32 from the op's InferDataType, not int8"
            )
        );
        assert_eq!(outs[1].dtype, DType::Int8);
        assert_eq!(
            outs[1].guess.as_deref(),
            Some("from the op's InferShape at these input shapes")
        );
    }

    #[test]
    fn inferred_shapes_replace_guesses_but_not_given_shapes_or_empty_outputs() {
        use crate::twin::protocol::InferredOutput;
        let tensor = |name: &str| Tensor {
            name: name.into(),
            dtype: crate::manifest::DType::Float16,
            shape: vec![48, 16384],
            values: None,
            range: None,
            data: None,
            guess: Some("guess: the main input's shape".into()),
            list: None,
        };
        let mut outs = vec![tensor("y"), tensor("z"), tensor("w")];
        let mut inferred = Inferred::default();
        inferred.outputs.insert(
            "op".into(),
            ["48,1", "0", "8"]
                .iter()
                .map(|s| InferredOutput {
                    shape: Some(s.split(',').map(|d| d.parse().unwrap()).collect()),
                    dtype: None,
                    unset: false,
                })
                .collect(),
        );
        let given = BTreeMap::from([("w".to_string(), vec![8u64])]);
        inferred.apply("op", &mut outs, &given);
        assert_eq!(outs[0].shape, [48, 1]);
        assert_eq!(
            outs[0].guess.as_deref(),
            Some("from the op's InferShape at these input shapes")
        );
        assert_eq!(outs[1].shape, [48, 16384]);
        assert!(
            outs[1]
                .guess
                .as_deref()
                .unwrap()
                .contains("an empty output")
        );
        // A `--shape` for the output wins (the tensor keeps what opdef_tensors gave it).
        assert_eq!(
            outs[2].guess.as_deref(),
            Some("guess: the main input's shape")
        );
    }

    /// Found in the new-user run (ops-nn gaussian_nll_loss_grad: "mean reduction requires scalar
    /// gradOutput"): the incoming gradient of a loss reduced to one number is a scalar, and the main
    /// shape comes from the next input; with reduction "none" it is a full tensor.
    #[test]
    fn a_reduced_loss_gradient_is_a_scalar() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let def = |reduction: &str| {
            format!(
                "namespace ops {{\nclass LossGrad : public OpDef {{\npublic:\n explicit LossGrad(const char* n) : OpDef(n) {{\n  this->Input(\"gradOutput\").DataType({{ge::DT_FLOAT}});\n  this->Input(\"input\").DataType({{ge::DT_FLOAT}});\n  this->Output(\"gradInput\").DataType({{ge::DT_FLOAT}});\n  this->Attr(\"reduction\").AttrType(OPTIONAL).String(\"{reduction}\");\n  this->AICore().AddConfig(\"ascend910b\");\n }}\n}};\nOP_ADD(LossGrad);\n}}\n"
            )
        };
        std::fs::create_dir_all(root.join("op_host")).unwrap();
        std::fs::create_dir_all(root.join("op_kernel")).unwrap();
        std::fs::write(
            root.join("op_kernel/loss_grad.cpp"),
            "extern \"C\" __global__ __aicore__ void loss_grad(GM_ADDR g, GM_ADDR x, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling) {}\n",
        )
        .unwrap();
        // By default the gradient has the main shape (soft_margin_loss_grad's kernel reads it
        // element-wise); a scalar only once the tiling refused that (`scalar_grad`).
        for (reduction, scalar_grad, grad_shape) in [
            ("mean", true, vec![]),
            ("sum", true, vec![]),
            ("none", true, vec![48u64, 16384]),
            ("mean", false, vec![48u64, 16384]),
            ("sum", false, vec![48u64, 16384]),
        ] {
            std::fs::write(root.join("op_host/loss_grad_def.cpp"), def(reduction)).unwrap();
            let ops = project::discover(root).unwrap();
            assert_eq!(has_reduced_grad(&ops[0]), reduction != "none");
            let (inputs, outputs) = opdef_tensors(
                &ops[0],
                ops[0].opdef.as_ref().unwrap(),
                &BTreeMap::new(),
                None,
                scalar_grad,
            );
            assert_eq!(inputs[0].shape, grad_shape, "{reduction} {scalar_grad}");
            assert_eq!(inputs[1].shape, [48, 16384], "{reduction}");
            assert_eq!(outputs[0].shape, [48, 16384], "{reduction}");
        }
    }

    /// ops-nn's quantized_batch_norm declares x NCHW: its per-channel weight and bias are one value per
    /// channel (axis 1), not per element of the last axis, once x has four axes.
    #[test]
    fn a_channel_first_main_input_puts_per_channel_operands_on_axis_1() {
        let dir = tempfile::tempdir().unwrap();
        let ops = op_project(
            dir.path(),
            (
                "qbn.cpp",
                "extern \"C\" __global__ __aicore__ void qbn(GM_ADDR x, GM_ADDR w, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling) {}\n",
            ),
            (
                "qbn_def.cpp",
                "namespace ops {\nclass Qbn : public OpDef {\npublic:\n explicit Qbn(const char* n) : OpDef(n) {\n  this->Input(\"x\").DataType({ge::DT_INT8}).Format({ge::FORMAT_NCHW});\n  this->Input(\"weight\").DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});\n  this->Output(\"y\").DataType({ge::DT_INT8}).Format({ge::FORMAT_NCHW});\n  this->AICore().AddConfig(\"ascend910b\");\n }\n};\nOP_ADD(Qbn);\n}\n",
            ),
        );
        let def = ops[0].opdef.as_ref().unwrap();
        let four: BTreeMap<String, Vec<u64>> = [("x".to_string(), vec![2u64, 4, 16, 256])].into();
        let (ins, _) = opdef_tensors(&ops[0], def, &four, None, false);
        assert_eq!(ins[1].shape, [4]);
        // at two axes there is no channel axis to read: the last one, as before
        let (ins, _) = opdef_tensors(&ops[0], def, &BTreeMap::new(), None, false);
        assert_eq!(ins[1].shape, [16384]);
    }

    /// Found in the new-user run (ops-nn gather_elements_v3 read x at byte 8589869056,
    /// inplace_scatter_add wrote var at byte 17174429696): an integer index operand took the integer
    /// default data [-100, 100), out of bounds of the axis it indexes. Its data is now within that
    /// axis ([0, size) along the `dim` attr), and scatter-add's row index is 1-D.
    #[test]
    fn an_index_operand_gets_data_within_the_axis_it_indexes() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir_all(root.join("op_host")).unwrap();
        std::fs::create_dir_all(root.join("op_kernel")).unwrap();
        std::fs::write(
            root.join("op_kernel/idx_op.cpp"),
            "extern \"C\" __global__ __aicore__ void idx_op(GM_ADDR a, GM_ADDR b, GM_ADDR c, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling) {}\n",
        )
        .unwrap();
        let def = |inputs: &[(&str, &str)], attr: &str| {
            let ins: String = inputs
                .iter()
                .map(|(n, t)| format!("  this->Input(\"{n}\").DataType({{ge::{t}}});\n"))
                .collect();
            format!(
                "namespace ops {{\nclass IdxOp : public OpDef {{\npublic:\n explicit IdxOp(const char* n) : OpDef(n) {{\n{ins}  this->Output(\"y\").DataType({{ge::DT_FLOAT}});\n{attr}  this->AICore().AddConfig(\"ascend910b\");\n }}\n}};\nOP_ADD(IdxOp);\n}}\n"
            )
        };
        let tensors = |text: String| {
            std::fs::write(root.join("op_host/idx_op_def.cpp"), text).unwrap();
            let ops = project::discover(root).unwrap();
            opdef_tensors(
                &ops[0],
                ops[0].opdef.as_ref().unwrap(),
                &BTreeMap::new(),
                None,
                false,
            )
            .0
        };
        // Gather along dim 1 (default 48x16384): positions in [0, 16384), the index's shape kept.
        let ins = tensors(def(
            &[("x", "DT_FLOAT"), ("index", "DT_INT32")],
            "  this->Attr(\"dim\").AttrType(OPTIONAL).Int(-1);\n",
        ));
        assert_eq!(ins[1].shape, [48, 16384]);
        assert_eq!(ins[1].range.as_deref(), Some("[0.0, 16384.0]"));
        assert_eq!(ins[0].range, None);
        // No axis attr: the first axis.
        let ins = tensors(def(&[("x", "DT_FLOAT"), ("indices", "DT_INT64")], ""));
        assert_eq!(ins[1].range.as_deref(), Some("[0.0, 48.0]"));
        // Scatter-add's row index beside `var` and `updates`: 1-D, one per row, within var's rows.
        let ins = tensors(def(
            &[
                ("var", "DT_FLOAT"),
                ("indices", "DT_INT32"),
                ("updates", "DT_FLOAT"),
            ],
            "",
        ));
        assert_eq!(ins[1].shape, [48]);
        assert_eq!(ins[1].range.as_deref(), Some("[0.0, 48.0]"));
        assert_eq!(ins[2].shape, [48, 16384]);
        // A float `index` is no position.
        let ins = tensors(def(&[("x", "DT_FLOAT"), ("index", "DT_FLOAT")], ""));
        assert_eq!(ins[1].range, None);
    }

    /// Found in a fresh sample (ops-nn's index_fill): a required `dim` with no default is written as
    /// 1, so its index holds positions along axis 1, not 0; and an `Index*` op's index is a 1-D list
    /// (torch's index_fill / index_select), not the main shape.
    #[test]
    fn an_index_ops_index_is_a_list_along_the_dim_init_writes() {
        let dir = tempfile::tempdir().unwrap();
        let ops = one_op(
            dir.path(),
            "IndexFill",
            &[
                ("x", "DT_FLOAT16"),
                ("indices", "DT_INT32"),
                ("value", "DT_FLOAT16"),
            ],
            "  this->Attr(\"dim\").AttrType(REQUIRED).Int();\n",
        );
        let (ins, _) = tensors_of(&ops);
        assert_eq!(ins[1].shape, [guesses::INDEX_LIST_LEN]);
        assert_eq!(ins[1].range.as_deref(), Some("[0.0, 16384.0]"));
        // Another op type keeps the main shape, along the same written dim.
        let dir = tempfile::tempdir().unwrap();
        let ops = one_op(
            dir.path(),
            "GatherAlong",
            &[("x", "DT_FLOAT16"), ("indices", "DT_INT32")],
            "  this->Attr(\"dim\").AttrType(REQUIRED).Int();\n",
        );
        let (ins, _) = tensors_of(&ops);
        assert_eq!(ins[1].shape, [48, 16384]);
        assert_eq!(ins[1].range.as_deref(), Some("[0.0, 16384.0]"));
        // A 1-D main input has no axis 1: its index stays along axis 0.
        let ops = project::discover(dir.path()).unwrap();
        let shapes = BTreeMap::from([("x".to_string(), vec![100u64])]);
        let (ins, _) = opdef_tensors(
            &ops[0],
            ops[0].opdef.as_ref().unwrap(),
            &shapes,
            None,
            false,
        );
        assert_eq!(ins[1].range.as_deref(), Some("[0.0, 100.0]"));
    }

    /// Found in the new-user run (ops-math sort_v2: numpy saw 2.5e-44, an index's bits, in `y`):
    /// its OpDef declares `dstIndex` as an Input after the Output `y` while its kernel takes
    /// `(x, index, y, dstIndex)`. init warns, naming both orders; the same names in the called
    /// order, or other names, give no warning.
    #[test]
    fn kernel_parameters_in_another_order_than_the_opdef_are_warned_of() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir_all(root.join("op_host")).unwrap();
        std::fs::create_dir_all(root.join("op_kernel")).unwrap();
        std::fs::write(
            root.join("op_host/srt_def.cpp"),
            "namespace ops {\nclass Srt : public OpDef {\npublic:\n explicit Srt(const char* n) : OpDef(n) {\n  this->Input(\"x\").DataType({ge::DT_FLOAT});\n  this->Input(\"index\").DataType({ge::DT_UINT32});\n  this->Output(\"y\").DataType({ge::DT_FLOAT});\n  this->Input(\"dst_index\").DataType({ge::DT_UINT32});\n  this->AICore().AddConfig(\"ascend910b\");\n }\n};\nOP_ADD(Srt);\n}\n",
        )
        .unwrap();
        let kernel = |params: &str| {
            std::fs::write(
                root.join("op_kernel/srt.cpp"),
                format!("extern \"C\" __global__ __aicore__ void srt({params}, GM_ADDR workspace, GM_ADDR tiling) {{}}\n"),
            )
            .unwrap();
            let ops = project::discover(root).unwrap();
            param_order_mismatch(&ops[0])
        };
        let w = kernel("GM_ADDR x, GM_ADDR index, GM_ADDR y, GM_ADDR dstIndex").unwrap();
        assert!(
            w.contains("(x, index, y, dstIndex)")
                && w.contains("inputs (x, index, dst_index) then outputs (y)"),
            "{w}"
        );
        assert_eq!(
            kernel("GM_ADDR x, GM_ADDR index, GM_ADDR dstIndex, GM_ADDR y"),
            None
        );
        assert_eq!(kernel("GM_ADDR a, GM_ADDR b, GM_ADDR c, GM_ADDR d"), None);
    }

    /// A held-out op's manifest quoted its host compile error with the work folder's absolute path.
    #[test]
    fn quoted_messages_name_project_files_relative_to_it() {
        let manifest = Path::new("/home/u/ops/moe_x/ascend.toml");
        assert_eq!(
            relative_to_project(
                "/home/u/ops/moe_x/../common/inc/t.h:19:10: fatal error: m.h: No such file",
                manifest
            ),
            "../common/inc/t.h:19:10: fatal error: m.h: No such file"
        );
        assert_eq!(
            relative_to_project("/usr/include/x.h: error", manifest),
            "/usr/include/x.h: error"
        );
    }

    #[test]
    fn a_failed_runs_fault_is_its_first_error_line() {
        let m = "the kernel failed (exit code 3):\nwarning: x\nerror: InitBuffer: UB overflow: need 196608 bytes\n  --> k.cpp:3";
        assert_eq!(fault_line(m), "InitBuffer: UB overflow: need 196608 bytes");
        assert_eq!(
            fault_line("the tiling program failed"),
            "the tiling program failed"
        );
    }

    #[test]
    fn shapes_parse() {
        let s = parse_shapes(&["x=48x16384".into(), "y=2,3,4".into()]).unwrap();
        assert_eq!(s["x"], vec![48, 16384]);
        assert_eq!(s["y"], vec![2, 3, 4]);
        assert!(parse_shapes(&["x=48xq".into()]).is_err());
        assert!(parse_shapes(&["x".into()]).is_err());
    }

    #[test]
    fn attrs_get_their_defaults_and_required_ones_a_value_of_their_type() {
        use opdef::{AttrDef, AttrDefault as D, AttrKind as K};
        let a = |name: &str, required, kind, default| AttrDef {
            name: name.into(),
            required,
            kind,
            default,
        };
        assert_eq!(
            attr_value(&a("p", false, K::Float, Some(D::Float(2.0)))),
            (Some("2.0".into()), None)
        );
        assert_eq!(
            attr_value(&a("e", false, K::Float, Some(D::Float(1e-6))))
                .0
                .as_deref(),
            Some("1e-6")
        );
        assert_eq!(
            attr_value(&a("k", false, K::Bool, Some(D::Bool(true))))
                .0
                .as_deref(),
            Some("true")
        );
        assert_eq!(
            attr_value(&a("m", false, K::String, Some(D::Str("mean".into()))))
                .0
                .as_deref(),
            Some("\"mean\"")
        );
        assert_eq!(
            attr_value(&a("d", false, K::ListInt, Some(D::Ints(vec![1, -2]))))
                .0
                .as_deref(),
            Some("[1, -2]")
        );
        let (v, g) = attr_value(&a("n", true, K::Int, None));
        assert_eq!(v.as_deref(), Some("1"));
        assert!(g.unwrap().starts_with("guess: attr `n` required"));
        // String attrs without a default: a framework's value for the known names, else empty
        // (smooth_l1_loss_grad_v2 and max_pool3_d refused "").
        assert_eq!(
            attr_value(&a("reduction", false, K::String, None))
                .0
                .as_deref(),
            Some("\"mean\"")
        );
        assert_eq!(
            attr_value(&a("padding", true, K::String, None))
                .0
                .as_deref(),
            Some("\"VALID\"")
        );
        assert_eq!(
            attr_value(&a("label", true, K::String, None)).0.as_deref(),
            Some("\"\"")
        );
        let (v, g) = attr_value(&a("w", false, K::ListFloat, Some(D::Floats(vec![0.5]))));
        assert_eq!(v, None);
        assert!(g.unwrap().contains("left out"));
        assert_eq!(toml_float(f64::INFINITY), "inf");
        assert_eq!(toml_float(3.0), "3.0");
    }

    /// The attrs a case gives other than their OpDef default, compared as numbers where both are
    /// (`0` and `0.0` agree); an attr without a default, or one the OpDef does not declare, is not one.
    #[test]
    fn attrs_off_their_default_are_those_a_case_changes() {
        use opdef::{AttrDef, AttrDefault as D, AttrKind as K};
        let a = |name: &str, kind, default: Option<D>| AttrDef {
            name: name.into(),
            required: default.is_none(),
            kind,
            default,
        };
        let def = opdef::OpDef {
            op_type: "X".into(),
            inputs: vec![],
            outputs: vec![],
            attrs: vec![
                a("scale", K::Float, Some(D::Float(1.0))),
                a("k", K::Int, Some(D::Int(0))),
                a("mode", K::String, Some(D::Str("sum".into()))),
                a("groups", K::Int, None),
            ],
            socs: vec![],
        };
        let mut case = case_of(tiling_tests::CaseKind::TilingTest, "t.cpp", 16);
        case.attrs = [
            ("scale", "0.0"),
            ("k", "0.0"),
            ("mode", "\"sum\""),
            ("groups", "4"),
            ("undeclared", "1"),
        ]
        .map(|(n, v)| (n.to_string(), v.to_string()))
        .to_vec();
        let off = attrs_off_default(&case, &def, "why");
        assert_eq!(
            off.into_iter().collect::<Vec<_>>(),
            vec![("scale".to_string(), ("0.0".to_string(), "why".to_string()))]
        );
    }

    /// Writes a one-op project whose OpDef (type `ty`) has `inputs` (name, ge dtype), one float
    /// output `y` and the `attrs` lines, and returns what init finds in it.
    fn one_op(root: &Path, ty: &str, inputs: &[(&str, &str)], attrs: &str) -> Vec<FoundOp> {
        let params: String = inputs
            .iter()
            .map(|(n, _)| format!("GM_ADDR {n}, "))
            .collect();
        let ins: String = inputs
            .iter()
            .map(|(n, t)| format!("  this->Input(\"{n}\").DataType({{ge::{t}}});\n"))
            .collect();
        op_project(
            root,
            (
                "the_op.cpp",
                &format!(
                    "extern \"C\" __global__ __aicore__ void the_op({params}GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling) {{}}\n"
                ),
            ),
            (
                "the_op_def.cpp",
                &format!(
                    "namespace ops {{\nclass {ty} : public OpDef {{\npublic:\n explicit {ty}(const char* n) : OpDef(n) {{\n{ins}  this->Output(\"y\").DataType({{ge::DT_FLOAT}});\n{attrs}  this->AICore().AddConfig(\"ascend910b\");\n }}\n}};\nOP_ADD({ty});\n}}\n"
                ),
            ),
        )
    }

    /// The manifest init writes for `ops` on the 910B1 with what `inferred` holds (no `--shape`, no
    /// derived constraints).
    fn rendered(ops: &[FoundOp], inferred: &Inferred) -> String {
        let soc = crate::model::soc::lookup("Ascend910B1").unwrap();
        render(ops, soc, None, &BTreeMap::new(), &BTreeMap::new(), inferred).0
    }

    /// The ops of a project at `root` with one kernel file and one OpDef file: (name, text) each.
    fn op_project(root: &Path, kernel: (&str, &str), def: (&str, &str)) -> Vec<FoundOp> {
        std::fs::create_dir_all(root.join("op_host")).unwrap();
        std::fs::create_dir_all(root.join("op_kernel")).unwrap();
        std::fs::write(root.join("op_kernel").join(kernel.0), kernel.1).unwrap();
        std::fs::write(root.join("op_host").join(def.0), def.1).unwrap();
        project::discover(root).unwrap()
    }

    fn tensors_of(ops: &[FoundOp]) -> (Vec<Tensor>, Vec<Tensor>) {
        opdef_tensors(
            &ops[0],
            ops[0].opdef.as_ref().unwrap(),
            &BTreeMap::new(),
            None,
            false,
        )
    }

    /// Found in the new-user run (ops-nn scatter_add_with_sorted: "the dimNum of input must equal
    /// the dimNum of updates"): its rows to add are called `value`, which was taken as a scalar. Beside
    /// `var` and an index they are the updates, `var`'s shape; a `sorted_*` index is pinned ascending
    /// within var's rows and `pos` to the identity. A plain `value` stays a scalar.
    #[test]
    fn a_scatters_value_is_its_updates_and_a_sorted_index_is_pinned_ascending() {
        let dir = tempfile::tempdir().unwrap();
        let ops = one_op(
            dir.path(),
            "ScatterAddWithSorted",
            &[
                ("var", "DT_FLOAT"),
                ("value", "DT_FLOAT"),
                ("sorted_index", "DT_INT32"),
                ("pos", "DT_INT32"),
            ],
            "",
        );
        let (ins, _) = tensors_of(&ops);
        assert_eq!(ins[1].shape, [48, 16384]);
        assert_eq!(ins[2].shape, [48]);
        let sorted: Vec<u64> = ins[2]
            .values
            .as_deref()
            .unwrap()
            .trim_matches(|c| c == '[' || c == ']')
            .split(", ")
            .map(|v| v.parse().unwrap())
            .collect();
        assert_eq!(sorted.len(), 48);
        assert!(sorted.windows(2).all(|w| w[0] <= w[1]));
        assert!(sorted.iter().all(|&v| v < 48));
        assert_eq!(ins[3].shape, [48]);
        assert!(ins[3].values.as_deref().unwrap().starts_with("[0, 1, 2,"));
        // Without `var` and an index, `value` is one number.
        let dir = tempfile::tempdir().unwrap();
        let ops = one_op(
            dir.path(),
            "Fill",
            &[("x", "DT_FLOAT"), ("value", "DT_FLOAT")],
            "",
        );
        assert_eq!(tensors_of(&ops).0[1].shape, Vec::<u64>::new());
    }

    /// Found in the new-user run (ops-math slice_v3: its InferShape refused a 0-D `size`, "sizeTensor
    /// must be 1-D"): a slice's integer `begin` and `size` are 1-D, one per axis of the main input,
    /// pinned to a window inside it.
    #[test]
    fn a_slices_begin_and_size_are_one_per_axis_and_inside_the_input() {
        let dir = tempfile::tempdir().unwrap();
        let ops = one_op(
            dir.path(),
            "SliceV3",
            &[
                ("x", "DT_FLOAT"),
                ("begin", "DT_INT64"),
                ("size", "DT_INT64"),
            ],
            "",
        );
        let (ins, _) = tensors_of(&ops);
        assert_eq!(ins[1].shape, [2]);
        assert_eq!(ins[1].values.as_deref(), Some("[12, 4096]"));
        assert_eq!(ins[2].shape, [2]);
        assert_eq!(ins[2].values.as_deref(), Some("[24, 8192]"));
        // A float `size`, or a `begin` without a `size`, is no slice.
        let dir = tempfile::tempdir().unwrap();
        let ops = one_op(
            dir.path(),
            "Other",
            &[("x", "DT_FLOAT"), ("begin", "DT_INT64")],
            "",
        );
        assert_eq!(tensors_of(&ops).0[1].values, None);
    }

    /// Found in a fresh sample (ops-math as_strided: "storage_offset must be non-negative" from random
    /// 0-D data): a strided view's `size` and `stride` are one per axis of the main input, pinned to a
    /// transposing view of the whole input, and its offset is 0.
    #[test]
    fn a_strided_views_size_and_stride_transpose_the_input_and_its_offset_is_zero() {
        let dir = tempfile::tempdir().unwrap();
        let ops = one_op(
            dir.path(),
            "AsStrided",
            &[
                ("x", "DT_FLOAT"),
                ("size", "DT_INT32"),
                ("stride", "DT_INT32"),
                ("storage_offset", "DT_INT32"),
            ],
            "",
        );
        let (ins, _) = tensors_of(&ops);
        assert_eq!(ins[1].shape, [2]);
        assert_eq!(ins[1].values.as_deref(), Some("[16384, 48]"));
        assert_eq!(ins[2].shape, [2]);
        assert_eq!(ins[2].values.as_deref(), Some("[1, 16384]"));
        assert_eq!(ins[3].values.as_deref(), Some("[0]"));
        // A float `stride`, or a slice's `begin` beside them, is no strided view.
        let dir = tempfile::tempdir().unwrap();
        let ops = one_op(
            dir.path(),
            "Other",
            &[
                ("x", "DT_FLOAT"),
                ("size", "DT_INT32"),
                ("stride", "DT_FLOAT"),
            ],
            "",
        );
        assert_eq!(tensors_of(&ops).0[1].values, None);
    }

    /// Found in the new-user run (ops-nn add_rms_norm_dynamic_quant_v2: "Input x1/x2 shape dims not
    /// equal"): its type starts with "addr", so the outer product's rule made `x2` and `gamma`
    /// vectors and `beta` a scalar; and its numbered `smooth_scale1` / `smooth_scale2` were not
    /// taken as per-channel. Only AddR itself is an outer product; a numbered per-channel name is
    /// per-channel.
    #[test]
    fn an_add_rms_norm_is_no_outer_product_and_numbered_scales_are_per_channel() {
        let dir = tempfile::tempdir().unwrap();
        let ops = one_op(
            dir.path(),
            "AddRmsNormDynamicQuantV2",
            &[
                ("x1", "DT_FLOAT16"),
                ("x2", "DT_FLOAT16"),
                ("gamma", "DT_FLOAT16"),
                ("smooth_scale1", "DT_FLOAT16"),
                ("scales2", "DT_FLOAT16"),
                ("beta", "DT_FLOAT16"),
            ],
            "",
        );
        let shapes: Vec<Vec<u64>> = tensors_of(&ops).0.iter().map(|t| t.shape.clone()).collect();
        assert_eq!(
            shapes,
            [
                vec![48, 16384],
                vec![48, 16384],
                vec![16384],
                vec![16384],
                vec![16384],
                vec![16384]
            ]
        );
        // A number that is the whole name stays whatever it was (`x2` above is a main operand).
    }

    /// Found in the new-user run (ops-nn fake_quant_affine_cachemask disagreed with numpy: its tiling
    /// quantizes along dim 0 whatever `axis` says, init wrote axis -1 and a last-axis `scale`; and
    /// add_layer_norm_quant's tiling refused zero points under its default "dynamic" quant_mode).
    #[test]
    fn first_axis_quantizers_and_static_quant_modes_are_written_as_their_tiling_reads_them() {
        let dir = tempfile::tempdir().unwrap();
        let ops = one_op(
            dir.path(),
            "FakeQuantAffineCachemask",
            &[
                ("x", "DT_FLOAT16"),
                ("scale", "DT_FLOAT16"),
                ("zero_point", "DT_INT32"),
            ],
            "  this->Attr(\"axis\").AttrType(REQUIRED).Int(-1);\n",
        );
        let (ins, _) = tensors_of(&ops);
        assert_eq!(ins[1].shape, [48]);
        assert_eq!(ins[2].shape, [48]);
        let def = ops[0].opdef.as_ref().unwrap();
        assert_eq!(attr_guess(def, &def.attrs[0]).unwrap().0, "0");
        // Another op's axis and zero point: its default, the last axis.
        let dir = tempfile::tempdir().unwrap();
        let ops = one_op(
            dir.path(),
            "AscendQuantV2",
            &[("x", "DT_FLOAT16"), ("zero_point", "DT_FLOAT16")],
            "  this->Attr(\"axis\").AttrType(OPTIONAL).Int(-1);\n  this->Attr(\"quant_mode\").AttrType(OPTIONAL).String(\"dynamic\");\n",
        );
        assert_eq!(tensors_of(&ops).0[1].shape, [16384]);
        let def = ops[0].opdef.as_ref().unwrap();
        assert!(attr_guess(def, &def.attrs[0]).is_none());
        // quant_mode "dynamic" beside zero points: "static".
        assert_eq!(attr_guess(def, &def.attrs[1]).unwrap().0, "\"static\"");
        let dir = tempfile::tempdir().unwrap();
        let ops = one_op(
            dir.path(),
            "AddRmsNormQuant",
            &[("x", "DT_FLOAT16"), ("gamma", "DT_FLOAT16")],
            "  this->Attr(\"quant_mode\").AttrType(OPTIONAL).String(\"dynamic\");\n",
        );
        let def = ops[0].opdef.as_ref().unwrap();
        assert!(attr_guess(def, &def.attrs[0]).is_none());
    }

    /// The fault `operands_read_past` answers (ops-nn's sigmoid_cross_entropy_with_logits_grad_v2 read
    /// its per-channel-guessed `weight` past its end).
    #[test]
    fn a_read_past_fault_names_the_input() {
        assert_eq!(
            read_past_input(
                "DataCopy: GM read out of bounds: bytes [32768, 40928) of 'weight' which has 32768 bytes"
            )
            .as_deref(),
            Some("weight")
        );
        assert_eq!(
            read_past_input(
                "DataCopy: GM write out of bounds: bytes [0, 4) of 'y' which has 0 bytes"
            ),
            None
        );
    }

    /// Found in a fresh sample (ops-math's pad_v3_grad_replicate: "input dim is not 4", then "Please
    /// check input or padding shape"): the manifest rendered with a rank fit of the main input gives its
    /// paddings two widths per axis of the fitted rank and the gradient's output the fitted rank too.
    /// ops-math's mul_addn: its inputs are tensor lists ("the dims of x1 not equal 3", then "the 3rd
    /// dimension of x1 must be 1"), and a list's shape was never fitted: each of its tensors now takes
    /// the rank and the axis the refusals asked for, its count kept.
    #[test]
    fn a_rank_fit_reaches_a_tensor_list() {
        let dir = tempfile::tempdir().unwrap();
        let ops = op_project(
            dir.path(),
            (
                "mul_addn.cpp",
                "extern \"C\" __global__ __aicore__ void mul_addn(GM_ADDR x1, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling) {}\n",
            ),
            (
                "mul_addn_def.cpp",
                "namespace ops {\nclass MulAddn : public OpDef {\npublic:\n explicit MulAddn(const char* n) : OpDef(n) {\n  this->Input(\"x1\").ParamType(DYNAMIC).DataType({ge::DT_FLOAT16});\n  this->Output(\"y\").DataType({ge::DT_FLOAT16});\n  this->AICore().AddConfig(\"ascend910b\");\n }\n};\nOP_ADD(MulAddn);\n}\n",
            ),
        );
        let mut inferred = Inferred::default();
        let fit = ShapeFit {
            rank: Some(3),
            axes: BTreeMap::from([(2, 1)]),
            read_past: false,
        };
        inferred.rank_fits.insert(
            ops[0].name.clone(),
            BTreeMap::from([(
                "x1".to_string(),
                (fit, "the 3rd dimension of x1 must be 1".to_string()),
            )]),
        );
        let text = rendered(&ops, &inferred);
        assert!(
            text.contains("name = \"x1\"\ndtype = \"float16\"\nshape = [1, 48, 1]   # guess: 3 axes, axis 2 of 1, as the op's tiling function asked"),
            "{text}"
        );
        assert!(text.contains("list = 3"), "{text}");
    }

    #[test]
    fn a_rank_fit_of_the_main_input_carries_its_paddings_and_output() {
        let dir = tempfile::tempdir().unwrap();
        let ops = one_op(
            dir.path(),
            "PadV3GradReplicate",
            &[("x", "DT_FLOAT"), ("paddings", "DT_INT32")],
            "",
        );
        let mut inferred = Inferred::default();
        let fit = ShapeFit {
            rank: Some(4),
            axes: BTreeMap::new(),
            read_past: false,
        };
        inferred.rank_fits.insert(
            ops[0].name.clone(),
            BTreeMap::from([("x".to_string(), (fit, "input dim is not 4".to_string()))]),
        );
        let text = rendered(&ops, &inferred);
        let m: toml::Value = toml::from_str(&text).unwrap();
        let op = &m["op"][0];
        let shape = |t: &toml::Value| -> Vec<i64> {
            t["shape"]
                .as_array()
                .unwrap()
                .iter()
                .map(|d| d.as_integer().unwrap())
                .collect()
        };
        assert_eq!(shape(&op["input"][0]), [1, 1, 48, 16384]);
        assert_eq!(shape(&op["input"][1]), [8]);
        assert_eq!(shape(&op["output"][0]), [1, 1, 46, 16382]);
        assert!(
            text.contains("4 axes, as the op's tiling function asked"),
            "{text}"
        );
    }

    /// Found in a fresh sample (ops-nn's max_pool3d_grad_with_argmax refused `pads = [1]`, "padSize
    /// should smaller than kernelSize div 2"): required pooling windows without defaults get one value
    /// per axis of the op's defaulted list attrs, a window and stride of 1 and no padding.
    #[test]
    fn a_pooling_window_without_defaults_is_one_with_no_padding() {
        let text = r#"class Mp : public OpDef { public: explicit Mp(const char* n) : OpDef(n) {
              this->Input("x").DataType({ge::DT_FLOAT});
              this->Output("y").DataType({ge::DT_FLOAT});
              this->Attr("ksize").AttrType(REQUIRED).ListInt();
              this->Attr("pads").AttrType(REQUIRED).ListInt();
              this->Attr("dilation").AttrType(OPTIONAL).ListInt({1, 1, 1});
              this->Attr("axes").AttrType(REQUIRED).ListInt();
              this->AICore().AddConfig("ascend910b"); } }; OP_ADD(Mp);"#;
        let defs = crate::project::opdef::read_opdefs(text);
        let def = &defs[0];
        assert_eq!(attr_guess(def, &def.attrs[0]).unwrap().0, "[1, 1, 1]");
        assert_eq!(attr_guess(def, &def.attrs[1]).unwrap().0, "[0, 0, 0]");
        // the defaulted one, and a list of another role, are not guessed here
        assert!(attr_guess(def, &def.attrs[2]).is_none());
        assert!(attr_guess(def, &def.attrs[3]).is_none());
        // ops-nn's max_pool3_d: defaulted pads hold two per axis; the window follows `dilation`
        let text = r#"class Mp : public OpDef { public: explicit Mp(const char* n) : OpDef(n) {
              this->Input("x").DataType({ge::DT_FLOAT});
              this->Output("y").DataType({ge::DT_FLOAT});
              this->Attr("ksize").AttrType(REQUIRED).ListInt();
              this->Attr("pads").AttrType(OPTIONAL).ListInt({0, 0, 0, 0, 0, 0});
              this->Attr("dilation").AttrType(OPTIONAL).ListInt({1, 1, 1, 1, 1});
              this->AICore().AddConfig("ascend910b"); } }; OP_ADD(Mp);"#;
        let defs = crate::project::opdef::read_opdefs(text);
        let def = &defs[0];
        assert_eq!(attr_guess(def, &def.attrs[0]).unwrap().0, "[1, 1, 1, 1, 1]");
    }

    /// Found in a fresh sample (ops-nn's dynamic_block_quant: "The dtypes of y and dst_type must be
    /// the same"): its `dst_type` defaults to a named constant (35, a float8) while the manifest types
    /// `y` int8 from the OpDef's first column it can name; init writes the output's ge number, 2. An
    /// op whose default already agrees keeps it.
    #[test]
    fn a_quant_ops_dst_type_follows_the_output_dtype() {
        let text = r#"static constexpr int32_t DEFAULT_DST = 35;
            class Dbq : public OpDef { public: explicit Dbq(const char* n) : OpDef(n) {
              this->Input("x").DataType({ge::DT_FLOAT16, ge::DT_FLOAT16});
              this->Output("y").DataType({ge::DT_FLOAT8_E5M2, ge::DT_INT8});
              this->Attr("dst_type").AttrType(OPTIONAL).Int(DEFAULT_DST);
              this->AICore().AddConfig("ascend910b"); } }; OP_ADD(Dbq);"#;
        let defs = crate::project::opdef::read_opdefs(text);
        let def = &defs[0];
        assert_eq!(
            def.attrs[0].default,
            Some(crate::project::opdef::AttrDefault::Int(35))
        );
        let (v, note) = attr_guess(def, &def.attrs[0]).unwrap();
        assert_eq!(v, "2");
        assert!(note.contains("DT_INT8"), "{note}");
        let agrees = text.replace("Int(DEFAULT_DST)", "Int(ge::DT_INT8)");
        let defs = crate::project::opdef::read_opdefs(&agrees);
        assert!(attr_guess(&defs[0], &defs[0].attrs[0]).is_none());
    }

    /// Found in the new-user run (ops-nn sync_batch_norm_backward_elemt read its per-channel `weight`
    /// past its end): an op whose tiling is element-wise has no per-channel operands.
    #[test]
    fn an_elementwise_schedule_gives_per_channel_operands_the_main_shape() {
        let dir = tempfile::tempdir().unwrap();
        let ops = one_op(
            dir.path(),
            "SyncBatchNormBackwardElemt",
            &[
                ("grad_output", "DT_FLOAT"),
                ("weight", "DT_FLOAT"),
                ("lr", "DT_FLOAT"),
            ],
            "",
        );
        assert!(!uses_elementwise_schedule(dir.path(), &ops[0]));
        std::fs::write(
            dir.path().join("op_host/the_op_tiling.cpp"),
            "auto key = GET_TPL_TILING_KEY(ELEMENTWISE_TPL_SCH_MODE_0);\nIMPL_OP_OPTILING(SyncBatchNormBackwardElemt);\n",
        )
        .unwrap();
        let ops = project::discover(dir.path()).unwrap();
        assert!(uses_elementwise_schedule(dir.path(), &ops[0]));
        let (mut ins, _) = tensors_of(&ops);
        assert_eq!(ins[1].shape, [16384]);
        elementwise_operands(&BTreeMap::new(), &mut ins);
        assert_eq!(ins[1].shape, [48, 16384]);
        // A scalar stays one number; a given shape stays.
        assert_eq!(ins[2].shape, Vec::<u64>::new());
        let (mut ins, _) = tensors_of(&ops);
        elementwise_operands(&BTreeMap::from([("weight".to_string(), vec![7])]), &mut ins);
        assert_eq!(ins[1].shape, [16384]);
    }

    /// Found in the new-user run (ops-nn ctc_loss_v3: "the dims of input_lengths not equal 1"): a CTC
    /// loss takes log_probs [T, N, C], targets [N, S], lengths [N] (pinned) and gives [N] and
    /// [N, T, 2 S + 1 rounded up to 8] (the kernel writes rows of the rounded length, and faulted past
    /// a log_alpha of [4, 32, 17]).
    #[test]
    fn a_ctc_loss_gets_its_ranks_and_pinned_lengths() {
        let dir = tempfile::tempdir().unwrap();
        let ops = one_op(
            dir.path(),
            "CTCLossV3",
            &[
                ("log_probs", "DT_FLOAT"),
                ("targets", "DT_INT64"),
                ("input_lengths", "DT_INT64"),
                ("target_lengths", "DT_INT64"),
            ],
            // the second output, after `y`
            "  this->Output(\"log_alpha\").DataType({ge::DT_FLOAT});\n",
        );
        assert!(is_ctc(&ops[0]));
        let default = (CTC_SHAPE.to_vec(), ctc_note());
        let (ins, outs) = opdef_tensors(
            &ops[0],
            ops[0].opdef.as_ref().unwrap(),
            &BTreeMap::new(),
            Some(&default),
            false,
        );
        assert_eq!(ins[0].shape, [32, 4, 16]);
        assert_eq!(ins[1].shape, [4, 8]);
        assert_eq!(ins[1].range.as_deref(), Some("[1.0, 16.0]"));
        assert_eq!(ins[2].shape, [4]);
        assert_eq!(ins[2].values.as_deref(), Some("[32, 32, 32, 32]"));
        assert_eq!(ins[3].values.as_deref(), Some("[8, 8, 8, 8]"));
        assert_eq!(outs[0].shape, [4]);
        assert_eq!(outs[1].shape, [4, 32, 24]);
        let dir = tempfile::tempdir().unwrap();
        let ops = one_op(dir.path(), "CtcLike", &[("x", "DT_FLOAT")], "");
        assert!(!is_ctc(&ops[0]));
    }

    /// Found in the new-user run (ops-math circular_pad: "output's shape error."): `paddings` took
    /// random widths over the main shape while `y` kept the main shape. Now two widths of 1 per axis
    /// are pinned and the output is 2 larger on each axis (2 smaller for a pad's gradient).
    #[test]
    fn paddings_are_pinned_and_the_output_padded() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let ops = one_op(
            root,
            "CircularPad",
            &[("x", "DT_FLOAT"), ("paddings", "DT_INT64")],
            "",
        );
        let (ins, outs) = tensors_of(&ops);
        assert_eq!(ins[0].shape, [48, 16384]);
        assert_eq!(ins[1].shape, [4]);
        assert_eq!(ins[1].values.as_deref(), Some("[1, 1, 1, 1]"));
        assert_eq!(outs[0].shape, [50, 16386]);
        let dir = tempfile::tempdir().unwrap();
        let ops = one_op(
            dir.path(),
            "CircularPadGrad",
            &[("x", "DT_FLOAT"), ("paddings", "DT_INT64")],
            "",
        );
        assert_eq!(tensors_of(&ops).1[0].shape, [46, 16382]);
        // A rank-fitted main input's leading axes of 1 take no padding (ops-math's
        // pad_v3_grad_replicate: x [1, 1, 48, 16384], paddings per axis in axis order), and
        // PadV3GradReplicate is a gradient though its type does not end in Grad.
        let dir = tempfile::tempdir().unwrap();
        let ops = one_op(
            dir.path(),
            "PadV3GradReplicate",
            &[("x", "DT_FLOAT"), ("paddings", "DT_INT32")],
            "",
        );
        let mut given = BTreeMap::new();
        given.insert("x".to_string(), vec![1u64, 1, 48, 16384]);
        let (ins, outs) =
            opdef_tensors(&ops[0], ops[0].opdef.as_ref().unwrap(), &given, None, false);
        assert_eq!(ins[1].values.as_deref(), Some("[0, 0, 0, 0, 1, 1, 1, 1]"));
        assert_eq!(outs[0].shape, [1, 1, 46, 16382]);
        // A float operand of that name is no width.
        let dir = tempfile::tempdir().unwrap();
        let ops = one_op(
            dir.path(),
            "Foo",
            &[("x", "DT_FLOAT"), ("padding", "DT_FLOAT")],
            "",
        );
        let (ins, outs) = tensors_of(&ops);
        assert_eq!(ins[1].values, None);
        assert_eq!(outs[0].shape, [48, 16384]);
    }

    /// Found in the new-user run (ops-nn modulate divided by a D of 0 read from a 2-D `x`): a
    /// modulation defaults to a 3-D `x` and per-sample `scale` and `shift`.
    #[test]
    fn a_modulation_takes_a_3d_x_and_per_sample_rows() {
        let dir = tempfile::tempdir().unwrap();
        let ins = [
            ("x", "DT_FLOAT16"),
            ("scale", "DT_FLOAT16"),
            ("shift", "DT_FLOAT16"),
        ];
        let ops = one_op(dir.path(), "Modulate", &ins, "");
        assert!(is_modulate(&ops[0]));
        let default = (MODULATE_SHAPE.to_vec(), modulate_note());
        let (ins, outs) = opdef_tensors(
            &ops[0],
            ops[0].opdef.as_ref().unwrap(),
            &BTreeMap::new(),
            Some(&default),
            false,
        );
        let shapes: Vec<Vec<u64>> = ins.iter().map(|t| t.shape.clone()).collect();
        assert_eq!(shapes, [vec![8, 128, 1024], vec![8, 1024], vec![8, 1024]]);
        assert_eq!(outs[0].shape, [8, 128, 1024]);
        let dir = tempfile::tempdir().unwrap();
        let ops = one_op(dir.path(), "Other", &[("x", "DT_FLOAT16")], "");
        assert!(!is_modulate(&ops[0]));
    }

    /// Found in the new-user run (ops-nn batch_norm_grad_v3 refused "Not supported format [ND]" at the
    /// 2-D default): a main input the OpDef declares in a plain layout of fixed rank defaults to that
    /// rank, per channel operands one per C; one declared ND keeps the 2-D default.
    #[test]
    fn a_main_input_declared_in_a_layout_defaults_to_its_rank() {
        let dir = tempfile::tempdir().unwrap();
        let ops = one_op(
            dir.path(),
            "BatchNormGradV3",
            &[
                ("dy", "DT_FLOAT"),
                ("x", "DT_FLOAT"),
                ("weight", "DT_FLOAT"),
            ],
            "",
        );
        let def = dir.path().join("op_host/the_op_def.cpp");
        let text = std::fs::read_to_string(&def).unwrap().replace(
            "this->Input(\"dy\").DataType({ge::DT_FLOAT})",
            "this->Input(\"dy\").DataType({ge::DT_FLOAT, ge::DT_FLOAT}).Format({ge::FORMAT_NCDHW, ge::FORMAT_NCHW})",
        );
        std::fs::write(&def, text).unwrap();
        let ops5 = project::discover(dir.path()).unwrap();
        let default = guesses::layout_default(&ops5[0]).expect("a layout default");
        assert_eq!(default.0, [2, 48, 8, 32, 32]);
        assert!(default.1.contains("NCDHW"), "{}", default.1);
        assert!(default.1.contains("--shape dy=NxCxDxHxW"), "{}", default.1);
        let (ins, _) = opdef_tensors(
            &ops5[0],
            ops5[0].opdef.as_ref().unwrap(),
            &BTreeMap::new(),
            Some(&default),
            false,
        );
        assert_eq!(ins[0].shape, [2, 48, 8, 32, 32]);
        assert_eq!(ins[2].shape, [48], "a weight is one per channel, axis 1");
        // Declared ND (no Format): no layout default.
        assert!(guesses::layout_default(&ops[0]).is_none());
    }

    /// Found in the new-user run (ops-nn group_norm_swish_grad refused its `mean` of the main shape):
    /// a group norm's statistics are one per sample and group.
    #[test]
    fn group_norm_statistics_are_per_sample_and_group() {
        let dir = tempfile::tempdir().unwrap();
        let ops = one_op(
            dir.path(),
            "GroupNormSwishGrad",
            &[
                ("dy", "DT_FLOAT"),
                ("mean", "DT_FLOAT"),
                ("rstd", "DT_FLOAT"),
                ("gamma", "DT_FLOAT"),
            ],
            "  this->Attr(\"num_groups\").AttrType(REQUIRED).Int();\n",
        );
        let (ins, _) = tensors_of(&ops);
        assert_eq!(ins[1].shape, [48, 1]);
        assert_eq!(ins[2].shape, [48, 1]);
        assert_eq!(ins[3].shape, [16384]);
        // Found in the new-user run (group_norm_swish_grad's kernel faulted with H x W = 1): a group
        // norm defaults to NCHW, its gamma one per channel (axis 1).
        assert!(is_group_norm(&ops[0]));
        let default = (GROUP_NORM_SHAPE.to_vec(), group_norm_note());
        let (ins, _) = opdef_tensors(
            &ops[0],
            ops[0].opdef.as_ref().unwrap(),
            &BTreeMap::new(),
            Some(&default),
            false,
        );
        assert_eq!(ins[0].shape, [4, 8, 8, 8]);
        assert_eq!(ins[1].shape, [4, 1]);
        assert_eq!(ins[3].shape, [8]);
        // Without the attr (a layer norm's backward) they keep what they had.
        let dir = tempfile::tempdir().unwrap();
        let ops = one_op(
            dir.path(),
            "Other",
            &[("dy", "DT_FLOAT"), ("mean", "DT_FLOAT")],
            "",
        );
        assert_eq!(tensors_of(&ops).0[1].shape, [48, 16384]);
    }

    /// Found in the whole ops-math run (stop 67): bincount's kernel stopped at `ascendc_assert(gMin >=
    /// 0)`, its int8 `array` drawn from the default range with negative values, and its `size` a
    /// guessed number. The values counted are now drawn non-negative below the pinned bin count.
    #[test]
    fn a_bincount_counts_non_negative_values_into_pinned_bins() {
        let dir = tempfile::tempdir().unwrap();
        let ops = one_op(
            dir.path(),
            "Bincount",
            &[
                ("array", "DT_INT8"),
                ("size", "DT_INT64"),
                ("weights", "DT_FLOAT"),
            ],
            "",
        );
        let (ins, _) = tensors_of(&ops);
        assert_eq!(ins[0].range.as_deref(), Some("[0.0, 99.0]"));
        assert!(ins[0].values.is_none());
        assert_eq!(ins[1].shape, Vec::<u64>::new());
        assert_eq!(ins[1].values.as_deref(), Some("[100]"));
        assert_eq!(ins[2].range, None);
        // another op with the same names is left alone
        let ops = one_op(
            dir.path(),
            "Histogram",
            &[("array", "DT_INT8"), ("size", "DT_INT64")],
            "",
        );
        assert_eq!(tensors_of(&ops).0[0].range, None);
    }

    /// Found in the new-user run (ops-math cholesky read past its input): ops on square matrices
    /// default to a batch of square ones; others do not.
    #[test]
    fn square_matrix_ops_default_to_square_matrices() {
        for (ty, square) in [
            ("Cholesky", true),
            ("MatrixInverse", true),
            ("LuV2", true),
            ("Logdet", true),
            ("Lerp", false),
            ("Cross", false),
        ] {
            let dir = tempfile::tempdir().unwrap();
            let ops = one_op(dir.path(), ty, &[("self", "DT_FLOAT")], "");
            assert_eq!(takes_square_matrices(&ops[0]), square, "{ty}");
        }
        let dir = tempfile::tempdir().unwrap();
        let ops = one_op(dir.path(), "Cholesky", &[("self", "DT_FLOAT")], "");
        let default = (SQUARE_SHAPE.to_vec(), square_note());
        let (ins, outs) = opdef_tensors(
            &ops[0],
            ops[0].opdef.as_ref().unwrap(),
            &BTreeMap::new(),
            Some(&default),
            false,
        );
        assert_eq!(ins[0].shape, [4, 16, 16]);
        assert_eq!(outs[0].shape, [4, 16, 16]);
        // Symmetric positive definite: the independent check is a Cholesky factorisation of each
        // matrix in f64, every pivot positive.
        let v: Vec<f64> = ins[0]
            .values
            .as_deref()
            .unwrap()
            .trim_matches(['[', ']'])
            .split(", ")
            .map(|x| x.parse().unwrap())
            .collect();
        assert_eq!(v.len(), 4 * 16 * 16);
        for m in v.chunks(256) {
            let a = |i: usize, j: usize| m[i * 16 + j];
            let mut l = [[0.0f64; 16]; 16];
            for i in 0..16 {
                assert_eq!(a(i, 3), a(3, i));
                for j in 0..=i {
                    let s: f64 = (0..j).map(|k| l[i][k] * l[j][k]).sum();
                    if i == j {
                        assert!(a(i, i) - s > 0.0, "pivot {i}");
                        l[i][j] = (a(i, i) - s).sqrt();
                    } else {
                        l[i][j] = (a(i, j) - s) / l[j][j];
                    }
                }
            }
        }
        // a log-determinant's matrices are pinned the same way: a positive determinant (ops-math's
        // logdet gave NaN for the random ones whose determinant is negative)
        let ops = one_op(dir.path(), "Logdet", &[("self", "DT_FLOAT")], "");
        let (ins, _) = opdef_tensors(
            &ops[0],
            ops[0].opdef.as_ref().unwrap(),
            &BTreeMap::new(),
            Some(&default),
            false,
        );
        assert_eq!(
            ins[0].values.as_deref(),
            Some(&*format!(
                "[{}]",
                v.iter()
                    .map(|x| x.to_string())
                    .collect::<Vec<_>>()
                    .join(", ")
            ))
        );
        assert_eq!(version_less("LuV2"), "lu");
        assert_eq!(version_less("Cholesky"), "cholesky");
        assert_eq!(version_less("Conv"), "conv");
    }

    /// Found in the new-user run (ops-math stack_ball_query copied a negative length): a
    /// `<base>_batch_cnt` operand holds a few equal counts within `<base>`'s shortest axis.
    #[test]
    fn batch_counts_stay_within_the_stacked_operand() {
        let dir = tempfile::tempdir().unwrap();
        let ops = one_op(
            dir.path(),
            "StackBallQuery",
            &[
                ("xyz", "DT_FLOAT"),
                ("center_xyz", "DT_FLOAT"),
                ("xyz_batch_cnt", "DT_INT32"),
                ("center_xyz_batch_cnt", "DT_INT32"),
                ("other_batch_cnt", "DT_INT32"),
            ],
            "",
        );
        let (ins, _) = tensors_of(&ops);
        let ones = format!("[{}]", vec!["1"; 48].join(", "));
        for t in &ins[2..4] {
            assert_eq!(t.shape, [48], "{}", t.name);
            assert_eq!(t.values.as_deref(), Some(ones.as_str()), "{}", t.name);
        }
        // A longer base gets more per batch, the batches staying the same.
        let mut given = BTreeMap::new();
        given.insert("xyz".to_string(), vec![3u64, 300]);
        given.insert("center_xyz".to_string(), vec![12u64, 3]);
        let (ins, _) = opdef_tensors(&ops[0], ops[0].opdef.as_ref().unwrap(), &given, None, false);
        assert_eq!(ins[2].shape, [3]);
        assert_eq!(ins[2].values.as_deref(), Some("[1, 1, 1]"));
        assert_eq!(ins[3].values.as_deref(), Some("[1, 1, 1]"));
        let mut given = BTreeMap::new();
        given.insert("xyz".to_string(), vec![300u64, 30]);
        given.insert("center_xyz".to_string(), vec![12u64, 3]);
        let (ins, _) = opdef_tensors(&ops[0], ops[0].opdef.as_ref().unwrap(), &given, None, false);
        assert_eq!(ins[2].values.as_deref(), Some("[10, 10, 10]"));
        // No operand `other`: left as it was.
        assert_eq!(ins[4].values, None);
    }

    /// Found in the held-out run (ops-transformer's moe_re_routing read its tokens from a negative
    /// offset): an integer operand counting tokens holds counts that add up to the first input's rows.
    #[test]
    fn token_counts_add_up_to_the_first_inputs_rows() {
        let dir = tempfile::tempdir().unwrap();
        let ops = one_op(
            dir.path(),
            "MoeReRouting",
            &[
                ("tokens", "DT_FLOAT16"),
                ("expert_token_num_per_rank", "DT_INT32"),
                ("per_token_scales", "DT_FLOAT"),
            ],
            "",
        );
        let (ins, _) = tensors_of(&ops);
        assert_eq!(ins[1].data.as_deref(), Some("counts"));
        assert_eq!(
            (ins[1].range.as_ref(), ins[1].values.as_ref()),
            (None, None)
        );
        assert!(ins[1].guess.as_deref().unwrap().contains("add up to"));
        // a float operand is no count; the first input is what is counted
        assert_eq!(ins[2].data, None);
        assert_eq!(ins[0].data, None);
        // and a per-token operand is one value per row
        assert_eq!(ins[2].shape, [ins[0].shape[0]]);
    }

    /// Found in the new-user run (ops-math addr_v2: "AddrV2: x2 must be 1D"): the outer product's
    /// vectors are as long as the matrix's rows and columns, its scales one number each.
    #[test]
    fn an_outer_product_takes_two_vectors_and_scalar_scales() {
        let dir = tempfile::tempdir().unwrap();
        let ops = one_op(
            dir.path(),
            "AddrV2",
            &[
                ("x1", "DT_FLOAT"),
                ("x2", "DT_FLOAT"),
                ("x3", "DT_FLOAT"),
                ("beta", "DT_FLOAT"),
                ("alpha", "DT_FLOAT"),
            ],
            "",
        );
        let (ins, outs) = tensors_of(&ops);
        let shapes: Vec<Vec<u64>> = ins.iter().map(|t| t.shape.clone()).collect();
        assert_eq!(
            shapes,
            [vec![48, 16384], vec![48], vec![16384], vec![], vec![]]
        );
        assert_eq!(outs[0].shape, [48, 16384]);
    }

    /// Found in the new-user run (ops-nn embedding_dense_grad_v2 wrote `grad` at byte
    /// 236396335443456): its index operands are one per row of the gradient, `sort_indices` within
    /// the table's num_weights rows and `pos_idx` within the gradient's rows.
    #[test]
    fn an_embedding_gradient_indexes_rows_of_its_table() {
        let dir = tempfile::tempdir().unwrap();
        let ops = one_op(
            dir.path(),
            "EmbeddingDenseGradV2",
            &[
                ("grad", "DT_FLOAT"),
                ("sort_indices", "DT_INT32"),
                ("pos_idx", "DT_INT32"),
            ],
            "  this->Attr(\"num_weights\").AttrType(REQUIRED).Int();\n",
        );
        let (ins, _) = tensors_of(&ops);
        assert_eq!(ins[1].shape, [48]);
        assert_eq!(ins[1].range.as_deref(), Some("[0.0, 1.0]"));
        assert_eq!(ins[2].shape, [48]);
        assert_eq!(ins[2].range.as_deref(), Some("[0.0, 48.0]"));
        // Without the attr the operands keep the main shape.
        let dir = tempfile::tempdir().unwrap();
        let ops = one_op(
            dir.path(),
            "Other",
            &[("grad", "DT_FLOAT"), ("sort_indices", "DT_INT32")],
            "",
        );
        assert_eq!(tensors_of(&ops).0[1].shape, [48, 16384]);
    }

    /// Found in the new-user run (ops-nn cross_entropy_loss read `weight` at byte -200): a
    /// classification loss's integer `target` holds one class label per row of its [rows, C] scores,
    /// within [0, C); a float operand of that name, or an op without `ignore_index`, keeps the main shape.
    #[test]
    fn a_classification_loss_takes_one_label_per_row() {
        let dir = tempfile::tempdir().unwrap();
        let ops = one_op(
            dir.path(),
            "CrossEntropyLoss",
            &[
                ("input", "DT_FLOAT"),
                ("target", "DT_INT64"),
                ("weight", "DT_FLOAT"),
            ],
            "  this->Attr(\"ignore_index\").AttrType(OPTIONAL).Int(-100);\n",
        );
        let (ins, _) = tensors_of(&ops);
        assert_eq!(ins[1].shape, [48]);
        assert_eq!(ins[1].range.as_deref(), Some("[0.0, 16384.0]"));
        assert!(
            ins[1]
                .guess
                .as_deref()
                .unwrap_or("")
                .contains("class label")
        );
        let dir = tempfile::tempdir().unwrap();
        let ops = one_op(
            dir.path(),
            "Other",
            &[("input", "DT_FLOAT"), ("target", "DT_INT64")],
            "",
        );
        assert_eq!(tensors_of(&ops).0[1].shape, [48, 16384]);
        let dir = tempfile::tempdir().unwrap();
        let ops = one_op(
            dir.path(),
            "MseLike",
            &[("input", "DT_FLOAT"), ("target", "DT_FLOAT")],
            "  this->Attr(\"ignore_index\").AttrType(OPTIONAL).Int(-100);\n",
        );
        assert_eq!(tensors_of(&ops).0[1].shape, [48, 16384]);
    }

    /// Found in the new-user run (ops-math cross: "dimPtr is nullptr"): its tiling reads attr 0 while
    /// its OpDef declares no attr. init warns; an OpDef with the attr, or host code reading none, gives
    /// no warning.
    #[test]
    fn attrs_read_by_the_host_code_but_not_declared_are_warned_of() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let tiling = "static int T(gert::TilingContext* c) { auto a = c->GetAttrs(); const int64_t* d = a->GetAttrPointer<int64_t>(0); return *d; }\nIMPL_OP_OPTILING(Cross).Tiling(T);\n";
        std::fs::create_dir_all(root.join("op_host")).unwrap();
        std::fs::write(root.join("op_host/the_op_tiling.cpp"), tiling).unwrap();
        let ins = [("x1", "DT_FLOAT"), ("x2", "DT_FLOAT")];
        let ops = one_op(root, "Cross", &ins, "");
        assert!(
            ops[0].host.iter().any(|h| h.ends_with("_tiling.cpp")),
            "{:?}",
            ops[0].host
        );
        let w = attrs_read_but_undeclared(root, &ops[0]).expect("a warning");
        assert!(
            w.contains("op_host/the_op_tiling.cpp") && w.contains("`Cross`"),
            "{w}"
        );
        let ops = one_op(
            root,
            "Cross",
            &ins,
            "  this->Attr(\"dim\").AttrType(OPTIONAL).Int(-65530);\n",
        );
        assert_eq!(attrs_read_but_undeclared(root, &ops[0]), None);
        std::fs::write(
            root.join("op_host/the_op_tiling.cpp"),
            "int T() { return 0; }\nIMPL_OP_OPTILING(Cross).Tiling(T);\n",
        )
        .unwrap();
        let ops = one_op(root, "Cross", &ins, "");
        assert_eq!(attrs_read_but_undeclared(root, &ops[0]), None);
    }
}
