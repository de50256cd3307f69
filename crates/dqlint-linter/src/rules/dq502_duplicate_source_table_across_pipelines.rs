//! ## What it does
//! Reports two quarantine actions in different pipelines that share a DLQ
//! (case-insensitively) and a `source_table`.
//!
//! ## Why is this bad?
//! Same hazard as DQ501 (each recycle flow re-injects the other's fixed
//! rows), but LHP does not check across pipelines at all (E11).
//!
//! ## Example
//! ```yaml
//! # pipeline `bronze_eu` and pipeline `bronze_us`, both with
//! quarantine:
//!   dlq_table: main.ops.dlq
//!   source_table: main.bronze.orders
//! ```
//!
//! ## Fix
//! Use distinct `source_table` values (or distinct DLQs).
//!
//! ## Valid
//! ```yaml
//! quarantine:
//!   dlq_table: main.ops.dlq
//!   source_table: main.bronze.orders_us
//! ```

use crate::engine::{Context, Findings};

pub fn check(ctx: &Context, out: &mut Findings) {
    super::dq501_duplicate_source_table::report_shared(ctx, out, "DQ502", false);
}
