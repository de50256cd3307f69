//! ## What it does
//! Reports a rule expression that does not parse as a Databricks SQL
//! expression, pointing at the failing token inside the YAML or JSON
//! scalar and saying what was expected.
//!
//! ## Why is this bad?
//! LHP copies the text verbatim into the generated decorators; the typo
//! surfaces only when the pipeline starts on Databricks.
//!
//! ## Example
//! ```yaml
//! price > 0 AND:
//!   action: drop
//! ```
//!
//! ## Fix
//! Correct the SQL.
//!
//! ## Valid
//! ```yaml
//! price > 0 AND quantity > 0:
//!   action: drop
//! ```

use crate::engine::{Context, Findings};

pub fn check(ctx: &Context, out: &mut Findings) {
    super::report_expression_findings(ctx, out, "DQ301");
}
