//! ## What it does
//! Reports a run config that gives both an inline `checks` list and a
//! `checks_location`.
//!
//! ## Why is this bad?
//! Two sources of truth for one run's checks. DQX's `RunConfig` has no
//! `checks` field: its loader ignores the inline list and the run applies
//! only the checks at `checks_location`, so edits to the inline list
//! never take effect.
//!
//! Note: `dqx.md` speaks of inline checks in a run config; DQX 0.17.0's
//! `config.yml` has no such field (its oracle shows `checks` dropped as
//! an unknown key). An inline list without `checks_location` is reported
//! by DQ852, saying that DQX reads the default `checks.yml` instead.
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
//!     checks_location: checks/orders.yml
//!     checks:
//!       - criticality: error
//!         check:
//!           function: is_not_null
//!           arguments:
//!             column: order_id
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
//!     checks_location: checks/orders.yml
//! ```
//!
//! ## Fix
//! Keep the checks in the file `checks_location` names, and remove the
//! inline list.

use dqlint_project::Origin;

use crate::diagnostic::Diagnostic;
use crate::engine::{Context, Findings};
use crate::registry::rule;
use crate::rules::dqx::run_config_files;

pub fn check(ctx: &Context, out: &mut Findings) {
    let me = rule("DQ860");
    for file in run_config_files(ctx) {
        for (index, run) in file.config.runs.iter().enumerate() {
            if let Some((checks, location)) = file
                .api_run(index)
                .and_then(|a| a.checks_and_location.clone())
            {
                out.push(
                    Diagnostic::at(
                        me,
                        file.id(),
                        checks,
                        format!(
                            "{} gives `checks` and a `checks_location`: DQX applies the `checks` given and uses the location only to report where they came from; pick one source of truth",
                            file.label(index)
                        ),
                    )
                    .related(&Origin::new(file.id(), location), "the checks_location DQX does not read"),
                );
                continue;
            }
            let (Some(inline), Some((location, location_span))) =
                (&run.inline_checks, &run.checks_location)
            else {
                continue;
            };
            out.push(
                Diagnostic::at(
                    me,
                    file.id(),
                    inline.clone(),
                    format!(
                        "{} has inline `checks` and a `checks_location`: DQX ignores the inline list and applies only the checks at `{location}`",
                        file.label(index)
                    ),
                )
                .related(&Origin::new(file.id(), location_span.clone()), "where DQX reads the checks"),
            );
        }
    }
}
