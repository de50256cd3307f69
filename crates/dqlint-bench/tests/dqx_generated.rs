//! A generated DQX project lints clean, except for exactly the findings
//! planted in it (each one DQX's own validate_checks also rejects: checked
//! with the oracle when the generator was written, docs/performance.md).

use dqlint_bench::{generate_dqx, DqxPlan, DqxSummary};
use dqlint_linter::{lint, Selection};
use dqlint_project::{FileKind, LoadOptions, Project};

fn findings(plan: &DqxPlan) -> (DqxSummary, Vec<(String, String, String)>) {
    let dir = tempfile::tempdir().unwrap();
    let summary = generate_dqx(plan, dir.path()).unwrap();
    let project = Project::load(dir.path(), &LoadOptions::default())
        .expect("the generated project loads (a DQX-only root: no lhp.yaml)");
    assert!(!project.is_lhp());
    let checks_files = project
        .files
        .iter()
        .filter(|f| f.kind == FileKind::DqxChecks)
        .count();
    assert_eq!(
        checks_files, summary.checks_files,
        "every generated checks file is read as one"
    );
    let found = lint(&project, &Selection::default())
        .into_iter()
        .map(|d| {
            (
                d.rule.code.to_string(),
                project.file(d.primary.file).rel.clone(),
                d.message,
            )
        })
        .collect();
    (summary, found)
}

/// The findings are exactly the planted ones, file by file.
fn assert_exactly_planted(summary: &DqxSummary, found: &[(String, String, String)]) {
    let mut planted: Vec<(String, String)> = summary
        .planted
        .iter()
        .map(|p| (p.code.to_string(), p.file.clone()))
        .collect();
    let mut got: Vec<(String, String)> = found
        .iter()
        .map(|(code, file, _)| (code.clone(), file.clone()))
        .collect();
    planted.sort();
    got.sort();
    assert_eq!(got, planted, "findings: {found:#?}");
}

#[test]
fn a_generated_dqx_project_lints_clean() {
    let (summary, found) = findings(&DqxPlan {
        files: 60,
        plant_every: None,
        checks: None,
    });
    assert_eq!(summary.checks, 60 * 12);
    assert_eq!(summary.run_configs, 3);
    assert!(
        found.is_empty(),
        "false positives on a generated DQX project:\n{found:#?}"
    );
}

#[test]
fn exactly_the_planted_dqx_findings_are_reported() {
    let (summary, found) = findings(&DqxPlan {
        files: 80,
        plant_every: Some(5),
        checks: None,
    });
    assert_eq!(summary.planted.len(), 16);
    assert_exactly_planted(&summary, &found);
}

#[test]
fn files_of_a_hundred_checks_lint_clean_and_keep_their_planted_findings() {
    let (summary, found) = findings(&DqxPlan {
        files: 10,
        plant_every: None,
        checks: Some(100),
    });
    assert_eq!(summary.checks, 10 * 100);
    assert!(
        found.is_empty(),
        "false positives at 100 checks per file:\n{found:#?}"
    );
    let (summary, found) = findings(&DqxPlan {
        files: 20,
        plant_every: Some(5),
        checks: Some(100),
    });
    assert_exactly_planted(&summary, &found);
}
