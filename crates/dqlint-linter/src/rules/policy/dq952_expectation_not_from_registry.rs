//! ## What it does
//! With `[policy] registry` in `dqlint.toml`, reports an expectation of
//! pipeline code that does not come from the registry: a literal
//! constraint, or a rule loader call naming no entry of the registry.
//!
//! In detail:
//!
//! - a literal constraint (`@dp.expect_or_drop("valid_id", "id IS NOT
//!   NULL")`, a literal `expect_all` dict, SQL `CONSTRAINT ... EXPECT`),
//!   where the team wants `@dp.expect_all_or_drop(get_rules("orders"))`
//!   through a `[dlt] rule_loaders` function. The fail expectations of a
//!   circuit breaker (DQ953) and the count expectations of a uniqueness
//!   view (`SELECT k, count(*) AS n ... GROUP BY k` expecting `n = 1`)
//!   compare counts, not rows, and are left out;
//! - a rule loader call whose argument names no entry of the registry
//!   (`get_rules("ordres")`): the loader finds no rules, and the dataset
//!   is written unchecked.
//!
//! The rules a loader call names are read from the registry: they count as
//! the dataset's expectations for DQ950 and DQ951, and are checked as DLT
//! constraints (DQ301-DQ307) at their place in the registry file. A loader
//! call whose argument is not a string literal is DQ911's. Without
//! `[policy] registry`, it reports nothing.
//!
//! ## Why is this bad?
//! Seed 004's team moved every expectation into one YAML registry so that
//! data stewards review rules in one place and the same rule reads the
//! same everywhere. A constraint written inline escapes that review and
//! drifts from its registry twin; a loader call with a misspelt entry
//! loads nothing, so the table's rules silently vanish.
//!
//! ## Example (bad)
//! `dqlint.toml`:
//! ```toml
//! [policy]
//! registry = ["expectations/*.yaml"]
//!
//! [dlt]
//! rule_loaders = ["get_rules"]
//! ```
//!
//! `expectations/registry.yaml`:
//! ```yaml
//! orders:
//!   valid_order_id: order_id IS NOT NULL
//!   valid_amount: amount >= 0
//! ```
//!
//! `transformations/orders.py`:
//! ```python
//! from pyspark import pipelines as dp
//! from quality.registry import get_rules
//!
//! @dp.table()
//! @dp.expect_or_drop("valid_order_id", "order_id IS NOT NULL")
//! def silver_orders():
//!     return spark.readStream.table("bronze_orders")
//!
//! @dp.table()
//! @dp.expect_all_or_drop(get_rules("ordres"))
//! def silver_orders_eu():
//!     return spark.readStream.table("bronze_orders_eu")
//! ```
//!
//! ## Example (good)
//! `transformations/orders.py`:
//! ```python
//! from pyspark import pipelines as dp
//! from quality.registry import get_rules
//!
//! @dp.table()
//! @dp.expect_all_or_drop(get_rules("orders"))
//! def silver_orders():
//!     return spark.readStream.table("bronze_orders")
//!
//! @dp.table()
//! @dp.expect_all_or_drop(get_rules("orders"))
//! def silver_orders_eu():
//!     return spark.readStream.table("bronze_orders_eu")
//! ```
//!
//! ## Fix
//! Move the rule into the registry and load it with the team's loader
//! (`@dp.expect_all_or_drop(get_rules("orders"))`); name an entry the
//! registry has.

use std::collections::HashSet;

use dqlint_pipeline::model::Constraint;

use crate::diagnostic::Diagnostic;
use crate::engine::{Context, Findings};
use crate::registry::rule;
use crate::rules::pipeline::{
    expectation_label, expectation_site, indexed_datasets, loader_call, registry_entry_names,
    registry_rules, sources,
};

pub fn check(ctx: &Context, out: &mut Findings) {
    if ctx.team_policy.registry.is_empty() {
        return;
    }
    let me = rule("DQ952");
    let sources = sources(ctx);
    // A circuit breaker's fail expectation and a uniqueness view's count
    // expectation compare counts: no row rules.
    let all = indexed_datasets(ctx);
    let counts: HashSet<*const dqlint_pipeline::model::PipelineExpectation> =
        dqlint_pipeline::breaker::dlt_breakers(&all)
            .iter()
            .map(|b| b.expectation as *const _)
            .chain(
                dqlint_pipeline::uniqueness::unique_checks(&all)
                    .iter()
                    .map(|u| u.expectation as *const _),
            )
            .collect();
    let globs = ctx.team_policy.registry.join("`, `");
    let how = match ctx.dlt.rule_loaders.first() {
        Some(loader) => format!("load it with `{loader}(\"<entry>\")`"),
        None => "load it through a function listed in `[dlt] rule_loaders`".to_string(),
    };
    for source in sources {
        let text: &str = &source.file.text;
        for dataset in &source.model.datasets {
            for e in &dataset.expectations {
                match &e.constraint {
                    Constraint::Known(_) if !counts.contains(&(e as *const _)) => {
                        out.push(Diagnostic::at(
                            me,
                            source.id(),
                            expectation_site(e),
                            format!(
                                "{} on `{}` is written in pipeline code; [policy] registry wants \
                                 rules from the registry (`{globs}`): move it there and {how}",
                                expectation_label(e),
                                dataset.name.name
                            ),
                        ));
                    }
                    Constraint::Unknown { span, .. } => {
                        let Some(call) = loader_call(text, span, &ctx.dlt.rule_loaders) else {
                            continue;
                        };
                        let Some((entry, at)) = call.entry else {
                            continue;
                        };
                        if !registry_rules(ctx, &entry).is_empty() {
                            continue;
                        }
                        let names = registry_entry_names(ctx);
                        let known = match names.as_slice() {
                            [] => "the registry has no entries".to_string(),
                            list if list.len() <= 12 => format!("its entries: {}", list.join(", ")),
                            list => format!(
                                "its entries: {}, ... ({} in all)",
                                list[..12].join(", "),
                                list.len()
                            ),
                        };
                        out.push(Diagnostic::at(
                            me,
                            source.id(),
                            at,
                            format!(
                                "`{}(\"{entry}\")` on `{}` names no entry of the registry \
                                 (`{globs}`): it loads no rules and the dataset is written \
                                 unchecked; {known}",
                                call.callee, dataset.name.name
                            ),
                        ));
                    }
                    Constraint::Known(_) => {}
                }
            }
        }
    }
}
