//! ## What it does
//! Reports two rules of one file that LHP files under the same name
//! (explicit, or defaulted from the expression).
//!
//! ## Why is this bad?
//! LHP collects rules in dictionaries keyed by name: the later rule
//! silently replaces the earlier one, so one check disappears.
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
//!   name: valid_order
//! amount >= 0:
//!   action: drop
//!   name: valid_order
//! ```
//!
//! ## Example (good)
//! `expectations/orders.yaml`:
//! ```yaml
//! order_id IS NOT NULL:
//!   action: drop
//!   name: valid_order_id
//! amount >= 0:
//!   action: drop
//!   name: non_negative_amount
//! ```
//!
//! ## Fix
//! Give each rule its own name.

use std::collections::HashMap;

use dqlint_project::{Rule, RuleAction};

use crate::diagnostic::Diagnostic;
use crate::engine::{Context, Findings};
use crate::registry::rule;

pub fn check(ctx: &Context, out: &mut Findings) {
    let me = rule("DQ205");
    for (set, users) in ctx.expectation_sets() {
        let quarantine = users.iter().any(|(_, a)| a.is_quarantine());
        let dqe = users.iter().any(|(_, a)| !a.is_quarantine());
        let mut reported = Vec::new();
        // Quarantine mode files every rule as drop; dqe keeps one dict per action.
        for (mode_quarantine, active) in [(true, quarantine), (false, dqe)] {
            if !active {
                continue;
            }
            let mut seen: HashMap<(String, Option<RuleAction>), &Rule> = HashMap::new();
            for r in set.rules.iter().filter(|r| r.is_usable()) {
                let Some(name) = r.effective_name(mode_quarantine) else {
                    continue;
                };
                let bucket = if mode_quarantine { None } else { r.action };
                if !mode_quarantine && r.action.is_none() {
                    continue;
                }
                if let Some(first) = seen.insert((name.clone(), bucket), r) {
                    if reported.contains(&r.index) {
                        continue;
                    }
                    reported.push(r.index);
                    let at = located_name(r, mode_quarantine);
                    let first_at = located_name(first, mode_quarantine);
                    out.push(
                        Diagnostic::at(me, set.file, at, format!(
                            "rule name `{name}` is used twice in this file: LHP keeps only this rule and silently drops the earlier one"
                        ))
                        .related(&dqlint_project::Origin::new(set.file, first_at), "the earlier rule with this name"),
                    );
                }
            }
        }
    }
}

fn located_name(r: &Rule, quarantine: bool) -> std::ops::Range<usize> {
    let named = if quarantine {
        r.name.as_ref()
    } else {
        r.dqe_name.as_ref().or(r.name.as_ref())
    };
    named
        .or(r.expression.as_ref())
        .map(|l| l.span.clone())
        .unwrap_or(r.span.clone())
}
