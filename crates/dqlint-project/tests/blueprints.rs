//! Blueprint instances expand into flowgroups as LHP stamps them.

use std::path::Path;

use dqlint_project::{LoadOptions, ProblemKind, Project, Via};
use tempfile::TempDir;

const BLUEPRINT: &str = r#"name: site_quality
version: "1.0"
parameters:
  - name: site
    required: true
  - name: layer
    default: bronze
flowgroups:
  - pipeline: "quality_%{site}"
    flowgroup: "orders_dq_%{site}"
    actions:
      - name: "orders_dq_%{site}"
        type: transform
        transform_type: data_quality
        source: "v_orders_%{site}"
        target: "v_orders_%{site}_%{layer}"
        expectations_file: "expectations/%{site}.yaml"
"#;

fn project(files: &[(&str, &str)]) -> TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("lhp.yaml"), "name: bp\nversion: \"1.0\"\n").unwrap();
    for (rel, text) in files {
        let path = dir.path().join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
    dir
}

fn load(dir: &Path) -> Project {
    Project::load(dir, &LoadOptions::default()).unwrap()
}

fn problems(project: &Project) -> Vec<(ProblemKind, String)> {
    project
        .flowgroups
        .iter()
        .flat_map(|fg| fg.problems.iter().map(|p| (p.kind, p.message.clone())))
        .collect()
}

#[test]
fn an_instance_stamps_every_spec_with_its_parameters_and_defaults() {
    let dir = project(&[
        ("blueprints/site_quality.yaml", BLUEPRINT),
        (
            "pipelines/sites/north.yaml",
            "use_blueprint: site_quality\nparameters:\n  site: north\n",
        ),
        (
            "pipelines/sites/south.yaml",
            "use_blueprint: site_quality\nparameters:\n  site: south\n  layer: silver\n",
        ),
    ]);
    let project = load(dir.path());
    assert!(problems(&project).is_empty(), "{:?}", problems(&project));
    let mut names: Vec<_> = project
        .flowgroups
        .iter()
        .map(|fg| fg.name.clone().unwrap())
        .collect();
    names.sort();
    assert_eq!(names, ["orders_dq_north", "orders_dq_south"]);
    let south = project
        .flowgroups
        .iter()
        .find(|fg| fg.name.as_deref() == Some("orders_dq_south"))
        .unwrap();
    let action = &south.actions[0];
    assert_eq!(action.get_str("target"), Some("v_orders_south_silver"));
    assert_eq!(
        action.get_str("expectations_file"),
        Some("expectations/south.yaml")
    );
    let north = project
        .flowgroups
        .iter()
        .find(|fg| fg.name.as_deref() == Some("orders_dq_north"))
        .unwrap();
    assert_eq!(
        north.actions[0].get_str("target"),
        Some("v_orders_north_bronze"),
        "the default applies"
    );

    // The value points at the blueprint's text and names the instance.
    let origin = &action.get("target").unwrap().origin;
    assert_eq!(
        project.file(origin.file).rel,
        "blueprints/site_quality.yaml"
    );
    match origin.via.as_deref() {
        Some(Via::Blueprint { name, use_site }) => {
            assert_eq!(name, "site_quality");
            assert_eq!(
                project.file(use_site.file).rel,
                "pipelines/sites/south.yaml"
            );
        }
        other => panic!("expected blueprint provenance, got {other:?}"),
    }
}

#[test]
fn instance_mistakes_are_reported_where_the_instance_says_them() {
    let dir = project(&[
        ("blueprints/site_quality.yaml", BLUEPRINT),
        (
            "pipelines/a.yaml",
            "use_blueprint: site_qualty\nparameters:\n  site: a\n",
        ),
        (
            "pipelines/b.yaml",
            "use_blueprint: site_quality\nparameters:\n  layer: gold\n",
        ),
        (
            "pipelines/c.yaml",
            "use_blueprint: site_quality\nparameters:\n  site: c\n  region: eu\n",
        ),
    ]);
    let project = load(dir.path());
    let found = problems(&project);
    let has =
        |kind: ProblemKind, text: &str| found.iter().any(|(k, m)| *k == kind && m.contains(text));
    assert!(
        has(
            ProblemKind::BlueprintProblem,
            "blueprint `site_qualty` not found (known blueprints: site_quality)"
        ),
        "{found:?}"
    );
    assert!(
        has(ProblemKind::BlueprintProblem, "needs parameter `site`"),
        "{found:?}"
    );
    assert!(
        has(ProblemKind::BlueprintProblem, "has no parameter `region`"),
        "{found:?}"
    );
    // Only the instance with a complete parameter set is stamped.
    let stamped: Vec<_> = project
        .flowgroups
        .iter()
        .filter_map(|fg| fg.name.clone())
        .collect();
    assert_eq!(stamped, ["orders_dq_c"]);
}

#[test]
fn undeclared_variables_and_misplaced_blueprints_are_reported() {
    let spec_with_typo = BLUEPRINT.replace("\"v_orders_%{site}\"", "\"v_orders_%{sit}\"");
    let dir = project(&[
        ("blueprints/site_quality.yaml", &spec_with_typo),
        (
            "pipelines/north.yaml",
            "use_blueprint: site_quality\nparameters:\n  site: north\n",
        ),
        ("pipelines/misplaced.yaml", BLUEPRINT),
    ]);
    let project = load(dir.path());
    let found = problems(&project);
    assert!(
        found
            .iter()
            .any(|(k, m)| *k == ProblemKind::UndefinedVariable
                && m.contains("`%{sit}` stays unresolved: it is not a parameter")),
        "{found:?}"
    );
    assert!(
        found
            .iter()
            .any(|(k, m)| *k == ProblemKind::Structure && m.contains("LHP-CFG-040")),
        "{found:?}"
    );
}

#[test]
fn blueprint_include_replaces_the_default_folder() {
    let dir = project(&[
        ("shared/bp/site_quality.yml", BLUEPRINT),
        (
            "pipelines/north.yaml",
            "use_blueprint: site_quality\nparameters:\n  site: north\n",
        ),
    ]);
    std::fs::write(
        dir.path().join("lhp.yaml"),
        "name: bp\nblueprint_include:\n  - shared/bp/*.yml\n",
    )
    .unwrap();
    let project = load(dir.path());
    assert!(problems(&project).is_empty(), "{:?}", problems(&project));
    assert_eq!(project.flowgroups.len(), 1);
}

#[test]
fn the_corpus_blueprint_instance_expands() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../../shared/corpus/lhp-examples/performance_testing");
    if !root.join("lhp.yaml").is_file() {
        eprintln!("corpus not found at {}: skipped", root.display());
        return;
    }
    let project = load(&root);
    let site1: Vec<_> = project
        .flowgroups
        .iter()
        .filter(|fg| {
            project.file(fg.file).rel
                == "pipelines/blueprints/domain_u_site1_BP_domain_u_end_to_end.yaml"
        })
        .collect();
    assert!(
        site1.len() >= 4,
        "the instance stamps the blueprint's flowgroups, got {}",
        site1.len()
    );
    assert!(site1
        .iter()
        .any(|fg| fg.name.as_deref() == Some("purchase_order_ingestion_site1")));
    assert!(
        site1.iter().all(|fg| fg.problems.is_empty()),
        "{:?}",
        site1.iter().map(|f| &f.problems).collect::<Vec<_>>()
    );
}

#[test]
fn a_spec_variable_wins_over_the_instance_parameter() {
    let blueprint = BLUEPRINT.replace(
        "    flowgroup: \"orders_dq_%{site}\"\n",
        "    flowgroup: \"orders_dq_%{site}\"\n    variables:\n      layer: gold\n",
    );
    let dir = project(&[
        ("blueprints/site_quality.yaml", &blueprint),
        (
            "pipelines/south.yaml",
            "use_blueprint: site_quality\nparameters:\n  site: south\n  layer: silver\n",
        ),
    ]);
    let project = load(dir.path());
    assert!(problems(&project).is_empty(), "{:?}", problems(&project));
    assert_eq!(
        project.flowgroups[0].actions[0].get_str("target"),
        Some("v_orders_south_gold")
    );
}

#[test]
fn duplicate_names_and_several_documents_are_reported() {
    let dir = project(&[
        ("blueprints/a.yaml", BLUEPRINT),
        ("blueprints/b.yaml", &format!("{BLUEPRINT}---\nname: other\nflowgroups: []\n")),
        ("pipelines/north.yaml", "use_blueprint: site_quality\nparameters:\n  site: north\n---\nuse_blueprint: site_quality\nparameters:\n  site: south\n"),
    ]);
    let project = load(dir.path());
    let all: Vec<(ProblemKind, String)> = problems(&project)
        .into_iter()
        .chain(project.problems.iter().map(|p| (p.kind, p.message.clone())))
        .collect();
    let has =
        |kind: ProblemKind, text: &str| all.iter().any(|(k, m)| *k == kind && m.contains(text));
    assert!(
        has(
            ProblemKind::BlueprintProblem,
            "also defined in `blueprints/a.yaml`"
        ),
        "{all:?}"
    );
    assert!(has(ProblemKind::Structure, "LHP-CFG-048"), "{all:?}");
    assert!(has(ProblemKind::Structure, "LHP-CFG-052"), "{all:?}");
    let names: Vec<_> = project
        .flowgroups
        .iter()
        .filter_map(|fg| fg.name.clone())
        .collect();
    assert_eq!(
        names,
        ["orders_dq_north"],
        "only the first instance document is stamped"
    );
}

#[test]
fn an_unset_optional_parameter_is_reported_once_per_spec() {
    let blueprint = BLUEPRINT.replace("    required: true\n", "    required: false\n");
    let dir = project(&[
        ("blueprints/site_quality.yaml", &blueprint),
        (
            "pipelines/north.yaml",
            "use_blueprint: site_quality\nparameters: {}\n",
        ),
    ]);
    let project = load(dir.path());
    let found = problems(&project);
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(found[0].1.contains("`%{site}` stays unresolved: parameter `site` of blueprint `site_quality` is not set by this instance and has no default"), "{found:?}");
}
