//! ## What it does
//! Reports a check that gives both `for_each_column` and the argument it
//! fills (`column`, or `columns` for functions such as `is_unique`).
//!
//! ## Why is this bad?
//! DQX replaces the argument with each `for_each_column` item in turn
//! without a word: the column written in `arguments` is never checked.
//!
//! ## Example (bad)
//! `quality/orders_checks.yml`:
//! ```yaml
//! - criticality: error
//!   check:
//!     function: is_not_null
//!     for_each_column: [order_id, customer_id]
//!     arguments:
//!       column: order_date
//! ```
//!
//! ## Example (good)
//! `quality/orders_checks.yml`:
//! ```yaml
//! - criticality: error
//!   check:
//!     function: is_not_null
//!     for_each_column: [order_id, customer_id, order_date]
//! ```
//!
//! ## Fix
//! Add the column to `for_each_column` if it should be checked, and remove
//! the argument. A safe fix removes the argument (with `arguments:` when it
//! is the only one).

use crate::diagnostic::{Applicability, Diagnostic, Edit, Fix};
use crate::engine::{Context, Findings};
use crate::registry::rule;
use crate::rules::dqx::{own_lines, yaml_only_fix, ChecksFile};

pub fn check(ctx: &Context, file: &ChecksFile, out: &mut Findings) {
    let me = rule("DQ817");
    let text = &file.file.text;
    for (index, item) in file.items().iter().enumerate() {
        let Some(check) = file.resolved(ctx, index) else {
            continue;
        };
        if check.for_each_column.is_none() {
            continue;
        }
        let target = check.function.for_each_target();
        let Some(entry) = check
            .arguments
            .iter()
            .find(|e| e.key.as_str() == Some(target))
        else {
            continue;
        };
        let mut d = Diagnostic::at(
            me,
            file.id(),
            entry.key.span.clone(),
            format!(
                "`for_each_column` replaces `{target}` with each of its items: DQX never checks the `{target}` written here"
            ),
        );
        // The whole `arguments:` entry when it holds only this one.
        let removed = if check.arguments.len() == 1 {
            item.get("check")
                .and_then(|c| c.entry("arguments"))
                .and_then(|a| own_lines(text, a.key.span.start..a.value.span.end))
        } else {
            own_lines(text, entry.key.span.start..entry.value.span.end)
        };
        if let Some(span) = removed {
            d = d.fix(Fix {
                description: format!("Remove the `{target}` argument"),
                applicability: Applicability::Safe,
                edits: vec![Edit {
                    file: file.id(),
                    span,
                    new_text: String::new(),
                }],
            });
        }
        out.push(yaml_only_fix(file, d));
    }
}
