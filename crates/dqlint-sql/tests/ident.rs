use dqlint_sql::ident::{normalize_table_name, parse_table_name, NameProblem};

fn parts(v: &[&str]) -> Result<Vec<String>, NameProblem> {
    Ok(v.iter().map(|s| s.to_string()).collect())
}

#[test]
fn three_part_names() {
    assert_eq!(
        parse_table_name("main.ops.orders_dlq"),
        parts(&["main", "ops", "orders_dlq"])
    );
    assert_eq!(
        parse_table_name("  main.ops.dlq  "),
        parts(&["main", "ops", "dlq"])
    );
    assert_eq!(
        parse_table_name("`my.cat`.ops.`t x`"),
        parts(&["my.cat", "ops", "t x"])
    );
    assert_eq!(parse_table_name("a.`b``c`.d"), parts(&["a", "b`c", "d"]));
    assert_eq!(parse_table_name("a . b . `c`"), parts(&["a", "b", "c"]));
    assert_eq!(
        parse_table_name("${catalog}.ops.dlq"),
        parts(&["${catalog}", "ops", "dlq"])
    );
}

#[test]
fn problems() {
    assert_eq!(parse_table_name(""), Err(NameProblem::Empty));
    assert_eq!(parse_table_name("   "), Err(NameProblem::Empty));
    assert_eq!(
        parse_table_name("a..b"),
        Err(NameProblem::EmptyPart { index: 1 })
    );
    assert_eq!(
        parse_table_name(".a.b"),
        Err(NameProblem::EmptyPart { index: 0 })
    );
    assert_eq!(
        parse_table_name("a.b."),
        Err(NameProblem::EmptyPart { index: 2 })
    );
    assert_eq!(
        parse_table_name("a.``.b"),
        Err(NameProblem::EmptyPart { index: 1 })
    );
    assert_eq!(
        parse_table_name("ops.dlq"),
        Err(NameProblem::WrongPartCount { parts: 2 })
    );
    assert_eq!(
        parse_table_name("dlq"),
        Err(NameProblem::WrongPartCount { parts: 1 })
    );
    assert_eq!(
        parse_table_name("a.b.c.d"),
        Err(NameProblem::WrongPartCount { parts: 4 })
    );
    // LHP counts dots; a dot inside backticks does not make a part
    assert_eq!(
        parse_table_name("`a.b`.c"),
        Err(NameProblem::WrongPartCount { parts: 2 })
    );
    assert_eq!(
        parse_table_name("${secret:scope/key}.ops.dlq"),
        Err(NameProblem::Secret)
    );
    assert_eq!(
        parse_table_name("a.b.`c"),
        Err(NameProblem::UnterminatedBacktick)
    );
    assert_eq!(
        parse_table_name("a.b.`c``"),
        Err(NameProblem::UnterminatedBacktick)
    );
}

#[test]
fn problems_have_messages() {
    assert_eq!(
        NameProblem::WrongPartCount { parts: 2 }.to_string(),
        "the table name has 2 parts; expected catalog.schema.table"
    );
    assert_eq!(
        NameProblem::EmptyPart { index: 1 }.to_string(),
        "the schema part of the table name is empty"
    );
}

#[test]
fn normalize() {
    assert_eq!(
        normalize_table_name("Main.OPS.`Orders_DLQ`").as_deref(),
        Some("main.ops.orders_dlq")
    );
    assert_eq!(
        normalize_table_name("`a.b`.c.d").as_deref(),
        Some("a.b.c.d")
    );
    assert_eq!(normalize_table_name("ops.dlq").as_deref(), Some("ops.dlq"));
    assert_eq!(
        normalize_table_name("${Catalog}.Ops.dlq").as_deref(),
        Some("${Catalog}.ops.dlq")
    );
    assert_eq!(
        normalize_table_name("{Env}_cat.Ops.dlq").as_deref(),
        Some("{Env}_cat.ops.dlq")
    );
    assert_eq!(normalize_table_name("a..b"), None);
    assert_eq!(normalize_table_name(""), None);
    assert_eq!(normalize_table_name("a.`b"), None);
    assert_eq!(normalize_table_name("${secret:s/k}.a.b"), None);
}
