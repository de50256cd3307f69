//! What the top-level conjuncts of a rule expression check, as typed facts
//! with the column names: `id IS NOT NULL AND price >= 0` says that `id` is
//! not null and that `price` is bounded by a literal. Policies classify
//! rules with these facts (`spec/policy.md`, "One model of expectations");
//! nothing here names a rule or a policy.

use sqlparser::ast::{BinaryOperator, Expr, UnaryOperator, Value};

use crate::expr::{arg_exprs, builtin_name, parse_rule};

/// What one top-level conjunct checks.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ConjunctFact {
    /// `c IS NOT NULL`, `NOT (c IS NULL)`, `isnotnull(c)`.
    NotNull { column: String },
    /// A comparison of a column with a literal (`c >= 0`, `0 < c`) or
    /// `c BETWEEN 1 AND 5`.
    Range { column: String },
    /// Anything else (`status IN ('a', 'b')`, `a > b`, `length(sku) = 8`).
    Other,
}

/// The facts of each top-level conjunct of `text`, in order; `None` when
/// the text does not parse as one expression.
pub fn conjunct_facts(text: &str) -> Option<Vec<ConjunctFact>> {
    let expr = parse_rule(text)?;
    let mut conjuncts = Vec::new();
    split_and(&expr, &mut conjuncts);
    Some(conjuncts.into_iter().map(fact_of).collect())
}

fn split_and<'e>(expr: &'e Expr, out: &mut Vec<&'e Expr>) {
    match expr {
        Expr::BinaryOp {
            left,
            op: BinaryOperator::And,
            right,
        } => {
            split_and(left, out);
            split_and(right, out);
        }
        Expr::Nested(inner) => match inner.as_ref() {
            Expr::BinaryOp {
                op: BinaryOperator::And,
                ..
            }
            | Expr::Nested(_) => split_and(inner, out),
            _ => out.push(expr),
        },
        _ => out.push(expr),
    }
}

fn unnest(expr: &Expr) -> &Expr {
    match expr {
        Expr::Nested(inner) => unnest(inner),
        other => other,
    }
}

fn fact_of(conjunct: &Expr) -> ConjunctFact {
    let conjunct = unnest(conjunct);
    let not_null = |e: &Expr| column_of(e).map(|column| ConjunctFact::NotNull { column });
    let fact = match conjunct {
        Expr::IsNotNull(e) => not_null(e),
        Expr::UnaryOp {
            op: UnaryOperator::Not,
            expr,
        } => match unnest(expr) {
            Expr::IsNull(e) => not_null(e),
            _ => None,
        },
        Expr::Function(f) if builtin_name(f).as_deref() == Some("isnotnull") => {
            match arg_exprs(f).as_slice() {
                [e] => not_null(e),
                _ => None,
            }
        }
        Expr::BinaryOp {
            left,
            op:
                BinaryOperator::Gt | BinaryOperator::GtEq | BinaryOperator::Lt | BinaryOperator::LtEq,
            right,
        } => match (column_of(left), column_of(right)) {
            (Some(column), None) if is_literal(right) => Some(ConjunctFact::Range { column }),
            (None, Some(column)) if is_literal(left) => Some(ConjunctFact::Range { column }),
            _ => None,
        },
        Expr::Between {
            expr,
            negated: false,
            low,
            high,
        } if is_literal(low) && is_literal(high) => {
            column_of(expr).map(|column| ConjunctFact::Range { column })
        }
        _ => None,
    };
    fact.unwrap_or(ConjunctFact::Other)
}

/// The column a plain (possibly qualified or backticked) name refers to:
/// its last part, as written.
fn column_of(expr: &Expr) -> Option<String> {
    match unnest(expr) {
        Expr::Identifier(ident) if is_suffixed_number(ident) => None,
        Expr::Identifier(ident) => Some(ident.value.clone()),
        Expr::CompoundIdentifier(parts) => parts.last().map(|p| p.value.clone()),
        _ => None,
    }
}

/// A number, string or typed literal (`DATE '2024-01-01'`), possibly
/// signed; `NULL` and booleans bound nothing.
fn is_literal(expr: &Expr) -> bool {
    match unnest(expr) {
        Expr::Value(v) => !matches!(
            v.value,
            Value::Null | Value::Boolean(_) | Value::Placeholder(_)
        ),
        Expr::TypedString(_) => true,
        Expr::Identifier(ident) => is_suffixed_number(ident),
        Expr::UnaryOp {
            op: UnaryOperator::Minus | UnaryOperator::Plus,
            expr,
        } => matches!(unnest(expr), Expr::Value(v) if matches!(v.value, Value::Number(..))),
        _ => false,
    }
}

/// `100L`, `1.5D`: a Spark number with a type suffix, which the
/// tokenizer reads as a word.
fn is_suffixed_number(ident: &sqlparser::ast::Ident) -> bool {
    ident.quote_style.is_none() && ident.value.starts_with(|c: char| c.is_ascii_digit())
}

#[cfg(test)]
mod tests {
    use super::*;
    use ConjunctFact::*;

    fn facts(text: &str) -> Vec<ConjunctFact> {
        conjunct_facts(text).expect("parses")
    }

    fn nn(c: &str) -> ConjunctFact {
        NotNull { column: c.into() }
    }

    fn range(c: &str) -> ConjunctFact {
        Range { column: c.into() }
    }

    #[test]
    fn not_null_forms() {
        assert_eq!(facts("id IS NOT NULL"), [nn("id")]);
        assert_eq!(facts("NOT (id IS NULL)"), [nn("id")]);
        assert_eq!(facts("NOT id IS NULL"), [nn("id")]);
        assert_eq!(facts("isnotnull(o.id)"), [nn("id")]);
        assert_eq!(facts("ISNOTNULL(`order id`)"), [nn("order id")]);
        assert_eq!(facts("(id IS NOT NULL)"), [nn("id")]);
    }

    #[test]
    fn range_forms() {
        assert_eq!(facts("price >= 0"), [range("price")]);
        assert_eq!(facts("0 < price"), [range("price")]);
        assert_eq!(facts("qty <= -1"), [range("qty")]);
        assert_eq!(facts("rating BETWEEN 1 AND 5"), [range("rating")]);
        assert_eq!(facts("ts > DATE '2020-01-01'"), [range("ts")]);
        assert_eq!(facts("amount < 100L"), [range("amount")]);
    }

    #[test]
    fn conjuncts_are_split_at_the_top_level_only() {
        assert_eq!(
            facts("id IS NOT NULL AND (price > 0 AND qty BETWEEN 1 AND 9)"),
            [nn("id"), range("price"), range("qty")]
        );
        // A disjunction guarantees neither side.
        assert_eq!(facts("id IS NOT NULL OR price > 0"), [Other]);
        assert_eq!(facts("NOT (id IS NOT NULL AND price > 0)"), [Other]);
    }

    #[test]
    fn other_forms() {
        for text in [
            "status IN ('a', 'b')",
            "a > b",
            "length(sku) = 8",
            "price = 0",
            "price NOT BETWEEN 1 AND 5",
            "price > NULL",
            "id IS NULL",
            "coalesce(id, 0) > 0",
            "isnotnull(a, b)",
        ] {
            assert_eq!(facts(text), [Other], "{text}");
        }
    }

    #[test]
    fn unparsable_text_has_no_facts() {
        assert_eq!(conjunct_facts("price >"), None);
        assert_eq!(conjunct_facts(""), None);
        // Substitution tokens are blanked as the SQL rules read them.
        assert_eq!(conjunct_facts("price >= ${min_price}"), Some(vec![Other]));
    }
}
