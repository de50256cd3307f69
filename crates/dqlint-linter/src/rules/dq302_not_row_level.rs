//! ## What it does
//! Reports an aggregate function, a window function or a subquery in a
//! rule expression.
//!
//! ## Why is this bad?
//! An expectation is evaluated per row; Databricks rejects aggregates,
//! windows and subqueries in expectations when the pipeline starts.
//!
//! ## Example
//! ```yaml
//! count(*) > 0:
//!   action: fail
//! ```
//!
//! ## Fix
//! Check row-level conditions here; put table-level checks in a test
//! action or a materialized view.
//!
//! ## Valid
//! ```yaml
//! order_id IS NOT NULL:
//!   action: fail
//! ```

use crate::engine::{Context, Findings};

pub fn check(ctx: &Context, out: &mut Findings) {
    super::report_expression_findings(ctx, out, "DQ302");
}
