//! ## What it does
//! Reports a check that applies the same function to the same column as an
//! earlier check of the file, with different arguments (DQX's own
//! "conflicting rules" heuristic). The earlier check is the related
//! location. Checks with `for_each_column` are left out.
//!
//! ## Why is this bad?
//! Two ranges or two allowed-value lists for one column usually mean one of
//! them is stale: rows are judged by both, and the stricter one wins. DQX
//! only logs it. Often intended (a `warn` and an `error` threshold), hence
//! an info.
//!
//! ## Example (bad)
//! `quality/orders_checks.yml`:
//! ```yaml
//! - criticality: error
//!   check:
//!     function: is_in_range
//!     arguments: {column: quantity, min_limit: 1, max_limit: 100}
//! - criticality: error
//!   check:
//!     function: is_in_range
//!     arguments: {column: quantity, min_limit: 1, max_limit: 1000}
//! ```
//!
//! ## Example (good)
//! `quality/orders_checks.yml`:
//! ```yaml
//! - criticality: error
//!   check:
//!     function: is_in_range
//!     arguments: {column: quantity, min_limit: 1, max_limit: 1000}
//! ```
//!
//! ## Fix
//! Keep the check that is right, or make the intent explicit with a
//! `dqlint: ignore[DQ831]` comment.

use std::collections::HashMap;

use crate::diagnostic::Diagnostic;
use crate::engine::{Context, Findings};
use crate::registry::rule;
use crate::rules::dqx::{canonical, checks_files};

pub fn check(ctx: &Context, out: &mut Findings) {
    let me = rule("DQ831");
    for file in checks_files(ctx) {
        // function + column -> (index, arguments, where)
        let mut first: HashMap<String, (usize, String, std::ops::Range<usize>)> = HashMap::new();
        for (index, item) in file.items().iter().enumerate() {
            let Some(check) = item.get("check") else {
                continue;
            };
            if check.get("for_each_column").is_some() {
                continue;
            }
            let (Some(function), Some(arguments)) = (check.get("function"), check.get("arguments"))
            else {
                continue;
            };
            let (Some(name), Some(_)) = (function.as_str(), arguments.as_map()) else {
                continue;
            };
            let Some(column) = arguments.get("column").or(arguments.get("columns")) else {
                continue;
            };
            let key = format!("{name}|{}", canonical(column));
            let args = canonical(arguments);
            match first.get(&key) {
                Some((earlier, earlier_args, at)) if *earlier_args != args => out.push(
                    Diagnostic::at(
                        me,
                        file.id(),
                        function.span.clone(),
                        format!(
                            "check {} of this file also applies `{name}` to {} with other arguments: rows are judged by both",
                            earlier + 1,
                            shown_columns(column)
                        ),
                    )
                    .related(
                        &dqlint_project::Origin::new(file.id(), at.clone()),
                        "the earlier check on this column",
                    ),
                ),
                Some(_) => {}
                None => {
                    first.insert(key, (index, args, function.span.clone()));
                }
            }
        }
    }
}

/// `col2`, or `col1, col2` for a list of columns, as DQX names them.
fn shown_columns(column: &dqlint_dqx::Typed) -> String {
    match (column.as_str(), column.as_list()) {
        (Some(c), _) => format!("`{c}`"),
        (None, Some(items)) => format!(
            "`{}`",
            items
                .iter()
                .map(|i| i.as_str().map(str::to_string).unwrap_or_else(|| i.shown()))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        _ => column.shown(),
    }
}
