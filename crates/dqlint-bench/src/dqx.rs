//! Synthetic DQX projects: checks files (YAML and, one in five, JSON) of a
//! dozen checks each by default (any number with [`DqxPlan::checks`]: the
//! dozen shapes again on other columns), over the functions real check
//! files use most, with
//! `for_each_column`, item filters, names and `user_metadata`, and a
//! `.dqx/config.yml` whose run configs name some of them as
//! `checks_location`.
//!
//! A generated project lints clean. With [`DqxPlan::plant_every`] every
//! n-th file gets one known mistake, listed in [`DqxSummary::planted`],
//! each one DQX's own `validate_checks` also rejects or a DQX user could
//! not see (a `filter` inside `check:`), so the benchmark compares like
//! with like.

use std::fmt::Write as _;
use std::path::Path;

use crate::Planted;

/// What to generate.
#[derive(Clone, Debug)]
pub struct DqxPlan {
    pub files: usize,
    /// Plant a mistake in every n-th checks file (`None`: a clean project).
    pub plant_every: Option<usize>,
    /// Checks per file ([`CHECK_SHAPES`] when `None`).
    pub checks: Option<usize>,
}

/// How many checks [`checks_of`] writes: the shapes of one round.
pub const CHECK_SHAPES: usize = 12;

#[derive(Debug, Default)]
pub struct DqxSummary {
    pub checks_files: usize,
    pub checks: usize,
    pub run_configs: usize,
    pub files: usize,
    pub bytes: u64,
    pub planted: Vec<Planted>,
}

const TABLES: [&str; 10] = [
    "orders",
    "customers",
    "payments",
    "shipments",
    "invoices",
    "products",
    "refunds",
    "stores",
    "suppliers",
    "inventory",
];

/// Run configs in `.dqx/config.yml`: one per this many checks files.
const FILES_PER_RUN_CONFIG: usize = 20;

/// One check, as YAML list item text.
struct Check {
    function: &'static str,
    criticality: &'static str,
    name: Option<String>,
    filter: Option<&'static str>,
    /// `(key, YAML value)` pairs, in order.
    arguments: Vec<(&'static str, String)>,
    for_each_column: Option<String>,
    metadata: bool,
}

impl Check {
    /// The same check on other columns (round `r` of the shapes): every
    /// column it names gets the suffix `_r`, and so does its name, so that
    /// no two checks of a file are duplicates or conflicts.
    fn on_round(&self, r: usize) -> Check {
        let rename = |v: &str| -> String {
            match v.strip_prefix('[').and_then(|v| v.strip_suffix(']')) {
                Some(items) => {
                    let items: Vec<String> =
                        items.split(", ").map(|i| format!("{i}_{r}")).collect();
                    format!("[{}]", items.join(", "))
                }
                None => format!("{v}_{r}"),
            }
        };
        let arguments = self
            .arguments
            .iter()
            .map(|(k, v)| {
                let v = match *k {
                    "column" | "columns" | "group_by" => rename(v),
                    "expression" => v.replacen("shipped_at", &format!("shipped_at_{r}"), 1),
                    _ => v.clone(),
                };
                (*k, v)
            })
            .collect();
        Check {
            function: self.function,
            criticality: self.criticality,
            name: self.name.as_ref().map(|n| format!("{n}_{r}")),
            filter: self.filter,
            arguments,
            for_each_column: self.for_each_column.as_deref().map(rename),
            metadata: self.metadata,
        }
    }
}

/// `count` checks for file `n` on table `t`: rounds of [`checks_of`].
fn checks_for(n: usize, t: &str, count: usize) -> Vec<Check> {
    let shapes = checks_of(n, t);
    let rounds: Vec<Check> = (shapes.len()..count)
        .map(|i| shapes[i % shapes.len()].on_round(i / shapes.len()))
        .collect();
    let mut out: Vec<Check> = shapes.into_iter().take(count).collect();
    out.extend(rounds);
    out
}

/// The checks of file `n` on table `t`: the same shapes in every file, the
/// names and values varying.
fn checks_of(n: usize, t: &str) -> Vec<Check> {
    let days = 1 + n % 90;
    vec![
        Check {
            function: "is_not_null",
            criticality: "error",
            name: None,
            filter: None,
            arguments: vec![],
            for_each_column: Some("[id, created_at, updated_at]".into()),
            metadata: false,
        },
        Check {
            function: "is_not_null_and_not_empty",
            criticality: "error",
            name: Some(format!("{t}_{n}_code_present")),
            filter: None,
            arguments: vec![("column", "code".into()), ("trim_strings", "true".into())],
            for_each_column: None,
            metadata: true,
        },
        Check {
            function: "is_in_list",
            criticality: "warn",
            name: None,
            filter: Some("status IS NOT NULL"),
            arguments: vec![
                ("column", "country".into()),
                ("allowed", "[\"'US'\", \"'CA'\", \"'MX'\"]".into()),
            ],
            for_each_column: None,
            metadata: false,
        },
        Check {
            function: "is_in_range",
            criticality: "error",
            name: Some(format!("{t}_{n}_amount_range")),
            filter: None,
            arguments: vec![
                ("column", "amount".into()),
                ("min_limit", "0".into()),
                ("max_limit", format!("{}", 10_000 + n)),
            ],
            for_each_column: None,
            metadata: false,
        },
        Check {
            function: "regex_match",
            criticality: "warn",
            name: None,
            filter: None,
            arguments: vec![
                ("column", "sku".into()),
                ("regex", "'^[A-Z]{3}-[0-9]{4}$'".into()),
            ],
            for_each_column: None,
            metadata: false,
        },
        Check {
            function: "sql_expression",
            criticality: "error",
            name: Some(format!("{t}_{n}_shipped_after_order")),
            filter: None,
            arguments: vec![
                ("expression", "\"shipped_at >= ordered_at\"".into()),
                ("msg", "\"shipped before it was ordered\"".into()),
            ],
            for_each_column: None,
            metadata: false,
        },
        Check {
            function: "is_older_than_n_days",
            criticality: "warn",
            name: None,
            filter: None,
            arguments: vec![("column", "updated_at".into()), ("days", days.to_string())],
            for_each_column: None,
            metadata: false,
        },
        Check {
            function: "is_valid_date",
            criticality: "error",
            name: None,
            filter: None,
            arguments: vec![
                ("column", "order_date".into()),
                ("date_format", "yyyy-MM-dd".into()),
            ],
            for_each_column: None,
            metadata: false,
        },
        Check {
            function: "is_unique",
            criticality: "error",
            name: Some(format!("{t}_{n}_unique_key")),
            filter: None,
            arguments: vec![("columns", "[id, region]".into())],
            for_each_column: None,
            metadata: false,
        },
        Check {
            function: "is_not_less_than",
            criticality: "warn",
            name: None,
            filter: Some("region = 'EU'"),
            arguments: vec![("column", "quantity".into()), ("limit", "1".into())],
            for_each_column: None,
            metadata: false,
        },
        Check {
            function: "is_valid_ipv4_address",
            criticality: "warn",
            name: None,
            filter: None,
            arguments: vec![("column", "client_ip".into())],
            for_each_column: None,
            metadata: false,
        },
        Check {
            function: "is_aggr_not_greater_than",
            criticality: "error",
            name: Some(format!("{t}_{n}_daily_volume")),
            filter: None,
            arguments: vec![
                ("column", "id".into()),
                ("aggr_type", "count".into()),
                ("group_by", "[order_date]".into()),
                ("limit", "1000000".into()),
            ],
            for_each_column: None,
            metadata: false,
        },
    ]
}

fn yaml(checks: &[Check]) -> String {
    let mut out = String::new();
    for c in checks {
        writeln!(out, "- criticality: {}", c.criticality).unwrap();
        if let Some(name) = &c.name {
            writeln!(out, "  name: {name}").unwrap();
        }
        if let Some(filter) = c.filter {
            writeln!(out, "  filter: \"{filter}\"").unwrap();
        }
        writeln!(out, "  check:\n    function: {}", c.function).unwrap();
        if let Some(columns) = &c.for_each_column {
            writeln!(out, "    for_each_column: {columns}").unwrap();
        }
        if !c.arguments.is_empty() {
            out.push_str("    arguments:\n");
            for (k, v) in &c.arguments {
                writeln!(out, "      {k}: {v}").unwrap();
            }
        }
        if c.metadata {
            out.push_str("  user_metadata:\n    owner: data-platform\n    tier: \"1\"\n");
        }
    }
    out
}

/// A YAML flow value of the generator as JSON.
fn json_value(v: &str) -> String {
    let v = v.trim();
    if let Some(inner) = v.strip_prefix('[').and_then(|s| s.strip_suffix(']')) {
        let items: Vec<String> = inner.split(", ").map(json_value).collect();
        return format!("[{}]", items.join(", "));
    }
    if v.parse::<i64>().is_ok() || v == "true" || v == "false" {
        return v.to_string();
    }
    if let Some(s) = v.strip_prefix('"').and_then(|s| s.strip_suffix('"')) {
        return format!("\"{}\"", s.replace('\\', "\\\\"));
    }
    if let Some(s) = v.strip_prefix('\'').and_then(|s| s.strip_suffix('\'')) {
        return format!("\"{s}\"");
    }
    format!("\"{v}\"")
}

fn json(checks: &[Check]) -> String {
    let items: Vec<String> = checks
        .iter()
        .map(|c| {
            let mut check = format!("\"function\": \"{}\"", c.function);
            if let Some(columns) = &c.for_each_column {
                write!(check, ", \"for_each_column\": {}", json_value(columns)).unwrap();
            }
            if !c.arguments.is_empty() {
                let args: Vec<String> = c
                    .arguments
                    .iter()
                    .map(|(k, v)| format!("\"{k}\": {}", json_value(v)))
                    .collect();
                write!(check, ", \"arguments\": {{{}}}", args.join(", ")).unwrap();
            }
            let mut item = format!("  {{\"criticality\": \"{}\"", c.criticality);
            if let Some(name) = &c.name {
                write!(item, ", \"name\": \"{name}\"").unwrap();
            }
            if let Some(filter) = c.filter {
                write!(
                    item,
                    ", \"filter\": {}",
                    json_value(&format!("\"{filter}\""))
                )
                .unwrap();
            }
            write!(item, ", \"check\": {{{check}}}").unwrap();
            if c.metadata {
                item.push_str(
                    ", \"user_metadata\": {\"owner\": \"data-platform\", \"tier\": \"1\"}",
                );
            }
            item.push('}');
            item
        })
        .collect();
    format!("[\n{}\n]\n", items.join(",\n"))
}

/// Plants mistake number `k` into the checks; returns its rule.
fn plant(k: usize, checks: &mut [Check]) -> &'static str {
    match k % 4 {
        0 => {
            // A string for an int: validate_checks rejects the check.
            checks[6].arguments[1].1 = "\"30\"".into();
            "DQ813"
        }
        1 => {
            // An unknown function: validate_checks rejects it.
            checks[10].function = "is_valid_ipv4";
            "DQ810"
        }
        2 => {
            // A required argument missing: validate_checks rejects it.
            checks[3].arguments.retain(|(k, _)| *k != "column");
            "DQ811"
        }
        _ => {
            // Not in a list for a `columns` function: validate_checks rejects it.
            checks[8].arguments[0].1 = "id".into();
            "DQ813"
        }
    }
}

/// Writes the project into `root` (created if missing).
pub fn generate_dqx(plan: &DqxPlan, root: &Path) -> std::io::Result<DqxSummary> {
    let mut summary = DqxSummary::default();
    let write = |rel: &str, text: &str, summary: &mut DqxSummary| -> std::io::Result<()> {
        let path = root.join(rel);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)?;
        }
        std::fs::write(path, text)?;
        summary.files += 1;
        summary.bytes += text.len() as u64;
        Ok(())
    };
    std::fs::create_dir_all(root)?;
    let mut config = String::from("version: 1\nrun_configs:\n");
    let mut planted = 0;
    for n in 0..plan.files {
        let table = TABLES[n % TABLES.len()];
        let domain = format!("domain_{:03}", n / 100);
        let mut checks = checks_for(n, table, plan.checks.unwrap_or(CHECK_SHAPES));
        let code = plan
            .plant_every
            .is_some_and(|every| n % every == every - 1)
            .then(|| {
                planted += 1;
                plant(planted - 1, &mut checks)
            });
        let json_file = n % 5 == 4;
        let rel = format!(
            "quality/{domain}/{table}_{n:05}.{}",
            if json_file { "json" } else { "yml" }
        );
        let text = if json_file {
            json(&checks)
        } else {
            yaml(&checks)
        };
        summary.checks_files += 1;
        summary.checks += checks.len();
        write(&rel, &text, &mut summary)?;
        if let Some(code) = code {
            summary.planted.push(Planted {
                code,
                file: rel.clone(),
            });
        }
        if n % FILES_PER_RUN_CONFIG == 0 {
            summary.run_configs += 1;
            write!(
                config,
                "  - name: {table}_{n:05}\n    input_config:\n      location: main.bronze.{table}_{n:05}\n    output_config:\n      location: main.silver.{table}_{n:05}\n      mode: append\n    quarantine_config:\n      location: main.quarantine.{table}_{n:05}\n      mode: append\n    checks_location: ../{rel}\n"
            )
            .unwrap();
        }
    }
    write(".dqx/config.yml", &config, &mut summary)?;
    Ok(summary)
}
