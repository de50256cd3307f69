//! Every rule in the registry has a `fixtures/rules/<CODE>/bad` project that
//! triggers it and a `good` twin (the same project, mistake fixed) that
//! does not.
//!
//! A fixture folder may hold `.dqlint-test-envs`: environment names, one a
//! line, passed as `--env` (DQ602 needs an environment without a
//! substitutions file).

use std::path::{Path, PathBuf};

use dqlint_linter::{Diagnostic, Selection, RULES};
use dqlint_project::{LoadOptions, Project};

fn fixtures_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/rules")
}

fn envs_of(dir: &Path) -> Vec<String> {
    match std::fs::read_to_string(dir.join(".dqlint-test-envs")) {
        Ok(text) => text
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty() && !l.starts_with('#'))
            .map(String::from)
            .collect(),
        Err(_) => Vec::new(),
    }
}

/// Lints a fixture as the CLI does, with its `dqlint.toml` if it has one
/// (the DQX rules that need `[dqx]` settings).
fn lint_fixture(dir: &Path) -> (Project, Vec<Diagnostic>) {
    let config = dqlint_linter::Config::discover(dir, None)
        .unwrap_or_else(|e| panic!("{}: dqlint.toml: {e}", dir.display()));
    let options = LoadOptions {
        envs: envs_of(dir),
        ..config.load_options(&[])
    };
    let project = Project::load(dir, &options)
        .unwrap_or_else(|e| panic!("{}: cannot load: {e}", dir.display()));
    let diagnostics = dqlint_linter::lint_configured(&project, &config, &Selection::default());
    (project, diagnostics)
}

fn describe(project: &Project, diagnostics: &[Diagnostic]) -> String {
    if diagnostics.is_empty() {
        return "  (no findings)".into();
    }
    diagnostics
        .iter()
        .map(|d| {
            let file = project.file(d.primary.file);
            let p = file.lines.position(&file.text, d.primary.span.start);
            format!(
                "  {}:{}:{}: {}[{}] {}",
                file.rel,
                p.line,
                p.column,
                d.severity.as_str(),
                d.rule.code,
                d.message
            )
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn every_rule_has_a_bad_and_a_good_fixture() {
    let root = fixtures_root();
    let mut failures = Vec::new();
    for rule in RULES {
        for kind in ["bad", "good"] {
            let dir = root.join(rule.code).join(kind);
            if !dir.join("lhp.yaml").is_file() {
                failures.push(format!(
                    "missing fixture fixtures/rules/{}/{kind}/ (with an lhp.yaml)",
                    rule.code
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn bad_fixtures_trigger_their_rule_and_good_fixtures_do_not() {
    let root = fixtures_root();
    let mut failures = Vec::new();
    for rule in RULES {
        let bad = root.join(rule.code).join("bad");
        if bad.join("lhp.yaml").is_file() {
            let (project, found) = lint_fixture(&bad);
            if !found.iter().any(|d| d.rule.code == rule.code) {
                failures.push(format!(
                    "fixtures/rules/{0}/bad: expected at least one {0} ({1}) finding, got:\n{2}",
                    rule.code,
                    rule.name,
                    describe(&project, &found)
                ));
            }
        }
        let good = root.join(rule.code).join("good");
        if good.join("lhp.yaml").is_file() {
            let (project, found) = lint_fixture(&good);
            let own: Vec<Diagnostic> = found
                .into_iter()
                .filter(|d| d.rule.code == rule.code)
                .collect();
            if !own.is_empty() {
                failures.push(format!(
                    "fixtures/rules/{0}/good: expected no {0} finding, got:\n{1}",
                    rule.code,
                    describe(&project, &own)
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

/// The good twins are complete, valid projects (quarantine ones include the
/// DDL of their DLQ): no finding of any rule, not even an `info`.
#[test]
fn good_fixtures_are_clean() {
    let root = fixtures_root();
    let mut failures = Vec::new();
    for rule in RULES {
        let good = root.join(rule.code).join("good");
        if !good.join("lhp.yaml").is_file() {
            continue;
        }
        let (project, found) = lint_fixture(&good);
        if !found.is_empty() {
            failures.push(format!(
                "fixtures/rules/{}/good:\n{}",
                rule.code,
                describe(&project, &found)
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "good fixtures with findings:\n{}",
        failures.join("\n\n")
    );
}

/// Fixture folders that no registry code claims are stale (a renamed or
/// retired code).
#[test]
fn no_fixture_without_a_rule() {
    let root = fixtures_root();
    let Ok(entries) = std::fs::read_dir(&root) else {
        return;
    };
    let stale: Vec<String> = entries
        .filter_map(Result::ok)
        .filter(|e| e.path().is_dir())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|name| !RULES.iter().any(|r| r.code == name))
        .collect();
    assert!(
        stale.is_empty(),
        "fixture folders for codes not in the registry: {stale:?}"
    );
}
