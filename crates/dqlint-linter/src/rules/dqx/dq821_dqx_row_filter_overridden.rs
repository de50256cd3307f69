//! ## What it does
//! Reports a check that sets both the item's `filter` and
//! `arguments.row_filter`.
//!
//! ## Why is this bad?
//! For a dataset-level check DQX passes the item's `filter` to the
//! function as its `row_filter`, replacing the one written in
//! `arguments`: the condition written there is silently never applied.
//!
//! ## Example (bad)
//! `quality/orders_checks.yml`:
//! ```yaml
//! - criticality: error
//!   filter: country = 'US'
//!   check:
//!     function: is_unique
//!     arguments:
//!       columns: [order_id]
//!       row_filter: status = 'open'
//! ```
//!
//! ## Example (good)
//! `quality/orders_checks.yml`:
//! ```yaml
//! - criticality: error
//!   filter: country = 'US' AND status = 'open'
//!   check:
//!     function: is_unique
//!     arguments:
//!       columns: [order_id]
//! ```
//!
//! ## Fix
//! Keep one filter: combine both conditions in the item's `filter`.

use dqlint_project::Origin;

use crate::diagnostic::Diagnostic;
use crate::engine::{Context, Findings};
use crate::registry::rule;
use crate::rules::dqx::ChecksFile;

pub fn check(_ctx: &Context, file: &ChecksFile, out: &mut Findings) {
    let me = rule("DQ821");
    for (_, fields) in file.checks() {
        let Some(filter) = fields
            .filter
            .filter(|f| f.as_str().is_some_and(|s| !s.is_empty()))
        else {
            continue;
        };
        let Some(row_filter) = fields
            .arguments
            .and_then(|a| a.get("row_filter"))
            .filter(|r| !r.is_none())
        else {
            continue;
        };
        out.push(
            Diagnostic::at(
                me,
                file.id(),
                row_filter.span.clone(),
                "`row_filter` is replaced by the check's `filter`: DQX never applies this \
                 condition",
            )
            .related(
                &Origin::new(file.id(), filter.span.clone()),
                "the check's `filter`",
            ),
        );
    }
}
