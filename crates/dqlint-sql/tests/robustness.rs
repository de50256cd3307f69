//! Arbitrary input must never panic (nor overflow the stack of a test thread).

use dqlint_sql::ddl::{canonical_type, parse_sql_file};
use dqlint_sql::expr::check_expression;
use dqlint_sql::ident::{normalize_table_name, parse_table_name};

fn all(text: &str) {
    let _ = check_expression(text);
    let _ = parse_sql_file(text);
    let _ = parse_table_name(text);
    let _ = normalize_table_name(text);
    let _ = canonical_type(text);
}

#[test]
fn weird_inputs_do_not_panic() {
    let cases: Vec<String> = vec![
        String::new(),
        "   ".into(),
        "\n\t\r\n".into(),
        "(".into(),
        ")".into(),
        "((a > 0)".into(),
        "a > 0))".into(),
        "'".into(),
        "`".into(),
        "\"".into(),
        "/*".into(),
        "--".into(),
        "${".into(),
        "{".into(),
        "}".into(),
        "%{".into(),
        "${}".into(),
        "é".into(),
        "é > 'ü".into(),
        "\u{0}".into(),
        "a\u{0}b".into(),
        "x:".into(),
        "x::".into(),
        "a -> b".into(),
        "CASE".into(),
        "CREATE TABLE".into(),
        "CREATE TABLE (".into(),
        "CREATE TABLE a.b.c (x ARRAY<".into(),
        "CREATE TABLE a.b.c (x INT) TBLPROPERTIES (".into(),
        "CREATE TABLE a.b.c (x INT) TBLPROPERTIES ('a' =".into(),
        "CREATE TABLE a.b.c (x INT) CLUSTER BY".into(),
        "CREATE TABLE a.b.c (x INT) CLUSTER BY (".into(),
        "ALTER TABLE".into(),
        "ALTER TABLE a SET TBLPROPERTIES".into(),
        "ALTER TABLE a UNSET TBLPROPERTIES IF".into(),
        "UPDATE".into(),
        "UPDATE a SET b = 1 WHERE".into(),
        "UPDATE a SET b = 1 WHERE ((((".into(),
        "UPDATE a SET b = 1 WHERE ))))_dlq_source_table = 'x'".into(),
        ";;;".into(),
        "`a``".into(),
        "a..b".into(),
        "STRUCT<".into(),
        "ARRAY<STRUCT<a:".into(),
        "DECIMAL(".into(),
        "INTERVAL".into(),
        "INTERVAL '1".into(),
        "1 DIV".into(),
        "r'".into(),
        "100L".into(),
    ];
    for c in &cases {
        all(c);
    }
}

#[test]
fn huge_nesting_is_a_syntax_error() {
    let deep = format!("{}a > 0{}", "(".repeat(10_000), ")".repeat(10_000));
    let f = check_expression(&deep);
    assert_eq!(f.len(), 1, "{f:?}");
    assert_eq!(f[0].code, "DQ301");
    assert!(f[0].message.contains("nested too deeply"), "{}", f[0].message);

    let ok = format!("{}a > 0{}", "(".repeat(30), ")".repeat(30));
    assert!(check_expression(&ok).is_empty());

    let deep = format!("{}a > 0{}", "(".repeat(200), ")".repeat(200));
    let f = check_expression(&deep);
    assert_eq!(f.len(), 1);
    assert_eq!(f[0].code, "DQ301");
}

#[test]
fn long_and_deep_inputs_do_not_overflow() {
    all(&"a = 1 AND ".repeat(999).to_string());
    all(&format!("{}a = 1", "a = 1 AND ".repeat(999)));
    all(&format!("{}a = 1", "a = 1 AND ".repeat(20_000)));
    all(&format!("{}x", "NOT ".repeat(5_000)));
    all(&format!("{}1", "-".repeat(5_000)));
    all(&format!("a{}", "[0]".repeat(3_000)));
    all(&format!("{}a{}", "f(".repeat(3_000), ")".repeat(3_000)));
    all(&format!("x:{}", "a.".repeat(3_000)));
    all(&format!("CASE {} END", "WHEN a THEN b ".repeat(2_000)));
    all(&format!(
        "CREATE TABLE a.b.c (x {}INT{})",
        "ARRAY<".repeat(5_000),
        ">".repeat(5_000)
    ));
    all(&format!(
        "CREATE TABLE a.b.c (x INT DEFAULT {}1{})",
        "(".repeat(5_000),
        ")".repeat(5_000)
    ));
    all(&format!("UPDATE a SET b = 1 WHERE {}x = 1{}", "(".repeat(5_000), ")".repeat(5_000)));
    all(&"x ".repeat(100_000));
    all(&"{a} ${b} %{c} ".repeat(10_000));
    all(&"é".repeat(10_000));
}
