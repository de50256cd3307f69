//! ## What it does
//! Reports a DLQ inbox or outbox that is not `CLUSTER BY (_dlq_source_table)`
//! after its `CREATE TABLE` and any `ALTER TABLE ... CLUSTER BY` (a
//! partitioned table counts as not clustered). An error when two or more
//! quarantine actions (in any pipeline) share the DLQ, else a warning.
//!
//! ## Why is this bad?
//! Each pipeline's MERGE only touches its own `_dlq_source_table`; with the
//! table clustered by that column, concurrent MERGEs of the pipelines
//! sharing a DLQ touch disjoint files and do not conflict.
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
//! PARTITIONED BY (_dlq_source_table)
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
//! Add `CLUSTER BY (_dlq_source_table)` (the quick fix does; replacing a
//! `PARTITIONED BY` clause is offered as an unsafe fix).

use crate::ddl_catalog::{catalog, dlq_groups};
use crate::diagnostic::Diagnostic;
use crate::engine::{Context, Findings};
use crate::registry::rule;

pub fn check(ctx: &Context, out: &mut Findings) {
    let me = rule("DQ407");
    let cat = catalog(ctx);
    for (ei, env) in ctx.envs.iter().enumerate() {
        let tables = &cat.tables[ei];
        for g in dlq_groups(ctx, env) {
            for (role, name) in [("inbox", &g.inbox), ("outbox", &g.outbox)] {
                let Some(t) = tables.get(name.as_str()) else {
                    continue;
                };
                if t.clustered_by_source() {
                    continue;
                }
                let (span, how) = if t.cluster_altered {
                    (
                        t.create.name_range.clone(),
                        "is clustered otherwise by an `ALTER TABLE`",
                    )
                } else if let Some((cols, range)) = &t.create.cluster_by {
                    let how = if cols.is_empty() {
                        "has `CLUSTER BY AUTO` or `NONE`"
                    } else {
                        "is clustered by other columns"
                    };
                    (range.clone(), how)
                } else if let Some((_, range)) = &t.create.partitioned_by {
                    (range.clone(), "is partitioned instead")
                } else {
                    (t.create.name_range.clone(), "is not clustered")
                };
                let mut d = Diagnostic::at(me, t.file, span, format!(
                    "DLQ {role} `{}` {how}: it needs `CLUSTER BY (_dlq_source_table)` for conflict-free concurrent MERGEs{}",
                        t.written,
                    g.sharing_note()
                ))
                .severity(g.sharing_severity());
                if let Some(fix) = t.cluster_fix(&ctx.project.file(t.file).text) {
                    d = d.fix(fix);
                }
                out.push(g.annotate(d, env, Some(t)));
            }
        }
    }
}
