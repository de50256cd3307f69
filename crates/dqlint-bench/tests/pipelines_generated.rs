//! A generated repository of pipeline sources lints clean, except for
//! exactly the findings planted in it.

use dqlint_bench::{generate_pipelines, PipelinePlan};
use dqlint_linter::{lint, Selection};
use dqlint_project::{FileKind, LoadOptions, Project};

/// `(code, file)` per finding.
type Found = Vec<(String, String)>;

/// The expectations generated, the findings, and the planted ones.
fn findings(plan: &PipelinePlan) -> (usize, Found, Found) {
    let dir = tempfile::tempdir().unwrap();
    let summary = generate_pipelines(plan, dir.path()).unwrap();
    let project = Project::load(dir.path(), &LoadOptions::default()).unwrap();
    let sources = project
        .files
        .iter()
        .filter(|f| f.kind.is_pipeline())
        .count();
    assert_eq!(sources, summary.python_files + summary.sql_files);
    assert!(project.files.iter().all(|f| f.kind != FileKind::Sql));
    let mut found: Found = lint(&project, &Selection::default())
        .into_iter()
        .map(|d| {
            (
                d.rule.code.to_string(),
                project.file(d.primary.file).rel.clone(),
            )
        })
        .collect();
    found.sort();
    let mut planted: Found = summary
        .planted
        .iter()
        .map(|p| (p.code.to_string(), p.file.clone()))
        .collect();
    planted.sort();
    (summary.expectations, found, planted)
}

#[test]
fn a_generated_pipeline_repository_lints_clean() {
    let (expectations, found, _) = findings(&PipelinePlan {
        files: 30,
        plant_every: None,
        datasets_per_module: None,
    });
    assert_eq!(expectations, 30 * 5 + 6 * 2);
    assert!(
        found.is_empty(),
        "false positives on generated pipeline sources:\n{found:#?}"
    );
}

#[test]
fn the_planted_mistakes_are_exactly_what_is_found() {
    let (_, found, planted) = findings(&PipelinePlan {
        files: 40,
        plant_every: Some(4),
        datasets_per_module: None,
    });
    assert!(planted.iter().any(|(c, _)| c == "DQ921"));
    assert_eq!(found, planted);
}

/// Issue 13's shape: modules of about 20 datasets (four Python feeds, seven
/// SQL ones), the first feed of a planted module planted.
#[test]
fn modules_of_twenty_datasets_lint_clean_but_for_the_planted_mistakes() {
    let clean = PipelinePlan {
        files: 10,
        plant_every: None,
        datasets_per_module: Some(20),
    };
    let (expectations, found, _) = findings(&clean);
    assert_eq!(expectations, 10 * 4 * 5 + 2 * 7 * 2);
    assert!(
        found.is_empty(),
        "false positives on generated pipeline sources:\n{found:#?}"
    );
    let (_, found, planted) = findings(&PipelinePlan {
        plant_every: Some(4),
        ..clean
    });
    assert!(planted.iter().any(|(c, _)| c == "DQ921"));
    assert_eq!(found, planted);
}
