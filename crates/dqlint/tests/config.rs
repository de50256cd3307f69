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
        "dqlint: error: dqlint.toml:3:1: unknown key `selct` (expected one of `select`, `ignore`, `envs`, `ddl`, `severity`, `sql`, `overrides`); did you mean `select`?",
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
