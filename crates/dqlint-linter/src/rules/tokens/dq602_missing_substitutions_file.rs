//! ## What it does
//! Reports an environment requested with `--env` (or in `dqlint.toml`)
//! that has no `substitutions/<env>.yaml`.
//!
//! ## Why is this bad?
//! LHP never says so (its LHP-IO-006 is dead code): a typo'd environment
//! just resolves nothing, and fails later with unresolved tokens or passes
//! silently.
//!
//! ## Example (bad)
//! Linted with `--env dev --env prd`.
//!
//! `pipelines/bronze/orders.yaml`:
//! ```yaml
//! pipeline: bronze
//! flowgroup: orders
//! actions:
//!   - name: load_orders
//!     type: load
//!     readMode: stream
//!     source:
//!       type: cloudfiles
//!       path: /Volumes/main/landing/orders
//!       format: json
//!     target: v_orders_raw
//!   - name: orders_dq
//!     type: transform
//!     transform_type: data_quality
//!     source: v_orders_raw
//!     target: v_orders
//!     expectations_file: expectations/orders.yaml
//!     mode: quarantine
//!     quarantine:
//!       dlq_table: ${catalog}.ops.dlq
//!       source_table: ${catalog}.bronze.orders
//! ```
//!
//! `expectations/orders.yaml`:
//! ```yaml
//! order_id IS NOT NULL:
//!   action: drop
//!   name: valid_order_id
//! ```
//!
//! `substitutions/dev.yaml`:
//! ```yaml
//! dev:
//!   catalog: main_dev
//! ```
//!
//! `substitutions/prod.yaml`:
//! ```yaml
//! prod:
//!   catalog: main_prod
//! ```
//!
//! ## Example (good)
//! Linted with `--env dev --env prod`.
//!
//! ## Fix
//! Use an existing environment name, or create `substitutions/<env>.yaml`.

use dqlint_project::FileKind;

use crate::diagnostic::Diagnostic;
use crate::engine::{Context, Findings};
use crate::registry::rule;

pub fn check(ctx: &Context, out: &mut Findings) {
    let me = rule("DQ602");
    let Some(lhp) = ctx.project.project_config() else {
        return;
    };
    let existing: Vec<String> = ctx
        .project
        .files
        .iter()
        .filter(|f| f.kind == FileKind::Substitutions)
        .filter_map(|f| {
            std::path::Path::new(&f.rel)
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
        })
        .collect();
    for env in &ctx.project.missing_envs {
        let known = if existing.is_empty() {
            "there is no substitutions file at all".to_string()
        } else {
            format!("existing: {}", existing.join(", "))
        };
        out.push(Diagnostic::at(me, lhp.id, 0..0, format!(
            "environment `{env}` has no `substitutions/{env}.yaml` ({known}); no token resolves in it"
        )).env(env));
    }
}
