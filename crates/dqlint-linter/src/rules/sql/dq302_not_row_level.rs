//! ## What it does
//! Reports an aggregate function, a window function or a subquery in a
//! rule expression.
//!
//! ## Why is this bad?
//! An expectation is evaluated per row; Databricks rejects aggregates,
//! windows and subqueries in expectations when the pipeline starts.
//!
//! In a DQX check, an aggregate in a `filter`, `message_expr` or
//! `sql_expression` makes DQX 0.17.0 skip the check and flag every row
//! (an error in `sql_expression`). A scalar subquery and a window
//! function with `OVER` in `sql_expression` run in DQX: no finding there.
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
//! amount <= max(amount) OVER (PARTITION BY customer_id):
//!   action: drop
//!   name: within_credit_limit
//! ```
//!
//! ## Example (good)
//! `expectations/orders.yaml`:
//! ```yaml
//! amount <= credit_limit:
//!   action: drop
//!   name: within_credit_limit
//! ```
//!
//! ## Fix
//! Check row-level conditions here; put table-level checks in a test
//! action or a materialized view.

use dqlint_sql::expr::ExprFact;

use crate::engine::{Context, Findings};

pub fn check(ctx: &Context, out: &mut Findings) {
    super::report_expression_findings(ctx, out, "DQ302", ExprFact::NotRowLevel);
}
