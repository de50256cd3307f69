//! ## What it does
//! Reports Python code that keeps only the rows whose `_errors` is null
//! (`F.col("_errors").isNull()`, `df._errors.isNull()`,
//! `.filter("_errors IS NULL")`) in a module that also gives DQX a
//! `quarantine_config`.
//!
//! ## Why is this bad?
//! With a quarantine config, DQX already writes the rows with errors to
//! the quarantine and only the others to the output: the hand-made filter
//! does again what DQX does, and drifts from it (warnings, renamed result
//! columns).
//!
//! ## Example (bad)
//! `jobs/orders_quality.py`:
//! ```python
//! from databricks.labs.dqx.config import InputConfig, OutputConfig
//! from pyspark.sql import functions as F
//!
//! dq.apply_checks_and_save_in_table(
//!     checks=checks,
//!     input_config=InputConfig(location="main.sales.orders"),
//!     output_config=OutputConfig(location="main.sales.orders_valid"),
//!     quarantine_config=OutputConfig(location="main.sales.orders_quarantine"),
//! )
//! valid = spark.table("main.sales.orders_valid").filter(F.col("_errors").isNull())
//! ```
//!
//! ## Example (good)
//! `jobs/orders_quality.py`:
//! ```python
//! from databricks.labs.dqx.config import InputConfig, OutputConfig
//!
//! dq.apply_checks_and_save_in_table(
//!     checks=checks,
//!     input_config=InputConfig(location="main.sales.orders"),
//!     output_config=OutputConfig(location="main.sales.orders_valid"),
//!     quarantine_config=OutputConfig(location="main.sales.orders_quarantine"),
//! )
//! valid = spark.table("main.sales.orders_valid")
//! ```
//!
//! ## Fix
//! Read the output table as it is: DQX has routed the failing rows to
//! the quarantine.

use crate::diagnostic::Diagnostic;
use crate::engine::{Context, Findings};
use crate::registry::rule;
use crate::rules::dqx::run_config_files;

pub fn check(ctx: &Context, out: &mut Findings) {
    let me = rule("DQ861");
    for file in run_config_files(ctx) {
        if !file.python_quarantine {
            continue;
        }
        for span in &file.errors_filters {
            out.push(Diagnostic::at(
                me,
                file.id(),
                span.clone(),
                "this keeps the rows whose `_errors` is null, but this module gives DQX a quarantine_config: DQX already writes the rows with errors to the quarantine and only the others to the output",
            ));
        }
    }
}
