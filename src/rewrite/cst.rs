//! The concrete syntax tree of C++ kernel text, as motifs see it: parsing with tree-sitter-cpp, walking,
//! finding calls by their unqualified name, and the byte spans of whole statements and lines that an edit
//! removes or inserts. It knows C++ syntax and AscendC naming habits (`AscendC::` qualification); it knows
//! nothing of motifs, lessons or the tuner.

use std::ops::Range;
use tree_sitter::{Node, Parser, Tree};

/// Parses `text` as C++. tree-sitter always gives a tree; syntax errors show up as ERROR nodes.
pub fn parse(text: &str) -> Tree {
    let mut parser = Parser::new();
    parser
        .set_language(&tree_sitter_cpp::LANGUAGE.into())
        .expect("tree-sitter-cpp matches the tree-sitter version we link");
    parser
        .parse(text, None)
        .expect("parsing without a timeout or cancellation flag always returns a tree")
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
