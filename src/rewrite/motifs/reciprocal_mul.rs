//! reciprocal-mul: a division whose divisor is also its destination, `Div(d, a, d, n)` (silu's
//! x / (1 + exp(-x)) computed in place), becomes `Reciprocal(d, d, n); Mul(d, a, d, n)`: the model
//! charges Div 4 cycles per repeat and Reciprocal + Mul 1 + 2, so the pair wins once the call has more
//! repeats than the second instruction's fixed and issue cost (about 32 repeats, 2048 floats; the
//! tuner's measurement decides). A `PipeBarrier<PIPE_V>()` goes between the two when the file orders
//! dependent vector calls that way. Rewinding gives the Div back.

use super::constant_buffer as cb;
use super::reciprocal_from_div_ones::ReciprocalFromDivOnes;
use crate::rewrite::cst::{self, Call, text_of};
use crate::rewrite::motif::{Edit, Motif, MotifError, Site};
use std::ops::Range;
use tree_sitter::Node;

pub struct ReciprocalMul;

const NAME: &str = "reciprocal-mul";

fn error(text: &str, at: usize, why: &str) -> MotifError {
    MotifError {
        motif: NAME,
        line: cst::line_of(text, at),
        why: why.into(),
    }
}

/// The tensor an operand names: `t` or `t[...]`.
fn tensor_of<'a>(node: Node, text: &'a str) -> Option<&'a str> {
    match node.kind() {
        "identifier" => Some(text_of(node, text)),
        "subscript_expression" => {
            let arr = node.child_by_field_name("argument")?;
            (arr.kind() == "identifier").then(|| text_of(arr, text))
        }
        _ => None,
    }
}

/// One division, in either form.
struct Division {
    /// The `Div` statement, or the `Reciprocal` .. `Mul` statements.
    span: Range<usize>,
    dst: String,
    dividend: String,
    count: String,
    qualified: bool,
}

/// `d`, `a`, `n` of a call `f(d, a, d, n)` (or with `swap`, `f(d, d, a, n)`) whose destination is a
/// float or half local tensor and whose `a` is another expression.
fn in_place(call: &Call, text: &str, swap: bool) -> Option<(String, String, String)> {
    call.template_args(text).is_none().then_some(())?;
    let [d, x, y, n] = call.args()[..] else {
        return None;
    };
    let (a, same) = if swap { (y, x) } else { (x, y) };
    let dst = text_of(d, text);
    (text_of(same, text) == dst && text_of(a, text) != dst).then_some(())?;
    let (func, _) = cst::enclosing_function(call.node, text)?;
    let elem = cb::local_tensor_type(func, text, tensor_of(d, text)?)?;
    matches!(elem, "float" | "half").then_some(())?;
    Some((dst.into(), text_of(a, text).into(), text_of(n, text).into()))
}

fn divisions(text: &str, root: Node) -> Vec<Division> {
    // A Div by a tensor of ones is reciprocal-from-div-ones' site: a Reciprocal alone does it.
    let ones: Vec<Range<usize>> = ReciprocalFromDivOnes
        .apply_sites(text)
        .into_iter()
        .map(|s| s.range)
        .collect();
    cst::calls_named(root, text, "Div")
        .into_iter()
        .filter_map(|c| {
            let stmt = cb::block_statement(text, &c)?;
            let (dst, dividend, count) = in_place(&c, text, false)?;
            (!ones.contains(&stmt.byte_range())).then_some(())?;
            Some(Division {
                span: stmt.byte_range(),
                dst,
                dividend,
                count,
                qualified: c.qualified(text),
            })
        })
        .collect()
}

fn is_vector_barrier(stmt: Node, text: &str) -> bool {
    stmt.kind() == "expression_statement"
        && stmt.named_child(0).and_then(Call::of).is_some_and(|c| {
            c.name(text) == "PipeBarrier"
                && c.template_args(text) == Some("PIPE_V")
                && c.args().is_empty()
        })
}

/// `Reciprocal(d, d, n);` then (after at most a `PipeBarrier<PIPE_V>()`) `Mul(d, a, d, n);` or
/// `Mul(d, d, a, n);`.
fn pairs(text: &str, root: Node) -> Vec<Division> {
    cst::calls_named(root, text, "Reciprocal")
        .into_iter()
        .filter_map(|r| {
            let first = cb::block_statement(text, &r)?;
            r.template_args(text).is_none().then_some(())?;
            let [d, x, n] = r.args()[..] else {
                return None;
            };
            let dst = text_of(d, text);
            (text_of(x, text) == dst).then_some(())?;
            let stmts = cst::statements(first.parent()?);
            let at = stmts.iter().position(|s| *s == first)?;
            let mut next = *stmts.get(at + 1)?;
            if is_vector_barrier(next, text) {
                next = *stmts.get(at + 2)?;
            }
            (next.kind() == "expression_statement").then_some(())?;
            let mul = Call::of(next.named_child(0)?)?;
            (mul.name(text) == "Mul" && cst::own_lines(text, next).is_some()).then_some(())?;
            let (mdst, dividend, count) =
                in_place(&mul, text, false).or_else(|| in_place(&mul, text, true))?;
            (mdst == dst && count == text_of(n, text)).then_some(())?;
            Some(Division {
                span: first.start_byte()..next.end_byte(),
                dst: dst.into(),
                dividend,
                count,
                qualified: r.qualified(text),
            })
        })
        .collect()
}

fn uses_vector_barriers(text: &str, root: Node) -> bool {
    cst::calls_named(root, text, "PipeBarrier")
        .iter()
        .any(|c| c.template_args(text) == Some("PIPE_V"))
}

impl ReciprocalMul {
    fn rewound(&self, text: &str, site: &Site) -> Result<Edit, MotifError> {
        let tree = cst::parse(text);
        let p = pairs(text, tree.root_node())
            .into_iter()
            .find(|p| p.span == site.range)
            .ok_or_else(|| error(text, site.range.start, "no Reciprocal and Mul pair here"))?;
        let statement = match &site.restore {
            Some(r) => r.clone(),
            None => format!(
                "{}Div({d}, {a}, {d}, {n});",
                cb::qualifier(p.qualified),
                d = p.dst,
                a = p.dividend,
                n = p.count
            ),
        };
        let new = cst::splice(text, site.range.clone(), &statement);
        let inverse = Site::new(
            site.range.start..site.range.start + statement.len(),
            &new,
            "in-place Div",
        )
        .restoring(text[site.range.clone()].to_string());
        Ok(Edit { text: new, inverse })
    }
}

impl Motif for ReciprocalMul {
    fn name(&self) -> &'static str {
        NAME
    }
    fn summary(&self) -> &'static str {
        "Div(d, a, d, n) -> Reciprocal(d, d, n) and Mul(d, a, d, n): two cheap vector passes instead of a slow division"
    }
    fn preserves_meaning_when(&self) -> &'static str {
        "checked: a 4-argument `Div(d, a, d, n)` statement (no template arguments) whose destination is \
         also its divisor, with a a different expression and d a `LocalTensor<float>` or \
         `LocalTensor<half>` of the function (or an element offset of one). Then a / d = a * (1 / d) \
         up to rounding: the division rounds once, the pair twice, so outputs may differ by about an ulp \
         of the type (verified within the dtype's tolerance); zeros, infinities and NaN give the same \
         special values. Writing d in place is safe: Reciprocal reads each element before writing it, \
         and the Mul reads a and the reciprocals in d. A `PipeBarrier<PIPE_V>()` goes between the two \
         when the file has any PIPE_V barrier. NOT checked: that n is large enough for the pair to be \
         faster (the model's break-even is about 32 repeats); a Div that reciprocal-from-div-ones can \
         fuse (a is a tensor of ones) is left to that motif. Rewind turns `Reciprocal(d, d, n)` followed \
         (after at most a PIPE_V barrier) by `Mul(d, a, d, n)` or `Mul(d, d, a, n)` back into the Div"
    }
    fn apply_sites(&self, text: &str) -> Vec<Site> {
        let tree = cst::parse(text);
        divisions(text, tree.root_node())
            .into_iter()
            .map(|d| {
                Site::new(
                    d.span,
                    text,
                    format!("{} / {} in place: Reciprocal and Mul", d.dividend, d.dst),
                )
            })
            .collect()
    }
    fn apply(&self, text: &str, site: &Site) -> Result<Edit, MotifError> {
        let tree = cst::parse(text);
        let root = tree.root_node();
        let d = divisions(text, root)
            .into_iter()
            .find(|d| d.span == site.range)
            .ok_or_else(|| error(text, site.range.start, "no in-place Div here"))?;
        let statements = match &site.restore {
            Some(r) => r.clone(),
            None => {
                let q = cb::qualifier(d.qualified);
                let ind = cst::indent_at(text, site.range.start);
                let barrier = if uses_vector_barriers(text, root) {
                    format!("{q}PipeBarrier<PIPE_V>();\n{ind}")
                } else {
                    String::new()
                };
                format!(
                    "{q}Reciprocal({x}, {x}, {n});\n{ind}{barrier}{q}Mul({x}, {a}, {x}, {n});",
                    x = d.dst,
                    a = d.dividend,
                    n = d.count
                )
            }
        };
        let new = cst::splice(text, site.range.clone(), &statements);
        let inverse = Site::new(
            site.range.start..site.range.start + statements.len(),
            &new,
            "Reciprocal and Mul",
        )
        .restoring(text[site.range.clone()].to_string());
        Ok(Edit { text: new, inverse })
    }
    fn rewind_sites(&self, text: &str) -> Vec<Site> {
        let tree = cst::parse(text);
        pairs(text, tree.root_node())
            .into_iter()
            .map(|p| {
                Site::new(
                    p.span,
                    text,
                    format!("Reciprocal of {} and Mul by {}: Div", p.dst, p.dividend),
                )
            })
            // Only where the Div it gives is one `apply` takes (not a division of ones).
            .filter(|s| {
                self.rewound(text, s).is_ok_and(|e| {
                    self.apply_sites(&e.text)
                        .iter()
                        .any(|a| a.range == e.inverse.range)
                })
            })
            .collect()
    }
    fn rewind(&self, text: &str, site: &Site) -> Result<Edit, MotifError> {
        self.rewound(text, site)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rewrite::motif::testing::*;

    #[test]
    fn silu_division_becomes_the_references_reciprocal_and_mul() {
        let (naive, reference) = fixture_kernel("silu_custom");
        let sites = ReciprocalMul.apply_sites(&naive);
        assert_eq!(sites.len(), 1, "{sites:?}");
        let edit = ReciprocalMul.apply(&naive, &sites[0]).unwrap();
        let fast = "        AscendC::Reciprocal(tmpLocal, tmpLocal, this->tileLength);\n\
                    \x20       AscendC::Mul(tmpLocal, xfLocal, tmpLocal, this->tileLength);\n";
        assert!(edit.text.contains(fast), "{}", edit.text);
        assert!(reference.contains(fast));
        assert_eq!(round_trips(&ReciprocalMul, &naive), 1);
        // Mining rewinds the reference's pair to the naive Div.
        let back = ReciprocalMul.rewind_sites(&reference);
        assert_eq!(back.len(), 1);
        let div = ReciprocalMul.rewind(&reference, &back[0]).unwrap();
        assert!(
            div.text
                .contains("        AscendC::Div(tmpLocal, xfLocal, tmpLocal, this->tileLength);\n")
        );
        assert_eq!(rewinds_round_trip(&ReciprocalMul, &reference), 1);
    }

    #[test]
    fn a_file_with_vector_barriers_gets_one_between() {
        let (naive, _) = fixture_kernel("swiglu_custom");
        let k = naive.replace(
            "AscendC::PipeBarrier<PIPE_ALL>();\n        AscendC::Div(",
            "AscendC::PipeBarrier<PIPE_V>();\n        AscendC::Div(",
        );
        assert_ne!(k, naive);
        let sites = ReciprocalMul.apply_sites(&k);
        assert_eq!(sites.len(), 1);
        let edit = ReciprocalMul.apply(&k, &sites[0]).unwrap();
        assert!(
            edit.text.contains(
                "        AscendC::Reciprocal(tmp, tmp, this->tileLength);\n\
                 \x20       AscendC::PipeBarrier<PIPE_V>();\n\
                 \x20       AscendC::Mul(tmp, aLocal, tmp, this->tileLength);\n"
            ),
            "{}",
            edit.text
        );
        assert_eq!(round_trips(&ReciprocalMul, &k), 1);
    }

    #[test]
    fn divisions_that_are_not_in_place_or_are_by_ones_are_no_site() {
        // div_custom divides into a third tensor.
        let (div, _) = fixture_kernel("div_custom");
        assert!(ReciprocalMul.apply_sites(&div).is_empty());
        // gelu divides a tensor of ones: reciprocal-from-div-ones' site.
        let (gelu, _) = fixture_kernel("gelu_custom");
        assert!(!ReciprocalFromDivOnes.apply_sites(&gelu).is_empty());
        assert!(ReciprocalMul.apply_sites(&gelu).is_empty());
        let (silu, _) = fixture_kernel("silu_custom");
        for (from, to) in [
            (
                "Div(tmpLocal, xfLocal, tmpLocal,",
                "Div(tmpLocal, tmpLocal, xfLocal,",
            ),
            (
                "Div(tmpLocal, xfLocal, tmpLocal,",
                "Div(tmpLocal, tmpLocal, tmpLocal,",
            ),
        ] {
            let k = silu.replace(from, to);
            assert_ne!(k, silu);
            assert!(ReciprocalMul.apply_sites(&k).is_empty(), "{to}");
        }
    }
}
