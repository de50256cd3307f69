//! `dqlint policy`: the coverage view of team policies. Per dataset of
//! every dialect: its kinds with their actions, the policies that select
//! it and what they miss, and its circuit breaker; as a table or JSON
//! (docs/policy.md, "The coverage view").

use dqlint_linter::rules::policy::{
    breaker_state, datasets, kind_summary, policies_of, requirements, Status,
};
use dqlint_linter::{Config, Context};
use dqlint_project::{Dialect, Project};
use serde_json::{json, Value};

fn dialect_name(dialect: Dialect) -> &'static str {
    match dialect {
        Dialect::Lhp => "lhp",
        Dialect::DqxChecks | Dialect::DqxRunConfig => "dqx",
        Dialect::PipelinePython => "pipeline-python",
        Dialect::PipelineSql => "pipeline-sql",
    }
}

/// One dataset's row, as JSON (the table is rendered from it).
fn rows(project: &Project, config: &Config) -> Vec<Value> {
    let mut ctx = Context::with_dqx(project, &config.dqx);
    ctx.dlt = config.dlt.clone();
    ctx.team_policy = config.team_policy.clone();
    let mut out = Vec::new();
    for dataset in datasets(&ctx) {
        if dataset.auxiliary {
            continue;
        }
        let file = project.file(dataset.site.file);
        let line = dqlint_yaml::LineIndex::new(&file.text)
            .position(&file.text, dataset.site.span.start)
            .line;
        let kinds: Vec<Value> = kind_summary(dataset)
            .into_iter()
            .map(|(kind, actions, columns)| {
                json!({ "kind": kind.name(), "actions": actions, "columns": columns })
            })
            .collect();
        let policies: Vec<Value> = policies_of(&ctx, dataset)
            .into_iter()
            .map(|(_, policy)| {
                let reqs = requirements(policy, dataset);
                let of = |want: fn(&Status) -> bool| -> Vec<String> {
                    reqs.iter()
                        .filter(|r| want(&r.status))
                        .map(|r| r.describe())
                        .collect()
                };
                json!({
                    "line": policy.line,
                    "missing": of(|s| matches!(s, Status::Missing)),
                    "below_min_action": of(|s| matches!(s, Status::BelowMinAction(_))),
                })
            })
            .collect();
        out.push(json!({
            "dataset": dataset.label,
            "names": dataset.names.iter().map(|n| n.name.replace(dqlint_linter::config::UNKNOWN_NAME_PART, "*")).collect::<Vec<_>>(),
            "dialect": dialect_name(dataset.dialect),
            "file": file.rel,
            "line": line,
            "kinds": kinds,
            "quarantine": dataset.has_quarantine,
            "policies": policies,
            "breaker": breaker_state(&ctx, dataset).text(),
        }));
    }
    out
}

/// The view as one JSON document.
pub fn json_report(project: &Project, config: &Config) -> Value {
    json!({ "version": 1, "datasets": rows(project, config) })
}

/// The view as a table: one dataset a line.
pub fn table(project: &Project, config: &Config) -> String {
    let rows = rows(project, config);
    let cell = |row: &Value| -> [String; 5] {
        let kinds: Vec<String> = row["kinds"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|k| {
                let actions: Vec<&str> = k["actions"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .filter_map(Value::as_str)
                    .collect();
                format!(
                    "{}({})",
                    k["kind"].as_str().unwrap_or(""),
                    actions.join(",")
                )
            })
            .collect();
        let policy: Vec<String> = row["policies"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|p| {
                let list = |key: &str| -> Vec<String> {
                    p[key]
                        .as_array()
                        .into_iter()
                        .flatten()
                        .filter_map(Value::as_str)
                        .map(str::to_string)
                        .collect()
                };
                let (missing, weak) = (list("missing"), list("below_min_action"));
                if missing.is_empty() && weak.is_empty() {
                    "ok".to_string()
                } else {
                    let mut parts = Vec::new();
                    if !missing.is_empty() {
                        parts.push(format!("missing {}", missing.join(", ")));
                    }
                    if !weak.is_empty() {
                        parts.push(format!("too weak {}", weak.join(", ")));
                    }
                    parts.join("; ")
                }
            })
            .collect();
        [
            row["dataset"].as_str().unwrap_or("").to_string(),
            format!(
                "{}:{}",
                row["file"].as_str().unwrap_or(""),
                row["line"].as_u64().unwrap_or(0)
            ),
            if kinds.is_empty() {
                "-".into()
            } else {
                kinds.join(" ")
            },
            if policy.is_empty() {
                "-".into()
            } else {
                policy.join(" | ")
            },
            row["breaker"].as_str().unwrap_or("-").to_string(),
        ]
    };
    let header = [
        "dataset".to_string(),
        "where".to_string(),
        "kinds(actions)".to_string(),
        "policy".to_string(),
        "breaker".to_string(),
    ];
    let cells: Vec<[String; 5]> = std::iter::once(header)
        .chain(rows.iter().map(cell))
        .collect();
    let widths: Vec<usize> = (0..5)
        .map(|i| {
            cells
                .iter()
                .map(|c| c[i].chars().count())
                .max()
                .unwrap_or(0)
        })
        .collect();
    let mut out = String::new();
    for c in &cells {
        let line: Vec<String> = (0..5)
            .map(|i| format!("{:<w$}", c[i], w = widths[i]))
            .collect();
        out.push_str(line.join("  ").trim_end());
        out.push('\n');
    }
    out
}
