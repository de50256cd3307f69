//! ## What it does
//! With `[dlt] runtime = "oss-spark"` in `dqlint.toml`, reports what Apache
//! Spark's `pyspark.pipelines` does not have: expectations (`@dp.expect*`,
//! `expect_all*` arguments, SQL `CONSTRAINT ... EXPECT`), and the legacy
//! `dlt.apply_changes` / `APPLY CHANGES INTO`.
//!
//! ## Why is this bad?
//! Spark Declarative Pipelines 4.x has no expectation API and no
//! `apply_changes`: the pipeline fails to load (`AttributeError`, or a SQL
//! parse error) instead of checking a single row. `create_auto_cdc_flow`
//! and `CREATE FLOW ... AS AUTO CDC INTO` exist there.
//!
//! ## Example (bad)
//! `dqlint.toml`:
//! ```toml
//! [dlt]
//! runtime = "oss-spark"
//! ```
//!
//! `pipelines/orders.py`:
//! ```python
//! from pyspark import pipelines as dp
//!
//!
//! @dp.materialized_view()
//! @dp.expect_or_drop("valid_price", "price > 0")
//! def orders_clean():
//!     return spark.read.table("orders_raw")
//! ```
//!
//! ## Example (good)
//! `pipelines/orders.py`:
//! ```python
//! from pyspark import pipelines as dp
//!
//!
//! @dp.materialized_view()
//! def orders_clean():
//!     return spark.read.table("orders_raw").where("price > 0")
//! ```
//!
//! ## Fix
//! Filter the rows yourself (`.where(...)`, `WHERE`), or run the pipeline
//! on Databricks; use `create_auto_cdc_flow` / `AUTO CDC INTO` instead of
//! `apply_changes` / `APPLY CHANGES INTO`. If the pipeline does run on
//! Databricks, set `runtime = "databricks"` (the default).

use std::collections::HashSet;

use dqlint_project::{FileKind, Origin};

use crate::config::DltRuntime;
use crate::diagnostic::Diagnostic;
use crate::engine::{Context, Findings};
use crate::registry::rule;
use crate::rules::pipeline::sources;

pub fn check(ctx: &Context, out: &mut Findings) {
    if ctx.dlt.runtime != DltRuntime::OssSpark {
        return;
    }
    let me = rule("DQ905");
    for source in sources(ctx) {
        let sql = source.file.kind == FileKind::PipelineSql;
        // One finding per decorator or clause, not per rule of its dict.
        let mut seen = HashSet::new();
        for dataset in &source.model.datasets {
            for expectation in &dataset.expectations {
                if !seen.insert(expectation.origin.clone()) {
                    continue;
                }
                let what = if sql {
                    "`CONSTRAINT ... EXPECT`".to_string()
                } else {
                    format!("the expectation on `{}`", dataset.name.name)
                };
                out.push(Diagnostic::new(
                    me,
                    &Origin::new(source.id(), expectation.origin.clone()),
                    format!(
                        "{what} does not exist on Apache Spark (`runtime = \"oss-spark\"`): \
                         `pyspark.pipelines` has no expectations, so the pipeline does not load"
                    ),
                ));
            }
        }
        for cdc in source.model.auto_cdc.iter().filter(|c| c.legacy) {
            let legacy = source
                .model
                .legacy
                .iter()
                .find(|l| cdc.span.contains(&l.span.start));
            let (span, written) = match legacy {
                Some(l) => (l.span.clone(), l.written.clone()),
                None => (cdc.span.clone(), "apply_changes".to_string()),
            };
            let replacement = if sql {
                "CREATE FLOW ... AS AUTO CDC INTO"
            } else {
                "create_auto_cdc_flow"
            };
            out.push(Diagnostic::new(
                me,
                &Origin::new(source.id(), span),
                format!(
                    "`{written}` does not exist on Apache Spark (`runtime = \"oss-spark\"`): \
                     use `{replacement}`"
                ),
            ));
        }
    }
}
