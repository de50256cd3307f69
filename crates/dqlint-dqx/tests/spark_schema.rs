//! `spark_schema::parse_schema` against PySpark's own parser: every string
//! of `tests/spark-schema/cases.json` reads as what PySpark 4.3.0 said of
//! it (`verdicts.json`, recorded by `tests/spark-schema/record.py`).

use dqlint_dqx::spark_schema::{parse_schema, SchemaShape};

#[test]
fn schema_strings_read_as_pyspark_reads_them() {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/spark-schema");
    let cases: Vec<String> =
        serde_json::from_str(&std::fs::read_to_string(format!("{root}/cases.json")).unwrap())
            .unwrap();
    let recorded: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(format!("{root}/verdicts.json")).unwrap())
            .unwrap();
    let verdicts = recorded["verdicts"].as_object().unwrap();
    assert_eq!(verdicts.len(), cases.len(), "re-record: cases.json changed");
    let mut wrong = Vec::new();
    for case in &cases {
        let expected = verdicts[case].as_str().unwrap();
        let ours = match parse_schema(case) {
            Ok(SchemaShape::Struct(_)) => "struct",
            Ok(SchemaShape::NotStruct(_)) => "type",
            Err(_) => "error",
        };
        if ours != expected {
            wrong.push(format!("{case:?}: PySpark {expected}, dqlint {ours}"));
        }
    }
    assert!(
        wrong.is_empty(),
        "{} of {}:\n{}",
        wrong.len(),
        cases.len(),
        wrong.join("\n")
    );
}
