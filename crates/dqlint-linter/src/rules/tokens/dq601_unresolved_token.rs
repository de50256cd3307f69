//! ## What it does
//! Reports a `${token}` (or bare `{token}`) that an environment's
//! `substitutions/<env>.yaml` does not define, naming the environments.
//! Regex quantifiers such as `{8}` in inline SQL count too: LHP treats
//! them as tokens.
//!
//! ## Why is this bad?
//! LHP fails with LHP-CFG-010, but only for the one `--env` it runs with:
//! a token missing from `prod.yaml` surfaces at the production deploy.
//!
//! ## Example (bad)
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
//!       dlq_table: ${catalog}.${ops_schema}.dlq
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
//!   catalog: main
//! ```
//!
//! ## Example (good)
//! `substitutions/dev.yaml`:
//! ```yaml
//! dev:
//!   catalog: main
//!   ops_schema: ops
//! ```
//!
//! ## Fix
//! Define the token in every `substitutions/<env>.yaml` (or in `global`).

use std::collections::HashMap;

use dqlint_project::TokenSyntax;

use crate::diagnostic::Diagnostic;
use crate::engine::{Context, Findings};
use crate::registry::rule;
use crate::tokens::braced_strings;

pub fn check(ctx: &Context, out: &mut Findings) {
    let me = rule("DQ601");
    // Without a substitutions file nothing can be decided (DQ602 says why);
    // with one that does not parse (DQ001 says where), what it defines is
    // unknown: no token is reported undefined from it.
    let envs: Vec<_> = ctx
        .envs
        .iter()
        .filter(|e| e.file.is_some_and(|f| !ctx.project.file(f).is_broken()))
        .collect();
    if envs.is_empty() {
        return;
    }
    // The same few token names recur in every flowgroup: whether each
    // resolves in each environment is decided once.
    let mut unresolved_in: HashMap<String, Vec<usize>> = HashMap::new();
    for strings in braced_strings(ctx) {
        for string in strings {
            for found in &string.tokens {
                let token = &found.token;
                if token.syntax == TokenSyntax::Secret {
                    continue;
                }
                if !unresolved_in.contains_key(&token.name) {
                    let written = format!("${{{}}}", token.name);
                    let missing = (0..envs.len())
                        .filter(|&i| !envs[i].resolve(&written).unresolved.is_empty())
                        .collect();
                    unresolved_in.insert(token.name.clone(), missing);
                }
                let missing = &unresolved_in[&token.name];
                if missing.is_empty() {
                    continue;
                }
                let missing: Vec<_> = missing.iter().map(|&i| envs[i]).collect();
                let at = found.origin(ctx.project);
                let shown = if token.syntax == TokenSyntax::Bare {
                    format!("{{{}}}", token.name)
                } else {
                    format!("${{{}}}", token.name)
                };
                let files: Vec<String> = missing
                    .iter()
                    .filter_map(|env| env.file)
                    .map(|f| format!("`{}`", ctx.project.file(f).rel))
                    .collect();
                let mut d = Diagnostic::new(
                    me,
                    &at,
                    format!(
                        "token `{shown}` is not defined in {} (LHP-CFG-010)",
                        match files.split_last() {
                            Some((last, [])) => last.clone(),
                            Some((last, rest)) => format!("{} or {last}", rest.join(", ")),
                            None => "substitutions".to_string(),
                        }
                    ),
                );
                d.envs = missing.iter().map(|env| env.name.clone()).collect();
                out.push(d);
            }
        }
    }
}
