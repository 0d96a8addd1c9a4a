//! vector-reduce-max: a scalar loop that finds a row's maximum with `GetValue`
//! (`T m = t.GetValue(base); for (j = 1; j < n; j++) { T v = t.GetValue(base + j); if (v > m) { m = v; } }`)
//! becomes the level-2 `ReduceMax` of the row into a one-block `TBuf`, a barrier, and one `GetValue` of
//! the result (asc-devkit docs, ReduceMax, "tensor前n个数据计算": the count form writes the maximum to
//! dst[0]; without the index the work tensor needs RoundUp(2 * ceil(n / elements per repeat), elements
//! per block) elements). Rewinding turns exactly that form back into the loop. The vector form, the
//! buffers and the restore encoding are vector-reduce's (`Reduction`); this module owns the max loop.

use super::constant_buffer::{self as cb, BufferSlots};
use super::vector_reduce::{Reduction, RowSum, single_init};
use crate::rewrite::cst::{self, Call, text_of};
use crate::rewrite::motif::{Edit, Motif, MotifError, Site};
use tree_sitter::Node;

pub struct VectorReduceMax;

const NAME: &str = "vector-reduce-max";

const MAX: Reduction = Reduction {
    motif: NAME,
    api: "ReduceMax",
    stem: "reduceMax",
    work_stem: "reduceMaxWork",
    elems: &["float", "half"],
    loop_at,
    scalar_loop: max_loop,
};

/// `t.GetValue(index)` with t a plain name: (t, index).
fn get_value<'t, 'a>(node: Node<'t>, text: &'a str) -> Option<(&'a str, Node<'t>)> {
    let call = Call::of(node)?;
    let [index] = call.args()[..] else {
        return None;
    };
    (call.name(text) == "GetValue"
        && call.function.child_by_field_name("argument")?.kind() == "identifier")
        .then_some(())?;
    Some((call.receiver(text)?, index))
}

/// The name under `static_cast<float>(name)` or a bare `name`.
fn compared_name<'a>(node: Node, text: &'a str) -> Option<&'a str> {
    match node.kind() {
        "identifier" => Some(text_of(node, text)),
        "call_expression" => {
            let call = Call::of(node)?;
            let [inner] = call.args()[..] else {
                return None;
            };
            (call.name(text) == "static_cast"
                && call.template_args(text) == Some("float")
                && inner.kind() == "identifier")
                .then(|| text_of(inner, text))
        }
        _ => None,
    }
}

/// Whether `cond` is `v > m` or `m < v` (either side possibly widened with `static_cast<float>`).
fn is_greater(cond: Node, text: &str, v: &str, m: &str) -> Option<()> {
    let cond = if cond.kind() == "condition_clause" {
        cond.child_by_field_name("value")?
    } else {
        cond
    };
    let cond = if cond.kind() == "parenthesized_expression" {
        cond.named_child(0)?
    } else {
        cond
    };
    (cond.kind() == "binary_expression").then_some(())?;
    let left = compared_name(cond.child_by_field_name("left")?, text)?;
    let right = compared_name(cond.child_by_field_name("right")?, text)?;
    match text_of(cond.child_by_field_name("operator")?, text) {
        ">" => (left == v && right == m).then_some(()),
        "<" => (left == m && right == v).then_some(()),
        _ => None,
    }
}

/// The `if` statement `if (v > m) { m = v; }` (braces optional, no else).
fn keeps_greater(stmt: Node, text: &str, v: &str, m: &str) -> Option<()> {
    (stmt.kind() == "if_statement" && stmt.child_by_field_name("alternative").is_none())
        .then_some(())?;
    is_greater(stmt.child_by_field_name("condition")?, text, v, m)?;
    let mut then = stmt.child_by_field_name("consequence")?;
    if then.kind() == "compound_statement" {
        let [only] = cst::statements(then)[..] else {
            return None;
        };
        then = only;
    }
    let assign = then.named_child(0)?;
    (then.kind() == "expression_statement"
        && assign.kind() == "assignment_expression"
        && text_of(assign.child_by_field_name("operator")?, text) == "="
        && text_of(assign.child_by_field_name("left")?, text) == m
        && text_of(assign.child_by_field_name("right")?, text) == v)
        .then_some(())
}

/// `T m = t.GetValue(base);` followed by `for (T j = 1; j < n; j++) { T v = t.GetValue(base + j);
/// if (v > m) { m = v; } }` (with `t.GetValue(0)` and `t.GetValue(j)` when there is no base).
fn loop_at<'t>(text: &str, for_stmt: Node<'t>) -> Option<RowSum<'t>> {
    let block = for_stmt.parent()?;
    (block.kind() == "compound_statement").then_some(())?;
    let stmts = cst::statements(block);
    let at = stmts.iter().position(|s| *s == for_stmt)?;
    let decl = *stmts.get(at.checked_sub(1)?)?;
    (decl.kind() == "declaration").then_some(())?;
    let elem = text_of(decl.child_by_field_name("type")?, text);
    MAX.elems.contains(&elem).then_some(())?;
    let (acc, first) = single_init(decl)?;
    let acc = (acc.kind() == "identifier").then(|| text_of(acc, text))?;
    let (tensor, first_index) = get_value(first, text)?;
    // The loop header: j from 1, below n, one by one.
    let (jvar, j1) = single_init(for_stmt.child_by_field_name("initializer")?)?;
    let j = (jvar.kind() == "identifier").then(|| text_of(jvar, text))?;
    (cb::literal_value(j1, text)? == 1.0).then_some(())?;
    let cond = for_stmt.child_by_field_name("condition")?;
    (cond.kind() == "binary_expression"
        && text_of(cond.child_by_field_name("operator")?, text) == "<"
        && text_of(cond.child_by_field_name("left")?, text) == j)
        .then_some(())?;
    let count = cond.child_by_field_name("right")?;
    let update = for_stmt.child_by_field_name("update")?;
    (update.kind() == "update_expression" && text_of(update, text).replace(j, "").trim() == "++")
        .then_some(())?;
    // The body: `T v = t.GetValue(index);` and the if that keeps the greater.
    let body = for_stmt.child_by_field_name("body")?;
    (body.kind() == "compound_statement").then_some(())?;
    let [read, keep] = cst::statements(body)[..] else {
        return None;
    };
    (read.kind() == "declaration" && text_of(read.child_by_field_name("type")?, text) == elem)
        .then_some(())?;
    let (vvar, vget) = single_init(read)?;
    let v = (vvar.kind() == "identifier").then(|| text_of(vvar, text))?;
    let (vtensor, index) = get_value(vget, text)?;
    (vtensor == tensor && v != acc).then_some(())?;
    keeps_greater(keep, text, v, acc)?;
    let base = if index.kind() == "identifier" && text_of(index, text) == j {
        (cb::literal_value(first_index, text)? == 0.0).then_some(())?;
        None
    } else if index.kind() == "binary_expression"
        && text_of(index.child_by_field_name("operator")?, text) == "+"
        && text_of(index.child_by_field_name("right")?, text) == j
    {
        let b = index.child_by_field_name("left")?;
        (text_of(b, text) == text_of(first_index, text)).then_some(())?;
        Some(b)
    } else {
        return None;
    };
    // Neither the count nor the base may depend on the loop (the body writes only v and acc).
    let loop_names = [j, acc, v];
    let reads = cst::identifiers_in(count, text)
        .into_iter()
        .chain(base.iter().flat_map(|b| cst::identifiers_in(*b, text)));
    if reads.into_iter().any(|n| loop_names.contains(&n)) {
        return None;
    }
    let (func, _) = cst::enclosing_function(for_stmt, text)?;
    (cb::local_tensor_type(func, text, tensor)? == elem).then_some(())?;
    let slots = BufferSlots::find(text, func, &[count])?;
    cst::own_lines(text, decl)?;
    cst::own_lines(text, for_stmt)?;
    Some(RowSum {
        span: decl.start_byte()..for_stmt.end_byte(),
        acc: acc.into(),
        elem: elem.into(),
        tensor: tensor.into(),
        base: base.map(|b| text_of(b, text).to_string()),
        count: text_of(count, text).into(),
        qualified: text.contains("AscendC::"),
        slots: Some(slots),
        removed: vec![],
        anchor: for_stmt,
    })
}

/// The canonical max loop; a non-float element is compared through `static_cast<float>` (exact for
/// half), as the naive kernels write it.
fn max_loop(r: &RowSum, ind: &str, fresh: &dyn Fn(&str) -> String) -> String {
    let (j, v) = (fresh("j"), fresh("v"));
    let (first, index) = match &r.base {
        Some(b) => (b.clone(), format!("{b} + {j}")),
        None => ("0".to_string(), j.clone()),
    };
    let (e, m, t) = (&r.elem, &r.acc, &r.tensor);
    let cond = if e == "float" {
        format!("{v} > {m}")
    } else {
        format!("static_cast<float>({v}) > static_cast<float>({m})")
    };
    format!(
        "{e} {m} = {t}.GetValue({first});\n\
         {ind}for (uint32_t {j} = 1; {j} < {n}; {j}++) {{\n\
         {ind}    {e} {v} = {t}.GetValue({index});\n\
         {ind}    if ({cond}) {{\n\
         {ind}        {m} = {v};\n\
         {ind}    }}\n\
         {ind}}}",
        n = r.count
    )
}

impl Motif for VectorReduceMax {
    fn name(&self) -> &'static str {
        NAME
    }
    fn summary(&self) -> &'static str {
        "scalar GetValue loop finding a row's maximum -> one ReduceMax into a one-block TBuf, a barrier and one GetValue"
    }
    fn preserves_meaning_when(&self) -> &'static str {
        "checked: the running maximum m is a `float` or `half` declared `= t.GetValue(base)` (or \
         `t.GetValue(0)`) on the statement just before a `for` loop that runs an integer j from 1 while \
         j < n by ++, whose body is only `T v = t.GetValue(base + j)` (or `t.GetValue(j)`) and `if (v > m) \
         { m = v; }` (or `m < v`, either side possibly `static_cast<float>`, braces optional, no else), \
         with t a `LocalTensor<T>` of the function of the same T; n and base name neither j, m nor v, and \
         n means the same in the Init function (no local names), where the two new buffers are sized \
         (the result: one 32 B block, room for the value and the index the instruction writes; the work \
         tensor: n + one block of elements, at least the documented RoundUp(2 * ceil(n / per repeat), \
         per block)). The maximum of the same elements is then exactly the same value: max needs no \
         rounding. NOT checked: n >= 1 (for n = 0 the loop keeps t[base], ReduceMax reads nothing); \
         that t[base] is 32 B aligned, as a vector operand must be; NaN: the loop skips a NaN after the \
         first element (v > m is false), the hardware's ReduceMax NaN handling is not documented (the \
         twin skips them as the loop does); which of +0 and -0 wins a tie; the new buffers take UB the \
         tiling may not have. A PIPE_ALL barrier orders the vector maximum before the scalar read. \
         Rewind turns exactly that three-statement form (with buffers used nowhere else) back into \
         the loop"
    }
    fn apply_sites(&self, text: &str) -> Vec<Site> {
        MAX.apply_sites(text)
    }
    fn apply(&self, text: &str, site: &Site) -> Result<Edit, MotifError> {
        MAX.apply(text, site)
    }
    fn rewind_sites(&self, text: &str) -> Vec<Site> {
        MAX.rewind_sites(text)
    }
    fn rewind(&self, text: &str, site: &Site) -> Result<Edit, MotifError> {
        MAX.rewind(text, site)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rewrite::motif::testing::*;

    fn applied(kernel: &str) -> Edit {
        let sites = VectorReduceMax.apply_sites(kernel);
        assert_eq!(sites.len(), 1, "{sites:?}");
        VectorReduceMax.apply(kernel, &sites[0]).unwrap()
    }

    #[test]
    fn reduce_max_naive_half_loop_becomes_a_reduce_max_and_back() {
        let (naive, _) = fixture_kernel("reduce_max_custom");
        let edit = applied(&naive);
        for line in [
            "            AscendC::ReduceMax(reduceMaxBuf.Get<half>(), xLocal[r * this->rowLength], reduceMaxWorkBuf.Get<half>(), this->rowLength);\n\
             \x20           AscendC::PipeBarrier<PIPE_ALL>();\n\
             \x20           half best = reduceMaxBuf.Get<half>().GetValue(0);\n\
             \x20           yLocal.SetValue(r, best);\n",
            "    AscendC::TQue<AscendC::QuePosition::VECOUT, BUFFER_NUM> outQueueY;\n\
             \x20   AscendC::TBuf<AscendC::TPosition::VECCALC> reduceMaxBuf;\n",
            "        pipe.InitBuffer(reduceMaxBuf, 16 * sizeof(half));\n\
             \x20       pipe.InitBuffer(reduceMaxWorkBuf, (this->rowLength + 16) * sizeof(half));\n",
        ] {
            assert!(
                edit.text.contains(line),
                "{line} missing from\n{}",
                edit.text
            );
        }
        assert!(!edit.text.contains("GetValue(r * this->rowLength + j)"));
        assert_eq!(round_trips(&VectorReduceMax, &naive), 1);
        // Without the restore text the rewind writes the naive loop again: it is the canonical form.
        let canonical = Site {
            restore: None,
            ..edit.inverse.clone()
        };
        assert_eq!(
            VectorReduceMax.rewind(&edit.text, &canonical).unwrap().text,
            naive
        );
        assert_eq!(rewinds_round_trip(&VectorReduceMax, &edit.text), 1);
        // The sum motif does not take the max form for its own.
        assert!(
            super::super::vector_reduce::VectorReduce
                .rewind_sites(&edit.text)
                .is_empty()
        );
    }

    #[test]
    fn softmax_row_maximum_becomes_a_reduce_max_and_back() {
        let (naive, _) = fixture_kernel("softmax_custom");
        let edit = applied(&naive);
        assert!(edit.text.contains(
            "            AscendC::ReduceMax(reduceMaxBuf.Get<float>(), xRow, reduceMaxWorkBuf.Get<float>(), this->rowLength);\n\
             \x20           AscendC::PipeBarrier<PIPE_ALL>();\n\
             \x20           float rowMax = reduceMaxBuf.Get<float>().GetValue(0);\n\
             \x20           AscendC::Adds(yRow, xRow, -rowMax, this->rowLength);\n"
        ), "{}", edit.text);
        // Written the way the file declares its other TBufs.
        assert!(
            edit.text
                .contains("    AscendC::TBuf<AscendC::QuePosition::VECCALC> reduceMaxBuf;\n")
        );
        let canonical = Site {
            restore: None,
            ..edit.inverse.clone()
        };
        assert_eq!(
            VectorReduceMax.rewind(&edit.text, &canonical).unwrap().text,
            naive
        );
    }

    #[test]
    fn loops_that_are_not_plain_row_maxima_are_no_site() {
        let (naive, _) = fixture_kernel("reduce_max_custom");
        for (from, to) in [
            // a minimum
            (
                "static_cast<float>(v) > static_cast<float>(best)",
                "static_cast<float>(v) < static_cast<float>(best)",
            ),
            // >= is not taken (which zero wins a tie)
            (
                "static_cast<float>(v) > static_cast<float>(best)",
                "static_cast<float>(v) >= static_cast<float>(best)",
            ),
            // starts from another element than the first of the row
            (
                "half best = xLocal.GetValue(r * this->rowLength);",
                "half best = xLocal.GetValue(r);",
            ),
            ("uint32_t j = 1;", "uint32_t j = 0;"),
            (
                "GetValue(r * this->rowLength + j)",
                "GetValue(r * this->rowLength + 2 * j)",
            ),
            ("best = v;", "best = v + v;"),
            // an int row: not a ReduceMax type here
            ("half best", "int32_t best"),
        ] {
            let k = naive.replace(from, to);
            assert_ne!(k, naive, "{from}");
            assert!(VectorReduceMax.apply_sites(&k).is_empty(), "{to}");
        }
        // A row sum is not a maximum.
        let (sum, _) = fixture_kernel("reduce_sum_custom");
        assert!(VectorReduceMax.apply_sites(&sum).is_empty());
    }
}
