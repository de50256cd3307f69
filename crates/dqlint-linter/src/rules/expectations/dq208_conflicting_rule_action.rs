//! ## What it does
//! Reports a list-format rule whose `type` and `failureAction` disagree.
//!
//! ## Why is this bad?
//! `failureAction` silently wins: a rule written `type: expect_or_fail`
//! with `failureAction: warn` only warns.
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
//!     expectations_file: expectations/orders.json
//! ```
//!
//! `expectations/orders.json`:
//! ```json
//! [
//!   {"name": "valid_order_id", "constraint": "order_id IS NOT NULL", "type": "expect_or_fail", "failureAction": "warn"}
//! ]
//! ```
//!
//! ## Example (good)
//! `expectations/orders.json`:
//! ```json
//! [
//!   {"name": "valid_order_id", "constraint": "order_id IS NOT NULL", "failureAction": "fail"}
//! ]
//! ```
//!
//! ## Fix
//! Keep one of the two keys.

use crate::diagnostic::Diagnostic;
use crate::engine::{Context, Findings};
use crate::registry::rule;

pub fn check(ctx: &Context, out: &mut Findings) {
    let me = rule("DQ208");
    for (set, _) in ctx.expectation_sets() {
        for r in &set.rules {
            let Some((ty, failure)) = &r.conflicting_type else {
                continue;
            };
            out.push(
                Diagnostic::at(
                    me,
                    set.file,
                    ty.span.clone(),
                    format!(
                        "`type: {}` disagrees with `failureAction: {}`; LHP uses `failureAction`",
                        ty.text, failure.text
                    ),
                )
                .related(
                    &dqlint_project::Origin::new(set.file, failure.span.clone()),
                    "this `failureAction` wins",
                ),
            );
        }
    }
}
