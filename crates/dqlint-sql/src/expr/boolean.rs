//! Whether an expression can be boolean at all.

use sqlparser::ast::{BinaryOperator, DataType, Expr, UnaryOperator, Value};

use super::function_kinds::{arg_exprs, builtin_name, AGGREGATES, NON_BOOLEAN_FUNCS, WINDOW_ONLY};

pub(super) fn is_boolean_type(t: &DataType) -> bool {
    match t {
        DataType::Boolean | DataType::Bool => true,
        DataType::Custom(name, _) => name.to_string().eq_ignore_ascii_case("boolean"),
        _ => false,
    }
}

pub(super) fn is_null_literal(e: &Expr) -> bool {
    match e {
        Expr::Nested(inner) => is_null_literal(inner),
        Expr::Value(v) => matches!(v.value, Value::Null),
        _ => false,
    }
}

/// Why `e` can never be a boolean, or `None` if it may be (conservative:
/// columns, unknown functions and anything doubtful may be boolean).
pub(super) fn non_boolean_reason(e: &Expr) -> Option<String> {
    let s = |x: &str| Some(x.to_string());
    match e {
        Expr::Nested(inner) => non_boolean_reason(inner),
        Expr::Value(v) => match &v.value {
            Value::Boolean(_) | Value::Null | Value::Placeholder(_) => None,
            Value::Number(..) => s("a number literal"),
            Value::SingleQuotedString(_)
            | Value::DoubleQuotedString(_)
            | Value::EscapedStringLiteral(_)
            | Value::UnicodeStringLiteral(_)
            | Value::NationalStringLiteral(_)
            | Value::SingleQuotedRawStringLiteral(_)
            | Value::DoubleQuotedRawStringLiteral(_)
            | Value::TripleSingleQuotedString(_)
            | Value::TripleDoubleQuotedString(_) => s("a string literal"),
            _ => s("a literal"),
        },
        Expr::BinaryOp { op, .. } => match op {
            BinaryOperator::Plus
            | BinaryOperator::Minus
            | BinaryOperator::Multiply
            | BinaryOperator::Divide
            | BinaryOperator::Modulo
            | BinaryOperator::DuckIntegerDivide
            | BinaryOperator::MyIntegerDivide => s("arithmetic"),
            BinaryOperator::StringConcat => s("a string concatenation (`||`)"),
            BinaryOperator::BitwiseAnd
            | BinaryOperator::BitwiseOr
            | BinaryOperator::BitwiseXor
            | BinaryOperator::PGBitwiseXor
            | BinaryOperator::PGBitwiseShiftLeft
            | BinaryOperator::PGBitwiseShiftRight => s("a bitwise operation"),
            _ => None,
        },
        Expr::UnaryOp { op, expr } => match op {
            UnaryOperator::Minus | UnaryOperator::Plus => {
                if matches!(expr.as_ref(), Expr::Value(_)) {
                    s("a number literal")
                } else {
                    s("arithmetic")
                }
            }
            UnaryOperator::BitwiseNot => s("a bitwise operation"),
            _ => None,
        },
        Expr::Cast { data_type, .. } => {
            if is_boolean_type(data_type) {
                None
            } else {
                Some(format!("a cast to {data_type}"))
            }
        }
        Expr::TypedString(_) => s("a typed literal"),
        Expr::Interval(_) => s("an interval"),
        Expr::Array(_) | Expr::Map(_) | Expr::Struct { .. } | Expr::Dictionary(_) => {
            s("an array, map or struct value")
        }
        Expr::Tuple(_) => s("a tuple"),
        Expr::Extract { .. }
        | Expr::Ceil { .. }
        | Expr::Floor { .. }
        | Expr::Position { .. }
        | Expr::Substring { .. }
        | Expr::Trim { .. }
        | Expr::Overlay { .. }
        | Expr::AtTimeZone { .. } => s("a function that returns a non-boolean value"),
        Expr::Case {
            conditions,
            else_result,
            ..
        } => {
            let results = conditions
                .iter()
                .map(|c| &c.result)
                .chain(else_result.as_deref());
            for r in results {
                if is_null_literal(r) {
                    continue;
                }
                if let Some(why) = non_boolean_reason(r) {
                    return Some(format!("a CASE with a non-boolean result ({why})"));
                }
            }
            None
        }
        Expr::Function(f) => {
            let name = builtin_name(f)?;
            if f.over.is_some()
                || AGGREGATES.contains(&name.as_str())
                || WINDOW_ONLY.contains(&name.as_str())
            {
                return None; // reported as not row-level
            }
            if NON_BOOLEAN_FUNCS.contains(&name.as_str()) {
                return Some(format!("`{name}(...)`, which returns a non-boolean value"));
            }
            let args = arg_exprs(f);
            let results: Vec<&Expr> = match name.as_str() {
                "coalesce" | "nvl" | "ifnull" => args,
                "nullif" => args.into_iter().take(1).collect(),
                "if" | "iff" => args.into_iter().skip(1).collect(),
                "nvl2" => args.into_iter().skip(1).collect(),
                _ => return None,
            };
            for r in results {
                if is_null_literal(r) {
                    continue;
                }
                if let Some(why) = non_boolean_reason(r) {
                    return Some(format!("`{name}(...)` with a non-boolean argument ({why})"));
                }
            }
            None
        }
        _ => None,
    }
}
