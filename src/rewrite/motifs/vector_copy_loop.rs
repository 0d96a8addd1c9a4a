//! vector-copy-loop: a scalar loop copying n elements from one local tensor to another,
//! `for (j = 0; j < n; j++) { d.SetValue(D + j, s.GetValue(S + j)); }`, becomes one vector copy
//! `DataCopy(d[D], s[S], n)` (asc-devkit docs, DataCopy, local-to-local count form: both addresses
//! 32 B aligned and n * sizeof(T) whole 32 B blocks). A row broadcast written as a loop nest (bias_add's
//! `LoadBias`) becomes one vector copy per row; the outer loops stay. Rewinding turns exactly such a
//! `DataCopy` back into the loop.

use super::constant_buffer as cb;
use super::scalar_loop::is_full_barrier;
use crate::rewrite::cst::{self, Call, text_of};
use crate::rewrite::motif::{Edit, Motif, MotifError, Site};
use tree_sitter::Node;

pub struct VectorCopyLoop;

const NAME: &str = "vector-copy-loop";

/// One copy, in either form.
struct Copy<'t> {
    /// The statement replaced: the `for` loop or the `DataCopy` statement.
    stmt: Node<'t>,
    dst: String,
    dst_base: Option<String>,
    src: String,
    src_base: Option<String>,
    count: String,
    qualified: bool,
}

fn error(text: &str, at: usize, why: &str) -> MotifError {
    MotifError {
        motif: NAME,
        line: cst::line_of(text, at),
        why: why.into(),
    }
}

fn single_init<'t>(decl: Node<'t>) -> Option<(Node<'t>, Node<'t>)> {
    super::vector_reduce::single_init(decl)
}

/// The copy sits in a nest of `for` loops (each body only the next loop, or the copy) whose outermost
/// statement has a `PipeBarrier<PIPE_ALL>()` just before and just after it in its block: the data read
/// is ready for any pipe, and whatever reads the copy waits for every pipe.
fn fenced(stmt: Node, text: &str) -> Option<()> {
    let mut top = stmt;
    loop {
        let block = top.parent()?;
        (block.kind() == "compound_statement").then_some(())?;
        let outer = block.parent()?;
        if outer.kind() == "for_statement" && cst::statements(block).len() == 1 {
            top = outer;
            continue;
        }
        let stmts = cst::statements(block);
        let at = stmts.iter().position(|s| *s == top)?;
        let before = *stmts.get(at.checked_sub(1)?)?;
        let after = *stmts.get(at + 1)?;
        return (is_full_barrier(before, text) && is_full_barrier(after, text)).then_some(());
    }
}

/// Whether an offset keeps a 32 B alignment the count has: none, or `k * n` / `n * k` with n the count.
fn aligned_offset(base: Option<Node>, text: &str, count: &str) -> bool {
    let Some(b) = base else { return true };
    b.kind() == "binary_expression"
        && b.child_by_field_name("operator")
            .is_some_and(|o| text_of(o, text) == "*")
        && [
            b.child_by_field_name("left"),
            b.child_by_field_name("right"),
        ]
        .into_iter()
        .flatten()
        .any(|f| text_of(f, text) == count)
}

/// Another `DataCopy` of the file (not `except`) with the count text `count` on a `LocalTensor<elem>`:
/// the kernel already relies on `count` elements being whole 32 B blocks.
fn count_in_blocks(root: Node, text: &str, count: &str, elem: &str, except: Option<Node>) -> bool {
    cst::calls_named(root, text, "DataCopy")
        .into_iter()
        .any(|c| {
            let args = c.args();
            Some(c.node) != except
                && args.len() == 3
                && text_of(args[2], text) == count
                && cst::enclosing_function(c.node, text).is_some_and(|(f, _)| {
                    args[..2].iter().any(|a| {
                        let name = match a.kind() {
                            "subscript_expression" => a.child_by_field_name("argument"),
                            _ => Some(*a),
                        };
                        name.and_then(|n| cb::local_tensor_type(f, text, text_of(n, text)))
                            == Some(elem)
                    })
                })
        })
}

/// The checks both forms share: two distinct local tensors of one type, offsets that keep the
/// alignment, the count's evidence and the fences.
#[allow(clippy::too_many_arguments)]
fn checked<'t>(
    text: &str,
    stmt: Node<'t>,
    (dst, dst_base): (&str, Option<Node>),
    (src, src_base): (&str, Option<Node>),
    count: Node,
    except: Option<Node>,
) -> Option<Copy<'t>> {
    let root = {
        let mut r = stmt;
        while let Some(p) = r.parent() {
            r = p;
        }
        r
    };
    let (func, _) = cst::enclosing_function(stmt, text)?;
    let elem = cb::local_tensor_type(func, text, dst)?;
    (dst != src && cb::local_tensor_type(func, text, src)? == elem).then_some(())?;
    let n = text_of(count, text);
    (aligned_offset(dst_base, text, n) && aligned_offset(src_base, text, n)).then_some(())?;
    count_in_blocks(root, text, n, elem, except).then_some(())?;
    fenced(stmt, text)?;
    cst::own_lines(text, stmt)?;
    Some(Copy {
        stmt,
        dst: dst.into(),
        dst_base: dst_base.map(|b| text_of(b, text).into()),
        src: src.into(),
        src_base: src_base.map(|b| text_of(b, text).into()),
        count: n.into(),
        qualified: text.contains("AscendC::"),
    })
}

/// `j` or `base + j` with base free of j: Some(base) (None inside for no base).
fn index_of<'t>(index: Node<'t>, text: &str, j: &str) -> Option<Option<Node<'t>>> {
    if index.kind() == "identifier" && text_of(index, text) == j {
        return Some(None);
    }
    (index.kind() == "binary_expression"
        && text_of(index.child_by_field_name("operator")?, text) == "+"
        && text_of(index.child_by_field_name("right")?, text) == j)
        .then_some(())?;
    let base = index.child_by_field_name("left")?;
    (!cst::identifiers_in(base, text).contains(&j)).then_some(Some(base))
}

/// `for (T j = 0; j < n; j++) { d.SetValue(D + j, s.GetValue(S + j)); }`.
fn loop_at<'t>(text: &str, for_stmt: Node<'t>) -> Option<Copy<'t>> {
    let (jvar, j0) = single_init(for_stmt.child_by_field_name("initializer")?)?;
    let j = (jvar.kind() == "identifier").then(|| text_of(jvar, text))?;
    (cb::literal_value(j0, text)? == 0.0).then_some(())?;
    let cond = for_stmt.child_by_field_name("condition")?;
    (cond.kind() == "binary_expression"
        && text_of(cond.child_by_field_name("operator")?, text) == "<"
        && text_of(cond.child_by_field_name("left")?, text) == j)
        .then_some(())?;
    let count = cond.child_by_field_name("right")?;
    (!cst::identifiers_in(count, text).contains(&j)).then_some(())?;
    let update = for_stmt.child_by_field_name("update")?;
    (update.kind() == "update_expression" && text_of(update, text).replace(j, "").trim() == "++")
        .then_some(())?;
    let body = for_stmt.child_by_field_name("body")?;
    (body.kind() == "compound_statement").then_some(())?;
    let [stmt] = cst::statements(body)[..] else {
        return None;
    };
    (stmt.kind() == "expression_statement").then_some(())?;
    let set = Call::of(stmt.named_child(0)?)?;
    let [dst_index, value] = set.args()[..] else {
        return None;
    };
    (set.name(text) == "SetValue"
        && set.function.child_by_field_name("argument")?.kind() == "identifier")
        .then_some(())?;
    let get = Call::of(value)?;
    let [src_index] = get.args()[..] else {
        return None;
    };
    (get.name(text) == "GetValue"
        && get.function.child_by_field_name("argument")?.kind() == "identifier")
        .then_some(())?;
    let dst_base = index_of(dst_index, text, j)?;
    let src_base = index_of(src_index, text, j)?;
    checked(
        text,
        for_stmt,
        (set.receiver(text)?, dst_base),
        (get.receiver(text)?, src_base),
        count,
        None,
    )
}

/// `t` or `t[base]`: (t, base).
fn operand<'t, 'a>(node: Node<'t>, text: &'a str) -> Option<(&'a str, Option<Node<'t>>)> {
    match node.kind() {
        "identifier" => Some((text_of(node, text), None)),
        "subscript_expression" => {
            let arr = node.child_by_field_name("argument")?;
            (arr.kind() == "identifier").then_some(())?;
            let mut c = node.walk();
            let index = node
                .child_by_field_name("indices")
                .and_then(|i| i.named_children(&mut c).find(|n| n.kind() != "comment"))
                .or_else(|| node.child_by_field_name("index"))?;
            Some((text_of(arr, text), Some(index)))
        }
        _ => None,
    }
}

/// `DataCopy(d[D], s[S], n);` between two local tensors.
fn vector_at<'t>(text: &str, call: Call<'t>) -> Option<Copy<'t>> {
    let stmt = cb::block_statement(text, &call)?;
    call.template_args(text).is_none().then_some(())?;
    let [dst, src, count] = call.args()[..] else {
        return None;
    };
    let (d, db) = operand(dst, text)?;
    let (s, sb) = operand(src, text)?;
    let mut copy = checked(text, stmt, (d, db), (s, sb), count, Some(call.node))?;
    copy.qualified = call.qualified(text);
    Some(copy)
}

fn loops<'t>(text: &str, root: Node<'t>) -> Vec<Copy<'t>> {
    cst::nodes_of_kind(root, "for_statement")
        .into_iter()
        .filter_map(|f| loop_at(text, f))
        .collect()
}

fn vectors<'t>(text: &str, root: Node<'t>) -> Vec<Copy<'t>> {
    cst::calls_named(root, text, "DataCopy")
        .into_iter()
        .filter_map(|c| vector_at(text, c))
        .collect()
}

impl Motif for VectorCopyLoop {
    fn name(&self) -> &'static str {
        NAME
    }
    fn summary(&self) -> &'static str {
        "scalar SetValue(GetValue) loop copying a row between local tensors -> one local-to-local DataCopy"
    }
    fn preserves_meaning_when(&self) -> &'static str {
        "checked: the loop runs an integer j from 0 while j < n by ++ and its body is only \
         `d.SetValue(D + j, s.GetValue(S + j))` (D, S optional and free of j; n free of j), with d and s \
         two different `LocalTensor<T>` of the function of the same T, so the loop copies n elements \
         from s[S] to d[D] and the two cannot overlap (distinct tensors; NOT checked that they are views \
         of distinct buffers). DataCopy needs n * sizeof(T) to be whole 32 B blocks and 32 B aligned \
         addresses: checked only through evidence, namely that another DataCopy of the file moves the \
         same count text n on a LocalTensor<T> (so the kernel already needs n elements to be whole \
         blocks; not that the values agree at run time), and that D and S are absent or a product with \
         n as a factor (row starts), so they keep the alignment of d and s (NOT checked: that d and s \
         themselves start on 32 B). The loop, or the `for` nest whose bodies hold only it, has \
         `PipeBarrier<PIPE_ALL>()` just before and just after it in its block, so moving the copy from \
         the scalar unit to the vector unit needs no other synchronisation. The copy is bit-exact. Rewind \
         turns such a DataCopy (with the same checks, the evidence being another DataCopy) back into \
         the loop"
    }
    fn apply_sites(&self, text: &str) -> Vec<Site> {
        let tree = cst::parse(text);
        loops(text, tree.root_node())
            .into_iter()
            .map(|c| {
                Site::new(
                    c.stmt.byte_range(),
                    text,
                    format!("scalar copy of {} into {}: DataCopy", c.src, c.dst),
                )
            })
            .collect()
    }
    fn apply(&self, text: &str, site: &Site) -> Result<Edit, MotifError> {
        let tree = cst::parse(text);
        let c = loops(text, tree.root_node())
            .into_iter()
            .find(|c| c.stmt.byte_range() == site.range)
            .ok_or_else(|| error(text, site.range.start, "no scalar copy loop here"))?;
        let statement = match &site.restore {
            Some(r) => r.clone(),
            None => {
                let at = |t: &str, b: &Option<String>| match b {
                    Some(b) => format!("{t}[{b}]"),
                    None => t.to_string(),
                };
                format!(
                    "{}DataCopy({}, {}, {});",
                    cb::qualifier(c.qualified),
                    at(&c.dst, &c.dst_base),
                    at(&c.src, &c.src_base),
                    c.count
                )
            }
        };
        let new = cst::splice(text, site.range.clone(), &statement);
        let inverse = Site::new(
            site.range.start..site.range.start + statement.len(),
            &new,
            "DataCopy of a row",
        )
        .restoring(text[site.range.clone()].to_string());
        Ok(Edit { text: new, inverse })
    }
    fn rewind_sites(&self, text: &str) -> Vec<Site> {
        let tree = cst::parse(text);
        vectors(text, tree.root_node())
            .into_iter()
            .map(|c| {
                Site::new(
                    c.stmt.byte_range(),
                    text,
                    format!("DataCopy of {} into {}: scalar loop", c.src, c.dst),
                )
            })
            .collect()
    }
    fn rewind(&self, text: &str, site: &Site) -> Result<Edit, MotifError> {
        let tree = cst::parse(text);
        let c = vectors(text, tree.root_node())
            .into_iter()
            .find(|c| c.stmt.byte_range() == site.range)
            .ok_or_else(|| error(text, site.range.start, "no local-to-local DataCopy here"))?;
        let statement = match &site.restore {
            Some(r) => r.clone(),
            None => {
                let ind = cst::indent_at(text, site.range.start);
                let (func, _) = cst::enclosing_function(c.stmt, text)
                    .ok_or_else(|| error(text, site.range.start, "not in a function"))?;
                let j = cb::fresh_name(func, text, "j", "");
                let at = |b: &Option<String>| match b {
                    Some(b) => format!("{b} + {j}"),
                    None => j.clone(),
                };
                format!(
                    "for (uint32_t {j} = 0; {j} < {n}; {j}++) {{\n\
                     {ind}    {d}.SetValue({di}, {s}.GetValue({si}));\n{ind}}}",
                    n = c.count,
                    d = c.dst,
                    di = at(&c.dst_base),
                    s = c.src,
                    si = at(&c.src_base),
                )
            }
        };
        let new = cst::splice(text, site.range.clone(), &statement);
        let inverse = Site::new(
            site.range.start..site.range.start + statement.len(),
            &new,
            "scalar copy loop",
        )
        .restoring(text[site.range.clone()].to_string());
        Ok(Edit { text: new, inverse })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rewrite::motif::testing::*;

    #[test]
    fn bias_add_broadcast_loop_becomes_one_copy_per_row_and_back() {
        let (naive, _) = fixture_kernel("bias_add_custom");
        let sites = VectorCopyLoop.apply_sites(&naive);
        assert_eq!(sites.len(), 1, "{sites:?}");
        let edit = VectorCopyLoop.apply(&naive, &sites[0]).unwrap();
        assert!(
            edit.text.contains(
                "        AscendC::PipeBarrier<PIPE_ALL>();\n\
                 \x20       for (uint32_t r = 0; r < this->rowsPerTile; r++) {\n\
                 \x20           AscendC::DataCopy(biasTile[r * this->rowLength], biasLocal, this->rowLength);\n\
                 \x20       }\n\
                 \x20       AscendC::PipeBarrier<PIPE_ALL>();\n"
            ),
            "{}",
            edit.text
        );
        assert!(!edit.text.contains("SetValue"));
        assert_eq!(round_trips(&VectorCopyLoop, &naive), 1);
        let canonical = Site {
            restore: None,
            ..edit.inverse.clone()
        };
        assert_eq!(
            VectorCopyLoop.rewind(&edit.text, &canonical).unwrap().text,
            naive
        );
        assert_eq!(rewinds_round_trip(&VectorCopyLoop, &edit.text), 1);
        // The GM-to-UB copy of the bias row is no site to rewind.
        assert!(VectorCopyLoop.rewind_sites(&naive).is_empty());
    }

    #[test]
    fn copies_that_may_not_be_whole_aligned_blocks_or_unfenced_are_no_site() {
        let (naive, _) = fixture_kernel("bias_add_custom");
        for (from, to) in [
            // an offset that is not a row start
            (
                "SetValue(r * this->rowLength + j",
                "SetValue(r * this->rowLength + 1 + j",
            ),
            ("biasLocal.GetValue(j)", "biasLocal.GetValue(j + 1)"),
            // a copy within one tensor
            ("biasLocal.GetValue(j)", "biasTile.GetValue(j)"),
            // no other DataCopy of that count: nothing says a row is whole 32 B blocks
            (
                "AscendC::DataCopy(biasLocal, biasGm, this->rowLength);",
                "AscendC::DataCopy(biasLocal, biasGm, this->tileLength);",
            ),
            // no full barrier after the nest
            (
                "            }\n        }\n        AscendC::PipeBarrier<PIPE_ALL>();",
                "            }\n        }\n        AscendC::PipeBarrier<PIPE_V>();",
            ),
            // something else in the nest
            (
                "            for (uint32_t j = 0;",
                "            biasTile.SetValue(0, 0);\n            for (uint32_t j = 0;",
            ),
        ] {
            let k = naive.replace(from, to);
            assert_ne!(k, naive, "{from}");
            assert!(VectorCopyLoop.apply_sites(&k).is_empty(), "{to}");
        }
    }
}
