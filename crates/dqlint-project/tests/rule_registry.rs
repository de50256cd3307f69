//! `[policy] registry` globs: the YAML files they name are loaded as the
//! team's rule registry (`FileKind::PolicyRegistry`) and read into entries.

use std::path::Path;

use dqlint_project::rule_registry::EntryForm;
use dqlint_project::{FileKind, LoadOptions, Project};

fn write(root: &Path, rel: &str, text: &str) {
    let path = root.join(rel);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

fn globs(patterns: &[&str]) -> globset::GlobSet {
    let mut builder = globset::GlobSetBuilder::new();
    for p in patterns {
        builder.add(globset::Glob::new(p).unwrap());
    }
    builder.build().unwrap()
}

#[test]
fn registry_globs_load_the_registry_files() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::create_dir(root.join(".git")).unwrap();
    write(
        root,
        "pipelines/orders.py",
        "from pyspark import pipelines as dp\n\n@dp.table\n@dp.expect_all_or_drop(get_rules(\"orders\"))\ndef orders():\n    return spark.readStream.table(\"raw\")\n",
    );
    write(
        root,
        "expectations/silver.yaml",
        "- name: valid_id\n  constraint: id IS NOT NULL\n  tag: orders\n",
    );
    write(
        root,
        "expectations/customers.yaml",
        "valid_email: email LIKE '%@%'\n",
    );
    write(root, "other/notes.yaml", "orders:\n  valid_id: id > 0\n");

    let without = Project::load(root, &LoadOptions::default()).unwrap();
    assert!(
        without
            .files
            .iter()
            .all(|f| f.kind != FileKind::PolicyRegistry),
        "no registry without [policy] registry"
    );
    assert!(without.rule_registry().is_empty());

    let options = LoadOptions {
        registry: Some(globs(&["expectations/**/*.yaml"])),
        ..LoadOptions::default()
    };
    let project = Project::load(root, &options).unwrap();
    let mut registry: Vec<(String, String, EntryForm)> = project
        .rule_registry()
        .iter()
        .flat_map(|f| {
            let rel = project.file(f.file).rel.clone();
            f.entries
                .iter()
                .map(move |e| (rel.clone(), e.name.clone(), e.form))
        })
        .collect();
    registry.sort_by(|a, b| a.0.cmp(&b.0));
    assert_eq!(
        registry,
        [
            (
                "expectations/customers.yaml".to_string(),
                "customers".to_string(),
                EntryForm::FileStem
            ),
            (
                "expectations/silver.yaml".to_string(),
                "orders".to_string(),
                EntryForm::Tag
            ),
        ]
    );
}
