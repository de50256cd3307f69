//! The expectation rules of pipeline sources (DQ901-DQ904, DQ910-DQ912)
//! on the seed fixtures and on projects of several files: what a rule
//! finds where, and what stays silent.

use std::path::Path;

use dqlint_linter::{lint_configured, Config, Selection};
use dqlint_project::{LoadOptions, Project};

const OURS: &[&str] = &[
    "DQ901", "DQ902", "DQ903", "DQ904", "DQ910", "DQ911", "DQ912",
];

/// `CODE file:line: text-at-span` for the expectation rules' findings.
fn findings_in(dir: &Path, config: &Config) -> Vec<String> {
    let project = Project::load(dir, &LoadOptions::default()).unwrap();
    lint_configured(&project, config, &Selection::default())
        .iter()
        .filter(|d| OURS.contains(&d.rule.code))
        .map(|d| {
            let file = project.file(d.primary.file);
            let line = file.lines.position(&file.text, d.primary.span.start).line;
            format!(
                "{} {}:{}: {}",
                d.rule.code,
                file.rel,
                line,
                &file.text[d.primary.span.clone()]
            )
        })
        .collect()
}

fn project(files: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for (rel, text) in files {
        let path = dir.path().join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
    dir
}

fn seeds(name: &str) -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../fixtures/pipelines")
        .join(name)
}

#[test]
fn seed_004_warn_only_expect_is_reported_and_its_fix_is_not() {
    let found = findings_in(&seeds("seed-004"), &Config::default());
    assert_eq!(found, ["DQ912 before.py:5: silver_ledger"]);
}

#[test]
fn seed_002_has_no_expectation_finding() {
    let found = findings_in(&seeds("seed-002"), &Config::default());
    assert_eq!(found, Vec::<String>::new());
}

#[test]
fn a_udf_registered_in_another_pipeline_source() {
    let dir = project(&[
        (
            "pipelines/udfs.py",
            "from pyspark import pipelines as dp\n\
             spark.udf.register('valid_sku', lambda s: s is not None)\n",
        ),
        (
            "pipelines/orders.py",
            "from pyspark import pipelines as dp\n\
             @dp.table\n\
             @dp.expect_or_drop('sku', 'valid_sku(sku) AND upper(sku) <> \\'X\\'')\n\
             def orders():\n    return spark.readStream.table('raw')\n",
        ),
    ]);
    let found = findings_in(dir.path(), &Config::default());
    assert_eq!(found, ["DQ910 pipelines/orders.py:3: valid_sku"]);
    // Not reported twice: the unknown-function finding leaves it to DQ910.
    let project = Project::load(dir.path(), &LoadOptions::default()).unwrap();
    let all = dqlint_linter::lint(&project, &Selection::default());
    let codes: Vec<_> = all.iter().map(|d| d.rule.code).collect();
    assert_eq!(codes, ["DQ910"], "{all:#?}");
}

#[test]
fn rules_imported_from_a_project_module_are_checked_there() {
    let dir = project(&[
        (
            "pipelines/rules.py",
            "RULES = {'valid_id': 'id IS NOT NULL', 'valid_id': 'id > 0'}\nLOADED = load()\n",
        ),
        (
            "pipelines/orders.py",
            "from pyspark import pipelines as dp\n\
             from .rules import RULES, LOADED\n\
             @dp.table\n\
             @dp.expect_all_or_drop(RULES)\n\
             @dp.expect_all(LOADED)\n\
             def orders():\n    return spark.readStream.table('raw')\n",
        ),
    ]);
    let found = findings_in(dir.path(), &Config::default());
    // The other module's duplicate key is not this file's dict literal;
    // its unknown value is reported at the import.
    assert_eq!(found, ["DQ911 pipelines/orders.py:2: LOADED"]);
}

/// A SQL error in a rule dict of another module is reported at its
/// characters there, once for every source that imports it, with each
/// use a related location; a text that mixes this file's characters with
/// the module's stays where it is written.
#[test]
fn sql_of_rules_imported_from_a_project_module_is_reported_where_written() {
    let rules =
        "RULES = {\n    'valid_id': 'id IS NOT NULL',\n    'valid_price': 'price > = 0',\n}\n";
    let user = |name: &str| {
        format!(
            "from pyspark import pipelines as dp\n\
             from .rules import RULES\n\
             @dp.table\n\
             @dp.expect_all_or_drop(RULES)\n\
             def {name}():\n    return spark.readStream.table('raw')\n"
        )
    };
    let mixed = "from pyspark import pipelines as dp\n\
                 from .rules import RULES\n\
                 @dp.table\n\
                 @dp.expect('mixed', f\"NOT ({RULES['valid_id']}) AND\")\n\
                 def mixed():\n    return spark.readStream.table('raw')\n";
    let (orders, returns) = (user("orders"), user("returns"));
    let dir = project(&[
        ("pipelines/rules.py", rules),
        ("pipelines/orders.py", &orders),
        ("pipelines/returns.py", &returns),
        ("pipelines/mixed.py", mixed),
    ]);
    let project = Project::load(dir.path(), &LoadOptions::default()).unwrap();
    let at = |file: dqlint_project::FileId, span: &std::ops::Range<usize>| {
        let file = project.file(file);
        let line = file.lines.position(&file.text, span.start).line;
        format!("{}:{}: {}", file.rel, line, &file.text[span.clone()])
    };
    let found: Vec<(String, Vec<String>)> =
        lint_configured(&project, &Config::default(), &Selection::default())
            .iter()
            .filter(|d| d.rule.code.starts_with("DQ3"))
            .map(|d| {
                (
                    at(d.primary.file, &d.primary.span),
                    d.related
                        .iter()
                        .map(|r| {
                            format!("{} ({})", at(r.location.file, &r.location.span), r.message)
                        })
                        .collect(),
                )
            })
            .collect();
    let imported = |dataset: &str| {
        format!(
            "pipelines/{dataset}.py:2: RULES (imported here by the expectations of `{dataset}`)"
        )
    };
    assert_eq!(
        found,
        [
            ("pipelines/mixed.py:4: AND".to_string(), Vec::new()),
            (
                "pipelines/rules.py:3: =".to_string(),
                vec![imported("orders"), imported("returns")]
            ),
        ],
        "{found:#?}"
    );

    // Where the finding is, a comment suppresses it.
    std::fs::write(
        dir.path().join("pipelines/rules.py"),
        rules.replace("0',", "0',  # dqlint: ignore[DQ301] reviewed"),
    )
    .unwrap();
    let project = Project::load(dir.path(), &LoadOptions::default()).unwrap();
    let codes: Vec<String> = lint_configured(&project, &Config::default(), &Selection::default())
        .iter()
        .filter(|d| d.rule.code.starts_with("DQ3") || d.rule.code == "DQ009")
        .map(|d| format!("{} {}", d.rule.code, project.file(d.primary.file).rel))
        .collect();
    assert_eq!(codes, ["DQ307 pipelines/mixed.py"]);
}

#[test]
fn a_configured_rule_loader_is_not_reported_as_not_static() {
    let files = [(
        "pipelines/orders.py",
        "from pyspark import pipelines as dp\n\
         @dp.table\n\
         @dp.expect_all_or_drop(get_rules('orders'))\n\
         @dp.expect_all(other('orders'))\n\
         def orders():\n    return spark.readStream.table('raw')\n",
    )];
    let dir = project(&files);
    let found = findings_in(dir.path(), &Config::default());
    assert_eq!(
        found,
        [
            "DQ911 pipelines/orders.py:3: get_rules('orders')",
            "DQ911 pipelines/orders.py:4: other('orders')"
        ]
    );
    std::fs::write(
        dir.path().join("dqlint.toml"),
        "[dlt]\nrule_loaders = [\"get_rules\"]\n",
    )
    .unwrap();
    let config = Config::discover(dir.path(), None).unwrap();
    let found = findings_in(dir.path(), &config);
    assert_eq!(found, ["DQ911 pipelines/orders.py:4: other('orders')"]);
}

#[test]
fn misplaced_and_unknown_decorators_in_one_function() {
    let dir = project(&[(
        "pipelines/orders.py",
        "from pyspark import pipelines as dp\n\
         @dp.expect('above', 'a > 0')\n\
         @dp.table\n\
         @dp.expect_or_drop('ok', 'b > 0')\n\
         @dp.expect_or_drop('ok', 'c > 0')\n\
         @dp.expect_or_quarantine('q', 'd > 0')\n\
         @dp.expect_or_fail('only_name')\n\
         def orders():\n    return spark.readStream.table('raw')\n\
         @dp.append_flow(target='orders')\n\
         @dp.expect('on_flow', 'e > 0')\n\
         def backfill():\n    return spark.readStream.table('old')\n",
    )]);
    let found = findings_in(dir.path(), &Config::default());
    assert_eq!(
        found,
        [
            "DQ902 pipelines/orders.py:2: @dp.expect('above', 'a > 0')",
            "DQ904 pipelines/orders.py:5: ok",
            "DQ901 pipelines/orders.py:6: expect_or_quarantine",
            "DQ903 pipelines/orders.py:7: ('only_name')",
            "DQ902 pipelines/orders.py:11: @dp.expect('on_flow', 'e > 0')",
        ]
    );
}

#[test]
fn python_that_is_no_pipeline_source_gets_nothing() {
    let dir = project(&[(
        "jobs/report.py",
        "import pandas as pd\n@table\n@expect_or_quarantine('a', 'b')\ndef t():\n    return 1\n",
    )]);
    assert_eq!(
        findings_in(dir.path(), &Config::default()),
        Vec::<String>::new()
    );
}

#[test]
fn a_udf_registered_in_an_imported_helper_module() {
    let dir = project(&[
        (
            "pipelines/helpers/checks.py",
            "from pyspark.sql.functions import udf\n\
             @udf('boolean')\n\
             def valid_sku(s):\n    return s is not None\n\
             spark.udf.register('valid_sku', valid_sku)\n",
        ),
        (
            "pipelines/orders.py",
            "from pyspark import pipelines as dp\n\
             from helpers.checks import valid_sku\n\
             @dp.table\n\
             @dp.expect_or_drop('sku', 'valid_sku(sku)')\n\
             def orders():\n    return spark.readStream.table('raw')\n",
        ),
    ]);
    let project = Project::load(dir.path(), &LoadOptions::default()).unwrap();
    let all = dqlint_linter::lint(&project, &Selection::default());
    let codes: Vec<_> = all.iter().map(|d| d.rule.code).collect();
    assert_eq!(codes, ["DQ910"], "{all:#?}");
    let related = &all[0].related;
    assert!(
        related
            .iter()
            .any(|r| project.file(r.location.file).rel == "pipelines/helpers/checks.py"),
        "the related location is the helper module: {all:#?}"
    );
}
