//! ## What it does
//! Reports uses of the legacy pipeline API that have a documented
//! replacement: `import dlt`, `@dlt.view`, `dlt.apply_changes`,
//! `dlt.create_streaming_live_table`, `APPLY CHANGES INTO`, `LIVE.`
//! prefixes, `CREATE LIVE TABLE` / `CREATE STREAMING LIVE TABLE`.
//!
//! ## Why is this bad?
//! The legacy names still run on Databricks, but the documentation and the
//! new features follow the replacements (`from pyspark import pipelines as
//! dp`, `create_auto_cdc_flow`, `AUTO CDC INTO`, `CREATE STREAMING TABLE`),
//! and Apache Spark's `pyspark.pipelines` knows only those.
//!
//! ## Example (bad)
//! `pipelines/orders.py`:
//! ```python
//! import dlt
//!
//!
//! @dlt.table()
//! @dlt.expect_or_drop("valid_price", "price > 0")
//! def orders_clean():
//!     return spark.readStream.table("orders_raw")
//! ```
//!
//! ## Example (good)
//! `pipelines/orders.py`:
//! ```python
//! from pyspark import pipelines as dp
//!
//!
//! @dp.table()
//! @dp.expect_or_drop("valid_price", "price > 0")
//! def orders_clean():
//!     return spark.readStream.table("orders_raw")
//! ```
//!
//! ## Fix
//! Use the replacement the message names. `LIVE.orders` becomes
//! `orders`: datasets of the pipeline are found by name.

use dqlint_project::Origin;

use crate::diagnostic::Diagnostic;
use crate::engine::{Context, Findings};
use crate::registry::rule;
use crate::rules::pipeline::sources;

pub fn check(ctx: &Context, out: &mut Findings) {
    let me = rule("DQ906");
    for source in sources(ctx) {
        for legacy in &source.model.legacy {
            out.push(Diagnostic::new(
                me,
                &Origin::new(source.id(), legacy.span.clone()),
                format!(
                    "`{}` is the legacy pipeline API: use `{}`",
                    legacy.written, legacy.replacement
                ),
            ));
        }
    }
}
