//! ## What it does
//! Reports two quarantine actions in different pipelines that share a DLQ
//! (case-insensitively) and a `source_table`.
//!
//! ## Why is this bad?
//! Same hazard as DQ501 (each recycle flow re-injects the other's fixed
//! rows), but LHP does not check across pipelines at all.
//!
//! ## Example (bad)
//! `pipelines/bronze_eu/orders_eu.yaml`:
//! ```yaml
//! pipeline: bronze_eu
//! flowgroup: orders_eu
//! actions:
//!   - name: load_orders_eu
//!     type: load
//!     readMode: stream
//!     source:
//!       type: cloudfiles
//!       path: /Volumes/main/landing/orders_eu
//!       format: json
//!     target: v_orders_eu_raw
//!   - name: orders_eu_dq
//!     type: transform
//!     transform_type: data_quality
//!     source: v_orders_eu_raw
//!     target: v_orders_eu
//!     expectations_file: expectations/orders.yaml
//!     mode: quarantine
//!     quarantine:
//!       dlq_table: main.ops.dlq
//!       source_table: main.bronze.orders
//! ```
//!
//! `pipelines/bronze_us/orders_us.yaml`:
//! ```yaml
//! pipeline: bronze_us
//! flowgroup: orders_us
//! actions:
//!   - name: load_orders_us
//!     type: load
//!     readMode: stream
//!     source:
//!       type: cloudfiles
//!       path: /Volumes/main/landing/orders_us
//!       format: json
//!     target: v_orders_us_raw
//!   - name: orders_us_dq
//!     type: transform
//!     transform_type: data_quality
//!     source: v_orders_us_raw
//!     target: v_orders_us
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
//! ## Example (good)
//! `pipelines/bronze_eu/orders_eu.yaml`:
//! ```yaml
//! pipeline: bronze_eu
//! flowgroup: orders_eu
//! actions:
//!   - name: load_orders_eu
//!     type: load
//!     readMode: stream
//!     source:
//!       type: cloudfiles
//!       path: /Volumes/main/landing/orders_eu
//!       format: json
//!     target: v_orders_eu_raw
//!   - name: orders_eu_dq
//!     type: transform
//!     transform_type: data_quality
//!     source: v_orders_eu_raw
//!     target: v_orders_eu
//!     expectations_file: expectations/orders.yaml
//!     mode: quarantine
//!     quarantine:
//!       dlq_table: main.ops.dlq
//!       source_table: main.bronze.orders_eu
//! ```
//!
//! `pipelines/bronze_us/orders_us.yaml`:
//! ```yaml
//! pipeline: bronze_us
//! flowgroup: orders_us
//! actions:
//!   - name: load_orders_us
//!     type: load
//!     readMode: stream
//!     source:
//!       type: cloudfiles
//!       path: /Volumes/main/landing/orders_us
//!       format: json
//!     target: v_orders_us_raw
//!   - name: orders_us_dq
//!     type: transform
//!     transform_type: data_quality
//!     source: v_orders_us_raw
//!     target: v_orders_us
//!     expectations_file: expectations/orders.yaml
//!     mode: quarantine
//!     quarantine:
//!       dlq_table: main.ops.dlq
//!       source_table: main.bronze.orders_us
//! ```
//!
//! ## Fix
//! Use distinct `source_table` values (or distinct DLQs).

use crate::engine::{Context, Findings};

pub fn check(ctx: &Context, out: &mut Findings) {
    super::dq501_duplicate_source_table::report_shared(ctx, out, "DQ502", false);
}
