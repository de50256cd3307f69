//! ## What it does
//! Reports a flowgroup document, `flowgroups`, `actions`, an action or a
//! `quarantine` block with the wrong YAML type (for example `actions`
//! written as a mapping instead of a list).
//!
//! ## Why is this bad?
//! LHP's models expect lists and mappings in these places; other types
//! crash it with a Pydantic traceback (LHP-GEN-902) or make it generate
//! broken code.
//!
//! ## Example (bad)
//! `pipelines/bronze/orders.yaml`:
//! ```yaml
//! pipeline: bronze
//! flowgroup: orders
//! actions:
//!   name: orders_dq
//!   type: transform
//!   transform_type: data_quality
//!   source: v_orders_raw
//!   target: v_orders
//!   expectations_file: expectations/orders.yaml
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
//!   - name: orders_dq
//!     type: transform
//!     transform_type: data_quality
//!     source: v_orders_raw
//!     target: v_orders
//!     expectations_file: expectations/orders.yaml
//! ```
//!
//! ## Fix
//! Use the type LHP expects: `actions` is a list of mappings (`- name: ...`).

use dqlint_project::{ProblemKind, ValueKind};

use crate::diagnostic::Diagnostic;
use crate::engine::{Context, Findings};
use crate::registry::rule;

pub fn check(ctx: &Context, out: &mut Findings) {
    let me = rule("DQ002");
    for p in ctx
        .project
        .all_problems()
        .filter(|p| p.kind == ProblemKind::Structure)
    {
        out.push(Diagnostic::new(me, &p.origin, p.message.clone()));
    }
    for (_, action) in ctx.dq_actions() {
        if let Some(q) = action.get("quarantine") {
            if !matches!(q.kind, ValueKind::Map(_) | ValueKind::Null) {
                out.push(Diagnostic::new(
                    me,
                    &q.origin,
                    format!("`quarantine` must be a mapping with `dlq_table` and `source_table`, not {}", q.type_name()),
                ));
            }
        }
    }
}
