//! ## What it does
//! Reports a list-format rule with neither `constraint` nor `expression`.
//!
//! ## Why is this bad?
//! LHP skips the item without a word: the check you think you have
//! does not exist.
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
//!   {"name": "valid_order_id", "constraint": "order_id IS NOT NULL", "type": "expect_or_drop"},
//!   {"name": "non_negative_amount", "rule": "amount >= 0", "type": "expect_or_drop"}
//! ]
//! ```
//!
//! ## Example (good)
//! `expectations/orders.json`:
//! ```json
//! [
//!   {"name": "valid_order_id", "constraint": "order_id IS NOT NULL", "type": "expect_or_drop"},
//!   {"name": "non_negative_amount", "constraint": "amount >= 0", "type": "expect_or_drop"}
//! ]
//! ```
//!
//! ## Fix
//! Put the SQL predicate under `constraint:` (or `expression:`).

use dqlint_project::Shape;

use crate::diagnostic::Diagnostic;
use crate::engine::{Context, Findings};
use crate::registry::rule;

pub fn check(ctx: &Context, out: &mut Findings) {
    let me = rule("DQ203");
    for (set, _) in ctx.expectation_sets() {
        if set.shape != Shape::List {
            continue;
        }
        for r in set.rules.iter().filter(|r| r.expression.is_none()) {
            let label = r
                .name
                .as_ref()
                .map(|n| format!("rule `{}`", n.text))
                .unwrap_or_else(|| format!("rule #{}", r.index + 1));
            let span = r
                .name
                .as_ref()
                .map(|n| n.span.clone())
                .unwrap_or(r.span.start..r.span.start);
            out.push(Diagnostic::at(
                me,
                set.file,
                span,
                format!("{label} has neither `constraint` nor `expression`: LHP silently skips it"),
            ));
        }
    }
}
