//! ## What it does
//! Reports an environment requested with `--env` (or in `dqlint.toml`)
//! that has no `substitutions/<env>.yaml`. One listed in `envs` of
//! `dqlint.toml` is reported at its name there; one given with `--env`,
//! at `lhp.yaml`.
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
    let config = ctx.project.envs_from.map(|id| ctx.project.file(id));
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
        let (file, span) = match config.and_then(|c| listed_at(&c.text, env).map(|s| (c.id, s))) {
            Some(at) => at,
            None => (lhp.id, 0..0),
        };
        out.push(Diagnostic::at(me, file, span, format!(
            "environment `{env}` has no `substitutions/{env}.yaml` ({known}); no token resolves in it"
        )).env(env));
    }
}

/// Where `env` is named (inside its quotes) in the `envs = [...]` array of
/// a `dqlint.toml`'s text; `None` when the text does not spell it so.
fn listed_at(text: &str, env: &str) -> Option<std::ops::Range<usize>> {
    let mut offset = 0;
    let mut array = None;
    for line in text.split_inclusive('\n') {
        let key = line.trim_start();
        if let Some(rest) = key.strip_prefix("envs") {
            if rest.trim_start().starts_with('=') {
                array = Some(offset + line.len() - key.len());
                break;
            }
        }
        offset += line.len();
    }
    let from = array?;
    let after = &text[from..];
    // The array ends at the first `]` outside a string; TOML environment
    // names hold no `]`, so the first one will do.
    let end = after.find(']').map_or(after.len(), |i| i + 1);
    let mut best: Option<usize> = None;
    for quote in ['"', '\''] {
        let needle = format!("{quote}{env}{quote}");
        let mut search = 0;
        while let Some(i) = after[search..end].find(&needle) {
            let at = search + i;
            // Not inside a comment of the array's lines.
            let line_start = after[..at].rfind('\n').map_or(0, |n| n + 1);
            if !after[line_start..at].contains('#') {
                best = Some(best.map_or(at, |b: usize| b.min(at)));
                break;
            }
            search = at + 1;
        }
    }
    best.map(|at| from + at + 1..from + at + 1 + env.len())
}

#[cfg(test)]
mod tests {
    use super::listed_at;

    #[test]
    fn finds_the_name_inside_the_envs_array() {
        let text = "# \"staging\" is new\nselect = [\"staging\"]\nenvs = [\"dev\", 'staging']\n";
        let span = listed_at(text, "staging").unwrap();
        assert_eq!(&text[span.clone()], "staging");
        assert!(text[..span.start].ends_with("\"dev\", '"));
        let multi = "envs = [\n  \"dev\", # not \"prd\"\n  \"prd\",\n]\n";
        let span = listed_at(multi, "prd").unwrap();
        assert_eq!(&multi[span.start - 3..span.start], "  \"");
        assert_eq!(listed_at("envs = [\"dev\"]\n", "prd"), None);
        assert_eq!(listed_at("select = [\"prd\"]\n", "prd"), None);
    }
}
