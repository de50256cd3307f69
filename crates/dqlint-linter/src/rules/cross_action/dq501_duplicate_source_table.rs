//! ## What it does
//! Reports two quarantine actions in one pipeline that share a DLQ
//! (compared case-insensitively) and a `source_table`.
//!
//! ## Why is this bad?
//! Rows in the shared DLQ are keyed by `_dlq_source_table`: each action's
//! recycle flow picks up the other's fixed rows and re-injects them into
//! the wrong table. LHP 0.9.3 rejects this (LHP-VAL-069); dqlint says so
//! as you type.
//!
//! ## Example (bad)
//! `pipelines/bronze/orders_eu.yaml`:
//! ```yaml
//! pipeline: bronze
//! flowgroup: orders_eu
//! actions:
//!   - name: load_orders_eu
//!     type: load
//!     readMode: stream
//!     source:
//!       type: cloudfiles
//!       path: /Volumes/main/landing/orders_eu
//!       format: json
//!     target: v_orders_eu_raw
//!   - name: orders_eu_dq
//!     type: transform
//!     transform_type: data_quality
//!     source: v_orders_eu_raw
//!     target: v_orders_eu
//!     expectations_file: expectations/orders.yaml
//!     mode: quarantine
//!     quarantine:
//!       dlq_table: main.ops.dlq
//!       source_table: main.bronze.orders
//! ```
//!
//! `pipelines/bronze/orders_us.yaml`:
//! ```yaml
//! pipeline: bronze
//! flowgroup: orders_us
//! actions:
//!   - name: load_orders_us
//!     type: load
//!     readMode: stream
//!     source:
//!       type: cloudfiles
//!       path: /Volumes/main/landing/orders_us
//!       format: json
//!     target: v_orders_us_raw
//!   - name: orders_us_dq
//!     type: transform
//!     transform_type: data_quality
//!     source: v_orders_us_raw
//!     target: v_orders_us
//!     expectations_file: expectations/orders.yaml
//!     mode: quarantine
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
//! `pipelines/bronze/orders_eu.yaml`:
//! ```yaml
//! pipeline: bronze
//! flowgroup: orders_eu
//! actions:
//!   - name: load_orders_eu
//!     type: load
//!     readMode: stream
//!     source:
//!       type: cloudfiles
//!       path: /Volumes/main/landing/orders_eu
//!       format: json
//!     target: v_orders_eu_raw
//!   - name: orders_eu_dq
//!     type: transform
//!     transform_type: data_quality
//!     source: v_orders_eu_raw
//!     target: v_orders_eu
//!     expectations_file: expectations/orders.yaml
//!     mode: quarantine
//!     quarantine:
//!       dlq_table: main.ops.dlq
//!       source_table: main.bronze.orders_eu
//! ```
//!
//! `pipelines/bronze/orders_us.yaml`:
//! ```yaml
//! pipeline: bronze
//! flowgroup: orders_us
//! actions:
//!   - name: load_orders_us
//!     type: load
//!     readMode: stream
//!     source:
//!       type: cloudfiles
//!       path: /Volumes/main/landing/orders_us
//!       format: json
//!     target: v_orders_us_raw
//!   - name: orders_us_dq
//!     type: transform
//!     transform_type: data_quality
//!     source: v_orders_us_raw
//!     target: v_orders_us
//!     expectations_file: expectations/orders.yaml
//!     mode: quarantine
//!     quarantine:
//!       dlq_table: main.ops.dlq
//!       source_table: main.bronze.orders_us
//! ```
//!
//! ## Fix
//! Give each action the table its rows belong to as `source_table`.

use std::collections::HashMap;

use crate::diagnostic::Diagnostic;
use crate::engine::{Context, Findings};
use crate::quarantine::{resolved_uses, tokenized};
use crate::registry::rule;

pub fn check(ctx: &Context, out: &mut Findings) {
    report_shared(ctx, out, "DQ501", true);
}

/// Shared by DQ501 (same pipeline) and DQ502 (across pipelines): LHP's key
/// is the DLQ case-insensitively and the source table exactly.
pub fn report_shared(ctx: &Context, out: &mut Findings, code: &str, same_pipeline: bool) {
    let me = rule(code);
    for env in &ctx.envs {
        let uses = resolved_uses(ctx.quarantine_actions(), env);
        // Earlier uses by (DLQ, source table), in order: the first match is
        // the same as a scan of all earlier uses, without being quadratic
        // in the number of quarantine actions.
        let mut by_key: HashMap<(String, &str), Vec<usize>> = HashMap::new();
        for (i, later) in uses.iter().enumerate() {
            let same_key = by_key
                .entry((
                    later.dlq_table.to_ascii_lowercase(),
                    later.source_table.as_str(),
                ))
                .or_default();
            let earlier = same_key
                .iter()
                .map(|&e| &uses[e])
                .find(|e| (e.pipeline == later.pipeline) == same_pipeline);
            same_key.push(i);
            let Some(earlier) = earlier else { continue };
            // DQ502 reports a pair once, at its first cross-pipeline partner.
            let where_ = if same_pipeline {
                format!("in pipeline `{}`", later.pipeline)
            } else {
                format!(
                    "in pipeline `{}` and pipeline `{}`",
                    earlier.pipeline, later.pipeline
                )
            };
            let raw = |u: &crate::quarantine::QuarantineUse, key: &str| {
                u.action
                    .get("quarantine")
                    .and_then(|q| q.get_str(key))
                    .unwrap_or("")
                    .to_string()
            };
            let (later_dlq, later_src) = (raw(later, "dlq_table"), raw(later, "source_table"));
            let depends = tokenized(&[&later_dlq, &later_src, &raw(earlier, "source_table")]);
            // With tokens, name the tables as written so that the same
            // conflict in several environments merges into one finding.
            let (source, dlq) = if depends {
                (later_src, later_dlq)
            } else {
                (later.source_table.clone(), later.dlq_table.clone())
            };
            let mut d = Diagnostic::new(me, &later.source_origin, format!(
                "actions {} and {} {where_} both quarantine `source_table` `{source}` into DLQ `{dlq}`: their recycle flows take each other's rows",
                earlier.label(), later.label()
            ))
            .related(&earlier.source_origin, format!("{} uses the same DLQ and source table", earlier.label()));
            if depends {
                d = d.env(&env.name);
            }
            out.push(d);
        }
    }
}
