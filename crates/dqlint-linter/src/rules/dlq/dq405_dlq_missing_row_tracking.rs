//! ## What it does
//! Reports a DLQ inbox or outbox whose DDL (the `CREATE TABLE` plus any
//! later `ALTER TABLE ... SET/UNSET TBLPROPERTIES`) does not set
//! `'delta.enableRowTracking' = 'true'`.
//!
//! ## Why is this bad?
//! LHP's DLQ contract requires row tracking on both tables: the MERGEs of
//! the quarantine and recycle sinks and the outbox read rely on stable row
//! identities.
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
//! Add the property to the `TBLPROPERTIES` list (the quick fix does).

use crate::ddl_catalog::report_missing_property;
use crate::engine::{Context, Findings};

pub fn check(ctx: &Context, out: &mut Findings) {
    report_missing_property(
        ctx,
        out,
        "DQ405",
        "delta.enableRowTracking",
        true,
        false,
        "LHP's DLQ contract requires row tracking",
    );
}
