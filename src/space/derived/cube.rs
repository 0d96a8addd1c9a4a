//! Cube buffer capacity derived from the host's matmul tiling (part of derived.rs): when the host calls
//! `SetFixSplit(m, n, k)` with tunables' symbols as the base block sizes, and `SetAType` / `SetBType`
//! name the element types, the twin's Matmul (templates/twin/include/kernel/lib/matmul_intf.h) needs
//! double-buffered A blocks in L0A, double-buffered B blocks in L0B and one C block of 4-byte
//! accumulators in L0C. Outside those limits the twin's tiling (include/host/tiling/matmul_tiling.h)
//! shrinks the blocks itself, so such a candidate only repeats a smaller one: the constraint saves the
//! trial. Knows the matmul tiling idiom only; nothing of strategies, building or running.

use super::Kind;
use crate::manifest::{Bind, OpSpec};
use crate::rewrite::cst::{self, Call};
use std::collections::BTreeMap;

/// Bytes of a `matmul_tiling::DataType::DT_*` element, by the name after the last `::`.
fn dtype_bytes(arg: &str) -> Option<i64> {
    match arg.rsplit("::").next()?.trim() {
        "DT_INT8" | "DT_UINT8" => Some(1),
        "DT_FLOAT16" | "DT_BF16" => Some(2),
        "DT_FLOAT" => Some(4),
        _ => None,
    }
}

/// (kind, constraint text, origin) for each host file that sets a fixed split over tunables.
pub(super) fn cube_capacity(
    op: &OpSpec,
    sources: &BTreeMap<String, String>,
    binds: &[(String, Bind, String)],
) -> Vec<(Kind, String, String)> {
    let mut out = vec![];
    for file in &op.host {
        let Some(text) = sources.get(file) else {
            continue;
        };
        let tree = cst::parse(text);
        let calls: Vec<Call> = cst::nodes_of_kind(tree.root_node(), "call_expression")
            .into_iter()
            .filter_map(Call::of)
            .collect();
        let dtype = |name: &str| {
            let found: Vec<i64> = calls
                .iter()
                .filter(|c| c.name(text) == name)
                .filter_map(|c| c.arg_texts(text).get(2).and_then(|a| dtype_bytes(a)))
                .collect();
            // One call, or several that agree.
            (!found.is_empty() && found.iter().all(|b| *b == found[0])).then(|| found[0])
        };
        let (Some(a), Some(b)) = (dtype("SetAType"), dtype("SetBType")) else {
            continue;
        };
        let tunable = |arg: &str| {
            binds.iter().find_map(|(f, bind, name)| {
                (f == file && matches!(bind, Bind::Symbol(s) if s == arg.trim()))
                    .then(|| name.clone())
            })
        };
        for c in calls.iter().filter(|c| c.name(text) == "SetFixSplit") {
            let args = c.arg_texts(text);
            let [Some(m), Some(n), Some(k)] =
                [0, 1, 2].map(|i| args.get(i).and_then(|a| tunable(a)))
            else {
                continue;
            };
            let line = cst::line_of(text, c.node.start_byte());
            let origin = format!("{file}:{line}, the twin's Matmul");
            out.push((
                Kind::CubeCapacity,
                format!("2 * {m} * {k} * {a} <= l0a_bytes"),
                origin.clone(),
            ));
            out.push((
                Kind::CubeCapacity,
                format!("2 * {k} * {n} * {b} <= l0b_bytes"),
                origin.clone(),
            ));
            out.push((
                Kind::CubeCapacity,
                format!("{m} * {n} * 4 <= l0c_bytes"),
                origin,
            ));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_fixed_split_over_tunables_bounds_the_l0_buffers() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/matmul_custom");
        let m = crate::manifest::Manifest::load(&root.join("ascend.toml")).unwrap();
        let op = &m.ops[0];
        let file = "op_host/matmul_custom.cpp".to_string();
        let mut sources = BTreeMap::new();
        sources.insert(
            file.clone(),
            std::fs::read_to_string(root.join(&file)).unwrap(),
        );
        let binds: Vec<(String, Bind, String)> = op
            .tunables
            .iter()
            .map(|t| (t.file.clone(), t.bind.clone(), t.name.clone()))
            .collect();
        let got: Vec<String> = cube_capacity(op, &sources, &binds)
            .into_iter()
            .map(|(_, c, o)| format!("{c} ({o})"))
            .collect();
        assert_eq!(
            got,
            [
                "2 * base_m * base_k * 2 <= l0a_bytes (op_host/matmul_custom.cpp:29, the twin's Matmul)",
                "2 * base_k * base_n * 2 <= l0b_bytes (op_host/matmul_custom.cpp:29, the twin's Matmul)",
                "base_m * base_n * 4 <= l0c_bytes (op_host/matmul_custom.cpp:29, the twin's Matmul)",
            ]
        );
        // Literal sizes are no tunables: nothing derived.
        let lit = sources[&file].replace(
            "SetFixSplit(BASE_M, BASE_N, BASE_K)",
            "SetFixSplit(64, 64, 64)",
        );
        sources.insert(file, lit);
        assert!(cube_capacity(op, &sources, &binds).is_empty());
    }
}
