//! The columns an expression reads.

use std::ops::{ControlFlow, Range};

use sqlparser::ast::{visit_expressions, Expr};

use super::function_kinds::NILADIC_FUNCTIONS;
use super::{tokens_of, ExprOptions};
use crate::text;

/// A column an expression reads: the name as Spark resolves it (unquoted,
/// the first part of a dotted path) and where it is written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ColumnRef {
    pub name: String,
    pub range: Range<usize>,
}

/// The columns a row-level expression reads (`a > 0 AND s.city = 'x'`: `a`
/// and `s`), without lambda parameters (`exists(xs, x -> x > 0)` reads
/// `xs`); `None` when it does not parse whole. LHP tokens are blanked as
/// [`check_expression`] does.
pub fn column_references(text: &str) -> Option<Vec<ColumnRef>> {
    let subs = text::template_holes(text);
    let prepared = text::blank_code_tokens(text, &subs);
    let ctx = tokens_of(&prepared, ExprOptions::default(), "expression").ok()??;
    let expr = ctx.parse().ok()?;
    let mut lambda_params: Vec<String> = Vec::new();
    let mut idents: Vec<sqlparser::ast::Ident> = Vec::new();
    let _ = visit_expressions(&expr, |e| {
        match e {
            Expr::Lambda(l) => {
                lambda_params.extend(l.params.iter().map(|p| p.name.value.to_ascii_lowercase()))
            }
            Expr::Identifier(i) => idents.push(i.clone()),
            Expr::CompoundIdentifier(parts) => idents.extend(parts.first().cloned()),
            _ => {}
        }
        ControlFlow::<()>::Continue(())
    });
    let mut out = Vec::new();
    for ident in idents {
        // `100L`, `1.5D`: a typed number literal the tokenizer reads as a word
        let number =
            ident.quote_style.is_none() && ident.value.starts_with(|c: char| c.is_ascii_digit());
        // `current_date`, `user`: functions Spark calls without parentheses
        // when no column has the name (pyspark 4.3: `SELECT user`)
        let niladic = ident.quote_style.is_none()
            && NILADIC_FUNCTIONS
                .iter()
                .any(|f| ident.value.eq_ignore_ascii_case(f));
        if number || niladic || lambda_params.contains(&ident.value.to_ascii_lowercase()) {
            continue;
        }
        let Some(token) = ctx.token_at_location(ident.span.start) else {
            continue;
        };
        out.push(ColumnRef {
            name: ident.value,
            range: ctx.ranges[token].clone(),
        });
    }
    Some(out)
}
