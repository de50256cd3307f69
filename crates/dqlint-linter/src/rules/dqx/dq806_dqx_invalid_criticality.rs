//! ## What it does
//! Reports a `criticality` that is a string other than exactly `error` or
//! `warn` (case-sensitive; a `{{ var }}` placeholder counts as written).
//! An absent criticality is fine: it defaults to `error`.
//!
//! ## Why is this bad?
//! DQX's `validate_checks` rejects the check ("Invalid 'criticality'
//! value"). `error` sends failing rows to the quarantine only; `warn`
//! keeps them in the valid output too.
//!
//! ## Example (bad)
//! `quality/orders_checks.yml`:
//! ```yaml
//! - criticality: warning
//!   check:
//!     function: is_not_null
//!     arguments:
//!       column: order_id
//! ```
//!
//! `jobs/orders_quality.py`:
//! ```python
//! from databricks.labs.dqx import check_funcs
//! from databricks.labs.dqx.rule import DQRowRule
//!
//! checks = [DQRowRule(criticality="warning", check_func=check_funcs.is_not_null, column="order_id")]
//! ```
//!
//! ## Example (good)
//! `quality/orders_checks.yml`:
//! ```yaml
//! - criticality: warn
//!   check:
//!     function: is_not_null
//!     arguments:
//!       column: order_id
//! ```
//!
//! `jobs/orders_quality.py`:
//! ```python
//! from databricks.labs.dqx import check_funcs
//! from databricks.labs.dqx.rule import DQRowRule
//!
//! checks = [DQRowRule(criticality="warn", check_func=check_funcs.is_not_null, column="order_id")]
//! ```
//!
//! ## Fix
//! Write `error` or `warn`. A safe fix rewrites `warning` to `warn` and an
//! upper-case value to lower case.

use crate::diagnostic::{Applicability, Diagnostic, Edit, Fix};
use crate::engine::{Context, Findings};
use crate::registry::rule;
use crate::rules::dqx::{yaml_only_fix, ChecksFile};

pub fn check(_ctx: &Context, file: &ChecksFile, out: &mut Findings) {
    let me = rule("DQ806");
    for (_, fields) in file.checks() {
        let Some(value) = fields.criticality else {
            continue;
        };
        let Some(text) = value.as_str() else {
            continue;
        };
        if dqlint_dqx::CRITICALITIES.contains(&text) {
            continue;
        }
        let meant = match text.to_ascii_lowercase().as_str() {
            "warn" | "warning" | "warnings" => Some("warn"),
            "error" | "errors" | "err" => Some("error"),
            _ => None,
        };
        let mut d = Diagnostic::at(
            me,
            file.id(),
            value.span.clone(),
            format!(
                "criticality `{text}` is not `error` or `warn`; DQX rejects the check{}",
                meant
                    .map(|m| format!(" (did you mean `{m}`?)"))
                    .unwrap_or_default()
            ),
        );
        if let Some(m) = meant {
            d = d.fix(Fix {
                description: format!("Write `{m}`"),
                applicability: Applicability::Safe,
                edits: vec![Edit {
                    file: file.id(),
                    span: value.span.clone(),
                    new_text: m.to_string(),
                }],
            });
        }
        out.push(yaml_only_fix(file, d));
    }
}
