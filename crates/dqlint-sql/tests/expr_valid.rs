//! Valid Databricks expectation expressions: none may produce a finding.

use dqlint_sql::expr::check_expression;

const VALID: &[&str] = &[
    // corpus: lhp-examples/*/expectations/*
    "customer_id IS NOT NULL AND customer_id > 0",
    "name IS NOT NULL AND LENGTH(TRIM(name)) > 0",
    "nation_id IS NOT NULL AND nation_id >= 0",
    "phone IS NULL OR LENGTH(phone) >= 10",
    "account_balance IS NULL OR account_balance >= -10000",
    "market_segment IS NULL OR market_segment IN ('BUILDING', 'FURNITURE', 'HOUSEHOLD', 'MACHINERY')",
    "order_id IS NOT NULL AND order_id > 0",
    "discount IS NOT NULL AND discount > 0",
    "return_flag IS NULL OR return_flag IN ('R', 'N')",
    "(ship_date IS NOT NULL AND ship_date >= '1900-01-01') or ship_date is null",
    "commit_date IS NOT NULL AND commit_date >= '1900-01-01'",
    "ship_mode IS NOT NULL AND ship_mode IN ('RAIL','REG AIR','TRUCK','MAIL','SHIP','FOB')",
    "1=1",
    "product_id IS NOT NULL",
    "unit_price > 0",
    "stock_quantity >= 0",
    "_rescued_data IS NULL",
    // regular expressions
    "email RLIKE '^[^@]+@[^@]+\\\\.[a-z]{2,}$'",
    "code REGEXP '^[A-Z]{3}[0-9]{8}$'",
    "code NOT RLIKE '^x'",
    "name RLIKE '^\\\\p{L}+$'",
    "regexp_like(sku, '^[0-9]+$')",
    // identifiers
    "`order id` IS NOT NULL AND `select` > 0",
    "`weird``name` = 1",
    "t.col.sub > 0",
    "Amount > 0",
    // variant / json paths
    "payload:customer.id::string IS NOT NULL",
    "x:field.sub[0]::string = 'a'",
    "x:['field']::int > 1",
    "`raw data`:a::int > 0",
    "try_variant_get(v, '$.a', 'int') > 0",
    "is_variant_null(v) = false",
    // casts
    "try_cast(x AS INT) IS NOT NULL",
    "CAST(amount AS DECIMAL(10, 2)) >= 0",
    "amount::double > 0",
    "CAST(flag AS BOOLEAN)",
    // IN / BETWEEN / CASE / DISTINCT
    "status IN ('a', 'b', 'c')",
    "status NOT IN ('x')",
    "qty BETWEEN 1 AND 100",
    "qty NOT BETWEEN 1 AND 100",
    "CASE WHEN kind = 'A' THEN amount > 0 WHEN kind = 'B' THEN amount < 0 ELSE true END",
    "CASE kind WHEN 'A' THEN true ELSE false END",
    "a IS DISTINCT FROM b",
    "a IS NOT DISTINCT FROM b",
    "a <=> b",
    // typed literals and intervals
    "d >= DATE'2024-01-01'",
    "d >= date '2024-01-01'",
    "ts < TIMESTAMP'2030-01-01 00:00:00'",
    "ts < TIMESTAMP '2030-01-01 00:00:00'",
    "ts - INTERVAL 1 DAY > start_ts",
    "ts + INTERVAL '2' HOUR > start_ts",
    "end_ts - start_ts < INTERVAL '1' DAY",
    // higher-order functions and lambdas
    "size(tags) > 0 AND exists(tags, t -> t = 'x')",
    "forall(items, i -> i.qty > 0)",
    "size(filter(items, i -> i.price IS NULL)) = 0",
    "aggregate(amounts, 0, (acc, x) -> acc + x) > 0",
    "array_contains(transform(tags, t -> lower(t)), 'vip')",
    "exists(transform(items, (x, i) -> x.qty * i), v -> v > 10)",
    "reduce(amounts, 0D, (acc, x) -> acc + x) >= 0",
    // functions
    "array_contains(tags, 'x')",
    "size(tags) <= 10",
    "array_size(tags) > 0",
    "coalesce(qty, 0) >= 0",
    "nvl(qty, 0) >= 0",
    "ifnull(flag, false)",
    "coalesce(is_active, false)",
    "length(trim(name)) BETWEEN 1 AND 100",
    "upper(country) = 'US'",
    "substring(code, 1, 2) = 'AB'",
    "startswith(code, 'AB')",
    "contains(lower(email), '@')",
    "date_diff(day, created_at, updated_at) < 3",
    "datediff(updated_at, created_at) >= 0",
    "to_date(order_date, 'yyyy-MM-dd') IS NOT NULL",
    "extract(YEAR FROM d) > 2000",
    "isnotnull(id)",
    "if(kind = 'A', amount > 0, true)",
    "element_at(attrs, 'k') IS NOT NULL",
    "attrs['k'] = 'v'",
    "items[0].qty > 0",
    "unix_timestamp(ts_str, 'yyyy-MM-dd') IS NOT NULL",
    "abs(a - b) < 0.01",
    // LIKE family
    "name ILIKE 'a%'",
    "name LIKE 'a\\\\_%' ESCAPE '\\\\'",
    "name NOT LIKE '%test%'",
    "name LIKE ANY ('a%', 'b%')",
    // arithmetic inside comparisons, parentheses
    "price * qty - discount > 0",
    "(a + b) / 2 >= c % 3",
    "((a > 0) AND ((b < 1) OR (c = 2)))",
    "100L > qty",
    "price > 1.5D",
    "amount < 1e9",
    // comments
    "a > 0 -- must be positive",
    "a > 0 /* positive */ AND b > 0",
    "/* leading */ a > 0",
    "a > 0 /* nested /* comment */ still */",
    // boolean forms
    "NOT x",
    "NOT (a = 1)",
    "!is_deleted",
    "x IS TRUE",
    "x IS NOT FALSE",
    "is_active",
    "is_active = true",
    "a == b",
    "a != b AND a <> c",
    "TRUE",
    // strings
    "note <> 'it\\'s'",
    "note <> 'it''s'",
    "name <> \"double\"",
    "parse_json('{\"a\":1}') IS NOT NULL",
    "city <> 'Zürich'",
    "x = '{8}'",
    "x RLIKE '[0-9]{2,3}'",
    // multi-line
    "a IS NOT NULL\n  AND b > 0\n  AND c IN ('x', 'y')",
];

#[test]
fn valid_expressions_have_no_findings() {
    assert!(VALID.len() >= 60);
    let mut failures = Vec::new();
    for text in VALID {
        let findings = check_expression(text);
        if !findings.is_empty() {
            failures.push(format!("{text:?} -> {findings:?}"));
        }
    }
    assert!(failures.is_empty(), "findings on valid SQL:\n{}", failures.join("\n"));
}
