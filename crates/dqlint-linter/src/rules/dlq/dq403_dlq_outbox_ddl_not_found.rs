//! ## What it does
//! Reports a DLQ whose inbox `CREATE TABLE` is in the project's `.sql`
//! files while the outbox, `<dlq_table>_outbox`, has none.
//!
//! ## Why is this bad?
//! The recycle flow MERGEs fixed rows into the outbox; LHP does not create
//! it, so recycling fails at runtime although the inbox is in place.
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
//! Add the outbox DDL; the quick fix inserts the canonical one after the
//! inbox's `CREATE TABLE`. No quick fix when another statement already
//! creates that outbox in some environment (a hard-coded name for one
//! environment): it would be created twice there.

use super::contract::dlq_outbox_ddl;
use dqlint_sql::ident::normalize_table_name;

use crate::ddl_catalog::{catalog, dlq_groups, trailing_comment_end};
use crate::diagnostic::{Applicability, Diagnostic, Edit, Fix};
use crate::engine::{Context, Findings};
use crate::registry::rule;

pub fn check(ctx: &Context, out: &mut Findings) {
    let me = rule("DQ403");
    let cat = catalog(ctx);
    for (ei, env) in ctx.envs.iter().enumerate() {
        let tables = &cat.tables[ei];
        for g in dlq_groups(ctx, env) {
            let Some(inbox) = tables.get(&g.inbox) else {
                continue;
            };
            if tables.contains_key(&g.outbox) {
                continue;
            }
            let text = &ctx.project.file(inbox.file).text;
            let mut d = Diagnostic::at(
                me,
                inbox.file,
                inbox.create.name_range.clone(),
                format!(
                    "DLQ `{}` has a `CREATE TABLE`, its outbox `{}` has none",
                    inbox.written,
                    outbox_name(&inbox.written)
                ),
            );
            // The DDL is written with the inbox's name as written: where
            // that name gives a table another statement already creates (a
            // hard-coded outbox for one environment), it would be created
            // twice there.
            let written = outbox_name(&inbox.written);
            let created_elsewhere = ctx.envs.iter().enumerate().any(|(ej, e)| {
                let resolved = e.resolve(&written);
                resolved.unresolved.is_empty()
                    && !resolved.has_secret
                    && normalize_table_name(&resolved.text)
                        .is_some_and(|n| cat.tables[ej].contains_key(&n))
            });
            if let Some(fix) = outbox_fix(text, inbox).filter(|_| !created_elsewhere) {
                d = d.fix(fix);
            }
            out.push(g.annotate(d, env, Some(inbox)));
        }
    }
}

/// `<inbox>_outbox`, inside a closing backtick.
fn outbox_name(written: &str) -> String {
    match written.strip_suffix('`') {
        Some(head) => format!("{head}_outbox`"),
        None => format!("{written}_outbox"),
    }
}

/// Inserts the canonical outbox DDL after the inbox statement (and its `;`).
fn outbox_fix(text: &str, inbox: &crate::ddl_catalog::TableDdl) -> Option<Fix> {
    let name = outbox_name(&inbox.written);
    let end = inbox.create.statement_range.end;
    let rest = text.get(end..)?;
    let trimmed = rest.trim_start();
    let ddl = dlq_outbox_ddl(&name);
    let ddl = ddl
        .trim_end()
        .strip_suffix(';')
        .unwrap_or(ddl.trim_end())
        .to_string();
    // After a `-- comment` ending the inbox's line: it stays with the inbox.
    let edits = if trimmed.starts_with(';') {
        let semicolon = end + (rest.len() - trimmed.len()) + 1;
        let at = trailing_comment_end(text, semicolon).unwrap_or(semicolon);
        vec![Edit {
            file: inbox.file,
            span: at..at,
            new_text: format!("\n\n{ddl};"),
        }]
    } else {
        // The inbox statement gets the `;` it lacks, right after it.
        match trailing_comment_end(text, end) {
            Some(eol) => vec![
                Edit {
                    file: inbox.file,
                    span: end..end,
                    new_text: ";".into(),
                },
                Edit {
                    file: inbox.file,
                    span: eol..eol,
                    new_text: format!("\n\n{ddl}"),
                },
            ],
            None => vec![Edit {
                file: inbox.file,
                span: end..end,
                new_text: format!(";\n\n{ddl}"),
            }],
        }
    };
    Some(Fix {
        applicability: Applicability::Safe,
        description: format!("Add the canonical DDL of `{name}` after the inbox"),
        edits,
    })
}
