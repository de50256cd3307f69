//! ## What it does
//! Reports a check that leaves out a parameter of its function that has no
//! default (after `for_each_column` supplies `column`/`columns`), and a
//! check with no `arguments` at all for a function that has parameters:
//! DQX rejects that even when every parameter is optional.
//!
//! ## Why is this bad?
//! DQX's `validate_checks` rejects the check ("Missing required argument",
//! "No arguments provided").
//!
//! ## Example (bad)
//! `quality/orders_checks.yml`:
//! ```yaml
//! - criticality: error
//!   check:
//!     function: regex_match
//!     arguments:
//!       column: email
//! ```
//!
//! `jobs/orders_quality.py`:
//! ```python
//! from databricks.labs.dqx import check_funcs
//! from databricks.labs.dqx.rule import DQRowRule, DQDatasetRule
//!
//! checks = [DQRowRule(check_func=check_funcs.is_older_than_n_days, column="order_date")]
//! ```
//!
//! ## Example (good)
//! `quality/orders_checks.yml`:
//! ```yaml
//! - criticality: error
//!   check:
//!     function: regex_match
//!     arguments:
//!       column: email
//!       regex: "^[^@]+@[^@]+$"
//! ```
//!
//! `jobs/orders_quality.py`:
//! ```python
//! from databricks.labs.dqx import check_funcs
//! from databricks.labs.dqx.rule import DQRowRule, DQDatasetRule
//!
//! checks = [
//!     DQRowRule(
//!         check_func=check_funcs.is_older_than_n_days,
//!         column="order_date",
//!         check_func_kwargs={"days": 30},
//!     )
//! ]
//! ```
//!
//! ## Fix
//! Add the arguments the message names.

use dqlint_dqx::ArgIssue;

use crate::diagnostic::Diagnostic;
use crate::engine::{Context, Findings};
use crate::registry::rule;
use crate::rules::dqx::{argument_issues, ChecksFile};

pub fn check(ctx: &Context, file: &ChecksFile, out: &mut Findings) {
    let me = rule("DQ811");
    for (_, check, issues) in argument_issues(ctx, file) {
        let f = check.function;
        let at = check
            .arguments_node
            .map(|a| a.span.clone())
            .unwrap_or(check.function_node.span.clone());
        let mut missing: Vec<&str> = issues
            .iter()
            .filter_map(|i| match i {
                ArgIssue::Missing { param } => Some(param.name.as_str()),
                _ => None,
            })
            .collect();
        let no_arguments = issues.contains(&ArgIssue::NoArguments);
        if no_arguments && file.is_python() {
            // DQX validates nothing; the function misses its required
            // parameters.
            missing = f
                .params
                .iter()
                .filter(|p| p.required)
                .map(|p| p.name.as_str())
                .collect();
        }
        // A Python rule calls the function with what it is given: a
        // missing required argument says it all there (and the one
        // function whose parameters are all optional, has_valid_schema,
        // refuses to build without one).
        if no_arguments && (!file.is_python() || missing.is_empty()) {
            out.push(Diagnostic::at(
                me,
                file.id(),
                at.clone(),
                format!(
                    "`{}` is given no arguments; {} (parameters: {})",
                    f.name,
                    if file.is_python() {
                        "DQX refuses to build the rule (InvalidParameterError)"
                    } else {
                        "DQX rejects the check even when every parameter is optional"
                    },
                    f.param_names().join(", ")
                ),
            ));
        }
        if !missing.is_empty() {
            out.push(Diagnostic::at(
                me,
                file.id(),
                at,
                format!(
                    "`{}` needs {} `{}`; {}",
                    f.name,
                    if missing.len() == 1 {
                        "the argument"
                    } else {
                        "the arguments"
                    },
                    missing.join("`, `"),
                    if file.is_python() {
                        "the rule cannot be built (TypeError: missing required argument)"
                    } else {
                        "DQX rejects the check (Missing required argument)"
                    }
                ),
            ));
        }
    }
}
