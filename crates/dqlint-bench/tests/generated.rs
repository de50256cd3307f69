//! A generated project lints clean, except for exactly the findings planted
//! in it: the generator doubles as a false-positive check.

use std::collections::BTreeMap;

use dqlint_bench::{generate, Plan};
use dqlint_linter::{lint, Selection};
use dqlint_project::{LoadOptions, Project};

fn findings(plan: &Plan) -> (dqlint_bench::Summary, Vec<(String, String, String)>) {
    let dir = tempfile::tempdir().unwrap();
    let summary = generate(plan, dir.path()).unwrap();
    let project =
        Project::load(dir.path(), &LoadOptions::default()).expect("the generated project loads");
    assert_eq!(
        project.flowgroups.len(),
        summary.flowgroups,
        "every generated flowgroup is seen"
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

#[test]
fn a_generated_project_lints_clean() {
    // Two domains, the second one partial: every layer and file shape.
    let (summary, found) = findings(&Plan {
        flowgroups: 170,
        plant_every: None,
    });
    assert_eq!(summary.flowgroups, 170);
    assert!(summary.quarantine_actions >= 20 && summary.dq_actions > summary.quarantine_actions);
    assert!(
        found.is_empty(),
        "false positives on a generated project:\n{found:#?}"
    );
}

#[test]
fn exactly_the_planted_findings_are_reported() {
    let (summary, found) = findings(&Plan {
        flowgroups: 300,
        plant_every: 3.into(),
    });
    let planted: Vec<(String, String)> = summary
        .planted
        .iter()
        .map(|p| (p.code.to_string(), p.file.clone()))
        .collect();
    let mut got: Vec<(String, String)> = found
        .iter()
        .map(|(c, f, _)| (c.clone(), f.clone()))
        .collect();
    got.sort();
    let by_code = |items: &[(String, String)]| {
        let mut m: BTreeMap<String, usize> = BTreeMap::new();
        for (c, _) in items {
            *m.entry(c.clone()).or_default() += 1;
        }
        m
    };
    assert!(
        planted.len() >= 9,
        "every kind is planted more than once: {planted:?}"
    );
    assert_eq!(by_code(&got), by_code(&planted), "findings:\n{found:#?}");
    assert_eq!(got, planted);
}
