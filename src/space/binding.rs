//! Binding tunables to source: finds the one integer literal that holds a tunable's value, using a real
//! C++ syntax tree (tree-sitter-cpp), never text search. A site is a `constexpr`/`const` variable's
//! initialiser, a `#define`'s value, an enum value, or the n-th literal argument of a named call such as
//! `SetBlockDim(8)`. Rendering a new value keeps the literal's radix and suffix (`256U` -> `1024U`).

use crate::manifest::Bind;
use std::ops::Range;
use tree_sitter::{Node, Parser, Tree};

pub const HELP: &str = "bind the tunable to a `constexpr`/`const` variable, a `#define`, an enum value (symbol = \"NAME\") or a call with a literal argument (call = \"SetBlockDim\"), whose value is a plain integer literal";

#[derive(Debug, Clone, PartialEq)]
pub struct Site {
    /// Path relative to the project root.
    pub file: String,
    /// Byte range of the digits of the literal (prefix and suffix excluded).
    pub range: Range<usize>,
    pub value: i64,
    pub radix: u32,
    /// 1-based line of the literal.
    pub line: usize,
}

impl Site {
    /// The text that replaces `range` to hold `value`.
    pub fn render(&self, value: i64) -> String {
        match self.radix {
            16 => format!("{value:X}"),
            2 => format!("{value:b}"),
            8 if value != 0 => format!("{value:o}"),
            _ => value.to_string(),
        }
    }
}

pub fn parse_cpp(text: &str) -> Option<Tree> {
    let mut parser = Parser::new();
    parser
        .set_language(&tree_sitter_cpp::LANGUAGE.into())
        .ok()?;
    parser.parse(text, None)
}

/// Finds the single site of `bind` in `text` (the contents of `file`).
pub fn find_site(text: &str, file: &str, bind: &Bind) -> Result<Site, String> {
    let tree = parse_cpp(text).ok_or_else(|| format!("could not parse {file} as C++"))?;
    let mut found: Vec<(Node, Option<Range<usize>>)> = Vec::new();
    visit(tree.root_node(), &mut |node| {
        if let Some(lit) = match_bind(node, text, bind) {
            found.push((node, lit));
        }
    });
    let what = match bind {
        Bind::Symbol(s) => format!("symbol `{s}`"),
        Bind::Call { func, arg } => format!("argument {arg} of a call to `{func}`"),
    };
    match found.as_slice() {
        [] => Err(format!("{what} is not defined in {file}")),
        [(node, None)] => Err(format!(
            "{what} in {file}:{} does not hold a plain integer literal",
            node.start_position().row + 1
        )),
        [(_, Some(range))] => {
            let (value, radix, digits) = parse_integer_literal(&text[range.clone()])
                .ok_or_else(|| format!("{what} in {file} is not an integer literal"))?;
            let range = range.start + digits.start..range.start + digits.end;
            let line = text[..range.start].matches('\n').count() + 1;
            Ok(Site {
                file: file.to_string(),
                range,
                value,
                radix,
                line,
            })
        }
        many => {
            let lines: Vec<String> = many
                .iter()
                .map(|(n, _)| (n.start_position().row + 1).to_string())
                .collect();
            Err(format!(
                "{what} appears {} times in {file} (lines {}); a tunable must own exactly one literal",
                many.len(),
                lines.join(", ")
            ))
        }
    }
}

fn visit<'t>(node: Node<'t>, f: &mut impl FnMut(Node<'t>)) {
    f(node);
    let mut cursor = node.walk();
    for child in node.children(&mut cursor) {
        visit(child, f);
    }
}

fn text_of<'a>(node: Node, text: &'a str) -> &'a str {
    &text[node.byte_range()]
}

/// Some(literal range) when `node` is a site of `bind` with a literal, Some(None) when it is a site
/// without one, None when it is not a site.
fn match_bind(node: Node, text: &str, bind: &Bind) -> Option<Option<Range<usize>>> {
    match bind {
        Bind::Symbol(symbol) => match node.kind() {
            "init_declarator" => {
                let decl = node.child_by_field_name("declarator")?;
                if decl.kind() != "identifier" || text_of(decl, text) != symbol {
                    return None;
                }
                Some(
                    node.child_by_field_name("value")
                        .and_then(|v| literal_in(v, text)),
                )
            }
            "preproc_def" => {
                let name = node.child_by_field_name("name")?;
                if text_of(name, text) != symbol {
                    return None;
                }
                let value = node.child_by_field_name("value");
                Some(value.and_then(|v| {
                    let raw = text_of(v, text);
                    let trimmed = raw.trim_start();
                    let lead = raw.len() - trimmed.len();
                    let token_len = trimmed
                        .find(|c: char| c.is_whitespace())
                        .unwrap_or(trimmed.len());
                    let token = &trimmed[..token_len];
                    let rest = trimmed[token_len..].trim();
                    let rest_ok =
                        rest.is_empty() || rest.starts_with("//") || rest.starts_with("/*");
                    (rest_ok && parse_integer_literal(token).is_some())
                        .then(|| v.start_byte() + lead..v.start_byte() + lead + token_len)
                }))
            }
            "enumerator" => {
                let name = node.child_by_field_name("name")?;
                if text_of(name, text) != symbol {
                    return None;
                }
                Some(
                    node.child_by_field_name("value")
                        .and_then(|v| literal_in(v, text)),
                )
            }
            _ => None,
        },
        Bind::Call { func, arg } => {
            if node.kind() != "call_expression" {
                return None;
            }
            let callee = node.child_by_field_name("function")?;
            let name = match callee.kind() {
                "identifier" => text_of(callee, text),
                "field_expression" => text_of(callee.child_by_field_name("field")?, text),
                "qualified_identifier" => text_of(callee.child_by_field_name("name")?, text),
                "template_function" => text_of(callee.child_by_field_name("name")?, text),
                _ => return None,
            };
            if name != func {
                return None;
            }
            let args = node.child_by_field_name("arguments")?;
            let mut cursor = args.walk();
            let nth = args
                .named_children(&mut cursor)
                .filter(|n| n.kind() != "comment")
                .nth(*arg);
            Some(nth.and_then(|a| literal_in(a, text)))
        }
    }
}

/// The number literal that is `node`, or sole element of a brace initialiser (`X{8}`).
fn literal_in(node: Node, text: &str) -> Option<Range<usize>> {
    match node.kind() {
        "number_literal" => parse_integer_literal(text_of(node, text)).map(|_| node.byte_range()),
        "initializer_list" | "parenthesized_expression" => {
            let mut cursor = node.walk();
            let children: Vec<Node> = node.named_children(&mut cursor).collect();
            match children.as_slice() {
                [only] => literal_in(*only, text),
                _ => None,
            }
        }
        _ => None,
    }
}

/// Parses a C++ integer literal: value, radix, and the byte range of its digits.
pub fn parse_integer_literal(lit: &str) -> Option<(i64, u32, Range<usize>)> {
    let (radix, start) = if lit.starts_with("0x") || lit.starts_with("0X") {
        (16, 2)
    } else if lit.starts_with("0b") || lit.starts_with("0B") {
        (2, 2)
    } else if lit.len() > 1
        && lit.starts_with('0')
        && lit[1..].starts_with(|c: char| c.is_ascii_digit())
    {
        (8, 1)
    } else {
        (10, 0)
    };
    let body = &lit[start..];
    let digits_len = body
        .find(|c: char| !(c.is_digit(radix) || c == '\''))
        .unwrap_or(body.len());
    let suffix = &body[digits_len..];
    if digits_len == 0
        || !suffix
            .chars()
            .all(|c| matches!(c, 'u' | 'U' | 'l' | 'L' | 'z' | 'Z'))
    {
        return None;
    }
    let digits: String = body[..digits_len].chars().filter(|&c| c != '\'').collect();
    let value = i64::from_str_radix(&digits, radix).ok()?;
    Some((value, radix, start..start + digits_len))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sym(s: &str) -> Bind {
        Bind::Symbol(s.to_string())
    }

    #[test]
    fn finds_constexpr_define_enum_and_call() {
        let src = "#define TILE 256U // tile\nconstexpr int32_t BUFFER_NUM = 1;\nenum { DEPTH = 0x10 };\nvoid f(C* c) { c->SetBlockDim(8); }\nstatic const uint32_t N{32};\n";
        let t = find_site(src, "k.cpp", &sym("TILE")).unwrap();
        assert_eq!((t.value, &src[t.range.clone()], t.line), (256, "256", 1));
        let b = find_site(src, "k.cpp", &sym("BUFFER_NUM")).unwrap();
        assert_eq!((b.value, b.line), (1, 2));
        let d = find_site(src, "k.cpp", &sym("DEPTH")).unwrap();
        assert_eq!((d.value, d.radix, d.render(32)), (16, 16, "20".to_string()));
        let c = find_site(
            src,
            "k.cpp",
            &Bind::Call {
                func: "SetBlockDim".into(),
                arg: 0,
            },
        )
        .unwrap();
        assert_eq!((c.value, c.line), (8, 4));
        assert_eq!(find_site(src, "k.cpp", &sym("N")).unwrap().value, 32);
    }

    #[test]
    fn refuses_missing_ambiguous_and_non_literal() {
        let src = "const int A = 1;\nvoid f() { const int A = 2; }\nconst int B = A * 2;\n";
        assert!(
            find_site(src, "k.cpp", &sym("Z"))
                .unwrap_err()
                .contains("not defined")
        );
        assert!(
            find_site(src, "k.cpp", &sym("A"))
                .unwrap_err()
                .contains("2 times")
        );
        assert!(
            find_site(src, "k.cpp", &sym("B"))
                .unwrap_err()
                .contains("plain integer literal")
        );
    }

    #[test]
    fn literal_forms() {
        assert_eq!(parse_integer_literal("256U"), Some((256, 10, 0..3)));
        assert_eq!(parse_integer_literal("0x1F"), Some((31, 16, 2..4)));
        assert_eq!(parse_integer_literal("16'384"), Some((16384, 10, 0..6)));
        assert_eq!(parse_integer_literal("1.5f"), None);
        assert_eq!(parse_integer_literal("abc"), None);
    }
}
