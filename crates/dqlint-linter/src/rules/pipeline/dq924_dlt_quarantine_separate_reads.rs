//! ## What it does
//! Finds a quarantine pattern whose clean and quarantine datasets each read
//! the upstream themselves instead of through one view the pipeline
//! declares (`@dp.temporary_view`, `CREATE TEMPORARY VIEW`).
//!
//! ## Why is this bad?
//! Two streaming reads of one source are two queries: their micro-batches
//! may be cut differently, and a source that changes between the reads
//! (a table rewritten, files arriving) gives the two sides different rows.
//! Seed 002 routes both through one shared view so that each row is judged
//! once; seed 004's own example reads twice.
//!
//! ## Example (bad)
//! `transformations/sales.py`:
//! ```python
//! from pyspark import pipelines as dp
//!
//! @dp.table()
//! @dp.expect_or_drop("valid_price", "price IS NOT NULL AND price > 0")
//! def sales_clean():
//!     return spark.readStream.table("raw_ingestion")
//!
//! @dp.table()
//! def sales_quarantine():
//!     return spark.readStream.table("raw_ingestion").filter("NOT (price IS NOT NULL AND price > 0)")
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
//! def sales_clean():
//!     return spark.readStream.table("raw_sales")
//!
//! @dp.table()
//! def sales_quarantine():
//!     return spark.readStream.table("raw_sales").filter("NOT (price IS NOT NULL AND price > 0)")
//! ```
//!
//! ## Fix
//! Declare one view over the source and read it from both datasets.

use dqlint_pipeline::model::DatasetKind;
use dqlint_project::Origin;

use crate::diagnostic::Diagnostic;
use crate::engine::{Context, Findings};
use crate::registry::rule;
use crate::rules::pipeline::{file_at, quarantine_patterns, DatasetIndex};

pub fn check(ctx: &Context, out: &mut Findings) {
    let me = rule("DQ924");
    let index = DatasetIndex::new(ctx);
    for pattern in quarantine_patterns(ctx) {
        let upstream = &pattern.quarantine_read.source.name;
        let shared_view = index
            .get(upstream)
            .is_some_and(|(_, d)| d.kind == DatasetKind::View);
        if shared_view {
            continue;
        }
        let (clean, q) = (pattern.clean.1, pattern.quarantine.1);
        let (clean_file, q_file) = (
            file_at(ctx, pattern.clean.0),
            file_at(ctx, pattern.quarantine.0),
        );
        let message = format!(
            "`{}` and quarantine `{}` each read `{upstream}` themselves: two reads may cut the \
             data differently, so a row can be judged on one side only; read it once through a \
             view both use",
            clean.name.name, q.name.name
        );
        out.push(
            Diagnostic::at(
                me,
                q_file,
                pattern.quarantine_read.source.span.clone(),
                message,
            )
            .related(
                &Origin::new(clean_file, pattern.clean_read.source.span.clone()),
                format!("`{}` reads it here", clean.name.name),
            ),
        );
    }
}
