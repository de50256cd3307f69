//! Discovery (`../shared/spec/cli.md`): where a lint's root is, and which
//! dialect each file under it is written in, decided once, here.
//!
//! The root is the nearest ancestor folder holding `lhp.yaml`; failing
//! that, the nearest holding `dqlint.toml`, `databricks.yml` or `.git`;
//! else the path itself (its folder, for a file).
//!
//! Dialects: an LHP project's files are the ones [`crate::Project::load`]
//! reads by LHP's layout (`pipelines/`, `templates/`, ...); every other
//! file is classified by its content with [`classify`]. A dialect's model
//! crate (DQX checks, pipeline sources) takes the files of its dialects
//! from [`Workspace::files_of`] and yields the shared expectation model
//! ([`crate::expectation_model`]).

use std::ops::ControlFlow;
use std::path::{Path, PathBuf};

/// What made a folder the root.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RootMarker {
    /// `lhp.yaml`: an LHP project.
    LhpProject,
    DqlintConfig,
    DatabricksBundle,
    Git,
    /// No marker in any parent: the path itself.
    Path,
}

/// The dialect of one file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Dialect {
    /// A file of an LHP project (its role: [`crate::FileKind`]).
    Lhp,
    /// A DQX checks file: a YAML or JSON list of checks.
    DqxChecks,
    /// A DQX run configuration (`config.yml` with `run_configs`).
    DqxRunConfig,
    /// A Python pipeline source (`import dlt`, `pyspark.pipelines`), or a
    /// module of DQX's Python API (`databricks.labs.dqx`).
    PipelinePython,
    /// A SQL pipeline source (`CREATE STREAMING TABLE`, `CONSTRAINT ... EXPECT`).
    PipelineSql,
}

/// The root to lint for `start`, and what made it one.
pub fn find_lint_root(start: &Path) -> (PathBuf, RootMarker) {
    let start = std::fs::canonicalize(start).unwrap_or_else(|_| start.to_path_buf());
    let folder = if start.is_file() {
        start.parent().map(Path::to_path_buf).unwrap_or_default()
    } else {
        start.clone()
    };
    if let Some(root) = nearest(&folder, &[("lhp.yaml", RootMarker::LhpProject)]) {
        return root;
    }
    let others = [
        ("dqlint.toml", RootMarker::DqlintConfig),
        ("databricks.yml", RootMarker::DatabricksBundle),
        (".git", RootMarker::Git),
    ];
    nearest(&folder, &others).unwrap_or((folder, RootMarker::Path))
}

fn nearest(folder: &Path, markers: &[(&str, RootMarker)]) -> Option<(PathBuf, RootMarker)> {
    folder.ancestors().find_map(|dir| {
        markers
            .iter()
            .find(|(name, marker)| {
                let path = dir.join(name);
                // A folder named lhp.yaml makes no project (LHP reads the file).
                if *marker == RootMarker::LhpProject {
                    path.is_file()
                } else {
                    path.exists()
                }
            })
            .map(|(_, marker)| (dir.to_path_buf(), *marker))
    })
}

/// The dialect of a file outside an LHP project's layout, from its name and
/// text; `None` for a file no dialect reads. Cheap: it looks for the
/// markers each dialect's spec names, and the dialect's reader decides the
/// rest (a file named here that its reader cannot use is reported by it).
pub fn classify(rel: &str, text: &str) -> Option<Dialect> {
    let ext = rel.rsplit_once('.').map(|(_, e)| e.to_ascii_lowercase());
    match ext.as_deref() {
        Some("py") => is_pipeline_python(text).then_some(Dialect::PipelinePython),
        Some("sql") => is_pipeline_sql(text).then_some(Dialect::PipelineSql),
        Some("yaml" | "yml" | "json") => {
            if has_key_at_top(text, "run_configs") {
                Some(Dialect::DqxRunConfig)
            } else if is_checks_list(text) {
                Some(Dialect::DqxChecks)
            } else {
                None
            }
        }
        _ => None,
    }
}

fn is_pipeline_python(text: &str) -> bool {
    text.lines().any(|line| {
        let line = line.trim_start();
        let words: Vec<&str> = line.split_whitespace().collect();
        match words.as_slice() {
            ["import", module, ..] => {
                is_dqx_module(module)
                    || module
                        .split(',')
                        .any(|m| m == "dlt" || m.starts_with("dlt."))
            }
            ["from", module, "import", ..] if is_dqx_module(module) => true,
            ["from", module, "import", ..] => {
                *module == "dlt"
                    || module.starts_with("dlt.")
                    || (*module == "pyspark" && line.contains("pipelines"))
                    || module.starts_with("pyspark.pipelines")
            }
            _ => false,
        }
    })
}

/// The modules a Python source imports names from, as written (`from
/// rules import RULES` -> `rules`, `from .common.rules import X` ->
/// `.common.rules`, `import helpers` -> `helpers`); pipeline and DQX
/// modules and the standard library are among them, [`module_candidates`]
/// finds the project's own.
pub fn imported_modules(text: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for line in text.lines() {
        let words: Vec<&str> = line.split_whitespace().collect();
        let modules: Vec<&str> = match words.as_slice() {
            ["from", module, "import", ..] => vec![module],
            ["import", ..] => line.trim_start()["import".len()..]
                .split(',')
                .filter_map(|m| m.split_whitespace().next())
                .collect(),
            _ => Vec::new(),
        };
        for module in modules {
            if !out.iter().any(|m| m == module) {
                out.push(module.to_string());
            }
        }
    }
    out
}

/// Where a module imported by the source at `importer_rel` can be, as
/// project-relative paths in the order Python would find them for a
/// pipeline run from the source's folder: beside the importer, then at the
/// root (`rules` -> `<dir>/rules.py`, `<dir>/rules/__init__.py`,
/// `rules.py`, `rules/__init__.py`); a relative import (`.rules`) only
/// beside the importer.
pub fn module_candidates(importer_rel: &str, module: &str) -> Vec<String> {
    let dir = importer_rel.rsplit_once('/').map_or("", |(d, _)| d);
    let dots = module.len() - module.trim_start_matches('.').len();
    let path = module.trim_start_matches('.').replace('.', "/");
    if path.is_empty() || path.contains("//") {
        return Vec::new();
    }
    let mut bases: Vec<String> = Vec::new();
    if dots > 0 {
        let mut base = dir.to_string();
        for _ in 1..dots {
            base = base
                .rsplit_once('/')
                .map_or(String::new(), |(d, _)| d.to_string());
        }
        bases.push(base);
    } else {
        bases.push(dir.to_string());
        bases.push(String::new());
    }
    let mut out = Vec::new();
    for base in bases {
        let prefix = if base.is_empty() {
            String::new()
        } else {
            format!("{base}/")
        };
        for candidate in [
            format!("{prefix}{path}.py"),
            format!("{prefix}{path}/__init__.py"),
        ] {
            if !out.contains(&candidate) {
                out.push(candidate);
            }
        }
    }
    out
}

/// `databricks.labs.dqx` or one of its modules: DQX's Python API.
fn is_dqx_module(module: &str) -> bool {
    module
        .split(',')
        .any(|m| m == "databricks.labs.dqx" || m.starts_with("databricks.labs.dqx."))
}

fn is_pipeline_sql(text: &str) -> bool {
    let upper = text.to_ascii_uppercase();
    let words: Vec<&str> = upper.split_whitespace().collect();
    words.windows(2).any(|w| {
        matches!(
            w,
            ["STREAMING", "TABLE"]
                | ["MATERIALIZED", "VIEW"]
                | ["LIVE", "VIEW" | "TABLE"]
                | ["CREATE", "FLOW"]
                | ["APPLY", "CHANGES"]
                | ["AUTO", "CDC"]
        )
    }) || words
        .windows(3)
        .any(|w| w[0] == "CONSTRAINT" && (w[2] == "EXPECT" || w[2].starts_with("EXPECT(")))
}

/// A top-level mapping key, in block YAML or JSON.
fn has_key_at_top(text: &str, key: &str) -> bool {
    // Every form holds the key: a text without it (a checks file asked for
    // `run_configs`) is answered by one substring search, not line by line.
    if !text.contains(key) {
        return false;
    }
    let plain = format!("{key}:");
    let quoted = format!("\"{key}\":");
    let spaced = format!("\"{key}\" :");
    text.lines().any(|line| {
        let trimmed = line.trim_start();
        line.starts_with(&plain) || trimmed.starts_with(&quoted) || trimmed.starts_with(&spaced)
    })
}

/// A top-level list with an item holding `check`, or `criticality` and
/// `function` (DQX's flat form).
fn is_checks_list(text: &str) -> bool {
    let first = text
        .lines()
        .map(str::trim)
        .find(|l| !l.is_empty() && !l.starts_with('#') && *l != "---");
    let Some(first) = first else {
        return false;
    };
    if !(first.starts_with('-') || first.starts_with('[')) {
        return false;
    }
    has_key("check", text) || (has_key("criticality", text) && has_key("function", text))
}

/// Whether `key` appears as a mapping key: at the start of a line (after
/// indentation and a list dash) in block YAML, or quoted in JSON and flow
/// YAML. `health_check:` or `check_mode:` do not count.
fn has_key(key: &str, text: &str) -> bool {
    // As in `has_key_at_top`: no line can match without the key.
    if !text.contains(key) {
        return false;
    }
    let quoted = format!("\"{key}\"");
    let plain = format!("{key}:");
    // In a flow mapping or JSON, anywhere in the line.
    let inline = [
        format!("{quoted}:"),
        format!("{quoted} :"),
        format!("{{{plain}"),
        format!(", {plain}"),
        format!("{{ {plain}"),
    ];
    text.lines().any(|line| {
        let mut rest = line.trim_start();
        while let Some(after) = rest.strip_prefix('-') {
            rest = after.trim_start();
        }
        rest.starts_with(&plain)
            || rest.starts_with(&quoted)
            || (line.contains(key) && inline.iter().any(|p| line.contains(p.as_str())))
    })
}

/// The DQX kind of a YAML/JSON file outside LHP's layout, as the lint and
/// every re-lint after an edit decide it: the text must carry the markers
/// of [`classify`]; a file that parses must also have the structure DQX
/// reads (`dqlint_dqx::classify`), so a list that merely mentions `check:`
/// in a string is no checks file. A file that does not parse keeps the
/// text's verdict, so its syntax error is reported where DQX would fail.
pub fn dqx_kind(
    rel: &str,
    text: &str,
    yaml: Option<&dqlint_yaml::YamlFile>,
) -> Option<crate::FileKind> {
    let by_text = match classify(rel, text)? {
        Dialect::DqxChecks => crate::FileKind::DqxChecks,
        Dialect::DqxRunConfig => crate::FileKind::DqxRunConfig,
        _ => return None,
    };
    let parsed;
    let yaml = match yaml {
        Some(yaml) => yaml,
        None => {
            parsed = dqlint_yaml::parse(text);
            &parsed
        }
    };
    if !yaml.errors.is_empty() {
        return Some(by_text);
    }
    match dqlint_dqx::classify(yaml)? {
        dqlint_dqx::DqxFileKind::Checks => Some(crate::FileKind::DqxChecks),
        dqlint_dqx::DqxFileKind::RunConfig => Some(crate::FileKind::DqxRunConfig),
    }
}

/// The files under a root, each with its dialect.
#[derive(Clone, Debug)]
pub struct Workspace {
    pub root: PathBuf,
    pub marker: RootMarker,
    /// Files of the dialects other than LHP (whose files the LHP loader
    /// finds by its layout), sorted by path.
    pub files: Vec<(PathBuf, Dialect)>,
}

impl Workspace {
    /// The files of one dialect.
    pub fn files_of(&self, dialect: Dialect) -> impl Iterator<Item = &Path> + '_ {
        self.files
            .iter()
            .filter(move |(_, d)| *d == dialect)
            .map(|(p, _)| p.as_path())
    }

    /// Whether there is anything to lint: an LHP project, or a file of
    /// another dialect.
    pub fn is_empty(&self) -> bool {
        self.marker != RootMarker::LhpProject && self.files.is_empty()
    }
}

/// Folders no dialect's sources live in.
pub(crate) const SKIPPED: &[&str] = &[
    ".git",
    ".dqlint_cache",
    "node_modules",
    "target",
    ".venv",
    "venv",
    "__pycache__",
    ".lhp",
    "generated",
];

/// The workspace at `start`: its root, and the files of the non-LHP
/// dialects under it. In an LHP project the folders LHP reads by layout
/// (`pipelines`, `templates`, `presets`, `substitutions`, `blueprints`,
/// `config`) are LHP's and are not classified again; `.sql` files there
/// and elsewhere stay LHP's DDL unless they hold pipeline statements.
pub fn discover(start: &Path) -> Workspace {
    let (root, marker) = find_lint_root(start);
    let mut files = Vec::new();
    let _ = walk_dialect_files(&root, marker, &mut |path, dialect| {
        files.push((path.to_path_buf(), dialect));
        ControlFlow::Continue(())
    });
    Workspace {
        root,
        marker,
        files,
    }
}

/// Whether [`discover`] would find any file: the walk stops at the first
/// (what the CLI asks of a root without `lhp.yaml` before linting it, where
/// reading every file twice cost a large root a serial pass over its text).
pub fn holds_dialect_files(start: &Path) -> bool {
    let (root, marker) = find_lint_root(start);
    walk_dialect_files(&root, marker, &mut |_, _| ControlFlow::Break(())).is_break()
}

/// The files under `root` of a dialect other than LHP's layout, in name
/// order, each given to `found` until it breaks.
fn walk_dialect_files(
    root: &Path,
    marker: RootMarker,
    found: &mut dyn FnMut(&Path, Dialect) -> ControlFlow<()>,
) -> ControlFlow<()> {
    let lhp_layout = [
        "pipelines",
        "templates",
        "presets",
        "substitutions",
        "blueprints",
        "config",
    ];
    let walker = walkdir::WalkDir::new(root)
        .sort_by(crate::files::by_file_name)
        .into_iter()
        .filter_entry(|e| {
            let name = e.file_name().to_string_lossy();
            e.depth() == 0
                || !(SKIPPED.contains(&name.as_ref())
                    || (marker == RootMarker::LhpProject
                        && e.depth() == 1
                        && lhp_layout.contains(&name.as_ref())))
        });
    for entry in walker.flatten() {
        if !entry.file_type().is_file() {
            continue;
        }
        let path = entry.path();
        let wanted = path
            .extension()
            .and_then(|x| x.to_str())
            .is_some_and(|x| matches!(x, "py" | "sql" | "yaml" | "yml" | "json"));
        if !wanted {
            continue;
        }
        let Ok(text) = crate::files::read_from_disk(path) else {
            continue;
        };
        let rel = crate::files::relative_path(root, path);
        if marker == RootMarker::LhpProject && rel == "lhp.yaml" {
            continue;
        }
        if let Some(dialect) = classify(&rel, &text) {
            found(path, dialect)?;
        }
    }
    ControlFlow::Continue(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn holds_dialect_files_answers_as_discover_does() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::write(root.join("dqlint.toml"), "").unwrap();
        std::fs::write(root.join("notes.yml"), "title: not a check\n").unwrap();
        assert!(discover(root).files.is_empty());
        assert!(!holds_dialect_files(root));
        std::fs::create_dir(root.join("quality")).unwrap();
        std::fs::write(
            root.join("quality/checks.yml"),
            "- criticality: error\n  check:\n    function: is_not_null\n    arguments:\n      column: id\n",
        )
        .unwrap();
        assert_eq!(discover(root).files.len(), 1);
        assert!(holds_dialect_files(root));
        assert!(holds_dialect_files(&root.join("quality")));
    }

    #[test]
    fn classifies_by_the_markers_each_dialect_names() {
        assert_eq!(
            classify(
                "checks.yml",
                "- criticality: error\n  check:\n    function: is_not_null\n"
            ),
            Some(Dialect::DqxChecks)
        );
        assert_eq!(
            classify(
                "c.json",
                "[{\"criticality\": \"warn\", \"function\": \"is_not_null\"}]"
            ),
            Some(Dialect::DqxChecks)
        );
        assert_eq!(
            classify(
                ".dqx/config.yml",
                "log_level: INFO\nrun_configs:\n- name: default\n"
            ),
            Some(Dialect::DqxRunConfig)
        );
        assert_eq!(
            classify("p/orders.py", "import dlt\n\n@dlt.table\ndef t(): ...\n"),
            Some(Dialect::PipelinePython)
        );
        assert_eq!(
            classify("p/orders.py", "from pyspark import pipelines as dp\n"),
            Some(Dialect::PipelinePython)
        );
        assert_eq!(
            classify(
                "p/o.sql",
                "CREATE OR REFRESH STREAMING TABLE o (CONSTRAINT ok EXPECT (id > 0)) AS SELECT 1"
            ),
            Some(Dialect::PipelineSql)
        );
        // LHP DDL, plain Python, plain YAML: no dialect besides LHP's.
        assert_eq!(
            classify(
                "sql/dlq.sql",
                "CREATE TABLE IF NOT EXISTS c.s.t (id INT) CLUSTER BY (id);"
            ),
            None
        );
        assert_eq!(classify("x.py", "import os\nprint('dlt')\n"), None);
        assert_eq!(classify("x.yaml", "- name: a\n  value: b\n"), None);
        assert_eq!(classify("x.yaml", "check: 1\n"), None);
        assert_eq!(classify("README.md", "import dlt"), None);
        // Keys that merely end in `check` are no DQX marker (an Ansible
        // play's `health_check:`, `check_mode:`).
        assert_eq!(
            classify(
                "play.yml",
                "- hosts: all\n  tasks:\n    - health_check: {url: x}\n      check_mode: true\n"
            ),
            None
        );
        assert_eq!(
            classify("flow.yml", "- {name: a, check: {function: is_not_null}}\n"),
            Some(Dialect::DqxChecks)
        );
    }

    #[test]
    fn a_parsed_file_must_have_dqx_structure_a_broken_one_keeps_the_text_verdict() {
        use crate::FileKind;
        // `check:` as text inside a list item's string: not a checks file.
        let text = "- name: a\n  note: |\n    check: later\n";
        assert_eq!(dqx_kind("notes.yml", text, None), None);
        // A checks file with a syntax error stays one, so its syntax error is reported.
        let broken = "- criticality: error\n  check:\n    function: [is_not_null\n";
        assert_eq!(
            dqx_kind("checks.yml", broken, None),
            Some(FileKind::DqxChecks)
        );
        assert_eq!(
            dqx_kind("checks.yml", "broken: [\n- check: {}\n", None),
            None
        );
    }

    #[test]
    fn the_root_is_the_nearest_lhp_project_else_another_marker_else_the_path() {
        let tmp = std::env::temp_dir().join(format!("dqlint-discovery-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&tmp);
        let deep = tmp.join("repo/lhp/pipelines/bronze");
        std::fs::create_dir_all(&deep).unwrap();
        std::fs::create_dir_all(tmp.join("repo/.git")).unwrap();
        std::fs::write(tmp.join("repo/lhp/lhp.yaml"), "name: x\n").unwrap();
        std::fs::write(
            tmp.join("repo/checks.yml"),
            "- check: {function: is_not_null}\n",
        )
        .unwrap();
        let tmp = std::fs::canonicalize(&tmp).unwrap();

        let (root, marker) = find_lint_root(&deep);
        assert_eq!(
            (root, marker),
            (tmp.join("repo/lhp"), RootMarker::LhpProject)
        );
        let (root, marker) = find_lint_root(&tmp.join("repo/checks.yml"));
        assert_eq!((root, marker), (tmp.join("repo"), RootMarker::Git));

        let workspace = discover(&tmp.join("repo"));
        assert_eq!(
            workspace.files,
            vec![(tmp.join("repo/checks.yml"), Dialect::DqxChecks)]
        );
        assert!(!workspace.is_empty());
        std::fs::remove_file(tmp.join("repo/checks.yml")).unwrap();
        assert!(discover(&tmp.join("repo")).is_empty());
        // An LHP project always has something to lint.
        assert!(!discover(&tmp.join("repo/lhp")).is_empty());
        let _ = std::fs::remove_dir_all(&tmp);
    }
}
