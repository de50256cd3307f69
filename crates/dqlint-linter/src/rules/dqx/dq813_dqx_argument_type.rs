//! ## What it does
//! Reports an argument whose value, typed as DQX reads it (YAML 1.1 or
//! JSON), fails DQX's strict type check: `"30"` or `1.5` for an `int`,
//! `"false"` for a `bool`, a string for a list, a non-string item in a
//! `list[str]`, anything for a `Column`-only parameter
//! (`curr_timestamp`), an unquoted `NO` (a boolean) or `2024-01-01` (a
//! date) for a `str`. An `int` for a `float` passes, as in DQX.
//!
//! ## Why is this bad?
//! DQX's `validate_checks` rejects the check ("Argument ... should be of
//! type ...").
//!
//! ## Example (bad)
//! `quality/orders_checks.yml`:
//! ```yaml
//! - criticality: error
//!   check:
//!     function: is_older_than_n_days
//!     arguments:
//!       column: order_date
//!       days: "30"
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
//!         check_func_kwargs={"days": "30"},
//!     )
//! ]
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
//!       days: 30
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
//! Write the value in the parameter's type; quote a string YAML 1.1 would
//! read as something else.

use dqlint_dqx::{ArgIssue, TypeIssue};

use crate::diagnostic::Diagnostic;
use crate::engine::{Context, Findings};
use crate::registry::rule;
use crate::rules::dqx::{argument_issues, ChecksFile};

pub fn check(ctx: &Context, file: &ChecksFile, out: &mut Findings) {
    let me = rule("DQ813");
    for (_, check, issues) in argument_issues(ctx, file) {
        let f = check.function;
        for issue in issues {
            let ArgIssue::Type {
                param,
                issue,
                span,
                from_for_each,
            } = issue
            else {
                continue;
            };
            if from_for_each && matches!(issue, TypeIssue::NotAList) {
                // Items of for_each_column that are not lists: DQ816.
                continue;
            }
            let value = file.file.text.get(span.clone()).unwrap_or("");
            let what = match issue {
                TypeIssue::Mismatch if param.ty.only_python_objects() => format!(
                    "`{}` of `{}` takes a Spark Column object (`{}`), which no checks file can give; DQX rejects any value",
                    param.name, f.name, param.type_text
                ),
                TypeIssue::Mismatch => format!(
                    "`{}` of `{}` must be `{}`; DQX reads `{value}` as {} and rejects the check",
                    param.name,
                    f.name,
                    param.type_text,
                    read_as(&check, &span)
                ),
                TypeIssue::NotAList => format!(
                    "`{}` of `{}` must be a list (`{}`); DQX rejects the check",
                    param.name, f.name, param.type_text
                ),
                TypeIssue::Item { index } => format!(
                    "item {index} of `{}` must be `{}`; DQX reads `{value}` as {} and rejects the check",
                    param.name,
                    param
                        .ty
                        .bare_list_item()
                        .map(|t| format!("{t:?}").to_lowercase())
                        .unwrap_or_default(),
                    read_as(&check, &span)
                ),
            };
            // A Python rule's arguments go to the function as they are:
            // DQX checks no type, the function or Spark fails on it
            // (`days="30"`: "cannot resolve column `30`").
            let what = if file.is_python() {
                what.replace(
                    "DQX rejects the check",
                    "the rule fails when it is built or when Spark runs it (DQX checks no argument type of a Python rule; its metadata form fails validation)",
                )
                .replace(
                    "and rejects the check",
                    "and the rule fails when it is built or when Spark runs it (DQX checks no argument type of a Python rule; its metadata form fails validation)",
                )
                .replace("DQX reads ", "")
                .replace("` as ", "` is ")
                .replace("which no checks file can give; DQX rejects any value", "and gets another value: the rule fails when it is built or run")
            } else {
                what
            };
            out.push(Diagnostic::at(me, file.id(), span, what));
        }
    }
}

/// How DQX reads the value at `span` ("a string", "a boolean").
fn read_as(
    check: &crate::rules::dqx::ResolvedCheck,
    span: &std::ops::Range<usize>,
) -> &'static str {
    fn find<'a>(
        v: &'a dqlint_dqx::Typed,
        span: &std::ops::Range<usize>,
    ) -> Option<&'a dqlint_dqx::Typed> {
        if &v.span == span {
            return Some(v);
        }
        v.as_list()
            .into_iter()
            .flatten()
            .find_map(|i| find(i, span))
    }
    check
        .arguments
        .iter()
        .map(|e| &e.value)
        .chain(check.for_each_column.into_iter().flatten())
        .find_map(|v| find(v, span))
        .map(|v| v.described())
        .unwrap_or("a value")
}
