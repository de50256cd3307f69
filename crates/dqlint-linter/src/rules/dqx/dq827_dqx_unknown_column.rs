//! ## What it does
//! With a table schema for the checks file in `[dqx.schemas]` of
//! `dqlint.toml`, reports a `column`, a `columns` item or a
//! `for_each_column` item that names a column the schema lacks, with a
//! did-you-mean. Names are compared as Spark compares them, ignoring case;
//! for a nested field (`address.city`) the top-level column is checked.
//! The columns read by the check's SQL are checked too: the item's
//! `filter` and `message_expr`, `arguments.row_filter` and
//! `sql_expression`'s `expression` (lambda parameters and functions Spark
//! calls without parentheses, such as `current_date`, are not columns).
//! `[dqx] variables` are substituted first, as DQX does. Without a schema
//! for the file the rule is silent.
//!
//! ## Why is this bad?
//! DQX validates and builds the check without looking at the data; at run
//! time it finds the column missing and **skips the check**, reporting
//! "Check evaluation skipped due to invalid check columns" (or "invalid
//! check filter", "invalid sql expression") on every row:
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
use crate::rules::dqx::{closest, string_span, substitute, ChecksFile};

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

pub fn check(ctx: &Context, file: &ChecksFile, out: &mut Findings) {
    let me = rule("DQ827");
    if ctx.dqx.schemas.is_empty() {
        return;
    }
    let Some(schema) = ctx.dqx.schema_for(&file.file.rel) else {
        return;
    };
    let hint = |name: &str| {
        closest(name, schema.columns.iter().map(String::as_str))
            .map(|c| format!(" (did you mean `{c}`?)"))
            .unwrap_or_default()
    };
    for (index, item) in file.items().iter().enumerate() {
        let Some(check) = file.resolved(ctx, index) else {
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
            let Some(text) = value.as_str() else { continue };
            let read = substitute(text, &ctx.dqx.variables);
            if read.has_unresolved() {
                continue; // DQ824's
            }
            let Some(name) = column_name(&read.text) else {
                continue;
            };
            if schema.has_column(name) {
                continue;
            }
            out.push(Diagnostic::at(
                me,
                file.id(),
                value.span.clone(),
                format!(
                    "the table of this checks file has no column `{name}`{}: DQX skips the check at run time and reports it on every row (all rows quarantined for `error`; schema from `[dqx.schemas]` \"{}\")",
                    hint(name),
                    schema.files
                ),
            ));
        }
        // The columns its SQL reads: a filter, an expression, a message.
        for (node, site) in sql_strings(item) {
            let Some(text) = node.as_str() else { continue };
            let read = substitute(text, &ctx.dqx.variables);
            let Some(refs) = dqlint_sql::expr::column_references(&read.text) else {
                continue; // DQ301's
            };
            for r in refs {
                if read.in_unresolved(&r.range) || schema.has_column(&r.name) {
                    continue;
                }
                let written = read.written(r.range);
                let from = text
                    .get(written.clone())
                    .filter(|w| w.starts_with("{{"))
                    .map(|w| format!(" (the value of `{w}`)"))
                    .unwrap_or_default();
                let span = string_span(ctx, file, node, text, written);
                out.push(Diagnostic::at(
                    me,
                    file.id(),
                    span,
                    format!(
                        "the {site} reads `{}`{from}, a column the table of this checks file lacks{}: DQX cannot evaluate it, so it skips the check at run time and reports it on every row (all rows quarantined for `error`; schema from `[dqx.schemas]` \"{}\")",
                        r.name,
                        hint(&r.name),
                        schema.files
                    ),
                ));
            }
        }
    }
}

/// The row-level SQL strings of a check: the item's `filter` and
/// `message_expr`, `arguments.row_filter`, `sql_expression`'s
/// `expression` (not `ref_row_filter`, which reads the reference table).
fn sql_strings(item: &Typed) -> Vec<(&Typed, &'static str)> {
    let mut out: Vec<(&Typed, &'static str)> = Vec::new();
    out.extend(item.get("filter").map(|f| (f, "filter")));
    out.extend(item.get("message_expr").map(|m| (m, "message_expr")));
    let check = item.get("check");
    let args = check.and_then(|c| c.get("arguments"));
    out.extend(
        args.and_then(|a| a.get("row_filter"))
            .map(|f| (f, "row_filter")),
    );
    let function = check
        .and_then(|c| c.get("function"))
        .and_then(Typed::as_str);
    if function == Some("sql_expression") {
        out.extend(
            args.and_then(|a| a.get("expression"))
                .map(|e| (e, "sql_expression")),
        );
    }
    out
}
