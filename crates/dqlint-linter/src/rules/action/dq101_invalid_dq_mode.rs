//! ## What it does
//! Reports a data_quality action whose `mode` is neither `dqe` nor
//! `quarantine`.
//!
//! ## Why is this bad?
//! `lhp validate` rejects the flowgroup (LHP-VAL-007); a typo such as
//! `quarantined` is easy to miss.
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
//!     mode: quarantined
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
//! Use `dqe` (decorate the view) or `quarantine` (route failing rows to a
//! dead-letter table). When the value comes from a template parameter
//! (`mode: "{{ m }}"` in the template), the finding and its fix are on the
//! flowgroup's `template_parameters` value, not the template.

use crate::diagnostic::{Applicability, Diagnostic, Edit, Fix};
use crate::engine::{Context, Findings};
use crate::registry::rule;
use crate::rules::action::{fix_target, FixTarget};
use crate::text::{did_you_mean, requote};

pub fn check(ctx: &Context, out: &mut Findings) {
    let me = rule("DQ101");
    for (fg, action) in ctx.dq_actions() {
        let Some(mode) = action.get("mode").filter(|m| !m.is_null()) else {
            continue;
        };
        let text = mode.as_str().unwrap_or_default();
        if text == "dqe" || text == "quarantine" {
            continue;
        }
        let shown = mode
            .as_str()
            .map(|s| format!("`{s}`"))
            .unwrap_or_else(|| mode.type_name().to_string());
        let message = format!("`mode` is {shown}; it must be `dqe` or `quarantine`");
        let suggestion = did_you_mean(&text.to_ascii_lowercase(), &["dqe", "quarantine"]);
        let target = fix_target(ctx, fg, mode);
        if let (FixTarget::Parameter(param), Some(s)) = (&target, suggestion) {
            let message = format!(
                "`mode` is {shown} through template parameter `{}`; it must be `dqe` or `quarantine`",
                param.name
            );
            out.push(param.finding(ctx, me, "mode", message, s, Applicability::Unsafe));
            continue;
        }
        let mut d = Diagnostic::new(me, &mode.origin, message);
        if let (FixTarget::Written, Some(s)) = (target, suggestion) {
            d = d.fix(Fix {
                applicability: Applicability::Unsafe,
                description: format!("set `mode: {s}`"),
                edits: vec![Edit {
                    file: mode.origin.file,
                    span: mode.origin.span.clone(),
                    new_text: requote(ctx.project, &mode.origin, s),
                }],
            });
        }
        out.push(d);
    }
}
