//! The corpus run ("crater"): `dqlint lint --format json --no-cache` on every
//! real LHP project committed under `tests/corpus/projects/`, compared with
//! the committed, reviewed findings in `tests/corpus/expected/<project>.json`.
//!
//! Any change in what dqlint says about a real project fails here until the
//! new expectation is recorded and reviewed:
//!
//! ```sh
//! DQLINT_UPDATE_CORPUS=1 cargo test -p dqlint --test crater
//! git diff tests/corpus/expected   # judge every changed finding
//! ```
//!
//! `tests/corpus/expected/README.md` says why each committed finding is true.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

fn corpus_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/corpus")
}

fn projects() -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = std::fs::read_dir(corpus_dir().join("projects"))
        .expect("tests/corpus/projects is committed")
        .map(|entry| entry.expect("readable corpus entry").path())
        .filter(|path| path.join("lhp.yaml").is_file())
        .collect();
    out.sort();
    out
}

/// What the snapshot holds: the exit code and the JSON report, with the
/// absolute `root` replaced by the project's place in the corpus.
fn run(project: &Path) -> Value {
    let name = project.file_name().unwrap().to_string_lossy().into_owned();
    let output = Command::new(env!("CARGO_BIN_EXE_dqlint"))
        .args(["lint", "--format", "json", "--no-cache"])
        .current_dir(project)
        .env_remove("DQLINT_CONFIG")
        .output()
        .expect("dqlint runs");
    let code = output.status.code().expect("dqlint exits with a code");
    assert!(
        code == 0 || code == 1,
        "{name}: exit {code} (0 or 1 expected on a real project)\nstderr:\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let mut report: Value = serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|e| panic!("{name}: stdout is not JSON ({e})"));
    let root = report
        .get("root")
        .and_then(Value::as_str)
        .unwrap_or_else(|| panic!("{name}: the report has a `root`"));
    assert!(
        Path::new(root).is_absolute(),
        "{name}: `root` is absolute ({root})"
    );
    report["root"] = Value::String(format!("tests/corpus/projects/{name}"));
    serde_json::json!({ "exit_code": code, "report": report })
}

#[test]
fn corpus_findings_match_the_reviewed_expectations() {
    let update = std::env::var_os("DQLINT_UPDATE_CORPUS").is_some_and(|v| !v.is_empty());
    let projects = projects();
    assert!(
        projects.len() >= 40,
        "the committed corpus holds every project ({} found)",
        projects.len()
    );
    let mut changed = Vec::new();
    for project in &projects {
        let name = project.file_name().unwrap().to_string_lossy().into_owned();
        let actual = run(project);
        let expected_path = corpus_dir().join("expected").join(format!("{name}.json"));
        let expected: Option<Value> = std::fs::read_to_string(&expected_path)
            .ok()
            .map(|text| serde_json::from_str(&text).expect("expected findings are JSON"));
        if expected.as_ref() == Some(&actual) {
            continue;
        }
        if update {
            let mut text = serde_json::to_string_pretty(&actual).unwrap();
            text.push('\n');
            std::fs::write(&expected_path, text).expect("write the expectation");
            eprintln!("updated {}", expected_path.display());
        } else {
            changed.push(summary_of_change(&name, expected.as_ref(), &actual));
        }
    }
    assert!(
        changed.is_empty(),
        "dqlint's findings on the corpus changed; review, then record with \
         `DQLINT_UPDATE_CORPUS=1 cargo test -p dqlint --test crater` and say why in \
         tests/corpus/expected/README.md:\n\n{}",
        changed.join("\n\n")
    );
}

/// Every snapshot belongs to a project (a removed project leaves no stale
/// expectation behind), and every project has LHP's verdict beside dqlint's.
#[test]
fn every_expectation_has_its_project_and_lhp_verdict() {
    let names: Vec<String> = projects()
        .iter()
        .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    for entry in std::fs::read_dir(corpus_dir().join("expected")).unwrap() {
        let file = entry.unwrap().file_name().to_string_lossy().into_owned();
        let Some(stem) = file
            .strip_suffix(".lhp-validate.txt")
            .or_else(|| file.strip_suffix(".json"))
        else {
            continue;
        };
        assert!(
            names.iter().any(|n| n == stem),
            "tests/corpus/expected/{file} has no project"
        );
    }
    for name in &names {
        let verdict = corpus_dir()
            .join("expected")
            .join(format!("{name}.lhp-validate.txt"));
        let text = std::fs::read_to_string(&verdict)
            .unwrap_or_else(|_| panic!("{} is recorded", verdict.display()));
        assert!(
            text.contains("## --env "),
            "{}: one verdict per environment",
            verdict.display()
        );
    }
}

/// A token finding points at the token: its range, in the file it names,
/// holds `{name}` (not the template line that only uses a parameter).
#[test]
fn token_findings_point_at_a_token() {
    for project in projects() {
        let report = run(&project);
        for d in report["report"]["diagnostics"].as_array().unwrap() {
            let code = d["code"].as_str().unwrap();
            if !matches!(code, "DQ601" | "DQ603") {
                continue;
            }
            let file = d["file"].as_str().unwrap();
            let text = std::fs::read_to_string(project.join(file)).unwrap();
            let (start, end) = (&d["range"]["start"], &d["range"]["end"]);
            let line = text
                .lines()
                .nth(start["line"].as_u64().unwrap() as usize - 1)
                .unwrap();
            let columns: Vec<char> = line.chars().collect();
            let from = start["column"].as_u64().unwrap() as usize - 1;
            let to = if end["line"] == start["line"] {
                end["column"].as_u64().unwrap() as usize - 1
            } else {
                columns.len()
            };
            let held: String = columns[from.min(columns.len())..to.min(columns.len())]
                .iter()
                .collect();
            assert!(
                held.contains('{') && held.contains('}') && !held.starts_with("{{"),
                "{}: {code} at {file}:{} covers {held:?}, not a token",
                project.display(),
                start["line"]
            );
        }
    }
}

fn summary_of_change(name: &str, expected: Option<&Value>, actual: &Value) -> String {
    let lines = |v: &Value| -> Vec<String> {
        let mut out = vec![format!("exit {}", v["exit_code"])];
        if let Some(diagnostics) = v["report"]["diagnostics"].as_array() {
            for d in diagnostics {
                out.push(format!(
                    "{}:{}:{} {} {} {}",
                    d["file"].as_str().unwrap_or("?"),
                    d["range"]["start"]["line"],
                    d["range"]["start"]["column"],
                    d["code"].as_str().unwrap_or("?"),
                    d["envs"],
                    d["message"].as_str().unwrap_or("")
                ));
            }
        }
        out.push(format!("summary {}", v["report"]["summary"]));
        out
    };
    let Some(expected) = expected else {
        return format!("{name}: no expectation recorded yet");
    };
    let (old, new) = (lines(expected), lines(actual));
    let mut out = format!("{name}:");
    for line in old.iter().filter(|l| !new.contains(l)) {
        out.push_str(&format!("\n  - {line}"));
    }
    for line in new.iter().filter(|l| !old.contains(l)) {
        out.push_str(&format!("\n  + {line}"));
    }
    if old == new {
        out.push_str("\n  (same findings; fixes, related locations or other fields differ)");
    }
    out
}
