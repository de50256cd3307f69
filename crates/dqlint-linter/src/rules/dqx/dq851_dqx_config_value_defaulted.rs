//! ## What it does
//! Reports a value of a DQX run config that DQX's loader (blueprint)
//! cannot read as its field's type and silently replaces by the field's
//! default: `quarantine_config: "cat.sch.t"` (a string where a mapping
//! belongs: no quarantine at all), `is_streaming: "yes"` (`false`),
//! `partition_by: day` (`[]`), an `options` mapping with a nested value
//! (every option dropped, `checkpointLocation` included), a reference
//! table without `location` (every reference table dropped), `limit: 1.5`
//! for an integer. The strings `"true"`/`"false"` (any case) for a
//! boolean, numbers in strings for numbers, and any scalar for a string
//! are read, so they are not reported.
//!
//! ## Why is this bad?
//! Nothing says the value was replaced: the run goes on with the default,
//! for instance writing failing rows to the output table with the valid
//! ones because the quarantine config is gone.
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
//!     quarantine_config: main.sales.orders_quarantine
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
//! ## Fix
//! Give the value the type its field has: a mapping with `location` for
//! an input or output config, `true`/`false` for a flag, a list for
//! `partition_by`/`cluster_by`, strings for `options`.

use crate::diagnostic::Diagnostic;
use crate::engine::{Context, Findings};
use crate::registry::rule;
use crate::rules::dqx::run_config_files;

pub fn check(ctx: &Context, out: &mut Findings) {
    let me = rule("DQ851");
    for file in run_config_files(ctx) {
        for d in &file.config.defaulted {
            let field = d.field.rsplit('.').next().unwrap_or(&d.field);
            // The path without list indices, as the user reads it.
            let shown: Vec<&str> = d
                .field
                .split('.')
                .filter(|p| !p.bytes().all(|b| b.is_ascii_digit()))
                .skip_while(|p| *p == "run_configs" && d.field != "run_configs")
                .collect();
            out.push(Diagnostic::at(
                me,
                file.id(),
                d.span.clone(),
                format!(
                    "DQX's loader cannot read `{}` ({}) and silently uses its default `{}`{}",
                    shown.join("."),
                    d.why,
                    d.default,
                    consequence(field)
                ),
            ));
        }
    }
}

fn consequence(field: &str) -> &'static str {
    match field {
        "quarantine_config" => {
            ": this run has no quarantine, failing rows are written to the output with the valid ones"
        }
        "output_config" => ": this run writes no output",
        "input_config" => ": this run has no input",
        "metrics_config" => ": this run writes no metrics",
        "is_streaming" => ": the input is read as a batch",
        "options" => ": every option is dropped, `checkpointLocation` included",
        "trigger" => ": the stream runs with the default trigger",
        "reference_tables" => ": every reference table is dropped",
        "partition_by" => ": the table is not partitioned",
        "cluster_by" => ": the table is not clustered",
        "name" => ": the run config is named `default`",
        "checks_location" => ": DQX reads the checks from `checks.yml`",
        _ => "",
    }
}
