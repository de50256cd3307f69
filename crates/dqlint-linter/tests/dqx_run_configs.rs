//! DQX run configs (`config.yml`) and the checks files they name.
//!
//! `fixtures/dqx-run-configs` holds realistic valid run configs (an
//! installer-style one with every section, streaming ones with triggers
//! and checkpoints, tables, volumes and cloud paths), each loaded without a
//! dropped value by DQX 0.17.0 (`../shared/tools/dqx_config_oracle.py`):
//! dqlint must find nothing in them. The checks files they name (relative
//! to the config's folder, the default `checks.yml` included) are checks
//! files whatever their content.

use std::path::{Path, PathBuf};

use dqlint_linter::{lint, Selection};
use dqlint_project::{FileKind, LoadOptions, Project};

fn valid_project() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/dqx-run-configs")
}

fn codes_in(dir: &Path) -> (Project, Vec<String>) {
    let project = Project::load(dir, &LoadOptions::default()).unwrap();
    let found = lint(&project, &Selection::default())
        .iter()
        .map(|d| {
            format!(
                "{} {}@{:?}: {}",
                d.rule.code,
                project.file(d.primary.file).rel,
                d.primary.span,
                d.message
            )
        })
        .collect();
    (project, found)
}

fn kind_of(project: &Project, rel: &str) -> Option<FileKind> {
    project.files.iter().find(|f| f.rel == rel).map(|f| f.kind)
}

#[test]
fn valid_run_configs_raise_nothing() {
    let (project, found) = codes_in(&valid_project());
    assert_eq!(found, Vec::<String>::new());
    for rel in [
        ".dqx/config.yml",
        "streaming/config.yml",
        "multi/config.yml",
    ] {
        assert_eq!(
            kind_of(&project, rel),
            Some(FileKind::DqxRunConfig),
            "{rel}"
        );
    }
    // Named (the default `checks.yml`, comment-only: an empty list) and
    // relative to the config's folder.
    for rel in [".dqx/checks.yml", "multi/checks/customers.yml"] {
        assert_eq!(kind_of(&project, rel), Some(FileKind::DqxChecks), "{rel}");
    }
}

fn write(dir: &Path, files: &[(&str, &str)]) {
    std::fs::write(dir.join("lhp.yaml"), "name: t\n").unwrap();
    for (rel, text) in files {
        let path = dir.join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
}

#[test]
fn a_named_file_is_a_checks_file_whatever_its_content() {
    let tmp = tempfile::tempdir().unwrap();
    write(
        tmp.path(),
        &[
            (
                "dq/config.yml",
                "run_configs:\n- name: a\n  checks_location: a.yml\n- name: b\n  checks_location: ../b.yaml\n- name: c\n  checks_location: empty.yml\n- name: d\n  checks_location: /Workspace/x/d.yml\n- name: e\n  checks_location: main.dq.checks\n",
            ),
            (
                "dq/a.yml",
                "checks:\n  - criticality: error\n    check:\n      function: is_not_null\n      arguments:\n        column: id\n",
            ),
            ("b.yaml", "just a string\n"),
            ("dq/empty.yml", ""),
            // Not named: an ordinary YAML file stays none of dqlint's.
            ("dq/other.yml", "a: 1\n"),
        ],
    );
    let (project, found) = codes_in(tmp.path());
    assert_eq!(kind_of(&project, "dq/a.yml"), Some(FileKind::DqxChecks));
    assert_eq!(kind_of(&project, "b.yaml"), Some(FileKind::DqxChecks));
    assert_eq!(kind_of(&project, "dq/empty.yml"), Some(FileKind::DqxChecks));
    assert_eq!(kind_of(&project, "dq/other.yml"), None);
    let dq801: Vec<&String> = found.iter().filter(|f| f.starts_with("DQ801")).collect();
    assert_eq!(dq801.len(), 2, "{found:#?}");
    assert!(
        dq801.iter().any(|f| f.contains(" b.yaml@0..13")),
        "{dq801:?}"
    );
    assert!(
        dq801.iter().any(|f| f.contains(" dq/a.yml@0..6")),
        "{dq801:?}"
    );
}

#[test]
fn the_unwrap_fix_makes_the_list_the_top_level() {
    let tmp = tempfile::tempdir().unwrap();
    let text = "checks:\n  - criticality: error\n    check:\n      function: is_not_null\n      arguments:\n        column: id\n";
    write(
        tmp.path(),
        &[
            ("config.yml", "run_configs:\n- checks_location: c.yml\n"),
            ("c.yml", text),
        ],
    );
    let project = Project::load(tmp.path(), &LoadOptions::default()).unwrap();
    let findings = lint(&project, &Selection::default());
    let d = findings.iter().find(|d| d.rule.code == "DQ801").unwrap();
    let edit = &d.fix.as_ref().unwrap().edits[0];
    let mut fixed = text.to_string();
    fixed.replace_range(edit.span.clone(), &edit.new_text);
    assert_eq!(
        fixed,
        "- criticality: error\n  check:\n    function: is_not_null\n    arguments:\n      column: id\n"
    );
}

#[test]
fn checkpoints_are_shared_across_run_config_files() {
    let tmp = tempfile::tempdir().unwrap();
    let config = |name: &str| {
        format!(
            "run_configs:\n- name: {name}\n  input_config: {{location: a.b, is_streaming: true}}\n  output_config:\n    location: a.{name}\n    options: {{checkpointLocation: /Volumes/c/s/cp/}}\n"
        )
    };
    write(
        tmp.path(),
        &[
            ("x/config.yml", &config("x")),
            ("y/config.yml", &config("y")),
        ],
    );
    let (_, found) = codes_in(tmp.path());
    assert_eq!(found.len(), 1, "{found:#?}");
    assert!(found[0].starts_with("DQ856 y/config.yml"), "{found:#?}");
}
