//! ## What it does
//! Reports a string `limit`, `min_limit`, `max_limit` or `value` argument
//! that is neither a number, nor an ISO date or timestamp, nor a quoted
//! SQL string literal (`"'abc'"`), after `[dqx] variables` are
//! substituted. With a table schema for the file in `[dqx.schemas]`, a
//! limit naming a column the table lacks is an error: the run crashes.
//! Whether the expression parses is the SQL rules' (DQ301, DQ306).
//!
//! ## Why is this bad?
//! DQX's `get_limit_expr` reads such a string as a SQL expression
//! (`F.expr`): `col2 * 2` compares with another column, which may be
//! meant, but `max_limit: ten` is the column `ten`, and the run crashes
//! when no column resolves (`UNRESOLVED_COLUMN`). Worth knowing, hence
//! info.
//!
//! ## Example (bad)
//! `quality/orders_checks.yml`:
//! ```yaml
//! - criticality: error
//!   check:
//!     function: is_in_range
//!     arguments:
//!       column: quantity
//!       min_limit: 1
//!       max_limit: max_quantity
//! ```
//!
//! ## Example (good)
//! `quality/orders_checks.yml`:
//! ```yaml
//! - criticality: error
//!   check:
//!     function: is_in_range
//!     arguments:
//!       column: quantity
//!       min_limit: 1
//!       max_limit: 100
//! ```
//!
//! ## Fix
//! Write the number or date, quote a string literal (`"'abc'"`), or leave
//! a column expression that is meant.

use crate::diagnostic::Diagnostic;
use crate::engine::{Context, Findings};
use crate::registry::rule;
use crate::rules::dqx::{substitute, ChecksFile};

pub const LIMITS: &[&str] = &["limit", "min_limit", "max_limit", "value"];

/// What `get_limit_expr` does not read as an expression: digits, and what
/// `datetime.fromisoformat` parses (approximated by its date prefix); a
/// number literal or a quoted string literal is an expression that means
/// its value.
fn is_value(s: &str) -> bool {
    let t = s.trim();
    let b = t.as_bytes();
    let iso_date = b.len() >= 10
        && b[..4].iter().all(u8::is_ascii_digit)
        && b[4] == b'-'
        && b[5..7].iter().all(u8::is_ascii_digit)
        && b[7] == b'-'
        && b[8..10].iter().all(u8::is_ascii_digit);
    let compact_date = b.len() >= 8 && b[..8].iter().all(u8::is_ascii_digit);
    t.parse::<f64>().is_ok()
        || iso_date
        || compact_date
        || (t.len() >= 2 && t.starts_with('\'') && t.ends_with('\''))
}

/// A limit string DQX evaluates as SQL: not a value, and no placeholder
/// (DQ824's until it resolves).
pub fn is_expression(s: &str) -> bool {
    !is_value(s) && !s.contains("{{")
}

pub fn check(ctx: &Context, file: &ChecksFile, out: &mut Findings) {
    let me = rule("DQ823");
    let schema = ctx.dqx.schema_for(&file.file.rel);
    for (_, fields) in file.checks() {
        let Some(args) = fields.arguments else {
            continue;
        };
        for key in LIMITS {
            let Some(value) = args.get(key) else { continue };
            let Some(text) = value.as_str() else { continue };
            let read = substitute(text, &ctx.dqx.variables);
            if !is_expression(&read.text) {
                continue;
            }
            // With the table's schema: the columns it names that the table lacks.
            let missing: Vec<String> = schema
                .and_then(|s| {
                    let refs = dqlint_sql::expr::column_references(&read.text)?;
                    Some(
                        refs.into_iter()
                            .filter(|r| !read.in_unresolved(&r.range) && !s.has_column(&r.name))
                            .map(|r| format!("`{}`", r.name))
                            .collect(),
                    )
                })
                .unwrap_or_default();
            let mut d = if missing.is_empty() {
                Diagnostic::at(
                    me,
                    file.id(),
                    value.span.clone(),
                    format!(
                        "`{key}: {text}` is read as a SQL expression, not a value: DQX \
                         compares with what `{text}` evaluates to, and the run crashes when \
                         it names no column; quote it (\"'{text}'\") if it is a string"
                    ),
                )
            } else {
                Diagnostic::at(
                    me,
                    file.id(),
                    value.span.clone(),
                    format!(
                        "`{key}: {text}` is read as a SQL expression naming {}, which the \
                         table lacks (schema from `[dqx.schemas]` \"{}\"): the DQX run \
                         crashes (`UNRESOLVED_COLUMN`); write the value, or quote it \
                         (\"'{text}'\") if it is a string",
                        missing.join(", "),
                        schema.map_or("", |s| s.files.as_str())
                    ),
                )
            };
            if !missing.is_empty() {
                d = d.severity(crate::diagnostic::Severity::Error);
            }
            out.push(d);
        }
    }
}
