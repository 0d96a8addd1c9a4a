//! Guesses `init` makes where the sources do not say: which operands are per-channel, scalars, indices,
//! paddings or square matrices, and the shapes and data they get. Each rule keys on the OpDef's names and
//! attrs and marks its result as a guess in the manifest. It knows nothing of rendering or of the twin.

use super::*;

/// Per-channel operands of normalisations and affine ops: one value per element of the last axis
/// (not `mean` and `var`: as inputs they are as often whole tensors, e.g. a Gaussian loss's).
pub(super) const PER_CHANNEL: &[&str] = &[
    "gamma",
    "beta",
    "bias",
    "weight",
    "scale",
    "offset",
    "variance",
    "running_mean",
    "running_var",
    "smooth_scales",
    "smooth_scale",
    "scales",
    "zero_points",
    "zero_point",
];
/// Operands that are one number.
pub(super) const SCALARS: &[&str] = &[
    "alpha",
    "value",
    "scalar",
    "scalars",
    "lr",
    "learning_rate",
    "epsilon",
    "eps",
    "momentum",
    "start",
    "end",
    "limit",
    "delta",
    "step",
    "weight_decay",
    "beta1",
    "beta2",
    "beta1_power",
    "beta2_power",
    "lambd",
    "lambda",
    "threshold",
    "num",
    "rho",
    "decay",
    "global_step",
];
/// Integer operands naming axes.
pub(super) const AXES: &[&str] = &["axis", "axes", "dim", "dims"];
/// Whether an OpDef is the backward of a loss reduced to one number (attr `reduction` defaulting to
/// "mean" or "sum"): its incoming gradient (REDUCED_GRADS) may then be that number's gradient.
pub(super) fn reduces_loss(def: &opdef::OpDef) -> bool {
    def.attrs.iter().any(|a| {
        a.name.eq_ignore_ascii_case("reduction")
            && matches!(&a.default, Some(opdef::AttrDefault::Str(r)) if r == "mean" || r == "sum")
    })
}

/// Whether an op has an incoming gradient that a reduced loss may take as a scalar.
pub(super) fn has_reduced_grad(op: &FoundOp) -> bool {
    op.opdef.as_ref().is_some_and(|def| {
        reduces_loss(def)
            && def
                .inputs
                .iter()
                .any(|p| REDUCED_GRADS.contains(&p.name.to_ascii_lowercase().as_str()))
    })
}

/// Names of the incoming gradient of a loss's backward op: possibly a scalar when the loss is reduced.
pub(super) const REDUCED_GRADS: &[&str] = &[
    "grad",
    "grad_output",
    "gradoutput",
    "grad_out",
    "out_grad",
    "y_grad",
    "dy",
];
/// Outputs of normalisations that keep one value per row.
pub(super) const PER_ROW_OUTPUTS: &[&str] = &[
    "rstd", "mean", "variance", "var", "invstd", "inv_std", "mean_out", "rstd_out",
];

/// A tensor as written: shape, pinned values, and the note beside a guess.
pub(super) struct Tensor {
    pub(super) name: String,
    pub(super) dtype: crate::manifest::DType,
    pub(super) shape: Vec<u64>,
    pub(super) values: Option<String>,
    /// The generated data's `range = [lo, hi]` (an index operand's valid positions).
    pub(super) range: Option<String>,
    /// How the generated data is drawn (`data = "permutation"` or `"sorted"`), when not uniform.
    pub(super) data: Option<String>,
    pub(super) guess: Option<String>,
    /// A tensor list (an OpDef `ParamType(DYNAMIC)` parameter): `list = N`, with its note.
    pub(super) list: Option<(u32, String)>,
}

impl Tensor {
    /// Whether the tensor's data is already said by something other than a guess: pinned `values`, a
    /// `data` kind, or a range a case carried (its note is no `guess:`). Guesses leave such data alone.
    pub(super) fn data_decided(&self) -> bool {
        self.values.is_some()
            || self.data.is_some()
            || (self.range.is_some()
                && !self
                    .guess
                    .as_deref()
                    .is_some_and(|g| g.starts_with("guess:")))
    }
}

/// How many tensors init gives a tensor list: a few, so that a tiling that spreads the list's data
/// over the cores has tensors that straddle cores.
pub(super) const LIST_TENSORS: u32 = 3;

pub(super) fn list_note(name: &str) -> (u32, String) {
    (
        LIST_TENSORS,
        format!(
            "guess: `{name}` is a tensor list (DYNAMIC): {LIST_TENSORS} tensors of this shape; give the count you tune for"
        ),
    )
}

/// Shapes of an OpDef's tensors from their roles: the first input that is not a per-channel,
/// scalar or axis operand is the main one (`--shape` or the default), per-channel operands take its
/// last axis, scalars `[]`, axes one element pinned to 1 (the last axis of the default 2-D shape).
/// The incoming gradient of a reduced loss has the main shape, or is a scalar with `scalar_grad`
/// (taken when the op's tiling refuses the full shape: `Fitting::tiling` in init).
pub(super) fn opdef_tensors(
    op: &FoundOp,
    def: &opdef::OpDef,
    shapes: &BTreeMap<String, Vec<u64>>,
    default: Option<&(Vec<u64>, String)>,
    scalar_grad: bool,
) -> (Vec<Tensor>, Vec<Tensor>) {
    #[derive(PartialEq)]
    enum Role {
        Main,
        PerChannel,
        /// One value per token (row) of the main input: `per_token_scales`.
        PerToken,
        Scalar,
        Axis,
        ReducedGrad,
    }
    let reduced = reduces_loss(def);
    let group_norm = count_attr(def, "num_groups").is_some();
    // A main input the OpDef declares channel-first (ops-nn's quantized_batch_norm: x NCHW) has its
    // channels on axis 1 too.
    let channel_first = def.inputs.first().is_some_and(|p| {
        p.formats
            .iter()
            .any(|f| f == "FORMAT_NCHW" || f == "FORMAT_NCDHW")
    });
    let role = |p: &opdef::ParamDef| {
        let n = p.name.to_ascii_lowercase();
        // A numbered operand (`smooth_scale1`, `scales2`: one per output of a two-output quant) has
        // the role of its name without the number.
        let bare = n.trim_end_matches(|c: char| c.is_ascii_digit());
        if reduced && REDUCED_GRADS.contains(&n.as_str()) {
            Role::ReducedGrad
        } else if AXES.contains(&n.as_str()) {
            Role::Axis
        } else if SCALARS.contains(&n.as_str()) || p.value_depend {
            Role::Scalar
        } else if PER_CHANNEL.contains(&n.as_str())
            || (bare.len() < n.len() && PER_CHANNEL.contains(&bare))
        {
            Role::PerChannel
        } else if n.contains("per_token") {
            Role::PerToken
        } else {
            Role::Main
        }
    };
    let main_name = def
        .inputs
        .iter()
        .find(|p| role(p) == Role::Main)
        .map(|p| p.name.clone());
    let main: Vec<u64> = main_name
        .as_ref()
        .and_then(|n| shapes.get(n).cloned())
        .unwrap_or_else(|| default.map_or(DEFAULT_SHAPE.to_vec(), |d| d.0.clone()));
    let main_note = |name: &str| (!shapes.contains_key(name)).then(|| default_note(default));
    let mut inputs = vec![];
    let has_list = def
        .inputs
        .iter()
        .any(|p| p.param_type == opdef::ParamType::Dynamic);
    for (p, (name, dtype)) in def.inputs.iter().zip(&op.inputs) {
        let mut t = Tensor {
            name: name.clone(),
            dtype: *dtype,
            shape: main.clone(),
            values: None,
            range: None,
            data: None,
            guess: None,
            list: None,
        };
        match role(p) {
            Role::Main => {
                t.guess = main_note(name).filter(|_| main_name.as_deref() == Some(name.as_str()))
            }
            // A group norm's channels are axis 1 (NCHW), not the last.
            Role::PerChannel if group_norm && main.len() >= 2 => {
                t.shape = vec![main[1]];
                t.guess = Some(format!(
                    "guess: `{name}` taken as per-channel, one value per channel (axis 1, as a group norm's tiling reads C)"
                ));
            }
            Role::PerChannel if channel_first && main.len() >= 4 => {
                t.shape = vec![main[1]];
                t.guess = Some(format!(
                    "guess: `{name}` taken as per-channel, one value per channel (axis 1: the OpDef declares the main input channel-first)"
                ));
            }
            Role::PerChannel => {
                t.shape = vec![*main.last().unwrap_or(&1)];
                t.guess = Some(format!(
                    "guess: `{name}` taken as per-channel, one value per element of the last axis"
                ));
            }
            Role::PerToken if main.len() >= 2 => {
                t.shape = main[..main.len() - 1].to_vec();
                t.guess = Some(format!(
                    "guess: `{name}` taken as one value per token, each row of the main input"
                ));
            }
            Role::PerToken => {}
            Role::Scalar => {
                t.shape = vec![];
                t.guess = Some(if p.value_depend {
                    format!(
                        "guess: `{name}` is value-dependent (the tiling reads its data): one number; pin it with `values`"
                    )
                } else {
                    format!("guess: `{name}` taken as a scalar operand")
                });
            }
            Role::ReducedGrad if scalar_grad => {
                t.shape = vec![];
                t.guess = Some(format!(
                    "guess: `{name}` is the gradient of the loss reduced to one number (reduction \"mean\" / \"sum\"): a scalar, as the op's tiling function refused it with the main input's shape"
                ));
            }
            Role::ReducedGrad => {
                t.guess = Some(format!(
                    "guess: `{name}` is the gradient of a reduced loss (reduction \"mean\" / \"sum\") taken with the main input's shape, as the kernel reads it element-wise; make it `[]` if the op takes one number"
                ));
            }
            Role::Axis => {
                t.shape = vec![1];
                if !dtype.is_float() {
                    t.values = Some(format!("[{}]", main.len().saturating_sub(1)));
                }
                t.guess = Some(format!(
                    "guess: `{name}` taken as the axis to work along, the last one"
                ));
            }
        }
        if p.param_type == opdef::ParamType::Dynamic {
            // A list's tensors are operands like the main one (a per-channel or scalar guess from the
            // name does not hold for a list: foreach_lerp_list's `weight`).
            if t.shape != main {
                t.shape = main.clone();
                t.guess = None;
            }
            t.list = Some(list_note(name));
        } else if has_list && name.ends_with("scalars") {
            // One value per tensor of the op's lists (the foreach ops' `scalars`).
            t.shape = vec![LIST_TENSORS as u64];
            t.guess = Some(format!(
                "guess: `{name}` taken as one value per tensor of the lists ({LIST_TENSORS})"
            ));
        }
        if let Some(s) = shapes.get(name) {
            t.shape = s.clone();
            t.guess = None;
        }
        inputs.push(t);
    }
    index_operands(def, &main, shapes, &mut inputs);
    class_label_operands(def, &main, shapes, &mut inputs);
    slice_operands(&main, shapes, &mut inputs);
    strided_view_operands(&main, shapes, &mut inputs);
    outer_product_operands(def, &main, shapes, &mut inputs);
    embedding_grad_operands(def, &main, shapes, &mut inputs);
    let padded = padding_operands(def, &main, shapes, &mut inputs);
    batch_count_operands(shapes, &mut inputs);
    token_count_operands(shapes, &mut inputs);
    group_statistics_operands(def, &main, shapes, &mut inputs);
    modulation_operands(def, &main, shapes, &mut inputs);
    first_axis_operands(def, &main, shapes, &mut inputs);
    positive_definite_operand(def, &mut inputs);
    counted_operands(def, shapes, &mut inputs);
    region_operands(&mut inputs);
    // A range: start, end (limit) and step (delta) pinned so that the output has a known length.
    let find = |names: &[&str]| {
        inputs.iter().position(|t: &Tensor| {
            names.contains(&t.name.to_ascii_lowercase().as_str()) && t.shape.is_empty()
        })
    };
    let range = match (
        find(&["start"]),
        find(&["end", "limit"]),
        find(&["step", "delta"]),
    ) {
        (Some(a), Some(b), Some(c)) if def.inputs.len() == 3 => {
            let n = main.iter().product::<u64>();
            for (i, v) in [(a, 0u64), (b, n), (c, 1)] {
                inputs[i].values = Some(format!("[{v}]"));
                inputs[i].guess = Some(format!(
                    "guess: a range from 0 to {n} by 1, pinned so the output has {n} elements"
                ));
            }
            Some(vec![n])
        }
        _ => None,
    };
    let mut outputs = vec![];
    for (k, (name, dtype)) in op.outputs.iter().enumerate() {
        let n = name.to_ascii_lowercase();
        let dynamic = def
            .outputs
            .get(k)
            .is_some_and(|p| p.param_type == opdef::ParamType::Dynamic);
        let mut t = Tensor {
            name: name.clone(),
            dtype: *dtype,
            shape: main.clone(),
            values: None,
            range: None,
            data: None,
            guess: Some("guess: the main input's shape".into()),
            list: dynamic.then(|| list_note(name)),
        };
        if let Some(same) = inputs.iter().find(|i| i.name == *name) {
            // An in-place update (the same name in and out) has the input's shape.
            t.shape = same.shape.clone();
            t.guess = None;
            t.list = same.list.clone();
        } else if let Some(r) = &range {
            t.shape = r.clone();
            t.guess = Some("guess: the length of the pinned range".into());
        } else if let Some(delta) = &padded {
            t.shape = main
                .iter()
                .zip(delta)
                .map(|(&d, &g)| (d as i64 + g).max(0) as u64)
                .collect();
            t.guess = Some(format!(
                "guess: the main input's shape {} {PAD} on each side of each padded axis (the pinned paddings)",
                if delta.iter().any(|&g| g < 0) {
                    "less"
                } else {
                    "with"
                }
            ));
        } else if PER_ROW_OUTPUTS.contains(&n.as_str()) && main.len() >= 2 {
            let mut s = main.clone();
            *s.last_mut().unwrap() = 1;
            t.shape = s;
            t.guess = Some(format!(
                "guess: `{name}` taken as one value per row (the last axis reduced)"
            ));
        }
        if let Some(s) = shapes.get(name) {
            t.shape = s.clone();
            t.guess = None;
        }
        outputs.push(t);
    }
    ctc_operands(def, &main, shapes, &mut inputs, &mut outputs);
    (inputs, outputs)
}

/// The kernel entry's tensor parameters name the OpDef's tensors but in another order than the one
/// the kernel is called with (inputs, then outputs, in declaration order): the kernel then reads and
/// writes the wrong tensors, here and on the device. ops-math sort_v2 declares `dstIndex` as an
/// Input after the Output `y`, while its kernel takes `(x, index, y, dstIndex)`: its `y` file held
/// the indices. Names are compared without case and `_`; None when they are not the same set.
pub(super) fn param_order_mismatch(op: &FoundOp) -> Option<String> {
    op.opdef.as_ref()?;
    let norm = |n: &str| n.to_ascii_lowercase().replace('_', "");
    let mut called: Vec<String> = vec![];
    for (n, _) in op.inputs.iter().chain(&op.outputs) {
        if !called.contains(&norm(n)) {
            called.push(norm(n));
        }
    }
    let params: Vec<String> = op
        .params
        .iter()
        .map(|p| norm(p))
        .filter(|p| p != "workspace" && p != "tiling")
        .collect();
    let (mut a, mut b) = (called.clone(), params.clone());
    a.sort();
    b.sort();
    if a != b || called == params {
        return None;
    }
    let names = |v: &[(String, crate::manifest::DType)]| {
        v.iter()
            .map(|(n, _)| n.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    };
    Some(format!(
        "warning: the kernel's parameters ({}) name the OpDef's tensors in another order than it is called with, inputs ({}) then outputs ({}): each parameter gets the tensor at its position, so the kernel reads and writes the wrong tensors (on the device too); declare them in the kernel's order in the OpDef, or the kernel's parameters in the OpDef's",
        op.params
            .iter()
            .filter(|p| !matches!(norm(p).as_str(), "workspace" | "tiling"))
            .cloned()
            .collect::<Vec<_>>()
            .join(", "),
        names(&op.inputs),
        names(&op.outputs)
    ))
}

/// The op's host code reads attrs (`GetAttrPointer`) while its OpDef declares none: the tiling then
/// finds no attr, here and on the device, and refuses or reads through a null pointer. ops-math
/// cross's tiling reads attr 0 (`dim`, which its op_api passes) and stops at "dimPtr is nullptr",
/// as its OpDef has no `Attr("dim")`. The twin appends the manifest's attrs the OpDef does not name
/// after the OpDef's (init writes those of the op's tiling test when it takes one), so init says so.
pub(super) fn attrs_read_but_undeclared(root: &Path, op: &FoundOp) -> Option<String> {
    let def = op.opdef.as_ref()?;
    if !def.attrs.is_empty() {
        return None;
    }
    let file = op.host.iter().find(|f| {
        !f.ends_with("_def.cpp")
            && std::fs::read_to_string(root.join(f)).is_ok_and(|t| t.contains("GetAttrPointer"))
    })?;
    Some(format!(
        "warning: {file} reads attrs (GetAttrPointer) but the OpDef of `{}` declares none: only a caller that passes them (an aclnn layer's OP_ATTR_NAMES) gets past the tiling; the twin takes them from the manifest's `[[op.attr]]` list in its order (declaring them in the OpDef with this->Attr(\"name\") makes them part of the op)",
        def.op_type
    ))
}

/// Integer operands holding positions along an axis of the main input (gather / scatter indices);
/// a name ending in `_index` / `_indices` too (ops-nn scatter_add_with_sorted's `sorted_index`).
pub(super) const INDICES: &[&str] = &["index", "indices", "idx", "indexes"];

/// Whether `name` (any case) names an index operand (INDICES, or `<x>_index`, `<x>_indices`,
/// `<x>_idx`), numbered or not (ops-nn's chamfer_distance_grad: `idx1`, `idx2`).
pub(super) fn is_index_name(name: &str) -> bool {
    let n = name.to_ascii_lowercase();
    let n = n.trim_end_matches(|c: char| c.is_ascii_digit());
    INDICES.contains(&n) || n.ends_with("_index") || n.ends_with("_indices") || n.ends_with("_idx")
}

/// Names the rows added into `var` by a scatter take besides `updates`: ops-nn
/// scatter_add_with_sorted calls them `value` (which SCALARS would make one number). Its tiling
/// refused a 0-D `value`: "the dimNum of input must equal the dimNum of updates"
/// (scatter_add_with_sorted_tiling.cpp, the rank check after the dtype checks).
pub(super) const UPDATES: &[&str] = &["updates", "value", "values", "src"];

/// Values for String attrs without a default, by the names the frameworks give them (written with
/// their quotes): an empty string is refused by every op seen (ops-nn's smooth_l1_loss_grad_v2:
/// "Invalid reduction: "; max_pool3_d: "not support padmode ", which takes CALCULATED, SAME, VALID).
pub(super) const STRING_ATTRS: &[(&str, &str)] = &[
    ("reduction", "\"mean\""),
    ("padding", "\"VALID\""),
    ("approximate", "\"none\""),
];

/// The value init writes for an Int attr that has no default (`attr_value`); the index guesses below
/// take a `dim` / `axis` so written as the axis they index.
pub(super) const REQUIRED_INT_ATTR: i64 = 1;

/// The length of the 1-D index of an `Index*` op (torch's index_fill, index_select, index_copy: one
/// position per slice along `dim`), within the axis.
pub(super) const INDEX_LIST_LEN: u64 = 64;

/// Gives an integer index operand (INDICES) data within the axis it indexes, [0, size): along the
/// `dim` / `axis` attr's default, else the first axis. Generated over the integer default
/// [-100, 100) such an index reads and writes out of bounds (gather_elements_v3 and
/// inplace_scatter_add faulted so). An index of rows beside `var` and `updates` (scatter-add, index
/// add: `var[indices[i]] += updates[i]`) is 1-D, one per row of `updates`.
pub(super) fn index_operands(
    def: &opdef::OpDef,
    main: &[u64],
    shapes: &BTreeMap<String, Vec<u64>>,
    inputs: &mut [Tensor],
) {
    if main.is_empty() {
        return;
    }
    let has = |n: &str| inputs.iter().any(|t| t.name.eq_ignore_ascii_case(n));
    let has_index = inputs
        .iter()
        .any(|t| is_index_name(&t.name) && !t.dtype.is_float());
    let rows = has("var") && has_index && UPDATES.iter().any(|u| has(u));
    let axis = def
        .attrs
        .iter()
        .filter(|a| a.name.eq_ignore_ascii_case("dim") || a.name.eq_ignore_ascii_case("axis"))
        .find_map(|a| match a.default {
            Some(opdef::AttrDefault::Int(d)) => Some(d),
            // Within the main input's rank only: a 1-D input keeps axis 0, as before.
            None if a.kind == opdef::AttrKind::Int && REQUIRED_INT_ATTR < main.len() as i64 => {
                Some(REQUIRED_INT_ATTR)
            }
            _ => None,
        })
        .unwrap_or(0);
    // torch's index_fill / index_select / index_copy take a 1-D index, one position per slice along
    // `dim` (init gave ops-nn's index_fill an index of the main shape, [48, 16384]).
    let index_list = def.op_type.starts_with("Index") && !rows;
    let rank = main.len() as i64;
    let axis = if rows {
        0
    } else if (-rank..rank).contains(&axis) {
        axis.rem_euclid(rank) as usize
    } else {
        return;
    };
    let size = main[axis];
    let var_dtype = inputs
        .iter()
        .find(|t| t.name.eq_ignore_ascii_case("var"))
        .map(|t| t.dtype);
    let mut sorted_rows = None;
    for t in inputs.iter_mut() {
        let n = t.name.to_ascii_lowercase();
        if rows && UPDATES.contains(&n.as_str()) && Some(t.dtype) == var_dtype {
            if !shapes.contains_key(&t.name) && t.shape != main {
                t.shape = main.to_vec();
                t.guess = Some(format!(
                    "guess: `{}` holds the rows added into `var`, one per index: `var`'s shape",
                    t.name
                ));
            }
            continue;
        }
        if !is_index_name(&t.name) || t.dtype.is_float() || t.data_decided() {
            continue;
        }
        if rows && !shapes.contains_key(&t.name) {
            t.shape = vec![main[0]];
        }
        if index_list && !shapes.contains_key(&t.name) {
            t.shape = vec![INDEX_LIST_LEN.min(size)];
        }
        // A sorted index (`sorted_*`): its data must be ascending, which generated data is not;
        // pinned to an ascending run over [0, size), a few rows repeated.
        let count: u64 = t.shape.iter().product();
        if n.starts_with("sorted") && count > 0 && count <= MAX_PINNED {
            let values: Vec<String> = (0..count)
                .map(|i| (i * size / count.max(1) / 2 * 2).min(size - 1).to_string())
                .collect();
            t.values = Some(format!("[{}]", values.join(", ")));
            t.range = None;
            t.guess = Some(format!(
                "guess: `{}` holds ascending {INDEX_GUESS} {axis} ({size} long), pairs repeated: pinned, as generated data is not sorted",
                t.name
            ));
            sorted_rows = Some(count);
            continue;
        }
        t.range = Some(format!("[0.0, {size}.0]"));
        t.guess = Some(format!(
            "guess: `{}` holds {INDEX_GUESS} {axis} ({size} long){}: data in [0, {size})",
            t.name,
            if rows {
                ", one per row of `updates`"
            } else if index_list {
                ", a 1-D list as an Index* op takes"
            } else {
                ""
            }
        ));
    }
    // Beside a sorted index, `pos` holds where each sorted entry came from (the rows of the
    // updates): random data read far outside them. Pinned to the identity, as the pinned index is
    // already in order.
    if let Some(count) = sorted_rows {
        for t in inputs.iter_mut() {
            if !t.name.eq_ignore_ascii_case("pos")
                || t.dtype.is_float()
                || shapes.contains_key(&t.name)
            {
                continue;
            }
            t.shape = vec![count];
            let values: Vec<String> = (0..count).map(|i| i.to_string()).collect();
            t.values = Some(format!("[{}]", values.join(", ")));
            t.range = None;
            t.guess = Some(format!(
                "guess: `{}` holds the original position of each sorted index: the identity 0..{count}, as the pinned index is in order",
                t.name
            ));
        }
    }
}

/// Names of a classification loss's integer labels.
pub(super) const CLASS_LABELS: &[&str] = &["target", "targets", "label", "labels"];

/// A classification loss (an op with an `ignore_index` attr: cross entropy, NLL) takes one class
/// label per row of its [.., C] scores: an integer `target` / `label` of the main shape without its
/// last axis, with data in [0, C). With the main shape (and generated data) ops-nn's
/// cross_entropy_loss InferShape refused "invalid shape rank: target: 2" and its kernel read the
/// per-class `weight` at negative labels.
pub(super) fn class_label_operands(
    def: &opdef::OpDef,
    main: &[u64],
    shapes: &BTreeMap<String, Vec<u64>>,
    inputs: &mut [Tensor],
) {
    let classifies = def
        .attrs
        .iter()
        .any(|a| a.name.eq_ignore_ascii_case("ignore_index"));
    let Some((&classes, rows)) = main.split_last() else {
        return;
    };
    if !classifies || rows.is_empty() {
        return;
    }
    for t in inputs.iter_mut() {
        let n = t.name.to_ascii_lowercase();
        if !CLASS_LABELS.contains(&n.as_str())
            || t.dtype.is_float()
            || shapes.contains_key(&t.name)
            || t.data_decided()
        {
            continue;
        }
        t.shape = rows.to_vec();
        t.range = Some(format!("[0.0, {classes}.0]"));
        t.guess = Some(format!(
            "guess: `{}` holds one class label per row of the scores ({classes} classes, the last axis): data in [0, {classes})",
            t.name
        ));
    }
}

/// The position of the integer operand named (case-insensitively) one of `names` whose shape no
/// `--shape` gave.
fn integer_operand(
    names: &[&str],
    shapes: &BTreeMap<String, Vec<u64>>,
    inputs: &[Tensor],
) -> Option<usize> {
    inputs.iter().position(|t| {
        names.contains(&t.name.to_ascii_lowercase().as_str())
            && !t.dtype.is_float()
            && !shapes.contains_key(&t.name)
    })
}

/// `values` as a manifest writes them: `[a, b, c]`.
fn value_list(v: &[u64]) -> String {
    format!(
        "[{}]",
        v.iter().map(u64::to_string).collect::<Vec<_>>().join(", ")
    )
}

/// Names of a slice's start offsets and lengths (integer operands, one per axis of the main input).
pub(super) const SLICE_BEGINS: &[&str] = &["begin", "begins", "offsets"];
pub(super) const SLICE_SIZES: &[&str] = &["size", "sizes"];

/// A slice (an integer `begin` and `size` beside the main input: ops-math slice_v3): each is 1-D,
/// one value per axis of the main input, pinned to a window inside it, a quarter in and half as
/// long on each axis. As 0-D value-dependent operands with random data the op's InferShape refused
/// them ("sizeTensor must be 1-D", slice_v3_infershape.cpp) and the slice read anywhere.
pub(super) fn slice_operands(
    main: &[u64],
    shapes: &BTreeMap<String, Vec<u64>>,
    inputs: &mut [Tensor],
) {
    let (Some(b), Some(s)) = (
        integer_operand(SLICE_BEGINS, shapes, inputs),
        integer_operand(SLICE_SIZES, shapes, inputs),
    ) else {
        return;
    };
    if main.is_empty() || main.contains(&0) {
        return;
    }
    let begins: Vec<u64> = main.iter().map(|&d| d / 4).collect();
    let sizes: Vec<u64> = main.iter().map(|&d| (d / 2).max(1)).collect();
    for (k, v, what) in [(b, begins, "start"), (s, sizes, "length")] {
        let t = &mut inputs[k];
        t.shape = vec![main.len() as u64];
        t.values = Some(value_list(&v));
        t.range = None;
        t.guess = Some(format!(
            "guess: `{}` holds the slice's {what} on each of the {} axes: a window a quarter in and half as long; pin the slice you tune for",
            t.name,
            main.len()
        ));
    }
}

/// Names of a strided view's operands (torch's `as_strided(input, size, stride, storage_offset)`).
pub(super) const VIEW_STRIDES: &[&str] = &["stride", "strides"];
pub(super) const VIEW_OFFSETS: &[&str] = &["storage_offset", "offset"];

/// A strided view (integer `size` and `stride` beside the main input, an optional `storage_offset`:
/// ops-math as_strided): `size` and `stride` pinned to the main input's shape and contiguous strides
/// with the last two axes swapped, and the offset to 0: the whole input seen transposed, a view that
/// gathers (an identity view would make the op a copy, and the check could not tell it from one).
/// As 0-D value-dependent operands with random data the tiling refused them ("storage_offset must be
/// non-negative", as_strided_tiling.cpp) and a random view reads anywhere.
pub(super) fn strided_view_operands(
    main: &[u64],
    shapes: &BTreeMap<String, Vec<u64>>,
    inputs: &mut [Tensor],
) {
    let (Some(size), Some(stride)) = (
        integer_operand(SLICE_SIZES, shapes, inputs),
        integer_operand(VIEW_STRIDES, shapes, inputs),
    ) else {
        return;
    };
    if main.is_empty()
        || main.contains(&0)
        || integer_operand(SLICE_BEGINS, shapes, inputs).is_some()
    {
        return;
    }
    let mut strides = vec![1u64; main.len()];
    for i in (0..main.len().saturating_sub(1)).rev() {
        strides[i] = strides[i + 1] * main[i + 1];
    }
    let mut sizes = main.to_vec();
    let n = main.len();
    let what = if n >= 2 {
        sizes.swap(n - 2, n - 1);
        strides.swap(n - 2, n - 1);
        [
            "the main input's shape with its last two axes swapped",
            "the main input's strides with its last two axes swapped",
        ]
    } else {
        [
            "the main input's shape",
            "the main input's contiguous strides",
        ]
    };
    for (k, v, what) in [(size, sizes, what[0]), (stride, strides, what[1])] {
        let t = &mut inputs[k];
        t.shape = vec![main.len() as u64];
        t.values = Some(value_list(&v));
        t.range = None;
        t.guess = Some(format!(
            "guess: `{}` of a strided view: {what} (a transposing view of the whole input); pin the view you tune for",
            t.name
        ));
    }
    if let Some(k) = integer_operand(VIEW_OFFSETS, shapes, inputs) {
        let t = &mut inputs[k];
        if t.shape.iter().product::<u64>() != 1 {
            t.shape = vec![];
        }
        t.values = Some("[0]".into());
        t.range = None;
        t.guess = Some(format!(
            "guess: `{}` of a strided view: 0, the view starts at the input's first element",
            t.name
        ));
    }
}

/// Integer operands holding pad widths (ops-math circular_pad, pad_v3, mirror_pad).
pub(super) const PADDINGS: &[&str] = &["paddings", "pads", "padding"];
/// The pad width init pins on each side of each axis.
pub(super) const PAD: u64 = 1;

/// Gives an integer paddings operand (PADDINGS) two widths per axis of the main input, and returns
/// how much each axis of the output grows (shrinks for a pad's gradient, whose main input is the
/// padded one); None when the op has no such operand. Each spatial axis (all of a 1-D or 2-D input,
/// those after N and C of a longer one) longer than 2 PAD takes PAD on each side, the others none
/// (ops-math's pad_v3_grad_replicate wants x 4-D and pads its H and W). The widths are pairs per axis in axis
/// order, as CANN's pad ops read them (`[before_0, after_0, before_1, ...]`, TF's layout); where
/// every axis takes PAD the order does not matter. Generated data held random widths in [-100, 100)
/// over the main shape, which the tiling compared with an output of the main shape (circular_pad:
/// "output's shape error.").
pub(super) fn padding_operands(
    def: &opdef::OpDef,
    main: &[u64],
    shapes: &BTreeMap<String, Vec<u64>>,
    inputs: &mut [Tensor],
) -> Option<Vec<i64>> {
    if main.is_empty() {
        return None;
    }
    // An input of three or more axes is (N, C, spatial...): only the spatial axes are padded, as
    // torch's reflect / replicate / circular padding does, and as ops-math's pad_v3_grad_replicate
    // kernel writes its output (N and C as the input's).
    let spatial_from = if main.len() >= 3 { 2 } else { 0 };
    let widths: Vec<u64> = main
        .iter()
        .enumerate()
        .map(|(i, &d)| {
            if i >= spatial_from && d > 2 * PAD {
                PAD
            } else {
                0
            }
        })
        .collect();
    let padded_axes = widths.iter().filter(|&&w| w > 0).count();
    let mut found = false;
    for t in inputs.iter_mut() {
        if !PADDINGS.contains(&t.name.to_ascii_lowercase().as_str())
            || t.dtype.is_float()
            || shapes.contains_key(&t.name)
        {
            continue;
        }
        let pairs: Vec<String> = widths
            .iter()
            .flat_map(|w| [w.to_string(), w.to_string()])
            .collect();
        t.shape = vec![pairs.len() as u64];
        t.values = Some(format!("[{}]", pairs.join(", ")));
        t.range = None;
        let which = if padded_axes == main.len() {
            format!("each of the {} axes", main.len())
        } else {
            format!(
                "each of the {padded_axes} spatial axes (of {}; pairs per axis in axis order)",
                main.len()
            )
        };
        t.guess = Some(format!(
            "guess: `{}` holds a width of {PAD} before and after {which}: the output is {} by {} on those axes",
            t.name,
            if is_grad(def) { "smaller" } else { "larger" },
            2 * PAD
        ));
        found = true;
    }
    let sign = if is_grad(def) { -1 } else { 1 };
    found.then(|| widths.iter().map(|&w| sign * 2 * w as i64).collect())
}

/// The value the manifest gives the count attr `name` (num_groups, num_weights) when the op declares
/// it: its default where that is a positive integer, else 1 (`attr_value` writes a required attr
/// without a default as 1).
pub(super) fn count_attr(def: &opdef::OpDef, name: &str) -> Option<u64> {
    let attr = def
        .attrs
        .iter()
        .find(|a| a.name.eq_ignore_ascii_case(name))?;
    Some(match attr.default {
        Some(opdef::AttrDefault::Int(n)) if n > 0 => n as u64,
        _ => 1,
    })
}

/// A group norm's backward (an op with a `num_groups` attr: ops-nn group_norm_swish_grad) takes the
/// forward's statistics as inputs, one per sample and group: `[N, num_groups]`. With the main shape
/// its tiling refused ("group_num shuold be same with mean.shape[1]"; the op then set block_dim 0).
pub(super) fn group_statistics_operands(
    def: &opdef::OpDef,
    main: &[u64],
    shapes: &BTreeMap<String, Vec<u64>>,
    inputs: &mut [Tensor],
) {
    let Some(g) = count_attr(def, "num_groups") else {
        return;
    };
    if main.len() < 2 {
        return;
    }
    for t in inputs.iter_mut() {
        if !PER_ROW_OUTPUTS.contains(&t.name.to_ascii_lowercase().as_str())
            || shapes.contains_key(&t.name)
        {
            continue;
        }
        t.shape = vec![main[0], g];
        t.guess = Some(format!(
            "guess: `{}` holds the forward's statistics, one per sample and group (num_groups = {g})",
            t.name
        ));
    }
}

/// Gives the integer `<base>_batch_cnt` operands (ops-math stack_ball_query: how many of the stacked
/// elements of `<base>` belong to each batch) the same number of batches B, the shortest axis among
/// their bases, each batch of `<base>` holding (its shortest axis) / B, so that the counts stay within
/// whichever axis the op stacks along. Generated data held random counts in [-100, 100), and the kernel
/// copied a negative length ("UB access out of bounds: bytes [12288, 8589946816)"). With B that large,
/// a base whose shortest axis is B has one element per batch: stack_ball_query's InferShape sizes its
/// output by the number of batches, while its kernel writes one row per center, and the two agree then.
pub(super) fn batch_count_operands(shapes: &BTreeMap<String, Vec<u64>>, inputs: &mut [Tensor]) {
    let shortest_of = |inputs: &[Tensor], base: &str| {
        inputs
            .iter()
            .find(|b| b.name.to_ascii_lowercase() == base)
            .map(|b| b.shape.iter().copied().min().unwrap_or(1).max(1))
    };
    let counted: Vec<(usize, String, u64)> = inputs
        .iter()
        .enumerate()
        .filter(|(_, t)| !t.dtype.is_float() && !shapes.contains_key(&t.name))
        .filter_map(|(k, t)| {
            let base = t
                .name
                .to_ascii_lowercase()
                .strip_suffix("_batch_cnt")?
                .to_string();
            let shortest = shortest_of(inputs, &base)?;
            Some((k, base, shortest))
        })
        .collect();
    let Some(batches) = counted.iter().map(|c| c.2).min() else {
        return;
    };
    for (k, base, shortest) in counted {
        let each = shortest / batches;
        let t = &mut inputs[k];
        t.shape = vec![batches];
        t.values = Some(format!(
            "[{}]",
            vec![each.to_string(); batches as usize].join(", ")
        ));
        t.range = None;
        t.guess = Some(format!(
            "guess: `{}` counts the stacked elements of `{base}` in each of {batches} batches: {each} each, within its shortest axis ({shortest})",
            t.name
        ));
    }
}

/// Gives an integer operand that counts tokens (`expert_token_num_per_rank`: ops-transformer's
/// moe_re_routing, how many of its token rows each rank sends each expert) counts that add up to the
/// first input's rows (`data = "counts"`). Random integers in the default range made the kernel copy
/// from a negative offset ("GM read out of bounds: bytes [-2752512, ...) of 'tokens'").
pub(super) fn token_count_operands(shapes: &BTreeMap<String, Vec<u64>>, inputs: &mut [Tensor]) {
    for t in inputs.iter_mut().skip(1) {
        let name = t.name.to_ascii_lowercase().replace('_', "");
        let counts_tokens = [
            "tokennum",
            "tokencount",
            "tokenscount",
            "numtokens",
            "tokensnum",
        ]
        .iter()
        .any(|w| name.contains(w));
        if !counts_tokens
            || t.dtype.is_float()
            || t.values.is_some()
            || shapes.contains_key(&t.name)
        {
            continue;
        }
        t.data = Some("counts".to_string());
        t.range = None;
        t.guess = Some(format!(
            "guess: `{}` counts the first input's rows (tokens): random counts that add up to them",
            t.name
        ));
    }
}

/// Whether an OpDef is a gradient op (its type ends in `Grad`, possibly versioned: PadV3Grad).
pub(super) fn is_grad(def: &opdef::OpDef) -> bool {
    let t = def.op_type.to_ascii_lowercase();
    // or `Grad` as a word of a CamelCase type followed by another (PadV3GradReplicate)
    let camel = def.op_type.match_indices("Grad").any(|(at, _)| {
        def.op_type[at + 4..]
            .chars()
            .next()
            .is_none_or(|c| c.is_ascii_uppercase() || c.is_ascii_digit())
    });
    t.ends_with("grad") || t.contains("grad_") || t.contains("gradv") || camel
}

/// An outer product added to a matrix (torch.addr: `beta * x1 + alpha * (x2 outer x3)`, ops-math
/// addr_v2): the two operands after the matrix are vectors, as long as its rows and its columns, and
/// `beta` and `alpha` one number each. With the main shape for all (and `beta` per-channel) the tiling
/// refused: "AddrV2: x2 must be 1D".
pub(super) fn outer_product_operands(
    def: &opdef::OpDef,
    main: &[u64],
    shapes: &BTreeMap<String, Vec<u64>>,
    inputs: &mut [Tensor],
) {
    // The type itself, not a prefix: AddRmsNormDynamicQuantV2 starts with "addr" too, and its `x2`
    // and `gamma` were made vectors and `beta` a scalar.
    if version_less(&def.op_type) != "addr" || main.len() != 2 {
        return;
    }
    let mut vectors = 0;
    for (k, t) in inputs.iter_mut().enumerate() {
        if shapes.contains_key(&t.name) {
            continue;
        }
        let n = t.name.to_ascii_lowercase();
        if n == "alpha" || n == "beta" {
            t.shape = vec![];
            t.guess = Some(format!(
                "guess: `{}` is the outer product's scale, one number",
                t.name
            ));
        } else if k > 0 && vectors < 2 {
            t.shape = vec![main[vectors]];
            t.guess = Some(format!(
                "guess: `{}` is the outer product's {} vector, as long as the matrix's {}",
                t.name,
                if vectors == 0 { "left" } else { "right" },
                if vectors == 0 { "rows" } else { "columns" }
            ));
            vectors += 1;
        }
    }
}

/// An embedding's backward (an op with a `num_weights` attr: ops-nn embedding_dense_grad_v2): the
/// integer index operands hold one row of the table per row of the gradient, so they have the
/// gradient's shape without its last axis; `*indices` point into the table, [0, num_weights), and
/// the other index operands (`pos_idx`) at rows of the gradient. Generated over the main shape with
/// data in [-100, 100) the kernel wrote at byte 236396335443456 of `grad`.
pub(super) fn embedding_grad_operands(
    def: &opdef::OpDef,
    main: &[u64],
    shapes: &BTreeMap<String, Vec<u64>>,
    inputs: &mut [Tensor],
) {
    let Some(table) = count_attr(def, "num_weights") else {
        return;
    };
    if main.len() < 2 {
        return;
    }
    let rows_shape = main[..main.len() - 1].to_vec();
    let rows: u64 = rows_shape.iter().product();
    for t in inputs.iter_mut() {
        let n = t.name.to_ascii_lowercase();
        if t.dtype.is_float()
            || shapes.contains_key(&t.name)
            || !(n.contains("indices") || n.contains("idx"))
        {
            continue;
        }
        t.shape = rows_shape.clone();
        let (hi, what) = if n.contains("indices") {
            (table, format!("rows of the table (num_weights = {table})"))
        } else {
            (rows, format!("rows of the gradient ({rows})"))
        };
        t.range = Some(format!("[0.0, {hi}.0]"));
        t.guess = Some(format!(
            "guess: `{}` holds one position per row of the gradient, pointing at {what}: data in [0, {hi})",
            t.name
        ));
    }
}

/// The comment beside a main input's default shape: the plain default, or the smaller one taken
/// because the op's tiling function refused the larger (a guess, with the refusal).
pub(super) fn default_note(default: Option<&(Vec<u64>, String)>) -> String {
    match default {
        None => "a default: give the shape you tune for (init --shape NAME=D0xD1)".to_string(),
        Some((_, note)) => note.clone(),
    }
}

/// What refused a shape, and why, from `Fitting::refusal`'s answer: the op's InferShape (its answer
/// then says so first) or else its tiling function.
pub(super) fn refuser(why: &str) -> (&'static str, &str) {
    match why.strip_prefix(INFER_SHAPE_REFUSED) {
        Some(rest) => ("InferShape", rest),
        None => ("tiling function", why),
    }
}

/// Words the `# guess:` notes share where init drew index data below an axis it picked, and where it
/// gave an attr without a default a placeholder (required, or optional with none written): what a
/// valid call would give instead (`Fitting::guesses_a_call_settles` looks for them).
pub(super) const INDEX_GUESS: &str = "positions along axis";
pub(super) const ATTR_REQUIRED_GUESS: &str = "required, no default";
pub(super) const ATTR_UNSET_GUESS: &str = "no default written";

/// How `Fitting::refusal` begins a refusal by the op's InferShape.
pub(super) const INFER_SHAPE_REFUSED: &str = "its InferShape refused: ";

/// The comment beside a smaller default that the op's tiling function took, with its refusal of the
/// larger one.
pub(super) fn smaller_note(why: &str) -> String {
    let refused = if why.starts_with(TOO_LARGE) {
        format!("at which {why}")
    } else {
        let (who, why) = refuser(why);
        format!("which the op's {who} refused ({why})")
    };
    format!(
        "guess: a default smaller than {DEFAULT_SHAPE:?}, {refused}; give the shape you tune for (init --shape NAME=D0xD1)"
    )
}

/// The comment beside a smaller default at which the kernel no longer overflows the UB (`why`: the
/// overflow at the default).
pub(super) fn overflow_note(why: &str) -> String {
    format!(
        "guess: a default smaller than {DEFAULT_SHAPE:?}, at which the kernel overflowed the UB ({why}); give the shape you tune for (init --shape NAME=D0xD1)"
    )
}

/// The comment beside a smaller default whose first axis was then grown from `from` while the op's
/// tiling function took it.
pub(super) fn grown_note(why: &str, from: u64) -> String {
    let short = smaller_note(why);
    let head = short
        .strip_suffix("; give the shape you tune for (init --shape NAME=D0xD1)")
        .unwrap_or(&short);
    format!(
        "{head}; its first axis then doubled from {from} while the tiling took it, up to the default's element count; give the shape you tune for (init --shape NAME=D0xD1)"
    )
}

/// The start of the refusal `init` gives itself when an output the op's InferShape gives at a
/// default shape is too large: larger than a manifest may hold (`too_large_to_hold`), or than a twin
/// run finishes in a few seconds (`oversized_output`). A smaller default shape answers it.
pub(super) const TOO_LARGE: &str = "an output the op's InferShape gives is larger than";

pub(super) fn too_large_to_hold() -> String {
    format!("{TOO_LARGE} 4 GiB")
}

/// Elements at most in an output at a default shape: sixteen times the default's. ops-transformer's
/// moe_init_routing_quant takes its top-k from the default [48, 16384] `expert_idx` and its InferShape
/// gives `expanded_x` [16384, 16384] (268 M elements): init spent over 400 s running the op at it.
/// An im2col's unfolded columns (9 times the input) stay well inside.
pub(super) const OUTPUT_ELEMENTS_CAP: u64 = 16 * DEFAULT_ELEMENTS;

/// The refusal of a default shape at which an output holds more than OUTPUT_ELEMENTS_CAP elements.
pub(super) fn oversized_output(spec: &crate::manifest::OpSpec) -> Option<String> {
    let big = spec
        .outputs
        .iter()
        .find(|o| o.elems() > OUTPUT_ELEMENTS_CAP)?;
    Some(format!(
        "{TOO_LARGE} {OUTPUT_ELEMENTS_CAP} elements (`{}` {:?}: {} elements), which the twin would take minutes to run",
        big.name,
        big.shape,
        big.elems()
    ))
}

/// The default of a matmul's operands: square, so that A [M, K], B [K, N], a per-channel bias [N] and
/// C [M, N] agree whichever operand is transposed (the [48, 16384] default gives A and B different K).
pub(super) const MATMUL_SHAPE: [u64; 2] = [512, 512];

pub(super) fn matmul_note() -> String {
    format!(
        "guess: a matmul: operands square ({}x{}, M = K = N) so that they agree; give the shapes you tune for (init --shape a=MxK --shape b=KxN)",
        MATMUL_SHAPE[0], MATMUL_SHAPE[1]
    )
}

/// The default `x` of a modulation (MODULATE_OPS): batch, sequence, hidden size.
pub(super) const MODULATE_SHAPE: [u64; 3] = [8, 128, 1024];
/// Op types (lower case) of a transformer's adaptive-norm modulation, `y = x * (1 + scale) + shift`
/// with `x` [B, L, D] and `scale`, `shift` one row of D per sample ([B, D]). ops-nn modulate's tiling
/// reads the three axes of `x` without checking its rank (its aclnn layer checks it): with the 2-D
/// default its D was 0 and the kernel divided by it (SIGFPE).
pub(super) const MODULATE_OPS: &[&str] = &["modulate"];

pub(super) fn modulate_note() -> String {
    format!(
        "guess: a modulation takes x as [batch, sequence, hidden]: {MODULATE_SHAPE:?}; give the shape you tune for (init --shape x=BxLxD)"
    )
}

/// Whether `op` (by its OpDef type) is a modulation (MODULATE_OPS).
pub(super) fn is_modulate(op: &FoundOp) -> bool {
    op.opdef
        .as_ref()
        .is_some_and(|d| MODULATE_OPS.contains(&d.op_type.to_ascii_lowercase().as_str()))
}

/// A modulation's `scale` and `shift` (MODULATE_OPS): one row of the hidden size per sample.
pub(super) fn modulation_operands(
    def: &opdef::OpDef,
    main: &[u64],
    shapes: &BTreeMap<String, Vec<u64>>,
    inputs: &mut [Tensor],
) {
    if !MODULATE_OPS.contains(&def.op_type.to_ascii_lowercase().as_str()) || main.len() != 3 {
        return;
    }
    for t in inputs.iter_mut() {
        let n = t.name.to_ascii_lowercase();
        if (n != "scale" && n != "shift") || shapes.contains_key(&t.name) {
            continue;
        }
        t.shape = vec![main[0], main[2]];
        t.guess = Some(format!(
            "guess: `{}` holds one row of the hidden size per sample, [batch, hidden]",
            t.name
        ));
    }
}

/// The default of an op on square matrices (SQUARE_OPS): a batch of them.
pub(super) const SQUARE_SHAPE: [u64; 3] = [4, 16, 16];
/// Op types (lower case, without `V<n>`) that factor or invert square matrices: the last two axes of
/// their input are one matrix. ops-math cholesky takes the last axis as the matrix's size and read
/// past the default [48, 16384] ("DataCopyPad: GM read out of bounds").
pub(super) const SQUARE_OPS: &[&str] = &[
    "cholesky",
    "choleskyinverse",
    "matrixinverse",
    "matrixdeterminant",
    "logmatrixdeterminant",
    "logdet",
    "lu",
];

pub(super) fn square_note() -> String {
    format!(
        "guess: the op works on square matrices, the last two axes: a batch of {} {}x{}, small enough to pin a Cholesky input's values; give the shape you tune for (init --shape NAME=BxNxN)",
        SQUARE_SHAPE[0], SQUARE_SHAPE[1], SQUARE_SHAPE[2]
    )
}

/// Names of an operand of regions of interest: rows of a batch index and box coordinates.
pub(super) const REGIONS: &[&str] = &["rois", "roi"];

/// Regions of interest (`rois`) name the image each box comes from by a batch index stored as a
/// float beside the box's coordinates: generated over the float default [-1, 1), half the boxes
/// name image -1 and their coordinates are negative, so the kernel reads and writes before its
/// tensors (ops-cv roi_align_rotated_grad: "GM write out of bounds: bytes [17179869056, ..)" at its
/// own tiling test's shapes). Data in [0, 1): every box in image 0, non-negative coordinates.
pub(super) fn region_operands(inputs: &mut [Tensor]) {
    for t in inputs.iter_mut() {
        if !REGIONS.contains(&t.name.to_ascii_lowercase().as_str())
            || !t.dtype.is_float()
            || t.data_decided()
        {
            continue;
        }
        t.range = Some("[0.0, 1.0]".to_string());
        let note = format!(
            "`{}` holds regions of interest, a batch index beside each box's coordinates: data in [0, 1), every box in image 0",
            t.name
        );
        t.guess = Some(match t.guess.take() {
            Some(g) if g.starts_with("guess:") => format!("{g}; {note}"),
            _ => format!("guess: {note}"),
        });
    }
}

/// The most elements init pins for a Cholesky input (one value each in the manifest).
pub(super) const MAX_PINNED: u64 = 4096;

/// A Cholesky factorisation's input must be symmetric positive definite: random data stops the
/// kernel at its first pivot that is not positive (ops-math cholesky: "ascendc_assert failed: b1 >
/// 0.0f"). Its first float input of square matrices, when small enough to write out, is pinned to
/// n * I + J (J all ones) in each matrix: symmetric, eigenvalues n and 2n. A log-determinant's too
/// (ops-math's logdet: random matrices have negative determinants half the time, and their log is NaN).
pub(super) fn positive_definite_operand(def: &opdef::OpDef, inputs: &mut [Tensor]) {
    if !matches!(version_less(&def.op_type).as_str(), "cholesky" | "logdet") {
        return;
    }
    let Some(t) = inputs.first_mut() else {
        return;
    };
    let r = t.shape.len();
    let elems: u64 = t.shape.iter().product();
    if !t.dtype.is_float() || r < 2 || t.shape[r - 1] != t.shape[r - 2] || elems > MAX_PINNED {
        return;
    }
    let n = t.shape[r - 1];
    let values: Vec<String> = (0..elems)
        .map(|e| {
            let (i, j) = ((e / n) % n, e % n);
            (1 + if i == j { n } else { 0 }).to_string()
        })
        .collect();
    t.values = Some(format!("[{}]", values.join(", ")));
    t.range = None;
    t.guess = Some(format!(
        "guess: each {n}x{n} matrix pinned to {n} * I + 1 (symmetric positive definite: a Cholesky factorisation needs it, and a log-determinant a positive determinant)"
    ));
}

/// How many bins a bincount's `size` is pinned to: below every int dtype's maximum, so that the
/// counted values, drawn below it, are non-negative in every dtype.
pub(super) const BINCOUNT_BINS: u64 = 100;

/// A bincount (ops-math's Bincount: the values of `array`, non-negative ints, counted into `size`
/// bins, weighted): `array` drawn in [0, BINCOUNT_BINS) and `size` pinned to BINCOUNT_BINS, so that
/// the op's InferShape gives the bins and its kernel's `gMin >= 0` assert holds (the default range of
/// an int8 tensor has negative values).
pub(super) fn counted_operands(
    def: &opdef::OpDef,
    shapes: &BTreeMap<String, Vec<u64>>,
    inputs: &mut [Tensor],
) {
    if version_less(&def.op_type) != "bincount" {
        return;
    }
    let is = |t: &Tensor, names: &[&str]| {
        names.contains(&t.name.to_ascii_lowercase().as_str()) && !shapes.contains_key(&t.name)
    };
    for t in inputs.iter_mut() {
        if is(t, &["array", "x", "input", "self"]) && !t.dtype.is_float() {
            t.range = Some(format!("[0.0, {}.0]", BINCOUNT_BINS - 1));
            t.guess = Some(format!(
                "guess: the values counted, non-negative ints below `size`: data in [0, {BINCOUNT_BINS})"
            ));
        } else if is(t, &["size", "minlength"]) {
            t.shape = vec![];
            t.values = Some(format!("[{BINCOUNT_BINS}]"));
            t.range = None;
            t.guess = Some(format!(
                "guess: {BINCOUNT_BINS} bins, pinned (the op's InferShape reads it for the output's length)"
            ));
        }
    }
}

/// An op type in lower case without a trailing version (`LuV2` -> `lu`).
pub(super) fn version_less(op_type: &str) -> String {
    let t = op_type.to_ascii_lowercase();
    let bare = t.trim_end_matches(|c: char| c.is_ascii_digit());
    match bare.strip_suffix('v') {
        Some(b) if bare.len() < t.len() => b.to_string(),
        _ => t,
    }
}

/// Whether `op` (by its OpDef type) factors or inverts square matrices (SQUARE_OPS).
pub(super) fn takes_square_matrices(op: &FoundOp) -> bool {
    op.opdef
        .as_ref()
        .is_some_and(|d| SQUARE_OPS.contains(&version_less(&d.op_type).as_str()))
}

/// Whether `op`'s kernel multiplies matrices on the cube: the high-level Matmul API or `Mmad`, in its
/// kernel files or the headers beside them.
pub(super) fn is_matmul(root: &Path, op: &FoundOp) -> bool {
    let cube = |f: &Path| {
        std::fs::read_to_string(f).is_ok_and(|text| {
            ["REGIST_MATMUL_OBJ", "matmul_intf.h", "Mmad("]
                .iter()
                .any(|m| text.contains(m))
        })
    };
    let headers = |k: &Path| -> Vec<std::path::PathBuf> {
        let Some(dir) = k.parent() else {
            return vec![];
        };
        std::fs::read_dir(dir)
            .map(|d| {
                d.filter_map(|e| e.ok().map(|e| e.path()))
                    .filter(|p| p.extension().is_some_and(|x| x == "h" || x == "hpp"))
                    .collect()
            })
            .unwrap_or_default()
    };
    op.launch.is_none()
        && op.kernel.iter().any(|k| {
            let k = root.join(k);
            cube(&k) || headers(&k).iter().any(|h| cube(h))
        })
}

/// Op types (lower case, without `V<n>`) whose kernel quantizes along the first axis whatever their
/// `axis` attr says: ops-nn fake_quant_affine_cachemask's 910b tiling takes the number of per-channel
/// values from `x`'s dim 0 (`headNum`, fake_quant_affine_cachemask_tiling.cpp) and never reads
/// `axis`, as its aclnn layer moves the axis to the front first. With `axis = -1` and a last-axis
/// `scale` its kernel read 48 of the 16384 scales, and numpy (along `axis`) disagreed. Name-keyed: the
/// tiling's code says dim 0, the OpDef says nothing.
pub(super) const FIRST_AXIS_OPS: &[&str] = &["fakequantaffinecachemask"];

fn quantizes_first_axis(def: &opdef::OpDef) -> bool {
    FIRST_AXIS_OPS.contains(&version_less(&def.op_type).as_str())
}

/// The per-channel operands of FIRST_AXIS_OPS: one value per element of the first axis.
pub(super) fn first_axis_operands(
    def: &opdef::OpDef,
    main: &[u64],
    shapes: &BTreeMap<String, Vec<u64>>,
    inputs: &mut [Tensor],
) {
    if !quantizes_first_axis(def) || main.is_empty() {
        return;
    }
    for t in inputs.iter_mut().skip(1) {
        if shapes.contains_key(&t.name)
            || !PER_CHANNEL.contains(&t.name.to_ascii_lowercase().as_str())
        {
            continue;
        }
        t.shape = vec![main[0]];
        t.guess = Some(format!(
            "guess: `{}` holds one value per element of the first axis, which the op's tiling quantizes along (axis 0)",
            t.name
        ));
    }
}

/// An attr value init writes instead of the OpDef's default, and the note that says why: None to
/// keep the default.
/// - FIRST_AXIS_OPS' `axis`: 0, the axis their tiling works along.
/// - `quant_mode` "dynamic" of an op with zero-point inputs (ops-nn add_layer_norm_quant): dynamic
///   quantization computes its own scales and takes no zero points, and the tiling refused all
///   optional inputs given ("Optional input Scales and Offsets are invalid, get mode = 211"): "static",
///   which takes the scales and zero points init writes. The twin cannot leave an optional input out.
pub(super) fn attr_guess(def: &opdef::OpDef, a: &opdef::AttrDef) -> Option<(String, String)> {
    let n = a.name.to_ascii_lowercase();
    if n == "axis" && quantizes_first_axis(def) {
        return Some((
            "0".into(),
            format!(
                "guess: `{}` quantizes along the first axis (its tiling reads the channel count from dim 0 and not this attr)",
                def.op_type
            ),
        ));
    }
    // A pooling window given no default (ops-nn's max_pool3d_grad_with_argmax: ksize, strides and pads
    // required): one value per spatial axis, as many as the op's defaulted list attrs hold (its
    // `dilation` [1, 1, 1]); a window and stride of 1 and no padding, which every pooling tiling takes
    // ("padSize should smaller than kernelSize div 2" refused a written [1]).
    if a.kind == opdef::AttrKind::ListInt && a.default.is_none() {
        let window = [
            "ksize",
            "kernel_size",
            "strides",
            "stride",
            "pads",
            "padding",
            "paddings",
        ];
        if window.contains(&n.as_str()) {
            // Pads count two per axis (ops-nn's max_pool3_d: `pads` of 6 beside `dilation` of 5,
            // and its tiling takes windows of 1, 3 or 5): the other lists say how many axes.
            let axes = def
                .attrs
                .iter()
                .filter(|b| !b.name.to_ascii_lowercase().starts_with("pad"))
                .filter_map(|b| match &b.default {
                    Some(opdef::AttrDefault::Ints(v)) if b.kind == opdef::AttrKind::ListInt => {
                        Some(v.len())
                    }
                    _ => None,
                })
                .max()
                .unwrap_or(1);
            let v = if n.starts_with("pad") { 0 } else { 1 };
            let list = format!("{:?}", vec![v; axes]);
            return Some((
                list.clone(),
                format!(
                    "guess: pooling attr `{}` {ATTR_REQUIRED_GUESS}: {list} (a window and stride of 1, no padding, one per axis of the op's other list attrs)",
                    a.name
                ),
            ));
        }
    }
    // A quant op's `dst_type` is the dtype of its quantised output as a ge::DataType number; its
    // tiling checks the two agree (ops-nn's dynamic_block_quant: "The dtypes of y and dst_type must be
    // the same"), so it follows the output dtype the manifest takes from the OpDef's column.
    let bare = n.replace('_', "");
    if matches!(bare.as_str(), "dsttype" | "dstdtype")
        && a.kind == opdef::AttrKind::Int
        && let Some((_, _, outs)) = def.dtype_column()
        && let Some(Some(y)) = outs.first()
        && let Some(number) = opdef::data_type_number(y.ge_name())
        && a.default != Some(opdef::AttrDefault::Int(number))
    {
        return Some((
            number.to_string(),
            format!(
                "guess: `{}` is the output `{}`'s dtype, {} ({number}), as the manifest types it",
                a.name,
                def.outputs[0].name,
                y.ge_name()
            ),
        ));
    }
    let zero_points = def.inputs.iter().any(|p| {
        let p = p.name.to_ascii_lowercase();
        p.contains("zero_point") || p.starts_with("offset")
    });
    if n == "quant_mode"
        && zero_points
        && matches!(&a.default, Some(opdef::AttrDefault::Str(m)) if m == "dynamic")
    {
        return Some((
            "\"static\"".into(),
            "guess: \"static\" (default \"dynamic\"): init writes the optional scales and zero points, which dynamic quantization does not take".into(),
        ));
    }
    None
}

/// Whether `op`'s tiling schedules it as an element-wise op (the elementwise template's
/// `ELEMENTWISE_TPL_SCH_MODE` in a host source): one element count, from the first input, for
/// every operand, each streamed in the same tiles. ops-nn sync_batch_norm_backward_elemt's tiling
/// counts `grad_output`'s elements only (its aclnn layer broadcasts the per-channel operands first),
/// and its kernel read a per-channel `weight` of 16384 past its end.
pub(super) fn uses_elementwise_schedule(root: &Path, op: &FoundOp) -> bool {
    op.host.iter().any(|f| {
        !f.ends_with("_def.cpp")
            && std::fs::read_to_string(root.join(f))
                .is_ok_and(|t| t.contains("ELEMENTWISE_TPL_SCH_MODE"))
    })
}

/// For an op with an element-wise schedule (`uses_elementwise_schedule`): the operands taken as
/// per-channel get the main input's shape, as the kernel reads as many of each as of the first.
pub(super) fn elementwise_operands(shapes: &BTreeMap<String, Vec<u64>>, inputs: &mut [Tensor]) {
    let Some(main) = inputs.first().map(|t| t.shape.clone()) else {
        return;
    };
    for t in inputs.iter_mut().skip(1) {
        let n = t.name.to_ascii_lowercase();
        let bare = n.trim_end_matches(|c: char| c.is_ascii_digit());
        if shapes.contains_key(&t.name)
            || t.list.is_some()
            || !(PER_CHANNEL.contains(&n.as_str()) || PER_CHANNEL.contains(&bare))
        {
            continue;
        }
        t.shape = main.clone();
        t.guess = Some(format!(
            "guess: `{}` has the main input's shape: the op's tiling is element-wise (ELEMENTWISE_TPL_SCH_MODE), one element count for all operands",
            t.name
        ));
    }
}

/// The default `x` of a group norm (an op with a `num_groups` attr): N, C, H, W. Small enough that
/// one group (C x H x W with the written num_groups of 1) fits the UB: at [4, 32, 16, 16]
/// group_norm_swish_grad's tiling chose its MODE_3 (a group over several UB passes), whose kernel
/// dequeues `gamma` once per pass after enqueuing it once ("DeQue: queue q2 is empty",
/// group_norm_swish_grad.h compute_dgamma).
pub(super) const GROUP_NORM_SHAPE: [u64; 4] = [4, 8, 8, 8];

/// Whether `op` is a group norm or its backward: its OpDef has a `num_groups` attr. Their tilings
/// read `x` as [N, C, H, W...]: C from dim 1, H x W the product of the dims after it (ops-nn
/// group_norm_swish_grad_tiling.cpp, its `hxw` loop), and gamma / beta of C. With the 2-D default
/// H x W was 1 and group_norm_swish_grad's kernel asked a 32-byte buffer for 1024 elements.
pub(super) fn is_group_norm(op: &FoundOp) -> bool {
    op.opdef
        .as_ref()
        .is_some_and(|d| count_attr(d, "num_groups").is_some())
}

pub(super) fn group_norm_note() -> String {
    format!(
        "guess: a group norm takes x as [N, C, H, W]: {GROUP_NORM_SHAPE:?}; give the shape you tune for (init --shape x=NxCxHxW)"
    )
}

/// The default main input of an op whose OpDef declares it in a plain layout of fixed rank (the
/// `Format` of its first `DataType` column, the one init types it by): that layout's rank, with the
/// default's element count, 48 channels where the layout puts C. CANN hands such an op tensors in
/// that layout, and the twin sets a tensor's format only where its rank is the layout's: at the 2-D
/// default ops-nn's batch_norm_grad_v3 (NCDHW / NCHW / NHWC columns) refused "Not supported format [ND]".
pub(super) fn layout_default(op: &FoundOp) -> Option<(Vec<u64>, String)> {
    let main = op.opdef.as_ref()?.inputs.first()?;
    let layout = main.formats.first()?.strip_prefix("FORMAT_")?;
    let shape: &[u64] = match layout {
        "NCHW" => &[8, 48, 32, 64],
        "NHWC" => &[8, 32, 64, 48],
        "NCDHW" => &[2, 48, 8, 32, 32],
        "NDHWC" => &[2, 8, 32, 32, 48],
        _ => return None,
    };
    let dims = layout
        .chars()
        .map(String::from)
        .collect::<Vec<_>>()
        .join("x");
    Some((
        shape.to_vec(),
        format!(
            "guess: the OpDef declares `{}` {layout}: {shape:?}; give the shape you tune for (init --shape {}={dims})",
            main.name, main.name
        ),
    ))
}

/// The default `log_probs` of a CTC loss (CTC_OPS): T, N, C (time steps, batch, classes).
pub(super) const CTC_SHAPE: [u64; 3] = [32, 4, 16];
/// The target length init pins for each sample of a CTC loss.
pub(super) const CTC_TARGET: u64 = 8;
/// Op types (lower case, without `V<n>`) of a CTC loss: `log_probs` [T, N, C], `targets` [N, S],
/// `input_lengths` and `target_lengths` [N] (ops-nn ctc_loss_v3_tiling.cpp checks these ranks and
/// that N agrees: "the dims of input_lengths not equal 1"), outputs `neg_log_likelihood` [N] and
/// `log_alpha` [N, T, 2 S + 1 rounded up to 8]. Name-keyed: the op has no InferShape and its OpDef says no ranks.
pub(super) const CTC_OPS: &[&str] = &["ctcloss"];

pub(super) fn is_ctc(op: &FoundOp) -> bool {
    op.opdef
        .as_ref()
        .is_some_and(|d| CTC_OPS.contains(&version_less(&d.op_type).as_str()))
}

pub(super) fn ctc_note() -> String {
    format!(
        "guess: a CTC loss takes log_probs as [time, batch, classes]: {CTC_SHAPE:?}; give the shape you tune for (init --shape log_probs=TxNxC)"
    )
}

/// A CTC loss's operands beside `log_probs` [T, N, C] (CTC_OPS): targets [N, S] with labels in
/// [1, C) (0 is the blank), every input length T and every target length S pinned, and the outputs
/// [N] and [N, T, 2 S + 1 rounded up to 8].
fn ctc_operands(
    def: &opdef::OpDef,
    main: &[u64],
    shapes: &BTreeMap<String, Vec<u64>>,
    inputs: &mut [Tensor],
    outputs: &mut [Tensor],
) {
    if !CTC_OPS.contains(&version_less(&def.op_type).as_str()) || main.len() != 3 {
        return;
    }
    let (t_len, n, c) = (main[0], main[1], main[2]);
    let s = CTC_TARGET.min(t_len);
    let pinned = |v: u64| format!("[{}]", vec![v.to_string(); n as usize].join(", "));
    for t in inputs.iter_mut().skip(1) {
        if shapes.contains_key(&t.name) || t.dtype.is_float() {
            continue;
        }
        let name = t.name.to_ascii_lowercase();
        if name == "targets" {
            t.shape = vec![n, s];
            t.values = None;
            t.range = Some(format!("[1.0, {c}.0]"));
            t.guess = Some(format!(
                "guess: `{}` holds {s} labels per sample, in [1, {c}) (0 is the blank)",
                t.name
            ));
        } else if name == "input_lengths" || name == "target_lengths" {
            let v = if name == "input_lengths" { t_len } else { s };
            t.shape = vec![n];
            t.values = Some(pinned(v));
            t.range = None;
            t.guess = Some(format!(
                "guess: `{}` holds one length per sample, all {v}: pinned",
                t.name
            ));
        }
    }
    for (k, t) in outputs.iter_mut().enumerate() {
        if shapes.contains_key(&t.name) {
            continue;
        }
        let (shape, what) = match k {
            0 => (vec![n], "one loss per sample"),
            // the last axis is 2 S + 1 rounded up to 8, as ops-nn's aclnn layer allocates it for the
            // 910B kernel (CtcLossNpuOutputShape; ctc_loss_v3 writes rows of that length)
            1 => (
                vec![n, t_len, (2 * s + 1).div_ceil(8) * 8],
                "[batch, time, 2 S + 1 rounded up to 8]: the alphas over the blank-padded targets",
            ),
            _ => continue,
        };
        t.shape = shape;
        t.guess = Some(format!("guess: `{}` holds {what}", t.name));
    }
}

/// The inputs and the rank that a tiling function's refusal asks for, when its message names inputs of
/// `inputs` and a rank: "the sorted_expert of input should be 1D tensor", "The dim number of
/// sort_indices should be 1", "permutedProbsGrad's shape(2) is not 1D", "barycentric dim num is not 3",
/// "q shape dims is not four" (ops-transformer and ops-cv tilings). Names match without case or
/// underscores (`permutedProbsGrad` is `permuted_probs_grad`). This reads the op's own check, so that a
/// fix reaches operators never seen. A message naming several inputs together gives each the rank:
/// ops-cv's grid_sample says "x / grid shape length should be 4 or 5" (the first rank offered is taken).
/// No rank, or no input named, gives nothing.
pub(super) fn ranks_from_refusal(message: &str, inputs: &[String]) -> Vec<(String, usize)> {
    let words = refusal_words(message);
    let Some(rank) = rank_in(&words) else {
        return vec![];
    };
    let mut named = named_inputs(&words, inputs);
    // "input dim is not 4, please check input" (ops-math's pad_v3_grad_replicate) names no input but
    // speaks of the input: the first, the main one.
    if named.is_empty() && words.iter().any(|w| w.eq_ignore_ascii_case("input")) {
        named.extend(inputs.first().cloned());
    }
    named.into_iter().map(|n| (n, rank)).collect()
}

/// A refusal's word as a number from 0 to 8: digits, or "zero" to "eight" in any case.
fn small_number(w: &str) -> Option<usize> {
    let w = w.to_ascii_lowercase();
    let n = match w.as_str() {
        "zero" => 0,
        "one" => 1,
        "two" => 2,
        "three" => 3,
        "four" => 4,
        "five" => 5,
        "six" => 6,
        "seven" => 7,
        "eight" => 8,
        _ => w.parse().ok()?,
    };
    (n <= 8).then_some(n)
}

/// The rank a refusal's words ask for: "1D" / "2d", or a number after "be" / "not" / "equal" / "is" in
/// a message about a rank ("dim number of X should be 1", "dim num is not 3", "shape dims is not four",
/// "shape length should be 4 or 5"), at most 8.
fn rank_in(words: &[String]) -> Option<usize> {
    let number = small_number;
    let lower: Vec<String> = words.iter().map(|w| w.to_ascii_lowercase()).collect();
    // "the 3rd dimension of x1 must be 1" speaks of one axis's size, not the rank
    // (`ordinal_axis_from_refusal`)
    if ordinal_axis(&lower).is_some() {
        return None;
    }
    // "1D", "2d": the rank itself
    lower
        .iter()
        .find_map(|w| {
            w.strip_suffix('d')
                .and_then(|d| (d.len() == 1).then(|| number(d)).flatten())
        })
        .or_else(|| {
            let about_rank = lower.iter().any(|w| w.starts_with("dim") || w == "rank")
                || lower
                    .windows(2)
                    .any(|p| p[0] == "shape" && p[1] == "length");
            // "input dim is 2, support dim is 1" (ops-math's isin_part_v1): the rank asked for
            // follows the word that says what is wanted, not the first "is".
            let wanted = lower.iter().enumerate().find_map(|(at, w)| {
                matches!(
                    w.as_str(),
                    "support" | "supports" | "supported" | "expect" | "expected" | "expects"
                )
                .then(|| lower.iter().skip(at + 1).take(3).find_map(|n| number(n)))
                .flatten()
            });
            about_rank
                .then(|| {
                    wanted.or_else(|| {
                        lower.windows(2).find_map(|p| {
                            // "must be rank-3 tensors" (ops-nn's chamfer_distance_grad) reads "rank 3"
                            matches!(
                                p[0].as_str(),
                                "be" | "not" | "equal" | "equals" | "is" | "rank"
                            )
                            .then(|| number(&p[1]))
                            .flatten()
                        })
                    })
                })
                .flatten()
        })
}

fn refusal_words(message: &str) -> Vec<String> {
    message
        .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .filter(|w| !w.is_empty())
        .map(str::to_string)
        .collect()
}

/// The one input of `inputs` that `words` name, if exactly one is. Messages abbreviate: `sort_indices`
/// for the input `sorted_indices`, `sorted_expert` for `sorted_experts`; a long name (8 letters or more)
/// matches within two edits, and a word of 6 letters or more matches a name it begins, one or two
/// letters short (`finish` for `finished`), without case or underscores.
fn named_input(words: &[String], inputs: &[String]) -> Option<String> {
    let named = named_inputs(words, inputs);
    (named.len() == 1).then(|| named[0].clone())
}

/// Every input of `inputs` that `words` name, in the order the words first name them (see `named_input`).
fn named_inputs(words: &[String], inputs: &[String]) -> Vec<String> {
    let norm = |s: &str| s.to_ascii_lowercase().replace('_', "");
    let near = |w: &str, i: &str| {
        let (w, i) = (norm(w), norm(i));
        w == i
            || (w.len() >= 8 && i.len() >= 8 && edits(&w, &i) <= 2)
            || (w.len() >= 6 && i.starts_with(&w) && i.len() - w.len() <= 2)
            // a variable named after the input's rank or shape ("xDim: 2, gradDim: 2": ops-nn's
            // max_pool3d_grad_with_argmax)
            || w.strip_prefix(i.as_str()).is_some_and(|rest| {
                matches!(rest, "dim" | "dims" | "dimnum" | "shape" | "rank")
            })
    };
    let mut named: Vec<&String> = vec![];
    for w in words {
        for i in inputs {
            // one-letter names ("x") only as a whole word of their own, which split() gives
            if near(w, i) && !named.contains(&i) {
                named.push(i);
            }
        }
    }
    named.into_iter().cloned().collect()
}

/// The int attr of `ints` (their names) that a refusal names and the one value it takes: "dim must be
/// 0 now" (ops-math's chunk_cat tiling), "axis only support 0", "mode should be 2". The value must
/// follow the name within a few words, right after "must be" / "should be" / "only support(s)":
/// "must be greater than 0" is a bound, not a value.
pub(super) fn int_attr_from_refusal(message: &str, ints: &[String]) -> Option<(String, i64)> {
    let words: Vec<String> = message
        .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '-'))
        .filter(|w| !w.is_empty())
        .map(|w| w.to_ascii_lowercase())
        .collect();
    let named: Vec<usize> = words
        .iter()
        .enumerate()
        .filter(|(_, w)| ints.iter().any(|n| n.eq_ignore_ascii_case(w)))
        .map(|(i, _)| i)
        .collect();
    let [at] = named[..] else {
        return None;
    };
    // "input dim must be 4" speaks of a tensor's rank
    if at > 0
        && matches!(
            words[at - 1].as_str(),
            "input" | "output" | "tensor" | "shape"
        )
    {
        return None;
    }
    let attr = ints.iter().find(|n| n.eq_ignore_ascii_case(&words[at]))?;
    let after = &words[at + 1..words.len().min(at + 5)];
    after.windows(3).find_map(|p| {
        let asks = matches!(
            (p[0].as_str(), p[1].as_str()),
            ("must" | "should", "be") | ("only", "support" | "supports")
        );
        asks.then(|| p[2].parse::<i64>().ok())
            .flatten()
            .map(|v| (attr.clone(), v))
    })
}

/// The list attr of `lists` (their names) that a refusal names and the number of values it asks for:
/// "ksizes must contain two values" (ops-math's experimental im2col tiling), "invalid list size:
/// ksizes: 1: 2" (the `OP_LOGE_FOR_INVALID_LISTSIZE` form: name, size given, size wanted), "the size
/// of pads should be 4", "dilations must have 3 elements". Counts as digits or as the words two to
/// eight; at most 8.
pub(super) fn list_len_from_refusal(message: &str, lists: &[String]) -> Option<(String, usize)> {
    let words = refusal_words(message);
    let lower: Vec<String> = words.iter().map(|w| w.to_ascii_lowercase()).collect();
    // a list of one is what init wrote already: "one" in a message is rarely the count asked for
    let count = |w: &str| small_number(w).filter(|&n| n >= 2 || w == "1");
    let named: Vec<usize> = lower
        .iter()
        .enumerate()
        .filter(|(_, w)| lists.iter().any(|n| n.eq_ignore_ascii_case(w)))
        .map(|(i, _)| i)
        .collect();
    let [at] = named[..] else {
        return None;
    };
    let attr = lists
        .iter()
        .find(|n| n.eq_ignore_ascii_case(&lower[at]))?
        .clone();
    // "invalid list size: NAME: GOT: WANT"
    if message.to_ascii_lowercase().contains("invalid list size")
        && let (Some(_), Some(want)) = (
            lower.get(at + 1).and_then(|w| w.parse::<usize>().ok()),
            lower.get(at + 2).and_then(|w| count(w)),
        )
    {
        return Some((attr, want));
    }
    // a size word, then a count within a few words: "... must contain two values", "size of NAME
    // should be 4"
    let sized = lower.iter().any(|w| {
        matches!(
            w.as_str(),
            "contain"
                | "contains"
                | "have"
                | "has"
                | "size"
                | "length"
                | "len"
                | "elements"
                | "values"
                | "num"
        )
    });
    if !sized {
        return None;
    }
    // where the message says what it wants after what it got ("size 1 is invalid, it should be 3"),
    // the count after the wanting word
    let wants = lower.iter().enumerate().skip(at + 1).find(|(_, w)| {
        matches!(
            w.as_str(),
            "should" | "must" | "expect" | "expected" | "expects" | "need" | "needs" | "required"
        )
    });
    if let Some((i, _)) = wants
        && let Some(n) = lower.iter().skip(i + 1).take(4).find_map(|w| count(w))
    {
        return Some((attr, n));
    }
    let after = lower.iter().skip(at + 1).take(6).find_map(|w| count(w));
    after.map(|n| (attr, n))
}

/// `value` (a TOML list of integers, "[1]") repeated or cut to `len` values: "[1, 1]"; None when it
/// is not such a list.
pub(super) fn list_of_len(value: &str, len: usize) -> Option<String> {
    let inner = value.trim().strip_prefix('[')?.strip_suffix(']')?;
    let items: Vec<i64> = inner
        .split(',')
        .filter(|p| !p.trim().is_empty())
        .map(|p| p.trim().parse().ok())
        .collect::<Option<_>>()?;
    let first = *items.first().unwrap_or(&1);
    let out: Vec<i64> = (0..len).map(|i| *items.get(i).unwrap_or(&first)).collect();
    Some(format!("{out:?}"))
}

/// The one input a refusal names, its shape, and the message's words in lower case.
fn named_shape<'a>(
    message: &str,
    inputs: &'a [(String, Vec<u64>)],
) -> Option<(String, &'a Vec<u64>, Vec<String>)> {
    let words = refusal_words(message);
    let names: Vec<String> = inputs.iter().map(|(n, _)| n.clone()).collect();
    let input = named_input(&words, &names)?;
    let shape = &inputs.iter().find(|(n, _)| *n == input)?.1;
    let lower = words.iter().map(|w| w.to_ascii_lowercase()).collect();
    Some((input, shape, lower))
}

/// The input, axis and value that a tiling function's refusal of an axis too large asks for:
/// "Input indices's dim 1 [16384] should not large than max topK[512]", "Input indices's dim 1 [16384]
/// should be in (0, [512]]" (ops-transformer's moe_token_permute tilings). The message must name one
/// input, an axis ("dim N"), that axis's present size, and a bound below it; the value is the bound,
/// or a top-k of 8 where the bound is a top-k's (MoE routing picks 8 experts a token at most in the
/// public models), never more than the bound.
pub(super) fn axis_from_refusal(
    message: &str,
    inputs: &[(String, Vec<u64>)],
) -> Option<(String, usize, u64)> {
    let (input, shape, lower) = named_shape(message, inputs)?;
    let at = lower.windows(2).position(|p| {
        matches!(p[0].as_str(), "dim" | "axis" | "dimension") && p[1].parse::<usize>().is_ok()
    })?;
    let axis: usize = lower[at + 1].parse().ok()?;
    let now = *shape.get(axis)?;
    let bounded = [
        "large", "larger", "greater", "exceed", "exceeds", "more", "max", "in", "within", "range",
    ];
    if !lower.iter().any(|w| bounded.contains(&w.as_str())) {
        return None;
    }
    let numbers: Vec<u64> = lower[at + 2..]
        .iter()
        .filter_map(|w| w.parse().ok())
        .collect();
    if !numbers.contains(&now) {
        return None;
    }
    let bound = numbers
        .iter()
        .copied()
        .filter(|&n| n > 0 && n < now)
        .max()?;
    let value = if lower.iter().any(|w| w == "topk") {
        bound.min(8)
    } else {
        bound
    };
    Some((input, axis, value))
}

/// The axis (from 0) an ordinal before "dim" / "dimension" / "axis" names among `lower` (a refusal's
/// words in lower case): "3rd dimension", "second dim", "1st axis".
fn ordinal_axis(lower: &[String]) -> Option<usize> {
    const WORDS: [&str; 8] = [
        "first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth",
    ];
    lower.windows(2).find_map(|p| {
        if !matches!(p[1].as_str(), "dim" | "dimension" | "axis") {
            return None;
        }
        let w = p[0].as_str();
        let n = WORDS
            .iter()
            .position(|o| *o == w)
            .map(|i| i + 1)
            .or_else(|| {
                ["st", "nd", "rd", "th"]
                    .iter()
                    .find_map(|s| w.strip_suffix(s))
                    .and_then(|d| d.parse::<usize>().ok())
            })?;
        (1..=8).contains(&n).then(|| n - 1)
    })
}

/// The input, axis and value a refusal of one axis's size asks for, the axis named by an ordinal:
/// "Check x1Shape failed, the 3rd dimension of x1 must be 1", "the second dimension of x2 must be 1"
/// (ops-math's mul_addn). The message must name one input, the ordinal axis (within its rank) and the
/// value after "must be" / "should be".
pub(super) fn ordinal_axis_from_refusal(
    message: &str,
    inputs: &[(String, Vec<u64>)],
) -> Option<(String, usize, u64)> {
    let (input, shape, lower) = named_shape(message, inputs)?;
    let axis = ordinal_axis(&lower)?;
    let value = lower.windows(3).find_map(|p| {
        (matches!(p[0].as_str(), "must" | "should") && p[1] == "be")
            .then(|| p[2].parse::<u64>().ok())
            .flatten()
    })?;
    (axis < shape.len() && shape[axis] != value && value > 0).then_some((input, axis, value))
}

/// The axes a refusal spells out as a shape: ops-cv's grid_sample says "only support (N, H, W, 2) for
/// grid". When the message names one input whose rank is the tuple's length, each number in the tuple is
/// that axis's size: (input, axis, value) for the axes that differ now. Letters stay as they are.
pub(super) fn tuple_axes_from_refusal(
    message: &str,
    inputs: &[(String, Vec<u64>)],
) -> Vec<(String, usize, u64)> {
    let names: Vec<String> = inputs.iter().map(|(n, _)| n.clone()).collect();
    let Some(input) = named_input(&refusal_words(message), &names) else {
        return vec![];
    };
    let Some(shape) = inputs.iter().find(|(n, _)| *n == input).map(|(_, s)| s) else {
        return vec![];
    };
    let mut rest = message;
    while let Some(open) = rest.find('(') {
        let Some(close) = rest[open..].find(')') else {
            break;
        };
        let inner = &rest[open + 1..open + close];
        rest = &rest[open + close + 1..];
        let parts: Vec<&str> = inner.split(',').map(str::trim).collect();
        let well_formed = parts.len() >= 2
            && parts.iter().all(|p| {
                !p.is_empty()
                    && (p.chars().all(|c| c.is_ascii_digit())
                        || p.chars().all(|c| c.is_ascii_alphabetic()))
            });
        let numbers: Vec<(usize, u64)> = parts
            .iter()
            .enumerate()
            .filter_map(|(i, p)| p.parse().ok().map(|v| (i, v)))
            .collect();
        if !well_formed || numbers.is_empty() || parts.len() != shape.len() {
            continue;
        }
        return numbers
            .into_iter()
            .filter(|&(i, v)| shape[i] != v && v > 0)
            .map(|(i, v)| (input.clone(), i, v))
            .collect();
    }
    vec![]
}

/// The axis a refusal asks to match another input's last one: "The last dim of input_scale must equal
/// the last dim of x" (ops-nn's gelu_quant, whose per-channel scale init cut to its leading axis). When
/// the message speaks of the last dim and names two inputs, the first takes the second's last axis as
/// its own last: (input, axis, value), or nothing when it has it already.
pub(super) fn last_axis_from_refusal(
    message: &str,
    inputs: &[(String, Vec<u64>)],
) -> Option<(String, usize, u64)> {
    let words = refusal_words(message);
    let lower: Vec<String> = words.iter().map(|w| w.to_ascii_lowercase()).collect();
    let last_dim = lower
        .windows(2)
        .any(|p| p[0] == "last" && matches!(p[1].as_str(), "dim" | "axis" | "dimension"));
    if !last_dim {
        return None;
    }
    let names: Vec<String> = inputs.iter().map(|(n, _)| n.clone()).collect();
    let named = named_inputs(&words, &names);
    let [fit, from] = named.as_slice() else {
        return None;
    };
    let shape_of = |n: &String| inputs.iter().find(|(i, _)| i == n).map(|(_, s)| s);
    let (shape, want) = (shape_of(fit)?, *shape_of(from)?.last()?);
    let axis = shape.len().checked_sub(1)?;
    (shape[axis] != want).then(|| (fit.clone(), axis, want))
}

/// The input, axis and value that a refusal of an axis too small asks for: "rois row size must be at
/// least 5, but got 1" (ops-cv's roi_align_grad: a box is its batch index and four corners). The message
/// must name one input, a lower bound ("at least N", "not less than N") and the size it got; the axis
/// is the last where the message speaks of a row or a last axis, else the one axis of that size.
pub(super) fn least_axis_from_refusal(
    message: &str,
    inputs: &[(String, Vec<u64>)],
) -> Option<(String, usize, u64)> {
    let (input, shape, lower) = named_shape(message, inputs)?;
    let after = |at: usize| lower.get(at).and_then(|w| w.parse::<u64>().ok());
    let want = lower.windows(3).enumerate().find_map(|(i, w)| match w {
        [a, b, _] if a == "at" && b == "least" => after(i + 2),
        [a, b, c] if a == "not" && b == "less" && c == "than" => after(i + 3),
        _ => None,
    })?;
    let got = lower
        .iter()
        .position(|w| w == "got")
        .and_then(|at| after(at + 1))?;
    if got >= want {
        return None;
    }
    let last = lower.iter().any(|w| matches!(w.as_str(), "row" | "last"));
    let axis = if last {
        shape.len().checked_sub(1).filter(|&a| shape[a] == got)?
    } else {
        let mut of_size = (0..shape.len()).filter(|&a| shape[a] == got);
        match (of_size.next(), of_size.next()) {
            (Some(a), None) => a,
            _ => return None,
        }
    };
    Some((input, axis, want))
}

/// The edit (Levenshtein) distance of two short ASCII names.
fn edits(a: &str, b: &str) -> usize {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for i in 1..=a.len() {
        let mut diag = row[0];
        row[0] = i;
        for j in 1..=b.len() {
            let up = row[j];
            row[j] = (row[j] + 1)
                .min(row[j - 1] + 1)
                .min(diag + usize::from(a[i - 1] != b[j - 1]));
            diag = up;
        }
    }
    row[b.len()]
}

/// `shape` brought to `rank` axes for a refusal's rank fit: its leading axes when it has more, else the
/// trailing axes of `main` (the op's main input), else ones in front.
pub(super) fn fit_rank(shape: &[u64], rank: usize, main: &[u64]) -> Vec<u64> {
    if rank <= shape.len() {
        return shape[..rank].to_vec();
    }
    if main.len() >= rank {
        return main[main.len() - rank..].to_vec();
    }
    let mut v = vec![1; rank - shape.len()];
    v.extend_from_slice(shape);
    v
}

#[cfg(test)]
mod refusal_tests {
    use super::*;

    /// The one input and rank, when the refusal names one.
    fn rank_from_refusal(message: &str, inputs: &[String]) -> Option<(String, usize)> {
        let v = ranks_from_refusal(message, inputs);
        (v.len() == 1).then(|| v[0].clone())
    }

    fn names(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    /// The refusals of the first ops-transformer / ops-cv run, each read for the input and the rank.
    #[test]
    fn a_refusal_of_a_list_attrs_length_names_it_and_the_count() {
        let lists = ["ksizes", "strides", "pads", "size_splits"].map(String::from);
        let cases: [(&str, Option<(&str, usize)>); 7] = [
            // what it got, then what it wants (ops-transformer's dequant_rope_quant_kvcache)
            (
                "[error] DequantRopeQuantKvcache (dequant_rope_quant_kvcache_tiling.cpp:240): the attr size_splits's size 1 is invalid, it should be 3",
                Some(("size_splits", 3)),
            ),
            (
                "[error] Im2col (im2col_tiling.cpp:179): ksizes must contain two values",
                Some(("ksizes", 2)),
            ),
            (
                "[error] Im2col (input_util.h:86): invalid list size: ksizes: 1: 2",
                Some(("ksizes", 2)),
            ),
            ("the size of pads should be 4", Some(("pads", 4))),
            // two lists named, or none, or no count: nothing
            ("ksizes and strides must contain two values", None),
            ("x must contain two values", None),
            ("ksizes must be positive", None),
        ];
        for (message, want) in cases {
            let want = want.map(|(a, n)| (a.to_string(), n));
            assert_eq!(list_len_from_refusal(message, &lists), want, "{message}");
        }
        assert_eq!(list_of_len("[1]", 2).as_deref(), Some("[1, 1]"));
        assert_eq!(list_of_len("[3, 4, 5]", 2).as_deref(), Some("[3, 4]"));
        assert_eq!(list_of_len("\"x\"", 2), None);
    }

    #[test]
    fn a_refusal_names_the_input_and_the_rank_it_wants() {
        let ins = names(&[
            "x",
            "sorted_indices",
            "probs",
            "sorted_experts",
            "bias",
            "permuted_probs_grad",
            "finished",
        ]);
        let cases = [
            (
                "[error] M (m.cpp:106): the sorted_expert of input should be 1D tensor.",
                ("sorted_experts", 1),
            ),
            (
                "[error] M (m.cpp:344): The dim number of sort_indices should be 1.",
                ("sorted_indices", 1),
            ),
            (
                "[error] M (m.cpp:164): The bias of input should be 2D tensor.",
                ("bias", 2),
            ),
            (
                "[error] M (m.cpp:146): permutedProbsGrad's shape(2) is not 1D.",
                ("permuted_probs_grad", 1),
            ),
            // moe_gating_top_k_softmax: the input `finished` called `finish`
            (
                "[error] M (m.cpp:101): Tiling4M get finish dim num (=2) error, should be (=1), please check.",
                ("finished", 1),
            ),
        ];
        for (msg, (name, rank)) in cases {
            assert_eq!(
                rank_from_refusal(msg, &ins),
                Some((name.to_string(), rank)),
                "{msg}"
            );
        }
        let cv = names(&["vertices", "faces", "barycentric", "q", "k"]);
        assert_eq!(
            rank_from_refusal(
                "Rasterizer (r.cpp:66): barycentric dim num is not 3, please check",
                &cv
            ),
            Some(("barycentric".to_string(), 3))
        );
        assert_eq!(
            rank_from_refusal(
                "ApplyRotaryPosEmb (a.cpp:137): q shape dims is not four",
                &cv
            ),
            Some(("q".to_string(), 4))
        );
        // two inputs named, or no rank: nothing to fit
        assert_eq!(
            rank_from_refusal("input topK(1) can not match probs' dim(1), x too", &ins),
            None
        );
        assert_eq!(
            rank_from_refusal("Compress block size must be align to 16.", &ins),
            None
        );
        assert_eq!(rank_from_refusal("bias dtype should be float", &ins), None);
    }

    /// The moe_token_permute refusals of an axis too large, read for the input, the axis and a value
    /// within the bound; an equality or a message without the axis's present size gives None.
    #[test]
    fn a_refusal_of_an_axis_too_large_gives_the_axis_a_value_within_the_bound() {
        let ins = vec![
            ("tokens".to_string(), vec![48u64, 16384]),
            ("indices".to_string(), vec![48u64, 16384]),
        ];
        let topk = "[error] MoeTokenPermute (m.cpp:331): Input indices's dim 1 [16384] should not large than max topK[512].";
        assert_eq!(
            axis_from_refusal(topk, &ins),
            Some(("indices".to_string(), 1, 8))
        );
        let range = "[error] MoeTokenPermuteWithEp (m.cpp:436): Input indices's dim 1 [16384] should be in (0, [512]].";
        assert_eq!(
            axis_from_refusal(range, &ins),
            Some(("indices".to_string(), 1, 512))
        );
        for none in [
            "Input tokens's dim 0 [48] should be same with routingmap's tokennum [16384].",
            "Input indices's dim 1 should not large than 512.",
            "Input indices's dim 1 [16384] should not large than [20000].",
        ] {
            assert_eq!(axis_from_refusal(none, &ins), None, "{none}");
        }
    }

    /// ops-math's chunk_cat: "dim must be 0 now" gives the int attr `dim` 0; a bound, another word's
    /// value or two attrs named give None.
    #[test]
    fn a_refusal_of_an_int_attrs_value_names_the_value_it_takes() {
        let ints = names(&["dim", "num_chunks"]);
        for (message, want) in [
            (
                "[error] ChunkCat (chunk_cat_tiling.cpp:70): dim must be 0 now",
                Some(("dim", 0)),
            ),
            ("dim only support 0 now", Some(("dim", 0))),
            ("num_chunks should be -1", Some(("num_chunks", -1))),
            ("numChunk must be greater than 0 now", None),
            ("dim must be greater than 0", None),
            ("dim and num_chunks must be 1", None),
            ("input dim must be 4", None),
        ] {
            let want = want.map(|(a, v)| (a.to_string(), v));
            assert_eq!(int_attr_from_refusal(message, &ints), want, "{message}");
        }
    }

    /// ops-math's mul_addn: an axis named by an ordinal ("3rd", "second") is one axis's size, read
    /// for the input, the axis and the value, and not a rank of 1; an axis already of that size, or
    /// past the input's rank, gives None.
    #[test]
    fn a_refusal_of_an_ordinal_axis_gives_that_axis_the_value() {
        let ins = vec![
            ("x1".to_string(), vec![1u64, 48, 16384]),
            ("x2".to_string(), vec![1u64, 48, 16384]),
        ];
        let third = "[error] MulAddn (mul_addn_tiling.cpp:84): Check x1Shape failed, the 3rd dimension of x1 must be 1.";
        assert_eq!(
            ordinal_axis_from_refusal(third, &ins),
            Some(("x1".to_string(), 2, 1))
        );
        assert_eq!(rank_from_refusal(third, &names(&["x1", "x2"])), None);
        let second = "Check x2Shape failed, the second dimension of x2 must be 1.";
        assert_eq!(
            ordinal_axis_from_refusal(second, &ins),
            Some(("x2".to_string(), 1, 1))
        );
        for none in [
            "the first dimension of x1 must be 1.",
            "the 5th dimension of x1 must be 1.",
            "the dims of x1 not equal 3.",
        ] {
            assert_eq!(ordinal_axis_from_refusal(none, &ins), None, "{none}");
        }
        assert_eq!(
            rank_from_refusal("the dims of x1 not equal 3.", &names(&["x1"])),
            Some(("x1".to_string(), 3))
        );
    }

    /// moe_init_routing_quant's InferShape at the default shapes gives `expanded_x` [16384, 16384]:
    /// refused as a default, so that a smaller one is tried; im2col's nine-fold columns are not.
    #[test]
    fn an_output_past_sixteen_defaults_of_elements_refuses_the_default_shape() {
        let dir = tempfile::tempdir().unwrap();
        for f in ["h.cpp", "k.cpp"] {
            std::fs::write(dir.path().join(f), "").unwrap();
        }
        let manifest = |out: &str| {
            let text = format!(
                "[project]\nsoc = \"Ascend910B1\"\n[[op]]\nname = \"m\"\nhost = [\"h.cpp\"]\nkernel = [\"k.cpp\"]\n\
                 [[op.input]]\nname = \"expert_idx\"\ndtype = \"int32\"\nshape = [48, 16384]\n\
                 [[op.output]]\nname = \"expanded_x\"\ndtype = \"int8\"\nshape = {out}\n"
            );
            crate::manifest::Manifest::parse(text, &dir.path().join("ascend.toml")).unwrap()
        };
        let moe = manifest("[16384, 16384]");
        let why = oversized_output(&moe.ops[0]).expect("268 M elements are refused");
        assert!(why.starts_with(TOO_LARGE), "{why}");
        assert!(
            why.contains("`expanded_x` [16384, 16384]: 268435456 elements"),
            "{why}"
        );
        assert_eq!(oversized_output(&manifest("[48, 9, 16384]").ops[0]), None);
    }

    /// ops-cv's grid_sample, once its inputs have four axes: "only support (N, H, W, 2) for grid".
    #[test]
    fn a_refusal_spelling_out_a_shape_gives_its_numbers_to_those_axes() {
        let ins = vec![
            ("x".to_string(), vec![2u64, 4, 16, 256]),
            ("grid".to_string(), vec![2u64, 4, 16, 256]),
        ];
        let msg =
            "[error] GridSample (grid_sample_tiling.cpp:73): only support (N, H, W, 2) for grid";
        assert_eq!(
            tuple_axes_from_refusal(msg, &ins),
            [("grid".to_string(), 3, 2)]
        );
        // a tuple of another length, or one naming no input, gives nothing
        assert!(tuple_axes_from_refusal("only support (N, 2) for grid", &ins).is_empty());
        assert!(tuple_axes_from_refusal("only support (N, H, W, 2)", &ins).is_empty());
    }

    /// ops-cv's roi_align_rotated_grad: rois over [-1, 1) name image -1 and the kernel wrote before
    /// `y_grad`; a float `rois` gets [0, 1), an integer one or one with decided data is left alone.
    #[test]
    fn regions_of_interest_get_non_negative_data() {
        let tensor = |name: &str, dtype, range: Option<&str>, guess: Option<&str>| Tensor {
            name: name.to_string(),
            dtype,
            shape: vec![6, 8],
            values: None,
            range: range.map(str::to_string),
            data: None,
            guess: guess.map(str::to_string),
            list: None,
        };
        use crate::manifest::DType;
        let mut inputs = vec![
            tensor("x_grad", DType::Float32, None, None),
            tensor("rois", DType::Float32, None, Some("guess: a shape")),
            tensor("ROI", DType::Int32, None, None),
            tensor(
                "roi",
                DType::Float16,
                Some("[2.0, 3.0]"),
                Some("from the example"),
            ),
        ];
        region_operands(&mut inputs);
        assert_eq!(inputs[0].range, None);
        assert_eq!(inputs[1].range.as_deref(), Some("[0.0, 1.0]"));
        let note = inputs[1].guess.as_deref().unwrap();
        assert!(
            note.starts_with("guess: a shape; `rois` holds regions of interest"),
            "{note}"
        );
        assert_eq!(inputs[2].range, None);
        assert_eq!(inputs[3].range.as_deref(), Some("[2.0, 3.0]"));
    }

    /// ops-nn's chamfer_distance_grad numbers its index inputs (`idx1`, `idx2`): random data in
    /// [-100, 100) made its kernel read 17 GB past its points.
    #[test]
    fn numbered_and_suffixed_index_names_are_index_operands() {
        for n in [
            "idx1",
            "idx2",
            "indices",
            "Index",
            "gather_idx",
            "sorted_indices0",
        ] {
            assert!(is_index_name(n), "{n}");
        }
        for n in ["x1", "idxs_count", "index_size_x", "widx"] {
            assert!(!is_index_name(n), "{n}");
        }
    }

    /// ops-cv's grid_sample names its two inputs together; each gets the first rank offered.
    #[test]
    fn a_refusal_naming_several_inputs_gives_each_the_rank() {
        let ins = names(&["x", "grid", "bias"]);
        assert_eq!(
            ranks_from_refusal(
                "[error] GridSample (grid_sample_tiling.cpp:58): x / grid shape length should be 4 or 5",
                &ins
            ),
            [("x".to_string(), 4), ("grid".to_string(), 4)]
        );
        // one input: as rank_from_refusal
        assert_eq!(
            ranks_from_refusal("The bias of input should be 2D tensor.", &ins),
            [("bias".to_string(), 2)]
        );
        // a length that is no rank
        assert!(ranks_from_refusal("x / grid length should be 4", &ins).is_empty());
    }

    #[test]
    fn a_refusal_asking_for_another_inputs_last_axis_gives_it() {
        let ins = vec![
            ("x".to_string(), vec![48, 16384]),
            ("input_scale".to_string(), vec![48]),
        ];
        let msg = "[error] GeluQuant (gelu_quant_tiling.cpp:236): invalid shape rank: input_scale: 48: The last dim of input_scale must equal the last dim of x";
        assert_eq!(
            last_axis_from_refusal(msg, &ins),
            Some(("input_scale".to_string(), 0, 16384))
        );
        // already so, or no last dim spoken of: nothing
        let fitted = vec![ins[0].clone(), ("input_scale".to_string(), vec![16384])];
        assert_eq!(last_axis_from_refusal(msg, &fitted), None);
        assert_eq!(
            last_axis_from_refusal("input_scale must equal x", &ins),
            None
        );
    }

    #[test]
    fn a_refusal_of_an_axis_too_small_gives_it_the_lower_bound() {
        let ins = vec![
            ("y_diff".to_string(), vec![1, 1, 48, 16384]),
            ("rois".to_string(), vec![1, 1]),
        ];
        let msg = "[error] RoiAlignGrad (roi_align_grad_tiling.cpp:173): rois row size must be at least 5, but got 1.";
        assert_eq!(
            least_axis_from_refusal(msg, &ins),
            Some(("rois".to_string(), 1, 5))
        );
        // no row spoken of: the one axis of that size, and none where two have it
        let one = vec![("rois".to_string(), vec![48, 1])];
        assert_eq!(
            least_axis_from_refusal("rois size not less than 4, got 1", &one),
            Some(("rois".to_string(), 1, 4))
        );
        assert_eq!(
            least_axis_from_refusal("rois size not less than 4, got 1", &ins[1..]),
            None
        );
        // already large enough, or no size got: nothing
        assert_eq!(
            least_axis_from_refusal("rois row size must be at least 5, but got 7.", &ins),
            None
        );
        assert_eq!(
            least_axis_from_refusal("rois row size must be at least 5.", &ins),
            None
        );
    }

    /// CANN's EZ0011 reporter (`OP_LOGE_FOR_INVALID_SHAPEDIM(op, "input_scale", "2", "1")`, ops-nn's
    /// gelu_quant, whose per-channel scale init shaped like x) as the twin prints it: the rank wanted
    /// is the one it "should be", not the one the parameter has.
    #[test]
    fn the_shape_dim_reporter_gives_the_rank_it_should_be() {
        let ins = names(&["x", "input_scale", "input_offset"]);
        assert_eq!(
            ranks_from_refusal(
                "[error] GeluQuant (gelu_quant_tiling.cpp:231): Parameter input_scale has incorrect shape dim 2. It should be 1.",
                &ins
            ),
            [("input_scale".to_string(), 1)]
        );
    }

    /// Refusals of a fresh sample of ops-math / ops-nn: inputs named by variables after their rank
    /// (`xDim`), and "input" alone for the main one.
    #[test]
    fn a_refusal_names_inputs_by_their_rank_variables_or_as_the_input() {
        let ins = names(&["x", "grad", "argmax"]);
        assert_eq!(
            ranks_from_refusal(
                "[error] MaxPool3DGradWithArgmax (t.cpp:38): Input dim num should equal = 5, actual is xDim: 2, gradDim: 2, argmaxDim: 2.",
                &ins
            ),
            [
                ("x".to_string(), 5),
                ("grad".to_string(), 5),
                ("argmax".to_string(), 5)
            ]
        );
        let ins = names(&["x", "paddings"]);
        assert_eq!(
            ranks_from_refusal(
                "[error] PadV3GradReplicate (pad_grad_tiling_common.h:134): input dim is not 4, please check input.",
                &ins
            ),
            [("x".to_string(), 4)]
        );
        // "input" beside a named input names only that one
        assert_eq!(
            ranks_from_refusal("The paddings of input should be 1D tensor.", &ins),
            [("paddings".to_string(), 1)]
        );
        // a word merely starting with an input's name is not it
        assert!(ranks_from_refusal("xylophone dim is not 4", &names(&["x"])).is_empty());
        // ops-math's isin_part_v1: the rank it supports, not the one it got
        let ins = names(&["elementsNum", "test_elements"]);
        assert_eq!(
            ranks_from_refusal(
                "[error] IsinPartV1 (isin_part_v1_tiling.cpp:73): IsinPartV1: elementsNum is invalid, input dim is 2, support dim is 1",
                &ins
            ),
            [("elementsNum".to_string(), 1)]
        );
        // ops-nn's chamfer_distance_grad, refused by its InferShape: "rank-3"
        let ins = names(&["xyz1", "xyz2", "idx1"]);
        assert_eq!(
            ranks_from_refusal(
                "[error] ChamferDistanceGrad (chamfer_distance_grad_infershape.cpp:133): xyz1 and xyz2 must be rank-3 tensors, but got rank 2",
                &ins
            ),
            [("xyz1".to_string(), 3), ("xyz2".to_string(), 3)]
        );
    }

    #[test]
    fn a_rank_fit_keeps_leading_axes_or_takes_the_main_shapes_trailing_ones() {
        assert_eq!(fit_rank(&[48, 16384], 1, &[48, 16384]), vec![48]);
        assert_eq!(fit_rank(&[16384], 2, &[48, 16384]), vec![48, 16384]);
        assert_eq!(fit_rank(&[16384], 4, &[48, 16384]), vec![1, 1, 1, 16384]);
        assert_eq!(fit_rank(&[2, 3], 0, &[2, 3]), Vec::<u64>::new());
    }
}
