//! ## What it does
//! Reports a key of a DQX run config that no field of DQX's configuration
//! has (`quarantine_table`, `checks_file`, `checkpoint_location` beside
//! `location`), at any level: the file, a run config, an input or output
//! config, the profiler, anomaly, extra-parameter and LLM configs. With a
//! did-you-mean. The keys inside `options`, `trigger`, `reference_tables`
//! and the other free-form mappings are not checked. An inline `checks`
//! list beside an explicit `checks_location` is DQ860's.
//!
//! ## Why is this bad?
//! DQX's loader ignores unknown keys without a word: a misspelt
//! `quarantine_table` leaves the run without a quarantine.
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
//!     quarantine_table: main.sales.orders_quarantine
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
//! Use the field's name. When the key is a misspelling of a field the
//! mapping lacks, an unsafe fix renames it (unsafe: the value then takes
//! effect).

use crate::diagnostic::{Applicability, Diagnostic, Edit, Fix};
use crate::engine::{Context, Findings};
use crate::registry::rule;
use crate::rules::dqx::{closest, run_config_files};

pub fn check(ctx: &Context, out: &mut Findings) {
    let me = rule("DQ852");
    for file in run_config_files(ctx) {
        for key in &file.config.unknown {
            let run = file
                .config
                .runs
                .iter()
                .find(|r| r.inline_checks.as_ref() == Some(&key.span));
            if let Some(run) = run {
                if run.checks_location.is_some() {
                    continue;
                }
                out.push(Diagnostic::at(
                    me,
                    file.id(),
                    key.span.clone(),
                    format!(
                        "a DQX run config has no inline `checks`: DQX ignores this list and reads the checks from `checks_location` (here the default, `{}`)",
                        run.effective_checks_location()
                    ),
                ));
                continue;
            }
            // Names that are not misspellings of the field they mean.
            let hint = match (key.key.as_str(), key.within) {
                ("quarantine_table" | "quarantine", "RunConfig") => Some("quarantine_config"),
                ("output_table" | "output", "RunConfig") => Some("output_config"),
                ("input_table" | "input", "RunConfig") => Some("input_config"),
                ("metrics_table" | "metrics", "RunConfig") => Some("metrics_config"),
                ("checks_file" | "checks_path" | "checks_table", "RunConfig") => {
                    Some("checks_location")
                }
                ("table" | "path", "InputConfig" | "OutputConfig") => Some("location"),
                ("streaming" | "isStreaming", "InputConfig") => Some("is_streaming"),
                _ => None,
            };
            let checkpoint = matches!(
                key.key.as_str(),
                "checkpointLocation" | "checkpoint_location" | "checkpoint"
            ) && key.within == "OutputConfig";
            let typo = closest(&key.key, key.fields.iter().copied());
            let meant = hint.or(typo);
            let message = if checkpoint {
                format!(
                    "DQX ignores `{}` here: a checkpoint location is an option of the output (`options: {{checkpointLocation: ...}}`)",
                    key.key
                )
            } else {
                format!(
                    "DQX ignores the unknown key `{}` of a {}{}",
                    key.key,
                    key.within,
                    meant
                        .map(|m| format!(" (did you mean `{m}`?)"))
                        .unwrap_or_default()
                )
            };
            let mut d = Diagnostic::at(me, file.id(), key.span.clone(), message);
            let target_absent = |m: &str| !key.siblings.iter().any(|k| k == m);
            if let Some(m) = typo.filter(|m| hint.is_none() && !checkpoint && target_absent(m)) {
                d = d.fix(Fix {
                    description: format!("Rename `{}` to `{m}`", key.key),
                    applicability: Applicability::Unsafe,
                    edits: vec![Edit {
                        file: file.id(),
                        span: key.span.clone(),
                        new_text: m.to_string(),
                    }],
                });
            }
            out.push(d);
        }
    }
}
