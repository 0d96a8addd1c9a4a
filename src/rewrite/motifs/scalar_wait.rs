//! scalar-wait: a `PipeBarrier<PIPE_ALL>()` between a vector instruction and a scalar `GetValue` of its
//! result (layernorm, rmsnorm, softmax naive: "full barriers wherever scalar and vector work meet")
//! becomes the event pair `SetFlag<HardEvent::V_S>(EVENT_ID0); WaitFlag<HardEvent::V_S>(EVENT_ID0);`
//! (asc-devkit docs, SetFlag/WaitFlag: the scalar unit waits only for the vector pipe). The model charges
//! a full barrier the drain of every pipe plus 20 cycles and the pair 2 flag cycles after the vector
//! pipe drains. Rewinding gives the full barrier back.

use super::constant_buffer as cb;
use crate::rewrite::cst::{self, Call, text_of};
use crate::rewrite::motif::{Edit, Motif, MotifError, Site};
use std::ops::Range;
use tree_sitter::Node;

pub struct ScalarWait;

const NAME: &str = "scalar-wait";

fn error(text: &str, at: usize, why: &str) -> MotifError {
    MotifError {
        motif: NAME,
        line: cst::line_of(text, at),
        why: why.into(),
    }
}

fn call_of(stmt: Node) -> Option<Call> {
    (stmt.kind() == "expression_statement")
        .then(|| stmt.named_child(0).and_then(Call::of))
        .flatten()
}

fn is_full_barrier(stmt: Node, text: &str) -> bool {
    call_of(stmt).is_some_and(|c| {
        c.name(text) == "PipeBarrier"
            && c.template_args(text) == Some("PIPE_ALL")
            && c.args().is_empty()
    })
}

/// `SetFlag<HardEvent::V_S>(id);` or `WaitFlag<...>(id)`, by name: the id's text.
fn flag<'a>(stmt: Node, text: &'a str, name: &str) -> Option<&'a str> {
    let c = call_of(stmt)?;
    let [id] = c.args()[..] else { return None };
    (c.name(text) == name
        && c.template_args(text)?
            .trim_start_matches("AscendC::")
            .trim_start_matches("HardEvent::")
            == "V_S")
        .then(|| text_of(id, text))
}

/// The tensor a vector call writes: its first argument `t` or `t[...]`, a local tensor of the
/// function; None for calls that are not vector instructions on local tensors.
fn vector_result<'a>(stmt: Node, text: &'a str) -> Option<&'a str> {
    let c = call_of(stmt)?;
    (c.function.kind() != "field_expression"
        && c.args().len() >= 2
        && !c.name(text).starts_with("DataCopy")
        && !matches!(c.name(text), "PipeBarrier" | "SetFlag" | "WaitFlag"))
    .then_some(())?;
    let first = c.args()[0];
    let t = match first.kind() {
        "identifier" => first,
        "subscript_expression" => first.child_by_field_name("argument")?,
        _ => return None,
    };
    let t = (t.kind() == "identifier").then(|| text_of(t, text))?;
    let (func, _) = cst::enclosing_function(stmt, text)?;
    cb::local_tensor_type(func, text, t).map(|_| t)
}

/// Whether `stmts` hold no GM copy and no scalar access to a tensor other than `t`.
fn quiet(stmts: &[Node], text: &str, t: &str) -> bool {
    stmts.iter().all(|s| {
        cst::nodes_of_kind(*s, "call_expression")
            .into_iter()
            .filter_map(Call::of)
            .all(|c| {
                let name = c.name(text);
                !name.starts_with("DataCopy")
                    && (!matches!(name, "GetValue" | "SetValue") || c.receiver(text) == Some(t))
            })
    })
}

/// One wait of the scalar unit for a vector result: `sync` is the barrier or the event pair.
struct Wait {
    sync: Range<usize>,
    id: Option<String>,
    qualified: bool,
}

/// The statements `sync` (indices `from..=to` in `stmts`) stand between: a vector call writing t just
/// before, a statement reading `t.GetValue` just after; no GM copy from the previous full barrier to
/// the call nor from the sync to the next full barrier, and no scalar access to other tensors there.
fn guarded(stmts: &[Node], from: usize, to: usize, text: &str) -> Option<()> {
    let before = *stmts.get(from.checked_sub(1)?)?;
    let after = *stmts.get(to + 1)?;
    let t = vector_result(before, text)?;
    cst::calls_named(after, text, "GetValue")
        .iter()
        .any(|c| c.receiver(text) == Some(t))
        .then_some(())?;
    let start = stmts[..from - 1]
        .iter()
        .rposition(|s| is_full_barrier(*s, text))
        .map_or(0, |i| i + 1);
    let end = stmts[to + 1..]
        .iter()
        .position(|s| is_full_barrier(*s, text))
        .map_or(stmts.len(), |i| to + 1 + i);
    let copies = |s: &Node| {
        cst::nodes_of_kind(*s, "call_expression")
            .into_iter()
            .filter_map(Call::of)
            .any(|c| c.name(text).starts_with("DataCopy"))
    };
    (!stmts[start..from - 1].iter().any(copies) && quiet(&stmts[to + 1..end], text, t))
        .then_some(())
}

fn blocks(root: Node) -> Vec<Node> {
    cst::nodes_of_kind(root, "compound_statement")
}

fn barriers(text: &str, root: Node) -> Vec<Wait> {
    let mut out = vec![];
    for block in blocks(root) {
        let stmts = cst::statements(block);
        for (i, s) in stmts.iter().enumerate() {
            if is_full_barrier(*s, text)
                && cst::own_lines(text, *s).is_some()
                && guarded(&stmts, i, i, text).is_some()
            {
                out.push(Wait {
                    sync: s.byte_range(),
                    id: None,
                    qualified: text_of(call_of(*s).expect("a call").function, text)
                        .starts_with("AscendC::"),
                });
            }
        }
    }
    out
}

fn pairs(text: &str, root: Node) -> Vec<Wait> {
    let mut out = vec![];
    for block in blocks(root) {
        let stmts = cst::statements(block);
        for i in 0..stmts.len().saturating_sub(1) {
            let (Some(set), Some(wait)) = (
                flag(stmts[i], text, "SetFlag"),
                flag(stmts[i + 1], text, "WaitFlag"),
            ) else {
                continue;
            };
            if set == wait
                && cst::own_lines(text, stmts[i]).is_some()
                && cst::own_lines(text, stmts[i + 1]).is_some()
                && guarded(&stmts, i, i + 1, text).is_some()
            {
                out.push(Wait {
                    sync: stmts[i].start_byte()..stmts[i + 1].end_byte(),
                    id: Some(set.to_string()),
                    qualified: text_of(call_of(stmts[i]).expect("a call").function, text)
                        .starts_with("AscendC::"),
                });
            }
        }
    }
    out
}

/// Every V_S flag of the file is one of the pairs found (no other user of the event ids).
fn flags_all_paired(text: &str, root: Node, pairs: &[Wait]) -> bool {
    let mut n = 0;
    for name in ["SetFlag", "WaitFlag"] {
        n += cst::calls_named(root, text, name)
            .iter()
            .filter(|c| {
                c.template_args(text)
                    .is_some_and(|t| t.ends_with("V_S") || t.ends_with("S_V"))
            })
            .count();
    }
    n == 2 * pairs.len()
}

impl Motif for ScalarWait {
    fn relaxes_sync(&self) -> bool {
        true
    }
    fn name(&self) -> &'static str {
        NAME
    }
    fn summary(&self) -> &'static str {
        "PipeBarrier<PIPE_ALL> between a vector call and a GetValue of its result -> SetFlag/WaitFlag<HardEvent::V_S>"
    }
    fn preserves_meaning_when(&self) -> &'static str {
        "checked: the barrier is a statement of its own whose previous statement is a vector call (a \
         free function, not DataCopy*, at least two arguments) writing a local tensor t (its first \
         argument, or an offset of it) and whose next statement reads `t.GetValue`; from the previous \
         full barrier of the block (or its start) to the vector call there is no DataCopy, and from \
         the barrier to the next full barrier (or the block's end) no DataCopy and no GetValue or \
         SetValue of any tensor but t. So the only order the barrier gave that anything relies on is \
         the vector pipe before the scalar unit, which the V_S event pair gives (later vector calls are \
         issued by the scalar unit after its read, so they cannot overwrite t first). The event id is \
         EVENT_ID0, set and waited at once; offered only when every V_S and S_V flag of the file is \
         such a pair (no other user of the id). Outputs are identical. Rewind turns such a pair back \
         into the full barrier"
    }
    fn apply_sites(&self, text: &str) -> Vec<Site> {
        let tree = cst::parse(text);
        let root = tree.root_node();
        if !flags_all_paired(text, root, &pairs(text, root)) {
            return vec![];
        }
        barriers(text, root)
            .into_iter()
            .map(|w| {
                Site::new(
                    w.sync,
                    text,
                    "full barrier before a scalar read of a vector result: V_S event",
                )
            })
            .collect()
    }
    fn apply(&self, text: &str, site: &Site) -> Result<Edit, MotifError> {
        let tree = cst::parse(text);
        let w = barriers(text, tree.root_node())
            .into_iter()
            .find(|w| w.sync == site.range)
            .ok_or_else(|| {
                error(
                    text,
                    site.range.start,
                    "no full barrier before a GetValue here",
                )
            })?;
        let statements = match &site.restore {
            Some(r) => r.clone(),
            None => {
                let q = cb::qualifier(w.qualified);
                let ind = cst::indent_at(text, site.range.start);
                format!(
                    "{q}SetFlag<{q}HardEvent::V_S>(EVENT_ID0);\n{ind}{q}WaitFlag<{q}HardEvent::V_S>(EVENT_ID0);"
                )
            }
        };
        let new = cst::splice(text, site.range.clone(), &statements);
        let inverse = Site::new(
            site.range.start..site.range.start + statements.len(),
            &new,
            "V_S event pair",
        )
        .restoring(text[site.range.clone()].to_string());
        Ok(Edit { text: new, inverse })
    }
    fn rewind_sites(&self, text: &str) -> Vec<Site> {
        let tree = cst::parse(text);
        let root = tree.root_node();
        let found = pairs(text, root);
        if !flags_all_paired(text, root, &found) {
            return vec![];
        }
        found
            .into_iter()
            .map(|w| {
                Site::new(
                    w.sync,
                    text,
                    format!(
                        "V_S event {} before a scalar read: full barrier",
                        w.id.unwrap_or_default()
                    ),
                )
            })
            .collect()
    }
    fn rewind(&self, text: &str, site: &Site) -> Result<Edit, MotifError> {
        let tree = cst::parse(text);
        let w = pairs(text, tree.root_node())
            .into_iter()
            .find(|w| w.sync == site.range)
            .ok_or_else(|| error(text, site.range.start, "no V_S event pair here"))?;
        let statement = match &site.restore {
            Some(r) => r.clone(),
            None => format!("{}PipeBarrier<PIPE_ALL>();", cb::qualifier(w.qualified)),
        };
        let new = cst::splice(text, site.range.clone(), &statement);
        let inverse = Site::new(
            site.range.start..site.range.start + statement.len(),
            &new,
            "full barrier",
        )
        .restoring(text[site.range.clone()].to_string());
        Ok(Edit { text: new, inverse })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rewrite::motif::Direction;
    use crate::rewrite::motif::edit_all;
    use crate::rewrite::motif::testing::*;

    #[test]
    fn layernorm_scalar_reads_wait_for_the_vector_pipe_only() {
        let (naive, _) = fixture_kernel("layernorm_custom");
        let sites = ScalarWait.apply_sites(&naive);
        // mean, var and rstd are each read after a full barrier.
        assert_eq!(sites.len(), 3, "{sites:?}");
        let edit = ScalarWait.apply(&naive, &sites[0]).unwrap();
        assert!(
            edit.text.contains(
                "            AscendC::ReduceSum(stat, xRow, work, this->rowLength);\n\
                 \x20           AscendC::SetFlag<AscendC::HardEvent::V_S>(EVENT_ID0);\n\
                 \x20           AscendC::WaitFlag<AscendC::HardEvent::V_S>(EVENT_ID0);\n\
                 \x20           float mean = stat.GetValue(0) / n;\n"
            ),
            "{}",
            edit.text
        );
        assert_eq!(round_trips(&ScalarWait, &naive), 3);
        let (all, n) = edit_all(&ScalarWait, &naive, Direction::Apply)
            .unwrap()
            .unwrap();
        assert_eq!(n, 3);
        assert_eq!(rewinds_round_trip(&ScalarWait, &all), 3);
        let (back, _) = edit_all(&ScalarWait, &all, Direction::Rewind)
            .unwrap()
            .unwrap();
        assert_eq!(back, naive);
    }

    #[test]
    fn barriers_that_order_more_than_the_read_stay() {
        let (naive, _) = fixture_kernel("rmsnorm_custom");
        assert_eq!(ScalarWait.apply_sites(&naive).len(), 2);
        for (from, to) in [
            // the read is of another tensor than the vector result
            (
                "float meanSquare = stat.GetValue(0)",
                "float meanSquare = sq.GetValue(0)",
            ),
            // a copy to GM after the read relies on the barrier
            (
                "            AscendC::Duplicate(stat, meanSquare + this->epsilon, 8);\n",
                "            AscendC::DataCopy(yGm, yLocal, 8);\n            AscendC::Duplicate(stat, meanSquare + this->epsilon, 8);\n",
            ),
        ] {
            let k = naive.replace(from, to);
            assert_ne!(k, naive, "{from}");
            assert_eq!(ScalarWait.apply_sites(&k).len(), 1, "{to}");
        }
        // Another user of V_S events: no site at all.
        let k = naive.replace(
            "        for (uint32_t r = 0;",
            "        AscendC::SetFlag<AscendC::HardEvent::V_S>(EVENT_ID0);\n        for (uint32_t r = 0;",
        );
        assert!(ScalarWait.apply_sites(&k).is_empty());
    }
}
