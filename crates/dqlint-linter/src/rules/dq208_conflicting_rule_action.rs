//! ## What it does
//! Reports a list-format rule whose `type` and `failureAction` disagree.
//!
//! ## Why is this bad?
//! `failureAction` silently wins: a rule written `type: expect_or_fail`
//! with `failureAction: warn` only warns.
//!
//! ## Example
//! ```yaml
//! - name: valid_id
//!   constraint: id IS NOT NULL
//!   type: expect_or_fail
//!   failureAction: warn
//! ```
//!
//! ## Fix
//! Keep one of the two keys.
//!
//! ## Valid
//! ```yaml
//! - name: valid_id
//!   constraint: id IS NOT NULL
//!   failureAction: fail
//! ```

use crate::diagnostic::Diagnostic;
use crate::engine::{Context, Findings};
use crate::registry::rule;

pub fn check(ctx: &Context, out: &mut Findings) {
    let me = rule("DQ208");
    for (set, _) in ctx.expectation_sets() {
        for r in &set.rules {
            let Some((ty, failure)) = &r.conflicting_type else { continue };
            out.push(
                Diagnostic::at(me, set.file, ty.span.clone(), format!(
                    "`type: {}` disagrees with `failureAction: {}`; LHP uses `failureAction`", ty.text, failure.text
                ))
                .related(&dqlint_project::Origin::new(set.file, failure.span.clone()), "this `failureAction` wins"),
            );
        }
    }
}
