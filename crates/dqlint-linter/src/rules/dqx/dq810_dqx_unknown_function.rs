//! ## What it does
//! Reports a check `function` that DQX 0.17.0 does not register, with a
//! did-you-mean, and says which other DQX version has it when one does.
//!
//! ## Why is this bad?
//! DQX's `validate_checks` rejects the check ("function ... is not
//! defined"); without validation the run fails when the rules are built.
//!
//! ## Example (bad)
//! `quality/orders_checks.yml`:
//! ```yaml
//! - criticality: error
//!   check:
//!     function: is_not_nul
//!     arguments:
//!       column: order_id
//! ```
//!
//! `jobs/orders_quality.py`:
//! ```python
//! from databricks.labs.dqx import check_funcs
//! from databricks.labs.dqx.rule import DQRowRule, DQDatasetRule
//!
//! checks = [DQRowRule(check_func=check_funcs.is_unique, columns=["order_id"])]
//! ```
//!
//! ## Example (good)
//! `quality/orders_checks.yml`:
//! ```yaml
//! - criticality: error
//!   check:
//!     function: is_not_null
//!     arguments:
//!       column: order_id
//! ```
//!
//! `jobs/orders_quality.py`:
//! ```python
//! from databricks.labs.dqx import check_funcs
//! from databricks.labs.dqx.rule import DQRowRule, DQDatasetRule
//!
//! checks = [DQDatasetRule(check_func=check_funcs.is_unique, columns=["order_id"])]
//! ```
//!
//! ## Fix
//! Use a function of the catalogue (`dqlint` hovers and completes them).

use crate::diagnostic::Diagnostic;
use crate::engine::{Context, Findings};
use crate::registry::rule;
use crate::rules::dqx::{catalogue_of, closest, ChecksFile};

pub fn check(ctx: &Context, file: &ChecksFile, out: &mut Findings) {
    let me = rule("DQ810");
    // Read only when there is a checks file: the catalogue (its embedded
    // JSON parsed) is 1-3% of a cold lint of an LHP project of a few
    // thousand files.
    let cat = catalogue_of(ctx);
    for (item, fields) in file.checks() {
        let Some(node) = fields.function else {
            continue;
        };
        let Some(name) = node.as_str() else {
            continue;
        };
        if let Some(f) = cat.function(name, &[]) {
            // Python: DQRowRule takes row-level functions only, and
            // DQDatasetRule dataset-level ones.
            if let Some(api) = file.api_check_of(item) {
                use dqlint_dqx::RuleType;
                use dqlint_pipeline::dqx_api::RuleClass;
                let (wrong, instead) = match (api.class, f.rule_type) {
                    (RuleClass::Row, RuleType::Dataset) => (true, "DQDatasetRule"),
                    (RuleClass::Dataset, RuleType::Row) => (true, "DQRowRule"),
                    _ => (false, ""),
                };
                if wrong && !f.custom {
                    out.push(Diagnostic::at(
                        me,
                        file.id(),
                        node.span.clone(),
                        format!(
                            "`{name}` is a {}-level check function: `{}` refuses it when the rule is built (InvalidCheckError); use `{instead}`",
                            f.rule_type.as_str(),
                            api.class.name()
                        ),
                    ));
                }
            }
            continue;
        }
        let mut message = if file.is_python() {
            format!(
                "DQX {}'s check functions have no `{name}`; the rule cannot be built (AttributeError)",
                cat.version
            )
        } else {
            format!(
                "DQX {} has no check function `{name}`; it rejects the check",
                cat.version
            )
        };
        if let Some(f) = cat.any_function(name).and_then(|f| f.extra) {
            message.push_str(&format!(
                " unless the `{}` extra is installed (databricks-labs-dqx[{}])",
                f.name(),
                f.name()
            ));
        } else if let Some(v) = cat.other_versions_with(name).first() {
            message.push_str(&format!(" (DQX {v} has it)"));
        } else if let Some(m) = closest(
            name,
            cat.functions()
                .filter(|f| f.extra.is_none())
                .map(|f| f.name.as_str()),
        ) {
            message.push_str(&format!(" (did you mean `{m}`?)"));
        }
        out.push(Diagnostic::at(me, file.id(), node.span.clone(), message));
    }
}
