//! Real LHP projects from `shared/corpus/lhp-examples`: the exact findings
//! per code, each checked by hand against the files. A change in these
//! numbers is either a fixed false positive/negative (update the counts and
//! say why) or a regression.
//!
//! Skipped, with a note, when the corpus is not checked out next to the
//! workspace.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use dqlint_linter::{lint, Diagnostic, Selection};
use dqlint_project::{LoadOptions, Project};

fn corpus(name: &str) -> Option<PathBuf> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../../shared/corpus/lhp-examples")
        .join(name);
    if path.join("lhp.yaml").is_file() {
        Some(path)
    } else {
        eprintln!(
            "note: corpus project {} not found; test skipped",
            path.display()
        );
        None
    }
}

fn lint_all_envs(root: &Path) -> (Project, Vec<Diagnostic>) {
    let project = Project::load(root, &LoadOptions::default()).expect("the corpus project loads");
    let diagnostics = lint(&project, &Selection::default());
    (project, diagnostics)
}

fn counts(diagnostics: &[Diagnostic]) -> BTreeMap<&'static str, usize> {
    let mut out = BTreeMap::new();
    for d in diagnostics {
        *out.entry(d.rule.code).or_insert(0) += 1;
    }
    out
}

fn listing(project: &Project, diagnostics: &[Diagnostic]) -> String {
    diagnostics
        .iter()
        .map(|d| {
            let file = project.file(d.primary.file);
            let p = file.lines.position(&file.text, d.primary.span.start);
            format!(
                "{}:{}:{} {} {} {:?}",
                file.rel, p.line, p.column, d.rule.code, d.message, d.envs
            )
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// `acmi` (TPC-H on Databricks), with `include: q_testing/**`: one
/// quarantine flowgroup and its raw ingestion, environments dev/tst/prod.
///
/// - DQ603 x11: every token of the two flowgroups is written bare
///   (`{catalog}`, `{raw_schema}`, `{bronze_schema}`, `{landing_volume}`):
///   product_quarantine_bronze.yaml lines 12 (x2), 29 (x2), 30 (x2), 38 (x2);
///   product_raw_ingestion.yaml lines 13, 31 (x2).
/// - DQ207 x2: expectations/product_quarantine_quality.yaml, used by the
///   quarantine action, has `non_negative_stock` as `warn` (line 8) and
///   `valid_product_name` as `fail` (line 11): both run as `drop`.
/// - DQ402 x1 (info): SQL/create_dlq.sql hard-codes `acme_edw_dev`, so in
///   prod and tst the DLQ `{catalog}.{raw_schema}.universal_dlq` has no DDL.
/// - DQ406 x2, DQ407 x2 (warnings: one action uses the DLQ): in dev the
///   inbox and the outbox of SQL/create_dlq.sql have neither
///   `delta.enableDeletionVectors` nor `CLUSTER BY (_dlq_source_table)`.
/// - DQ005 x1: lhp.yaml's `required_lhp_version: ">=0.5.0,<0.8.0"` excludes
///   LHP 0.9.3, which stops there (LHP-CFG-007).
#[test]
fn acmi() {
    let Some(root) = corpus("acmi") else { return };
    let (project, found) = lint_all_envs(&root);
    let expected: BTreeMap<&str, usize> = [
        ("DQ005", 1),
        ("DQ207", 2),
        ("DQ402", 1),
        ("DQ406", 2),
        ("DQ407", 2),
        ("DQ603", 11),
    ]
    .into_iter()
    .collect();
    assert_eq!(
        counts(&found),
        expected,
        "acmi findings changed:\n{}",
        listing(&project, &found)
    );

    let at = |code: &str| -> Vec<String> {
        found
            .iter()
            .filter(|d| d.rule.code == code)
            .map(|d| {
                let file = project.file(d.primary.file);
                format!(
                    "{}:{}",
                    file.rel,
                    file.lines.position(&file.text, d.primary.span.start).line
                )
            })
            .collect()
    };
    assert_eq!(
        at("DQ207"),
        vec![
            "expectations/product_quarantine_quality.yaml:8",
            "expectations/product_quarantine_quality.yaml:11"
        ]
    );
    assert_eq!(
        at("DQ402"),
        vec!["pipelines/q_testing/product_quarantine_bronze.yaml:29"]
    );
    let dq402 = found.iter().find(|d| d.rule.code == "DQ402").unwrap();
    assert_eq!(
        dq402.envs,
        vec!["prod".to_string(), "tst".to_string()],
        "dev has the DDL"
    );
    for code in ["DQ406", "DQ407"] {
        assert!(
            at(code)
                .iter()
                .all(|l| l.starts_with("SQL/create_dlq.sql:")),
            "{code}: {:?}",
            at(code)
        );
    }
    let dq603_files: Vec<String> = at("DQ603");
    assert_eq!(
        dq603_files
            .iter()
            .filter(|l| l.starts_with("pipelines/q_testing/product_quarantine_bronze.yaml"))
            .count(),
        8
    );
    assert_eq!(
        dq603_files
            .iter()
            .filter(|l| l.starts_with("pipelines/q_testing/product_raw_ingestion.yaml"))
            .count(),
        3
    );
    assert!(
        found
            .iter()
            .all(|d| d.severity != dqlint_linter::Severity::Error),
        "no error in acmi"
    );
}

/// `performance_testing`: ~2,800 generated files; 480 dqe actions (and a
/// template's) all use `expectations/generic_quality.json`, a valid list of
/// `expression`/`failureAction` rules; no quarantine, no bare token; the one
/// CDC write (`finance/stock_prices_scd2.yaml`) sequences by
/// `_sequence_timestamp`, cast from `trade_date` (event time, not DQ702).
/// Nothing to report, and it must stay so.
#[test]
fn performance_testing() {
    let Some(root) = corpus("performance_testing") else {
        return;
    };
    let (project, found) = lint_all_envs(&root);
    assert!(
        project.files.len() > 1000,
        "the whole project is loaded ({} files)",
        project.files.len()
    );
    assert!(
        found.is_empty(),
        "performance_testing has no finding:\n{}",
        listing(&project, &found)
    );
}
