//! ## What it does
//! Reports a `checkpointLocation` (in an output's `options`) that another
//! streaming output already uses: the output and the quarantine of one
//! run config, or outputs of different run configs, in any run config
//! file of the project. Trailing slashes do not make two locations
//! different. Outputs of batch run configs are left out: a batch write
//! ignores the option (DQ857).
//!
//! ## Why is this bad?
//! A checkpoint records the progress of one stream. Two streams sharing
//! it read each other's offsets: one of them skips data it never wrote,
//! silently (DQX's own docs: sharing one "causes silent data loss").
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
//!       options:
//!         checkpointLocation: /Volumes/main/sales/checkpoints/orders
//!     quarantine_config:
//!       location: main.sales.orders_quarantine
//!       options:
//!         checkpointLocation: /Volumes/main/sales/checkpoints/orders
//! ```
//!
//! `jobs/orders_quality.py`:
//! ```python
//! from databricks.labs.dqx.config import InputConfig, OutputConfig
//!
//! CHECKPOINT = "/Volumes/main/sales/checkpoints/orders_py"
//! dq.apply_checks_and_save_in_table(
//!     checks=checks,
//!     input_config=InputConfig(location="main.sales.orders_raw", is_streaming=True),
//!     output_config=OutputConfig(
//!         location="main.sales.orders_py", options={"checkpointLocation": CHECKPOINT}
//!     ),
//!     quarantine_config=OutputConfig(
//!         location="main.sales.orders_py_quarantine", options={"checkpointLocation": CHECKPOINT}
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
//!       is_streaming: true
//!     output_config:
//!       location: main.sales.orders_valid
//!       options:
//!         checkpointLocation: /Volumes/main/sales/checkpoints/orders_valid
//!     quarantine_config:
//!       location: main.sales.orders_quarantine
//!       options:
//!         checkpointLocation: /Volumes/main/sales/checkpoints/orders_quarantine
//! ```
//!
//! `jobs/orders_quality.py`:
//! ```python
//! from databricks.labs.dqx.config import InputConfig, OutputConfig
//!
//! CHECKPOINTS = "/Volumes/main/sales/checkpoints"
//! dq.apply_checks_and_save_in_table(
//!     checks=checks,
//!     input_config=InputConfig(location="main.sales.orders_raw", is_streaming=True),
//!     output_config=OutputConfig(
//!         location="main.sales.orders_py",
//!         options={"checkpointLocation": f"{CHECKPOINTS}/orders_py"},
//!     ),
//!     quarantine_config=OutputConfig(
//!         location="main.sales.orders_py_quarantine",
//!         options={"checkpointLocation": f"{CHECKPOINTS}/orders_py_quarantine"},
//!     ),
//! )
//! ```
//!
//! ## Fix
//! Give every streaming output its own checkpoint location.

use std::collections::HashMap;

use dqlint_project::{FileId, Origin};

use crate::diagnostic::Diagnostic;
use crate::engine::{Context, Findings};
use crate::registry::rule;
use crate::rules::dqx::run_config_files;

pub fn check(ctx: &Context, out: &mut Findings) {
    let me = rule("DQ856");
    let mut first: HashMap<String, (FileId, std::ops::Range<usize>, String)> = HashMap::new();
    for file in run_config_files(ctx) {
        for (index, run) in file.config.runs.iter().enumerate() {
            if !run.input.as_ref().is_some_and(|i| i.is_streaming) {
                continue;
            }
            for io in run.outputs() {
                let Some((location, span)) = &io.checkpoint else {
                    continue;
                };
                let key = location.trim_end_matches('/').to_string();
                let here = format!("`{}` of {}", io.key, file.label(index));
                match first.get(&key) {
                    None => {
                        first.insert(key, (file.id(), span.clone(), here));
                    }
                    Some((at_file, at_span, what)) => out.push(
                        Diagnostic::at(
                            me,
                            file.id(),
                            span.clone(),
                            format!(
                                "checkpoint location `{location}` of {here} is also the checkpoint of {what}: two streams sharing one checkpoint lose data silently"
                            ),
                        )
                        .related(&Origin::new(*at_file, at_span.clone()), "the first use of this checkpoint"),
                    ),
                }
            }
        }
    }
}
