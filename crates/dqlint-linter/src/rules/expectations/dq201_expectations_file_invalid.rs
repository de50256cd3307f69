//! ## What it does
//! Reports an expectations file that LHP cannot use as a whole: several
//! YAML documents, a top level that is a scalar or null, or an
//! `expectations:` key holding neither a list nor a mapping.
//!
//! ## Why is this bad?
//! In dqe mode `lhp validate` passes and generation fails (LHP-IO-003) or
//! silently produces a view without any expectation; quarantine mode
//! rejects it.
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
//! expectations: order_id IS NOT NULL
//! ```
//!
//! ## Example (good)
//! `expectations/orders.yaml`:
//! ```yaml
//! expectations:
//!   order_id IS NOT NULL:
//!     action: drop
//!     name: valid_order_id
//! ```
//!
//! ## Fix
//! Write one document: a mapping of `constraint: {action, name}` or a list
//! of `{name, constraint, type|failureAction}` items.

use crate::diagnostic::Diagnostic;
use crate::engine::{Context, Findings};
use crate::registry::rule;

pub fn check(ctx: &Context, out: &mut Findings) {
    let me = rule("DQ201");
    for (set, users) in ctx.expectation_sets() {
        let Some((message, span)) = &set.invalid else {
            continue;
        };
        let mut d = Diagnostic::at(me, set.file, span.clone(), message.clone());
        for (_, action) in users {
            d = d.related(
                &crate::engine::origin_of(action, "expectations_file"),
                format!("used by action `{}`", action.name().unwrap_or("?")),
            );
        }
        out.push(d);
    }
}
