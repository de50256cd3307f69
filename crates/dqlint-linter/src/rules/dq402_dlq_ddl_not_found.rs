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
//! the project (the message of DQ403/DQ408 and `dqlint rule DQ402` show
//! it). No automatic fix: it would create a new file.

use crate::ddl_catalog::{catalog, dlq_groups};
use crate::diagnostic::Diagnostic;
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
                        u.action.get("quarantine").and_then(|q| q.get_str("dlq_table")).unwrap_or(&u.dlq_table)
                    ),
                );
                if g.tokenized() {
                    d = d.env(&env.name);
                }
                out.push(d);
            }
        }
    }
}
