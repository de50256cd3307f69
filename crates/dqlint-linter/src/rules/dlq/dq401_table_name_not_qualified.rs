//! ## What it does
//! Reports a `quarantine.dlq_table` or `quarantine.source_table` that is not
//! a three-part `catalog.schema.table` name after substitution: empty
//! parts, two or four parts, an unterminated backtick. Checked per
//! environment.
//!
//! ## Why is this bad?
//! LHP only counts dots: `a..b` passes `lhp validate` and fails in
//! Databricks; a backticked name containing a dot is rejected although it
//! is valid.
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
//!       dlq_table: main.dlq
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
//! CREATE TABLE IF NOT EXISTS main.dlq (
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
//! CREATE TABLE IF NOT EXISTS main.dlq_outbox (
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
//! Write `catalog.schema.table` (backticks allowed around each part).

use dqlint_sql::ident::{parse_table_name, NameProblem};

use crate::diagnostic::Diagnostic;
use crate::engine::{Context, Findings};
use crate::registry::rule;

pub fn check(ctx: &Context, out: &mut Findings) {
    let me = rule("DQ401");
    for (_, action) in ctx.quarantine_actions() {
        let Some(block) = action.get("quarantine") else {
            continue;
        };
        for field in ["dlq_table", "source_table"] {
            let Some(value) = block.get(field) else {
                continue;
            };
            let Some(raw) = value.as_str().filter(|s| !s.trim().is_empty()) else {
                continue;
            };
            let tokenized = raw.contains('{');
            for env in &ctx.envs {
                let resolved = env.resolve(raw);
                // Unresolved tokens are DQ601's, secrets DQ604's.
                if !resolved.unresolved.is_empty() || resolved.has_secret {
                    continue;
                }
                let problem = match parse_table_name(&resolved.text) {
                    Ok(_) => continue,
                    Err(p) => p,
                };
                let why = match problem {
                    NameProblem::Empty => "it is empty".to_string(),
                    NameProblem::EmptyPart { index } => format!("part {} is empty", index + 1),
                    NameProblem::WrongPartCount { parts } => format!("it has {parts} part(s)"),
                    NameProblem::Secret => "it contains a secret".to_string(),
                    NameProblem::UnterminatedBacktick => "a backtick is not closed".to_string(),
                };
                // No resolved value in the message: the same problem in
                // several environments must merge into one finding.
                let after = if tokenized { " after substitution" } else { "" };
                let mut d = Diagnostic::new(
                    me,
                    &value.origin,
                    format!("`{field}` `{raw}` is not a `catalog.schema.table` name{after}: {why}"),
                );
                if tokenized {
                    d = d.env(&env.name);
                }
                out.push(d);
            }
        }
    }
}
