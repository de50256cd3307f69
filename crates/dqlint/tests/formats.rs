//! `--format sarif` and `--format github`, and the output options
//! (`--statistics`, `--quiet`, `--no-color`, colour only on a terminal),
//! end to end on `fixtures/showcase`.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use dqlint::output::github::{escape_data, escape_property};
use dqlint_linter::RULES;
use serde_json::{json, Value};

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .unwrap()
}

/// Runs dqlint from the workspace root (CI runs it from the checkout).
fn dqlint(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_dqlint"))
        .args(args)
        .current_dir(workspace())
        .env_remove("NO_COLOR")
        .output()
        .expect("the dqlint binary runs")
}

fn stdout(output: &Output) -> String {
    String::from_utf8(output.stdout.clone()).expect("stdout is UTF-8")
}

fn json_report() -> Value {
    serde_json::from_str(&stdout(&dqlint(&[
        "lint",
        "fixtures/showcase",
        "--format",
        "json",
    ])))
    .unwrap()
}

fn sarif_report() -> (Value, i32) {
    let output = dqlint(&["lint", "fixtures/showcase", "--format", "sarif"]);
    let value = serde_json::from_str(&stdout(&output)).expect("--format sarif prints JSON");
    (value, output.status.code().unwrap())
}

/// The SARIF 2.1.0 schema, fetched by `.ci/sarif-schema` (which `.ci/run`
/// calls) from the npm registry (never committed: it is an OASIS document).
fn sarif_schema() -> Option<Value> {
    let path = std::env::var_os("DQLINT_SARIF_SCHEMA")
        .map(PathBuf::from)
        .unwrap_or_else(|| workspace().join("target/sarif-schema/sarif-schema-2.1.0.json"));
    match std::fs::read_to_string(&path) {
        Ok(text) => {
            let mut schema: Value = serde_json::from_str(&text).expect("the SARIF schema is JSON");
            // The published schema's `language` patterns have a stray `]`
            // that strict ECMA-262 regexes (and so the validator's check of
            // the schema itself) refuse; use the pattern they mean.
            fix_language_patterns(&mut schema);
            Some(schema)
        }
        Err(e) => {
            let message = format!(
                "SARIF schema not found at {} ({e}); `.ci/run` fetches it (see the `sarif-schema` step)",
                path.display()
            );
            // Skipping is a choice made out loud, never the default: a test
            // that reports `ok` without validating proves nothing.
            if std::env::var("DQLINT_SARIF_SCHEMA_SKIP").is_ok_and(|v| v == "1") {
                eprintln!("\n!!! SKIPPING SARIF SCHEMA VALIDATION (DQLINT_SARIF_SCHEMA_SKIP=1): {message}\n");
                return None;
            }
            panic!(
                "{message}. Fetch it with `.ci/sarif-schema` (needs npm), or set \
                 DQLINT_SARIF_SCHEMA_SKIP=1 to skip this validation knowingly"
            );
        }
    }
}

fn fix_language_patterns(value: &mut Value) {
    match value {
        Value::String(s) if s == "^[a-zA-Z]{2}|^[a-zA-Z]{2}-[a-zA-Z]{2}]?$" => {
            *s = "^[a-zA-Z]{2}(-[a-zA-Z]{2})?$".into()
        }
        Value::Array(items) => items.iter_mut().for_each(fix_language_patterns),
        Value::Object(map) => map.values_mut().for_each(fix_language_patterns),
        _ => {}
    }
}

#[test]
fn sarif_is_valid_against_the_2_1_0_schema() {
    let Some(schema) = sarif_schema() else { return };
    let validator = jsonschema::draft4::new(&schema).expect("the schema compiles");
    let (log, exit) = sarif_report();
    assert_eq!(exit, 1, "exit status as for the other formats");
    let errors: Vec<String> = validator
        .iter_errors(&log)
        .map(|e| format!("{} at {}", e, e.instance_path()))
        .collect();
    assert!(
        errors.is_empty(),
        "SARIF output fails the schema:\n{}",
        errors.join("\n")
    );

    // The validator really validates: broken documents are refused.
    let mut bad_level = log.clone();
    bad_level["runs"][0]["results"][0]["level"] = json!("fatal");
    assert!(
        !validator.is_valid(&bad_level),
        "an unknown level must be rejected"
    );
    let mut bad_line = log.clone();
    bad_line["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["region"]["startLine"] =
        json!(0);
    assert!(!validator.is_valid(&bad_line), "line 0 must be rejected");
    let mut no_version = log;
    no_version.as_object_mut().unwrap().remove("version");
    assert!(
        !validator.is_valid(&no_version),
        "a log without version must be rejected"
    );
}

/// `--statistics --format sarif`: a valid log whose run's property bag
/// counts the findings per rule, the results as without `--statistics`.
#[test]
fn sarif_statistics_are_valid_and_count_per_rule() {
    let Some(schema) = sarif_schema() else { return };
    let validator = jsonschema::draft4::new(&schema).expect("the schema compiles");
    let output = dqlint(&[
        "lint",
        "fixtures/showcase",
        "--format",
        "sarif",
        "--statistics",
    ]);
    assert_eq!(output.status.code(), Some(1));
    let log: Value = serde_json::from_str(&stdout(&output)).expect("SARIF is JSON");
    let errors: Vec<String> = validator
        .iter_errors(&log)
        .map(|e| format!("{} at {}", e, e.instance_path()))
        .collect();
    assert!(
        errors.is_empty(),
        "fails the schema:\n{}",
        errors.join("\n")
    );
    let (plain, _) = sarif_report();
    let run = &log["runs"][0];
    assert_eq!(run["results"], plain["runs"][0]["results"]);
    let stats = run["properties"]["statistics"].as_array().unwrap();
    let results = run["results"].as_array().unwrap();
    for rule in stats {
        let code = rule["code"].as_str().unwrap();
        let of_rule: Vec<&Value> = results.iter().filter(|r| r["ruleId"] == code).collect();
        assert_eq!(rule["count"].as_u64(), Some(of_rule.len() as u64), "{code}");
        let fixable = of_rule.iter().filter(|r| r.get("fixes").is_some()).count();
        assert_eq!(rule["fixable"].as_u64(), Some(fixable as u64), "{code}");
    }
    let total: u64 = stats.iter().map(|r| r["count"].as_u64().unwrap()).sum();
    assert_eq!(total as usize, results.len());
    let summary = &run["properties"]["summary"];
    assert_eq!(
        summary["errors"].as_u64().unwrap()
            + summary["warnings"].as_u64().unwrap()
            + summary["infos"].as_u64().unwrap(),
        total
    );
}

#[test]
fn sarif_driver_describes_every_rule() {
    let (log, _) = sarif_report();
    assert_eq!(log["version"], "2.1.0");
    let driver = &log["runs"][0]["tool"]["driver"];
    assert_eq!(driver["name"], "dqlint");
    let rules = driver["rules"].as_array().unwrap();
    assert_eq!(rules.len(), RULES.len());
    for (descriptor, rule) in rules.iter().zip(RULES) {
        assert_eq!(descriptor["id"], rule.code);
        assert_eq!(descriptor["name"], rule.name);
        assert_eq!(descriptor["shortDescription"]["text"], rule.summary());
        assert!(
            descriptor["fullDescription"]["text"]
                .as_str()
                .unwrap()
                .len()
                >= rule.summary().len()
        );
        assert!(descriptor["help"]["markdown"]
            .as_str()
            .unwrap()
            .contains("## Example (bad)"));
        let uri = descriptor["helpUri"].as_str().unwrap();
        assert!(
            uri.starts_with("https://")
                && uri.ends_with(&format!("{}-{}.md", rule.code, rule.name)),
            "{uri}"
        );
        let level = match rule.severity.as_str() {
            "info" => "note",
            other => other,
        };
        assert_eq!(descriptor["defaultConfiguration"]["level"], level);
    }
}

#[test]
fn sarif_results_match_the_json_report() {
    let (log, _) = sarif_report();
    let report = json_report();
    let results = log["runs"][0]["results"].as_array().unwrap();
    let diagnostics = report["diagnostics"].as_array().unwrap();
    assert_eq!(results.len(), diagnostics.len());
    let rules = log["runs"][0]["tool"]["driver"]["rules"]
        .as_array()
        .unwrap();
    for (r, d) in results.iter().zip(diagnostics) {
        assert_eq!(r["ruleId"], d["code"]);
        assert_eq!(
            rules[r["ruleIndex"].as_u64().unwrap() as usize]["id"],
            d["code"]
        );
        let location = &r["locations"][0]["physicalLocation"];
        assert_eq!(location["artifactLocation"]["uriBaseId"], "%SRCROOT%");
        assert_eq!(
            location["artifactLocation"]["uri"],
            format!("fixtures/showcase/{}", d["file"].as_str().unwrap())
        );
        let region = &location["region"];
        assert_eq!(region["startLine"], d["range"]["start"]["line"]);
        assert_eq!(region["startColumn"], d["range"]["start"]["column"]);
        assert_eq!(region["endLine"], d["range"]["end"]["line"]);
        assert_eq!(region["endColumn"], d["range"]["end"]["column"]);
        let related = d["related"].as_array().unwrap();
        let sarif_related = r["relatedLocations"]
            .as_array()
            .map(Vec::as_slice)
            .unwrap_or(&[]);
        assert_eq!(sarif_related.len(), related.len());
        for (s, j) in sarif_related.iter().zip(related) {
            assert_eq!(s["message"]["text"], j["message"]);
            assert_eq!(
                s["physicalLocation"]["region"]["startLine"],
                j["range"]["start"]["line"]
            );
        }
        assert_eq!(r.get("fixes").is_some(), d.get("fix").is_some());
    }
    assert_eq!(log["runs"][0]["columnKind"], "unicodeCodePoints");
    let base = log["runs"][0]["originalUriBaseIds"]["%SRCROOT%"]["uri"]
        .as_str()
        .unwrap();
    assert!(
        base.starts_with("file:///") && base.ends_with('/'),
        "{base}"
    );
}

#[test]
fn github_annotations_one_per_finding() {
    let output = dqlint(&["lint", "fixtures/showcase", "--format", "github", "--quiet"]);
    assert_eq!(output.status.code(), Some(1));
    let text = stdout(&output);
    let lines: Vec<&str> = text.lines().collect();
    let report = json_report();
    let diagnostics = report["diagnostics"].as_array().unwrap();
    assert_eq!(lines.len(), diagnostics.len(), "{text}");
    for (line, d) in lines.iter().zip(diagnostics) {
        let command = match d["severity"].as_str().unwrap() {
            "error" => "error",
            "warning" => "warning",
            _ => "notice",
        };
        let expected = format!(
            "::{command} file=fixtures/showcase/{},line={},col={},endLine={},endColumn={},title={}::",
            d["file"].as_str().unwrap(),
            d["range"]["start"]["line"],
            d["range"]["start"]["column"],
            d["range"]["end"]["line"],
            d["range"]["end"]["column"],
            d["code"].as_str().unwrap(),
        );
        assert!(
            line.starts_with(&expected),
            "{line}\nexpected to start with\n{expected}"
        );
        assert!(!line[expected.len()..].contains('\n'));
    }
    assert!(
        lines.iter().any(|l| l.starts_with("::warning "))
            && lines.iter().any(|l| l.starts_with("::error "))
    );
}

#[test]
fn github_escaping_follows_the_workflow_command_rules() {
    assert_eq!(
        escape_data("50% of\r\nrows: a,b"),
        "50%25 of%0D%0Arows: a,b"
    );
    assert_eq!(escape_property("dir,x/a:b.yaml%"), "dir%2Cx/a%3Ab.yaml%25");
    assert_eq!(escape_property("line\nbreak"), "line%0Abreak");
}

#[test]
fn github_without_quiet_ends_with_the_summary() {
    let text = stdout(&dqlint(&[
        "lint",
        "fixtures/showcase",
        "--format",
        "github",
    ]));
    assert!(text.lines().last().unwrap().starts_with("Found "), "{text}");
}

#[test]
fn statistics_count_per_rule() {
    let output = dqlint(&["lint", "fixtures/showcase", "--statistics"]);
    assert_eq!(output.status.code(), Some(1));
    let text = stdout(&output);
    let report = json_report();
    let diagnostics = report["diagnostics"].as_array().unwrap();
    let mut total = 0;
    let (counts, summary): (Vec<&str>, Vec<&str>) = text
        .lines()
        .partition(|l| l.trim_start().starts_with(|c: char| c.is_ascii_digit()));
    assert_eq!(
        summary,
        vec![
            "lhp.yaml requires LHP `>=0.8.0,<0.9.0`; dqlint checks as LHP 0.9.3.",
            text.lines().last().unwrap()
        ]
    );
    for line in counts {
        let parts: Vec<&str> = line.split_whitespace().collect();
        let n: usize = parts[0].parse().unwrap();
        let count = diagnostics.iter().filter(|d| d["code"] == parts[1]).count();
        assert_eq!(n, count, "{line}");
        // `[*]` before the name marks a rule with fixable findings.
        let fixable = diagnostics
            .iter()
            .any(|d| d["code"] == parts[1] && d.get("fix").is_some());
        assert_eq!(parts[2] == "[*]", fixable, "{line}");
        assert_eq!(
            Some(*parts.last().unwrap()),
            dqlint_linter::find(parts[1]).map(|r| r.name)
        );
        total += n;
    }
    assert_eq!(total, diagnostics.len());
    assert!(text.lines().last().unwrap().starts_with("Found "));
}

#[test]
fn quiet_drops_the_summary_line() {
    let loud = stdout(&dqlint(&[
        "lint",
        "fixtures/showcase",
        "--format",
        "concise",
    ]));
    let quiet = stdout(&dqlint(&[
        "lint",
        "fixtures/showcase",
        "--format",
        "concise",
        "--quiet",
    ]));
    assert!(loud.lines().last().unwrap().starts_with("Found "));
    // The summary: the project's required LHP version, then the counts.
    assert_eq!(quiet.lines().count() + 2, loud.lines().count());
    assert!(!quiet.contains("Found ") && !quiet.contains("lhp.yaml requires LHP"));
    let full_quiet = stdout(&dqlint(&["lint", "fixtures/showcase", "--quiet"]));
    assert!(!full_quiet.contains("Found ") && full_quiet.contains("DQ207"));
}

#[test]
fn no_colour_when_not_on_a_terminal() {
    // stdout is a pipe here and NO_COLOR is unset: plain text all the same.
    for extra in [&[][..], &["--no-color"][..]] {
        let mut args = vec!["lint", "fixtures/showcase"];
        args.extend_from_slice(extra);
        let text = stdout(&dqlint(&args));
        assert!(text.contains("DQ207"), "{text}");
        assert!(
            !text.contains('\u{1b}'),
            "ANSI escapes in piped output ({extra:?})"
        );
    }
}

/// On a real terminal (a pty through util-linux `script`) the full format
/// is coloured with `NO_COLOR` unset or set but empty (no-color.org: only
/// a non-empty value turns colour off), and `NO_COLOR=1` or `--no-color`
/// turn it off. `script` is part of util-linux, always there on Linux:
/// missing, the test fails rather than passing without a terminal.
#[test]
fn colour_on_a_terminal_unless_no_color() {
    let has_script = Command::new("script")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !has_script {
        if cfg!(target_os = "linux") {
            panic!("no `script` (util-linux) to give dqlint a terminal");
        }
        eprintln!("\n!!! SKIPPING the terminal colour test: no `script` command\n");
        return;
    }
    let run = |no_color: Option<&str>, extra: &str| {
        let command = format!(
            "{} lint fixtures/showcase --no-cache {extra}",
            env!("CARGO_BIN_EXE_dqlint")
        );
        let mut script = Command::new("script");
        script
            .args(["-qec", &command, "/dev/null"])
            .current_dir(workspace())
            .env("TERM", "xterm");
        match no_color {
            Some(value) => script.env("NO_COLOR", value),
            None => script.env_remove("NO_COLOR"),
        };
        let output = script.output().unwrap();
        let text = String::from_utf8_lossy(&output.stdout).into_owned();
        assert!(
            text.contains("DQ207"),
            "the report went through the pty: {text}"
        );
        text
    };
    assert!(run(None, "").contains('\u{1b}'), "no colour on a terminal");
    assert!(
        run(Some(""), "").contains('\u{1b}'),
        "NO_COLOR= (empty) turned colour off"
    );
    assert!(
        !run(Some("1"), "").contains('\u{1b}'),
        "NO_COLOR=1 still coloured"
    );
    assert!(
        !run(None, "--no-color").contains('\u{1b}'),
        "--no-color still coloured"
    );
}
