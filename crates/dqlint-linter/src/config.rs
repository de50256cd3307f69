//! `dqlint.toml`: the project's configuration (see README, "Configuration",
//! and `docs/dqlint.schema.json`).
//!
//! ```toml
//! select = ["DQ1", "DQ2", "DQ4"]     # codes, code prefixes or names
//! ignore = ["DQ402"]
//! envs = ["dev", "prod"]             # environments to check
//! ddl = ["sql/**/*.sql"]             # the .sql files dqlint reads
//!
//! [severity]
//! DQ403 = "error"
//!
//! [sql]
//! udfs = ["is_valid_sku"]            # functions the project registers
//!
//! [[overrides]]
//! files = ["pipelines/legacy/**"]
//! ignore = ["DQ105"]
//!
//! [dqx]                              # DQX checks files and run configs
//! version = "0.17.0"
//! checks = ["quality/**/*.yml"]
//!
//! [dlt]                              # pipeline sources (Python, SQL)
//! runtime = "databricks"             # or "oss-spark"
//! quarantine_names = ["*quarantine*", "*_dlq", "*_rejected"]
//! ```
//!
//! Every mistake in the file is an error with its line and column: a typo
//! in a key or a rule code must not silently turn a check off.

use std::collections::BTreeMap;
use std::ops::Range;
use std::path::{Path, PathBuf};

use globset::{GlobBuilder, GlobSet, GlobSetBuilder};
use serde::Deserialize;
use toml::Spanned;

use crate::diagnostic::Severity;
use crate::registry::{RuleMeta, RULES};

/// The file looked for at the project root.
pub const FILE_NAME: &str = "dqlint.toml";
/// Top-level keys, in the order the README documents them.
pub const TOP_LEVEL_KEYS: &[&str] = &[
    "select",
    "ignore",
    "envs",
    "ddl",
    "severity",
    "sql",
    "overrides",
    "dqx",
    "dlt",
];
/// Keys of the `[sql]` table.
pub const SQL_KEYS: &[&str] = &["udfs"];
/// Keys of the `[dqx]` table.
pub const DQX_KEYS: &[&str] = &[
    "version",
    "extras",
    "custom_functions",
    "variables",
    "dbr",
    "checks",
    "configs",
    "schemas",
];
/// Keys of the `[dlt]` table.
pub const DLT_KEYS: &[&str] = &["runtime", "quarantine_names", "rule_loaders"];
/// The values of `[dlt] runtime`.
pub const DLT_RUNTIMES: &[&str] = &["databricks", "oss-spark"];
/// The default `[dlt] quarantine_names`.
pub const DEFAULT_QUARANTINE_NAMES: &[&str] = &["*quarantine*", "*_dlq", "*_rejected"];
/// Keys of an `[[overrides]]` entry.
pub const OVERRIDE_KEYS: &[&str] = &["files", "select", "ignore", "severity"];
/// The values of a `[severity]` entry.
pub const SEVERITY_NAMES: &[&str] = &["error", "warning", "info"];

/// A rule selector: a code (`DQ207`), a code prefix (`DQ2`) or a name
/// (`quarantine-coerces-action`), as `--select` takes them.
pub fn selector_matches(selector: &str, rule: &RuleMeta) -> bool {
    let p = selector.trim();
    !p.is_empty()
        && (rule.code.eq_ignore_ascii_case(p)
            || rule.name == p
            || rule
                .code
                .to_ascii_uppercase()
                .starts_with(&p.to_ascii_uppercase()))
}

/// Whether a selector names at least one rule.
pub fn is_known_selector(selector: &str) -> bool {
    RULES.iter().any(|r| selector_matches(selector, r))
}

/// How specific a selector is for a rule it matches: an exact code or name
/// beats a prefix, a longer prefix beats a shorter one.
fn specificity(selector: &str, rule: &RuleMeta) -> usize {
    let p = selector.trim();
    if rule.code.eq_ignore_ascii_case(p) || rule.name == p {
        usize::MAX
    } else {
        p.len()
    }
}

/// A loaded `dqlint.toml` (or the defaults when there is none).
#[derive(Clone, Debug, Default)]
pub struct Config {
    /// Where it was read from; `None` for the defaults.
    pub path: Option<PathBuf>,
    /// `None`: every rule.
    pub select: Option<Vec<String>>,
    pub ignore: Vec<String>,
    /// `None`: every `substitutions/*.yaml`.
    pub envs: Option<Vec<String>>,
    /// `None`: every `.sql` file under the root.
    pub ddl: Option<Vec<String>>,
    /// Severity per selector.
    pub severity: Vec<(String, Severity)>,
    /// `[sql] udfs`: functions the project registers (`spark.udf.register`,
    /// a session function), lower case; DQ306 leaves calls of them alone.
    pub udfs: Vec<String>,
    pub overrides: Vec<Override>,
    /// The `[dqx]` table.
    pub dqx: DqxConfig,
    /// The `[dlt]` table.
    pub dlt: DltConfig,
}

/// `[dlt]`: how pipeline sources are read and checked (`spec/dlt.md`).
#[derive(Clone, Debug, PartialEq)]
pub struct DltConfig {
    /// The runtime the pipelines run on.
    pub runtime: DltRuntime,
    /// Globs on dataset names (lower case) that make a dataset a
    /// quarantine table.
    pub quarantine_names: Vec<String>,
    /// Functions that return rules from a registry (`get_rules`).
    pub rule_loaders: Vec<String>,
}

impl Default for DltConfig {
    fn default() -> DltConfig {
        DltConfig {
            runtime: DltRuntime::Databricks,
            quarantine_names: DEFAULT_QUARANTINE_NAMES
                .iter()
                .map(|s| s.to_string())
                .collect(),
            rule_loaders: Vec::new(),
        }
    }
}

impl DltConfig {
    /// Whether a dataset name (unqualified or qualified: its last part
    /// counts) is a quarantine table's by `quarantine_names`.
    pub fn is_quarantine_name(&self, name: &str) -> bool {
        let last = name.rsplit('.').next().unwrap_or(name).to_ascii_lowercase();
        let last = last.trim_matches('`');
        self.quarantine_names
            .iter()
            .any(|pattern| wildcard_match(&pattern.to_ascii_lowercase(), last))
    }
}

/// `*` matches any run of characters, `?` one; nothing else is special.
fn wildcard_match(pattern: &str, text: &str) -> bool {
    let (p, t): (Vec<char>, Vec<char>) = (pattern.chars().collect(), text.chars().collect());
    let (mut pi, mut ti, mut star, mut mark) = (0, 0, None, 0);
    while ti < t.len() {
        if pi < p.len() && (p[pi] == '?' || p[pi] == t[ti]) {
            pi += 1;
            ti += 1;
        } else if pi < p.len() && p[pi] == '*' {
            star = Some(pi);
            mark = ti;
            pi += 1;
        } else if let Some(s) = star {
            pi = s + 1;
            mark += 1;
            ti = mark;
        } else {
            return false;
        }
    }
    p[pi..].iter().all(|c| *c == '*')
}

/// `[dlt] runtime`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DltRuntime {
    /// Lakeflow Declarative Pipelines on Databricks (the default).
    Databricks,
    /// Apache Spark 4.x `pyspark.pipelines`: no expectations, no `APPLY CHANGES`.
    OssSpark,
}

/// `[dqx]`: how DQX checks files and run configs are read and checked.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct DqxConfig {
    /// Whether the file has a `[dqx]` table at all.
    pub present: bool,
    /// The catalogue checked against (`0.16.0` or `0.17.0`); `None`: the default.
    pub version: Option<String>,
    /// Optional DQX modules whose functions exist (`pii`, `anomaly`).
    pub extras: Vec<String>,
    /// Custom check functions: name -> parameters (`name` required,
    /// `name=default` optional).
    pub custom_functions: Vec<(String, Vec<String>)>,
    /// `{{ name }}` substitutions, as DQX stringifies them (`str(value)`).
    pub variables: BTreeMap<String, String>,
    /// The target Databricks Runtime (`16.4`), for DQ826.
    pub dbr: Option<String>,
    /// Globs of files read as checks files whatever their content.
    pub checks: Vec<String>,
    /// Globs of files read as run configs whatever their content.
    pub configs: Vec<String>,
    /// Glob -> the table schema its checks run on (DQ827).
    pub schemas: Vec<DqxSchema>,
}

/// One `[dqx.schemas]` entry: the checks files it applies to and the
/// columns of its Spark DDL schema string.
#[derive(Clone, Debug, PartialEq)]
pub struct DqxSchema {
    pub files: String,
    pub ddl: String,
    /// Column names, as written (backticks removed).
    pub columns: Vec<String>,
}

impl DqxConfig {
    /// The schema of the checks file at project-relative `rel`: the last
    /// matching entry.
    pub fn schema_for(&self, rel: &str) -> Option<&DqxSchema> {
        self.schemas
            .iter()
            .rev()
            .find(|s| glob_matches(&s.files, rel))
    }
}

/// The columns of a Spark DDL schema string (`id BIGINT, name STRING`,
/// `STRUCT<...>` and `DECIMAL(10,2)` types, backticked names, `NOT NULL`
/// and `COMMENT '...'`), or why it does not read as one.
pub fn ddl_columns(ddl: &str) -> Result<Vec<String>, String> {
    let mut columns = Vec::new();
    let mut depth = 0i32;
    let mut quote: Option<char> = None;
    let mut start = 0;
    let mut parts = Vec::new();
    for (i, c) in ddl.char_indices() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), _) => {}
            (None, '\'' | '"' | '`') => quote = Some(c),
            (None, '<' | '(') => depth += 1,
            (None, '>' | ')') => depth -= 1,
            (None, ',') if depth == 0 => {
                parts.push(&ddl[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    if quote.is_some() || depth != 0 {
        return Err("unbalanced quotes, brackets or parentheses".into());
    }
    parts.push(&ddl[start..]);
    for part in parts {
        let part = part.trim();
        if part.is_empty() {
            return Err("an empty column (two commas, or a trailing one)".into());
        }
        let (name, rest) = match part.strip_prefix('`') {
            Some(after) => match after.find('`') {
                Some(end) => (after[..end].to_string(), &after[end + 1..]),
                None => return Err(format!("`{part}`: unclosed backtick")),
            },
            None => match part.split_once(|c: char| c.is_whitespace() || c == ':') {
                Some((name, rest)) => (name.to_string(), rest),
                None => (part.to_string(), ""),
            },
        };
        let rest = rest.trim_start().trim_start_matches(':').trim();
        if rest.is_empty() {
            return Err(format!("column `{name}` has no type"));
        }
        columns.push(name);
    }
    Ok(columns)
}

/// An `[[overrides]]` entry: settings for the findings whose primary
/// location is in one of `files`.
#[derive(Clone, Debug)]
pub struct Override {
    pub files: Vec<String>,
    matcher: GlobSet,
    /// Rules turned on in these files (even if the top level ignores them).
    pub select: Vec<String>,
    /// Rules turned off in these files.
    pub ignore: Vec<String>,
    pub severity: Vec<(String, Severity)>,
}

impl Override {
    /// Whether a project-relative path (with `/`) is one of `files`.
    pub fn applies_to(&self, rel: &str) -> bool {
        self.matcher.is_match(rel)
    }
}

/// Why a configuration cannot be used (exit code 2): what and where.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConfigError {
    /// The file as the user knows it (relative to the current folder when
    /// it is under it).
    pub file: String,
    /// 1-based line and column (in characters), when the mistake has a place.
    pub position: Option<(u32, u32)>,
    pub message: String,
}

impl std::fmt::Display for ConfigError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.position {
            Some((line, column)) => write!(f, "{}:{line}:{column}: {}", self.file, self.message),
            None => write!(f, "{}: {}", self.file, self.message),
        }
    }
}

impl std::error::Error for ConfigError {}

/// Whether a `files` / `ddl` pattern matches a project-relative path.
pub fn glob_matches(pattern: &str, rel: &str) -> bool {
    compile_glob(pattern).is_ok_and(|g| g.compile_matcher().is_match(rel))
}

/// A glob of `files` / `ddl`: `*` stays inside one folder, `**` crosses
/// folders, and a pattern without `/` matches the file name anywhere (as in
/// `.gitignore`).
pub fn compile_glob(pattern: &str) -> Result<globset::Glob, String> {
    let trimmed = pattern.trim_start_matches("./");
    let full = if trimmed.contains('/') {
        trimmed.to_string()
    } else {
        format!("**/{trimmed}")
    };
    GlobBuilder::new(&full)
        .literal_separator(true)
        .build()
        .map_err(|e| {
            let kind = e.kind().to_string();
            format!("`{pattern}` is not a valid glob: {kind}")
        })
}

impl Config {
    /// The configuration of the project at `root`: `explicit` (`--config`)
    /// if given, else `<root>/dqlint.toml` if it exists, else the defaults.
    pub fn discover(root: &Path, explicit: Option<&Path>) -> Result<Config, ConfigError> {
        Config::discover_with(root, explicit, |_| None)
    }

    /// As [`Config::discover`], reading the text through `overlay` first
    /// (the language server's open buffers).
    pub fn discover_with(
        root: &Path,
        explicit: Option<&Path>,
        overlay: impl Fn(&Path) -> Option<String>,
    ) -> Result<Config, ConfigError> {
        let (path, required) = match explicit {
            Some(p) => (p.to_path_buf(), true),
            None => (root.join(FILE_NAME), false),
        };
        let text = match overlay(&path) {
            Some(text) => text,
            None => {
                if !required && !path.exists() {
                    return Ok(Config::default());
                }
                match std::fs::read_to_string(&path) {
                    Ok(text) => text,
                    Err(e) => {
                        let reason = if path.is_dir() {
                            "it is a folder, not a file".to_string()
                        } else {
                            e.to_string()
                        };
                        return Err(ConfigError {
                            file: display_path(&path),
                            position: None,
                            message: format!("cannot read the configuration: {reason}"),
                        });
                    }
                }
            }
        };
        Config::parse(&text, &path)
    }

    /// Parses the text of a `dqlint.toml` read from `path`.
    pub fn parse(text: &str, path: &Path) -> Result<Config, ConfigError> {
        let error = |span: Option<Range<usize>>, message: String| ConfigError {
            file: display_path(path),
            position: span.map(|s| position(text, s.start)),
            message,
        };
        let raw: RawConfig = toml::from_str(text)
            .map_err(|e| error(e.span(), humanize(e.message(), TOP_LEVEL_KEYS)))?;
        let mut config = Config {
            path: Some(path.to_path_buf()),
            ..Config::default()
        };
        if raw.select.as_ref().is_some_and(|l| l.is_empty()) {
            // Where the top-level `select` is: before the first table.
            let mut offset = 0;
            let mut at = None;
            for line in text.split_inclusive('\n') {
                let t = line.trim_start();
                if t.starts_with('[') {
                    break;
                }
                if t.strip_prefix("select")
                    .is_some_and(|r| r.trim_start().starts_with('='))
                {
                    at = Some(offset + line.len() - t.len());
                    break;
                }
                offset += line.len();
            }
            return Err(error(
                at.map(|a| a..a),
                "`select = []` selects no rule, so nothing would be linted; remove it to run every rule, or name the rules to run".into(),
            ));
        }
        config.select = raw
            .select
            .map(|list| selectors(list, "select"))
            .transpose()
            .map_err(|(s, m)| error(Some(s), m))?;
        config.ignore = raw
            .ignore
            .map(|list| selectors(list, "ignore"))
            .transpose()
            .map_err(|(s, m)| error(Some(s), m))?
            .unwrap_or_default();
        config.severity = raw
            .severity
            .map(severities)
            .transpose()
            .map_err(|(s, m)| error(Some(s), m))?
            .unwrap_or_default();
        if let Some(envs) = raw.envs {
            let mut names = Vec::new();
            for env in envs {
                let name = env.get_ref().trim();
                if name.is_empty() || name.contains(['/', '\\']) {
                    return Err(error(Some(env.span()), format!("`{name}` is not an environment name (the stem of a substitutions/<env>.yaml file)")));
                }
                names.push(name.to_string());
            }
            config.envs = Some(names);
        }
        if let Some(ddl) = raw.ddl {
            let mut patterns = Vec::new();
            for glob in ddl {
                compile_glob(glob.get_ref()).map_err(|m| error(Some(glob.span()), m))?;
                patterns.push(glob.into_inner());
            }
            config.ddl = Some(patterns);
        }
        if let Some(sql) = raw.sql {
            for name in sql.udfs.unwrap_or_default() {
                let text = name.get_ref().trim();
                let simple = text
                    .chars()
                    .next()
                    .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
                    && text.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
                if !simple {
                    return Err(error(
                        Some(name.span()),
                        format!("`{text}` is not a function name: list the one-part name a rule calls (a qualified `catalog.schema.fn` call is never reported)"),
                    ));
                }
                config.udfs.push(text.to_ascii_lowercase());
            }
        }
        if let Some(dqx) = raw.dqx {
            config.dqx = dqx_config(dqx).map_err(|(s, m)| error(Some(s), m))?;
        }
        if let Some(dlt) = raw.dlt {
            config.dlt = dlt_config(dlt).map_err(|(s, m)| error(Some(s), m))?;
        }
        for entry in raw.overrides.unwrap_or_default() {
            let at = entry.span();
            let entry = entry.into_inner();
            let Some(files) = entry.files else {
                return Err(error(
                    Some(at),
                    "an [[overrides]] entry needs `files = [globs]`: the files it applies to"
                        .into(),
                ));
            };
            if files.get_ref().is_empty() {
                return Err(error(
                    Some(files.span()),
                    "`files` is empty: this override would apply to no file".into(),
                ));
            }
            let mut builder = GlobSetBuilder::new();
            let mut patterns = Vec::new();
            for glob in files.into_inner() {
                builder.add(compile_glob(glob.get_ref()).map_err(|m| error(Some(glob.span()), m))?);
                patterns.push(glob.into_inner());
            }
            let matcher = builder.build().map_err(|e| error(None, e.to_string()))?;
            config.overrides.push(Override {
                files: patterns,
                matcher,
                select: entry
                    .select
                    .map(|l| selectors(l, "select"))
                    .transpose()
                    .map_err(|(s, m)| error(Some(s), m))?
                    .unwrap_or_default(),
                ignore: entry
                    .ignore
                    .map(|l| selectors(l, "ignore"))
                    .transpose()
                    .map_err(|(s, m)| error(Some(s), m))?
                    .unwrap_or_default(),
                severity: entry
                    .severity
                    .map(severities)
                    .transpose()
                    .map_err(|(s, m)| error(Some(s), m))?
                    .unwrap_or_default(),
            });
        }
        Ok(config)
    }

    /// What to load: `--env` values win over `envs`; `ddl` picks the
    /// `.sql` files.
    pub fn load_options(&self, cli_envs: &[String]) -> dqlint_project::LoadOptions {
        let (envs, envs_from) = match (&self.envs, cli_envs.is_empty()) {
            (Some(envs), true) => (envs.clone(), self.path.clone()),
            (None, true) => (Vec::new(), None),
            (_, false) => (cli_envs.to_vec(), None),
        };
        let ddl = self.ddl.as_ref().map(|patterns| {
            let mut builder = GlobSetBuilder::new();
            for p in patterns {
                // Validated by `parse`.
                if let Ok(glob) = compile_glob(p) {
                    builder.add(glob);
                }
            }
            builder.build().unwrap_or_else(|_| GlobSet::empty())
        });
        let globs = |patterns: &[String]| {
            (!patterns.is_empty()).then(|| {
                let mut builder = GlobSetBuilder::new();
                for p in patterns {
                    if let Ok(glob) = compile_glob(p) {
                        builder.add(glob);
                    }
                }
                builder.build().unwrap_or_else(|_| GlobSet::empty())
            })
        };
        dqlint_project::LoadOptions {
            envs,
            ddl,
            envs_from,
            dqx_checks: globs(&self.dqx.checks),
            dqx_configs: globs(&self.dqx.configs),
            ..Default::default()
        }
    }

    /// The severity configured for `rule` in the file `rel`, if any: the
    /// most specific selector wins; overrides beat the top level, later
    /// overrides beat earlier ones.
    pub fn severity_for(&self, rule: &RuleMeta, rel: &str) -> Option<Severity> {
        let pick = |entries: &[(String, Severity)]| {
            entries
                .iter()
                .filter(|(s, _)| selector_matches(s, rule))
                .max_by_key(|(s, _)| specificity(s, rule))
                .map(|(_, sev)| *sev)
        };
        let mut chosen = pick(&self.severity);
        for o in self.overrides.iter().filter(|o| o.applies_to(rel)) {
            chosen = pick(&o.severity).or(chosen);
        }
        chosen
    }
}

/// Where a path is shown in messages: relative to the current folder when
/// under it, as given otherwise.
fn display_path(path: &Path) -> String {
    let shown = std::env::current_dir()
        .ok()
        .and_then(|cwd| path.strip_prefix(&cwd).ok().map(Path::to_path_buf))
        .unwrap_or_else(|| path.to_path_buf());
    shown.display().to_string()
}

fn position(text: &str, offset: usize) -> (u32, u32) {
    let p = dqlint_yaml::LineIndex::new(text).position(text, offset);
    (p.line, p.column)
}

/// serde's wording ("unknown field", "unknown variant") in the words of
/// this file ("key"), with a did-you-mean.
fn humanize(message: &str, keys: &[&str]) -> String {
    let message = message.trim();
    if let Some(rest) = message.strip_prefix("unknown field `") {
        let name = rest.split('`').next().unwrap_or_default();
        let expected = rest
            .split_once(", expected ")
            .map(|(_, e)| e.to_string())
            .unwrap_or_else(|| {
                keys.iter()
                    .map(|k| format!("`{k}`"))
                    .collect::<Vec<_>>()
                    .join(", ")
            });
        let candidates: Vec<&str> = expected.split('`').skip(1).step_by(2).collect();
        let suggestion = candidates
            .iter()
            .filter(|k| strsim::jaro_winkler(k, name) > 0.8)
            .max_by(|a, b| strsim::jaro_winkler(a, name).total_cmp(&strsim::jaro_winkler(b, name)))
            .map(|k| format!("; did you mean `{k}`?"))
            .unwrap_or_default();
        let expected = expected.trim_start_matches("one of ");
        if !candidates.contains(&name) && TOP_LEVEL_KEYS.contains(&name) {
            return format!("`{name}` applies to the whole project: set it at the top level, not in [[overrides]] (expected one of {expected})");
        }
        return format!("unknown key `{name}` (expected one of {expected}){suggestion}");
    }
    message.to_string()
}

type Located<T> = Result<T, (Range<usize>, String)>;

fn selectors(list: Vec<Spanned<String>>, key: &str) -> Located<Vec<String>> {
    list.into_iter()
        .map(|s| {
            let text = s.get_ref().trim();
            if is_known_selector(text) {
                Ok(text.to_string())
            } else {
                Err((s.span(), unknown_rule_message(text, key)))
            }
        })
        .collect()
}

fn unknown_rule_message(text: &str, key: &str) -> String {
    let near = RULES
        .iter()
        .flat_map(|r| [r.code, r.name])
        .filter(|c| {
            strsim::jaro_winkler(&c.to_ascii_lowercase(), &text.to_ascii_lowercase()) > 0.85
        })
        .max_by(|a, b| {
            let t = text.to_ascii_lowercase();
            strsim::jaro_winkler(&a.to_ascii_lowercase(), &t)
                .total_cmp(&strsim::jaro_winkler(&b.to_ascii_lowercase(), &t))
        })
        .map(|c| format!("; did you mean `{c}`?"))
        .unwrap_or_default();
    format!(
        "`{text}` in `{key}` matches no rule code, code prefix or name (see `dqlint rule`){near}"
    )
}

fn severities(
    table: BTreeMap<Spanned<String>, Spanned<String>>,
) -> Located<Vec<(String, Severity)>> {
    let mut entries: Vec<_> = table.into_iter().collect();
    // Report the first mistake in file order.
    entries.sort_by_key(|(k, _)| k.span().start);
    entries
        .into_iter()
        .map(|(selector, value)| {
            let name = selector.get_ref().trim();
            if !is_known_selector(name) {
                return Err((selector.span(), unknown_rule_message(name, "severity")));
            }
            let severity = match value.get_ref().as_str() {
                "error" => Severity::Error,
                "warning" => Severity::Warning,
                "info" => Severity::Info,
                other => {
                    return Err((
                        value.span(),
                        format!(
                            "`{other}` is not a severity (expected `error`, `warning` or `info`)"
                        ),
                    ))
                }
            };
            Ok((name.to_string(), severity))
        })
        .collect()
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawConfig {
    select: Option<Vec<Spanned<String>>>,
    ignore: Option<Vec<Spanned<String>>>,
    envs: Option<Vec<Spanned<String>>>,
    ddl: Option<Vec<Spanned<String>>>,
    severity: Option<BTreeMap<Spanned<String>, Spanned<String>>>,
    sql: Option<RawSql>,
    overrides: Option<Vec<Spanned<RawOverride>>>,
    dqx: Option<RawDqx>,
    dlt: Option<RawDlt>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawDlt {
    runtime: Option<Spanned<String>>,
    quarantine_names: Option<Vec<Spanned<String>>>,
    rule_loaders: Option<Vec<Spanned<String>>>,
}

fn dlt_config(raw: RawDlt) -> Located<DltConfig> {
    let mut out = DltConfig::default();
    if let Some(runtime) = raw.runtime {
        out.runtime = match runtime.get_ref().trim() {
            "databricks" => DltRuntime::Databricks,
            "oss-spark" => DltRuntime::OssSpark,
            other => {
                return Err((
                    runtime.span(),
                    format!(
                    "`{other}` is not a pipeline runtime (expected `databricks` or `oss-spark`)"
                ),
                ))
            }
        };
    }
    if let Some(names) = raw.quarantine_names {
        out.quarantine_names.clear();
        for name in names {
            let text = name.get_ref().trim();
            if text.is_empty() {
                return Err((
                    name.span(),
                    "an empty quarantine name pattern matches no dataset".into(),
                ));
            }
            out.quarantine_names.push(text.to_string());
        }
    }
    for loader in raw.rule_loaders.unwrap_or_default() {
        let text = loader.get_ref().trim();
        let dotted = !text.is_empty() && text.split('.').all(is_identifier);
        if !dotted {
            return Err((
                loader.span(),
                format!(
                    "`{text}` is not a Python function name (`get_rules`, `registry.load_rules`)"
                ),
            ));
        }
        out.rule_loaders.push(text.to_string());
    }
    Ok(out)
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawDqx {
    version: Option<Spanned<String>>,
    extras: Option<Vec<Spanned<String>>>,
    custom_functions: Option<BTreeMap<Spanned<String>, Vec<Spanned<String>>>>,
    variables: Option<BTreeMap<Spanned<String>, Spanned<toml::Value>>>,
    dbr: Option<Spanned<String>>,
    checks: Option<Vec<Spanned<String>>>,
    configs: Option<Vec<Spanned<String>>>,
    schemas: Option<BTreeMap<Spanned<String>, Spanned<String>>>,
}

/// A Python identifier, as a check function or parameter name must be.
fn is_identifier(name: &str) -> bool {
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// Python's `str(value)` of a TOML scalar, as DQX substitutes it.
fn python_str(value: &toml::Value) -> Option<String> {
    Some(match value {
        toml::Value::String(s) => s.clone(),
        toml::Value::Integer(i) => i.to_string(),
        toml::Value::Float(f) if f.is_finite() && f.fract() == 0.0 && f.abs() < 1e16 => {
            format!("{f:.1}")
        }
        toml::Value::Float(f) => f.to_string(),
        toml::Value::Boolean(true) => "True".into(),
        toml::Value::Boolean(false) => "False".into(),
        toml::Value::Datetime(d) => d.to_string().replace('T', " "),
        toml::Value::Array(_) | toml::Value::Table(_) => return None,
    })
}

fn dqx_config(raw: RawDqx) -> Located<DqxConfig> {
    let mut out = DqxConfig {
        present: true,
        ..DqxConfig::default()
    };
    if let Some(version) = raw.version {
        let v = version.get_ref().trim();
        if !dqlint_dqx::catalogue::VERSIONS.contains(&v) {
            let known: Vec<String> = dqlint_dqx::catalogue::VERSIONS
                .iter()
                .map(|v| format!("`{v}`"))
                .collect();
            return Err((
                version.span(),
                format!(
                    "`{v}` is not a DQX version dqlint has the function catalogue of (expected {})",
                    known.join(" or ")
                ),
            ));
        }
        out.version = Some(v.to_string());
    }
    for extra in raw.extras.unwrap_or_default() {
        let name = extra.get_ref().trim();
        if dqlint_dqx::Extra::parse(name).is_none() {
            let near = ["pii", "anomaly"]
                .into_iter()
                .find(|k| strsim::jaro_winkler(k, &name.to_ascii_lowercase()) > 0.8)
                .map(|k| format!("; did you mean `{k}`?"))
                .unwrap_or_default();
            return Err((
                extra.span(),
                format!("`{name}` is not a DQX extra (expected `pii` or `anomaly`){near}"),
            ));
        }
        out.extras.push(name.to_string());
    }
    let mut customs: Vec<_> = raw
        .custom_functions
        .unwrap_or_default()
        .into_iter()
        .collect();
    customs.sort_by_key(|(k, _)| k.span().start);
    for (name, params) in customs {
        if !is_identifier(name.get_ref()) {
            return Err((
                name.span(),
                format!(
                    "`{}` is not a function name (a Python identifier)",
                    name.get_ref()
                ),
            ));
        }
        let mut list = Vec::new();
        for param in params {
            let text = param.get_ref().trim();
            let bare = text.split_once('=').map_or(text, |(n, _)| n.trim());
            if !is_identifier(bare) {
                return Err((
                    param.span(),
                    format!("`{text}` is not a parameter: a name (required), or `name=default` (optional)"),
                ));
            }
            list.push(text.to_string());
        }
        out.custom_functions.push((name.into_inner(), list));
    }
    for (name, value) in raw.variables.unwrap_or_default() {
        let Some(text) = python_str(value.get_ref()) else {
            return Err((
                value.span(),
                format!(
                    "variable `{}` is a TOML {}: DQX substitutes only scalars (strings, numbers, booleans, dates)",
                    name.get_ref(),
                    value.get_ref().type_str()
                ),
            ));
        };
        out.variables.insert(name.into_inner(), text);
    }
    if let Some(dbr) = raw.dbr {
        let v = dbr.get_ref().trim();
        let numeric = |p: &str| !p.is_empty() && p.chars().all(|c| c.is_ascii_digit());
        let ok = match v.split_once('.') {
            Some((major, minor)) => numeric(major) && numeric(minor),
            None => false,
        };
        if !ok {
            return Err((
                dbr.span(),
                format!("`{v}` is not a Databricks Runtime version (`MAJOR.MINOR`, as `16.4`)"),
            ));
        }
        out.dbr = Some(v.to_string());
    }
    for (key, target) in [
        (raw.checks, &mut out.checks),
        (raw.configs, &mut out.configs),
    ] {
        for glob in key.unwrap_or_default() {
            compile_glob(glob.get_ref()).map_err(|m| (glob.span(), m))?;
            target.push(glob.into_inner());
        }
    }
    let mut schemas: Vec<_> = raw.schemas.unwrap_or_default().into_iter().collect();
    schemas.sort_by_key(|(k, _)| k.span().start);
    for (files, ddl) in schemas {
        compile_glob(files.get_ref()).map_err(|m| (files.span(), m))?;
        let columns = ddl_columns(ddl.get_ref()).map_err(|m| {
            (
                ddl.span(),
                format!("not a Spark DDL schema (`id BIGINT, name STRING`): {m}"),
            )
        })?;
        out.schemas.push(DqxSchema {
            files: files.into_inner(),
            ddl: ddl.into_inner(),
            columns,
        });
    }
    Ok(out)
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawSql {
    udfs: Option<Vec<Spanned<String>>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawOverride {
    files: Option<Spanned<Vec<Spanned<String>>>>,
    select: Option<Vec<Spanned<String>>>,
    ignore: Option<Vec<Spanned<String>>>,
    severity: Option<BTreeMap<Spanned<String>, Spanned<String>>>,
}

/// The configuration and the command line together: which rule reports in
/// which file, at which severity.
///
/// Command-line flags win, as in ruff: `--select` starts the selection
/// afresh (the configuration's top-level `select` and `ignore` give way;
/// `[[overrides]]` still turn rules off in their files, and turn on only
/// what `--select` allows); `--ignore` is added to every ignore.
pub struct Policy<'a> {
    pub config: &'a Config,
    pub cli: &'a crate::engine::Selection,
}

impl Policy<'_> {
    fn any(selectors: &[String], rule: &RuleMeta) -> bool {
        selectors.iter().any(|s| selector_matches(s, rule))
    }

    fn cli_allows(&self, rule: &RuleMeta) -> bool {
        (self.cli.select.is_empty() || Policy::any(&self.cli.select, rule))
            && !Policy::any(&self.cli.ignore, rule)
    }

    fn top_level(&self, rule: &RuleMeta) -> bool {
        if !self.cli.select.is_empty() {
            // A new selection from scratch, as in ruff: the configuration's
            // `select` and `ignore` both give way.
            return Policy::any(&self.cli.select, rule);
        }
        self.config
            .select
            .as_ref()
            .is_none_or(|s| Policy::any(s, rule))
            && !Policy::any(&self.config.ignore, rule)
    }

    /// Whether the rule reports in some file (so it has to run).
    pub fn may_run(&self, rule: &RuleMeta) -> bool {
        self.cli_allows(rule)
            && (self.top_level(rule)
                || self
                    .config
                    .overrides
                    .iter()
                    .any(|o| Policy::any(&o.select, rule)))
    }

    /// Whether the rule reports findings located in the file `rel`.
    pub fn enabled(&self, rule: &RuleMeta, rel: &str) -> bool {
        let mut on = self.top_level(rule);
        for o in self.config.overrides.iter().filter(|o| o.applies_to(rel)) {
            if Policy::any(&o.select, rule) {
                on = true;
            }
            if Policy::any(&o.ignore, rule) {
                on = false;
            }
        }
        on && self.cli_allows(rule)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::Selection;
    use crate::registry::rule;

    fn parse(text: &str) -> Result<Config, ConfigError> {
        Config::parse(text, Path::new("dqlint.toml"))
    }

    fn error(text: &str) -> String {
        parse(text)
            .expect_err("the configuration is rejected")
            .to_string()
    }

    #[test]
    fn reads_every_key() {
        let config = parse(
            "select = [\"DQ1\", \"DQ4\"]\nignore = [\"dlq-ddl-not-found\"]\nenvs = [\"dev\"]\nddl = [\"sql/**/*.sql\"]\n\
             [severity]\nDQ403 = \"error\"\n\n[[overrides]]\nfiles = [\"pipelines/legacy/**\"]\nignore = [\"DQ105\"]\n\
             [overrides.severity]\nDQ1 = \"info\"\n",
        )
        .unwrap();
        assert_eq!(
            config.select.as_deref(),
            Some(&["DQ1".to_string(), "DQ4".to_string()][..])
        );
        assert_eq!(config.envs.as_deref(), Some(&["dev".to_string()][..]));
        assert_eq!(
            config.severity,
            vec![("DQ403".to_string(), Severity::Error)]
        );
        assert_eq!(config.overrides.len(), 1);
        assert!(config.overrides[0].applies_to("pipelines/legacy/a/b.yaml"));
        assert!(!config.overrides[0].applies_to("pipelines/bronze/b.yaml"));
        assert_eq!(
            config.severity_for(rule("DQ105"), "pipelines/legacy/x.yaml"),
            Some(Severity::Info)
        );
        assert_eq!(
            config.severity_for(rule("DQ105"), "pipelines/other.yaml"),
            None
        );
        assert_eq!(
            config.severity_for(rule("DQ403"), "sql/dlq.sql"),
            Some(Severity::Error)
        );
    }

    #[test]
    fn mistakes_have_a_line_and_column() {
        assert_eq!(
            error("select = [\"DQ1\"]\n\nselct = [\"DQ4\"]\n"),
            "dqlint.toml:3:1: unknown key `selct` (expected one of `select`, `ignore`, `envs`, `ddl`, `severity`, `sql`, `overrides`, `dqx`, `dlt`); did you mean `select`?"
        );
        assert_eq!(
            error("ignore = [\"DQ402\", \"DQ999\"]\n"),
            "dqlint.toml:1:20: `DQ999` in `ignore` matches no rule code, code prefix or name (see `dqlint rule`)"
        );
        assert!(error("[severity]\nDQ402 = \"fatal\"\n")
            .starts_with("dqlint.toml:2:9: `fatal` is not a severity"));
        assert!(error("[severity]\nDQ4O2 = \"info\"\n")
            .starts_with("dqlint.toml:2:1: `DQ4O2` in `severity`"));
        assert!(error("[[overrides]]\nfiles = [\"a\"]\nenvs = [\"dev\"]\n")
            .contains("applies to the whole project"));
        assert!(error("[[overrides]]\nignore = [\"DQ1\"]\n").contains("needs `files"));
        assert!(error("ddl = [\"sql/[.sql\"]\n")
            .starts_with("dqlint.toml:1:8: `sql/[.sql` is not a valid glob"));
        assert!(error("select = \"DQ1\"\n").starts_with("dqlint.toml:1:10: "));
        assert!(error("select = [\n").starts_with("dqlint.toml:"));
    }

    #[test]
    fn reads_the_dqx_table() {
        let config = parse(
            "[dqx]\nversion = \"0.16.0\"\nextras = [\"pii\"]\ncustom_functions = { is_valid_sku = [\"column\", \"strict=False\"] }\n\
             variables = { min_price = \"0\", days = 3, strict = true, ratio = 1.0 }\ndbr = \"16.4\"\n\
             checks = [\"quality/**/*.yml\"]\nconfigs = [\".dqx/config.yml\"]\n\
             [dqx.schemas]\n\"quality/orders*.yml\" = \"order_id BIGINT, `country code` STRING, price DECIMAL(10,2), tags STRUCT<a: INT, b: STRING> NOT NULL COMMENT 'x, y'\"\n",
        )
        .unwrap();
        let dqx = &config.dqx;
        assert!(dqx.present);
        assert_eq!(dqx.version.as_deref(), Some("0.16.0"));
        assert_eq!(dqx.extras, ["pii"]);
        assert_eq!(
            dqx.custom_functions,
            [(
                "is_valid_sku".to_string(),
                vec!["column".to_string(), "strict=False".to_string()]
            )]
        );
        // As DQX's str(value): Python's spelling of booleans and floats.
        assert_eq!(dqx.variables["days"], "3");
        assert_eq!(dqx.variables["strict"], "True");
        assert_eq!(dqx.variables["ratio"], "1.0");
        assert_eq!(dqx.dbr.as_deref(), Some("16.4"));
        assert_eq!(dqx.checks, ["quality/**/*.yml"]);
        assert_eq!(dqx.configs, [".dqx/config.yml"]);
        let schema = dqx.schema_for("quality/orders_2024.yml").unwrap();
        assert_eq!(
            schema.columns,
            ["order_id", "country code", "price", "tags"]
        );
        assert!(dqx.schema_for("quality/customers.yml").is_none());
        assert!(!parse("").unwrap().dqx.present);
    }

    #[test]
    fn reads_the_dlt_table() {
        let config = parse(
            "[dlt]\nruntime = \"oss-spark\"\nquarantine_names = [\"*_bad\"]\nrule_loaders = [\"registry.get_rules\"]\n",
        )
        .unwrap();
        assert_eq!(config.dlt.runtime, DltRuntime::OssSpark);
        assert!(config.dlt.is_quarantine_name("main.silver.orders_BAD"));
        assert!(!config.dlt.is_quarantine_name("orders_quarantine"));
        assert_eq!(config.dlt.rule_loaders, ["registry.get_rules"]);
        let defaults = parse("").unwrap().dlt;
        assert_eq!(defaults.runtime, DltRuntime::Databricks);
        for quarantine in [
            "orders_quarantine",
            "quarantine",
            "orders_dlq",
            "`x`.orders_rejected",
        ] {
            assert!(defaults.is_quarantine_name(quarantine), "{quarantine}");
        }
        for clean in ["orders", "orders_dlq_view", "rejected_orders"] {
            assert!(!defaults.is_quarantine_name(clean), "{clean}");
        }
    }

    #[test]
    fn dlt_mistakes_have_a_line_and_column() {
        assert_eq!(
            error("[dlt]\nruntime = \"spark\"\n"),
            "dqlint.toml:2:11: `spark` is not a pipeline runtime (expected `databricks` or `oss-spark`)"
        );
        assert!(error("[dlt]\nruntim = \"databricks\"\n")
            .starts_with("dqlint.toml:2:1: unknown key `runtim`"));
        assert!(error("[dlt]\nquarantine_names = [\"\"]\n").starts_with("dqlint.toml:2:21:"));
        assert!(
            error("[dlt]\nrule_loaders = [\"get rules\"]\n").contains("not a Python function name")
        );
    }

    #[test]
    fn dqx_mistakes_have_a_line_and_column() {
        assert_eq!(
            error("[dqx]\nverison = \"0.17.0\"\n"),
            "dqlint.toml:2:1: unknown key `verison` (expected one of `version`, `extras`, `custom_functions`, `variables`, `dbr`, `checks`, `configs`, `schemas`); did you mean `version`?"
        );
        assert_eq!(
            error("[dqx]\nversion = \"0.15.0\"\n"),
            "dqlint.toml:2:11: `0.15.0` is not a DQX version dqlint has the function catalogue of (expected `0.16.0` or `0.17.0`)"
        );
        assert_eq!(
            error("[dqx]\nextras = [\"pi\"]\n"),
            "dqlint.toml:2:11: `pi` is not a DQX extra (expected `pii` or `anomaly`); did you mean `pii`?"
        );
        assert!(error("[dqx]\ndbr = \"latest\"\n")
            .starts_with("dqlint.toml:2:7: `latest` is not a Databricks Runtime version"));
        assert!(error("[dqx]\nvariables = { days = [1, 2] }\n")
            .starts_with("dqlint.toml:2:22: variable `days` is a TOML array"));
        assert!(
            error("[dqx]\ncustom_functions = { \"is-sku\" = [\"column\"] }\n")
                .starts_with("dqlint.toml:2:22: `is-sku` is not a function name")
        );
        assert!(
            error("[dqx]\ncustom_functions = { is_sku = [\"col umn\"] }\n")
                .starts_with("dqlint.toml:2:32: `col umn` is not a parameter")
        );
        assert!(error("[dqx]\nchecks = [\"q/[.yml\"]\n")
            .starts_with("dqlint.toml:2:11: `q/[.yml` is not a valid glob"));
        assert!(error("[dqx.schemas]\n\"q/*.yml\" = \"id BIGINT, name\"\n")
            .starts_with("dqlint.toml:2:13: not a Spark DDL schema (`id BIGINT, name STRING`): column `name` has no type"));
        assert!(error("[dqx.schemas]\n\"q/*.yml\" = \"id DECIMAL(10,2\"\n").contains("unbalanced"));
    }

    #[test]
    fn specific_severity_wins_over_prefix() {
        let config = parse("[severity]\nDQ4 = \"info\"\nDQ404 = \"warning\"\n").unwrap();
        assert_eq!(
            config.severity_for(rule("DQ404"), "x.sql"),
            Some(Severity::Warning)
        );
        assert_eq!(
            config.severity_for(rule("DQ405"), "x.sql"),
            Some(Severity::Info)
        );
    }

    #[test]
    fn command_line_wins_over_configuration() {
        let config = parse("select = [\"DQ4\"]\nignore = [\"DQ402\"]\n[[overrides]]\nfiles = [\"legacy/**\"]\nselect = [\"DQ105\"]\nignore = [\"DQ404\"]\n").unwrap();
        let none = Selection::default();
        let policy = Policy {
            config: &config,
            cli: &none,
        };
        assert!(policy.enabled(rule("DQ404"), "sql/dlq.sql"));
        assert!(!policy.enabled(rule("DQ402"), "sql/dlq.sql"));
        assert!(!policy.enabled(rule("DQ105"), "pipelines/a.yaml"));
        assert!(policy.enabled(rule("DQ105"), "legacy/a.yaml"));
        assert!(!policy.enabled(rule("DQ404"), "legacy/a.sql"));
        assert!(policy.may_run(rule("DQ105")) && !policy.may_run(rule("DQ207")));

        let cli = Selection {
            select: vec!["DQ207".into(), "DQ402".into(), "DQ404".into()],
            ignore: vec![],
        };
        let policy = Policy {
            config: &config,
            cli: &cli,
        };
        assert!(policy.enabled(rule("DQ207"), "expectations/a.yaml"));
        assert!(
            policy.enabled(rule("DQ402"), "pipelines/a.yaml"),
            "--select wins over the configuration's ignore"
        );
        assert!(
            !policy.enabled(rule("DQ404"), "legacy/a.sql"),
            "overrides still turn rules off"
        );
        assert!(
            !policy.enabled(rule("DQ105"), "legacy/a.yaml"),
            "--select limits the overrides too"
        );
        let cli = Selection {
            select: vec![],
            ignore: vec!["DQ4".into()],
        };
        let policy = Policy {
            config: &config,
            cli: &cli,
        };
        assert!(!policy.may_run(rule("DQ404")));
    }

    #[test]
    fn globs_without_a_slash_match_file_names_anywhere() {
        let config = parse(
            "[[overrides]]\nfiles = [\"*.sql\", \"./pipelines/*.yaml\"]\nignore = [\"DQ4\"]\n",
        )
        .unwrap();
        assert!(config.overrides[0].applies_to("sql/deep/dlq.sql"));
        assert!(config.overrides[0].applies_to("pipelines/a.yaml"));
        assert!(!config.overrides[0].applies_to("pipelines/bronze/a.yaml"));
    }
}
