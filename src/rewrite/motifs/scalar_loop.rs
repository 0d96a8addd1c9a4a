//! vector-fill-loop and vector-cast-loop: the two one-statement scalar loops the public kernels write
//! most often over a whole local tensor from element 0, each turned into one vector instruction fenced
//! by full barriers.
//!
//! - fill: `for (T i = 0; i < n; ++i) { t.SetValue(i, v); }` with v free of i becomes
//!   `Duplicate(t, static_cast<E>(v), n)` (asc-devkit docs, Duplicate, count form: the first n elements
//!   of dst take the scalar; dst 32 B aligned, which a tensor from element 0 is).
//! - cast: `for (T i = 0; i < n; ++i) { d.SetValue(i, static_cast<D>(s.GetValue(i))); }` (or without
//!   the cast) between a `LocalTensor<half>` / `<bfloat16_t>` and a `LocalTensor<float>` becomes
//!   `Cast(d, s, RoundMode::CAST_NONE, n)` (asc-devkit docs, Cast: CAST_NONE rounds to nearest even
//!   when the conversion loses precision and is exact when it does not, as the scalar conversion is).
//!
//! Moving the work from the scalar unit to the vector unit needs synchronisation the scalar loop did
//! not: whoever wrote the source (MTE2, the scalar unit, another vector op) must be done before the
//! vector op reads it, and whoever reads the result afterwards (GetValue on the scalar unit, a copy on
//! MTE3) must wait for it. The fast form therefore is `PipeBarrier<PIPE_ALL>(); <op>; PipeBarrier<PIPE_ALL>();`,
//! which is enough whatever the producers and consumers are (narrow-barrier may narrow it later).
//! The twin runs the program in order and does not detect a missing flag, so the barriers are the
//! motif's duty, not something the shape probes would catch.
//!
//! Rewinding turns exactly that three-statement form back into the loop. The module owns the loop
//! shapes and both forms; it knows nothing of measuring or the bank.

use super::constant_buffer as cb;
use super::vector_reduce::single_init;
use crate::rewrite::cst::{self, Call, text_of};
use crate::rewrite::motif::{Edit, Motif, MotifError, Site};
use std::ops::Range;
use tree_sitter::Node;

pub struct VectorFillLoop;
pub struct VectorCastLoop;

#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Fill,
    Cast,
}

impl Kind {
    fn name(self) -> &'static str {
        match self {
            Kind::Fill => "vector-fill-loop",
            Kind::Cast => "vector-cast-loop",
        }
    }
    fn api(self) -> &'static str {
        match self {
            Kind::Fill => "Duplicate",
            Kind::Cast => "Cast",
        }
    }
}

/// Element types Duplicate's count form takes (asc-devkit docs, Duplicate: half, bfloat16_t, int16_t,
/// uint16_t, int32_t, uint32_t, float). bfloat16_t is left out: not every Atlas product has it.
const FILL_ELEMS: &[&str] = &[
    "half", "float", "int16_t", "uint16_t", "int32_t", "uint32_t",
];

/// Whether Duplicate takes tensors of `elem`: one of FILL_ELEMS, or a type the op build names after
/// the OpDef (`DTYPE_Z`: ops-nn's experimental soft_plus_v2 fills `LocalTensor<DTYPE_Z>` element by
/// element), which is one of the OpDef's dtypes for the SoC it is built for, each a type the SoC's
/// Duplicate takes.
fn fill_elem(elem: &str) -> bool {
    FILL_ELEMS.contains(&elem)
        || elem.strip_prefix("DTYPE_").is_some_and(|rest| {
            !rest.is_empty()
                && rest
                    .chars()
                    .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
        })
}

/// (destination, source) element types whose Cast with CAST_NONE gives what the scalar conversion
/// gives: widening to float is exact; float to half rounds to nearest even in both.
const CAST_PAIRS: &[(&str, &str)] = &[
    ("float", "half"),
    ("float", "bfloat16_t"),
    ("half", "float"),
];

/// One site, in either form.
struct Found<'t> {
    /// The bytes replaced: the `for` statement, or the barrier-op-barrier statements.
    span: Range<usize>,
    anchor: Node<'t>,
    dst: String,
    /// fill: the value; cast: the source tensor.
    operand: String,
    elem: String,
    count: String,
    qualified: bool,
}

fn error(kind: Kind, text: &str, at: usize, why: &str) -> MotifError {
    MotifError {
        motif: kind.name(),
        line: cst::line_of(text, at),
        why: why.into(),
    }
}

/// `t.Method(...)` with t a plain identifier: the call and t.
fn method_on<'t, 'a>(node: Node<'t>, text: &'a str, method: &str) -> Option<(Call<'t>, &'a str)> {
    let call = Call::of(node)?;
    (call.name(text) == method
        && call.function.kind() == "field_expression"
        && call.function.child_by_field_name("argument")?.kind() == "identifier")
        .then_some(())?;
    Some((call, call.receiver(text)?))
}

/// A value the loop cannot change and whose evaluation has no effect: literals, names, members,
/// `-x`, casts and parentheses of those, and `std::numeric_limits<T>::...()`.
pub(super) fn pure_value(node: Node, text: &str) -> bool {
    match node.kind() {
        "number_literal" | "identifier" | "true" | "false" => true,
        "field_expression" => node
            .child_by_field_name("argument")
            .is_some_and(|a| a.kind() == "this" || pure_value(a, text)),
        "parenthesized_expression" => node.named_child(0).is_some_and(|n| pure_value(n, text)),
        "unary_expression" => {
            node.child_by_field_name("operator")
                .is_some_and(|o| matches!(text_of(o, text), "-" | "+"))
                && node
                    .child_by_field_name("argument")
                    .is_some_and(|a| pure_value(a, text))
        }
        "cast_expression" => node
            .child_by_field_name("value")
            .is_some_and(|v| pure_value(v, text)),
        "call_expression" => {
            let Some(call) = Call::of(node) else {
                return false;
            };
            let args = call.args();
            match call.name(text) {
                "static_cast" => args.len() == 1 && pure_value(args[0], text),
                _ => {
                    text_of(call.function, text).starts_with("std::numeric_limits<")
                        && args.is_empty()
                }
            }
        }
        _ => false,
    }
}

/// `v` as a value of element type `elem` for Duplicate, whose scalar parameter has the tensor's type:
/// as written when it visibly has that type already (`static_cast<E>(..)`, `std::numeric_limits<E>`,
/// a float literal `1.0f` for float), else `static_cast<E>(v)`, the conversion SetValue made.
fn typed_value(elem: &str, v: &str) -> String {
    let bare = v.trim_start_matches('-');
    let float_literal = elem == "float"
        && bare.ends_with(['f', 'F'])
        && bare[..bare.len() - 1].parse::<f64>().is_ok();
    if bare.starts_with(&format!("static_cast<{elem}>("))
        || bare.starts_with(&format!("std::numeric_limits<{elem}>::"))
        || float_literal
    {
        v.to_string()
    } else {
        format!("static_cast<{elem}>({v})")
    }
}

/// `for (T i = <start>; i < n; ++i | i++) <body>` with i declared in the loop and n a pure value free
/// of i: (i, start, n, body).
pub(super) fn counting_loop<'t, 'a>(
    text: &'a str,
    f: Node<'t>,
) -> Option<(&'a str, Node<'t>, Node<'t>, Node<'t>)> {
    let init = f.child_by_field_name("initializer")?;
    (init.kind() == "declaration").then_some(())?;
    let (ivar, start) = single_init(init)?;
    let i = (ivar.kind() == "identifier").then(|| text_of(ivar, text))?;
    let cond = f.child_by_field_name("condition")?;
    (cond.kind() == "binary_expression"
        && text_of(cond.child_by_field_name("operator")?, text) == "<"
        && text_of(cond.child_by_field_name("left")?, text) == i)
        .then_some(())?;
    let count = cond.child_by_field_name("right")?;
    (!cst::identifiers_in(count, text).contains(&i) && pure_value(count, text)).then_some(())?;
    let update = f.child_by_field_name("update")?;
    (update.kind() == "update_expression" && text_of(update, text).replace(i, "").trim() == "++")
        .then_some(())?;
    Some((i, start, count, f.child_by_field_name("body")?))
}

/// `for (T i = 0; i < n; ++i | i++) { stmt; }` (or a bare `stmt;` body) with i declared in the loop
/// and n free of i: (i, n, stmt).
fn simple_loop<'t, 'a>(text: &'a str, f: Node<'t>) -> Option<(&'a str, Node<'t>, Node<'t>)> {
    let (i, i0, count, body) = counting_loop(text, f)?;
    (cb::literal_value(i0, text)? == 0.0 && text_of(i0, text).trim() == "0").then_some(())?;
    let stmt = match body.kind() {
        "compound_statement" => match cst::statements(body)[..] {
            [s] => s,
            _ => return None,
        },
        _ => body,
    };
    (stmt.kind() == "expression_statement").then_some(())?;
    Some((i, count, stmt.named_child(0)?))
}

fn is_index(node: Node, text: &str, i: &str) -> bool {
    node.kind() == "identifier" && text_of(node, text) == i
}

/// The loop form of `kind` at `f`.
fn loop_at<'t>(kind: Kind, text: &str, f: Node<'t>) -> Option<Found<'t>> {
    let (i, count, expr) = simple_loop(text, f)?;
    let (set, dst) = method_on(expr, text, "SetValue")?;
    let [index, value] = set.args()[..] else {
        return None;
    };
    is_index(index, text, i).then_some(())?;
    let (func, _) = cst::enclosing_function(f, text)?;
    let elem = cb::local_tensor_type(func, text, dst)?;
    let operand = match kind {
        Kind::Fill => {
            fill_elem(elem).then_some(())?;
            (pure_value(value, text)
                && !cst::identifiers_in(value, text)
                    .iter()
                    .any(|n| *n == i || *n == dst))
            .then_some(())?;
            typed_value(elem, text_of(value, text))
        }
        Kind::Cast => {
            // `static_cast<D>(s.GetValue(i))` with D the destination's type, or `s.GetValue(i)`.
            let get = match Call::of(value) {
                Some(c) if c.name(text) == "static_cast" => {
                    (c.template_args(text)? == elem).then_some(())?;
                    let [inner] = c.args()[..] else { return None };
                    inner
                }
                _ => value,
            };
            let (get, src) = method_on(get, text, "GetValue")?;
            let [sindex] = get.args()[..] else {
                return None;
            };
            is_index(sindex, text, i).then_some(())?;
            let selem = cb::local_tensor_type(func, text, src)?;
            (src != dst && CAST_PAIRS.contains(&(elem, selem))).then_some(())?;
            src.to_string()
        }
    };
    cst::own_lines(text, f)?;
    Some(Found {
        span: f.byte_range(),
        anchor: f,
        dst: dst.into(),
        operand,
        elem: elem.into(),
        count: text_of(count, text).into(),
        qualified: text.contains("AscendC::"),
    })
}

/// Whether `stmt` is `PipeBarrier<PIPE_ALL>();`.
pub(super) fn is_full_barrier(stmt: Node, text: &str) -> bool {
    stmt.kind() == "expression_statement"
        && stmt.named_child(0).and_then(Call::of).is_some_and(|c| {
            c.name(text) == "PipeBarrier"
                && c.template_args(text) == Some("PIPE_ALL")
                && c.args().is_empty()
        })
}

/// The vector form of `kind` whose op is `call`: `PipeBarrier<PIPE_ALL>(); op; PipeBarrier<PIPE_ALL>();`
/// with the same type checks as the loop.
fn vector_at<'t>(kind: Kind, text: &str, call: Call<'t>) -> Option<Found<'t>> {
    let stmt = cb::block_statement(text, &call)?;
    call.template_args(text).is_none().then_some(())?;
    let block = stmt.parent()?;
    let stmts = cst::statements(block);
    let at = stmts.iter().position(|s| *s == stmt)?;
    let before = *stmts.get(at.checked_sub(1)?)?;
    let after = *stmts.get(at + 1)?;
    (is_full_barrier(before, text) && is_full_barrier(after, text)).then_some(())?;
    cst::own_lines(text, before)?;
    cst::own_lines(text, after)?;
    let (func, _) = cst::enclosing_function(stmt, text)?;
    let args = call.args();
    let plain = |n: Node| (n.kind() == "identifier").then(|| text_of(n, text));
    let (dst, operand, count) = match (kind, &args[..]) {
        (Kind::Fill, [d, v, n]) => {
            let d = plain(*d)?;
            let elem = cb::local_tensor_type(func, text, d)?;
            fill_elem(elem).then_some(())?;
            pure_value(*v, text).then_some(())?;
            (d, text_of(*v, text).to_string(), *n)
        }
        (Kind::Cast, [d, s, mode, n]) => {
            let (d, s) = (plain(*d)?, plain(*s)?);
            (text_of(*mode, text).trim_start_matches("AscendC::") == "RoundMode::CAST_NONE")
                .then_some(())?;
            let pair = (
                cb::local_tensor_type(func, text, d)?,
                cb::local_tensor_type(func, text, s)?,
            );
            (d != s && CAST_PAIRS.contains(&pair)).then_some(())?;
            (d, s.to_string(), *n)
        }
        _ => return None,
    };
    let i = cst::identifiers_in(count, text);
    (pure_value(count, text) && !i.contains(&dst)).then_some(())?;
    Some(Found {
        span: before.start_byte()..after.end_byte(),
        anchor: before,
        dst: dst.into(),
        operand,
        elem: cb::local_tensor_type(func, text, dst)?.into(),
        count: text_of(count, text).into(),
        qualified: call.qualified(text),
    })
}

fn loops<'t>(kind: Kind, text: &str, root: Node<'t>) -> Vec<Found<'t>> {
    cst::nodes_of_kind(root, "for_statement")
        .into_iter()
        .filter_map(|f| loop_at(kind, text, f))
        .collect()
}

fn vectors<'t>(kind: Kind, text: &str, root: Node<'t>) -> Vec<Found<'t>> {
    cst::calls_named(root, text, kind.api())
        .into_iter()
        .filter_map(|c| vector_at(kind, text, c))
        .collect()
}

fn apply_sites(kind: Kind, text: &str) -> Vec<Site> {
    let tree = cst::parse(text);
    loops(kind, text, tree.root_node())
        .into_iter()
        .map(|f| {
            let what = match kind {
                Kind::Fill => format!("scalar fill of {} with {}: Duplicate", f.dst, f.operand),
                Kind::Cast => format!("scalar conversion of {} into {}: Cast", f.operand, f.dst),
            };
            Site::new(f.span, text, what)
        })
        .collect()
}

fn apply(kind: Kind, text: &str, site: &Site) -> Result<Edit, MotifError> {
    let tree = cst::parse(text);
    let f = loops(kind, text, tree.root_node())
        .into_iter()
        .find(|f| f.span == site.range)
        .ok_or_else(|| {
            error(
                kind,
                text,
                site.range.start,
                "no scalar loop of this shape here",
            )
        })?;
    let statements = match &site.restore {
        Some(r) => r.clone(),
        None => {
            let ind = cst::indent_at(text, site.range.start);
            let q = cb::qualifier(f.qualified);
            let op = match kind {
                Kind::Fill => format!("{q}Duplicate({}, {}, {});", f.dst, f.operand, f.count),
                Kind::Cast => format!(
                    "{q}Cast({}, {}, {q}RoundMode::CAST_NONE, {});",
                    f.dst, f.operand, f.count
                ),
            };
            format!("{q}PipeBarrier<PIPE_ALL>();\n{ind}{op}\n{ind}{q}PipeBarrier<PIPE_ALL>();")
        }
    };
    let new = cst::splice(text, site.range.clone(), &statements);
    let inverse = Site::new(
        site.range.start..site.range.start + statements.len(),
        &new,
        format!("{} of {}", kind.api(), f.dst),
    )
    .restoring(text[site.range.clone()].to_string());
    Ok(Edit { text: new, inverse })
}

fn rewind_sites(kind: Kind, text: &str) -> Vec<Site> {
    let tree = cst::parse(text);
    vectors(kind, text, tree.root_node())
        .into_iter()
        .map(|f| {
            Site::new(
                f.span,
                text,
                format!("{} of {}: scalar loop", kind.api(), f.dst),
            )
        })
        .collect()
}

fn rewind(kind: Kind, text: &str, site: &Site) -> Result<Edit, MotifError> {
    let tree = cst::parse(text);
    let f = vectors(kind, text, tree.root_node())
        .into_iter()
        .find(|f| f.span == site.range)
        .ok_or_else(|| {
            error(
                kind,
                text,
                site.range.start,
                &format!("no barrier-fenced {} here", kind.api()),
            )
        })?;
    let statement = match &site.restore {
        Some(r) => r.clone(),
        None => {
            let ind = cst::indent_at(text, site.range.start);
            let (func, _) = cst::enclosing_function(f.anchor, text)
                .ok_or_else(|| error(kind, text, site.range.start, "not in a function"))?;
            let i = cb::fresh_name(func, text, "i", "");
            let body = match kind {
                Kind::Fill => format!("{}.SetValue({i}, {});", f.dst, f.operand),
                Kind::Cast => format!(
                    "{}.SetValue({i}, static_cast<{}>({}.GetValue({i})));",
                    f.dst, f.elem, f.operand
                ),
            };
            format!(
                "for (uint32_t {i} = 0; {i} < {n}; {i}++) {{\n{ind}    {body}\n{ind}}}",
                n = f.count
            )
        }
    };
    let new = cst::splice(text, site.range.clone(), &statement);
    let inverse = Site::new(
        site.range.start..site.range.start + statement.len(),
        &new,
        "scalar loop",
    )
    .restoring(text[site.range.clone()].to_string());
    Ok(Edit { text: new, inverse })
}

impl Motif for VectorFillLoop {
    fn name(&self) -> &'static str {
        Kind::Fill.name()
    }
    fn summary(&self) -> &'static str {
        "scalar SetValue loop filling a local tensor with one value -> Duplicate between full barriers"
    }
    fn preserves_meaning_when(&self) -> &'static str {
        "checked: the loop declares an integer i = 0, runs while i < n by ++ (n a name, member or \
         literal free of i) and its body is only `t.SetValue(i, v)`, with t a `LocalTensor<E>` declared \
         in the function, E one of half, float, int16_t, uint16_t, int32_t, uint32_t, and v a literal, \
         name, member, `std::numeric_limits` call or a cast of those, free of i and t: so the loop \
         writes v converted to E into t[0..n) and nothing else, with no dependence between iterations. \
         Duplicate(t, static_cast<E>(v), n) writes the same n elements (count form: any n; t starts a \
         tensor, so it is 32 B aligned). The full barriers before and after order the vector write \
         after every earlier access of t on any pipe and before every later one. NOT checked: that n \
         fits the tensor (the loop wrote those elements too). Rewind turns such a fenced Duplicate \
         back into the loop"
    }
    fn apply_sites(&self, text: &str) -> Vec<Site> {
        apply_sites(Kind::Fill, text)
    }
    fn apply(&self, text: &str, site: &Site) -> Result<Edit, MotifError> {
        apply(Kind::Fill, text, site)
    }
    fn rewind_sites(&self, text: &str) -> Vec<Site> {
        rewind_sites(Kind::Fill, text)
    }
    fn rewind(&self, text: &str, site: &Site) -> Result<Edit, MotifError> {
        rewind(Kind::Fill, text, site)
    }
}

impl Motif for VectorCastLoop {
    fn name(&self) -> &'static str {
        Kind::Cast.name()
    }
    fn summary(&self) -> &'static str {
        "scalar SetValue(static_cast(GetValue)) loop converting half/bfloat16 <-> float -> Cast between full barriers"
    }
    fn preserves_meaning_when(&self) -> &'static str {
        "checked: the loop declares an integer i = 0, runs while i < n by ++ (n free of i) and its \
         body is only `d.SetValue(i, static_cast<D>(s.GetValue(i)))` (or without the cast), with d a \
         `LocalTensor<D>` and s a different `LocalTensor<S>` of the function and (D, S) one of \
         (float, half), (float, bfloat16_t), (half, float): each element is converted once, in order, \
         with no dependence between iterations. Cast with CAST_NONE is exact for the widenings and \
         rounds to nearest even for float -> half, as the scalar conversion does. The full barriers \
         before and after order the vector op after whatever wrote s (MTE2, scalar or vector) and \
         before whatever reads d. NOT checked: that d and s are views of distinct buffers (distinct \
         names only). Rewind turns such a fenced Cast back into the loop"
    }
    fn apply_sites(&self, text: &str) -> Vec<Site> {
        apply_sites(Kind::Cast, text)
    }
    fn apply(&self, text: &str, site: &Site) -> Result<Edit, MotifError> {
        apply(Kind::Cast, text, site)
    }
    fn rewind_sites(&self, text: &str) -> Vec<Site> {
        rewind_sites(Kind::Cast, text)
    }
    fn rewind(&self, text: &str, site: &Site) -> Result<Edit, MotifError> {
        rewind(Kind::Cast, text, site)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rewrite::motif::testing::*;

    /// A kernel of our own with both loop shapes (and near misses).
    const KERNEL: &str = r#"#include "kernel_operator.h"
class KernelLoops {
public:
    __aicore__ inline void Compute(uint32_t n)
    {
        AscendC::LocalTensor<float> acc = accBuf.Get<float>();
        AscendC::LocalTensor<half> xLocal = inQueueX.DeQue<half>();
        AscendC::LocalTensor<float> xFloat = tmpBuf.Get<float>();
        for (uint32_t c = 0; c < this->cols; ++c) {
            acc.SetValue(c, std::numeric_limits<float>::infinity());
        }
        for (int64_t i = 0; i < n; i++) {
            xFloat.SetValue(i, static_cast<float>(xLocal.GetValue(i)));
        }
        for (uint32_t i = 0; i < n; ++i) {
            acc.SetValue(i, acc.GetValue(i) + xFloat.GetValue(i));
        }
    }
};
"#;

    #[test]
    fn a_fill_loop_becomes_a_fenced_duplicate_and_back() {
        let sites = VectorFillLoop.apply_sites(KERNEL);
        assert_eq!(sites.len(), 1, "{sites:?}");
        let edit = VectorFillLoop.apply(KERNEL, &sites[0]).unwrap();
        assert!(
            edit.text.contains(
                "        AscendC::PipeBarrier<PIPE_ALL>();\n\
                 \x20       AscendC::Duplicate(acc, std::numeric_limits<float>::infinity(), this->cols);\n\
                 \x20       AscendC::PipeBarrier<PIPE_ALL>();\n\
                 \x20       for (int64_t i = 0; i < n; i++) {"
            ),
            "{}",
            edit.text
        );
        assert_eq!(round_trips(&VectorFillLoop, KERNEL), 1);
        // The canonical loop (no restore text) writes the same elements.
        let canonical = Site {
            restore: None,
            ..edit.inverse.clone()
        };
        let back = VectorFillLoop.rewind(&edit.text, &canonical).unwrap().text;
        assert!(
            back.contains(
                "        for (uint32_t i2 = 0; i2 < this->cols; i2++) {\n\
             \x20           acc.SetValue(i2, std::numeric_limits<float>::infinity());\n\
             \x20       }\n"
            ),
            "{back}"
        );
        assert_eq!(rewinds_round_trip(&VectorFillLoop, &edit.text), 1);
        assert!(VectorFillLoop.rewind_sites(KERNEL).is_empty());
    }

    #[test]
    fn a_conversion_loop_becomes_a_fenced_cast_and_back() {
        let sites = VectorCastLoop.apply_sites(KERNEL);
        assert_eq!(sites.len(), 1, "{sites:?}");
        let edit = VectorCastLoop.apply(KERNEL, &sites[0]).unwrap();
        assert!(
            edit.text.contains(
                "        AscendC::PipeBarrier<PIPE_ALL>();\n\
                 \x20       AscendC::Cast(xFloat, xLocal, AscendC::RoundMode::CAST_NONE, n);\n\
                 \x20       AscendC::PipeBarrier<PIPE_ALL>();\n"
            ),
            "{}",
            edit.text
        );
        assert_eq!(round_trips(&VectorCastLoop, KERNEL), 1);
        let canonical = Site {
            restore: None,
            ..edit.inverse.clone()
        };
        let back = VectorCastLoop.rewind(&edit.text, &canonical).unwrap().text;
        assert!(
            back.contains(
                "        for (uint32_t i2 = 0; i2 < n; i2++) {\n\
             \x20           xFloat.SetValue(i2, static_cast<float>(xLocal.GetValue(i2)));\n\
             \x20       }\n"
            ),
            "{back}"
        );
        assert_eq!(rewinds_round_trip(&VectorCastLoop, &edit.text), 1);
        // A cast without its barriers is no rewind site: the loop form needs none, the vector one does.
        let unfenced = edit
            .text
            .replacen("        AscendC::PipeBarrier<PIPE_ALL>();\n", "", 1);
        assert!(VectorCastLoop.rewind_sites(&unfenced).is_empty());
    }

    /// Found in the seed-47 tuning run: ops-nn's experimental soft_plus_v2 fills a
    /// `LocalTensor<DTYPE_Z>` with 1.0 element by element (606 us modelled, 99.9% on the scalar pipe);
    /// the motif took only named element types.
    #[test]
    fn a_fill_loop_over_a_build_dtype_tensor_is_a_site() {
        let kernel = KERNEL.replace(
            "        for (int64_t i = 0; i < n; i++) {",
            "        AscendC::LocalTensor<DTYPE_Z> yLocal = outQueueZ.AllocTensor<DTYPE_Z>();\n        for (uint32_t k = 0; k < this->tileLength; ++k) {\n            yLocal.SetValue(k, static_cast<DTYPE_Z>(1.0f));\n        }\n        for (int64_t i = 0; i < n; i++) {",
        );
        let sites = VectorFillLoop.apply_sites(&kernel);
        assert_eq!(sites.len(), 2, "{sites:?}");
        let edit = VectorFillLoop.apply(&kernel, &sites[1]).unwrap();
        assert!(
            edit.text.contains(
                "AscendC::Duplicate(yLocal, static_cast<DTYPE_Z>(1.0f), this->tileLength);"
            ),
            "{}",
            edit.text
        );
        assert_eq!(round_trips(&VectorFillLoop, &kernel), 2);
        assert!(
            fill_elem("DTYPE_X1")
                && !fill_elem("DTYPE_")
                && !fill_elem("T")
                && !fill_elem("DTYPE_x")
        );
    }

    #[test]
    fn a_fill_value_is_cast_to_the_element_type_unless_it_visibly_has_it() {
        assert_eq!(typed_value("float", "1.0f"), "1.0f");
        assert_eq!(typed_value("float", "-0.5f"), "-0.5f");
        assert_eq!(typed_value("float", "0"), "static_cast<float>(0)");
        assert_eq!(typed_value("half", "1.0f"), "static_cast<half>(1.0f)");
        assert_eq!(typed_value("int32_t", "-1"), "static_cast<int32_t>(-1)");
        assert_eq!(
            typed_value("float", "-std::numeric_limits<float>::infinity()"),
            "-std::numeric_limits<float>::infinity()"
        );
        assert_eq!(
            typed_value("half", "static_cast<half>(x)"),
            "static_cast<half>(x)"
        );
    }

    #[test]
    fn loops_that_are_not_a_plain_fill_or_conversion_are_no_site() {
        for (from, to) in [
            // not from element 0
            (
                "uint32_t c = 0; c < this->cols",
                "uint32_t c = 1; c < this->cols",
            ),
            // a value that depends on the index (an iota, not a fill)
            (
                "acc.SetValue(c, std::numeric_limits<float>::infinity())",
                "acc.SetValue(c, c)",
            ),
            // an offset index
            (
                "acc.SetValue(c, std::numeric_limits<float>::infinity())",
                "acc.SetValue(c + 1, 0.0f)",
            ),
            // a value read from a tensor (not a constant)
            (
                "acc.SetValue(c, std::numeric_limits<float>::infinity())",
                "acc.SetValue(c, xFloat.GetValue(0))",
            ),
            // a second statement in the body
            (
                "acc.SetValue(c, std::numeric_limits<float>::infinity());",
                "acc.SetValue(c, 0.0f);\n            n++;",
            ),
            // a loop variable declared outside (still live after the loop)
            (
                "for (uint32_t c = 0; c <",
                "uint32_t c;\n        for (c = 0; c <",
            ),
            // step 2
            ("c < this->cols; ++c", "c < this->cols; c += 2"),
        ] {
            let k = KERNEL.replace(from, to);
            assert_ne!(k, KERNEL, "{from}");
            assert!(VectorFillLoop.apply_sites(&k).is_empty(), "{to}");
        }
        for (from, to) in [
            // same types: a copy, vector-copy-loop's (it needs alignment evidence), not a Cast
            (
                "LocalTensor<half> xLocal = inQueueX.DeQue<half>()",
                "LocalTensor<float> xLocal = inQueueX.DeQue<float>()",
            ),
            // a templated element type: which Cast is meant is unknown
            (
                "LocalTensor<half> xLocal = inQueueX.DeQue<half>()",
                "LocalTensor<T> xLocal = inQueueX.DeQue<T>()",
            ),
            // int to float: rounding of large ints differs by mode; not taken
            (
                "LocalTensor<half> xLocal = inQueueX.DeQue<half>()",
                "LocalTensor<int32_t> xLocal = inQueueX.DeQue<int32_t>()",
            ),
            // the cast names another type than the destination's
            ("static_cast<float>(xLocal", "static_cast<half>(xLocal"),
            // different indices on the two sides
            ("xLocal.GetValue(i)", "xLocal.GetValue(i + 1)"),
            // arithmetic on the way
            (
                "static_cast<float>(xLocal.GetValue(i))",
                "static_cast<float>(xLocal.GetValue(i)) * 2.0f",
            ),
        ] {
            let k = KERNEL.replace(from, to);
            assert_ne!(k, KERNEL, "{from}");
            assert!(VectorCastLoop.apply_sites(&k).is_empty(), "{to}");
        }
    }
}
