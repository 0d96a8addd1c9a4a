//! Binding tunables to source: finds the one integer literal that holds a tunable's value, using a real
//! C++ syntax tree (tree-sitter-cpp), never text search. A site is a `constexpr`/`const` variable's
//! initialiser, a `#define`'s value, an enum value, or the n-th literal argument of a named call such as
//! `SetBlockDim(8)`. Rendering a new value keeps the literal's radix and suffix (`256U` -> `1024U`).
//! A site may also be the literal a tiling function assigns to a field of its tiling data
//! (`tiling->tileNum = 8;`, `tiling.set_tileNum(8);`).
//! One binding owns a statement instead of a literal: `ub-parts-of`, the optional `var = var / N;` right
//! after the `GetCoreMemSize(CoreMemType::UB, var)` query, which is absent (N = 1) until a value other
//! than 1 is written and removed again when 1 is.

use crate::manifest::Bind;
use std::ops::Range;
use tree_sitter::{Node, Tree};

pub const HELP: &str = "bind the tunable to a `constexpr`/`const` variable, a `#define`, an enum value (symbol = \"NAME\") or a call with a literal argument (call = \"SetBlockDim\"), whose value is a plain integer literal, a tiling-data field assigned a literal (field = \"tileNum\"), or to the variable a `GetCoreMemSize(CoreMemType::UB, var)` query fills (ub-parts-of = \"var\")";

#[derive(Debug, Clone, PartialEq)]
pub struct Site {
    /// Path relative to the project root.
    pub file: String,
    /// Byte range of the digits of the literal (prefix and suffix excluded); for a `ub-parts-of` site,
    /// of the statement after the UB query and the blank before it (empty when there is none).
    pub range: Range<usize>,
    pub value: i64,
    pub radix: u32,
    /// 1-based line of the literal.
    pub line: usize,
    /// Set for a `ub-parts-of` site: what its statement divides and how it is indented.
    pub divides: Option<Divides>,
}

/// The statement a `ub-parts-of` site owns: `{indent}{var} = {var} / N;` on the line after the query.
#[derive(Debug, Clone, PartialEq)]
pub struct Divides {
    pub var: String,
    pub indent: String,
}

impl Divides {
    /// The statement (with the line break before it) that divides by `value`; none for 1.
    pub fn render(&self, value: i64) -> String {
        if value == 1 {
            String::new()
        } else {
            format!("\n{}{} = {} / {value};", self.indent, self.var, self.var)
        }
    }
}

impl Site {
    /// The text that replaces `range` to hold `value`.
    pub fn render(&self, value: i64) -> String {
        if let Some(d) = &self.divides {
            return d.render(value);
        }
        match self.radix {
            16 => format!("{value:X}"),
            2 => format!("{value:b}"),
            8 if value != 0 => format!("{value:o}"),
            _ => value.to_string(),
        }
    }
}

pub fn parse_cpp(text: &str) -> Option<Tree> {
    Some(crate::rewrite::cst::parse(text))
}

/// Finds the single site of `bind` in `text` (the contents of `file`).
pub fn find_site(text: &str, file: &str, bind: &Bind) -> Result<Site, String> {
    let tree = parse_cpp(text).ok_or_else(|| format!("could not parse {file} as C++"))?;
    if let Bind::UbParts { var, function } = bind {
        return find_ub_parts(tree.root_node(), text, file, var, function.as_deref());
    }
    let mut found: Vec<(Node, Option<Range<usize>>)> = Vec::new();
    visit(tree.root_node(), &mut |node| {
        if let Some(lit) = match_bind(node, text, bind) {
            found.push((node, lit));
        }
    });
    let what = match bind {
        Bind::Symbol(s) => format!("symbol `{s}`"),
        Bind::Call { func, arg } => format!("argument {arg} of a call to `{func}`"),
        Bind::Field { field } => format!("an assignment to the tiling field `{field}`"),
        Bind::UbParts { .. } => unreachable!("handled above"),
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
                divides: None,
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

/// The `GetCoreMemSize(<...UB...>, var)` calls of a tree, as their expression statements, with the
/// variable they fill (`ubSize` also for `*ubSize`, a query through a pointer, as helper functions that
/// return the platform's sizes write it).
pub fn ub_queries<'t>(root: Node<'t>, text: &str) -> Vec<(Node<'t>, String)> {
    let mut out = vec![];
    visit(root, &mut |n| {
        if n.kind() != "expression_statement" {
            return;
        }
        let Some(call) = n.named_child(0).filter(|c| c.kind() == "call_expression") else {
            return;
        };
        let Some(callee) = call.child_by_field_name("function") else {
            return;
        };
        let name = match callee.kind() {
            "field_expression" => callee.child_by_field_name("field"),
            "qualified_identifier" => callee.child_by_field_name("name"),
            "identifier" => Some(callee),
            _ => None,
        };
        if name.is_none_or(|m| text_of(m, text) != "GetCoreMemSize") {
            return;
        }
        let Some(list) = call_arguments(call) else {
            return;
        };
        if let [kind, var] = list.as_slice()
            && text_of(*kind, text).ends_with("UB")
            && let Some(name) = filled_variable(*var)
        {
            out.push((n, text_of(name, text).to_string()));
        }
    });
    out
}

/// The variable a query's argument fills: `v` itself, `v` in `*v`, or a member as the argument
/// names it (`this->ubSize_`, `compileInfo->ubSize`, `info.ubSize`: many tilings keep the UB size in
/// their class or their compile info).
fn filled_variable(arg: Node) -> Option<Node> {
    match arg.kind() {
        "identifier" => Some(arg),
        "pointer_expression" => arg.child_by_field_name("argument").filter(|a| {
            a.kind() == "identifier" && arg.child(0).is_some_and(|op| op.kind() == "*")
        }),
        "field_expression" => arg
            .child_by_field_name("argument")
            .is_some_and(|a| matches!(a.kind(), "identifier" | "this"))
            .then_some(arg),
        _ => None,
    }
}

/// The query's variable as it writes it (`ubSize` or `*ubSize`): the form the owned statement uses.
fn written_variable(query: Node, text: &str) -> Option<String> {
    let call = query.named_child(0)?;
    let list = call_arguments(call)?;
    list.get(1).map(|a| text_of(*a, text).to_string())
}

/// The name of the function `node` sits in, without its class or namespace (`Tiling4Real` for
/// `optiling::Tiling4Real`, `GetPlatformInfo` for a method defined out of its class).
pub fn enclosing_function(node: Node, text: &str) -> Option<String> {
    let mut n = node.parent();
    while let Some(p) = n {
        if p.kind() == "function_definition" {
            // through pointer / reference declarators to the function declarator, then its name
            let mut d = p.child_by_field_name("declarator")?;
            while d.kind() != "function_declarator" {
                d = d.child_by_field_name("declarator")?;
            }
            let name = text_of(d.child_by_field_name("declarator")?, text);
            return Some(name.rsplit("::").next().unwrap_or(name).trim().to_string());
        }
        n = p.parent();
    }
    None
}

/// The site of `ub-parts-of = var` (in `function` when given): the one UB query filling `var`, and
/// the `var = var / N;` after it.
fn find_ub_parts(
    root: Node,
    text: &str,
    file: &str,
    var: &str,
    function: Option<&str>,
) -> Result<Site, String> {
    let queries: Vec<Node> = ub_queries(root, text)
        .into_iter()
        .filter(|(n, v)| {
            v == var && function.is_none_or(|f| enclosing_function(*n, text).as_deref() == Some(f))
        })
        .map(|(n, _)| n)
        .collect();
    let query = match queries.as_slice() {
        [] => {
            let within = function.map(|f| format!(" in `{f}`")).unwrap_or_default();
            return Err(format!(
                "no `GetCoreMemSize(CoreMemType::UB, {var})`{within} in {file}"
            ));
        }
        [one] => *one,
        many => {
            let lines: Vec<String> = many
                .iter()
                .map(|n| (n.start_position().row + 1).to_string())
                .collect();
            return Err(format!(
                "`GetCoreMemSize(CoreMemType::UB, {var})` appears {} times in {file} (lines {}); a tunable must own exactly one: name its function with ub-parts-in",
                many.len(),
                lines.join(", ")
            ));
        }
    };
    let line_start = text[..query.start_byte()].rfind('\n').map_or(0, |i| i + 1);
    let indent: String = text[line_start..query.start_byte()]
        .chars()
        .take_while(|c| *c == ' ' || *c == '\t')
        .collect();
    let end = query.end_byte();
    let line = text[..end].matches('\n').count() + 1;
    let written = written_variable(query, text).unwrap_or_else(|| var.to_string());
    let divides = Some(Divides {
        var: written.clone(),
        indent: indent.clone(),
    });
    // The statement the site owns, if it is there: the next sibling, on the next line, exactly
    // `var = var / N;` with N a plain decimal literal.
    let own = query.next_named_sibling().filter(|n| {
        n.kind() == "expression_statement" && text[end..n.start_byte()] == format!("\n{indent}")
    });
    if let Some(next) = own {
        let stmt = &text[next.byte_range()];
        let prefix = format!("{written} = {written} / ");
        if let Some(n) = stmt
            .strip_prefix(&prefix)
            .and_then(|r| r.strip_suffix(';'))
            .filter(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
            .and_then(|n| n.parse::<i64>().ok())
            .filter(|&n| n > 1)
        {
            return Ok(Site {
                file: file.to_string(),
                range: end..next.end_byte(),
                value: n,
                radix: 10,
                line: line + 1,
                divides,
            });
        }
    }
    Ok(Site {
        file: file.to_string(),
        range: end..end,
        value: 1,
        radix: 10,
        line,
        divides,
    })
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
        Bind::UbParts { .. } => None,
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
        Bind::Field { field } => match node.kind() {
            // `tiling->tileNum = 8;`, `tiling.tileNum = 8;` (a compound `+=` is not a setting)
            "assignment_expression" => {
                let op = node.child_by_field_name("operator")?;
                let left = node.child_by_field_name("left")?;
                if text_of(op, text) != "=" || left.kind() != "field_expression" {
                    return None;
                }
                if text_of(left.child_by_field_name("field")?, text) != field {
                    return None;
                }
                Some(
                    node.child_by_field_name("right")
                        .and_then(|v| literal_in(v, text)),
                )
            }
            // the setter BEGIN_TILING_DATA_DEF's struct declares for the field: `tiling.set_tileNum(8)`
            "call_expression" => {
                let callee = node.child_by_field_name("function")?;
                if callee.kind() != "field_expression" {
                    return None;
                }
                let name = text_of(callee.child_by_field_name("field")?, text);
                if name.strip_prefix("set_") != Some(field.as_str()) {
                    return None;
                }
                let args = call_arguments(node)?;
                Some(match args.as_slice() {
                    [only] => literal_in(*only, text),
                    _ => None,
                })
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
        // A size written in units, `16u * 1024u` (ops-nn's nll_loss: `WORK_PER_CORE = 16u * 1024u`):
        // the leading factor is the literal, the unit stays as written (`scale_after`).
        "binary_expression" => {
            let op = node.child_by_field_name("operator")?;
            let (l, r) = (
                node.child_by_field_name("left")?,
                node.child_by_field_name("right")?,
            );
            let unit = parse_integer_literal(text_of(r, text)).map(|(v, ..)| v);
            (text_of(op, text) == "*"
                && l.kind() == "number_literal"
                && r.kind() == "number_literal"
                && unit.is_some_and(|u| u > 1))
            .then(|| literal_in(l, text))
            .flatten()
        }
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

/// The unit a site's literal is multiplied by where it is written, `16u * 1024u` -> 1024; 1 for a
/// plain literal. The tunable's value is the factor the source holds; the size it stands for is the
/// factor times this.
pub fn scale_after(text: &str, site: &Site) -> i64 {
    let rest = &text[site.range.end..];
    let rest = rest.trim_start_matches(|c: char| c.is_ascii_alphanumeric() && !c.is_ascii_digit());
    let Some(rest) = rest.trim_start().strip_prefix('*') else {
        return 1;
    };
    let rest = rest.trim_start();
    let end = rest
        .find(|c: char| !(c.is_ascii_alphanumeric()))
        .unwrap_or(rest.len());
    parse_integer_literal(&rest[..end])
        .map(|(v, ..)| v)
        .filter(|&v| v > 1)
        .unwrap_or(1)
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

/// The arguments of a call expression, comments left out; None when the node has no argument list.
pub fn call_arguments(call: Node<'_>) -> Option<Vec<Node<'_>>> {
    let args = call.child_by_field_name("arguments")?;
    let mut cursor = args.walk();
    Some(
        args.named_children(&mut cursor)
            .filter(|a| a.kind() != "comment")
            .collect(),
    )
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
    fn ub_parts_owns_the_division_after_the_ub_query_and_round_trips() {
        let src = "void T(P& p, uint64_t& ubSize) {\n    p.GetCoreMemSize(platform_ascendc::CoreMemType::UB, ubSize);\n    use(ubSize);\n}\n";
        let bind = Bind::UbParts {
            var: "ubSize".into(),
            function: None,
        };
        let s = find_site(src, "h.cpp", &bind).unwrap();
        assert_eq!((s.value, s.range.is_empty(), s.line), (1, true, 2));
        let mut three = src.to_string();
        three.replace_range(s.range.clone(), &s.render(3));
        assert_eq!(
            three,
            src.replace("UB, ubSize);\n", "UB, ubSize);\n    ubSize = ubSize / 3;\n")
        );
        let t = find_site(&three, "h.cpp", &bind).unwrap();
        assert_eq!((t.value, t.line), (3, 3));
        // Back to 1 removes the statement: the text is the original, byte for byte.
        let mut one = three.clone();
        one.replace_range(t.range.clone(), &t.render(1));
        assert_eq!(one, src);
        // A division right after the query in this form is the site's, whoever wrote it; one a line
        // further is not (N = 1 there, and it stays).
        let theirs = src.replace(
            "UB, ubSize);\n",
            "UB, ubSize);\n    ubSize = ubSize / 2; // reserve\n",
        );
        assert_eq!(find_site(&theirs, "h.cpp", &bind).unwrap().value, 2);
        let apart = src.replace(
            "UB, ubSize);\n",
            "UB, ubSize);\n\n    ubSize = ubSize / 2;\n",
        );
        assert_eq!(find_site(&apart, "h.cpp", &bind).unwrap().value, 1);
        assert!(
            find_site(
                src,
                "h.cpp",
                &Bind::UbParts {
                    var: "x".into(),
                    function: None
                }
            )
            .unwrap_err()
            .contains("no `GetCoreMemSize")
        );
    }

    /// A helper that returns the platform's sizes through pointers fills `*ubSize`: the site is the same
    /// variable, and the statement it owns divides what the pointer points to.
    #[test]
    fn ub_parts_of_a_query_through_a_pointer_divides_the_pointee() {
        let src = "int G(P& p, uint64_t* ubSize) {\n    p.GetCoreMemSize(platform_ascendc::CoreMemType::UB, *ubSize);\n    return 0;\n}\n";
        let bind = Bind::UbParts {
            var: "ubSize".into(),
            function: None,
        };
        let s = find_site(src, "h.cpp", &bind).unwrap();
        assert_eq!(s.value, 1);
        let mut two = src.to_string();
        two.replace_range(s.range.clone(), &s.render(2));
        assert_eq!(
            two,
            src.replace("*ubSize);\n", "*ubSize);\n    *ubSize = *ubSize / 2;\n")
        );
        let t = find_site(&two, "h.cpp", &bind).unwrap();
        assert_eq!(t.value, 2);
        let mut one = two.clone();
        one.replace_range(t.range.clone(), &t.render(1));
        assert_eq!(one, src);
        // `&ubSize` or an expression is not a variable the query fills.
        let addr = src.replace("*ubSize);", "ubSize + 1);");
        assert!(find_site(&addr, "h.cpp", &bind).is_err());
    }

    /// `ub-parts-in` picks one of the queries filling a variable of that name, by the function it sits
    /// in (a method defined out of its class is named without its class); without it they are ambiguous.
    #[test]
    fn ub_parts_in_a_function_picks_that_functions_query() {
        let src = "ge::graphStatus Real::GetInfo(P& p) {\n    uint64_t ub;\n    p.GetCoreMemSize(platform_ascendc::CoreMemType::UB, ub);\n    use(ub);\n}\n\
                   static int Prepare(P& p) {\n    uint64_t ub;\n    p.GetCoreMemSize(platform_ascendc::CoreMemType::UB, ub);\n    return 0;\n}\n";
        let bind = |f: Option<&str>| Bind::UbParts {
            var: "ub".into(),
            function: f.map(str::to_string),
        };
        let e = find_site(src, "h.cpp", &bind(None)).unwrap_err();
        assert!(e.contains("2 times") && e.contains("ub-parts-in"), "{e}");
        let get = find_site(src, "h.cpp", &bind(Some("GetInfo"))).unwrap();
        let prep = find_site(src, "h.cpp", &bind(Some("Prepare"))).unwrap();
        assert_eq!(get.line, 3);
        assert_eq!(prep.line, 8);
        assert!(
            find_site(src, "h.cpp", &bind(Some("Other")))
                .unwrap_err()
                .contains("in `Other`")
        );
    }

    /// Many tilings keep the UB size in their class or compile info (`this->ubSize_`,
    /// `compileInfo->ubSize`; about a fifth of ops-math / ops-nn's UB queries): the member is the
    /// variable, and the statement it owns divides the member (add_rms_norm_dynamic_quant_v2 had no
    /// UB tunable for it).
    #[test]
    fn ub_parts_of_a_query_into_a_member_divides_the_member() {
        let src = "void T::Get(P& p) {\n    p.GetCoreMemSize(platform_ascendc::CoreMemType::UB, this->ubSize_);\n    use(this->ubSize_);\n}\n";
        let tree = parse_cpp(src).unwrap();
        let vars: Vec<String> = ub_queries(tree.root_node(), src)
            .into_iter()
            .map(|(_, v)| v)
            .collect();
        assert_eq!(vars, ["this->ubSize_"]);
        let bind = Bind::UbParts {
            var: "this->ubSize_".into(),
            function: None,
        };
        let s = find_site(src, "h.cpp", &bind).unwrap();
        let mut three = src.to_string();
        three.replace_range(s.range.clone(), &s.render(3));
        assert_eq!(
            three,
            src.replace(
                "this->ubSize_);\n    use",
                "this->ubSize_);\n    this->ubSize_ = this->ubSize_ / 3;\n    use"
            )
        );
        assert_eq!(find_site(&three, "h.cpp", &bind).unwrap().value, 3);
        let info = src.replace("this->ubSize_", "compileInfo->ubSize");
        let tree = parse_cpp(&info).unwrap();
        assert_eq!(
            ub_queries(tree.root_node(), &info)[0].1,
            "compileInfo->ubSize"
        );
        // A member of a call's result is not a variable the query fills.
        let call = src.replace("this->ubSize_);", "Info()->ubSize);");
        let tree = parse_cpp(&call).unwrap();
        assert!(ub_queries(tree.root_node(), &call).is_empty());
    }

    #[test]
    fn field_finds_the_literal_a_tiling_assigns_or_sets() {
        let field = |f: &str| Bind::Field { field: f.into() };
        let src = "void T(Ctx* c) {\n  auto *tiling = c->Get();\n  tiling->totalLength = n;\n  tiling->tileNum = 0x10;\n  tiling->tileNum += 1;\n}\n";
        let site = find_site(src, "h.cpp", &field("tileNum")).unwrap();
        assert_eq!(
            (site.value, site.line, &src[site.range.clone()]),
            (16, 4, "10")
        );
        assert_eq!(site.render(32), "20");
        let e = find_site(src, "h.cpp", &field("totalLength")).unwrap_err();
        assert!(e.contains("does not hold a plain integer literal"), "{e}");
        let setter = "void T() {\n  TilingData tiling;\n  tiling.set_tileNum(8U);\n  tiling.set_total(n);\n}\n";
        let site = find_site(setter, "h.cpp", &field("tileNum")).unwrap();
        assert_eq!((site.value, &setter[site.range.clone()]), (8, "8"));
        let twice = "void T(D* t) { t->tileNum = 8; if (x) { t->tileNum = 4; } }";
        let e = find_site(twice, "h.cpp", &field("tileNum")).unwrap_err();
        assert!(e.contains("appears 2 times"), "{e}");
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
