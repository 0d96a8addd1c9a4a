//! hoist-duplicate: a `Duplicate(t, CONSTANT, n)` that refills, every tile, a TBuf tensor nothing else
//! writes moves to `Init`, right after that TBuf's `InitBuffer`, so it runs once per block instead of
//! once per tile. The vector pipe runs the Init fill before every later vector instruction that reads
//! it. It knows AscendC's TBuf/Duplicate idiom and the Init/stage split of kernel classes, nothing of
//! measuring or the bank.

use super::drop_queue_barrier::VECTOR_OPS;
use crate::rewrite::cst::{self, Call, text_of};
use crate::rewrite::motif::{Edit, Motif, MotifError, Site};
use tree_sitter::Node;

pub struct HoistDuplicate;

const NAME: &str = "hoist-duplicate";

/// One TBuf fill, in both of its places: the stage function's `Get` declaration (after which the
/// per-tile fill stands) and Init's `InitBuffer` (after which the hoisted fill stands).
struct Fill {
    /// The TBuf.
    buf: String,
    /// The element type of the stage function's `Get<T>()`.
    ty: String,
    /// The variable the stage function binds the TBuf's tensor to.
    var: String,
    value: String,
    count: String,
    qualified: bool,
    /// End of the stage function's `Get` declaration line (where the per-tile fill goes).
    stage_at: usize,
    stage_indent: String,
    /// End of Init's `InitBuffer(buf, ...)` line (where the hoisted fill goes).
    init_at: usize,
    init_indent: String,
}

impl Fill {
    fn stage_line(&self) -> String {
        let q = if self.qualified { "AscendC::" } else { "" };
        format!(
            "{}{q}Duplicate({}, {}, {});\n",
            self.stage_indent, self.var, self.value, self.count
        )
    }
    fn init_line(&self) -> String {
        let q = if self.qualified { "AscendC::" } else { "" };
        format!(
            "{}{q}Duplicate({}.Get<{}>(), {}, {});\n",
            self.init_indent, self.buf, self.ty, self.value, self.count
        )
    }
    fn what(&self, hoisted: bool) -> String {
        let place = if hoisted { "in Init" } else { "every tile" };
        format!("Duplicate({}, {}) {place}", self.buf, self.value)
    }
}

/// The TBufs declared in the file.
fn tbufs(root: Node, text: &str) -> Vec<String> {
    let mut out = vec![];
    for t in cst::nodes_of_kind(root, "template_type") {
        let is_tbuf = t
            .child_by_field_name("name")
            .is_some_and(|n| text_of(n, text) == "TBuf");
        if let (true, Some(decl)) = (
            is_tbuf,
            cst::ancestor(t, &["field_declaration", "declaration"]),
        ) {
            let mut c = decl.walk();
            for d in decl.children_by_field_name("declarator", &mut c) {
                out.push(text_of(d, text).to_string());
            }
        }
    }
    out
}

/// A literal, possibly negated, cast (`static_cast<T>(0.0f)`) or combined with other literals.
fn is_constant(node: Node, text: &str) -> bool {
    match node.kind() {
        "number_literal" | "true" | "false" => true,
        "unary_expression" | "binary_expression" | "parenthesized_expression" => {
            let children: Vec<Node> = node.named_children(&mut node.walk()).collect();
            children.into_iter().all(|n| is_constant(n, text))
        }
        "call_expression" => Call::of(node).is_some_and(|call| {
            call.name(text) == "static_cast"
                && call.args().len() == 1
                && is_constant(call.args()[0], text)
        }),
        _ => false,
    }
}

/// Whether `node` means the same in Init, right before `init_at`, as at every tile: literals, `sizeof`,
/// and members `this->m` that Init sets before that point and nothing else assigns.
fn same_in_init(node: Node, text: &str, root: Node, init: Node, init_at: usize) -> bool {
    match node.kind() {
        "number_literal" | "sizeof_expression" => true,
        "unary_expression" | "binary_expression" | "parenthesized_expression" => {
            let children: Vec<Node> = node.named_children(&mut node.walk()).collect();
            children
                .into_iter()
                .all(|n| same_in_init(n, text, root, init, init_at))
        }
        "field_expression" => {
            let this = node
                .child_by_field_name("argument")
                .is_some_and(|a| text_of(a, text) == "this");
            let Some(member) = node.child_by_field_name("field").map(|f| text_of(f, text)) else {
                return false;
            };
            let assigns: Vec<Node> = cst::nodes_of_kind(root, "assignment_expression")
                .into_iter()
                .chain(cst::nodes_of_kind(root, "update_expression"))
                .filter(|a| {
                    let target = a
                        .child_by_field_name("left")
                        .or_else(|| a.child_by_field_name("argument"));
                    target.is_some_and(|t| {
                        let t = text_of(t, text);
                        t == member || t == format!("this->{member}")
                    })
                })
                .collect();
            this && !assigns.is_empty()
                && assigns.iter().all(|a| {
                    a.start_byte() < init_at
                        && cst::statement_of(*a).and_then(|s| s.parent())
                            == init.child_by_field_name("body")
                })
        }
        _ => false,
    }
}

/// Whether the tensor variable `var` of function `f` is only read, by vector instructions (as a source
/// operand), apart from its declaration and the fill `except`.
fn only_read_by_vector_ops(f: Node, var: &str, text: &str, except: Option<Node>) -> bool {
    cst::nodes_of_kind(f, "identifier")
        .into_iter()
        .filter(|i| text_of(*i, text) == var)
        .all(|i| {
            let Some(parent) = i.parent() else {
                return false;
            };
            if parent.kind() == "init_declarator"
                && parent.child_by_field_name("declarator") == Some(i)
            {
                return true;
            }
            if except
                .is_some_and(|e| e.start_byte() <= i.start_byte() && i.end_byte() <= e.end_byte())
            {
                return true;
            }
            is_vector_source(i, text)
        })
}

/// Whether `node` is a source operand (not the first, destination, argument) of a vector instruction.
fn is_vector_source(node: Node, text: &str) -> bool {
    let Some(args) = node.parent().filter(|p| p.kind() == "argument_list") else {
        return false;
    };
    let Some(call) = args.parent().and_then(Call::of) else {
        return false;
    };
    VECTOR_OPS.contains(&call.name(text))
        && call.args().first().is_some_and(|d| d.id() != node.id())
}

/// Whether nothing but the fill writes the TBuf `buf`: every `buf.Get<T>()` in the file is read only
/// by vector instructions, directly or through the variable it initialises.
fn only_the_fill_writes(root: Node, text: &str, buf: &str, fill: Option<Node>) -> bool {
    cst::calls_named(root, text, "Get")
        .into_iter()
        .filter(|g| g.receiver(text) == Some(buf))
        .all(|g| {
            if fill.is_some_and(|f| {
                f.start_byte() <= g.node.start_byte() && g.node.end_byte() <= f.end_byte()
            }) {
                return true;
            }
            if is_vector_source(g.node, text) {
                return true;
            }
            let Some(decl) = g.node.parent().filter(|p| p.kind() == "init_declarator") else {
                return false;
            };
            let (Some(var), Some((f, _))) = (
                decl.child_by_field_name("declarator"),
                cst::enclosing_function(decl, text),
            ) else {
                return false;
            };
            only_read_by_vector_ops(f, text_of(var, text), text, fill)
        })
}

/// The declaration `LocalTensor<T> var = buf.Get<T>();` an item is, as (buf, T, var).
fn get_declaration<'a>(item: Node, text: &'a str) -> Option<(&'a str, &'a str, &'a str)> {
    if item.kind() != "declaration" {
        return None;
    }
    let decl = item
        .child_by_field_name("declarator")
        .filter(|d| d.kind() == "init_declarator")?;
    let var = decl
        .child_by_field_name("declarator")
        .filter(|v| v.kind() == "identifier")?;
    let get = Call::of(decl.child_by_field_name("value")?)?;
    if get.name(text) != "Get" || !get.args().is_empty() {
        return None;
    }
    Some((
        get.receiver(text)?,
        get.template_args(text)?,
        text_of(var, text),
    ))
}

/// The stage function's Get declaration of `buf` where a per-tile fill belongs: the first function but
/// Init that declares a tensor from `buf.Get<T>()` as a statement of its body.
fn stage_get<'t>(root: Node<'t>, text: &str, buf: &str) -> Option<Node<'t>> {
    cst::nodes_of_kind(root, "function_definition")
        .into_iter()
        .filter(|f| cst::enclosing_function(*f, text).is_some_and(|(_, n)| n != "Init"))
        .filter_map(|f| f.child_by_field_name("body"))
        .flat_map(cst::statements)
        .find(|i| get_declaration(*i, text).is_some_and(|(b, _, _)| b == buf))
}

/// Init's `InitBuffer(buf, ...)` statement.
fn init_buffer<'t>(init: Node<'t>, text: &str, buf: &str) -> Option<Node<'t>> {
    cst::statements(init.child_by_field_name("body")?)
        .into_iter()
        .find(|i| {
            crate::rewrite::motifs::drop_queue_barrier::statement_call(*i)
                .and_then(Call::of)
                .is_some_and(|c| {
                    c.name(text) == "InitBuffer" && c.arg_texts(text).first() == Some(&buf)
                })
        })
}

/// Per-tile fills that can move to Init: (the fill statement's lines, the fill).
fn stage_fills(text: &str) -> Vec<(std::ops::Range<usize>, Fill)> {
    let tree = cst::parse(text);
    let root = tree.root_node();
    let Some(init) = cst::function_named(root, text, "Init") else {
        return vec![];
    };
    let bufs = tbufs(root, text);
    let mut out = vec![];
    for dup in cst::calls_named(root, text, "Duplicate") {
        let Some(stmt) = dup.statement() else {
            continue;
        };
        let Some(decl) = stmt.prev_named_sibling() else {
            continue;
        };
        let Some((buf, ty, var)) = get_declaration(decl, text) else {
            continue;
        };
        let args = dup.args();
        let (Some(lines), Some(decl_lines)) =
            (cst::own_lines(text, stmt), cst::own_lines(text, decl))
        else {
            continue;
        };
        let ok = args.len() == 3
            && text_of(args[0], text) == var
            && bufs.iter().any(|b| b == buf)
            && decl_lines.end == lines.start
            && stage_get(root, text, buf) == Some(decl)
            && is_constant(args[1], text);
        if !ok {
            continue;
        }
        let Some(ib) = init_buffer(init, text, buf) else {
            continue;
        };
        let Some(ib_lines) = cst::own_lines(text, ib) else {
            continue;
        };
        if !same_in_init(args[2], text, root, init, ib.start_byte())
            || !only_the_fill_writes(root, text, buf, Some(stmt))
        {
            continue;
        }
        out.push((
            lines,
            Fill {
                buf: buf.to_string(),
                ty: ty.to_string(),
                var: var.to_string(),
                value: text_of(args[1], text).to_string(),
                count: text_of(args[2], text).to_string(),
                qualified: dup.qualified(text),
                stage_at: decl_lines.end,
                stage_indent: cst::indent_at(text, decl.start_byte()).to_string(),
                init_at: ib_lines.end,
                init_indent: cst::indent_at(text, ib.start_byte()).to_string(),
            },
        ));
    }
    out
}

/// Fills in Init right after their TBuf's InitBuffer, with the stage function they go back to:
/// (the fill statement's lines, the fill).
fn init_fills(text: &str) -> Vec<(std::ops::Range<usize>, Fill)> {
    let tree = cst::parse(text);
    let root = tree.root_node();
    let Some(init) = cst::function_named(root, text, "Init") else {
        return vec![];
    };
    let mut out = vec![];
    for dup in cst::calls_named(init, text, "Duplicate") {
        let Some(stmt) = dup.statement() else {
            continue;
        };
        let args = dup.args();
        let Some(get) = args.first().and_then(|a| Call::of(*a)) else {
            continue;
        };
        let (Some(buf), Some(ty)) = (get.receiver(text), get.template_args(text)) else {
            continue;
        };
        if args.len() != 3 || get.name(text) != "Get" {
            continue;
        }
        let (Some(ib), Some(lines)) = (init_buffer(init, text, buf), cst::own_lines(text, stmt))
        else {
            continue;
        };
        let Some(decl) = stage_get(root, text, buf) else {
            continue;
        };
        let (Some(ib_lines), Some(decl_lines), Some((_, _, var))) = (
            cst::own_lines(text, ib),
            cst::own_lines(text, decl),
            get_declaration(decl, text),
        ) else {
            continue;
        };
        if ib_lines.end != lines.start {
            continue;
        }
        out.push((
            lines,
            Fill {
                buf: buf.to_string(),
                ty: ty.to_string(),
                var: var.to_string(),
                value: text_of(args[1], text).to_string(),
                count: text_of(args[2], text).to_string(),
                qualified: dup.qualified(text),
                stage_at: decl_lines.end,
                stage_indent: cst::indent_at(text, decl.start_byte()).to_string(),
                init_at: ib_lines.end,
                init_indent: cst::indent_at(text, ib.start_byte()).to_string(),
            },
        ));
    }
    out
}

/// `text` with the lines `remove` taken out and `insert` put in at `at` (outside `remove`); returns the
/// new text and where the inserted text lands in it.
fn move_lines(
    text: &str,
    remove: std::ops::Range<usize>,
    at: usize,
    insert: &str,
) -> (String, std::ops::Range<usize>) {
    if at <= remove.start {
        let new = cst::splice(&cst::splice(text, remove, ""), at..at, insert);
        (new, at..at + insert.len())
    } else {
        let shifted = at - remove.len();
        let new = cst::splice(&cst::splice(text, remove, ""), shifted..shifted, insert);
        (new, shifted..shifted + insert.len())
    }
}

fn not_here(text: &str, site: &Site, why: &str) -> MotifError {
    MotifError {
        motif: NAME,
        line: cst::line_of(text, site.range.start),
        why: why.to_string(),
    }
}

impl Motif for HoistDuplicate {
    fn name(&self) -> &'static str {
        NAME
    }
    fn summary(&self) -> &'static str {
        "move a per-tile Duplicate of a constant into a TBuf to Init, once per block"
    }
    fn preserves_meaning_when(&self) -> &'static str {
        "the Duplicate is a statement of a stage function right after `LocalTensor<T> t = buf.Get<T>();` \
         for a TBuf `buf`; its value is a literal (negated, cast or combined with literals); its count \
         uses only literals, sizeof and members `this->m` that Init assigns before `InitBuffer(buf, ...)` \
         and nothing else assigns; and every other use of the TBuf in the file (each `buf.Get<T>()` and \
         every variable bound to one) is a source operand of a vector instruction, so nothing else \
         writes it and the one fill in Init, ordered by the vector pipe before those reads, leaves the \
         same data every tile"
    }
    fn apply_sites(&self, text: &str) -> Vec<Site> {
        stage_fills(text)
            .into_iter()
            .map(|(lines, fill)| Site::new(lines, text, fill.what(false)))
            .collect()
    }
    fn apply(&self, text: &str, site: &Site) -> Result<Edit, MotifError> {
        let (lines, fill) = stage_fills(text)
            .into_iter()
            .find(|(l, _)| *l == site.range)
            .ok_or_else(|| not_here(text, site, "no per-tile fill of a constant TBuf here"))?;
        let removed = text[lines.clone()].to_string();
        let (new, at) = move_lines(text, lines, fill.init_at, &fill.init_line());
        let inverse = Site::new(at, &new, fill.what(true)).restoring(removed);
        Ok(Edit { text: new, inverse })
    }
    fn rewind_sites(&self, text: &str) -> Vec<Site> {
        init_fills(text)
            .into_iter()
            .filter(|(lines, fill)| {
                // Offered only where apply would hoist the fill again.
                let (new, at) = move_lines(text, lines.clone(), fill.stage_at, &fill.stage_line());
                self.apply_sites(&new).iter().any(|s| s.range == at)
            })
            .map(|(lines, fill)| Site::new(lines, text, fill.what(true)))
            .collect()
    }
    fn rewind(&self, text: &str, site: &Site) -> Result<Edit, MotifError> {
        let (lines, fill) = init_fills(text)
            .into_iter()
            .find(|(l, _)| *l == site.range)
            .ok_or_else(|| not_here(text, site, "no fill of a TBuf in Init here"))?;
        let line = site.restore.clone().unwrap_or_else(|| fill.stage_line());
        let (new, at) = move_lines(text, lines, fill.stage_at, &line);
        Ok(Edit {
            inverse: Site::new(at, &new, fill.what(false)),
            text: new,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rewrite::motif::testing::*;

    #[test]
    fn hoists_the_ones_of_sigmoid_custom_into_init() {
        let (naive, _) = fixture_kernel("sigmoid_custom");
        let sites = HoistDuplicate.apply_sites(&naive);
        assert_eq!(sites.len(), 1, "{sites:?}");
        assert_eq!(sites[0].line, 44);
        let edit = HoistDuplicate.apply(&naive, &sites[0]).unwrap();
        assert!(edit.text.contains(
            "        pipe.InitBuffer(onesBuf, this->tileLength * sizeof(float));\n        AscendC::Duplicate(onesBuf.Get<float>(), 1.0f, this->tileLength);\n    }"
        ));
        assert!(edit.text.contains(
            "AscendC::LocalTensor<float> onesLocal = onesBuf.Get<float>();\n        AscendC::Muls("
        ));
        assert_eq!(round_trips(&HoistDuplicate, &naive), 1);
        // Rewinding the hoisted kernel (no restore text) gives the naive kernel back.
        let rewound = HoistDuplicate.rewind_sites(&edit.text);
        assert_eq!(rewound.len(), 1);
        assert_eq!(
            HoistDuplicate.rewind(&edit.text, &rewound[0]).unwrap().text,
            naive
        );
        assert_eq!(rewinds_round_trip(&HoistDuplicate, &edit.text), 1);
    }

    #[test]
    fn hoists_the_zeros_of_relu_and_the_ones_of_gelu() {
        for op in ["relu_custom", "gelu_custom"] {
            let (naive, _) = fixture_kernel(op);
            assert_eq!(HoistDuplicate.apply_sites(&naive).len(), 1, "{op}");
            assert_eq!(round_trips(&HoistDuplicate, &naive), 1, "{op}");
        }
        let (naive, _) = fixture_kernel("relu_custom");
        let edit = HoistDuplicate
            .apply(&naive, &HoistDuplicate.apply_sites(&naive)[0])
            .unwrap();
        assert!(edit
            .text
            .contains("AscendC::Duplicate(zeroBuf.Get<DTYPE_X>(), static_cast<DTYPE_X>(0.0f), this->tileLength);"));
    }

    #[test]
    fn leaves_fills_of_per_tile_values_or_written_buffers_alone() {
        // layernorm fills its statistics with a value computed per row.
        let (naive, _) = fixture_kernel("layernorm_custom");
        assert!(HoistDuplicate.apply_sites(&naive).is_empty());
        // A tensor of ones that the compute also writes is refilled for a reason.
        let (naive, _) = fixture_kernel("sigmoid_custom");
        let written = naive.replace(
            "AscendC::Div(outLocal, onesLocal, outLocal, this->tileLength);",
            "AscendC::Div(onesLocal, onesLocal, outLocal, this->tileLength);",
        );
        assert!(HoistDuplicate.apply_sites(&written).is_empty());
        // A count Init cannot know: it changes with the tile.
        let late = naive.replace(
            "AscendC::Duplicate(onesLocal, 1.0f, this->tileLength);",
            "AscendC::Duplicate(onesLocal, 1.0f, (progress + 1) * 8);",
        );
        assert!(HoistDuplicate.apply_sites(&late).is_empty());
    }
}
