//! ## What it does
//! Reports a `quarantine` block on a data_quality action whose `mode` is
//! `dqe` or absent (the default is `dqe`).
//!
//! ## Why is this bad?
//! `lhp validate` rejects it (LHP-VAL-007). Usually `mode: quarantine` was
//! forgotten, and the author believes failing rows are being kept.
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
//!     quarantine:
//!       dlq_table: main.ops.dlq
//!       source_table: main.bronze.orders
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
//! Add `mode: quarantine`, or remove the block.

use crate::diagnostic::Diagnostic;
use crate::engine::{key_origin, Context, Findings};
use crate::registry::rule;

pub fn check(ctx: &Context, out: &mut Findings) {
    let me = rule("DQ103");
    for (_, action) in ctx.dq_actions() {
        if action.get("quarantine").is_none_or(|q| q.is_null()) || action.dq_mode() != Some("dqe") {
            continue;
        }
        let at = key_origin(&action.value, "quarantine").unwrap_or_else(|| action.anchor());
        let why = if action.get("mode").is_some_and(|m| !m.is_null()) {
            "is `dqe`"
        } else {
            "is not set (default `dqe`)"
        };
        out.push(Diagnostic::new(
            me,
            &at,
            format!(
                "a `quarantine` block is only allowed with `mode: quarantine`, but `mode` {why}"
            ),
        ));
    }
}
