//! Suppression comments and DQ009, on small projects: what a directive
//! hides, where it must stand, and when an unused one is reported.

use std::path::Path;

use dqlint_linter::{lint_configured, Config, Diagnostic, Selection};
use dqlint_project::Project;
use tempfile::TempDir;

const LHP: &str = "name: suppressions\nversion: \"1.0\"\n";
const DEV: &str = "dev:\n  catalog: acme_dev\n";
const PROD: &str = "prod:\n  catalog: acme_prod\n";

/// A quarantine action on `expectations/orders.yaml`: a `warn` rule there
/// is a DQ207 finding.
const FLOWGROUP: &str = "pipeline: bronze
flowgroup: orders
actions:
  - name: orders_dq
    type: transform
    transform_type: data_quality
    source: v_orders_raw
    target: v_orders_validated
    expectations_file: expectations/orders.yaml
    mode: quarantine
    quarantine:
      dlq_table: ${catalog}.ops.dlq
      source_table: ${catalog}.bronze.orders
";

const DDL: &str = "CREATE TABLE IF NOT EXISTS ${catalog}.ops.dlq (
    _dlq_sk STRING NOT NULL, _dlq_source_table STRING NOT NULL, _dlq_status STRING NOT NULL,
    _dlq_timestamp TIMESTAMP NOT NULL, _dlq_failed_rules ARRAY<STRUCT<name: STRING, rule: STRING>>,
    _dlq_rescued_data STRING, _row_data VARIANT NOT NULL
)
CLUSTER BY (_dlq_source_table)
TBLPROPERTIES ('delta.enableChangeDataFeed' = 'true', 'delta.enableRowTracking' = 'true', 'delta.enableDeletionVectors' = 'true');
CREATE TABLE IF NOT EXISTS ${catalog}.ops.dlq_outbox (
    _dlq_sk STRING NOT NULL, _dlq_source_table STRING NOT NULL, _row_data VARIANT NOT NULL,
    _dlq_recycled_at TIMESTAMP NOT NULL
)
CLUSTER BY (_dlq_source_table)
TBLPROPERTIES ('delta.enableRowTracking' = 'true', 'delta.enableDeletionVectors' = 'true');
";

fn project(expectations: &str, extra: &[(&str, &str)]) -> TempDir {
    let dir = tempfile::tempdir().unwrap();
    let mut files = vec![
        ("lhp.yaml", LHP),
        ("substitutions/dev.yaml", DEV),
        ("substitutions/prod.yaml", PROD),
        ("pipelines/bronze/orders.yaml", FLOWGROUP),
        ("expectations/orders.yaml", expectations),
        ("sql/dlq.sql", DDL),
    ];
    for (rel, text) in extra {
        files.retain(|(r, _)| r != rel);
        files.push((rel, text));
    }
    for (rel, text) in files {
        let path = dir.path().join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
    dir
}

fn run(
    dir: &Path,
    config: &Config,
    selection: &Selection,
    envs: &[&str],
) -> (Project, Vec<Diagnostic>) {
    let envs: Vec<String> = envs.iter().map(|e| e.to_string()).collect();
    let project = Project::load(dir, &config.load_options(&envs)).unwrap();
    let found = lint_configured(&project, config, selection);
    (project, found)
}

/// `file:line CODE` per finding.
fn findings(dir: &Path) -> Vec<String> {
    let (project, found) = run(dir, &Config::default(), &Selection::default(), &[]);
    describe(&project, &found)
}

fn describe(project: &Project, found: &[Diagnostic]) -> Vec<String> {
    found
        .iter()
        .map(|d| {
            let file = project.file(d.primary.file);
            format!(
                "{}:{} {}",
                file.rel,
                file.lines.position(&file.text, d.primary.span.start).line,
                d.rule.code
            )
        })
        .collect()
}

fn dq009(dir: &Path) -> Vec<Diagnostic> {
    let (_, found) = run(dir, &Config::default(), &Selection::default(), &[]);
    found
        .into_iter()
        .filter(|d| d.rule.code == "DQ009")
        .collect()
}

/// The text after applying a finding's fix.
fn fixed(dir: &Path, d: &Diagnostic) -> String {
    let (project, _) = run(dir, &Config::default(), &Selection::default(), &[]);
    let fix = d.fix.as_ref().expect("DQ009 has a fix");
    let mut text = project.file(fix.edits[0].file).text.to_string();
    let mut edits = fix.edits.clone();
    edits.sort_by_key(|e| std::cmp::Reverse(e.span.start));
    for e in edits {
        text.replace_range(e.span.clone(), &e.new_text);
    }
    text
}

const WARN_RULE: &str = "amount >= 0:\n  action: warn\n  name: non_negative_amount\n";

#[test]
fn the_unsuppressed_project_has_one_dq207() {
    let dir = project(WARN_RULE, &[]);
    assert_eq!(findings(dir.path()), ["expectations/orders.yaml:2 DQ207"]);
}

#[test]
fn end_of_line_and_line_above_suppress() {
    let trailing = project(
        "amount >= 0:\n  action: warn  # dqlint: ignore[DQ207] on purpose\n  name: n\n",
        &[],
    );
    assert_eq!(findings(trailing.path()), Vec::<String>::new());
    let above = project(
        "amount >= 0:\n  # dqlint: ignore[quarantine-coerces-action] on purpose\n  # (an explanation may follow)\n  action: warn\n  name: n\n",
        &[],
    );
    assert_eq!(findings(above.path()), Vec::<String>::new());
    let prefix = project(
        "amount >= 0:\n  action: warn  # dqlint: ignore[DQ2]\n  name: n\n",
        &[],
    );
    assert_eq!(findings(prefix.path()), Vec::<String>::new());
    let partly = project(
        "amount >= 0:\n  action: warn  # dqlint: ignore[DQ3, DQ2]\n  name: n\n",
        &[],
    );
    let reports = dq009(partly.path());
    assert_eq!(
        reports.len(),
        1,
        "`DQ2` hides the finding, `DQ3` hides nothing"
    );
    assert_eq!(
        reports[0].message,
        "unused suppression of `DQ3`: no such finding on this line"
    );
    assert_eq!(
        fixed(partly.path(), &reports[0]),
        "amount >= 0:\n  action: warn  # dqlint: ignore[DQ2]\n  name: n\n"
    );
}

#[test]
fn a_directive_elsewhere_does_not_suppress_and_is_reported() {
    let dir = project(
        "amount >= 0:\n  # dqlint: ignore[DQ207]\n\n  action: warn\n  name: n\n",
        &[],
    );
    assert_eq!(
        findings(dir.path()),
        [
            "expectations/orders.yaml:2 DQ009",
            "expectations/orders.yaml:4 DQ207"
        ]
    );
    let wrong_code = project(
        "amount >= 0:\n  action: warn  # dqlint: ignore[DQ303]\n  name: n\n",
        &[],
    );
    assert_eq!(
        findings(wrong_code.path()),
        [
            "expectations/orders.yaml:2 DQ207",
            "expectations/orders.yaml:2 DQ009"
        ]
    );
}

#[test]
fn ignore_file_works_only_in_leading_comments() {
    let leading = project("# Rules of the orders feed.\n\n# dqlint: ignore-file[DQ207]\namount >= 0:\n  action: warn\n  name: n\n", &[]);
    assert_eq!(findings(leading.path()), Vec::<String>::new());
    let after_document_start = project(
        "---\n# dqlint: ignore-file[DQ207]\namount >= 0:\n  action: warn\n  name: n\n",
        &[],
    );
    assert_eq!(findings(after_document_start.path()), Vec::<String>::new());
    let late = project(
        "amount >= 0:\n  action: warn\n  name: n\n# dqlint: ignore-file[DQ207]\n",
        &[],
    );
    assert_eq!(
        findings(late.path()),
        [
            "expectations/orders.yaml:2 DQ207",
            "expectations/orders.yaml:4 DQ009"
        ]
    );
    assert!(dq009(late.path())[0].message.contains("leading comments"));
}

#[test]
fn bare_ignore_covers_every_rule_of_its_line_but_not_its_own_report() {
    let used = project(
        "amount >= 0:\n  action: warn  # dqlint: ignore\n  name: n\n",
        &[],
    );
    assert_eq!(findings(used.path()), Vec::<String>::new());
    let unused = project(
        "amount >= 0:  # dqlint: ignore\n  action: drop\n  name: n\n",
        &[],
    );
    assert_eq!(
        findings(unused.path()),
        ["expectations/orders.yaml:1 DQ009"]
    );
}

#[test]
fn dq009_is_hidden_only_by_naming_it() {
    let kept = project("amount >= 0:\n  action: drop  # dqlint: ignore[DQ207, DQ009] kept for the next release\n  name: n\n", &[]);
    assert_eq!(findings(kept.path()), Vec::<String>::new());
    let prefix = project(
        "amount >= 0:\n  action: drop  # dqlint: ignore[DQ0]\n  name: n\n",
        &[],
    );
    assert_eq!(
        findings(prefix.path()),
        ["expectations/orders.yaml:2 DQ009"]
    );
}

#[test]
fn unknown_codes_are_reported_and_fixed_alone() {
    let dir = project(
        "amount >= 0:\n  action: warn  # dqlint: ignore[DQ207, DQ999] why\n  name: n\n",
        &[],
    );
    let reports = dq009(dir.path());
    assert_eq!(reports.len(), 1);
    assert!(
        reports[0].message.contains("`DQ999` is not a dqlint rule"),
        "{}",
        reports[0].message
    );
    assert_eq!(
        fixed(dir.path(), &reports[0]),
        "amount >= 0:\n  action: warn  # dqlint: ignore[DQ207] why\n  name: n\n"
    );
}

#[test]
fn the_fix_removes_the_comment_or_its_line() {
    let trailing = project(
        "amount >= 0:\n  action: drop  # dqlint: ignore[DQ207]\n  name: n\n",
        &[],
    );
    let report = &dq009(trailing.path())[0];
    assert_eq!(
        fixed(trailing.path(), report),
        "amount >= 0:\n  action: drop\n  name: n\n"
    );
    let own_line = project(
        "amount >= 0:\n  # dqlint: ignore[DQ207]\n  action: drop\n  name: n\n",
        &[],
    );
    let report = &dq009(own_line.path())[0];
    assert_eq!(
        fixed(own_line.path(), report),
        "amount >= 0:\n  action: drop\n  name: n\n"
    );
    let with_note = project(
        "amount >= 0:\n  action: drop  # checked by finance; dqlint: ignore[DQ207]\n  name: n\n",
        &[],
    );
    let report = &dq009(with_note.path())[0];
    assert_eq!(
        fixed(with_note.path(), report),
        "amount >= 0:\n  action: drop  # checked by finance;\n  name: n\n"
    );
}

/// Issue 16, case 6: the explanation after a directive is the user's
/// text; removing the directive keeps it (and the comment it is in).
#[test]
fn the_fix_keeps_the_explanation_after_the_directive() {
    let cases = [
        (
            "amount >= 0:\n  action: drop  # dqlint: ignore[DQ207] kept as warn on purpose\n  name: n\n",
            "amount >= 0:\n  action: drop  # kept as warn on purpose\n  name: n\n",
        ),
        (
            "amount >= 0:\n  # dqlint: ignore[DQ207]: see OPS-12\n  action: drop\n  name: n\n",
            "amount >= 0:\n  # see OPS-12\n  action: drop\n  name: n\n",
        ),
        (
            "amount >= 0:\n  action: drop  # finance: dqlint: ignore -- until Q3\n  name: n\n",
            "amount >= 0:\n  action: drop  # finance: until Q3\n  name: n\n",
        ),
    ];
    for (before, after) in cases {
        let dir = project(before, &[]);
        let reports = dq009(dir.path());
        assert_eq!(reports.len(), 1, "{before}");
        assert_eq!(fixed(dir.path(), &reports[0]), after);
    }
    // SQL `--` comments too.
    let sql = project(
        "amount >= 0:\n  action: drop\n  name: n\n",
        &[(
            "sql/dlq.sql",
            "SELECT 1;  -- dqlint: ignore[DQ409] nightly job, scoped by hand\n",
        )],
    );
    let reports = dq009(sql.path());
    assert_eq!(reports.len(), 1);
    assert_eq!(
        fixed(sql.path(), &reports[0]),
        "SELECT 1;  -- nightly job, scoped by hand\n"
    );
}

#[test]
fn rules_that_did_not_run_leave_no_unused_report() {
    let dir = project(
        "amount >= 0:\n  action: drop  # dqlint: ignore[DQ207]\n  name: n\n",
        &[],
    );
    let deselected = Selection {
        select: vec![],
        ignore: vec!["DQ207".into()],
    };
    let (project, found) = run(dir.path(), &Config::default(), &deselected, &[]);
    assert_eq!(describe(&project, &found), Vec::<String>::new());
    let config = Config::parse(
        "[[overrides]]\nfiles = [\"expectations/**\"]\nignore = [\"DQ2\"]\n",
        Path::new("dqlint.toml"),
    )
    .unwrap();
    let (project, found) = run(dir.path(), &config, &Selection::default(), &[]);
    assert_eq!(describe(&project, &found), Vec::<String>::new());
}

#[test]
fn narrowed_environments_leave_no_unused_report() {
    let dir = project(
        "amount >= 0:\n  action: drop  # dqlint: ignore[DQ207]\n  name: n\n",
        &[],
    );
    let (project, found) = run(
        dir.path(),
        &Config::default(),
        &Selection::default(),
        &["dev"],
    );
    assert_eq!(describe(&project, &found), Vec::<String>::new());
    let (project, found) = run(
        dir.path(),
        &Config::default(),
        &Selection::default(),
        &["dev", "prod"],
    );
    assert_eq!(
        describe(&project, &found),
        ["expectations/orders.yaml:2 DQ009"]
    );
    // The configuration may declare the environments that matter.
    let config = Config::parse("envs = [\"dev\"]\n", Path::new("dqlint.toml")).unwrap();
    let (project, found) = run(dir.path(), &config, &Selection::default(), &[]);
    assert_eq!(
        describe(&project, &found),
        ["expectations/orders.yaml:2 DQ009"]
    );
}

const UNSCOPED_UPDATE: &str =
    "UPDATE ${catalog}.ops.dlq SET _dlq_status = 'fixed' WHERE _dlq_status = 'quarantined'";

#[test]
fn sql_comments_suppress_but_not_inside_strings() {
    let plain = project(
        WARN_RULE,
        &[("sql/fix.sql", &format!("{UNSCOPED_UPDATE};\n"))],
    );
    assert!(findings(plain.path()).contains(&"sql/fix.sql:1 DQ409".to_string()));
    let trailing = project(
        WARN_RULE,
        &[(
            "sql/fix.sql",
            &format!("{UNSCOPED_UPDATE}; -- dqlint: ignore[DQ409] every source\n"),
        )],
    );
    assert!(!findings(trailing.path())
        .iter()
        .any(|f| f.starts_with("sql/")));
    let above = project(
        WARN_RULE,
        &[(
            "sql/fix.sql",
            &format!("-- dqlint: ignore[dlq-update-not-scoped]\n{UNSCOPED_UPDATE};\n"),
        )],
    );
    assert!(!findings(above.path()).iter().any(|f| f.starts_with("sql/")));
    let file = project(
        WARN_RULE,
        &[(
            "sql/fix.sql",
            &format!("-- Cleanup.\n-- dqlint: ignore-file[DQ4]\n\n{UNSCOPED_UPDATE};\n"),
        )],
    );
    assert!(!findings(file.path()).iter().any(|f| f.starts_with("sql/")));
    let in_string = project(
        WARN_RULE,
        &[(
            "sql/fix.sql",
            &format!("{UNSCOPED_UPDATE} AND _dlq_sk <> '-- dqlint: ignore[DQ409]';\n"),
        )],
    );
    let found = findings(in_string.path());
    assert!(
        found.contains(&"sql/fix.sql:1 DQ409".to_string())
            && !found.iter().any(|f| f.ends_with("DQ009")),
        "{found:?}"
    );
}

#[test]
fn json_files_have_no_suppressions() {
    let json = r#"[{"name": "n", "constraint": "amount >= 0", "type": "expect"}]"#;
    let flowgroup = FLOWGROUP.replace("expectations/orders.yaml", "expectations/orders.json");
    let dir = project(
        WARN_RULE,
        &[
            ("expectations/orders.json", json),
            ("pipelines/bronze/orders.yaml", &flowgroup),
        ],
    );
    assert_eq!(findings(dir.path()), ["expectations/orders.json:1 DQ207"]);
}

#[test]
fn a_finding_in_a_template_is_suppressed_in_the_template() {
    let template = "name: dq_feed
parameters:
  - name: entity
    required: true
actions:
  - name: \"{{ entity }}_dq\"
    type: transform
    transform_type: data_quality
    source: v_raw
    target: v_validated
    readMode: batch  # dqlint: ignore[DQ105] batch on purpose
    expectations_file: expectations/orders.yaml
";
    let flowgroup = "pipeline: bronze\nflowgroup: orders\nuse_template: dq_feed\ntemplate_parameters:\n  entity: orders\n";
    let unsuppressed = template.replace("  # dqlint: ignore[DQ105] batch on purpose", "");
    let dir = project(
        WARN_RULE,
        &[
            ("templates/dq_feed.yaml", &unsuppressed),
            ("pipelines/bronze/orders.yaml", flowgroup),
        ],
    );
    assert_eq!(findings(dir.path()), ["templates/dq_feed.yaml:11 DQ105"]);
    let dir = project(
        WARN_RULE,
        &[
            ("templates/dq_feed.yaml", template),
            ("pipelines/bronze/orders.yaml", flowgroup),
        ],
    );
    assert_eq!(findings(dir.path()), Vec::<String>::new());
}

#[test]
fn configured_severity_applies_per_file() {
    let dir = project(WARN_RULE, &[]);
    let config = Config::parse("[severity]\nDQ207 = \"error\"\n[[overrides]]\nfiles = [\"legacy/**\"]\nseverity = { DQ207 = \"info\" }\n", Path::new("dqlint.toml")).unwrap();
    let (_, found) = run(dir.path(), &config, &Selection::default(), &[]);
    assert_eq!(found[0].severity, dqlint_linter::Severity::Error);
    let config = Config::parse("[[overrides]]\nfiles = [\"expectations/*.yaml\"]\nseverity = { quarantine-coerces-action = \"info\" }\n", Path::new("dqlint.toml")).unwrap();
    let (_, found) = run(dir.path(), &config, &Selection::default(), &[]);
    assert_eq!(found[0].severity, dqlint_linter::Severity::Info);
}

#[test]
fn ddl_globs_choose_the_sql_files() {
    let dir = project(
        WARN_RULE,
        &[("sql/scratch/old.sql", &format!("{UNSCOPED_UPDATE};\n"))],
    );
    assert!(findings(dir.path()).contains(&"sql/scratch/old.sql:1 DQ409".to_string()));
    let config = Config::parse("ddl = [\"sql/*.sql\"]\n", Path::new("dqlint.toml")).unwrap();
    let (project, found) = run(dir.path(), &config, &Selection::default(), &[]);
    assert_eq!(
        describe(&project, &found),
        ["expectations/orders.yaml:2 DQ207"]
    );
    let config = Config::parse("ddl = [\"other/*.sql\"]\n", Path::new("dqlint.toml")).unwrap();
    let (project, found) = run(dir.path(), &config, &Selection::default(), &[]);
    assert!(
        describe(&project, &found)
            .iter()
            .any(|f| f.ends_with("DQ402")),
        "without the DDL file, the DLQ has no DDL"
    );
}

/// The edit "suppress on this line" makes, applied; `None` when none is
/// offered.
fn suppressed_text(dir: &Path, code: &str) -> Option<(String, Vec<String>)> {
    let (project, found) = run(dir, &Config::default(), &Selection::default(), &[]);
    let d = found
        .iter()
        .find(|d| d.rule.code == code)
        .expect("the finding to suppress");
    let file = project.file(d.primary.file);
    let edit = dqlint_linter::suppression::suppress_edit(file, d.rule, d.primary.span.start)?;
    let mut text = file.text.to_string();
    text.replace_range(edit.span.clone(), &edit.new_text);
    std::fs::write(&file.path, &text).unwrap();
    Some((text, findings(dir)))
}

#[test]
fn suppress_on_this_line_appends_a_comment_and_hides_the_finding() {
    let dir = project(WARN_RULE, &[]);
    let (text, after) = suppressed_text(dir.path(), "DQ207").unwrap();
    assert_eq!(
        text,
        "amount >= 0:\n  action: warn  # dqlint: ignore[DQ207]\n  name: non_negative_amount\n"
    );
    assert_eq!(after, Vec::<String>::new());

    let dir = project(
        WARN_RULE,
        &[("sql/fix.sql", &format!("{UNSCOPED_UPDATE};\n"))],
    );
    let (text, after) = suppressed_text(dir.path(), "DQ409").unwrap();
    assert_eq!(
        text,
        format!("{UNSCOPED_UPDATE};  -- dqlint: ignore[DQ409]\n")
    );
    assert!(!after.iter().any(|f| f.starts_with("sql/")), "{after:?}");
}

#[test]
fn suppress_on_this_line_extends_a_directive_already_there() {
    let dir = project(
        "amount >= 0:\n  action: warn  # dqlint: ignore[DQ303] reason\n  name: n\n",
        &[],
    );
    let (text, after) = suppressed_text(dir.path(), "DQ207").unwrap();
    assert_eq!(
        text,
        "amount >= 0:\n  action: warn  # dqlint: ignore[DQ303, DQ207] reason\n  name: n\n"
    );
    assert_eq!(
        after,
        ["expectations/orders.yaml:2 DQ009"],
        "DQ303 was unused before and still is"
    );
}

#[test]
fn suppress_on_this_line_is_not_offered_where_a_comment_cannot_go() {
    // Inside a block scalar `#` is text: neither placement would be a comment.
    let block = project("- name: recent\n  constraint: |\n    created_at <= current_timestamp()\n  type: expect_or_drop\n", &[]);
    assert!(findings(block.path()).contains(&"expectations/orders.yaml:3 DQ303".to_string()));
    assert_eq!(suppressed_text(block.path(), "DQ303"), None);
    let json = r#"[{"name": "n", "constraint": "amount >= 0", "type": "expect"}]"#;
    let flowgroup = FLOWGROUP.replace("expectations/orders.yaml", "expectations/orders.json");
    let dir = project(
        WARN_RULE,
        &[
            ("expectations/orders.json", json),
            ("pipelines/bronze/orders.yaml", &flowgroup),
        ],
    );
    assert_eq!(suppressed_text(dir.path(), "DQ207"), None);
}

#[test]
fn suppress_in_this_file_works_where_a_line_comment_cannot_go() {
    let rules = "- name: recent\n  constraint: |\n    created_at <= current_timestamp()\n  type: expect_or_drop\n";
    let dir = project(rules, &[]);
    let (project, found) = run(dir.path(), &Config::default(), &Selection::default(), &[]);
    let d = found.iter().find(|d| d.rule.code == "DQ303").unwrap();
    let file = project.file(d.primary.file);
    let edit = dqlint_linter::suppression::suppress_file_edit(file, d.rule).unwrap();
    assert_eq!(
        (edit.span.clone(), edit.new_text.as_str()),
        (0..0, "# dqlint: ignore-file[DQ303]\n")
    );
    std::fs::write(&file.path, format!("{}{rules}", edit.new_text)).unwrap();
    assert_eq!(findings(dir.path()), Vec::<String>::new());

    // A second rule joins the directive already there.
    let (project, _) = run(dir.path(), &Config::default(), &Selection::default(), &[]);
    let file = project
        .files
        .iter()
        .find(|f| f.rel == "expectations/orders.yaml")
        .unwrap();
    let edit = dqlint_linter::suppression::suppress_file_edit(
        file,
        dqlint_linter::registry::rule("DQ305"),
    )
    .unwrap();
    assert_eq!(edit.new_text, ", DQ305");
    assert_eq!(&file.text[..edit.span.start], "# dqlint: ignore-file[DQ303");
}

/// A bare directive, or a prefix, may be there for a rule that did not run
/// (deselected by a flag or the config): not known unused, not reported.
#[test]
fn bare_and_prefix_directives_for_deselected_rules_are_not_unused() {
    let ignore = |code: &str| Selection {
        select: vec![],
        ignore: vec![code.into()],
    };
    let bare = project(
        "amount >= 0:\n  action: warn  # dqlint: ignore kept as warn\n  name: n\n",
        &[],
    );
    assert_eq!(findings(bare.path()), Vec::<String>::new());
    let (project_, found) = run(bare.path(), &Config::default(), &ignore("DQ207"), &[]);
    assert_eq!(describe(&project_, &found), Vec::<String>::new());

    let prefix = project(
        WARN_RULE,
        &[(
            "sql/fix.sql",
            &format!("{UNSCOPED_UPDATE}; -- dqlint: ignore[DQ4]\n"),
        )],
    );
    let (project_, found) = run(prefix.path(), &Config::default(), &ignore("DQ409"), &[]);
    assert!(
        !describe(&project_, &found)
            .iter()
            .any(|f| f.ends_with("DQ009")),
        "{:?}",
        describe(&project_, &found)
    );
}

/// A syntax error anywhere can remove the findings a suppression in another
/// file was written for (here `mode quarantine` loses its `:`, so DQ207 has
/// no quarantine user): no unused-suppression report until it is repaired.
#[test]
fn a_syntax_error_elsewhere_leaves_no_unused_report() {
    let broken = FLOWGROUP.replace("mode: quarantine", "mode quarantine");
    let dir = project(
        "amount >= 0:\n  action: warn  # dqlint: ignore[DQ207]\n  name: n\n",
        &[("pipelines/bronze/orders.yaml", &broken)],
    );
    assert_eq!(
        findings(dir.path()),
        vec!["pipelines/bronze/orders.yaml:10 DQ001".to_string()]
    );
}

/// A `/* ... */` licence header is part of a SQL file's leading comments.
#[test]
fn ignore_file_after_a_sql_block_comment_header() {
    let dir = project(
        WARN_RULE,
        &[(
            "sql/fix.sql",
            &format!("/* Copyright ACME.\n   All rights reserved. */\n-- dqlint: ignore-file[DQ409]\n{UNSCOPED_UPDATE};\n"),
        )],
    );
    assert!(
        !findings(dir.path()).iter().any(|f| f.starts_with("sql/")),
        "{:?}",
        findings(dir.path())
    );
}
