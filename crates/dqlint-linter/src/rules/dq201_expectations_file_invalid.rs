//! ## What it does
//! Reports an expectations file that LHP cannot use as a whole: several
//! YAML documents, a top level that is a scalar or null, or an
//! `expectations:` key holding neither a list nor a mapping.
//!
//! ## Why is this bad?
//! In dqe mode `lhp validate` passes and generation fails (LHP-IO-003) or
//! silently produces a view without any expectation; quarantine mode
//! rejects it.
//!
//! ## Example
//! ```yaml
//! expectations: price > 0
//! ```
//!
//! ## Fix
//! Write one document: a mapping of `constraint: {action, name}` or a list
//! of `{name, constraint, type|failureAction}` items.
//!
//! ## Valid
//! ```yaml
//! price > 0:
//!   action: drop
//!   name: positive_price
//! ```

use crate::diagnostic::Diagnostic;
use crate::engine::{Context, Findings};
use crate::registry::rule;

pub fn check(ctx: &Context, out: &mut Findings) {
    let me = rule("DQ201");
    for (set, users) in ctx.expectation_sets() {
        let Some((message, span)) = &set.invalid else { continue };
        let mut d = Diagnostic::at(me, set.file, span.clone(), message.clone());
        for (_, action) in users {
            d = d.related(&crate::engine::origin_of(action, "expectations_file"), format!("used by action `{}`", action.name().unwrap_or("?")));
        }
        out.push(d);
    }
}
