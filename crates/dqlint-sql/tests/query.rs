//! Whole queries (DQX's `sql_query`) and the columns an expression reads.

use dqlint_sql::expr::{check_query_with, column_references, ExprFact, ExprOptions};

/// `{{ name }}` placeholders blanked as the DQX rules blank them: a name
/// of the same length.
fn blank(text: &str) -> String {
    let mut out = text.to_string();
    while let Some(start) = out.find("{{") {
        let end = out[start..].find("}}").map_or(out.len(), |e| start + e + 2);
        out.replace_range(start..end, &"_".repeat(end - start));
    }
    out
}

fn facts(query: &str) -> Vec<(ExprFact, String)> {
    let text = blank(query);
    check_query_with(&text, ExprOptions::default())
        .into_iter()
        .map(|f| (f.kind, text[f.range].to_string()))
        .collect()
}

/// Each of these parses in Spark 4.3's own SQL parser
/// (`sessionState().sqlParser().parsePlan`, placeholders blanked).
const SPARK_PARSES: &[&str] = &[
    "SELECT id, amount > 100 AS condition FROM {{ input_view }}",
    "SELECT COUNT(*) = 0 AS condition FROM {{ input_view }}",
    "SELECT a.id, b.id IS NULL AS condition FROM {{ input_view }} a LEFT JOIN {{ ref }} b ON a.id = b.id",
    "WITH t AS (SELECT id, SUM(amount) AS s FROM {{ input_view }} GROUP BY id) SELECT id, s > 10 AS condition FROM t",
    "SELECT id, COUNT(*) > 1 AS condition FROM {{ input_view }} GROUP BY ALL",
    "SELECT id, ROW_NUMBER() OVER (PARTITION BY id ORDER BY ts DESC) > 1 AS condition FROM {{ input_view }}",
    "SELECT id, amount > 100 AS condition FROM {{ input_view }} QUALIFY ROW_NUMBER() OVER (PARTITION BY id ORDER BY id) = 1",
    "SELECT id, x > 0 AS condition FROM {{ input_view }} LATERAL VIEW explode(xs) t AS x",
    "SELECT id, amount > 100 AS condition FROM {{ input_view }} TABLESAMPLE (10 PERCENT)",
    "SELECT /*+ BROADCAST(b) */ a.id, b.id IS NULL AS condition FROM {{ input_view }} a LEFT ANTI JOIN {{ ref }} b ON a.id = b.id",
    "SELECT * EXCEPT (amount), amount > 1 AS condition FROM {{ input_view }}",
    "SELECT id, amount > 100 AS condition FROM {{ input_view }} DISTRIBUTE BY id SORT BY id",
    "SELECT id, amount > 100 AS condition FROM {{ input_view }} CLUSTER BY id",
    "SELECT id, payload:price::double > 1 AS condition FROM {{ input_view }}",
    "SELECT id, amount > 100 AS condition FROM {{ input_view }} WHERE ts > current_timestamp() - INTERVAL 1 DAY",
    "SELECT id, (SELECT MAX(amount) FROM {{ input_view }}) > 100 AS condition FROM {{ input_view }}",
    "SELECT id, amount > 100 AS condition FROM {{ input_view }} UNION ALL SELECT id, false AS condition FROM {{ ref }}",
    "SELECT id, amount > 100 AS condition FROM {{ input_view }} ORDER BY id LIMIT 10",
    "SELECT id, COUNT(*) FILTER (WHERE amount > 0) > 1 AS condition FROM {{ input_view }} GROUP BY id HAVING COUNT(*) > 0",
    "SELECT id, array_contains(tags, 'x') AS condition FROM {{ input_view }}",
    "SELECT id, exists(xs, x -> x > 0) AS condition FROM {{ input_view }}",
    "SELECT id, amount > 100 AS condition FROM {{ input_view }} WINDOW w AS (PARTITION BY id)",
    "SELECT id, amount > 100L AS condition FROM {{ input_view }}",
    "SELECT id, amount > 100 AS condition FROM {{ input_view }} PIVOT (SUM(amount) FOR k IN ('a', 'b'))",
    "SELECT id, struct(a, b).a > 1 AS condition FROM {{ input_view }}",
    "SELECT id, CAST(amount AS DECIMAL(10,2)) > 1 AS condition FROM {{ input_view }}",
    "SELECT id, amount > 100 AS condition FROM {{ input_view }} WHERE id IN (SELECT id FROM {{ ref }})",
    "SELECT id, amount > 100 AS condition FROM {{ input_view }} AS t(id2, amount2)",
    "SELECT id, `weird col` > 1 AS condition FROM {{ input_view }}",
    "SELECT id, amount > 100 AS condition FROM {{ input_view }} t JOIN LATERAL (SELECT 1 AS one) s",
    "SELECT id, NOT (amount <=> NULL) AS condition FROM {{ input_view }}",
    "SELECT id, amount > 100 AS condition FROM {{ input_view }} WHERE date_col >= DATE'2024-01-01'",
    "SELECT id, amount RLIKE '^[0-9]+$' AS condition FROM {{ input_view }}",
    "VALUES (1, true)",
    "SELECT id, count(DISTINCT x) > 1 AS condition FROM {{ input_view }} GROUP BY id",
    "SELECT id, amount > 100 AS condition FROM {{ input_view }} GROUP BY id, amount WITH ROLLUP",
    "SELECT id, amount > 100 AS condition FROM {{ input_view }} GROUP BY GROUPING SETS ((id), (amount))",
    "SELECT id, amount > 100 AS condition FROM {{ input_view }} NATURAL JOIN {{ ref }}",
    "SELECT id, amount > 100 AS condition FROM {{ input_view }} LEFT SEMI JOIN {{ ref }} r ON r.id = id",
    "SELECT id, amount > 100 AS condition FROM {{ input_view }} CROSS JOIN {{ ref }}",
    "SELECT id, amount > 100 AS condition FROM {{ input_view }} INTERSECT SELECT id, true FROM {{ ref }}",
    "SELECT id, amount > 100 AS condition FROM {{ input_view }} EXCEPT SELECT id, true FROM {{ ref }}",
    "SELECT id, amount > 100 AS condition FROM {{ input_view }} MINUS SELECT id, true FROM {{ ref }}",
    "FROM {{ input_view }} SELECT id, amount > 100 AS condition",
    "SELECT id, amount > 100 AS condition FROM {{ input_view }} WHERE amount BETWEEN 1 AND 10",
    "SELECT id, try_cast(amount AS INT) IS NULL AS condition FROM {{ input_view }}",
    "SELECT id, amount > 100 AS condition FROM {{ input_view }} LIMIT ALL",
    "SELECT id, amount > 100 AS condition FROM {{ input_view }} OFFSET 1",
    "SELECT id, amount > 100 AS condition FROM range(10)",
];

#[test]
fn queries_spark_parses_have_no_finding() {
    for query in SPARK_PARSES {
        assert_eq!(facts(query), [], "{query}");
    }
}

#[test]
fn queries_spark_rejects_are_syntax_errors_where_it_stops() {
    // Spark: "Syntax error at or near 'FROM'" / "'>'" / "'>'".
    for (query, at) in [
        (
            "SELECT id, (amount > 100 AS condition FROM {{ input_view }}",
            "AS",
        ),
        (
            "SELECT id, amount > > 100 AS condition FROM {{ input_view }}",
            ">",
        ),
        (
            "SELECT id amount > 100 AS condition FROM {{ input_view }}",
            ">",
        ),
        ("", ""),
    ] {
        assert_eq!(
            facts(query),
            [(ExprFact::SyntaxError, at.to_string())],
            "{query}"
        );
    }
}

#[test]
fn a_trailing_keyword_is_an_alias_and_unknown_functions_are_named() {
    // Spark parses `FROM v WHERE` as the alias `WHERE`, and runs the query.
    assert_eq!(
        facts("SELECT id, amount > 100 AS condition FROM {{ input_view }} WHERE"),
        [(ExprFact::TrailingKeywordAlias, "WHERE".to_string())]
    );
    assert_eq!(
        facts("SELECT id, no_such_fn(amount) AS condition FROM {{ input_view }} GROUP BY id;"),
        [(ExprFact::UnknownFunction, "no_such_fn".to_string())]
    );
    let udfs = ["no_such_fn".to_string()];
    let text = "SELECT no_such_fn(a) AS condition FROM t";
    assert_eq!(check_query_with(text, ExprOptions { udfs: &udfs }), []);
}

fn columns(text: &str) -> Option<Vec<(String, String)>> {
    column_references(text).map(|refs| {
        refs.into_iter()
            .map(|r| (r.name, text[r.range].to_string()))
            .collect()
    })
}

#[test]
fn columns_an_expression_reads() {
    let pair = |n: &str, w: &str| (n.to_string(), w.to_string());
    assert_eq!(
        columns("a > 0 AND s.city = 'x' AND `weird col` IS NOT NULL"),
        Some(vec![
            pair("a", "a"),
            pair("s", "s"),
            pair("weird col", "`weird col`")
        ])
    );
    // Lambda parameters are not columns; the array is.
    assert_eq!(
        columns("exists(xs, x -> x > 0) AND upper(name) = 'A'"),
        Some(vec![pair("xs", "xs"), pair("name", "name")])
    );
    assert_eq!(
        columns("price > 100L AND d >= DATE'2024-01-01'"),
        Some(vec![pair("price", "price"), pair("d", "d")])
    );
    assert_eq!(columns("1 = 1"), Some(vec![]));
    // Functions Spark calls without parentheses; a JSON path's fields.
    assert_eq!(
        columns("d < current_date AND u = current_user AND payload:a.b > 1"),
        Some(vec![
            pair("d", "d"),
            pair("u", "u"),
            pair("payload", "payload")
        ])
    );
    assert_eq!(columns("a >"), None);
}
