//! ## What it does
//! Reports non-deterministic functions (`rand()`, `uuid()`,
//! `current_timestamp()`, `now()`...) in a rule expression.
//!
//! ## Why is this bad?
//! In quarantine mode a row is checked on the clean path, again by the
//! inverse filter that routes it to the DLQ, and again when recycled: a
//! verdict that changes between evaluations loses or duplicates rows.
//!
//! ## Example
//! ```yaml
//! order_ts <= current_timestamp():
//!   action: drop
//! ```
//!
//! ## Fix
//! Compare with a stable value (a column, a literal).
//!
//! ## Valid
//! ```yaml
//! order_ts <= ingested_at:
//!   action: drop
//! ```

use crate::engine::{Context, Findings};

pub fn check(ctx: &Context, out: &mut Findings) {
    super::report_expression_findings(ctx, out, "DQ303");
}
