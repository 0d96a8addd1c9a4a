//! The concrete syntax tree of C++ kernel text, as motifs see it: parsing with tree-sitter-cpp, walking,
//! finding calls by their unqualified name, and the byte spans of whole statements and lines that an edit
//! removes or inserts. It knows C++ syntax and AscendC naming habits (`AscendC::` qualification); it knows
//! nothing of motifs, lessons or the tuner.

use std::ops::Range;
use tree_sitter::{Node, Parser, Tree};

/// Parses `text` as C++. tree-sitter always gives a tree; syntax errors show up as ERROR nodes.
///
/// AscendC's function and address-space qualifiers are macros tree-sitter-cpp does not know, and a
/// scope can be lost to them: `__aicore__ inline uint64_t CeilAlign(...)` at namespace level reads as
/// an error that swallows the classes after it, so no motif saw their queues or loops (ops-math's
/// truncate_div). They are parsed as blanks of the same length: every byte offset of the tree is the
/// offset in `text`, and `text_of` still shows them.
pub fn parse(text: &str) -> Tree {
    let mut parser = Parser::new();
    parser
        .set_language(&tree_sitter_cpp::LANGUAGE.into())
        .expect("tree-sitter-cpp matches the tree-sitter version we link");
    let masked = mask_qualifiers(text);
    parser
        .parse(masked.as_deref().unwrap_or(text), None)
        .expect("parsing without a timeout or cancellation flag always returns a tree")
}

/// Qualifiers the AscendC headers define as nothing (or as attributes), as kernel code writes them
/// (asc-devkit, kernel_macros / the twin's kernel_operator.h): each parses as blanks.
const QUALIFIERS: &[&str] = &[
    "__aicore__",
    "__global__",
    "__host_aicore__",
    "__vector__",
    "__cube__",
    "__gm__",
    "__ubuf__",
    "__local_mem__",
    "__cbuf__",
    "__ca__",
    "__cb__",
    "__cc__",
    "__fbuf__",
    "__ssbuf__",
    "__sync_alias__",
    "__kfc_workspace__",
    "__tiling_data_ptr__",
    "__simd_vf__",
    "__simd_callee__",
    "__no_simd_vf_fusion__",
    "__simt_vf__",
    "__simt_callee__",
    "__VEC_SCOPE__",
];

/// Qualifiers that take arguments (`__mix__(1, 2)`): the name and its parenthesised list are blanked.
const QUALIFIER_CALLS: &[&str] = &[
    "__mix__",
    "__inout_pipe__",
    "__in_pipe__",
    "__out_pipe__",
    "LAUNCH_BOUND",
];

/// Conditions written without parentheses (`if ASCEND_IS_AIV {`, a macro holding its own): each
/// parses as a parenthesised `1` of the same length.
const BARE_CONDITIONS: &[&str] = &["ASCEND_IS_AIV", "ASCEND_IS_AIC"];

/// `text` with every whole-word qualifier replaced by spaces (None when it has none).
fn mask_qualifiers(text: &str) -> Option<String> {
    if !text.contains("__") && !text.contains("ASCEND_IS_") {
        return None;
    }
    let mut bytes = text.as_bytes().to_vec();
    let mut changed = false;
    let is_word = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
    for word in QUALIFIERS
        .iter()
        .chain(QUALIFIER_CALLS)
        .chain(BARE_CONDITIONS)
    {
        let takes_args = QUALIFIER_CALLS.contains(word);
        let condition = BARE_CONDITIONS.contains(word);
        let mut from = 0;
        while let Some(at) = text[from..].find(word).map(|i| from + i) {
            let end = at + word.len();
            from = end;
            let bounded = (at == 0 || !is_word(text.as_bytes()[at - 1]))
                && text.as_bytes().get(end).is_none_or(|b| !is_word(*b));
            let line = &text[text[..at].rfind('\n').map_or(0, |i| i + 1)..at];
            if !bounded || line.trim_start().starts_with('#') {
                continue; // part of a word, or in a directive (`#define __aicore__`)
            }
            let mut stop = end;
            if takes_args {
                let rest = &text[end..];
                let open = rest.len() - rest.trim_start().len();
                if rest[open..].starts_with('(') {
                    match rest[open..].find(')') {
                        Some(close) => stop = end + open + close + 1,
                        None => continue,
                    }
                }
            }
            if condition {
                let after = text[stop..].trim_start();
                if !after.starts_with('{') {
                    continue; // `if (ASCEND_IS_AIV)`: already an expression
                }
                bytes[at] = b'(';
                bytes[at + 1] = b'1';
                bytes[at + 2..stop - 1].fill(b' ');
                bytes[stop - 1] = b')';
                changed = true;
                continue;
            }
            for b in &mut bytes[at..stop] {
                if *b != b'\n' {
                    *b = b' ';
                }
            }
            changed = true;
        }
    }
    // Only ASCII bytes were replaced by ASCII spaces: still UTF-8.
    changed.then(|| String::from_utf8(bytes).expect("ASCII replaced by ASCII"))
}

/// Where the qualifiers that end at `at` begin: a function definition's node starts after its
/// `__global__ __aicore__` (they parse as blanks), and this is where its head does in `text`. Walks
/// back over whitespace and qualifier words (and a qualifier's `(...)`), so it costs the run's length.
pub fn qualified_start(text: &str, at: usize) -> usize {
    let b = text.as_bytes();
    let is_word = |c: u8| c.is_ascii_alphanumeric() || c == b'_';
    let back_over_space = |mut i: usize| {
        while i > 0 && b[i - 1].is_ascii_whitespace() {
            i -= 1;
        }
        i
    };
    let mut start = at;
    loop {
        let mut end = back_over_space(start);
        let takes_args = end > 0 && b[end - 1] == b')';
        if takes_args {
            match text[..end].rfind('(') {
                Some(open) => end = back_over_space(open),
                None => break,
            }
        }
        let mut word = end;
        while word > 0 && is_word(b[word - 1]) {
            word -= 1;
        }
        let name = &text[word..end];
        let known = if takes_args {
            QUALIFIER_CALLS.contains(&name)
        } else {
            QUALIFIERS.contains(&name)
        };
        if word == end || !known {
            break;
        }
        start = word;
    }
    start
}

/// Calls `f` on `node` and every node below it, in source order.
pub fn visit<'t>(node: Node<'t>, f: &mut impl FnMut(Node<'t>)) {
    f(node);
    let mut cursor = node.walk();
    for child in node.children(&mut cursor) {
        visit(child, f);
    }
}

/// All nodes of `kind` under `node`, in source order.
pub fn nodes_of_kind<'t>(node: Node<'t>, kind: &str) -> Vec<Node<'t>> {
    let mut out = vec![];
    visit(node, &mut |n| {
        if n.kind() == kind {
            out.push(n)
        }
    });
    out
}

pub fn text_of<'a>(node: Node, text: &'a str) -> &'a str {
    &text[node.byte_range()]
}

/// 1-based line of a byte offset.
pub fn line_of(text: &str, offset: usize) -> usize {
    text[..offset.min(text.len())].matches('\n').count() + 1
}

/// A call expression, seen through its qualification and template arguments:
/// `AscendC::PipeBarrier<PIPE_ALL>()` has name `PipeBarrier`, template `PIPE_ALL` and no arguments;
/// `inQueueX.EnQue(xLocal)` has name `EnQue`, receiver `inQueueX` and one argument.
#[derive(Debug, Clone, Copy)]
pub struct Call<'t> {
    pub node: Node<'t>,
    /// The function node (`AscendC::PipeBarrier<PIPE_ALL>`, `inQueueX.EnQue`).
    pub function: Node<'t>,
    pub arguments: Node<'t>,
}

impl<'t> Call<'t> {
    pub fn of(node: Node<'t>) -> Option<Call<'t>> {
        if node.kind() != "call_expression" {
            return None;
        }
        Some(Call {
            node,
            function: node.child_by_field_name("function")?,
            arguments: node.child_by_field_name("arguments")?,
        })
    }

    /// The unqualified name: the last identifier of the function, without template arguments.
    pub fn name<'a>(&self, text: &'a str) -> &'a str {
        unqualified(self.function, text)
    }

    /// The object a member function is called on (`inQueueX` in `inQueueX.EnQue(x)`), as written.
    pub fn receiver<'a>(&self, text: &'a str) -> Option<&'a str> {
        (self.function.kind() == "field_expression")
            .then(|| self.function.child_by_field_name("argument"))
            .flatten()
            .map(|n| text_of(n, text))
    }

    /// The text between the template's angle brackets, if the function has them.
    pub fn template_args<'a>(&self, text: &'a str) -> Option<&'a str> {
        let mut found = None;
        visit(self.function, &mut |n| {
            if found.is_none() && n.kind() == "template_argument_list" {
                found = Some(n)
            }
        });
        found.map(|n| {
            let t = text_of(n, text);
            t[1..t.len() - 1].trim()
        })
    }

    /// The argument expressions (comments skipped).
    pub fn args(&self) -> Vec<Node<'t>> {
        let mut cursor = self.arguments.walk();
        self.arguments
            .named_children(&mut cursor)
            .filter(|n| n.kind() != "comment")
            .collect()
    }

    pub fn arg_texts<'a>(&self, text: &'a str) -> Vec<&'a str> {
        self.args().into_iter().map(|n| text_of(n, text)).collect()
    }

    /// The statement that is exactly this call followed by `;`, if it is one.
    pub fn statement(&self) -> Option<Node<'t>> {
        let parent = self.node.parent()?;
        (parent.kind() == "expression_statement").then_some(parent)
    }

    /// Whether the call is written `AscendC::Name` (the file's habit, which rewrites keep).
    pub fn qualified(&self, text: &str) -> bool {
        text_of(self.function, text).starts_with("AscendC::")
    }
}

fn unqualified<'a>(node: Node, text: &'a str) -> &'a str {
    match node.kind() {
        "identifier" | "field_identifier" | "type_identifier" => text_of(node, text),
        "qualified_identifier" => node
            .child_by_field_name("name")
            .map_or("", |n| unqualified(n, text)),
        "template_function" | "template_method" => node
            .child_by_field_name("name")
            .map_or("", |n| unqualified(n, text)),
        "field_expression" => node
            .child_by_field_name("field")
            .map_or("", |n| unqualified(n, text)),
        _ => "",
    }
}

/// Every call in the tree whose unqualified name is `name`, in source order.
pub fn calls_named<'t>(root: Node<'t>, text: &str, name: &str) -> Vec<Call<'t>> {
    nodes_of_kind(root, "call_expression")
        .into_iter()
        .filter_map(Call::of)
        .filter(|c| c.name(text) == name)
        .collect()
}

/// The innermost ancestor of `node` (or `node` itself) of one of `kinds`.
pub fn ancestor<'t>(node: Node<'t>, kinds: &[&str]) -> Option<Node<'t>> {
    let mut cur = Some(node);
    while let Some(n) = cur {
        if kinds.contains(&n.kind()) {
            return Some(n);
        }
        cur = n.parent();
    }
    None
}

/// The function definition a node sits in, and its name (`Compute` for `KernelAdd::Compute`).
pub fn enclosing_function<'t>(node: Node<'t>, text: &str) -> Option<(Node<'t>, String)> {
    let f = ancestor(node, &["function_definition"])?;
    let mut decl = f.child_by_field_name("declarator")?;
    while decl.kind() != "function_declarator" {
        decl = decl.child_by_field_name("declarator")?;
    }
    let name = decl.child_by_field_name("declarator")?;
    Some((f, unqualified_name(name, text).to_string()))
}

fn unqualified_name<'a>(node: Node, text: &'a str) -> &'a str {
    match node.kind() {
        "qualified_identifier" => node
            .child_by_field_name("name")
            .map_or("", |n| unqualified_name(n, text)),
        _ => text_of(node, text),
    }
}

/// The function definition named `name` (first one), anywhere in the file.
pub fn function_named<'t>(root: Node<'t>, text: &str, name: &str) -> Option<Node<'t>> {
    nodes_of_kind(root, "function_definition")
        .into_iter()
        .find(|f| {
            let probe = f.child_by_field_name("body").unwrap_or(*f);
            enclosing_function(probe, text).is_some_and(|(_, n)| n == name)
        })
}

/// The span of the whole lines a node occupies when nothing but it (and a trailing `//` comment) is on
/// them: from the start of its first line to just past the newline of its last. Removing this span
/// removes the statement and its line cleanly. None when other code shares its lines.
pub fn own_lines(text: &str, node: Node) -> Option<Range<usize>> {
    let r = node.byte_range();
    let line_start = text[..r.start].rfind('\n').map_or(0, |i| i + 1);
    if !text[line_start..r.start].trim().is_empty() {
        return None;
    }
    let line_end = text[r.end..]
        .find('\n')
        .map_or(text.len(), |i| r.end + i + 1);
    let rest = text[r.end..line_end].trim();
    if !(rest.is_empty() || rest.starts_with("//")) {
        return None;
    }
    Some(line_start..line_end)
}

/// The indentation of the line that holds `offset`.
pub fn indent_at(text: &str, offset: usize) -> &str {
    let line_start = text[..offset].rfind('\n').map_or(0, |i| i + 1);
    let line = &text[line_start..];
    &line[..line.len() - line.trim_start_matches([' ', '\t']).len()]
}

/// The start of the line that holds `offset`.
pub fn line_start(text: &str, offset: usize) -> usize {
    text[..offset].rfind('\n').map_or(0, |i| i + 1)
}

/// The statements of a compound statement (`{ ... }`), comments skipped.
pub fn statements<'t>(block: Node<'t>) -> Vec<Node<'t>> {
    let mut cursor = block.walk();
    block
        .named_children(&mut cursor)
        .filter(|n| n.kind() != "comment")
        .collect()
}

/// How many syntax errors tree-sitter finds. Kernel text has a few from the start (`__aicore__` and
/// `__gm__` qualifiers are not standard C++), so edits are judged by not adding any.
pub fn syntax_errors(text: &str) -> usize {
    let tree = parse(text);
    let mut n = 0;
    visit(tree.root_node(), &mut |node| {
        if node.is_error() || node.is_missing() {
            n += 1
        }
    });
    n
}

/// `text` with `range` replaced by `with`.
pub fn splice(text: &str, range: Range<usize>, with: &str) -> String {
    let mut out = String::with_capacity(text.len() + with.len());
    out.push_str(&text[..range.start]);
    out.push_str(with);
    out.push_str(&text[range.end..]);
    out
}

/// The statements of a loop or branch body: a block's statements, or the single statement itself.
pub fn body_items<'t>(body: Node<'t>) -> Vec<Node<'t>> {
    if body.kind() == "compound_statement" {
        statements(body)
    } else {
        vec![body]
    }
}

/// The statement `node` sits in: its innermost ancestor (or itself) that is an item of a block.
pub fn statement_of(node: Node) -> Option<Node> {
    let mut cur = node;
    loop {
        let parent = cur.parent()?;
        if parent.kind() == "compound_statement" {
            return Some(cur);
        }
        cur = parent;
    }
}

fn is_loop(kind: &str) -> bool {
    matches!(kind, "for_statement" | "while_statement" | "for_range_loop")
}

/// Program order at the grain of statements, across blocks, loops, branches and calls between the
/// functions of one file: which statements may run right after (or right before) a given one. A loop
/// or branch is itself a step (its header), entered next; a statement that calls a function defined in
/// the file is followed by that function's first statement, and a function's last statement by what
/// follows each of its call sites. Over-approximates (every branch, every caller), which is what a
/// check that something cannot happen in between needs.
pub struct Flow<'t> {
    /// Function bodies by unqualified name (the first definition of a name).
    bodies: std::collections::HashMap<String, Node<'t>>,
    /// The statements that call each function, by name.
    call_sites: std::collections::HashMap<String, Vec<Node<'t>>>,
    text: &'t str,
}

impl<'t> Flow<'t> {
    pub fn new(root: Node<'t>, text: &'t str) -> Flow<'t> {
        let mut bodies = std::collections::HashMap::new();
        for f in nodes_of_kind(root, "function_definition") {
            let Some(body) = f.child_by_field_name("body") else {
                continue;
            };
            if let Some((_, name)) = enclosing_function(body, text) {
                bodies.entry(name).or_insert(body);
            }
        }
        let mut call_sites: std::collections::HashMap<String, Vec<Node<'t>>> = Default::default();
        for call in nodes_of_kind(root, "call_expression")
            .into_iter()
            .filter_map(Call::of)
        {
            let name = call.name(text);
            if !bodies.contains_key(name) {
                continue;
            }
            let inside_itself = enclosing_function(call.node, text).is_some_and(|(_, n)| n == name);
            if let (false, Some(stmt)) = (inside_itself, statement_of(call.node)) {
                call_sites.entry(name.to_string()).or_default().push(stmt);
            }
        }
        Flow {
            bodies,
            call_sites,
            text,
        }
    }

    /// The body of the function of this file a call goes to, if it goes to one.
    pub fn callee(&self, call: &Call<'t>) -> Option<Node<'t>> {
        let name = call.name(self.text);
        let body = *self.bodies.get(name)?;
        let caller = enclosing_function(call.node, self.text).map(|(_, n)| n);
        (caller.as_deref() != Some(name)).then_some(body)
    }

    /// The calls a statement makes to functions of this file (for a loop or branch, in its header only).
    pub fn local_calls(&self, item: Node<'t>) -> Vec<Node<'t>> {
        own_parts(item)
            .into_iter()
            .flat_map(|p| nodes_of_kind(p, "call_expression"))
            .filter_map(Call::of)
            .filter_map(|c| self.callee(&c))
            .collect()
    }

    /// The statements that may run right after `item` (`forward`) or right before it, entering it.
    pub fn next(&self, item: Node<'t>, forward: bool) -> Vec<Node<'t>> {
        let end = |items: Vec<Node<'t>>| {
            if forward {
                items.first().copied()
            } else {
                items.last().copied()
            }
        };
        let kind = item.kind();
        if is_loop(kind) {
            let mut out: Vec<Node<'t>> = item
                .child_by_field_name("body")
                .and_then(|b| end(body_items(b)))
                .into_iter()
                .collect();
            out.extend(self.past(item, forward));
            return out;
        }
        if kind == "if_statement" {
            let mut out = vec![];
            let branches = [
                item.child_by_field_name("consequence"),
                item.child_by_field_name("alternative")
                    .and_then(|e| e.named_child(0).filter(|n| n.kind() != "comment")),
            ];
            for branch in branches {
                match branch.and_then(|b| end(body_items(b))) {
                    Some(first) => out.push(first),
                    None => out.extend(self.past(item, forward)),
                }
            }
            return out;
        }
        if kind == "compound_statement" {
            return match end(statements(item)) {
                Some(first) => vec![first],
                None => self.past(item, forward),
            };
        }
        let callees = self.local_calls(item);
        if !callees.is_empty() {
            return callees
                .into_iter()
                .flat_map(|body| match end(statements(body)) {
                    Some(first) => vec![first],
                    None => self.past(item, forward),
                })
                .collect();
        }
        self.past(item, forward)
    }

    /// The statements that may run right after `item` has run (`forward`), or right before it started,
    /// without entering it.
    pub fn past(&self, item: Node<'t>, forward: bool) -> Vec<Node<'t>> {
        self.past_from(item, forward, &mut Vec::new())
    }

    /// `past`, leaving each function at most once: functions that call each other (or share a name)
    /// would otherwise send it from one's end to the other's callers and back without end.
    fn past_from(&self, item: Node<'t>, forward: bool, left: &mut Vec<String>) -> Vec<Node<'t>> {
        let mut sibling = if forward {
            item.next_named_sibling()
        } else {
            item.prev_named_sibling()
        };
        while let Some(s) = sibling.filter(|s| s.kind() == "comment") {
            sibling = if forward {
                s.next_named_sibling()
            } else {
                s.prev_named_sibling()
            };
        }
        if let Some(s) = sibling.filter(|_| {
            item.parent()
                .is_some_and(|p| p.kind() == "compound_statement")
        }) {
            return vec![s];
        }
        // `item` ends (or starts) its body: leave the body.
        let Some(parent) = item.parent() else {
            return vec![];
        };
        let holder = if parent.kind() == "compound_statement" {
            parent.parent()
        } else {
            Some(parent)
        };
        let Some(holder) = holder else { return vec![] };
        match holder.kind() {
            "function_definition" => {
                let Some((_, name)) = enclosing_function(item, self.text) else {
                    return vec![];
                };
                if left.contains(&name) {
                    return vec![];
                }
                left.push(name.clone());
                let mut out = vec![];
                for site in self.call_sites.get(&name).into_iter().flatten() {
                    out.extend(self.past_from(*site, forward, left));
                }
                out
            }
            k if is_loop(k) => vec![holder],
            "else_clause" => holder
                .parent()
                .map_or(vec![], |i| self.past_from(i, forward, left)),
            "if_statement" | "compound_statement" => self.past_from(holder, forward, left),
            _ => self.past_from(holder, forward, left),
        }
    }
}

/// The parts of a statement that run as its own step: a loop's or branch's header (not its body), or
/// the whole of any other statement.
pub fn own_parts(item: Node) -> Vec<Node> {
    match item.kind() {
        "for_statement" | "while_statement" | "for_range_loop" | "if_statement" => {
            let mut cursor = item.walk();
            item.children_by_field_name("initializer", &mut cursor)
                .chain(item.child_by_field_name("condition"))
                .chain(item.child_by_field_name("update"))
                .chain(item.child_by_field_name("right"))
                .collect()
        }
        "compound_statement" => vec![],
        _ => vec![item],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const K: &str = "void Compute() {\n    AscendC::Mul(z, x, y, n);\n    AscendC::PipeBarrier<PIPE_ALL>(); // safe\n    outQueueZ.EnQue<half>(z);\n}\n";

    #[test]
    fn calls_are_seen_through_qualification_and_templates() {
        let tree = parse(K);
        let root = tree.root_node();
        let barrier = calls_named(root, K, "PipeBarrier");
        assert_eq!(barrier.len(), 1);
        assert_eq!(barrier[0].template_args(K), Some("PIPE_ALL"));
        assert!(barrier[0].qualified(K));
        let enq = calls_named(root, K, "EnQue");
        assert_eq!(enq[0].receiver(K), Some("outQueueZ"));
        assert_eq!(enq[0].arg_texts(K), vec!["z"]);
        assert_eq!(calls_named(root, K, "Mul")[0].arg_texts(K).len(), 4);
        let (_, name) = enclosing_function(enq[0].node, K).unwrap();
        assert_eq!(name, "Compute");
    }

    #[test]
    fn own_lines_covers_the_statement_its_comment_and_newline() {
        let tree = parse(K);
        let stmt = calls_named(tree.root_node(), K, "PipeBarrier")[0]
            .statement()
            .unwrap();
        let span = own_lines(K, stmt).unwrap();
        assert_eq!(
            &K[span.clone()],
            "    AscendC::PipeBarrier<PIPE_ALL>(); // safe\n"
        );
        assert_eq!(indent_at(K, stmt.start_byte()), "    ");
        assert_eq!(syntax_errors(&splice(K, span, "")), 0);
        assert!(syntax_errors("void f( {") > 0);
    }

    /// A free `__aicore__ inline` function with a non-void result used to parse as an error that
    /// swallowed the class after it; the qualifiers now parse as blanks and offsets stay the text's.
    #[test]
    fn ascendc_qualifiers_do_not_lose_the_scope_after_them() {
        let k = "namespace N {\n__aicore__ inline uint64_t Up(uint64_t v) { return v + 1u; }\n\
                 template <typename T>\nclass K {\npublic:\n    __aicore__ inline void Init(GM_ADDR x)\n    {\n\
                 \x20       g.SetGlobalBuffer(reinterpret_cast<__gm__ T*>(x));\n\
                 \x20       this->pipe.InitBuffer(this->q, 1, 64);\n    }\n    TQue<QuePosition::VECIN, 1> q;\n};\n}\n\
                 extern \"C\" __global__ __mix__(1, 2) void k(GM_ADDR x) {}\n";
        assert_eq!(syntax_errors(k), 0);
        let tree = parse(k);
        let init = calls_named(tree.root_node(), k, "InitBuffer");
        assert_eq!(init[0].arg_texts(k), vec!["this->q", "1", "64"]);
        let (_, name) = enclosing_function(init[0].node, k).unwrap();
        assert_eq!(name, "Init");
        // Words that only contain a qualifier are left alone.
        assert_eq!(mask_qualifiers("int my__gm__x;"), None);
        assert_eq!(
            mask_qualifiers("#ifndef __aicore__\n#define __aicore__\n#endif\n"),
            None
        );
        assert_eq!(
            mask_qualifiers("__gm__ float* p;").as_deref(),
            Some("       float* p;")
        );
        let entry = k.find("void k(").unwrap();
        assert_eq!(
            &k[qualified_start(k, entry)..entry],
            "__global__ __mix__(1, 2) "
        );
        assert_eq!(qualified_start(k, 0), 0);
        let aiv = "void f() {\n    if ASCEND_IS_AIV {\n        g();\n    }\n    if (ASCEND_IS_AIC) { h(); }\n}\n";
        assert_eq!(syntax_errors(aiv), 0);
        assert_eq!(
            mask_qualifiers(aiv).unwrap().lines().nth(1),
            Some("    if (1          ) {")
        );
    }

    /// Functions that call each other: leaving one leads to the other's callers and back. `past` used
    /// to recurse without end here (a stack overflow on the public right_shift kernel).
    #[test]
    fn flow_leaves_functions_that_call_each_other_once() {
        let k = "void A(int n) {\n    if (n) { B(n - 1); }\n}\nvoid B(int n) {\n    A(n);\n}\nvoid C() { A(3); w(); }\n";
        let tree = parse(k);
        let root = tree.root_node();
        let flow = Flow::new(root, k);
        let stmt = |name: &str| calls_named(root, k, name)[0].statement().unwrap();
        let after: Vec<&str> = flow
            .past(stmt("A"), true)
            .iter()
            .map(|n| &k[n.byte_range()])
            .collect();
        // After `A(n);` ends B: what follows B's call in A (A's end: its callers C and B), once each.
        assert_eq!(after, ["w();"]);
    }

    #[test]
    fn flow_follows_loops_calls_and_callers() {
        let k = "void A() { x(); }\nvoid B() {\n    for (int i = 0; i < n; i++) {\n        A();\n        y();\n    }\n    z();\n}\nvoid C() { B(); w(); }\n";
        let tree = parse(k);
        let root = tree.root_node();
        let flow = Flow::new(root, k);
        let stmt = |name: &str| calls_named(root, k, name)[0].statement().unwrap();
        let texts = |v: Vec<Node>| {
            v.iter()
                .map(|n| text_of(*n, k).to_string())
                .collect::<Vec<_>>()
        };
        // Calling A enters it; A's end goes back after each of its call sites.
        assert_eq!(texts(flow.next(stmt("A"), true)), vec!["x();"]);
        assert_eq!(texts(flow.past(stmt("x"), true)), vec!["y();"]);
        // The loop body's end goes back to the loop, which runs its body again or leaves.
        let back = flow.past(stmt("y"), true);
        assert_eq!(back.len(), 1);
        assert_eq!(back[0].kind(), "for_statement");
        assert_eq!(texts(flow.next(back[0], true)), vec!["A();", "z();"]);
        // Backwards from the first statement of the loop body: the loop (previous iteration or entry).
        assert_eq!(flow.past(stmt("A"), false)[0].kind(), "for_statement");
        // B's end continues after B's call site in C.
        assert_eq!(texts(flow.past(stmt("z"), true)), vec!["w();"]);
        assert!(flow.past(stmt("w"), true).is_empty());
    }
}

// motifs-b helpers

/// `text` with several non-overlapping `edits` made at once, each range given in `text`'s offsets.
/// Insertions (empty ranges) at the same offset keep their order in `edits`.
pub fn splice_many(text: &str, edits: &[(Range<usize>, String)]) -> String {
    let mut order: Vec<&(Range<usize>, String)> = edits.iter().collect();
    order.sort_by_key(|(r, _)| (r.start, r.end));
    let mut out = String::with_capacity(text.len());
    let mut at = 0;
    for (r, with) in order {
        debug_assert!(r.start >= at, "overlapping edits");
        out.push_str(&text[at..r.start]);
        out.push_str(with);
        at = r.end;
    }
    out.push_str(&text[at..]);
    out
}

/// Where `offset` of `text` lands after `splice_many(text, edits)`, for an offset that no edit's range
/// strictly contains: every edit that ends at or before it moves it, so text inserted at `offset`
/// comes before it.
pub fn shifted(edits: &[(Range<usize>, String)], offset: usize) -> usize {
    let mut at = offset as isize;
    for (r, with) in edits {
        if r.end <= offset {
            at += with.len() as isize - r.len() as isize;
        }
    }
    at as usize
}

/// The places that assign or update `target` (a local, or a member written `m` or `this->m`): the
/// left sides of assignments and the arguments of `++`/`--`, in source order.
pub fn stores_to<'t>(root: Node<'t>, text: &str, target: &str) -> Vec<Node<'t>> {
    let member = target.trim_start_matches("this->");
    let spellings = [member.to_string(), format!("this->{member}")];
    let mut out: Vec<Node<'t>> = nodes_of_kind(root, "assignment_expression")
        .into_iter()
        .filter_map(|a| a.child_by_field_name("left"))
        .chain(
            nodes_of_kind(root, "update_expression")
                .into_iter()
                .filter_map(|u| u.child_by_field_name("argument")),
        )
        .filter(|t| spellings.iter().any(|s| s == text_of(*t, text)))
        .collect();
    out.sort_by_key(|n| n.start_byte());
    out
}

/// The names of the `identifier` nodes under `node` (not field names, types or `this`), in source order.
pub fn identifiers_in<'a>(node: Node, text: &'a str) -> Vec<&'a str> {
    nodes_of_kind(node, "identifier")
        .into_iter()
        .map(|n| text_of(n, text))
        .collect()
}

#[cfg(test)]
mod motifs_b_tests {
    use super::*;

    #[test]
    fn splice_many_edits_at_once_and_shifted_follows() {
        let t = "a\nb\nc\nd\n";
        let edits = vec![
            (2..4, String::new()),     // drop "b\n"
            (4..4, "x\n".to_string()), // insert before "c"
            (6..7, "D".to_string()),
        ];
        assert_eq!(splice_many(t, &edits), "a\nx\nc\nD\n");
        assert_eq!(shifted(&edits, 4), 4); // "c": after what was removed before it and inserted at it
        assert_eq!(shifted(&edits, 7), 7);
        let tree = parse("void f() { g(this->n * m, k); }");
        let ids = identifiers_in(tree.root_node(), "void f() { g(this->n * m, k); }");
        assert_eq!(ids, vec!["f", "g", "m", "k"]);
    }
}
