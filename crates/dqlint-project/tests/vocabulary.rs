//! The LHP vocabulary against its recording (tests/lhp-vocabulary/, made by
//! record.py from the lakehouse-plumber wheel): every key LHP's JSON schemas
//! know, in the block the schema puts it, with its values and a doc; each
//! load source and write target type with exactly the keys of LHP's field
//! catalogue; action types only with keys LHP's `Action` reads; and no block
//! the recording does not account for.

use std::collections::BTreeSet;

use dqlint_project::vocabulary::{self, LHP_VERSION};
use serde_json::Value;

fn recording() -> Value {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../tests/lhp-vocabulary/lhp-0.9.3.json"
    );
    serde_json::from_str(&std::fs::read_to_string(path).expect("the recording")).unwrap()
}

fn strings(v: &Value) -> Vec<&str> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|s| s.as_str().unwrap())
        .collect()
}

fn names(id: &str) -> BTreeSet<&'static str> {
    vocabulary::expect_block(id).names().into_iter().collect()
}

/// Keys dqlint accepts beyond LHP's (record.py's EXTRA_KEYS, with why).
const EXTRA: &[(&str, &str)] = &[("flowgroup:", "description")];

#[test]
fn recorded_from_the_same_lhp() {
    assert_eq!(recording()["lhp_version"], LHP_VERSION);
}

#[test]
fn every_schema_key_is_in_its_block_with_values_and_a_doc() {
    let rec = recording();
    let mut count = 0;
    for (file, blocks) in rec["schemas"].as_object().unwrap() {
        for (path, keys) in blocks.as_object().unwrap() {
            let id = format!("{file}:{path}");
            let block = vocabulary::block(&id).unwrap_or_else(|| panic!("no block `{id}`"));
            for (key, fact) in keys.as_object().unwrap() {
                let k = block
                    .key(key)
                    .unwrap_or_else(|| panic!("`{key}` missing from `{id}`"));
                assert_eq!(k.values, strings(&fact["values"]), "{id} {key}");
                assert!(!k.doc.is_empty(), "{id} {key}: no doc");
                count += 1;
            }
            let recorded: BTreeSet<&str> = keys
                .as_object()
                .unwrap()
                .keys()
                .map(String::as_str)
                .collect();
            let extra: BTreeSet<&str> = EXTRA
                .iter()
                .filter(|(b, _)| *b == id)
                .map(|(_, k)| *k)
                .collect();
            let have = names(&id);
            let want: BTreeSet<&str> = recorded.union(&extra).copied().collect();
            assert_eq!(have, want, "{id}: keys the recording does not have");
        }
    }
    assert!(count > 500, "{count} keys");
}

#[test]
fn typed_blocks_follow_lhps_field_catalogue() {
    let rec = recording();
    let catalogue = &rec["field_catalogue"];
    for section in ["source", "write_target"] {
        for (kind, fields) in catalogue[section].as_object().unwrap() {
            let want: BTreeSet<&str> = strings(fields).into_iter().collect();
            assert_eq!(
                names(&format!("{section}:{kind}")),
                want,
                "{section} {kind}"
            );
        }
    }
    let action: BTreeSet<&str> = strings(&catalogue["action"]).into_iter().collect();
    assert_eq!(names("action:"), action);
    let model: BTreeSet<&str> = strings(&rec["models"]["Action"]).into_iter().collect();
    assert_eq!(action, model, "LHP's catalogue and Action model agree");
    for block in vocabulary::blocks() {
        let (section, kind) = block.id.split_once(':').unwrap();
        match section {
            "action" => {
                let extra: Vec<_> = block
                    .names()
                    .into_iter()
                    .filter(|k| !action.contains(k))
                    .collect();
                assert!(
                    extra.is_empty(),
                    "{}: {extra:?} are not Action fields",
                    block.id
                );
                let mut parts = kind.split('/');
                let (ty, sub) = (parts.next().unwrap(), parts.next());
                if !ty.is_empty() {
                    assert!(
                        strings(&rec["models"]["ActionType"]).contains(&ty),
                        "{}",
                        block.id
                    );
                }
                if let Some(sub) = sub {
                    let enum_name = if ty == "test" {
                        "TestActionType"
                    } else {
                        "TransformType"
                    };
                    assert!(
                        strings(&rec["models"][enum_name]).contains(&sub),
                        "{}",
                        block.id
                    );
                }
            }
            "source" | "write_target" => {
                assert!(catalogue[section].get(kind).is_some(), "{}", block.id)
            }
            _ => assert!(
                rec["schemas"][section].get(kind).is_some(),
                "{}: not in the recording",
                block.id
            ),
        }
    }
    // Every type of LHP's enums has its block.
    for ty in strings(&rec["models"]["TransformType"]) {
        vocabulary::expect_block(&format!("action:transform/{ty}"));
    }
    for ty in strings(&rec["models"]["TestActionType"]) {
        vocabulary::expect_block(&format!("action:test/{ty}"));
    }
    assert_eq!(
        vocabulary::expect_block("action:test")
            .key("test_type")
            .unwrap()
            .values,
        strings(&rec["models"]["TestActionType"])
    );
}

#[test]
fn dq003s_blocks_are_the_ones_it_always_read() {
    // A change here changes DQ003's findings: the corpus verdicts
    // (crates/dqlint/tests/crater.rs) say whether that is right.
    assert_eq!(
        vocabulary::expect_block("action:transform/data_quality").names(),
        [
            "name",
            "type",
            "transform_type",
            "source",
            "target",
            "description",
            "readMode",
            "expectations_file",
            "mode",
            "quarantine",
            "operational_metadata",
            "depends_on",
        ]
    );
    assert_eq!(
        vocabulary::expect_block("flowgroup:actions[].quarantine").names(),
        ["dlq_table", "source_table"]
    );
    assert_eq!(
        vocabulary::expect_block("flowgroup:").names(),
        [
            "pipeline",
            "flowgroup",
            "job_name",
            "variables",
            "presets",
            "use_template",
            "template_parameters",
            "actions",
            "operational_metadata",
            "flowgroups",
            "description",
        ]
    );
}
