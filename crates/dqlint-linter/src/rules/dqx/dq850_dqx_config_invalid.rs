//! ## What it does
//! Reports a DQX run config (`config.yml`) that DQX does not load, or
//! whose run configs cannot run: `run_configs` missing, not a list, empty,
//! or with an item that is not a mapping; a run config whose input or
//! output has a required value blueprint cannot read at the top level;
//! `version` other than 1; `partition_by` and `cluster_by` both set on
//! one output; an `llm_config.model` limit DQX refuses.
//!
//! ## Why is this bad?
//! DQX's loader raises (`SerdeError`, `IllegalState`,
//! `InvalidParameterError`) and no run of this installation starts; an
//! empty `run_configs` fails every run with "No run configurations
//! available".
//!
//! As DQX 0.17.0 does (observed with its loader): `version` compares as a
//! number, so `1.0` is accepted and `"1"` is not; an input or output
//! without `location` does not fail the load but is dropped (DQ851).
//!
//! ## Example (bad)
//! `.dqx/config.yml`:
//! ```yaml
//! version: 2
//! run_configs:
//!   - name: orders
//!     input_config:
//!       location: main.sales.orders
//!     output_config:
//!       location: main.sales.orders_valid
//! ```
//!
//! ## Example (good)
//! `.dqx/config.yml`:
//! ```yaml
//! version: 1
//! run_configs:
//!   - name: orders
//!     input_config:
//!       location: main.sales.orders
//!     output_config:
//!       location: main.sales.orders_valid
//! ```
//!
//! ## Fix
//! Write `version: 1` (or leave it out), a list of run configs under
//! `run_configs`, and one of `partition_by` / `cluster_by`.

use crate::diagnostic::Diagnostic;
use crate::engine::{Context, Findings};
use crate::registry::rule;
use crate::rules::dqx::run_config_files;

pub fn check(ctx: &Context, out: &mut Findings) {
    let me = rule("DQ850");
    for file in run_config_files(ctx) {
        for issue in &file.config.invalid {
            out.push(Diagnostic::at(
                me,
                file.id(),
                issue.span.clone(),
                issue.message.clone(),
            ));
        }
    }
}
