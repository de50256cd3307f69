//! ## What it does
//! Reports an `output_config` or `quarantine_config` without
//! `options.checkpointLocation` in a run config whose input is streaming
//! (`is_streaming: true`).
//!
//! ## Why is this bad?
//! A streaming write needs a checkpoint location: without one (and no
//! session default) Spark refuses to start the stream at run time, and
//! with a temporary one every run starts over.
//!
//! ## Example (bad)
//! `.dqx/config.yml`:
//! ```yaml
//! run_configs:
//!   - name: orders
//!     input_config:
//!       location: main.sales.orders
//!       is_streaming: true
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
//!     input_config=InputConfig(location="main.sales.orders_py", is_streaming=True),
//!     output_config=OutputConfig(location="main.sales.orders_py_valid"),
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
//!       is_streaming: true
//!     output_config:
//!       location: main.sales.orders_valid
//!       options:
//!         checkpointLocation: /Volumes/main/sales/checkpoints/orders_valid
//! ```
//!
//! `jobs/orders_quality.py`:
//! ```python
//! from databricks.labs.dqx.config import InputConfig, OutputConfig
//!
//! dq.apply_checks_and_save_in_table(
//!     checks=checks,
//!     input_config=InputConfig(location="main.sales.orders_py", is_streaming=True),
//!     output_config=OutputConfig(
//!         location="main.sales.orders_py_valid",
//!         options={"checkpointLocation": "/Volumes/main/sales/checkpoints/orders_py_valid"},
//!     ),
//! )
//! ```
//!
//! ## Fix
//! Add `options: {checkpointLocation: ...}`, one per output.

use crate::diagnostic::Diagnostic;
use crate::engine::{Context, Findings};
use crate::registry::rule;
use crate::rules::dqx::run_config_files;

pub fn check(ctx: &Context, out: &mut Findings) {
    let me = rule("DQ858");
    for file in run_config_files(ctx) {
        for (index, run) in file.config.runs.iter().enumerate() {
            if !run.input.as_ref().is_some_and(|i| i.is_streaming) {
                continue;
            }
            for io in [&run.output, &run.quarantine].into_iter().flatten() {
                if io.checkpoint.is_some() {
                    continue;
                }
                out.push(Diagnostic::at(
                    me,
                    file.id(),
                    io.key_span.clone(),
                    format!(
                        "`{}` of {} has no `options.checkpointLocation` while the input is streaming: the stream does not start, or starts over every run",
                        io.key, file.label(index)
                    ),
                ));
            }
        }
    }
}
