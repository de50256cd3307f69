//! ## What it does
//! Reports an expectations file with no usable rule (after dropping items
//! without a predicate, and in dqe mode items LHP skips). An error when a
//! quarantine action uses the file, a warning when only dqe actions do.
//!
//! ## Why is this bad?
//! Quarantine mode rejects an empty rule set; dqe mode silently produces a
//! view with no expectation at all, so bad rows flow through unchecked.
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
//! version: "1.0"
//! table: orders
//! expectations: []
//! ```
//!
//! ## Example (good)
//! `expectations/orders.yaml`:
//! ```yaml
//! version: "1.0"
//! table: orders
//! expectations:
//!   - name: valid_order_id
//!     constraint: order_id IS NOT NULL
//!     type: expect_or_drop
//! ```
//!
//! ## Fix
//! Add at least one rule.

use dqlint_project::Shape;

use crate::diagnostic::{Diagnostic, Severity};
use crate::engine::{Context, Findings};
use crate::registry::rule;

pub fn check(ctx: &Context, out: &mut Findings) {
    let me = rule("DQ202");
    for (set, users) in ctx.expectation_sets() {
        if set.shape == Shape::Invalid {
            continue;
        }
        let quarantine = users.iter().any(|(_, a)| a.is_quarantine());
        let usable = set
            .rules
            .iter()
            .filter(|r| r.is_usable() && (quarantine || r.action.is_some()))
            .count();
        if usable > 0 {
            continue;
        }
        let file = ctx.project.file(set.file);
        // At the empty `expectations:` value when there is one, else at the
        // first line of the rules: the place a rule is missing from.
        let span = file
            .yaml
            .as_ref()
            .and_then(|y| y.documents.iter().find_map(|d| d.root.as_ref()))
            .map(|n| match n.pair("expectations") {
                Some(pair) if n.as_mapping().is_some() => pair.value.span.clone(),
                _ => {
                    let line_end = file.text[n.span.start..]
                        .find('\n')
                        .map_or(file.text.len(), |i| n.span.start + i);
                    n.span.start..line_end.min(n.span.end).max(n.span.start)
                }
            })
            .unwrap_or(0..0);
        let (severity, consequence) = if quarantine {
            (Severity::Error, "quarantine mode rejects it")
        } else {
            (Severity::Warning, "the dqe view gets no expectation at all")
        };
        let mut d = Diagnostic::at(
            me,
            set.file,
            span,
            format!("this expectations file has no usable rule: {consequence}"),
        )
        .severity(severity);
        for (_, action) in users {
            d = d.related(
                &crate::engine::origin_of(action, "expectations_file"),
                format!("used by action `{}`", action.name().unwrap_or("?")),
            );
        }
        out.push(d);
    }
}
