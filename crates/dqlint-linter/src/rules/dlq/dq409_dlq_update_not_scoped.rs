//! ## What it does
//! Reports an `UPDATE` of a known DLQ table (the inbox or outbox of a
//! quarantine action) in a `.sql` file whose `WHERE` does not constrain
//! `_dlq_source_table` with `=` or `IN`.
//!
//! ## Why is this bad?
//! A DLQ is usually shared by several source tables. An `UPDATE` that
//! marks rows `fixed` without pinning the source table re-injects rows into
//! every pipeline's recycle flow, not just the one being remediated.
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
//! `sql/remediation/fix_orders.sql`:
//! ```sql
//! UPDATE main.ops.dlq
//! SET _dlq_status = 'fixed'
//! WHERE _dlq_status = 'quarantined'
//!   AND _row_data:amount::double >= 0;
//! ```
//!
//! ## Example (good)
//! `sql/remediation/fix_orders.sql`:
//! ```sql
//! UPDATE main.ops.dlq
//! SET _dlq_status = 'fixed'
//! WHERE _dlq_status = 'quarantined'
//!   AND _row_data:amount::double >= 0
//!   AND _dlq_source_table = 'main.bronze.orders';
//! ```
//!
//! ## Fix
//! Add `_dlq_source_table = '<catalog.schema.table>'` to the `WHERE`.

use crate::ddl_catalog::{catalog, dlq_groups};
use crate::diagnostic::Diagnostic;
use crate::engine::{Context, Findings};
use crate::registry::rule;

pub fn check(ctx: &Context, out: &mut Findings) {
    let me = rule("DQ409");
    let cat = catalog(ctx);
    for (ei, env) in ctx.envs.iter().enumerate() {
        let groups = dlq_groups(ctx, env);
        for (file, update, name) in &cat.updates[ei] {
            if update.where_pins_source_table {
                continue;
            }
            let Some(g) = groups
                .iter()
                .find(|g| &g.inbox == name || &g.outbox == name)
            else {
                continue;
            };
            let role = if &g.inbox == name {
                "DLQ"
            } else {
                "DLQ outbox"
            };
            let written = ctx
                .project
                .file(*file)
                .text
                .get(update.table_range.clone())
                .unwrap_or(name)
                .to_string();
            let mut d = Diagnostic::at(me, *file, update.table_range.clone(), format!(
                "`UPDATE` of {role} `{written}` does not pin `_dlq_source_table` in its `WHERE`: it touches the rows of every source table sharing the DLQ"
            ));
            d = g.annotate(d, env, None);
            if update.table.contains('{') {
                d = d.env(&env.name);
            }
            out.push(d);
        }
    }
}
