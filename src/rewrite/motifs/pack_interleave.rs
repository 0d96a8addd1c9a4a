//! pack-interleave: the other way public kernels interleave two local tensors, by packing each pair into
//! one wide element on the scalar unit. Through `uint32_t` views of two float tensors and a `uint64_t`
//! view of the output, `uint64_t r = re.GetValue(i); uint64_t m = im.GetValue(i); out.SetValue(i, r |
//! (m << 32));` stores re[i] in the low half and im[i] in the high half of pair i, which on the
//! little-endian AI core is exactly `out32[2 * i] = re[i]; out32[2 * i + 1] = im[i]` (ops-math's
//! complex_v3 writes its float and half complex numbers so, unrolled four times, with a one-pair loop
//! for the rest).
//!
//! The slow form this motif takes is such a loop with no initializer (`for (; i < L; i += U)`, U stores
//! of pairs i .. i + U - 1, each half read once, straight or through a temporary of the wide type) over
//! an index declared `= 0` earlier in the same block and untouched in between. The fast form puts the
//! same bit-masked `Gather`s as gather-interleave's (one offset table in a new `TBuf`, the even lanes
//! from the low source, the odd ones from the high source) in front of the loop, over the whole repeats
//! of pairs below L, and moves i past them: the loop, unchanged, then does what is left, as would the
//! loops after it. U divides the pairs of a repeat, so the loop's steps from there are the steps it took
//! from 0.
//!
//! Rewinding removes exactly that block (regenerated from the loop after it and the names it declares,
//! byte for byte) and its table buffer. This module owns the packed form; the Gathers are
//! gather-interleave's. It knows nothing of measuring or the bank.

use super::constant_buffer::{self as cb, BufferSlots};
use super::gather_interleave::{
    Lanes, Names, gather_lines, method, pairs_per_repeat, table_buffer_lines, with_table,
};
use super::scalar_loop::{is_full_barrier, pure_value};
use super::vector_reduce::{self, single_init};
use crate::rewrite::cst::{self, Call, text_of};
use crate::rewrite::motif::{Edit, Motif, MotifError, Site};
use std::ops::Range;
use tree_sitter::Node;

/// The motif, with the repeats its offset table covers, as gather-interleave's two forms.
pub struct PackInterleave {
    name: &'static str,
    chunk: u32,
}

pub static WIDE: PackInterleave = PackInterleave {
    name: "pack-interleave",
    chunk: 8,
};
pub static NARROW: PackInterleave = PackInterleave {
    name: "pack-interleave-narrow",
    chunk: 1,
};

/// (wide element, the element each half holds, the shift of the high half): the unsigned packings whose
/// halves Gather moves (asc-devkit docs, Gather: uint32_t and uint16_t on A2 / A3). Unsigned halves read
/// into the wide type are zero-extended, so the `|` puts each bit where the interleave would.
const PACKINGS: &[(&str, &str, u64)] =
    &[("uint64_t", "uint32_t", 32), ("uint32_t", "uint16_t", 16)];

/// One packing loop, as the slow form has it.
struct Packed<'t> {
    for_stmt: Node<'t>,
    i: String,
    bound: String,
    wide: String,
    elem: &'static str,
    lo: String,
    hi: String,
}

fn error(motif: &'static str, text: &str, at: usize, why: &str) -> MotifError {
    MotifError {
        motif,
        line: cst::line_of(text, at),
        why: why.into(),
    }
}

fn unparenthesized(mut node: Node) -> Node {
    while node.kind() == "parenthesized_expression" {
        match node.named_child(0) {
            Some(inner) => node = inner,
            None => break,
        }
    }
    node
}

/// `i` or `i + k` (k a decimal literal): k.
fn pair_offset(node: Node, text: &str, i: &str) -> Option<u64> {
    let node = unparenthesized(node);
    if node.kind() == "identifier" {
        return (text_of(node, text) == i).then_some(0);
    }
    (node.kind() == "binary_expression"
        && text_of(node.child_by_field_name("operator")?, text) == "+"
        && text_of(node.child_by_field_name("left")?, text) == i)
        .then_some(())?;
    let k = node.child_by_field_name("right")?;
    (k.kind() == "number_literal").then_some(())?;
    text_of(k, text).parse().ok()
}

/// `s.GetValue(i [+ k])`: (s, k).
fn read<'a>(node: Node, text: &'a str, i: &str) -> Option<(&'a str, u64)> {
    let (s, args) = method(node, text, "GetValue")?;
    let [at] = args[..] else { return None };
    Some((s, pair_offset(at, text, i)?))
}

/// `x | (y << S)` or `(y << S) | x`: (x, y, S).
fn packing<'t>(node: Node<'t>, text: &str) -> Option<(Node<'t>, Node<'t>, u64)> {
    let node = unparenthesized(node);
    (node.kind() == "binary_expression"
        && text_of(node.child_by_field_name("operator")?, text) == "|")
        .then_some(())?;
    let shifted = |n: Node<'t>| -> Option<(Node<'t>, u64)> {
        let n = unparenthesized(n);
        (n.kind() == "binary_expression"
            && text_of(n.child_by_field_name("operator")?, text) == "<<")
            .then_some(())?;
        let s = n.child_by_field_name("right")?;
        (s.kind() == "number_literal").then_some(())?;
        Some((
            n.child_by_field_name("left")?,
            text_of(s, text).parse().ok()?,
        ))
    };
    let (left, right) = (
        node.child_by_field_name("left")?,
        node.child_by_field_name("right")?,
    );
    if let Some((hi, s)) = shifted(right) {
        return Some((left, hi, s));
    }
    let (hi, s) = shifted(left)?;
    Some((right, hi, s))
}

/// The element type of the `LocalTensor` named `name` where `at` is: the nearest declaration before
/// it in the blocks around it, else the function's parameter (complex_v3 declares its views once per
/// `if constexpr` branch, each of another type).
fn tensor_elem<'a>(at: Node, text: &'a str, name: &str) -> Option<&'a str> {
    let mut child = at;
    while let Some(parent) = child.parent() {
        match parent.kind() {
            "compound_statement" => {
                let stmts = cst::statements(parent);
                let before = stmts
                    .iter()
                    .take_while(|s| s.start_byte() < child.start_byte());
                for s in before.collect::<Vec<_>>().into_iter().rev() {
                    if s.kind() == "declaration"
                        && single_init(*s).is_some_and(|(d, _)| {
                            d.kind() == "identifier" && text_of(d, text) == name
                        })
                    {
                        return cb::local_tensor_type(*s, text, name);
                    }
                }
            }
            "function_definition" => {
                let params = parent.child_by_field_name("declarator")?;
                return cb::local_tensor_type(params, text, name);
            }
            _ => {}
        }
        child = parent;
    }
    None
}

/// Whether `i` is declared `= 0` earlier in the block holding `f`, and named by none of the statements
/// between that declaration and the last `skip` statements before `f` (the fast form's, when rewinding).
fn from_zero(text: &str, f: Node, i: &str, skip: usize) -> Option<()> {
    let block = f.parent()?;
    (block.kind() == "compound_statement").then_some(())?;
    let stmts = cst::statements(block);
    let at = stmts.iter().position(|s| *s == f)?;
    let upto = at.checked_sub(skip)?;
    let decl_at = stmts[..upto].iter().rposition(|s| {
        s.kind() == "declaration"
            && single_init(*s)
                .is_some_and(|(d, _)| d.kind() == "identifier" && text_of(d, text) == i)
    })?;
    let (_, zero) = single_init(stmts[decl_at])?;
    (text_of(zero, text) == "0").then_some(())?;
    stmts[decl_at + 1..upto]
        .iter()
        .all(|s| cb::mentions(*s, text, i) == 0)
        .then_some(())
}

/// The packing loop at `f`, whatever i is before it (the caller checks).
fn packed_at<'t>(text: &str, f: Node<'t>) -> Option<Packed<'t>> {
    (f.kind() == "for_statement" && f.child_by_field_name("initializer").is_none()).then_some(())?;
    let cond = f.child_by_field_name("condition")?;
    (cond.kind() == "binary_expression"
        && text_of(cond.child_by_field_name("operator")?, text) == "<")
        .then_some(())?;
    let iv = cond.child_by_field_name("left")?;
    (iv.kind() == "identifier").then_some(())?;
    let i = text_of(iv, text);
    let bound = cond.child_by_field_name("right")?;
    (pure_value(bound, text) && !cst::identifiers_in(bound, text).contains(&i)).then_some(())?;
    let update = f.child_by_field_name("update")?;
    let unroll: u64 = match update.kind() {
        "update_expression" if text_of(update, text).replace(i, "").trim() == "++" => 1,
        "assignment_expression"
            if text_of(update.child_by_field_name("left")?, text) == i
                && text_of(update.child_by_field_name("operator")?, text) == "+=" =>
        {
            let u = update.child_by_field_name("right")?;
            (u.kind() == "number_literal").then_some(())?;
            text_of(u, text).parse().ok()?
        }
        _ => return None,
    };
    let body = f.child_by_field_name("body")?;
    (body.kind() == "compound_statement").then_some(())?;
    // Temporaries (`W x = s.GetValue(i + k);`) and stores (`w.SetValue(i + k, x | (y << S));`).
    let mut temps: Vec<(&str, &str, (&str, u64))> = vec![];
    let mut stores = vec![];
    for stmt in cst::statements(body) {
        match stmt.kind() {
            "declaration" => {
                let (v, value) = single_init(stmt)?;
                (v.kind() == "identifier").then_some(())?;
                let ty = text_of(stmt.child_by_field_name("type")?, text);
                temps.push((text_of(v, text), ty, read(value, text, i)?));
            }
            "expression_statement" => {
                let (w, args) = method(stmt.named_child(0)?, text, "SetValue")?;
                let [at, value] = args[..] else { return None };
                let (lo, hi, shift) = packing(value, text)?;
                stores.push((w, pair_offset(at, text, i)?, lo, hi, shift));
            }
            _ => return None,
        }
    }
    let wide = stores.first()?.0;
    // Each half: (source, pair offset, the wide type it is read into: a temporary's or a cast's;
    // None for a plain read, which keeps the element's own type).
    let mut used = vec![0usize; temps.len()];
    let mut half = |n: Node| -> Option<(&str, u64, Option<&str>)> {
        let n = unparenthesized(n);
        if n.kind() == "identifier" {
            let at = temps.iter().position(|(t, ..)| *t == text_of(n, text))?;
            used[at] += 1;
            let (_, ty, (s, k)) = temps[at];
            return Some((s, k, Some(ty)));
        }
        if let Some(call) = Call::of(n).filter(|c| c.name(text) == "static_cast") {
            let [value] = call.args()[..] else {
                return None;
            };
            let ty = text_of(call.function, text)
                .strip_prefix("static_cast<")?
                .strip_suffix('>')?
                .trim();
            let (s, k) = read(value, text, i)?;
            return Some((s, k, Some(ty)));
        }
        let (s, k) = read(n, text, i)?;
        Some((s, k, None))
    };
    let mut offsets = vec![];
    let mut sources = None;
    let mut widened = vec![];
    for (w, k, lo, hi, shift) in &stores {
        let (lo_src, lo_k, lo_ty) = half(*lo)?;
        let (hi_src, hi_k, hi_ty) = half(*hi)?;
        (*w == wide && lo_k == *k && hi_k == *k).then_some(())?;
        match sources {
            None => sources = Some((lo_src, hi_src, *shift)),
            Some(s) => (s == (lo_src, hi_src, *shift)).then_some(())?,
        }
        offsets.push(*k);
        // The shifted half must be wide before the shift (a `uint32_t` shifted by 32 is not the high
        // word); the other one is widened by the `|` if it is not.
        widened.push(hi_ty?);
        widened.extend(lo_ty);
    }
    // Every temporary read by exactly one store; pairs i .. i + U - 1, each stored once.
    used.iter().all(|n| *n == 1).then_some(())?;
    offsets.sort_unstable();
    (offsets == (0..unroll).collect::<Vec<_>>()).then_some(())?;
    let (lo, hi, shift) = sources?;
    let wide_elem = tensor_elem(f, text, wide)?;
    let &(_, elem, s) = PACKINGS.iter().find(|(w, ..)| *w == wide_elem)?;
    // Halves of the element type, widened to the wide type, never narrowed; the wide tensor neither
    // source; whole steps per repeat (a half is S / 8 bytes, a 256 B repeat holds 256 / (2 * that)
    // pairs).
    (s == shift
        && widened.iter().all(|ty| *ty == wide_elem)
        && [lo, hi]
            .iter()
            .all(|h| *h != wide && tensor_elem(f, text, h) == Some(elem))
        && (256 / (2 * (s / 8))) % unroll == 0)
        .then_some(())?;
    // The bound names neither the tensor written nor a temporary.
    (!cst::identifiers_in(bound, text)
        .iter()
        .any(|n| *n == wide || temps.iter().any(|(t, ..)| t == n)))
    .then_some(())?;
    cst::own_lines(text, f)?;
    Some(Packed {
        for_stmt: f,
        i: i.into(),
        bound: text_of(bound, text).into(),
        wide: wide.into(),
        elem,
        lo: lo.into(),
        hi: hi.into(),
    })
}

/// The fast form in front of the loop `loop_text` (indented by `ind`): the Gathers over the whole
/// repeats of pairs below the bound, i moved past them, then the loop.
fn fast_form(p: &Packed, n: &Names, view: &str, q: &str, ind: &str, loop_text: &str) -> String {
    let e = p.elem;
    let pairs = pairs_per_repeat(e);
    let bound = format!("static_cast<int64_t>({})", p.bound);
    let lanes = Lanes {
        elem: e,
        dst: view,
        even: (&p.lo, None),
        odd: (&p.hi, None),
        repeats: format!("{bound} > 0 ? {bound} / {pairs} : 0"),
    };
    let i2 = format!("{ind}    ");
    format!(
        "{q}PipeBarrier<PIPE_ALL>();\n\
         {ind}{{\n\
         {i2}{q}LocalTensor<{e}> {view} = {w}.ReinterpretCast<{e}>();\n\
         {lines}\
         {i2}{i} = {reps} * {pairs};\n\
         {ind}}}\n\
         {ind}{q}PipeBarrier<PIPE_ALL>();\n\
         {ind}{loop_text}",
        w = p.wide,
        lines = gather_lines(&lanes, n, q, &i2),
        i = p.i,
        reps = n.repeats,
    )
}

fn slow_forms<'t>(text: &str, root: Node<'t>) -> Vec<(Packed<'t>, BufferSlots)> {
    cst::nodes_of_kind(root, "for_statement")
        .into_iter()
        .filter_map(|f| {
            let p = packed_at(text, f)?;
            from_zero(text, f, &p.i, 0)?;
            let (func, _) = cst::enclosing_function(f, text)?;
            Some((p, BufferSlots::find(text, func, &[])?))
        })
        .collect()
}

/// A fast form found in the text.
struct Fast<'t> {
    /// From the barrier before the block to the end of the loop.
    span: Range<usize>,
    p: Packed<'t>,
    /// The table buffer's member and InitBuffer lines.
    removed: Vec<Range<usize>>,
}

/// The fast form whose block is `block`: barrier, block, barrier, then a packing loop from the i the
/// block sets, the whole regenerated byte for byte.
fn fast_at<'t>(text: &str, root: Node<'t>, block: Node<'t>, chunk: u32) -> Option<Fast<'t>> {
    let outer = block.parent()?;
    (outer.kind() == "compound_statement").then_some(())?;
    let siblings = cst::statements(outer);
    let at = siblings.iter().position(|s| *s == block)?;
    let before = *siblings.get(at.checked_sub(1)?)?;
    let (after, f) = (*siblings.get(at + 1)?, *siblings.get(at + 2)?);
    (is_full_barrier(before, text) && is_full_barrier(after, text)).then_some(())?;
    cst::own_lines(text, before)?;
    let p = packed_at(text, f)?;
    from_zero(text, f, &p.i, 3)?;
    let stmts = cst::statements(block);
    let [
        view_decl,
        table_decl,
        ..,
        mask_even,
        mask_odd,
        reps_decl,
        chunks,
        _moved,
    ] = stmts[..]
    else {
        return None;
    };
    let view = cst::nodes_of_kind(view_decl.child_by_field_name("declarator")?, "identifier");
    let view = text_of(*view.first()?, text);
    let (_, get) = single_init(table_decl)?;
    let (buf, _) = method(get, text, "Get")?;
    let names = Names::read(
        text,
        buf,
        [table_decl, mask_even, mask_odd, reps_decl, chunks],
        chunk,
    )?;
    let ind = cst::indent_at(text, before.start_byte());
    let q = cb::qualifier(Call::of(before.named_child(0)?)?.qualified(text));
    let span = before.start_byte()..f.end_byte();
    let expected = fast_form(&p, &names, view, q, ind, text_of(f, text));
    (text[span.clone()] == expected).then_some(())?;
    let removed = table_buffer_lines(root, text, buf)?;
    Some(Fast { span, p, removed })
}

fn fast_forms<'t>(text: &str, root: Node<'t>, chunk: u32) -> Vec<Fast<'t>> {
    cst::nodes_of_kind(root, "compound_statement")
        .into_iter()
        .filter_map(|b| fast_at(text, root, b, chunk))
        .collect()
}

impl Motif for PackInterleave {
    fn name(&self) -> &'static str {
        self.name
    }
    fn summary(&self) -> &'static str {
        "scalar loop packing pairs of two local tensors into wide elements (`r | (m << 32)`) -> two \
         masked vector Gathers per 8 repeats over the whole repeats, the loop kept for the rest"
    }
    fn preserves_meaning_when(&self) -> &'static str {
        "checked: a `for` loop with no initializer over an i declared `= 0` earlier in the same block and \
         named by nothing between, running while i < L (L a pure value naming neither i, the wide tensor \
         nor a temporary) by ++ or += U, whose body is only U stores `w.SetValue(i + k, x | (y << S))` \
         for k = 0 .. U - 1 each once, x read from lo and y from hi at i + k, y widened to w's type \
         before the shift (a temporary of that type that one store reads, or a `static_cast` to it), x \
         so or read straight, w a `LocalTensor<uint64_t>` with lo and hi \
         `LocalTensor<uint32_t>` and S 32, or `<uint32_t>` with `<uint16_t>` halves and S 16 (types \
         from the nearest declarations in scope), w neither lo nor hi by name, U dividing the pairs of a \
         256 B repeat. Zero-extended halves ORed so are, on the little-endian core, w's bytes as a \
         `uint32_t` (`uint16_t`) view with lo at the even and hi at the odd elements: the Gathers store \
         the same bits for the pairs of the whole repeats below L, which the loop stores too (its steps \
         from 0 cover every pair below L), and i moves to the first pair after them, a multiple of U, \
         so the loop's remaining steps are the ones it took. NOT checked: that w, lo and hi do not \
         overlap in UB; the table's UB (2 or 4 KiB; 256 or 512 B in the narrow form) may not fit beside the tiling's buffers, a failed \
         trial then. Full barriers order the vector form against every pipe. Rewind removes exactly \
         that form (with its table buffer used nowhere else)"
    }
    fn apply_sites(&self, text: &str) -> Vec<Site> {
        let tree = cst::parse(text);
        slow_forms(text, tree.root_node())
            .into_iter()
            .map(|(p, _)| {
                Site::new(
                    p.for_stmt.byte_range(),
                    text,
                    format!(
                        "scalar packing of {} and {} into {}: Gather",
                        p.lo, p.hi, p.wide
                    ),
                )
            })
            .collect()
    }

    fn apply(&self, text: &str, site: &Site) -> Result<Edit, MotifError> {
        let tree = cst::parse(text);
        let root = tree.root_node();
        let (p, slots) = slow_forms(text, root)
            .into_iter()
            .find(|(p, _)| p.for_stmt.byte_range() == site.range)
            .ok_or_else(|| {
                error(
                    self.name,
                    text,
                    site.range.start,
                    "no scalar packing loop here",
                )
            })?;
        let (edits, statements) = match &site.restore {
            Some(r) => {
                let (mut edits, statements) =
                    vector_reduce::restore_edits(self.name, text, site.range.start, r)?;
                edits.push((site.range.clone(), statements.clone()));
                (edits, statements)
            }
            None => {
                let (func, _) = cst::enclosing_function(p.for_stmt, text)
                    .ok_or_else(|| error(self.name, text, site.range.start, "not in a function"))?;
                let names = Names::fresh(root, func, text, self.chunk);
                let view = cb::fresh_name(func, text, "packedLanes", "");
                let q = cb::qualifier(text_of(func, text).contains("AscendC::"));
                let ind = cst::indent_at(text, site.range.start);
                let statements = fast_form(&p, &names, &view, q, ind, &text[site.range.clone()]);
                let edits = with_table(&slots, &names, p.elem, &site.range, &statements);
                (edits, statements)
            }
        };
        Ok(vector_reduce::apply_edit(
            text,
            site,
            &edits,
            &statements,
            format!("Gather packing into {}", p.wide),
        ))
    }

    fn rewind_sites(&self, text: &str) -> Vec<Site> {
        let tree = cst::parse(text);
        fast_forms(text, tree.root_node(), self.chunk)
            .into_iter()
            .map(|f| {
                Site::new(
                    f.span.clone(),
                    text,
                    format!("Gather packing into {}: scalar loop", f.p.wide),
                )
            })
            .collect()
    }

    fn rewind(&self, text: &str, site: &Site) -> Result<Edit, MotifError> {
        let tree = cst::parse(text);
        let f = fast_forms(text, tree.root_node(), self.chunk)
            .into_iter()
            .find(|f| f.span == site.range)
            .ok_or_else(|| {
                error(
                    self.name,
                    text,
                    site.range.start,
                    "no Gather packing form here",
                )
            })?;
        let statement = site
            .restore
            .clone()
            .unwrap_or_else(|| text_of(f.p.for_stmt, text).to_string());
        Ok(vector_reduce::rewind_edit(
            text,
            site,
            &f.removed,
            statement,
            "scalar packing loop",
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rewrite::motif::testing::*;
    use crate::rewrite::motif::{Direction, edit_all};

    /// A kernel of this project's own, written as public kernels pack complex numbers: through `uint32_t`
    /// views into a `uint64_t` view, four pairs a step, then one at a time, methods defined after the
    /// class.
    const PACKED: &str = r#"#include "kernel_operator.h"
using namespace AscendC;

class PairPacker {
public:
    __aicore__ inline void Init(uint32_t n);
    __aicore__ inline void Pack(int64_t n);

private:
    TPipe pipe;
    TQue<QuePosition::VECIN, 2> xQueue;
    TQue<QuePosition::VECIN, 2> yQueue;
    TQue<QuePosition::VECOUT, 2> zQueue;
};

__aicore__ inline void PairPacker::Init(uint32_t n)
{
    pipe.InitBuffer(xQueue, 2, n * sizeof(float));
    pipe.InitBuffer(yQueue, 2, n * sizeof(float));
    pipe.InitBuffer(zQueue, 2, 2 * n * sizeof(float));
}

__aicore__ inline void PairPacker::Pack(int64_t n)
{
    LocalTensor<float> x = xQueue.DeQue<float>();
    LocalTensor<float> y = yQueue.DeQue<float>();
    LocalTensor<float> z = zQueue.AllocTensor<float>();
    LocalTensor<uint64_t> zw = z.ReinterpretCast<uint64_t>();
    LocalTensor<uint32_t> xu = x.ReinterpretCast<uint32_t>();
    LocalTensor<uint32_t> yu = y.ReinterpretCast<uint32_t>();
    int64_t j = 0;
    int64_t steps = n - 3;
    for (; j < steps; j += 4) {
        uint64_t p0 = xu.GetValue(j);
        uint64_t q0 = yu.GetValue(j);
        uint64_t p1 = xu.GetValue(j + 1);
        uint64_t q1 = yu.GetValue(j + 1);
        uint64_t q2 = yu.GetValue(j + 2);
        uint64_t p3 = xu.GetValue(j + 3);
        uint64_t q3 = yu.GetValue(j + 3);
        zw.SetValue(j, p0 | (q0 << 32));
        zw.SetValue(j + 1, (q1 << 32) | p1);
        zw.SetValue(j + 2, xu.GetValue(j + 2) | (q2 << 32));
        zw.SetValue(j + 3, p3 | (q3 << 32));
    }
    for (; j < n; j++) {
        uint64_t p = xu.GetValue(j);
        uint64_t q = yu.GetValue(j);
        zw.SetValue(j, p | (q << 32));
    }
    zQueue.EnQue(z);
}
"#;

    #[test]
    fn the_unrolled_packing_loop_gets_gathers_in_front_and_back() {
        let sites = WIDE.apply_sites(PACKED);
        // The one-pair loop starts where the unrolled one stopped: no site.
        assert_eq!(sites.len(), 1, "{sites:?}");
        assert_eq!(sites[0].what, "scalar packing of xu and yu into zw: Gather");
        let edit = WIDE.apply(PACKED, &sites[0]).unwrap();
        for line in [
            "    TQue<QuePosition::VECOUT, 2> zQueue;\n    TBuf<TPosition::VECCALC> interleaveOffsetBuf;\n",
            "    pipe.InitBuffer(zQueue, 2, 2 * n * sizeof(float));\n    pipe.InitBuffer(interleaveOffsetBuf, 8 * 256 / sizeof(uint32_t) * sizeof(uint32_t));\n}\n",
            "    int64_t steps = n - 3;\n    PipeBarrier<PIPE_ALL>();\n    {\n        LocalTensor<uint32_t> packedLanes = zw.ReinterpretCast<uint32_t>();\n",
            "        const int64_t wholeRepeats = static_cast<int64_t>(steps) > 0 ? static_cast<int64_t>(steps) / (128 / sizeof(uint32_t)) : 0;\n",
            "            Gather(packedLanes[repeat * (256 / sizeof(uint32_t))], yu, interleaveOffsets, static_cast<uint32_t>((repeat * (128 / sizeof(uint32_t))) * sizeof(uint32_t)), oddLanes, chunk, 8);\n",
            "        j = wholeRepeats * (128 / sizeof(uint32_t));\n    }\n    PipeBarrier<PIPE_ALL>();\n    for (; j < steps; j += 4) {\n",
        ] {
            assert!(
                edit.text.contains(line),
                "{line} missing from\n{}",
                edit.text
            );
        }
        assert!(WIDE.apply_sites(&edit.text).is_empty());
        assert_eq!(round_trips(&WIDE, PACKED), 1);
        let canonical = Site {
            restore: None,
            ..edit.inverse.clone()
        };
        assert_eq!(WIDE.rewind(&edit.text, &canonical).unwrap().text, PACKED);
        assert_eq!(rewinds_round_trip(&WIDE, &edit.text), 1);
        let (back, n) = edit_all(&WIDE, &edit.text, Direction::Rewind)
            .unwrap()
            .unwrap();
        assert_eq!((back.as_str(), n), (PACKED, 1));
        // A form edited by hand is not the motif's: no rewind site.
        let edited = edit.text.replace("repeat += 8", "repeat += 4");
        assert!(WIDE.rewind_sites(&edited).is_empty());
    }

    #[test]
    fn the_narrow_form_rewinds_only_itself() {
        let edit = NARROW
            .apply(PACKED, &NARROW.apply_sites(PACKED).remove(0))
            .unwrap();
        assert!(
            edit.text.contains(
                "InitBuffer(interleaveOffsetBuf, 1 * 256 / sizeof(uint32_t) * sizeof(uint32_t));"
            ),
            "{}",
            edit.text
        );
        assert_eq!(round_trips(&NARROW, PACKED), 1);
        assert_eq!(rewinds_round_trip(&NARROW, &edit.text), 1);
        assert!(WIDE.rewind_sites(&edit.text).is_empty());
    }

    #[test]
    fn loops_that_do_not_pack_the_same_pairs_are_no_site() {
        for (from, to) in [
            // shifted while still 32 bits wide: the high word is lost
            ("(q3 << 32)", "(yu.GetValue(j + 3) << 32)"),
            // a temporary that is not wide
            ("uint64_t q0 = yu", "uint32_t q0 = yu"),
            // the high half in the low word
            (
                "zw.SetValue(j, p0 | (q0 << 32));",
                "zw.SetValue(j, q0 | (p0 << 32));",
            ),
            // a shift that is not the element's width
            ("(q0 << 32)", "(q0 << 16)"),
            // not from 0
            ("int64_t j = 0;", "int64_t j = 4;"),
            // moved between its declaration and the loop
            (
                "int64_t steps = n - 3;",
                "int64_t steps = n - 3;\n    j += 1;",
            ),
            // a pair read at another index
            (
                "uint64_t p3 = xu.GetValue(j + 3);",
                "uint64_t p3 = xu.GetValue(j + 2);",
            ),
            // a pair left out
            ("        zw.SetValue(j + 3, p3 | (q3 << 32));\n", ""),
            // steps that do not divide a repeat's pairs
            ("j += 4", "j += 3"),
            // signed halves would be sign-extended
            ("LocalTensor<uint32_t> yu", "LocalTensor<int32_t> yu"),
            // one pair into another tensor
            ("zw.SetValue(j + 3,", "zv.SetValue(j + 3,"),
        ] {
            let k = PACKED.replace(from, to);
            assert_ne!(k, PACKED, "{from}");
            assert!(WIDE.apply_sites(&k).is_empty(), "{to}");
        }
        // A loop that declares its own index is not taken (yet): the form moves an index declared before it.
        let init = PACKED.replace(
            "for (; j < steps; j += 4)",
            "for (int64_t j = 0; j < steps; j += 4)",
        );
        assert!(WIDE.apply_sites(&init).is_empty());
    }
}
