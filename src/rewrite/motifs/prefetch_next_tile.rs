//! prefetch-next-tile: a tile loop `for (i ...) { CopyIn(i); Compute(i); CopyOut(i); }` becomes a
//! software pipeline that copies tile i + 1 in before computing tile i:
//!
//! ```text
//! // Tile i + 1 is copied in while tile i is computed (when the queues hold two tiles).
//! constexpr bool prefetch = BUFFER_NUM > 1;
//! if (prefetch && this->tileNum > 0) {
//!     CopyIn(0);
//! }
//! for (uint32_t i = 0; i < this->tileNum; i++) {
//!     if (!prefetch) {
//!         CopyIn(i);
//!     } else if (i + 1 < this->tileNum) {
//!         CopyIn(i + 1);
//!     }
//!     Compute(i);
//!     CopyOut(i);
//! }
//! ```
//!
//! Queue synchronisation already lets MTE2 run ahead of the vector unit when the scalar unit issues
//! instructions without waiting; a kernel whose `Compute` reads values back to the scalar unit
//! (`GetValue` after a reduction) stalls issue until the vector work is done, so the next tile's copy
//! is not issued until then. Issuing it first overlaps it with the compute. With a queue depth of 1 the
//! second `AllocTensor` would wait for a tensor that is only freed later, so the fast form falls back to
//! the old order unless the depth is above 1 (a literal depth of 2 or more needs no guard). It knows
//! AscendC's CopyIn/Compute/CopyOut stage idiom and queues, nothing of measuring or the bank.

use crate::rewrite::cst::{self, Call, text_of};
use crate::rewrite::motif::{Edit, Motif, MotifError, Site};
use tree_sitter::Node;

pub struct PrefetchNextTile;

const NAME: &str = "prefetch-next-tile";
const COMMENT_GUARDED: &str =
    "// Tile i + 1 is copied in while tile i is computed (when the queues hold two tiles).";
const COMMENT: &str = "// Tile i + 1 is copied in while tile i is computed.";

/// The pieces both forms are written from.
#[derive(Debug, Clone, PartialEq)]
struct Parts {
    indent: String,
    /// One level of indentation more (the loop body's).
    inner: String,
    /// `for (uint32_t i = 0; i < this->tileNum; i++)`.
    header: String,
    var: String,
    count: String,
    copy_in: String,
    compute: String,
    copy_out: String,
    /// `BUFFER_NUM > 1` when a queue's depth is not a literal; None when every depth is 2 or more.
    guard: Option<String>,
}

impl Parts {
    /// The slow form, from the `for` to its closing brace (the first line's indentation excluded).
    fn slow(&self) -> String {
        let Parts {
            indent,
            inner,
            header,
            var,
            ..
        } = self;
        format!(
            "{header} {{\n{inner}{}({var});\n{inner}{}({var});\n{inner}{}({var});\n{indent}}}",
            self.copy_in, self.compute, self.copy_out
        )
    }

    /// The fast form, from its comment to the loop's closing brace (the first line's indentation
    /// excluded).
    fn fast(&self) -> String {
        let Parts {
            indent,
            inner,
            header,
            var,
            count,
            copy_in,
            compute,
            copy_out,
            ..
        } = self;
        let deeper = format!("{inner}{}", &inner[indent.len().min(inner.len())..]);
        match &self.guard {
            Some(guard) => format!(
                "{COMMENT_GUARDED}\n\
                 {indent}constexpr bool prefetch = {guard};\n\
                 {indent}if (prefetch && {count} > 0) {{\n\
                 {inner}{copy_in}(0);\n\
                 {indent}}}\n\
                 {indent}{header} {{\n\
                 {inner}if (!prefetch) {{\n\
                 {deeper}{copy_in}({var});\n\
                 {inner}}} else if ({var} + 1 < {count}) {{\n\
                 {deeper}{copy_in}({var} + 1);\n\
                 {inner}}}\n\
                 {inner}{compute}({var});\n\
                 {inner}{copy_out}({var});\n\
                 {indent}}}"
            ),
            None => format!(
                "{COMMENT}\n\
                 {indent}if ({count} > 0) {{\n\
                 {inner}{copy_in}(0);\n\
                 {indent}}}\n\
                 {indent}{header} {{\n\
                 {inner}if ({var} + 1 < {count}) {{\n\
                 {deeper}{copy_in}({var} + 1);\n\
                 {inner}}}\n\
                 {inner}{compute}({var});\n\
                 {inner}{copy_out}({var});\n\
                 {indent}}}"
            ),
        }
    }
}

/// `name(arg)` as a statement: the callee's name and the argument's text.
fn stage_call<'a>(stmt: Node, text: &'a str) -> Option<(&'a str, &'a str)> {
    if stmt.kind() != "expression_statement" {
        return None;
    }
    let call = Call::of(stmt.named_child(0)?)?;
    let [arg] = call.args()[..] else {
        return None;
    };
    (call.function.kind() == "identifier").then(|| (call.name(text), text_of(arg, text)))
}

/// The `for` loop's header, counter and count: `for (T i = 0; i < N; i++)`.
fn loop_head<'a>(f: Node, text: &'a str) -> Option<(&'a str, String, String)> {
    let body = f.child_by_field_name("body")?;
    let header = text[f.start_byte()..body.start_byte()].trim_end();
    let cond = f.child_by_field_name("condition")?;
    if cond.kind() != "binary_expression"
        || text_of(cond.child_by_field_name("operator")?, text) != "<"
    {
        return None;
    }
    let var = text_of(cond.child_by_field_name("left")?, text).to_string();
    let count = cond.child_by_field_name("right")?;
    let simple = matches!(
        count.kind(),
        "identifier" | "field_expression" | "number_literal"
    );
    let update = text_of(f.child_by_field_name("update")?, text);
    (simple && (update == format!("{var}++") || update == format!("++{var}")))
        .then(|| (header, var, text_of(count, text).to_string()))
}

/// The queues a function takes tensors from (`q.AllocTensor<T>()`), by name.
fn alloc_queues(f: Node, text: &str) -> Vec<String> {
    let mut out: Vec<String> = cst::calls_named(f, text, "AllocTensor")
        .iter()
        .filter_map(|c| c.receiver(text).map(str::to_string))
        .collect();
    out.sort();
    out.dedup();
    out
}

/// The depth of queue `name`: the second template argument of its `TQue<POS, DEPTH>` declaration.
fn queue_depth(root: Node, text: &str, name: &str) -> Option<String> {
    for t in cst::nodes_of_kind(root, "template_type") {
        if t.child_by_field_name("name")
            .is_none_or(|n| text_of(n, text) != "TQue")
        {
            continue;
        }
        let Some(decl) = cst::ancestor(t, &["field_declaration", "declaration"]) else {
            continue;
        };
        let mut c = decl.walk();
        let declares = decl
            .children_by_field_name("declarator", &mut c)
            .any(|d| text_of(d, text) == name);
        if !declares {
            continue;
        }
        let args = t.child_by_field_name("arguments")?;
        let mut c = args.walk();
        let named: Vec<Node> = args.named_children(&mut c).collect();
        return named.get(1).map(|d| text_of(*d, text).to_string());
    }
    None
}

/// Whether `count` (a local or `this->member`) is assigned outside `Init` (or by a stage).
fn count_changes(root: Node, text: &str, count: &str) -> bool {
    cst::stores_to(root, text, count)
        .into_iter()
        .any(|t| cst::enclosing_function(t, text).is_none_or(|(_, f)| f != "Init"))
}

/// The guard the stages' queues need, or why there is no site: Some(None) when every depth is a
/// literal of 2 or more, Some(Some(guard)) when some depth is a name, None when one is 1 (or unknown).
fn guard_for(root: Node, text: &str, stages: [&str; 3]) -> Option<Option<String>> {
    let [copy_in, compute, copy_out] = stages;
    let f_in = cst::function_named(root, text, copy_in)?;
    let queues = alloc_queues(f_in, text);
    if queues.is_empty()
        || cst::calls_named(f_in, text, "EnQue").is_empty()
        || cst::calls_named(f_in, text, "DataCopy").is_empty()
            && cst::calls_named(f_in, text, "DataCopyPad").is_empty()
    {
        return None;
    }
    // The other stages take no tensor from these queues (they DeQue and free them).
    for other in [compute, copy_out] {
        let f = cst::function_named(root, text, other)?;
        if alloc_queues(f, text).iter().any(|q| queues.contains(q)) {
            return None;
        }
    }
    let mut names = vec![];
    for q in &queues {
        let depth = queue_depth(root, text, q)?;
        match depth.parse::<u64>() {
            Ok(d) if d >= 2 => {}
            Ok(_) => return None,
            Err(_) if depth.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') => {
                if !names.contains(&depth) {
                    names.push(depth)
                }
            }
            Err(_) => return None,
        }
    }
    Some((!names.is_empty()).then(|| {
        names
            .iter()
            .map(|n| format!("{n} > 1"))
            .collect::<Vec<_>>()
            .join(" && ")
    }))
}

/// Slow-form loops: the `for` statement and its parts.
fn slow_loops<'t>(root: Node<'t>, text: &str) -> Vec<(Node<'t>, Parts)> {
    let mut out = vec![];
    for f in cst::nodes_of_kind(root, "for_statement") {
        let Some((header, var, count)) = loop_head(f, text) else {
            continue;
        };
        let Some(body) = f
            .child_by_field_name("body")
            .filter(|b| b.kind() == "compound_statement")
        else {
            continue;
        };
        let mut c = body.walk();
        let items: Vec<Node> = body.named_children(&mut c).collect();
        let stages: Option<Vec<&str>> = items
            .iter()
            .map(|s| {
                stage_call(*s, text)
                    .filter(|(_, a)| *a == var)
                    .map(|(n, _)| n)
            })
            .collect();
        let Some([copy_in, compute, copy_out]) = stages
            .as_deref()
            .and_then(|s| <[&str; 3]>::try_from(s).ok())
        else {
            continue;
        };
        if cst::calls_named(root, text, copy_in).len() != 1 || count_changes(root, text, &count) {
            continue;
        }
        let Some(guard) = guard_for(root, text, [copy_in, compute, copy_out]) else {
            continue;
        };
        let indent = cst::indent_at(text, f.start_byte()).to_string();
        let inner = cst::indent_at(text, items[0].start_byte()).to_string();
        if !inner.starts_with(&indent) || inner.len() <= indent.len() {
            continue;
        }
        let parts = Parts {
            indent,
            inner,
            header: header.to_string(),
            var,
            count,
            copy_in: copy_in.to_string(),
            compute: compute.to_string(),
            copy_out: copy_out.to_string(),
            guard,
        };
        // Only the layout written here round-trips byte for byte.
        if text_of(f, text) == parts.slow() {
            out.push((f, parts));
        }
    }
    out
}

/// Fast-form pipelines: the span from the comment to the loop's end, and the parts.
fn fast_loops(root: Node, text: &str) -> Vec<(std::ops::Range<usize>, Parts)> {
    let mut out = vec![];
    for comment in cst::nodes_of_kind(root, "comment") {
        let guarded = match text_of(comment, text) {
            COMMENT_GUARDED => true,
            COMMENT => false,
            _ => continue,
        };
        let mut f = comment.next_named_sibling();
        while let Some(n) = f.filter(|n| n.kind() != "for_statement") {
            f = n.next_named_sibling();
        }
        let Some(f) = f else { continue };
        let Some((header, var, count)) = loop_head(f, text) else {
            continue;
        };
        let Some(body) = f.child_by_field_name("body") else {
            continue;
        };
        let mut c = body.walk();
        let items: Vec<Node> = body.named_children(&mut c).collect();
        let [first, compute, copy_out] = items[..] else {
            continue;
        };
        let (Some((compute, a)), Some((copy_out, b))) =
            (stage_call(compute, text), stage_call(copy_out, text))
        else {
            continue;
        };
        let Some(copy_in) = cst::nodes_of_kind(first, "call_expression")
            .first()
            .and_then(|c| Call::of(*c))
            .map(|c| c.name(text).to_string())
        else {
            continue;
        };
        if a != var || b != var {
            continue;
        }
        let Some(guard) = guard_for(root, text, [&copy_in, compute, copy_out]) else {
            continue;
        };
        if guard.is_some() != guarded || count_changes(root, text, &count) {
            continue;
        }
        let indent = cst::indent_at(text, comment.start_byte()).to_string();
        let inner = cst::indent_at(text, first.start_byte()).to_string();
        if !inner.starts_with(&indent) || inner.len() <= indent.len() {
            continue;
        }
        let parts = Parts {
            indent,
            inner,
            header: header.to_string(),
            var,
            count,
            copy_in,
            compute: compute.to_string(),
            copy_out: copy_out.to_string(),
            guard,
        };
        let range = comment.start_byte()..f.end_byte();
        // After rewinding, `apply` must find the loop again: the copy-in stage is called only here.
        let calls = cst::calls_named(root, text, &parts.copy_in).len();
        if text[range.clone()] == parts.fast() && calls == 3 - usize::from(!guarded) {
            out.push((range, parts));
        }
    }
    out
}

fn not_here(text: &str, site: &Site, expected: &str) -> MotifError {
    MotifError {
        motif: NAME,
        line: cst::line_of(text, site.range.start),
        why: format!("expected {expected} here"),
    }
}

impl Motif for PrefetchNextTile {
    fn name(&self) -> &'static str {
        NAME
    }
    fn summary(&self) -> &'static str {
        "CopyIn(i); Compute(i); CopyOut(i) -> copy tile i + 1 in before computing tile i (guarded by the \
         queue depth)"
    }
    fn preserves_meaning_when(&self) -> &'static str {
        "the loop body is exactly the three stage calls on the loop counter; the copy-in stage takes \
         tensors from queues (AllocTensor, EnQue) and copies from GM, is called nowhere else, and the other \
         stages take no tensor from those queues; the count is not assigned outside Init; every queue's \
         depth is a literal of 2 or more or a name (then the new order runs only when the depth is above 1). \
         Tile i + 1's input is read before tile i's output is written, which holds whenever tiles map to \
         disjoint GM (the outputs of an in-place op must not overlap a later tile's input)"
    }
    fn apply_sites(&self, text: &str) -> Vec<Site> {
        let tree = cst::parse(text);
        slow_loops(tree.root_node(), text)
            .into_iter()
            .map(|(f, p)| {
                Site::new(
                    f.byte_range(),
                    text,
                    format!("{}({}) before {}({})", p.copy_in, p.var, p.compute, p.var),
                )
            })
            .collect()
    }
    fn apply(&self, text: &str, site: &Site) -> Result<Edit, MotifError> {
        let tree = cst::parse(text);
        let (f, parts) = slow_loops(tree.root_node(), text)
            .into_iter()
            .find(|(f, _)| f.byte_range() == site.range)
            .ok_or_else(|| not_here(text, site, "a CopyIn/Compute/CopyOut tile loop"))?;
        let fast = parts.fast();
        let new = cst::splice(text, f.byte_range(), &fast);
        let inverse = Site::new(
            f.start_byte()..f.start_byte() + fast.len(),
            &new,
            format!("{}({} + 1) prefetched", parts.copy_in, parts.var),
        );
        Ok(Edit { text: new, inverse })
    }
    fn rewind_sites(&self, text: &str) -> Vec<Site> {
        let tree = cst::parse(text);
        fast_loops(tree.root_node(), text)
            .into_iter()
            .map(|(range, p)| {
                Site::new(
                    range,
                    text,
                    format!("{}({} + 1) prefetched", p.copy_in, p.var),
                )
            })
            .collect()
    }
    fn rewind(&self, text: &str, site: &Site) -> Result<Edit, MotifError> {
        let tree = cst::parse(text);
        let (range, parts) = fast_loops(tree.root_node(), text)
            .into_iter()
            .find(|(r, _)| *r == site.range)
            .ok_or_else(|| not_here(text, site, "a prefetching tile loop"))?;
        let slow = parts.slow();
        let new = cst::splice(text, range.clone(), &slow);
        let inverse = Site::new(
            range.start..range.start + slow.len(),
            &new,
            format!(
                "{}({}) before {}({})",
                parts.copy_in, parts.var, parts.compute, parts.var
            ),
        );
        Ok(Edit { text: new, inverse })
    }
    /// Two tiles live in an input queue at once, and only where the depth allows it: the gain shows at
    /// the depths and tile sizes a re-tune picks, not at the old best point.
    fn reshapes_tiles(&self) -> bool {
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rewrite::motif::testing::*;

    /// The naive kernel with its loop's trailing full barrier gone (what drop-queue-barrier leaves).
    fn without_loop_barrier(op: &str) -> String {
        let (naive, _) = fixture_kernel(op);
        let out = naive.replace(
            "            CopyOut(i);\n            AscendC::PipeBarrier<PIPE_ALL>();\n",
            "            CopyOut(i);\n",
        );
        assert_ne!(out, naive, "{op}");
        out
    }

    #[test]
    fn pipelines_the_tile_loop_guarded_by_the_queue_depth() {
        let k = without_loop_barrier("rmsnorm_custom");
        let sites = PrefetchNextTile.apply_sites(&k);
        assert_eq!(sites.len(), 1);
        let fast = PrefetchNextTile.apply(&k, &sites[0]).unwrap().text;
        let want = "        // Tile i + 1 is copied in while tile i is computed (when the queues hold two tiles).
        constexpr bool prefetch = BUFFER_NUM > 1;
        if (prefetch && this->tileNum > 0) {
            CopyIn(0);
        }
        for (uint32_t i = 0; i < this->tileNum; i++) {
            if (!prefetch) {
                CopyIn(i);
            } else if (i + 1 < this->tileNum) {
                CopyIn(i + 1);
            }
            Compute(i);
            CopyOut(i);
        }
";
        assert!(fast.contains(want), "{fast}");
        assert_eq!(round_trips(&PrefetchNextTile, &k), 1);
        assert_eq!(rewinds_round_trip(&PrefetchNextTile, &fast), 1);
    }

    #[test]
    fn a_literal_depth_of_two_needs_no_guard_and_one_gets_no_site() {
        let k = without_loop_barrier("rmsnorm_custom").replace(
            "TQue<AscendC::QuePosition::VECIN, BUFFER_NUM>",
            "TQue<AscendC::QuePosition::VECIN, 2>",
        );
        let site = &PrefetchNextTile.apply_sites(&k)[0];
        let fast = PrefetchNextTile.apply(&k, site).unwrap().text;
        assert!(
            fast.contains(&format!("{COMMENT}\n        if (this->tileNum > 0) {{")),
            "{fast}"
        );
        assert!(!fast.contains("prefetch"));
        assert_eq!(round_trips(&PrefetchNextTile, &k), 1);
        let one = k.replace("VECIN, 2>", "VECIN, 1>");
        assert!(PrefetchNextTile.apply_sites(&one).is_empty());
    }

    #[test]
    fn leaves_loops_with_more_than_the_three_stages() {
        // The naive loop still ends with a full barrier: not the three stages alone.
        let (naive, _) = fixture_kernel("rmsnorm_custom");
        assert!(PrefetchNextTile.apply_sites(&naive).is_empty());
        // A copy-in stage called twice is not this loop's alone.
        let twice = without_loop_barrier("rmsnorm_custom").replace(
            "    __aicore__ inline void Process()\n    {\n",
            "    __aicore__ inline void Process()\n    {\n        CopyIn(0);\n",
        );
        assert!(PrefetchNextTile.apply_sites(&twice).is_empty());
    }
}
