//! Rename of a `${token}` (its keys in every substitutions file and every
//! use LHP substitutes) and of a rule's name in an expectations file,
//! through the protocol.

mod common;

use common::*;
use serde_json::{json, Value};

const DEV: &str = "\
dev:
  catalog: acme_dev
  landing: /Volumes/${catalog}/landing
global:
  region: eu
secrets:
  default_scope: vault
";

const PRD: &str = "\
prd:
  \"catalog\": acme_prd
  landing: \"/Volumes/{catalog}/landing\"
global:
  region: eu
  ops: ops
";

const TEMPLATE: &str = "\
name: bronze
parameters:
  - name: entity
    required: true
actions:
  - name: load_{{ entity }}
    type: load
    readMode: stream
    source:
      type: delta
      catalog: ${catalog}
      schema: ${raw_schema}
      table: \"{{ entity }}\"
    target: v_{{ entity }}_raw
";

const FLOWGROUP: &str = "\
pipeline: bronze
flowgroup: orders
use_template: bronze
template_parameters:
  entity: orders
actions:
  - name: shape_orders
    type: transform
    transform_type: sql
    source: v_orders_raw
    target: v_orders
    sql_path: sql/shape_orders.sql
  - name: orders_dq
    type: transform
    transform_type: data_quality
    source: v_orders
    target: v_orders_checked
    expectations_file: expectations/orders.yaml
  - name: write_orders
    type: write
    source: v_orders_checked
    write_target:
      type: streaming_table
      catalog: \"${catalog}\"
      schema: bronze
      table: orders
      comment: \"owner ${secret:catalog} in ${region} (${logical_env})\"
  # ${catalog} in a comment is no use
";

/// LHP substitutes the text of a `sql_path` file, comments included.
const SHAPE_SQL: &str = "\
-- ${catalog}: the environment's catalog
SELECT * FROM ${catalog}.raw.orders
";

/// DDL: dqlint resolves the tokens of table names, not of comments.
const DLQ_SQL: &str = "\
-- not a use: ${catalog} in a comment
CREATE TABLE ${catalog}.ops.orders_dlq (id STRING);
";

/// LHP does not substitute expectations files: this is SQL text.
const TOKEN_EXPECTATIONS: &str = "\
\"region = '${catalog}'\":
  action: warn
  name: region_is_catalog
";

/// LHP substitutes the metadata expressions of `lhp.yaml`, not its description.
const PROJECT: &str = "\
name: orders_demo
description: built on ${catalog}
operational_metadata:
  columns:
    _source_catalog:
      expression: F.lit('${catalog}')
";

fn token_project() -> TestProject {
    TestProject::new(&[
        ("lhp.yaml", PROJECT),
        ("substitutions/dev.yaml", DEV),
        ("substitutions/prd.yaml", PRD),
        ("templates/bronze.yaml", TEMPLATE),
        ("pipelines/bronze/orders.yaml", FLOWGROUP),
        ("sql/shape_orders.sql", SHAPE_SQL),
        ("sql/dlq.sql", DLQ_SQL),
        ("expectations/orders.yaml", TOKEN_EXPECTATIONS),
    ])
}

fn at(uri: &str, line: u32, character: u32) -> Value {
    json!({ "textDocument": { "uri": uri }, "position": { "line": line, "character": character } })
}

fn rename(uri: &str, line: u32, character: u32, name: &str) -> Value {
    let mut params = at(uri, line, character);
    params["newName"] = json!(name);
    params
}

/// An edit as (start, end, new text), positions as (line, character).
type Edit = ((u64, u64), (u64, u64), String);

/// Each file's edits, sorted.
fn edits_by_file(edit: &Value) -> Vec<(String, Vec<Edit>)> {
    let mut out: Vec<_> = edit["changes"]
        .as_object()
        .expect("changes")
        .iter()
        .map(|(uri, edits)| {
            let mut edits: Vec<_> = edits
                .as_array()
                .unwrap()
                .iter()
                .map(|e| {
                    let p = |v: &Value| {
                        (
                            v["line"].as_u64().unwrap(),
                            v["character"].as_u64().unwrap(),
                        )
                    };
                    (
                        p(&e["range"]["start"]),
                        p(&e["range"]["end"]),
                        e["newText"].as_str().unwrap().to_string(),
                    )
                })
                .collect();
            edits.sort();
            (uri.clone(), edits)
        })
        .collect();
    out.sort();
    out
}

fn error_of(reply: &Value) -> &str {
    reply["error"]["message"]
        .as_str()
        .unwrap_or_else(|| panic!("a refusal: {reply}"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rename_a_token_in_every_file_and_environment() {
    let project = token_project();
    let fg = project.uri("pipelines/bronze/orders.yaml");
    let prd = project.uri("substitutions/prd.yaml");
    let dev = project.uri("substitutions/dev.yaml");
    let mut client = TestClient::start();
    client.initialize(&project.root, json!({})).await;
    client.open(&project.path("pipelines/bronze/orders.yaml"), 1);
    client.diagnostics(&fg, |p| p["version"] == 1).await;

    let prepared = client
        .request("textDocument/prepareRename", at(&fg, 23, 20))
        .await;
    assert_eq!(
        prepared,
        json!({ "range": range((23, 18), (23, 25)), "placeholder": "catalog" })
    );

    let edit = client
        .request("textDocument/rename", rename(&fg, 23, 20, "lake"))
        .await;
    let lake = |line: u64, start: u64, end: u64| ((line, start), (line, end), "lake".to_string());
    let mut expected = vec![
        (fg.clone(), vec![lake(23, 18, 25)]),
        (
            project.uri("sql/dlq.sql"),
            // Not the comment: only the table name is resolved.
            vec![lake(1, 15, 22)],
        ),
        (
            project.uri("sql/shape_orders.sql"),
            vec![lake(0, 5, 12), lake(1, 16, 23)],
        ),
        // The key (written quoted) and the deprecated bare use.
        (prd.clone(), vec![lake(1, 3, 10), lake(2, 22, 29)]),
        // The key and the nested use in another token's value.
        (dev.clone(), vec![lake(1, 2, 9), lake(2, 22, 29)]),
        (project.uri("templates/bronze.yaml"), vec![lake(10, 17, 24)]),
        (project.uri("lhp.yaml"), vec![lake(5, 27, 34)]),
    ];
    expected.sort();
    // Neither the expectations file, the YAML comment, nor `${secret:catalog}`.
    assert_eq!(edits_by_file(&edit), expected, "{edit}");

    // From a definition and from a nested use: the same edit.
    let from_key = client
        .request("textDocument/rename", rename(&prd, 1, 5, "lake"))
        .await;
    assert_eq!(edits_by_file(&from_key), expected);
    let from_value = client
        .request("textDocument/rename", rename(&dev, 2, 24, "lake"))
        .await;
    assert_eq!(edits_by_file(&from_value), expected);

    // Collisions, wherever the other name is defined or used.
    for (new, why) in [
        ("region", "exists already (`substitutions/dev.yaml` line 5)"),
        ("ops", "exists already (`substitutions/prd.yaml` line 6)"),
        ("logical_env", "LHP defines `${logical_env}` itself"),
        (
            "raw_schema",
            "is used already (`templates/bronze.yaml` line 12)",
        ),
        ("lake-house", "not a token name"),
        ("yes", "would be read as a boolean"),
        ("", "not a token name"),
    ] {
        let reply = client
            .request_reply("textDocument/rename", rename(&fg, 23, 20, new))
            .await;
        assert!(error_of(&reply).contains(why), "{new}: {reply}");
    }

    // What is no token of the substitutions files.
    for (uri, line, character, why) in [
        (&fg, 26, 22, "secret reference"),
        (
            &project.uri("lhp.yaml"),
            1,
            25,
            "in no place dqlint knows LHP to substitute",
        ),
        (&fg, 26, 58, "LHP defines `${logical_env}` itself"),
        (
            &project.uri("expectations/orders.yaml"),
            0,
            14,
            "does not substitute tokens in expectations files",
        ),
    ] {
        let reply = client
            .request_reply("textDocument/prepareRename", at(uri, line, character))
            .await;
        assert!(error_of(&reply).contains(why), "{why}: {reply}");
    }
    assert!(client.shutdown_and_exit().await);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_token_written_through_an_escape_or_defined_nowhere_is_refused() {
    let project = TestProject::new(&[
        ("lhp.yaml", LHP_YAML),
        (
            "substitutions/dev.yaml",
            "dev:\n  catalog: main\n  landing: \"/Volumes/${cat\\u0061log}/x\"\n",
        ),
        (
            "pipelines/p/f.yaml",
            "pipeline: p\nflowgroup: f\nactions:\n  - name: a\n    type: load\n    source:\n      type: delta\n      catalog: ${catalog}\n      table: t\n    target: v\n    description: \"ids match [0-9]{8}\"\n",
        ),
    ]);
    let fg = project.uri("pipelines/p/f.yaml");
    let mut client = TestClient::start();
    client.initialize(&project.root, json!({})).await;
    client.open(&project.path("pipelines/p/f.yaml"), 1);
    client.diagnostics(&fg, |p| p["version"] == 1).await;
    let reply = client
        .request_reply("textDocument/prepareRename", at(&fg, 7, 20))
        .await;
    assert!(
        error_of(&reply).contains("escape sequence in `substitutions/dev.yaml` line 3"),
        "{reply}"
    );
    // LHP reads a regex quantifier as a bare token, but it names nothing.
    let reply = client
        .request_reply("textDocument/prepareRename", at(&fg, 10, 34))
        .await;
    assert!(
        error_of(&reply).contains("no substitutions file defines `{8}`"),
        "{reply}"
    );
    assert!(client.shutdown_and_exit().await);
}

const KEYED: &str = "\
order_id IS NOT NULL:
  action: drop
  name: valid_order_id
amount >= 0:
  action: drop
  name: 'non_negative_amount'
region IS NOT NULL:
  action: warn
";

const LISTED: &str = r#"{
  "version": "1.0",
  "expectations": [
    {"name": "customer_id_set", "constraint": "customer_id IS NOT NULL", "type": "expect_or_drop"},
    {"name": "email_set", "message": "email_set", "constraint": "email IS NOT NULL"}
  ]
}
"#;

const RULES_FLOWGROUP: &str = "\
pipeline: bronze
flowgroup: checks
actions:
  - name: load
    type: load
    readMode: stream
    source:
      type: delta
      catalog: main
      schema: raw
      table: orders
    target: v_raw
  - name: orders_dq
    type: transform
    transform_type: data_quality
    source: v_raw
    target: v_orders
    expectations_file: expectations/orders.yaml
  - name: customers_dq
    type: transform
    transform_type: data_quality
    source: v_raw
    target: v_customers
    expectations_file: expectations/customers.json
";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rename_a_rule_in_yaml_and_json_expectations() {
    let project = TestProject::new(&[
        ("lhp.yaml", LHP_YAML),
        ("substitutions/dev.yaml", "dev:\n  catalog: main\n"),
        ("pipelines/bronze/checks.yaml", RULES_FLOWGROUP),
        ("expectations/orders.yaml", KEYED),
        ("expectations/customers.json", LISTED),
    ]);
    let yaml = project.uri("expectations/orders.yaml");
    let json_uri = project.uri("expectations/customers.json");
    let mut client = TestClient::start();
    client.initialize(&project.root, json!({})).await;
    client.open(&project.path("expectations/orders.yaml"), 1);
    client.diagnostics(&yaml, |p| p["version"] == 1).await;

    // YAML, plain: the name's bytes; quoted when the new name needs it.
    let prepared = client
        .request("textDocument/prepareRename", at(&yaml, 2, 10))
        .await;
    assert_eq!(
        prepared,
        json!({ "range": range((2, 8), (2, 22)), "placeholder": "valid_order_id" })
    );
    let only = |edit: &Value, uri: &str, new: &str, r: Value| {
        assert_eq!(
            edit,
            &json!({ "changes": { uri: [{ "range": r, "newText": new }] } })
        );
    };
    let edit = client
        .request("textDocument/rename", rename(&yaml, 2, 10, "order_id_set"))
        .await;
    only(&edit, &yaml, "order_id_set", range((2, 8), (2, 22)));
    let edit = client
        .request("textDocument/rename", rename(&yaml, 2, 10, "ids: set"))
        .await;
    only(&edit, &yaml, "\"ids: set\"", range((2, 8), (2, 22)));
    // Single-quoted: inside the quotes, quotes doubled.
    let edit = client
        .request("textDocument/rename", rename(&yaml, 5, 12, "it's positive"))
        .await;
    only(&edit, &yaml, "it''s positive", range((5, 9), (5, 28)));

    // Another rule's name, written or defaulted (dqe names an unnamed
    // keyed rule by its expression), is refused; so is a blank name.
    for (new, why) in [
        (
            "non_negative_amount",
            "exists already in this file (line 4)",
        ),
        ("region IS NOT NULL", "exists already in this file (line 7)"),
        ("  ", "no rule name"),
        ("two\nlines", "no rule name"),
    ] {
        let reply = client
            .request_reply("textDocument/rename", rename(&yaml, 2, 10, new))
            .await;
        assert!(error_of(&reply).contains(why), "{new:?}: {reply}");
    }
    let reply = client
        .request_reply("textDocument/prepareRename", at(&yaml, 6, 3))
        .await;
    assert!(error_of(&reply).contains("has no `name`"), "{reply}");
    let reply = client
        .request_reply("textDocument/prepareRename", at(&yaml, 0, 3))
        .await;
    assert!(error_of(&reply).contains("rule's expression"), "{reply}");

    // JSON: inside the double quotes, JSON-escaped.
    let edit = client
        .request(
            "textDocument/rename",
            rename(&json_uri, 3, 20, "say \"id\""),
        )
        .await;
    only(&edit, &json_uri, "say \\\"id\\\"", range((3, 14), (3, 29)));
    // `name` and `message` holding one name are renamed together.
    let edit = client
        .request(
            "textDocument/rename",
            rename(&json_uri, 4, 16, "email_present"),
        )
        .await;
    let mut ranges: Vec<Value> = edit["changes"][&json_uri]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["range"].clone())
        .collect();
    ranges.sort_by_key(|r| r["start"]["character"].as_u64());
    assert_eq!(ranges, [range((4, 14), (4, 23)), range((4, 38), (4, 47))]);
    let reply = client
        .request_reply(
            "textDocument/rename",
            rename(&json_uri, 4, 16, "customer_id_set"),
        )
        .await;
    assert!(error_of(&reply).contains("exists already"), "{reply}");
    assert!(client.shutdown_and_exit().await);
}
