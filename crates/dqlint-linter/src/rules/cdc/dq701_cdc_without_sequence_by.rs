//! ## What it does
//! Reports a `write_target` with `mode: cdc` whose `cdc_config` has no
//! `sequence_by`.
//!
//! ## Why is this bad?
//! LHP silently omits `sequence_by`. Without an ordering column,
//! out-of-order and recycled rows (the quarantine re-injection path)
//! resolve arbitrarily: an old version can overwrite a newer one.
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
//!   - name: write_orders
//!     type: write
//!     source: v_orders_raw
//!     write_target:
//!       type: streaming_table
//!       catalog: main
//!       schema: silver
//!       table: orders
//!       mode: cdc
//!       cdc_config:
//!         keys: [order_id]
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
//!   - name: write_orders
//!     type: write
//!     source: v_orders_raw
//!     write_target:
//!       type: streaming_table
//!       catalog: main
//!       schema: silver
//!       table: orders
//!       mode: cdc
//!       cdc_config:
//!         keys: [order_id]
//!         sequence_by: order_updated_at
//! ```
//!
//! ## Fix
//! Add `sequence_by:` with a column that orders the changes (an event
//! time or a source version).

use crate::diagnostic::Diagnostic;
use crate::engine::{key_origin, Context, Findings};
use crate::registry::rule;

pub fn check(ctx: &Context, out: &mut Findings) {
    let me = rule("DQ701");
    for (_, action) in ctx.project.actions() {
        let Some(target) = action.get("write_target") else {
            continue;
        };
        if action.action_type() != Some("write") || target.get_str("mode") != Some("cdc") {
            continue;
        }
        let config = target.get("cdc_config");
        if config
            .and_then(|c| c.get("sequence_by"))
            .is_some_and(|s| s.is_truthy())
        {
            continue;
        }
        let at = key_origin(target, "cdc_config")
            .or_else(|| target.get("mode").map(|m| m.origin.clone()))
            .unwrap_or_else(|| action.anchor());
        out.push(Diagnostic::new(me, &at, format!(
            "CDC write `{}` has no `cdc_config.sequence_by`: LHP omits it and changes apply in arbitrary order",
            action.name().unwrap_or("?")
        )));
    }
}
