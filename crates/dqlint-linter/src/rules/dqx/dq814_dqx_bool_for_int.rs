//! ## What it does
//! Reports a boolean given for an `int` parameter (`days: true`, or an
//! unquoted `yes`/`no`/`on`/`off`, which YAML 1.1 reads as booleans).
//!
//! ## Why is this bad?
//! DQX's validation lets a boolean through wherever an `int` is accepted
//! (a carve-out for `isinstance(True, int)`), so the check passes
//! `validate_checks` and then fails the run when Spark evaluates it.
//!
//! ## Example (bad)
//! `quality/orders_checks.yml`:
//! ```yaml
//! - criticality: error
//!   check:
//!     function: is_older_than_n_days
//!     arguments:
//!       column: order_date
//!       days: yes
//! ```
//!
//! ## Example (good)
//! `quality/orders_checks.yml`:
//! ```yaml
//! - criticality: error
//!   check:
//!     function: is_older_than_n_days
//!     arguments:
//!       column: order_date
//!       days: 1
//! ```
//!
//! ## Fix
//! Write the number meant.

use dqlint_dqx::ArgIssue;

use crate::diagnostic::Diagnostic;
use crate::engine::{Context, Findings};
use crate::registry::rule;
use crate::rules::dqx::{argument_issues, ChecksFile};

pub fn check(ctx: &Context, file: &ChecksFile, out: &mut Findings) {
    let me = rule("DQ814");
    for (_, check, issues) in argument_issues(ctx, file) {
        let f = check.function;
        for issue in issues {
            let ArgIssue::BoolForInt { param, span } = issue else {
                continue;
            };
            let value = file.file.text.get(span.clone()).unwrap_or("");
            out.push(Diagnostic::at(
                me,
                file.id(),
                span,
                format!(
                    "`{value}` is a boolean to DQX (YAML 1.1), given for `{}: {}` of `{}`; validation lets it through and the run fails",
                    param.name, param.type_text, f.name
                ),
            ));
        }
    }
}
