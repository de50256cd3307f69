//! ## What it does
//! Reports the `location` of a run config's input, output, quarantine,
//! metrics or reference table that is neither a 2- or 3-part table name
//! (`schema.table`, `catalog.schema.table`; each part letters, digits and
//! `_`, or backticked) nor a path starting with `/`, `s3:/`, `abfss:/` or
//! `gs:/`: `orders`, `a.b.c.d`, `dbfs:/x`, an empty string.
//!
//! ## Why is this bad?
//! DQX checks the location only when the run reads or writes it: the run
//! fails then ("Invalid input location", "Invalid output location"),
//! after the checks have been computed.
//!
//! ## Example (bad)
//! `.dqx/config.yml`:
//! ```yaml
//! run_configs:
//!   - name: orders
//!     input_config:
//!       location: main.sales.orders
//!     output_config:
//!       location: orders_valid
//! ```
//!
//! `jobs/orders_quality.py`:
//! ```python
//! from databricks.labs.dqx.config import InputConfig, OutputConfig
//!
//! dq.apply_checks_and_save_in_table(
//!     checks=checks,
//!     input_config=InputConfig(location="main.sales.orders_py"),
//!     output_config=OutputConfig(location="orders_py_valid"),
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
//! Qualify the table name (`catalog.schema.table`), or give a path DQX
//! accepts (`/Volumes/...`, `s3://...`, `abfss://...`, `gs://...`).

use crate::diagnostic::Diagnostic;
use crate::engine::{Context, Findings};
use crate::registry::rule;
use crate::rules::dqx::run_config_files;

pub fn check(ctx: &Context, out: &mut Findings) {
    let me = rule("DQ853");
    for file in run_config_files(ctx) {
        for (index, run) in file.config.runs.iter().enumerate() {
            let ios = run
                .input
                .iter()
                .chain(run.outputs())
                .chain(&run.reference_tables);
            for io in ios {
                let Some((location, span)) = &io.location else {
                    continue;
                };
                if dqlint_dqx::run_config::is_valid_location(location) {
                    continue;
                }
                let message = if location.is_empty() {
                    format!(
                        "the location of `{}` in {} is empty: the DQX run fails when it reads or writes it",
                        io.key, file.label(index)
                    )
                } else {
                    let hint = match dqlint_dqx::run_config::table_parts(location) {
                        Some(parts) if parts.len() == 1 => {
                            " (qualify it: `schema.table` or `catalog.schema.table`)"
                        }
                        Some(parts) if parts.len() > 3 => " (a table name has at most 3 parts)",
                        _ if location.starts_with("dbfs:") => {
                            " (DQX accepts a path starting with `/`, not `dbfs:`)"
                        }
                        _ => "",
                    };
                    format!(
                        "location `{location}` of `{}` in {} is neither a 2- or 3-part table name nor a path starting with /, s3:/, abfss:/ or gs:/{hint}: the DQX run fails when it reads or writes it",
                        io.key, file.label(index)
                    )
                };
                out.push(Diagnostic::at(me, file.id(), span.clone(), message));
            }
        }
    }
}
