//! Which branch of a `#if` / `#ifdef` a twin build compiles, as far as the macros the twin defines
//! tell: operators keep their kernel entry inside such branches (`#ifdef __CCE_KT_TEST__` for the old
//! CPU unit tests, `#if __CCE_AICORE__ == 310` for another generation), and the entry the build sees is
//! the one `init` must take. Owns the table of those macros and a small evaluator of `#if`
//! conditions over it; knows nothing of entries, manifests or builds.

use crate::rewrite::cst::text_of;
use tree_sitter::Node;

/// Macros as the twin's kernel build sees them for its default SoC (Ascend910B, dav-2201):
/// `kernel_operator.h` defines `__NPU_ARCH__` 2201, `__CCE_AICORE__` 220 and `ASCENDC_CPU_DEBUG`; the
/// CPU unit-test macro `__CCE_KT_TEST__` is not defined (the twin builds the device paths). `None`:
/// known to be undefined.
const KNOWN: &[(&str, Option<i64>)] = &[
    ("__NPU_ARCH__", Some(2201)),
    ("__CCE_AICORE__", Some(220)),
    ("ASCENDC_CPU_DEBUG", Some(1)),
    ("__CCE_KT_TEST__", None),
];

/// The SoCs (their short names) whose device build the table describes: dav-2201.
pub const TABLE_SOCS: &[&str] = &["ascend910b", "ascend910_93"];

/// Definitions a build passes beyond the table (`-DSCENARIO_NUM=1`): name -> value.
pub type Defines = std::collections::BTreeMap<String, i64>;

/// What a condition is judged by: the build's own definitions, and the table where the build is one it
/// describes (a dav-2201 SoC; another SoC's build defines other values, so the table is left out).
#[derive(Clone, Copy)]
pub struct Macros<'a> {
    pub extra: &'a Defines,
    pub table: bool,
}

/// Whether `name` is defined: Some(bool) when the build's definitions or the table know.
fn defined(name: &str, m: Macros) -> Option<bool> {
    if m.extra.contains_key(name) {
        return Some(true);
    }
    KNOWN
        .iter()
        .filter(|_| m.table)
        .find(|(n, _)| *n == name)
        .map(|(_, v)| v.is_some())
}

/// Whether the branch of `node` (a `preproc_if`, `preproc_ifdef` or `preproc_elif`) is compiled:
/// None when its condition names a macro the table does not know.
pub fn branch_taken(node: Node, text: &str) -> Option<bool> {
    let none = Defines::new();
    branch_taken_with(
        node,
        text,
        Macros {
            extra: &none,
            table: true,
        },
    )
}

/// As `branch_taken`, judged by `m`.
pub fn branch_taken_with(node: Node, text: &str, m: Macros) -> Option<bool> {
    match node.kind() {
        "preproc_ifdef" => {
            let name = node.child_by_field_name("name")?;
            let negated = node.child(0).is_some_and(|t| text_of(t, text) == "#ifndef");
            defined(text_of(name, text), m).map(|d| d != negated)
        }
        "preproc_if" | "preproc_elif" => {
            value(node.child_by_field_name("condition")?, text, m).map(|v| v != 0)
        }
        _ => None,
    }
}

/// Whether the byte at `at` of `text` (parsed as `root`) lies in a branch the build leaves out: an
/// enclosing `#if` / `#elif` / `#ifdef` whose condition `m` settles, false where `at` is in its body or
/// true where `at` is in its `#elif` / `#else`. A motif's site there is code that is never compiled nor
/// measured, yet an edit to it would be written back (asc-devkit's matmul_ibshareB keeps its pure Cube
/// scenario's Matmul under `#if SCENARIO_NUM == 2`).
pub fn left_out(text: &str, root: Node, at: usize, m: Macros) -> bool {
    let mut from = root.descendant_for_byte_range(at, at);
    while let Some(child) = from {
        let Some(node) = child.parent() else {
            break;
        };
        let in_alternative = node
            .child_by_field_name("alternative")
            .is_some_and(|a| a.id() == child.id());
        if branch_taken_with(node, text, m) == Some(in_alternative) {
            return true;
        }
        from = Some(node);
    }
    false
}

/// `text` with what the twin's build does not compile blanked out (spaces, newlines kept, so offsets
/// and line numbers still hold): the body of a `#if` / `#ifdef` / `#elif` whose condition is false,
/// every `#elif` / `#else` after one that is true, and the directives whose condition is settled, so
/// the code left parses as the compiler sees it (ops-nn's adaptive_avg_pool3d splits an `if` / `else
/// if` chain with `#if __CCE_AICORE__ >= 220`, which tree-sitter cannot parse as written). Branches
/// over macros the table does not know are kept, both sides, with their directives. Line-based, as
/// the preprocessor is: a broken parse of the code between directives does not matter. ops-nn's
/// chamfer_distance_grad defines its tiling struct for the old CPU unit tests only
/// (`#ifdef __CCE_KT_TEST__`): a reader of the raw text would think the kernel has it.
pub fn compiled_text(text: &str) -> String {
    let mut frames: Vec<Frame> = vec![];
    let mut out = String::with_capacity(text.len());
    let mut lines = text.split_inclusive('\n');
    while let Some(first) = lines.next() {
        // A directive continues over lines that end in a backslash.
        let mut line = first.to_string();
        while line.trim_end().ends_with('\\') {
            let Some(next) = lines.next() else { break };
            line.push_str(next);
        }
        let dead = dead_outside(&frames);
        let directive = line
            .trim_start()
            .strip_prefix('#')
            .map(|d| d.trim_start())
            .map(|d| {
                let word: String = d.chars().take_while(|c| c.is_ascii_alphabetic()).collect();
                (word, d.to_string())
            });
        let mut blank = dead;
        match directive.as_ref().map(|(w, d)| (w.as_str(), d.as_str())) {
            Some(("if" | "ifdef" | "ifndef", d)) => {
                let settled = if dead {
                    Some((false, true))
                } else {
                    condition(&format!("#{d}")).map(|b| (b, b))
                };
                blank = dead || settled.is_some();
                frames.push(Frame { settled });
            }
            Some(("elif", d)) => {
                if let Some(f) = frames.last_mut() {
                    if let Some((_, any)) = f.settled {
                        let outside = dead_outside(&frames[..frames.len() - 1]);
                        let cond = condition(&format!("#if {}", &d[4..]));
                        let f = frames.last_mut().unwrap();
                        if outside || any || cond.is_some() {
                            let now = !outside && !any && cond == Some(true);
                            f.settled = Some((now, any || now));
                            blank = true;
                        } else {
                            // Unsettled from here: the `#elif` opens the branches kept as written,
                            // as an `#if` of the same length (its own `#if` was blanked).
                            f.settled = None;
                            line = line.replacen("elif", "if  ", 1);
                        }
                    } else {
                        blank = dead_outside(&frames[..frames.len() - 1]);
                    }
                }
            }
            Some(("else", _)) => {
                if let Some(f) = frames.last_mut() {
                    if let Some((_, any)) = f.settled {
                        f.settled = Some((!any, true));
                        blank = true;
                    } else {
                        blank = dead_outside(&frames[..frames.len() - 1]);
                    }
                }
            }
            Some(("endif", _)) => {
                if let Some(f) = frames.pop() {
                    blank = f.settled.is_some() || dead_outside(&frames);
                }
            }
            _ => {}
        }
        if blank {
            // One space per byte: a comment in Chinese keeps the offsets after it.
            for c in line.chars() {
                match c {
                    '\n' => out.push('\n'),
                    c => out.extend(std::iter::repeat_n(' ', c.len_utf8())),
                }
            }
        } else {
            out.push_str(&line);
        }
    }
    out
}

/// One open `#if` of `compiled_text`: None while its conditions are not the table's to settle; else
/// whether the branch now read is compiled, and whether an earlier one was.
struct Frame {
    settled: Option<(bool, bool)>,
}

/// Whether an enclosing `#if` leaves the current line out.
fn dead_outside(frames: &[Frame]) -> bool {
    frames
        .iter()
        .any(|f| f.settled.is_some_and(|(now, _)| !now))
}

/// Whether a lone directive (`#if X`, `#ifdef X`, `#ifndef X`) is compiled, as `branch_taken` says.
fn condition(directive: &str) -> Option<bool> {
    let text = format!("{}\n#endif\n", directive.trim_end());
    let tree = crate::rewrite::cst::parse(&text);
    let node = tree.root_node().named_child(0)?;
    branch_taken(node, &text)
}

/// The value of a `#if` expression, None when it depends on a macro the table does not know.
fn value(node: Node, text: &str, m: Macros) -> Option<i64> {
    match node.kind() {
        "number_literal" => {
            crate::space::binding::parse_integer_literal(text_of(node, text)).map(|(v, ..)| v)
        }
        "identifier" => m.extra.get(text_of(node, text)).copied().or_else(|| {
            KNOWN
                .iter()
                .filter(|_| m.table)
                .find(|(n, _)| *n == text_of(node, text))
                .map(|(_, v)| v.unwrap_or(0))
        }),
        "preproc_defined" => {
            let name = node.named_child(0)?;
            defined(text_of(name, text), m).map(i64::from)
        }
        "parenthesized_expression" => value(node.named_child(0)?, text, m),
        "unary_expression" => {
            let v = value(node.child_by_field_name("argument")?, text, m)?;
            match text_of(node.child_by_field_name("operator")?, text) {
                "!" => Some(i64::from(v == 0)),
                "-" => Some(-v),
                _ => None,
            }
        }
        "binary_expression" => {
            let op = text_of(node.child_by_field_name("operator")?, text);
            let l = value(node.child_by_field_name("left")?, text, m);
            let r = value(node.child_by_field_name("right")?, text, m);
            match op {
                // Short circuits decide with one side unknown.
                "&&" if l == Some(0) || r == Some(0) => Some(0),
                "||" if l.is_some_and(|v| v != 0) || r.is_some_and(|v| v != 0) => Some(1),
                _ => {
                    let (l, r) = (l?, r?);
                    Some(match op {
                        "&&" => i64::from(l != 0 && r != 0),
                        "||" => i64::from(l != 0 || r != 0),
                        "==" => i64::from(l == r),
                        "!=" => i64::from(l != r),
                        "<" => i64::from(l < r),
                        "<=" => i64::from(l <= r),
                        ">" => i64::from(l > r),
                        ">=" => i64::from(l >= r),
                        _ => return None,
                    })
                }
            }
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rewrite::cst;

    fn taken(directive: &str) -> Option<bool> {
        let text = format!("{directive}\nint x;\n#endif\n");
        let tree = cst::parse(&text);
        let node = tree.root_node().named_child(0).unwrap();
        branch_taken(node, &text)
    }

    #[test]
    fn conditions_over_the_twins_macros_are_decided_and_others_are_not() {
        assert_eq!(taken("#ifdef __CCE_KT_TEST__"), Some(false));
        assert_eq!(taken("#ifndef __CCE_KT_TEST__"), Some(true));
        assert_eq!(taken("#if defined(__CCE_KT_TEST__)"), Some(false));
        assert_eq!(
            taken("#if defined(__CCE_AICORE__) && __CCE_AICORE__ == 310"),
            Some(false)
        );
        assert_eq!(taken("#if __CCE_AICORE__ >= 220"), Some(true));
        assert_eq!(taken("#if !(__NPU_ARCH__ == 3510)"), Some(true));
        // One side unknown: `&&` with a false side and `||` with a true one still decide.
        assert_eq!(
            taken("#if defined(MY_FLAG) && __NPU_ARCH__ == 3510"),
            Some(false)
        );
        assert_eq!(
            taken("#if defined(MY_FLAG) || __NPU_ARCH__ == 2201"),
            Some(true)
        );
        assert_eq!(taken("#ifdef MY_FLAG"), None);
        assert_eq!(taken("#if MY_LEVEL > 2"), None);
    }

    #[test]
    fn compiled_text_blanks_the_branches_the_twin_does_not_build() {
        let text = "#ifdef __CCE_KT_TEST__\nstruct T { int a; }; // 测试\n#endif\n\
                    #if __CCE_AICORE__ == 220\nint kept;\n#else\nint gone;\n#endif\n\
                    #ifdef MY_FLAG\nint both;\n#else\nint sides;\n#endif\n";
        let out = compiled_text(text);
        assert_eq!(out.len(), text.len());
        assert_eq!(out.lines().count(), text.lines().count());
        assert!(!out.contains("struct T"), "{out}");
        assert!(
            out.contains("int kept;") && !out.contains("int gone;"),
            "{out}"
        );
        assert!(
            out.contains("int both;") && out.contains("int sides;"),
            "{out}"
        );
        assert!(
            out.contains("#ifdef MY_FLAG") && !out.contains("#if __CCE"),
            "{out}"
        );
        // ops-nn's adaptive_avg_pool3d: settled directives inside an `else if` chain are blanked, so
        // the function parses; nested branches under an untaken one stay out whatever they say.
        let chain = "void f(int k) {\n  if (k == 1) {\n    a();\n\
                     #if __CCE_AICORE__ >= 220 && !(defined(__NPU_ARCH__) && __NPU_ARCH__ == 3003)\n\
                     } else if (k == 2) {\n    b();\n#endif\n  }\n}\n\
                     #if __CCE_AICORE__ == 310\n#ifndef __CCE_KT_TEST__\nint nested;\n#else\nint n2;\n#endif\n\
                     #elif __CCE_AICORE__ == 220\nint second;\n#else\nint third;\n#endif\n";
        let out = compiled_text(chain);
        assert!(
            out.contains("} else if (k == 2) {") && !out.contains('#'),
            "{out}"
        );
        assert!(!out.contains("nested") && !out.contains("n2"), "{out}");
        assert!(
            out.contains("int second;") && !out.contains("third"),
            "{out}"
        );
        assert!(
            !crate::rewrite::cst::parse(&out).root_node().has_error(),
            "{out}"
        );
    }

    const SCENARIOS: &str = "#if SCENARIO_NUM == 2\nint cube;\n#elif SCENARIO_NUM == 3\nint three;\n#else\nint mix;\n#endif\n\
#ifdef SCENARIO_NUM\nint defined_;\n#endif\n#ifndef SCENARIO_NUM\nint undefined_;\n#endif\n\
#if MY_ARCH == 2201\nint arch;\n#endif\n#if __NPU_ARCH__ == 3510\nint regbase;\n#endif\nint always;\n";

    fn left_out_on(name: &str, extra: &[(&str, i64)], table: bool) -> bool {
        let extra: Defines = extra.iter().map(|(k, v)| (k.to_string(), *v)).collect();
        let tree = cst::parse(SCENARIOS);
        let m = Macros {
            extra: &extra,
            table,
        };
        left_out(
            SCENARIOS,
            tree.root_node(),
            SCENARIOS.find(name).unwrap(),
            m,
        )
    }

    fn left_out_at(name: &str, extra: &[(&str, i64)]) -> bool {
        left_out_on(name, extra, true)
    }

    #[test]
    fn a_site_is_left_out_only_under_a_branch_the_build_settles_against_it() {
        let one = [("SCENARIO_NUM", 1)];
        assert!(left_out_at("cube", &one));
        assert!(left_out_at("three", &one));
        assert!(!left_out_at("mix", &one));
        assert!(!left_out_at("defined_", &one));
        assert!(left_out_at("undefined_", &one));
        assert!(
            !left_out_at("arch", &one),
            "MY_ARCH is neither the build's nor the table's"
        );
        assert!(left_out_at("regbase", &one), "the twin builds dav-2201");
        assert!(!left_out_at("always", &one));
        assert!(!left_out_at("cube", &[("SCENARIO_NUM", 2)]));
        assert!(left_out_at("mix", &[("SCENARIO_NUM", 2)]));
        assert!(!left_out_at("three", &[("SCENARIO_NUM", 3)]));
        assert!(left_out_at("mix", &[("SCENARIO_NUM", 3)]));
        // Without the build's definitions, its scenarios are not known.
        assert!(!left_out_at("cube", &[]));
        assert!(!left_out_at("mix", &[]));
        // Another SoC's build (no table): its architecture is not dav-2201's.
        assert!(!left_out_on("regbase", &[("SCENARIO_NUM", 1)], false));
        assert!(left_out_on("cube", &[("SCENARIO_NUM", 1)], false));
    }
}
