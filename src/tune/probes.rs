//! Shape probes: the other shapes a written-back source must serve besides the one it was tuned on. A
//! probe is the op with every tensor's dimensions mapped (the tuned shape's row length and row count
//! replaced consistently in inputs and outputs alike): a tail that is a multiple of no tile or block, a
//! single row, a single element, an unaligned length, the largest shape allowed. The unmodified op runs
//! on each probe once; its outputs are the probe's reference, and a probe it cannot run (it faults, its
//! tiling refuses the shape, the manifest's constraints exclude the shape) is dropped with the reason.
//! A candidate then runs on the live probes with the artifact already built for it: no new build.
//! The shapes the manifest declares besides the tuned one (`[[op.shape]]`) are probes too, and
//! measured ones: a candidate must reproduce the unmodified op there as well, and its latencies there
//! join the tuned shape's in the objective, their weighted geometric mean (`Probes::objective`). A
//! declared shape the unmodified op cannot serve is an error, not a dropped probe.
//! This module owns choosing the probe shapes and judging a candidate on them; it knows nothing of
//! searching, journals or lockfiles.

use crate::backend::{
    Artifact, Backend, FailureKind, Inputs, TrialFailure, failure_line, first_line,
};
use crate::fsx::KeyHasher;
use crate::manifest::OpSpec;
use crate::space::{Point, Space};
use std::collections::BTreeMap;

/// The `largest` probe's main tensor holds this many times the tuned shape's elements, unless the
/// manifest says how large with `probe-max-elems`.
pub const DEFAULT_LARGEST_FACTOR: u64 = 2;

/// One shape the op must serve, with its inputs and (once the unmodified op ran on it) its reference.
#[derive(Debug, Clone)]
pub struct Probe {
    /// `tail`, `one-row`, `one-element`, `unaligned`, `largest`.
    pub name: String,
    /// The op with the probe's shapes.
    pub op: OpSpec,
    pub inputs: Inputs,
    /// The unmodified op's outputs on this probe.
    pub reference: Vec<Vec<u8>>,
    /// Per output, the byte ranges of the elements the unmodified op leaves unwritten on this probe
    /// (`unwritten`): not compared, as the op promises nothing there. Empty where it writes them all.
    pub unwritten: Vec<Vec<std::ops::Range<usize>>>,
    /// For a shape the manifest declares (`[[op.shape]]`): its weight in the objective and the
    /// unmodified op's latency there. None for a generated probe, which is only checked.
    pub measured: Option<Measured>,
    /// The unmodified op's instructions run past their UB buffers on this probe, but its outputs are
    /// the same with the buffers carved `OVERRUN_GAP` bytes apart (`Layouts::Same`): a candidate
    /// is run the same two ways here and must give the reference in both.
    pub overruns: bool,
}

/// The bytes left between UB buffers in the second layout a probe is run in where the unmodified op
/// overruns its buffers: more than the last repeat (256 B) a rounded-up tail computes past its end.
pub const OVERRUN_GAP: u32 = 1024;

/// A declared shape's part in the objective.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Measured {
    pub weight: f64,
    pub baseline_us: f64,
}

impl Probe {
    /// The probe's name and the shape of its largest tensor, e.g. `tail [47, 16381]`, or for a
    /// declared shape `shape short-rows [8, 2048]`.
    pub fn label(&self) -> String {
        match self.measured {
            Some(_) => format!("shape {} {:?}", self.name, main_shape(&self.op)),
            None => format!("{} {:?}", self.name, main_shape(&self.op)),
        }
    }
}

/// A probe the unmodified op could not serve: left out, with the reason.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct Dropped {
    pub probe: String,
    pub shape: Vec<u64>,
    pub why: String,
}

/// The probes of one tune: the live ones, and those dropped because the baseline cannot run them.
#[derive(Debug, Clone, Default)]
pub struct Probes {
    pub live: Vec<Probe>,
    pub dropped: Vec<Dropped>,
}

impl Probes {
    /// A key of everything that decides a candidate's verdict on the probes (part of a trial's key).
    pub fn key(&self) -> String {
        let mut h = KeyHasher::new();
        for p in &self.live {
            h.part(&p.name).part(p.op.shape_key()).part(&p.inputs.key);
            p.reference.iter().for_each(|r| {
                h.part(r);
            });
            h.part(format!("{:?} {}", p.unwritten, p.overruns));
        }
        h.finish()
    }

    /// Runs the unmodified op (its built `artifact`, the space at its current point) on every probe
    /// shape: a shape it serves becomes a live probe with its outputs as the reference, one it cannot
    /// is dropped with the reason.
    pub fn prepare(
        backend: &dyn Backend,
        op: &OpSpec,
        artifact: &Artifact,
        space: &Space,
        generated: bool,
        max_elems: Option<u64>,
    ) -> Result<Probes, String> {
        let mut out = Probes::default();
        let current = space.current();
        // The declared shapes first: the unmodified op must serve each.
        for (name, weight, case) in op.cases().into_iter().skip(1) {
            let label = format!("shape `{name}` {:?}", main_shape(&case));
            if let Some(p) = &current
                && let Err(why) = at_shape(space, &case, backend.soc()).check(p)
            {
                return Err(format!(
                    "{label}: the op's constraints exclude its current values there: {why}"
                ));
            }
            let inputs = super::inputs(&case);
            let m = backend.run(&case, artifact, &inputs, false).map_err(|f| {
                format!(
                    "{label}: the sources as they are fail there ({}): {}",
                    f.kind.as_str(),
                    failure_line(&f.message)
                )
            })?;
            out.live.push(Probe {
                name,
                op: case,
                inputs,
                reference: m.outputs,
                unwritten: vec![],
                measured: Some(Measured {
                    weight,
                    baseline_us: m.latency_us,
                }),
                overruns: false,
            });
        }
        if !generated {
            return Ok(out);
        }
        let declared: Vec<String> = out.live.iter().map(|p| p.op.shape_key()).collect();
        let related = related_shapes(op, max_elems);
        for (name, probe_op) in shapes(op, max_elems) {
            let first = match serve(
                backend, artifact, space, &current, &declared, &name, probe_op,
            ) {
                Served::Live(p) => {
                    out.live.push(*p);
                    continue;
                }
                Served::Declared => continue,
                Served::Dropped(d) => d,
            };
            // The same probe with the rows kept in groups of another tensor's rows, where the op
            // has such a relation; the first form's reason stands if this one fails too.
            let again = related.iter().find(|(n, _)| *n == name).map(|(_, o)| {
                serve(
                    backend,
                    artifact,
                    space,
                    &current,
                    &declared,
                    &name,
                    o.clone(),
                )
            });
            match again {
                Some(Served::Live(p)) => out.live.push(*p),
                Some(Served::Declared) => {}
                Some(Served::Dropped(_)) | None => out.dropped.push(first),
            }
        }
        Ok(out)
    }

    /// Why `point` cannot serve a probe's shape by the op's own constraints (manifest and derived,
    /// with the probe's tensor sizes), if it cannot: such a candidate is never built.
    pub fn excluded(
        &self,
        space: &Space,
        point: &Point,
        soc: &crate::model::soc::Soc,
    ) -> Option<String> {
        self.live.iter().find_map(|p| {
            at_shape(space, &p.op, soc).check(point).err().map(|why| {
                format!(
                    "probe `{}`: the constraints exclude it there: {why}",
                    p.label()
                )
            })
        })
    }

    /// `space` with its constraints also stated at every live probe's shape, for the search: it then
    /// never proposes a point that cannot serve a probe.
    pub fn augment(&self, space: &Space, soc: &crate::model::soc::Soc) -> Space {
        let mut out = space.clone();
        let names: Vec<&str> = space.tunables.iter().map(|t| t.name.as_str()).collect();
        let texts: Vec<&str> = space
            .constraints
            .iter()
            .map(|c| c.text())
            .chain(space.derived.iter().map(|d| d.constraint.text()))
            .collect();
        for p in &self.live {
            let facts = crate::space::facts(&p.op, soc);
            for text in &texts {
                let stated = substitute(text, &facts, &space.facts);
                if stated != *text
                    && let Ok(c) = crate::space::Constraint::compile(&stated, &names, &space.facts)
                {
                    out.constraints.push(c);
                }
            }
        }
        out
    }

    /// Judges a candidate that passed at the tuned shape on every live probe, with its artifact: a
    /// run that fails or outputs that differ from the unmodified op's is a `shape` failure naming the
    /// probe.
    /// Returns the candidate's latency at each declared shape, by name, in order.
    pub fn check(
        &self,
        backend: &dyn Backend,
        artifact: &Artifact,
    ) -> Result<Vec<(String, f64)>, TrialFailure> {
        self.check_where(backend, artifact, |_| true)
    }

    /// `check` on the live probes `which` picks.
    pub fn check_where(
        &self,
        backend: &dyn Backend,
        artifact: &Artifact,
        which: impl Fn(&Probe) -> bool,
    ) -> Result<Vec<(String, f64)>, TrialFailure> {
        let mut latencies = vec![];
        for p in self.live.iter().filter(|p| which(p)) {
            let fail = |why: String| {
                TrialFailure::new(FailureKind::Shape, format!("probe `{}`: {why}", p.label()))
            };
            let ran = match p.measured {
                Some(_) => backend
                    .run(&p.op, artifact, &p.inputs, false)
                    .map(|m| (m.outputs, Some(m.latency_us))),
                None if p.overruns => {
                    overrunning_outputs(backend, &p.op, artifact, &p.inputs).map(|o| (o, None))
                }
                None => backend
                    .run_outputs(&p.op, artifact, &p.inputs)
                    .map(|o| (o, None)),
            };
            let (outputs, latency) = ran.map_err(|f| {
                fail(format!(
                    "{}: {}",
                    f.kind.as_str(),
                    without_warnings(&f.message)
                ))
            })?;
            let mut outputs = outputs;
            for ((got, want), ranges) in outputs.iter_mut().zip(&p.reference).zip(&p.unwritten) {
                let end = got.len().min(want.len());
                for r in ranges.iter().filter(|r| r.end <= end) {
                    got[r.clone()].copy_from_slice(&want[r.clone()]);
                }
            }
            crate::verify::outputs_match(&p.op, &outputs, &p.reference)
                .map_err(|why| fail(format!("differs from the unmodified op: {why}")))?;
            if let Some(l) = latency {
                latencies.push((p.name.clone(), l));
            }
        }
        Ok(latencies)
    }

    /// The declared shapes (`[[op.shape]]`), by name, with their part in the objective.
    pub fn declared(&self) -> impl Iterator<Item = (&str, Measured)> {
        self.live
            .iter()
            .filter_map(|p| p.measured.map(|m| (p.name.as_str(), m)))
    }

    /// The objective of a tune: the weighted geometric mean of the latency at the tuned shape (weight
    /// `tuned_weight`) and those `at` the declared shapes (as `check` returns them). Exactly
    /// `tuned_us` for an op with no declared shapes.
    pub fn objective(&self, tuned_weight: f64, tuned_us: f64, at: &[(String, f64)]) -> f64 {
        let mut parts = vec![(tuned_weight, tuned_us)];
        for (name, l) in at {
            let w = self
                .declared()
                .find(|(n, _)| n == name)
                .map_or(1.0, |(_, m)| m.weight);
            parts.push((w, *l));
        }
        weighted_geomean(&parts)
    }
}

/// The weighted geometric mean of latencies, given as (weight, latency); a single latency exactly.
pub fn weighted_geomean(parts: &[(f64, f64)]) -> f64 {
    match parts {
        [] => f64::NAN,
        [(_, l)] => *l,
        _ => {
            let w: f64 = parts.iter().map(|(w, _)| w).sum();
            (parts.iter().map(|(w, l)| w * l.ln()).sum::<f64>() / w).exp()
        }
    }
}

/// An op's outputs from two runs that let its instructions run past their UB buffers: packed as its
/// sources carve the UB, and with the buffers carved `OVERRUN_GAP` bytes apart.
enum Layouts {
    /// Both runs agree: what the overrun reaches never reaches the outputs (mse_loss_grad_v2 casts
    /// three times its tile at every shape, into buffers it does not read again).
    Same(Vec<Vec<u8>>),
    /// How the spaced outputs differ from the packed (asinh's last tile, rounded up, writes into the
    /// buffer after it).
    Differ(String),
}

/// What became of one generated probe shape.
enum Served {
    Live(Box<Probe>),
    /// The shape is one the manifest declares: that probe stands for it.
    Declared,
    Dropped(Dropped),
}

/// Runs the unmodified op on one generated probe shape: a live probe with its outputs as the
/// reference, or the reason it cannot serve the shape.
fn serve(
    backend: &dyn Backend,
    artifact: &Artifact,
    space: &Space,
    current: &Option<Point>,
    declared: &[String],
    name: &str,
    mut probe_op: OpSpec,
) -> Served {
    // Outputs take the shapes the op's own InferShape gives at the probe's inputs where it has one
    // (moe_token_permute's sorted indices are its rows times k: no dimension of the tuned shape maps
    // to them); else they keep the dimensions mapped with the inputs'. (the inputs depend on the
    // inputs' specs alone: drawn once for both)
    let inputs = super::inputs(&probe_op);
    if let Ok(Some(inferred)) = backend.infer_outputs_built(&probe_op, &inputs, artifact) {
        for (t, o) in probe_op.outputs.iter_mut().zip(inferred) {
            if let (Some(shape), false) = (o.shape, o.unset) {
                t.shape = shape;
            }
        }
    }
    if declared.contains(&probe_op.shape_key()) {
        return Served::Declared;
    }
    let drop = |why: String| {
        Served::Dropped(Dropped {
            probe: name.to_string(),
            shape: main_shape(&probe_op),
            why,
        })
    };
    if let Some(p) = current
        && let Err(why) = at_shape(space, &probe_op, backend.soc()).check(p)
    {
        return drop(format!("the op's constraints exclude it: {why}"));
    }
    let live = |reference, unwritten, overruns, op| {
        Served::Live(Box::new(Probe {
            name: name.to_string(),
            unwritten,
            op,
            inputs: inputs.clone(),
            reference,
            measured: None,
            overruns,
        }))
    };
    match backend.run_outputs(&probe_op, artifact, &inputs) {
        Ok(reference) => {
            let unwritten = unwritten(backend, &probe_op, artifact, &inputs, &reference);
            live(reference, unwritten, false, probe_op)
        }
        // A fault may be an overrun of the op's UB buffers (`Layouts`); a refusal is not.
        Err(f) => match (f.kind == FailureKind::Fault)
            .then(|| two_layouts(backend, &probe_op, artifact, &inputs))
            .flatten()
        {
            Some(Ok(Layouts::Same(reference))) => live(reference, vec![], true, probe_op),
            Some(Ok(Layouts::Differ(differs))) => drop(format!(
                "the sources as they are overrun a UB buffer on it ({}), and their outputs there \
                 change when the buffers are carved {OVERRUN_GAP} bytes apart (spaced, against \
                 packed: {differs})",
                first_line(&f.message)
            )),
            Some(Err(_)) | None => drop(format!(
                "the sources as they are fail on it ({}): {}",
                f.kind.as_str(),
                failure_line(&f.message)
            )),
        },
    }
}

/// Runs the op in both layouts; None when the backend cannot lay out the UB itself (real hardware).
fn two_layouts(
    backend: &dyn Backend,
    op: &OpSpec,
    artifact: &Artifact,
    inputs: &Inputs,
) -> Option<Result<Layouts, TrialFailure>> {
    let run = |gap| backend.run_outputs_overrunning(op, artifact, inputs, gap);
    let packed = match run(0)? {
        Ok(o) => o,
        Err(f) => return Some(Err(f)),
    };
    let spaced = match run(OVERRUN_GAP)? {
        Ok(o) => o,
        Err(f) => return Some(Err(f)),
    };
    if packed == spaced {
        return Some(Ok(Layouts::Same(packed)));
    }
    let why = crate::verify::outputs_match(op, &spaced, &packed)
        .err()
        .unwrap_or_else(|| "bytes differ".into());
    Some(Ok(Layouts::Differ(first_line(&why).to_string())))
}

/// A candidate's outputs on a probe where the unmodified op overruns (`Probe::overruns`): run packed
/// and spaced apart (`two_layouts`), they must agree, or the candidate's outputs there depend on the
/// layout.
fn overrunning_outputs(
    backend: &dyn Backend,
    op: &OpSpec,
    artifact: &Artifact,
    inputs: &Inputs,
) -> Result<Vec<Vec<u8>>, TrialFailure> {
    let ran = two_layouts(backend, op, artifact, inputs).ok_or_else(|| {
        TrialFailure::new(
            FailureKind::Infra,
            "the backend cannot run an op past its UB buffers",
        )
    })??;
    match ran {
        Layouts::Same(outputs) => Ok(outputs),
        Layouts::Differ(why) => Err(TrialFailure::new(
            FailureKind::Fault,
            format!(
                "its outputs change when the UB buffers are carved {OVERRUN_GAP} bytes apart (spaced, \
                 against packed: {why})"
            ),
        )),
    }
}

/// The elements of each output the unmodified op leaves unwritten on a probe, as byte ranges: those
/// that differ between the zero-filled `reference` and a run whose outputs start as 0xA5 bytes. A
/// tutorial's add that splits its work as `totalLength / blockNum` never writes a tail's last
/// elements, and any candidate that splits otherwise "differed" there, in elements the op never
/// promised; a fault is still a fault. An output that differs everywhere is read before it is written
/// (an accumulation into it), which says nothing of coverage: it is compared whole, as is every output
/// of a backend that cannot fill them.
pub fn unwritten(
    backend: &dyn Backend,
    op: &OpSpec,
    artifact: &Artifact,
    inputs: &Inputs,
    reference: &[Vec<u8>],
) -> Vec<Vec<std::ops::Range<usize>>> {
    let Some(Ok(filled)) = backend.run_outputs_filled(op, artifact, inputs, 0xA5) else {
        return vec![];
    };
    op.outputs
        .iter()
        .zip(reference)
        .zip(&filled)
        .map(|((t, zero), other)| {
            let width = t.dtype.size().max(1);
            let elems = zero.len().min(other.len()) / width;
            let mut ranges: Vec<std::ops::Range<usize>> = vec![];
            for e in 0..elems {
                let bytes = e * width..(e + 1) * width;
                if zero[bytes.clone()] == other[bytes.clone()] {
                    continue;
                }
                match ranges.last_mut() {
                    Some(last) if last.end == bytes.start => last.end = bytes.end,
                    _ => ranges.push(bytes),
                }
            }
            let differing: usize = ranges.iter().map(|r| r.len()).sum();
            if differing == elems * width {
                vec![]
            } else {
                ranges
            }
        })
        .collect()
}

/// `text` with every fact whose value at the probe (`probe`) differs from the tuned shape's (`tuned`)
/// replaced by the probe's value, e.g. `x_elems % tile_length == 0` -> `(16384) % tile_length == 0`.
fn substitute(text: &str, probe: &BTreeMap<String, i64>, tuned: &BTreeMap<String, i64>) -> String {
    let mut out = String::with_capacity(text.len());
    let mut word = String::new();
    let flush = |word: &mut String, out: &mut String| {
        match probe.get(word.as_str()) {
            Some(v) if tuned.get(word.as_str()) != Some(v) => out.push_str(&format!("({v})")),
            _ => out.push_str(word),
        }
        word.clear();
    };
    for ch in text.chars() {
        if ch.is_ascii_alphanumeric() || ch == '_' {
            word.push(ch);
        } else {
            flush(&mut word, &mut out);
            out.push(ch);
        }
    }
    flush(&mut word, &mut out);
    out
}

/// The space with the facts of the probe's shapes, to check a point's constraints there.
fn at_shape(space: &Space, probe: &OpSpec, soc: &crate::model::soc::Soc) -> Space {
    Space {
        facts: crate::space::facts(probe, soc),
        ..space.clone()
    }
}

/// A failure message without the twin's warnings (each a `warning:` line and its indented location),
/// so the fault itself is what a probe's failure shows.
fn without_warnings(message: &str) -> String {
    let mut out = vec![];
    let mut in_warning = false;
    for line in message.lines() {
        if line.starts_with("warning:") {
            in_warning = true;
        } else if !(in_warning && line.starts_with(' ')) {
            in_warning = false;
            out.push(line);
        }
    }
    out.join("\n")
}

/// The shape of the op's largest tensor (inputs first), the one probes are described by.
pub fn main_shape(op: &OpSpec) -> Vec<u64> {
    let mut best: Option<&crate::manifest::TensorSpec> = None;
    for t in op.inputs.iter().chain(op.outputs.iter()) {
        if best.is_none_or(|b| t.elems() > b.elems()) {
            best = Some(t);
        }
    }
    best.map(|t| t.shape.clone()).unwrap_or_default()
}

/// The largest prime below `n` (n >= 3), else `n`: a length that is a multiple of no tile or block.
fn prime_below(n: u64) -> u64 {
    if n < 3 {
        return n;
    }
    (2..n)
        .rev()
        .find(|&c| (2..).take_while(|d| d * d <= c).all(|d| c % d != 0))
        .unwrap_or(n)
}

/// The op with every dimension `d` of every tensor that `map` names replaced by `map[d]`, and an
/// integer input's range whose end is such a dimension (ids below the rows: `range = [0, 768]`) ended
/// at the mapped one; None when a tensor with pinned values would change size (its values no longer
/// fit).
fn mapped(op: &OpSpec, map: &BTreeMap<u64, u64>) -> Option<OpSpec> {
    let mut out = op.clone();
    for t in out.inputs.iter_mut().chain(out.outputs.iter_mut()) {
        let before = t.elems();
        for d in t.shape.iter_mut() {
            if let Some(n) = map.get(d) {
                *d = *n;
            }
        }
        if t.values.as_ref().is_some_and(|v| v.len() > 1) && t.elems() != before {
            return None;
        }
        let (lo, hi) = t.range;
        if !t.dtype.is_float()
            && hi.fract() == 0.0
            && hi >= 2.0
            && let Some(&n) = map.get(&(hi as u64))
        {
            t.range = (lo, (n as f64).max(lo + 1.0));
        }
    }
    Some(out)
}

/// The shape of the op's largest input (its largest tensor when it has no inputs): the tensor whose
/// rows and row length the probes vary. An output larger than every input (moe_token_permute's rows
/// times k) is what the op makes of them, not a length of its own.
fn main_input_shape(op: &OpSpec) -> Vec<u64> {
    op.inputs
        .iter()
        .filter(|t| !t.shape.is_empty())
        .rev() // the first of equals, as `main_shape` takes it
        .max_by_key(|t| t.elems())
        .map_or_else(|| main_shape(op), |t| t.shape.clone())
}

/// The probe shapes of `op`, named, without the tuned shape itself and without repeats. The row length
/// `l` is the last dimension of the largest input, the row count `r` its first (rank 2 and up); each
/// is replaced wherever it occurs, so outputs follow inputs (a reduction's kept rows, a norm's weight).
/// Dimensions of 1 stay as they are.
pub fn shapes(op: &OpSpec, max_elems: Option<u64>) -> Vec<(String, OpSpec)> {
    generate(op, max_elems, Rows::Own)
}

/// The probe shapes again, for an op whose row count `r` is `k` times a dimension `d` of another
/// tensor (moe_finalize_routing_v2: `expanded_x` has `x1`'s 95 rows times top-k 4 = 380): the rule
/// of each probe is applied to `d`, and `r` becomes `k` times the result, so the two stay related
/// as the op requires (its tiling refused `tail` [379, 10223]: "the dim 0 of x1 should be 94").
/// Empty where no such `d` exists. A probe the op cannot serve in `shapes`' form is tried in this
/// one.
pub fn related_shapes(op: &OpSpec, max_elems: Option<u64>) -> Vec<(String, OpSpec)> {
    match per_group_rows(op) {
        Some((d, k)) => generate(op, max_elems, Rows::PerGroup { d, k }),
        None => vec![],
    }
}

/// How the probes change the row count.
#[derive(Clone, Copy)]
enum Rows {
    /// `r` itself follows each probe's rule.
    Own,
    /// `r` is `k` groups of `d` rows: the rule applies to `d`, and `r` is `k` times it.
    PerGroup { d: u64, k: u64 },
}

/// The row count's largest proper divisor `d` (> 1) that is a dimension of some tensor, with
/// `k = r / d`: the op's rows as `k` groups of another tensor's rows. None for a rank-1 main input,
/// or where `d` or `k` would also be the row length (the map could not tell them apart).
fn per_group_rows(op: &OpSpec) -> Option<(u64, u64)> {
    let main = main_input_shape(op);
    if main.len() < 2 {
        return None;
    }
    let (r, l) = (main[0], main[main.len() - 1]);
    op.inputs
        .iter()
        .chain(&op.outputs)
        .flat_map(|t| t.shape.iter().copied())
        .filter(|&d| d > 1 && d < r && r % d == 0 && d != l && r / d != l)
        .max()
        .map(|d| (d, r / d))
}

fn generate(op: &OpSpec, max_elems: Option<u64>, rows: Rows) -> Vec<(String, OpSpec)> {
    let main = main_input_shape(op);
    let elems: u64 = main.iter().product();
    let Some(&l) = main.last() else {
        return vec![];
    };
    if elems <= 1 || l == 0 {
        return vec![];
    }
    let r = (main.len() >= 2)
        .then(|| main[0])
        .filter(|&r| r > 1 && r != l);
    let map = |pairs: &[(u64, u64)]| -> BTreeMap<u64, u64> {
        pairs
            .iter()
            .filter(|(from, _)| *from > 1)
            .copied()
            .collect()
    };
    // The pairs that change the row count to what `rule` makes of it (of `d`, for groups of rows).
    let row_pairs = |rule: &dyn Fn(u64) -> u64| -> Vec<(u64, u64)> {
        match (r, rows) {
            (None, _) => vec![],
            (Some(r), Rows::Own) => vec![(r, rule(r))],
            (Some(r), Rows::PerGroup { d, k }) => vec![(d, rule(d)), (r, k * rule(d))],
        }
    };
    let mut wanted: Vec<(&str, BTreeMap<u64, u64>)> = vec![];
    // A tail: every length prime, so no tile, block or core count divides it.
    let mut tail = vec![(l, prime_below(l))];
    tail.extend(row_pairs(&prime_below));
    wanted.push(("tail", map(&tail)));
    if r.is_some() {
        wanted.push(("one-row", map(&row_pairs(&|_| 1))));
    }
    let mut one = vec![(l, 1)];
    one.extend(row_pairs(&|_| 1));
    wanted.push(("one-element", map(&one)));
    // An unaligned length: one element short of the row, over at most 3 rows (fewer rows than cores).
    let mut unaligned = vec![(l, l - 1)];
    unaligned.extend(row_pairs(&|n| n.min(3)));
    wanted.push(("unaligned", map(&unaligned)));
    // The largest: more rows (or a longer row for rank 1) up to the allowed size.
    let limit = max_elems.unwrap_or(elems.saturating_mul(DEFAULT_LARGEST_FACTOR));
    let grown = match (r, rows) {
        (Some(r), Rows::Own) => vec![(r, (limit / (elems / r)).max(r))],
        (Some(r), Rows::PerGroup { d, k }) => {
            let d2 = (limit / (elems / r) / k).max(d);
            vec![(d, d2), (r, k * d2)]
        }
        (None, _) => vec![(l, (limit / (elems / l)).max(l))],
    };
    wanted.push(("largest", map(&grown)));

    let mut seen = vec![op.shape_key()];
    let mut out = vec![];
    for (name, m) in wanted {
        if m.iter().all(|(a, b)| a == b) {
            continue;
        }
        let Some(probe) = mapped(op, &m) else {
            continue;
        };
        let key = probe.shape_key();
        if seen.contains(&key) || probe.inputs.iter().any(|t| t.elems() == 0) {
            continue;
        }
        seen.push(key);
        out.push((name.to_string(), probe));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::manifest::Manifest;

    fn op_of(fixture: &str) -> OpSpec {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("fixtures")
            .join(fixture);
        Manifest::load(&root.join("ascend.toml")).unwrap().ops[0].clone()
    }

    fn table(op: &OpSpec, max: Option<u64>) -> Vec<String> {
        rows_of(&shapes(op, max))
    }

    /// Each probe as its name and every tensor's shape, inputs first.
    fn rows_of(probes: &[(String, OpSpec)]) -> Vec<String> {
        probes
            .iter()
            .map(|(n, p)| {
                let s: Vec<String> = p
                    .inputs
                    .iter()
                    .chain(&p.outputs)
                    .map(|t| format!("{:?}", t.shape))
                    .collect();
                format!("{n} {}", s.join(" "))
            })
            .collect()
    }

    #[test]
    fn a_constraint_is_stated_at_a_probe_by_its_sizes() {
        let tuned = BTreeMap::from([
            ("x_elems".to_string(), 786432),
            ("ub_bytes".to_string(), 196608),
        ]);
        let probe = BTreeMap::from([
            ("x_elems".to_string(), 16384),
            ("ub_bytes".to_string(), 196608),
        ]);
        assert_eq!(
            substitute(
                "x_elems % (block_dim * tile_length) == 0 && 2 * tile_length <= ub_bytes",
                &probe,
                &tuned
            ),
            "(16384) % (block_dim * tile_length) == 0 && 2 * tile_length <= ub_bytes"
        );
        // A name that merely contains a fact's name is left alone.
        assert_eq!(substitute("x_elems2 > 0", &probe, &tuned), "x_elems2 > 0");
    }

    #[test]
    fn a_probe_failure_shows_the_fault_not_the_warnings() {
        let m = "the kernel failed (exit code 3):\nwarning: DataCopy: GM read past the end\n  --> k.cpp:31 (block 0)\nerror: DataCopy: GM write out of bounds\n  --> k.cpp:44 (block 0)";
        assert_eq!(
            without_warnings(m),
            "the kernel failed (exit code 3):\nerror: DataCopy: GM write out of bounds\n  --> k.cpp:44 (block 0)"
        );
        // a probe left out names the error, not only that the kernel failed
        assert_eq!(
            failure_line(m),
            "the kernel failed (exit code 3): error: DataCopy: GM write out of bounds --> k.cpp:44 (block 0)"
        );
        assert_eq!(failure_line("tiling: refused\nmore"), "tiling: refused");
    }

    #[test]
    fn primes_below() {
        assert_eq!(prime_below(16384), 16381);
        assert_eq!(prime_below(48), 47);
        assert_eq!(prime_below(3), 2);
        assert_eq!(prime_below(2), 2);
        assert_eq!(prime_below(1), 1);
    }

    #[test]
    fn an_elementwise_op_gets_a_tail_one_row_one_element_unaligned_and_largest() {
        let op = op_of("add_custom"); // x, y, z: [48, 16384]
        assert_eq!(
            table(&op, None),
            [
                "tail [47, 16381] [47, 16381] [47, 16381]",
                "one-row [1, 16384] [1, 16384] [1, 16384]",
                "one-element [1, 1] [1, 1] [1, 1]",
                "unaligned [3, 16383] [3, 16383] [3, 16383]",
                "largest [96, 16384] [96, 16384] [96, 16384]",
            ]
        );
        // The manifest says how large.
        assert_eq!(
            table(&op, Some(16384 * 200)).last().unwrap(),
            "largest [200, 16384] [200, 16384] [200, 16384]"
        );
        // No larger than the tuned shape: no `largest` probe.
        assert!(
            !table(&op, Some(10))
                .iter()
                .any(|l| l.starts_with("largest"))
        );
    }

    #[test]
    fn a_reduction_keeps_its_output_rows_with_its_input_rows() {
        let op = op_of("reduce_sum_custom");
        let main = main_shape(&op);
        let rows = main[0];
        for (name, p) in shapes(&op, None) {
            let r = p.inputs[0].shape[0];
            assert_eq!(
                p.outputs[0].shape[0], r,
                "{name}: output rows follow input rows"
            );
            if name == "one-row" {
                assert_eq!(r, 1);
            }
            if name == "largest" {
                assert_eq!(r, rows * 2);
            }
        }
    }

    /// moe_token_permute at [768, 1024] tokens and [768, 2] indices gives [1536, 1024] and [1536]:
    /// probes varied the largest tensor (the output), so the inputs kept 768 rows and every probe's
    /// tiling refused the outputs. The largest input is varied now; its index range follows its rows.
    #[test]
    fn probes_vary_the_largest_input_and_an_index_range_follows_its_axis() {
        let mut op = op_of("add_custom");
        op.inputs[0].shape = vec![768, 1024];
        op.inputs[1].shape = vec![768, 2];
        op.inputs[1].dtype = crate::manifest::DType::Int32;
        op.inputs[1].range = (0.0, 768.0);
        op.outputs[0].shape = vec![1536, 1024];
        let probes = shapes(&op, None);
        let tail = &probes.iter().find(|(n, _)| n == "tail").unwrap().1;
        assert_eq!(tail.inputs[0].shape, [761, 1021]);
        assert_eq!(tail.inputs[1].shape, [761, 2]);
        assert_eq!(tail.inputs[1].range, (0.0, 761.0));
        let one_row = &probes.iter().find(|(n, _)| n == "one-row").unwrap().1;
        assert_eq!(one_row.inputs[0].shape, [1, 1024]);
        assert_eq!(one_row.inputs[1].range, (0.0, 1.0));
        // a float input's range is a range of values, not of ids: left as it is
        op.inputs[1].dtype = crate::manifest::DType::Float32;
        let probes = shapes(&op, None);
        assert_eq!(probes[0].1.inputs[1].range, (0.0, 768.0));
    }

    /// The Backend methods a shape probe never calls (it runs the artifact it is given, for outputs
    /// only), for the test backends below.
    macro_rules! probe_backend {
        ($fingerprint:literal) => {
            fn kind(&self) -> crate::manifest::BackendKind {
                crate::manifest::BackendKind::Twin
            }
            fn soc(&self) -> &'static crate::model::soc::Soc {
                crate::model::soc::lookup("Ascend910B1").unwrap()
            }
            fn fingerprint(&self) -> String {
                $fingerprint.into()
            }
            fn build(
                &self,
                _: &OpSpec,
                _: &crate::backend::SourceSet,
            ) -> Result<Artifact, TrialFailure> {
                unreachable!("probes run the artifact they are given")
            }
            fn run(
                &self,
                _: &OpSpec,
                _: &Artifact,
                _: &Inputs,
                _: bool,
            ) -> Result<crate::backend::Measurement, TrialFailure> {
                unreachable!("generated probes are run for their outputs only")
            }
        };
    }

    /// An artifact that names no build (the test backends key on `key` alone).
    fn artifact(key: &str) -> Artifact {
        Artifact {
            key: key.into(),
            host: "h".into(),
            kernel: "k".into(),
            cached: false,
            run_env: vec![],
        }
    }

    /// A space with no tunables.
    fn no_space() -> Space {
        Space {
            tunables: vec![],
            constraints: vec![],
            derived: vec![],
            facts: BTreeMap::new(),
        }
    }

    /// A backend for add_custom whose InferShape makes z twice x's rows, as moe_token_permute's
    /// sorted outputs are its rows times k, and whose run refuses any other z.
    struct Doubling;

    impl Backend for Doubling {
        probe_backend!("doubling");
        fn infer_outputs(
            &self,
            op: &OpSpec,
            _: &Inputs,
        ) -> Result<Option<Vec<crate::twin::protocol::InferredOutput>>, String> {
            let x = &op.inputs[0].shape;
            let mut z = x.clone();
            z[0] *= 2;
            Ok(Some(vec![crate::twin::protocol::InferredOutput {
                shape: Some(z),
                unset: false,
                dtype: None,
            }]))
        }
        fn run_outputs(
            &self,
            op: &OpSpec,
            _: &Artifact,
            _: &Inputs,
        ) -> Result<Vec<Vec<u8>>, TrialFailure> {
            let (x, z) = (&op.inputs[0].shape, &op.outputs[0].shape);
            if z[0] != 2 * x[0] || z[1] != x[1] {
                return Err(TrialFailure::new(
                    FailureKind::Tiling,
                    format!("z {z:?} is not twice the rows of x {x:?}"),
                ));
            }
            Ok(vec![vec![]])
        }
    }

    /// moe_token_permute's probes were all dropped: its outputs are its rows times k, which no mapping
    /// of the tuned shape's dimensions gives. The outputs of each probe now come from the op's own
    /// InferShape, and every probe is live.
    #[test]
    fn a_probes_outputs_are_what_the_ops_infershape_gives() {
        let mut op = op_of("add_custom");
        op.outputs[0].shape = vec![96, 16384];
        let probes =
            Probes::prepare(&Doubling, &op, &artifact("a"), &no_space(), true, None).unwrap();
        assert!(probes.dropped.is_empty(), "{:?}", probes.dropped);
        assert_eq!(probes.live.len(), 5);
        let tail = probes.live.iter().find(|p| p.name == "tail").unwrap();
        assert_eq!(tail.op.inputs[0].shape, [47, 16381]);
        assert_eq!(tail.op.outputs[0].shape, [94, 16381]);
    }

    /// add_custom reshaped as moe_finalize_routing_v2 is: x holds y's rows times top-k 4 ([380, 64]
    /// against [95, 64]), and a third tensor's [95, 4] holds the 4 as a dimension.
    fn grouped_rows() -> OpSpec {
        let mut op = op_of("add_custom");
        op.inputs[0].shape = vec![380, 64];
        op.inputs[1].shape = vec![95, 64];
        op.outputs[0].shape = vec![95, 4];
        op
    }

    #[test]
    fn rows_grouped_by_another_tensors_rows_keep_the_grouping() {
        let op = grouped_rows();
        assert_eq!(per_group_rows(&op), Some((95, 4)));
        assert_eq!(
            rows_of(&related_shapes(&op, None)),
            [
                "tail [356, 61] [89, 61] [89, 4]",
                "one-row [4, 64] [1, 64] [1, 4]",
                "one-element [4, 1] [1, 1] [1, 4]",
                "unaligned [12, 63] [3, 63] [3, 4]",
                "largest [760, 64] [190, 64] [190, 4]",
            ]
        );
        // No tensor's dimension divides the rows (add_custom as it is): no related form.
        assert!(related_shapes(&op_of("add_custom"), None).is_empty());
        // A divisor that is also the row length would be mapped as both: none taken.
        let mut op = grouped_rows();
        op.inputs[1].shape = vec![95, 95];
        op.inputs[0].shape = vec![380, 95];
        assert_eq!(per_group_rows(&op), None);
    }

    /// A backend whose tiling refuses a shape where `refusal` gives a reason, and runs any other.
    struct Refusing(fn(&OpSpec) -> Option<String>);

    impl Backend for Refusing {
        probe_backend!("refusing");
        fn run_outputs(
            &self,
            op: &OpSpec,
            _: &Artifact,
            _: &Inputs,
        ) -> Result<Vec<Vec<u8>>, TrialFailure> {
            match (self.0)(op) {
                Some(why) => Err(TrialFailure::new(FailureKind::Tiling, why)),
                None => Ok(vec![vec![]]),
            }
        }
    }

    /// moe_finalize_routing_v2 lost all five probes: each mapped its 380 expanded rows to a prime or
    /// to 1 and left `x1`'s 95 rows, and its tiling refused every one ("the dim 0 of x1 should be
    /// 94"). A refused probe is tried again with the rows kept in groups, and all five are live.
    #[test]
    fn a_probe_refused_in_its_own_form_is_tried_with_the_rows_grouped() {
        let op = grouped_rows();
        // grouped_rows' tiling: x must hold 4 times y's rows
        let grouped = Refusing(|op| {
            let (x, y) = (&op.inputs[0].shape, &op.inputs[1].shape);
            (x[0] != 4 * y[0]).then(|| format!("the dim 0 of y should be {}", x[0] / 4))
        });
        let probes =
            Probes::prepare(&grouped, &op, &artifact("a"), &no_space(), true, None).unwrap();
        assert!(probes.dropped.is_empty(), "{:?}", probes.dropped);
        assert_eq!(probes.live.len(), 5);
        let tail = probes.live.iter().find(|p| p.name == "tail").unwrap();
        assert_eq!(tail.op.inputs[0].shape, [356, 61]);
        // Where the grouped form fails too, the first form's reason is the one given.
        let never = Refusing(|op| Some(format!("refused {:?}", op.inputs[0].shape)));
        let probes = Probes::prepare(&never, &op, &artifact("a"), &no_space(), true, None).unwrap();
        assert_eq!(probes.dropped.len(), 5);
        let tail = probes.dropped.iter().find(|d| d.probe == "tail").unwrap();
        assert!(tail.why.contains("refused [379, 61]"), "{}", tail.why);
    }

    /// A backend whose op overruns its UB buffers wherever x has an odd number of columns: the
    /// checked run fails there, and the overrun reaches the outputs only where x has one row. An
    /// artifact keyed `layout-bound` overruns into its outputs at every such shape.
    struct Overrunning;

    impl Backend for Overrunning {
        probe_backend!("overrunning");
        fn run_outputs(
            &self,
            op: &OpSpec,
            artifact: &Artifact,
            inputs: &Inputs,
        ) -> Result<Vec<Vec<u8>>, TrialFailure> {
            if op.inputs[0].shape[1] % 2 == 1 {
                return Err(TrialFailure::new(
                    FailureKind::Fault,
                    "warning: Muls reads or writes 256 bytes of UB past the end of its UB buffer",
                ));
            }
            self.run_outputs_overrunning(op, artifact, inputs, 0)
                .unwrap()
        }
        fn run_outputs_overrunning(
            &self,
            op: &OpSpec,
            artifact: &Artifact,
            _: &Inputs,
            gap: u32,
        ) -> Option<Result<Vec<Vec<u8>>, TrialFailure>> {
            let rows = op.inputs[0].shape[0] as u8;
            let reached = rows == 1 || artifact.key == "layout-bound";
            Some(Ok(vec![vec![rows, u8::from(reached && gap > 0)]]))
        }
    }

    /// A probe where the unmodified op overruns its buffers stays live when its outputs are the same
    /// with the buffers carved apart (mse_loss_grad_v2 lost every probe to an overrun that never
    /// reaches its outputs), and is left out when they change (asinh's last tile); a candidate is
    /// then checked there in both layouts.
    #[test]
    fn a_probe_where_the_op_overruns_harmlessly_stays_live() {
        let mut op = op_of("add_custom");
        for t in op.inputs.iter_mut().chain(op.outputs.iter_mut()) {
            t.shape = vec![48, 16384];
        }
        let probes =
            Probes::prepare(&Overrunning, &op, &artifact("op"), &no_space(), true, None).unwrap();
        let overruns = |name: &str| {
            probes
                .live
                .iter()
                .find(|p| p.name == name)
                .map(|p| p.overruns)
        };
        // one-element [1, 1] overruns into its outputs; tail [47, 16381] and unaligned [3, 16383]
        // overrun harmlessly; one-row [1, 16384] and largest [96, 16384] do not overrun
        assert_eq!(overruns("one-element"), None);
        let dropped = probes.dropped.iter().find(|d| d.probe == "one-element");
        let why = &dropped.expect("one-element is left out").why;
        assert!(
            why.contains("change when the buffers are carved 1024 bytes apart"),
            "{why}"
        );
        assert_eq!(overruns("tail"), Some(true));
        assert_eq!(overruns("unaligned"), Some(true));
        assert_eq!(overruns("one-row"), Some(false));
        assert_eq!(overruns("largest"), Some(false));
        assert!(probes.check(&Overrunning, &artifact("candidate")).is_ok());
        let err = probes
            .check(&Overrunning, &artifact("layout-bound"))
            .unwrap_err();
        assert_eq!(err.kind, FailureKind::Shape);
        assert!(
            err.message.contains("carved 1024 bytes apart"),
            "{}",
            err.message
        );
    }

    #[test]
    fn a_scalar_op_has_no_probes() {
        let mut op = op_of("add_custom");
        for t in op.inputs.iter_mut().chain(op.outputs.iter_mut()) {
            t.shape = vec![];
        }
        assert!(shapes(&op, None).is_empty());
    }

    #[test]
    fn the_objective_is_the_weighted_geometric_mean_and_one_shape_is_itself() {
        assert_eq!(weighted_geomean(&[(1.0, 7.125)]), 7.125);
        // (4^1 * 16^3)^(1/4) = 2^((2 + 12) / 4) = 2^3.5
        let g = weighted_geomean(&[(1.0, 4.0), (3.0, 16.0)]);
        assert!((g - 2f64.powf(3.5)).abs() < 1e-12, "{g}");
        let probes = Probes {
            live: vec![Probe {
                name: "short-rows".into(),
                op: op_of("add_custom"),
                inputs: Inputs {
                    tensors: vec![],
                    key: String::new(),
                },
                reference: vec![],
                unwritten: vec![],
                measured: Some(Measured {
                    weight: 3.0,
                    baseline_us: 16.0,
                }),
                overruns: false,
            }],
            dropped: vec![],
        };
        assert_eq!(probes.objective(2.0, 5.0, &[]), 5.0);
        let o = probes.objective(1.0, 4.0, &[("short-rows".into(), 16.0)]);
        assert!((o - 2f64.powf(3.5)).abs() < 1e-12, "{o}");
        assert_eq!(
            probes.declared().collect::<Vec<_>>(),
            [(
                "short-rows",
                Measured {
                    weight: 3.0,
                    baseline_us: 16.0
                }
            )]
        );
    }
}
