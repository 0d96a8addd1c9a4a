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

/// Whether `name` is defined: Some(bool) when the table knows.
fn defined(name: &str) -> Option<bool> {
    KNOWN
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, v)| v.is_some())
}

/// Whether the branch of `node` (a `preproc_if`, `preproc_ifdef` or `preproc_elif`) is compiled:
/// None when its condition names a macro the table does not know.
pub fn branch_taken(node: Node, text: &str) -> Option<bool> {
    match node.kind() {
        "preproc_ifdef" => {
            let name = node.child_by_field_name("name")?;
            let negated = node.child(0).is_some_and(|t| text_of(t, text) == "#ifndef");
            defined(text_of(name, text)).map(|d| d != negated)
        }
        "preproc_if" | "preproc_elif" => {
            value(node.child_by_field_name("condition")?, text).map(|v| v != 0)
        }
        _ => None,
    }
}

/// The value of a `#if` expression, None when it depends on a macro the table does not know.
fn value(node: Node, text: &str) -> Option<i64> {
    match node.kind() {
        "number_literal" => {
            crate::space::binding::parse_integer_literal(text_of(node, text)).map(|(v, ..)| v)
        }
        "identifier" => KNOWN
            .iter()
            .find(|(n, _)| *n == text_of(node, text))
            .map(|(_, v)| v.unwrap_or(0)),
        "preproc_defined" => {
            let name = node.named_child(0)?;
            defined(text_of(name, text)).map(i64::from)
        }
        "parenthesized_expression" => value(node.named_child(0)?, text),
        "unary_expression" => {
            let v = value(node.child_by_field_name("argument")?, text)?;
            match text_of(node.child_by_field_name("operator")?, text) {
                "!" => Some(i64::from(v == 0)),
                "-" => Some(-v),
                _ => None,
            }
        }
        "binary_expression" => {
            let op = text_of(node.child_by_field_name("operator")?, text);
            let l = value(node.child_by_field_name("left")?, text);
            let r = value(node.child_by_field_name("right")?, text);
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
}
