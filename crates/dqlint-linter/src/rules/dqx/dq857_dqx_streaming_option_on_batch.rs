//! ## What it does
//! Reports a `trigger` or an `options.checkpointLocation` on an output,
//! quarantine or metrics config of a run config whose input is not
//! streaming (`is_streaming` absent, `false`, or a value DQX's loader
//! replaces by `false`).
//!
//! ## Why is this bad?
//! DQX writes a batch input with a batch write, which ignores both: the
//! trigger does nothing, and the checkpoint is never written. Usually
//! `is_streaming: true` was meant.
//!
//! ## Example (bad)
//! `.dqx/config.yml`:
//! ```yaml
//! run_configs:
//!   - name: orders
//!     input_config:
//!       location: main.sales.orders
//!     output_config:
//!       location: main.sales.orders_valid
//!       trigger:
//!         availableNow: true
//! ```
//!
//! `jobs/orders_quality.py`:
//! ```python
//! from databricks.labs.dqx.config import InputConfig, OutputConfig
//!
//! dq.apply_checks_and_save_in_table(
//!     checks=checks,
//!     input_config=InputConfig(location="main.sales.orders_py"),
//!     output_config=OutputConfig(
//!         location="main.sales.orders_py_valid",
//!         options={"checkpointLocation": "/Volumes/main/sales/checkpoints/orders_py_valid"},
//!     ),
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
//!     input_config=InputConfig(location="main.sales.orders_py"),
//!     output_config=OutputConfig(location="main.sales.orders_py_valid"),
//! )
//! ```
//!
//! ## Fix
//! Set `is_streaming: true` on the input if the run should stream, or
//! remove the streaming options.

use crate::diagnostic::Diagnostic;
use crate::engine::{Context, Findings};
use crate::registry::rule;
use crate::rules::dqx::run_config_files;

pub fn check(ctx: &Context, out: &mut Findings) {
    let me = rule("DQ857");
    for file in run_config_files(ctx) {
        for (index, run) in file.config.runs.iter().enumerate() {
            let Some(input) = &run.input else { continue };
            if input.is_streaming {
                continue;
            }
            for io in run.outputs() {
                let spans = io.trigger.iter().map(|s| (s, "`trigger`")).chain(
                    io.checkpoint
                        .iter()
                        .map(|(_, s)| (s, "`checkpointLocation`")),
                );
                for (span, what) in spans {
                    out.push(Diagnostic::at(
                        me,
                        file.id(),
                        span.clone(),
                        format!(
                            "{what} of `{}` in {} is ignored: the input is not streaming (`is_streaming` is not true), so DQX writes a batch",
                            io.key, file.label(index)
                        ),
                    ));
                }
            }
        }
    }
}
