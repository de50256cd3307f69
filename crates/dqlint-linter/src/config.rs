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
];
/// Keys of the `[sql]` table.
pub const SQL_KEYS: &[&str] = &["udfs"];
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
        dqlint_project::LoadOptions {
            envs,
            ddl,
            envs_from,
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
            "dqlint.toml:3:1: unknown key `selct` (expected one of `select`, `ignore`, `envs`, `ddl`, `severity`, `sql`, `overrides`); did you mean `select`?"
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
