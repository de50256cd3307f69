//! ## What it does
//! Reports an apply-and-save call (`apply_checks_and_save_in_table`,
//! `apply_checks_by_metadata_and_save_in_table`) given neither `checks`
//! nor `checks_location` (or each of them `None`).
//!
//! ## Why is this bad?
//! Since DQX 0.16.0 both are optional parameters, so Python accepts the
//! call, but DQX has no checks to apply and raises `InvalidParameterError`
//! ("Either 'checks_location' or 'checks' must be provided") when the job
//! runs, after the cluster has started and before any row is written.
//! A run config in `config.yml` cannot make this mistake: its
//! `checks_location` defaults to `checks.yml`.
//!
//! ## Example (bad)
//! `jobs/orders_quality.py`:
//! ```python
//! from databricks.labs.dqx.config import InputConfig, OutputConfig
//!
//! dq.apply_checks_and_save_in_table(
//!     input_config=InputConfig(location="main.sales.orders"),
//!     output_config=OutputConfig(location="main.sales.orders_valid"),
//! )
//! ```
//!
//! ## Example (good)
//! `jobs/orders_quality.py`:
//! ```python
//! from databricks.labs.dqx.config import InputConfig, OutputConfig
//!
//! dq.apply_checks_and_save_in_table(
//!     input_config=InputConfig(location="main.sales.orders"),
//!     output_config=OutputConfig(location="main.sales.orders_valid"),
//!     checks_location="/Workspace/dqx/checks/orders.yml",
//! )
//! ```
//!
//! ## Fix
//! Pass the checks (`checks=...`), or where DQX should load them from
//! (`checks_location=...`, a workspace or volume file, or a table).

use crate::diagnostic::Diagnostic;
use crate::engine::{Context, Findings};
use crate::registry::rule;
use crate::rules::dqx::run_config_files;
use dqlint_pipeline::dqx_api::RunSource;

pub fn check(ctx: &Context, out: &mut Findings) {
    let me = rule("DQ862");
    for file in run_config_files(ctx) {
        for index in 0..file.config.runs.len() {
            let Some(api) = file.api_run(index).filter(|a| a.no_checks_source) else {
                continue;
            };
            let RunSource::Call { method, span } = &api.source else {
                continue;
            };
            out.push(Diagnostic::at(
                me,
                file.id(),
                span.clone(),
                format!(
                    "`{method}` is given neither `checks` nor `checks_location`: DQX raises InvalidParameterError (\"Either 'checks_location' or 'checks' must be provided\") when the job runs"
                ),
            ));
        }
    }
}
