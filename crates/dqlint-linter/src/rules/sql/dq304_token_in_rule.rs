//! ## What it does
//! Reports `${...}`, `{token}` or `%{var}` inside a rule expression.
//!
//! ## Why is this bad?
//! LHP does not substitute expectations files: the token text is
//! copied verbatim into the SQL, and the rule compares against the literal
//! string `${catalog}`.
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
//! "region = '${region}'":
//!   action: drop
//!   name: expected_region
//! ```
//!
//! `substitutions/dev.yaml`:
//! ```yaml
//! dev:
//!   region: EU
//! ```
//!
//! ## Example (good)
//! `expectations/orders.yaml`:
//! ```yaml
//! "region = 'EU'":
//!   action: drop
//!   name: expected_region
//! ```
//!
//! ## Fix
//! Write the value, or generate per-environment expectations files.

use dqlint_sql::expr::ExprFact;

use crate::engine::{Context, Findings};

pub fn check(ctx: &Context, out: &mut Findings) {
    super::report_expression_findings(ctx, out, "DQ304", ExprFact::SubstitutionToken);
}
