//! vector-reduce: a scalar loop that sums a float row with `GetValue`
//! (`float s = 0; for (j = 0; j < n; j++) { s += t.GetValue(base + j); }`) becomes the level-2
//! `ReduceSum` of the row into a one-block `TBuf`, a barrier, and one `GetValue` of the result
//! (asc-devkit docs, ReduceSum: the count form writes the sum to dst[0] and needs a work tensor of
//! RoundUp(ceil(n / 64), 8) floats). Rewinding turns exactly that form back into the loop.
//! The finding of the vector form, the buffer bookkeeping and the exact-restore encoding are shared
//! with the other level-2 reductions (`Reduction`, used by vector-reduce-max); each reduction owns
//! only its scalar loop's shape.

use super::constant_buffer::{self as cb, BufferSlots};
use crate::rewrite::cst::{self, Call, text_of};
use crate::rewrite::motif::{Edit, Motif, MotifError, Site};
use std::ops::Range;
use tree_sitter::Node;

pub struct VectorReduce;

const NAME: &str = "vector-reduce";

/// One level-2 reduction: its motif, its API and how its scalar loop is found and written.
pub(super) struct Reduction {
    pub motif: &'static str,
    /// `ReduceSum`, `ReduceMax`.
    pub api: &'static str,
    /// The stems of the new buffers' names (`reduceSum` -> `reduceSumBuf`, `reduceWork` -> `reduceWorkBuf`).
    pub stem: &'static str,
    pub work_stem: &'static str,
    /// Element types the vector form may have.
    pub elems: &'static [&'static str],
    /// The scalar loop form whose loop statement is the given `for`.
    pub loop_at: for<'t> fn(&str, Node<'t>) -> Option<RowSum<'t>>,
    /// The canonical scalar loop of a vector form, indented by `ind`, with `fresh` giving a name
    /// unused in its function for a stem ("j" -> "j", "j2", ...).
    pub scalar_loop: ScalarLoop,
}

/// Writes a scalar loop: (the vector form's parts, indentation, a fresh-name maker).
pub(super) type ScalarLoop = fn(&RowSum, &str, &dyn Fn(&str) -> String) -> String;

/// The parts of a row reduction, in either form.
pub(super) struct RowSum<'t> {
    /// The statements replaced: the accumulator's declaration and the loop, or the three vector ones.
    pub span: Range<usize>,
    pub acc: String,
    /// The element type of the tensor and the accumulator.
    pub elem: String,
    pub tensor: String,
    pub base: Option<String>,
    pub count: String,
    pub qualified: bool,
    /// Where the loop form's new buffers go (apply).
    pub slots: Option<BufferSlots>,
    /// The member and InitBuffer lines of the two buffers that go with the vector form (rewind).
    pub removed: Vec<Range<usize>>,
    /// The first statement of the span, to find its function by.
    pub anchor: Node<'t>,
}

const SUM: Reduction = Reduction {
    motif: NAME,
    api: "ReduceSum",
    stem: "reduceSum",
    work_stem: "reduceWork",
    elems: &["float"],
    loop_at,
    scalar_loop: sum_loop,
};

/// `float acc = 0.0f; for (uint32_t j = 0; j < n; j++) { acc += t.GetValue(base + j); }`.
fn sum_loop(v: &RowSum, ind: &str, fresh: &dyn Fn(&str) -> String) -> String {
    let j = fresh("j");
    let index = match &v.base {
        Some(b) => format!("{b} + {j}"),
        None => j.clone(),
    };
    format!(
        "float {acc} = 0.0f;\n{ind}for (uint32_t {j} = 0; {j} < {n}; {j}++) {{\n\
         {ind}    {acc} += {t}.GetValue({index});\n{ind}}}",
        acc = v.acc,
        n = v.count,
        t = v.tensor
    )
}

fn error(motif: &'static str, text: &str, at: usize, why: &str) -> MotifError {
    MotifError {
        motif,
        line: cst::line_of(text, at),
        why: why.into(),
    }
}

pub(super) fn single_init<'t>(decl: Node<'t>) -> Option<(Node<'t>, Node<'t>)> {
    let mut c = decl.walk();
    let ds: Vec<Node> = decl.children_by_field_name("declarator", &mut c).collect();
    let [d] = ds[..] else { return None };
    (d.kind() == "init_declarator").then_some(())?;
    Some((
        d.child_by_field_name("declarator")?,
        d.child_by_field_name("value")?,
    ))
}

/// `float acc = 0.0f;` followed by `for (T j = 0; j < n; j++) { acc += t.GetValue(base + j); }`.
fn loop_at<'t>(text: &str, for_stmt: Node<'t>) -> Option<RowSum<'t>> {
    let block = for_stmt.parent()?;
    (block.kind() == "compound_statement").then_some(())?;
    let stmts = cst::statements(block);
    let at = stmts.iter().position(|s| *s == for_stmt)?;
    let decl = *stmts.get(at.checked_sub(1)?)?;
    (decl.kind() == "declaration").then_some(())?;
    (text_of(decl.child_by_field_name("type")?, text) == "float").then_some(())?;
    let (acc, zero) = single_init(decl)?;
    let acc = (acc.kind() == "identifier").then(|| text_of(acc, text))?;
    (cb::literal_value(zero, text)? == 0.0).then_some(())?;
    // The loop header: j from 0, below n, one by one.
    let (jvar, j0) = single_init(for_stmt.child_by_field_name("initializer")?)?;
    let j = (jvar.kind() == "identifier").then(|| text_of(jvar, text))?;
    (cb::literal_value(j0, text)? == 0.0).then_some(())?;
    let cond = for_stmt.child_by_field_name("condition")?;
    (cond.kind() == "binary_expression"
        && text_of(cond.child_by_field_name("operator")?, text) == "<"
        && text_of(cond.child_by_field_name("left")?, text) == j)
        .then_some(())?;
    let count = cond.child_by_field_name("right")?;
    let update = for_stmt.child_by_field_name("update")?;
    (update.kind() == "update_expression" && text_of(update, text).replace(j, "").trim() == "++")
        .then_some(())?;
    // The body: one `acc += t.GetValue(index);`.
    let body = for_stmt.child_by_field_name("body")?;
    (body.kind() == "compound_statement").then_some(())?;
    let [stmt] = cst::statements(body)[..] else {
        return None;
    };
    let assign = stmt.named_child(0)?;
    (stmt.kind() == "expression_statement"
        && assign.kind() == "assignment_expression"
        && text_of(assign.child_by_field_name("operator")?, text) == "+="
        && text_of(assign.child_by_field_name("left")?, text) == acc)
        .then_some(())?;
    let get = Call::of(assign.child_by_field_name("right")?)?;
    let tensor = get.receiver(text)?;
    let [index] = get.args()[..] else { return None };
    (get.name(text) == "GetValue"
        && get.function.child_by_field_name("argument")?.kind() == "identifier")
        .then_some(())?;
    let base = if index.kind() == "identifier" && text_of(index, text) == j {
        None
    } else if index.kind() == "binary_expression"
        && text_of(index.child_by_field_name("operator")?, text) == "+"
        && text_of(index.child_by_field_name("right")?, text) == j
    {
        Some(index.child_by_field_name("left")?)
    } else {
        return None;
    };
    // Neither the count nor the base may depend on the loop (the body writes only acc).
    let names = |n: Node| cst::identifiers_in(n, text);
    if names(count)
        .iter()
        .chain(
            base.iter()
                .flat_map(|b| names(*b))
                .collect::<Vec<_>>()
                .iter(),
        )
        .any(|n| *n == j || *n == acc)
    {
        return None;
    }
    let (func, _) = cst::enclosing_function(for_stmt, text)?;
    (cb::local_tensor_type(func, text, tensor)? == "float").then_some(())?;
    let slots = BufferSlots::find(text, func, &[count])?;
    cst::own_lines(text, decl)?;
    cst::own_lines(text, for_stmt)?;
    Some(RowSum {
        span: decl.start_byte()..for_stmt.end_byte(),
        acc: acc.into(),
        elem: "float".into(),
        tensor: tensor.into(),
        base: base.map(|b| text_of(b, text).to_string()),
        count: text_of(count, text).into(),
        qualified: text.contains("AscendC::"),
        slots: Some(slots),
        removed: vec![],
        anchor: for_stmt,
    })
}

/// `B.Get<T>()` as a call: B.
fn get_of<'a>(node: Node, text: &'a str, elem: &str) -> Option<&'a str> {
    let call = Call::of(node)?;
    (call.name(text) == "Get" && call.args().is_empty() && call.template_args(text) == Some(elem))
        .then(|| call.receiver(text))
        .flatten()
}

/// `ReduceSum(B.Get<T>(), src, W.Get<T>(), n); PipeBarrier<PIPE_ALL>(); T acc =
/// B.Get<T>().GetValue(0);` with B and W buffers used nowhere else (any reduction API: the caller
/// finds the call by name).
fn vector_at<'t>(text: &str, root: Node<'t>, reduce: Call<'t>) -> Option<RowSum<'t>> {
    let first = cb::block_statement(text, &reduce)?;
    let stmts = cst::statements(first.parent()?);
    let at = stmts.iter().position(|s| *s == first)?;
    let (barrier, decl) = (*stmts.get(at + 1)?, *stmts.get(at + 2)?);
    let bcall = Call::of(barrier.named_child(0)?)?;
    (barrier.kind() == "expression_statement"
        && bcall.name(text) == "PipeBarrier"
        && bcall.template_args(text) == Some("PIPE_ALL"))
    .then_some(())?;
    let [dst, src, work, count] = reduce.args()[..] else {
        return None;
    };
    (decl.kind() == "declaration").then_some(())?;
    let elem = text_of(decl.child_by_field_name("type")?, text);
    let (b, w) = (get_of(dst, text, elem)?, get_of(work, text, elem)?);
    let (acc, value) = single_init(decl)?;
    let read = Call::of(value)?;
    let [zero] = read.args()[..] else { return None };
    (read.name(text) == "GetValue"
        && cb::literal_value(zero, text)? == 0.0
        && get_of(read.function.child_by_field_name("argument")?, text, elem)? == b
        && acc.kind() == "identifier")
        .then_some(())?;
    let (tensor, base) = match src.kind() {
        "identifier" => (text_of(src, text).to_string(), None),
        "subscript_expression" => {
            let arr = src.child_by_field_name("argument")?;
            (arr.kind() == "identifier").then_some(())?;
            let inner = text[arr.end_byte()..src.end_byte()].trim();
            let inner = inner.strip_prefix('[')?.strip_suffix(']')?.trim();
            (text_of(arr, text).to_string(), Some(inner.to_string()))
        }
        _ => return None,
    };
    // Both buffers go: each is named only by its member, its InitBuffer and these Gets.
    let mut removed = vec![];
    for (buf, uses) in [(b, 2), (w, 1)] {
        removed.extend(cb::buffer_lines(root, text, buf, uses)?);
    }
    (b != w).then_some(())?;
    cst::own_lines(text, decl)?;
    removed.sort_by_key(|r| r.start);
    Some(RowSum {
        span: first.start_byte()..decl.end_byte(),
        acc: text_of(acc, text).into(),
        elem: elem.into(),
        tensor,
        base,
        count: text_of(count, text).into(),
        qualified: reduce.qualified(text),
        slots: None,
        removed,
        anchor: first,
    })
}

fn loops<'t>(r: &Reduction, text: &str, root: Node<'t>) -> Vec<RowSum<'t>> {
    cst::nodes_of_kind(root, "for_statement")
        .into_iter()
        .filter_map(|f| (r.loop_at)(text, f))
        .collect()
}

fn vectors<'t>(r: &Reduction, text: &str, root: Node<'t>) -> Vec<RowSum<'t>> {
    cst::calls_named(root, text, r.api)
        .into_iter()
        .filter_map(|c| vector_at(text, root, c))
        .filter(|v| r.elems.contains(&v.elem.as_str()))
        .collect()
}

/// Byte ranges and what replaces them, for `cst::splice_many`.
type Splices = Vec<(Range<usize>, String)>;

/// What a rewind needs to give back the exact loop, or an apply the exact buffer lines.
#[derive(serde::Serialize, serde::Deserialize)]
struct Restore {
    statements: String,
    lines: Vec<(usize, String)>,
}

/// The splices an apply with a rewind's `restore` text makes besides its statements (the buffer
/// lines put back where they were), and those statements.
pub(super) fn restore_edits(
    motif: &'static str,
    text: &str,
    at: usize,
    restore: &str,
) -> Result<(Splices, String), MotifError> {
    let restore: Restore = serde_json::from_str(restore)
        .map_err(|e| error(motif, text, at, &format!("unreadable restore text: {e}")))?;
    let fits = restore
        .lines
        .iter()
        .all(|(o, _)| *o <= text.len() && (*o == 0 || text.as_bytes()[o - 1] == b'\n'));
    if !fits {
        return Err(error(
            motif,
            text,
            at,
            "the restore text does not fit this text",
        ));
    }
    Ok((
        restore.lines.into_iter().map(|(o, l)| (o..o, l)).collect(),
        restore.statements,
    ))
}

/// Elements of `elem` in one 32 B block (the result buffer's size, and the work buffer's margin).
fn block_elems(elem: &str) -> usize {
    match elem {
        "half" | "bfloat16_t" | "int16_t" | "uint16_t" => 16,
        _ => 8,
    }
}

impl Reduction {
    pub(super) fn apply_sites(&self, text: &str) -> Vec<Site> {
        let tree = cst::parse(text);
        loops(self, text, tree.root_node())
            .into_iter()
            .map(|l| {
                Site::new(
                    l.span.clone(),
                    text,
                    format!("scalar loop over {} into {}: {}", l.tensor, l.acc, self.api),
                )
            })
            .collect()
    }

    pub(super) fn apply(&self, text: &str, site: &Site) -> Result<Edit, MotifError> {
        let tree = cst::parse(text);
        let root = tree.root_node();
        let l = loops(self, text, root)
            .into_iter()
            .find(|l| l.span == site.range)
            .ok_or_else(|| {
                error(
                    self.motif,
                    text,
                    site.range.start,
                    "no scalar row loop here",
                )
            })?;
        let q = cb::qualifier(l.qualified);
        let ind = cst::indent_at(text, site.range.start);
        let src = match &l.base {
            Some(b) => format!("{}[{b}]", l.tensor),
            None => l.tensor.clone(),
        };
        let (edits, statements) = match &site.restore {
            Some(r) => {
                let (mut edits, statements) = restore_edits(self.motif, text, site.range.start, r)?;
                edits.push((site.range.clone(), statements.clone()));
                (edits, statements)
            }
            None => {
                let result = cb::fresh_name(root, text, self.stem, "Buf");
                let work = cb::fresh_name(root, text, self.work_stem, "Buf");
                let slots = l.slots.as_ref().expect("loops have slots");
                let (e, n) = (&l.elem, &l.count);
                let block = block_elems(e);
                let (m1, i1) = slots.lines(&result, &format!("{block} * sizeof({e})"));
                let (m2, i2) = slots.lines(&work, &format!("({n} + {block}) * sizeof({e})"));
                let statements = format!(
                    "{q}{api}({result}.Get<{e}>(), {src}, {work}.Get<{e}>(), {n});\n\
                     {ind}{q}PipeBarrier<PIPE_ALL>();\n\
                     {ind}{e} {acc} = {result}.Get<{e}>().GetValue(0);",
                    api = self.api,
                    acc = l.acc
                );
                let edits = vec![
                    (slots.init_at..slots.init_at, i1 + &i2),
                    (slots.member_at..slots.member_at, m1 + &m2),
                    (site.range.clone(), statements.clone()),
                ];
                (edits, statements)
            }
        };
        Ok(apply_edit(
            text,
            site,
            &edits,
            &statements,
            format!("{} of a row", self.api),
        ))
    }

    pub(super) fn rewind_sites(&self, text: &str) -> Vec<Site> {
        let tree = cst::parse(text);
        vectors(self, text, tree.root_node())
            .into_iter()
            .map(|v| {
                Site::new(
                    v.span.clone(),
                    text,
                    format!("{} of {} into {}: scalar loop", self.api, v.tensor, v.acc),
                )
            })
            .collect()
    }

    pub(super) fn rewind(&self, text: &str, site: &Site) -> Result<Edit, MotifError> {
        let tree = cst::parse(text);
        let root = tree.root_node();
        let v = vectors(self, text, root)
            .into_iter()
            .find(|v| v.span == site.range)
            .ok_or_else(|| {
                error(
                    self.motif,
                    text,
                    site.range.start,
                    &format!("no {} form here", self.api),
                )
            })?;
        let statements = match &site.restore {
            Some(r) => r.clone(),
            None => {
                let ind = cst::indent_at(text, site.range.start);
                let (func, _) = cst::enclosing_function(v.anchor, text).ok_or_else(|| {
                    error(self.motif, text, site.range.start, "not in a function")
                })?;
                let fresh = |stem: &str| cb::fresh_name(func, text, stem, "");
                (self.scalar_loop)(&v, ind, &fresh)
            }
        };
        Ok(rewind_edit(
            text,
            site,
            &v.removed,
            statements,
            "scalar row loop",
        ))
    }
}

/// An apply at `site`: `edits` made (its statements among them, replacing the site), and the inverse
/// site over `statements` in the new text, restoring the site's text exactly.
pub(super) fn apply_edit(
    text: &str,
    site: &Site,
    edits: &Splices,
    statements: &str,
    what: String,
) -> Edit {
    let new = cst::splice_many(text, edits);
    let start = cst::shifted(edits, site.range.start);
    let inverse = Site::new(start..start + statements.len(), &new, what)
        .restoring(text[site.range.clone()].to_string());
    Edit { text: new, inverse }
}

/// A rewind of the fast form at `site` to `statements`, removing the lines `removed` (its buffers'
/// member and InitBuffer lines) too; the inverse site's restore text puts back exactly what went.
pub(super) fn rewind_edit(
    text: &str,
    site: &Site,
    removed: &[Range<usize>],
    statements: String,
    what: &str,
) -> Edit {
    let mut edits: Splices = removed.iter().map(|r| (r.clone(), String::new())).collect();
    edits.push((site.range.clone(), statements.clone()));
    let new = cst::splice_many(text, &edits);
    let start = cst::shifted(&edits, site.range.start);
    let restore = Restore {
        statements: text[site.range.clone()].to_string(),
        lines: removed
            .iter()
            .map(|r| (cst::shifted(&edits, r.start), text[r.clone()].to_string()))
            .collect(),
    };
    let inverse = Site::new(start..start + statements.len(), &new, what)
        .restoring(serde_json::to_string(&restore).expect("strings and numbers serialise"));
    Edit { text: new, inverse }
}

const PRESERVES: &str = "checked: the accumulator is a `float` declared `= 0` on the statement just before a `for` loop \
         that runs an integer j from 0 while j < n by ++, whose body is only `acc += t.GetValue(j)` or \
         `acc += t.GetValue(base + j)` with t a `LocalTensor<float>` of the function; n and base name \
         neither j nor acc, and n means the same in the Init function (no local names), where the two new \
         buffers are sized (the result: 8 floats; the work tensor: n + 8 floats, at least the documented \
         RoundUp(ceil(n / 64), 8)). The sum is then the same up to the order of float additions (the \
         hardware adds in a tree; outputs are verified within the dtype's tolerance). NOT checked: that \
         t[base] is 32 B aligned, as a vector operand must be (true when base is a multiple of 8 floats, \
         e.g. a row start with a row length multiple of 8); the new buffers take UB the tiling may not \
         have. A PIPE_ALL barrier orders the vector sum before the scalar read. Rewind turns exactly \
         that three-statement form (with buffers used nowhere else) back into the loop";

impl Motif for VectorReduce {
    fn name(&self) -> &'static str {
        NAME
    }
    fn summary(&self) -> &'static str {
        "scalar GetValue loop summing a float row -> one ReduceSum into a one-block TBuf, a barrier and one GetValue"
    }
    fn preserves_meaning_when(&self) -> &'static str {
        PRESERVES
    }
    fn apply_sites(&self, text: &str) -> Vec<Site> {
        SUM.apply_sites(text)
    }
    fn apply(&self, text: &str, site: &Site) -> Result<Edit, MotifError> {
        SUM.apply(text, site)
    }
    fn rewind_sites(&self, text: &str) -> Vec<Site> {
        SUM.rewind_sites(text)
    }
    fn rewind(&self, text: &str, site: &Site) -> Result<Edit, MotifError> {
        SUM.rewind(text, site)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rewrite::motif::testing::*;

    #[test]
    fn reduce_sum_naive_loop_becomes_a_reduce_sum_and_back() {
        let (naive, _) = fixture_kernel("reduce_sum_custom");
        let sites = VectorReduce.apply_sites(&naive);
        assert_eq!(sites.len(), 1, "{sites:?}");
        let edit = VectorReduce.apply(&naive, &sites[0]).unwrap();
        for line in [
            "            AscendC::ReduceSum(reduceSumBuf.Get<float>(), xLocal[r * this->rowLength], reduceWorkBuf.Get<float>(), this->rowLength);\n",
            "            AscendC::PipeBarrier<PIPE_ALL>();\n            float sum = reduceSumBuf.Get<float>().GetValue(0);\n            yLocal.SetValue(r, sum);\n",
            "        pipe.InitBuffer(reduceWorkBuf, (this->rowLength + 8) * sizeof(float));\n",
        ] {
            assert!(
                edit.text.contains(line),
                "{line} missing from\n{}",
                edit.text
            );
        }
        assert!(!edit.text.contains("GetValue(r * this->rowLength + j)"));
        assert_eq!(round_trips(&VectorReduce, &naive), 1);
        // Rewinding without the restore text gives the same loop back (the naive one is canonical).
        let canonical = Site {
            restore: None,
            ..edit.inverse.clone()
        };
        assert_eq!(
            VectorReduce.rewind(&edit.text, &canonical).unwrap().text,
            naive
        );
        assert_eq!(rewinds_round_trip(&VectorReduce, &edit.text), 1);
    }

    #[test]
    fn loops_that_are_not_plain_float_row_sums_are_no_site() {
        let (naive, _) = fixture_kernel("reduce_sum_custom");
        for (from, to) in [
            ("float sum = 0.0f;", "float sum = 1.0f;"),
            ("sum += xLocal", "sum -= xLocal"),
            (
                "uint32_t j = 0; j < this->rowLength; j++",
                "uint32_t j = 1; j < this->rowLength; j++",
            ),
            (
                "GetValue(r * this->rowLength + j)",
                "GetValue(r * this->rowLength + 2 * j)",
            ),
            (
                "GetValue(r * this->rowLength + j)",
                "GetValue(j * this->rowLength + j)",
            ),
        ] {
            let k = naive.replace(from, to);
            assert_ne!(k, naive, "{from}");
            assert!(VectorReduce.apply_sites(&k).is_empty(), "{to}");
        }
        // The max loop of reduce_max and softmax is not a sum.
        let (max, _) = fixture_kernel("reduce_max_custom");
        assert!(VectorReduce.apply_sites(&max).is_empty());
    }
}
