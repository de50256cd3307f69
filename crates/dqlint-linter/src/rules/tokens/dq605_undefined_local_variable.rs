//! ## What it does
//! Reports a `%{var}` that the flowgroup's `variables:` block does not
//! define (or a `%{var}` in a flowgroup without a `variables:` block).
//!
//! ## Why is this bad?
//! LHP fails with LHP-CFG-011; without a `variables:` block it leaves the
//! text in place and fails later with an unresolved `{var}` token.
//!
//! ## Example (bad)
//! `pipelines/bronze/orders.yaml`:
//! ```yaml
//! pipeline: bronze
//! flowgroup: orders
//! variables:
//!   entity: orders
//! actions:
//!   - name: load_orders
//!     type: load
//!     readMode: stream
//!     source:
//!       type: cloudfiles
//!       path: /Volumes/main/landing/orders
//!       format: json
//!     target: v_orders_raw
//!   - name: "%{entitty}_dq"
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
//! ```
//!
//! ## Example (good)
//! `pipelines/bronze/orders.yaml`:
//! ```yaml
//! pipeline: bronze
//! flowgroup: orders
//! variables:
//!   entity: orders
//! actions:
//!   - name: load_orders
//!     type: load
//!     readMode: stream
//!     source:
//!       type: cloudfiles
//!       path: /Volumes/main/landing/orders
//!       format: json
//!     target: v_orders_raw
//!   - name: "%{entity}_dq"
//!     type: transform
//!     transform_type: data_quality
//!     source: v_orders_raw
//!     target: v_orders
//!     expectations_file: expectations/orders.yaml
//! ```
//!
//! ## Fix
//! Define the variable, or fix its name.

use dqlint_project::vocabulary::tokens::scan_variables;
use dqlint_project::{ProblemKind, Via};

use crate::diagnostic::Diagnostic;
use crate::engine::{Context, Findings};
use crate::registry::rule;
use crate::text::find_in_origin;
use crate::tokens::{braced_strings, BracedString};

pub fn check(ctx: &Context, out: &mut Findings) {
    let me = rule("DQ605");
    for (fg, strings) in ctx.project.flowgroups.iter().zip(braced_strings(ctx)) {
        let has_block = fg.doc.get("variables").is_some();
        // A stamped blueprint spec: the expansion knows which `%{}` it left.
        let from_blueprint = matches!(fg.doc.origin.via.as_deref(), Some(Via::Blueprint { .. }));
        if has_block || from_blueprint {
            for p in fg
                .problems
                .iter()
                .filter(|p| p.kind == ProblemKind::UndefinedVariable)
            {
                let name = p.message.split('`').nth(1).unwrap_or("");
                let at = find_in_origin(ctx.project, &p.origin, name, 0);
                out.push(Diagnostic::new(me, &at, p.message.clone()));
            }
            continue;
        }
        for &BracedString { value, .. } in strings {
            let Some(text) = value.as_str() else { continue };
            for (name, range) in scan_variables(text) {
                let at = find_in_origin(ctx.project, &value.origin, &text[range], 0);
                out.push(Diagnostic::new(me, &at, format!(
                    "`%{{{name}}}` is used but this flowgroup has no `variables:` block (LHP leaves it unresolved)"
                )));
            }
        }
    }
}
