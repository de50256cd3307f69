//! ## What it does
//! Reports a mapping-format rule whose value is not a mapping
//! (`price > 0: drop`).
//!
//! ## Why is this bad?
//! LHP calls `.get("action")` on the value: generation crashes with
//! LHP-ACT-002 in dqe mode (E15) and validation crashes in quarantine mode.
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
//! ```
//!
//! `expectations/orders.yaml`:
//! ```yaml
//! order_id IS NOT NULL:
//!   action: drop
//!   name: valid_order_id
//! amount >= 0: drop
//! ```
//!
//! ## Example (good)
//! `expectations/orders.yaml`:
//! ```yaml
//! order_id IS NOT NULL:
//!   action: drop
//!   name: valid_order_id
//! amount >= 0: {action: drop}
//! ```
//!
//! ## Fix
//! Write `price > 0: {action: drop}`.

use crate::diagnostic::{Applicability, Diagnostic, Edit, Fix};
use crate::engine::{Context, Findings};
use crate::registry::rule;

pub fn check(ctx: &Context, out: &mut Findings) {
    let me = rule("DQ206");
    for (set, _) in ctx.expectation_sets() {
        let file = ctx.project.file(set.file);
        for r in &set.rules {
            let Some(span) = &r.value_not_mapping else {
                continue;
            };
            let raw = file.text.get(span.clone()).unwrap_or("").trim();
            let mut d = Diagnostic::at(me, set.file, span.clone(), format!(
                "the value of a rule must be a mapping such as `{{action: drop, name: ...}}`, not `{raw}`: LHP crashes on it"
            ));
            let action = raw.trim_matches(['"', '\'']).to_ascii_lowercase();
            if ["warn", "drop", "fail"].contains(&action.as_str()) && span.end > span.start {
                let json = file.rel.ends_with(".json");
                let new_text = if json {
                    format!("{{\"action\": \"{action}\"}}")
                } else {
                    format!("{{action: {action}}}")
                };
                d = d.fix(Fix {
                    applicability: Applicability::Safe,
                    description: format!("write `{new_text}`"),
                    edits: vec![Edit {
                        file: set.file,
                        span: span.clone(),
                        new_text,
                    }],
                });
            }
            out.push(d);
        }
    }
}
