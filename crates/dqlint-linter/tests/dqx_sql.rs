//! The SQL strings of DQX checks (`filter`, `row_filter`,
//! `ref_row_filter`, `sql_expression.expression`, `message_expr`) go
//! through the expression checks at their exact characters, with what DQX
//! 0.17.0 does with them in the messages (observed with
//! `../shared/tools/dqx_oracle.py --build --apply`: a filter or an
//! expression it cannot evaluate skips the check, "Check evaluation
//! skipped due to invalid check filter" / "invalid sql expression"; a
//! non-boolean `sql_expression` crashes the run; a scalar subquery in one
//! runs).

use dqlint_linter::{lint, Selection, Severity};
use dqlint_project::{LoadOptions, Project};

/// `(code, severity, the text at the primary span, message)` per finding.
fn lint_checks(name: &str, text: &str) -> Vec<(String, Severity, String, String)> {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join(name), text).unwrap();
    let project = Project::load(dir.path(), &LoadOptions::default()).unwrap();
    lint(&project, &Selection::default())
        .iter()
        .map(|d| {
            let file = project.file(d.primary.file);
            (
                d.rule.code.to_string(),
                d.severity,
                file.text[d.primary.span.clone()].to_string(),
                d.message.clone(),
            )
        })
        .collect()
}

fn check(extra_item_keys: &str, function: &str, arguments: &str) -> String {
    format!(
        "- criticality: error\n{extra_item_keys}  check:\n    function: {function}\n    arguments:\n{arguments}"
    )
}

#[test]
fn a_filter_that_does_not_parse_is_skipped_at_the_failing_token() {
    let text = check(
        "  filter: \"price > > 0\"\n",
        "is_not_null",
        "      column: price\n",
    );
    let found = lint_checks("checks.yml", &text);
    assert_eq!(found.len(), 1, "{found:?}");
    let (code, severity, at, message) = &found[0];
    assert_eq!(
        (code.as_str(), *severity, at.as_str()),
        ("DQ301", Severity::Error, ">")
    );
    assert!(message.contains("skips the check at run time"), "{message}");
}

#[test]
fn block_and_quoted_scalars_map_exactly() {
    let text = check(
        "  filter: |\n    price > 0\n    AND lenght(name) > 0\n",
        "is_unique",
        "      columns: [price]\n      row_filter: 'name = ''x'' AND uper(name) = name'\n",
    );
    let found = lint_checks("checks.yml", &text);
    let at: Vec<(&str, &str)> = found
        .iter()
        .filter(|(c, ..)| c.starts_with("DQ3"))
        .map(|(c, _, at, _)| (c.as_str(), at.as_str()))
        .collect();
    assert_eq!(
        at,
        vec![("DQ306", "lenght"), ("DQ306", "uper")],
        "{found:?}"
    );
    assert!(found[0].3.contains("did you mean `length`?"));
}

#[test]
fn json_strings_map_exactly() {
    let text = r#"[{"criticality": "warn", "filter": "a = \"\u00e9\" AND", "check": {"function": "is_not_null", "arguments": {"column": "a"}}}]"#;
    let found = lint_checks("checks.json", text);
    let at: Vec<(&str, &str)> = found
        .iter()
        .map(|(c, _, at, _)| (c.as_str(), at.as_str()))
        .collect();
    assert_eq!(at, vec![("DQ307", "AND")], "{found:?}");
}

#[test]
fn sql_expression_non_boolean_and_aggregate_are_errors_scalar_subquery_is_fine() {
    let found = lint_checks(
        "checks.yml",
        &check("", "sql_expression", "      expression: price + 1\n"),
    );
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(
        (found[0].0.as_str(), found[0].1),
        ("DQ305", Severity::Error)
    );
    assert!(found[0].3.contains("crashes the DQX run"), "{}", found[0].3);

    let found = lint_checks(
        "checks.yml",
        &check(
            "",
            "sql_expression",
            "      expression: price > avg(price)\n",
        ),
    );
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(
        (found[0].0.as_str(), found[0].1, found[0].2.as_str()),
        ("DQ302", Severity::Error, "avg(price)")
    );

    let found = lint_checks(
        "checks.yml",
        &check(
            "",
            "sql_expression",
            "      expression: price > (SELECT 0)\n",
        ),
    );
    assert_eq!(found, vec![]);
}

#[test]
fn a_window_in_sql_expression_runs_in_dqx_and_is_no_finding() {
    // DQX's own yaml_checks_examples.yml has this check; DQX 0.17.0 runs it
    // (oracle --apply on rows 50 and 150 of two sensors: one flagged).
    let found = lint_checks(
        "checks.yml",
        &check(
            "",
            "sql_expression",
            "      expression: MAX(reading_value) OVER (PARTITION BY sensor_id) > 100\n      negate: true\n",
        ),
    );
    assert_eq!(found, vec![]);
    // A ranking function without OVER is still DQ302: Spark cannot
    // evaluate it anywhere.
    let found = lint_checks(
        "checks.yml",
        &check("", "sql_expression", "      expression: row_number() = 1\n"),
    );
    assert_eq!(
        found.iter().map(|f| f.0.as_str()).collect::<Vec<_>>(),
        vec!["DQ302"],
        "{found:?}"
    );
}

#[test]
fn message_expr_is_string_valued_and_placeholders_are_names() {
    let found = lint_checks(
        "checks.yml",
        &check(
            "  message_expr: concat('bad price ', price)\n  filter: price > {{ min_price }}\n",
            "is_not_null",
            "      column: price\n",
        ),
    );
    assert!(
        found.iter().all(|(c, ..)| !c.starts_with("DQ3")),
        "{found:?}"
    );
}
