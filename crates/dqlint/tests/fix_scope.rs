//! A fix changes only what its finding is about (issue 16, cases 2, 3 and
//! 6): `dqlint lint --fix` end to end on small projects, each reproducing
//! one way a fix used to change more than that, or change it wrongly.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

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
        if entry.file_name() == ".dqlint_cache" {
            continue;
        }
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
}

/// A copy of a rule fixture with `edit` applied to one of its files.
fn fixture_copy(
    code: &str,
    kind: &str,
    rel: &str,
    edit: impl Fn(&str) -> String,
) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    copy_dir(&fixture(code, kind), dir.path());
    let path = dir.path().join(rel);
    let text = std::fs::read_to_string(&path).unwrap();
    let new = edit(&text);
    assert_ne!(new, text, "{code}/{kind}/{rel}: the edit changed nothing");
    std::fs::write(&path, new).unwrap();
    dir
}

fn dqlint(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_dqlint"))
        .arg("lint")
        .arg(dir)
        .args(args)
        .arg("--no-cache")
        .env("NO_COLOR", "1")
        .output()
        .expect("the dqlint binary runs")
}

fn json(dir: &Path, select: &str) -> Vec<Value> {
    let out = dqlint(dir, &["--select", select, "--format", "json"]);
    let report: Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stderr)));
    report["diagnostics"].as_array().unwrap().clone()
}

fn read(dir: &Path, rel: &str) -> String {
    std::fs::read_to_string(dir.join(rel)).unwrap()
}

const DQE_ACTION: &str = "  - name: orders_dqe
    type: transform
    transform_type: data_quality
    source: v_orders_raw
    target: v_orders_checked
    expectations_file: expectations/orders_quality.yaml
    mode: dqe

  - name: write_orders";

/// Case 2: the expectations file of a quarantine action is also used by a
/// `mode: dqe` action, where `warn` means warn. Rewriting it to `drop`
/// would make the dqe action drop rows.
#[test]
fn dq207_on_a_file_shared_with_a_dqe_action_is_unsafe_and_names_it() {
    let dir = fixture_copy("DQ207", "bad", "pipelines/bronze/orders.yaml", |t| {
        t.replace("  - name: write_orders", DQE_ACTION)
    });
    let rules = "expectations/orders_quality.yaml";
    let before = read(dir.path(), rules);
    let found = json(dir.path(), "DQ207");
    assert_eq!(found.len(), 1, "{found:#?}");
    let d = &found[0];
    assert_eq!(d["fix"]["applicability"], "unsafe", "{d:#}");
    let related: Vec<&str> = d["related"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["message"].as_str().unwrap())
        .collect();
    assert!(
        related
            .iter()
            .any(|m| m.contains("`orders_dqe`") && m.contains("dqe")),
        "the dqe user is named: {related:?}"
    );
    assert!(
        related.iter().any(|m| m.contains("`orders_dq`")),
        "{related:?}"
    );

    let out = dqlint(dir.path(), &["--fix", "--select", "DQ207"]);
    assert_eq!(
        read(dir.path(), rules),
        before,
        "--fix: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let out = dqlint(
        dir.path(),
        &["--fix", "--unsafe-fixes", "--select", "DQ207"],
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_ne!(
        read(dir.path(), rules),
        before,
        "on request the fix applies"
    );

    // Without the dqe user the fix stays safe.
    let alone = tempfile::tempdir().unwrap();
    copy_dir(&fixture("DQ207", "bad"), alone.path());
    let found = json(alone.path(), "DQ207");
    assert_eq!(found[0]["fix"]["applicability"], "safe");
}

fn template_project(params: &str, template_extra: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let files = [
        ("lhp.yaml", "name: demo\nversion: \"1.0\"\n".to_string()),
        (
            "expectations/orders.yaml",
            "order_id IS NOT NULL:\n  action: drop\n  name: valid_order_id\n".to_string(),
        ),
        (
            "templates/dq_tpl.yaml",
            format!(
                "name: dq_tpl
version: \"1.0\"
parameters:
  - name: rm
    required: true
actions:
  - name: load_orders
    type: load
    readMode: stream
    source:
      type: cloudfiles
      path: /Volumes/main/landing/orders
      format: json
    target: v_orders_raw
  - name: orders_dq
    type: transform
    transform_type: data_quality
    source: v_orders_raw
    target: v_orders
    expectations_file: expectations/orders.yaml
    readMode: \"{{{{ rm }}}}\"
  - name: write_orders
    type: write
    source: v_orders
    write_target:
      type: streaming_table
      catalog: main
      schema: bronze
      table: orders{template_extra}
"
            ),
        ),
        (
            "pipelines/orders.yaml",
            format!("pipeline: bronze\nflowgroup: orders\nuse_template: dq_tpl\n{params}"),
        ),
    ];
    for (rel, text) in files {
        let path = dir.path().join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
    dir
}

/// Case 3: `readMode: "{{ rm }}"` in the template, `rm: batch` in the
/// flowgroup. The value that is wrong is the parameter: the finding points
/// at it and the fix rewrites it; the template keeps its placeholder.
#[test]
fn dq105_through_a_template_parameter_fixes_the_parameter() {
    let dir = template_project("template_parameters:\n  rm: batch\n", "");
    let template = read(dir.path(), "templates/dq_tpl.yaml");
    let found = json(dir.path(), "DQ105");
    assert_eq!(found.len(), 1, "{found:#?}");
    let d = &found[0];
    assert_eq!(d["file"], "pipelines/orders.yaml", "{d:#}");
    assert_eq!(d["range"]["start"]["line"], 5, "at `rm: batch`: {d:#}");
    assert!(
        d["related"]
            .as_array()
            .unwrap()
            .iter()
            .any(|r| r["file"] == "templates/dq_tpl.yaml" && r["range"]["start"]["line"] == 21),
        "the template line is related: {d:#}"
    );
    assert_eq!(d["fix"]["applicability"], "safe");

    let out = dqlint(dir.path(), &["--fix"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(read(dir.path(), "templates/dq_tpl.yaml"), template);
    assert_eq!(
        read(dir.path(), "pipelines/orders.yaml"),
        "pipeline: bronze\nflowgroup: orders\nuse_template: dq_tpl\ntemplate_parameters:\n  rm: stream\n"
    );
    let out = dqlint(dir.path(), &[]);
    assert!(
        out.status.success(),
        "no finding left: {}",
        String::from_utf8_lossy(&out.stdout)
    );
}

/// The parameter also feeds another value of the template: rewriting it
/// changes that one too, so the fix is only applied on request.
#[test]
fn dq105_on_a_parameter_the_template_uses_twice_is_unsafe() {
    let dir = template_project(
        "template_parameters:\n  rm: batch\n",
        "\n      comment: \"read as {{ rm }}\"",
    );
    let found = json(dir.path(), "DQ105");
    assert_eq!(found.len(), 1, "{found:#?}");
    assert_eq!(found[0]["file"], "pipelines/orders.yaml");
    assert_eq!(found[0]["fix"]["applicability"], "unsafe", "{:#}", found[0]);
}

/// A parameter the flowgroup does not set renders the template's default:
/// neither file holds a value to rewrite for this flowgroup alone.
#[test]
fn dq105_on_a_template_default_has_no_fix_in_the_template() {
    let dir = template_project("template_parameters:\n  other: 1\n", "");
    let path = dir.path().join("templates/dq_tpl.yaml");
    let text = std::fs::read_to_string(&path).unwrap();
    std::fs::write(
        &path,
        text.replace("    required: true\n", "    default: batch\n"),
    )
    .unwrap();
    let found = json(dir.path(), "DQ105");
    assert_eq!(found.len(), 1, "{found:#?}");
    assert!(found[0]["fix"].is_null(), "{:#}", found[0]);
}

/// Case 6: DQ401 says `${catalog}.ops_dlq` is not a three-part name; DDL
/// for it would fail at deploy. No DDL fix for it.
#[test]
fn dq402_offers_no_ddl_for_a_name_dq401_reports() {
    let dir = fixture_copy("DQ402", "bad", "pipelines/bronze/orders.yaml", |t| {
        t.replace(
            "dlq_table: ${catalog}.ops.dlq",
            "dlq_table: ${catalog}.ops_dlq",
        )
    });
    std::fs::create_dir_all(dir.path().join("sql")).unwrap();
    std::fs::write(dir.path().join("sql/ops.sql"), "-- Operational tables.\n").unwrap();
    let codes: Vec<String> = json(dir.path(), "DQ401,DQ402")
        .iter()
        .map(|d| {
            assert!(d["fix"].is_null(), "no fix: {d:#}");
            d["code"].as_str().unwrap().to_string()
        })
        .collect();
    assert!(codes.contains(&"DQ401".to_string()), "{codes:?}");
    assert!(codes.contains(&"DQ402".to_string()), "{codes:?}");
    dqlint(dir.path(), &["--fix", "--unsafe-fixes"]);
    assert_eq!(read(dir.path(), "sql/ops.sql"), "-- Operational tables.\n");
}

/// Case 6, acmi: hard-coded DDL creates the DLQ of `dev`; the DLQ name is
/// tokenised, so `prod` and `tst` have none. Appending tokenised DDL would
/// create the `dev` table a second time.
#[test]
fn dq402_never_adds_ddl_for_a_table_another_statement_creates() {
    let acmi = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/corpus/projects/acmi");
    let dir = tempfile::tempdir().unwrap();
    copy_dir(&acmi, dir.path());
    let found = json(dir.path(), "DQ402");
    assert!(!found.is_empty(), "acmi has a DQ402 for prod and tst");
    for d in &found {
        assert!(d["fix"].is_null(), "{d:#}");
    }
    let sql = read(dir.path(), "SQL/create_dlq.sql");
    dqlint(
        dir.path(),
        &["--fix", "--unsafe-fixes", "--select", "DQ402"],
    );
    assert_eq!(read(dir.path(), "SQL/create_dlq.sql"), sql);

    // The same project with the dev DDL gone: the tokenised DDL is the
    // one statement for the table in every environment, so it is offered.
    std::fs::write(dir.path().join("SQL/create_dlq.sql"), "-- DLQ\n").unwrap();
    let found = json(dir.path(), "DQ402");
    assert!(found.iter().all(|d| !d["fix"].is_null()), "{found:#?}");
}

/// Case 6: a trailing `-- comment` after the last property (or after the
/// statement) stays on the line it annotates.
#[test]
fn dlq_property_fixes_keep_trailing_comments_in_place() {
    let dir = fixture_copy("DQ405", "bad", "sql/dlq.sql", |t| {
        t.replacen(
            "    'delta.enableDeletionVectors' = 'true'\n);\n",
            "    'delta.enableDeletionVectors' = 'true'  -- for MERGE performance\n);\n",
            2,
        )
    });
    let out = dqlint(dir.path(), &["--fix", "--select", "DQ405"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = read(dir.path(), "sql/dlq.sql");
    assert!(
        text.contains(
            "    'delta.enableDeletionVectors' = 'true',  -- for MERGE performance\n    'delta.enableRowTracking' = 'true'\n);"
        ),
        "{text}"
    );

    // No TBLPROPERTIES yet, a comment after the statement's last clause.
    let dir = fixture_copy("DQ405", "bad", "sql/dlq.sql", |t| {
        let outbox = t
            .find("CREATE TABLE IF NOT EXISTS ${catalog}.ops.dlq_outbox")
            .unwrap();
        let (head, tail) = t.split_at(outbox);
        let props = tail.find("\nTBLPROPERTIES").unwrap();
        format!(
            "{head}{}  -- merges stay conflict-free\n;\n",
            &tail[..props]
        )
    });
    let out = dqlint(dir.path(), &["--fix", "--select", "DQ405,DQ406"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = read(dir.path(), "sql/dlq.sql");
    assert!(
        text.contains(
            "CLUSTER BY (_dlq_source_table)  -- merges stay conflict-free\nTBLPROPERTIES ("
        ),
        "{text}"
    );
}

/// Case 6: `price > 0: !!str drop`. The mapping the fix writes must not
/// keep the string tag (`!!str {action: drop}` does not load in PyYAML).
#[test]
fn dq206_drops_the_tag_of_the_value_it_rewrites() {
    let dir = fixture_copy("DQ206", "bad", "expectations/orders_quality.yaml", |t| {
        t.replace(
            "amount >= 0: drop",
            "amount >= 0: !!str drop\nprice > 0: &kept warn",
        )
    });
    let out = dqlint(dir.path(), &["--fix", "--select", "DQ206"]);
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = read(dir.path(), "expectations/orders_quality.yaml");
    assert!(text.contains("amount >= 0: {action: drop}\n"), "{text}");
    // An anchored value: its aliases would change too, so it is left.
    assert!(text.contains("price > 0: &kept warn"), "{text}");
    assert!(dqlint_yaml::pyyaml_rejections(&text).is_empty(), "{text}");
}

/// The same for the outbox DDL DQ403 adds after the inbox, and the column
/// DQ408 adds after the last one.
#[test]
fn dlq_ddl_and_column_fixes_keep_trailing_comments_in_place() {
    let dir = fixture_copy("DQ403", "bad", "sql/dlq.sql", |t| {
        t.replace(
            "    'delta.enableDeletionVectors' = 'true'\n);\n",
            "    'delta.enableDeletionVectors' = 'true'\n);  -- the shared DLQ\n",
        )
    });
    let out = dqlint(dir.path(), &["--fix", "--select", "DQ403"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = read(dir.path(), "sql/dlq.sql");
    assert!(
        text.contains(
            ");  -- the shared DLQ\n\nCREATE TABLE IF NOT EXISTS ${catalog}.ops.dlq_outbox ("
        ),
        "{text}"
    );

    // No `;` after the inbox: it gets one, before the comment.
    let dir = fixture_copy("DQ403", "bad", "sql/dlq.sql", |t| {
        t.replace(
            "    'delta.enableDeletionVectors' = 'true'\n);\n",
            "    'delta.enableDeletionVectors' = 'true'\n)  -- the shared DLQ\n",
        )
    });
    let out = dqlint(dir.path(), &["--fix", "--select", "DQ403"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = read(dir.path(), "sql/dlq.sql");
    assert!(
        text.contains(
            ");  -- the shared DLQ\n\nCREATE TABLE IF NOT EXISTS ${catalog}.ops.dlq_outbox ("
        ),
        "{text}"
    );

    let dir = fixture_copy("DQ408", "bad", "sql/dlq.sql", |t| {
        t.replace(
            "    _row_data          VARIANT   NOT NULL,\n    _dlq_recycled_at   TIMESTAMP NOT NULL\n)",
            "    _row_data          VARIANT   NOT NULL  -- the row as read\n)",
        )
    });
    let out = dqlint(dir.path(), &["--fix", "--select", "DQ408"]);
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = read(dir.path(), "sql/dlq.sql");
    assert!(
        text.contains(
            "    _row_data          VARIANT   NOT NULL,  -- the row as read\n    _dlq_recycled_at TIMESTAMP NOT NULL\n)"
        ),
        "{text}"
    );
}

/// The same for DQ101: `mode: "{{ m }}"` in the template, `m: quarantin`
/// in the flowgroup. The suggestion (`quarantine`) goes to the parameter.
#[test]
fn dq101_through_a_template_parameter_fixes_the_parameter() {
    let dir = template_project("template_parameters:\n  rm: stream\n  m: quarantin\n", "");
    let path = dir.path().join("templates/dq_tpl.yaml");
    let text = std::fs::read_to_string(&path).unwrap();
    std::fs::write(
        &path,
        text.replace(
            "    readMode: \"{{ rm }}\"\n",
            "    readMode: \"{{ rm }}\"\n    mode: \"{{ m }}\"\n",
        ),
    )
    .unwrap();
    let template = read(dir.path(), "templates/dq_tpl.yaml");
    let found = json(dir.path(), "DQ101");
    assert_eq!(found.len(), 1, "{found:#?}");
    let d = &found[0];
    assert_eq!(d["file"], "pipelines/orders.yaml", "{d:#}");
    assert_eq!(d["range"]["start"]["line"], 6, "at `m: quarantin`: {d:#}");
    assert_eq!(d["fix"]["applicability"], "unsafe");
    dqlint(
        dir.path(),
        &["--fix", "--unsafe-fixes", "--select", "DQ101"],
    );
    assert_eq!(read(dir.path(), "templates/dq_tpl.yaml"), template);
    assert!(
        read(dir.path(), "pipelines/orders.yaml").ends_with("  m: quarantine\n"),
        "{}",
        read(dir.path(), "pipelines/orders.yaml")
    );
}

/// DQ403's outbox DDL, written with the inbox's tokenised name, would
/// create a second time an outbox that hard-coded DDL creates for dev.
#[test]
fn dq403_never_adds_an_outbox_another_statement_creates() {
    let dir = tempfile::tempdir().unwrap();
    copy_dir(&fixture("DQ403", "bad"), dir.path());
    let dev = read(dir.path(), "substitutions/dev.yaml");
    std::fs::write(
        dir.path().join("substitutions/prod.yaml"),
        dev.replace("dev", "prod"),
    )
    .unwrap();
    let sql = dir.path().join("sql/dev_outbox.sql");
    std::fs::write(
        &sql,
        "CREATE TABLE IF NOT EXISTS acme_dev.ops.dlq_outbox (\n    _dlq_sk STRING NOT NULL\n);\n",
    )
    .unwrap();
    let found = json(dir.path(), "DQ403");
    assert_eq!(found.len(), 1, "only prod lacks the outbox: {found:#?}");
    assert!(found[0]["fix"].is_null(), "{:#}", found[0]);

    // Without the dev DDL, the tokenised outbox is the only one: offered.
    std::fs::remove_file(&sql).unwrap();
    let found = json(dir.path(), "DQ403");
    assert!(
        !found.is_empty() && found.iter().all(|d| !d["fix"].is_null()),
        "{found:#?}"
    );
}
