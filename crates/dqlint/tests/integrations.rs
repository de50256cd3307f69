//! The CI integration files at the repository root (`.pre-commit-hooks.yaml`,
//! `action.yml`) parse, and what they run is what dqlint accepts: every
//! `--flag` they pass is one `dqlint lint --help` lists.

use std::path::{Path, PathBuf};
use std::process::Command;

use dqlint_yaml::Node;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn read_yaml(rel: &str) -> (String, Node) {
    let text = std::fs::read_to_string(root().join(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"));
    let file = dqlint_yaml::parse(&text);
    assert!(
        file.errors.is_empty(),
        "{rel} does not parse: {:?}",
        file.errors
    );
    let node = file
        .documents
        .iter()
        .find_map(|d| d.root.clone())
        .unwrap_or_else(|| panic!("{rel} is empty"));
    (text, node)
}

fn str_of<'a>(node: &'a Node, key: &str) -> &'a str {
    node.get(key)
        .and_then(Node::as_str)
        .unwrap_or_else(|| panic!("`{key}` is not a string"))
}

/// The long options `dqlint lint` accepts.
fn lint_flags() -> Vec<String> {
    let output = Command::new(env!("CARGO_BIN_EXE_dqlint"))
        .args(["lint", "--help"])
        .output()
        .unwrap();
    let help = String::from_utf8(output.stdout).unwrap();
    help.split_whitespace()
        .filter(|w| w.starts_with("--"))
        .map(|w| {
            w.trim_end_matches(|c: char| !c.is_ascii_alphanumeric())
                .to_string()
        })
        .collect()
}

/// Every `--flag` in `text` is a real `dqlint lint` option.
fn assert_real_flags(what: &str, text: &str) {
    let known = lint_flags();
    assert!(known.contains(&"--format".to_string()), "{known:?}");
    for word in text.split(|c: char| c.is_whitespace() || c == ',' || c == '[' || c == ']') {
        let Some(flag) = word.strip_prefix("--") else {
            continue;
        };
        let flag = format!(
            "--{}",
            flag.trim_end_matches(|c: char| !c.is_ascii_alphanumeric())
        );
        assert!(
            known.contains(&flag),
            "{what} passes `{flag}`, which `dqlint lint` does not know ({known:?})"
        );
    }
}

#[test]
fn pre_commit_hooks_run_dqlint_lint_on_lhp_files() {
    let (_, hooks) = read_yaml(".pre-commit-hooks.yaml");
    let hooks = hooks.as_sequence().expect("a list of hooks");
    let ids: Vec<&str> = hooks.iter().map(|h| str_of(h, "id")).collect();
    assert_eq!(ids, ["dqlint", "dqlint-fix"]);
    for hook in hooks {
        let id = str_of(hook, "id");
        assert_eq!(str_of(hook, "entry"), "dqlint lint", "{id}");
        assert_eq!(
            str_of(hook, "language"),
            "system",
            "{id}: the workspace root is not an installable package"
        );
        assert_eq!(
            hook.get("pass_filenames").and_then(Node::as_str),
            Some("true"),
            "{id}"
        );
        let files = regex::Regex::new(str_of(hook, "files")).expect("`files` is a regex");
        for path in [
            "lhp.yaml",
            "lhp/lhp.yaml",
            "pipelines/bronze/orders.yaml",
            "lhp/pipelines/bronze/orders.yml",
            "expectations/orders.json",
            "templates/bronze_dq.yaml",
            "presets/bronze.yaml",
            "substitutions/dev.yaml",
            "config/pipeline_config.yaml",
            "sql/dlq/create_dlq.sql",
        ] {
            assert!(files.is_match(path), "{id}: `files` skips {path}");
        }
        for path in [
            ".github/workflows/ci.yml",
            "docker-compose.yaml",
            "README.md",
            "pipelines/notes.md",
        ] {
            assert!(
                !files.is_match(path),
                "{id}: `files` takes {path}, which is no LHP file"
            );
        }
        let args: Vec<&str> = hook
            .get("args")
            .and_then(Node::as_sequence)
            .expect("args")
            .iter()
            .filter_map(Node::as_str)
            .collect();
        assert_real_flags(id, &args.join(" "));
        let formats: Vec<&str> = args
            .windows(2)
            .filter(|w| w[0] == "--format")
            .map(|w| w[1])
            .collect();
        assert_eq!(formats, ["concise"], "{id}");
    }
}

#[test]
fn action_installs_from_its_own_checkout_and_lints_with_annotations() {
    let (text, action) = read_yaml("action.yml");
    let runs = action.get("runs").expect("runs");
    assert_eq!(str_of(runs, "using"), "composite");
    let inputs = action.get("inputs").expect("inputs");
    for input in ["paths", "args", "sarif"] {
        assert!(inputs.get(input).is_some(), "input `{input}` missing");
    }
    assert_eq!(
        inputs
            .get("sarif")
            .and_then(|i| i.get("default"))
            .and_then(Node::as_str),
        Some("false")
    );
    let steps = runs
        .get("steps")
        .and_then(Node::as_sequence)
        .expect("steps");
    let scripts: Vec<&str> = steps
        .iter()
        .filter_map(|s| s.get("run").and_then(Node::as_str))
        .collect();
    let install = scripts
        .iter()
        .find(|s| s.contains("cargo install"))
        .expect("an install step");
    assert!(
        install.contains("$GITHUB_ACTION_PATH/crates/dqlint"),
        "builds from the action's own checkout: {install}"
    );
    assert!(root().join("crates/dqlint/Cargo.toml").is_file());
    assert!(install.contains("--locked"));
    assert!(
        scripts
            .iter()
            .any(|s| s.contains("dqlint lint") && s.contains("--format github")),
        "a github-format lint step"
    );
    assert!(
        scripts
            .iter()
            .any(|s| s.contains("dqlint lint") && s.contains("--format sarif")),
        "a sarif step"
    );
    let upload = steps
        .iter()
        .find(|s| {
            s.get("uses")
                .and_then(Node::as_str)
                .is_some_and(|u| u.starts_with("github/codeql-action/upload-sarif@"))
        })
        .expect("an upload-sarif step");
    assert_eq!(
        upload.get("if").and_then(Node::as_str),
        Some("inputs.sarif == 'true'")
    );
    for script in &scripts {
        assert_real_flags(
            "action.yml",
            script
                .lines()
                .filter(|l| l.contains("dqlint lint"))
                .collect::<Vec<_>>()
                .join("\n")
                .as_str(),
        );
    }
    assert!(text.contains("inputs.paths") && text.contains("inputs.args"));
}

#[test]
fn ci_doc_uses_real_flags() {
    let doc = std::fs::read_to_string(root().join("docs/ci.md")).unwrap();
    let lines: Vec<&str> = doc.lines().filter(|l| l.contains("dqlint lint ")).collect();
    assert!(lines.len() >= 5, "{lines:?}");
    assert_real_flags("docs/ci.md", &lines.join("\n"));
    for format in ["github", "sarif", "concise"] {
        assert!(
            doc.contains(&format!("--format {format}")),
            "docs/ci.md shows --format {format}"
        );
    }
}
