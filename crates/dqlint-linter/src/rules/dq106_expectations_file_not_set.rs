//! ## What it does
//! Reports a data_quality action without `expectations_file`.
//!
//! ## Why is this bad?
//! `lhp validate` passes, `lhp generate` fails (LHP-VAL-001: E02). Inline
//! `expectations:` do not replace it (E28), and a preset cannot set it
//! (E39).
//!
//! ## Example
//! ```yaml
//! - name: orders_dq
//!   type: transform
//!   transform_type: data_quality
//!   source: v_orders
//!   target: v_orders_dq
//! ```
//!
//! ## Fix
//! Add `expectations_file: expectations/<name>.yaml` (relative to the
//! project root).
//!
//! ## Valid
//! ```yaml
//! - name: orders_dq
//!   type: transform
//!   transform_type: data_quality
//!   source: v_orders
//!   target: v_orders_dq
//!   expectations_file: expectations/orders.yaml
//! ```

use crate::diagnostic::Diagnostic;
use crate::engine::{Context, Findings};
use crate::registry::rule;

pub fn check(ctx: &Context, out: &mut Findings) {
    let me = rule("DQ106");
    for (_, action) in ctx.dq_actions() {
        match action.get("expectations_file") {
            Some(v) if v.is_truthy() => {}
            Some(v) => out.push(Diagnostic::new(me, &v.origin, "`expectations_file` is empty: `lhp generate` fails with LHP-VAL-001")),
            None => out.push(Diagnostic::new(me, &action.anchor(), format!(
                "data_quality action `{}` has no `expectations_file`: `lhp generate` fails with LHP-VAL-001",
                action.name().unwrap_or("?")
            ))),
        }
    }
}
