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
    assert_eq!(f[0].kind, dqlint_sql::expr::ExprFact::SyntaxError);
    assert!(
        f[0].message.contains("nested too deeply"),
        "{}",
        f[0].message
    );

    let ok = format!("{}a > 0{}", "(".repeat(30), ")".repeat(30));
    assert!(check_expression(&ok).is_empty());

    let deep = format!("{}a > 0{}", "(".repeat(200), ")".repeat(200));
    let f = check_expression(&deep);
    assert_eq!(f.len(), 1);
    assert_eq!(f[0].kind, dqlint_sql::expr::ExprFact::SyntaxError);
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
    all(&format!(
        "UPDATE a SET b = 1 WHERE {}x = 1{}",
        "(".repeat(5_000),
        ")".repeat(5_000)
    ));
    all(&"x ".repeat(100_000));
    all(&"{a} ${b} %{c} ".repeat(10_000));
    all(&"é".repeat(10_000));
}

/// Deterministic pseudo-random soup of SQL fragments.
#[test]
fn fragment_soup_does_not_panic() {
    const FRAGMENTS: &[&str] = &[
        "a",
        "`b c`",
        "'s'",
        "\"d\"",
        "(",
        ")",
        "[",
        "]",
        "<",
        ">",
        ">>",
        "=",
        "==",
        "<=>",
        "!",
        "AND",
        "OR",
        "NOT",
        "IN",
        "IS",
        "NULL",
        "BETWEEN",
        "CASE",
        "WHEN",
        "THEN",
        "ELSE",
        "END",
        "SELECT",
        "FROM",
        "count(",
        "rand()",
        "x:",
        "::",
        "string",
        "INTERVAL",
        "1",
        "2.5D",
        "L",
        "DIV",
        "r'",
        "${x}",
        "{y}",
        "%{z}",
        "{8}",
        "->",
        ",",
        ".",
        ";",
        "--",
        "/*",
        "*/",
        "\n",
        "é",
        "CREATE",
        "TABLE",
        "ALTER",
        "UPDATE",
        "SET",
        "WHERE",
        "TBLPROPERTIES",
        "CLUSTER BY",
        "ARRAY<",
        "STRUCT<",
        "MAP<",
        "NOT NULL",
        "COMMENT",
        "MASK",
        "USING",
        "$$",
        "'",
        "`",
        "_dlq_source_table",
        "LOCATION",
        "PARTITIONED BY",
        "OPTIONS",
        "AUTO",
        "NONE",
    ];
    let mut state: u64 = 0x2545_f491_4f6c_dd1d;
    let mut next = || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    for _ in 0..3000 {
        let len = (next() % 40) as usize;
        let mut s = String::new();
        for _ in 0..len {
            s.push_str(FRAGMENTS[(next() % FRAGMENTS.len() as u64) as usize]);
            if next() % 3 != 0 {
                s.push(' ');
            }
        }
        all(&s);
        for f in check_expression(&s) {
            assert!(
                f.range.start <= f.range.end && f.range.end <= s.len(),
                "{s:?} {f:?}"
            );
            assert!(s.is_char_boundary(f.range.start) && s.is_char_boundary(f.range.end));
        }
        let file = parse_sql_file(&s);
        for e in &file.errors {
            assert!(
                e.range.end <= s.len() && s.is_char_boundary(e.range.start),
                "{s:?} {e:?}"
            );
        }
    }
}
