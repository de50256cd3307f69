//! Hostile and broken inputs: dqlint must finish without a panic, never
//! exit 2 because of a file's content, and say clearly what it could not
//! read instead of going silent.
//!
//! Inputs that could crash the process (deep nesting, huge files) run
//! through the binary, so a crash fails one test instead of aborting them
//! all.

use std::path::Path;
use std::process::Command;

use dqlint_linter::{lint, Diagnostic, Selection};
use dqlint_project::{LoadOptions, ProblemKind, Project};
use serde_json::Value;
use tempfile::TempDir;

const LHP: &str = "name: hostile\nversion: \"1.0\"\n";

/// A data_quality flowgroup with one mistake (`readMode: batch`, DQ105), to
/// show that the other files are still linted.
const GOOD_NEIGHBOUR: &str = "pipeline: bronze
flowgroup: orders
actions:
  - name: orders_dq
    type: transform
    transform_type: data_quality
    source: v_orders_raw
    target: v_orders_validated
    readMode: batch
    expectations_file: expectations/orders.yaml
";

const EXPECTATIONS: &str = "order_id IS NOT NULL:\n  action: drop\n  name: valid_order_id\n";

fn project(files: &[(&str, &[u8])]) -> TempDir {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let mut has_lhp = false;
    for (rel, content) in files {
        has_lhp |= *rel == "lhp.yaml";
        let path = dir.path().join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, content).unwrap();
    }
    if !has_lhp {
        std::fs::write(dir.path().join("lhp.yaml"), LHP).unwrap();
    }
    dir
}

fn load(dir: &Path, envs: &[&str]) -> Project {
    let options = LoadOptions {
        envs: envs.iter().map(|e| e.to_string()).collect(),
        ..Default::default()
    };
    Project::load(dir, &options).expect("the project loads")
}

fn lint_dir(dir: &Path) -> (Project, Vec<Diagnostic>) {
    let project = load(dir, &[]);
    let diagnostics = lint(&project, &Selection::default());
    (project, diagnostics)
}

fn codes(diagnostics: &[Diagnostic]) -> Vec<&'static str> {
    diagnostics.iter().map(|d| d.rule.code).collect()
}

fn in_file<'a>(project: &Project, diagnostics: &'a [Diagnostic], rel: &str) -> Vec<&'a Diagnostic> {
    diagnostics
        .iter()
        .filter(|d| project.file(d.primary.file).rel == rel)
        .collect()
}

fn line_of(project: &Project, d: &Diagnostic) -> u32 {
    let file = project.file(d.primary.file);
    file.lines.position(&file.text, d.primary.span.start).line
}

/// Runs the binary with `--format json`; the exit code must be 0 or 1 (a
/// finding, never a failed run or a crash).
fn lint_cli(dir: &Path) -> Value {
    let output = Command::new(env!("CARGO_BIN_EXE_dqlint"))
        .args(["lint", dir.to_str().unwrap(), "--format", "json"])
        .output()
        .expect("the dqlint binary runs");
    let stderr = String::from_utf8_lossy(&output.stderr);
    match output.status.code() {
        Some(0 | 1) => {}
        Some(code) => panic!("dqlint exited with {code} on file content; stderr:\n{stderr}"),
        None => panic!("dqlint crashed ({}); stderr:\n{stderr}", output.status),
    }
    serde_json::from_slice(&output.stdout).expect("valid JSON on stdout")
}

fn cli_findings<'a>(report: &'a Value, code: &str, file: &str) -> Vec<&'a Value> {
    report["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["code"] == code && d["file"] == file)
        .collect()
}

#[test]
fn binary_file_under_pipelines() {
    let mut png = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR\0\0\0\x10".to_vec();
    png.extend((0u8..=255).cycle().take(4096));
    let dir = project(&[
        ("pipelines/assets/logo.yaml", &png),
        ("pipelines/bronze/orders.yaml", GOOD_NEIGHBOUR.as_bytes()),
        ("expectations/orders.yaml", EXPECTATIONS.as_bytes()),
    ]);
    let (project, found) = lint_dir(dir.path());
    let logo = in_file(&project, &found, "pipelines/assets/logo.yaml");
    assert_eq!(
        codes(&found).iter().filter(|c| **c == "DQ001").count(),
        1,
        "{found:#?}"
    );
    assert_eq!(logo.len(), 1, "one finding for the binary file: {found:#?}");
    assert_eq!(logo[0].rule.code, "DQ001");
    assert!(
        logo[0].message.contains("binary"),
        "the message says why: {}",
        logo[0].message
    );
    assert!(
        codes(&found).contains(&"DQ105"),
        "the other files are still linted: {found:#?}"
    );
    let report = lint_cli(dir.path());
    assert_eq!(
        cli_findings(&report, "DQ001", "pipelines/assets/logo.yaml").len(),
        1
    );
}

#[test]
fn invalid_utf8_under_pipelines() {
    let latin1: &[u8] = b"pipeline: bronze\nflowgroup: cafes\ndescription: \"Caf\xe9s of M\xfcnchen\"\nactions: []\n";
    let dir = project(&[
        ("pipelines/bronze/cafes.yaml", latin1),
        ("pipelines/bronze/orders.yaml", GOOD_NEIGHBOUR.as_bytes()),
        ("expectations/orders.yaml", EXPECTATIONS.as_bytes()),
    ]);
    let (project, found) = lint_dir(dir.path());
    let cafes = in_file(&project, &found, "pipelines/bronze/cafes.yaml");
    assert_eq!(cafes.len(), 1, "{found:#?}");
    assert_eq!(cafes[0].rule.code, "DQ001");
    assert!(cafes[0].message.contains("UTF-8"), "{}", cafes[0].message);
    assert!(
        cafes[0].message.contains("line 3"),
        "names the line of the first bad byte: {}",
        cafes[0].message
    );
    // And points at it: line 3, at the `é` after `description: "Caf`.
    let file = project.file(cafes[0].primary.file);
    let at = file.lines.position(&file.text, cafes[0].primary.span.start);
    assert_eq!((at.line, at.column), (3, 18));
    assert!(codes(&found).contains(&"DQ105"));
    lint_cli(dir.path());
}

#[test]
fn invalid_expectations_file_content() {
    let dir = project(&[
        ("pipelines/bronze/orders.yaml", GOOD_NEIGHBOUR.as_bytes()),
        (
            "expectations/orders.yaml",
            b"order_id IS NOT NULL:\n  action: dr\xf6p\n",
        ),
    ]);
    let (project, found) = lint_dir(dir.path());
    let exp = in_file(&project, &found, "expectations/orders.yaml");
    assert_eq!(
        codes(&exp.iter().map(|d| (*d).clone()).collect::<Vec<_>>()),
        vec!["DQ001"],
        "{found:#?}"
    );
    assert!(
        !codes(&found).contains(&"DQ107"),
        "the file exists: it is unreadable, not missing"
    );
}

#[test]
fn empty_and_comment_only_flowgroup_files() {
    let dir = project(&[
        ("pipelines/bronze/empty.yaml", b""),
        ("pipelines/bronze/todo.yaml", b"# TODO: the returns feed\n"),
        ("pipelines/bronze/blank.yml", b"\n\n   \n"),
        ("pipelines/bronze/orders.yaml", GOOD_NEIGHBOUR.as_bytes()),
        ("expectations/orders.yaml", EXPECTATIONS.as_bytes()),
    ]);
    let (project, found) = lint_dir(dir.path());
    for rel in [
        "pipelines/bronze/empty.yaml",
        "pipelines/bronze/todo.yaml",
        "pipelines/bronze/blank.yml",
    ] {
        assert!(
            in_file(&project, &found, rel)
                .iter()
                .all(|d| d.rule.code != "DQ001"),
            "{rel} is valid (empty) YAML: {found:#?}"
        );
        assert!(
            in_file(&project, &found, rel)
                .iter()
                .any(|d| d.rule.code == "DQ002"),
            "{rel} holds no flowgroup, which LHP rejects (CFG-005): {found:#?}"
        );
    }
    assert!(codes(&found).contains(&"DQ105"));
    lint_cli(dir.path());
}

/// Without `substitutions/`, token-dependent checks cannot be decided:
/// they are skipped, not guessed (no DQ601 for every `${...}`).
#[test]
fn missing_substitutions_folder() {
    let flowgroup = "pipeline: bronze
flowgroup: orders
actions:
  - name: load_orders
    type: load
    source:
      type: cloudfiles
      path: ${landing}/orders
      format: json
    target: v_orders_raw
  - name: orders_dq
    type: transform
    transform_type: data_quality
    source: v_orders_raw
    target: v_orders_validated
    readMode: batch
    expectations_file: expectations/orders.yaml
    mode: quarantine
    quarantine:
      dlq_table: ${catalog}.${ops_schema}.dlq
      source_table: ${catalog}.bronze.orders
  - name: write_orders
    type: write
    source: v_orders_validated
    write_target:
      type: streaming_table
      catalog: ${catalog}
      schema: bronze
      table: orders
";
    let dir = project(&[
        ("pipelines/bronze/orders.yaml", flowgroup.as_bytes()),
        ("expectations/orders.yaml", EXPECTATIONS.as_bytes()),
    ]);
    let (project, found) = lint_dir(dir.path());
    assert!(project.envs.is_empty());
    for code in ["DQ601", "DQ602", "DQ401", "DQ402", "DQ501"] {
        assert!(
            !codes(&found).contains(&code),
            "no {code} without substitutions: {found:#?}"
        );
    }
    assert!(
        codes(&found).contains(&"DQ105"),
        "checks that need no token still run: {found:#?}"
    );
    let report = lint_cli(dir.path());
    assert_eq!(report["envs"], serde_json::json!([]));
}

#[test]
fn token_cycle_in_substitutions() {
    let subs = "dev:\n  catalog: ${schema_root}\n  schema_root: ${catalog}\n  self_ref: ${self_ref}\n  landing: /Volumes/main/landing\n";
    let flowgroup = "pipeline: bronze
flowgroup: orders
actions:
  - name: orders_dq
    type: transform
    transform_type: data_quality
    source: v_orders_raw
    target: v_orders_validated
    expectations_file: expectations/orders.yaml
    mode: quarantine
    quarantine:
      dlq_table: ${catalog}.ops.dlq
      source_table: main.bronze.${self_ref}
";
    let dir = project(&[
        ("substitutions/dev.yaml", subs.as_bytes()),
        ("pipelines/bronze/orders.yaml", flowgroup.as_bytes()),
        ("expectations/orders.yaml", EXPECTATIONS.as_bytes()),
    ]);
    let (project, found) = lint_dir(dir.path());
    let unresolved: Vec<&Diagnostic> = found.iter().filter(|d| d.rule.code == "DQ601").collect();
    assert_eq!(
        unresolved.len(),
        2,
        "`${{catalog}}` and `${{self_ref}}` never resolve: {found:#?}"
    );
    for d in &unresolved {
        assert_eq!(d.envs, vec!["dev".to_string()]);
        assert_eq!(
            line_of(&project, d),
            if d.message.contains("catalog") {
                12
            } else {
                13
            }
        );
    }
    assert!(
        !codes(&found).contains(&"DQ401"),
        "an unresolved name is DQ601's, not a bad name: {found:#?}"
    );
    lint_cli(dir.path());
}

#[test]
fn preset_extends_cycle() {
    let flowgroup = "pipeline: bronze
flowgroup: orders
presets:
  - bronze_a
  - selfish
actions:
  - name: write_orders
    type: write
    source: v_orders
    write_target:
      type: streaming_table
      catalog: main
      schema: bronze
      table: orders
";
    let dir = project(&[
        ("presets/a.yaml", b"name: bronze_a\nextends: bronze_b\ndefaults:\n  write_actions:\n    streaming_table:\n      comment: a\n"),
        ("presets/b.yaml", b"name: bronze_b\nextends: bronze_a\ndefaults:\n  write_actions:\n    streaming_table:\n      comment: b\n"),
        ("presets/selfish.yaml", b"name: selfish\nextends: selfish\n"),
        ("pipelines/bronze/orders.yaml", flowgroup.as_bytes()),
    ]);
    let (project, _found) = lint_dir(dir.path());
    let cycles: Vec<_> = project.flowgroups[0]
        .problems
        .iter()
        .filter(|p| p.kind == ProblemKind::PresetProblem && p.message.contains("cycle"))
        .collect();
    assert_eq!(
        cycles.len(),
        2,
        "the model names both cycles: {:#?}",
        project.flowgroups[0].problems
    );
    // No rule of the catalogue reports preset problems yet (LHP: LHP-DEP-022).
    lint_cli(dir.path());
}

#[test]
fn use_template_naming_no_template() {
    let flowgroup = "pipeline: bronze
flowgroup: orders
use_template: bronze_ingest
template_parameters:
  entity: orders
";
    let dir = project(&[
        ("pipelines/bronze/orders.yaml", flowgroup.as_bytes()),
        (
            "pipelines/bronze/returns.yaml",
            b"pipeline: bronze\nflowgroup: returns\nuse_template: broken\n",
        ),
        (
            "templates/broken.yaml",
            b"name: broken\nactions:\n  - name: x\n    type: [load\n",
        ),
    ]);
    let (project, found) = lint_dir(dir.path());
    let missing: Vec<_> = project
        .flowgroups
        .iter()
        .flat_map(|fg| fg.problems.iter())
        .filter(|p| p.kind == ProblemKind::TemplateNotFound)
        .collect();
    assert!(
        missing.iter().any(|p| p.message.contains("bronze_ingest")),
        "the model records it: {missing:#?}"
    );
    let broken = in_file(&project, &found, "templates/broken.yaml");
    assert!(
        broken.iter().any(|d| d.rule.code == "DQ001"),
        "a broken template is a DQ001: {found:#?}"
    );
    lint_cli(dir.path());
}

fn dq_action(i: usize) -> String {
    format!(
        "  - name: orders_{i}_dq
    type: transform
    transform_type: data_quality
    source: v_orders_{i}
    target: v_orders_{i}_validated
    expectations_file: expectations/orders.yaml
"
    )
}

/// A plain block-style document of 40,000 lines (more than the YAML
/// grammar can count) is linted fully: a mistake on its last lines is
/// found at its line. With syntax only the grammar reads (a flow mapping),
/// one clear DQ001 says why, not silence.
#[test]
fn file_of_40000_lines() {
    let mut text = String::from("pipeline: bronze\nflowgroup: orders\nactions:\n");
    let mut lines = 3;
    while lines + 6 <= 39_990 {
        text.push_str(&dq_action(lines));
        lines += 6;
    }
    text.push_str("  - name: last_dq\n    type: transform\n    transform_type: data_quality\n    mode: quarantine\n    source: v_last\n    target: v_last_validated\n    expectations_file: expectations/orders.yaml\n");
    lines += 7;
    while lines < 40_000 {
        text.push_str("# padding\n");
        lines += 1;
    }
    assert_eq!(text.lines().count(), 40_000);
    let dir = project(&[
        ("pipelines/bronze/orders.yaml", text.as_bytes()),
        ("expectations/orders.yaml", EXPECTATIONS.as_bytes()),
    ]);
    let report = lint_cli(dir.path());
    assert!(
        cli_findings(&report, "DQ001", "pipelines/bronze/orders.yaml").is_empty(),
        "{report:#}"
    );
    let found = cli_findings(&report, "DQ102", "pipelines/bronze/orders.yaml");
    assert_eq!(found.len(), 1, "{report:#}");
    assert!(found[0]["range"]["start"]["line"].as_u64().unwrap() > 39_980);

    let flow = text.replacen("pipeline: bronze\n", "pipeline: {name: bronze}\n", 1);
    let dir = project(&[
        ("pipelines/bronze/orders.yaml", flow.as_bytes()),
        ("expectations/orders.yaml", EXPECTATIONS.as_bytes()),
    ]);
    let report = lint_cli(dir.path());
    let found = cli_findings(&report, "DQ001", "pipelines/bronze/orders.yaml");
    assert_eq!(found.len(), 1, "{report:#}");
    let message = found[0]["message"].as_str().unwrap();
    assert!(
        message.contains("lines") && message.contains("32768") && !message.contains("---"),
        "the message says why: {message}"
    );
}

/// The same 40,000 lines split into two `---` documents are linted fully:
/// a mistake on the last lines is found, at its line.
#[test]
fn file_of_40000_lines_in_two_documents() {
    let mut text = String::new();
    for doc in 0..2 {
        if doc == 1 {
            text.push_str("---\n");
        }
        text.push_str(&format!(
            "pipeline: bronze\nflowgroup: orders_{doc}\nactions:\n"
        ));
        for i in 0..3_300 {
            text.push_str(&dq_action(doc * 10_000 + i));
        }
    }
    text.push_str("    readMode: batch\n");
    let last_line = text.lines().count() as u64;
    assert!(last_line > 39_000, "{last_line}");
    let dir = project(&[
        ("pipelines/bronze/orders.yaml", text.as_bytes()),
        ("expectations/orders.yaml", EXPECTATIONS.as_bytes()),
    ]);
    let report = lint_cli(dir.path());
    assert!(
        cli_findings(&report, "DQ001", "pipelines/bronze/orders.yaml").is_empty(),
        "{report:#}"
    );
    let batch = cli_findings(&report, "DQ105", "pipelines/bronze/orders.yaml");
    assert_eq!(batch.len(), 1);
    assert_eq!(batch[0]["range"]["start"]["line"].as_u64(), Some(last_line));
}

/// 10,000 unclosed `[`: a syntax error, reported once.
#[test]
fn deeply_nested_unclosed_flow_sequences() {
    let text = format!(
        "pipeline: bronze\nflowgroup: deep\nactions: {}\n",
        "[".repeat(10_000)
    );
    let dir = project(&[("pipelines/bronze/deep.yaml", text.as_bytes())]);
    let report = lint_cli(dir.path());
    let found = cli_findings(&report, "DQ001", "pipelines/bronze/deep.yaml");
    assert_eq!(found.len(), 1, "{report:#}");
    let message = found[0]["message"].as_str().unwrap();
    assert!(
        message.len() < 300,
        "the message quotes a bounded excerpt: {message}"
    );
}

/// 10,000 balanced `[...]` levels: valid YAML that must not overflow the stack.
#[test]
fn deeply_nested_balanced_flow_sequences() {
    let text = format!(
        "pipeline: bronze\nflowgroup: deep\nactions: {}{}\n",
        "[".repeat(10_000),
        "]".repeat(10_000)
    );
    let dir = project(&[("pipelines/bronze/deep.yaml", text.as_bytes())]);
    lint_cli(dir.path());
}

/// 300 nested block sequences (`- ` lines indented ever deeper).
#[test]
fn deeply_nested_block_sequences() {
    let mut text = String::from("pipeline: bronze\nflowgroup: deep\nactions:\n");
    for i in 0..300 {
        text.push_str(&format!("{}- \n", "  ".repeat(i)));
    }
    let dir = project(&[("pipelines/bronze/deep.yaml", text.as_bytes())]);
    lint_cli(dir.path());
}

/// Billion laughs: aliases that expand exponentially are bounded.
#[test]
fn alias_bomb() {
    let mut text = String::from(
        "pipeline: bronze\nflowgroup: bomb\nvariables:\n  a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n",
    );
    for i in 1..10 {
        let refs = vec![format!("*a{}", i - 1); 10].join(", ");
        text.push_str(&format!("  a{i}: &a{i} [{refs}]\n"));
    }
    text.push_str("actions: *a9\n");
    let dir = project(&[("pipelines/bronze/bomb.yaml", text.as_bytes())]);
    let report = lint_cli(dir.path());
    let found = cli_findings(&report, "DQ001", "pipelines/bronze/bomb.yaml");
    assert!(
        !found.is_empty(),
        "the expansion limit is reported: {report:#}"
    );
}

/// CRLF line endings change nothing, positions included.
#[test]
fn crlf_line_endings() {
    let text = GOOD_NEIGHBOUR.replace('\n', "\r\n");
    let dir = project(&[
        ("pipelines/bronze/orders.yaml", text.as_bytes()),
        (
            "expectations/orders.yaml",
            EXPECTATIONS.replace('\n', "\r\n").as_bytes(),
        ),
    ]);
    let (project, found) = lint_dir(dir.path());
    assert_eq!(codes(&found), vec!["DQ105"], "{found:#?}");
    let d = &found[0];
    let file = project.file(d.primary.file);
    let p = file.lines.position(&file.text, d.primary.span.start);
    assert_eq!((p.line, p.column), (9, 15), "`batch` on line 9");
    assert_eq!(&file.text[d.primary.span.clone()], "batch");
}

/// A UTF-8 byte-order mark (Windows editors write one) is not content:
/// PyYAML, hence LHP, skips it.
#[test]
fn utf8_bom() {
    let text = format!("\u{feff}{GOOD_NEIGHBOUR}");
    let dir = project(&[
        ("pipelines/bronze/orders.yaml", text.as_bytes()),
        ("expectations/orders.yaml", EXPECTATIONS.as_bytes()),
    ]);
    let (project, found) = lint_dir(dir.path());
    assert_eq!(codes(&found), vec!["DQ105"], "{found:#?}");
    let d = &found[0];
    let file = project.file(d.primary.file);
    let p = file.lines.position(&file.text, d.primary.span.start);
    assert_eq!((p.line, p.column), (9, 15), "`batch` on line 9");
}

/// A symbolic link loop under `pipelines/` is reported, not walked forever.
#[cfg(unix)]
#[test]
fn symlink_loop_under_pipelines() {
    let dir = project(&[
        ("pipelines/bronze/orders.yaml", GOOD_NEIGHBOUR.as_bytes()),
        ("expectations/orders.yaml", EXPECTATIONS.as_bytes()),
    ]);
    std::os::unix::fs::symlink(
        dir.path().join("pipelines"),
        dir.path().join("pipelines/bronze/loop"),
    )
    .unwrap();
    let (_, found) = lint_dir(dir.path());
    assert!(
        found
            .iter()
            .any(|d| d.rule.code == "DQ001" && d.message.contains("loop")),
        "{found:#?}"
    );
    assert!(codes(&found).contains(&"DQ105"));
    lint_cli(dir.path());
}

/// Two data_quality actions: a quarantine one whose `quarantine:` block is
/// `broken_block` (lines 11 on), then a `readMode: batch` one (DQ105).
fn two_actions(broken_block: &str) -> String {
    format!(
        "pipeline: bronze
flowgroup: orders
actions:
  - name: orders_quarantine
    type: transform
    transform_type: data_quality
    source: v_orders_raw
    target: v_orders_checked
    expectations_file: expectations/orders.yaml
    mode: quarantine
{broken_block}  - name: orders_dq
    type: transform
    transform_type: data_quality
    source: v_orders_checked
    target: v_orders_validated
    readMode: batch
    expectations_file: expectations/orders.yaml
"
    )
}

/// (code, line) of the findings in the flowgroup of [`two_actions`].
fn findings_of_two_actions(broken_block: &str) -> Vec<(&'static str, u32)> {
    let flowgroup = two_actions(broken_block);
    let dir = project(&[
        ("pipelines/bronze/orders.yaml", flowgroup.as_bytes()),
        ("expectations/orders.yaml", EXPECTATIONS.as_bytes()),
    ]);
    let (project, found) = lint_dir(dir.path());
    in_file(&project, &found, "pipelines/bronze/orders.yaml")
        .iter()
        .map(|d| (d.rule.code, line_of(&project, d)))
        .collect()
}

/// A syntax error withholds the findings of the block it breaks (they would
/// be follow-ons: the blanked `quarantine` line takes its `dlq_table` with
/// it), but not those of the neighbouring action in the same document.
#[test]
fn syntax_error_hides_follow_on_findings_of_its_block_only() {
    let found = findings_of_two_actions(
        "    quarantine\n      dlq_table: main.ops.dlq\n      source_table: main.bronze.orders\n",
    );
    assert_eq!(found, vec![("DQ001", 11), ("DQ105", 19)]);
}

/// A tab-indented line is a syntax error that spoils its own action only:
/// the recovery must not blank the less indented lines after it, nor the
/// follow-on filter hide the next action's findings.
#[test]
fn tab_indented_line_spoils_only_its_action() {
    let found = findings_of_two_actions(
        "    quarantine:\n      dlq_table: main.ops.dlq\n      source_table: main.bronze.orders\n\tsource_table2: y\n\n",
    );
    assert_eq!(found, vec![("DQ001", 14), ("DQ105", 21)]);
}

/// A 50 MB flowgroup file is refused with one clear DQ001 (the limit is
/// 16 MB), at once and without reading it; the neighbour is still linted.
#[test]
fn file_of_50_megabytes() {
    let dir = project(&[
        ("pipelines/bronze/orders.yaml", GOOD_NEIGHBOUR.as_bytes()),
        ("expectations/orders.yaml", EXPECTATIONS.as_bytes()),
    ]);
    let action = dq_action(0);
    let mut big = String::from("pipeline: bronze\nflowgroup: huge\nactions:\n");
    while big.len() < 50 * 1024 * 1024 {
        big.push_str(&action);
    }
    std::fs::write(dir.path().join("pipelines/bronze/huge.yaml"), big).unwrap();
    let report = lint_cli(dir.path());
    let found = cli_findings(&report, "DQ001", "pipelines/bronze/huge.yaml");
    assert_eq!(found.len(), 1, "{report:#}");
    let message = found[0]["message"].as_str().unwrap();
    assert!(
        message.contains("50 MB") && message.contains("16 MB"),
        "{message}"
    );
    assert_eq!(
        cli_findings(&report, "DQ105", "pipelines/bronze/orders.yaml").len(),
        1
    );
}

/// LF and CRLF mixed in one file (a file edited on two systems): positions
/// stay exact on both kinds of line.
#[test]
fn mixed_line_endings() {
    let text: String = GOOD_NEIGHBOUR
        .split_inclusive('\n')
        .enumerate()
        .map(|(i, line)| {
            if i % 2 == 0 {
                line.replace('\n', "\r\n")
            } else {
                line.to_string()
            }
        })
        .collect();
    let crlf = text.matches("\r\n").count();
    assert!(
        crlf > 0 && crlf < text.matches('\n').count(),
        "both kinds of line end"
    );
    let dir = project(&[
        ("pipelines/bronze/orders.yaml", text.as_bytes()),
        ("expectations/orders.yaml", EXPECTATIONS.as_bytes()),
    ]);
    let (project, found) = lint_dir(dir.path());
    assert_eq!(codes(&found), vec!["DQ105"], "{found:#?}");
    let file = project.file(found[0].primary.file);
    let p = file.lines.position(&file.text, found[0].primary.span.start);
    assert_eq!((p.line, p.column), (9, 15));
    assert_eq!(&file.text[found[0].primary.span.clone()], "batch");
}

/// A file that disappears between discovery and reading (here a symbolic
/// link whose target is gone, which discovery lists and reading fails on):
/// a DQ001 saying it could not be read, the rest linted.
#[cfg(unix)]
#[test]
fn file_deleted_while_linting() {
    let dir = project(&[
        ("pipelines/bronze/orders.yaml", GOOD_NEIGHBOUR.as_bytes()),
        ("expectations/orders.yaml", EXPECTATIONS.as_bytes()),
        (
            "pipelines/bronze/gone_target.yaml",
            b"pipeline: bronze\nflowgroup: gone\n",
        ),
    ]);
    std::os::unix::fs::symlink(
        dir.path().join("pipelines/bronze/gone_target.yaml"),
        dir.path().join("pipelines/bronze/gone.yaml"),
    )
    .unwrap();
    // Discovery happens inside `load`; simulate the race by removing the
    // target after a first load saw it, then loading again.
    let (_, before) = lint_dir(dir.path());
    assert!(!codes(&before).contains(&"DQ001"), "{before:#?}");
    std::fs::remove_file(dir.path().join("pipelines/bronze/gone_target.yaml")).unwrap();
    let report = lint_cli(dir.path());
    let gone = report["diagnostics"].as_array().unwrap().iter().any(|d| {
        d["code"] == "DQ001"
            && (d["message"]
                .as_str()
                .unwrap_or_default()
                .contains("gone.yaml")
                || d["file"] == "pipelines/bronze/gone.yaml")
    });
    assert!(gone, "{report:#}");
    assert_eq!(
        cli_findings(&report, "DQ105", "pipelines/bronze/orders.yaml").len(),
        1
    );
}

/// A file without read permission: one DQ001, the rest linted. Root reads
/// everything, so as root the test checks the file is simply linted.
#[cfg(unix)]
#[test]
fn unreadable_permissions() {
    use std::os::unix::fs::PermissionsExt;
    let dir = project(&[
        ("pipelines/bronze/orders.yaml", GOOD_NEIGHBOUR.as_bytes()),
        ("expectations/orders.yaml", EXPECTATIONS.as_bytes()),
        (
            "pipelines/bronze/locked.yaml",
            b"pipeline: bronze\nflowgroup: locked\nactions: []\n",
        ),
    ]);
    let locked = dir.path().join("pipelines/bronze/locked.yaml");
    std::fs::set_permissions(&locked, std::fs::Permissions::from_mode(0o000)).unwrap();
    let readable_anyway = std::fs::read(&locked).is_ok();
    let report = lint_cli(dir.path());
    let dq001 = cli_findings(&report, "DQ001", "pipelines/bronze/locked.yaml");
    if readable_anyway {
        eprintln!("running as root: permissions do not stop reads; checking the file is linted");
        assert!(dq001.is_empty(), "{report:#}");
    } else {
        assert_eq!(dq001.len(), 1, "{report:#}");
        assert!(
            dq001[0]["message"]
                .as_str()
                .unwrap()
                .contains("cannot read"),
            "{report:#}"
        );
    }
    assert_eq!(
        cli_findings(&report, "DQ105", "pipelines/bronze/orders.yaml").len(),
        1
    );
    std::fs::set_permissions(&locked, std::fs::Permissions::from_mode(0o644)).unwrap();
}

/// A named pipe called `*.yaml` under `pipelines/` would block a reader
/// forever: it is not a regular file, so it is never opened.
#[cfg(unix)]
#[test]
fn named_pipe_under_pipelines_does_not_hang() {
    let dir = project(&[
        ("pipelines/bronze/orders.yaml", GOOD_NEIGHBOUR.as_bytes()),
        ("expectations/orders.yaml", EXPECTATIONS.as_bytes()),
    ]);
    let fifo = dir.path().join("pipelines/bronze/pipe.yaml");
    let status = Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .expect("mkfifo runs");
    assert!(status.success());
    let report = lint_cli(dir.path());
    assert_eq!(
        cli_findings(&report, "DQ105", "pipelines/bronze/orders.yaml").len(),
        1,
        "{report:#}"
    );
}
