//! `--fix`, `--unsafe-fixes` and `--diff` end to end on copies of the rule
//! fixtures, plus the fix applier on synthetic fixes (rejection of a fix
//! that would break a file, multi-file fixes kept whole).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use dqlint::fix::{apply_plan, FixMode, FixPlan};
use dqlint_linter::{lint, Applicability, Diagnostic, Edit, Fix, Selection, RULES};
use dqlint_project::{LoadOptions, Project};
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
        // Not part of a fixture: the run cache other tests' lint runs leave.
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

/// Every file of a tree, by relative path.
fn snapshot(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut out = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).unwrap() {
            let path = entry.unwrap().path();
            if path.file_name().is_some_and(|n| n == ".dqlint_cache") {
                continue;
            }
            if path.is_dir() {
                stack.push(path);
            } else {
                let rel = path
                    .strip_prefix(dir)
                    .unwrap()
                    .to_string_lossy()
                    .replace('\\', "/");
                out.insert(rel, std::fs::read(&path).unwrap());
            }
        }
    }
    out
}

fn dqlint(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_dqlint"))
        .arg("lint")
        .arg(dir)
        .args(args)
        .env("NO_COLOR", "1")
        .output()
        .expect("the dqlint binary runs")
}

fn lint_dir(dir: &Path) -> (Project, Vec<Diagnostic>) {
    let project = Project::load(dir, &LoadOptions::default()).unwrap();
    let found = lint(&project, &Selection::default());
    (project, found)
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// For every rule whose bad fixture has a safe fix: `--fix` clears those
/// findings, writes only the files it lists, and changes nothing outside
/// the edited ranges.
#[test]
fn fix_round_trips_on_every_fixable_fixture() {
    let mut checked = Vec::new();
    for rule in RULES {
        let bad = fixture(rule.code, "bad");
        if !bad.join("lhp.yaml").is_file() || bad.join(".dqlint-test-envs").exists() {
            continue;
        }
        let (project, found) = lint_dir(&bad);
        let fixable: Vec<&Diagnostic> = found
            .iter()
            .filter(|d| {
                d.rule.code == rule.code
                    && d.fix
                        .as_ref()
                        .is_some_and(|f| f.applicability == Applicability::Safe)
            })
            .collect();
        if fixable.is_empty() {
            continue;
        }
        // The edited span of each file, over all safe fixes of the project.
        let mut spans: BTreeMap<String, (usize, usize)> = BTreeMap::new();
        for d in &found {
            let Some(fix) = d
                .fix
                .as_ref()
                .filter(|f| f.applicability == Applicability::Safe)
            else {
                continue;
            };
            for e in &fix.edits {
                let rel = project.file(e.file).rel.clone();
                let span = spans.entry(rel).or_insert((e.span.start, e.span.end));
                span.0 = span.0.min(e.span.start);
                span.1 = span.1.max(e.span.end);
            }
        }
        let tmp = tempfile::tempdir().unwrap();
        copy_dir(&bad, tmp.path());
        let before = snapshot(tmp.path());
        let output = dqlint(tmp.path(), &["--fix", "--format", "json"]);
        assert!(
            matches!(output.status.code(), Some(0 | 1)),
            "{}: {}",
            rule.code,
            stderr(&output)
        );
        let report: Value = serde_json::from_slice(&output.stdout).unwrap();
        for d in &fixable {
            let left = report["diagnostics"]
                .as_array()
                .unwrap()
                .iter()
                .any(|r| r["code"] == rule.code && r["message"] == d.message.as_str());
            assert!(!left, "{}: `--fix` left `{}`", rule.code, d.message);
        }
        let after = snapshot(tmp.path());
        let listed = stderr(&output);
        for (rel, old) in &before {
            let new = &after[rel];
            if new == old {
                assert!(
                    !listed.lines().any(|l| l.trim() == rel),
                    "{}: {rel} listed but unchanged:\n{listed}",
                    rule.code
                );
                continue;
            }
            assert!(
                listed.lines().any(|l| l.trim() == rel),
                "{}: {rel} changed but not listed:\n{listed}",
                rule.code
            );
            let (start, end) = spans
                .get(rel)
                .copied()
                .unwrap_or_else(|| panic!("{}: {rel} changed without an edit in it", rule.code));
            assert_eq!(
                new[..start],
                old[..start],
                "{}: {rel} changed before the first edit",
                rule.code
            );
            assert!(
                new.ends_with(&old[end..]),
                "{}: {rel} changed after the last edit",
                rule.code
            );
        }
        assert_eq!(
            before.keys().collect::<Vec<_>>(),
            after.keys().collect::<Vec<_>>(),
            "{}: files added or removed",
            rule.code
        );
        checked.push(rule.code);
    }
    for code in [
        "DQ105", "DQ107", "DQ206", "DQ207", "DQ403", "DQ404", "DQ405", "DQ406", "DQ407", "DQ603",
    ] {
        assert!(
            checked.contains(&code),
            "{code} has a safe fix that was not exercised; checked: {checked:?}"
        );
    }
}

fn to_crlf(dir: &Path) {
    for (rel, bytes) in snapshot(dir) {
        let text = String::from_utf8(bytes)
            .unwrap()
            .replace("\r\n", "\n")
            .replace('\n', "\r\n");
        std::fs::write(dir.join(rel), text).unwrap();
    }
}

#[test]
fn crlf_files_keep_crlf() {
    // DQ403's fix inserts a multi-line CREATE TABLE; DQ207's a word.
    for code in ["DQ403", "DQ207"] {
        let tmp = tempfile::tempdir().unwrap();
        copy_dir(&fixture(code, "bad"), tmp.path());
        to_crlf(tmp.path());
        let before = snapshot(tmp.path());
        let output = dqlint(tmp.path(), &["--fix", "--format", "concise"]);
        assert!(
            !String::from_utf8_lossy(&output.stdout).contains(&format!("[{code}]")),
            "{code}: {}",
            String::from_utf8_lossy(&output.stdout)
        );
        let after = snapshot(tmp.path());
        assert_ne!(before, after, "{code}: nothing fixed");
        for (rel, bytes) in after {
            let text = String::from_utf8(bytes).unwrap();
            let lone = text
                .match_indices('\n')
                .filter(|(i, _)| *i == 0 || text.as_bytes()[i - 1] != b'\r')
                .count();
            assert_eq!(
                lone, 0,
                "{code}: {rel} has LF-only line ends after --fix:\n{text:?}"
            );
        }
    }
}

#[test]
fn diff_shows_the_fix_and_writes_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    copy_dir(&fixture("DQ207", "bad"), tmp.path());
    let before = snapshot(tmp.path());
    let output = dqlint(tmp.path(), &["--diff"]);
    assert_eq!(output.status.code(), Some(1), "something to fix: exit 1");
    let diff = String::from_utf8(output.stdout.clone()).unwrap();
    assert!(
        diff.contains(
            "--- a/expectations/orders_quality.yaml\n+++ b/expectations/orders_quality.yaml\n"
        ),
        "{diff}"
    );
    assert!(
        diff.contains("-  action: warn\n+  action: drop\n"),
        "{diff}"
    );
    assert_eq!(before, snapshot(tmp.path()), "--diff wrote files");
    assert!(
        stderr(&output).contains("would fix 1 finding(s) in 1 file(s)"),
        "{}",
        stderr(&output)
    );

    // What --diff shows is what --fix does.
    let fixed = dqlint(tmp.path(), &["--fix", "--quiet", "--format", "concise"]);
    assert_eq!(
        fixed.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&fixed.stdout)
    );
    let again = dqlint(tmp.path(), &["--diff"]);
    assert_eq!(again.status.code(), Some(0), "nothing left to fix: exit 0");
    assert!(again.stdout.is_empty());
}

#[test]
fn unsafe_fixes_only_on_request() {
    // DQ407's bad fixture partitions the DLQ: replacing PARTITIONED BY by
    // CLUSTER BY is unsafe (it changes the table's layout).
    let bad = fixture("DQ407", "bad");
    let (_, found) = lint_dir(&bad);
    let unsafe_fixable = found
        .iter()
        .filter(|d| {
            d.rule.code == "DQ407"
                && d.fix
                    .as_ref()
                    .is_some_and(|f| f.applicability == Applicability::Unsafe)
        })
        .count();
    assert!(
        unsafe_fixable > 0,
        "the DQ407 fixture should have an unsafe fix"
    );
    let count = |dir: &Path, args: &[&str]| {
        let output = dqlint(dir, args);
        let report: Value = serde_json::from_slice(&output.stdout).unwrap();
        report["diagnostics"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|d| d["code"] == "DQ407")
            .count()
    };
    let tmp = tempfile::tempdir().unwrap();
    copy_dir(&bad, tmp.path());
    let before = count(tmp.path(), &["--format", "json"]);
    let after_safe = count(tmp.path(), &["--fix", "--format", "json"]);
    assert!(
        after_safe >= unsafe_fixable,
        "--fix applied an unsafe fix ({before} -> {after_safe})"
    );
    let after_unsafe = count(tmp.path(), &["--fix", "--unsafe-fixes", "--format", "json"]);
    assert!(
        after_unsafe < after_safe,
        "--unsafe-fixes did not apply ({after_safe} -> {after_unsafe})"
    );
}

#[test]
fn unsafe_fixes_alone_is_a_usage_error() {
    let output = dqlint(&fixture("DQ207", "bad"), &["--unsafe-fixes"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).contains("--unsafe-fixes"),
        "{}",
        stderr(&output)
    );
    let both = dqlint(&fixture("DQ207", "bad"), &["--fix", "--diff"]);
    assert_eq!(both.status.code(), Some(2));
}

#[test]
fn fix_exit_status_follows_what_remains() {
    let tmp = tempfile::tempdir().unwrap();
    copy_dir(&fixture("DQ105", "bad"), tmp.path());
    assert_eq!(
        dqlint(tmp.path(), &["--format", "concise"]).status.code(),
        Some(1)
    );
    let fixed = dqlint(tmp.path(), &["--fix", "--format", "concise"]);
    assert_eq!(
        fixed.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&fixed.stdout)
    );
    assert!(String::from_utf8_lossy(&fixed.stdout).contains("No findings"));
}

/// A synthetic fix that would break a YAML file is refused with its whole
/// file (and a fix spanning that file and another is dropped whole); the
/// other files' fixes still apply.
#[test]
fn a_breaking_fix_skips_its_file_and_says_so() {
    let (project, found) = lint_dir(&fixture("DQ207", "good"));
    assert!(found.is_empty());
    let file_of = |rel: &str| project.files.iter().find(|f| f.rel == rel).unwrap();
    let expectations = file_of("expectations/orders_quality.yaml");
    let flowgroup = file_of("pipelines/bronze/orders.yaml");
    let rule = dqlint_linter::find("DQ207").unwrap();
    let at = |file: &dqlint_project::SourceFile, needle: &str| {
        let start = file.text.find(needle).unwrap();
        start..start + needle.len()
    };
    let fix = |edits: Vec<Edit>| Fix {
        applicability: Applicability::Safe,
        description: "test".into(),
        edits,
    };
    let breaking =
        Diagnostic::at(rule, expectations.id, at(expectations, "drop"), "break it").fix(fix(vec![
            Edit {
                file: expectations.id,
                span: at(expectations, "drop"),
                new_text: "[drop".into(),
            },
        ]));
    let multi = Diagnostic::at(rule, flowgroup.id, at(flowgroup, "orders_dq"), "both files").fix(
        fix(vec![
            Edit {
                file: flowgroup.id,
                span: at(flowgroup, "load_orders"),
                new_text: "load_orders_2".into(),
            },
            Edit {
                file: expectations.id,
                span: at(expectations, "valid_order_id"),
                new_text: "valid_id".into(),
            },
        ]),
    );
    let fine =
        Diagnostic::at(rule, flowgroup.id, at(flowgroup, "write_orders"), "fine").fix(fix(vec![
            Edit {
                file: flowgroup.id,
                span: at(flowgroup, "write_orders"),
                new_text: "write_the_orders".into(),
            },
        ]));
    let plan = FixPlan::choose([&breaking, &multi, &fine], FixMode::SafeOnly, |_| false);
    assert_eq!(plan.fixes.len(), 3);
    let result = apply_plan(&project, plan);
    assert_eq!(result.rejected.len(), 1, "{:?}", result.rejected);
    assert_eq!(result.rejected[0].1.rel, "expectations/orders_quality.yaml");
    assert!(
        result.rejected[0].1.reason.contains("valid YAML"),
        "{}",
        result.rejected[0].1.reason
    );
    assert_eq!(result.changed.len(), 1);
    let after = &result.changed[0].after;
    assert!(
        after.contains("write_the_orders") && after.contains("name: load_orders\n"),
        "{after}"
    );
    assert_eq!(result.applied.values().sum::<usize>(), 1);
}

#[test]
fn overlapping_fixes_wait_for_the_next_round() {
    let (project, _) = lint_dir(&fixture("DQ207", "good"));
    let file = project
        .files
        .iter()
        .find(|f| f.rel == "expectations/orders_quality.yaml")
        .unwrap();
    let rule = dqlint_linter::find("DQ207").unwrap();
    let span = file.text.find("drop").unwrap()..file.text.find("drop").unwrap() + 4;
    let mk = |text: &str| {
        Diagnostic::at(rule, file.id, span.clone(), text).fix(Fix {
            applicability: Applicability::Safe,
            description: text.into(),
            edits: vec![Edit {
                file: file.id,
                span: span.clone(),
                new_text: text.into(),
            }],
        })
    };
    let (first, second) = (mk("warn"), mk("fail"));
    let plan = FixPlan::choose([&first, &second], FixMode::SafeOnly, |_| false);
    assert_eq!(plan.fixes.len(), 1, "the second overlaps the first");
    assert_eq!(plan.fixes[0].edits[0].1.new_text, "warn");
}
