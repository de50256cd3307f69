//! ## What it does
//! Reports `${...}`, `{token}` or `%{var}` inside a rule expression.
//!
//! ## Why is this bad?
//! LHP does not substitute expectations files (E36): the token text is
//! copied verbatim into the SQL, and the rule compares against the literal
//! string `${catalog}`.
//!
//! ## Example
//! ```yaml
//! region = '${region}':
//!   action: drop
//! ```
//!
//! ## Fix
//! Write the value, or generate per-environment expectations files.
//!
//! ## Valid
//! ```yaml
//! region = 'EU':
//!   action: drop
//! ```

use crate::engine::{Context, Findings};

pub fn check(ctx: &Context, out: &mut Findings) {
    super::report_expression_findings(ctx, out, "DQ304");
}
