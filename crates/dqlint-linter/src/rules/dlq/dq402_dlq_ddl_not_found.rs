//! ## What it does
//! Reports a quarantine action whose `dlq_table` (after substitution) has
//! no `CREATE TABLE` in any of the project's `.sql` files. Names match
//! case-insensitively, with backticks removed.
//!
//! ## Why is this bad?
//! LHP does not create the DLQ: the pipeline's MERGE into it fails until
//! someone creates the table by hand, and a hand-made table easily misses
//! the properties and columns the recycle flow needs (DQ404-DQ408 can only
//! check DDL they can see).
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
//! `sql/readme.sql`:
//! ```sql
//! -- The DLQ is created by the platform team.
//! ```
//!
//! ## Example (good)
//! `sql/readme.sql`:
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
//! Add the canonical DDL of the inbox and the outbox to a `.sql` file of
//! the project. The fix (unsafe: review the names and the file) appends it
//! to the `.sql` file that already creates a DLQ, else to the first `.sql`
//! file, with the table name as the YAML writes it (tokens as `${token}`,
//! so one DDL serves every environment). A project without any `.sql`
//! file gets no automatic fix: copy the DDL above into a new one. Nor
//! does a name DQ401 reports as invalid, or one whose inbox or outbox
//! another statement already creates in some environment (hard-coded DDL
//! for one environment): write the missing environments' DDL yourself.

use dqlint_project::{SourceFile, TokenSyntax};

use dqlint_sql::ident::{normalize_table_name, parse_table_name};

use crate::ddl_catalog::{catalog, dlq_groups, DdlCatalog};
use crate::diagnostic::{Applicability, Diagnostic, Edit, Fix};
use crate::engine::{Context, Findings};
use crate::registry::rule;

pub fn check(ctx: &Context, out: &mut Findings) {
    let me = rule("DQ402");
    let cat = catalog(ctx);
    for (ei, env) in ctx.envs.iter().enumerate() {
        for g in dlq_groups(ctx, env) {
            if cat.tables[ei].contains_key(&g.inbox) {
                continue;
            }
            for u in &g.users {
                let mut d = Diagnostic::new(
                    me,
                    &u.dlq_origin,
                    format!(
                        "no `CREATE TABLE` for DLQ `{}` in the project's `.sql` files",
                        u.action
                            .get("quarantine")
                            .and_then(|q| q.get_str("dlq_table"))
                            .unwrap_or(&u.dlq_table)
                    ),
                );
                if g.tokenized() {
                    // What the name resolves to, per environment (the
                    // merged finding lists one per environment).
                    d = d
                        .env(&env.name)
                        .related(&u.dlq_origin, format!("in {}: `{}`", env.name, u.dlq_table));
                }
                let written = u
                    .action
                    .get("quarantine")
                    .and_then(|q| q.get_str("dlq_table"))
                    .unwrap_or(&u.dlq_table);
                if let Some(fix) = create_ddl_fix(ctx, cat, written) {
                    d = d.fix(fix);
                }
                out.push(d);
            }
        }
    }
}

/// Appends the inbox and outbox DDL to the `.sql` file that already creates
/// a DLQ (else the first `.sql` file of the project).
///
/// The DDL is written with the name's tokens, so it creates the table in
/// every environment. No fix when that would be wrong somewhere: the name
/// is not a valid `catalog.schema.table` in some environment (DQ401 says
/// so; DDL for it would only fail at deploy), or another statement already
/// creates the inbox or the outbox in some environment (hard-coded DDL for
/// `dev` beside a tokenised name: a second `CREATE TABLE` for the same
/// table).
fn create_ddl_fix(ctx: &Context, cat: &DdlCatalog, dlq_table: &str) -> Option<Fix> {
    for (ei, env) in ctx.envs.iter().enumerate() {
        let resolved = env.resolve(dlq_table.trim());
        if resolved.has_secret {
            return None;
        }
        if !resolved.unresolved.is_empty() {
            continue;
        }
        parse_table_name(&resolved.text).ok()?;
        let inbox = normalize_table_name(&resolved.text)?;
        let outbox = format!("{inbox}_outbox");
        if cat.tables[ei].contains_key(&inbox) || cat.tables[ei].contains_key(&outbox) {
            return None;
        }
    }
    let sql: Vec<&SourceFile> = ctx
        .project
        .files
        .iter()
        .filter(|f| f.kind.is_sql() && f.read_error.is_none())
        .collect();
    let creates_dlq = |f: &&SourceFile| {
        let text = f.text.to_ascii_lowercase();
        text.contains("create") && text.contains("_dlq_source_table")
    };
    let target = sql
        .iter()
        .find(|f| creates_dlq(f))
        .or_else(|| sql.first())?;
    let table = dollar_tokens(dlq_table.trim());
    let separator = match target.text.as_ref() {
        "" => "",
        t if t.ends_with("\n\n") => "",
        t if t.ends_with('\n') => "\n",
        _ => "\n\n",
    };
    let new_text = format!(
        "{separator}{}\n{}",
        super::contract::dlq_inbox_ddl(&table),
        super::contract::dlq_outbox_ddl(&format!("{table}_outbox"))
    );
    let end = target.text.len();
    Some(Fix {
        applicability: Applicability::Unsafe,
        description: format!(
            "append the DDL of `{table}` and its outbox to `{}`",
            target.rel
        ),
        edits: vec![Edit {
            file: target.id,
            span: end..end,
            new_text,
        }],
    })
}

/// `{token}` (deprecated bare syntax) written as `${token}`, as SQL files
/// spell tokens.
fn dollar_tokens(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 4);
    let mut last = 0;
    for token in dqlint_project::substitution::scan_tokens(text) {
        if token.syntax == TokenSyntax::Bare {
            out.push_str(&text[last..token.range.start]);
            out.push('$');
            out.push_str(&text[token.range.clone()]);
            last = token.range.end;
        }
    }
    out.push_str(&text[last..]);
    out
}

#[cfg(test)]
mod tests {
    use super::dollar_tokens;

    #[test]
    fn bare_tokens_are_written_with_a_dollar() {
        assert_eq!(
            dollar_tokens("{catalog}.{raw_schema}.dlq"),
            "${catalog}.${raw_schema}.dlq"
        );
        assert_eq!(dollar_tokens("${catalog}.ops.dlq"), "${catalog}.ops.dlq");
        assert_eq!(dollar_tokens("main.ops.dlq"), "main.ops.dlq");
    }
}
