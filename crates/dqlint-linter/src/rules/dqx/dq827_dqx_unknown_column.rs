//! ## What it does
//! With a table schema for the checks file in `[dqx.schemas]` of
//! `dqlint.toml`, reports a `column`, a `columns` item or a
//! `for_each_column` item that names a column the schema lacks, with a
//! did-you-mean. Names are compared as Spark compares them, ignoring case;
//! for a nested field (`address.city`) the top-level column is checked.
//! Arguments that are SQL expressions rather than names (`price * 2`) are
//! left to the SQL rules. Without a schema for the file the rule is silent.
//!
//! ## Why is this bad?
//! DQX validates and builds the check without looking at the data; at run
//! time it finds the column missing and **skips the check**, reporting
//! "Check evaluation skipped due to invalid check columns" on every row:
//! with `criticality: error`, **every row is quarantined** (checked with
//! `dqx_oracle.py --apply`: all rows invalid).
//!
//! ## Example (bad)
//! `dqlint.toml`:
//! ```toml
//! [dqx.schemas]
//! "quality/orders*.yml" = "order_id BIGINT, country STRING, price DECIMAL(10,2)"
//! ```
//!
//! `quality/orders_checks.yml`:
//! ```yaml
//! - criticality: error
//!   check:
//!     function: is_not_null
//!     arguments:
//!       column: order_idd
//! ```
//!
//! ## Example (good)
//! `quality/orders_checks.yml`:
//! ```yaml
//! - criticality: error
//!   check:
//!     function: is_not_null
//!     arguments:
//!       column: order_id
//! ```
//!
//! ## Fix
//! Name a column of the table (or update the schema in `dqlint.toml` when
//! the table changed).

use dqlint_dqx::Typed;

use crate::diagnostic::Diagnostic;
use crate::engine::{Context, Findings};
use crate::registry::rule;
use crate::rules::dqx::{checks_files, closest, resolved_in};

/// The top-level column a value names, when it is a plain name, a dotted
/// path or a backticked name; `None` for an expression.
fn column_name(text: &str) -> Option<&str> {
    let text = text.trim();
    if let Some(inner) = text.strip_prefix('`').and_then(|t| t.strip_suffix('`')) {
        return (!inner.contains('`')).then_some(inner);
    }
    let first = text.split('.').next()?;
    let ident = |s: &str| {
        let mut chars = s.chars();
        chars.next().is_some_and(|c| c.is_alphabetic() || c == '_')
            && chars.all(|c| c.is_alphanumeric() || c == '_')
    };
    text.split('.').all(ident).then_some(first)
}

pub fn check(ctx: &Context, out: &mut Findings) {
    let me = rule("DQ827");
    if ctx.dqx.schemas.is_empty() {
        return;
    }
    for file in checks_files(ctx) {
        let Some(schema) = ctx.dqx.schema_for(&file.file.rel) else {
            continue;
        };
        let known = |name: &str| schema.columns.iter().any(|c| c.eq_ignore_ascii_case(name));
        for item in file.items() {
            let Some(check) = resolved_in(ctx, item) else {
                continue;
            };
            let mut named: Vec<&Typed> = Vec::new();
            for entry in check.arguments {
                match entry.key.as_str() {
                    Some("column") => named.push(&entry.value),
                    Some("columns") => named.extend(entry.value.as_list().unwrap_or(&[])),
                    _ => {}
                }
            }
            for item in check.for_each_column.unwrap_or(&[]) {
                match item.as_list() {
                    Some(list) => named.extend(list),
                    None => named.push(item),
                }
            }
            for value in named {
                let Some(name) = value.as_str().and_then(column_name) else {
                    continue;
                };
                if known(name) {
                    continue;
                }
                let hint = closest(name, schema.columns.iter().map(String::as_str))
                    .map(|c| format!(" (did you mean `{c}`?)"))
                    .unwrap_or_default();
                out.push(Diagnostic::at(
                    me,
                    file.id(),
                    value.span.clone(),
                    format!(
                        "the table of this checks file has no column `{name}`{hint}: DQX skips the check at run time and reports it on every row (all rows quarantined for `error`; schema from `[dqx.schemas]` \"{}\")",
                        schema.files
                    ),
                ));
            }
        }
    }
}
