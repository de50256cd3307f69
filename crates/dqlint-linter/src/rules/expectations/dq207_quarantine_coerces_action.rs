//! ## What it does
//! Reports a `warn` or `fail` rule (written or defaulted) in an
//! expectations file used by a `mode: quarantine` action: quarantine mode
//! enforces every rule as `drop`.
//!
//! ## Why is this bad?
//! A `warn` rule you expected to only log now removes rows from the clean
//! path (they go to the DLQ); a `fail` rule no longer stops the pipeline.
//! LHP's docs promise a warning, but the CLI never shows it.
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
//! stock >= 0:
//!   action: warn
//!   name: non_negative_stock
//! ```
//!
//! ## Example (good)
//! `expectations/orders.yaml`:
//! ```yaml
//! stock >= 0:
//!   action: drop
//!   name: non_negative_stock
//! ```
//!
//! ## Fix
//! Write `drop`, which is what runs; or move the rule to a dqe action.
//! When the file is also used by an action in `dqe` mode, where `warn` and
//! `fail` do what they say, the fix is unsafe (`--unsafe-fixes`): it would
//! change that action too. The finding then names each such action.

use dqlint_project::RuleAction;

use crate::diagnostic::{Applicability, Diagnostic, Edit, Fix};
use crate::engine::{origin_of, Context, Findings};
use crate::registry::rule;
use crate::text::requote;

pub fn check(ctx: &Context, out: &mut Findings) {
    let me = rule("DQ207");
    for (set, users) in ctx.expectation_sets() {
        let quarantine_users: Vec<_> = users.iter().filter(|(_, a)| a.is_quarantine()).collect();
        if quarantine_users.is_empty() {
            continue;
        }
        // The file is shared: rewriting an action changes it for these too.
        let other_users: Vec<_> = users.iter().filter(|(_, a)| !a.is_quarantine()).collect();
        for r in set.rules.iter().filter(|r| r.is_usable()) {
            let Some(action) = r.action.filter(|a| *a != RuleAction::Drop) else {
                continue;
            };
            let label = r
                .name
                .as_ref()
                .map(|n| n.text.clone())
                .or_else(|| r.expression.as_ref().map(|e| e.text.clone()))
                .unwrap_or_default();
            let (span, written) = match &r.action_source {
                Some(src) => (src.span.clone(), true),
                None => (
                    r.expression
                        .as_ref()
                        .map(|e| e.span.clone())
                        .unwrap_or(r.span.clone()),
                    false,
                ),
            };
            let how = if written { "is" } else { "defaults to" };
            let mut d = Diagnostic::at(
                me,
                set.file,
                span.clone(),
                format!(
                    "rule `{label}` {how} `{}` but quarantine mode enforces it as `drop`",
                    action.as_str()
                ),
            );
            for (_, a) in &quarantine_users {
                d = d.related(
                    &origin_of(a, "mode"),
                    format!(
                        "used in quarantine mode by action `{}`",
                        a.name().unwrap_or("?")
                    ),
                );
            }
            for (_, a) in &other_users {
                let mode = a.dq_mode().unwrap_or("?");
                d = d.related(
                    &origin_of(a, "mode"),
                    format!(
                        "also used in `{mode}` mode by action `{}`, where `{}` is enforced as written",
                        a.name().unwrap_or("?"),
                        action.as_str()
                    ),
                );
            }
            if let Some(src) = r
                .action_source
                .as_ref()
                .filter(|_| r.invalid_action.is_none())
            {
                let origin = dqlint_project::Origin::new(set.file, src.span.clone());
                let new = if src.text.starts_with("expect") {
                    "expect_or_drop"
                } else {
                    "drop"
                };
                let (applicability, description) = if other_users.is_empty() {
                    (
                        Applicability::Safe,
                        format!("write `{new}`, which is what quarantine mode runs"),
                    )
                } else {
                    (
                        Applicability::Unsafe,
                        format!(
                            "write `{new}`, which is what quarantine mode runs; the file's other users would drop rows too"
                        ),
                    )
                };
                d = d.fix(Fix {
                    applicability,
                    description,
                    edits: vec![Edit {
                        file: set.file,
                        span: src.span.clone(),
                        new_text: requote(ctx.project, &origin, new),
                    }],
                });
            }
            out.push(d);
        }
    }
}
