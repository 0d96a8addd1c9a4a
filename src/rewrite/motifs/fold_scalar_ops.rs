//! fold-scalar-ops: two adjacent in-place scalar instructions of one kind on one tensor become one with
//! the folded constant (`Adds(t, t, -1); Adds(t, t, 1)` -> `Adds(t, t, 0)`, `Muls(t, t, 2); Muls(t, t, 0.5)`
//! -> `Muls(t, t, 1)`), and an in-place identity (`Adds(t, t, 0)`, `Muls(t, t, 1)`) right after an
//! instruction that wrote t goes: formulas transcribed term by term leave such chains (see the naive
//! gelu kernel). Rewind splits an in-place scalar instruction into itself and an identity, or puts an
//! identity after an in-place vector instruction.

use super::constant_buffer as cb;
use super::drop_queue_barrier::statement_call;
use crate::rewrite::cst::{self, Call};
use crate::rewrite::motif::{Edit, Motif, MotifError, Site};
use tree_sitter::Node;

pub struct FoldScalarOps;

const NAME: &str = "fold-scalar-ops";

impl Motif for FoldScalarOps {
    fn name(&self) -> &'static str {
        NAME
    }
    fn summary(&self) -> &'static str {
        "adjacent in-place Adds/Adds or Muls/Muls on one tensor fold into one; an in-place identity goes"
    }
    fn preserves_meaning_when(&self) -> &'static str {
        "both instructions write and read the same tensor over the same count, their scalars are numeric \
         literals and nothing runs between them; (x + a) + b and x + (a + b), (x * a) * b and x * (a * b) \
         differ only in rounding (outputs are verified within the per-dtype tolerance). An identity is \
         removed only right after another instruction wrote the same tensor over the same count, so no \
         value it would have rounded or converted passes through it"
    }
    fn apply_sites(&self, text: &str) -> Vec<Site> {
        let tree = cst::parse(text);
        let mut out = vec![];
        for s in scalar_ops(tree.root_node(), text) {
            // Pairs: this instruction and the next statement, of the same kind on the same tensor.
            if let Some(next) = next_statement(s.stmt)
                .and_then(|n| scalar_op(n, text))
                .filter(|n| n.op == s.op && n.tensor == s.tensor && n.count == s.count)
                && let (Some(a), Some(b)) = (
                    cst::own_lines(text, s.stmt),
                    cst::own_lines(text, next.stmt),
                )
                && a.end == b.start
            {
                out.push(Site::new(
                    a.start..b.end,
                    text,
                    format!(
                        "{}({}, {}) twice: fold the scalars",
                        s.op, s.tensor, s.value_text
                    ),
                ));
            }
            // Identities right after an instruction that wrote the same tensor over the same count.
            if s.value == identity(s.op)
                && let Some(prev) = prev_statement(s.stmt)
                && writes(prev, text, &s.tensor, &s.count)
                && let (Some(p), Some(me)) =
                    (cst::own_lines(text, prev), cst::own_lines(text, s.stmt))
                && p.end == me.start
            {
                out.push(Site::new(
                    me,
                    text,
                    format!("{}({}, identity): drop it", s.op, s.tensor),
                ));
            }
        }
        out.sort_by_key(|s| s.range.start);
        out
    }
    fn apply(&self, text: &str, site: &Site) -> Result<Edit, MotifError> {
        let err = |why: &str| MotifError {
            motif: NAME,
            line: site.line,
            why: why.to_string(),
        };
        let old = text
            .get(site.range.clone())
            .ok_or_else(|| err("the site is outside the text"))?;
        let tree = cst::parse(text);
        let ops: Vec<ScalarOp> = scalar_ops(tree.root_node(), text)
            .into_iter()
            .filter(|s| {
                site.range.start <= s.stmt.start_byte() && s.stmt.end_byte() <= site.range.end
            })
            .collect();
        match ops.as_slice() {
            [a, b] => {
                let value = if a.op == "Adds" {
                    a.value + b.value
                } else {
                    a.value * b.value
                };
                let line = render(text, a, &literal(value, &a.value_text));
                let new = cst::splice(text, site.range.clone(), &line);
                let inverse = Site::new(
                    site.range.start..site.range.start + line.len(),
                    &new,
                    site.what.clone(),
                )
                .restoring(old);
                Ok(Edit { text: new, inverse })
            }
            [a] if a.value == identity(a.op) => {
                let new = cst::splice(text, site.range.clone(), "");
                let inverse =
                    Site::new(site.range.start..site.range.start, &new, site.what.clone())
                        .restoring(old);
                Ok(Edit { text: new, inverse })
            }
            _ => Err(err(
                "expected two foldable scalar instructions or an identity here",
            )),
        }
    }
    fn rewind_sites(&self, text: &str) -> Vec<Site> {
        let tree = cst::parse(text);
        let root = tree.root_node();
        let mut out = vec![];
        for s in scalar_ops(root, text) {
            if let Some(r) = cst::own_lines(text, s.stmt) {
                out.push(Site::new(
                    r,
                    text,
                    format!(
                        "{}({}, {}): split off an identity",
                        s.op, s.tensor, s.value_text
                    ),
                ));
            }
        }
        for (stmt, tensor, _, _) in vector_writes(root, text) {
            if let Some(r) = cst::own_lines(text, stmt) {
                out.push(Site::new(
                    r.end..r.end,
                    text,
                    format!("after the write of {tensor}: an identity"),
                ));
            }
        }
        out.sort_by_key(|s| (s.range.start, s.range.end));
        out
    }
    fn rewind(&self, text: &str, site: &Site) -> Result<Edit, MotifError> {
        let err = |why: &str| MotifError {
            motif: NAME,
            line: site.line,
            why: why.to_string(),
        };
        let tree = cst::parse(text);
        let root = tree.root_node();
        // The new text, and where in it the inverse (an apply site) lies, relative to the site's start.
        let (new_text, inverse_at) = if let Some(restore) = &site.restore {
            (restore.clone(), 0)
        } else if site.range.is_empty() {
            // After an in-place vector write: an identity multiply on what it wrote.
            let (stmt, tensor, count, ty) = vector_writes(root, text)
                .into_iter()
                .find(|(stmt, _, _, _)| {
                    cst::own_lines(text, *stmt).is_some_and(|r| r.end == site.range.start)
                })
                .ok_or_else(|| err("no vector instruction ends here"))?;
            let call = statement_call(stmt)
                .and_then(Call::of)
                .ok_or_else(|| err("not a call"))?;
            let line = identity_line(
                text,
                stmt,
                call.qualified(text),
                "Muls",
                &tensor,
                &count,
                &one_of(&ty),
            );
            (line, 0)
        } else {
            // Split off an identity of the same kind; removing it (an apply site) gives the text back.
            let s = scalar_ops(root, text)
                .into_iter()
                .find(|s| cst::own_lines(text, s.stmt) == Some(site.range.clone()))
                .ok_or_else(|| err("no in-place scalar instruction here"))?;
            let id = if s.op == "Adds" { "0.0f" } else { "1.0f" };
            let own = &text[site.range.clone()];
            let line = identity_line(text, s.stmt, s.qualified, s.op, &s.tensor, &s.count, id);
            (format!("{own}{line}"), own.len())
        };
        let new = cst::splice(text, site.range.clone(), &new_text);
        let start = site.range.start;
        let inverse = Site::new(
            start + inverse_at..start + new_text.len(),
            &new,
            site.what.clone(),
        );
        Ok(Edit { text: new, inverse })
    }
}

/// An in-place scalar instruction: `Adds(t, t, c, n)` or `Muls(t, t, c, n)` with a numeric literal c.
struct ScalarOp<'t> {
    stmt: Node<'t>,
    op: &'static str,
    tensor: String,
    count: String,
    value: f64,
    value_text: String,
    qualified: bool,
}

fn scalar_op<'t>(stmt: Node<'t>, text: &str) -> Option<ScalarOp<'t>> {
    let call = Call::of(statement_call(stmt)?)?;
    let op = match call.name(text) {
        "Adds" => "Adds",
        "Muls" => "Muls",
        _ => return None,
    };
    if call.template_args(text).is_some() {
        return None;
    }
    let args = call.arg_texts(text);
    let [dst, src, value, count] = args.as_slice() else {
        return None;
    };
    if dst != src {
        return None;
    }
    Some(ScalarOp {
        stmt,
        op,
        tensor: dst.to_string(),
        count: count.to_string(),
        value: parse_literal(value)?,
        value_text: value.to_string(),
        qualified: call.qualified(text),
    })
}

fn scalar_ops<'t>(root: Node<'t>, text: &str) -> Vec<ScalarOp<'t>> {
    cst::nodes_of_kind(root, "expression_statement")
        .into_iter()
        .filter_map(|s| scalar_op(s, text))
        .collect()
}

/// Element-wise vector instructions and their arity: `Op(dst, a, b, count)` or `Op(dst, a, count)`.
const ELEMENTWISE: &[(&str, usize)] = &[
    ("Add", 4),
    ("Sub", 4),
    ("Mul", 4),
    ("Div", 4),
    ("Max", 4),
    ("Min", 4),
    ("Adds", 4),
    ("Muls", 4),
    ("Maxs", 4),
    ("Mins", 4),
    ("Exp", 3),
    ("Ln", 3),
    ("Abs", 3),
    ("Reciprocal", 3),
    ("Sqrt", 3),
    ("Relu", 3),
];

/// The statement as an element-wise write of a LocalTensor declared in its function: (destination,
/// count, element type). Identities are only put after or removed after such writes, where
/// `Muls(t, t, 1, n)` (the one cast to the element type) covers exactly what was written.
fn elementwise_write(stmt: Node, text: &str) -> Option<(String, String, String)> {
    let call = Call::of(statement_call(stmt)?)?;
    let name = call.name(text);
    let arity = ELEMENTWISE.iter().find(|(n, _)| *n == name)?.1;
    let args = call.arg_texts(text);
    if call.template_args(text).is_some() || args.len() != arity {
        return None;
    }
    let dst = args[0];
    if !dst.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_') {
        return None;
    }
    let (func, _) = cst::enclosing_function(stmt, text)?;
    let ty = cb::local_tensor_type(func, text, dst)?;
    Some((dst.to_string(), args[arity - 1].to_string(), ty.to_string()))
}

/// Every element-wise write: (statement, destination, count, element type).
fn vector_writes<'t>(root: Node<'t>, text: &str) -> Vec<(Node<'t>, String, String, String)> {
    cst::nodes_of_kind(root, "expression_statement")
        .into_iter()
        .filter_map(|stmt| elementwise_write(stmt, text).map(|(t, n, ty)| (stmt, t, n, ty)))
        .collect()
}

fn writes(stmt: Node, text: &str, tensor: &str, count: &str) -> bool {
    elementwise_write(stmt, text).is_some_and(|(t, n, _)| t == tensor && n == count)
}

/// The literal one of element type `ty`, as a kernel writes it.
fn one_of(ty: &str) -> String {
    if ty == "float" {
        "1.0f".to_string()
    } else {
        format!("static_cast<{ty}>(1.0f)")
    }
}

fn next_statement(stmt: Node) -> Option<Node> {
    let mut n = stmt.next_named_sibling();
    while let Some(x) = n {
        if x.kind() != "comment" {
            return Some(x);
        }
        n = x.next_named_sibling();
    }
    None
}

fn prev_statement(stmt: Node) -> Option<Node> {
    let mut n = stmt.prev_named_sibling();
    while let Some(x) = n {
        if x.kind() != "comment" {
            return Some(x);
        }
        n = x.prev_named_sibling();
    }
    None
}

fn identity(op: &str) -> f64 {
    if op == "Adds" { 0.0 } else { 1.0 }
}

/// A C++ floating or integer literal, with an optional sign and `f` suffix.
fn parse_literal(s: &str) -> Option<f64> {
    let mut t = s.trim();
    if let Some(rest) = t.strip_prefix("static_cast<") {
        let open = rest.find(">(")?;
        t = rest[open + 2..].strip_suffix(')')?.trim();
    }
    let (sign, t) = match t.strip_prefix('-') {
        Some(rest) => (-1.0, rest.trim()),
        None => (1.0, t),
    };
    let t = t.trim_end_matches(['f', 'F']);
    if t.is_empty()
        || !t.bytes().all(|b| {
            b.is_ascii_digit() || b == b'.' || b == b'e' || b == b'E' || b == b'-' || b == b'+'
        })
    {
        return None;
    }
    t.parse::<f64>().ok().map(|v| sign * v)
}

/// `value` written as the file writes its literals (with an `f` suffix when the original has one).
fn literal(value: f64, like: &str) -> String {
    if let Some(rest) = like.trim().strip_prefix("static_cast<")
        && let Some(close) = rest.find(">(")
    {
        let inner = rest[close + 2..].trim_end_matches(')');
        return format!("static_cast<{}>({})", &rest[..close], literal(value, inner));
    }
    let suffix = if like.trim_end().ends_with(['f', 'F']) {
        "f"
    } else {
        ""
    };
    let v = value as f32;
    let body = if v.fract() == 0.0 && v.abs() < 1e7 {
        format!("{v:.1}")
    } else {
        format!("{v}")
    };
    format!("{body}{suffix}")
}

/// The line of `a` with its scalar replaced (its trailing comment dropped: it described the old term).
fn render(text: &str, a: &ScalarOp, value: &str) -> String {
    let indent = cst::indent_at(text, a.stmt.start_byte());
    let q = if a.qualified { "AscendC::" } else { "" };
    format!(
        "{indent}{q}{}({}, {}, {value}, {});\n",
        a.op, a.tensor, a.tensor, a.count
    )
}

fn identity_line(
    text: &str,
    at: Node,
    qualified: bool,
    op: &str,
    tensor: &str,
    count: &str,
    id: &str,
) -> String {
    let indent = cst::indent_at(text, at.start_byte());
    let q = if qualified { "AscendC::" } else { "" };
    format!("{indent}{q}{op}({tensor}, {tensor}, {id}, {count});\n")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rewrite::Direction;
    use crate::rewrite::motif::edit_all;
    use crate::rewrite::motif::testing::*;

    #[test]
    fn folds_the_gelu_tail_to_nothing_and_back() {
        let (naive, _) = fixture_kernel("gelu_custom");
        let sites = FoldScalarOps.apply_sites(&naive);
        assert_eq!(sites.len(), 1, "{sites:?}");
        assert!(
            sites[0].what.starts_with("Adds(outLocal"),
            "{}",
            sites[0].what
        );
        let (all, n) = edit_all(&FoldScalarOps, &naive, Direction::Apply)
            .unwrap()
            .unwrap();
        // -1 + 1 folds to an identity that goes; then 2 * 0.5 folds and goes too.
        assert_eq!(n, 4, "{all}");
        assert!(
            !all.contains("-1.0f") && !all.contains("0.5f") && !all.contains("outLocal, 2.0f"),
            "{all}"
        );
        assert!(all.contains("AscendC::Adds(outLocal, outLocal, 1.0f, this->tileLength);\n"));
        assert_eq!(round_trips(&FoldScalarOps, &naive), 1);
    }

    #[test]
    fn leaves_different_tensors_counts_and_non_literals_alone() {
        for k in [
            "void f() {\n    Adds(a, a, 1.0f, n);\n    Adds(b, b, 1.0f, n);\n}\n",
            "void f() {\n    Adds(a, a, 1.0f, n);\n    Adds(a, a, 1.0f, m);\n}\n",
            "void f() {\n    Adds(a, a, x, n);\n    Adds(a, a, 1.0f, n);\n}\n",
            "void f() {\n    Adds(a, a, 1.0f, n);\n    Muls(a, a, 2.0f, n);\n}\n",
            "void f() {\n    Adds(a, b, 0.0f, n);\n}\n",
        ] {
            assert!(FoldScalarOps.apply_sites(k).is_empty(), "{k}");
        }
        let decl = "void f() {\n    AscendC::LocalTensor<half> a = buf.Get<half>();\n";
        let ok = format!(
            "{decl}    Mul(a, a, b, n);\n    Muls(a, a, static_cast<half>(1.0f), n);\n}}\n"
        );
        assert_eq!(FoldScalarOps.apply_sites(&ok).len(), 1);
        assert_eq!(round_trips(&FoldScalarOps, &ok), 1);
        // Without a declaration the element type is unknown: no identity is offered.
        assert!(
            FoldScalarOps
                .apply_sites("void f() {\n    Mul(a, a, b, n);\n    Muls(a, a, 1.0f, n);\n}\n")
                .is_empty()
        );
        // Rewinding puts a well-typed identity after the write, and applying takes it away again.
        let one = format!("{decl}    Mul(a, a, b, n);\n}}\n");
        assert_eq!(rewinds_round_trip(&FoldScalarOps, &one), 1);
        let site = &FoldScalarOps.rewind_sites(&one)[0];
        let slow = FoldScalarOps.rewind(&one, site).unwrap().text;
        assert!(
            slow.contains("    Muls(a, a, static_cast<half>(1.0f), n);\n"),
            "{slow}"
        );
    }
}
