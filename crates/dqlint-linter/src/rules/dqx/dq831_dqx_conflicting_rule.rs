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
use std::hash::{Hash, Hasher};

use foldhash::fast::FixedState;

use dqlint_dqx::Typed;

use crate::diagnostic::Diagnostic;
use crate::engine::{Context, Findings};
use crate::registry::rule;
use crate::rules::dqx::{canonical, fast_hasher, fingerprint, CheckFields, ChecksFile};

/// What the rule compares of a check: its function (name and node), the
/// column(s) it applies to and its arguments; `None` for a check it leaves
/// out.
struct Parts<'t> {
    name: &'t str,
    function: &'t Typed,
    column: &'t Typed,
    arguments: &'t Typed,
}

fn parts<'t>(fields: &CheckFields<'t>) -> Option<Parts<'t>> {
    if fields.for_each_column.is_some() {
        return None;
    }
    let function = fields.function?;
    let arguments = fields.arguments?;
    let name = function.as_str()?;
    arguments.as_map()?;
    let column = arguments.get("column").or(arguments.get("columns"))?;
    Some(Parts {
        name,
        function,
        column,
        arguments,
    })
}

pub fn check(_ctx: &Context, file: &ChecksFile, out: &mut Findings) {
    let me = rule("DQ831");
    // Hash of function + column -> the first checks with it. Canonical
    // strings are written only when hashes agree.
    let mut first: HashMap<u64, Vec<usize>, FixedState> = HashMap::default();
    for (index, (_, fields)) in file.checks().enumerate() {
        let Some(this) = parts(&fields) else {
            continue;
        };
        let mut hasher = fast_hasher();
        this.name.hash(&mut hasher);
        fingerprint(this.column).hash(&mut hasher);
        let candidates = first.entry(hasher.finish()).or_default();
        let earlier = (!candidates.is_empty())
            .then(|| {
                let column = canonical(this.column);
                candidates.iter().copied().find(|earlier| {
                    parts(&file.fields(*earlier))
                        .is_some_and(|e| e.name == this.name && canonical(e.column) == column)
                })
            })
            .flatten();
        let Some(earlier) = earlier else {
            candidates.push(index);
            continue;
        };
        let Some(e) = parts(&file.fields(earlier)) else {
            continue;
        };
        let differs = fingerprint(e.arguments) != fingerprint(this.arguments)
            || canonical(e.arguments) != canonical(this.arguments);
        if differs {
            out.push(
                Diagnostic::at(
                    me,
                    file.id(),
                    this.function.span.clone(),
                    format!(
                        "check {} of this file also applies `{}` to {} with other arguments: rows are judged by both",
                        earlier + 1,
                        this.name,
                        shown_columns(this.column)
                    ),
                )
                .related(
                    &dqlint_project::Origin::new(file.id(), e.function.span.clone()),
                    "the earlier check on this column",
                ),
            );
        }
    }
}

/// `col2`, or `col1, col2` for a list of columns, as DQX names them.
fn shown_columns(column: &Typed) -> String {
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
