//! ## What it does
//! Reports a CDC `sequence_by` that names a processing-time value: an
//! operational-metadata column computed from `current_timestamp()` (such
//! as `_processing_timestamp`), or an expression calling a time function.
//!
//! ## Why is this bad?
//! Processing time orders rows by when the pipeline saw them, not by when
//! they changed: reruns, backfills and recycled quarantine rows resolve
//! conflicts differently each time.
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
//!         sequence_by: _processing_timestamp
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
//! Sequence by a column of the source data (event time, version, LSN).

use std::collections::HashSet;

use dqlint_project::Value;

use crate::diagnostic::Diagnostic;
use crate::engine::{Context, Findings};
use crate::registry::rule;

const TIME_FUNCTIONS: &[&str] = &[
    "current_timestamp",
    "now",
    "current_date",
    "localtimestamp",
    "unix_timestamp",
    "getdate",
];

pub fn check(ctx: &Context, out: &mut Findings) {
    let me = rule("DQ702");
    let processing = processing_time_columns(ctx);
    for (_, action) in ctx.project.actions() {
        let Some(target) = action.get("write_target") else {
            continue;
        };
        if action.action_type() != Some("write") || target.get_str("mode") != Some("cdc") {
            continue;
        }
        let Some(seq) = target.get("cdc_config").and_then(|c| c.get("sequence_by")) else {
            continue;
        };
        let items: Vec<&Value> = match seq.as_seq() {
            Some(items) => items.iter().collect(),
            None => vec![seq],
        };
        for item in items {
            let Some(text) = item.as_str() else { continue };
            let lower = text.trim().to_ascii_lowercase();
            let why = if processing.contains(&lower) {
                format!("`{text}` is an operational-metadata column computed from the current time")
            } else if TIME_FUNCTIONS
                .iter()
                .any(|f| lower.contains(&format!("{f}(")))
            {
                format!("`{text}` calls a time function")
            } else {
                continue;
            };
            out.push(Diagnostic::new(me, &item.origin, format!(
                "`sequence_by` uses processing time: {why}; reruns and backfills will order changes differently"
            )));
        }
    }
}

/// `_processing_timestamp` plus every `operational_metadata` column of
/// `lhp.yaml` whose expression reads the clock.
fn processing_time_columns(ctx: &Context) -> HashSet<String> {
    let mut out: HashSet<String> = ["_processing_timestamp".to_string()].into();
    let Some(root) = ctx
        .project
        .project_config()
        .and_then(|f| f.first_document())
    else {
        return out;
    };
    if let Some(columns) = root
        .get("operational_metadata")
        .and_then(|m| m.get("columns"))
        .and_then(Value::as_map)
    {
        for column in columns {
            let expr = column
                .value
                .get_str("expression")
                .unwrap_or("")
                .to_ascii_lowercase();
            if TIME_FUNCTIONS
                .iter()
                .any(|f| expr.contains(&format!("{f}(")))
            {
                out.insert(column.key.to_ascii_lowercase());
            }
        }
    }
    out
}
