//! ## What it does
//! Reports a rule expression whose top level cannot be boolean: a literal,
//! arithmetic, string concatenation, a function returning a number or
//! string.
//!
//! ## Why is this bad?
//! An expectation must be a predicate; `price * 2` fails when the pipeline
//! starts.
//!
//! ## Example
//! ```yaml
//! price * quantity:
//!   action: drop
//! ```
//!
//! ## Fix
//! Compare the value: `price * quantity > 0`.
//!
//! ## Valid
//! ```yaml
//! price * quantity > 0:
//!   action: drop
//! ```

use crate::engine::{Context, Findings};

pub fn check(ctx: &Context, out: &mut Findings) {
    super::report_expression_findings(ctx, out, "DQ305");
}
