//! ## What it does
//! Reports keys that LHP ignores: on a `data_quality` action, any key that
//! action type does not use (a typo such as `expectation_file`, or a field
//! of another action type such as `on_violation`); inside a `quarantine`
//! block; and at the top level of a flowgroup. Suggests the key you
//! probably meant.
//!
//! ## Why is this bad?
//! LHP silently drops unknown keys: a misspelt
//! `expectation_file` leaves the action without rules, and nothing says so.
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
//!     readmode: stream
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
//! ```
//!
//! ## Fix
//! Rename the key (here `readMode`) or remove it.

use dqlint_project::{vocabulary, Entry, Value};

use crate::diagnostic::{Applicability, Diagnostic, Edit, Fix};
use crate::engine::{Context, Findings};
use crate::registry::rule;
use crate::text::did_you_mean;

/// The vocabulary blocks read here (`dqlint_project::vocabulary`): a
/// data_quality action's keys (LHP's `Action` model fields that the
/// data_quality validator and generator read, plus the common ones), a
/// `quarantine` block's, a flowgroup's top level.
const DQ_ACTION: &str = "action:transform/data_quality";
const QUARANTINE: &str = "flowgroup:actions[].quarantine";
const FLOWGROUP: &str = "flowgroup:";

pub fn check(ctx: &Context, out: &mut Findings) {
    let dq_action = vocabulary::expect_block(DQ_ACTION).names();
    let quarantine = vocabulary::expect_block(QUARANTINE).names();
    let flowgroup = vocabulary::expect_block(FLOWGROUP).names();
    for (_, action) in ctx.dq_actions() {
        report_unknown(ctx, out, &action.value, &dq_action, "a data_quality action");
        if let Some(q) = action.get("quarantine") {
            report_unknown(ctx, out, q, &quarantine, "a `quarantine` block");
        }
    }
    for fg in &ctx.project.flowgroups {
        report_unknown(ctx, out, &fg.doc, &flowgroup, "a flowgroup");
    }
}

fn report_unknown(ctx: &Context, out: &mut Findings, value: &Value, known: &[&str], place: &str) {
    let me = rule("DQ003");
    let Some(entries) = value.as_map() else {
        return;
    };
    for Entry {
        key, key_origin, ..
    } in entries
    {
        if known.contains(&key.as_str()) {
            continue;
        }
        let suggestion = did_you_mean(key, known).filter(|s| value.entry(s).is_none());
        let mut message = format!("`{key}` is not a key of {place}; LHP ignores it");
        let mut diagnostic;
        if let Some(s) = suggestion {
            message.push_str(&format!(" (did you mean `{s}`?)"));
            diagnostic = Diagnostic::new(me, key_origin, message);
            let raw = crate::text::source_text(ctx.project, key_origin);
            if raw == key {
                diagnostic = diagnostic.fix(Fix {
                    applicability: Applicability::Unsafe,
                    description: format!("rename `{key}` to `{s}`"),
                    edits: vec![Edit {
                        file: key_origin.file,
                        span: key_origin.span.clone(),
                        new_text: s.to_string(),
                    }],
                });
            }
        } else {
            diagnostic = Diagnostic::new(me, key_origin, message);
        }
        out.push(diagnostic);
    }
}
