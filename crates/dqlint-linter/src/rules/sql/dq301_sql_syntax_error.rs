//! ## What it does
//! Reports a rule expression that does not parse as a Databricks SQL
//! expression, pointing at the failing token inside the YAML or JSON
//! scalar and saying what was expected.
//!
//! ## Why is this bad?
//! LHP copies the text verbatim into the generated decorators; the typo
//! surfaces only when the pipeline starts on Databricks.
//!
//! In a DQX check (a `filter`, `row_filter`, `message_expr` or
//! `sql_expression`, in a checks file or a `DQRowRule(...)`), DQX 0.17.0
//! cannot evaluate the text: it skips the check at run time and flags
//! every row (quarantined when the criticality is `error`).
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
//! amount >= 0 AND quantity > 0):
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
//! An expression that ends in a bare keyword after a complete expression
//! (`amount >= 0 AND`) is not a syntax error in Spark, which reads the
//! keyword as an alias: that is DQ307.
//!
//! ## Fix
//! Correct the SQL.

use dqlint_sql::expr::ExprFact;

use crate::engine::{Context, Findings};

pub fn check(ctx: &Context, out: &mut Findings) {
    super::report_expression_findings(ctx, out, "DQ301", ExprFact::SyntaxError);
}
