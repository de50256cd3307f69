//! ## What it does
//! Reports a data_quality action whose `source` is missing, or is a list
//! (or a mapping without a `view`).
//!
//! ## Why is this bad?
//! The data_quality generator reads exactly one view. With a list, LHP
//! validates and generates `spark.readStream.table("")`, which fails
//! only when the pipeline runs.
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
//!     source: [v_orders_raw, v_returns_raw]
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
//! ## Fix
//! Name one view: `source: v_orders` (union views upstream if needed).

use dqlint_project::ValueKind;

use crate::diagnostic::Diagnostic;
use crate::engine::{Context, Findings};
use crate::registry::rule;

pub fn check(ctx: &Context, out: &mut Findings) {
    let me = rule("DQ108");
    for (_, action) in ctx.dq_actions() {
        let name = action.name().unwrap_or("?");
        match action.get("source") {
            None => out.push(Diagnostic::new(me, &action.anchor(), format!("data_quality action `{name}` has no `source` view"))),
            Some(v) => match &v.kind {
                ValueKind::Str(s) if !s.is_empty() => {}
                ValueKind::Map(_) if v.get_str("view").or(v.get_str("source")).is_some() => {}
                ValueKind::Seq(items) => out.push(Diagnostic::new(me, &v.origin, format!(
                    "`source` is a list of {} item(s); a data_quality action reads one view, and LHP generates `readStream.table(\"\")` for a list",
                    items.len()
                ))),
                _ => out.push(Diagnostic::new(me, &v.origin, format!(
                    "`source` is {}; it must name one view", v.type_name()
                ))),
            },
        }
    }
}
