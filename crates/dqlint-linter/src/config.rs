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
    "policy",
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
/// Keys of the `[policy]` table.
pub const POLICY_KEYS: &[&str] = &["mandatory", "circuit_breaker", "registry"];
/// Keys of a `[[policy.mandatory]]` entry.
pub const MANDATORY_KEYS: &[&str] = &[
    "datasets",
    "table_properties",
    "kinds",
    "columns",
    "min_action",
    "unique",
];
/// Keys of `[policy.circuit_breaker]`.
pub const CIRCUIT_BREAKER_KEYS: &[&str] = &["datasets", "max_quarantine_ratio"];
/// The rule kinds a policy can require (`other` is every rule's kind).
pub const MANDATORY_KINDS: &[&str] = &["not_null", "unique", "range"];
/// The values of `min_action`, weakest first.
pub const MIN_ACTIONS: &[&str] = &["warn", "drop", "fail"];
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
    /// The `[policy]` table: what the team requires of every dataset.
    pub team_policy: TeamPolicy,
}

/// `[policy]`: a team's requirements on every dataset, in every dialect
/// (`spec/policy.md`). Named apart from [`Policy`], the rule selection.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TeamPolicy {
    /// `[[policy.mandatory]]`, in file order.
    pub mandatory: Vec<MandatoryPolicy>,
    pub circuit_breaker: Option<CircuitBreakerPolicy>,
    /// `[policy] registry`: globs of the YAML files rules must come from.
    pub registry: Vec<String>,
}

impl TeamPolicy {
    /// Whether the file has any policy at all (without one, no policy rule
    /// reports anything).
    pub fn is_empty(&self) -> bool {
        self.mandatory.is_empty() && self.circuit_breaker.is_none() && self.registry.is_empty()
    }
}

/// A rule kind a policy can require.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum MandatoryKind {
    NotNull,
    Unique,
    Range,
}

impl MandatoryKind {
    pub fn parse(text: &str) -> Option<MandatoryKind> {
        match text {
            "not_null" => Some(MandatoryKind::NotNull),
            "unique" => Some(MandatoryKind::Unique),
            "range" => Some(MandatoryKind::Range),
            _ => None,
        }
    }

    /// As the configuration and the messages write it.
    pub fn name(self) -> &'static str {
        match self {
            MandatoryKind::NotNull => "not_null",
            MandatoryKind::Unique => "unique",
            MandatoryKind::Range => "range",
        }
    }
}

/// The weakest action that counts for a mandatory kind: a rule that only
/// warns keeps its failing rows, so it does not enforce anything.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum MinAction {
    Warn,
    Drop,
    Fail,
}

impl MinAction {
    pub fn name(self) -> &'static str {
        match self {
            MinAction::Warn => "warn",
            MinAction::Drop => "drop",
            MinAction::Fail => "fail",
        }
    }
}

/// One `[[policy.mandatory]]` entry.
#[derive(Clone, Debug, PartialEq)]
pub struct MandatoryPolicy {
    /// Globs over dataset names ([`dataset_glob_matches`]).
    pub datasets: Vec<String>,
    /// Table properties a dataset must carry, all of them, to be selected
    /// (a dataset is selected by `datasets` or by these).
    pub table_properties: Vec<(String, String)>,
    /// The kinds required, in the order written, without repeats.
    pub kinds: Vec<MandatoryKind>,
    /// Columns a kind must be on: every listed column needs its own rule.
    pub columns: Vec<(MandatoryKind, Vec<String>)>,
    /// Default: `drop` (warn-only rules do not count).
    pub min_action: MinAction,
    /// `unique = "external"`: uniqueness is enforced outside the
    /// pipeline, so the kind counts as present.
    pub unique_external: bool,
    /// The 1-based line of the entry's `[[policy.mandatory]]` header in
    /// `dqlint.toml`, for messages.
    pub line: u32,
}

impl MandatoryPolicy {
    /// Whether a dataset with these names (any of them) and table
    /// properties is one the entry applies to.
    pub fn selects<'n>(
        &self,
        mut names: impl Iterator<Item = &'n str>,
        properties: &[(String, String)],
    ) -> bool {
        let by_name = names.any(|n| {
            self.datasets
                .iter()
                .any(|glob| dataset_glob_matches(glob, n))
        });
        let by_properties = !self.table_properties.is_empty()
            && self.table_properties.iter().all(|(k, v)| {
                properties
                    .iter()
                    .any(|(pk, pv)| pk.eq_ignore_ascii_case(k) && pv == v)
            });
        by_name || by_properties
    }

    /// The columns listed for `kind`, if any.
    pub fn columns_of(&self, kind: MandatoryKind) -> &[String] {
        self.columns
            .iter()
            .find(|(k, _)| *k == kind)
            .map_or(&[][..], |(_, c)| c.as_slice())
    }
}

/// `[policy.circuit_breaker]`.
#[derive(Clone, Debug, PartialEq)]
pub struct CircuitBreakerPolicy {
    /// Globs over dataset names ([`dataset_glob_matches`]).
    pub datasets: Vec<String>,
    /// The largest share of a batch that may be quarantined, 0 to 1.
    pub max_quarantine_ratio: f64,
}

impl CircuitBreakerPolicy {
    pub fn selects<'n>(&self, mut names: impl Iterator<Item = &'n str>) -> bool {
        names.any(|n| {
            self.datasets
                .iter()
                .any(|glob| dataset_glob_matches(glob, n))
        })
    }
}

/// Stands for a part of a dataset name that is not known statically (an
/// LHP token an environment does not define): only a `*` of a glob covers
/// it, whatever its value would be.
pub const UNKNOWN_NAME_PART: char = '\u{0}';

/// Whether a policy glob matches a dataset name, as Spark compares
/// identifiers: case-insensitively, backticks left out. `*` matches any
/// run of characters, dots included (`*.silver.*` matches
/// `main.silver.orders`), `?` one character. A glob without a dot is
/// compared with the last part of a qualified name too (`silver_*`
/// matches `main.silver.silver_orders`); an unqualified name matches a
/// dotted glob only through its `*`s (`*orders` matches `orders`,
/// `*.silver.*` does not: its schema is not known).
pub fn dataset_glob_matches(glob: &str, name: &str) -> bool {
    let name: String = name
        .chars()
        .filter(|c| *c != '`')
        .flat_map(char::to_lowercase)
        .collect();
    let glob = glob.trim().to_lowercase();
    let full = name_wildcard_match(&glob, &name);
    full || (!glob.contains('.')
        && name.contains('.')
        && name_wildcard_match(&glob, name.rsplit('.').next().unwrap_or("")))
}

/// [`wildcard_match`] in which a literal or `?` never matches
/// [`UNKNOWN_NAME_PART`].
fn name_wildcard_match(pattern: &str, text: &str) -> bool {
    let (p, t): (Vec<char>, Vec<char>) = (pattern.chars().collect(), text.chars().collect());
    let (mut pi, mut ti, mut star, mut mark) = (0, 0, None, 0);
    while ti < t.len() {
        if pi < p.len()
            && p[pi] != '*'
            && t[ti] != UNKNOWN_NAME_PART
            && (p[pi] == '?' || p[pi] == t[ti])
        {
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

impl DqxSchema {
    /// Whether the table has the column, compared as Spark compares
    /// names (ignoring case).
    pub fn has_column(&self, name: &str) -> bool {
        self.columns.iter().any(|c| c.eq_ignore_ascii_case(name))
    }
}

impl DqxConfig {
    /// The DQX function catalogue checked against: `version` (default
    /// 0.17.0), its `extras` installed, its `custom_functions` registered.
    pub fn catalogue(&self) -> dqlint_dqx::Catalogue {
        let base = self
            .version
            .as_deref()
            .and_then(dqlint_dqx::catalogue)
            .unwrap_or_else(dqlint_dqx::Catalogue::default_version);
        let extras: Vec<dqlint_dqx::Extra> = self
            .extras
            .iter()
            .filter_map(|e| dqlint_dqx::Extra::parse(e))
            .collect();
        base.configured(&extras, &self.custom_functions)
    }

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
        if let Some(policy) = raw.policy {
            config.team_policy = team_policy(policy, text).map_err(|(s, m)| error(Some(s), m))?;
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
            registry: globs(&self.team_policy.registry),
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
    policy: Option<RawPolicy>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawPolicy {
    mandatory: Option<Vec<Spanned<RawMandatory>>>,
    circuit_breaker: Option<Spanned<RawCircuitBreaker>>,
    registry: Option<Spanned<Vec<Spanned<String>>>>,
}

/// A list of strings, each at its place, and the list's own place.
type SpannedList = Spanned<Vec<Spanned<String>>>;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawMandatory {
    datasets: Option<Spanned<Vec<Spanned<String>>>>,
    table_properties: Option<Spanned<BTreeMap<Spanned<String>, Spanned<String>>>>,
    kinds: Option<Spanned<Vec<Spanned<String>>>>,
    columns: Option<BTreeMap<Spanned<String>, SpannedList>>,
    min_action: Option<Spanned<String>>,
    unique: Option<Spanned<String>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawCircuitBreaker {
    datasets: Option<Spanned<Vec<Spanned<String>>>>,
    max_quarantine_ratio: Option<Spanned<toml::Value>>,
}

/// `datasets = [...]`: non-empty dataset-name globs.
fn dataset_globs(list: Spanned<Vec<Spanned<String>>>, within: &str) -> Located<Vec<String>> {
    if list.get_ref().is_empty() {
        return Err((
            list.span(),
            format!("`datasets` is empty: this {within} would apply to no dataset"),
        ));
    }
    let mut out = Vec::new();
    for glob in list.into_inner() {
        let text = glob.get_ref().trim();
        if text.is_empty() {
            return Err((
                glob.span(),
                "an empty dataset glob matches no dataset".into(),
            ));
        }
        if text.contains('/') || text.contains('\\') {
            return Err((
                glob.span(),
                format!("`{text}` looks like a file glob: `datasets` matches dataset names (`*.silver.*`, `silver_*`)"),
            ));
        }
        out.push(text.to_string());
    }
    Ok(out)
}

fn team_policy(raw: RawPolicy, text: &str) -> Located<TeamPolicy> {
    let mut out = TeamPolicy::default();
    for entry in raw.mandatory.unwrap_or_default() {
        let at = entry.span();
        out.mandatory.push(mandatory(entry.into_inner(), at, text)?);
    }
    if let Some(breaker) = raw.circuit_breaker {
        let at = breaker.span();
        let breaker = breaker.into_inner();
        let Some(datasets) = breaker.datasets else {
            return Err((
                at,
                "[policy.circuit_breaker] needs `datasets = [globs]`: the datasets whose quarantine needs a breaker".into(),
            ));
        };
        let datasets = dataset_globs(datasets, "circuit breaker")?;
        let Some(ratio) = breaker.max_quarantine_ratio else {
            return Err((
                at,
                "[policy.circuit_breaker] needs `max_quarantine_ratio`: the largest share of a batch that may be quarantined (`0.05`)".into(),
            ));
        };
        let value = match ratio.get_ref() {
            toml::Value::Float(f) => *f,
            toml::Value::Integer(i) => *i as f64,
            other => {
                return Err((
                    ratio.span(),
                    format!(
                        "`max_quarantine_ratio` is a TOML {}: write a number from 0 to 1 (`0.05` for 5%)",
                        other.type_str()
                    ),
                ))
            }
        };
        if !(0.0..=1.0).contains(&value) {
            return Err((
                ratio.span(),
                format!(
                    "`max_quarantine_ratio` is {value}: a ratio is from 0 to 1 (`0.05` for 5%)"
                ),
            ));
        }
        out.circuit_breaker = Some(CircuitBreakerPolicy {
            datasets,
            max_quarantine_ratio: value,
        });
    }
    if let Some(registry) = raw.registry {
        if registry.get_ref().is_empty() {
            return Err((
                registry.span(),
                "`registry` is empty: name the YAML files rules must come from (`expectations/**/*.yaml`)".into(),
            ));
        }
        for glob in registry.into_inner() {
            compile_glob(glob.get_ref()).map_err(|m| (glob.span(), m))?;
            out.registry.push(glob.into_inner());
        }
    }
    Ok(out)
}

fn mandatory(raw: RawMandatory, at: Range<usize>, text: &str) -> Located<MandatoryPolicy> {
    let datasets = match raw.datasets {
        Some(list) => dataset_globs(list, "policy")?,
        None => Vec::new(),
    };
    let mut table_properties = Vec::new();
    if let Some(properties) = raw.table_properties {
        if properties.get_ref().is_empty() {
            return Err((
                properties.span(),
                "`table_properties` is empty: this policy would apply to no dataset".into(),
            ));
        }
        let mut entries: Vec<_> = properties.into_inner().into_iter().collect();
        entries.sort_by_key(|(k, _)| k.span().start);
        for (key, value) in entries {
            table_properties.push((key.into_inner(), value.into_inner()));
        }
    }
    if datasets.is_empty() && table_properties.is_empty() {
        return Err((
            at,
            "a [[policy.mandatory]] entry needs `datasets = [globs]` or `table_properties = { key = \"value\" }`: the datasets it applies to".into(),
        ));
    }
    let Some(kinds_list) = raw.kinds else {
        return Err((
            at,
            "a [[policy.mandatory]] entry needs `kinds`: the rule kinds every dataset must have (`not_null`, `unique`, `range`)".into(),
        ));
    };
    if kinds_list.get_ref().is_empty() {
        return Err((
            kinds_list.span(),
            "`kinds` is empty: this policy would require nothing".into(),
        ));
    }
    let mut kinds = Vec::new();
    for kind in kinds_list.into_inner() {
        let parsed = parse_kind(&kind)?;
        if !kinds.contains(&parsed) {
            kinds.push(parsed);
        }
    }
    let mut columns = Vec::new();
    let mut listed: Vec<_> = raw.columns.unwrap_or_default().into_iter().collect();
    listed.sort_by_key(|(k, _)| k.span().start);
    for (kind, names) in listed {
        let parsed = parse_kind(&kind)?;
        if !kinds.contains(&parsed) {
            return Err((
                kind.span(),
                format!(
                    "`columns.{}` lists columns of a kind `kinds` does not require: add `{}` to `kinds`",
                    parsed.name(),
                    parsed.name()
                ),
            ));
        }
        if names.get_ref().is_empty() {
            return Err((
                names.span(),
                format!(
                    "`columns.{}` is empty: list the columns, or remove it",
                    parsed.name()
                ),
            ));
        }
        let mut list = Vec::new();
        for name in names.into_inner() {
            let column = name.get_ref().trim().trim_matches('`');
            if column.is_empty() {
                return Err((name.span(), "an empty column name".into()));
            }
            list.push(column.to_string());
        }
        columns.push((parsed, list));
    }
    let min_action = match raw.min_action {
        None => MinAction::Drop,
        Some(action) => match action.get_ref().trim() {
            "warn" => MinAction::Warn,
            "drop" => MinAction::Drop,
            "fail" => MinAction::Fail,
            other => {
                return Err((
                    action.span(),
                    format!("`{other}` is not an action (expected `warn`, `drop` or `fail`; LHP and DLT quarantine and DQX `error` count as `drop`)"),
                ))
            }
        },
    };
    let unique_external = match raw.unique {
        None => false,
        Some(u) if u.get_ref().trim() == "external" => true,
        Some(u) => {
            return Err((
                u.span(),
                format!(
                    "`unique = \"{}\"`: the only value is `external` (uniqueness is enforced outside the pipeline)",
                    u.get_ref()
                ),
            ))
        }
    };
    Ok(MandatoryPolicy {
        datasets,
        table_properties,
        kinds,
        columns,
        min_action,
        unique_external,
        line: position(text, at.start).0,
    })
}

fn parse_kind(kind: &Spanned<String>) -> Located<MandatoryKind> {
    let name = kind.get_ref().trim();
    MandatoryKind::parse(name).ok_or_else(|| {
        let why = if name == "other" {
            " (every rule is at least `other`: require the kinds that matter)".to_string()
        } else {
            MANDATORY_KINDS
                .iter()
                .find(|k| strsim::jaro_winkler(k, &name.to_ascii_lowercase()) > 0.8)
                .map(|k| format!("; did you mean `{k}`?"))
                .unwrap_or_default()
        };
        (
            kind.span(),
            format!("`{name}` is not a rule kind (expected `not_null`, `unique` or `range`){why}"),
        )
    })
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
            "dqlint.toml:3:1: unknown key `selct` (expected one of `select`, `ignore`, `envs`, `ddl`, `severity`, `sql`, `overrides`, `dqx`, `dlt`, `policy`); did you mean `select`?"
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
    fn reads_the_policy_table() {
        let config = parse(
            "[[policy.mandatory]]\ndatasets = [\"*.silver.*\", \"silver_*\"]\ntable_properties = { quality = \"silver\" }\n\
             kinds = [\"not_null\", \"unique\", \"range\", \"not_null\"]\ncolumns = { not_null = [\"id\"], unique = [\"`id`\"] }\n\
             min_action = \"fail\"\n\n[[policy.mandatory]]\ntable_properties = { quality = \"gold\" }\nkinds = [\"range\"]\nunique = \"external\"\n\n\
             [policy.circuit_breaker]\ndatasets = [\"*.silver.*\"]\nmax_quarantine_ratio = 0.05\n\n\
             [policy]\nregistry = [\"expectations/**/*.yaml\"]\n",
        )
        .unwrap();
        let policy = &config.team_policy;
        assert!(!policy.is_empty());
        let first = &policy.mandatory[0];
        assert_eq!(first.datasets, ["*.silver.*", "silver_*"]);
        assert_eq!(
            first.table_properties,
            [("quality".to_string(), "silver".to_string())]
        );
        assert_eq!(
            first.kinds,
            [
                MandatoryKind::NotNull,
                MandatoryKind::Unique,
                MandatoryKind::Range
            ]
        );
        assert_eq!(first.columns_of(MandatoryKind::NotNull), ["id"]);
        assert_eq!(first.columns_of(MandatoryKind::Unique), ["id"]);
        assert!(first.columns_of(MandatoryKind::Range).is_empty());
        assert_eq!(first.min_action, MinAction::Fail);
        assert_eq!(first.line, 1, "the entry's header");
        let second = &policy.mandatory[1];
        assert_eq!(second.min_action, MinAction::Drop, "the default");
        assert!(second.unique_external && !first.unique_external);
        let breaker = policy.circuit_breaker.as_ref().unwrap();
        assert_eq!(breaker.datasets, ["*.silver.*"]);
        assert_eq!(breaker.max_quarantine_ratio, 0.05);
        assert_eq!(policy.registry, ["expectations/**/*.yaml"]);
        assert!(parse("").unwrap().team_policy.is_empty());
        // A whole number is a ratio too.
        let one = parse("[policy.circuit_breaker]\ndatasets = [\"*\"]\nmax_quarantine_ratio = 1\n")
            .unwrap();
        assert_eq!(
            one.team_policy
                .circuit_breaker
                .unwrap()
                .max_quarantine_ratio,
            1.0
        );
    }

    #[test]
    fn policy_selects_by_name_or_table_properties() {
        let config = parse(
            "[[policy.mandatory]]\ndatasets = [\"*.silver.*\"]\ntable_properties = { quality = \"silver\", tier = \"1\" }\nkinds = [\"not_null\"]\n",
        )
        .unwrap();
        let entry = &config.team_policy.mandatory[0];
        let props = |p: &[(&str, &str)]| -> Vec<(String, String)> {
            p.iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect()
        };
        assert!(entry.selects(["main.silver.orders"].into_iter(), &[]));
        assert!(!entry.selects(["orders"].into_iter(), &[]));
        assert!(entry.selects(
            ["orders"].into_iter(),
            &props(&[("quality", "silver"), ("tier", "1"), ("x", "y")])
        ));
        assert!(
            !entry.selects(["orders"].into_iter(), &props(&[("quality", "silver")])),
            "every listed property"
        );
        assert!(!entry.selects(
            ["orders"].into_iter(),
            &props(&[("quality", "Silver"), ("tier", "1")])
        ));
    }

    #[test]
    fn dataset_globs_match_as_spark_compares_names() {
        let m = dataset_glob_matches;
        assert!(m("*.silver.*", "main.silver.orders"));
        assert!(m("*.silver.*", "`Main`.SILVER.`orders`"));
        assert!(m("*.silver.*", "main.silver.a.b"), "`*` crosses dots");
        assert!(!m("*.silver.*", "main.silverware.orders"));
        assert!(!m("*.silver.*", "silver.orders"));
        assert!(
            !m("*.silver.*", "orders"),
            "an unqualified name has no known schema"
        );
        assert!(m("silver_*", "silver_orders"));
        assert!(m("silver_*", "main.silver.silver_orders"), "last part");
        assert!(!m("silver_*", "main.silver_x.orders"));
        assert!(m("*orders", "orders"));
        assert!(m("main.silver.ord?rs", "main.silver.orders"));
        // A part no environment defines: only a `*` covers it.
        let unknown = format!("{UNKNOWN_NAME_PART}.silver.orders");
        assert!(m("*.silver.*", &unknown));
        assert!(!m("main.silver.*", &unknown));
        assert!(!m("?.silver.*", &unknown));
    }

    #[test]
    fn policy_mistakes_have_a_line_and_column() {
        assert!(error("[policy]\nmandatroy = []\n")
            .starts_with("dqlint.toml:2:1: unknown key `mandatroy` (expected one of `mandatory`, `circuit_breaker`, `registry`); did you mean `mandatory`?"));
        assert!(error("[[policy.mandatory]]\ndataset = [\"a\"]\n")
            .starts_with("dqlint.toml:2:1: unknown key `dataset`"));
        assert_eq!(
            error("[[policy.mandatory]]\ndatasets = [\"*.silver.*\"]\nkinds = [\"not_nul\"]\n"),
            "dqlint.toml:3:10: `not_nul` is not a rule kind (expected `not_null`, `unique` or `range`); did you mean `not_null`?"
        );
        assert!(
            error("[[policy.mandatory]]\ndatasets = [\"a\"]\nkinds = [\"other\"]\n")
                .contains("every rule is at least `other`")
        );
        assert!(
            error("[[policy.mandatory]]\ndatasets = []\nkinds = [\"range\"]\n")
                .starts_with("dqlint.toml:2:12: `datasets` is empty")
        );
        assert!(
            error("[[policy.mandatory]]\ndatasets = [\"\"]\nkinds = [\"range\"]\n")
                .starts_with("dqlint.toml:2:13: an empty dataset glob")
        );
        assert!(error(
            "[[policy.mandatory]]\ndatasets = [\"pipelines/*.yaml\"]\nkinds = [\"range\"]\n"
        )
        .contains("looks like a file glob"));
        assert!(error("[[policy.mandatory]]\nkinds = [\"range\"]\n")
            .contains("needs `datasets = [globs]` or `table_properties"));
        assert!(error("[[policy.mandatory]]\ndatasets = [\"a\"]\n").contains("needs `kinds`"));
        assert!(
            error("[[policy.mandatory]]\ndatasets = [\"a\"]\nkinds = []\n")
                .starts_with("dqlint.toml:3:9: `kinds` is empty")
        );
        assert!(error("[[policy.mandatory]]\ndatasets = [\"a\"]\nkinds = [\"range\"]\ncolumns = { not_null = [\"id\"] }\n")
            .starts_with("dqlint.toml:4:13: `columns.not_null` lists columns of a kind `kinds` does not require"));
        assert!(error("[[policy.mandatory]]\ndatasets = [\"a\"]\nkinds = [\"range\"]\ncolumns = { range = [] }\n")
            .contains("`columns.range` is empty"));
        assert!(error("[[policy.mandatory]]\ndatasets = [\"a\"]\nkinds = [\"range\"]\nmin_action = \"quarantine\"\n")
            .starts_with("dqlint.toml:4:14: `quarantine` is not an action"));
        assert!(error(
            "[[policy.mandatory]]\ndatasets = [\"a\"]\nkinds = [\"range\"]\nunique = \"yes\"\n"
        )
        .contains("the only value is `external`"));
        assert!(
            error("[[policy.mandatory]]\ntable_properties = {}\nkinds = [\"range\"]\n")
                .contains("`table_properties` is empty")
        );
        assert!(
            error("[policy.circuit_breaker]\ndatasets = [\"a\"]\nmax_quarantine_ratio = 5\n")
                .starts_with(
                    "dqlint.toml:3:24: `max_quarantine_ratio` is 5: a ratio is from 0 to 1"
                )
        );
        assert!(error(
            "[policy.circuit_breaker]\ndatasets = [\"a\"]\nmax_quarantine_ratio = -0.1\n"
        )
        .contains("a ratio is from 0 to 1"));
        assert!(error(
            "[policy.circuit_breaker]\ndatasets = [\"a\"]\nmax_quarantine_ratio = \"5%\"\n"
        )
        .contains("is a TOML string"));
        assert!(error("[policy.circuit_breaker]\ndatasets = [\"a\"]\n")
            .contains("needs `max_quarantine_ratio`"));
        assert!(
            error("[policy.circuit_breaker]\nmax_quarantine_ratio = 0.05\n")
                .contains("needs `datasets")
        );
        assert!(
            error("[policy.circuit_breaker]\ndatasets = []\nmax_quarantine_ratio = 0.05\n")
                .contains("this circuit breaker would apply to no dataset")
        );
        assert!(error("[policy.circuit_breaker]\ndatasets = [\"a\"]\nmax_quarantine_ratio = 0.05\nratio = 1\n")
            .starts_with("dqlint.toml:4:1: unknown key `ratio`"));
        assert!(
            error("[policy]\nregistry = []\n").starts_with("dqlint.toml:2:12: `registry` is empty")
        );
        assert!(error("[policy]\nregistry = [\"e/[.yaml\"]\n")
            .starts_with("dqlint.toml:2:13: `e/[.yaml` is not a valid glob"));
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
