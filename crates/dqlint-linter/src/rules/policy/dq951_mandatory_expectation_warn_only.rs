//! ## What it does
//! Reports a mandatory kind (of a `[[policy.mandatory]]` entry that
//! selects the dataset) that the dataset has only in rules below the
//! entry's `min_action` (default `drop`): `expect` alone in pipeline code,
//! LHP `action: warn`, DQX `criticality: warn`. LHP quarantine, a DLT
//! quarantine and DQX `error` count as `drop`. The finding is on the rule
//! that only warns. Without `[policy]`, it reports nothing; for pipeline
//! datasets a policy selects, it takes the place of DQ912.
//!
//! ## Why is this bad?
//! A warn rule counts failing rows and keeps them: the bad rows flow on
//! and the update reports success. Seed 004's team learned it the hard
//! way: "EXPECT is merely a warning".
//!
//! ## Example (bad)
//! `dqlint.toml`:
//! ```toml
//! [[policy.mandatory]]
//! datasets = ["silver_*"]
//! kinds = ["not_null"]
//! ```
//!
//! `transformations/ledger.py`:
//! ```python
//! from pyspark import pipelines as dp
//!
//! @dp.table
//! @dp.expect("valid_currency", "currency_code IS NOT NULL")
//! def silver_ledger():
//!     return spark.read.table("bronze_ledger")
//! ```
//!
//! ## Example (good)
//! `transformations/ledger.py`:
//! ```python
//! from pyspark import pipelines as dp
//!
//! @dp.table
//! @dp.expect_or_drop("valid_currency", "currency_code IS NOT NULL")
//! def silver_ledger():
//!     return spark.read.table("bronze_ledger")
//! ```
//!
//! ## Fix
//! Make the rule drop or fail rows (`expect_or_drop` / `expect_or_fail`,
//! `ON VIOLATION DROP ROW`, LHP `action: drop`, DQX `criticality: error`),
//! or lower the entry's `min_action` if warning is what the team wants.

use crate::config::MinAction;
use crate::diagnostic::Diagnostic;
use crate::engine::{Context, Findings};
use crate::registry::rule;
use crate::rules::policy::{
    action_level, action_name, datasets, policies_of, requirements, selected_envs, Status,
};

/// What a rule below the policy's action lets through.
fn consequence(enforcement: dqlint_project::Enforcement) -> &'static str {
    match action_level(enforcement) {
        MinAction::Warn => "failing rows are kept",
        MinAction::Drop => "failing rows are left out and the update succeeds",
        MinAction::Fail => "the update fails",
    }
}

pub fn check(ctx: &Context, out: &mut Findings) {
    if ctx.team_policy.mandatory.is_empty() {
        return;
    }
    let me = rule("DQ951");
    for dataset in datasets(ctx) {
        for (_, policy) in policies_of(ctx, dataset) {
            for requirement in requirements(policy, dataset) {
                let Status::BelowMinAction(rules) = &requirement.status else {
                    continue;
                };
                let Some(first) = rules.first() else {
                    continue;
                };
                let label = first
                    .name
                    .as_ref()
                    .map_or_else(|| "this rule".to_string(), |n| format!("`{n}`"));
                let mut d = Diagnostic::at(
                    me,
                    first.origin.file,
                    first.origin.span.clone(),
                    format!(
                        "`{}`: its mandatory {} is only {label} (`{}`): {}; the policy ({}:{}) \
                         needs `{}` or stronger",
                        dataset.label,
                        requirement.describe(),
                        action_name(first.enforcement),
                        consequence(first.enforcement),
                        crate::config::FILE_NAME,
                        policy.line,
                        policy.min_action.name()
                    ),
                );
                d.envs = selected_envs(policy, dataset);
                for other in &rules[1..] {
                    d = d.related(
                        &dqlint_project::Origin::new(other.origin.file, other.origin.span.clone()),
                        "another rule of the kind below the policy's action",
                    );
                }
                d = d.related(
                    &dqlint_project::Origin::new(dataset.site.file, dataset.site.span.clone()),
                    format!("the dataset `{}`", dataset.label),
                );
                out.push(d);
            }
        }
    }
}
