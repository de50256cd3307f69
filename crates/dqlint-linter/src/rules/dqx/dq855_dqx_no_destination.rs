//! ## What it does
//! Reports a run config with an `input_config` but none of
//! `output_config`, `quarantine_config`, `metrics_config` (as they
//! survive DQX's loader: one it replaced by its default counts as
//! absent).
//!
//! ## Why is this bad?
//! DQX's apply-and-save refuses to run without a destination
//! (`InvalidParameterError`: "At least one of 'output_config',
//! 'quarantine_config' or 'metrics_config' must be provided").
//!
//! ## Example (bad)
//! `.dqx/config.yml`:
//! ```yaml
//! run_configs:
//!   - name: orders
//!     input_config:
//!       location: main.sales.orders
//! ```
//!
//! `jobs/orders_quality.py`:
//! ```python
//! from databricks.labs.dqx.config import InputConfig, OutputConfig
//!
//! dq.apply_checks_and_save_in_table(
//!     checks=checks,
//!     input_config=InputConfig(location="main.sales.orders"),
//! )
//! ```
//!
//! ## Example (good)
//! `.dqx/config.yml`:
//! ```yaml
//! run_configs:
//!   - name: orders
//!     input_config:
//!       location: main.sales.orders
//!     output_config:
//!       location: main.sales.orders_valid
//! ```
//!
//! `jobs/orders_quality.py`:
//! ```python
//! from databricks.labs.dqx.config import InputConfig, OutputConfig
//!
//! dq.apply_checks_and_save_in_table(
//!     checks=checks,
//!     input_config=InputConfig(location="main.sales.orders"),
//!     quarantine_config=OutputConfig(location="main.sales.orders_quarantine"),
//! )
//! ```
//!
//! ## Fix
//! Add an `output_config` (and a `quarantine_config` to split off the
//! failing rows).

use crate::diagnostic::Diagnostic;
use crate::engine::{Context, Findings};
use crate::registry::rule;
use crate::rules::dqx::run_config_files;
use dqlint_pipeline::dqx_api::RunSource;

pub fn check(ctx: &Context, out: &mut Findings) {
    let me = rule("DQ855");
    for file in run_config_files(ctx) {
        for (index, run) in file.config.runs.iter().enumerate() {
            if let Some(api) = file.api_run(index) {
                if let RunSource::Call { method, span } = &api.source {
                    let streaming = run.input.as_ref().is_some_and(|i| i.is_streaming);
                    let metrics_only =
                        run.metrics.is_some() && run.output.is_none() && run.quarantine.is_none();
                    let message = if api.no_destination {
                        format!(
                            "`{method}` is given no output_config, quarantine_config or metrics_config: DQX raises InvalidParameterError before reading anything"
                        )
                    } else if metrics_only && streaming {
                        format!(
                            "`{method}` on a streaming input is given only a metrics_config: DQX raises InvalidParameterError (a streaming query needs an output_config or quarantine_config)"
                        )
                    } else {
                        continue;
                    };
                    out.push(Diagnostic::at(me, file.id(), span.clone(), message));
                    continue;
                }
            }
            let Some(input) = &run.input else { continue };
            if run.outputs().next().is_some() {
                continue;
            }
            out.push(Diagnostic::at(
                me,
                file.id(),
                input.key_span.clone(),
                format!(
                    "{} reads an input but has no output_config, quarantine_config or metrics_config: DQX refuses to run it",
                    file.label(index)
                ),
            ));
        }
    }
}
