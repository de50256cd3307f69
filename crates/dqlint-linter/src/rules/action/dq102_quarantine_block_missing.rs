//! ## What it does
//! Reports `mode: quarantine` on an action that has no `quarantine` block.
//!
//! ## Why is this bad?
//! Quarantine mode needs to know the dead-letter table and the source
//! table; `lhp validate` fails the flowgroup (LHP-VAL-007).
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
//!     mode: quarantine
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
//!     mode: quarantine
//!     quarantine:
//!       dlq_table: main.ops.dlq
//!       source_table: main.bronze.orders
//! ```
//!
//! ## Fix
//! Add `quarantine: {dlq_table: cat.schema.dlq, source_table: cat.schema.orders}`,
//! or use `mode: dqe`.

use crate::diagnostic::Diagnostic;
use crate::engine::{Context, Findings};
use crate::registry::rule;

pub fn check(ctx: &Context, out: &mut Findings) {
    let me = rule("DQ102");
    for (_, action) in ctx.quarantine_actions() {
        if action.get("quarantine").is_none_or(|q| q.is_null()) {
            let mode = action.get("mode").map(|m| m.origin.clone());
            let mut d = Diagnostic::new(me, &action.anchor(), format!(
                "action `{}` has `mode: quarantine` but no `quarantine` block with `dlq_table` and `source_table`",
                action.name().unwrap_or("?")
            ));
            if let Some(mode) = mode {
                d = d.related(&mode, "quarantine mode is set here");
            }
            out.push(d);
        }
    }
}
