//! ## What it does
//! Reports a data_quality action without `expectations_file`.
//!
//! ## Why is this bad?
//! `lhp validate` passes, `lhp generate` fails (LHP-VAL-001). Inline
//! `expectations:` do not replace it, and a preset cannot set it
//!.
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
//! ```
//!
//! ## Example (good)
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
//! order_id IS NOT NULL:
//!   action: drop
//!   name: valid_order_id
//! ```
//!
//! ## Fix
//! Add `expectations_file: expectations/<name>.yaml` (relative to the
//! project root).

use crate::diagnostic::Diagnostic;
use crate::engine::{Context, Findings};
use crate::registry::rule;

pub fn check(ctx: &Context, out: &mut Findings) {
    let me = rule("DQ106");
    for (_, action) in ctx.dq_actions() {
        match action.get("expectations_file") {
            Some(v) if v.is_truthy() => {}
            Some(v) => out.push(Diagnostic::new(me, &v.origin, "`expectations_file` is empty: `lhp generate` fails with LHP-VAL-001")),
            None => out.push(Diagnostic::new(me, &action.anchor(), format!(
                "data_quality action `{}` has no `expectations_file`: `lhp generate` fails with LHP-VAL-001",
                action.name().unwrap_or("?")
            ))),
        }
    }
}
