//! ## What it does
//! Finds a drop rule of a quarantine pattern's clean dataset that can be
//! NULL (a column not guarded by `IS NOT NULL`, `coalesce`, `<=>`, `nvl`,
//! `IS [NOT] DISTINCT FROM`) while the quarantine keeps `NOT (rule)` without
//! an `OR col IS NULL` for it.
//!
//! ## Why is this bad?
//! On a row where `price` is NULL, `price > 0` is NULL, not false: the
//! clean table's `expect_or_drop` drops the row, and the quarantine's
//! `filter("NOT (price > 0)")` drops it as well (NOT NULL is NULL). The row
//! is in neither table (observed on Spark). Seed 002 writes
//! `price IS NOT NULL AND price > 0` for this reason.
//!
//! ## Example (bad)
//! `transformations/sales.sql`:
//! ```sql
//! CREATE TEMPORARY VIEW raw_sales AS SELECT * FROM STREAM(raw_ingestion);
//!
//! CREATE OR REFRESH STREAMING TABLE sales_clean (
//!   CONSTRAINT valid_price EXPECT (price > 0) ON VIOLATION DROP ROW
//! ) AS SELECT * FROM STREAM(raw_sales);
//!
//! CREATE OR REFRESH STREAMING TABLE sales_quarantine
//! AS SELECT * FROM STREAM(raw_sales) WHERE NOT (price > 0);
//! ```
//!
//! ## Example (good)
//! `transformations/sales.sql`:
//! ```sql
//! CREATE TEMPORARY VIEW raw_sales AS SELECT * FROM STREAM(raw_ingestion);
//!
//! CREATE OR REFRESH STREAMING TABLE sales_clean (
//!   CONSTRAINT valid_price EXPECT (price IS NOT NULL AND price > 0) ON VIOLATION DROP ROW
//! ) AS SELECT * FROM STREAM(raw_sales);
//!
//! CREATE OR REFRESH STREAMING TABLE sales_quarantine
//! AS SELECT * FROM STREAM(raw_sales) WHERE NOT (price IS NOT NULL AND price > 0);
//! ```
//!
//! ## Fix
//! Guard the rule (`price IS NOT NULL AND price > 0`) on both sides, or
//! quarantine the NULL rows explicitly (`NOT (price > 0) OR price IS NULL`).

use dqlint_project::Origin;

use crate::diagnostic::Diagnostic;
use crate::engine::{Context, Findings};
use crate::registry::rule;
use crate::rules::pipeline::{
    expectation_label, expectation_site, file_at, quarantine_patterns, quarantine_site,
};

pub fn check(ctx: &Context, out: &mut Findings) {
    let me = rule("DQ921");
    for pattern in quarantine_patterns(ctx) {
        let Some(coverage) = &pattern.coverage else {
            continue;
        };
        let (clean_file, q_file) = (
            file_at(ctx, pattern.clean.0),
            file_at(ctx, pattern.quarantine.0),
        );
        for gap in &coverage.null_gaps {
            let message = format!(
                "drop rule {} of `{}` is NULL on a row with a NULL column, and `NOT` of NULL is \
                 NULL: such a row is dropped from `{}` and not kept by quarantine `{}` either, \
                 so it is in neither table; guard the rule with `IS NOT NULL` or quarantine the \
                 NULL rows too (`... OR col IS NULL`)",
                expectation_label(gap),
                pattern.clean.1.name.name,
                pattern.clean.1.name.name,
                pattern.quarantine.1.name.name
            );
            out.push(
                Diagnostic::at(me, clean_file, expectation_site(gap), message).related(
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
