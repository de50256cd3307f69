//! ## What it does
//! Reports a `for_each_column` that does not fit the function: items that
//! are not lists for a function taking `columns` (`is_unique`), or a
//! `for_each_column` on a function that takes neither `column` nor
//! `columns`. One finding per check, not per item.
//!
//! ## Why is this bad?
//! DQX runs the function once per item, passing the item as `columns` (a
//! list) or `column`. `validate_checks` rejects the check, repeating its
//! message for every item.
//!
//! ## Example (bad)
//! `quality/orders_checks.yml`:
//! ```yaml
//! - criticality: error
//!   check:
//!     function: is_unique
//!     for_each_column: [order_id, invoice_id]
//! ```
//!
//! ## Example (good)
//! `quality/orders_checks.yml`:
//! ```yaml
//! - criticality: error
//!   check:
//!     function: is_unique
//!     for_each_column: [[order_id], [invoice_id]]
//! ```
//!
//! ## Fix
//! For a `columns` function, a safe fix wraps each item in `[...]`, one
//! uniqueness (or other) check per column. Without `column` or `columns`,
//! remove `for_each_column` and give the arguments directly.

use crate::diagnostic::{Applicability, Diagnostic, Edit, Fix};
use crate::engine::{Context, Findings};
use crate::registry::rule;
use crate::rules::dqx::{yaml_only_fix, ChecksFile};

pub fn check(ctx: &Context, file: &ChecksFile, out: &mut Findings) {
    let me = rule("DQ816");
    for index in 0..file.items().len() {
        let Some(check) = file.resolved(ctx, index) else {
            continue;
        };
        let Some(items) = check.for_each_column else {
            continue;
        };
        let Some(node) = file.fields(index).for_each_column else {
            continue;
        };
        let f = check.function;
        if f.param("column").is_none() && f.param("columns").is_none() {
            out.push(Diagnostic::at(
                me,
                file.id(),
                node.span.clone(),
                format!(
                    "`{}` takes neither `column` nor `columns`, so `for_each_column` has nothing to pass; DQX rejects the check",
                    f.name
                ),
            ));
            continue;
        }
        if f.param("columns").is_none() {
            continue;
        }
        let bare: Vec<_> = items.iter().filter(|i| i.as_list().is_none()).collect();
        if bare.is_empty() {
            continue;
        }
        let edits = bare
            .iter()
            .flat_map(|i| {
                [
                    Edit {
                        file: file.id(),
                        span: i.span.start..i.span.start,
                        new_text: "[".into(),
                    },
                    Edit {
                        file: file.id(),
                        span: i.span.end..i.span.end,
                        new_text: "]".into(),
                    },
                ]
            })
            .collect();
        out.push(yaml_only_fix(
            file,
            Diagnostic::at(
                me,
                file.id(),
                node.span.clone(),
                format!(
                    "`{}` takes `columns`, a list, so each `for_each_column` item must be a list (`[{}]`); DQX rejects the check",
                    f.name,
                    file.file.text.get(bare[0].span.clone()).unwrap_or("column")
                ),
            )
            .fix(Fix {
                description: "Wrap each item in a list".into(),
                applicability: Applicability::Safe,
                edits,
            }),
        ));
    }
}
