//! `dqlint.toml` and `--config` end to end: what the binary prints and
//! exits with for a good configuration, and for each kind of bad one.

use std::path::Path;
use std::process::{Command, Output};

use tempfile::TempDir;

fn fixture(code: &str, kind: &str) -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../fixtures/rules")
        .join(code)
        .join(kind)
}

/// A copy of `fixtures/rules/DQ207/bad` (one DQ207 warning) with extra files.
fn project(extra: &[(&str, &str)]) -> TempDir {
    let dir = tempfile::tempdir().unwrap();
    copy(&fixture("DQ207", "bad"), dir.path());
    for (rel, text) in extra {
        let path = dir.path().join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
    dir
}

fn copy(from: &Path, to: &Path) {
    for entry in std::fs::read_dir(from).unwrap().flatten() {
        let target = to.join(entry.file_name());
        if entry.path().is_dir() {
            std::fs::create_dir_all(&target).unwrap();
            copy(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
}

fn dqlint(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_dqlint"))
        .current_dir(dir)
        .args(["lint", "--format", "concise", "--quiet"])
        .args(args)
        .env("NO_COLOR", "1")
        .output()
        .expect("the dqlint binary runs")
}

fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// The run failed with one clear message and exit code 2.
fn assert_config_error(output: &Output, expected: &str) {
    assert_eq!(
        output.status.code(),
        Some(2),
        "stdout: {}\nstderr: {}",
        stdout(output),
        stderr(output)
    );
    assert_eq!(stderr(output).trim_end(), expected);
    assert!(
        stdout(output).is_empty(),
        "no report on a failed run: {}",
        stdout(output)
    );
}

#[test]
fn without_configuration_the_warning_shows() {
    let dir = project(&[]);
    let out = dqlint(dir.path(), &[]);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(stdout(&out), "expectations/orders_quality.yaml:5:11: warning[DQ207] rule `non_negative_amount` is `warn` but quarantine mode enforces it as `drop`\n");
}

#[test]
fn the_project_configuration_raises_the_severity_and_fails_the_run() {
    let dir = project(&[(
        "dqlint.toml",
        "[severity]\nquarantine-coerces-action = \"error\"\n",
    )]);
    let out = dqlint(dir.path(), &[]);
    assert_eq!(out.status.code(), Some(1), "an error finding fails the run");
    assert!(stdout(&out).contains("error[DQ207]"), "{}", stdout(&out));
}

#[test]
fn configuration_ignore_and_command_line_select() {
    let dir = project(&[("dqlint.toml", "ignore = [\"DQ2\"]\n")]);
    let out = dqlint(dir.path(), &[]);
    assert_eq!((out.status.code(), stdout(&out)), (Some(0), String::new()));
    // --select starts afresh: the configuration's `ignore` gives way.
    assert!(stdout(&dqlint(dir.path(), &["--select", "DQ207"])).contains("DQ207"));
    assert_eq!(
        stdout(&dqlint(
            dir.path(),
            &["--select", "DQ207", "--ignore", "DQ2"]
        )),
        ""
    );
    let dir = project(&[("dqlint.toml", "select = [\"DQ4\"]\n")]);
    assert_eq!(stdout(&dqlint(dir.path(), &[])), "");
    assert!(
        stdout(&dqlint(dir.path(), &["--select", "DQ2"])).contains("DQ207"),
        "--select replaces `select`"
    );
}

#[test]
fn overrides_apply_by_file() {
    let dir = project(&[(
        "dqlint.toml",
        "[[overrides]]\nfiles = [\"expectations/*.yaml\"]\nignore = [\"DQ207\"]\n",
    )]);
    assert_eq!(stdout(&dqlint(dir.path(), &[])), "");
    let dir = project(&[(
        "dqlint.toml",
        "[[overrides]]\nfiles = [\"pipelines/**\"]\nignore = [\"DQ207\"]\n",
    )]);
    assert!(stdout(&dqlint(dir.path(), &[])).contains("DQ207"));
}

#[test]
fn explicit_config_replaces_the_project_one() {
    let dir = project(&[
        ("dqlint.toml", "ignore = [\"DQ207\"]\n"),
        ("ci/strict.toml", "[severity]\nDQ207 = \"error\"\n"),
    ]);
    let out = dqlint(dir.path(), &["--config", "ci/strict.toml"]);
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}{}",
        stdout(&out),
        stderr(&out)
    );
    assert!(stdout(&out).contains("error[DQ207]"));
}

#[test]
fn a_suppressed_finding_leaves_every_format_and_the_exit_status() {
    let dir = project(&[
        ("dqlint.toml", "[severity]\nDQ207 = \"error\"\n"),
        (
            "expectations/orders_quality.yaml",
            "amount >= 0:\n  action: warn  # dqlint: ignore[DQ207] on purpose\n  name: n\n",
        ),
    ]);
    let out = dqlint(dir.path(), &[]);
    assert_eq!((out.status.code(), stdout(&out)), (Some(0), String::new()));
    let json = Command::new(env!("CARGO_BIN_EXE_dqlint"))
        .current_dir(dir.path())
        .args(["lint", "--format", "json"])
        .output()
        .unwrap();
    let report: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    assert_eq!(report["diagnostics"], serde_json::json!([]));
    assert_eq!(report["summary"]["errors"], 0);
}

#[test]
fn unknown_key_names_line_and_column() {
    let dir = project(&[("dqlint.toml", "select = [\"DQ2\"]\n\nselct = [\"DQ4\"]\n")]);
    assert_config_error(
        &dqlint(dir.path(), &[]),
        "dqlint: error: dqlint.toml:3:1: unknown key `selct` (expected one of `select`, `ignore`, `envs`, `ddl`, `severity`, `sql`, `overrides`, `dqx`, `dlt`, `policy`); did you mean `select`?",
    );
}

/// `[sql] udfs`: a declared function is not an unknown one (DQ306), and
/// an entry that is not a one-part name is refused at its place.
#[test]
fn declared_udfs_are_not_unknown_functions() {
    let rules = "order_id IS NOT NULL:\n  action: drop\n  name: valid_order_id\nis_valid_sku(sku):\n  action: warn\n  name: non_negative_amount\n";
    let dir = project(&[("expectations/orders_quality.yaml", rules)]);
    let out = dqlint(dir.path(), &[]);
    assert!(
        stdout(&out).contains("warning[DQ306] `is_valid_sku` is not"),
        "{}",
        stdout(&out)
    );

    let dir = project(&[
        ("expectations/orders_quality.yaml", rules),
        ("dqlint.toml", "[sql]\nudfs = [\"IS_VALID_SKU\"]\n"),
    ]);
    let out = dqlint(dir.path(), &[]);
    assert!(!stdout(&out).contains("DQ306"), "{}", stdout(&out));

    let dir = project(&[("dqlint.toml", "[sql]\nudfs = [\"main.tools.f\"]\n")]);
    assert_config_error(
        &dqlint(dir.path(), &[]),
        "dqlint: error: dqlint.toml:2:9: `main.tools.f` is not a function name: list the one-part name a rule calls (a qualified `catalog.schema.fn` call is never reported)",
    );
}

#[test]
fn unknown_rule_code_in_select_or_ignore() {
    let dir = project(&[("dqlint.toml", "ignore = [\"DQ402\", \"DQ4O3\"]\n")]);
    assert_config_error(
        &dqlint(dir.path(), &[]),
        "dqlint: error: dqlint.toml:1:20: `DQ4O3` in `ignore` matches no rule code, code prefix or name (see `dqlint rule`); did you mean `DQ403`?",
    );
    let dir = project(&[("dqlint.toml", "select = [\"quarantine-coerce-action\"]\n")]);
    let out = dqlint(dir.path(), &[]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out)
            .starts_with("dqlint: error: dqlint.toml:1:11: `quarantine-coerce-action` in `select`"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn bad_severity_value() {
    let dir = project(&[("dqlint.toml", "[severity]\nDQ402 = \"off\"\n")]);
    assert_config_error(
        &dqlint(dir.path(), &[]),
        "dqlint: error: dqlint.toml:2:9: `off` is not a severity (expected `error`, `warning` or `info`)",
    );
}

#[test]
fn malformed_toml() {
    let dir = project(&[("dqlint.toml", "select = [\"DQ2\"\nignore = []\n")]);
    let out = dqlint(dir.path(), &[]);
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    assert!(err.starts_with("dqlint: error: dqlint.toml:"), "{err}");
    assert_eq!(err.trim_end().lines().count(), 1, "one message: {err}");
}

#[test]
fn unreadable_configuration() {
    let dir = project(&[]);
    let out = dqlint(dir.path(), &["--config", "missing.toml"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).starts_with(
            "dqlint: error: missing.toml: cannot read the configuration: No such file"
        ),
        "{}",
        stderr(&out)
    );
    std::fs::create_dir(dir.path().join("dqlint.toml")).unwrap();
    assert_config_error(
        &dqlint(dir.path(), &[]),
        "dqlint: error: dqlint.toml: cannot read the configuration: it is a folder, not a file",
    );
    let dir = project(&[]);
    std::fs::write(dir.path().join("dqlint.toml"), b"select = [\"\xff\"]\n").unwrap();
    let out = dqlint(dir.path(), &[]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).starts_with("dqlint: error: dqlint.toml: cannot read the configuration"),
        "{}",
        stderr(&out)
    );
}

/// A DQX-only root (no lhp.yaml) with these files.
fn dqx_root(files: &[(&str, &str)]) -> TempDir {
    let dir = tempfile::tempdir().unwrap();
    for (rel, text) in files {
        let path = dir.path().join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
    dir
}

const VERSIONED_CHECKS: &str = "\
- criticality: error
  check:
    function: has_num_decimal_places
    arguments: {column: price, limit: 2}
- criticality: error
  check:
    function: does_not_contain_pii
    arguments: {column: notes}
- criticality: error
  check:
    function: is_valid_sku
    arguments: {column: sku, strict: true}
- criticality: error
  check:
    function: is_valid_sku
    arguments: {col: sku}
";

/// `[dqx] version` selects the catalogue (DQ810 names the version that has
/// a function, both ways), `extras` installs optional modules, and
/// `custom_functions` are accepted by DQ810-DQ812 with their parameters.
#[test]
fn dqx_version_extras_and_custom_functions_shape_the_function_checks() {
    let dir = dqx_root(&[("quality/orders.yml", VERSIONED_CHECKS)]);
    let out = stdout(&dqlint(dir.path(), &["--no-cache"]));
    assert!(out.contains("orders.yml:7:15: error[DQ810] DQX 0.17.0 has no check function `does_not_contain_pii`; it rejects the check unless the `pii` extra is installed"), "{out}");
    assert!(
        out.contains(
            "orders.yml:11:15: error[DQ810] DQX 0.17.0 has no check function `is_valid_sku`"
        ),
        "{out}"
    );
    assert!(!out.contains("orders.yml:3:"), "{out}");

    std::fs::write(
        dir.path().join("dqlint.toml"),
        "[dqx]\nversion = \"0.16.0\"\nextras = [\"pii\"]\ncustom_functions = { is_valid_sku = [\"column\", \"strict=False\"] }\n",
    )
    .unwrap();
    let out = stdout(&dqlint(dir.path(), &["--no-cache"]));
    let lines: Vec<&str> = out.lines().collect();
    assert!(lines[0].contains("orders.yml:3:15: error[DQ810] DQX 0.16.0 has no check function `has_num_decimal_places`; it rejects the check (DQX 0.17.0 has it)"), "{out}");
    // The custom function: `col` is not a parameter and `column` is missing.
    assert!(
        out.contains("orders.yml:16:16: error[DQ811] `is_valid_sku` needs the argument `column`"),
        "{out}"
    );
    assert!(
        out.contains("error[DQ812]") && out.contains("`col`"),
        "{out}"
    );
    assert!(
        !out.contains("does_not_contain_pii") && !out.contains(":11:15:"),
        "{out}"
    );
    assert_eq!(lines.len(), 3, "{out}");
}

/// `[dqx] checks` and `configs` force files to a DQX kind whatever their
/// content, and a `[dqx]` table alone makes a folder a DQX-only root.
#[test]
fn dqx_checks_and_configs_globs_force_the_kind() {
    let dir = dqx_root(&[
        (
            "dqlint.toml",
            "[dqx]\nchecks = [\"quality/*.yml\"]\nconfigs = [\"deploy/dqx.yml\"]\n",
        ),
        // Not a list: no checks file by content, one by configuration.
        ("quality/orders.yml", "function: is_not_null\n"),
        ("quality/empty.yml", "# nothing yet\n"),
        ("deploy/dqx.yml", "log_level: INFO\n"),
    ]);
    let out = stdout(&dqlint(dir.path(), &["--no-cache"]));
    assert!(
        out.contains("quality/orders.yml:1:1: error[DQ801]"),
        "{out}"
    );
    assert!(out.contains("deploy/dqx.yml:1:1: error[DQ850]"), "{out}");
    assert!(!out.contains("empty.yml"), "{out}");

    // Nothing matched: exit 2, nothing to lint.
    let dir = dqx_root(&[("dqlint.toml", "[dqx]\nchecks = [\"quality/*.yml\"]\n")]);
    let output = dqlint(dir.path(), &["--no-cache"]);
    assert_eq!(output.status.code(), Some(2));
    let err = String::from_utf8_lossy(&output.stderr);
    assert!(err.contains("nothing to lint"), "{err}");
}

/// A `[dqx]` mistake stops the run with its line and column.
#[test]
fn a_dqx_mistake_exits_2_with_its_place() {
    let dir = dqx_root(&[
        ("dqlint.toml", "[dqx]\nversion = \"0.18.0\"\n"),
        (
            "checks.yml",
            "- check: {function: is_not_null, arguments: {column: a}}\n",
        ),
    ]);
    let output = dqlint(dir.path(), &["--no-cache"]);
    assert_eq!(output.status.code(), Some(2));
    let err = String::from_utf8_lossy(&output.stderr);
    assert!(
        err.contains("dqlint.toml:2:11: `0.18.0` is not a DQX version"),
        "{err}"
    );
}

const NEEDS_CONFIG: &str = "\
- criticality: error
  filter: \"price > {{ min_price }}\"
  check:
    function: is_geometry
    arguments:
      column: location
- criticality: error
  check:
    function: sql_query
    arguments:
      query: SELECT id, price < 0 AS bad FROM {{ orders }} WHERE region = '{{ region }}'
      input_placeholder: orders
      merge_columns: [id]
      condition_column: bad
- criticality: error
  check:
    function: is_not_null
    for_each_column: [id, pricee, 'coalesce(price, 0)', '*', Location.x]
";

/// DQ824, DQ826 and DQ827 follow `[dqx] variables`, `dbr` and `schemas`.
#[test]
fn dqx_variables_dbr_and_schemas_drive_dq824_dq826_dq827() {
    let dir = dqx_root(&[("quality/orders.yml", NEEDS_CONFIG)]);
    let out = stdout(&dqlint(dir.path(), &["--no-cache"]));
    let codes: Vec<&str> = out
        .lines()
        .filter_map(|l| l.split('[').nth(1)?.split(']').next())
        .collect();
    // No schema: no DQ827; the sql_query input placeholder is DQX's own.
    assert_eq!(codes, ["DQ824", "DQ826", "DQ824"], "{out}");
    assert!(
        out.contains("2:20: warning[DQ824] unresolved placeholder `{{ min_price }}`"),
        "{out}"
    );
    assert!(out.contains("11:76: warning[DQ824] unresolved placeholder `{{ region }}`: no `[dqx] variables` entry gives `region` a value; it stays as written inside the SQL string literal"), "{out}");
    assert!(
        out.contains("4:15: warning[DQ826] `is_geometry` needs Databricks Runtime 17.1"),
        "{out}"
    );

    std::fs::write(
        dir.path().join("dqlint.toml"),
        "[dqx]\nvariables = { min_price = 0, region = \"EU\" }\ndbr = \"16.4\"\n[dqx.schemas]\n\"quality/*.yml\" = \"id BIGINT, price DOUBLE, location STRUCT<x: DOUBLE, y: DOUBLE>\"\n",
    )
    .unwrap();
    let out = stdout(&dqlint(dir.path(), &["--no-cache"]));
    let codes: Vec<&str> = out
        .lines()
        .filter_map(|l| l.split('[').nth(1)?.split(']').next())
        .collect();
    assert_eq!(codes, ["DQ826", "DQ827"], "{out}");
    assert!(out.contains("4:15: error[DQ826] `is_geometry` needs Databricks Runtime 17.1 or later and `[dqx] dbr` is 16.4"), "{out}");
    assert!(out.contains("error[DQ827] the table of this checks file has no column `pricee` (did you mean `price`?)"), "{out}");

    std::fs::write(
        dir.path().join("dqlint.toml"),
        "[dqx]\ndbr = \"17.1\"\nvariables = { min_price = 0, region = \"EU\" }\n",
    )
    .unwrap();
    let out = stdout(&dqlint(dir.path(), &["--no-cache"]));
    assert_eq!(out, "", "{out}");
}
