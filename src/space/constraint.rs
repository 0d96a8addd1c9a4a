//! Constraints: boolean expressions over tunables and facts (`x_elems % (block_dim * tile_length) == 0`),
//! compiled once and checked for every candidate before anything is built. Expressions are evaluated by
//! the `evalexpr` crate (integer arithmetic with overflow checks, comparisons, `&&`, `||`) rather than by a
//! home-made parser.

use evalexpr::{
    ContextWithMutableVariables, DefaultNumericTypes, EvalexprError, HashMapContext, Node, Value,
};
use std::collections::BTreeMap;

#[derive(Debug, Clone)]
pub struct Constraint {
    text: String,
    tree: Node<DefaultNumericTypes>,
}

impl Constraint {
    /// Parses `text` and checks that it names only known tunables and facts.
    pub fn compile(
        text: &str,
        tunables: &[&str],
        facts: &BTreeMap<String, i64>,
    ) -> Result<Self, String> {
        let tree = evalexpr::build_operator_tree::<DefaultNumericTypes>(text)
            .map_err(|e| format!("cannot parse: {e}"))?;
        for id in tree.iter_variable_identifiers() {
            if !tunables.contains(&id) && !facts.contains_key(id) {
                return Err(format!("`{id}` is neither a tunable nor a known fact"));
            }
        }
        let c = Constraint {
            text: text.to_string(),
            tree,
        };
        // Evaluate once with every name set to 1: this finds expressions that are not comparisons or that
        // miss an operand, which the parser lets through. Arithmetic errors depend on values; they are not
        // errors of the expression.
        let ones: BTreeMap<String, i64> = tunables
            .iter()
            .map(|t| (t.to_string(), 1))
            .chain(facts.keys().map(|k| (k.clone(), 1)))
            .collect();
        let mut ctx = HashMapContext::<DefaultNumericTypes>::new();
        for (k, v) in &ones {
            ctx.set_value(k.clone(), Value::Int(*v))
                .map_err(|e| e.to_string())?;
        }
        match c.tree.eval_boolean_with_context(&ctx) {
            Ok(_)
            | Err(
                EvalexprError::AdditionError { .. }
                | EvalexprError::SubtractionError { .. }
                | EvalexprError::MultiplicationError { .. }
                | EvalexprError::DivisionError { .. }
                | EvalexprError::ModulationError { .. },
            ) => Ok(c),
            Err(e) => Err(format!("is not a true/false expression: {e}")),
        }
    }

    pub fn text(&self) -> &str {
        &self.text
    }

    /// Ok when the constraint holds for these values; otherwise why not.
    pub fn check(
        &self,
        values: &BTreeMap<String, i64>,
        facts: &BTreeMap<String, i64>,
    ) -> Result<(), String> {
        let mut ctx = HashMapContext::<DefaultNumericTypes>::new();
        for (k, v) in values.iter().chain(facts.iter()) {
            ctx.set_value(k.clone(), Value::Int(*v))
                .map_err(|e| e.to_string())?;
        }
        match self.tree.eval_boolean_with_context(&ctx) {
            Ok(true) => Ok(()),
            Ok(false) => Err(format!("violates `{}`", self.text)),
            Err(e) => Err(format!("`{}` cannot be evaluated: {e}", self.text)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn checks_divisibility_and_capacity() {
        let facts: BTreeMap<String, i64> = [
            ("x_elems".to_string(), 786432),
            ("ub_bytes".to_string(), 196352),
        ]
        .into();
        let c = Constraint::compile(
            "x_elems % (block_dim * tile_length) == 0 && 6 * tile_length <= ub_bytes",
            &["block_dim", "tile_length"],
            &facts,
        )
        .unwrap();
        let v = |b: i64, t: i64| {
            BTreeMap::from([("block_dim".to_string(), b), ("tile_length".to_string(), t)])
        };
        assert!(c.check(&v(48, 16384), &facts).is_ok());
        assert!(c.check(&v(40, 16384), &facts).is_err());
        assert!(c.check(&v(1, 65536), &facts).is_err());
    }

    #[test]
    fn unknown_names_and_bad_syntax_are_refused() {
        let facts = BTreeMap::new();
        assert!(
            Constraint::compile("tile <= 3", &["tile_length"], &facts)
                .unwrap_err()
                .contains("`tile`")
        );
        assert!(Constraint::compile("tile_length <= ", &["tile_length"], &facts).is_err());
        assert!(Constraint::compile("tile_length * 2", &["tile_length"], &facts).is_err());
    }

    #[test]
    fn division_by_zero_is_a_violation_not_a_panic() {
        let facts = BTreeMap::new();
        let c = Constraint::compile("10 % a == 0", &["a"], &facts).unwrap();
        assert!(
            c.check(&BTreeMap::from([("a".to_string(), 0)]), &facts)
                .is_err()
        );
    }
}
