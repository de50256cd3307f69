//! ## What it does
//! Reports an argument that is not a parameter of the check function, with
//! a hint for the usual slips: `col_name` for `column`, `col_names` for
//! `columns`, `column` on a `columns` function (`is_unique`) and the
//! reverse.
//!
//! ## Why is this bad?
//! DQX's `validate_checks` rejects the check ("Unexpected argument").
//!
//! ## Example (bad)
//! `quality/orders_checks.yml`:
//! ```yaml
//! - criticality: error
//!   check:
//!     function: is_not_null_and_not_empty
//!     arguments:
//!       column: customer_name
//!       trim_string: true
//! ```
//!
//! `jobs/orders_quality.py`:
//! ```python
//! from databricks.labs.dqx import check_funcs
//! from databricks.labs.dqx.rule import DQRowRule, DQDatasetRule
//!
//! checks = [
//!     DQRowRule(
//!         check_func=check_funcs.is_in_range,
//!         column="price",
//!         check_func_kwargs={"min_limit": 0, "max_limit": 100, "inclusive": True},
//!     )
//! ]
//! ```
//!
//! ## Example (good)
//! `quality/orders_checks.yml`:
//! ```yaml
//! - criticality: error
//!   check:
//!     function: is_not_null_and_not_empty
//!     arguments:
//!       column: customer_name
//!       trim_strings: true
//! ```
//!
//! `jobs/orders_quality.py`:
//! ```python
//! from databricks.labs.dqx import check_funcs
//! from databricks.labs.dqx.rule import DQRowRule, DQDatasetRule
//!
//! checks = [
//!     DQRowRule(
//!         check_func=check_funcs.is_in_range,
//!         column="price",
//!         check_func_kwargs={"min_limit": 0, "max_limit": 100},
//!     )
//! ]
//! ```
//!
//! ## Fix
//! Rename the argument to the parameter it means; a safe fix does it for
//! the hints above when that parameter is not already given.

use dqlint_dqx::ArgIssue;

use crate::diagnostic::{Applicability, Diagnostic, Edit, Fix};
use crate::engine::{Context, Findings};
use crate::registry::rule;
use crate::rules::dqx::{argument_issues, closest, yaml_only_fix, ChecksFile};

pub fn check(ctx: &Context, file: &ChecksFile, out: &mut Findings) {
    let me = rule("DQ812");
    let mut with_issues = argument_issues(ctx, file).into_iter().peekable();
    for item in file.items() {
        if let Some(api) = file.api_check_of(item) {
            let function = item
                .get("check")
                .and_then(|c| c.get("function"))
                .and_then(|f| f.as_str())
                .unwrap_or("the function");
            for (name, span) in &api.dropped {
                out.push(Diagnostic::at(
                    me,
                    file.id(),
                    span.clone(),
                    format!(
                        "`{function}` has no parameter `{name}`: `{}` drops it without a word, so the check does not apply to it",
                        api.class.name()
                    ),
                ));
            }
        }
        let Some((_, check, issues)) =
            with_issues.next_if(|(with, _, _)| std::ptr::eq(*with, item))
        else {
            continue;
        };
        let f = check.function;
        for issue in issues {
            let ArgIssue::Unexpected {
                name,
                from_for_each,
            } = issue
            else {
                continue;
            };
            if from_for_each {
                // for_each_column on a function without column(s): DQ816.
                continue;
            }
            if name == "filter" {
                // DQ809 says where a filter belongs.
                continue;
            }
            let Some(entry) = check
                .arguments
                .iter()
                .rev()
                .find(|e| e.key.as_str() == Some(name))
            else {
                continue;
            };
            let meant = match name {
                "col_name" | "col" => Some("column"),
                "col_names" | "cols" => Some("columns"),
                "column" if f.param("columns").is_some() => Some("columns"),
                "columns" if f.param("column").is_some() => Some("column"),
                _ => closest(name, f.params.iter().map(|p| p.name.as_str())),
            }
            .filter(|m| f.param(m).is_some());
            let mut d = Diagnostic::at(
                me,
                file.id(),
                entry.key.span.clone(),
                format!(
                    "`{}` has no parameter `{name}`{}; {} (parameters: {})",
                    f.name,
                    meant
                        .map(|m| format!(" (did you mean `{m}`?)"))
                        .unwrap_or_default(),
                    if file.is_python() {
                        "the rule cannot be built (TypeError: unexpected keyword argument)"
                    } else {
                        "DQX rejects the check"
                    },
                    f.param_names().join(", ")
                ),
            );
            let free = meant.filter(|m| !check.arguments.iter().any(|e| e.key.as_str() == Some(m)));
            if let Some(m) = free {
                d = d.fix(Fix {
                    applicability: Applicability::Safe,
                    description: format!("Rename `{name}` to `{m}`"),
                    edits: vec![Edit {
                        file: file.id(),
                        span: entry.key.span.clone(),
                        new_text: m.to_string(),
                    }],
                });
            }
            out.push(yaml_only_fix(file, d));
        }
    }
}
