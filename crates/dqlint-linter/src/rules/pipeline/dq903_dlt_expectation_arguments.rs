//! ## What it does
//! Reports an expectation decorator whose arguments are not what the API
//! takes, when they are known: `expect*` takes a name and a SQL
//! constraint, both strings; `expect_all*` takes one dict of name to
//! constraint.
//!
//! ## Why is this bad?
//! The pipeline fails when it loads the source (`TypeError`), or, for a
//! value of the wrong type, when it defines the dataset. `expect_all`
//! written with a name and a constraint, as `expect` is, is a common slip.
//!
//! ## Example (bad)
//! `pipelines/orders.py`:
//! ```python
//! from pyspark import pipelines as dp
//!
//! @dp.table
//! @dp.expect_all_or_drop("valid_price", "price > 0")
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
//! @dp.expect_all_or_drop({"valid_price": "price > 0"})
//! def orders():
//!     return spark.readStream.table("orders_raw")
//! ```
//!
//! ## Fix
//! Call `expect*` with `(name, constraint)` and `expect_all*` with a dict.

use dqlint_pipeline::model::ApiMisuse;

use crate::diagnostic::Diagnostic;
use crate::engine::{Context, Findings};
use crate::registry::rule;
use crate::rules::pipeline::sources;

pub fn check(ctx: &Context, out: &mut Findings) {
    let me = rule("DQ903");
    for source in sources(ctx) {
        for misuse in &source.model.api_misuses {
            let ApiMisuse::BadArguments { span, api, detail } = misuse else {
                continue;
            };
            let verb = ["takes ", "is ", "has "]
                .iter()
                .any(|v| detail.starts_with(v));
            let sep = if verb { " " } else { ": " };
            let takes = if detail.starts_with("takes ") {
                ""
            } else if api.starts_with("expect_all") {
                " (it takes one dict of expectation name to SQL constraint)"
            } else {
                " (it takes an expectation name and a SQL constraint)"
            };
            out.push(Diagnostic::at(
                me,
                source.id(),
                span.clone(),
                format!("`{api}`{sep}{detail}{takes}; the pipeline rejects it"),
            ));
        }
    }
}
