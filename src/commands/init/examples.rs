// What an operator's own aclnn example (`examples/test_aclnn_<op>.cpp`, which hicann's ops-math, ops-nn,
// ops-cv and ops-transformer keep beside every op) says about a valid call: each tensor it creates with
// `CreateAclTensor(data, shape, &addr, aclDataType::ACL_X, &tensor)`, its shape (a `std::vector<int64_t>`
// of integers or products of declared names), its dtype and, for integer data, the values the example
// fills it with, and the attrs it passes to `aclnn<Op>GetWorkspaceSize` as declared scalars. Where an
// op's operands must agree (MoE routing: expert ids, row indices, token counts), the example is the one
// place in the folder that gives shapes and index data that do.
//
// Owns: finding those examples under a project's `examples/` and reading them into a case in the
// OpDef's order (tensors and attrs matched by name, `expandedRowIdx` to `expanded_row_idx`, an
// `Optional` or `Out` suffix dropped, else by their place in the `GetWorkspaceSize` call; an optional
// input passed as `nullptr` is left out). A brace-matching reader, not a C++ parser: an example whose
// tensors do not cover every other OpDef input is not taken. Also what the example's index data says
// at another case's shapes (`carry`): a permutation of the rows, or ids below an axis of another
// tensor. Must not know the manifest's rendering, the tiling run or which case init keeps.

use super::aclnn_layer;
use super::tiling_tests::{
    CaseKind, CaseTensor, TilingCase, braced, declared, dims, integer, line_of, matching,
    split_top, without_comments,
};
use crate::manifest::DType;
use crate::project::opdef::{AttrKind, OpDef, ParamType};
use std::path::Path;

/// The cases of the op's examples under `root/examples`, then under the project's `test*` folders
/// (hicann/cann-learning-hub's tutorials keep their aclnn call in `test/main.cpp`), each folder's own
/// files first, then by path: at most one per file, the first `CreateAclTensor` of each name.
pub(super) fn find(root: &Path, def: &OpDef) -> Vec<TilingCase> {
    let mut dirs = vec![root.join("examples")];
    let mut tests: Vec<_> = std::fs::read_dir(root)
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path())
        .filter(|p| {
            p.is_dir()
                && p.file_name()
                    .and_then(|n| n.to_str())
                    .is_some_and(|n| n.starts_with("test"))
        })
        .collect();
    tests.sort();
    dirs.extend(tests);
    let mut files = vec![];
    for (k, dir) in dirs.iter().enumerate().filter(|(_, d)| d.is_dir()) {
        let mut found = vec![];
        crate::project::registered::files_deep(dir, &["cpp"], &mut found);
        // the folder's own examples before those of arch subfolders (`examples/arch35/`)
        found.sort_by_key(|p| p.components().count());
        files.extend(found.into_iter().map(|f| (k > 0, f)));
    }
    files
        .iter()
        .filter_map(|(in_tests, path)| {
            let text = std::fs::read_to_string(path).ok()?;
            // a test folder's program is taken only when it calls this op by its type: a tutorial's
            // `test_sub/` beside `test/` calls another (aclnn names may differ from the OpDef's type,
            // upsample_nearest2d_grad's is ...Backward, so `examples/` is not held to it)
            if *in_tests && called_op(&without_comments(&text)) != Some(def.op_type.as_str()) {
                return None;
            }
            let rel = path.strip_prefix(root).unwrap_or(path).to_string_lossy();
            let case = read(&text, &rel, def)?;
            // then the same call as the kernel gets it, where the op's aclnn layer lays its tensors
            // out anew first (tried after the example's own: the layer may do so on one path only)
            let relaid = called_op(&without_comments(&text))
                .map(|called| aclnn_layer::relaid_inputs(root, called))
                .unwrap_or_default();
            let kernel_view = (!relaid.is_empty())
                .then(|| read_as(&text, &rel, def, &relaid))
                .flatten();
            Some(std::iter::once(case).chain(kernel_view))
        })
        .flatten()
        .collect()
}

/// One tensor an example creates.
#[derive(Debug)]
struct Created {
    name: String,
    shape: Vec<u64>,
    dtype: Option<DType>,
    /// Integer data as a manifest `values` list, when the example gives one element by element.
    values: Option<String>,
}

/// The case one example's text gives, or None when it does not create every OpDef input (but optional
/// ones it passes as null).
pub(super) fn read(text: &str, file: &str, def: &OpDef) -> Option<TilingCase> {
    read_as(text, file, def, &[])
}

/// `read`, with the call's tensors as the kernel gets them after the op's aclnn layer `relaid` them
/// (`aclnn_layer`); None unless some tensor of the case is laid out anew. The outputs are left to the
/// op's InferShape: the layer transposes the kernel's outputs back, so the example's are the user's.
fn read_as(
    text: &str,
    file: &str,
    def: &OpDef,
    relaid: &[aclnn_layer::Relaid],
) -> Option<TilingCase> {
    let text = &without_comments(text);
    if def
        .inputs
        .iter()
        .chain(&def.outputs)
        .any(|p| p.param_type == ParamType::Dynamic)
    {
        return None;
    }
    // Each tensor creation as (where, tensor, shape name, dtype name, data name): the aclnn examples'
    // `CreateAclTensor(data, shape, &addr, aclDataType::ACL_X, &tensor)` helper, and
    // `aclTensor* input0 = aclCreateTensor(shape.data(), shape.size(), ACL_FLOAT, ...)`, the aclnn call
    // itself as the CANN tutorials write it (hicann/cann-learning-hub's add_custom), whose data goes
    // through device memory: none is read.
    let mut calls: Vec<(usize, &str, &str, &str, Option<&str>)> = vec![];
    // An example's helper may also take a format (`CreateAclTensor(data, shape, ACL_FORMAT_NCHW,
    // &addr, ACL_FLOAT, &tensor)`, ops-cv's roi_align_grad; `CreateAclTensor(data, shape, &addr,
    // ACL_FLOAT, &tensor, ACL_FORMAT_ND)`, its three_interpolate_backward): six arguments, the dtype
    // the `ACL_` one that is no format, the tensor the last one taken by address. With five the
    // places are fixed, whatever the dtype argument is (ops-nn's prelu passes a variable, `aclType`).
    for (at, args) in calls_of(text, "CreateAclTensor") {
        let is_dtype = |a: &str| a.contains("ACL_") && !a.contains("ACL_FORMAT");
        let (dtype, tensor) = if args.len() > 5 && args.iter().any(|a| a.contains("ACL_FORMAT")) {
            (
                args.iter().find(|a| is_dtype(a)),
                args.iter().rev().find(|a| a.trim_start().starts_with('&')),
            )
        } else {
            (args.get(3), args.get(4))
        };
        if let (Some(data), Some(shape), Some(dtype), Some(tensor)) = (
            args.first(),
            args.get(1),
            dtype,
            tensor.map(|a| a.trim_start_matches('&').trim()),
        ) {
            calls.push((at, tensor, shape, dtype, Some(*data)));
        }
    }
    // An example's own variants of the helper, one per layout (`CreateAclTensorND(shape, &addr,
    // &hostAddr, aclDataType::ACL_BF16, &tensor)` and `CreateAclTensorNZ(...)` in ops-transformer's
    // mla_prolog_v2): their argument order is their own, so the shape is the argument that names a
    // declared shape, the dtype the one naming an `ACL_` type and the tensor the last; no data is
    // read. The layout is the OpDef's to say (the twin stores a FRACTAL_NZ input as the OpDef
    // declares it).
    for (at, args) in suffixed_calls(text, "CreateAclTensor") {
        let Some(tensor) = args.last().map(|a| a.trim_start_matches('&').trim()) else {
            continue;
        };
        let dtype = args.iter().find(|a| a.contains("ACL_"));
        let shape = args
            .iter()
            .find(|a| is_identifier(a) && shape_of(text, a).is_some());
        if let (Some(shape), Some(dtype)) = (shape, dtype)
            && is_identifier(tensor)
        {
            calls.push((at, tensor, shape, dtype, None));
        }
    }
    for (at, args) in calls_of(text, "aclCreateTensor") {
        let assigned = text[..at].trim_end().strip_suffix('=').map(|lhs| {
            lhs.trim_end()
                .rsplit(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                .next()
                .unwrap_or("")
        });
        if let (Some(shape), Some(dtype), Some(tensor)) = (
            args.first().map(|a| a.trim_end_matches(".data()").trim()),
            args.get(2),
            assigned.filter(|n| !n.is_empty()),
        ) {
            calls.push((at, tensor, shape, dtype, None));
        }
    }
    // The GE IR examples (`test_geir_<op>.cpp`: the op built into a graph) add each tensor through
    // their own macros, `ADD_INPUT(1, tokens, DT_FLOAT16, tokens_shape)`, `ADD_CONST_INPUT(...)` and
    // `ADD_OUTPUT(1, y, DT_FLOAT16, y_shape)`: index, the OpDef's name, dtype, the shape's variable.
    // Their data is generated by the program: none is read. The macros' own definitions name no
    // declared shape and are passed over.
    for macro_name in ["ADD_INPUT", "ADD_CONST_INPUT", "ADD_OUTPUT"] {
        for (at, args) in calls_of(text, macro_name) {
            if let [_, tensor, dtype, shape] = args.as_slice() {
                calls.push((at, tensor, shape, dtype, None));
            }
        }
    }
    calls.sort_by_key(|c| c.0);
    let mut created: Vec<Created> = vec![];
    // every tensor the example creates, whether or not its shape is read: each holds its place in the
    // GetWorkspaceSize call (roi_align_grad's output shape is a helper's result)
    let mut tensors: Vec<&str> = vec![];
    let mut first_line = None;
    for (at, tensor, shape, dtype, data) in calls {
        if !tensors.contains(&tensor) && is_identifier(tensor) {
            tensors.push(tensor);
        }
        if created.iter().any(|c| c.name == tensor) {
            continue;
        }
        let Some(shape) = shape_of(text, shape) else {
            continue;
        };
        let dtype = acl_dtype(dtype);
        let elems: u64 = shape.iter().product();
        let values = data
            .zip(dtype.filter(|d| !d.is_float()))
            .and_then(|(data, _)| integer_data(text, data, elems));
        first_line.get_or_insert(line_of(text, at));
        created.push(Created {
            name: tensor.to_string(),
            shape,
            dtype,
            values,
        });
    }
    // An int array passed for an input (`actSeqLen = aclCreateIntArray(data.data(), data.size())`):
    // the aclnn layer hands the op its values as an int64 host tensor, as ops-transformer's
    // nsa_compress family passes its value-dependent `act_seq_len`. Taken only when its variable names
    // an OpDef input: a list attr is passed the same way (upsample_nearest2d_grad's output_size).
    for (at, args) in calls_of(text, "aclCreateIntArray") {
        let assigned = text[..at].trim_end().strip_suffix('=').map(|lhs| {
            lhs.trim_end()
                .rsplit(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                .next()
                .unwrap_or("")
        });
        let Some(tensor) = assigned.filter(|n| {
            !n.is_empty()
                && !created.iter().any(|c| c.name == *n)
                && def.inputs.iter().any(|p| same_name(n, &p.name))
        }) else {
            continue;
        };
        let Some(data) = args.first().map(|a| a.trim_end_matches(".data()").trim()) else {
            continue;
        };
        let Some(elems) = array_length(text, data, args.get(1).copied()) else {
            continue;
        };
        first_line.get_or_insert(line_of(text, at));
        created.push(Created {
            name: tensor.to_string(),
            shape: vec![elems],
            dtype: Some(DType::Int64),
            values: integer_data(text, data, elems),
        });
    }
    // By name, else by position: the tensors and nulls `aclnn<Op>GetWorkspaceSize` takes, in order,
    // when they are as many as the OpDef's inputs and outputs (its layer keeps the OpDef's order;
    // moe_token_permute_with_routing_map passes `x, indices` for `tokens, routing_map`).
    let slots = workspace_call(text).map(|args| {
        args.into_iter()
            .filter(|a| {
                *a == "nullptr" || created.iter().any(|c| c.name == *a) || tensors.contains(a)
            })
            .collect::<Vec<_>>()
    });
    // An output named like an input is that input updated in place (dequant_rope_quant_kvcache's
    // k_cache): the call may pass it once, as the input.
    let in_place = |k: usize| def.inputs.iter().any(|p| p.name == def.outputs[k].name);
    let own_outputs = (0..def.outputs.len()).filter(|&k| !in_place(k)).count();
    let passes_in_place = slots
        .as_ref()
        .is_some_and(|s| s.len() == def.inputs.len() + def.outputs.len());
    let slots = slots.filter(|s| {
        s.len() == def.inputs.len() + def.outputs.len() || s.len() == def.inputs.len() + own_outputs
    });
    let mut relaid_at = vec![];
    let mut changes = vec![];
    for t in relaid {
        let Some(c) = slots
            .as_ref()
            .and_then(|s| s.get(t.slot))
            .and_then(|var| created.iter_mut().find(|c| c.name == *var))
        else {
            continue;
        };
        // index data in the user's order would be scrambled by the new layout: left as it is; a
        // float tensor's data (three_interpolate_backward's `grad_x`, all ones) is generated instead
        let bytes = c.dtype.map_or(4, |d| d.size() as u64);
        let float = c.dtype.is_some_and(|d| d.is_float());
        if let Some(shape) = t
            .layout
            .apply(&c.shape, bytes)
            .filter(|_| c.values.is_none() || float)
        {
            c.shape = shape;
            c.values = None;
            relaid_at.push(t.at.clone());
            if !changes.contains(&t.layout.describe()) {
                changes.push(t.layout.describe());
            }
        }
    }
    if !relaid.is_empty() && relaid_at.is_empty() {
        return None;
    }
    let by_position = |k: usize| {
        let slot = slots.as_ref()?.get(k)?;
        created.iter().find(|c| c.name == *slot)
    };
    let null_at = |k: usize| slots.as_ref().and_then(|s| s.get(k)) == Some(&"nullptr");
    let take = |name: &str| created.iter().find(|c| same_name(&c.name, name));
    let mut inputs = vec![];
    let mut values = vec![];
    let mut absent = vec![];
    let passed = |c: &Created| {
        slots
            .as_ref()
            .is_some_and(|s| s.iter().any(|a| *a == c.name))
    };
    for (i, p) in def.inputs.iter().enumerate() {
        // an optional input the call passes as null is left out, even where the example creates a
        // tensor of its name that the call never passes (mla_prolog_v3's `quantScaleCkr`, created and
        // then passed as nullptr, which its tiling checks: "quantScaleCkr expected null")
        if p.param_type == ParamType::Optional
            && null_at(i)
            && take(&p.name).is_none_or(|c| !passed(c))
        {
            absent.push(i);
            inputs.push(CaseTensor {
                shape: vec![],
                dtype: None,
            });
            continue;
        }
        let c = take(&p.name).or_else(|| by_position(i))?;
        inputs.push(CaseTensor {
            shape: c.shape.clone(),
            dtype: c.dtype,
        });
        if let Some(v) = &c.values {
            values.push((i, v.clone()));
        }
    }
    // outputs only when every one is found, by name or place (the manifest takes them by position); an
    // output updated in place that the call does not pass is its input
    let outputs = def
        .outputs
        .iter()
        .enumerate()
        .map(|(k, p)| {
            let place = if passes_in_place {
                Some(k)
            } else {
                (!in_place(k)).then(|| (0..k).filter(|&j| !in_place(j)).count())
            };
            let found = take(&p.name)
                .or_else(|| place.and_then(|k| by_position(def.inputs.len() + k)))
                .map(|c| CaseTensor {
                    shape: c.shape.clone(),
                    dtype: c.dtype,
                });
            found.or_else(|| {
                let i = def.inputs.iter().position(|q| q.name == p.name)?;
                inputs.get(i).filter(|t| !t.shape.is_empty()).cloned()
            })
        })
        .collect::<Option<Vec<_>>>()
        .filter(|_| relaid_at.is_empty())
        .unwrap_or_default();
    let mut test = Path::new(file)
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    if !relaid_at.is_empty() {
        let changes: Vec<String> = changes.iter().map(|c| format!("{c}s")).collect();
        test = format!(
            "{test}` with the {} of its aclnn layer `{}",
            changes.join(" and "),
            relaid_at.join("`, `")
        );
    }
    Some(TilingCase {
        kind: CaseKind::Example,
        op_type: def.op_type.clone(),
        file: file.to_string(),
        line: first_line.unwrap_or(1),
        test,
        inputs,
        outputs,
        attrs: attrs(text, def, &created, &tensors),
        values,
        absent,
        carried: vec![],
        grown: None,
        widened: None,
        kernel_view: !relaid_at.is_empty(),
    })
}

/// How an example's integer data is drawn at another case's shapes: the kind of data it is, found in its
/// values and the example's shapes, not the values themselves.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Carried {
    /// The values are 0..n, each once (`expanded_row_idx`: every expanded row named once).
    Permutation,
    /// The values are ids below `bound`, the size of the case's `axis` (as `axis 0 of \`bias\``);
    /// ascending when the example's are.
    Below {
        bound: u64,
        axis: String,
        sorted: bool,
    },
    /// Every value is this 0 or 1 (moe_token_unpermute_with_routing_map_grad's token ids all 0): in
    /// bounds of any axis as an id, and a flag as a mask.
    Same(i64),
    /// The example's values as they are, for a case with the example's shapes (every tensor's): what
    /// the example calls valid is valid there (expand_into_jagged_permute's offsets, ascending and
    /// ending at the output's length, are no kind above).
    Verbatim(String),
}

impl Carried {
    /// What a manifest's note says of it.
    pub(super) fn describe(&self) -> String {
        match self {
            Carried::Permutation => "a permutation of its indices".into(),
            Carried::Below { axis, sorted, .. } => format!(
                "{}ids below the size of {axis}",
                if *sorted { "ascending " } else { "" }
            ),
            Carried::Same(v) => format!("{v} throughout"),
            Carried::Verbatim(v) => format!("{v} (its shapes are these)"),
        }
    }
}

/// Gives each integer input of `case` that has no data the kind of data `example` gives it, drawn at
/// `case`'s shapes: a tiling test has an op's large shapes but no data, and the uniform [-100, 100) of
/// an index operand reads out of bounds (moe_finalize_routing_v2's `expanded_row_idx`, a permutation of
/// the expanded rows in its example, and `expert_idx`, below the rows of `bias`). Values that are 0..n
/// once each are a permutation (if the case's count stays within the axes of the example as long as n;
/// else ids below them); otherwise non-negative values whose largest plus one is the size of
/// some axis of the example are ids below that axis, and below the smallest such axis of `case` (the
/// example cannot say which axis it is; the smallest is in bounds of all); all 0 or all 1 stays so.
/// Other data is not carried.
/// `names`: the OpDef's inputs, then its outputs.
pub(super) fn carry(example: &TilingCase, case: &mut TilingCase, names: &[&str]) {
    let tensors = |c: &TilingCase| -> Vec<Vec<u64>> {
        c.inputs
            .iter()
            .enumerate()
            .map(|(k, t)| {
                if c.absent.contains(&k) {
                    vec![]
                } else {
                    t.shape.clone()
                }
            })
            .chain(c.outputs.iter().map(|t| t.shape.clone()))
            .collect()
    };
    let (from, to) = (tensors(example), tensors(case));
    let name = |k: usize| {
        names
            .get(k)
            .map_or(format!("tensor {k}"), |n| format!("`{n}`"))
    };
    for (i, text) in &example.values {
        let i = *i;
        if case.values.iter().any(|(k, _)| *k == i)
            || case.absent.contains(&i)
            || case
                .inputs
                .get(i)
                .is_none_or(|t| t.dtype.is_some_and(|d| d.is_float()))
        {
            continue;
        }
        if from == to {
            case.carried.push((i, Carried::Verbatim(text.clone())));
            continue;
        }
        let Some(values) = text
            .trim()
            .strip_prefix('[')
            .and_then(|t| t.strip_suffix(']'))
            .map(|t| {
                t.split(',')
                    .map(|v| v.trim().parse::<i64>().ok())
                    .collect::<Option<Vec<_>>>()
            })
            .flatten()
            .filter(|v| v.len() > 1)
        else {
            continue;
        };
        let mut sorted = values.clone();
        sorted.sort_unstable();
        let (lo, hi) = (sorted[0], sorted[sorted.len() - 1]);
        // the axes of the example as large as the ids' bound, at this case's size
        let bound = hi.max(0) as u64 + 1;
        let sizes: Vec<(u64, usize, usize)> = from
            .iter()
            .zip(&to)
            .enumerate()
            .filter(|(_, (f, t))| f.len() == t.len())
            .flat_map(|(k, (f, t))| {
                f.iter()
                    .zip(t.iter())
                    .enumerate()
                    .filter(|(_, (fd, _))| **fd == bound)
                    .map(move |(a, (_, td))| (*td, k, a))
            })
            .collect();
        let below = |sizes: &[(u64, usize, usize)]| {
            sizes.iter().min().map(|&(size, k, a)| Carried::Below {
                bound: size,
                axis: format!("axis {a} of {}", name(k)),
                // two or three values in order may be so by chance
                sorted: values.len() >= 4 && values.windows(2).all(|w| w[0] <= w[1]),
            })
        };
        let elements: u64 = case.inputs[i].shape.iter().product();
        let carried = if sorted.iter().enumerate().all(|(k, &v)| v == k as i64) {
            // a permutation of 0..n, unless the case's n would pass the axes it indexed (rope's
            // positions [0, 1] name rows of a 2-row cache; at the test's 48 x 48 positions and 48
            // rows they are row ids, not a permutation)
            if sizes.iter().all(|&(size, _, _)| size >= elements) {
                Carried::Permutation
            } else {
                let Some(b) = below(&sizes) else { continue };
                b
            }
        } else if lo >= 0 && lo != hi {
            let Some(b) = below(&sizes) else { continue };
            b
        } else if lo == hi && (lo == 0 || lo == 1) {
            Carried::Same(lo)
        } else {
            continue;
        };
        case.carried.push((i, carried));
    }
}

/// Which axis `grown` multiplies.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Along {
    /// The main input's first axis: its rows.
    Rows,
    /// The main input's last axis (rank 2 or more): the row's width, a hidden size or a head dim.
    Width,
}

/// `case` with the main input's (the first present one's) rows or width multiplied by `factor`:
/// every tensor whose first (or last) axis is the main input's has that axis multiplied, the rest
/// kept, and the integer data `example` gives carried again at the new shapes (`carry`). Widening
/// leaves 1-D tensors alone when the main input's rows and width are the same size (which of them a
/// 1-D tensor follows is not known). None when the case has data that cannot be carried (a tiling
/// test's constant input, example data of no kind `carry` knows) or no such axis to grow.
pub(super) fn grown(
    case: &TilingCase,
    example: Option<&TilingCase>,
    names: &[&str],
    factor: u64,
    along: Along,
) -> Option<TilingCase> {
    if case.kind == CaseKind::TilingTest && !case.values.is_empty() {
        return None;
    }
    let main_shape = case.main_shape()?;
    let (rows, width) = (main_shape[0], *main_shape.last()?);
    if along == Along::Width && main_shape.len() < 2 {
        return None;
    }
    let mut out = case.clone();
    let scale = |t: &mut CaseTensor| match along {
        Along::Rows => {
            if t.shape.first() == Some(&rows) {
                t.shape[0] = rows.checked_mul(factor).unwrap_or(u64::MAX);
            }
        }
        Along::Width => {
            let last = t.shape.len().wrapping_sub(1);
            if t.shape.last() == Some(&width) && (t.shape.len() > 1 || rows != width) {
                t.shape[last] = width.checked_mul(factor).unwrap_or(u64::MAX);
            }
        }
    };
    for (i, t) in out.inputs.iter_mut().enumerate() {
        if !case.absent.contains(&i) {
            scale(t);
        }
    }
    out.outputs.iter_mut().for_each(scale);
    out.values.clear();
    out.carried.clear();
    match along {
        Along::Rows => {
            let first = case.grown.map_or(rows, |(from, _)| from);
            out.grown = Some((first, rows.saturating_mul(factor)));
        }
        Along::Width => {
            let first = case.widened.map_or(width, |(from, _)| from);
            out.widened = Some((first, width.saturating_mul(factor)));
        }
    }
    if let Some(example) = example {
        carry(example, &mut out, names);
        if example
            .values
            .iter()
            .any(|(i, _)| !out.carried.iter().any(|(k, _)| k == i))
        {
            return None;
        }
    }
    Some(out)
}

/// Whether the example's variable `var` (or a member's field) names the OpDef parameter `param`:
/// equal without case and underscores, after dropping an `Optional`, `Out`, `Tensor` or `Ref`
/// suffix (`x2Optional` is `x2`, `yOut` is `y`).
fn same_name(var: &str, param: &str) -> bool {
    // a member names what its field does (`testCase.pooledHeight` is `pooled_height`)
    let var = var.rsplit_once('.').map_or(var, |(_, field)| field);
    let norm = |s: &str| -> String {
        s.chars()
            .filter(|c| c.is_ascii_alphanumeric())
            .map(|c| c.to_ascii_lowercase())
            .collect()
    };
    let (var, param) = (norm(var), norm(param));
    if var == param {
        return true;
    }
    ["optional", "out", "tensor", "ref"]
        .iter()
        .any(|s| var.strip_suffix(s).is_some_and(|v| v == param))
}

/// The dims of the `std::vector<int64_t> NAME = {..};` the example declares: integers, or products of
/// integers and declared names.
fn shape_of(text: &str, name: &str) -> Option<Vec<u64>> {
    let decl = declared(text, name)?;
    dims(
        braced(decl.trim_start_matches('(').trim_end_matches(')'))?,
        text,
    )
}

/// `std::vector<T> NAME = {v, ...};` with `elems` integers, `NAME(elems, v)` or `NAME(elems)` (zeros),
/// then the elements the example sets to literals one by one: the data as a manifest `values` list
/// (None when an element is set otherwise, in a loop or from a computed value).
fn integer_data(text: &str, name: &str, elems: u64) -> Option<String> {
    let decl = declared(text, name)?;
    let list: Vec<i64> = if let Some(items) = braced(decl) {
        split_top(items)
            .iter()
            .map(|v| v.trim().parse::<i64>().ok())
            .collect::<Option<Vec<_>>>()?
    } else {
        let args = split_top(decl.strip_prefix('(')?.strip_suffix(')')?);
        // `NAME(n)` is n zeros, as a vector's elements are value-initialised
        let (n, v) = match args.as_slice() {
            [n] => (n, "0"),
            [n, v] => (n, *v),
            _ => return None,
        };
        let n = *dims(n, text)?.first()?;
        let v: i64 = v.trim().parse().ok()?;
        vec![v; n.min(elems + 1) as usize]
    };
    // then the elements the example sets one by one (`actSeqLenHostData[0] = 32;`); any other use that
    // may change it (`std::iota(v.begin(), ...)`, `v.push_back(x)`, `v[i] = ...` in a loop, a helper
    // given the vector) leaves the data unknown
    let mut list = list;
    for (at, _) in text.match_indices(name) {
        let whole = !text[..at].ends_with(|c: char| c.is_ascii_alphanumeric() || c == '_')
            && !text[at + name.len()..]
                .starts_with(|c: char| c.is_ascii_alphanumeric() || c == '_');
        if !whole {
            continue;
        }
        let rest = text[at + name.len()..].trim_start();
        if let Some(index) = rest.strip_prefix('[') {
            let Some((k, after)) = index.split_once(']') else {
                return None;
            };
            let after = after.trim_start();
            // an element changed in place (`v[0] += 4`, `v[1]++`, `++v[1]`)
            let compound = [
                "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "<<=", ">>=", "++", "--",
            ];
            let before = text[..at].trim_end();
            if compound.iter().any(|op| after.starts_with(op))
                || before.ends_with("++")
                || before.ends_with("--")
            {
                return None;
            }
            let Some(value) = after.strip_prefix('=').filter(|r| !r.starts_with('=')) else {
                continue; // an element read
            };
            let value = value.split(';').next().unwrap_or("");
            let (Some(k), Some(v)) = (
                k.trim().parse::<usize>().ok(),
                value.trim().parse::<i64>().ok(),
            ) else {
                return None;
            };
            *list.get_mut(k)? = v;
        } else if let Some(member) = rest.strip_prefix('.') {
            if !(member.starts_with("data()") || member.starts_with("size()")) {
                return None;
            }
        } else if rest.starts_with([',', ')'])
            && !text[..at].trim_end().ends_with("CreateAclTensor(")
        {
            return None;
        }
    }
    (list.len() as u64 == elems && elems > 0).then(|| {
        format!(
            "[{}]",
            list.iter()
                .map(i64::to_string)
                .collect::<Vec<_>>()
                .join(", ")
        )
    })
}

/// The length of the data `aclCreateIntArray(NAME.data(), SIZE)` passes: SIZE when it is an integer
/// expression, else the count of `NAME`'s declaration (`{v, ...}`, `(n)` or `(n, v)`).
fn array_length(text: &str, name: &str, size: Option<&str>) -> Option<u64> {
    if let Some(n) = size
        .and_then(|s| integer(s, text, 0))
        .and_then(|n| u64::try_from(n).ok())
    {
        return Some(n);
    }
    let decl = declared(text, name)?;
    let n = match braced(decl) {
        Some(items) => split_top(items).len() as u64,
        None => {
            let args = split_top(decl.strip_prefix('(')?.strip_suffix(')')?);
            u64::try_from(integer(args.first()?, text, 0)?).ok()?
        }
    };
    (n > 0).then_some(n)
}

/// A list attr as an example passes it: `aclCreateIntArray(sizeData.data(), sizeData.size())` over a
/// declared `std::vector<int64_t> sizeData = {3, 3};` (upsample_nearest2d_grad's output_size), as a
/// manifest list.
fn int_array(text: &str, init: &str) -> Option<String> {
    let open = init.find("aclCreateIntArray(")? + "aclCreateIntArray".len();
    let close = matching(init, open)?;
    let args = split_top(&init[open + 1..close]);
    let data = args.first()?.trim();
    let name = data.strip_suffix(".data()").unwrap_or(data).trim();
    let items = braced(declared(text, name)?)?;
    let list = split_top(items)
        .iter()
        .map(|v| integer(v, text, 0))
        .collect::<Option<Vec<_>>>()?;
    Some(format!(
        "[{}]",
        list.iter()
            .map(i64::to_string)
            .collect::<Vec<_>>()
            .join(", ")
    ))
}

/// Every call of the function `name` in `text` (not a longer name ending in it): where it starts and
/// its arguments, trimmed.
/// The calls of functions whose names extend `stem` (`CreateAclTensorND(` for `CreateAclTensor`):
/// (where, the arguments). Definitions and declarations are calls too to this reader; their arguments
/// name no declared shape.
fn suffixed_calls<'t>(text: &'t str, stem: &str) -> Vec<(usize, Vec<&'t str>)> {
    let mut out = vec![];
    for (at, _) in text.match_indices(stem) {
        if text[..at].ends_with(|c: char| c.is_ascii_alphanumeric() || c == '_') {
            continue;
        }
        let rest = &text[at + stem.len()..];
        let suffix = rest
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .unwrap_or(rest.len());
        if suffix == 0 || !rest[suffix..].starts_with('(') {
            continue;
        }
        let open = at + stem.len() + suffix;
        if let Some(close) = matching(text, open) {
            out.push((
                at,
                split_top(&text[open + 1..close])
                    .into_iter()
                    .map(str::trim)
                    .collect(),
            ));
        }
    }
    out
}

/// A plain C++ name (`weightDqShape`), not an expression or a declaration.
fn is_identifier(s: &str) -> bool {
    !s.is_empty()
        && !s.starts_with(|c: char| c.is_ascii_digit())
        && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
}

fn calls_of<'t>(text: &'t str, name: &str) -> Vec<(usize, Vec<&'t str>)> {
    let call = format!("{name}(");
    text.match_indices(&call)
        .filter(|(at, _)| !text[..*at].ends_with(|c: char| c.is_ascii_alphanumeric() || c == '_'))
        .filter_map(|(at, _)| {
            let open = at + name.len();
            let close = matching(text, open)?;
            Some((
                at,
                split_top(&text[open + 1..close])
                    .into_iter()
                    .map(str::trim)
                    .collect(),
            ))
        })
        .collect()
}

/// The element type an `aclDataType` name gives (`aclDataType::ACL_FLOAT16`, `ACL_BF16`), or a GE
/// one (`ge::DT_FLOAT16`, `DT_INT32`: the GE IR examples).
fn acl_dtype(name: &str) -> Option<DType> {
    if let Some(at) = name.rfind("DT_") {
        return DType::from_ge_name(name[at..].trim());
    }
    name.rsplit("ACL_")
        .next()
        .and_then(|d| DType::from_ge_name(&format!("DT_{}", d.trim())))
}

/// The op an example calls, `SubCustom` of `aclnnSubCustomGetWorkspaceSize(`, when it spells it so.
fn called_op(text: &str) -> Option<&str> {
    let at = text.find("GetWorkspaceSize(")?;
    let head = &text[..at];
    let start = head
        .rfind(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .map_or(0, |i| i + 1);
    head[start..]
        .strip_prefix("aclnn")
        .filter(|op| !op.is_empty())
}

/// The arguments of the example's `aclnn<Op>GetWorkspaceSize(...)` call, trimmed.
fn workspace_call(text: &str) -> Option<Vec<&str>> {
    // the first call, past a declaration of the function the example may make first (ops-cv's
    // three_interpolate_backward declares it with its parameters' types: `const aclTensor* grad_x`)
    text.match_indices("GetWorkspaceSize(").find_map(|(at, _)| {
        let open = at + "GetWorkspaceSize".len();
        let close = matching(text, open)?;
        let args: Vec<&str> = split_top(&text[open + 1..close])
            .into_iter()
            .map(str::trim)
            .collect();
        // a parameter's type, not a cast (`(aclTensor *)nullptr`)
        let typed = |a: &&str| {
            !a.starts_with('(') && (a.contains("aclTensor") || a.contains("aclOpExecutor"))
        };
        (!args.iter().any(typed)).then_some(args)
    })
}

/// The attrs the example passes to `aclnn<Op>GetWorkspaceSize` as names it declares with a literal
/// (`int64_t dropPadMode = 0;`), matched to the OpDef's attrs by name, else by place when the call's
/// other arguments (not tensors `created`, not null, not `&out` pointers) are as many as the OpDef's
/// attrs (moe_token_permute_with_routing_map passes `numTokenOut, padMode` for `num_out_tokens,
/// drop_and_pad`), and written as its kind wants.
fn attrs(text: &str, def: &OpDef, created: &[Created], tensors: &[&str]) -> Vec<(String, String)> {
    let Some(args) = workspace_call(text) else {
        return graph_attrs(text, def);
    };
    let scalars: Vec<&str> = args
        .iter()
        .copied()
        .filter(|a| {
            *a != "nullptr"
                && !a.starts_with('&')
                && !created.iter().any(|c| c.name == *a)
                && !tensors.contains(a)
        })
        .collect();
    let by_place = scalars.len() == def.attrs.len();
    let mut out = vec![];
    for (k, a) in def.attrs.iter().enumerate() {
        let named = args.iter().copied().find(|x| same_name(x, &a.name));
        let Some(arg) = named.or_else(|| by_place.then(|| scalars[k])) else {
            continue;
        };
        if let Some(value) = attr_value(text, a.kind, arg) {
            out.push((a.name.clone(), value));
        }
    }
    out
}

/// The attrs a GE IR example sets on its op: `op.set_attr_alpha(1.0f)`, or through its own
/// `ADD_INPUT_ATTR(expert_token_num_type, 1)` macro, by the OpDef's names.
fn graph_attrs(text: &str, def: &OpDef) -> Vec<(String, String)> {
    let macro_set = calls_of(text, "ADD_INPUT_ATTR");
    def.attrs
        .iter()
        .filter_map(|a| {
            let set = calls_of(text, &format!("set_attr_{}", a.name));
            let arg = set
                .iter()
                .find_map(|(_, args)| args.first().copied())
                .or_else(|| {
                    macro_set
                        .iter()
                        .find_map(|(_, args)| match args.as_slice() {
                            [name, value] if *name == a.name => Some(*value),
                            _ => None,
                        })
                })?;
            Some((a.name.clone(), attr_value(text, a.kind, arg)?))
        })
        .collect()
}

/// An attr's value as the manifest writes it, from an example's argument: a declared name's
/// initialiser, else the argument itself (`"BSND"`, `true`, `0.5` passed as is), as its kind wants.
fn attr_value(text: &str, kind: AttrKind, arg: &str) -> Option<String> {
    let v = declared(text, arg).map_or(arg, str::trim);
    let v = v.trim_end_matches(['f', 'F', 'L', 'l']);
    match kind {
        AttrKind::Int => v.parse::<i64>().ok().map(|x| x.to_string()),
        AttrKind::Float => v.parse::<f64>().ok().map(|x| {
            if x.fract() == 0.0 && x.abs() < 1e15 {
                format!("{x:.1}")
            } else {
                format!("{x}")
            }
        }),
        AttrKind::Bool => matches!(v, "true" | "false").then(|| v.to_string()),
        AttrKind::String => v
            .strip_prefix('"')
            .and_then(|s| s.strip_suffix('"'))
            .map(|s| format!("{s:?}")),
        AttrKind::ListInt => int_array(text, v),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::project::opdef::{AttrDef, ParamDef};

    fn param(name: &str, param_type: ParamType) -> ParamDef {
        ParamDef {
            name: name.to_string(),
            param_type,
            dtypes: vec![],
            formats: vec![],
            value_depend: false,
            init_value: false,
        }
    }

    // Written for this test in the shape of an aclnn example (not copied from a repository).
    const EXAMPLE: &str = r#"
int main() {
  int64_t rows = 3;
  std::vector<int64_t> expandedXShape = {rows * 2, 4};
  std::vector<int64_t> rowIdxShape = {rows * 2};
  std::vector<int64_t> scalesOptionalShape = {3, 2};
  std::vector<int64_t> outShape = {3, 4};
  std::vector<float> expandedXHostData(24, 1.0f);
  std::vector<int32_t> rowIdxHostData = {2, 1, 4, 3, 0, 5};
  std::vector<float> scalesHostData = {1.3, 1.6, 1.2, 1.8, 1.2, 2.3};
  std::vector<float> outHostData(12, 0);
  int64_t dropPadMode = 1;
  ret = CreateAclTensor(expandedXHostData, expandedXShape, &expandedXAddr, aclDataType::ACL_FLOAT16, &expandedX);
  ret = CreateAclTensor(rowIdxHostData, rowIdxShape, &rowIdxAddr, aclDataType::ACL_INT32, &rowIdx);
  ret = CreateAclTensor(scalesHostData, scalesOptionalShape, &sAddr, aclDataType::ACL_FLOAT, &scalesOptional);
  ret = CreateAclTensor(outHostData, outShape, &outAddr, aclDataType::ACL_FLOAT16, &out);
  ret = aclnnWidgetGetWorkspaceSize(expandedX, rowIdx, scalesOptional, dropPadMode, out, &ws, &executor);
}
"#;

    /// A case's inputs then outputs, as (shape, dtype).
    fn tensors(c: &TilingCase) -> Vec<(Vec<u64>, Option<DType>)> {
        c.inputs
            .iter()
            .chain(&c.outputs)
            .map(|t| (t.shape.clone(), t.dtype))
            .collect()
    }

    fn widget(inputs: &[(&str, ParamType)]) -> OpDef {
        OpDef {
            op_type: "Widget".to_string(),
            inputs: inputs.iter().map(|(n, t)| param(n, *t)).collect(),
            outputs: vec![param("y", ParamType::Required)],
            attrs: vec![AttrDef {
                name: "drop_pad_mode".to_string(),
                required: false,
                kind: AttrKind::Int,
                default: None,
            }],
            socs: vec![],
        }
    }

    #[test]
    fn an_example_gives_shapes_dtypes_integer_data_and_attrs_in_opdef_order() {
        let def = widget(&[
            ("row_idx", ParamType::Required),
            ("expanded_x", ParamType::Required),
            ("scales", ParamType::Optional),
        ]);
        let c = read(EXAMPLE, "examples/test_aclnn_widget.cpp", &def).expect("a case");
        assert_eq!(c.kind, CaseKind::Example);
        assert_eq!(c.test, "test_aclnn_widget");
        assert_eq!(
            c.inputs,
            vec![
                CaseTensor {
                    shape: vec![6],
                    dtype: Some(DType::Int32)
                },
                CaseTensor {
                    shape: vec![6, 4],
                    dtype: Some(DType::Float16)
                },
                CaseTensor {
                    shape: vec![3, 2],
                    dtype: Some(DType::Float32)
                },
            ]
        );
        // integer data only (the float data stays the manifest's range)
        assert_eq!(c.values, vec![(0, "[2, 1, 4, 3, 0, 5]".to_string())]);
        assert_eq!(
            c.attrs,
            vec![("drop_pad_mode".to_string(), "1".to_string())]
        );
        // `out` does not name `y`: taken by its place in the GetWorkspaceSize call
        assert_eq!(
            c.outputs,
            vec![CaseTensor {
                shape: vec![3, 4],
                dtype: Some(DType::Float16)
            }]
        );
    }

    /// ops-cv's three_interpolate_backward declares `aclnn<Op>GetWorkspaceSize` before its `main`: the
    /// call's arguments are read from the call, not the declaration (whose typed parameters placed
    /// no tensor, so the output and the attr were lost).
    #[test]
    fn a_declaration_of_the_aclnn_function_is_not_its_call() {
        let def = widget(&[
            ("row_idx", ParamType::Required),
            ("expanded_x", ParamType::Required),
            ("scales", ParamType::Optional),
        ]);
        let declared = format!(
            "aclnnStatus aclnnWidgetGetWorkspaceSize(const aclTensor* rowIdx, const aclTensor* x,\n    const aclTensor* scales, int64_t dropPadMode, aclTensor* y, uint64_t* ws, aclOpExecutor** ex);\n{EXAMPLE}"
        );
        let c = read(&declared, "examples/test_aclnn_widget.cpp", &def).expect("a case");
        assert_eq!(
            c.attrs,
            vec![("drop_pad_mode".to_string(), "1".to_string())]
        );
        assert_eq!(c.outputs.len(), 1);
        assert_eq!(workspace_call(&declared).unwrap()[0], "expandedX");
    }

    /// The GE IR examples (ops-transformer's moe_re_routing has no other) add tensors through their own
    /// macros and set attrs on the op; written for this test in their shape, not copied.
    #[test]
    fn a_graph_example_gives_shapes_dtypes_and_attrs() {
        const GRAPH: &str = r#"
#define ADD_INPUT(intputIndex, intputName, intputDtype, inputShape) \
    vector<int64_t> placeholder##intputIndex##_shape = inputShape;
const int A = 11;
const int H = 79;
int CreateOppInGraph(DataType inDtype) {
    auto op = op::Widget("widget");
    std::vector<int64_t> x_shape = {A, H};
    std::vector<int64_t> idx_shape = {A};
    std::vector<int64_t> y_shape = {A, H};
    ADD_INPUT(1, row_idx, inDtype, idx_shape);
    ADD_CONST_INPUT(2, expanded_x, DT_FLOAT16, x_shape);
    ADD_OUTPUT(1, y, ge::DT_FLOAT, y_shape);
    op.set_attr_drop_pad_mode(2);
}
"#;
        let def = widget(&[
            ("row_idx", ParamType::Required),
            ("expanded_x", ParamType::Required),
        ]);
        let c = read(GRAPH, "examples/test_geir_widget.cpp", &def).expect("a case");
        assert_eq!(c.test, "test_geir_widget");
        assert_eq!(
            c.inputs,
            vec![
                CaseTensor {
                    shape: vec![11],
                    dtype: None
                },
                CaseTensor {
                    shape: vec![11, 79],
                    dtype: Some(DType::Float16)
                },
            ]
        );
        assert_eq!(
            c.outputs,
            vec![CaseTensor {
                shape: vec![11, 79],
                dtype: Some(DType::Float32)
            }]
        );
        assert_eq!(
            c.attrs,
            vec![("drop_pad_mode".to_string(), "2".to_string())]
        );
        // the attr set through the example's own macro
        let by_macro = GRAPH.replace(
            "op.set_attr_drop_pad_mode(2);",
            "ADD_INPUT_ATTR(drop_pad_mode, 3);",
        );
        let c = read(&by_macro, "examples/test_geir_widget.cpp", &def).expect("a case");
        assert_eq!(
            c.attrs,
            vec![("drop_pad_mode".to_string(), "3".to_string())]
        );
    }

    /// ops-cv's upsample_nearest2d_grad passes its list attrs as `aclIntArray`s made from declared
    /// vectors; they were not read, and the tiling refused the guessed `[1]`. Literals passed as they
    /// are (dequant_rope_quant_kvcache's `"BSND"`, `true`) are the attrs' values too.
    #[test]
    fn an_examples_int_array_attr_is_the_vector_it_is_made_from() {
        let text = r#"
  std::vector<int64_t> gradOutShape = {2, 2, 3, 3};
  std::vector<int64_t> gradInputShape = {2, 2, 1, 1};
  int64_t rows = 3;
  std::vector<int64_t> outputSizeData = {rows, rows * 1};
  double scalesH = 0.5;
  ret = CreateAclTensor(gradOutHostData, gradOutShape, &gAddr, aclDataType::ACL_FLOAT, &gradOut);
  ret = CreateAclTensor(gradInputHostData, gradInputShape, &iAddr, aclDataType::ACL_FLOAT, &gradInput);
  const aclIntArray* outputSize = aclCreateIntArray(outputSizeData.data(), outputSizeData.size());
  ret = aclnnUpsampleGetWorkspaceSize(gradOut, outputSize, scalesH, "BSND", true, gradInput, &ws, &executor);
"#;
        let mut def = widget(&[("grad_output", ParamType::Required)]);
        def.attrs = vec![
            AttrDef {
                name: "output_size".into(),
                required: true,
                kind: AttrKind::ListInt,
                default: None,
            },
            AttrDef {
                name: "scales_h".into(),
                required: false,
                kind: AttrKind::Float,
                default: None,
            },
            AttrDef {
                name: "layout".into(),
                required: false,
                kind: AttrKind::String,
                default: None,
            },
            AttrDef {
                name: "cache".into(),
                required: false,
                kind: AttrKind::Bool,
                default: None,
            },
        ];
        let c = read(text, "examples/test_aclnn_upsample.cpp", &def).expect("a case");
        assert_eq!(
            c.attrs,
            vec![
                ("output_size".to_string(), "[3, 3]".to_string()),
                ("scales_h".to_string(), "0.5".to_string()),
                ("layout".to_string(), "\"BSND\"".to_string()),
                ("cache".to_string(), "true".to_string())
            ]
        );
    }

    /// ops-transformer's nsa_compress family passes its value-dependent `act_seq_len` input as an
    /// `aclIntArray`: it was not read as a tensor, so the example did not cover every input and init
    /// wrote the required attrs as 1 ("Compress block size must be align to 16"). Its data comes from
    /// the vector it is made from, with the elements the example then sets one by one; sizes may be
    /// elements of declared shapes (`cacheShape[0]`).
    #[test]
    fn an_input_passed_as_an_int_array_is_an_int64_tensor_of_its_data() {
        let text = r#"
  constexpr int64_t blockSize = 32;
  std::vector<int64_t> xShape = {272, 4};
  std::vector<int64_t> cacheShape = {4, 2};
  std::vector<int64_t> yShape = {cacheShape[0] * cacheShape[1], 4};
  std::vector<int64_t> seqData(cacheShape[0], 0);
  seqData[1] = 128;
  std::vector<int64_t> listData = {0, 128, 272};
  ret = CreateAclTensor(xHostData, xShape, &xAddr, aclDataType::ACL_FLOAT16, &x);
  aclIntArray *seqLens = aclCreateIntArray(seqData.data(), seqData.size());
  const aclIntArray *sizes = aclCreateIntArray(listData.data(), 3);
  ret = CreateAclTensor(yHostData, yShape, &yAddr, aclDataType::ACL_FLOAT16, &y);
  ret = aclnnWidgetGetWorkspaceSize(x, seqLens, blockSize, sizes, y, &ws, &executor);
"#;
        let mut def = widget(&[
            ("x", ParamType::Required),
            ("seq_lens", ParamType::Optional),
        ]);
        def.attrs = vec![
            AttrDef {
                name: "block_size".into(),
                required: true,
                kind: AttrKind::Int,
                default: None,
            },
            AttrDef {
                name: "sizes".into(),
                required: true,
                kind: AttrKind::ListInt,
                default: None,
            },
        ];
        let c = read(text, "examples/test_aclnn_widget.cpp", &def).expect("a case");
        assert_eq!(
            c.inputs,
            vec![
                CaseTensor {
                    shape: vec![272, 4],
                    dtype: Some(DType::Float16)
                },
                CaseTensor {
                    shape: vec![4],
                    dtype: Some(DType::Int64)
                },
            ]
        );
        assert_eq!(c.values, vec![(1, "[0, 128, 0, 0]".to_string())]);
        assert_eq!(c.outputs[0].shape, vec![8, 4]);
        // the list attr made the same way stays an attr
        assert_eq!(
            c.attrs,
            vec![
                ("block_size".to_string(), "32".to_string()),
                ("sizes".to_string(), "[0, 128, 272]".to_string())
            ]
        );
        // an element set from a computed value: the data is not known
        let looped = text.replace("seqData[1] = 128;", "seqData[1] = seqData[0] + 128;");
        let c = read(&looped, "examples/test_aclnn_widget.cpp", &def).expect("a case");
        assert!(c.values.is_empty(), "{:?}", c.values);
        assert_eq!(c.inputs[1].shape, vec![4]);
        // `NAME(n)` is zeros, unless something else may fill it
        let zeros = "std::vector<int32_t> table(3);\nret = CreateAclTensor(table, s, &a, aclDataType::ACL_INT32, &t);";
        assert_eq!(
            integer_data(zeros, "table", 3).as_deref(),
            Some("[0, 0, 0]")
        );
        for filled in [
            "std::iota(table.begin(), table.end(), 0);",
            "for (int i = 0; i < 3; i++) { table[i] = i; }",
            "FillRandom(table);",
            "table[1] += 2;",
            "table[2]++;",
        ] {
            let text = format!("{zeros}\n{filled}");
            assert_eq!(integer_data(&text, "table", 3), None, "{filled}");
        }
    }

    /// ops-transformer's dequant_rope_quant_kvcache: sizes computed from sums in parentheses, tensors named
    /// unlike the OpDef's (taken by place), and outputs updated in place (`k_cache`) that the call passes
    /// only once, as inputs: the case gives those outputs their input's shape.
    #[test]
    fn an_example_with_computed_sizes_and_in_place_outputs_is_read() {
        let text = r#"
  int64_t shapeD = 32;
  int64_t shapeNq = 2;
  int64_t shapeNkv = 1;
  int64_t shapeH = shapeD * (shapeNq + shapeNkv + shapeNkv);
  std::vector<int64_t> inputShape = {1, 1, shapeH};
  std::vector<int64_t> cacheShape = {1, shapeH - 1, 1, shapeD / 2};
  std::vector<int64_t> outShape = {1, 1, shapeNq, shapeD};
  ret = CreateAclTensor(inputHostData, inputShape, &a, aclDataType::ACL_INT32, &input);
  ret = CreateAclTensor(cacheHostData, cacheShape, &b, aclDataType::ACL_INT8, &kcache);
  ret = CreateAclTensor(outHostData, outShape, &c, aclDataType::ACL_FLOAT16, &out);
  ret = aclnnRopeGetWorkspaceSize(input, kcache, out, &ws, &executor);
"#;
        let mut def = widget(&[("x", ParamType::Required), ("k_cache", ParamType::Required)]);
        def.outputs = vec![
            param("q", ParamType::Required),
            param("k_cache", ParamType::Required),
        ];
        def.attrs = vec![];
        let c = read(text, "examples/test_aclnn_rope.cpp", &def).expect("a case");
        assert_eq!(
            c.inputs.iter().map(|t| t.shape.clone()).collect::<Vec<_>>(),
            vec![vec![1, 1, 128], vec![1, 127, 1, 16]]
        );
        assert_eq!(
            c.outputs,
            vec![
                CaseTensor {
                    shape: vec![1, 1, 2, 32],
                    dtype: Some(DType::Float16)
                },
                CaseTensor {
                    shape: vec![1, 127, 1, 16],
                    dtype: Some(DType::Int8)
                },
            ]
        );
    }

    /// The kind of the example's index data, carried to a tiling test's shapes: a permutation stays a
    /// permutation; ids below an axis are drawn below the smallest axis of the case that was as large in
    /// the example (here `expert` is below K = 2 and the 2 rows of `bias`: at the case, 4 and 16);
    /// ascending ids stay ascending; all zeros stay zeros; data the case gives, float inputs and data of
    /// no such kind are left.
    #[test]
    fn the_kind_of_an_examples_index_data_is_carried_to_another_cases_shapes() {
        let tensor = |shape: &[u64], dtype: DType| CaseTensor {
            shape: shape.to_vec(),
            dtype: Some(dtype),
        };
        let case = |shapes: [&[u64]; 6], values: Vec<(usize, String)>| TilingCase {
            kind: CaseKind::TilingTest,
            op_type: "Widget".into(),
            file: "t.cpp".into(),
            line: 1,
            test: "t".into(),
            inputs: vec![
                tensor(shapes[0], DType::Int32),
                tensor(shapes[1], DType::Int32),
                tensor(shapes[2], DType::Float32),
                tensor(shapes[3], DType::Int64),
                tensor(shapes[4], DType::Int32),
            ],
            outputs: vec![tensor(shapes[5], DType::Float32)],
            attrs: vec![],
            values,
            absent: vec![],
            carried: vec![],
            grown: None,
            widened: None,
            kernel_view: false,
        };
        let mut example = case(
            [&[6], &[3, 2], &[2, 4], &[6], &[3], &[3, 4]],
            vec![
                (0, "[2, 1, 4, 3, 0, 5]".into()),
                (1, "[1, 0, 0, 1, 1, 0]".into()),
                (3, "[0, 0, 1, 1, 1, 1]".into()),
                (4, "[0, 0, 0]".into()),
            ],
        );
        example.kind = CaseKind::Example;
        let names = ["row_idx", "expert", "bias", "sorted_expert", "counts", "y"];
        let mut test = case(
            [&[380], &[95, 4], &[16, 64], &[380], &[95], &[95, 64]],
            vec![(3, "[5]".into())],
        );
        carry(&example, &mut test, &names);
        assert_eq!(
            test.carried,
            vec![
                (0, Carried::Permutation),
                (
                    1,
                    Carried::Below {
                        bound: 4,
                        axis: "axis 1 of `expert`".into(),
                        sorted: false
                    }
                ),
                (4, Carried::Same(0)),
            ]
        );
        // without the test's own data for `sorted_expert`, its ids are ascending below the same axes
        let mut test = case(
            [&[380], &[95, 4], &[16, 64], &[380], &[95], &[95, 64]],
            vec![],
        );
        carry(&example, &mut test, &names);
        assert_eq!(
            test.carried.get(2),
            Some(&(
                3,
                Carried::Below {
                    bound: 4,
                    axis: "axis 1 of `expert`".into(),
                    sorted: true
                }
            ))
        );
        assert_eq!(test.carried.len(), 4, "{:?}", test.carried);
        // one value other than 0 or 1 throughout (a count, say) says nothing of other shapes
        example.values[3] = (4, "[7, 7, 7]".into());
        let mut test = case(
            [&[380], &[95, 4], &[16, 64], &[380], &[95], &[95, 64]],
            vec![],
        );
        carry(&example, &mut test, &names);
        assert!(
            test.carried.iter().all(|(k, _)| *k != 4),
            "{:?}",
            test.carried
        );
        // rope_with_sin_cos_cache: positions [0, 1] over a 2-row cache; at the test's 48 x 48
        // positions and 48 cache rows a permutation of 2304 would read past the cache: row ids
        let rope = |positions: &[u64], cache: &[u64], kind| TilingCase {
            kind,
            inputs: vec![
                tensor(positions, DType::Int64),
                tensor(cache, DType::Float16),
            ],
            outputs: vec![tensor(cache, DType::Float16)],
            values: if kind == CaseKind::Example {
                vec![(0, "[0, 1]".into())]
            } else {
                vec![]
            },
            ..case([&[1], &[1], &[1], &[1], &[1], &[1]], vec![])
        };
        let mut test = rope(&[48, 48], &[48, 128], CaseKind::TilingTest);
        carry(
            &rope(&[2], &[2, 32], CaseKind::Example),
            &mut test,
            &["positions", "cache", "y"],
        );
        assert_eq!(
            test.carried,
            vec![(
                0,
                Carried::Below {
                    bound: 48,
                    axis: "axis 0 of `cache`".into(),
                    sorted: false
                }
            )]
        );
        // expand_into_jagged_permute: a tiling test at the example's own shapes takes its offsets as
        // they are (ascending, ending at the output's 6: no kind above says so)
        let jagged = |kind| TilingCase {
            kind,
            inputs: vec![
                tensor(&[3], DType::Int32),
                tensor(&[4], DType::Int32),
                tensor(&[4], DType::Int32),
            ],
            outputs: vec![tensor(&[6], DType::Int32)],
            values: if kind == CaseKind::Example {
                vec![
                    (0, "[1, 0, 2]".into()),
                    (1, "[0, 3, 5, 8]".into()),
                    (2, "[0, 2, 4, 6]".into()),
                ]
            } else {
                vec![]
            },
            ..case([&[1], &[1], &[1], &[1], &[1], &[1]], vec![])
        };
        let mut test = jagged(CaseKind::TilingTest);
        carry(
            &jagged(CaseKind::Example),
            &mut test,
            &[
                "permute",
                "input_offsets",
                "output_offsets",
                "output_permute",
            ],
        );
        assert_eq!(
            test.carried,
            vec![
                (0, Carried::Verbatim("[1, 0, 2]".into())),
                (1, Carried::Verbatim("[0, 3, 5, 8]".into())),
                (2, Carried::Verbatim("[0, 2, 4, 6]".into())),
            ]
        );
    }

    /// moe_token_permute's example is 3 tokens of hidden size 4: grown by rows alone it ran at
    /// [196608, 4], rows of 8 bytes. Widening multiplies the main input's last axis in every tensor
    /// that ends with it (a per-channel 1-D one too), leaves the rest (the top-k axis of the indices),
    /// and says from what; a 1-D tensor is left when rows and width are the same size.
    #[test]
    fn widening_multiplies_the_main_inputs_last_axis_wherever_it_ends_a_tensor() {
        let tensor = |shape: &[u64], dtype: DType| CaseTensor {
            shape: shape.to_vec(),
            dtype: Some(dtype),
        };
        let case = |rows: u64, width: u64| TilingCase {
            kind: CaseKind::Example,
            op_type: "Permute".into(),
            file: "e.cpp".into(),
            line: 1,
            test: "e".into(),
            inputs: vec![
                tensor(&[rows, width], DType::BFloat16),
                tensor(&[rows, 2], DType::Int32),
                tensor(&[width], DType::Float32),
            ],
            outputs: vec![tensor(&[2 * rows, width], DType::BFloat16)],
            attrs: vec![],
            values: vec![],
            absent: vec![],
            carried: vec![],
            grown: None,
            widened: None,
            kernel_view: false,
        };
        let names = ["tokens", "indices", "gamma", "out"];
        let wide = grown(&case(3, 4), None, &names, 4, Along::Width).unwrap();
        let shapes: Vec<&[u64]> = wide
            .inputs
            .iter()
            .chain(&wide.outputs)
            .map(|t| t.shape.as_slice())
            .collect();
        assert_eq!(shapes, [&[3, 16][..], &[3, 2], &[16], &[6, 16]]);
        assert_eq!(wide.widened, Some((4, 16)));
        let wider = grown(&wide, None, &names, 4, Along::Width).unwrap();
        assert_eq!(wider.widened, Some((4, 64)));
        assert_eq!(wider.grown, None);
        let rows = grown(&wider, None, &names, 4, Along::Rows).unwrap();
        assert_eq!(rows.inputs[0].shape, [12, 64]);
        assert_eq!((rows.grown, rows.widened), (Some((3, 12)), Some((4, 64))));
        // rows as many as the width: which of them `gamma` follows is not known
        let square = grown(&case(4, 4), None, &names, 4, Along::Width).unwrap();
        assert_eq!(square.inputs[0].shape, [4, 16]);
        assert_eq!(square.inputs[2].shape, [4]);
        // a 1-D main input has no width apart from its rows
        let mut flat = case(3, 4);
        flat.inputs[0].shape = vec![12];
        assert!(grown(&flat, None, &names, 4, Along::Width).is_none());
    }

    /// hicann/cann-learning-hub's tutorial add_custom calls `aclCreateTensor` itself, one `shape` for
    /// all three tensors, inside `CHECK_ACL(...)`: it gave no case, and init's default [48, 16384] of
    /// floats overflowed the UB of a kernel that loads a core's whole share at once.
    #[test]
    fn an_example_calling_acl_create_tensor_itself_is_read() {
        let text = r#"
    const std::vector<int64_t> shape = {8, 2048};
    aclTensor* input0 = aclCreateTensor(shape.data(), shape.size(), ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND,
                                        shape.data(), shape.size(), input0DeviceMem);
    aclTensor* input1 = aclCreateTensor(shape.data(), shape.size(), ACL_FLOAT16, nullptr, 0, ACL_FORMAT_ND,
                                        shape.data(), shape.size(), input1DeviceMem);
    aclTensor *output0 = aclCreateTensor(shape.data(), shape.size(), ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND,
                                         shape.data(), shape.size(), output0DeviceMem);
    CHECK_ACL(aclnnAddCustomGetWorkspaceSize(input0, input1, output0, &workspaceSize, &executor));
"#;
        let mut def = widget(&[("x1", ParamType::Required), ("x2", ParamType::Required)]);
        def.attrs.clear();
        let c = read(text, "examples/test_aclnn_add_custom.cpp", &def).expect("a case");
        assert_eq!(
            tensors(&c),
            vec![
                (vec![8, 2048], Some(DType::Float32)),
                (vec![8, 2048], Some(DType::Float16)),
                (vec![8, 2048], Some(DType::Float32)),
            ]
        );
        assert_eq!(c.line, 3);
        assert_eq!(called_op(text), Some("AddCustom"));
    }

    /// ops-transformer's mla_prolog_v2 creates its tensors with helpers of its own, one per layout, whose
    /// arguments come in another order than `CreateAclTensor`'s: shape first, the dtype fourth. Their
    /// definitions (which name no declared shape) are passed over.
    #[test]
    fn an_examples_own_create_helpers_are_read_whatever_their_argument_order() {
        let text = r#"
int CreateAclTensorND(const std::vector<int64_t>& shape, void** deviceAddr, void** hostAddress,
                      aclDataType dataType, aclTensor** tensor) { return 0; }
int CreateAclTensorNZ(const std::vector<int64_t>& shape, void** deviceAddr, void** hostAddress,
                      aclDataType dataType, aclTensor** tensor) { return 0; }
int main() {
    std::vector<int64_t> xShape = {8, 1, 7168};            // B,S,He
    std::vector<int64_t> wShape = {7168, 1536};
    std::vector<int64_t> yShape = {8, 1536};
    ret = CreateAclTensorND(xShape, &xDeviceAddr, &xHostAddr, aclDataType::ACL_BF16, &x);
    ret = CreateAclTensorNZ(wShape, &wDeviceAddr, &wHostAddr, aclDataType::ACL_BF16, &weight);
    ret = CreateAclTensorND(yShape, &yDeviceAddr, &yHostAddr, aclDataType::ACL_FLOAT, &y);
    ret = aclnnWidgetGetWorkspaceSize(x, weight, y, &ws, &executor);
}
"#;
        let mut def = widget(&[("x", ParamType::Required), ("weight", ParamType::Required)]);
        def.attrs.clear();
        let c = read(text, "examples/test_aclnn_widget.cpp", &def).expect("a case");
        assert_eq!(
            tensors(&c),
            vec![
                (vec![8, 1, 7168], Some(DType::BFloat16)),
                (vec![7168, 1536], Some(DType::BFloat16)),
                (vec![8, 1536], Some(DType::Float32)),
            ]
        );
        // a name that only starts like the helper's is not one of them
        assert!(
            suffixed_calls(
                "MyCreateAclTensorND(xShape, &a, &b, ACL_BF16, &x);",
                "CreateAclTensor"
            )
            .is_empty()
        );
    }

    /// cann-learning-hub's tutorial custom_op keeps its aclnn call in `test/main.cpp`, and a
    /// `test_sub/main.cpp` calling another op beside it: the first is read, the second is not.
    #[test]
    fn a_test_folders_program_is_read_when_it_calls_this_op() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let call = |op: &str, rows: u64| {
            format!(
                "  std::vector<int64_t> xShape = {{{rows}, 2048}};\n  ret = CreateAclTensor(xHostData, xShape, &xAddr, aclDataType::ACL_FLOAT16, &x);\n  ret = CreateAclTensor(yHostData, xShape, &yAddr, aclDataType::ACL_FLOAT16, &y);\n  ret = aclnn{op}GetWorkspaceSize(x, y, &ws, &executor);\n"
            )
        };
        for (folder, op, rows) in [("test_sub", "SubCustom", 4), ("test", "AddCustom", 8)] {
            std::fs::create_dir_all(root.join(folder)).unwrap();
            std::fs::write(root.join(folder).join("main.cpp"), call(op, rows)).unwrap();
        }
        let mut def = widget(&[("x", ParamType::Required)]);
        def.outputs = vec![param("y", ParamType::Required)];
        def.attrs.clear();
        def.op_type = "AddCustom".into();
        let cases = find(root, &def);
        assert_eq!(cases.len(), 1, "{cases:?}");
        assert_eq!(cases[0].file, "test/main.cpp");
        assert_eq!(cases[0].inputs[0].shape, [8, 2048]);
    }

    /// ops-transformer's moe_token_permute_with_routing_map passes `x, indices` for `tokens, routing_map`:
    /// when names do not match, the GetWorkspaceSize call's tensors and nulls are taken in the OpDef's
    /// order; a null where a required input is due gives no case, where an optional one is due it is
    /// left out (`absent = true`).
    #[test]
    fn an_example_whose_names_differ_is_read_by_the_calls_order() {
        let text = r#"
  std::vector<int64_t> xShape = {3, 4};
  std::vector<int64_t> idxShape = {3, 2};
  std::vector<int64_t> outShape = {6, 4};
  int64_t numTokenOut = 6;
  ret = CreateAclTensor(xHostData, xShape, &xAddr, aclDataType::ACL_BF16, &x);
  ret = CreateAclTensor(idxHostData, idxShape, &iAddr, aclDataType::ACL_BOOL, &indices);
  ret = CreateAclTensor(outHostData, outShape, &oAddr, aclDataType::ACL_BF16, &expandedXOut);
  ret = aclnnPermuteGetWorkspaceSize(x, indices, numTokenOut, expandedXOut, &ws, &executor);
"#;
        let mut def = widget(&[
            ("tokens", ParamType::Required),
            ("routing_map", ParamType::Required),
        ]);
        def.outputs = vec![param("permuted", ParamType::Required)];
        let c = read(text, "examples/test_aclnn_permute.cpp", &def).expect("a case");
        assert_eq!(
            c.inputs.iter().map(|t| t.shape.clone()).collect::<Vec<_>>(),
            vec![vec![3, 4], vec![3, 2]]
        );
        assert_eq!(c.inputs[1].dtype, Some(DType::Bool));
        assert_eq!(c.outputs[0].shape, vec![6, 4]);
        // `numTokenOut` is the one attr by its place
        assert_eq!(
            c.attrs,
            vec![("drop_pad_mode".to_string(), "6".to_string())]
        );
        // a null where a required input is due gives no case; an optional one is left out
        let nulled = text.replace("(x, indices,", "(x, nullptr, indices,");
        def.inputs.insert(1, param("probs", ParamType::Required));
        assert!(read(&nulled, "examples/test_aclnn_permute.cpp", &def).is_none());
        def.inputs[1].param_type = ParamType::Optional;
        let c = read(&nulled, "examples/test_aclnn_permute.cpp", &def).expect("a case");
        assert_eq!(c.absent, vec![1]);
        assert_eq!(c.inputs[2].shape, vec![3, 2]);
    }

    #[test]
    fn an_optional_input_created_but_passed_as_null_is_left_out() {
        let def = widget(&[
            ("row_idx", ParamType::Required),
            ("expanded_x", ParamType::Required),
            ("scales", ParamType::Optional),
        ]);
        let passed_null = EXAMPLE.replace(
            "(expandedX, rowIdx, scalesOptional, dropPadMode",
            "(rowIdx, expandedX, nullptr, dropPadMode",
        );
        assert_ne!(passed_null, EXAMPLE);
        let c = read(&passed_null, "examples/test_aclnn_widget.cpp", &def).expect("a case");
        assert_eq!(c.absent, vec![2]);
        assert!(c.inputs[2].shape.is_empty());
        assert_eq!(c.inputs[0].shape, vec![6]);
        // passed where the call passes it, the tensor is taken
        let c = read(EXAMPLE, "examples/test_aclnn_widget.cpp", &def).expect("a case");
        assert!(c.absent.is_empty());
        assert_eq!(c.inputs[2].shape, vec![3, 2]);
    }

    #[test]
    fn the_kernel_view_permutes_the_tensors_the_aclnn_layer_transposes() {
        let def = widget(&[
            ("expanded_x", ParamType::Required),
            ("row_idx", ParamType::Required),
            ("scales", ParamType::Optional),
        ]);
        let swap = aclnn_layer::Relaid {
            slot: 0,
            layout: aclnn_layer::Layout::Permuted(vec![1, 0]),
            at: "op_api/aclnn_widget.cpp:7".into(),
        };
        let c = read_as(
            EXAMPLE,
            "examples/test_aclnn_widget.cpp",
            &def,
            &[swap.clone()],
        )
        .expect("a case");
        assert_eq!(c.inputs[0].shape, vec![4, 6]);
        assert_eq!(c.inputs[2].shape, vec![3, 2]);
        // the example's outputs are the user's view: left to InferShape
        assert!(c.outputs.is_empty());
        assert!(c.kernel_view);
        assert_eq!(
            c.test,
            "test_aclnn_widget` with the transposes of its aclnn layer `op_api/aclnn_widget.cpp:7"
        );
        // a transpose of a rank the tensor does not have, or of integer data, permutes nothing: no case
        let rank3 = aclnn_layer::Relaid {
            layout: aclnn_layer::Layout::Permuted(vec![0, 2, 1]),
            ..swap.clone()
        };
        assert!(read_as(EXAMPLE, "examples/test_aclnn_widget.cpp", &def, &[rank3]).is_none());
        let of_index_data = aclnn_layer::Relaid { slot: 1, ..swap };
        assert!(
            read_as(
                EXAMPLE,
                "examples/test_aclnn_widget.cpp",
                &def,
                &[of_index_data]
            )
            .is_none()
        );
    }

    /// An example that builds a list of test-case structs and calls the op with their members, its
    /// helper taking a format (written for this test in that shape, not copied).
    #[test]
    fn an_example_of_test_case_structs_is_read_from_its_first_case() {
        const CASES: &str = r#"
struct TestCase { std::vector<int64_t> gradShape; std::vector<int64_t> boxShape; std::vector<int64_t> inShape;
                  int64_t pooledHeight = 0; int64_t pooledWidth = 0; float spatialScale = 0.0F; };
const std::vector<int64_t>& OutShape(const TestCase& t) { return t.inShape; }
int RunCase(const TestCase& testCase) {
    const auto& outShape = OutShape(testCase);
    ret = CreateAclTensor(testCase.gradData, testCase.gradShape, ACL_FORMAT_NCHW, &gradAddr, ACL_FLOAT, &gradOutput);
    ret = CreateAclTensor(testCase.boxData, testCase.boxShape, ACL_FORMAT_ND, &boxAddr, ACL_FLOAT, &boxes);
    ret = CreateAclTensor(outInit, outShape, ACL_FORMAT_NCHW, &outAddr, ACL_FLOAT, &gradInput);
    shapeArray = aclCreateIntArray(testCase.inShape.data(), testCase.inShape.size());
    ret = aclnnWidgetGetWorkspaceSize(gradOutput, boxes, shapeArray, testCase.pooledHeight,
        testCase.pooledWidth, testCase.spatialScale, gradInput, &ws, &executor);
}
std::vector<TestCase> Build() {
    TestCase baseCase;
    baseCase.gradShape = {2, 1, 3, 3};
    baseCase.boxShape = {2, 5};
    baseCase.inShape = {1, 1, 6, 6};
    baseCase.pooledHeight = 3;
    baseCase.pooledWidth = 4;
    baseCase.spatialScale = 0.25F;
    TestCase wide = baseCase;
    wide.gradShape = {8, 1, 3, 3};
    wide.pooledWidth = 7;
}
"#;
        let mut def = widget(&[
            ("y_diff", ParamType::Required),
            ("rois", ParamType::Required),
        ]);
        let attr = |name: &str, kind| AttrDef {
            name: name.to_string(),
            required: true,
            kind,
            default: None,
        };
        def.attrs = vec![
            attr("xdiff_shape", AttrKind::ListInt),
            attr("pooled_width", AttrKind::Int),
            attr("pooled_height", AttrKind::Int),
            attr("spatial_scale", AttrKind::Float),
        ];
        let c = read(CASES, "examples/test_aclnn_widget.cpp", &def).expect("a case");
        assert_eq!(
            tensors(&c)[..2],
            [
                (vec![2, 1, 3, 3], Some(DType::Float32)),
                (vec![2, 5], Some(DType::Float32))
            ]
        );
        // the output's shape is a helper's result: left to InferShape, but it holds its place
        assert!(c.outputs.is_empty());
        assert_eq!(
            c.attrs,
            vec![
                ("xdiff_shape".to_string(), "[1, 1, 6, 6]".to_string()),
                ("pooled_width".to_string(), "4".to_string()),
                ("pooled_height".to_string(), "3".to_string()),
                ("spatial_scale".to_string(), "0.25".to_string()),
            ]
        );
    }

    /// ops-nn's prelu passes its dtype as a variable (`aclType`): the five-argument helper's places are
    /// fixed, so the tensor is still read, its dtype left to the OpDef (a reading of the format-taking
    /// helper first dropped it).
    #[test]
    fn a_helper_given_its_dtype_in_a_variable_is_still_read() {
        assert_eq!(
            expanded_x_read_with(
                "&expandedXAddr, aclDataType::ACL_FLOAT16, &expandedX",
                "&expandedXAddr, aclType, &expandedX",
            ),
            CaseTensor {
                shape: vec![6, 4],
                dtype: None
            }
        );
    }

    /// ops-cv's three_interpolate_backward passes the format last: the tensor is the last argument
    /// taken by address (the first reading took the format for it and read no case).
    #[test]
    fn a_helper_given_its_format_last_is_still_read() {
        assert_eq!(
            expanded_x_read_with(
                "&expandedXAddr, aclDataType::ACL_FLOAT16, &expandedX)",
                "&expandedXAddr, aclDataType::ACL_FLOAT16, &expandedX, aclFormat::ACL_FORMAT_ND)",
            ),
            CaseTensor {
                shape: vec![6, 4],
                dtype: Some(DType::Float16)
            }
        );
    }

    /// `expanded_x` as read from `EXAMPLE` with its helper call's `from` written as `to`.
    fn expanded_x_read_with(from: &str, to: &str) -> CaseTensor {
        let def = widget(&[
            ("row_idx", ParamType::Required),
            ("expanded_x", ParamType::Required),
            ("scales", ParamType::Optional),
        ]);
        let text = EXAMPLE.replace(from, to);
        assert_ne!(text, EXAMPLE);
        let c = read(&text, "examples/test_aclnn_widget.cpp", &def).expect("a case");
        c.inputs[1].clone()
    }

    #[test]
    fn an_example_missing_an_input_gives_no_case() {
        let def = widget(&[
            ("row_idx", ParamType::Required),
            ("expert_idx", ParamType::Required),
        ]);
        assert!(read(EXAMPLE, "examples/test_aclnn_widget.cpp", &def).is_none());
    }
}
