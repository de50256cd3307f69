//! `docs/rules/*.md` and the README rule table are generated from the
//! rules' doc comments (`cargo run -p dqlint -- rule --generate-docs`);
//! these tests fail when the checked-in copies are stale.

use std::path::Path;
use std::process::Command;

use dqlint::rule_docs::{self, REGENERATE};
use dqlint_linter::RULES;

fn dqlint(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_dqlint"))
        .args(args)
        .output()
        .expect("the dqlint binary runs")
}

#[test]
fn generated_rule_docs_are_current() {
    let stale =
        rule_docs::stale(&rule_docs::source_root()).expect("README.md has the table markers");
    assert!(
        stale.is_empty(),
        "generated docs are stale:\n  {}\nrun `{REGENERATE}` and commit the result",
        stale.join("\n  ")
    );
}

#[test]
fn every_rule_has_a_page_and_a_readme_row() {
    let readme = std::fs::read_to_string(rule_docs::source_root().join("README.md")).unwrap();
    for rule in RULES {
        let page = rule_docs::source_root()
            .join("docs/rules")
            .join(rule_docs::page_file_name(rule));
        assert!(
            page.is_file(),
            "{} has no page {}",
            rule.code,
            page.display()
        );
        assert!(
            readme.contains(&format!(
                "| [{}](docs/rules/{}) |",
                rule.code,
                rule_docs::page_file_name(rule)
            )),
            "{}",
            rule.code
        );
    }
}

#[test]
fn dqlint_rule_prints_the_page() {
    let rule = dqlint_linter::find("DQ207").unwrap();
    let output = dqlint(&["rule", "quarantine-coerces-action"]);
    assert!(output.status.success());
    let page = std::fs::read_to_string(
        rule_docs::source_root().join("docs/rules/DQ207-quarantine-coerces-action.md"),
    )
    .unwrap();
    assert_eq!(String::from_utf8(output.stdout).unwrap(), page);
    assert_eq!(page, rule_docs::page(rule));
}

fn copy_docs(to: &Path) {
    let root = rule_docs::source_root();
    std::fs::copy(root.join("README.md"), to.join("README.md")).unwrap();
    std::fs::create_dir_all(to.join("docs/rules")).unwrap();
    for entry in std::fs::read_dir(root.join("docs/rules")).unwrap() {
        let entry = entry.unwrap();
        std::fs::copy(entry.path(), to.join("docs/rules").join(entry.file_name())).unwrap();
    }
}

#[test]
fn check_names_stale_files_and_the_command_then_generate_repairs_them() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    copy_docs(root);
    let root_arg = root.to_str().unwrap();
    std::fs::write(
        root.join("docs/rules/DQ207-quarantine-coerces-action.md"),
        "old text\n",
    )
    .unwrap();
    std::fs::remove_file(root.join("docs/rules/DQ101-invalid-dq-mode.md")).unwrap();
    std::fs::write(root.join("docs/rules/DQ999-retired-rule.md"), "gone\n").unwrap();
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    std::fs::write(
        root.join("README.md"),
        readme.replace("| [DQ105]", "| [DQ105x]"),
    )
    .unwrap();

    let check = dqlint(&["rule", "--generate-docs", "--check", "--root", root_arg]);
    assert_eq!(check.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&check.stderr);
    for expected in [
        "DQ207-quarantine-coerces-action.md is out of date",
        "DQ101-invalid-dq-mode.md is missing",
        "DQ999-retired-rule.md belongs to no rule",
        "README.md is out of date",
        REGENERATE,
    ] {
        assert!(stderr.contains(expected), "`{expected}` not in:\n{stderr}");
    }

    let generate = dqlint(&["rule", "--generate-docs", "--root", root_arg]);
    assert!(
        generate.status.success(),
        "{}",
        String::from_utf8_lossy(&generate.stderr)
    );
    let check = dqlint(&["rule", "--generate-docs", "--check", "--root", root_arg]);
    assert_eq!(
        check.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&check.stderr)
    );
    assert!(!root.join("docs/rules/DQ999-retired-rule.md").exists());
    assert_eq!(
        std::fs::read_to_string(root.join("README.md")).unwrap(),
        std::fs::read_to_string(rule_docs::source_root().join("README.md")).unwrap()
    );
}

#[test]
fn a_readme_without_markers_is_an_error_not_a_rewrite() {
    let err = rule_docs::readme_with_table("# title\n| DQ001 | x |\n").unwrap_err();
    assert!(err.contains("begin rule table"), "{err}");
}
