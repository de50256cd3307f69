//! ## What it does
//! Reports a dataset whose expectations are all `expect` (warn): no
//! `expect_or_drop`, `expect_or_fail` or their `expect_all*` and SQL
//! (`ON VIOLATION DROP ROW` / `FAIL UPDATE`) forms.
//!
//! ## Why is this bad?
//! A warn expectation only counts: invalid rows are kept, flow on
//! downstream, and the update reports success. Seed 004's outage came from
//! exactly this ("EXPECT is merely a warning"). If keeping the rows is the
//! intent, this is fine; say so by suppressing the finding.
//!
//! ## Example (bad)
//! `pipelines/ledger.py`:
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
//! `pipelines/ledger.py`:
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
//! Drop (`expect_or_drop`) rows that must not flow on, fail
//! (`expect_or_fail`) on integrity-critical rules; keep them in a
//! quarantine dataset if they must be recoverable.
//!
//! A dataset that a `[[policy.mandatory]]` entry selects is reported by
//! DQ951 instead (its warn-only mandatory rules), not twice.

use dqlint_pipeline::model::ExpectAction;

use crate::diagnostic::Diagnostic;
use crate::engine::{Context, Findings};
use crate::registry::rule;
use crate::rules::pipeline::sources;
use crate::rules::policy::governs_pipeline_dataset;

pub fn check(ctx: &Context, out: &mut Findings) {
    let me = rule("DQ912");
    for source in sources(ctx) {
        for dataset in &source.model.datasets {
            let expectations = &dataset.expectations;
            if expectations.is_empty()
                || expectations.iter().any(|e| e.action != ExpectAction::Warn)
            {
                continue;
            }
            // A policy governs the dataset: DQ951 reports its warn-only
            // mandatory rules instead.
            if governs_pipeline_dataset(ctx, source.id(), &dataset.name.span) {
                continue;
            }
            let rules = if expectations.len() == 1 {
                "its one expectation is".to_string()
            } else {
                format!("all {} of its expectations are", expectations.len())
            };
            out.push(Diagnostic::at(
                me,
                source.id(),
                dataset.name.span.clone(),
                format!(
                    "dataset `{}`: {rules} `expect` (warn): invalid rows are kept and the update \
                     reports success",
                    dataset.name.name
                ),
            ));
        }
    }
}
