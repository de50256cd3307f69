//! ## What it does
//! Reports an expression that ends in a bare keyword after a complete
//! expression (`price > 0 AND`, `status = 'a' OR`, `x IS`): Spark reads
//! the keyword as an alias and runs the expression before it.
//!
//! This is not a syntax error (DQ301 never reports it). Observed
//! with pyspark 4.3.0: `spark.sql("select 1 > 0 AND")` returns one column
//! named `AND`, and `F.expr("price > 0 AND")` (how DLT expectations and
//! DQX filters are evaluated) is `price > 0` aliased `AND`; every keyword
//! of the list tried (`AND OR NOT IS IN LIKE BETWEEN CASE WHEN THEN ELSE
//! END NULL ...`) behaves the same, with ANSI mode on.
//!
//! ## Why is this bad?
//! The condition meant to follow the keyword is silently missing: the
//! rule checks less than it reads, and no run ever fails.
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
//! amount >= 0 AND:
//!   action: drop
//!   name: positive_amount_and_quantity
//! ```
//!
//! ## Example (good)
//! `expectations/orders.yaml`:
//! ```yaml
//! amount >= 0 AND quantity > 0:
//!   action: drop
//!   name: positive_amount_and_quantity
//! ```
//!
//! ## Fix
//! Write the missing condition, or remove the keyword.

use dqlint_sql::expr::ExprFact;

use crate::engine::{Context, Findings};

pub fn check(ctx: &Context, out: &mut Findings) {
    super::report_expression_findings(ctx, out, "DQ307", ExprFact::TrailingKeywordAlias);
}
