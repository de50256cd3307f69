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
//! ## Fix
//! Add an `output_config` (and a `quarantine_config` to split off the
//! failing rows).

use crate::diagnostic::Diagnostic;
use crate::engine::{Context, Findings};
use crate::registry::rule;
use crate::rules::dqx::run_config_files;

pub fn check(ctx: &Context, out: &mut Findings) {
    let me = rule("DQ855");
    for file in run_config_files(ctx) {
        for run in &file.config.runs {
            let Some(input) = &run.input else { continue };
            if run.outputs().next().is_some() {
                continue;
            }
            out.push(Diagnostic::at(
                me,
                file.id(),
                input.key_span.clone(),
                format!(
                    "run config `{}` reads an input but has no output_config, quarantine_config or metrics_config: DQX refuses to run it",
                    run.name
                ),
            ));
        }
    }
}
