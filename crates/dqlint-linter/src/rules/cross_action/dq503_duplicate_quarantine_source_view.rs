//! ## What it does
//! Reports two quarantine actions in one pipeline that read the same source
//! view.
//!
//! ## Why is this bad?
//! LHP names the generated quarantine objects after the source view
//! (`dlq_sink_<view>`, `_clean_<view>`, module constants...): the second
//! action's objects collide with the first's, and the constants of one
//! overwrite the other's. Validate and generate both pass.
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
//!     target: v_raw
//!   - name: orders_dq
//!     type: transform
//!     transform_type: data_quality
//!     source: v_raw
//!     target: v_orders
//!     expectations_file: expectations/orders.yaml
//!     mode: quarantine
//!     quarantine:
//!       dlq_table: main.ops.dlq
//!       source_table: main.bronze.orders
//! ```
//!
//! `pipelines/bronze/returns.yaml`:
//! ```yaml
//! pipeline: bronze
//! flowgroup: returns
//! actions:
//!   - name: load_returns
//!     type: load
//!     readMode: stream
//!     source:
//!       type: cloudfiles
//!       path: /Volumes/main/landing/returns
//!       format: json
//!     target: v_raw
//!   - name: returns_dq
//!     type: transform
//!     transform_type: data_quality
//!     source: v_raw
//!     target: v_returns
//!     expectations_file: expectations/orders.yaml
//!     mode: quarantine
//!     quarantine:
//!       dlq_table: main.ops.dlq
//!       source_table: main.bronze.returns
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
//! `pipelines/bronze/returns.yaml`:
//! ```yaml
//! pipeline: bronze
//! flowgroup: returns
//! actions:
//!   - name: load_returns
//!     type: load
//!     readMode: stream
//!     source:
//!       type: cloudfiles
//!       path: /Volumes/main/landing/returns
//!       format: json
//!     target: v_returns_raw
//!   - name: returns_dq
//!     type: transform
//!     transform_type: data_quality
//!     source: v_returns_raw
//!     target: v_returns
//!     expectations_file: expectations/orders.yaml
//!     mode: quarantine
//!     quarantine:
//!       dlq_table: main.ops.dlq
//!       source_table: main.bronze.returns
//! ```
//!
//! ## Fix
//! Quarantine a view once; put all its rules in one expectations file.

use std::collections::hash_map::{Entry, HashMap};

use dqlint_project::{Action, Flowgroup};

use crate::diagnostic::Diagnostic;
use crate::engine::{Context, Findings};
use crate::registry::rule;

pub fn check(ctx: &Context, out: &mut Findings) {
    let me = rule("DQ503");
    // The first quarantine action per (pipeline, view): a lookup instead of
    // a scan of all earlier actions, which was quadratic.
    let mut first: HashMap<(Option<&str>, String), (&Flowgroup, &Action)> = HashMap::new();
    for (fg, action) in ctx.quarantine_actions() {
        let Some(view) = action.get("source").and_then(|s| s.as_str()) else {
            continue;
        };
        let key = safe_identifier(view);
        let earlier = match first.entry((fg.pipeline.as_deref(), key)) {
            Entry::Occupied(e) => Some(*e.get()),
            Entry::Vacant(e) => {
                e.insert((fg, action));
                None
            }
        };
        let Some((efg, ea)) = earlier else { continue };
        let at = action
            .get("source")
            .map(|s| s.origin.clone())
            .unwrap_or_else(|| action.anchor());
        let earlier_at = ea
            .get("source")
            .map(|s| s.origin.clone())
            .unwrap_or_else(|| ea.anchor());
        out.push(
            Diagnostic::new(me, &at, format!(
                "actions `{}` and `{}` of pipeline `{}` both quarantine view `{view}`: the generated objects named after it collide",
                ea.name().unwrap_or("?"), action.name().unwrap_or("?"), fg.pipeline.as_deref().unwrap_or("?")
            ))
            .related(&earlier_at, format!("`{}` (flowgroup `{}`) quarantines the same view", ea.name().unwrap_or("?"), efg.name.as_deref().unwrap_or("?"))),
        );
    }
}

/// LHP suffixes generated names with the view made identifier-safe.
fn safe_identifier(view: &str) -> String {
    view.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect()
}
