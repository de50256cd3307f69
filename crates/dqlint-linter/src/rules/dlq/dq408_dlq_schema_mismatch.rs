//! ## What it does
//! Compares the column list of a DLQ inbox's and outbox's `CREATE TABLE`
//! with LHP's DLQ contract. A required column that is missing, has another
//! type, or lacks `NOT NULL` where the contract has it is an error; a
//! column the contract does not know is a warning. Tables created without a
//! column list (`CREATE TABLE ... AS SELECT`) are not checked.
//!
//! Inbox: `_dlq_sk STRING NOT NULL`, `_dlq_source_table STRING NOT NULL`,
//! `_dlq_status STRING NOT NULL`, `_dlq_timestamp TIMESTAMP NOT NULL`,
//! `_dlq_failed_rules ARRAY<STRUCT<name: STRING, rule: STRING>>`,
//! `_dlq_rescued_data STRING`, `_row_data VARIANT NOT NULL`. Outbox:
//! `_dlq_sk`, `_dlq_source_table`, `_row_data VARIANT`,
//! `_dlq_recycled_at TIMESTAMP`, all `NOT NULL`.
//!
//! ## Why is this bad?
//! The generated quarantine and recycle sinks MERGE rows of exactly this
//! shape: a missing or mistyped column fails the MERGE at runtime, and an
//! extra `NOT NULL` column without a default rejects every insert.
//!
//! ## Example (bad)
//! `pipelines/bronze/orders.yaml`:
//! ```yaml
//! pipeline: bronze
//! flowgroup: orders
//! actions:
//!   - name: load_orders
//!     type: load
//!     readMode: stream
//!     source:
//!       type: cloudfiles
//!       path: /Volumes/main/landing/orders
//!       format: json
//!     target: v_orders_raw
//!   - name: orders_dq
//!     type: transform
//!     transform_type: data_quality
//!     source: v_orders_raw
//!     target: v_orders
//!     expectations_file: expectations/orders.yaml
//!     mode: quarantine
//!     quarantine:
//!       dlq_table: main.ops.dlq
//!       source_table: main.bronze.orders
//! ```
//!
//! `expectations/orders.yaml`:
//! ```yaml
//! order_id IS NOT NULL:
//!   action: drop
//!   name: valid_order_id
//! ```
//!
//! `sql/dlq.sql`:
//! ```sql
//! CREATE TABLE IF NOT EXISTS main.ops.dlq (
//!     _dlq_sk            STRING    NOT NULL,
//!     _dlq_source_table  STRING    NOT NULL,
//!     _dlq_status        STRING    NOT NULL,
//!     _dlq_timestamp     STRING    NOT NULL,
//!     _dlq_failed_rules  ARRAY<STRUCT<name: STRING, rule: STRING>>,
//!     _dlq_rescued_data  STRING,
//!     _row_data          VARIANT   NOT NULL
//! )
//! CLUSTER BY (_dlq_source_table)
//! TBLPROPERTIES (
//!     'delta.enableChangeDataFeed' = 'true',
//!     'delta.enableRowTracking' = 'true',
//!     'delta.enableDeletionVectors' = 'true'
//! );
//!
//! CREATE TABLE IF NOT EXISTS main.ops.dlq_outbox (
//!     _dlq_sk            STRING    NOT NULL,
//!     _dlq_source_table  STRING    NOT NULL,
//!     _row_data          VARIANT   NOT NULL,
//!     _dlq_recycled_at   TIMESTAMP NOT NULL
//! )
//! CLUSTER BY (_dlq_source_table)
//! TBLPROPERTIES (
//!     'delta.enableRowTracking' = 'true',
//!     'delta.enableDeletionVectors' = 'true'
//! );
//! ```
//!
//! ## Example (good)
//! `sql/dlq.sql`:
//! ```sql
//! CREATE TABLE IF NOT EXISTS main.ops.dlq (
//!     _dlq_sk            STRING    NOT NULL,
//!     _dlq_source_table  STRING    NOT NULL,
//!     _dlq_status        STRING    NOT NULL,
//!     _dlq_timestamp     TIMESTAMP NOT NULL,
//!     _dlq_failed_rules  ARRAY<STRUCT<name: STRING, rule: STRING>>,
//!     _dlq_rescued_data  STRING,
//!     _row_data          VARIANT   NOT NULL
//! )
//! CLUSTER BY (_dlq_source_table)
//! TBLPROPERTIES (
//!     'delta.enableChangeDataFeed' = 'true',
//!     'delta.enableRowTracking' = 'true',
//!     'delta.enableDeletionVectors' = 'true'
//! );
//!
//! CREATE TABLE IF NOT EXISTS main.ops.dlq_outbox (
//!     _dlq_sk            STRING    NOT NULL,
//!     _dlq_source_table  STRING    NOT NULL,
//!     _row_data          VARIANT   NOT NULL,
//!     _dlq_recycled_at   TIMESTAMP NOT NULL
//! )
//! CLUSTER BY (_dlq_source_table)
//! TBLPROPERTIES (
//!     'delta.enableRowTracking' = 'true',
//!     'delta.enableDeletionVectors' = 'true'
//! );
//! ```
//!
//! ## Fix
//! Write the columns as the contract has them. Quick fixes add a missing
//! column and a missing `NOT NULL`; retyping a column is an unsafe fix.

use dqlint_sql::ddl::type_matches;

use super::contract::{DLQ_INBOX_COLUMNS, DLQ_OUTBOX_COLUMNS};
use crate::ddl_catalog::{append_to_list, catalog, dlq_groups, TableDdl};
use crate::diagnostic::{Applicability, Diagnostic, Edit, Fix, Severity};
use crate::engine::{Context, Findings};
use crate::registry::rule;

pub fn check(ctx: &Context, out: &mut Findings) {
    let me = rule("DQ408");
    let cat = catalog(ctx);
    for (ei, env) in ctx.envs.iter().enumerate() {
        let tables = &cat.tables[ei];
        for g in dlq_groups(ctx, env) {
            for (role, name, contract) in [
                ("inbox", &g.inbox, DLQ_INBOX_COLUMNS),
                ("outbox", &g.outbox, DLQ_OUTBOX_COLUMNS),
            ] {
                let Some(t) = tables.get(name.as_str()) else {
                    continue;
                };
                if t.create.columns.is_empty() {
                    continue;
                }
                let text = &ctx.project.file(t.file).text;
                for d in mismatches(me, t, text, role, &t.written, contract) {
                    out.push(g.annotate(d, env, Some(t)));
                }
            }
        }
    }
}

/// The contract's spelling of a type (struct field names in lower case).
fn written_type(ty: &str) -> &str {
    if ty.starts_with("ARRAY<STRUCT") {
        "ARRAY<STRUCT<name: STRING, rule: STRING>>"
    } else {
        ty
    }
}

fn mismatches(
    me: &'static crate::registry::RuleMeta,
    t: &TableDdl,
    text: &str,
    role: &str,
    name: &str,
    contract: &[(&str, &str, bool)],
) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    let columns = &t.create.columns;
    for (col, ty, not_null) in contract {
        let shown = format!(
            "`{col} {}{}`",
            written_type(ty),
            if *not_null { " NOT NULL" } else { "" }
        );
        let Some(c) = columns.iter().find(|c| c.name.eq_ignore_ascii_case(col)) else {
            let mut d = Diagnostic::at(
                me,
                t.file,
                t.create.columns_range.clone(),
                format!("DLQ {role} `{name}` lacks column {shown}"),
            );
            if let Some(last) = columns.last() {
                let indent = line_indent(text, last.range.start);
                let multiline = text
                    .get(t.create.columns_range.start..last.range.start)
                    .is_some_and(|t| t.contains('\n'));
                let column = format!(
                    "{col} {}{}",
                    written_type(ty),
                    if *not_null { " NOT NULL" } else { "" }
                );
                d = d.fix(Fix {
                    applicability: Applicability::Safe,
                    description: format!("Add column {shown}"),
                    edits: append_to_list(
                        t.file,
                        text,
                        last.range.end,
                        multiline,
                        &indent,
                        &column,
                    ),
                });
            }
            out.push(d);
            continue;
        };
        if !type_matches(&c.data_type, ty) {
            let written = text.get(c.range.clone()).unwrap_or("");
            // Keep the name and the spacing after it as written.
            let name_len = written.find(char::is_whitespace).unwrap_or(written.len());
            let gap = written[name_len..].len() - written[name_len..].trim_start().len();
            let name_written = &written[..name_len + gap];
            let name_written = if gap == 0 {
                format!("{name_written} ")
            } else {
                name_written.to_string()
            };
            let keep_not_null = c.not_null || *not_null;
            out.push(
                Diagnostic::at(
                    me,
                    t.file,
                    c.range.clone(),
                    format!(
                        "column `{}` of DLQ {role} `{name}` is `{}`, the contract has `{}`",
                        c.name,
                        c.data_type,
                        written_type(ty)
                    ),
                )
                .fix(Fix {
                    applicability: Applicability::Unsafe,
                    description: format!("Retype the column as {shown}"),
                    edits: vec![Edit {
                        file: t.file,
                        span: c.range.clone(),
                        new_text: format!(
                            "{name_written}{}{}",
                            written_type(ty),
                            if keep_not_null { " NOT NULL" } else { "" }
                        ),
                    }],
                }),
            );
        } else if *not_null && !c.not_null {
            let mut d = Diagnostic::at(
                me,
                t.file,
                c.range.clone(),
                format!(
                    "column `{}` of DLQ {role} `{name}` lacks `NOT NULL`",
                    c.name
                ),
            );
            // Only when the definition is just `name type`: append NOT NULL.
            let written = text.get(c.range.clone()).unwrap_or("");
            let rest = written
                .trim_start()
                .split_once(char::is_whitespace)
                .map(|(_, r)| r)
                .unwrap_or("");
            if type_matches(rest, ty) {
                d = d.fix(Fix {
                    applicability: Applicability::Safe,
                    description: "Add `NOT NULL`".into(),
                    edits: vec![Edit {
                        file: t.file,
                        span: c.range.end..c.range.end,
                        new_text: " NOT NULL".into(),
                    }],
                });
            }
            out.push(d);
        }
    }
    for c in columns {
        if !contract
            .iter()
            .any(|(col, _, _)| c.name.eq_ignore_ascii_case(col))
        {
            out.push(
                Diagnostic::at(
                    me,
                    t.file,
                    c.range.clone(),
                    format!(
                        "column `{}` of DLQ {role} `{name}` is not in LHP's DLQ contract",
                        c.name
                    ),
                )
                .severity(Severity::Warning),
            );
        }
    }
    out
}

fn line_indent(text: &str, at: usize) -> String {
    let Some(before) = text.get(..at) else {
        return String::new();
    };
    let start = before.rfind('\n').map(|i| i + 1).unwrap_or(0);
    before[start..]
        .chars()
        .take_while(|c| c.is_whitespace())
        .collect()
}
