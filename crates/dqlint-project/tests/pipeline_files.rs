//! Pipeline sources are found by their content, in an LHP project and in a
//! root without one, with the modules they import names from.

use std::path::Path;

use dqlint_project::{FileKind, LoadOptions, Project};

fn write(root: &Path, rel: &str, text: &str) {
    let path = root.join(rel);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

fn kinds(project: &Project) -> Vec<(String, FileKind)> {
    let mut out: Vec<(String, FileKind)> = project
        .files
        .iter()
        .map(|f| (f.rel.clone(), f.kind))
        .collect();
    out.sort_by(|a, b| a.0.cmp(&b.0));
    out
}

#[test]
fn a_root_without_lhp_reads_pipeline_sources_and_their_imported_modules() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::create_dir(root.join(".git")).unwrap();
    write(
        root,
        "src/orders.py",
        "from pyspark import pipelines as dp\nfrom rules import RULES\nimport os\n",
    );
    write(
        root,
        "src/rules.py",
        "RULES = {'valid_price': 'price > 0'}\n",
    );
    write(root, "src/tools.py", "def helper():\n    return 1\n");
    write(
        root,
        "src/dqx_job.py",
        "from databricks.labs.dqx.engine import DQEngine\n",
    );
    write(
        root,
        "sql/orders.sql",
        "CREATE OR REFRESH STREAMING TABLE orders AS SELECT * FROM STREAM(raw);\n",
    );
    write(root, "sql/report.sql", "SELECT 1;\n");
    write(root, ".venv/lib/dlt_stub.py", "import dlt\n");
    let project = Project::load(root, &LoadOptions::default()).unwrap();
    assert_eq!(
        kinds(&project),
        [
            ("sql/orders.sql".to_string(), FileKind::PipelineSql),
            ("src/dqx_job.py".to_string(), FileKind::PipelinePython),
            ("src/orders.py".to_string(), FileKind::PipelinePython),
            ("src/rules.py".to_string(), FileKind::PythonModule),
        ]
    );
}

#[test]
fn in_an_lhp_project_pipeline_sql_is_a_pipeline_source_and_ddl_stays_lhp_s() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(root, "lhp.yaml", "name: demo\nversion: \"1.0\"\n");
    write(root, "sql/dlq.sql", "CREATE TABLE main.ops.dlq (id STRING) TBLPROPERTIES ('delta.enableDeletionVectors' = 'true');\n");
    write(
        root,
        "sql/gold.sql",
        "CREATE MATERIALIZED VIEW gold AS SELECT * FROM silver;\n",
    );
    write(
        root,
        "notebooks/silver.py",
        "# Databricks notebook source\nimport dlt\n",
    );
    let project = Project::load(root, &LoadOptions::default()).unwrap();
    let kinds = kinds(&project);
    assert!(
        kinds.contains(&("sql/dlq.sql".into(), FileKind::Sql)),
        "{kinds:?}"
    );
    assert!(
        kinds.contains(&("sql/gold.sql".into(), FileKind::PipelineSql)),
        "{kinds:?}"
    );
    assert!(
        kinds.contains(&("notebooks/silver.py".into(), FileKind::PipelinePython)),
        "{kinds:?}"
    );
}

#[test]
fn modules_are_looked_for_beside_the_importer_then_at_the_root() {
    use dqlint_project::dialect::{imported_modules, module_candidates};
    assert_eq!(
        imported_modules("import os, sys as system\nfrom rules import RULES\nfrom .common.checks import A\n  from x import (y)\n"),
        ["os", "sys", "rules", ".common.checks", "x"]
    );
    assert_eq!(
        module_candidates("src/orders.py", "rules"),
        [
            "src/rules.py",
            "src/rules/__init__.py",
            "rules.py",
            "rules/__init__.py"
        ]
    );
    assert_eq!(
        module_candidates("src/a/orders.py", "..common.rules"),
        ["src/common/rules.py", "src/common/rules/__init__.py"]
    );
    assert_eq!(
        module_candidates("orders.py", "pkg.rules"),
        ["pkg/rules.py", "pkg/rules/__init__.py"]
    );
    assert!(module_candidates("orders.py", ".").is_empty());
}
