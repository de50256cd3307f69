//! ## What it does
//! Reports a rule expression whose top level cannot be boolean: a literal,
//! arithmetic, string concatenation, a function returning a number or
//! string.
//!
//! ## Why is this bad?
//! An expectation must be a predicate; `price * 2` fails when the pipeline
//! starts.
//!
//! In a DQX check, a non-boolean `sql_expression` or `filter` crashes
//! the DQX run (an error in `sql_expression`). `message_expr` is
//! string-valued: never reported there.
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
//! amount * quantity:
//!   action: drop
//!   name: line_total
//! ```
//!
//! ## Example (good)
//! `expectations/orders.yaml`:
//! ```yaml
//! amount * quantity >= 0:
//!   action: drop
//!   name: line_total
//! ```
//!
//! ## Fix
//! Compare the value: `price * quantity > 0`.

use dqlint_sql::expr::ExprFact;

use crate::engine::{Context, Findings};

pub fn check(ctx: &Context, out: &mut Findings) {
    super::report_expression_findings(ctx, out, "DQ305", ExprFact::NotBoolean);
}
