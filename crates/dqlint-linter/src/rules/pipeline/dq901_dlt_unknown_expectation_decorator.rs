//! ## What it does
//! Reports an `expect*` decorator of the pipeline module (`dp`, `dlt`, or a
//! name imported from it) that is none of the six expectation APIs:
//! `expect`, `expect_or_drop`, `expect_or_fail`, `expect_all`,
//! `expect_all_or_drop`, `expect_all_or_fail`.
//!
//! ## Why is this bad?
//! The module has no such attribute: the pipeline fails when it loads the
//! source (`AttributeError`), and no rule of the file is enforced.
//! `expect_or_quarantine` in particular is not a DLT API: a quarantine is a
//! separate dataset that keeps the rows the clean one drops.
//!
//! ## Example (bad)
//! `pipelines/orders.py`:
//! ```python
//! from pyspark import pipelines as dp
//!
//! @dp.table
//! @dp.expect_or_quarantine("valid_price", "price > 0")
//! def orders():
//!     return spark.readStream.table("orders_raw")
//! ```
//!
//! ## Example (good)
//! `pipelines/orders.py`:
//! ```python
//! from pyspark import pipelines as dp
//!
//! @dp.table
//! @dp.expect_or_drop("valid_price", "price > 0")
//! def orders():
//!     return spark.readStream.table("orders_raw")
//! ```
//!
//! ## Fix
//! Use one of the six APIs (the message names the closest one). For a
//! quarantine, drop the rows with `expect_or_drop` here and keep them in a
//! second dataset whose filter is the negation of the rules.

use dqlint_pipeline::model::ApiMisuse;
use dqlint_pipeline::python_model::EXPECTATION_APIS;

use crate::diagnostic::Diagnostic;
use crate::engine::{Context, Findings};
use crate::registry::rule;
use crate::rules::pipeline::sources;
use crate::text::did_you_mean;

pub fn check(ctx: &Context, out: &mut Findings) {
    let me = rule("DQ901");
    for source in sources(ctx) {
        for misuse in &source.model.api_misuses {
            let ApiMisuse::UnknownExpectation { written } = misuse else {
                continue;
            };
            let name = written.name.as_str();
            let hint = if name.contains("quarantine") {
                let meant = if name.starts_with("expect_all") {
                    "expect_all_or_drop"
                } else {
                    "expect_or_drop"
                };
                format!(
                    "; a quarantine is a dataset of its own: `{meant}` here, and a second \
                     dataset that keeps the failing rows"
                )
            } else {
                did_you_mean(name, EXPECTATION_APIS)
                    .map(|m| format!("; did you mean `{m}`?"))
                    .unwrap_or_default()
            };
            out.push(Diagnostic::at(
                me,
                source.id(),
                written.span.clone(),
                format!(
                    "`{name}` is not an expectation API of the pipeline module (expect, \
                     expect_or_drop, expect_or_fail, expect_all, expect_all_or_drop, \
                     expect_all_or_fail): the pipeline fails to load this source{hint}"
                ),
            ));
        }
    }
}
