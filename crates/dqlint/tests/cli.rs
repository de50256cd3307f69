//! The `dqlint` binary end to end, on `fixtures/showcase` (one mistake per
//! rule) and on small throwaway folders.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use dqlint_linter::RULES;
use serde_json::{json, Value};

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures")
}

fn showcase() -> PathBuf {
    fixtures().join("showcase")
}

fn dqlint(args: &[&str]) -> Output {
    // From the repository root, as a user (and CI) runs it: the human
    // formats print paths relative to the working directory.
    Command::new(env!("CARGO_BIN_EXE_dqlint"))
        .args(args)
        .current_dir(fixtures().join(".."))
        .env("NO_COLOR", "1")
        .output()
        .expect("the dqlint binary runs")
}

fn stdout(output: &Output) -> String {
    String::from_utf8(output.stdout.clone()).expect("stdout is UTF-8")
}

fn code(output: &Output) -> i32 {
    output
        .status
        .code()
        .expect("dqlint exited normally (no signal)")
}

fn lint_json(path: &Path, extra: &[&str]) -> (Value, i32) {
    let path = path.to_str().unwrap();
    let mut args = vec!["lint", path, "--format", "json"];
    args.extend_from_slice(extra);
    let output = dqlint(&args);
    let text = stdout(&output);
    let value: Value = serde_json::from_str(&text).unwrap_or_else(|e| {
        panic!(
            "--format json printed invalid JSON ({e}):\n{text}\nstderr:\n{}",
            String::from_utf8_lossy(&output.stderr)
        )
    });
    (value, code(&output))
}

fn codes_of(report: &Value) -> Vec<String> {
    let mut codes: Vec<String> = report["diagnostics"]
        .as_array()
        .expect("`diagnostics` is a list")
        .iter()
        .map(|d| {
            d["code"]
                .as_str()
                .expect("each diagnostic has a code")
                .to_string()
        })
        .collect();
    codes.sort();
    codes.dedup();
    codes
}

#[test]
fn showcase_json() {
    let (mut report, exit) = lint_json(&showcase(), &[]);
    assert_eq!(exit, 1, "the showcase has error findings");
    let root = report["root"].as_str().expect("`root` is a string");
    assert!(Path::new(root).is_absolute(), "`root` is absolute: {root}");
    assert!(
        root.ends_with("showcase"),
        "`root` is the project folder: {root}"
    );
    report["root"] = json!("[root]");
    report["tool"]["version"] = json!("[version]");
    insta::assert_json_snapshot!("showcase_json", report);
}

#[test]
fn showcase_concise() {
    let output = dqlint(&["lint", "fixtures/showcase", "--format", "concise"]);
    assert_eq!(
        code(&output),
        1,
        "stderr: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    insta::assert_snapshot!("showcase_concise", stdout(&output));
}

/// The showcase demonstrates every rule of the registry (DQ602 needs an
/// environment without a substitutions file, asked for with `--env`;
/// DQ905 the Apache Spark runtime, asked for with `--config`).
#[test]
fn showcase_triggers_every_rule() {
    let (report, _) = lint_json(&showcase(), &[]);
    let found = codes_of(&report);
    let missing: Vec<&str> = RULES
        .iter()
        .map(|r| r.code)
        .filter(|c| !["DQ602", "DQ905"].contains(c) && !found.iter().any(|f| f == c))
        .collect();
    assert!(missing.is_empty(), "fixtures/showcase triggers no finding of {missing:?}; add a mistake for each (and a line in its README)");

    let (report, exit) = lint_json(&showcase(), &["--env", "dev", "--env", "staging"]);
    assert_eq!(exit, 1);
    assert!(
        codes_of(&report).iter().any(|c| c == "DQ602"),
        "`--env staging` (no substitutions/staging.yaml) gives DQ602"
    );
    assert_eq!(report["envs"], json!(["dev", "staging"]));

    let (report, _) = lint_json(
        &showcase(),
        &["--config", "fixtures/showcase/oss-spark.toml"],
    );
    assert!(
        codes_of(&report).iter().any(|c| c == "DQ905"),
        "`runtime = \"oss-spark\"` gives DQ905 on `dlt.apply_changes`"
    );
}

/// JSON positions are 1-based and every diagnostic names a project file.
#[test]
fn showcase_json_shape() {
    let (report, _) = lint_json(&showcase(), &[]);
    assert_eq!(report["version"], json!(1));
    assert_eq!(report["tool"]["name"], json!("dqlint"));
    assert_eq!(report["envs"], json!(["dev", "prod"]));
    let diagnostics = report["diagnostics"].as_array().unwrap();
    let summary = &report["summary"];
    let count = |s: &str| {
        diagnostics
            .iter()
            .filter(|d| d["severity"] == json!(s))
            .count() as u64
    };
    assert_eq!(summary["errors"].as_u64(), Some(count("error")));
    assert_eq!(summary["warnings"].as_u64(), Some(count("warning")));
    assert_eq!(summary["infos"].as_u64(), Some(count("info")));
    for d in diagnostics {
        let file = d["file"].as_str().unwrap();
        assert!(
            !file.starts_with('/') && !file.contains('\\'),
            "relative, `/`-separated: {file}"
        );
        assert!(showcase().join(file).is_file(), "{file} exists");
        let start = &d["range"]["start"];
        assert!(
            start["line"].as_u64().unwrap() >= 1 && start["column"].as_u64().unwrap() >= 1,
            "1-based: {d}"
        );
        let rule = RULES
            .iter()
            .find(|r| d["code"] == json!(r.code))
            .expect("a registry code");
        assert_eq!(d["name"], json!(rule.name));
    }
}

#[test]
fn clean_project_exits_0() {
    let good = fixtures().join("rules/DQ207/good");
    let output = dqlint(&["lint", good.to_str().unwrap(), "--format", "concise"]);
    assert_eq!(code(&output), 0, "stdout: {}", stdout(&output));
}

#[test]
fn warnings_alone_exit_0_unless_strict() {
    // Only a DQ207 warning.
    let bad = fixtures().join("rules/DQ207/bad");
    let path = bad.to_str().unwrap();
    let output = dqlint(&["lint", path, "--format", "concise", "--select", "DQ207"]);
    assert!(stdout(&output).contains("DQ207"));
    assert_eq!(code(&output), 0);
    let output = dqlint(&[
        "lint", path, "--format", "concise", "--select", "DQ207", "--strict",
    ]);
    assert_eq!(code(&output), 1);
}

/// `--error-on SEVERITY` (the contract's `--error-on warning`): the lowest
/// severity that fails the run; `warning` is `--strict`, `info` fails on
/// any finding, and `--strict` with `--error-on error` still fails on
/// warnings (the lower threshold wins).
#[test]
fn error_on_sets_the_lowest_failing_severity() {
    let exit = |rule: &str, extra: &[&str]| {
        let dir = fixtures().join(format!("rules/{rule}/bad"));
        let mut args = vec![
            "lint",
            dir.to_str().unwrap(),
            "--format",
            "concise",
            "--select",
            rule,
        ];
        args.extend_from_slice(extra);
        let output = dqlint(&args);
        assert!(stdout(&output).contains(rule), "{}", stdout(&output));
        code(&output)
    };
    // DQ207 is a warning, DQ402 an info.
    assert_eq!(exit("DQ207", &["--error-on", "error"]), 0);
    assert_eq!(exit("DQ207", &["--error-on", "warning"]), 1);
    assert_eq!(exit("DQ207", &["--error-on", "info"]), 1);
    assert_eq!(exit("DQ207", &["--error-on", "error", "--strict"]), 1);
    assert_eq!(exit("DQ402", &[]), 0);
    assert_eq!(exit("DQ402", &["--error-on", "warning"]), 0);
    assert_eq!(exit("DQ402", &["--strict"]), 0);
    assert_eq!(exit("DQ402", &["--error-on", "info"]), 1);
    let bad = dqlint(&["lint", ".", "--error-on", "fatal"]);
    assert_eq!(code(&bad), 2, "an unknown severity is a usage error");
    assert!(String::from_utf8_lossy(&bad.stderr).contains("warning"));
}

#[test]
fn folder_without_lhp_yaml_exits_2() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("pipelines")).unwrap();
    let output = dqlint(&["lint", dir.path().to_str().unwrap()]);
    assert_eq!(code(&output), 2);
    let err = String::from_utf8_lossy(&output.stderr);
    assert!(
        err.contains("lhp.yaml"),
        "the error names the missing lhp.yaml: {err}"
    );
    assert!(output.stdout.is_empty(), "no report on a failed run");
}

#[test]
fn outside_an_lhp_project_the_root_is_the_nearest_marker_and_nothing_to_lint_exits_2() {
    let dir = tempfile::tempdir().unwrap();
    let repo = dir.path().join("repo");
    std::fs::create_dir_all(repo.join(".git")).unwrap();
    std::fs::create_dir_all(repo.join("src/deep")).unwrap();
    std::fs::write(repo.join("src/notes.yaml"), "- name: a\n").unwrap();
    let output = dqlint(&["lint", repo.join("src/deep").to_str().unwrap()]);
    assert_eq!(code(&output), 2);
    let err = String::from_utf8_lossy(&output.stderr);
    assert!(err.contains("nothing to lint under"), "{err}");
    assert!(err.contains("repo"), "the error names the root: {err}");

    // A Python pipeline source alone makes the root a pipeline root: linted
    // (a clean one: exit 0), never passed over.
    std::fs::write(
        repo.join("src/orders.py"),
        "from pyspark import pipelines as dp\n",
    )
    .unwrap();
    let output = dqlint(&["lint", repo.join("src/deep").to_str().unwrap()]);
    assert_eq!(
        code(&output),
        0,
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    // A syntax error in it is a finding.
    std::fs::write(repo.join("src/orders.py"), "import dlt\ndef f(:\n").unwrap();
    let output = dqlint(&["lint", repo.to_str().unwrap(), "--format", "concise"]);
    assert_eq!(code(&output), 1);
    let out = String::from_utf8_lossy(&output.stdout);
    assert!(
        out.contains("src/orders.py:2:") && out.contains("DQ001"),
        "{out}"
    );
    std::fs::remove_file(repo.join("src/orders.py")).unwrap();

    // A DQX checks file under the root makes it a DQX-only root: linted.
    std::fs::write(
        repo.join("src/checks.yml"),
        "- criticality: error\n  check:\n    function: is_not_null\n",
    )
    .unwrap();
    let output = dqlint(&[
        "lint",
        repo.to_str().unwrap(),
        "--format",
        "concise",
        "--no-cache",
    ]);
    assert_eq!(code(&output), 1, "{}", stdout(&output));
    assert!(
        stdout(&output).contains("src/checks.yml:3:15: error[DQ811]"),
        "{}",
        stdout(&output)
    );
}

/// A folder without lhp.yaml holding DQX files: only its checks files and
/// run configs are read and linted by the DQ8xx rules, for a folder and for
/// a single file; no LHP finding, no DDL catalog from stray `.sql` files.
#[test]
fn a_dqx_only_root_lints_its_checks_files_and_run_configs() {
    let dir = tempfile::tempdir().unwrap();
    let root = std::fs::canonicalize(dir.path()).unwrap();
    let write = |rel: &str, text: &str| {
        let path = root.join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    };
    write("dqlint.toml", "");
    write(
        "quality/orders.yml",
        "- criticality: eror\n  check:\n    function: is_not_null\n    arguments:\n      column: id\n",
    );
    write(
        ".dqx/config.yml",
        "version: 1\nrun_configs:\n- name: default\n  input_config:\n    location: main.raw.orders\n  output_config:\n    location: main.clean.orders\n  checks_location: ../named/orders_checks.yml\n  quarantine_table: main.bad.orders\n",
    );
    // Named by the run config: a checks file whatever its content.
    write(
        "named/orders_checks.yml",
        "- check:\n    function: is_not_nul\n    arguments: {column: id}\n",
    );
    write(
        "sql/stray.sql",
        "CREATE TABLE x (id INT) TBLPROPERTIES (;\n",
    );
    write(
        "pipelines/not_lhp.yaml",
        "pipeline: x\nflowgroup: y\nactions: []\n",
    );
    write("substitutions/dev.yaml", "dev: {a: 1}\n");

    let (report, exit) = lint_json(&root, &["--no-cache"]);
    assert_eq!(exit, 1);
    // DQ852 in .dqx/config.yml, DQ810 in the named file, DQ806 in quality/.
    assert_eq!(codes_of(&report), ["DQ806", "DQ810", "DQ852"], "{report}");
    assert_eq!(report["summary"]["files"], 3, "{report}");

    // One file: the root is linted, that file's findings reported.
    let output = dqlint(&[
        "lint",
        root.join("quality/orders.yml").to_str().unwrap(),
        "--format",
        "concise",
        "--no-cache",
    ]);
    assert_eq!(code(&output), 1);
    let out = stdout(&output);
    assert!(out.contains("orders.yml:1:16: error[DQ806]"), "{out}");
    assert!(!out.contains("DQ810") && !out.contains("DQ852"), "{out}");

    // A file of the root that is no DQX file: said so, nothing reported.
    let output = dqlint(&[
        "lint",
        root.join("sql/stray.sql").to_str().unwrap(),
        "--format",
        "concise",
        "--no-cache",
    ]);
    assert_eq!(code(&output), 0, "{}", stdout(&output));
    let err = String::from_utf8_lossy(&output.stderr);
    assert!(err.contains("not a DQX checks file or run config"), "{err}");
}

#[test]
fn missing_path_exits_2() {
    let dir = tempfile::tempdir().unwrap();
    let output = dqlint(&["lint", dir.path().join("nope").to_str().unwrap()]);
    assert_eq!(code(&output), 2);
}

#[test]
fn unknown_select_code_exits_2() {
    let output = dqlint(&["lint", showcase().to_str().unwrap(), "--select", "DQ999"]);
    assert_eq!(code(&output), 2);
    let err = String::from_utf8_lossy(&output.stderr);
    assert!(
        err.contains("DQ999"),
        "the error names the unknown code: {err}"
    );
    let output = dqlint(&[
        "lint",
        showcase().to_str().unwrap(),
        "--ignore",
        "no-such-rule",
    ]);
    assert_eq!(code(&output), 2);
}

#[test]
fn unknown_option_exits_2() {
    let output = dqlint(&["lint", "--no-such-option"]);
    assert_eq!(code(&output), 2);
}

#[test]
fn select_by_prefix_and_name() {
    let (report, _) = lint_json(&showcase(), &["--select", "DQ2"]);
    let codes = codes_of(&report);
    assert!(
        !codes.is_empty() && codes.iter().all(|c| c.starts_with("DQ2")),
        "{codes:?}"
    );
    let (report, exit) = lint_json(&showcase(), &["--select", "quarantine-coerces-action"]);
    assert_eq!(codes_of(&report), vec!["DQ207".to_string()]);
    assert_eq!(exit, 0, "a warning alone does not fail the run");
    let (report, _) = lint_json(&showcase(), &["--ignore", "DQ2,DQ4"]);
    assert!(codes_of(&report)
        .iter()
        .all(|c| !c.starts_with("DQ2") && !c.starts_with("DQ4")));
}

/// A path inside the project lints the project but reports only below it.
#[test]
fn path_inside_project_scopes_the_report() {
    let (report, _) = lint_json(&showcase().join("pipelines/silver"), &[]);
    let diagnostics = report["diagnostics"].as_array().unwrap();
    assert!(!diagnostics.is_empty());
    assert!(
        diagnostics
            .iter()
            .all(|d| d["file"].as_str().unwrap().starts_with("pipelines/silver/")),
        "{diagnostics:?}"
    );
    assert_eq!(
        codes_of(&report),
        vec!["DQ701".to_string(), "DQ702".to_string()]
    );
}

#[test]
fn rule_prints_its_documentation() {
    let output = dqlint(&["rule", "DQ207"]);
    assert_eq!(code(&output), 0);
    let text = stdout(&output);
    assert!(
        text.starts_with("# DQ207 (quarantine-coerces-action)"),
        "{text}"
    );
    for section in [
        "## What it does",
        "## Why is this bad?",
        "## Example",
        "## Fix",
    ] {
        assert!(
            text.contains(section),
            "`dqlint rule DQ207` has {section}:\n{text}"
        );
    }
    let by_name = dqlint(&["rule", "quarantine-coerces-action"]);
    assert_eq!(stdout(&by_name), text, "a rule is found by its name too");
}

#[test]
fn rule_unknown_exits_2() {
    let output = dqlint(&["rule", "DQ999"]);
    assert_eq!(code(&output), 2);
}

#[test]
fn rule_without_argument_lists_every_rule() {
    let output = dqlint(&["rule"]);
    assert_eq!(code(&output), 0);
    let text = stdout(&output);
    let lines: Vec<&str> = text.lines().skip(1).collect();
    assert!(text.starts_with("code "), "a header line first:\n{text}");
    assert_eq!(lines.len(), RULES.len(), "one line per rule:\n{text}");
    for (line, rule) in lines.iter().zip(RULES) {
        assert!(
            line.starts_with(rule.code) && line.contains(rule.name),
            "`{line}` lists {} ({})",
            rule.code,
            rule.name
        );
    }
}

/// Every rule's documentation has the sections `dqlint rule` and the
/// editor hovers rely on.
#[test]
fn every_rule_is_documented() {
    let mut failures = Vec::new();
    for rule in RULES {
        let doc = rule.doc();
        for section in [
            "## What it does",
            "## Why is this bad?",
            "## Example",
            "## Fix",
        ] {
            if !doc.contains(section) {
                failures.push(format!("{}: no `{section}`", rule.code));
            }
        }
        if rule.summary().is_empty() {
            failures.push(format!("{}: empty summary", rule.code));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
