//! The performance shortcuts never change a report: the JSON output is
//! byte-identical with one thread or several (`RAYON_NUM_THREADS`), with
//! the fast YAML block reader or tree-sitter alone (`DQLINT_NO_FAST_YAML`),
//! and fresh or replayed from the run cache. Checked on the real projects
//! of the corpus, the showcase, and a generated project with planted
//! findings.

use std::path::{Path, PathBuf};
use std::process::Command;

fn run(root: &Path, extra: &[&str], env: &[(&str, &str)]) -> (Vec<u8>, Option<i32>) {
    let output = Command::new(env!("CARGO_BIN_EXE_dqlint"))
        .arg("lint")
        .arg(root)
        .args(["--format", "json"])
        .args(extra)
        .env_remove("RAYON_NUM_THREADS")
        .env_remove("DQLINT_NO_FAST_YAML")
        .envs(env.iter().copied())
        .output()
        .expect("the dqlint binary runs");
    assert!(
        !output.stdout.is_empty(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    (output.stdout, output.status.code())
}

/// Every variant against the plain run; `writable` projects also test the
/// cache (the corpus is read-only and shared: never write into it).
fn assert_equivalent(root: &Path, extra: &[&str], writable: bool) {
    let mut args = vec!["--no-cache"];
    args.extend_from_slice(extra);
    let base = run(root, &args, &[]);
    let one_thread = run(root, &args, &[("RAYON_NUM_THREADS", "1")]);
    assert!(one_thread == base, "{}: one thread differs", root.display());
    let four_threads = run(root, &args, &[("RAYON_NUM_THREADS", "4")]);
    assert!(
        four_threads == base,
        "{}: four threads differ",
        root.display()
    );
    let tree_sitter = run(root, &args, &[("DQLINT_NO_FAST_YAML", "1")]);
    if tree_sitter != base {
        panic!(
            "{}: the fast YAML reader changes the report\nfast:\n{}\ntree-sitter:\n{}",
            root.display(),
            String::from_utf8_lossy(&base.0),
            String::from_utf8_lossy(&tree_sitter.0)
        );
    }
    if writable {
        let stored = run(root, extra, &[]);
        let replayed = run(root, extra, &[]);
        assert!(
            stored == base,
            "{}: a run that fills the cache differs",
            root.display()
        );
        assert!(
            replayed == base,
            "{}: a replayed run differs",
            root.display()
        );
        assert!(root.join(".dqlint_cache").is_dir());
    }
}

fn corpus(name: &str) -> Option<PathBuf> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../../shared/corpus/lhp-examples")
        .join(name);
    if path.join("lhp.yaml").is_file() {
        Some(path)
    } else {
        eprintln!(
            "note: corpus project {} not found; test skipped",
            path.display()
        );
        None
    }
}

fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        if entry.file_name() == ".dqlint_cache" {
            continue;
        }
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_tree(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
}

#[test]
fn performance_testing_corpus() {
    let Some(root) = corpus("performance_testing") else {
        return;
    };
    assert_equivalent(&root, &["--env", "dev"], false);
    // And with the cache, on a writable copy.
    let dir = tempfile::tempdir().unwrap();
    let copy = dir.path().join("performance_testing");
    copy_tree(&root, &copy);
    assert_equivalent(&copy, &[], true);
}

#[test]
fn acmi_corpus() {
    let Some(root) = corpus("acmi") else { return };
    assert_equivalent(&root, &[], false);
}

#[test]
fn showcase_and_rule_fixtures() {
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures");
    let dir = tempfile::tempdir().unwrap();
    let showcase = dir.path().join("showcase");
    copy_tree(&fixtures.join("showcase"), &showcase);
    assert_equivalent(&showcase, &[], true);
    for rule in ["DQ001", "DQ002", "DQ003", "DQ501", "DQ502", "DQ503"] {
        assert_equivalent(&fixtures.join("rules").join(rule).join("bad"), &[], false);
    }
}

#[test]
fn generated_project_with_planted_findings() {
    let dir = tempfile::tempdir().unwrap();
    let plan = dqlint_bench::Plan {
        flowgroups: 450,
        plant_every: Some(4),
    };
    let summary = dqlint_bench::generate(&plan, dir.path()).unwrap();
    assert!(!summary.planted.is_empty());
    let (report, code) = run(dir.path(), &["--no-cache"], &[]);
    assert_eq!(code, Some(1), "the planted findings include errors");
    let text = String::from_utf8(report).unwrap();
    for planted in &summary.planted {
        assert!(text.contains(&planted.file), "{} is reported", planted.file);
    }
    assert_equivalent(dir.path(), &[], true);
}

/// DQX checks files, one in five JSON (the JSON reader's documents), with
/// planted mistakes; every check goes through DQ830/DQ831's hashed
/// comparison (whose findings the rule fixtures check).
#[test]
fn generated_dqx_project_with_planted_findings() {
    let dir = tempfile::tempdir().unwrap();
    let plan = dqlint_bench::DqxPlan {
        files: 60,
        plant_every: Some(3),
        checks: Some(30),
    };
    let summary = dqlint_bench::generate_dqx(&plan, dir.path()).unwrap();
    assert!(!summary.planted.is_empty());
    let (report, _) = run(dir.path(), &["--no-cache"], &[]);
    let text = String::from_utf8(report).unwrap();
    for planted in &summary.planted {
        assert!(text.contains(&planted.file), "{} is reported", planted.file);
    }
    assert_equivalent(dir.path(), &[], true);
}
