//! Every rule's doc examples run: the `## Example (bad)` project raises
//! exactly that rule (no other code), the `## Example (good)` project (the
//! bad one with the good files written over it) raises nothing. The
//! convention is documented on [`dqlint_linter::DocExample`].

use std::collections::BTreeSet;
use std::path::Path;

use dqlint_linter::{lint_configured, Config, DocExample, ExampleKind, RuleMeta, Selection, RULES};
use dqlint_project::Project;

/// Writes the example into `dir`, filling in what it leaves out.
fn materialise(example: &DocExample, dir: &Path) {
    for file in &example.files {
        let path = dir.join(&file.path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, &file.text).unwrap();
    }
    if !example.files.iter().any(|f| f.path == "lhp.yaml") {
        std::fs::write(dir.join("lhp.yaml"), "name: example\nversion: \"1.0\"\n").unwrap();
    }
    if !example.files.iter().any(|f| f.path.ends_with(".sql")) {
        let mut ddl = String::new();
        for table in dlq_tables(example) {
            ddl.push_str(&dqlint_linter::rules::dlq::contract::dlq_inbox_ddl(&table));
            ddl.push('\n');
            ddl.push_str(&dqlint_linter::rules::dlq::contract::dlq_outbox_ddl(
                &format!("{table}_outbox"),
            ));
            ddl.push('\n');
        }
        if !ddl.is_empty() {
            std::fs::create_dir_all(dir.join("sql")).unwrap();
            std::fs::write(dir.join("sql/dlq.sql"), ddl).unwrap();
        }
    }
}

/// The `dlq_table:` values written in the example's files.
fn dlq_tables(example: &DocExample) -> BTreeSet<String> {
    example
        .files
        .iter()
        .flat_map(|f| f.text.lines())
        .filter_map(|l| l.trim().strip_prefix("dlq_table:"))
        .map(|v| v.trim().trim_matches(|c| c == '"' || c == '\'').to_string())
        .filter(|v| !v.is_empty())
        .collect()
}

fn findings(example: &DocExample) -> Vec<String> {
    let tmp = tempfile::tempdir().unwrap();
    materialise(example, tmp.path());
    // An example may carry a dqlint.toml; it is read as the CLI does.
    let config = Config::discover(tmp.path(), None).unwrap_or_else(|e| panic!("dqlint.toml: {e}"));
    let options = config.load_options(&example.envs);
    let project = Project::load(tmp.path(), &options).unwrap();
    lint_configured(&project, &config, &Selection::default())
        .iter()
        .map(|d| {
            let file = project.file(d.primary.file);
            let p = file.lines.position(&file.text, d.primary.span.start);
            format!(
                "{}:{}:{}: {} {}",
                file.rel, p.line, p.column, d.rule.code, d.message
            )
        })
        .collect()
}

fn check(rule: &RuleMeta) -> Result<(), String> {
    let bad = rule.example(ExampleKind::Bad)?;
    let good = rule.example(ExampleKind::Good)?.overlaid_on(&bad);
    let found = findings(&bad);
    let codes: BTreeSet<&str> = found
        .iter()
        .map(|f| f.split(' ').nth(1).unwrap_or(""))
        .collect();
    if codes != BTreeSet::from([rule.code]) {
        return Err(format!(
            "{}: the bad example should raise {} and nothing else; it raises:\n  {}",
            rule.code,
            rule.code,
            if found.is_empty() {
                "(nothing)".to_string()
            } else {
                found.join("\n  ")
            }
        ));
    }
    let found = findings(&good);
    if !found.is_empty() {
        return Err(format!(
            "{}: the good example should raise nothing; it raises:\n  {}",
            rule.code,
            found.join("\n  ")
        ));
    }
    Ok(())
}

#[test]
fn every_rule_doc_example_runs() {
    let failures: Vec<String> = RULES.iter().filter_map(|r| check(r).err()).collect();
    assert!(
        failures.is_empty(),
        "{} of {} rules have doc examples that do not do what they say \
         (convention: dqlint_linter::DocExample in registry.rs):\n\n{}",
        failures.len(),
        RULES.len(),
        failures.join("\n\n")
    );
}

#[test]
fn an_example_block_without_a_path_is_refused() {
    let err = DocExample::parse("```yaml\na: 1\n```\n").unwrap_err();
    assert!(err.contains("PATH"), "{err}");
    let ok =
        DocExample::parse("Linted with `--env dev --env prd`.\n\n`x.yaml`:\n```yaml\na: 1\n```\n")
            .unwrap();
    assert_eq!(ok.envs, ["dev", "prd"]);
    assert_eq!(ok.files[0].path, "x.yaml");
    assert_eq!(ok.files[0].text, "a: 1\n");
}

#[test]
fn the_good_example_overrides_only_the_files_it_shows() {
    let bad = DocExample::parse("`a.yaml`:\n```yaml\nx: 1\n```\n\n`b.yaml`:\n```yaml\ny: 1\n```\n")
        .unwrap();
    let good = DocExample::parse("`b.yaml`:\n```yaml\ny: 2\n```\n")
        .unwrap()
        .overlaid_on(&bad);
    let texts: Vec<(&str, &str)> = good
        .files
        .iter()
        .map(|f| (f.path.as_str(), f.text.as_str()))
        .collect();
    assert_eq!(texts, [("a.yaml", "x: 1\n"), ("b.yaml", "y: 2\n")]);
}
