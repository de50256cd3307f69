//! The SQL strings of DQX checks (`filter`, `row_filter`,
//! `ref_row_filter`, `sql_expression.expression`, `message_expr`) go
//! through the expression checks at their exact characters, with what DQX
//! 0.17.0 does with them in the messages (observed with
//! `../shared/tools/dqx_oracle.py --build --apply`: a filter or an
//! expression it cannot evaluate skips the check, "Check evaluation
//! skipped due to invalid check filter" / "invalid sql expression"; a
//! non-boolean `sql_expression` crashes the run; a scalar subquery in one
//! runs).

use dqlint_linter::{Selection, Severity};
use dqlint_project::Project;

/// `(code, severity, the text at the primary span, message)` per finding.
fn lint_checks(name: &str, text: &str) -> Vec<(String, Severity, String, String)> {
    lint_configured_checks("", name, text)
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

/// [`lint_checks`] with a `dqlint.toml` beside the checks file.
fn lint_configured_checks(
    toml: &str,
    name: &str,
    text: &str,
) -> Vec<(String, Severity, String, String)> {
    use dqlint_linter::{config::Config, lint_configured};
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("dqlint.toml"), toml).unwrap();
    std::fs::write(dir.path().join(name), text).unwrap();
    let config = Config::discover(dir.path(), None).unwrap();
    let project = Project::load(dir.path(), &config.load_options(&[])).unwrap();
    lint_configured(&project, &config, &Selection::default())
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

fn codes_at(found: &[(String, Severity, String, String)]) -> Vec<(&str, Severity, &str)> {
    found
        .iter()
        .map(|(c, s, at, _)| (c.as_str(), *s, at.as_str()))
        .collect()
}

#[test]
fn sql_query_is_parsed_as_a_query_and_its_failures_crash_the_run() {
    // Observed with dqx_oracle.py --apply: a ParseException and an
    // UNRESOLVED_ROUTINE AnalysisException stop the run; aggregates, joins
    // and `FROM v WHERE` (an alias) run.
    let query = |q: &str| {
        check(
            "",
            "sql_query",
            &format!("      query: {q}\n      merge_columns: [id]\n"),
        )
    };
    let found = lint_checks(
        "checks.yml",
        &query("SELECT id, (amount > 1 AS condition FROM {{ input_view }}"),
    );
    assert_eq!(
        codes_at(&found),
        [("DQ301", Severity::Error, "AS")],
        "{found:?}"
    );
    assert!(found[0].3.contains("the DQX run fails"), "{}", found[0].3);
    let found = lint_checks(
        "checks.yml",
        &query("SELECT id, nofn(amount) AS condition FROM {{ input_view }} GROUP BY id"),
    );
    assert_eq!(
        codes_at(&found),
        [("DQ306", Severity::Error, "nofn")],
        "{found:?}"
    );
    for fine in [
        "SELECT id, COUNT(*) > 1 AS condition FROM {{ input_view }} GROUP BY id",
        "SELECT a.id, b.id IS NULL AS condition FROM {{ input_view }} a LEFT ANTI JOIN {{ ref }} b ON a.id = b.id",
        "WITH t AS (SELECT id, SUM(amount) AS s FROM {{ input_view }} GROUP BY ALL) SELECT id, s > 10 AS condition FROM t;",
    ] {
        let found = lint_checks("checks.yml", &query(fine));
        // `{{ ref }}` is DQ824's (a reference DataFrame DQX fills in).
        assert!(
            found.iter().all(|(c, ..)| c == "DQ824"),
            "{fine}: {found:?}"
        );
    }
    let found = lint_checks(
        "checks.yml",
        &query("SELECT id, amount > 1 AS condition FROM {{ input_view }} WHERE"),
    );
    assert_eq!(
        codes_at(&found),
        [("DQ307", Severity::Warning, "WHERE")],
        "{found:?}"
    );
}

#[test]
fn string_limits_are_sql_and_their_failures_crash_the_run() {
    // dqx_oracle.py --apply: `amount +` (ParseException), `nofn(amount)`
    // (UNRESOLVED_ROUTINE), `max(amount)` (MISSING_GROUP_BY) each crash.
    let limit = |l: &str| {
        check(
            "",
            "is_in_range",
            &format!("      column: amount\n      min_limit: 0\n      max_limit: {l}\n"),
        )
    };
    let sql: Vec<(String, Severity, String)> =
        ["amount +", "nofn(amount)", "max(amount)", "amount * 2"]
            .iter()
            .flat_map(|l| lint_checks("checks.yml", &limit(l)))
            .filter(|(c, ..)| c.starts_with("DQ3"))
            .map(|(c, s, at, _)| (c, s, at))
            .collect();
    let sql: Vec<(&str, Severity, &str)> = sql
        .iter()
        .map(|(c, s, at)| (c.as_str(), *s, at.as_str()))
        .collect();
    assert_eq!(
        sql,
        [
            ("DQ301", Severity::Error, ""),
            ("DQ306", Severity::Error, "nofn"),
            ("DQ302", Severity::Error, "max(amount)"),
        ]
    );
    // An aggregate limit of a dataset rule is no finding; numbers, dates
    // and quoted literals are values, not SQL.
    let aggr = check(
        "",
        "is_aggr_not_greater_than",
        "      column: amount\n      aggr_type: sum\n      limit: 10\n",
    );
    assert_eq!(lint_checks("checks.yml", &aggr), []);
}

const SCHEMA: &str = "[dqx]\nvariables = { min_price = \"0\", price_col = \"price\", bad = \"amountt\" }\n[dqx.schemas]\n\"orders.yml\" = \"order_id BIGINT, country STRING, price DECIMAL(10,2), max_q INT\"\n";

#[test]
fn variables_are_substituted_before_the_sql_is_read() {
    // `{{ min_price }}` is `0`: the filter parses and reads `price`, known.
    let text = check(
        "  filter: price > {{ min_price }} AND {{ price_col }} < 100\n",
        "is_not_null",
        "      column: \"{{ price_col }}\"\n",
    );
    assert_eq!(lint_configured_checks(SCHEMA, "orders.yml", &text), []);
    // A value that makes the SQL wrong is reported at its placeholder.
    let text = check(
        "  filter: price > > {{ min_price }}\n",
        "is_not_null",
        "      column: price\n",
    );
    let found = lint_configured_checks(SCHEMA, "orders.yml", &text);
    assert_eq!(
        codes_at(&found),
        [("DQ301", Severity::Error, ">")],
        "{found:?}"
    );
    let text = check(
        "",
        "sql_expression",
        "      expression: \"{{ bad }} > {{ min_price }}\"\n",
    );
    let found = lint_configured_checks(SCHEMA, "orders.yml", &text);
    assert_eq!(
        codes_at(&found),
        [("DQ827", Severity::Error, "{{ bad }}")],
        "{found:?}"
    );
    assert!(
        found[0].3.contains("`amountt` (the value of `{{ bad }}`)"),
        "{}",
        found[0].3
    );
}

#[test]
fn with_a_schema_the_columns_sql_reads_are_checked() {
    // dqx_oracle.py --apply: an unknown column in a filter, a row_filter,
    // an expression or a message skips the check ("invalid check filter",
    // "invalid sql expression", "invalid custom message expression").
    let text = format!(
        "{}{}",
        check(
            "  filter: countryy = 'US' AND exists(array(price), x -> x > 0)\n  message_expr: concat('bad ', order_idd)\n",
            "is_not_null",
            "      column: order_id\n",
        ),
        check(
            "",
            "is_unique",
            "      columns: [order_id]\n      row_filter: pricee > 0 AND d < user\n",
        )
    );
    let found = lint_configured_checks(SCHEMA, "orders.yml", &text);
    assert_eq!(
        codes_at(&found),
        [
            ("DQ827", Severity::Error, "countryy"),
            ("DQ827", Severity::Error, "order_idd"),
            ("DQ827", Severity::Error, "pricee"),
            ("DQ827", Severity::Error, "d"),
        ],
        "{found:?}"
    );
    assert!(
        found[0].3.contains("did you mean `country`?"),
        "{}",
        found[0].3
    );
    // Limits: an unknown column crashes the run (UNRESOLVED_COLUMN).
    let limit = |l: &str| {
        check(
            "",
            "is_in_range",
            &format!("      column: price\n      min_limit: 0\n      max_limit: {l}\n"),
        )
    };
    let found = lint_configured_checks(SCHEMA, "orders.yml", &limit("max_qq"));
    assert_eq!(
        codes_at(&found),
        [("DQ823", Severity::Error, "max_qq")],
        "{found:?}"
    );
    let found = lint_configured_checks(SCHEMA, "orders.yml", &limit("max_q * 2"));
    assert_eq!(
        codes_at(&found),
        [("DQ823", Severity::Info, "max_q * 2")],
        "{found:?}"
    );
}
