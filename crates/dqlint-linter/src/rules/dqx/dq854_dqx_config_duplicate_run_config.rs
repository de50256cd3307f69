//! ## What it does
//! Reports a run config whose name an earlier run config of the same file
//! already has (a run config without `name` is named `default`).
//!
//! ## Why is this bad?
//! DQX looks a run config up by name and takes the first: the later one
//! never runs, silently.
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
//!   - name: orders
//!     input_config:
//!       location: main.sales_eu.orders
//!     output_config:
//!       location: main.sales_eu.orders_valid
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
//!   - name: orders_eu
//!     input_config:
//!       location: main.sales_eu.orders
//!     output_config:
//!       location: main.sales_eu.orders_valid
//! ```
//!
//! ## Fix
//! Give each run config its own name.

use std::collections::HashMap;

use dqlint_project::Origin;

use crate::diagnostic::Diagnostic;
use crate::engine::{Context, Findings};
use crate::registry::rule;
use crate::rules::dqx::run_config_files;

pub fn check(ctx: &Context, out: &mut Findings) {
    let me = rule("DQ854");
    for file in run_config_files(ctx) {
        let mut first: HashMap<&str, &dqlint_dqx::run_config::Run> = HashMap::new();
        for run in file.config.runs.iter().filter(|_| file.python.is_none()) {
            let Some(earlier) = first.get(run.name.as_str()) else {
                first.insert(&run.name, run);
                continue;
            };
            let unnamed = if run.name_written {
                ""
            } else {
                " (it has no `name`, so it is `default`)"
            };
            out.push(
                Diagnostic::at(
                    me,
                    file.id(),
                    run.name_span.clone(),
                    format!(
                        "a second run config named `{}`{unnamed}: DQX takes the first of that name, so this one never runs",
                        run.name
                    ),
                )
                .related(
                    &Origin::new(file.id(), earlier.name_span.clone()),
                    "the run config DQX uses",
                ),
            );
        }
    }
}
