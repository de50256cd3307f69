//! ## What it does
//! Reports a dataset that `[policy.circuit_breaker]` selects, whose
//! failing rows go to a quarantine, and that no circuit breaker (a
//! pipeline view failing on the quarantined share, a DQX `FailPipeline`
//! action) watches.
//!
//! Breakers recognised:
//!
//! - **pipelines**: a view or materialized view that reads the clean
//!   dataset or its quarantine and has a fail expectation comparing their
//!   counts (`quarantined <= 0.05 * total`, `q / (q + c) <= 0.05`,
//!   `q * 100 <= 5 * t`);
//! - **DQX** (0.16+): an engine built with `actions=[DQAction(...,
//!   action=FailPipeline())]` in the module that applies the checks. A run
//!   config naming an `actions_location` loads its actions when the
//!   workflow runs, and an engine imported from another module (or built
//!   with `actions=` the reader cannot follow) has actions it does not
//!   see: dqlint reports nothing of those;
//! - **LHP** has no breaker of its own: a quarantine action is reported
//!   unless a pipeline view of the project, in the form above, reads the
//!   table it writes.
//!
//! Without `[policy.circuit_breaker]`, it reports nothing.
//!
//! ## Why is this bad?
//! A quarantine keeps bad rows out of the clean table, and the update
//! succeeds however many there are. When an upstream change breaks every
//! row, the clean table silently empties while the quarantine fills:
//! seed 004's team fails the pipeline once more than 5% of a batch is
//! quarantined, so that someone looks before consumers read a table with
//! a twentieth of its rows.
//!
//! ## Example (bad)
//! `dqlint.toml`:
//! ```toml
//! [policy.circuit_breaker]
//! datasets = ["silver_*", "*.silver.*"]
//! max_quarantine_ratio = 0.05
//! ```
//!
//! `transformations/ledger.py`:
//! ```python
//! from pyspark import pipelines as dp
//!
//! @dp.temporary_view()
//! def ledger_raw():
//!     return spark.readStream.table("bronze_ledger")
//!
//! @dp.table()
//! @dp.expect_or_drop("valid_amount", "amount IS NOT NULL AND amount > 0")
//! def silver_ledger():
//!     return spark.readStream.table("ledger_raw")
//!
//! @dp.table()
//! def quarantine_ledger():
//!     return spark.readStream.table("ledger_raw").filter(
//!         "NOT (amount IS NOT NULL AND amount > 0)"
//!     )
//! ```
//!
//! `jobs/orders_quality.py`:
//! ```python
//! from databricks.labs.dqx.config import InputConfig, OutputConfig
//! from databricks.labs.dqx.engine import DQEngine
//! from databricks.sdk import WorkspaceClient
//!
//! dq = DQEngine(WorkspaceClient())
//! dq.apply_checks_and_save_in_table(
//!     input_config=InputConfig(location="main.bronze.orders"),
//!     output_config=OutputConfig(location="main.silver.orders"),
//!     quarantine_config=OutputConfig(location="main.silver.orders_quarantine"),
//!     checks_location="/Workspace/dqx/checks/orders.yml",
//! )
//! ```
//!
//! ## Example (good)
//! `transformations/ledger.py`:
//! ```python
//! from pyspark import pipelines as dp
//! from pyspark.sql import functions as F
//!
//! @dp.temporary_view()
//! def ledger_raw():
//!     return spark.readStream.table("bronze_ledger")
//!
//! @dp.table()
//! @dp.expect_or_drop("valid_amount", "amount IS NOT NULL AND amount > 0")
//! def silver_ledger():
//!     return spark.readStream.table("ledger_raw")
//!
//! @dp.table()
//! def quarantine_ledger():
//!     return spark.readStream.table("ledger_raw").filter(
//!         "NOT (amount IS NOT NULL AND amount > 0)"
//!     )
//!
//! @dp.materialized_view()
//! @dp.expect_or_fail("at_most_5_percent_quarantined", "quarantined <= 0.05 * total")
//! def ledger_breaker():
//!     q = spark.read.table("quarantine_ledger").agg(F.count("*").alias("quarantined"))
//!     c = spark.read.table("silver_ledger").agg(F.count("*").alias("clean"))
//!     return q.crossJoin(c).withColumn("total", F.col("quarantined") + F.col("clean"))
//! ```
//!
//! `jobs/orders_quality.py`:
//! ```python
//! from databricks.labs.dqx.actions import DQAction, FailPipeline
//! from databricks.labs.dqx.config import InputConfig, OutputConfig
//! from databricks.labs.dqx.engine import DQEngine
//! from databricks.labs.dqx.metrics_observer import DQMetricsObserver
//! from databricks.sdk import WorkspaceClient
//!
//! breaker = DQAction(
//!     condition="input_row_count > 0 and error_row_count / input_row_count > 0.05",
//!     action=FailPipeline(),
//! )
//! dq = DQEngine(WorkspaceClient(), observer=DQMetricsObserver(), actions=[breaker])
//! dq.apply_checks_and_save_in_table(
//!     input_config=InputConfig(location="main.bronze.orders"),
//!     output_config=OutputConfig(location="main.silver.orders"),
//!     quarantine_config=OutputConfig(location="main.silver.orders_quarantine"),
//!     checks_location="/Workspace/dqx/checks/orders.yml",
//! )
//! ```
//!
//! ## Fix
//! Add a breaker: in a pipeline, a materialized view over the clean and
//! quarantine datasets with `expect_or_fail` (or `CONSTRAINT ... EXPECT
//! (...) ON VIOLATION FAIL UPDATE`) bounding the quarantined count; in
//! DQX, a `DQAction` failing the pipeline on `error_row_count /
//! input_row_count`, on an engine with a metrics observer. For an LHP
//! quarantine action, write the pipeline form in a Python or SQL source
//! of the project, reading the table the action writes.

use dqlint_project::Dialect;

use crate::diagnostic::Diagnostic;
use crate::engine::{Context, Findings};
use crate::registry::rule;
use crate::rules::policy::{breaker_state, datasets, percent, BreakerState};

pub fn check(ctx: &Context, out: &mut Findings) {
    let Some(policy) = &ctx.team_policy.circuit_breaker else {
        return;
    };
    let me = rule("DQ953");
    let limit = percent(policy.max_quarantine_ratio);
    for dataset in datasets(ctx) {
        if !matches!(breaker_state(ctx, dataset), BreakerState::Missing) {
            continue;
        }
        let name = &dataset.label;
        let message = match dataset.dialect {
            Dialect::Lhp => format!(
                "`{name}` is written by a quarantine action and nothing fails the pipeline when \
                 more than {limit} of a batch is quarantined ([policy.circuit_breaker]): LHP has \
                 no circuit breaker; add a materialized view reading `{name}` and its DLQ with \
                 `expect_or_fail(..., \"quarantined <= {ratio} * total\")` to a pipeline source",
                ratio = policy.max_quarantine_ratio
            ),
            Dialect::DqxRunConfig => format!(
                "`{name}` has a quarantine and its run has no action failing the pipeline when \
                 more than {limit} of a batch is quarantined ([policy.circuit_breaker]): build \
                 the engine with `actions=[DQAction(condition=\"input_row_count > 0 and \
                 error_row_count / input_row_count > {ratio}\", action=FailPipeline())]` (or give \
                 the run config an `actions_location`)",
                ratio = policy.max_quarantine_ratio
            ),
            _ => format!(
                "`{name}` has a quarantine and no view fails the update when more than {limit} \
                 of a batch is quarantined ([policy.circuit_breaker]): add a materialized view \
                 reading it and its quarantine with `expect_or_fail(..., \"quarantined <= \
                 {ratio} * total\")`",
                ratio = policy.max_quarantine_ratio
            ),
        };
        out.push(Diagnostic::at(
            me,
            dataset.site.file,
            dataset.site.span.clone(),
            message,
        ));
    }
}
