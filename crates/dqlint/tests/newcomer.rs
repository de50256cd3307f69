//! What a new user runs into (issue 17's friction list), end to end: each
//! test is one command a newcomer typed and what dqlint must say to it.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .unwrap()
}

fn run_in(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_dqlint"))
        .args(args)
        .current_dir(dir)
        .env("NO_COLOR", "1")
        .output()
        .expect("the dqlint binary runs")
}

fn out(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn err(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn code(o: &Output) -> i32 {
    o.status.code().expect("no signal")
}

const FLOWGROUP: &str = "pipeline: bronze
flowgroup: orders
actions:
  - name: load_orders
    type: load
    readMode: stream
    source:
      type: cloudfiles
      path: /Volumes/main/landing/orders
      format: json
    target: v_orders_raw
  - name: orders_dq
    type: transform
    transform_type: data_quality
    source: v_orders_raw
    target: v_orders_validated
    expectations_file: EXPECTATIONS
  - name: write_orders
    type: write
    source: v_orders_validated
    write_target:
      type: streaming_table
      catalog: main
      schema: bronze
      table: orders
";

/// A small clean project in a temporary folder: one dqe action using
/// `expectations/orders.yaml`.
fn project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "lhp.yaml", "name: demo\n");
    write(
        dir.path(),
        "pipelines/bronze/orders.yaml",
        &FLOWGROUP.replace("EXPECTATIONS", "expectations/orders.yaml"),
    );
    write(
        dir.path(),
        "expectations/orders.yaml",
        "order_id IS NOT NULL:\n  action: drop\n  name: valid_order_id\n",
    );
    dir
}

fn write(root: &Path, rel: &str, text: &str) {
    let path = root.join(rel);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

fn lint_json(dir: &Path, extra: &[&str]) -> Value {
    let mut args = vec!["lint", "--format", "json", "--no-cache"];
    args.extend_from_slice(extra);
    let o = run_in(dir, &args);
    serde_json::from_str(&out(&o)).unwrap_or_else(|e| panic!("{e}: {}{}", out(&o), err(&o)))
}

#[test]
fn statistics_follow_format_json_and_quiet() {
    let showcase = workspace().join("fixtures/showcase");
    let o = run_in(
        &showcase,
        &["lint", "--statistics", "--format", "json", "--no-cache"],
    );
    assert_eq!(code(&o), 1);
    let doc: Value = serde_json::from_str(&out(&o)).expect("--statistics --format json is JSON");
    let rules = doc["statistics"].as_array().unwrap();
    let total: u64 = rules.iter().map(|r| r["count"].as_u64().unwrap()).sum();
    let report = lint_json(&showcase, &[]);
    assert_eq!(
        total as usize,
        report["diagnostics"].as_array().unwrap().len()
    );
    assert!(rules
        .iter()
        .any(|r| r["code"] == "DQ207" && r["fixable"].as_u64() > Some(0)));

    let quiet = out(&run_in(
        &showcase,
        &["lint", "--statistics", "--quiet", "--no-cache"],
    ));
    assert!(
        !quiet.contains("Found "),
        "--quiet drops the summary:\n{quiet}"
    );
    assert!(quiet.contains("DQ207"));

    // SARIF: the counts in the run's property bag (the schema check is
    // in formats.rs), the results kept.
    let sarif = run_in(
        &showcase,
        &["lint", "--statistics", "--format", "sarif", "--no-cache"],
    );
    assert_eq!(code(&sarif), 1, "{}", err(&sarif));
    let log: Value = serde_json::from_str(&out(&sarif)).expect("SARIF is JSON");
    let run = &log["runs"][0];
    assert_eq!(run["properties"]["statistics"], doc["statistics"]);
    assert_eq!(run["properties"]["summary"], doc["summary"]);
    assert_eq!(run["results"].as_array().unwrap().len() as u64, total);
}

#[test]
fn a_trailing_comma_in_select_is_dropped_but_an_empty_select_is_refused() {
    let showcase = workspace().join("fixtures/showcase");
    let o = run_in(
        &showcase,
        &[
            "lint",
            "--select",
            "DQ207,DQ208,",
            "--format",
            "json",
            "--no-cache",
        ],
    );
    assert_eq!(code(&o), 0, "{}", err(&o));
    let doc: Value = serde_json::from_str(&out(&o)).unwrap();
    let codes: Vec<&str> = doc["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["code"].as_str().unwrap())
        .collect();
    assert!(!codes.is_empty() && codes.iter().all(|c| *c == "DQ207" || *c == "DQ208"));
    let empty = run_in(&showcase, &["lint", "--select", ","]);
    assert_eq!(code(&empty), 2);
    assert!(
        err(&empty).contains("needs at least one rule"),
        "{}",
        err(&empty)
    );
}

#[test]
fn empty_select_in_the_configuration_is_refused_at_its_line() {
    let dir = project();
    write(
        dir.path(),
        "dqlint.toml",
        "# mine\nenvs = []\nselect = []\n",
    );
    let o = run_in(dir.path(), &["lint"]);
    assert_eq!(code(&o), 2);
    assert!(
        err(&o).contains("dqlint.toml:3:1: `select = []` selects no rule"),
        "{}",
        err(&o)
    );
}

#[test]
fn a_ddl_glob_matching_nothing_is_said() {
    let dir = project();
    write(
        dir.path(),
        "sql/dlq.sql",
        "CREATE TABLE main.ops.dlq (a INT);\n",
    );
    write(
        dir.path(),
        "dqlint.toml",
        "ddl = [\"ddl/**/*.sql\", \"sql/*.sql\"]\n",
    );
    let o = run_in(dir.path(), &["lint", "--no-cache"]);
    assert_eq!(code(&o), 0, "{}", err(&o));
    assert!(
        err(&o).contains("`ddl` pattern `ddl/**/*.sql` matches no .sql file"),
        "{}",
        err(&o)
    );
    assert!(!err(&o).contains("`sql/*.sql`"), "{}", err(&o));
}

#[test]
fn env_takes_one_environment_name() {
    let dir = project();
    for (env, says) in [
        ("", "needs an environment name"),
        ("../lhp", "not an environment name"),
        ("dev,prod", "--env dev --env prod"),
        ("..", "not an environment name"),
    ] {
        let o = run_in(dir.path(), &["lint", "--env", env]);
        assert_eq!(code(&o), 2, "--env {env:?}");
        assert!(err(&o).contains(says), "--env {env:?}: {}", err(&o));
    }
}

#[test]
fn summary_counts_files_in_the_scope_with_plurals() {
    let dir = project();
    let o = run_in(
        dir.path(),
        &["lint", "expectations/orders.yaml", "--no-cache"],
    );
    assert_eq!(out(&o), "No findings in 1 file.\n");
    let o = run_in(dir.path(), &["lint", "--no-cache"]);
    assert_eq!(out(&o), "No findings in 3 files.\n");
    write(dir.path(), "README.md", "# demo\n");
    let o = run_in(dir.path(), &["lint", "README.md", "--no-cache"]);
    assert_eq!(code(&o), 0);
    assert_eq!(out(&o), "No findings in 0 files.\n");
    assert!(
        err(&o).contains("README.md is not a file dqlint lints"),
        "{}",
        err(&o)
    );
}

fn dq107_for(expectations: &str, make: impl FnOnce(&Path)) -> Value {
    let dir = project();
    write(
        dir.path(),
        "pipelines/bronze/orders.yaml",
        &FLOWGROUP.replace("EXPECTATIONS", expectations),
    );
    make(dir.path());
    let doc = lint_json(dir.path(), &[]);
    let found: Vec<&Value> = doc["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["code"] == "DQ107")
        .collect();
    assert_eq!(found.len(), 1, "{doc:#}");
    found[0].clone()
}

#[test]
fn dq107_names_what_is_there_instead_of_a_file_and_offers_no_identity_fix() {
    let folder = dq107_for("expectations", |_| {});
    assert!(
        folder["message"]
            .as_str()
            .unwrap()
            .contains("is a folder, not a file"),
        "{folder:#}"
    );
    assert!(folder.get("fix").is_none(), "{folder:#}");
    #[cfg(unix)]
    {
        let dangling = dq107_for("expectations/gone.yaml", |root| {
            std::os::unix::fs::symlink("nowhere.yaml", root.join("expectations/gone.yaml"))
                .unwrap();
        });
        let message = dangling["message"].as_str().unwrap();
        assert!(
            message.contains("symbolic link to `nowhere.yaml`, which does not exist"),
            "{message}"
        );
        assert!(!message.contains("letter case"), "{message}");
        assert!(dangling.get("fix").is_none());
        let fifo = dq107_for("expectations/pipe.yaml", |root| {
            let path =
                std::ffi::CString::new(root.join("expectations/pipe.yaml").to_str().unwrap())
                    .unwrap();
            // SAFETY: a valid C string; mkfifo only creates the node.
            assert_eq!(unsafe { libc::mkfifo(path.as_ptr(), 0o644) }, 0);
        });
        let message = fifo["message"].as_str().unwrap();
        assert!(message.contains("not a regular file"), "{message}");
        assert!(fifo.get("fix").is_none());
    }
}

#[test]
fn full_says_info_shows_a_shared_related_block_once_and_cuts_long_lines() {
    let showcase = workspace().join("fixtures/showcase");
    let text = out(&run_in(&showcase, &["lint", "--no-cache"]));
    assert!(text.contains("info[DQ402]"), "{text}");
    assert!(!text.contains("note[DQ"), "{text}");
    let repeated = text.matches("the same 8 places as the").count();
    assert!(
        repeated >= 2,
        "the DLQ block is shown once, then referred to:\n{text}"
    );

    let dir = project();
    let long = format!(
        "[{{\"name\": \"x\", \"constraint\": \"{} OR\", \"type\": \"expect\"}}]",
        (0..60)
            .map(|i| format!("c{i} > 0"))
            .collect::<Vec<_>>()
            .join(" AND ")
    );
    write(dir.path(), "expectations/orders.json", &long);
    write(
        dir.path(),
        "pipelines/bronze/orders.yaml",
        &FLOWGROUP.replace("EXPECTATIONS", "expectations/orders.json"),
    );
    let text = out(&run_in(dir.path(), &["lint", "--no-cache"]));
    assert!(text.contains("expectations/orders.json"), "{text}");
    let widest = text.lines().map(|l| l.chars().count()).max().unwrap();
    assert!(
        widest < 260,
        "a {}-character line is cut:\n{text}",
        long.len()
    );
    assert!(text.contains('…'), "{text}");
}

#[test]
fn concise_paths_are_relative_to_the_working_directory_and_projects_are_named() {
    let parent = tempfile::tempdir().unwrap();
    for name in ["one", "two"] {
        let p = project();
        let dest = parent.path().join(name);
        std::fs::rename(p.path(), &dest).unwrap_or_else(|_| {
            copy_dir(p.path(), &dest);
        });
        write(&dest, "expectations/orders.yaml", "price > 0: drop\n");
    }
    let o = run_in(
        parent.path(),
        &["lint", "one", "two", "--format", "concise", "--no-cache"],
    );
    let text = out(&o);
    assert!(
        text.contains("one/expectations/orders.yaml:1:12: error[DQ206]"),
        "{text}"
    );
    assert!(
        text.contains("two/expectations/orders.yaml:1:12: error[DQ206]"),
        "{text}"
    );
    assert!(text.contains("one: Found 1 error(s)"), "{text}");
    assert!(text.contains("two: Found 1 error(s)"), "{text}");
}

fn copy_dir(from: &Path, to: &Path) {
    for entry in walkdir::WalkDir::new(from) {
        let entry = entry.unwrap();
        let rel = entry.path().strip_prefix(from).unwrap();
        let dest = to.join(rel);
        if entry.file_type().is_dir() {
            std::fs::create_dir_all(&dest).unwrap();
        } else {
            std::fs::copy(entry.path(), &dest).unwrap();
        }
    }
}

#[test]
fn concise_keeps_a_multi_line_message_on_one_line() {
    let dir = project();
    write(
        dir.path(),
        "expectations/orders.yaml",
        "price > 0: \"drop\n  now\"\n",
    );
    let text = out(&run_in(
        dir.path(),
        &["lint", "--format", "concise", "--no-cache"],
    ));
    let finding: Vec<&str> = text.lines().filter(|l| l.contains("[DQ206]")).collect();
    assert_eq!(finding.len(), 1, "{text}");
    assert!(finding[0].contains("`\"drop\\n  now\"`"), "{text}");
    let (summary, findings) = text
        .trim_end()
        .lines()
        .collect::<Vec<_>>()
        .split_last()
        .map(|(s, f)| (s.to_string(), f.to_vec()))
        .unwrap();
    assert!(summary.starts_with("Found "), "{text}");
    for line in findings {
        assert!(
            line.starts_with("expectations/orders.yaml:1:"),
            "one line per finding:\n{text}"
        );
    }
}

#[test]
fn fixes_are_discoverable() {
    let showcase = workspace().join("fixtures/showcase");
    let text = out(&run_in(
        &showcase,
        &["lint", "--format", "concise", "--no-cache"],
    ));
    let summary = text.lines().last().unwrap();
    assert!(
        summary.contains("fixable with --fix")
            && summary.contains("more with --fix --unsafe-fixes"),
        "{summary}"
    );
    // Only unsafe fixes left: --diff says so instead of just "nothing to fix".
    let dir = project();
    write(
        dir.path(),
        "pipelines/bronze/orders.yaml",
        &FLOWGROUP
            .replace("EXPECTATIONS", "expectations/orders.yaml")
            .replace(
                "    transform_type: data_quality\n",
                "    transform_type: data_quality\n    mode: quarantined\n",
            ),
    );
    let o = run_in(dir.path(), &["lint", "--diff"]);
    let said = err(&o);
    assert!(
        said.contains("nothing to fix; 1 unsafe fix available"),
        "{said}{}",
        out(&o)
    );
    assert!(said.contains("--unsafe-fixes"), "{said}");
    let table = out(&run_in(&showcase, &["rule"]));
    let dq207 = table.lines().find(|l| l.starts_with("DQ207")).unwrap();
    assert!(dq207.contains(" safe "), "{dq207}");
    let dq001 = table.lines().find(|l| l.starts_with("DQ001")).unwrap();
    assert!(dq001.contains(" - "), "{dq001}");
}

/// The README rule table has a `fix` column (safe, unsafe, both or none)
/// for every rule of the registry, from `rule_docs::FIXES`, which
/// `declared_fix_kinds_match_the_fixes_rules_give` holds to the fixes the
/// rules give: the README cannot drift from what `--fix` does.
#[test]
fn readme_rule_table_shows_each_rules_fix_kind() {
    let readme = std::fs::read_to_string(workspace().join("README.md")).unwrap();
    let header = readme
        .lines()
        .find(|l| l.starts_with("| code | name |"))
        .expect("the README has the rule table");
    let columns: Vec<&str> = header.split('|').map(str::trim).collect();
    let fix_at = columns
        .iter()
        .position(|c| *c == "fix")
        .expect("a fix column");
    for rule in dqlint_linter::RULES {
        let row = readme
            .lines()
            .find(|l| l.starts_with(&format!("| [{}](", rule.code)))
            .unwrap_or_else(|| panic!("{} has no README row", rule.code));
        let cell = row.split(" | ").nth(fix_at - 1).unwrap_or("").trim();
        let want = match dqlint::rule_docs::fix_kinds(rule.code) {
            [] => "none".to_string(),
            kinds => kinds.join(", "),
        };
        assert_eq!(cell, want, "README fix column of {}: {row}", rule.code);
    }
    assert!(readme.contains("| [DQ207](docs/rules/DQ207-quarantine-coerces-action.md) | `quarantine-coerces-action` | warning | safe |"));
}

/// The declared fix kinds of `dqlint rule` are the ones the rules give:
/// every fix on the showcase and the rule fixtures is declared, and every
/// declared rule is seen fixing.
#[test]
fn declared_fix_kinds_match_the_fixes_rules_give() {
    let mut seen: std::collections::BTreeMap<String, std::collections::BTreeSet<String>> =
        Default::default();
    let mut projects = vec![workspace().join("fixtures/showcase")];
    for entry in std::fs::read_dir(workspace().join("fixtures/rules")).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            projects.push(path.join("bad"));
        }
    }
    for project in projects {
        let mut args = vec!["--select", "DQ"];
        let envs = std::fs::read_to_string(project.join(".dqlint-test-envs")).unwrap_or_default();
        let envs: Vec<String> = envs
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty() && !l.starts_with('#'))
            .map(String::from)
            .collect();
        for e in &envs {
            args.push("--env");
            args.push(e);
        }
        let doc = lint_json(&project, &args);
        for d in doc["diagnostics"].as_array().unwrap() {
            if let Some(kind) = d["fix"]["applicability"].as_str() {
                seen.entry(d["code"].as_str().unwrap().to_string())
                    .or_default()
                    .insert(kind.to_string());
            }
        }
    }
    for (code, kinds) in &seen {
        for kind in kinds {
            assert!(
                dqlint::rule_docs::fix_kinds(code).contains(&kind.as_str()),
                "{code} gives a {kind} fix that rule_docs::FIXES does not declare"
            );
        }
    }
    for (code, _) in dqlint::rule_docs::FIXES {
        assert!(
            seen.contains_key(*code),
            "{code} is declared fixable but no fixture shows a fix"
        );
    }
}

#[test]
fn help_describes_paths_and_exit_codes() {
    let text = out(&run_in(&workspace(), &["lint", "--help"]));
    assert!(text.contains("[PATHS]..."), "{text}");
    assert!(
        text.contains("lints the whole LHP project containing it"),
        "{text}"
    );
    assert!(text.contains("Exit status: 0"), "{text}");
    assert!(text.contains("2 the run itself failed"), "{text}");
}

/// Internal reference numbers of the LHP observations (E18, E25...) mean
/// nothing to a user: not in messages, not on rule pages.
#[test]
fn no_internal_reference_numbers_in_messages_or_pages() {
    let pattern = regex::Regex::new(r"\bE[0-9]{2}[a-z]?\b").unwrap();
    let report = lint_json(&workspace().join("fixtures/showcase"), &[]);
    for d in report["diagnostics"].as_array().unwrap() {
        let m = d["message"].as_str().unwrap();
        assert!(!pattern.is_match(m), "{}: {m}", d["code"]);
    }
    for rule in dqlint_linter::RULES {
        let page = dqlint::rule_docs::page(rule);
        assert!(
            !pattern.is_match(&page),
            "{}'s page cites {:?}",
            rule.code,
            pattern.find(&page)
        );
    }
}

/// The repository is self-contained: user docs link nothing outside it
/// (the contract texts they cite live in docs/).
#[test]
fn docs_point_only_at_files_in_the_repository() {
    let root = workspace();
    let mut files = vec![root.join("README.md")];
    for entry in std::fs::read_dir(root.join("docs")).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "md") {
            files.push(path);
        }
    }
    let cited =
        regex::Regex::new(r"`((?:\.\./)*[\w./-]*spec/[\w.-]+\.md)`|\]\(([^)#]+\.md)").unwrap();
    for file in files {
        let text = std::fs::read_to_string(&file).unwrap();
        for c in cited.captures_iter(&text) {
            if let Some(spec) = c.get(1) {
                panic!(
                    "{} cites {}, which is not in the repository",
                    file.display(),
                    spec.as_str()
                );
            }
            let link = c.get(2).unwrap().as_str();
            if link.starts_with("http") {
                continue;
            }
            let target = file.parent().unwrap().join(link);
            assert!(
                target.exists(),
                "{} links {link}, which does not exist",
                file.display()
            );
        }
    }
    let help = out(&run_in(&root, &["lint", "--help"]));
    assert!(!help.contains("spec/"), "{help}");
}

#[test]
fn required_lhp_version_is_shown_and_checked() {
    let dir = project();
    write(
        dir.path(),
        "lhp.yaml",
        "name: demo\nrequired_lhp_version: \">=0.8.2\"\n",
    );
    let text = out(&run_in(dir.path(), &["lint", "--no-cache"]));
    assert!(
        text.contains("lhp.yaml requires LHP `>=0.8.2`; dqlint checks as LHP 0.9.3."),
        "{text}"
    );
    assert!(text.contains("No findings"), "{text}");
    write(
        dir.path(),
        "lhp.yaml",
        "name: demo\nrequired_lhp_version: \"0.7.1\"\n",
    );
    let doc = lint_json(dir.path(), &[]);
    let d = &doc["diagnostics"][0];
    assert_eq!(d["code"], "DQ005", "{doc:#}");
    assert!(
        d["message"].as_str().unwrap().contains("LHP-CFG-008"),
        "{d}"
    );
    assert_eq!(d["range"]["start"]["line"], 2);
}

#[test]
fn no_color_set_but_empty_does_not_turn_colour_off() {
    use std::ffi::OsStr;
    assert!(!dqlint::output::no_color_requested_by(None));
    assert!(!dqlint::output::no_color_requested_by(Some(OsStr::new(""))));
    assert!(dqlint::output::no_color_requested_by(Some(OsStr::new("1"))));
}

/// A broken flowgroup pauses the unused-suppression check where what a
/// directive suppresses could come from it, but a directive that is
/// malformed or names no rule is wrong whatever the other files say: it
/// is still reported, and the user is told the rest waits.
#[test]
fn dq009_keeps_reporting_malformed_directives_while_a_flowgroup_is_broken() {
    let dir = project();
    write(
        dir.path(),
        "expectations/orders.yaml",
        "# dqlint: ignore[DQ999]\norder_id IS NOT NULL:\n  action: drop # dqlint: ignore[DQ207\n  name: valid_order_id\namount > 0: # dqlint: ignore[DQ207]\n  action: drop\n  name: positive\n",
    );
    write(
        dir.path(),
        "pipelines/bronze/broken.yaml",
        "pipeline: bronze\nflowgroup: \"broken\n",
    );
    let o = run_in(dir.path(), &["lint", "--format", "json", "--no-cache"]);
    let doc: Value = serde_json::from_str(&out(&o)).unwrap();
    let lines: Vec<u64> = doc["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["code"] == "DQ009")
        .map(|d| d["range"]["start"]["line"].as_u64().unwrap())
        .collect();
    assert_eq!(lines, vec![1, 3], "{doc:#}");
    assert!(
        err(&o).contains("unused suppressions (DQ009) are not checked in expectations/orders.yaml"),
        "{}",
        err(&o)
    );
    // Repaired, the valid directive that hides nothing is reported too.
    std::fs::remove_file(dir.path().join("pipelines/bronze/broken.yaml")).unwrap();
    let o = run_in(dir.path(), &["lint", "--format", "json", "--no-cache"]);
    let doc: Value = serde_json::from_str(&out(&o)).unwrap();
    let n = doc["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["code"] == "DQ009")
        .count();
    assert_eq!(n, 3, "{doc:#}");
    assert!(!err(&o).contains("not checked"), "{}", err(&o));
}

/// A token passed through `template_parameters` is reported where it is
/// written, in the flowgroup, not on the template line that uses the
/// parameter (which holds no token).
#[test]
fn tokens_from_template_parameters_are_reported_at_the_flowgroup_value() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(root, "lhp.yaml", "name: demo\n");
    write(root, "substitutions/dev.yaml", "dev:\n  catalog: main\n");
    write(
        root,
        "templates/ingest.yaml",
        "name: ingest\nparameters:\n  - name: source_table\n    required: true\nactions:\n  - name: load_it\n    type: load\n    readMode: stream\n    source:\n      type: delta\n      table: \"{{ source_table }}\"\n    target: v_raw\n  - name: write_it\n    type: write\n    source: v_raw\n    write_target:\n      type: streaming_table\n      catalog: main\n      schema: bronze\n      table: invoice\n",
    );
    write(
        root,
        "pipelines/b/fg.yaml",
        "pipeline: b\nflowgroup: fg\nuse_template: ingest\ntemplate_parameters:\n  source_table: \"{catalog}.{bronze_schema_billing}.invoice\"\n",
    );
    let doc = lint_json(root, &[]);
    let found: Vec<(String, String, u64, u64)> = doc["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            (
                d["code"].as_str().unwrap().to_string(),
                d["file"].as_str().unwrap().to_string(),
                d["range"]["start"]["line"].as_u64().unwrap(),
                d["range"]["start"]["column"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        found,
        vec![
            (
                "DQ603".to_string(),
                "pipelines/b/fg.yaml".to_string(),
                5,
                18
            ),
            (
                "DQ601".to_string(),
                "pipelines/b/fg.yaml".to_string(),
                5,
                28
            ),
        ],
        "{doc:#}"
    );
    let unresolved = &doc["diagnostics"][1];
    assert!(
        unresolved["message"]
            .as_str()
            .unwrap()
            .contains("`substitutions/dev.yaml`"),
        "DQ601 names the substitutions file: {unresolved}"
    );
    // A substitutions file that does not parse is one DQ001, not a DQ601
    // for every token it might have defined.
    write(root, "substitutions/dev.yaml", "dev:\n  catalog: \"main\n");
    let doc = lint_json(root, &[]);
    let codes: Vec<&str> = doc["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["code"].as_str().unwrap())
        .collect();
    assert!(codes.contains(&"DQ001"), "{doc:#}");
    assert!(!codes.contains(&"DQ601"), "{doc:#}");
}

#[test]
fn dq201_points_at_the_second_document_marker_and_dq202_at_the_empty_list() {
    let dir = project();
    write(
        dir.path(),
        "expectations/orders.yaml",
        "order_id IS NOT NULL:\n  action: drop\n  name: valid_order_id\n---\n# v2\namount > 0:\n  action: drop\n  name: positive\n",
    );
    let doc = lint_json(dir.path(), &[]);
    let d = doc["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["code"] == "DQ201")
        .unwrap()
        .clone();
    assert_eq!(
        d["range"]["start"],
        serde_json::json!({"line": 4, "column": 1})
    );
    assert_eq!(
        d["range"]["end"],
        serde_json::json!({"line": 4, "column": 4})
    );

    write(
        dir.path(),
        "expectations/orders.yaml",
        "# later\nexpectations: []\n",
    );
    let doc = lint_json(dir.path(), &[]);
    let d = doc["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["code"] == "DQ202")
        .unwrap()
        .clone();
    assert_eq!(
        d["range"]["start"],
        serde_json::json!({"line": 2, "column": 15})
    );
    assert_eq!(
        d["range"]["end"],
        serde_json::json!({"line": 2, "column": 17})
    );
}

#[test]
fn dq402_shows_what_each_environment_resolves_the_dlq_to() {
    let dir = project();
    let root = dir.path();
    write(
        root,
        "substitutions/dev.yaml",
        "dev:\n  catalog: acme_dev\n",
    );
    write(
        root,
        "substitutions/prod.yaml",
        "prod:\n  catalog: acme_prod\n",
    );
    write(
        root,
        "pipelines/bronze/orders.yaml",
        &FLOWGROUP.replace("EXPECTATIONS", "expectations/orders.yaml").replace(
            "    transform_type: data_quality\n",
            "    transform_type: data_quality\n    mode: quarantine\n    quarantine:\n      dlq_table: ${catalog}.ops.dlq\n      source_table: main.bronze.orders\n",
        ),
    );
    let doc = lint_json(root, &[]);
    let d = doc["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["code"] == "DQ402")
        .unwrap_or_else(|| panic!("{doc:#}"))
        .clone();
    let related: Vec<&str> = d["related"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["message"].as_str().unwrap())
        .collect();
    assert!(related.contains(&"in dev: `acme_dev.ops.dlq`"), "{d:#}");
    assert!(related.contains(&"in prod: `acme_prod.ops.dlq`"), "{d:#}");
}

#[test]
fn dq602_for_an_environment_of_the_configuration_points_at_its_line() {
    let dir = project();
    write(
        dir.path(),
        "substitutions/dev.yaml",
        "dev:\n  catalog: main\n",
    );
    write(
        dir.path(),
        "dqlint.toml",
        "# environments\nenvs = [\"dev\", \"staging\"]\n",
    );
    // text (concise and full): the finding itself is at the name.
    let o = run_in(dir.path(), &["lint", "--no-cache", "--format", "concise"]);
    assert!(
        out(&o).contains(
            "dqlint.toml:2:17: warning[DQ602] environment `staging` has no `substitutions/staging.yaml`"
        ),
        "{}{}",
        out(&o),
        err(&o)
    );
    assert!(!out(&o).contains("lhp.yaml"), "{}", out(&o));
    let full = out(&run_in(dir.path(), &["lint", "--no-cache"]));
    assert!(full.contains("dqlint.toml:2:17"), "{full}");
    assert!(
        full.contains(r#"envs = ["dev", "staging"]"#),
        "the snippet is the line: {full}"
    );
    // json
    let doc = lint_json(dir.path(), &[]);
    let d = &doc["diagnostics"][0];
    assert_eq!(d["code"], "DQ602");
    assert_eq!(d["file"], "dqlint.toml");
    assert_eq!(
        d["range"]["start"],
        serde_json::json!({"line": 2, "column": 17})
    );
    assert_eq!(
        d["range"]["end"],
        serde_json::json!({"line": 2, "column": 24})
    );
    // sarif
    let o = run_in(dir.path(), &["lint", "--no-cache", "--format", "sarif"]);
    let log: Value = serde_json::from_str(&out(&o)).unwrap();
    let result = &log["runs"][0]["results"][0];
    assert_eq!(result["ruleId"], "DQ602");
    let at = &result["locations"][0]["physicalLocation"];
    assert_eq!(at["artifactLocation"]["uri"], "dqlint.toml");
    assert_eq!(at["region"]["startLine"], 2);
    assert_eq!(at["region"]["startColumn"], 17);
    // github
    let o = run_in(dir.path(), &["lint", "--no-cache", "--format", "github"]);
    assert!(
        out(&o).contains(
            "::warning file=dqlint.toml,line=2,col=17,endLine=2,endColumn=24,title=DQ602::"
        ),
        "{}",
        out(&o)
    );
    // An environment given with --env has no line in dqlint.toml: lhp.yaml.
    let doc = lint_json(dir.path(), &["--env", "prd"]);
    let d = &doc["diagnostics"][0];
    assert_eq!(
        (&d["code"], &d["file"]),
        (&"DQ602".into(), &"lhp.yaml".into())
    );
    // --config elsewhere in the project: that file's line.
    write(
        dir.path(),
        "ci/dqlint.toml",
        "envs = [\n  \"dev\",\n  \"qa\",\n]\n",
    );
    std::fs::remove_file(dir.path().join("dqlint.toml")).unwrap();
    let doc = lint_json(dir.path(), &["--config", "ci/dqlint.toml"]);
    let d = &doc["diagnostics"][0];
    assert_eq!(d["file"], "ci/dqlint.toml", "{d:#}");
    assert_eq!(
        d["range"]["start"],
        serde_json::json!({"line": 3, "column": 4})
    );
}

#[cfg(unix)]
#[test]
fn a_symbolic_link_loop_is_named_as_such_relative_to_the_project() {
    let dir = project();
    let pipelines = dir.path().join("pipelines/bronze");
    std::os::unix::fs::symlink("b.yaml", pipelines.join("a.yaml")).unwrap();
    std::os::unix::fs::symlink("a.yaml", pipelines.join("b.yaml")).unwrap();
    let doc = lint_json(dir.path(), &[]);
    let messages: Vec<&str> = doc["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["code"] == "DQ001")
        .map(|d| d["message"].as_str().unwrap())
        .collect();
    assert_eq!(messages.len(), 2, "{doc:#}");
    assert!(
        messages[0].starts_with("`pipelines/bronze/a.yaml`: symbolic link loop"),
        "{messages:?}"
    );
    assert!(!messages[0].contains("YAML syntax"), "{messages:?}");
}
