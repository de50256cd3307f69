//! ## What it does
//! Reports one expectation name twice on one dataset (stacked decorators,
//! entries of the dicts it uses, `CONSTRAINT`s of one statement), and a key
//! written twice in one dict literal of rules. The first is the related
//! location.
//!
//! ## Why is this bad?
//! Expectation names identify the rules in the pipeline's event log and
//! data quality metrics: two rules of one name cannot be told apart, and
//! the pipeline may reject the dataset. In a dict literal, Python keeps
//! the last entry of a key: the first rule silently disappears.
//!
//! ## Example (bad)
//! `pipelines/orders.py`:
//! ```python
//! from pyspark import pipelines as dp
//!
//! RULES = {
//!     "valid_price": "price > 0",
//!     "valid_price": "price < 10000",
//! }
//!
//! @dp.table
//! @dp.expect_all_or_drop(RULES)
//! def orders():
//!     return spark.readStream.table("orders_raw")
//! ```
//!
//! ## Example (good)
//! `pipelines/orders.py`:
//! ```python
//! from pyspark import pipelines as dp
//!
//! RULES = {
//!     "positive_price": "price > 0",
//!     "plausible_price": "price < 10000",
//! }
//!
//! @dp.table
//! @dp.expect_all_or_drop(RULES)
//! def orders():
//!     return spark.readStream.table("orders_raw")
//! ```
//!
//! ## Fix
//! Give each rule its own name.

use std::collections::HashMap;
use std::ops::Range;

use dqlint_pipeline::model::ApiMisuse;
use dqlint_project::Origin;

use crate::diagnostic::Diagnostic;
use crate::engine::{Context, Findings};
use crate::registry::rule;
use crate::rules::pipeline::sources;

pub fn check(ctx: &Context, out: &mut Findings) {
    let me = rule("DQ904");
    for source in sources(ctx) {
        let id = source.id();
        for misuse in &source.model.api_misuses {
            let ApiMisuse::DuplicateDictKey { key, first, second } = misuse else {
                continue;
            };
            out.push(
                Diagnostic::at(
                    me,
                    id,
                    second.clone(),
                    format!(
                        "`{key}` is a key of this dict twice: Python keeps the last entry, so \
                         the first rule of that name is never checked"
                    ),
                )
                .related(&Origin::new(id, first.clone()), "the first entry"),
            );
        }
        for dataset in &source.model.datasets {
            let mut first: HashMap<&str, Range<usize>> = HashMap::new();
            for e in &dataset.expectations {
                let Some(name) = &e.name else { continue };
                match first.get(name.name.as_str()) {
                    None => {
                        first.insert(&name.name, name.span.clone());
                    }
                    Some(earlier) => out.push(
                        Diagnostic::at(
                            me,
                            id,
                            name.span.clone(),
                            format!(
                                "dataset `{}` has two expectations named `{}`: their results \
                                 cannot be told apart",
                                dataset.name.name, name.name
                            ),
                        )
                        .related(&Origin::new(id, earlier.clone()), "the first one"),
                    ),
                }
            }
        }
    }
}
