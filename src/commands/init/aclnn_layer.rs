// What an op's aclnn layer (`op_api/aclnn_<op>.cpp`, `op_host/op_api/...`) does to the tensors an
// aclnn call passes before its kernel gets them, where that changes the shapes init should write:
// an input permuted by `l0op::Transpose(x, perm, ...)` (ops-cv's grid_sampler3_d_grad takes its
// example's NCDHW `gradOutput` and `input`, transposes them with `{0, 2, 3, 4, 1}` and runs the
// kernel on NDHWC), or laid out as NC1HWC0 by `l0op::TransData` / `l0op::TransDataSpecial` (ops-cv's
// three_interpolate_backward takes its example's (b, c, n) `grad_x` as (b, c1, n, 1, c0)). An
// example's call gives the user's view; the manifest describes the kernel's.
//
// Owns: finding the file that defines the `aclnn<Name>GetWorkspaceSize` an example calls, its tensor
// parameters in order, and each one's first layout change, traced back through `l0op::Contiguous` /
// `l0op::Cast` renames. A brace-matching reader, not a C++ parser; it does not know which branch of
// the layer runs (a change under a condition counts), so init tries the relaid case only after the
// example's own. Must not know the manifest, the OpDef or the examples' own reading.

use super::tiling_tests::{
    braced, declared, first_assigned, integer, matching, split_top, without_comments,
};
use std::path::Path;

/// A tensor parameter of the aclnn call the layer lays out anew before the kernel: its place among the
/// call's tensor parameters, the new layout, and where (file:line) the layer does it.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Relaid {
    pub slot: usize,
    pub layout: Layout,
    pub at: String,
}

/// A layout the aclnn layer gives a tensor.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Layout {
    /// `l0op::Transpose`: `out[j] = in[perm[j]]`.
    Permuted(Vec<usize>),
    /// `l0op::TransData(x, FORMAT_NC1HWC0, ..)`: (N, C, H, W) as (N, C1, H, W, C0), C1 = ceil(C / C0),
    /// C0 16 channels for 16- and 32-bit types and 32 for 8-bit ones (CANN's 5HD format, as
    /// three_interpolate_backward's example takes it for float). A (N, C, H) tensor is taken as
    /// (N, C, H, 1), as that op's layer says of its `grad_x`.
    Nc1hwc0,
}

impl Layout {
    /// `shape` of elements of `bytes` bytes in this layout, when its rank fits.
    pub(super) fn apply(&self, shape: &[u64], bytes: u64) -> Option<Vec<u64>> {
        match self {
            Layout::Permuted(perm) => permuted(shape, perm),
            Layout::Nc1hwc0 => {
                let c0: u64 = if bytes == 1 { 32 } else { 16 };
                let (n, c, h, w) = match *shape {
                    [n, c, h] => (n, c, h, 1),
                    [n, c, h, w] => (n, c, h, w),
                    _ => return None,
                };
                Some(vec![n, c.div_ceil(c0), h, w, c0])
            }
        }
    }

    /// What a manifest's note calls it.
    pub(super) fn describe(&self) -> &'static str {
        match self {
            Layout::Permuted(_) => "transpose",
            Layout::Nc1hwc0 => "NC1HWC0 layout",
        }
    }
}

/// The layout changes the aclnn layer under `root` applies to the tensors of
/// `aclnn<called>GetWorkspaceSize`.
pub(super) fn relaid_inputs(root: &Path, called: &str) -> Vec<Relaid> {
    let mut files = vec![];
    for dir in [root.join("op_api"), root.join("op_host").join("op_api")] {
        crate::project::registered::files_deep(&dir, &["cpp"], &mut files);
    }
    files.sort();
    let function = format!("aclnn{called}GetWorkspaceSize");
    files
        .iter()
        .find_map(|path| {
            let text = without_comments(&std::fs::read_to_string(path).ok()?);
            let rel = path.strip_prefix(root).unwrap_or(path).to_string_lossy();
            read(&text, &rel, &function)
        })
        .unwrap_or_default()
}

/// The layout changes of `function`'s tensor parameters in one file's text, in the order the text
/// makes them, the first of each tensor only; None when the file does not define `function`.
fn read(text: &str, file: &str, function: &str) -> Option<Vec<Relaid>> {
    let params = tensor_params(text, function)?;
    let mut found: Vec<(usize, Relaid)> = vec![];
    for call in [
        "l0op::Transpose(",
        "l0op::TransData(",
        "l0op::TransDataSpecial(",
    ] {
        for (at, _) in text.match_indices(call) {
            let open = at + call.len() - 1;
            let Some(close) = matching(text, open) else {
                continue;
            };
            let args = split_top(&text[open + 1..close]);
            let (Some(tensor), Some(second)) = (args.first(), args.get(1)) else {
                continue;
            };
            let Some(slot) = source_param(text, tensor.trim(), &params) else {
                continue;
            };
            let layout = if call == "l0op::Transpose(" {
                let Some(perm) = permutation(text, second.trim()) else {
                    continue;
                };
                Layout::Permuted(perm)
            } else if second.trim().ends_with("FORMAT_NC1HWC0") {
                Layout::Nc1hwc0
            } else {
                continue;
            };
            let line = text[..at].matches('\n').count() + 1;
            found.push((
                at,
                Relaid {
                    slot,
                    layout,
                    at: format!("{file}:{line}"),
                },
            ));
        }
    }
    found.sort_by_key(|(at, _)| *at);
    let mut out: Vec<Relaid> = vec![];
    for (_, r) in found {
        if !out.iter().any(|t| t.slot == r.slot) {
            out.push(r);
        }
    }
    Some(out)
}

/// The names of `function`'s `aclTensor` parameters, in order, where the text defines it (a body
/// follows the parameter list).
fn tensor_params(text: &str, function: &str) -> Option<Vec<String>> {
    let call = format!("{function}(");
    text.match_indices(&call).find_map(|(at, _)| {
        if text[..at].ends_with(|c: char| c.is_ascii_alphanumeric() || c == '_') {
            return None;
        }
        let open = at + call.len() - 1;
        let close = matching(text, open)?;
        if !text[close + 1..].trim_start().starts_with('{') {
            return None;
        }
        Some(
            split_top(&text[open + 1..close])
                .into_iter()
                .filter(|p| p.contains("aclTensor") && !p.contains("aclTensorList"))
                .filter_map(|p| {
                    let name = p
                        .trim()
                        .rsplit(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                        .next()?;
                    (!name.is_empty()).then(|| name.to_string())
                })
                .collect(),
        )
    })
}

/// The parameter `name` comes from: itself, or through `auto y = l0op::Contiguous(x, ...)`,
/// `l0op::Cast(x, ...)` and the like, a first argument renamed (at most eight steps).
fn source_param(text: &str, name: &str, params: &[String]) -> Option<usize> {
    let mut name = name.to_string();
    for _ in 0..8 {
        if let Some(k) = params.iter().position(|p| *p == name) {
            return Some(k);
        }
        let rhs = first_assigned(text, &name)?;
        let open = rhs
            .find("l0op::")
            .and_then(|i| rhs[i..].find('(').map(|j| i + j))?;
        let close = matching(rhs, open)?;
        let first = split_top(&rhs[open + 1..close]).first()?.trim().to_string();
        if first == name {
            return None;
        }
        name = first;
    }
    None
}

/// A permutation `perm` names: `executor->AllocIntArray(list, n)` over a declared `{0, 2, 3, 1}`, or
/// such a list itself; None unless it is one (each of 0..n once).
fn permutation(text: &str, perm: &str) -> Option<Vec<usize>> {
    let list = declared(text, perm).map_or(perm, str::trim);
    let items = if let Some(at) = list.find("AllocIntArray(") {
        let open = at + "AllocIntArray".len();
        let close = matching(list, open)?;
        let name = split_top(&list[open + 1..close])
            .first()?
            .trim()
            .to_string();
        braced(declared(text, &name)?)?
    } else {
        braced(list)?
    };
    let perm: Vec<usize> = split_top(items)
        .iter()
        .map(|v| integer(v, text, 0).and_then(|x| usize::try_from(x).ok()))
        .collect::<Option<_>>()?;
    let mut seen = vec![false; perm.len()];
    for &p in &perm {
        if p >= perm.len() || std::mem::replace(&mut seen[p], true) {
            return None;
        }
    }
    (perm.len() > 1 && perm.iter().enumerate().any(|(j, &p)| p != j)).then_some(perm)
}

/// `shape` as the permutation `perm` leaves it, when their ranks agree.
pub(super) fn permuted(shape: &[u64], perm: &[usize]) -> Option<Vec<u64>> {
    (shape.len() == perm.len()).then(|| perm.iter().map(|&p| shape[p]).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    // Written for this test in the shape of an aclnn layer (not copied from a repository); its
    // first line is the empty one after `r#"`.
    const LAYER: &str = r#"
static bool CheckShapes(const aclTensor *grad, const aclTensor *x) { return true; }
aclnnStatus aclnnWidgetBackwardGetWorkspaceSize(const aclTensor *gradOut, const aclTensor *input,
    const aclTensor *grid, int64_t mode, aclTensor *inputGrad, uint64_t *workspaceSize, aclOpExecutor **executor)
{
    auto gradContiguous = l0op::Contiguous(gradOut, uniqueExecutor.get());
    auto inputContiguous = l0op::Contiguous(input, uniqueExecutor.get());
    if (needTranspose) {
        const int64_t toLast[] = {0, 2, 3, 4, 1};
        auto toLastArray = uniqueExecutor.get()->AllocIntArray(toLast, 5);
        auto gradT = l0op::Transpose(gradContiguous, toLastArray, uniqueExecutor.get());
        auto inputT = l0op::Transpose(inputContiguous, toLastArray, uniqueExecutor.get());
    } else {
        inputContiguous = l0op::Cast(inputContiguous, op::DataType::DT_FLOAT, uniqueExecutor.get());
    }
    const int64_t back[] = {0, 4, 1, 2, 3};
    auto backArray = uniqueExecutor.get()->AllocIntArray(back, 5);
    auto outT = l0op::Transpose(kernelOut, backArray, uniqueExecutor.get());
    return ACLNN_SUCCESS;
}
"#;

    #[test]
    fn a_layers_transposes_of_its_inputs_are_found_through_their_renames() {
        let t = read(
            LAYER,
            "op_api/aclnn_widget.cpp",
            "aclnnWidgetBackwardGetWorkspaceSize",
        )
        .expect("the file defines it");
        assert_eq!(
            t,
            vec![
                Relaid {
                    slot: 0,
                    layout: Layout::Permuted(vec![0, 2, 3, 4, 1]),
                    at: "op_api/aclnn_widget.cpp:11".into()
                },
                Relaid {
                    slot: 1,
                    layout: Layout::Permuted(vec![0, 2, 3, 4, 1]),
                    at: "op_api/aclnn_widget.cpp:12".into()
                },
            ]
        );
        // a file that only calls it defines nothing
        assert_eq!(
            read(
                "ret = aclnnWidgetBackwardGetWorkspaceSize(a, b, c, 0, d, &ws, &ex);",
                "x.cpp",
                "aclnnWidgetBackwardGetWorkspaceSize"
            ),
            None
        );
        assert_eq!(
            permuted(&[2, 3, 4, 5, 6], &[0, 2, 3, 4, 1]),
            Some(vec![2, 4, 5, 6, 3])
        );
        assert_eq!(permuted(&[2, 3], &[0, 2, 3, 4, 1]), None);
    }

    /// ops-cv's three_interpolate_backward: `grad_x` (b, c, n) goes to the kernel as 5HD.
    #[test]
    fn a_layers_nc1hwc0_transdata_lays_an_input_out_as_5hd() {
        let text = r#"
aclnnStatus aclnnInterpGradGetWorkspaceSize(const aclTensor *gradX, const aclTensor *idx, int64_t m,
    aclTensor *gradY, uint64_t *workspaceSize, aclOpExecutor **executor)
{
    auto gradXContiguous = l0op::Contiguous(gradX, uniqueExecutor.get());
    auto gradX5d = l0op::TransDataSpecial(gradXContiguous, op::Format::FORMAT_NC1HWC0, 0, uniqueExecutor.get());
    auto back = l0op::TransDataSpecial(out5d, op::Format::FORMAT_NCHW, 0, uniqueExecutor.get());
    auto idxNd = l0op::TransData(idx, op::Format::FORMAT_ND, 0, uniqueExecutor.get());
    return ACLNN_SUCCESS;
}
"#;
        let t = read(
            text,
            "op_api/aclnn_interp_grad.cpp",
            "aclnnInterpGradGetWorkspaceSize",
        )
        .unwrap();
        assert_eq!(
            t,
            vec![Relaid {
                slot: 0,
                layout: Layout::Nc1hwc0,
                at: "op_api/aclnn_interp_grad.cpp:6".into()
            }]
        );
        // (b, c, n) as (b, c, n, 1); C0 of 16 for fp32, 32 for int8; ranks 3 and 4 only
        assert_eq!(
            Layout::Nc1hwc0.apply(&[1, 2, 5], 4),
            Some(vec![1, 1, 5, 1, 16])
        );
        assert_eq!(
            Layout::Nc1hwc0.apply(&[2, 40, 3, 7], 2),
            Some(vec![2, 3, 3, 7, 16])
        );
        assert_eq!(
            Layout::Nc1hwc0.apply(&[2, 40, 3, 7], 1),
            Some(vec![2, 2, 3, 7, 32])
        );
        assert_eq!(Layout::Nc1hwc0.apply(&[2, 40], 4), None);
    }

    #[test]
    fn only_a_true_permutation_counts() {
        let text = "const int64_t same[] = {0, 1, 2};\nconst int64_t dup[] = {0, 0, 1};\n";
        assert_eq!(permutation(text, "same"), None);
        assert_eq!(permutation(text, "dup"), None);
        assert_eq!(permutation(text, "{1, 0}"), Some(vec![1, 0]));
    }
}
