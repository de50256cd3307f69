//! ## What it does
//! Reports a `quarantine` block whose `dlq_table` or `source_table` is
//! absent or empty.
//!
//! ## Why is this bad?
//! An empty value fails `lhp validate`; a missing key crashes LHP with a
//! Pydantic traceback (LHP-GEN-902, exit 3).
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
//!     quarantine:
//!       dlq_table: main.ops.dlq
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
//! Set both: `dlq_table` (the shared dead-letter table) and `source_table`
//! (the table this action's rows belong to; it keys the recycle path).

use crate::diagnostic::Diagnostic;
use crate::engine::{key_origin, Context, Findings};
use crate::registry::rule;

pub fn check(ctx: &Context, out: &mut Findings) {
    let me = rule("DQ104");
    for (_, action) in ctx.quarantine_actions() {
        let Some(block) = action.get("quarantine").filter(|q| q.as_map().is_some()) else {
            continue;
        };
        for field in ["dlq_table", "source_table"] {
            match block.get(field) {
                Some(v) if v.is_truthy() => {}
                Some(v) => out.push(Diagnostic::new(
                    me,
                    &v.origin,
                    format!("`quarantine.{field}` is empty"),
                )),
                None => {
                    let at =
                        key_origin(&action.value, "quarantine").unwrap_or_else(|| action.anchor());
                    out.push(Diagnostic::new(
                        me,
                        &at,
                        format!("`quarantine` has no `{field}`: LHP crashes on this (LHP-GEN-902)"),
                    ));
                }
            }
        }
    }
}
