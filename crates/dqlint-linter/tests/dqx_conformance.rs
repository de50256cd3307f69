//! The DQX conformance corpus (`tests/dqx-conformance/`): dqlint held to
//! what DQX 0.17.0 itself said about each case, as recorded by
//! `tests/dqx-conformance/record.py` in `verdicts.json`.
//!
//! Two kinds of case:
//!
//! - The generated ones (`generate.py`, from the function catalogue): for
//!   every function a valid check (required parameters, and every
//!   parameter), the check without a required parameter, with a wrongly
//!   typed one, and without a parameter DQX needs only when it builds.
//!   dqlint must report an error exactly where DQX rejects the file, with
//!   the rule the case is about, and nothing on the valid ones.
//! - The bad and good doc example of every DQ8xx rule: the bad one must
//!   get from DQX what the contract's "DQX" column says (rejected by its
//!   loader, `validate_checks`, rule building, logged by its semantic
//!   validation, or accepted: the silent, crash and skip rules, which no
//!   static stage of DQX notices), the good one must pass every stage.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use dqlint_linter::{lint_configured, Config, ExampleKind, Selection, Severity, RULES};
use dqlint_project::Project;
use serde_json::Value;

const RECORD: &str =
    "DQX_PYTHON=/path/to/dqx-venv/bin/python python3 tests/dqx-conformance/record.py";

/// What DQX does with a file, from the most to the least serious.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Stage {
    /// Its loader fails (YAML/JSON error; a run config blueprint rejects).
    Load,
    /// `validate_checks` reports an error.
    Validate,
    /// Validated, but building the rules raises.
    Build,
    /// Its semantic validation logs a duplicate or conflict.
    Semantic,
    /// A run config value did not survive loading (replaced by a default or ignored).
    Dropped,
    /// A run config location DQX rejects when the run starts.
    Runtime,
    /// Every static stage accepts it (the rule is about something DQX
    /// does silently, or only finds while running on data).
    Accepted,
}

/// What DQX does with each DQ8xx rule's bad example: the contract's DQX
/// column, where DQX 0.17.0 agrees (the rule pages say where it does not).
const STAGES: &[(&str, Stage)] = &[
    ("DQ801", Stage::Validate),
    ("DQ802", Stage::Validate),
    ("DQ803", Stage::Validate),
    ("DQ804", Stage::Validate),
    ("DQ805", Stage::Validate),
    ("DQ806", Stage::Validate),
    ("DQ807", Stage::Accepted),
    ("DQ808", Stage::Accepted),
    ("DQ809", Stage::Accepted),
    ("DQ810", Stage::Validate),
    ("DQ811", Stage::Validate),
    ("DQ812", Stage::Validate),
    ("DQ813", Stage::Validate),
    // validate lets a boolean through for an int: the run crashes.
    ("DQ814", Stage::Accepted),
    ("DQ815", Stage::Accepted),
    ("DQ816", Stage::Validate),
    ("DQ817", Stage::Accepted),
    // a filter DQX finds unsafe skips the check at run time
    ("DQ818", Stage::Build),
    ("DQ820", Stage::Accepted),
    ("DQ821", Stage::Accepted),
    // a bare name is a column reference: the run crashes (UNRESOLVED_COLUMN)
    ("DQ822", Stage::Accepted),
    // the column does not resolve: the run crashes
    ("DQ823", Stage::Accepted),
    // Spark compiles the regex when the check runs: the run crashes
    ("DQ825", Stage::Accepted),
    // Static stages accept them: a placeholder left over is found when
    // the checks run (skipped check, or a failed run for a limit), the
    // runtime when the engine starts, a missing column when it applies.
    ("DQ824", Stage::Accepted),
    ("DQ826", Stage::Accepted),
    ("DQ827", Stage::Accepted),
    ("DQ830", Stage::Semantic),
    ("DQ831", Stage::Semantic),
    ("DQ832", Stage::Accepted),
    ("DQ850", Stage::Load),
    ("DQ851", Stage::Dropped),
    ("DQ852", Stage::Dropped),
    ("DQ853", Stage::Runtime),
    ("DQ854", Stage::Accepted),
    ("DQ855", Stage::Accepted),
    ("DQ856", Stage::Accepted),
    ("DQ857", Stage::Accepted),
    ("DQ858", Stage::Accepted),
    ("DQ859", Stage::Accepted),
    // DQX 0.17.0's RunConfig has no `checks` field: the loader drops it.
    ("DQ860", Stage::Dropped),
    // Python only: no checks file or run config to record; DQX runs it.
    ("DQ861", Stage::Accepted),
    // Python only: Python accepts the call; DQX raises when it runs.
    ("DQ862", Stage::Accepted),
];

fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn corpus() -> PathBuf {
    repo_root().join("tests/dqx-conformance")
}

fn verdicts() -> Value {
    let path = corpus().join("verdicts.json");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap()
}

fn text_list(v: &Value, key: &str) -> bool {
    v[key].as_array().is_some_and(|a| !a.is_empty())
}

fn stage_of(verdict: &Value) -> Stage {
    let failed = |key: &str| !verdict[key].is_null();
    match verdict["kind"].as_str() {
        Some("config") if failed("load") => Stage::Load,
        Some("config") if text_list(verdict, "dropped") => Stage::Dropped,
        Some("config") if text_list(verdict, "runtime") => Stage::Runtime,
        Some("config") => Stage::Accepted,
        _ if failed("load") => Stage::Load,
        _ if text_list(verdict, "validate") => Stage::Validate,
        _ if text_list(verdict, "build") => Stage::Build,
        _ if text_list(verdict, "semantic") => Stage::Semantic,
        _ => Stage::Accepted,
    }
}

/// The files of an example DQX reads (record.py picks the same ones).
fn is_dqx_file(path: &str) -> bool {
    let name = path.rsplit('/').next().unwrap_or(path);
    [".yml", ".yaml", ".json"].iter().any(|e| name.ends_with(e))
        && name != "lhp.yaml"
        && !path.starts_with("substitutions/")
}

/// Lints the project in `dir`, as the CLI would: findings per file.
fn lint_dir(dir: &Path) -> BTreeMap<String, Vec<(String, Severity, String)>> {
    let config = Config::discover(dir, None).unwrap_or_else(|e| panic!("dqlint.toml: {e}"));
    let options = config.load_options(&[]);
    let project = Project::load(dir, &options).unwrap();
    let mut out: BTreeMap<String, Vec<_>> = BTreeMap::new();
    for d in lint_configured(&project, &config, &Selection::default()) {
        let file = project.file(d.primary.file);
        out.entry(file.rel.to_string()).or_default().push((
            d.rule.code.to_string(),
            d.severity,
            d.message.clone(),
        ));
    }
    out
}

#[test]
fn every_dqx_rule_has_its_examples_recorded_as_they_are_now() {
    let verdicts = verdicts();
    let mut problems = Vec::new();
    for rule in RULES.iter().filter(|r| r.code.starts_with("DQ8")) {
        if !STAGES.iter().any(|(code, _)| *code == rule.code) {
            problems.push(format!(
                "{}: no DQX stage in STAGES (what DQX does with its bad example)",
                rule.code
            ));
        }
        let bad = rule.example(ExampleKind::Bad).unwrap();
        let good = rule.example(ExampleKind::Good).unwrap().overlaid_on(&bad);
        for (kind, example) in [("bad", &bad), ("good", &good)] {
            let recorded = &verdicts["examples"][rule.code][kind];
            let now: BTreeMap<&str, &str> = example
                .files
                .iter()
                .filter(|f| is_dqx_file(&f.path))
                .map(|f| (f.path.as_str(), f.text.as_str()))
                .collect();
            let then: BTreeMap<&str, &str> = recorded
                .as_object()
                .map(|o| {
                    o.iter()
                        .map(|(p, v)| (p.as_str(), v["text"].as_str().unwrap_or("")))
                        .collect()
                })
                .unwrap_or_default();
            if now != then {
                problems.push(format!(
                    "{} {kind} example: not recorded as it is now",
                    rule.code
                ));
            }
        }
    }
    assert!(
        problems.is_empty(),
        "{}\nRecord DQX's verdicts again (needs DQX 0.17.0, see the script): {RECORD}",
        problems.join("\n")
    );
}

#[test]
fn bad_examples_get_from_dqx_what_the_contract_says_and_good_ones_pass() {
    let verdicts = verdicts();
    let mut problems = Vec::new();
    for (code, expected) in STAGES {
        let Some(rule) = RULES.iter().find(|r| r.code == *code) else {
            problems.push(format!("{code}: in STAGES but not a rule"));
            continue;
        };
        for (kind, want) in [("bad", *expected), ("good", Stage::Accepted)] {
            let files = verdicts["examples"][rule.code][kind].as_object();
            let got = files
                .into_iter()
                .flatten()
                .map(|(_, v)| stage_of(v))
                .min()
                .unwrap_or(Stage::Accepted);
            if got != want {
                problems.push(format!(
                    "{code} {kind} example: DQX's verdict is {got:?}, expected {want:?}: {}",
                    serde_json::to_string(&verdicts["examples"][rule.code][kind]).unwrap()
                ));
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// The rule a generated case is about, by its folder.
fn expected_codes(group: &str) -> BTreeSet<&'static str> {
    match group {
        "valid" => BTreeSet::new(),
        "missing" => BTreeSet::from(["DQ811"]),
        "wrong_type" => BTreeSet::from(["DQ813"]),
        "build" => BTreeSet::from(["DQ818"]),
        other => panic!("generated cases: unknown folder {other}"),
    }
}

fn copy_cases(from: &Path, to: &Path, out: &mut Vec<String>) {
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            std::fs::create_dir_all(&target).unwrap();
            copy_cases(&entry.path(), &target, out);
        } else {
            std::fs::copy(entry.path(), &target).unwrap();
            out.push(target.to_string_lossy().into_owned());
        }
    }
}

#[test]
fn generated_cases_raise_an_error_exactly_where_dqx_rejects_them() {
    let verdicts = verdicts();
    let recorded = verdicts["cases"].as_object().unwrap();
    let tmp = tempfile::tempdir().unwrap();
    // The cases run on a runtime that has every function (the geo ones
    // need 17.1, DQ826), as DQX's oracle builds them.
    std::fs::write(tmp.path().join("dqlint.toml"), "[dqx]\ndbr = \"17.1\"\n").unwrap();
    let cases = tmp.path().join("cases");
    std::fs::create_dir_all(&cases).unwrap();
    let mut written = Vec::new();
    copy_cases(&corpus().join("cases"), &cases, &mut written);
    let on_disk: BTreeSet<String> = written
        .iter()
        .map(|p| {
            Path::new(p)
                .strip_prefix(tmp.path())
                .unwrap()
                .to_string_lossy()
                .replace('\\', "/")
        })
        .collect();
    let in_record: BTreeSet<String> = recorded.keys().cloned().collect();
    assert_eq!(
        on_disk, in_record,
        "cases on disk and in verdicts.json differ: run generate.py, then {RECORD}"
    );
    assert!(
        on_disk.len() > 150,
        "the generated corpus is missing: {}",
        on_disk.len()
    );
    let findings = lint_dir(tmp.path());
    let stray: Vec<_> = findings.keys().filter(|f| !on_disk.contains(*f)).collect();
    assert!(stray.is_empty(), "findings outside the cases: {stray:?}");
    // Until DQ818 (values DQX checks only when it builds the rule) exists,
    // the build cases are DQX's verdicts waiting for it: dqlint must then
    // say nothing there rather than something else.
    let dq818 = RULES.iter().any(|r| r.code == "DQ818");
    let mut problems = Vec::new();
    for (case, verdict) in recorded {
        let group = case.split('/').nth(2).unwrap_or("");
        let found = findings.get(case).cloned().unwrap_or_default();
        if group == "build" && !dq818 {
            if stage_of(verdict) != Stage::Build || !found.is_empty() {
                problems.push(format!("{case}: DQX said {verdict}; dqlint {found:?}"));
            }
            continue;
        }
        let codes: BTreeSet<&str> = found.iter().map(|(c, _, _)| c.as_str()).collect();
        let dqx_rejects = matches!(
            stage_of(verdict),
            Stage::Load | Stage::Validate | Stage::Build
        );
        let dqlint_rejects = found.iter().any(|(_, s, _)| *s == Severity::Error);
        if dqx_rejects != dqlint_rejects {
            problems.push(format!(
                "{case}: DQX {} it, dqlint {}: {found:?}; DQX said {verdict}",
                if dqx_rejects { "rejects" } else { "accepts" },
                if dqlint_rejects {
                    "reports an error"
                } else {
                    "no error"
                },
            ));
        } else if codes != expected_codes(group) {
            problems.push(format!(
                "{case}: expected {:?}, dqlint says {found:?}",
                expected_codes(group)
            ));
        }
    }
    assert!(
        problems.is_empty(),
        "{} of {} cases:\n{}",
        problems.len(),
        recorded.len(),
        problems.join("\n")
    );
}
