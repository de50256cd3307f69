//! ## What it does
//! Reports a quarantine action in a pipeline that `config/pipeline_config.yaml`
//! makes `continuous: true` (directly or through `project_defaults`).
//!
//! ## Why is this bad?
//! Quarantine mode requires a triggered pipeline: its DLQ MERGE and recycle
//! flows are built for batch-triggered updates. LHP's docs say so but
//! nothing checks it.
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
//! `config/pipeline_config.yaml`:
//! ```yaml
//! pipeline: bronze
//! continuous: true
//! ```
//!
//! ## Example (good)
//! `config/pipeline_config.yaml`:
//! ```yaml
//! pipeline: bronze
//! continuous: false
//! ```
//!
//! ## Fix
//! Run the pipeline triggered (`continuous: false`), or use `mode: dqe`.

use crate::diagnostic::Diagnostic;
use crate::engine::{origin_of, Context, Findings};
use crate::registry::rule;

pub fn check(ctx: &Context, out: &mut Findings) {
    let me = rule("DQ504");
    for (fg, action) in ctx.quarantine_actions() {
        let Some(pipeline) = fg.pipeline.as_deref() else {
            continue;
        };
        let Some(setting) = ctx.project.pipeline_config.continuous_for(pipeline) else {
            continue;
        };
        out.push(
            Diagnostic::new(me, &origin_of(action, "mode"), format!(
                "action `{}` uses quarantine mode, but pipeline `{pipeline}` is `continuous: true`; quarantine needs a triggered pipeline",
                action.name().unwrap_or("?")
            ))
            .related(setting, "the pipeline is made continuous here"),
        );
    }
}
