//! ## What it does
//! Reports a `check:` block DQX cannot read: `check` not a mapping,
//! `function` missing or not a string, `arguments` not a mapping
//! (including `arguments:` left empty, which is null), `for_each_column`
//! not a list or empty. One finding per problem.
//!
//! ## Why is this bad?
//! DQX's `validate_checks` rejects the check, and a run without
//! validation fails when the rules are built.
//!
//! ## Example (bad)
//! `quality/orders_checks.yml`:
//! ```yaml
//! - criticality: error
//!   check:
//!     function: is_not_null
//!     arguments:
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
//! Give `function` a name, `arguments` a mapping of the function's
//! parameters, `for_each_column` a non-empty list of columns.

use crate::diagnostic::Diagnostic;
use crate::engine::{Context, Findings};
use crate::registry::rule;
use crate::rules::dqx::ChecksFile;

pub fn check(_ctx: &Context, file: &ChecksFile, out: &mut Findings) {
    let me = rule("DQ804");
    if file.is_python() {
        return;
    }
    for item in file.items() {
        let Some(check) = item.entry("check") else {
            continue;
        };
        let block = &check.value;
        if block.as_map().is_none() {
            out.push(Diagnostic::at(
                me,
                file.id(),
                block.span.clone(),
                format!(
                    "`check` must be a mapping with `function` and `arguments`, not {}; DQX rejects the check",
                    block.described()
                ),
            ));
            continue;
        }
        match block.get("function") {
            None => out.push(Diagnostic::at(
                me,
                file.id(),
                check.key.span.clone(),
                "this `check` block has no `function`; DQX rejects the check",
            )),
            Some(f) if f.as_str().is_none() => out.push(Diagnostic::at(
                me,
                file.id(),
                f.span.clone(),
                format!(
                    "`function` must be a function name, not {}; DQX rejects the check",
                    f.described()
                ),
            )),
            Some(_) => {}
        }
        if let Some(args) = block.entry("arguments") {
            if args.value.as_map().is_none() {
                let (span, what) = if args.value.is_none() {
                    (args.key.span.clone(), "left empty (null)".to_string())
                } else {
                    (args.value.span.clone(), args.value.described().to_string())
                };
                out.push(Diagnostic::at(
                    me,
                    file.id(),
                    span,
                    format!("`arguments` must be a mapping, not {what}; DQX rejects the check ('arguments' should be a dictionary)"),
                ));
            }
        }
        if let Some(each) = block.entry("for_each_column") {
            match each.value.as_list() {
                None if each.value.is_none() => {}
                None => out.push(Diagnostic::at(
                    me,
                    file.id(),
                    each.value.span.clone(),
                    format!(
                        "`for_each_column` must be a list of columns, not {}; DQX rejects the check",
                        each.value.described()
                    ),
                )),
                Some([]) => out.push(Diagnostic::at(
                    me,
                    file.id(),
                    each.value.span.clone(),
                    "`for_each_column` is empty; DQX rejects the check ('for_each_column' should not be empty)",
                )),
                Some(_) => {}
            }
        }
    }
}
