//! gm-copy-loop: a scalar loop that moves n consecutive elements between global memory and a local
//! tensor one element at a time,
//! `for (T k = 0; k < n; k++) { l.SetValue(A + k, g.GetValue(B + k)); }` (copy in), or
//! `g.SetValue(B + k, l.GetValue(A + k))` (copy out, also through a temporary `E v = l.GetValue(..);`),
//! becomes `DataCopyPad` bursts on MTE2 / MTE3 (asc-devkit docs, DataCopyPad: GM <-> UB with a length in
//! bytes, the UB address 32 B aligned; DataCopyExtParams{blockCount, blockLen, srcStride, dstStride, rsv}).
//! Contributors' kernels copy rows this way where a row is not whole 32 B blocks (ops-nn's silu_mul,
//! hard_swish_grad_v2, rms_norm_grad's tail); each element then costs two scalar accesses, one of them a
//! trip to GM through the scalar data cache.
//!
//! What keeps the fast form exact on the device:
//! - copy in: a GM -> UB burst lands rounded up to 32 B in UB, and the padding is unspecified unless the
//!   copy pads, so a burst of the whole row could overwrite up to 31 bytes after it. Only the row's whole
//!   32 B blocks go by DMA; the loop stays for the rest, started where the burst ends.
//! - copy out: a UB -> GM burst writes exactly its blockLen bytes, so the whole row goes by DMA.
//! - DMA bypasses the scalar data cache: a tensor copied in may not be written by `SetValue` anywhere in
//!   the file, and one copied out may not be read or written by the scalar unit anywhere else in it.
//! - synchronisation: the bursts sit between `PipeBarrier<PIPE_ALL>()`s, enough whoever wrote the source
//!   and whoever reads the destination (narrow-barrier may narrow them later).
//!
//! Rewinding turns the in form back into its tail loop started from 0, and the out form into a copy loop.
//! The module owns the loop shapes and both forms; it knows nothing of measuring or the bank.

use super::constant_buffer as cb;
use super::scalar_loop::is_full_barrier;
use super::vector_reduce::single_init;
use crate::rewrite::cst::{self, Call, text_of};
use crate::rewrite::motif::{Edit, Motif, MotifError, Site};
use std::ops::Range;
use tree_sitter::Node;

pub struct GmCopyLoop;

const NAME: &str = "gm-copy-loop";

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Way {
    /// GM -> UB (MTE2).
    In,
    /// UB -> GM (MTE3).
    Out,
}

/// One element copy of a loop body: `local[A + k]` <-> `global[B + k]`.
struct Copy {
    /// The local tensor as written (`x1Pad`, `this->gradTensor[off]`), and A.
    local: String,
    local_off: Option<String>,
    global: String,
    global_off: Option<String>,
    /// The GM tensor's variable (`xGm` of `this->xGm[off]`): whose other scalar accesses matter.
    global_name: String,
}

/// A site in either form.
struct Found {
    /// The bytes replaced: the `for` statement, or the statements of the DMA form.
    span: Range<usize>,
    way: Way,
    elem: String,
    count: String,
    copies: Vec<Copy>,
    qualified: bool,
    /// In form only: the loop that finishes the row, as written (its start is the burst length).
    tail: Option<String>,
}

fn error(text: &str, at: usize, why: &str) -> MotifError {
    MotifError {
        motif: NAME,
        line: cst::line_of(text, at),
        why: why.into(),
    }
}

/// An expression the loop cannot change and whose evaluation has no effect: literals, names, members,
/// arithmetic of those, casts and parentheses.
fn pure_expr(node: Node, text: &str) -> bool {
    match node.kind() {
        "number_literal" | "identifier" | "true" | "false" | "this" => true,
        "field_expression" => node
            .child_by_field_name("argument")
            .is_some_and(|a| pure_expr(a, text)),
        "parenthesized_expression" => node.named_child(0).is_some_and(|n| pure_expr(n, text)),
        "unary_expression" => {
            node.child_by_field_name("operator")
                .is_some_and(|o| matches!(text_of(o, text), "-" | "+"))
                && node
                    .child_by_field_name("argument")
                    .is_some_and(|a| pure_expr(a, text))
        }
        "binary_expression" => {
            node.child_by_field_name("operator").is_some_and(|o| {
                matches!(text_of(o, text), "+" | "-" | "*" | "/" | "%" | "<<" | ">>")
            }) && node
                .child_by_field_name("left")
                .is_some_and(|l| pure_expr(l, text))
                && node
                    .child_by_field_name("right")
                    .is_some_and(|r| pure_expr(r, text))
        }
        "cast_expression" => node
            .child_by_field_name("value")
            .is_some_and(|v| pure_expr(v, text)),
        "call_expression" => Call::of(node).is_some_and(|c| {
            c.name(text) == "static_cast" && matches!(c.args()[..], [a] if pure_expr(a, text))
        }),
        _ => false,
    }
}

/// `k` -> Some(None); `A + k` or `k + A` with A pure and free of k -> Some(Some(A)).
fn offset_of(node: Node, text: &str, k: &str) -> Option<Option<String>> {
    if node.kind() == "identifier" && text_of(node, text) == k {
        return Some(None);
    }
    (node.kind() == "binary_expression"
        && text_of(node.child_by_field_name("operator")?, text) == "+")
        .then_some(())?;
    let (l, r) = (
        node.child_by_field_name("left")?,
        node.child_by_field_name("right")?,
    );
    let base = if r.kind() == "identifier" && text_of(r, text) == k {
        l
    } else if l.kind() == "identifier" && text_of(l, text) == k {
        r
    } else {
        return None;
    };
    (pure_expr(base, text) && cb::mentions(base, text, k) == 0)
        .then(|| Some(text_of(base, text).into()))
}

/// The variable a tensor expression is: `x` of `x`, `this->x`, `x[i]`, `this->x[i]`.
fn base_name<'a>(node: Node, text: &'a str) -> Option<&'a str> {
    match node.kind() {
        "identifier" => Some(text_of(node, text)),
        "field_expression" => {
            let arg = node.child_by_field_name("argument")?;
            (arg.kind() == "this").then_some(())?;
            Some(text_of(node.child_by_field_name("field")?, text))
        }
        "subscript_expression" => {
            let arg = node.child_by_field_name("argument")?;
            (arg.kind() != "subscript_expression").then_some(())?;
            let index = node.named_child(1)?;
            pure_expr_or_list(index, text).then_some(())?;
            base_name(arg, text)
        }
        _ => None,
    }
}

/// A subscript's index (tree-sitter-cpp wraps it in a `subscript_argument_list`).
fn pure_expr_or_list(node: Node, text: &str) -> bool {
    if node.kind() == "subscript_argument_list" {
        let mut c = node.walk();
        let items: Vec<Node> = node.named_children(&mut c).collect();
        return matches!(items[..], [i] if pure_expr(i, text));
    }
    pure_expr(node, text)
}

/// Whether `name` is declared as a `GlobalTensor<E>` (true) or `LocalTensor<E>` (false) in the file,
/// with E: every declaration of the name (members, locals, parameters) must agree.
fn tensor_kind<'a>(root: Node, text: &'a str, name: &str) -> Option<(bool, &'a str)> {
    let mut found: Vec<(bool, &'a str)> = Vec::new();
    cst::visit(root, &mut |n| {
        if !matches!(
            n.kind(),
            "declaration" | "field_declaration" | "parameter_declaration"
        ) {
            return;
        }
        let Some(ty) = n.child_by_field_name("type") else {
            return;
        };
        let mut c = n.walk();
        let declares = n.children_by_field_name("declarator", &mut c).any(|d| {
            let mut first = None;
            cst::visit(d, &mut |x| {
                if first.is_none() && matches!(x.kind(), "identifier" | "field_identifier") {
                    first = Some(text_of(x, text));
                }
            });
            first == Some(name)
        });
        if !declares {
            return;
        }
        let ty = text_of(ty, text).trim_start_matches("AscendC::");
        let kind = if let Some(rest) = ty.strip_prefix("GlobalTensor<") {
            Some((true, rest))
        } else {
            ty.strip_prefix("LocalTensor<").map(|rest| (false, rest))
        };
        // A declaration of the name with another type makes it ambiguous.
        found.push(
            match kind.and_then(|(g, r)| r.strip_suffix('>').map(|e| (g, e.trim()))) {
                Some(k) => k,
                None => (false, ""),
            },
        );
    });
    let first = *found.first()?;
    (!first.1.is_empty() && found.iter().all(|f| *f == first)).then_some(first)
}

/// `t.Method(args)` with t a tensor expression: (call, t's node).
fn method<'t>(node: Node<'t>, text: &str, name: &str) -> Option<(Call<'t>, Node<'t>)> {
    let call = Call::of(node)?;
    (call.name(text) == name && call.function.kind() == "field_expression").then_some(())?;
    Some((call, call.function.child_by_field_name("argument")?))
}

/// The `for` at `f` as a copy loop: `for (T k = 0; k < n; k++ | ++k) { copies }`.
fn loop_at(text: &str, root: Node, f: Node) -> Option<Found> {
    (f.parent()?.kind() == "compound_statement").then_some(())?;
    let init = f.child_by_field_name("initializer")?;
    (init.kind() == "declaration").then_some(())?;
    let (kvar, k0) = single_init(init)?;
    let k = (kvar.kind() == "identifier").then(|| text_of(kvar, text))?;
    (text_of(k0, text).trim() == "0").then_some(())?;
    let cond = f.child_by_field_name("condition")?;
    (cond.kind() == "binary_expression"
        && text_of(cond.child_by_field_name("operator")?, text) == "<"
        && text_of(cond.child_by_field_name("left")?, text) == k)
        .then_some(())?;
    let count = cond.child_by_field_name("right")?;
    (pure_expr(count, text) && cb::mentions(count, text, k) == 0).then_some(())?;
    let update = f.child_by_field_name("update")?;
    (update.kind() == "update_expression" && text_of(update, text).replace(k, "").trim() == "++")
        .then_some(())?;
    let body = f.child_by_field_name("body")?;
    let stmts = match body.kind() {
        "compound_statement" => cst::statements(body),
        "expression_statement" => vec![body],
        _ => return None,
    };
    let mut copies = Vec::new();
    let mut ways = Vec::new();
    let mut elems = Vec::new();
    let mut i = 0;
    while i < stmts.len() {
        // `E v = s.GetValue(..);` then `d.SetValue(.., v);`, or `d.SetValue(.., s.GetValue(..));`.
        let (temp, set_stmt) = if stmts[i].kind() == "declaration" {
            let (v, get) = single_init(stmts[i])?;
            (v.kind() == "identifier").then_some(())?;
            let ty = text_of(stmts[i].child_by_field_name("type")?, text).trim();
            i += 1;
            (Some((text_of(v, text), get, ty)), *stmts.get(i)?)
        } else {
            (None, stmts[i])
        };
        i += 1;
        (set_stmt.kind() == "expression_statement").then_some(())?;
        let (set, dst) = method(set_stmt.named_child(0)?, text, "SetValue")?;
        let [di, value] = set.args()[..] else {
            return None;
        };
        let (get_node, temp_ty) = match temp {
            Some((v, get, ty)) => {
                (value.kind() == "identifier" && text_of(value, text) == v).then_some(())?;
                // The temporary is used by this SetValue only.
                let uses = stmts
                    .iter()
                    .filter(|s| cb::mentions(**s, text, v) > 0)
                    .count();
                (uses == 2).then_some(())?;
                (get, Some(ty))
            }
            None => (value, None),
        };
        let (get, src) = method(get_node, text, "GetValue")?;
        let [si] = get.args()[..] else { return None };
        let (doff, soff) = (offset_of(di, text, k)?, offset_of(si, text, k)?);
        let (dname, sname) = (base_name(dst, text)?, base_name(src, text)?);
        let (dglobal, delem) = tensor_kind(root, text, dname)?;
        let (sglobal, selem) = tensor_kind(root, text, sname)?;
        (dglobal != sglobal && delem == selem).then_some(())?;
        if let Some(ty) = temp_ty {
            (ty == delem).then_some(())?;
        }
        // The tensor expressions themselves must not depend on k.
        (cb::mentions(dst, text, k) == 0 && cb::mentions(src, text, k) == 0).then_some(())?;
        let (way, local, local_off, global, global_off) = if sglobal {
            (Way::In, dst, doff, src, soff)
        } else {
            (Way::Out, src, soff, dst, doff)
        };
        ways.push(way);
        elems.push(delem);
        copies.push(Copy {
            local: text_of(local, text).into(),
            local_off,
            global: text_of(global, text).into(),
            global_off,
            global_name: base_name(global, text)?.into(),
        });
    }
    let (&way, &elem) = (ways.first()?, elems.first()?);
    (ways.iter().all(|w| *w == way) && elems.iter().all(|e| *e == elem)).then_some(())?;
    // The scalar data cache: DMA must not meet the scalar unit on the same GM tensor.
    for c in &copies {
        let scalar = scalar_accesses(root, text, &c.global_name, f.byte_range());
        let clash = match way {
            Way::In => scalar.writes_anywhere,
            Way::Out => scalar.outside > 0,
        };
        (!clash).then_some(())?;
    }
    cst::own_lines(text, f)?;
    Some(Found {
        span: f.byte_range(),
        way,
        elem: elem.into(),
        count: text_of(count, text).into(),
        copies,
        qualified: text.contains("AscendC::"),
        tail: None,
    })
}

struct ScalarUse {
    /// `SetValue` on the tensor anywhere in the file.
    writes_anywhere: bool,
    /// `GetValue` or `SetValue` on it outside the given range.
    outside: usize,
}

fn scalar_accesses(root: Node, text: &str, name: &str, inside: Range<usize>) -> ScalarUse {
    let mut u = ScalarUse {
        writes_anywhere: false,
        outside: 0,
    };
    for m in ["GetValue", "SetValue"] {
        for c in cst::calls_named(root, text, m) {
            let Some(obj) = c.function.child_by_field_name("argument") else {
                continue;
            };
            if base_name(obj, text) != Some(name) {
                continue;
            }
            if m == "SetValue" {
                u.writes_anywhere = true;
            }
            let r = c.node.byte_range();
            if !(inside.start <= r.start && r.end <= inside.end) {
                u.outside += 1;
            }
        }
    }
    u
}

fn at(t: &str, off: &Option<String>) -> String {
    match off {
        Some(o) => format!("{t}[{o}]"),
        None => t.to_string(),
    }
}

fn grouped(e: &str) -> String {
    if e.chars()
        .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '.' || c == '>' || c == '-')
    {
        e.to_string()
    } else {
        format!("({e})")
    }
}

/// The loop's range, widened over a full barrier on its own lines just before it, and for a copy out
/// one just after it.
fn fenced_range(text: &str, root: Node, f: &Found) -> Range<usize> {
    let mut range = f.span.clone();
    let Some(stmt) = root.descendant_for_byte_range(f.span.start, f.span.end) else {
        return range;
    };
    let Some(block) = stmt.parent() else {
        return range;
    };
    let stmts = cst::statements(block);
    let Some(at) = stmts.iter().position(|s| s.byte_range() == f.span) else {
        return range;
    };
    let fence = |i: usize| {
        stmts
            .get(i)
            .filter(|s| is_full_barrier(**s, text) && cst::own_lines(text, **s).is_some())
            .map(|s| s.byte_range())
    };
    if let Some(b) = at.checked_sub(1).and_then(fence) {
        range.start = b.start;
    }
    if f.way == Way::Out
        && let Some(b) = fence(at + 1)
    {
        range.end = b.end;
    }
    range
}

fn loops(text: &str, root: Node) -> Vec<Found> {
    cst::nodes_of_kind(root, "for_statement")
        .into_iter()
        .filter_map(|f| loop_at(text, root, f))
        .collect()
}

/// `t[o]` -> (t, Some(o)); `t` -> (t, None).
fn split_at(node: Node, text: &str) -> Option<(String, Option<String>)> {
    if node.kind() == "subscript_expression" {
        let arg = node.child_by_field_name("argument")?;
        let idx = node.named_child(1)?;
        let idx = if idx.kind() == "subscript_argument_list" {
            idx.named_child(0)?
        } else {
            idx
        };
        return Some((text_of(arg, text).into(), Some(text_of(idx, text).into())));
    }
    Some((text_of(node, text).into(), None))
}

/// The `DataCopyPad` calls of an `if (c) { ... }` whose body holds only them, in the given way:
/// (copies, the burst's element count N of `static_cast<uint32_t>(N * sizeof(E))`, E).
fn bursts(text: &str, root: Node, iff: Node, way: Way) -> Option<(Vec<Copy>, String, String)> {
    (iff.kind() == "if_statement" && iff.child_by_field_name("alternative").is_none())
        .then_some(())?;
    let body = iff.child_by_field_name("consequence")?;
    (body.kind() == "compound_statement").then_some(())?;
    let mut copies = Vec::new();
    let mut counts = Vec::new();
    for s in cst::statements(body) {
        (s.kind() == "expression_statement").then_some(())?;
        let call = Call::of(s.named_child(0)?)?;
        (call.name(text) == "DataCopyPad").then_some(())?;
        let args = call.args();
        let (dst, src, params) = match (way, &args[..]) {
            (Way::In, [d, s, p, _pad]) => (*d, *s, *p),
            (Way::Out, [d, s, p]) => (*d, *s, *p),
            _ => return None,
        };
        let (global, local) = match way {
            Way::In => (src, dst),
            Way::Out => (dst, src),
        };
        let (gk, _) = tensor_kind(root, text, base_name(global, text)?)?;
        let (lk, _) = tensor_kind(root, text, base_name(local, text)?)?;
        (gk && !lk).then_some(())?;
        // DataCopyExtParams{1, static_cast<uint32_t>(N * sizeof(E)), 0, 0, 0}
        let list = params.child_by_field_name("value")?;
        let mut c = list.walk();
        let items: Vec<Node> = list.named_children(&mut c).collect();
        let [one, len, z1, z2, z3] = items[..] else {
            return None;
        };
        (["1", "0", "0", "0"] == [one, z1, z2, z3].map(|n| text_of(n, text))).then_some(())?;
        let cast = Call::of(len)?;
        (cast.name(text) == "static_cast" && cast.template_args(text) == Some("uint32_t"))
            .then_some(())?;
        let [prod] = cast.args()[..] else { return None };
        (prod.kind() == "binary_expression"
            && text_of(prod.child_by_field_name("operator")?, text) == "*")
            .then_some(())?;
        let size = prod.child_by_field_name("right")?;
        let elem = text_of(size, text)
            .strip_prefix("sizeof(")?
            .strip_suffix(')')?
            .to_string();
        counts.push((
            text_of(prod.child_by_field_name("left")?, text).to_string(),
            elem,
        ));
        let (l, lo) = split_at(local, text)?;
        let (g, go) = split_at(global, text)?;
        copies.push(Copy {
            local: l,
            local_off: lo,
            global: g,
            global_off: go,
            global_name: base_name(global, text)?.into(),
        });
    }
    let first = counts.first()?.clone();
    counts.iter().all(|c| *c == first).then_some(())?;
    Some((copies, first.0, first.1))
}

/// The DMA forms in `block`'s statements starting at `at`.
fn dma_at(text: &str, root: Node, stmts: &[Node], at: usize) -> Option<Found> {
    let b0 = *stmts.get(at)?;
    is_full_barrier(b0, text).then_some(())?;
    cst::own_lines(text, b0)?;
    let qualified = text_of(b0, text).trim_start().starts_with("AscendC::");
    let next = *stmts.get(at + 1)?;
    if next.kind() == "declaration" {
        // In: barrier; const uint32_t burst = ...; if (burst > 0) { DataCopyPad.. } barrier; for (k = burst ..)
        let (name, _) = single_init(next)?;
        let burst = text_of(name, text);
        let iff = *stmts.get(at + 2)?;
        let cond = iff.child_by_field_name("condition")?;
        (text_of(cond, text).split_whitespace().collect::<String>() == format!("({burst}>0)"))
            .then_some(())?;
        let (copies, n, elem) = bursts(text, root, iff, Way::In)?;
        (n == burst).then_some(())?;
        let b1 = *stmts.get(at + 3)?;
        is_full_barrier(b1, text).then_some(())?;
        let f = *stmts.get(at + 4)?;
        (f.kind() == "for_statement").then_some(())?;
        let init = f.child_by_field_name("initializer")?;
        let (_, start) = single_init(init)?;
        (text_of(start, text) == burst).then_some(())?;
        let count = f
            .child_by_field_name("condition")?
            .child_by_field_name("right")?;
        cst::own_lines(text, f)?;
        // The loop that finishes the row, started from 0, must be the copy loop the form came from.
        let tail = cst::splice(
            text_of(f, text),
            start.start_byte() - f.start_byte()..start.end_byte() - f.start_byte(),
            "0",
        );
        return Some(Found {
            span: b0.start_byte()..f.end_byte(),
            way: Way::In,
            elem,
            count: text_of(count, text).into(),
            copies,
            qualified,
            tail: Some(tail),
        });
    }
    // Out: barrier; if (n > 0) { DataCopyPad.. } barrier
    let (copies, n, elem) = bursts(text, root, next, Way::Out)?;
    let cond = next.child_by_field_name("condition")?;
    (text_of(cond, text).split_whitespace().collect::<String>()
        == format!("({}>0)", n.split_whitespace().collect::<String>()))
    .then_some(())?;
    let b1 = *stmts.get(at + 2)?;
    is_full_barrier(b1, text).then_some(())?;
    cst::own_lines(text, b1)?;
    Some(Found {
        span: b0.start_byte()..b1.end_byte(),
        way: Way::Out,
        elem,
        count: n,
        copies,
        qualified,
        tail: None,
    })
}

fn dmas(text: &str, root: Node) -> Vec<Found> {
    let mut out = Vec::new();
    for block in cst::nodes_of_kind(root, "compound_statement") {
        let stmts = cst::statements(block);
        for i in 0..stmts.len() {
            out.extend(dma_at(text, root, &stmts, i));
        }
    }
    out.sort_by_key(|f| f.span.start);
    out
}

fn describe(f: &Found) -> String {
    let names: Vec<&str> = f.copies.iter().map(|c| c.local.as_str()).collect();
    match f.way {
        Way::In => format!(
            "scalar copy of {} elements from GM into {}",
            f.count,
            names.join(", ")
        ),
        Way::Out => format!(
            "scalar copy of {} elements from {} to GM",
            f.count,
            names.join(", ")
        ),
    }
}

impl Motif for GmCopyLoop {
    fn unavailable_on(&self, soc: &crate::model::soc::Soc) -> Option<String> {
        crate::rewrite::motif::needs_data_copy_pad(self.name(), soc)
    }
    fn name(&self) -> &'static str {
        NAME
    }
    fn summary(&self) -> &'static str {
        "scalar GetValue/SetValue loop copying a row between GM and a local tensor -> DataCopyPad bursts \
         between full barriers"
    }
    fn preserves_meaning_when(&self) -> &'static str {
        "checked: the loop runs an integer k from 0 while k < n by ++ (n free of k, no side effects), and \
         its body is only element copies `l.SetValue(A + k, g.GetValue(B + k))` or \
         `g.SetValue(B + k, l.GetValue(A + k))` (A, B optional, free of k; also through a temporary of the \
         element type used once), all in one direction and of one element type, with g declared a \
         `GlobalTensor<E>` and l a `LocalTensor<E>` in the file (every declaration of either name agrees). \
         A tensor copied in is written by no SetValue in the file, and one copied out is read or written \
         by no scalar access outside the loop (DMA bypasses the scalar data cache). Copy in moves only \
         the row's whole 32 B blocks by DMA and keeps the loop for the remainder, so no UB byte after the \
         row is touched; copy out writes exactly n elements to GM. Full barriers before and after the \
         bursts. NOT checked: that l[A] starts on 32 B at run time (the twin faults where it does not, so \
         such a shape fails the trial or a shape probe), and that the copies' destinations do not \
         overlap. Rewind turns the form back into the copy loop; exact with the restore text."
    }
    fn apply_sites(&self, text: &str) -> Vec<Site> {
        let tree = cst::parse(text);
        loops(text, tree.root_node())
            .into_iter()
            .map(|f| Site::new(f.span.clone(), text, describe(&f) + ": DataCopyPad"))
            .collect()
    }
    fn apply(&self, text: &str, site: &Site) -> Result<Edit, MotifError> {
        let tree = cst::parse(text);
        let root = tree.root_node();
        let f = loops(text, root)
            .into_iter()
            .find(|f| f.span == site.range)
            .ok_or_else(|| error(text, site.range.start, "no GM copy loop here"))?;
        // The kernel's own full barriers right before the loop (and, copying out, right after it) are
        // the form's: taken into the replaced range, so the form has one barrier on each side, not two.
        let range = match &site.restore {
            Some(_) => site.range.clone(),
            None => fenced_range(text, root, &f),
        };
        let statements = match &site.restore {
            Some(r) => r.clone(),
            None => {
                let ind = cst::indent_at(text, site.range.start);
                let q = cb::qualifier(f.qualified);
                let e = &f.elem;
                let barrier = format!("{q}PipeBarrier<PIPE_ALL>();");
                match f.way {
                    Way::In => {
                        let burst = cb::fresh_name(root, text, "burst", "");
                        let calls: Vec<String> = f
                            .copies
                            .iter()
                            .map(|c| {
                                format!(
                                    "{ind}    {q}DataCopyPad({}, {}, {q}DataCopyExtParams{{1, \
                                     static_cast<uint32_t>({burst} * sizeof({e})), 0, 0, 0}}, \
                                     {q}DataCopyPadExtParams<{e}>{{false, 0, 0, 0}});",
                                    at(&c.local, &c.local_off),
                                    at(&c.global, &c.global_off)
                                )
                            })
                            .collect();
                        // The for loop as written, started at the burst's end.
                        let loop_text = &text[f.span.clone()];
                        let for_node = root
                            .descendant_for_byte_range(f.span.start, f.span.end)
                            .filter(|n| n.kind() == "for_statement")
                            .ok_or_else(|| error(text, site.range.start, "no for loop here"))?;
                        let init = for_node
                            .child_by_field_name("initializer")
                            .and_then(single_init)
                            .ok_or_else(|| error(text, site.range.start, "no loop start"))?;
                        let zero =
                            init.1.start_byte() - f.span.start..init.1.end_byte() - f.span.start;
                        let tail = cst::splice(loop_text, zero, &burst);
                        format!(
                            "{barrier}\n\
                             {ind}const uint32_t {burst} = {n} / (32 / sizeof({e})) * (32 / sizeof({e}));\n\
                             {ind}if ({burst} > 0) {{\n{}\n{ind}}}\n\
                             {ind}{barrier}\n\
                             {ind}{tail}",
                            calls.join("\n"),
                            n = grouped(&f.count),
                        )
                    }
                    Way::Out => {
                        let n = grouped(&f.count);
                        let calls: Vec<String> = f
                            .copies
                            .iter()
                            .map(|c| {
                                format!(
                                    "{ind}    {q}DataCopyPad({}, {}, {q}DataCopyExtParams{{1, \
                                     static_cast<uint32_t>({n} * sizeof({e})), 0, 0, 0}});",
                                    at(&c.global, &c.global_off),
                                    at(&c.local, &c.local_off)
                                )
                            })
                            .collect();
                        format!(
                            "{barrier}\n{ind}if ({n} > 0) {{\n{}\n{ind}}}\n{ind}{barrier}",
                            calls.join("\n")
                        )
                    }
                }
            }
        };
        let new = cst::splice(text, range.clone(), &statements);
        let inverse = Site::new(
            range.start..range.start + statements.len(),
            &new,
            "DataCopyPad of a row",
        )
        .restoring(text[range].to_string());
        Ok(Edit { text: new, inverse })
    }
    fn rewind_sites(&self, text: &str) -> Vec<Site> {
        let tree = cst::parse(text);
        dmas(text, tree.root_node())
            .into_iter()
            .map(|f| {
                Site::new(
                    f.span.clone(),
                    text,
                    "DataCopyPad of a row: scalar copy loop",
                )
            })
            .collect()
    }
    fn rewind(&self, text: &str, site: &Site) -> Result<Edit, MotifError> {
        let tree = cst::parse(text);
        let root = tree.root_node();
        let f = dmas(text, root)
            .into_iter()
            .find(|f| f.span == site.range)
            .ok_or_else(|| {
                error(
                    text,
                    site.range.start,
                    "no barrier-fenced DataCopyPad of a row here",
                )
            })?;
        let statement = match (&site.restore, &f.tail) {
            (Some(r), _) => r.clone(),
            (None, Some(tail)) => tail.clone(),
            (None, None) => {
                let ind = cst::indent_at(text, site.range.start);
                let node = root
                    .descendant_for_byte_range(f.span.start, f.span.start)
                    .ok_or_else(|| error(text, site.range.start, "not in a function"))?;
                let (func, _) = cst::enclosing_function(node, text)
                    .ok_or_else(|| error(text, site.range.start, "not in a function"))?;
                let k = cb::fresh_name(func, text, "k", "");
                let idx = |o: &Option<String>| match o {
                    Some(o) => format!("{o} + {k}"),
                    None => k.clone(),
                };
                let body: Vec<String> = f
                    .copies
                    .iter()
                    .map(|c| {
                        format!(
                            "{ind}    {}.SetValue({}, {}.GetValue({}));",
                            c.global,
                            idx(&c.global_off),
                            c.local,
                            idx(&c.local_off)
                        )
                    })
                    .collect();
                format!(
                    "for (uint32_t {k} = 0; {k} < {}; {k}++) {{\n{}\n{ind}}}",
                    f.count,
                    body.join("\n")
                )
            }
        };
        let new = cst::splice(text, site.range.clone(), &statement);
        let inverse = Site::new(
            site.range.start..site.range.start + statement.len(),
            &new,
            "scalar GM copy loop",
        )
        .restoring(text[site.range.clone()].to_string());
        Ok(Edit { text: new, inverse })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rewrite::motif::testing::*;

    /// Rows of `d` elements copied in and out one element at a time into rows padded to `dAlign`, the
    /// way contributors' row kernels do it (our own text, in the shape of ops-nn's silu_mul).
    const ROWS: &str = r#"#include "kernel_operator.h"
using namespace AscendC;

template <typename T>
class RowScale {
public:
    __aicore__ inline void CopyIn(int32_t gmOffset, uint32_t rows, uint32_t dAlign, LocalTensor<T>& xPad)
    {
        for (int32_t j = 0; j < rows; j++) {
            int32_t rowOffset = gmOffset + j * d;
            for (int32_t k = 0; k < d; k++) {
                xPad.SetValue(j * dAlign + k, xGm.GetValue(rowOffset + k));
            }
        }
    }
    __aicore__ inline void CopyOut(int32_t gmOffset, uint32_t rows, uint32_t dAlign, LocalTensor<T>& yPad)
    {
        for (int32_t j = 0; j < rows; j++) {
            for (int32_t k = 0; k < d; k++) {
                T val = yPad.GetValue(j * dAlign + k);
                yGm.SetValue(gmOffset + j * d + k, val);
            }
        }
    }

private:
    GlobalTensor<T> xGm;
    GlobalTensor<T> yGm;
    uint32_t d;
};
"#;

    #[test]
    fn row_copies_in_and_out_become_bursts_and_back() {
        let sites = GmCopyLoop.apply_sites(ROWS);
        assert_eq!(sites.len(), 2, "{sites:?}");
        assert_eq!(
            sites[0].what,
            "scalar copy of d elements from GM into xPad: DataCopyPad"
        );
        let copy_in = GmCopyLoop.apply(ROWS, &sites[0]).unwrap();
        assert!(
            copy_in.text.contains(
                "            PipeBarrier<PIPE_ALL>();\n\
                 \x20           const uint32_t burst = d / (32 / sizeof(T)) * (32 / sizeof(T));\n\
                 \x20           if (burst > 0) {\n\
                 \x20               DataCopyPad(xPad[j * dAlign], xGm[rowOffset], DataCopyExtParams{1, static_cast<uint32_t>(burst * sizeof(T)), 0, 0, 0}, DataCopyPadExtParams<T>{false, 0, 0, 0});\n\
                 \x20           }\n\
                 \x20           PipeBarrier<PIPE_ALL>();\n\
                 \x20           for (int32_t k = burst; k < d; k++) {\n\
                 \x20               xPad.SetValue(j * dAlign + k, xGm.GetValue(rowOffset + k));\n"
            ),
            "{}",
            copy_in.text
        );
        let copy_out = GmCopyLoop.apply(ROWS, &sites[1]).unwrap();
        assert!(
            copy_out.text.contains(
                "            PipeBarrier<PIPE_ALL>();\n\
                 \x20           if (d > 0) {\n\
                 \x20               DataCopyPad(yGm[gmOffset + j * d], yPad[j * dAlign], DataCopyExtParams{1, static_cast<uint32_t>(d * sizeof(T)), 0, 0, 0});\n\
                 \x20           }\n\
                 \x20           PipeBarrier<PIPE_ALL>();\n        }\n"
            ),
            "{}",
            copy_out.text
        );
        assert!(!copy_out.text.contains("yGm.SetValue"));
        assert_eq!(round_trips(&GmCopyLoop, ROWS), 2);
        // Without the restore text: the copy in gives back its loop from the tail; the copy out a loop.
        for edit in [&copy_in, &copy_out] {
            assert_eq!(rewinds_round_trip(&GmCopyLoop, &edit.text), 1);
            let canonical = Site {
                restore: None,
                ..edit.inverse.clone()
            };
            let back = GmCopyLoop.rewind(&edit.text, &canonical).unwrap().text;
            assert_eq!(GmCopyLoop.apply_sites(&back).len(), 2, "{back}");
        }
        let canonical_in = Site {
            restore: None,
            ..copy_in.inverse.clone()
        };
        assert_eq!(
            GmCopyLoop
                .rewind(&copy_in.text, &canonical_in)
                .unwrap()
                .text,
            ROWS
        );
        assert!(GmCopyLoop.rewind_sites(ROWS).is_empty());
    }

    #[test]
    fn only_socs_with_data_copy_pad_take_it() {
        let soc = |n| crate::model::soc::lookup(n).unwrap();
        assert_eq!(GmCopyLoop.unavailable_on(soc("Ascend910B1")), None);
        for n in ["Ascend310P3", "Ascend950"] {
            let why = GmCopyLoop.unavailable_on(soc(n)).unwrap();
            assert!(why.contains(n), "{why}");
        }
    }

    #[test]
    fn the_kernels_own_barriers_beside_the_loop_are_the_forms_not_doubled() {
        let fenced = ROWS.replace(
            "        for (int32_t j = 0; j < rows; j++) {\n            for (int32_t k = 0; k < d; k++) {\n                T val",
            "        for (int32_t j = 0; j < rows; j++) {\n            PipeBarrier<PIPE_ALL>();\n            for (int32_t k = 0; k < d; k++) {\n                T val",
        )
        .replace(
            "                yGm.SetValue(gmOffset + j * d + k, val);\n            }\n",
            "                yGm.SetValue(gmOffset + j * d + k, val);\n            }\n            PipeBarrier<PIPE_ALL>();\n",
        );
        assert_eq!(fenced.matches("PipeBarrier").count(), 2);
        let sites = GmCopyLoop.apply_sites(&fenced);
        let out = GmCopyLoop.apply(&fenced, &sites[1]).unwrap();
        assert_eq!(out.text.matches("PipeBarrier").count(), 2, "{}", out.text);
        assert_eq!(round_trips(&GmCopyLoop, &fenced), 2);
        assert_eq!(rewinds_round_trip(&GmCopyLoop, &out.text), 1);
    }

    #[test]
    fn copies_the_cache_or_the_loop_shape_forbid_are_no_site() {
        for (from, to) in [
            // the input is also written by the scalar unit: a DMA read could miss a line in its cache
            (
                "    uint32_t d;\n",
                "    uint32_t d;\n    __aicore__ inline void Mark() { xGm.SetValue(0, 0); }\n",
            ),
            // the output is read back by the scalar unit elsewhere
            (
                "    uint32_t d;\n",
                "    uint32_t d;\n    __aicore__ inline T First() { return yGm.GetValue(0); }\n",
            ),
            // not consecutive elements
            (
                "xGm.GetValue(rowOffset + k)",
                "xGm.GetValue(rowOffset + 2 * k)",
            ),
            (
                "yPad.GetValue(j * dAlign + k)",
                "yPad.GetValue(j * dAlign + k * 2)",
            ),
            // a count the loop changes
            (
                "k < d; k++) {\n                xPad",
                "k < d + k; k++) {\n                xPad",
            ),
            // a conversion, not a copy
            ("GlobalTensor<T> xGm;", "GlobalTensor<half> xGm;"),
            ("T val = yPad", "float val = yPad"),
            // a step other than one
            (
                "k < d; k++) {\n                T val",
                "k < d; k += 2) {\n                T val",
            ),
        ] {
            let text = ROWS.replacen(from, to, 1);
            assert_ne!(text, ROWS, "{from}");
            assert_eq!(GmCopyLoop.apply_sites(&text).len(), 1, "{from} -> {to}");
        }
        // Local to local is vector-copy-loop's, GM to GM no DMA between UB and GM.
        let local = ROWS.replace("GlobalTensor<T> xGm;", "LocalTensor<T> xGm;");
        assert_eq!(GmCopyLoop.apply_sites(&local).len(), 1);
        // A loop that is the body of an `if` without braces has no block to hold the barriers.
        let bare = ROWS.replace(
            "            for (int32_t k = 0; k < d; k++) {\n                T val",
            "            if (rows > 0) for (int32_t k = 0; k < d; k++) {\n                T val",
        );
        assert_eq!(GmCopyLoop.apply_sites(&bare).len(), 1);
    }
}
