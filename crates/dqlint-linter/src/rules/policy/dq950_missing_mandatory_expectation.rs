//! ## What it does
//! Reports a dataset that a `[[policy.mandatory]]` entry of `dqlint.toml`
//! selects (by name glob or table properties) and that lacks one of the
//! entry's `kinds`, or lacks it on one of the entry's `columns`. The
//! datasets are those of every dialect: an LHP data_quality action (named
//! by the write target it feeds, in each environment), a DQX run (its
//! input and output tables, with the checks file it reads), a pipeline
//! dataset (its name and `table_properties`). The message lists the kinds
//! present and the ones missing. Without `[policy]`, it reports nothing.
//!
//! Kinds are classified statically (`dqlint policy` shows them, hover
//! shows a rule's): `not_null` (`c IS NOT NULL`, `NOT (c IS NULL)`,
//! `isnotnull(c)` as a top-level conjunct; DQX `is_not_null*`), `range`
//! (a column compared with a literal, `c BETWEEN 1 AND 5`; DQX
//! `is_in_range`, `is_not_less_than`, `is_not_greater_than`), `unique`
//! (DQX `is_unique`; `unique = "external"` in the policy when uniqueness
//! is enforced elsewhere).
//!
//! ## Why is this bad?
//! A team that requires every silver table to reject null keys, duplicate
//! keys and out-of-range values enforces it by hand in unit tests today
//! (seed 004); a table added without them passes every test that was not
//! written for it, and bad rows reach the consumers.
//!
//! ## Example (bad)
//! `dqlint.toml`:
//! ```toml
//! [[policy.mandatory]]
//! datasets = ["*.silver.*"]
//! kinds = ["not_null", "range"]
//! columns = { not_null = ["order_id"] }
//! ```
//!
//! `substitutions/dev.yaml`:
//! ```yaml
//! dev:
//!   catalog: acme_dev
//! ```
//!
//! `pipelines/silver/orders.yaml`:
//! ```yaml
//! pipeline: silver
//! flowgroup: orders
//! actions:
//!   - name: load_orders
//!     type: load
//!     readMode: stream
//!     source:
//!       type: delta
//!       database: ${catalog}.bronze
//!       table: orders
//!     target: v_orders_raw
//!   - name: validate_orders
//!     type: transform
//!     transform_type: data_quality
//!     source: v_orders_raw
//!     target: v_orders_validated
//!     expectations_file: expectations/orders.yaml
//!   - name: write_orders
//!     type: write
//!     source: v_orders_validated
//!     write_target:
//!       type: streaming_table
//!       catalog: ${catalog}
//!       schema: silver
//!       table: orders
//! ```
//!
//! `expectations/orders.yaml`:
//! ```yaml
//! order_id IS NOT NULL:
//!   action: fail
//!   name: valid_order_id
//! ```
//!
//! ## Example (good)
//! `expectations/orders.yaml`:
//! ```yaml
//! order_id IS NOT NULL:
//!   action: fail
//!   name: valid_order_id
//! amount >= 0:
//!   action: drop
//!   name: valid_amount
//! ```
//!
//! ## Fix
//! Add a rule of each missing kind (on each listed column) that drops or
//! fails rows: to the LHP expectations file, the DQX checks file, or as an
//! `expect_or_drop` / `expect_or_fail` decorator or `CONSTRAINT ... ON
//! VIOLATION` clause of the pipeline dataset.

use crate::diagnostic::Diagnostic;
use crate::engine::{Context, Findings};
use crate::registry::rule;
use crate::rules::policy::{datasets, policies_of, requirements, selected_envs, Status};

pub fn check(ctx: &Context, out: &mut Findings) {
    if ctx.team_policy.mandatory.is_empty() {
        return;
    }
    let me = rule("DQ950");
    for dataset in datasets(ctx) {
        for (_, policy) in policies_of(ctx, dataset) {
            let requirements = requirements(policy, dataset);
            let missing: Vec<String> = requirements
                .iter()
                .filter(|r| matches!(r.status, Status::Missing))
                .map(|r| r.describe())
                .collect();
            if missing.is_empty() {
                continue;
            }
            let present: Vec<String> = requirements
                .iter()
                .filter(|r| !matches!(r.status, Status::Missing))
                .map(|r| r.describe())
                .collect();
            let present = match present.as_slice() {
                [] => "none of them".to_string(),
                list => list.join(", "),
            };
            let mut d = Diagnostic::at(
                me,
                dataset.site.file,
                dataset.site.span.clone(),
                format!(
                    "`{}` lacks the mandatory {} ({}:{}); present: {present}",
                    dataset.label,
                    missing.join(", "),
                    crate::config::FILE_NAME,
                    policy.line
                ),
            );
            d.envs = selected_envs(policy, dataset);
            out.push(d);
        }
    }
}
