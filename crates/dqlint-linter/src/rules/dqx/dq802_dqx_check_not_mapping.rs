//! ## What it does
//! Reports an item of a DQX checks file that is not a mapping
//! (`- is_not_null` instead of a `check:` block).
//!
//! ## Why is this bad?
//! DQX's `validate_checks` rejects the file ("Unsupported check type"), and
//! a run that loads it without validating fails when the rules are built.
//!
//! ## Example (bad)
//! `quality/orders_checks.yml`:
//! ```yaml
//! - criticality: error
//!   check:
//!     function: is_not_null
//!     arguments:
//!       column: order_id
//! - is_not_null
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
//! Write the check as a mapping with a `check:` block holding `function`
//! and `arguments`.

use crate::diagnostic::Diagnostic;
use crate::engine::{Context, Findings};
use crate::registry::rule;
use crate::rules::dqx::ChecksFile;

pub fn check(_ctx: &Context, file: &ChecksFile, out: &mut Findings) {
    let me = rule("DQ802");
    if file.is_python() {
        return;
    }
    for item in file.items() {
        if item.as_map().is_none() {
            out.push(Diagnostic::at(
                me,
                file.id(),
                item.span.clone(),
                format!(
                    "a DQX check must be a mapping with a `check:` block, not {}: DQX rejects the file (Unsupported check type)",
                    item.described()
                ),
            ));
        }
    }
}
