//! gather-interleave: a scalar loop that interleaves two local tensors element by element,
//! `for (T i = 0; i < n; ++i) { d.SetValue(2 * i, a.GetValue(A + i)); d.SetValue(2 * i + 1,
//! b.GetValue(B + i)); }` (or through two temporaries, `E re = a.GetValue(i); E im = b.GetValue(i);
//! d.SetValue(2 * i, re); d.SetValue(2 * i + 1, im);`), becomes two masked vector `Gather`s per 8
//! repeats of d, the even lanes from a and the odd lanes from b, with the loop kept for the pairs
//! past the last whole repeat. A complex number packed from its parts (ops-math's complex_v2, pack_v2)
//! and a gradient written back in its interleaved layout (ops-nn's clipped_swiglu_grad) are written so.
//!
//! The vector form (asc-devkit docs, Gather, the bit-mask repeat form): element j of repeat r is read
//! from `src + srcBaseAddr + srcOffset[r * perRepeat + j]` bytes and lands at element j of repeat r of
//! dst; elements the mask leaves out keep dst. One offset table serves both sources: entry j holds
//! `(j >> 1) * sizeof(E)`, the source element of output lane j counted from the chunk's first pair,
//! built on the vector unit by ArithProgression, ShiftRight and ShiftLeft in a new one-table `TBuf`
//! (8 repeats: 2 KiB for 4-byte elements, 4 KiB for 2-byte ones); the chunk's first pair goes in
//! `srcBaseAddr`. On the A2 / A3 parts Gather takes 2- and 4-byte elements (int16_t, uint16_t, half,
//! bfloat16_t, int32_t, uint32_t, float), ShiftRight and ShiftLeft uint32_t. The fast form is fenced
//! by `PipeBarrier<PIPE_ALL>` as the other scalar-loop motifs' are: whoever wrote the sources, and
//! whoever reads d afterwards, may be any pipe.
//!
//! Rewinding turns exactly that form back into the loop: the loop it keeps for the tail, counted from
//! 0 again. This module owns both forms; it knows nothing of measuring or the bank.

use super::constant_buffer::{self as cb, BufferSlots};
use super::scalar_loop::{counting_loop, is_full_barrier, pure_value};
use super::vector_reduce::{self, single_init};
use crate::rewrite::cst::{self, Call, text_of};
use crate::rewrite::motif::{Edit, Motif, MotifError, Site};
use std::ops::Range;
use tree_sitter::Node;

/// The motif, with the repeats its offset table covers (one Gather per source handles that many at
/// most): 8 (2 KiB of table for 4-byte elements, 4 KiB for 2-byte ones) is the form, 1 (256 or 512 B,
/// eight times the Gathers) the narrow one, for a UB the tiling has filled (ops-math's complex_v2
/// leaves 288 bytes).
pub struct GatherInterleave {
    name: &'static str,
    chunk: u32,
}

pub static WIDE: GatherInterleave = GatherInterleave {
    name: "gather-interleave",
    chunk: 8,
};
pub static NARROW: GatherInterleave = GatherInterleave {
    name: "gather-interleave-narrow",
    chunk: 1,
};

/// Element types Gather's repeat form takes on A2 / A3 (asc-devkit docs, Gather: data types). A name
/// that is none of these is taken when it is a template parameter of the class (complex_v2's `T`):
/// an instance with another size fails to build, a failed trial.
const GATHER_ELEMS: &[&str] = &[
    "half",
    "float",
    "bfloat16_t",
    "int16_t",
    "uint16_t",
    "int32_t",
    "uint32_t",
];

/// One interleave, as the slow loop gives it.
struct Interleave<'t> {
    for_stmt: Node<'t>,
    /// The initializer's value (`0` in the slow form, the tail's start in the fast one).
    start: Node<'t>,
    count: String,
    dst: String,
    elem: String,
    even: (String, Option<String>),
    odd: (String, Option<String>),
}

fn error(motif: &'static str, text: &str, at: usize, why: &str) -> MotifError {
    MotifError {
        motif,
        line: cst::line_of(text, at),
        why: why.into(),
    }
}

fn squeezed(node: Node, text: &str) -> String {
    text_of(node, text).split_whitespace().collect()
}

/// `t.Method(args)` with t a plain name: (t, args).
pub(super) fn method<'t, 'a>(
    node: Node<'t>,
    text: &'a str,
    name: &str,
) -> Option<(&'a str, Vec<Node<'t>>)> {
    let call = Call::of(node)?;
    (call.name(text) == name
        && call.function.kind() == "field_expression"
        && call.function.child_by_field_name("argument")?.kind() == "identifier")
        .then_some(())?;
    Some((call.receiver(text)?, call.args()))
}

/// `s.GetValue(i)` or `s.GetValue(X + i)` with X a pure value free of `i`: (s, X).
fn source<'a>(node: Node, text: &'a str, i: &str) -> Option<(&'a str, Option<String>)> {
    let (s, args) = method(node, text, "GetValue")?;
    let [index] = args[..] else { return None };
    if index.kind() == "identifier" && text_of(index, text) == i {
        return Some((s, None));
    }
    (index.kind() == "binary_expression"
        && text_of(index.child_by_field_name("operator")?, text) == "+"
        && text_of(index.child_by_field_name("right")?, text) == i)
        .then_some(())?;
    let base = index.child_by_field_name("left")?;
    (pure_value(base, text) && !cst::identifiers_in(base, text).contains(&i)).then_some(())?;
    Some((s, Some(text_of(base, text).to_string())))
}

/// Whether the element type `elem` of a tensor in `func` is one Gather takes: a listed type, or a
/// template parameter of the function's class (sized where the class is instantiated).
fn gather_elem(func: Node, text: &str, elem: &str) -> bool {
    if GATHER_ELEMS.contains(&elem) {
        return true;
    }
    let Some(class) = cb::class_of(func, text) else {
        return false;
    };
    class
        .parent()
        .filter(|p| p.kind() == "template_declaration")
        .and_then(|t| t.child_by_field_name("parameters"))
        .is_some_and(|ps| {
            cst::nodes_of_kind(ps, "type_identifier")
                .iter()
                .any(|n| text_of(*n, text) == elem)
        })
}

/// The interleave loop at `f`, whatever its start (the caller checks it).
fn interleave_at<'t>(text: &str, f: Node<'t>) -> Option<Interleave<'t>> {
    let (i, start, count, body) = counting_loop(text, f)?;
    (body.kind() == "compound_statement").then_some(())?;
    let stmts = cst::statements(body);
    // Temporaries: `E v = s.GetValue(..);` statements before the two stores, each used by one store.
    let mut temps: Vec<(&str, (&str, Option<String>))> = vec![];
    let mut temp_types = vec![];
    let split = stmts.len().checked_sub(2)?;
    for decl in &stmts[..split] {
        (decl.kind() == "declaration").then_some(())?;
        let (v, value) = single_init(*decl)?;
        (v.kind() == "identifier").then_some(())?;
        temps.push((text_of(v, text), source(value, text, i)?));
        temp_types.push(text_of(decl.child_by_field_name("type")?, text));
    }
    let mut stores = vec![];
    for stmt in &stmts[split..] {
        (stmt.kind() == "expression_statement").then_some(())?;
        let (d, args) = method(stmt.named_child(0)?, text, "SetValue")?;
        let [at, value] = args[..] else { return None };
        stores.push((d, squeezed(at, text), value));
    }
    let [(d0, at0, v0), (d1, at1, v1)] = &stores[..] else {
        return None;
    };
    (d0 == d1
        && [format!("2*{i}"), format!("{i}*2")].contains(at0)
        && [format!("2*{i}+1"), format!("{i}*2+1")].contains(at1))
    .then_some(())?;
    let value_of = |v: Node| -> Option<(String, Option<String>)> {
        if v.kind() == "identifier" {
            let name = text_of(v, text);
            let (s, b) = temps.iter().find(|(t, _)| *t == name)?.1.clone();
            Some((s.to_string(), b))
        } else {
            let (s, b) = source(v, text, i)?;
            Some((s.to_string(), b))
        }
    };
    let even = value_of(*v0)?;
    let odd = value_of(*v1)?;
    // Each temporary is read by exactly one store; none is the other's name.
    (temps.len() <= 2
        && temps.iter().all(|(t, _)| {
            [*v0, *v1]
                .iter()
                .filter(|v| v.kind() == "identifier" && text_of(**v, text) == *t)
                .count()
                == 1
        }))
    .then_some(())?;
    let (func, _) = cst::enclosing_function(f, text)?;
    let elem = cb::local_tensor_type(func, text, d0)?;
    // A temporary of another type would convert what it holds; the Gather copies the bits.
    temp_types
        .iter()
        .all(|t| *t == elem || *t == "auto")
        .then_some(())?;
    (gather_elem(func, text, elem)
        && [&even.0, &odd.0]
            .iter()
            .all(|s| s.as_str() != *d0 && cb::local_tensor_type(func, text, s) == Some(elem)))
    .then_some(())?;
    // Nothing the loop reads may name what it writes or counts with.
    let read_names: Vec<&str> = [&even.1, &odd.1]
        .into_iter()
        .flatten()
        .map(String::as_str)
        .chain(cst::identifiers_in(count, text))
        .collect();
    (!read_names
        .iter()
        .any(|n| *n == *d0 || temps.iter().any(|(t, _)| t == n)))
    .then_some(())?;
    cst::own_lines(text, f)?;
    Some(Interleave {
        for_stmt: f,
        start,
        count: text_of(count, text).into(),
        dst: (*d0).into(),
        elem: elem.into(),
        even,
        odd,
    })
}

/// The slow form: the loop from 0, with the slots its table buffer would go in.
fn slow_at<'t>(text: &str, f: Node<'t>) -> Option<(Interleave<'t>, BufferSlots)> {
    let l = interleave_at(text, f)?;
    (text_of(l.start, text).trim() == "0").then_some(())?;
    let (func, _) = cst::enclosing_function(f, text)?;
    let slots = BufferSlots::find(text, func, &[])?;
    Some((l, slots))
}

/// The names the fast form declares: the table buffer member, then its locals.
pub(super) struct Names {
    pub(super) buf: String,
    pub(super) table: String,
    pub(super) even: String,
    pub(super) odd: String,
    pub(super) repeats: String,
    pub(super) r: String,
    pub(super) k: String,
    /// Repeats the table covers.
    pub(super) chunk: u32,
}

impl Names {
    /// Names free in `func` (the table buffer's free in the whole file `root`).
    pub(super) fn fresh(root: Node, func: Node, text: &str, chunk: u32) -> Names {
        let fresh = |stem: &str| cb::fresh_name(func, text, stem, "");
        Names {
            buf: cb::fresh_name(root, text, "interleaveOffset", "Buf"),
            table: fresh("interleaveOffsets"),
            even: fresh("evenLanes"),
            odd: fresh("oddLanes"),
            repeats: fresh("wholeRepeats"),
            r: fresh("repeat"),
            k: fresh("chunk"),
            chunk,
        }
    }

    /// The names a fast form's block declares, read from its statements (the table's `Get` names the
    /// buffer).
    pub(super) fn read(text: &str, buf: &str, stmts: [Node; 5], chunk: u32) -> Option<Names> {
        let [table_decl, mask_even, mask_odd, reps_decl, chunks] = stmts;
        (chunks.kind() == "for_statement").then_some(())?;
        let k_decl = *cst::statements(chunks.child_by_field_name("body")?).first()?;
        Some(Names {
            buf: buf.into(),
            table: declared(table_decl, text)?.into(),
            even: declared(mask_even, text)?.into(),
            odd: declared(mask_odd, text)?.into(),
            repeats: declared(reps_decl, text)?.into(),
            r: declared(chunks.child_by_field_name("initializer")?, text)?.into(),
            k: declared(k_decl, text)?.into(),
            chunk,
        })
    }
}

/// Pairs of `elem` in one 256 B repeat of the destination, as the fast forms write it.
pub(super) fn pairs_per_repeat(elem: &str) -> String {
    format!("(128 / sizeof({elem}))")
}

/// What one fast form's Gathers read and write: the element type, the tensor the lanes land in (from
/// its element 0), each source with the pair its first repeat starts at, and the value the count of
/// whole repeats is declared with.
pub(super) struct Lanes<'a> {
    pub(super) elem: &'a str,
    pub(super) dst: &'a str,
    pub(super) even: (&'a str, Option<&'a str>),
    pub(super) odd: (&'a str, Option<&'a str>),
    pub(super) repeats: String,
}

/// The offset table, the lane masks, the whole-repeat count and the chunked Gathers, each line indented
/// by `i2` and ended by a newline: the body both interleave motifs' fast forms share.
pub(super) fn gather_lines(lanes: &Lanes, n: &Names, q: &str, i2: &str) -> String {
    let e = lanes.elem;
    let chunk = n.chunk;
    let table = format!("static_cast<int32_t>({chunk} * 256 / sizeof({e}))");
    let pairs = pairs_per_repeat(e);
    let base = |b: Option<&str>| match b {
        Some(b) => format!("{b} + {} * {pairs}", n.r),
        None => format!("{} * {pairs}", n.r),
    };
    let i3 = format!("{i2}    ");
    format!(
        "{i2}{q}LocalTensor<uint32_t> {t} = {buf}.Get<uint32_t>();\n\
         {i2}{q}ArithProgression({t}.ReinterpretCast<int32_t>(), static_cast<int32_t>(0), static_cast<int32_t>(1), {table});\n\
         {i2}{q}PipeBarrier<PIPE_V>();\n\
         {i2}{q}ShiftRight({t}, {t}, static_cast<uint32_t>(1), {table});\n\
         {i2}{q}PipeBarrier<PIPE_V>();\n\
         {i2}{q}ShiftLeft({t}, {t}, static_cast<uint32_t>(sizeof({e}) / 2), {table});\n\
         {i2}{q}PipeBarrier<PIPE_V>();\n\
         {i2}const uint64_t {even}[2] = {{0x5555555555555555ULL, sizeof({e}) == 2 ? 0x5555555555555555ULL : 0ULL}};\n\
         {i2}const uint64_t {odd}[2] = {{0xAAAAAAAAAAAAAAAAULL, sizeof({e}) == 2 ? 0xAAAAAAAAAAAAAAAAULL : 0ULL}};\n\
         {i2}const int64_t {reps} = {reps_value};\n\
         {i2}for (int64_t {r} = 0; {r} < {reps}; {r} += {chunk}) {{\n\
         {i3}const uint8_t {k} = static_cast<uint8_t>({reps} - {r} < {chunk} ? {reps} - {r} : {chunk});\n\
         {i3}{q}Gather({d}[{r} * (256 / sizeof({e}))], {a}, {t}, static_cast<uint32_t>(({ab}) * sizeof({e})), {even}, {k}, 8);\n\
         {i3}{q}Gather({d}[{r} * (256 / sizeof({e}))], {b}, {t}, static_cast<uint32_t>(({bb}) * sizeof({e})), {odd}, {k}, 8);\n\
         {i2}}}\n",
        t = n.table,
        buf = n.buf,
        even = n.even,
        odd = n.odd,
        reps = n.repeats,
        reps_value = lanes.repeats,
        r = n.r,
        k = n.k,
        d = lanes.dst,
        a = lanes.even.0,
        b = lanes.odd.0,
        ab = base(lanes.even.1),
        bb = base(lanes.odd.1),
    )
}

/// `l` (the text of the slow `for` statement, its start value at the `start` bytes of it) as the fast
/// form's tail loop: starting at `from`, the first pair no whole repeat took, one level deeper.
fn tail_loop(l: &str, start: Range<usize>, from: &str) -> String {
    let moved = format!("{}{from}{}", &l[..start.start], &l[start.end..]);
    moved.replace('\n', "\n    ").replace("\n    \n", "\n\n")
}

/// The fast form that replaces a slow loop indented by `ind`, with `tail` (`tail_loop`'s) kept for the
/// pairs past the last whole repeat.
fn fast_form(l: &Interleave, n: &Names, q: &str, ind: &str, tail: &str) -> String {
    let lanes = Lanes {
        elem: &l.elem,
        dst: &l.dst,
        even: (&l.even.0, l.even.1.as_deref()),
        odd: (&l.odd.0, l.odd.1.as_deref()),
        repeats: format!(
            "static_cast<int64_t>({}) / {}",
            l.count,
            pairs_per_repeat(&l.elem)
        ),
    };
    let i2 = format!("{ind}    ");
    format!(
        "{q}PipeBarrier<PIPE_ALL>();\n{ind}{{\n{lines}{i2}{tail}\n{ind}}}\n{ind}{q}PipeBarrier<PIPE_ALL>();",
        lines = gather_lines(&lanes, n, q, &i2)
    )
}

/// The lines of the table buffer `buf` that a fast form's rewind removes (its member and its
/// InitBuffer), if the buffer is named nowhere but there and in the form's one `Get`.
pub(super) fn table_buffer_lines(root: Node, text: &str, buf: &str) -> Option<Vec<Range<usize>>> {
    Some(cb::buffer_lines(root, text, buf, 1)?.to_vec())
}

/// The edits that put a fast form (`statements`, for the loop at `site`) in the text: its table
/// buffer carved in `slots`, `chunk` repeats of `elem`.
pub(super) fn with_table(
    slots: &BufferSlots,
    names: &Names,
    elem: &str,
    site: &Range<usize>,
    statements: &str,
) -> Vec<(Range<usize>, String)> {
    let (member, init) = slots.lines(
        &names.buf,
        &format!("{} * 256 / sizeof({elem}) * sizeof(uint32_t)", names.chunk),
    );
    vec![
        (slots.init_at..slots.init_at, init),
        (slots.member_at..slots.member_at, member),
        (site.clone(), statements.to_string()),
    ]
}

/// The first name a declaration declares (through array and init declarators).
fn declared<'a>(decl: Node, text: &'a str) -> Option<&'a str> {
    let d = decl.child_by_field_name("declarator")?;
    cst::nodes_of_kind(d, "identifier")
        .first()
        .map(|n| text_of(*n, text))
}

/// A fast form found in the text: what the rewind replaces and puts back.
struct Fast<'t> {
    /// From the barrier before the block to the barrier after it.
    span: Range<usize>,
    l: Interleave<'t>,
    /// The tail loop as a slow loop again: from 0, one level shallower.
    slow: String,
    /// The table buffer's member and InitBuffer lines.
    removed: Vec<Range<usize>>,
}

/// The fast form whose block is `block`: regenerated from the tail loop and the names it declares, it
/// must be the text there, byte for byte.
fn fast_at<'t>(text: &str, root: Node<'t>, block: Node<'t>, chunk: u32) -> Option<Fast<'t>> {
    let outer = block.parent()?;
    (outer.kind() == "compound_statement").then_some(())?;
    let siblings = cst::statements(outer);
    let at = siblings.iter().position(|s| *s == block)?;
    let (before, after) = (*siblings.get(at.checked_sub(1)?)?, *siblings.get(at + 1)?);
    (is_full_barrier(before, text) && is_full_barrier(after, text)).then_some(())?;
    cst::own_lines(text, before)?;
    let stmts = cst::statements(block);
    let [table_decl, .., mask_even, mask_odd, reps_decl, chunks, tail] = stmts[..] else {
        return None;
    };
    let l = interleave_at(text, tail)?;
    let (_, get) = single_init(table_decl)?;
    let (buf_expr, _) = method(get, text, "Get")?;
    let names = Names::read(
        text,
        buf_expr,
        [table_decl, mask_even, mask_odd, reps_decl, chunks],
        chunk,
    )?;
    // The tail as the slow loop: start 0, one level shallower.
    let tail_text = text_of(tail, text);
    let start = l.start.start_byte() - tail.start_byte()..l.start.end_byte() - tail.start_byte();
    let slow_deeper = format!("{}0{}", &tail_text[..start.start], &tail_text[start.end..]);
    let slow = slow_deeper.replace("\n    ", "\n");
    (tail_loop(&slow, start.start..start.start + 1, text_of(l.start, text)) == tail_text)
        .then_some(())?;
    let ind = cst::indent_at(text, before.start_byte());
    let q = cb::qualifier(Call::of(before.named_child(0)?)?.qualified(text));
    let expected = fast_form(&l, &names, q, ind, tail_text);
    let span = before.start_byte()..after.end_byte();
    (text[span.clone()] == expected).then_some(())?;
    (text_of(l.start, text) == format!("{} * {}", names.repeats, pairs_per_repeat(&l.elem)))
        .then_some(())?;
    // The table buffer goes with the form: named only by its member, its InitBuffer and this Get.
    let removed = table_buffer_lines(root, text, buf_expr)?;
    Some(Fast {
        span,
        l,
        slow,
        removed,
    })
}

fn slow_forms<'t>(text: &str, root: Node<'t>) -> Vec<(Interleave<'t>, BufferSlots)> {
    cst::nodes_of_kind(root, "for_statement")
        .into_iter()
        .filter_map(|f| slow_at(text, f))
        .collect()
}

fn fast_forms<'t>(text: &str, root: Node<'t>, chunk: u32) -> Vec<Fast<'t>> {
    cst::nodes_of_kind(root, "compound_statement")
        .into_iter()
        .filter_map(|b| fast_at(text, root, b, chunk))
        .collect()
}

impl Motif for GatherInterleave {
    fn name(&self) -> &'static str {
        self.name
    }
    fn summary(&self) -> &'static str {
        "scalar loop interleaving two local tensors element by element -> two masked vector Gathers per \
         8 repeats from one offset table, the loop kept for the tail"
    }
    fn preserves_meaning_when(&self) -> &'static str {
        "checked: a `for` loop that runs an integer i from 0 while i < n by ++ (n a pure value free of i), \
         whose body is only `d.SetValue(2 * i, a.GetValue(A + i)); d.SetValue(2 * i + 1, b.GetValue(B + \
         i));` (or `i * 2`, a source index `i` without base, or each value read first into its own \
         temporary), with d, a and b `LocalTensor<E>` of the function of one E that Gather takes (2- or \
         4-byte, or a template parameter of the class), d neither a nor b by name, and A, B and n pure \
         values naming neither d nor a temporary. The gathered lanes are then bit copies of the same \
         elements the loop stores, in the same places, for every pair of the whole repeats; the pairs \
         past them run through the same loop. The new table buffer is carved after the last InitBuffer \
         of the function that carves the class's first. NOT checked: that d, a and b do not overlap in \
         UB (Gather's src may not be its dst; a partial overlap changes what the loop reads after it \
         wrote); the table's UB (2 or 4 KiB; 256 or 512 B in the narrow form) may not fit beside the tiling's buffers, a failed trial \
         then. Full barriers before and after order the vector form against every pipe. Rewind turns \
         exactly that form (with its table buffer used nowhere else) back into the loop"
    }
    fn apply_sites(&self, text: &str) -> Vec<Site> {
        let tree = cst::parse(text);
        slow_forms(text, tree.root_node())
            .into_iter()
            .map(|(l, _)| {
                Site::new(
                    l.for_stmt.byte_range(),
                    text,
                    format!(
                        "scalar interleave of {} and {} into {}: Gather",
                        l.even.0, l.odd.0, l.dst
                    ),
                )
            })
            .collect()
    }

    fn apply(&self, text: &str, site: &Site) -> Result<Edit, MotifError> {
        let tree = cst::parse(text);
        let root = tree.root_node();
        let (l, slots) = slow_forms(text, root)
            .into_iter()
            .find(|(l, _)| l.for_stmt.byte_range() == site.range)
            .ok_or_else(|| {
                error(
                    self.name,
                    text,
                    site.range.start,
                    "no scalar interleave loop here",
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
                let (func, _) = cst::enclosing_function(l.for_stmt, text)
                    .ok_or_else(|| error(self.name, text, site.range.start, "not in a function"))?;
                let names = Names::fresh(root, func, text, self.chunk);
                let loop_text = &text[site.range.clone()];
                let start =
                    l.start.start_byte() - site.range.start..l.start.end_byte() - site.range.start;
                let from = format!("{} * {}", names.repeats, pairs_per_repeat(&l.elem));
                let tail = tail_loop(loop_text, start, &from);
                // Written as the function around the loop writes its API calls.
                let q = cb::qualifier(text_of(func, text).contains("AscendC::"));
                let ind = cst::indent_at(text, site.range.start);
                let statements = fast_form(&l, &names, q, ind, &tail);
                let edits = with_table(&slots, &names, &l.elem, &site.range, &statements);
                (edits, statements)
            }
        };
        Ok(vector_reduce::apply_edit(
            text,
            site,
            &edits,
            &statements,
            format!("Gather interleave into {}", l.dst),
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
                    format!("Gather interleave into {}: scalar loop", f.l.dst),
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
                    "no Gather interleave form here",
                )
            })?;
        let statement = site.restore.clone().unwrap_or(f.slow);
        Ok(vector_reduce::rewind_edit(
            text,
            site,
            &f.removed,
            statement,
            "scalar interleave loop",
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rewrite::motif::testing::*;

    /// A kernel class of this project's own, written as public kernels write it: methods defined after
    /// the class, a complex number packed from its parts through temporaries, and a gradient's two
    /// halves stored back interleaved straight from the sources, the second from an offset.
    const PACK: &str = r#"#include "kernel_operator.h"
using namespace AscendC;

template <typename T>
class PackPairs {
public:
    __aicore__ inline void Init(GM_ADDR re, GM_ADDR im, GM_ADDR z, uint32_t pairs);
    __aicore__ inline void Pack();
    __aicore__ inline void Store(LocalTensor<T> &dst, LocalTensor<T> &lo, LocalTensor<T> &hi);

private:
    TPipe pipe;
    TQue<QuePosition::VECIN, 1> reQueue;
    TQue<QuePosition::VECIN, 1> imQueue;
    TQue<QuePosition::VECOUT, 1> zQueue;
    TBuf<TPosition::VECCALC> zeroBuf;
    uint32_t pairs;
    uint32_t half;
};

template <typename T>
__aicore__ inline void PackPairs<T>::Init(GM_ADDR re, GM_ADDR im, GM_ADDR z, uint32_t pairs)
{
    this->pairs = pairs;
    this->half = pairs / 2;
    pipe.InitBuffer(reQueue, 1, pairs * sizeof(T));
    pipe.InitBuffer(imQueue, 1, pairs * sizeof(T));
    pipe.InitBuffer(zQueue, 1, 2 * pairs * sizeof(T));
}

template <typename T>
__aicore__ inline void PackPairs<T>::Pack()
{
    LocalTensor<T> reLocal = reQueue.DeQue<T>();
    LocalTensor<T> imLocal = imQueue.DeQue<T>();
    LocalTensor<T> zLocal = zQueue.AllocTensor<T>();
    for (uint32_t i = 0; i < this->pairs; i++) {
        T real = reLocal.GetValue(i);
        T imag = imLocal.GetValue(i);
        zLocal.SetValue(2 * i, real);
        zLocal.SetValue(2 * i + 1, imag);
    }
    zQueue.EnQue(zLocal);
}

template <typename T>
__aicore__ inline void PackPairs<T>::Store(LocalTensor<T> &dst, LocalTensor<T> &lo, LocalTensor<T> &hi)
{
    for (int64_t i = 0; i < half; ++i) {
        dst.SetValue(2 * i, lo.GetValue(i));
        dst.SetValue(2 * i + 1, hi.GetValue(half + i));
    }
}
"#;

    #[test]
    fn both_interleave_loops_become_gathers_and_back() {
        let sites = WIDE.apply_sites(PACK);
        assert_eq!(sites.len(), 2, "{sites:?}");
        assert_eq!(
            sites[0].what,
            "scalar interleave of reLocal and imLocal into zLocal: Gather"
        );
        let edit = WIDE.apply(PACK, &sites[1]).unwrap();
        for line in [
            // the table buffer, after the class's last buffer and the Init function's last InitBuffer
            "    TBuf<TPosition::VECCALC> zeroBuf;\n    TBuf<TPosition::VECCALC> interleaveOffsetBuf;\n",
            "    pipe.InitBuffer(zQueue, 1, 2 * pairs * sizeof(T));\n    pipe.InitBuffer(interleaveOffsetBuf, 8 * 256 / sizeof(T) * sizeof(uint32_t));\n}\n",
            // unqualified, as the function writes its calls; the second source from its offset
            "    PipeBarrier<PIPE_ALL>();\n    {\n        LocalTensor<uint32_t> interleaveOffsets = interleaveOffsetBuf.Get<uint32_t>();\n",
            "        const int64_t wholeRepeats = static_cast<int64_t>(half) / (128 / sizeof(T));\n",
            "            Gather(dst[repeat * (256 / sizeof(T))], hi, interleaveOffsets, static_cast<uint32_t>((half + repeat * (128 / sizeof(T))) * sizeof(T)), oddLanes, chunk, 8);\n",
            // the loop kept for the pairs past the whole repeats, one level deeper
            "        for (int64_t i = wholeRepeats * (128 / sizeof(T)); i < half; ++i) {\n            dst.SetValue(2 * i, lo.GetValue(i));\n            dst.SetValue(2 * i + 1, hi.GetValue(half + i));\n        }\n    }\n    PipeBarrier<PIPE_ALL>();\n}\n",
        ] {
            assert!(
                edit.text.contains(line),
                "{line} missing from\n{}",
                edit.text
            );
        }
        assert_eq!(round_trips(&WIDE, PACK), 2);
        // Without the restore text the rewind writes the loop as it was: it is the canonical form.
        let canonical = Site {
            restore: None,
            ..edit.inverse.clone()
        };
        assert_eq!(WIDE.rewind(&edit.text, &canonical).unwrap().text, PACK);
        assert_eq!(rewinds_round_trip(&WIDE, &edit.text), 1);
        // Both at once: two table buffers, each rewound with its own.
        let (both, n) =
            crate::rewrite::motif::edit_all(&WIDE, PACK, crate::rewrite::motif::Direction::Apply)
                .unwrap()
                .unwrap();
        assert_eq!(n, 2);
        assert!(both.contains("interleaveOffsetBuf2"), "{both}");
        assert!(WIDE.apply_sites(&both).is_empty());
        let (back, _) =
            crate::rewrite::motif::edit_all(&WIDE, &both, crate::rewrite::motif::Direction::Rewind)
                .unwrap()
                .unwrap();
        assert_eq!(back, PACK);
    }

    #[test]
    fn the_narrow_form_has_a_one_repeat_table_and_each_form_rewinds_only_itself() {
        let site = NARROW.apply_sites(PACK).remove(0);
        let edit = NARROW.apply(PACK, &site).unwrap();
        for line in [
            "    pipe.InitBuffer(interleaveOffsetBuf, 1 * 256 / sizeof(T) * sizeof(uint32_t));\n",
            "        for (int64_t repeat = 0; repeat < wholeRepeats; repeat += 1) {\n",
        ] {
            assert!(
                edit.text.contains(line),
                "{line} missing from\n{}",
                edit.text
            );
        }
        assert_eq!(round_trips(&NARROW, PACK), 2);
        assert_eq!(rewinds_round_trip(&NARROW, &edit.text), 1);
        assert!(WIDE.rewind_sites(&edit.text).is_empty());
        let wide = WIDE.apply(PACK, &WIDE.apply_sites(PACK).remove(0)).unwrap();
        assert!(NARROW.rewind_sites(&wide.text).is_empty());
        assert_eq!(WIDE.rewind_sites(&wide.text).len(), 1);
    }

    #[test]
    fn loops_that_do_not_interleave_two_other_tensors_are_no_site() {
        for (from, to) in [
            // a stride of three is no pair
            (
                "zLocal.SetValue(2 * i + 1, imag)",
                "zLocal.SetValue(2 * i + 2, imag)",
            ),
            // the odd lane first
            (
                "zLocal.SetValue(2 * i, real)",
                "zLocal.SetValue(2 * i + 1, real)",
            ),
            // a source read at another index
            ("imLocal.GetValue(i)", "imLocal.GetValue(2 * i)"),
            // a temporary that narrows what it holds
            (
                "T imag = imLocal.GetValue(i);",
                "int8_t imag = imLocal.GetValue(i);",
            ),
            // a temporary used twice
            (
                "zLocal.SetValue(2 * i + 1, imag)",
                "zLocal.SetValue(2 * i + 1, real)",
            ),
            // into one of its own sources
            (
                "zLocal.SetValue(2 * i, real);\n        zLocal.SetValue(2 * i + 1, imag);",
                "reLocal.SetValue(2 * i, real);\n        reLocal.SetValue(2 * i + 1, imag);",
            ),
            // not from 0
            ("uint32_t i = 0;", "uint32_t i = 1;"),
            // a count the body changes
            ("i < this->pairs; i++", "i < this->pairs; i += 2"),
        ] {
            let k = PACK.replace(from, to);
            assert_ne!(k, PACK, "{from}");
            // the other loop still is one
            let sites = WIDE.apply_sites(&k);
            assert_eq!(sites.len(), 1, "{to}: {sites:?}");
        }
        let bytes = PACK
            .replace("LocalTensor<T> reLocal", "LocalTensor<int8_t> reLocal")
            .replace("LocalTensor<T> imLocal", "LocalTensor<int8_t> imLocal")
            .replace("LocalTensor<T> zLocal", "LocalTensor<int8_t> zLocal")
            .replace("T real", "int8_t real")
            .replace("T imag", "int8_t imag");
        // an element Gather does not take
        assert_eq!(WIDE.apply_sites(&bytes).len(), 1);
        // A class without InitBuffer has nowhere to carve the table.
        let no_init = PACK.replace("pipe.InitBuffer", "pipe.Carve");
        assert!(WIDE.apply_sites(&no_init).is_empty());
    }
}
