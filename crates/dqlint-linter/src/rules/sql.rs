//! The SQL of rule expressions (one shared pass over every expression, `crate::expressions`).
pub mod dq301_sql_syntax_error;
pub mod dq302_not_row_level;
pub mod dq303_nondeterministic_rule;
pub mod dq304_token_in_rule;
pub mod dq305_non_boolean_rule;
pub mod dq306_unknown_sql_function;
pub mod dq307_trailing_keyword_alias;

use crate::diagnostic::Diagnostic;
use crate::engine::{Context, Findings};
use crate::registry::rule;
use dqlint_sql::expr::ExprFact;

/// The SQL rules share one pass over the expressions; each reports the
/// facts of one kind.
pub(crate) fn report_expression_findings(
    ctx: &Context,
    out: &mut Findings,
    code: &str,
    fact: ExprFact,
) {
    let me = rule(code);
    for f in crate::expressions::findings(ctx)
        .iter()
        .filter(|f| f.kind == fact)
    {
        let mut d = Diagnostic::at(me, f.file, f.span.clone(), f.message.clone());
        for (file, span, dataset) in &f.used_at {
            d = d.related(
                &dqlint_project::Origin::new(*file, span.clone()),
                format!("imported here by the expectations of `{dataset}`"),
            );
        }
        out.push(match f.severity {
            Some(severity) => d.severity(severity),
            None => d,
        });
    }
}
