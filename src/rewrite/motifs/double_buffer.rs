//! double-buffer: a queue depth constant of 1 becomes 2, so the copy-in of one tile overlaps the vector
//! work on the previous one and the copy-out of the one before (the TPipe double-buffering idiom).

use crate::rewrite::cst::{self, text_of};
use crate::rewrite::motif::{Edit, Motif, MotifError, Site};
use tree_sitter::Node;

pub struct DoubleBuffer;

const NAME: &str = "double-buffer";

impl Motif for DoubleBuffer {
    fn name(&self) -> &'static str {
        NAME
    }
    fn summary(&self) -> &'static str {
        "queue depth constant 1 -> 2: copies of the next tile overlap compute on this one"
    }
    fn preserves_meaning_when(&self) -> &'static str {
        "the constant is an integer `constexpr`/`const` or `#define` used as the depth of TQue queues (template \
         argument or InitBuffer count) and nowhere in arithmetic; every tensor is allocated, enqueued, dequeued \
         and freed once per tile, so a deeper queue only lets tiles overlap. The queues then take twice the UB: \
         the host re-tune resizes the tile to fit"
    }
    fn apply_sites(&self, text: &str) -> Vec<Site> {
        depth_constants(text, 1)
    }
    fn apply(&self, text: &str, site: &Site) -> Result<Edit, MotifError> {
        set_depth(text, site, "1", "2")
    }
    fn rewind_sites(&self, text: &str) -> Vec<Site> {
        depth_constants(text, 2)
    }
    fn rewind(&self, text: &str, site: &Site) -> Result<Edit, MotifError> {
        set_depth(text, site, "2", "1")
    }
    fn reshapes_tiles(&self) -> bool {
        true
    }
    fn unlocks(&self) -> &'static [&'static str] {
        &["wait-previous-copy-out"]
    }
}

fn set_depth(text: &str, site: &Site, from: &str, to: &str) -> Result<Edit, MotifError> {
    if text.get(site.range.clone()) != Some(from) {
        return Err(MotifError {
            motif: NAME,
            line: site.line,
            why: format!("expected the literal {from} here"),
        });
    }
    let new = cst::splice(text, site.range.clone(), to);
    let inverse = Site::new(
        site.range.start..site.range.start + to.len(),
        &new,
        site.what.clone(),
    );
    Ok(Edit { text: new, inverse })
}

/// Literals of constants holding `value` that are used as queue depths (and only that way).
fn depth_constants(text: &str, value: i64) -> Vec<Site> {
    let tree = cst::parse(text);
    let root = tree.root_node();
    let mut out = vec![];
    for (name, literal) in integer_constants(root, text) {
        if text[literal.clone()] != value.to_string() {
            continue;
        }
        let queues = depth_uses(root, text, &name);
        if queues > 0 && !used_in_arithmetic(root, text, &name) {
            out.push(Site::new(
                literal,
                text,
                format!("{name} = {value}: the depth of {queues} queue(s)"),
            ));
        }
    }
    out
}

/// (name, literal range) of `constexpr`/`const` integer variables and object-like `#define`s whose value
/// is a plain decimal literal.
fn integer_constants(root: Node, text: &str) -> Vec<(String, std::ops::Range<usize>)> {
    let mut out = vec![];
    cst::visit(root, &mut |n| match n.kind() {
        "init_declarator" => {
            let (Some(d), Some(v)) = (
                n.child_by_field_name("declarator"),
                n.child_by_field_name("value"),
            ) else {
                return;
            };
            let is_const = n.parent().is_some_and(|p| {
                let mut c = p.walk();
                p.children(&mut c).any(|ch| {
                    ch.kind() == "type_qualifier"
                        && matches!(text_of(ch, text), "const" | "constexpr")
                })
            });
            if d.kind() == "identifier" && v.kind() == "number_literal" && is_const {
                out.push((text_of(d, text).to_string(), v.byte_range()));
            }
        }
        "preproc_def" => {
            let (Some(d), Some(v)) = (
                n.child_by_field_name("name"),
                n.child_by_field_name("value"),
            ) else {
                return;
            };
            // The value of a #define is raw text (preproc_arg): take the literal inside it by offset.
            let raw = text_of(v, text);
            let lit = raw.trim();
            if !lit.is_empty() && lit.bytes().all(|b| b.is_ascii_digit()) {
                let start = v.start_byte() + raw.find(lit).unwrap_or(0);
                out.push((text_of(d, text).to_string(), start..start + lit.len()));
            }
        }
        _ => {}
    });
    out
}

/// How many queues take `name` as their depth: `TQue<POS, name>` template arguments and
/// `InitBuffer(queue, name, bytes)` counts.
fn depth_uses(root: Node, text: &str, name: &str) -> usize {
    let mut n = 0;
    cst::visit(root, &mut |node| {
        if node.kind() == "template_type" {
            let is_tque = node
                .child_by_field_name("name")
                .is_some_and(|t| text_of(t, text) == "TQue");
            let args = node.child_by_field_name("arguments");
            if is_tque
                && args.is_some_and(|a| {
                    let mut c = a.walk();
                    a.named_children(&mut c)
                        .nth(1)
                        .is_some_and(|d| text_of(d, text) == name)
                })
            {
                n += 1;
            }
        }
    });
    if n == 0 {
        n = cst::calls_named(root, text, "InitBuffer")
            .iter()
            .filter(|c| c.arg_texts(text).get(1) == Some(&name))
            .count();
    }
    n
}

/// Whether `name` appears anywhere but as a queue depth, its own definition, or the split form of the
/// CANN samples (a length divided by the depth, a count multiplied by it), where the tiles and loop
/// trips follow the depth and still cover the same elements.
fn used_in_arithmetic(root: Node, text: &str, name: &str) -> bool {
    let mut found = false;
    cst::visit(root, &mut |n| {
        if found || n.kind() != "identifier" || text_of(n, text) != name {
            return;
        }
        let Some(parent) = n.parent() else { return };
        let ok = match parent.kind() {
            "init_declarator" | "preproc_def" => true,
            "binary_expression" => match parent
                .child_by_field_name("operator")
                .map(|o| text_of(o, text))
            {
                Some("*") => true,
                Some("/") => parent.child_by_field_name("right") == Some(n),
                _ => false,
            },
            "type_descriptor" | "template_argument_list" => true,
            "argument_list" => parent
                .parent()
                .and_then(cst::Call::of)
                .is_some_and(|c| c.name(text) == "InitBuffer"),
            _ => false,
        };
        found = !ok;
    });
    found
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rewrite::motif::testing::*;

    #[test]
    fn deepens_the_queues_of_add_custom_and_back() {
        let (naive, reference) = fixture_kernel("add_custom");
        let sites = DoubleBuffer.apply_sites(&naive);
        assert_eq!(sites.len(), 1, "{sites:?}");
        assert!(
            sites[0].what.starts_with("BUFFER_NUM = 1"),
            "{}",
            sites[0].what
        );
        let edit = DoubleBuffer.apply(&naive, &sites[0]).unwrap();
        // The reference differs from the naive kernel only in its header comment and this constant.
        let code = |k: &str| k[k.find("#include").unwrap()..].to_string();
        assert_eq!(code(&edit.text), code(&reference));
        assert_eq!(round_trips(&DoubleBuffer, &naive), 1);
        assert_eq!(rewinds_round_trip(&DoubleBuffer, &reference), 1);
    }

    #[test]
    fn leaves_constants_used_in_arithmetic_alone() {
        let k = "constexpr int32_t BUFFER_NUM = 1;\nAscendC::TQue<AscendC::QuePosition::VECIN, BUFFER_NUM> q;\nvoid f() { pipe.InitBuffer(q, BUFFER_NUM, n - BUFFER_NUM); }\n";
        assert!(DoubleBuffer.apply_sites(k).is_empty());
        let define =
            "#define BUFFER_NUM 1\nAscendC::TQue<AscendC::QuePosition::VECIN, BUFFER_NUM> q;\n";
        assert_eq!(DoubleBuffer.apply_sites(define).len(), 1);
    }
}
