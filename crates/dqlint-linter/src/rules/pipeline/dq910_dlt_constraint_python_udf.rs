//! ## What it does
//! Reports an expectation constraint that calls a Python UDF defined in
//! the pipeline's sources or in a project module they import (`@udf`,
//! `@pandas_udf`, `F.udf(...)`, `spark.udf.register("name", ...)`). The
//! UDF's definition is the related location.
//!
//! ## Why is this bad?
//! DLT evaluates constraints as SQL expressions on its own: they cannot
//! call Python functions, and the update fails when it defines the
//! dataset.
//!
//! ## Example (bad)
//! `pipelines/orders.py`:
//! ```python
//! from pyspark import pipelines as dp
//! from pyspark.sql.functions import udf
//!
//! @udf("boolean")
//! def valid_sku(sku):
//!     return sku is not None and sku.startswith("SKU-")
//!
//! @dp.table
//! @dp.expect_or_drop("valid_sku", "valid_sku(sku)")
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
//! @dp.expect_or_drop("valid_sku", "sku LIKE 'SKU-%'")
//! def orders():
//!     return spark.readStream.table("orders_raw")
//! ```
//!
//! ## Fix
//! Write the rule in SQL (built-in functions), or compute the value as a
//! column of the dataset (`withColumn("sku_ok", valid_sku("sku"))`) and
//! expect on that column.

use dqlint_pipeline::model::Constraint;
use dqlint_project::Origin;
use dqlint_sql::expr::{check_expression, ExprFact};

use crate::diagnostic::Diagnostic;
use crate::engine::{Context, Findings};
use crate::registry::rule;
use crate::rules::pipeline::{python_udfs, sources};

pub fn check(ctx: &Context, out: &mut Findings) {
    let me = rule("DQ910");
    let udfs = python_udfs(ctx);
    if udfs.is_empty() {
        return;
    }
    for source in sources(ctx) {
        for dataset in &source.model.datasets {
            for e in &dataset.expectations {
                let Constraint::Known(text) = &e.constraint else {
                    continue;
                };
                for finding in check_expression(&text.text) {
                    if finding.kind != ExprFact::UnknownFunction {
                        continue;
                    }
                    let Some(called) = text.text.get(finding.range.clone()) else {
                        continue;
                    };
                    let called = called.trim_matches('`').to_ascii_lowercase();
                    let Some(udf) = udfs.iter().find(|u| u.name == called) else {
                        continue;
                    };
                    let span = text
                        .source_span(finding.range.clone())
                        .unwrap_or_else(|| e.origin.clone());
                    out.push(
                        Diagnostic::at(
                            me,
                            source.id(),
                            span,
                            format!(
                                "the constraint calls `{called}`, a Python UDF: DLT evaluates \
                                 constraints as SQL and cannot call Python functions"
                            ),
                        )
                        .related(
                            &Origin::new(udf.file, udf.span.clone()),
                            "the UDF is defined here",
                        ),
                    );
                }
            }
        }
    }
}
