//! ## What it does
//! Reports a run config whose `quarantine_config` writes to the location
//! of its `output_config` (table names compared without backticks and
//! case, paths without a trailing slash).
//!
//! ## Why is this bad?
//! Valid and failing rows land in one table again: the split DQX made is
//! lost, and nothing downstream can tell them apart but the result
//! columns.
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
//!     quarantine_config:
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
//!     quarantine_config=OutputConfig(location="main.sales.orders_py_valid"),
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
//!     quarantine_config:
//!       location: main.sales.orders_quarantine
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
//!     quarantine_config=OutputConfig(location="main.sales.orders_py_quarantine"),
//! )
//! ```
//!
//! ## Fix
//! Write the quarantine to its own table.

use dqlint_project::Origin;

use crate::diagnostic::Diagnostic;
use crate::engine::{Context, Findings};
use crate::registry::rule;
use crate::rules::dqx::run_config_files;

fn normalized(location: &str) -> String {
    if location.starts_with('/') || location.contains(":/") {
        location.trim_end_matches('/').to_string()
    } else {
        location.replace('`', "").to_ascii_lowercase()
    }
}

pub fn check(ctx: &Context, out: &mut Findings) {
    let me = rule("DQ859");
    for file in run_config_files(ctx) {
        for (index, run) in file.config.runs.iter().enumerate() {
            let (Some(output), Some(quarantine)) = (&run.output, &run.quarantine) else {
                continue;
            };
            let (Some((o, o_span)), Some((q, q_span))) = (&output.location, &quarantine.location)
            else {
                continue;
            };
            if o.is_empty() || normalized(o) != normalized(q) {
                continue;
            }
            out.push(
                Diagnostic::at(
                    me,
                    file.id(),
                    q_span.clone(),
                    format!(
                        "{} writes its quarantine to its output `{o}`: valid and failing rows end up in one table",
                        file.label(index)
                    ),
                )
                .related(&Origin::new(file.id(), o_span.clone()), "the output location"),
            );
        }
    }
}
