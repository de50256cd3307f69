//! ## What it does
//! Finds fail rules (`expect_or_fail`, `ON VIOLATION FAIL UPDATE`) on the
//! clean dataset of a quarantine pattern.
//!
//! ## Why is this bad?
//! A row failing a fail rule stops the whole update: it never reaches the
//! quarantine table that was built to receive bad rows, and nothing after
//! it is processed until the data or the rule is changed. That may be
//! intended (a circuit breaker), so this is information.
//!
//! ## Example (bad)
//! `transformations/sales.py`:
//! ```python
//! from pyspark import pipelines as dp
//!
//! @dp.temporary_view()
//! def raw_sales():
//!     return spark.readStream.table("raw_ingestion")
//!
//! @dp.table()
//! @dp.expect_or_drop("valid_price", "price IS NOT NULL AND price > 0")
//! @dp.expect_or_fail("valid_id", "order_id IS NOT NULL")
//! def sales_clean():
//!     return spark.readStream.table("raw_sales")
//!
//! @dp.table()
//! def sales_quarantine():
//!     return spark.readStream.table("raw_sales").filter("NOT (price IS NOT NULL AND price > 0)")
//! ```
//!
//! ## Example (good)
//! `transformations/sales.py`:
//! ```python
//! from pyspark import pipelines as dp
//!
//! @dp.temporary_view()
//! def raw_sales():
//!     return spark.readStream.table("raw_ingestion")
//!
//! @dp.table()
//! @dp.expect_or_drop("valid_price", "price IS NOT NULL AND price > 0")
//! @dp.expect_or_drop("valid_id", "order_id IS NOT NULL")
//! def sales_clean():
//!     return spark.readStream.table("raw_sales")
//!
//! @dp.table()
//! def sales_quarantine():
//!     return spark.readStream.table("raw_sales").filter(
//!         "NOT (price IS NOT NULL AND price > 0 AND order_id IS NOT NULL)"
//!     )
//! ```
//!
//! ## Fix
//! Make the rule a drop rule and add it to the quarantine filter, or keep
//! it as a deliberate stop (and suppress this finding).

use dqlint_pipeline::model::ExpectAction;
use dqlint_project::Origin;

use crate::diagnostic::Diagnostic;
use crate::engine::{Context, Findings};
use crate::registry::rule;
use crate::rules::pipeline::{expectation_label, file_at, quarantine_patterns};

pub fn check(ctx: &Context, out: &mut Findings) {
    let me = rule("DQ923");
    for pattern in quarantine_patterns(ctx) {
        let (clean, q) = (pattern.clean.1, pattern.quarantine.1);
        let (clean_file, q_file) = (
            file_at(ctx, pattern.clean.0),
            file_at(ctx, pattern.quarantine.0),
        );
        for fail in clean
            .expectations
            .iter()
            .filter(|e| e.action == ExpectAction::Fail)
        {
            let message = format!(
                "{} fails the update of `{}` on a bad row: the row stops the pipeline instead \
                 of reaching quarantine `{}`",
                expectation_label(fail),
                clean.name.name,
                q.name.name
            );
            out.push(
                Diagnostic::at(me, clean_file, fail.origin.clone(), message).related(
                    &Origin::new(q_file, q.name.span.clone()),
                    format!("the quarantine `{}`", q.name.name),
                ),
            );
        }
    }
}
