//! DQ403-DQ408 quick fixes: applying a finding's edits to a temp copy of
//! the rule's bad fixture and re-linting clears that finding. Plus a few
//! DLQ cases the fixtures do not cover (shared DLQ severity, ALTERs).

use std::path::{Path, PathBuf};

use dqlint::fix::{fixed_text, Syntax, TextEdit};
use dqlint_linter::{lint, Diagnostic, Edit, Selection, Severity};
use dqlint_project::{LoadOptions, Project};

fn fixture(code: &str, kind: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../fixtures/rules")
        .join(code)
        .join(kind)
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
}

fn lint_dir(dir: &Path) -> (Project, Vec<Diagnostic>) {
    let project = Project::load(dir, &LoadOptions::default()).unwrap();
    let found = lint(&project, &Selection::default());
    (project, found)
}

/// Applies edits (any order, non-overlapping) to the files of `dir` with
/// the applier `--fix` uses, which also refuses a fix that breaks the file.
fn apply(project: &Project, dir: &Path, edits: &[Edit]) {
    let mut by_file: std::collections::BTreeMap<String, Vec<TextEdit>> = Default::default();
    for e in edits {
        by_file
            .entry(project.file(e.file).rel.clone())
            .or_default()
            .push(TextEdit {
                span: e.span.clone(),
                new_text: e.new_text.clone(),
            });
    }
    for (rel, edits) in by_file {
        let path = dir.join(&rel);
        let text = std::fs::read_to_string(&path).unwrap();
        let fixed =
            fixed_text(Syntax::of(&path), &text, &edits).unwrap_or_else(|e| panic!("{rel}: {e}"));
        std::fs::write(&path, fixed).unwrap();
    }
}

#[test]
fn each_dlq_fix_clears_its_finding() {
    let mut checked = 0;
    for code in ["DQ403", "DQ404", "DQ405", "DQ406", "DQ407", "DQ408"] {
        let bad = fixture(code, "bad");
        let (project, found) = lint_dir(&bad);
        let own: Vec<&Diagnostic> = found.iter().filter(|d| d.rule.code == code).collect();
        assert!(!own.is_empty(), "{code}: bad fixture has no finding");
        for d in own {
            let Some(fix) = &d.fix else {
                // Only DQ408's extra-column warning has no fix.
                assert!(
                    code == "DQ408" && d.severity == Severity::Warning,
                    "{code}: no fix for `{}`",
                    d.message
                );
                continue;
            };
            let tmp = tempfile::tempdir().unwrap();
            copy_dir(&bad, tmp.path());
            apply(&project, tmp.path(), &fix.edits);
            let (_, after) = lint_dir(tmp.path());
            let still: Vec<&Diagnostic> = after
                .iter()
                .filter(|a| a.rule.code == code && a.message == d.message)
                .collect();
            assert!(
                still.is_empty(),
                "{code}: fix `{}` did not clear `{}`",
                fix.description,
                d.message
            );
            // The edited DDL still parses: no new DQ402/DQ403 appeared.
            assert!(
                !after
                    .iter()
                    .any(|a| a.rule.code == "DQ402" || (a.rule.code == "DQ403" && code != "DQ403")),
                "{code}: fix `{}` broke the DDL",
                fix.description
            );
            checked += 1;
        }
    }
    assert!(checked >= 6, "only {checked} fixes checked");
}

fn write_project(dir: &Path, actions: &[(&str, &str)], sql: &str) {
    std::fs::write(dir.join("lhp.yaml"), "name: demo\nversion: \"1.0\"\n").unwrap();
    std::fs::create_dir_all(dir.join("pipelines")).unwrap();
    std::fs::create_dir_all(dir.join("expectations")).unwrap();
    std::fs::create_dir_all(dir.join("sql")).unwrap();
    std::fs::write(
        dir.join("expectations/q.yaml"),
        "id IS NOT NULL:\n  action: drop\n  name: valid_id\n",
    )
    .unwrap();
    for (name, source_table) in actions {
        std::fs::write(
            dir.join(format!("pipelines/{name}.yaml")),
            format!(
                "pipeline: bronze\nflowgroup: {name}\n\nactions:\n  - name: load_{name}\n    type: load\n    readMode: stream\n    source:\n      type: cloudfiles\n      path: /Volumes/x/{name}\n      format: json\n    target: v_{name}_raw\n\n  - name: {name}_dq\n    type: transform\n    transform_type: data_quality\n    source: v_{name}_raw\n    target: v_{name}_validated\n    expectations_file: expectations/q.yaml\n    mode: quarantine\n    quarantine:\n      dlq_table: main.ops.dlq\n      source_table: {source_table}\n\n  - name: write_{name}\n    type: write\n    source: v_{name}_validated\n    write_target:\n      type: streaming_table\n      catalog: main\n      schema: bronze\n      table: {name}\n"
            ),
        )
        .unwrap();
    }
    std::fs::write(dir.join("sql/dlq.sql"), sql).unwrap();
}

fn dlq_findings(dir: &Path) -> Vec<(String, Severity, String, usize)> {
    let (_, found) = lint_dir(dir);
    found
        .iter()
        .filter(|d| d.rule.code.starts_with("DQ4"))
        .map(|d| {
            (
                d.rule.code.to_string(),
                d.severity,
                d.message.clone(),
                d.related.len(),
            )
        })
        .collect()
}

#[test]
fn shared_dlq_makes_dq406_and_dq407_errors_with_related_actions() {
    let tmp = tempfile::tempdir().unwrap();
    let sql = format!(
        "{}\n{}",
        dqlint_sql_inbox_without_dv_and_cluster(),
        "CREATE TABLE main.ops.dlq_outbox (_dlq_sk STRING NOT NULL, _dlq_source_table STRING NOT NULL, _row_data VARIANT NOT NULL, _dlq_recycled_at TIMESTAMP NOT NULL) CLUSTER BY (_dlq_source_table) TBLPROPERTIES ('delta.enableRowTracking' = 'true', 'delta.enableDeletionVectors' = 'true');\n"
    );
    write_project(
        tmp.path(),
        &[
            ("orders", "main.bronze.orders"),
            ("returns", "main.bronze.returns"),
        ],
        &sql,
    );
    let found = dlq_findings(tmp.path());
    let of = |code: &str| {
        found
            .iter()
            .filter(|f| f.0 == code)
            .cloned()
            .collect::<Vec<_>>()
    };
    assert_eq!(of("DQ406").len(), 1, "{found:?}");
    assert_eq!(of("DQ407").len(), 1, "{found:?}");
    for f in of("DQ406").iter().chain(of("DQ407").iter()) {
        assert_eq!(f.1, Severity::Error, "{f:?}");
        assert_eq!(f.3, 2, "related should name both sharing actions: {f:?}");
        assert!(f.2.contains("shared by 2"), "{f:?}");
    }
    assert!(
        of("DQ404").is_empty() && of("DQ405").is_empty() && of("DQ408").is_empty(),
        "{found:?}"
    );

    // Alone, the same DDL gives warnings.
    let tmp = tempfile::tempdir().unwrap();
    write_project(tmp.path(), &[("orders", "main.bronze.orders")], &sql);
    let found = dlq_findings(tmp.path());
    assert!(
        found
            .iter()
            .filter(|f| f.0 == "DQ406" || f.0 == "DQ407")
            .all(|f| f.1 == Severity::Warning),
        "{found:?}"
    );
    assert_eq!(
        found
            .iter()
            .filter(|f| f.0 == "DQ406" || f.0 == "DQ407")
            .count(),
        2,
        "{found:?}"
    );
}

fn dqlint_sql_inbox_without_dv_and_cluster() -> &'static str {
    "CREATE TABLE IF NOT EXISTS `Main`.ops.`DLQ` (\n    _dlq_sk STRING NOT NULL,\n    _dlq_source_table STRING NOT NULL,\n    _dlq_status STRING NOT NULL,\n    _dlq_timestamp TIMESTAMP NOT NULL,\n    _dlq_failed_rules ARRAY<STRUCT<name: STRING, rule: STRING>>,\n    _dlq_rescued_data STRING,\n    _row_data VARIANT NOT NULL\n)\nTBLPROPERTIES ('delta.enableChangeDataFeed' = 'true', 'delta.enableRowTracking' = 'true');\n"
}

#[test]
fn alters_apply_in_file_order_after_the_create() {
    let tmp = tempfile::tempdir().unwrap();
    // a.sql runs before b.sql; the ALTER in a.sql precedes the CREATE and is ignored,
    // the UNSET in b.sql removes row tracking, CLUSTER BY in b.sql clusters.
    let dir = tmp.path();
    write_project(dir, &[("orders", "main.bronze.orders")], "");
    std::fs::remove_file(dir.join("sql/dlq.sql")).unwrap();
    std::fs::write(
        dir.join("sql/a.sql"),
        "ALTER TABLE main.ops.dlq SET TBLPROPERTIES ('delta.enableDeletionVectors' = 'true');\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("sql/b.sql"),
        format!(
            "{}\nALTER TABLE main.ops.dlq UNSET TBLPROPERTIES ('delta.enableRowTracking');\nALTER TABLE main.ops.dlq CLUSTER BY (_dlq_source_table);\n",
            dqlint_sql_inbox_without_dv_and_cluster()
        ),
    )
    .unwrap();
    let found = dlq_findings(dir);
    let codes: Vec<&str> = found.iter().map(|f| f.0.as_str()).collect();
    assert!(codes.contains(&"DQ403"), "{found:?}");
    assert!(codes.contains(&"DQ405"), "{found:?}");
    assert!(
        codes.contains(&"DQ406"),
        "ALTER before CREATE must not count: {found:?}"
    );
    assert!(!codes.contains(&"DQ407"), "{found:?}");
    assert!(!codes.contains(&"DQ404"), "{found:?}");
    // The UNSET decides row tracking: no fix in the CREATE is offered.
    let (_, all) = lint_dir(dir);
    let dq405 = all.iter().find(|d| d.rule.code == "DQ405").unwrap();
    assert!(dq405.fix.is_none());
}

#[test]
fn dq408_fixes_repair_the_columns() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let sql = "CREATE TABLE IF NOT EXISTS main.ops.dlq (\n    _dlq_sk            STRING,\n    _dlq_source_table  STRING NOT NULL,\n    _dlq_status        STRING NOT NULL,\n    _dlq_timestamp     DATE NOT NULL COMMENT 'when',\n    _dlq_failed_rules  ARRAY<STRUCT<name STRING, rule STRING>>,\n    _row_data          VARIANT NOT NULL,\n    _extra             INT\n)\nCLUSTER BY (_dlq_source_table)\nTBLPROPERTIES ('delta.enableChangeDataFeed' = 'true', 'delta.enableRowTracking' = 'true', 'delta.enableDeletionVectors' = 'true');\n\nCREATE TABLE main.ops.dlq_outbox (_dlq_sk STRING NOT NULL, _dlq_source_table STRING NOT NULL, _row_data VARIANT NOT NULL, _dlq_recycled_at TIMESTAMP NOT NULL) CLUSTER BY (_dlq_source_table) TBLPROPERTIES ('delta.enableRowTracking' = 'true', 'delta.enableDeletionVectors' = 'true');\n";
    write_project(dir, &[("orders", "main.bronze.orders")], sql);
    let (project, found) = lint_dir(dir);
    let own: Vec<&Diagnostic> = found.iter().filter(|d| d.rule.code == "DQ408").collect();
    let messages: Vec<&str> = own.iter().map(|d| d.message.as_str()).collect();
    assert_eq!(own.len(), 4, "{messages:#?}");
    assert_eq!(
        own.iter()
            .filter(|d| d.severity == Severity::Warning)
            .count(),
        1,
        "{messages:#?}"
    );
    let edits: Vec<Edit> = own
        .iter()
        .filter_map(|d| d.fix.as_ref())
        .flat_map(|f| f.edits.clone())
        .collect();
    assert_eq!(edits.len(), 3, "{messages:#?}");
    apply(&project, dir, &edits);
    let (_, after) = lint_dir(dir);
    let left: Vec<&str> = after
        .iter()
        .filter(|d| d.rule.code.starts_with("DQ4"))
        .map(|d| d.message.as_str())
        .collect();
    assert_eq!(
        left.len(),
        1,
        "{left:#?}\n{}",
        std::fs::read_to_string(dir.join("sql/dlq.sql")).unwrap()
    );
    assert!(left[0].contains("_extra"), "{left:#?}");
}

/// DQ402's fix (unsafe) appends the canonical inbox and outbox DDL to the
/// project's `.sql` file; after it no DQ4xx finding is left. Without any
/// `.sql` file there is no fix to offer.
#[test]
fn dq402_fix_appends_the_contract_ddl() {
    let bare = tempfile::tempdir().unwrap();
    copy_dir(&fixture("DQ402", "bad"), bare.path());
    std::fs::remove_dir_all(bare.path().join("sql")).unwrap();
    let (_, found) = lint_dir(bare.path());
    let d = found
        .iter()
        .find(|d| d.rule.code == "DQ402")
        .expect("a DQ402");
    assert!(d.fix.is_none(), "no .sql file, no fix: {d:#?}");

    // The fixture has a `.sql` file without the DLQ's DDL.
    let dir = tempfile::tempdir().unwrap();
    copy_dir(&fixture("DQ402", "bad"), dir.path());
    let (project, found) = lint_dir(dir.path());
    let d = found
        .iter()
        .find(|d| d.rule.code == "DQ402")
        .expect("a DQ402");
    let fix = d.fix.as_ref().expect("a fix now that a .sql file exists");
    assert_eq!(fix.applicability, dqlint_linter::Applicability::Unsafe);
    apply(&project, dir.path(), &fix.edits);
    let text = std::fs::read_to_string(dir.path().join("sql/ops.sql")).unwrap();
    assert!(
        text.starts_with(
            "-- Operational tables of the orders feed.\n\nCREATE TABLE IF NOT EXISTS ${catalog}.ops.dlq ("
        ),
        "{text}"
    );
    let (project, found) = lint_dir(dir.path());
    let left: Vec<String> = found
        .iter()
        .filter(|d| d.rule.code.starts_with("DQ4"))
        .map(|d| {
            format!(
                "{} {}: {}",
                project.file(d.primary.file).rel,
                d.rule.code,
                d.message
            )
        })
        .collect();
    assert!(left.is_empty(), "{left:#?}");
}
