//! Invalid (or suspicious) expectation expressions: exact code and byte range.

use dqlint_sql::expr::check_expression;

/// (expression, code, range start, text under the range)
const INVALID: &[(&str, &str, usize, &str)] = &[
    // DQ301 syntax errors
    ("price > 0 AND", "DQ301", 13, ""),
    ("price >> = 0", "DQ301", 6, ">>"),
    ("price > 0 price < 10", "DQ301", 10, "price"),
    ("(a > 0", "DQ301", 6, ""),
    ("a > 0)", "DQ301", 5, ")"),
    ("a = 'unterminated", "DQ301", 4, "'unterminated"),
    ("a = 1;", "DQ301", 5, ";"),
    ("a ! b", "DQ301", 2, "!"),
    ("a IN ('x', 'y'", "DQ301", 14, ""),
    ("a BETWEEN 1", "DQ301", 11, ""),
    ("a IS NOT", "DQ301", 8, ""),
    ("a > = 0", "DQ301", 4, "="),
    ("status = 'a' OR", "DQ301", 15, ""),
    ("", "DQ301", 0, ""),
    ("   ", "DQ301", 0, "   "),
    ("-- only a comment", "DQ301", 0, "-- only a comment"),
    ("a > 0\n  AND b >> 1", "DQ301", 14, ">>"),
    ("'é' > 0 AND 'ü' >", "DQ301", 19, ""),
    ("x = 'é' price", "DQ301", 9, "price"),
    // DQ302 aggregates, windows, subqueries
    ("count(*) > 0", "DQ302", 0, "count(*)"),
    (
        "sum(amount) OVER (PARTITION BY k) > 0",
        "DQ302",
        0,
        "sum(amount) OVER (PARTITION BY k)",
    ),
    (
        "a > (SELECT max(b) FROM t)",
        "DQ302",
        4,
        "(SELECT max(b) FROM t)",
    ),
    (
        "EXISTS (SELECT 1 FROM t WHERE t.id = id)",
        "DQ302",
        7,
        "(SELECT 1 FROM t WHERE t.id = id)",
    ),
    ("a IN (SELECT id FROM t)", "DQ302", 5, "(SELECT id FROM t)"),
    ("row_number() = 1", "DQ302", 0, "row_number()"),
    ("count_if(a) > 0 AND a > 0", "DQ302", 0, "count_if(a)"),
    (
        "a > 0 AND COUNT(DISTINCT b) = 1",
        "DQ302",
        10,
        "COUNT(DISTINCT b)",
    ),
    ("lag(x) OVER w > 0", "DQ302", 0, "lag(x) OVER w"),
    ("collect_set(x) IS NOT NULL", "DQ302", 0, "collect_set(x)"),
    // DQ303 nondeterministic
    ("rand() < 0.5", "DQ303", 0, "rand()"),
    (
        "ts < current_timestamp()",
        "DQ303",
        5,
        "current_timestamp()",
    ),
    ("current_date > d", "DQ303", 0, "current_date"),
    ("d <= now()", "DQ303", 5, "now()"),
    ("uuid() IS NOT NULL", "DQ303", 0, "uuid()"),
    ("unix_timestamp() > ts", "DQ303", 0, "unix_timestamp()"),
    (
        "monotonically_increasing_id() > 0",
        "DQ303",
        0,
        "monotonically_increasing_id()",
    ),
    (
        "d > date_sub(CURRENT_DATE(), 30)",
        "DQ303",
        13,
        "CURRENT_DATE()",
    ),
    (
        "input_file_name() LIKE '%.csv'",
        "DQ303",
        0,
        "input_file_name()",
    ),
    // DQ304 tokens
    ("a = ${min_value}", "DQ304", 4, "${min_value}"),
    ("b = '${env}_x'", "DQ304", 5, "${env}"),
    ("c > {threshold}", "DQ304", 4, "{threshold}"),
    ("d = %{local_var}", "DQ304", 4, "%{local_var}"),
    (
        "code RLIKE '^[A-Z]{prefix}[0-9]{8}$'",
        "DQ304",
        18,
        "{prefix}",
    ),
    (
        "t = '${secret:scope/key}'",
        "DQ304",
        5,
        "${secret:scope/key}",
    ),
    // DQ305 non-boolean
    ("upper(name)", "DQ305", 0, "upper(name)"),
    ("'active'", "DQ305", 0, "'active'"),
    ("42", "DQ305", 0, "42"),
    ("price * qty", "DQ305", 0, "price * qty"),
    (
        "first_name || last_name",
        "DQ305",
        0,
        "first_name || last_name",
    ),
    ("concat(a, b)", "DQ305", 0, "concat(a, b)"),
    ("CAST(x AS INT)", "DQ305", 0, "CAST(x AS INT)"),
    ("-1", "DQ305", 0, "-1"),
    ("coalesce(a, 'x')", "DQ305", 0, "coalesce(a, 'x')"),
    ("length(name)", "DQ305", 0, "length(name)"),
    ("x:y::string", "DQ305", 0, "x:y::string"),
    ("  (a + 1)  ", "DQ305", 2, "(a + 1)"),
    (
        "CASE WHEN a THEN 1 ELSE 0 END",
        "DQ305",
        0,
        "CASE WHEN a THEN 1 ELSE 0 END",
    ),
    ("DATE'2024-01-01'", "DQ305", 0, "DATE'2024-01-01'"),
];

#[test]
fn invalid_expressions_have_exactly_the_expected_finding() {
    assert!(INVALID.len() >= 30);
    let mut failures = Vec::new();
    for (text, code, start, slice) in INVALID {
        let findings = check_expression(text);
        let ok = findings.len() == 1
            && findings[0].code == *code
            && findings[0].range.start == *start
            && text.get(findings[0].range.clone()) == Some(*slice);
        if !ok {
            failures.push(format!(
                "{text:?}: want {code} at {start} {slice:?}, got {findings:?}"
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn several_findings_in_one_expression() {
    let text = "count(x) > ${min} AND rand() < 0.5";
    let f = check_expression(text);
    let got: Vec<(&str, &str)> = f.iter().map(|f| (f.code, &text[f.range.clone()])).collect();
    assert_eq!(
        got,
        vec![
            ("DQ302", "count(x)"),
            ("DQ304", "${min}"),
            ("DQ303", "rand()")
        ]
    );
}

#[test]
fn token_plus_syntax_error_reports_both() {
    // the token is blanked for parsing; the real syntax error still shows
    let text = "x > {min} AND";
    let f = check_expression(text);
    let got: Vec<(&str, &str)> = f.iter().map(|f| (f.code, &text[f.range.clone()])).collect();
    assert_eq!(got, vec![("DQ304", "{min}"), ("DQ301", "")]);
    assert_eq!(f[1].range, 13..13);
}

#[test]
fn inside_subquery_only_the_subquery_is_reported() {
    let text = "x IN (SELECT id FROM t WHERE count(*) > 1 AND rand() > 0)";
    let f = check_expression(text);
    assert_eq!(f.len(), 1, "{f:?}");
    assert_eq!(f[0].code, "DQ302");
    assert_eq!(
        &text[f[0].range.clone()],
        "(SELECT id FROM t WHERE count(*) > 1 AND rand() > 0)"
    );
}

#[test]
fn messages_say_what_was_expected_and_found() {
    let f = check_expression("(a > 0");
    assert_eq!(
        f[0].message,
        "syntax error: expected `)`, found the end of the text"
    );
    let f = check_expression("a > 0 b");
    assert_eq!(
        f[0].message,
        "syntax error: expected the end of the expression, found `b`"
    );
    let f = check_expression("a > = 0");
    assert_eq!(
        f[0].message,
        "syntax error: expected an expression, found `=`"
    );
}

#[test]
fn aggregate_higher_order_function_is_not_an_aggregate() {
    assert!(check_expression("aggregate(xs, 0, (acc, x) -> acc + x) > 0").is_empty());
    assert!(check_expression("reduce(xs, 0, (acc, x) -> acc + x) > 0").is_empty());
    assert!(check_expression("filter(xs, x -> x > 0) = array()").is_empty());
    // a user function with an aggregate's name in a schema is not built in
    assert!(check_expression("my_schema.count(x) > 0").is_empty());
}
