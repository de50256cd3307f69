//! ## What it does
//! Reports non-deterministic functions (`rand()`, `uuid()`,
//! `current_timestamp()`, `now()`...) in a rule expression.
//!
//! ## Why is this bad?
//! In quarantine mode a row is checked on the clean path, again by the
//! inverse filter that routes it to the DLQ, and again when recycled: a
//! verdict that changes between evaluations loses or duplicates rows.
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
//! ```
//!
//! `expectations/orders.yaml`:
//! ```yaml
//! order_ts <= current_timestamp():
//!   action: drop
//!   name: not_in_future
//! ```
//!
//! ## Example (good)
//! `expectations/orders.yaml`:
//! ```yaml
//! order_ts <= ingested_at:
//!   action: drop
//!   name: not_in_future
//! ```
//!
//! ## Fix
//! Compare with a stable value (a column, a literal).

use dqlint_sql::expr::ExprFact;

use crate::engine::{Context, Findings};

pub fn check(ctx: &Context, out: &mut Findings) {
    super::report_expression_findings(ctx, out, "DQ303", ExprFact::Nondeterministic);
}
