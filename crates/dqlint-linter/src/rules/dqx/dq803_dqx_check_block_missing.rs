//! ## What it does
//! Reports a DQX check item without a `check` key. When `function` sits at
//! the item level (the "flat form"), says so.
//!
//! ## Why is this bad?
//! DQX's `validate_checks` rejects it ("'check' field is missing"); the
//! flat form looks right and is tolerated by DQX's semantic validator,
//! which makes the mistake easy to miss.
//!
//! ## Example (bad)
//! `quality/orders_checks.yml`:
//! ```yaml
//! - criticality: error
//!   function: is_not_null
//!   arguments:
//!     column: order_id
//! ```
//!
//! ## Example (good)
//! `quality/orders_checks.yml`:
//! ```yaml
//! - criticality: error
//!   check:
//!     function: is_not_null
//!     arguments:
//!       column: order_id
//! ```
//!
//! ## Fix
//! Move `function`, `arguments` and `for_each_column` under a `check:` key.

use crate::diagnostic::Diagnostic;
use crate::engine::{Context, Findings};
use crate::registry::rule;
use crate::rules::dqx::ChecksFile;

pub fn check(_ctx: &Context, file: &ChecksFile, out: &mut Findings) {
    let me = rule("DQ803");
    if file.is_python() {
        return;
    }
    for item in file.items() {
        let Some(entries) = item.as_map() else {
            continue;
        };
        if item.entry("check").is_some() {
            continue;
        }
        let span = entries
            .first()
            .map(|e| e.key.span.clone())
            .unwrap_or(item.span.clone());
        let message = if item.get("function").is_some() {
            "this check is in the flat form: `function` and `arguments` must sit under a `check:` key; DQX rejects it ('check' field is missing)"
        } else {
            "this DQX check has no `check:` block; DQX rejects it ('check' field is missing)"
        };
        out.push(Diagnostic::at(me, file.id(), span, message));
    }
}
