//! ## What it does
//! Reports a rule action LHP does not accept: `action` other than
//! warn/drop/fail (mapping format), `failureAction` other than
//! warn/drop/fail, or `type` other than expect/expect_or_drop/expect_or_fail
//! (list format).
//!
//! ## Why is this bad?
//! LHP silently turns an unknown `action` into `warn` and skips an
//! item with an unknown `type`: a rule meant to drop or fail only logs.
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
//! amount >= 0:
//!   action: quarantine
//!   name: non_negative_amount
//! ```
//!
//! ## Example (good)
//! `expectations/orders.yaml`:
//! ```yaml
//! amount >= 0:
//!   action: drop
//!   name: non_negative_amount
//! ```
//!
//! ## Fix
//! Use `warn`, `drop` or `fail` (quarantine mode already routes every
//! failing row to the DLQ).

use crate::diagnostic::Diagnostic;
use crate::engine::{Context, Findings};
use crate::registry::rule;

pub fn check(ctx: &Context, out: &mut Findings) {
    let me = rule("DQ204");
    for (set, _) in ctx.expectation_sets() {
        for r in &set.rules {
            let Some((value, allowed)) = &r.invalid_action else {
                continue;
            };
            let effect = if allowed.starts_with("expect") {
                "LHP skips this rule"
            } else {
                "LHP treats it as `warn`"
            };
            out.push(Diagnostic::at(
                me,
                set.file,
                value.span.clone(),
                format!(
                    "`{}` is not a valid rule action (use {allowed}): {effect}",
                    value.text
                ),
            ));
        }
    }
}
