//! fuse-leaky-relu: `Muls(t, x, alpha, n)` into a `TBuf` tensor and `Max(y, x, t, n)` become one
//! `LeakyRelu(y, x, alpha, n)`: one vector pass instead of two, and the temporary's buffer leaves the UB.
//! max(x, alpha * x) is the leaky relu only for 0 <= alpha <= 1, so the motif acts only where the file
//! shows that range.

use super::constant_buffer::{self as cb, Fast, Fusion, Pair, SlowArgs};
use crate::rewrite::cst::{self, text_of};
use crate::rewrite::motif::{Edit, Motif, MotifError, Site};
use tree_sitter::Node;

pub struct FuseLeakyRelu;

const NAME: &str = "fuse-leaky-relu";

static FUSION: Fusion = Fusion {
    motif: NAME,
    producer: "Muls",
    consumer: "Max",
    fast: "LeakyRelu",
    stem: "tmp",
    fuse,
    split,
};

/// The variable a scalar expression reads, seen through casts and `this->`: `alpha` in
/// `static_cast<DTYPE_X>(this->alpha)`.
fn scalar_name<'a>(node: Node, text: &'a str) -> Option<&'a str> {
    match node.kind() {
        "identifier" => Some(text_of(node, text)),
        "field_expression" => {
            let object = node.child_by_field_name("argument")?;
            (object.kind() == "this")
                .then(|| node.child_by_field_name("field"))
                .flatten()
                .map(|f| text_of(f, text))
        }
        "parenthesized_expression" => scalar_name(node.named_child(0)?, text),
        "cast_expression" => scalar_name(node.child_by_field_name("value")?, text),
        "call_expression" => {
            let call = cst::Call::of(node)?;
            let args = call.args();
            (call.name(text) == "static_cast" && args.len() == 1)
                .then(|| scalar_name(args[0], text))
                .flatten()
        }
        _ => None,
    }
}

/// Whether a comment of the file states `0 <= name <= 1` (spacing free).
fn documented_unit_range(root: Node, text: &str, name: &str) -> bool {
    let wanted = format!("0<={name}<=1");
    cst::nodes_of_kind(root, "comment").into_iter().any(|c| {
        let squeezed: String = text_of(c, text).split_whitespace().collect();
        squeezed.contains(&wanted)
    })
}

/// Whether `alpha` is known to lie in [0, 1]: a literal there, or a variable whose range a comment of
/// the file states. The variable's name, when it is one.
fn unit_alpha<'a>(root: Node, text: &'a str, alpha: Node) -> Option<Option<&'a str>> {
    if let Some(v) = cb::literal_value(alpha, text) {
        return (0.0..=1.0).contains(&v).then_some(None);
    }
    let name = scalar_name(alpha, text)?;
    documented_unit_range(root, text, name).then_some(Some(name))
}

/// The identifiers and field names of `node`, casts' keywords left out.
fn names_in<'a>(node: Node, text: &'a str) -> Vec<&'a str> {
    let mut out = vec![];
    cst::visit(node, &mut |n| {
        if matches!(n.kind(), "identifier" | "field_identifier")
            && text_of(n, text) != "static_cast"
        {
            out.push(text_of(n, text))
        }
    });
    out
}

/// `Muls(t, x, alpha, n)` + `Max(y, x, t, n)` (either source order): `LeakyRelu(y, x, alpha, n)`.
fn fuse(p: &Pair) -> Option<Vec<String>> {
    let muls = p.producer.args();
    let [_, x, alpha, _] = muls[..] else {
        return None;
    };
    let [out, a, b, n] = p.consumer_args()[..] else {
        return None;
    };
    let x_text = text_of(x, p.text);
    let sources_match = (a == p.scratch && b == x_text) || (b == p.scratch && a == x_text);
    if !sources_match || x_text == p.scratch {
        return None;
    }
    let alpha_name = unit_alpha(p.root, p.text, alpha)?;
    // LeakyRelu reads x and alpha where Max was: nothing between the two calls may touch them.
    let watched: Vec<&str> = names_in(x, p.text).into_iter().chain(alpha_name).collect();
    let touched = p
        .between
        .iter()
        .any(|s| names_in(*s, p.text).iter().any(|n| watched.contains(n)));
    if touched || !pure(alpha, p.text) {
        return None;
    }
    Some(vec![
        out.into(),
        x_text.into(),
        text_of(alpha, p.text).into(),
        n.into(),
    ])
}

/// Whether evaluating `node` twice or later changes nothing: no calls but casts, no assignments.
fn pure(node: Node, text: &str) -> bool {
    let mut ok = true;
    cst::visit(node, &mut |n| match n.kind() {
        "assignment_expression" | "update_expression" => ok = false,
        "call_expression" => {
            ok &= cst::Call::of(n).is_some_and(|c| c.name(text) == "static_cast");
        }
        _ => {}
    });
    ok
}

/// `LeakyRelu(y, x, alpha, n)` with alpha known in [0, 1]: `Muls(t, x, alpha, n)` + `Max(y, x, t, n)`.
fn split(f: &Fast) -> Option<SlowArgs> {
    let [out, x, alpha, n] = f.call.args()[..] else {
        return None;
    };
    unit_alpha(f.root, f.text, alpha)?;
    if !pure(alpha, f.text) {
        return None;
    }
    let [out, x, alpha, n] = [out, x, alpha, n].map(|a| text_of(a, f.text).to_string());
    Some((
        vec![f.scratch.into(), x.clone(), alpha, n.clone()],
        vec![out, x, f.scratch.into(), n],
    ))
}

impl Motif for FuseLeakyRelu {
    fn name(&self) -> &'static str {
        NAME
    }
    fn summary(&self) -> &'static str {
        "Muls by alpha into a TBuf tensor then Max with x -> LeakyRelu: one vector pass, and the temporary's buffer goes"
    }
    fn preserves_meaning_when(&self) -> &'static str {
        "checked: alpha is a literal in [0, 1], or a variable (`alpha`, `this->alpha`, through casts) that \
         a comment of the file states as `0 <= alpha <= 1`: the motif takes that comment on trust and \
         does not prove it (a runtime attribute outside the range would make max(x, alpha * x) differ \
         from the leaky relu for negative x, and output verification rejects the candidate); the \
         temporary is a local taken from a TBuf member by `Get` in the same function and named exactly \
         three times there (declaration, the Muls that writes it, the 4-argument Max that reads it with \
         the Muls' source as the other operand); no statement between the two calls names x or alpha, \
         alpha has no side effect, and both calls give the same count text. Then max(x, alpha * x) \
         equals leaky_relu(x, alpha) element by element. The buffer's member and InitBuffer are removed \
         only when nothing else names the buffer. Rewind asks the same of alpha, and adds a TBuf of n \
         elements of x's type (n must mean the same in Init), which takes UB"
    }
    fn apply_sites(&self, text: &str) -> Vec<Site> {
        cb::apply_sites(&FUSION, text)
    }
    fn apply(&self, text: &str, site: &Site) -> Result<Edit, MotifError> {
        cb::apply(&FUSION, text, site)
    }
    fn rewind_sites(&self, text: &str) -> Vec<Site> {
        cb::rewind_sites(&FUSION, text)
    }
    fn rewind(&self, text: &str, site: &Site) -> Result<Edit, MotifError> {
        cb::rewind(&FUSION, text, site)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rewrite::motif::testing::*;

    fn from_process(k: &str) -> String {
        k[k.find("    __aicore__ inline void Process()").unwrap()..].to_string()
    }

    #[test]
    fn leaky_relu_custom_naive_documents_alpha_and_fuses_to_the_reference() {
        let (naive, reference) = fixture_kernel("leaky_relu_custom");
        let sites = FuseLeakyRelu.apply_sites(&naive);
        assert_eq!(sites.len(), 1, "{sites:?}");
        let edit = FuseLeakyRelu.apply(&naive, &sites[0]).unwrap();
        assert_eq!(from_process(&edit.text), from_process(&reference));
        assert_eq!(round_trips(&FuseLeakyRelu, &naive), 1);
    }

    #[test]
    fn an_undocumented_runtime_alpha_is_no_site_either_way() {
        let (naive, reference) = fixture_kernel("leaky_relu_custom");
        let undocumented = naive.replace("valid for 0 <= alpha <= 1", "valid for small alpha");
        assert!(FuseLeakyRelu.apply_sites(&undocumented).is_empty());
        // The reference's header does not state the range: mining cannot rewind it.
        assert!(FuseLeakyRelu.rewind_sites(&reference).is_empty());
        let documented = reference.replace("(attr alpha).", "(attr alpha, 0 <= alpha <= 1).");
        assert_ne!(documented, reference);
        assert_eq!(rewinds_round_trip(&FuseLeakyRelu, &documented), 1);
    }

    #[test]
    fn literal_alphas_outside_the_unit_range_or_a_changed_x_are_no_site() {
        let (naive, _) = fixture_kernel("leaky_relu_custom");
        let literal = |a: &str| {
            naive.replace(
                "static_cast<DTYPE_X>(this->alpha), this->tileLength",
                &format!("static_cast<DTYPE_X>({a}), this->tileLength"),
            )
        };
        assert_eq!(FuseLeakyRelu.apply_sites(&literal("0.2f")).len(), 1);
        assert!(FuseLeakyRelu.apply_sites(&literal("1.5f")).is_empty());
        assert!(FuseLeakyRelu.apply_sites(&literal("-0.1f")).is_empty());
        let changed = naive.replace(
            "        AscendC::Max(outLocal, in0, tmpLocal, this->tileLength);\n",
            "        AscendC::Abs(in0, in0, this->tileLength);\n        AscendC::Max(outLocal, in0, tmpLocal, this->tileLength);\n",
        );
        assert!(FuseLeakyRelu.apply_sites(&changed).is_empty());
        let other_source = naive.replace(
            "AscendC::Max(outLocal, in0, tmpLocal,",
            "AscendC::Max(outLocal, outLocal, tmpLocal,",
        );
        assert!(FuseLeakyRelu.apply_sites(&other_source).is_empty());
    }
}
