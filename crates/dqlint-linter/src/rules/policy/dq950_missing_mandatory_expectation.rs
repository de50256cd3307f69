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
//! (DQX `is_unique`; in pipelines and LHP, an aggregate view or
//! materialized view over the dataset grouped by the key, with an
//! expectation that a group counts one row, `SELECT id, count(*) AS n
//! FROM t GROUP BY id` expecting `n = 1`; `unique = "external"` in the
//! policy when uniqueness is enforced elsewhere). A `unique` rule on
//! several columns covers none of them alone.
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
//! columns = { not_null = ["order_id"], range = ["amount"] }
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
//!
//! An unsafe fix (`--fix --unsafe-fixes`, or the editor's code action)
//! writes a template of each missing rule into the dataset's rules: a
//! rule appended to its YAML LHP expectations file or DQX checks file, or
//! a decorator above a Python dataset, at the entry's `min_action`. It is
//! offered when the entry lists the column of every missing kind:
//! `c IS NOT NULL` (DQX `is_not_null`), `c >= 0` (DQX
//! `is_not_less_than` with limit 0; the bound is a placeholder to
//! review), DQX `is_unique` (row expectations cannot check uniqueness, so
//! LHP and pipeline datasets get no unique template); DQX has no
//! criticality that fails the run, so a `fail` entry gets no DQX
//! template. It is unsafe: it drops or fails rows that pass today.

use crate::config::{MandatoryKind, MandatoryPolicy, MinAction};
use crate::diagnostic::{Applicability, Diagnostic, Edit, Fix};
use crate::engine::{Context, Findings};
use crate::registry::rule;
use crate::rules::policy::{
    datasets, policies_of, requirements, selected_envs, Requirement, RulesHome, Status,
};

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
            let missing: Vec<&Requirement> = requirements
                .iter()
                .filter(|r| matches!(r.status, Status::Missing))
                .collect();
            if let Some(home) = &dataset.rules_home {
                d.fix = template_fix(ctx, home, policy, &missing);
            }
            out.push(d);
        }
    }
}

/// A template of each missing rule, written where the dataset's rules
/// are; `None` unless every one has a template there.
fn template_fix(
    ctx: &Context,
    home: &RulesHome,
    policy: &MandatoryPolicy,
    missing: &[&Requirement],
) -> Option<Fix> {
    let mut text = String::new();
    let (file, at) = match home {
        RulesHome::LhpExpectations { file, keyed } => {
            let action = policy.min_action.name();
            for r in missing {
                let (name, sql) = sql_template(r)?;
                text.push_str(&match keyed {
                    true => format!("{sql}:\n  action: {action}\n  name: {name}\n"),
                    false => format!("- name: {name}\n  constraint: {sql}\n  action: {action}\n"),
                });
            }
            (*file, end_of(ctx, *file))
        }
        RulesHome::DqxChecks(file) => {
            // No DQX criticality fails the run: a `fail` policy has no
            // DQX template that meets it.
            let criticality = match policy.min_action {
                MinAction::Warn => "warn",
                MinAction::Drop => "error",
                MinAction::Fail => return None,
            };
            for r in missing {
                let column = r.column.as_deref()?;
                let check = match r.kind {
                    MandatoryKind::NotNull => {
                        format!("    function: is_not_null\n    arguments:\n      column: {column}\n")
                    }
                    MandatoryKind::Range => format!(
                        "    function: is_not_less_than\n    arguments:\n      column: {column}\n      limit: 0\n"
                    ),
                    MandatoryKind::Unique => format!(
                        "    function: is_unique\n    arguments:\n      columns:\n        - {column}\n"
                    ),
                };
                text.push_str(&format!(
                    "- name: {column}_{}\n  criticality: {criticality}\n  check:\n{check}",
                    r.kind.name()
                ));
            }
            (*file, end_of(ctx, *file))
        }
        RulesHome::Decorator {
            file,
            at,
            indent,
            module,
        } => {
            let decorator = match policy.min_action {
                MinAction::Warn => "expect",
                MinAction::Drop => "expect_or_drop",
                MinAction::Fail => "expect_or_fail",
            };
            for r in missing {
                let (name, sql) = sql_template(r)?;
                text.push_str(&format!(
                    "{indent}@{module}.{decorator}(\"{name}\", \"{sql}\")\n"
                ));
            }
            (*file, *at)
        }
    };
    let (at, text) = match home {
        RulesHome::Decorator { .. } => (at, text),
        // Appended on a line of its own.
        _ => {
            let source = &ctx.project.file(file).text;
            match source.ends_with('\n') || source.is_empty() {
                true => (at, text),
                false => (at, format!("\n{text}")),
            }
        }
    };
    let described: Vec<String> = missing.iter().map(|r| r.describe()).collect();
    Some(Fix {
        applicability: Applicability::Unsafe,
        description: format!("Add a template rule for {}", described.join(", ")),
        edits: vec![Edit {
            file,
            span: at..at,
            new_text: text,
        }],
    })
}

/// The name and SQL of a row rule of the requirement's kind on its
/// column (`unique` has none: row expectations cannot check it).
fn sql_template(r: &Requirement) -> Option<(String, String)> {
    let column = r.column.as_deref()?;
    match r.kind {
        MandatoryKind::NotNull => Some((
            format!("{column}_not_null"),
            format!("{column} IS NOT NULL"),
        )),
        MandatoryKind::Range => Some((format!("{column}_in_range"), format!("{column} >= 0"))),
        MandatoryKind::Unique => None,
    }
}

fn end_of(ctx: &Context, file: dqlint_project::FileId) -> usize {
    ctx.project.file(file).text.len()
}
