//! The shared machinery of motifs that fuse a pair of vector calls through a scratch tensor into one
//! call: a tensor taken from a `TBuf` (`LocalTensor<T> s = buf.Get<T>();`) is filled by a *producer*
//! (`Duplicate(s, 0, n)`, `Muls(s, x, a, n)`) and read once by a *consumer* (`Max(y, x, s, n)`), which a
//! single *fast* call replaces (`Relu(y, x, n)`). Applying removes the producer, the `Get` and, when the
//! buffer is then unused, its member declaration and `InitBuffer`; rewinding creates them. This module
//! owns the finding of such pairs, the buffer bookkeeping and the exact-restore encoding; each motif
//! owns only which calls pair up and what the fast call's arguments are. It knows nothing of costs,
//! banks or the tuning loop.

use crate::rewrite::cst::{self, Call, text_of};
use crate::rewrite::motif::{Edit, MotifError, Site};
use std::ops::Range;
use tree_sitter::Node;

/// The producer's and the consumer's arguments of a slow form.
pub(super) type SlowArgs = (Vec<String>, Vec<String>);

/// One fusion: the names of the three calls and how arguments move between the forms.
pub(super) struct Fusion {
    pub motif: &'static str,
    pub producer: &'static str,
    pub consumer: &'static str,
    pub fast: &'static str,
    /// The stem of the names a rewind gives the buffer and its tensor (`zero` -> `zeroBuf`, `zeroLocal`).
    pub stem: &'static str,
    /// The fast call's arguments for a slow pair, or None when the pair does not compute the fast call.
    pub fuse: fn(&Pair) -> Option<Vec<String>>,
    /// The (producer, consumer) arguments for a fast call, or None when the slow form would not compute it.
    pub split: fn(&Fast) -> Option<SlowArgs>,
}

/// A producer/consumer pair joined by a scratch tensor, as found in one function.
pub(super) struct Pair<'a, 't> {
    pub text: &'a str,
    pub root: Node<'t>,
    /// The scratch tensor's name.
    pub scratch: &'a str,
    pub producer: Call<'t>,
    pub consumer: Call<'t>,
    /// The statements strictly between the producer and the consumer.
    pub between: Vec<Node<'t>>,
}

/// A fast call about to be split, with the name and element type its scratch tensor will have.
pub(super) struct Fast<'a, 't> {
    pub text: &'a str,
    pub root: Node<'t>,
    pub call: Call<'t>,
    pub scratch: &'a str,
    /// Element type of the fast call's source tensor (its second argument).
    pub elem: &'a str,
}

impl Pair<'_, '_> {
    pub fn consumer_args(&self) -> Vec<&str> {
        self.consumer.arg_texts(self.text)
    }
}

/// The slow form found around one consumer statement: everything an apply removes or rewrites.
struct Slow<'t> {
    consumer_stmt: Node<'t>,
    fast_args: Vec<String>,
    qualified: bool,
    /// Whole-line spans to remove, in source order: the `Get`, the producer, and when the buffer is
    /// otherwise unused its `InitBuffer` calls and member declaration.
    removed: Vec<Range<usize>>,
    buffer: String,
    frees_buffer: bool,
}

fn error(f: &Fusion, text: &str, at: usize, why: impl Into<String>) -> MotifError {
    MotifError {
        motif: f.motif,
        line: cst::line_of(text, at),
        why: why.into(),
    }
}

/// A plain identifier's text, or None for any other expression.
fn identifier<'a>(node: Node, text: &'a str) -> Option<&'a str> {
    (node.kind() == "identifier").then(|| text_of(node, text))
}

/// Whether `name` is a member of the file declared with a `TBuf<...>` type; the declaration node.
pub(super) fn tbuf_member<'t>(root: Node<'t>, text: &str, name: &str) -> Option<Node<'t>> {
    cst::nodes_of_kind(root, "field_declaration")
        .into_iter()
        .find(|d| {
            let is_tbuf = d.child_by_field_name("type").is_some_and(|t| {
                text_of(t, text)
                    .trim_start_matches("AscendC::")
                    .starts_with("TBuf<")
            });
            let mut c = d.walk();
            let declarators: Vec<Node> = d.children_by_field_name("declarator", &mut c).collect();
            is_tbuf
                && declarators.len() == 1
                && declarators[0].kind() == "field_identifier"
                && text_of(declarators[0], text) == name
        })
}

/// The declaration `LocalTensor<T> name = buf.Get<T>();` of `name` in `body`: (declaration, buf).
fn get_declaration<'t, 'a>(
    body: Node<'t>,
    text: &'a str,
    name: &str,
) -> Option<(Node<'t>, &'a str)> {
    cst::nodes_of_kind(body, "declaration")
        .into_iter()
        .find_map(|d| {
            let mut c = d.walk();
            let decls: Vec<Node> = d.children_by_field_name("declarator", &mut c).collect();
            let [init] = decls[..] else { return None };
            if init.kind() != "init_declarator" {
                return None;
            }
            let var = init.child_by_field_name("declarator")?;
            if identifier(var, text)? != name {
                return None;
            }
            let call = Call::of(init.child_by_field_name("value")?)?;
            if call.name(text) != "Get" || !call.args().is_empty() {
                return None;
            }
            Some((d, call.receiver(text)?))
        })
}

/// How many `identifier`/`field_identifier` nodes under `node` are spelled `name`.
pub(super) fn mentions(node: Node, text: &str, name: &str) -> usize {
    let mut n = 0;
    cst::visit(node, &mut |x| {
        if matches!(x.kind(), "identifier" | "field_identifier") && text_of(x, text) == name {
            n += 1
        }
    });
    n
}

/// Whether any of `stmts` assigns, increments or declares one of `names`.
fn writes_any(stmts: &[Node], text: &str, names: &[&str]) -> bool {
    let mut found = false;
    for s in stmts {
        cst::visit(*s, &mut |n| {
            let target = match n.kind() {
                "assignment_expression" => n.child_by_field_name("left"),
                "update_expression" => n.child_by_field_name("argument"),
                "init_declarator" => n.child_by_field_name("declarator"),
                _ => None,
            };
            if let Some(t) = target {
                let mut hit = cst::identifiers_in(t, text);
                cst::visit(t, &mut |f| {
                    if f.kind() == "field_identifier" {
                        hit.push(text_of(f, text))
                    }
                });
                found |= hit.iter().any(|h| names.contains(h));
            }
        });
    }
    found
}

/// The identifiers and field names a count expression reads (`this->tileLength` reads `tileLength`).
fn count_names<'a>(node: Node, text: &'a str) -> Vec<&'a str> {
    let mut out = vec![];
    cst::visit(node, &mut |n| {
        if matches!(n.kind(), "identifier" | "field_identifier") {
            out.push(text_of(n, text))
        }
    });
    out
}

/// The expression statement holding `call` when it sits on its own lines in a `{ }` block.
pub(super) fn block_statement<'t>(text: &str, call: &Call<'t>) -> Option<Node<'t>> {
    let stmt = call.statement()?;
    (stmt.parent()?.kind() == "compound_statement" && cst::own_lines(text, stmt).is_some())
        .then_some(stmt)
}

/// The slow form whose consumer is `consumer`, if it is one this fusion can apply to.
fn slow_at<'t>(f: &Fusion, text: &str, root: Node<'t>, consumer: Call<'t>) -> Option<Slow<'t>> {
    let consumer_stmt = block_statement(text, &consumer)?;
    consumer.template_args(text).is_none().then_some(())?;
    let (func, _) = cst::enclosing_function(consumer.node, text)?;
    let body = func.child_by_field_name("body")?;
    let block = consumer_stmt.parent()?;
    let siblings = cst::statements(block);
    let at = siblings.iter().position(|s| *s == consumer_stmt)?;
    for arg in consumer.args().into_iter().skip(1) {
        let Some(scratch) = identifier(arg, text) else {
            continue;
        };
        let Some((decl, buffer)) = get_declaration(body, text, scratch) else {
            continue;
        };
        let Some(member) = tbuf_member(root, text, buffer) else {
            continue;
        };
        // The nearest statement before the consumer that is the producer writing the scratch tensor.
        let Some((p_at, producer)) = siblings[..at].iter().enumerate().rev().find_map(|(i, s)| {
            let call = Call::of(s.named_child(0)?)?;
            (s.kind() == "expression_statement"
                && call.name(text) == f.producer
                && call
                    .args()
                    .first()
                    .is_some_and(|a| text_of(*a, text) == scratch))
            .then_some((i, call))
        }) else {
            continue;
        };
        let producer_stmt = siblings[p_at];
        if producer.template_args(text).is_some()
            || decl.end_byte() > producer_stmt.start_byte()
            || mentions(body, text, scratch) != 3
        {
            continue;
        }
        // Both calls cover the same elements, and nothing between them changes how many.
        let (Some(pn), Some(cn)) = (
            producer.args().last().copied(),
            consumer.args().last().copied(),
        ) else {
            continue;
        };
        let between = siblings[p_at + 1..at].to_vec();
        if text_of(pn, text) != text_of(cn, text)
            || writes_any(&between, text, &count_names(cn, text))
        {
            continue;
        }
        let pair = Pair {
            text,
            root,
            scratch,
            producer,
            consumer,
            between,
        };
        let Some(fast_args) = (f.fuse)(&pair) else {
            continue;
        };
        let (Some(decl_lines), Some(producer_lines)) = (
            cst::own_lines(text, decl),
            cst::own_lines(text, producer_stmt),
        ) else {
            continue;
        };
        let mut removed = vec![decl_lines, producer_lines];
        // The buffer goes too when this `Get` was its only use besides the declaration and InitBuffer.
        let inits: Vec<Node> = cst::calls_named(root, text, "InitBuffer")
            .into_iter()
            .filter(|c| c.arg_texts(text).first() == Some(&buffer))
            .filter_map(|c| block_statement(text, &c))
            .collect();
        let frees_buffer = !inits.is_empty() && mentions(root, text, buffer) == 2 + inits.len();
        if frees_buffer {
            let Some(member_lines) = cst::own_lines(text, member) else {
                continue;
            };
            removed.push(member_lines);
            removed.extend(inits.iter().filter_map(|s| cst::own_lines(text, *s)));
        }
        removed.sort_by_key(|r| r.start);
        return Some(Slow {
            consumer_stmt,
            fast_args,
            qualified: consumer.qualified(text),
            removed,
            buffer: buffer.to_string(),
            frees_buffer,
        });
    }
    None
}

fn slow_forms<'t>(f: &Fusion, text: &str, root: Node<'t>) -> Vec<Slow<'t>> {
    cst::calls_named(root, text, f.consumer)
        .into_iter()
        .filter_map(|c| slow_at(f, text, root, c))
        .collect()
}

pub(super) fn qualifier(qualified: bool) -> &'static str {
    if qualified { "AscendC::" } else { "" }
}

/// What a rewind needs to put back exactly the lines an apply removed.
#[derive(serde::Serialize, serde::Deserialize)]
struct Restore {
    /// The consumer statement as it was written.
    statement: String,
    /// (offset in the applied text, removed lines), in source order.
    lines: Vec<(usize, String)>,
}

pub(super) fn apply_sites(f: &Fusion, text: &str) -> Vec<Site> {
    let tree = cst::parse(text);
    slow_forms(f, text, tree.root_node())
        .into_iter()
        .map(|s| {
            let freed = if s.frees_buffer {
                format!(", and {} goes", s.buffer)
            } else {
                String::new()
            };
            Site::new(
                s.consumer_stmt.byte_range(),
                text,
                format!(
                    "{} + {} through {}: {}{freed}",
                    f.producer, f.consumer, s.buffer, f.fast
                ),
            )
        })
        .collect()
}

pub(super) fn apply(f: &Fusion, text: &str, site: &Site) -> Result<Edit, MotifError> {
    let tree = cst::parse(text);
    let slow = slow_forms(f, text, tree.root_node())
        .into_iter()
        .find(|s| s.consumer_stmt.byte_range() == site.range)
        .ok_or_else(|| {
            error(
                f,
                text,
                site.range.start,
                format!("no {} + {} pair ends here", f.producer, f.consumer),
            )
        })?;
    let statement = match &site.restore {
        Some(r) => {
            let t = cst::parse(r);
            if cst::calls_named(t.root_node(), r, f.fast).len() != 1 {
                return Err(error(
                    f,
                    text,
                    site.range.start,
                    format!("the restore text is not one {} call", f.fast),
                ));
            }
            r.clone()
        }
        None => format!(
            "{}{}({});",
            qualifier(slow.qualified),
            f.fast,
            slow.fast_args.join(", ")
        ),
    };
    let mut edits: Vec<(Range<usize>, String)> = slow
        .removed
        .iter()
        .map(|r| (r.clone(), String::new()))
        .collect();
    edits.push((slow.consumer_stmt.byte_range(), statement.clone()));
    let new = cst::splice_many(text, &edits);
    let start = cst::shifted(&edits, site.range.start);
    let restore = Restore {
        statement: text[site.range.clone()].to_string(),
        lines: slow
            .removed
            .iter()
            .map(|r| (cst::shifted(&edits, r.start), text[r.clone()].to_string()))
            .collect(),
    };
    let inverse = Site::new(
        start..start + statement.len(),
        &new,
        format!("{} from {} + {}", f.fast, f.producer, f.consumer),
    )
    .restoring(serde_json::to_string(&restore).expect("plain strings and numbers serialise"));
    Ok(Edit { text: new, inverse })
}

/// A fast call that a rewind can split, with where its new lines go.
struct FastForm<'t> {
    stmt: Node<'t>,
    producer_args: Vec<String>,
    consumer_args: Vec<String>,
    qualified: bool,
    scratch: String,
    buffer: String,
    elem: String,
    /// Where the member declaration goes, and the text of its line.
    member: (usize, String),
    /// Where the `InitBuffer` goes, and the text of its line.
    init: (usize, String),
}

/// A name spelled nowhere in the file: `stem` + `suffix`, then with 2, 3, ... appended.
pub(super) fn fresh_name(root: Node, text: &str, stem: &str, suffix: &str) -> String {
    let mut taken = std::collections::HashSet::new();
    cst::visit(root, &mut |n| {
        if matches!(
            n.kind(),
            "identifier" | "field_identifier" | "type_identifier"
        ) {
            taken.insert(text_of(n, text));
        }
    });
    (1..)
        .map(|i| {
            if i == 1 {
                format!("{stem}{suffix}")
            } else {
                format!("{stem}{suffix}{i}")
            }
        })
        .find(|n| !taken.contains(n.as_str()))
        .expect("some numbered name is free")
}

/// The member and InitBuffer lines of the TBuf member `buf` (in source order), if it is named only by
/// them and `gets` more uses (the `Get`s of the form a rewind removes with it).
pub(super) fn buffer_lines(
    root: Node,
    text: &str,
    buf: &str,
    gets: usize,
) -> Option<[std::ops::Range<usize>; 2]> {
    let member = tbuf_member(root, text, buf)?;
    let inits: Vec<Node> = cst::calls_named(root, text, "InitBuffer")
        .into_iter()
        .filter(|c| c.arg_texts(text).first() == Some(&buf))
        .filter_map(|c| block_statement(text, &c))
        .collect();
    let [init] = inits[..] else { return None };
    (mentions(root, text, buf) == 2 + gets).then_some(())?;
    let mut lines = [cst::own_lines(text, member)?, cst::own_lines(text, init)?];
    lines.sort_by_key(|r| r.start);
    Some(lines)
}

/// The element type `T` of a `LocalTensor<T>` variable or parameter named `name` in `func`.
pub(super) fn local_tensor_type<'a>(func: Node, text: &'a str, name: &str) -> Option<&'a str> {
    let mut found = None;
    cst::visit(func, &mut |n| {
        if found.is_some() || !matches!(n.kind(), "declaration" | "parameter_declaration") {
            return;
        }
        let Some(ty) = n.child_by_field_name("type") else {
            return;
        };
        let mut names = vec![];
        let mut c = n.walk();
        for d in n.children_by_field_name("declarator", &mut c) {
            cst::visit(d, &mut |x| {
                if x.kind() == "identifier"
                    && x.parent().is_some_and(|p| p.kind() != "argument_list")
                {
                    names.push(text_of(x, text))
                }
            });
        }
        if names.first() != Some(&name) {
            return;
        }
        let ty_text = text_of(ty, text).trim_start_matches("AscendC::");
        if let Some(inner) = ty_text
            .strip_prefix("LocalTensor<")
            .and_then(|t| t.strip_suffix('>'))
        {
            found = Some(inner.trim());
        }
    });
    found
}

/// Names declared (as parameters or locals) in `func`.
fn declared_in<'a>(func: Node, text: &'a str) -> Vec<&'a str> {
    let mut out = vec![];
    cst::visit(func, &mut |n| {
        let d = match n.kind() {
            "parameter_declaration" | "declaration" => {
                let mut c = n.walk();
                n.children_by_field_name("declarator", &mut c)
                    .collect::<Vec<_>>()
            }
            _ => vec![],
        };
        for d in d {
            let named = match d.kind() {
                "init_declarator" => d.child_by_field_name("declarator"),
                _ => Some(d),
            };
            if let Some(first) =
                named.and_then(|n| cst::nodes_of_kind(n, "identifier").first().copied())
            {
                out.push(text_of(first, text));
            }
        }
    });
    out
}

/// The class a member function belongs to: the one it is written in, or, for a definition outside
/// it (`template <...> void Kernel<T>::Compute(...)`), the class of the file its qualified name names.
pub(super) fn class_of<'t>(func: Node<'t>, text: &str) -> Option<Node<'t>> {
    const CLASSES: &[&str] = &["class_specifier", "struct_specifier"];
    if let Some(c) = cst::ancestor(func, CLASSES) {
        return Some(c);
    }
    let mut decl = func.child_by_field_name("declarator")?;
    while decl.kind() != "function_declarator" {
        decl = decl.child_by_field_name("declarator")?;
    }
    let name = decl.child_by_field_name("declarator")?;
    (name.kind() == "qualified_identifier").then_some(())?;
    let scope = name.child_by_field_name("scope")?;
    let class_name = match scope.kind() {
        "template_type" => text_of(scope.child_by_field_name("name")?, text),
        _ => text_of(scope, text),
    };
    let mut root = func;
    while let Some(p) = root.parent() {
        root = p;
    }
    CLASSES
        .iter()
        .flat_map(|k| cst::nodes_of_kind(root, k))
        .find(|c| {
            c.child_by_field_name("body").is_some()
                && c.child_by_field_name("name")
                    .is_some_and(|n| text_of(n, text) == class_name)
        })
}

/// Where a new `TBuf` member and its `InitBuffer` go in the class of a function, and how they are
/// written: after the last buffer-like member (TBuf/TQue/TPipe) and after the last `InitBuffer`.
pub(super) struct BufferSlots {
    pub member_at: usize,
    member_indent: String,
    tbuf_type: String,
    pub init_at: usize,
    init_indent: String,
    init_call: String,
}

impl BufferSlots {
    /// The slots of the class holding `func`, when the sizes `exprs` mean the same in the function
    /// that calls InitBuffer as in `func` (no name in them is a parameter or local of either).
    pub fn find(text: &str, func: Node, exprs: &[Node]) -> Option<BufferSlots> {
        let class = class_of(func, text)?;
        let body = class.child_by_field_name("body")?;
        // The `InitBuffer`s of the class's own methods, in the class or defined after it
        // (`Kernel<T>::Init`), in source order.
        let root = {
            let mut r = class;
            while let Some(p) = r.parent() {
                r = p;
            }
            r
        };
        let inits: Vec<(Call, Node)> = cst::calls_named(root, text, "InitBuffer")
            .into_iter()
            .filter(|c| {
                cst::enclosing_function(c.node, text)
                    .and_then(|(f, _)| class_of(f, text))
                    .is_some_and(|k| k == class)
            })
            .filter_map(|c| Some((c, block_statement(text, &c)?)))
            .collect();
        // After the last InitBuffer of the function that carves the first: that function runs on
        // every path (a later one may be called only on some, as a buffer zeroed for one mode is).
        // Within it, in the block of the first or one around that block: an InitBuffer in another
        // branch runs on other paths (complex_v3 carves its queues in one `if constexpr` branch per
        // mode, and the loop a motif rewrites runs in the first).
        let (first_call, first_stmt) = inits.first()?;
        let first_func = cst::enclosing_function(first_call.node, text)?.0;
        let first_block = first_stmt.parent()?;
        let around_first = |block: Node| {
            let mut b = Some(first_block);
            while let Some(n) = b {
                if n == block {
                    return true;
                }
                b = n.parent();
            }
            false
        };
        let last_init = inits
            .into_iter()
            .filter(|(c, stmt)| {
                cst::enclosing_function(c.node, text).is_some_and(|(f, _)| f == first_func)
                    && stmt.parent().is_some_and(around_first)
            })
            .next_back()?;
        let (init_func, _) = cst::enclosing_function(last_init.0.node, text)?;
        let locals: Vec<&str> = declared_in(func, text)
            .into_iter()
            .chain(declared_in(init_func, text))
            .collect();
        if exprs
            .iter()
            .flat_map(|e| cst::identifiers_in(*e, text))
            .any(|n| locals.contains(&n))
        {
            return None;
        }
        let fields: Vec<Node> = cst::statements(body)
            .into_iter()
            .filter(|n| n.kind() == "field_declaration" && cst::own_lines(text, *n).is_some())
            .collect();
        let type_of = |n: &Node| {
            n.child_by_field_name("type")
                .map_or("", |t| text_of(t, text))
                .trim_start_matches("AscendC::")
        };
        let is_buffer = |n: &Node| {
            let t = type_of(n);
            t.starts_with("TBuf<") || t.starts_with("TQue<") || t.starts_with("TPipe")
        };
        let anchor = fields.iter().rfind(|n| is_buffer(n)).or(fields.last())?;
        // Written the way the member it follows is (`AscendC::` or not).
        let q = qualifier(
            anchor
                .child_by_field_name("type")
                .is_some_and(|t| text_of(t, text).starts_with("AscendC::")),
        );
        let tbuf_type = fields
            .iter()
            .find(|n| type_of(n).starts_with("TBuf<"))
            .and_then(|n| n.child_by_field_name("type"))
            .map_or_else(
                || format!("{q}TBuf<{q}TPosition::VECCALC>"),
                |t| text_of(t, text).to_string(),
            );
        Some(BufferSlots {
            member_at: cst::own_lines(text, *anchor)?.end,
            member_indent: cst::indent_at(text, anchor.start_byte()).to_string(),
            tbuf_type,
            init_at: cst::own_lines(text, last_init.1)?.end,
            init_indent: cst::indent_at(text, last_init.1.start_byte()).to_string(),
            init_call: text_of(last_init.0.function, text).to_string(),
        })
    }

    /// The member line and the InitBuffer line of a buffer `name` of `bytes`.
    pub fn lines(&self, name: &str, bytes: &str) -> (String, String) {
        (
            format!("{}{} {name};\n", self.member_indent, self.tbuf_type),
            format!("{}{}({name}, {bytes});\n", self.init_indent, self.init_call),
        )
    }
}

fn fast_at<'t>(f: &Fusion, text: &str, root: Node<'t>, call: Call<'t>) -> Option<FastForm<'t>> {
    let stmt = block_statement(text, &call)?;
    call.template_args(text).is_none().then_some(())?;
    let args = call.args();
    let source = identifier(*args.get(1)?, text)?;
    let count = *args.last()?;
    let (func, _) = cst::enclosing_function(call.node, text)?;
    let elem = local_tensor_type(func, text, source)?;
    let slots = BufferSlots::find(text, func, &[count])?;
    let qualified = call.qualified(text);
    let scratch = fresh_name(root, text, f.stem, "Local");
    let buffer = fresh_name(root, text, f.stem, "Buf");
    let (producer_args, consumer_args) = (f.split)(&Fast {
        text,
        root,
        call,
        scratch: &scratch,
        elem,
    })?;
    let (member, init) = slots.lines(
        &buffer,
        &format!("{} * sizeof({elem})", text_of(count, text)),
    );
    Some(FastForm {
        stmt,
        producer_args,
        consumer_args,
        qualified,
        scratch,
        buffer,
        elem: elem.to_string(),
        member: (slots.member_at, member),
        init: (slots.init_at, init),
    })
}

fn fast_forms<'t>(f: &Fusion, text: &str, root: Node<'t>) -> Vec<FastForm<'t>> {
    cst::calls_named(root, text, f.fast)
        .into_iter()
        .filter_map(|c| fast_at(f, text, root, c))
        .collect()
}

pub(super) fn rewind_sites(f: &Fusion, text: &str) -> Vec<Site> {
    let tree = cst::parse(text);
    fast_forms(f, text, tree.root_node())
        .into_iter()
        .map(|s| {
            Site::new(
                s.stmt.byte_range(),
                text,
                format!(
                    "{} back to {} + {} through a new {}",
                    f.fast, f.producer, f.consumer, s.buffer
                ),
            )
        })
        .collect()
}

pub(super) fn rewind(f: &Fusion, text: &str, site: &Site) -> Result<Edit, MotifError> {
    let tree = cst::parse(text);
    let root = tree.root_node();
    let at_site = cst::calls_named(root, text, f.fast)
        .into_iter()
        .find(|c| c.statement().is_some_and(|s| s.byte_range() == site.range))
        .ok_or_else(|| {
            error(
                f,
                text,
                site.range.start,
                format!("no {} call here", f.fast),
            )
        })?;
    let (edits, statement) = match &site.restore {
        Some(r) => {
            let restore: Restore = serde_json::from_str(r).map_err(|e| {
                error(
                    f,
                    text,
                    site.range.start,
                    format!("unreadable restore text: {e}"),
                )
            })?;
            let fits = restore
                .lines
                .iter()
                .all(|(at, _)| *at <= text.len() && (*at == 0 || text.as_bytes()[at - 1] == b'\n'));
            if !fits {
                return Err(error(
                    f,
                    text,
                    site.range.start,
                    "the restore text does not fit this text (it was edited since)",
                ));
            }
            let mut edits: Vec<(Range<usize>, String)> = restore
                .lines
                .into_iter()
                .map(|(at, line)| (at..at, line))
                .collect();
            edits.push((site.range.clone(), restore.statement.clone()));
            (edits, restore.statement)
        }
        None => {
            let fast = fast_at(f, text, root, at_site).ok_or_else(|| {
                error(
                    f,
                    text,
                    site.range.start,
                    format!("this {} cannot be split here", f.fast),
                )
            })?;
            let q = qualifier(fast.qualified);
            let indent = cst::indent_at(text, site.range.start);
            let lines = format!(
                "{indent}{q}LocalTensor<{elem}> {s} = {b}.Get<{elem}>();\n{indent}{q}{p}({pa});\n",
                elem = fast.elem,
                s = fast.scratch,
                b = fast.buffer,
                p = f.producer,
                pa = fast.producer_args.join(", "),
            );
            let statement = format!("{q}{}({});", f.consumer, fast.consumer_args.join(", "));
            let edits = vec![
                (fast.init.0..fast.init.0, fast.init.1),
                (fast.member.0..fast.member.0, fast.member.1),
                (
                    cst::line_start(text, site.range.start)
                        ..cst::line_start(text, site.range.start),
                    lines,
                ),
                (site.range.clone(), statement.clone()),
            ];
            (edits, statement)
        }
    };
    let new = cst::splice_many(text, &edits);
    let start = cst::shifted(&edits, site.range.start);
    let inverse = Site::new(
        start..start + statement.len(),
        &new,
        format!("{} + {}: {}", f.producer, f.consumer, f.fast),
    )
    .restoring(text[site.range.clone()].to_string());
    Ok(Edit { text: new, inverse })
}

/// The numeric value of a literal, seen through casts and parentheses: `static_cast<half>(0.0f)`,
/// `(float)1`, `1.0f`. None for anything else.
pub(super) fn literal_value(node: Node, text: &str) -> Option<f64> {
    match node.kind() {
        "number_literal" => {
            let t = text_of(node, text).trim_end_matches(['f', 'F', 'h', 'H', 'l', 'L', 'u', 'U']);
            t.parse::<f64>().ok()
        }
        "parenthesized_expression" => literal_value(node.named_child(0)?, text),
        "cast_expression" => literal_value(node.child_by_field_name("value")?, text),
        "unary_expression" => {
            let op = node
                .child_by_field_name("operator")
                .map(|o| text_of(o, text));
            let v = literal_value(node.child_by_field_name("argument")?, text)?;
            match op {
                Some("-") => Some(-v),
                Some("+") => Some(v),
                _ => None,
            }
        }
        "call_expression" => {
            let call = Call::of(node)?;
            let args = call.args();
            (call.name(text) == "static_cast" && args.len() == 1)
                .then(|| literal_value(args[0], text))
                .flatten()
        }
        _ => None,
    }
}

/// `value` written for element type `elem`: `0.0f` for float, `static_cast<T>(0.0f)` otherwise.
pub(super) fn typed_literal(elem: &str, value: &str) -> String {
    if elem == "float" {
        value.to_string()
    } else {
        format!("static_cast<{elem}>({value})")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn literals_are_read_through_casts() {
        let k = "void f() { g(static_cast<half>(0.0f), (float)1, 1.0f, -0.5, x, 2 * 1); }";
        let tree = cst::parse(k);
        let call = cst::calls_named(tree.root_node(), k, "g")[0];
        let values: Vec<Option<f64>> = call.args().iter().map(|a| literal_value(*a, k)).collect();
        assert_eq!(
            values,
            vec![Some(0.0), Some(1.0), Some(1.0), Some(-0.5), None, None]
        );
        assert_eq!(
            typed_literal("DTYPE_X", "0.0f"),
            "static_cast<DTYPE_X>(0.0f)"
        );
        assert_eq!(typed_literal("float", "1.0f"), "1.0f");
    }
}
