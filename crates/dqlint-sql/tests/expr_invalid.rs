//! Invalid (or suspicious) expectation expressions: exact fact and byte range.

use dqlint_sql::expr::check_expression;
use dqlint_sql::expr::ExprFact::{self, *};

/// (expression, fact, range start, text under the range)
const INVALID: &[(&str, ExprFact, usize, &str)] = &[
    // syntax errors (DQ301)
    // a trailing keyword is an alias in Spark (DQ307), never a syntax error
    ("price > 0 AND", TrailingKeywordAlias, 10, "AND"),
    (
        "price > 0 and -- more later",
        TrailingKeywordAlias,
        10,
        "and",
    ),
    ("(a OR b) NOT", TrailingKeywordAlias, 9, "NOT"),
    ("a IS", TrailingKeywordAlias, 2, "IS"),
    ("price > 0 AND qty >", SyntaxError, 19, ""),
    ("price >> = 0", SyntaxError, 9, "="),
    ("price > 0 price < 10", SyntaxError, 10, "price"),
    ("(a > 0", SyntaxError, 6, ""),
    ("a > 0)", SyntaxError, 5, ")"),
    ("a = 'unterminated", SyntaxError, 4, "'unterminated"),
    ("a = 1;", SyntaxError, 5, ";"),
    ("a ! b", SyntaxError, 2, "!"),
    ("a IN ('x', 'y'", SyntaxError, 14, ""),
    ("a BETWEEN 1", SyntaxError, 11, ""),
    ("a IS NOT", SyntaxError, 8, ""),
    ("a > = 0", SyntaxError, 4, "="),
    ("status = 'a' OR", TrailingKeywordAlias, 13, "OR"),
    // unknown functions (DQ306), at the name
    ("lenght(name) > 0", UnknownFunction, 0, "lenght"),
    ("a > 0 AND my_udf(a)", UnknownFunction, 10, "my_udf"),
    (
        "SYSTEM.BUILTIN.lenght(a) > 0",
        UnknownFunction,
        0,
        "SYSTEM.BUILTIN.lenght",
    ),
    ("", SyntaxError, 0, ""),
    ("   ", SyntaxError, 0, "   "),
    ("-- only a comment", SyntaxError, 0, "-- only a comment"),
    ("a > 0\n  AND b = = 1", SyntaxError, 16, "="),
    ("'é' > 0 AND 'ü' >", SyntaxError, 19, ""),
    ("x = 'é' price", SyntaxError, 9, "price"),
    // aggregates (DQ302), windows, subqueries
    ("count(*) > 0", NotRowLevel, 0, "count(*)"),
    (
        "sum(amount) OVER (PARTITION BY k) > 0",
        NotRowLevel,
        0,
        "sum(amount) OVER (PARTITION BY k)",
    ),
    (
        "a > (SELECT max(b) FROM t)",
        NotRowLevel,
        4,
        "(SELECT max(b) FROM t)",
    ),
    (
        "EXISTS (SELECT 1 FROM t WHERE t.id = id)",
        NotRowLevel,
        7,
        "(SELECT 1 FROM t WHERE t.id = id)",
    ),
    (
        "a IN (SELECT id FROM t)",
        NotRowLevel,
        5,
        "(SELECT id FROM t)",
    ),
    ("row_number() = 1", NotRowLevel, 0, "row_number()"),
    ("count_if(a) > 0 AND a > 0", NotRowLevel, 0, "count_if(a)"),
    (
        "a > 0 AND COUNT(DISTINCT b) = 1",
        NotRowLevel,
        10,
        "COUNT(DISTINCT b)",
    ),
    ("lag(x) OVER w > 0", NotRowLevel, 0, "lag(x) OVER w"),
    (
        "collect_set(x) IS NOT NULL",
        NotRowLevel,
        0,
        "collect_set(x)",
    ),
    // nondeterministic (DQ303)
    ("rand() < 0.5", Nondeterministic, 0, "rand()"),
    (
        "ts < current_timestamp()",
        Nondeterministic,
        5,
        "current_timestamp()",
    ),
    ("current_date > d", Nondeterministic, 0, "current_date"),
    ("d <= now()", Nondeterministic, 5, "now()"),
    ("uuid() IS NOT NULL", Nondeterministic, 0, "uuid()"),
    (
        "unix_timestamp() > ts",
        Nondeterministic,
        0,
        "unix_timestamp()",
    ),
    (
        "monotonically_increasing_id() > 0",
        Nondeterministic,
        0,
        "monotonically_increasing_id()",
    ),
    (
        "d > date_sub(CURRENT_DATE(), 30)",
        Nondeterministic,
        13,
        "CURRENT_DATE()",
    ),
    (
        "input_file_name() LIKE '%.csv'",
        Nondeterministic,
        0,
        "input_file_name()",
    ),
    // tokens (DQ304)
    ("a = ${min_value}", SubstitutionToken, 4, "${min_value}"),
    ("b = '${env}_x'", SubstitutionToken, 5, "${env}"),
    ("c > {threshold}", SubstitutionToken, 4, "{threshold}"),
    ("d = %{local_var}", SubstitutionToken, 4, "%{local_var}"),
    (
        "code RLIKE '^[A-Z]{prefix}[0-9]{8}$'",
        SubstitutionToken,
        18,
        "{prefix}",
    ),
    (
        "t = '${secret:scope/key}'",
        SubstitutionToken,
        5,
        "${secret:scope/key}",
    ),
    // non-boolean (DQ305)
    ("upper(name)", NotBoolean, 0, "upper(name)"),
    ("'active'", NotBoolean, 0, "'active'"),
    ("42", NotBoolean, 0, "42"),
    ("price * qty", NotBoolean, 0, "price * qty"),
    (
        "first_name || last_name",
        NotBoolean,
        0,
        "first_name || last_name",
    ),
    ("concat(a, b)", NotBoolean, 0, "concat(a, b)"),
    ("CAST(x AS INT)", NotBoolean, 0, "CAST(x AS INT)"),
    ("-1", NotBoolean, 0, "-1"),
    ("coalesce(a, 'x')", NotBoolean, 0, "coalesce(a, 'x')"),
    ("length(name)", NotBoolean, 0, "length(name)"),
    ("x:y::string", NotBoolean, 0, "x:y::string"),
    ("  (a + 1)  ", NotBoolean, 2, "(a + 1)"),
    (
        "CASE WHEN a THEN 1 ELSE 0 END",
        NotBoolean,
        0,
        "CASE WHEN a THEN 1 ELSE 0 END",
    ),
    ("DATE'2024-01-01'", NotBoolean, 0, "DATE'2024-01-01'"),
];

#[test]
fn invalid_expressions_have_exactly_the_expected_finding() {
    assert!(INVALID.len() >= 30);
    let mut failures = Vec::new();
    for (text, fact, start, slice) in INVALID {
        let findings = check_expression(text);
        let ok = findings.len() == 1
            && findings[0].kind == *fact
            && findings[0].range.start == *start
            && text.get(findings[0].range.clone()) == Some(*slice);
        if !ok {
            failures.push(format!(
                "{text:?}: want {fact:?} at {start} {slice:?}, got {findings:?}"
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn several_findings_in_one_expression() {
    let text = "count(x) > ${min} AND rand() < 0.5";
    let f = check_expression(text);
    let got: Vec<(ExprFact, &str)> = f.iter().map(|f| (f.kind, &text[f.range.clone()])).collect();
    assert_eq!(
        got,
        vec![
            (NotRowLevel, "count(x)"),
            (SubstitutionToken, "${min}"),
            (Nondeterministic, "rand()")
        ]
    );
}

#[test]
fn trailing_keyword_keeps_the_facts_of_what_spark_runs() {
    let text = "count(x) > 0 AND";
    let got: Vec<(ExprFact, String)> = check_expression(text)
        .iter()
        .map(|f| (f.kind, text[f.range.clone()].to_string()))
        .collect();
    assert_eq!(
        got,
        vec![
            (NotRowLevel, "count(x)".to_string()),
            (TrailingKeywordAlias, "AND".to_string())
        ]
    );
}

#[test]
fn unknown_function_names_the_closest_builtin_and_spares_udfs() {
    let f = check_expression("lenght(name) > 0");
    assert!(
        f[0].message.contains("did you mean `length`?"),
        "{}",
        f[0].message
    );
    let udfs = vec!["is_valid_sku".to_string()];
    let options = dqlint_sql::expr::ExprOptions { udfs: &udfs };
    assert!(dqlint_sql::expr::check_expression_with("is_valid_sku(sku)", options).is_empty());
    assert!(dqlint_sql::expr::check_expression_with("IS_VALID_SKU(sku)", options).is_empty());
    // qualified names are catalog functions: not checked
    assert!(check_expression("main.tools.is_valid_sku(sku)").is_empty());
}

#[test]
fn token_plus_syntax_error_reports_both() {
    // the token is blanked for parsing; the real syntax error still shows
    let text = "x > {min} AND y >";
    let f = check_expression(text);
    let got: Vec<(ExprFact, &str)> = f.iter().map(|f| (f.kind, &text[f.range.clone()])).collect();
    assert_eq!(got, vec![(SubstitutionToken, "{min}"), (SyntaxError, "")]);
    assert_eq!(f[1].range, 17..17);
}

#[test]
fn inside_subquery_only_the_subquery_is_reported() {
    let text = "x IN (SELECT id FROM t WHERE count(*) > 1 AND rand() > 0)";
    let f = check_expression(text);
    assert_eq!(f.len(), 1, "{f:?}");
    assert_eq!(f[0].kind, NotRowLevel);
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
