//! ## What it does
//! Reports a mapping-format rule whose value is not a mapping
//! (`price > 0: drop`).
//!
//! ## Why is this bad?
//! LHP calls `.get("action")` on the value: generation crashes with
//! LHP-ACT-002 in dqe mode and validation crashes in quarantine mode.
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
//! Write `price > 0: {action: drop}`. A tag on the value (`!!str drop`)
//! is dropped with it: `!!str {action: drop}` would not load. A value with
//! an anchor (`&a drop`) gets no fix: its aliases would change too.

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
            let properties = node_properties(&file.text, span.start);
            if ["warn", "drop", "fail"].contains(&action.as_str())
                && span.end > span.start
                && !properties.anchored
            {
                let json = file.rel.ends_with(".json");
                let new_text = if json {
                    format!("{{\"action\": \"{action}\"}}")
                } else {
                    format!("{{action: {action}}}")
                };
                d = d.fix(Fix {
                    applicability: Applicability::Safe,
                    description: format!("write `{new_text}`"),
                    // The tag goes with the scalar it typed: `!!str {action:
                    // drop}` is a string tag on a mapping, which PyYAML
                    // refuses to load.
                    edits: vec![Edit {
                        file: set.file,
                        span: properties.start..span.end,
                        new_text,
                    }],
                });
            }
            out.push(d);
        }
    }
}

/// A scalar's YAML node properties written before it (`!!str`, `&name`).
struct NodeProperties {
    /// Where the node starts, its tag included.
    start: usize,
    /// An anchor: aliases elsewhere read this value too, so rewriting it
    /// would change them.
    anchored: bool,
}

fn node_properties(text: &str, value_start: usize) -> NodeProperties {
    let mut props = NodeProperties {
        start: value_start,
        anchored: false,
    };
    loop {
        let before = text[..props.start].trim_end_matches([' ', '\t']);
        let token_start = before
            .rfind(|c: char| c.is_whitespace())
            .map(|i| i + 1)
            .unwrap_or(0);
        let token = &before[token_start..];
        if token.starts_with('!') && token.len() < before.len() {
            props.start = token_start;
        } else if token.starts_with('&') && token.len() > 1 {
            props.anchored = true;
            props.start = token_start;
        } else {
            return props;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::node_properties;

    #[test]
    fn tags_and_anchors_before_a_value() {
        let text = "price > 0: !!str drop\n";
        let p = node_properties(text, text.find("drop").unwrap());
        assert_eq!(&text[p.start..], "!!str drop\n");
        assert!(!p.anchored);
        let text = "price > 0: &a !!str drop\n";
        let p = node_properties(text, text.find("drop").unwrap());
        assert!(p.anchored);
        let text = "price > 0: drop\n";
        let p = node_properties(text, text.find("drop").unwrap());
        assert_eq!(p.start, text.find("drop").unwrap());
    }
}
