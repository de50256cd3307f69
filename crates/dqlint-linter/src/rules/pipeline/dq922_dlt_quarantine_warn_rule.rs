//! ## What it does
//! Finds a rule that the quarantine predicate covers (it keeps the rule's
//! failing rows) while the clean dataset only warns on it (`expect`,
//! `EXPECT` without `ON VIOLATION`).
//!
//! ## Why is this bad?
//! A warn rule keeps its failing rows in the clean table. The quarantine
//! keeps them too, so the same row is in both tables: downstream counts
//! double, and a remediated row re-injected into the clean target arrives
//! twice.
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
//! @dp.expect("valid_id", "order_id IS NOT NULL")
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
//! Make the rule a drop rule on the clean dataset, or leave it out of the
//! quarantine filter.

use dqlint_project::Origin;

use crate::diagnostic::Diagnostic;
use crate::engine::{Context, Findings};
use crate::registry::rule;
use crate::rules::pipeline::{expectation_label, file_at, quarantine_patterns, quarantine_site};

pub fn check(ctx: &Context, out: &mut Findings) {
    let me = rule("DQ922");
    for pattern in quarantine_patterns(ctx) {
        let Some(coverage) = &pattern.coverage else {
            continue;
        };
        let (clean_file, q_file) = (
            file_at(ctx, pattern.clean.0),
            file_at(ctx, pattern.quarantine.0),
        );
        for warn in &coverage.covered_warn {
            let message = format!(
                "{} only warns on `{}` (its failing rows are kept), but quarantine `{}` keeps \
                 them too: such a row is in both tables; make it a drop rule or leave it out of \
                 the quarantine filter",
                expectation_label(warn),
                pattern.clean.1.name.name,
                pattern.quarantine.1.name.name
            );
            out.push(
                Diagnostic::at(me, clean_file, warn.origin.clone(), message).related(
                    &Origin::new(q_file, quarantine_site(&pattern)),
                    format!(
                        "the quarantine `{}` filters here",
                        pattern.quarantine.1.name.name
                    ),
                ),
            );
        }
    }
}
