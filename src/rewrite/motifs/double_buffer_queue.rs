//! double-buffer-queue: a queue declared with a literal depth of 1 (`TQue<QuePosition::VECIN, 1> q;`)
//! and given one buffer by every `InitBuffer(q, 1, len)` gets two (`TQue<..., 2>`, `InitBuffer(q, 2,
//! len)`), so the copy-in of one tile overlaps the vector work on the previous one. The named-constant
//! form (`BUFFER_NUM = 1`) is `double-buffer`'s. Twice the buffers take twice the UB: where the tiling
//! plans the tile from the UB the platform reports, the host companion `ub-split-double-buffer` halves
//! that plan in the same step.

use crate::rewrite::cst::{self, text_of};
use crate::rewrite::motif::{Edit, Motif, MotifError, Site};
use std::ops::Range;
use tree_sitter::Node;

pub struct DoubleBufferQueue;

const NAME: &str = "double-buffer-queue";

impl Motif for DoubleBufferQueue {
    fn name(&self) -> &'static str {
        NAME
    }
    fn summary(&self) -> &'static str {
        "literal queue depth 1 -> 2 (TQue<pos, 1> and its InitBuffer count): copies overlap compute"
    }
    fn preserves_meaning_when(&self) -> &'static str {
        "every queue the declaration names gets its buffers only from `InitBuffer(q, 1, len)` calls with a \
         literal count, so the depth and the count change together; a tensor is allocated, enqueued, \
         dequeued and freed once per tile, so a second buffer only lets tiles overlap. The buffers take \
         twice the UB: the host companion halves the tiling's UB plan, and a kernel that no longer fits \
         fails its trial"
    }
    fn apply_sites(&self, text: &str) -> Vec<Site> {
        depth_sites(text, "1")
    }
    fn apply(&self, text: &str, site: &Site) -> Result<Edit, MotifError> {
        set_depth(text, site, "1", "2")
    }
    fn rewind_sites(&self, text: &str) -> Vec<Site> {
        depth_sites(text, "2")
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
    fn host_companion(&self) -> Option<&'static str> {
        Some(super::ub_split_double_buffer::NAME)
    }
}

/// One queue declaration of literal depth `value` and the literals that set it: the template
/// argument and the count of every `InitBuffer` of the queues it declares.
struct Decl {
    names: Vec<String>,
    literals: Vec<Range<usize>>,
}

impl Decl {
    fn span(&self) -> Range<usize> {
        let start = self.literals.iter().map(|r| r.start).min().unwrap_or(0);
        let end = self.literals.iter().map(|r| r.end).max().unwrap_or(0);
        start..end
    }
}

fn depth_sites(text: &str, value: &str) -> Vec<Site> {
    let mut decls = decls(text, value);
    decls.sort_by_key(|d| d.span().start);
    decls
        .into_iter()
        .map(|d| {
            Site::new(
                d.span(),
                text,
                format!(
                    "{} of depth {value} ({} InitBuffer)",
                    d.names.join(", "),
                    d.literals.len() - 1
                ),
            )
        })
        .collect()
}

fn set_depth(text: &str, site: &Site, from: &str, to: &str) -> Result<Edit, MotifError> {
    let Some(d) = decls(text, from)
        .into_iter()
        .find(|d| d.span() == site.range)
    else {
        return Err(MotifError {
            motif: NAME,
            line: site.line,
            why: format!("expected queues of literal depth {from} here"),
        });
    };
    let edits: Vec<(Range<usize>, String)> = d
        .literals
        .iter()
        .map(|r| (r.clone(), to.to_string()))
        .collect();
    let new = cst::splice_many(text, &edits);
    // Every literal keeps its length: the span is where it was.
    let inverse = Site::new(site.range.clone(), &new, site.what.replace(from, to));
    Ok(Edit { text: new, inverse })
}

/// The queue declarations of depth `value` whose every queue is sized only by `InitBuffer` calls with
/// the count `value` (at least one each).
fn decls(text: &str, value: &str) -> Vec<Decl> {
    let tree = cst::parse(text);
    let root = tree.root_node();
    let inits = cst::calls_named(root, text, "InitBuffer");
    let mut out = vec![];
    cst::visit(root, &mut |n| {
        if !matches!(n.kind(), "field_declaration" | "declaration") {
            return;
        }
        let Some(depth) = n
            .child_by_field_name("type")
            .and_then(|t| tque_depth(t, text))
        else {
            return;
        };
        if text_of(depth, text) != value {
            return;
        }
        let mut names = vec![];
        let mut c = n.walk();
        for d in n.children_by_field_name("declarator", &mut c) {
            if !matches!(d.kind(), "field_identifier" | "identifier") {
                return; // arrays, pointers, initialisers: not a plain queue
            }
            names.push(text_of(d, text).to_string());
        }
        if names.is_empty() {
            return;
        }
        let mut literals = vec![depth.byte_range()];
        for name in &names {
            let mine: Vec<_> = inits
                .iter()
                .filter(|c| {
                    c.args().first().is_some_and(|a| {
                        let t = text_of(*a, text);
                        t == name || t.strip_prefix("this->") == Some(name)
                    })
                })
                .collect();
            if mine.is_empty() {
                return;
            }
            for call in mine {
                let args = call.args();
                match args.get(1) {
                    Some(a) if a.kind() == "number_literal" && text_of(*a, text) == value => {
                        literals.push(a.byte_range())
                    }
                    _ => return, // a count of another form: the queue is not this motif's
                }
            }
        }
        out.push(Decl { names, literals });
    });
    out
}

/// The depth argument of a `TQue<position, depth>` type, when it is a number literal.
fn tque_depth<'t>(ty: Node<'t>, text: &str) -> Option<Node<'t>> {
    let mut found = None;
    cst::visit(ty, &mut |n| {
        if found.is_some() || n.kind() != "template_type" {
            return;
        }
        let named = n
            .child_by_field_name("name")
            .is_some_and(|m| text_of(m, text) == "TQue");
        let Some(args) = n.child_by_field_name("arguments").filter(|_| named) else {
            return;
        };
        let mut c = args.walk();
        let list: Vec<Node> = args
            .named_children(&mut c)
            .filter(|a| a.kind() != "comment")
            .collect();
        if let [_, depth] = list.as_slice() {
            let lit = if depth.kind() == "number_literal" {
                Some(*depth)
            } else {
                // `1` may parse as an expression wrapped in another node.
                (depth.named_child_count() == 1)
                    .then(|| depth.named_child(0))
                    .flatten()
                    .filter(|c| c.kind() == "number_literal")
            };
            found = lit;
        }
    });
    found
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rewrite::motif::testing::*;

    const KERNEL: &str = r#"
class K {
public:
    __aicore__ inline void Init(uint32_t n)
    {
        pipe.InitBuffer(inA, 1, n * sizeof(float));
        pipe.InitBuffer(inB, 1, n * sizeof(float));
        if (n > 8) {
            pipe.InitBuffer(outQ, 1, 32);
        }
    }
private:
    AscendC::TPipe pipe;
    AscendC::TQue<AscendC::QuePosition::VECIN, 1> inA, inB;
    AscendC::TQue<AscendC::QuePosition::VECOUT, 1> outQ;
    AscendC::TBuf<AscendC::QuePosition::VECCALC> work;
};
"#;

    #[test]
    fn a_literal_depth_and_its_buffer_counts_become_two_and_back() {
        let m = DoubleBufferQueue;
        let sites = m.apply_sites(KERNEL);
        assert_eq!(sites.len(), 2, "{sites:?}");
        let e = m.apply(KERNEL, &sites[0]).unwrap();
        assert!(e.text.contains("InitBuffer(inA, 2,") && e.text.contains("InitBuffer(inB, 2,"));
        assert!(e.text.contains("VECIN, 2> inA, inB;"));
        // The other declaration is untouched.
        assert!(e.text.contains("InitBuffer(outQ, 1, 32)") && e.text.contains("VECOUT, 1> outQ"));
        assert_eq!(m.rewind(&e.text, &e.inverse).unwrap().text, KERNEL);
        assert_eq!(round_trips(&m, KERNEL), 2);
        let (all, n) =
            crate::rewrite::motif::edit_all(&m, KERNEL, crate::rewrite::motif::Direction::Apply)
                .unwrap()
                .unwrap();
        assert_eq!(n, 2);
        assert!(m.apply_sites(&all).is_empty());
        assert_eq!(rewinds_round_trip(&m, &all), 2);
    }

    /// ops-math's truncate_div: an `__aicore__ inline` constructor with an initialiser list and an `if`,
    /// then another method. tree-sitter read `__aicore__` as a type, the constructor as an error that
    /// took the class with it, and no site was found.
    #[test]
    fn queues_sized_in_an_aicore_constructor_are_found() {
        let k = "class K {\n\
                 \x20   __aicore__ inline K(const Tiling* t)\n        : total(t->total), tile(t->tile)\n    {\n\
                 \x20       if (this->start >= this->total) {\n        }\n\
                 \x20       this->pipe.InitBuffer(this->outQ, 1, this->tile * sizeof(float));\n    }\n\
                 \x20   __aicore__ inline void Init(GM_ADDR x)\n    {\n    }\n\
                 \x20   AscendC::TQue<AscendC::QuePosition::VECOUT, 1> outQ;\n};\n";
        let m = DoubleBufferQueue;
        let sites = m.apply_sites(k);
        assert_eq!(sites.len(), 1, "{sites:?}");
        let e = m.apply(k, &sites[0]).unwrap();
        assert!(e.text.contains("InitBuffer(this->outQ, 2,") && e.text.contains("VECOUT, 2> outQ"));
        assert_eq!(round_trips(&m, k), 1);
    }

    #[test]
    fn a_queue_sized_otherwise_is_left_alone() {
        let m = DoubleBufferQueue;
        // A named count is `double-buffer`'s; a queue never given buffers is not a plain queue of tiles.
        let named = KERNEL.replace("InitBuffer(inB, 1,", "InitBuffer(inB, BUFFER_NUM,");
        assert_eq!(m.apply_sites(&named).len(), 1);
        let unsized_ = KERNEL.replace("        pipe.InitBuffer(outQ, 1, 32);\n", "");
        assert_eq!(m.apply_sites(&unsized_).len(), 1);
        // Queues of named depth are not sites.
        let (naive, _) = fixture_kernel("add_custom");
        assert!(m.apply_sites(&naive).is_empty());
    }
}
