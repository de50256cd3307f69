use std::path::Path;

use dqlint_sql::ddl::{
    canonical_type, parse_sql_file, type_matches, AlterOp, AlterTable, CreateTable, DdlStatement,
    SqlFile, UpdateStmt,
};

/// The inbox columns of the corpus's `create_dlq.sql`: (name, type, NOT NULL).
const INBOX_COLUMNS: &[(&str, &str, bool)] = &[
    ("_dlq_sk", "STRING", true),
    ("_dlq_source_table", "STRING", true),
    ("_dlq_status", "STRING", true),
    ("_dlq_timestamp", "TIMESTAMP", true),
    (
        "_dlq_failed_rules",
        "ARRAY<STRUCT<NAME: STRING, RULE: STRING>>",
        false,
    ),
    ("_dlq_rescued_data", "STRING", false),
    ("_row_data", "VARIANT", true),
];

/// The outbox columns of the same file.
const OUTBOX_COLUMNS: &[(&str, &str, bool)] = &[
    ("_dlq_sk", "STRING", true),
    ("_dlq_source_table", "STRING", true),
    ("_row_data", "VARIANT", true),
    ("_dlq_recycled_at", "TIMESTAMP", true),
];

fn creates(f: &SqlFile) -> Vec<&CreateTable> {
    f.statements
        .iter()
        .filter_map(|s| match s {
            DdlStatement::CreateTable(c) => Some(c),
            _ => None,
        })
        .collect()
}

fn alters(f: &SqlFile) -> Vec<&AlterTable> {
    f.statements
        .iter()
        .filter_map(|s| match s {
            DdlStatement::AlterTable(a) => Some(a),
            _ => None,
        })
        .collect()
}

fn updates(f: &SqlFile) -> Vec<&UpdateStmt> {
    f.statements
        .iter()
        .filter_map(|s| match s {
            DdlStatement::Update(u) => Some(u),
            _ => None,
        })
        .collect()
}

fn one_create(sql: &str) -> CreateTable {
    let f = parse_sql_file(sql);
    assert!(f.errors.is_empty(), "{:?}", f.errors);
    let c = creates(&f);
    assert_eq!(c.len(), 1, "{f:?}");
    c[0].clone()
}

fn prop<'a>(c: &'a CreateTable, key: &str) -> Option<&'a str> {
    c.tblproperties
        .as_ref()?
        .entries
        .iter()
        .find(|p| p.key == key)
        .map(|p| p.value.as_str())
}

fn corpus_dir() -> &'static Path {
    Path::new("../../../shared/corpus/lhp-examples")
}

#[test]
fn corpus_create_dlq() {
    let path = corpus_dir().join("acmi/SQL/create_dlq.sql");
    let Ok(text) = std::fs::read_to_string(&path) else {
        eprintln!("skipped: {} not found", path.display());
        return;
    };
    let f = parse_sql_file(&text);
    assert!(f.errors.is_empty(), "{:?}", f.errors);
    let c = creates(&f);
    assert_eq!(c.len(), 2);

    let inbox = c[0];
    assert_eq!(inbox.name, "acme_edw_dev.edw_raw.universal_dlq");
    assert_eq!(
        &text[inbox.name_range.clone()],
        "acme_edw_dev.edw_raw.universal_dlq"
    );
    assert!(inbox.if_not_exists && !inbox.or_replace);
    assert!(inbox.cluster_by.is_none());
    assert!(inbox.partitioned_by.is_none());
    assert_eq!(prop(inbox, "delta.enableChangeDataFeed"), Some("true"));
    assert_eq!(prop(inbox, "delta.enableRowTracking"), Some("true"));
    assert_eq!(
        prop(inbox, "delta.deletedFileRetentionDuration"),
        Some("interval 90 days")
    );
    assert_eq!(prop(inbox, "delta.enableDeletionVectors"), None);
    assert_eq!(inbox.columns.len(), INBOX_COLUMNS.len());
    for (col, (name, ty, not_null)) in inbox.columns.iter().zip(INBOX_COLUMNS) {
        assert_eq!(col.name, *name);
        assert!(type_matches(&col.data_type, ty), "{} {}", col.data_type, ty);
        assert_eq!(col.not_null, *not_null, "{name}");
    }
    assert!(text[inbox.statement_range.clone()].starts_with("CREATE TABLE"));
    assert!(text[inbox.statement_range.clone()].ends_with(')'));
    let props = inbox.tblproperties.as_ref().unwrap();
    assert!(text[props.range.clone()].starts_with("TBLPROPERTIES ("));
    assert_eq!(&text[props.open_paren..props.open_paren + 1], "(");
    assert_eq!(&text[props.close_paren..props.close_paren + 1], ")");
    assert_eq!(
        &text[props.entries[0].range.clone()],
        "'delta.enableChangeDataFeed' = 'true'"
    );
    // the column with a trailing `-- comment`
    assert_eq!(
        &text[inbox.columns[2].range.clone()],
        "_dlq_status        STRING    NOT NULL"
    );

    let outbox = c[1];
    assert_eq!(outbox.name, "acme_edw_dev.edw_raw.universal_dlq_outbox");
    assert!(outbox.cluster_by.is_none());
    assert_eq!(prop(outbox, "delta.enableRowTracking"), Some("true"));
    assert_eq!(outbox.tblproperties.as_ref().unwrap().entries.len(), 1);
    assert_eq!(outbox.columns.len(), OUTBOX_COLUMNS.len());
    for (col, (name, ty, not_null)) in outbox.columns.iter().zip(OUTBOX_COLUMNS) {
        assert_eq!(col.name, *name);
        assert!(type_matches(&col.data_type, ty));
        assert_eq!(col.not_null, *not_null);
    }
}

fn sql_files(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    for e in rd.flatten() {
        let p = e.path();
        if p.is_dir() {
            sql_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "sql") {
            out.push(p);
        }
    }
}

#[test]
fn corpus_transform_files_give_no_errors() {
    let mut files = Vec::new();
    sql_files(corpus_dir(), &mut files);
    if files.is_empty() {
        eprintln!("skipped: corpus not found");
        return;
    }
    for p in files {
        let text = std::fs::read_to_string(&p).unwrap();
        let f = parse_sql_file(&text);
        assert!(f.errors.is_empty(), "{}: {:?}", p.display(), f.errors);
        if !p.ends_with("create_dlq.sql") {
            assert!(f.statements.is_empty(), "{}", p.display());
        }
    }
}

fn permutations<T: Clone>(items: &[T]) -> Vec<Vec<T>> {
    if items.len() <= 1 {
        return vec![items.to_vec()];
    }
    let mut out = Vec::new();
    for i in 0..items.len() {
        let mut rest = items.to_vec();
        let first = rest.remove(i);
        for mut p in permutations(&rest) {
            p.insert(0, first.clone());
            out.push(p);
        }
    }
    out
}

#[test]
fn clauses_in_any_order() {
    let clauses = [
        "CLUSTER BY (_dlq_source_table)",
        "TBLPROPERTIES ('delta.enableRowTracking' = 'true')",
        "USING DELTA",
        "COMMENT 'dlq'",
        "LOCATION 's3://bucket/dlq'",
    ];
    let perms = permutations(&clauses);
    assert_eq!(perms.len(), 120);
    for p in perms {
        let sql = format!(
            "CREATE TABLE a.b.c (_dlq_sk STRING NOT NULL)\n{};",
            p.join("\n")
        );
        let c = one_create(&sql);
        let (cols, r) = c.cluster_by.clone().unwrap();
        assert_eq!(cols, vec!["_dlq_source_table"]);
        assert_eq!(&sql[r], "CLUSTER BY (_dlq_source_table)");
        assert_eq!(prop(&c, "delta.enableRowTracking"), Some("true"));
        let pl = c.tblproperties.as_ref().unwrap();
        assert_eq!(&sql[pl.range.clone()], clauses[1]);
        assert_eq!(c.using.as_deref(), Some("DELTA"));
        assert_eq!(c.comment.as_deref(), Some("dlq"));
        assert_eq!(c.location.as_deref(), Some("s3://bucket/dlq"));
        assert_eq!(&sql[c.statement_range.clone()], &sql[..sql.len() - 1]);
    }
}

#[test]
fn partitioned_options_and_cluster_variants() {
    let c = one_create("CREATE TABLE a.b.c (x INT, d DATE) PARTITIONED BY (d) OPTIONS ('k' = 'v')");
    assert_eq!(c.partitioned_by.as_ref().unwrap().0, vec!["d"]);
    assert!(c.cluster_by.is_none());

    for variant in ["AUTO", "NONE", "auto"] {
        let sql = format!("CREATE TABLE a.b.c (x INT) CLUSTER BY {variant}");
        let c = one_create(&sql);
        let (cols, r) = c.cluster_by.unwrap();
        assert!(cols.is_empty());
        assert_eq!(&sql[r], format!("CLUSTER BY {variant}"));
    }
    let c = one_create("CREATE TABLE a.b.c (x INT) CLUSTER BY (`_dlq_source_table`, x, s.f)");
    assert_eq!(
        c.cluster_by.unwrap().0,
        vec!["_dlq_source_table", "x", "s.f"]
    );
}

#[test]
fn create_variants() {
    let c = one_create("create or replace table `Main`.Ops.`Orders DLQ` (x int)");
    assert!(c.or_replace && !c.if_not_exists);
    assert_eq!(c.name, "main.ops.orders dlq");
    let c = one_create("REPLACE TABLE a.b.c (x INT) USING delta");
    assert!(c.or_replace);
    let c = one_create("CREATE EXTERNAL TABLE a.b.c (x INT) LOCATION '/x'");
    assert_eq!(c.location.as_deref(), Some("/x"));
    // no column list (schema from the location)
    let sql = "CREATE TABLE a.b.c USING DELTA LOCATION '/x'";
    let c = one_create(sql);
    assert!(c.columns.is_empty());
    assert_eq!(c.columns_range, 18..18);
    // property keys written as identifiers, values not quoted
    let c = one_create(
        "CREATE TABLE a.b.c (x INT) TBLPROPERTIES (delta.enableRowTracking = true, 'n' 5)",
    );
    assert_eq!(prop(&c, "delta.enableRowTracking"), Some("true"));
    assert_eq!(prop(&c, "n"), Some("5"));
}

#[test]
fn column_details() {
    let sql = "CREATE TABLE t.s.x (\n  a STRING NOT NULL COMMENT 'k; x',\n  b BIGINT GENERATED ALWAYS AS IDENTITY,\n  c DECIMAL(10, 2) DEFAULT 0,\n  d STRUCT<f: INT NOT NULL COMMENT 'n', `g h`: ARRAY<STRING>>,\n  e MAP<STRING, INT>,\n  CONSTRAINT pk PRIMARY KEY (a)\n)";
    let c = one_create(sql);
    let names: Vec<&str> = c.columns.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(names, vec!["a", "b", "c", "d", "e"]);
    assert_eq!(
        &sql[c.columns[0].range.clone()],
        "a STRING NOT NULL COMMENT 'k; x'"
    );
    assert!(c.columns[0].not_null);
    assert!(!c.columns[1].not_null);
    assert_eq!(c.columns[2].data_type, "DECIMAL(10,2)");
    assert_eq!(c.columns[4].data_type, "MAP<STRING, INT>");
    assert!(c.columns[3].data_type.starts_with("STRUCT<F: INT"));
    assert_eq!(
        &sql[c.columns_range.clone()],
        &sql[sql.find('(').unwrap()..]
    );
}

#[test]
fn types() {
    assert_eq!(
        canonical_type("array<struct<name string, rule string>>"),
        "ARRAY<STRUCT<NAME: STRING, RULE: STRING>>"
    );
    assert!(type_matches(
        "ARRAY<STRUCT<name: STRING, rule: STRING>>",
        "array < struct < NAME STRING , RULE STRING > >"
    ));
    assert!(type_matches("Integer", "INT"));
    assert!(type_matches("long", "BIGINT"));
    assert!(type_matches("timestamp_ltz", "TIMESTAMP"));
    assert!(type_matches("decimal(10, 2)", "NUMERIC(10,2)"));
    assert!(!type_matches("TIMESTAMP_NTZ", "TIMESTAMP"));
    assert!(!type_matches("STRING", "VARIANT"));
    assert!(!type_matches(
        "ARRAY<STRING>",
        "ARRAY<STRUCT<name: STRING, rule: STRING>>"
    ));
    assert!(!type_matches(
        "ARRAY<STRUCT<name: STRING>>",
        "ARRAY<STRUCT<name: STRING, rule: STRING>>"
    ));
}

#[test]
fn alter_table() {
    let sql = "ALTER TABLE Main.Ops.DLQ SET TBLPROPERTIES ('delta.enableDeletionVectors' = 'true');\n\
               ALTER TABLE main.ops.dlq UNSET TBLPROPERTIES IF EXISTS ('delta.enableRowTracking', 'x');\n\
               ALTER TABLE main.ops.dlq CLUSTER BY (_dlq_source_table);\n\
               ALTER TABLE main.ops.dlq CLUSTER BY NONE;\n\
               ALTER TABLE main.ops.dlq ADD COLUMN z INT;";
    let f = parse_sql_file(sql);
    assert!(f.errors.is_empty(), "{:?}", f.errors);
    let a = alters(&f);
    assert_eq!(a.len(), 5);
    assert_eq!(a[0].name, "main.ops.dlq");
    assert_eq!(&sql[a[0].name_range.clone()], "Main.Ops.DLQ");
    match &a[0].ops[..] {
        [AlterOp::SetProperties(p)] => {
            assert_eq!(p[0].key, "delta.enableDeletionVectors");
            assert_eq!(p[0].value, "true");
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(
        a[1].ops,
        vec![AlterOp::UnsetProperties(vec![
            "delta.enableRowTracking".into(),
            "x".into()
        ])]
    );
    assert_eq!(
        a[2].ops,
        vec![AlterOp::ClusterBy(vec!["_dlq_source_table".into()])]
    );
    assert_eq!(a[3].ops, vec![AlterOp::ClusterBy(vec![])]);
    assert!(a[4].ops.is_empty());
    assert!(sql[a[0].statement_range.clone()].starts_with("ALTER TABLE Main"));
    assert!(sql[a[0].statement_range.clone()].ends_with("'true')"));
}

#[test]
fn update_pins() {
    let cases = [
        ("UPDATE main.ops.dlq SET _dlq_status = 'fixed', _row_data = parse_json('{\"a\":1}') WHERE _dlq_source_table = 'main.raw.orders' AND _dlq_sk IN ('1','2')", true),
        ("UPDATE main.ops.dlq SET _dlq_status = 'fixed' WHERE _dlq_sk IN ('1','2')", false),
        ("UPDATE main.ops.dlq d SET _dlq_status = 'fixed' WHERE (d._dlq_source_table IN ('a') AND x BETWEEN 1 AND 2)", true),
        ("UPDATE main.ops.dlq SET _dlq_status = 'fixed' WHERE x BETWEEN 1 AND 2 AND 'a' = _dlq_source_table", true),
        ("UPDATE main.ops.dlq SET _dlq_status = 'fixed' WHERE _dlq_source_table = 'a' OR x = 1", false),
        ("UPDATE main.ops.dlq SET _dlq_status = 'fixed' WHERE _dlq_source_table NOT IN ('a')", false),
        ("UPDATE main.ops.dlq SET _dlq_status = 'fixed' WHERE _dlq_source_table <> 'a'", false),
        ("UPDATE main.ops.dlq SET _dlq_status = 'fixed' WHERE x = 1 AND (_DLQ_SOURCE_TABLE = 'a' AND y = 2)", true),
        ("UPDATE main.ops.dlq SET _dlq_status = 'fixed'", false),
        ("UPDATE main.ops.dlq SET _dlq_status = (SELECT 'x' FROM t WHERE _dlq_source_table = 'a')", false),
    ];
    for (sql, pinned) in cases {
        let f = parse_sql_file(sql);
        assert!(f.errors.is_empty());
        let u = updates(&f);
        assert_eq!(u.len(), 1, "{sql}");
        assert_eq!(u[0].table, "main.ops.dlq");
        assert_eq!(&sql[u[0].table_range.clone()], "main.ops.dlq");
        assert_eq!(u[0].where_pins_source_table, pinned, "{sql}");
        assert_eq!(u[0].statement_range, 0..sql.len());
    }
}

#[test]
fn comments_and_multiple_statements() {
    let sql = "-- setup; not a statement\n\
               /* block ; comment */\n\
               SELECT 1;\n\
               CREATE /* inline */ TABLE a.b.inbox ( -- cols\n  x INT -- ; trailing\n) TBLPROPERTIES ('k' = 'v;w');\n\
               CREATE VIEW v AS SELECT * FROM a.b.inbox;\n\
               MERGE INTO t USING s ON t.a = s.a WHEN MATCHED THEN UPDATE SET *;\n\
               INSERT INTO a.b.inbox VALUES (1);\n\
               CREATE OR REFRESH STREAMING TABLE st AS SELECT * FROM STREAM(x);\n\
               CREATE TABLE a.b.ctas AS SELECT 1;\n\
               {% if env == 'dev' %} SELECT {{ col }} {% endif %};\n\
               CREATE TABLE a.b.outbox (y INT);\n";
    let f = parse_sql_file(sql);
    assert!(f.errors.is_empty(), "{:?}", f.errors);
    let c = creates(&f);
    let names: Vec<&str> = c.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(names, vec!["a.b.inbox", "a.b.outbox"]);
    assert_eq!(prop(c[0], "k"), Some("v;w"));
    assert!(sql[c[0].statement_range.clone()].starts_with("CREATE /* inline */ TABLE"));
}

#[test]
fn broken_statement_does_not_hide_the_next() {
    let sql =
        "CREATE TABLE a.b.broken (x INT,, y INT);\nCREATE TABLE a.b.good (x INT) CLUSTER BY (x);";
    let f = parse_sql_file(sql);
    assert_eq!(f.errors.len(), 1);
    let e = &f.errors[0];
    assert_eq!(e.range, 31..32);
    assert_eq!(&sql[e.range.clone()], ",");
    assert!(e.message.contains("expected"), "{}", e.message);
    let c = creates(&f);
    assert_eq!(c.len(), 1);
    assert_eq!(c[0].name, "a.b.good");
}

#[test]
fn error_positions() {
    let sql = "SELECT 1;\nCREATE TABLE a.b.c (x INT) FOO;";
    let f = parse_sql_file(sql);
    assert_eq!(f.errors.len(), 1);
    assert_eq!(&sql[f.errors[0].range.clone()], "FOO");
    assert!(
        f.errors[0].message.contains("found `FOO`"),
        "{}",
        f.errors[0].message
    );

    // error inside the column list, on a later line, after multi-byte text
    let sql = "-- é\nCREATE TABLE a.b.c (\n  x INT COMMENT 'ü',\n  y STRUNG<\n)";
    let f = parse_sql_file(sql);
    assert_eq!(f.errors.len(), 1, "{f:?}");
    let r = f.errors[0].range.clone();
    assert!(
        r.start >= sql.find("STRUNG").unwrap(),
        "{r:?} {:?}",
        f.errors[0]
    );

    // unterminated statement
    let sql = "CREATE TABLE q.w.e (a STRING";
    let f = parse_sql_file(sql);
    assert_eq!(f.errors.len(), 1);
    assert_eq!(f.errors[0].range, sql.len()..sql.len());

    // duplicate clause
    let sql = "CREATE TABLE a.b.c (x INT) TBLPROPERTIES ('a'='b') TBLPROPERTIES ('c'='d')";
    let f = parse_sql_file(sql);
    assert_eq!(f.errors.len(), 1);
    assert!(f.errors[0].message.contains("duplicate TBLPROPERTIES"));

    // unterminated string in a CREATE TABLE: tokenizer error
    let sql = "CREATE TABLE a.b.c (x INT) COMMENT 'oops";
    let f = parse_sql_file(sql);
    assert_eq!(f.errors.len(), 1);
    assert_eq!(f.errors[0].range.start, sql.find('\'').unwrap());
}

#[test]
fn substitution_tokens_in_ddl() {
    let sql =
        "CREATE TABLE IF NOT EXISTS ${catalog}.{schema}.orders_dlq (x INT) LOCATION '${path}/x';\n\
               UPDATE ${catalog}.ops.dlq SET a = 1 WHERE _dlq_source_table = '${src}'";
    let f = parse_sql_file(sql);
    assert!(f.errors.is_empty(), "{:?}", f.errors);
    let c = creates(&f);
    assert_eq!(c[0].name, "${catalog}.{schema}.orders_dlq");
    assert_eq!(c[0].location.as_deref(), Some("${path}/x"));
    let u = updates(&f);
    assert_eq!(u[0].table, "${catalog}.ops.dlq");
    assert!(u[0].where_pins_source_table);
}

#[test]
fn keyword_column_names_and_column_features() {
    let sql = "CREATE TABLE a.b.c (
  key STRING,
  index INT,
  check BOOLEAN,
  unique INT,
  primary INT,
  foreign STRING,
  timestamp TIMESTAMP,
  comment STRING,
  date DATE,
  order INT,
  value BINARY,
  g1 INT GENERATED ALWAYS AS (index + 1),
  g2 BIGINT GENERATED BY DEFAULT AS IDENTITY (START WITH 1 INCREMENT BY 1),
  d1 TIMESTAMP DEFAULT current_timestamp(),
  i INTERVAL DAY TO SECOND,
  v VARCHAR(10),
  l LONG,
  tl TIMESTAMP_LTZ,
  m STRING MASK cat.sch.mask_fn USING COLUMNS (key),
  n STRING MASK mask_fn,
  fk INT,
  CONSTRAINT pk PRIMARY KEY (key),
  CONSTRAINT fk1 FOREIGN KEY (fk) REFERENCES a.b.d (id)
) USING DELTA";
    let c = one_create(sql);
    let cols: Vec<(&str, &str)> = c
        .columns
        .iter()
        .map(|c| (c.name.as_str(), c.data_type.as_str()))
        .collect();
    assert_eq!(
        cols,
        vec![
            ("key", "STRING"),
            ("index", "INT"),
            ("check", "BOOLEAN"),
            ("unique", "INT"),
            ("primary", "INT"),
            ("foreign", "STRING"),
            ("timestamp", "TIMESTAMP"),
            ("comment", "STRING"),
            ("date", "DATE"),
            ("order", "INT"),
            ("value", "BINARY"),
            ("g1", "INT"),
            ("g2", "BIGINT"),
            ("d1", "TIMESTAMP"),
            ("i", "INTERVAL"),
            ("v", "VARCHAR(10)"),
            ("l", "BIGINT"),
            ("tl", "TIMESTAMP"),
            ("m", "STRING"),
            ("n", "STRING"),
            ("fk", "INT"),
        ]
    );
    let m = &c.columns[18];
    assert_eq!(
        &sql[m.range.clone()],
        "m STRING MASK cat.sch.mask_fn USING COLUMNS (key)"
    );
}

#[test]
fn dollar_quoted_bodies_do_not_split() {
    let sql = "CREATE FUNCTION f() RETURNS INT LANGUAGE PYTHON AS $$\nx = 1; update(x)\nCREATE TABLE nope (\n$$;\nCREATE TABLE a.b.c (x INT);";
    let f = parse_sql_file(sql);
    assert!(f.errors.is_empty(), "{:?}", f.errors);
    assert_eq!(creates(&f).len(), 1);
    assert!(updates(&f).is_empty());
}
