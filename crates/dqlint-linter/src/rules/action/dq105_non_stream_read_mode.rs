//! ## What it does
//! Reports a data_quality action whose `readMode` is not `stream`.
//!
//! ## Why is this bad?
//! The data_quality generator only streams. `lhp validate` passes such a
//! config, and `lhp generate` then fails with LHP-VAL-068.
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
//!     readMode: batch
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
//!     readMode: stream
//!     mode: quarantine
//!     quarantine:
//!       dlq_table: main.ops.dlq
//!       source_table: main.bronze.orders
//! ```
//!
//! ## Fix
//! Use `readMode: stream` or remove the key (stream is the default). When
//! the value comes from a template parameter (`readMode: "{{ rm }}"` in the
//! template, `rm: batch` in the flowgroup's `template_parameters`), the
//! finding points at the parameter's value and the fix rewrites it there;
//! the template stays as it is (the fix is unsafe when the template uses
//! the parameter for something else too).

use crate::diagnostic::{Applicability, Diagnostic, Edit, Fix};
use crate::engine::{Context, Findings};
use crate::registry::rule;
use crate::rules::action::{fix_target, FixTarget};
use crate::text::requote;

pub fn check(ctx: &Context, out: &mut Findings) {
    let me = rule("DQ105");
    for (fg, action) in ctx.dq_actions() {
        let Some(mode) = action.get("readMode").filter(|m| !m.is_null()) else {
            continue;
        };
        if mode.as_str() == Some("stream") {
            continue;
        }
        let shown = mode
            .as_str()
            .map(|s| format!("`{s}`"))
            .unwrap_or_else(|| mode.type_name().to_string());
        let d = match fix_target(ctx, fg, mode) {
            FixTarget::Parameter(param) => param.finding(
                ctx,
                me,
                "readMode",
                format!(
                    "`readMode` is {shown} through template parameter `{}`; data_quality actions only stream (`lhp generate` fails with LHP-VAL-068)",
                    param.name
                ),
                "stream",
                Applicability::Safe,
            ),
            // Rendered from a parameter the flowgroup does not set (the
            // template's default): the template's text is not the value
            // that is wrong for this flowgroup, so no edit there.
            FixTarget::Default => Diagnostic::new(me, &mode.origin, message(&shown)),
            FixTarget::Written => Diagnostic::new(me, &mode.origin, message(&shown)).fix(Fix {
                applicability: Applicability::Safe,
                description: "set `readMode: stream`".into(),
                edits: vec![Edit {
                    file: mode.origin.file,
                    span: mode.origin.span.clone(),
                    new_text: requote(ctx.project, &mode.origin, "stream"),
                }],
            }),
        };
        out.push(d);
    }
}

fn message(shown: &str) -> String {
    format!(
        "`readMode` is {shown}; data_quality actions only stream (`lhp generate` fails with LHP-VAL-068)"
    )
}
