//! DQX checks files in the editor, through the protocol: hover on a check
//! function (signature, types, defaults, rule type, minimum DBR, DQX
//! version) and on `criticality`; completion of function names, missing
//! argument names, `bool` values and `criticality` values; DQX fixes as
//! code actions.

mod common;

use common::*;
use serde_json::{json, Value};

const CHECKS: &str = "\
- criticality: warn
  check:
    function: is_in_range
    arguments:
      column: amount
      
      allow_nulls: 
- criticality: 
  check:
    function: is_not
    arguments:
      column: id
";

const PATH: &str = "quality/orders.yml";

fn at(uri: &str, line: u32, character: u32) -> Value {
    json!({ "textDocument": { "uri": uri }, "position": { "line": line, "character": character } })
}

fn labels(items: &Value) -> Vec<String> {
    let items = items
        .as_array()
        .or_else(|| items["items"].as_array())
        .unwrap_or_else(|| panic!("a completion list: {items}"));
    items
        .iter()
        .map(|i| i["label"].as_str().unwrap().to_string())
        .collect()
}

fn hover_text(hover: &Value) -> String {
    hover["contents"]["value"]
        .as_str()
        .unwrap_or_else(|| panic!("a markdown hover: {hover}"))
        .to_string()
}

async fn started(project: &TestProject) -> TestClient {
    let mut client = TestClient::start();
    client
        .initialize(&project.root, json!({ "debounceMs": 10 }))
        .await;
    client.open(&project.path(PATH), 1);
    client
        .diagnostics(&project.uri(PATH), |p| p["version"] == 1)
        .await;
    client
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hover_shows_a_check_functions_signature_and_what_criticality_does() {
    let project = TestProject::new(&[(PATH, CHECKS)]);
    let uri = project.uri(PATH);
    let mut client = started(&project).await;

    let hover = client.request("textDocument/hover", at(&uri, 2, 16)).await;
    let text = hover_text(&hover);
    for part in [
        "**`is_in_range`**: DQX row rule (`DQRowRule`)",
        "is_in_range(column: str | Column, min_limit: ",
        "| `column` | `str \\| Column` | required |",
        "| `allow_nulls` | `bool` | `True` |",
        "Minimum Databricks Runtime: any supported.",
        "In DQX 0.16.0, 0.17.0 (checked against 0.17.0",
        "Policy kind: `range`",
    ] {
        assert!(text.contains(part), "`{part}` missing from:\n{text}");
    }
    assert_eq!(hover["range"], range((2, 14), (2, 25)));

    // An argument: its parameter.
    let hover = client.request("textDocument/hover", at(&uri, 6, 8)).await;
    let text = hover_text(&hover);
    assert!(
        text.starts_with(
            "`allow_nulls: bool` (optional, default `True`): a parameter of `is_in_range`"
        ),
        "{text}"
    );
    assert_eq!(hover["range"], range((6, 6), (6, 17)));

    let hover = client.request("textDocument/hover", at(&uri, 0, 16)).await;
    let text = hover_text(&hover);
    assert!(
        text.contains("- `warn` (this check): rows failing"),
        "{text}"
    );
    assert!(text.contains("- `error`: rows failing"), "{text}");
    assert!(client.shutdown_and_exit().await);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn completion_offers_functions_missing_arguments_and_values() {
    let project = TestProject::new(&[(PATH, CHECKS)]);
    let uri = project.uri(PATH);
    let mut client = started(&project).await;

    // `function: is_not|`: the functions so named, row rules first.
    let functions = client
        .request("textDocument/completion", at(&uri, 9, 20))
        .await;
    let names = labels(&functions);
    assert!(names.contains(&"is_not_null".to_string()), "{names:?}");
    assert!(names.iter().all(|n| n.starts_with("is_not")), "{names:?}");
    let first = &functions.as_array().unwrap()[0];
    assert_eq!(first["kind"], 3, "a function: {first}");
    assert_eq!(first["textEdit"]["range"], range((9, 14), (9, 20)));
    assert!(first["detail"].as_str().unwrap().starts_with("row rule: "));

    // A blank line in `arguments:` of is_in_range: what is not written yet.
    let arguments = client
        .request("textDocument/completion", at(&uri, 5, 6))
        .await;
    assert_eq!(labels(&arguments), ["min_limit", "max_limit"]);
    assert_eq!(arguments[0]["textEdit"]["newText"], "min_limit: ");

    // `allow_nulls: |` (a bool): true / false.
    let values = client
        .request("textDocument/completion", at(&uri, 6, 19))
        .await;
    assert_eq!(labels(&values), ["true", "false"]);

    // `criticality: |`.
    let criticality = client
        .request("textDocument/completion", at(&uri, 7, 15))
        .await;
    assert_eq!(labels(&criticality), ["error", "warn"]);
    assert!(client.shutdown_and_exit().await);
}

/// DQX findings with a fix become quick fixes (`criticality: Error`).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn dqx_fixes_are_code_actions() {
    let text = "- criticality: Error\n  check:\n    function: is_not_null\n    arguments:\n      column: id\n";
    let project = TestProject::new(&[(PATH, text)]);
    let uri = project.uri(PATH);
    let mut client = TestClient::start();
    client
        .initialize(&project.root, json!({ "debounceMs": 10 }))
        .await;
    client.open(&project.path(PATH), 1);
    let published = client.diagnostics(&uri, |p| p["version"] == 1).await;
    let finding = diagnostic(&published, "DQ806").clone();
    let actions = client
        .request(
            "textDocument/codeAction",
            json!({
                "textDocument": { "uri": uri },
                "range": finding["range"],
                "context": { "diagnostics": [finding] }
            }),
        )
        .await;
    let fix = actions
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["kind"] == "quickfix")
        .unwrap_or_else(|| panic!("a quick fix: {actions:#}"));
    let change = &fix["edit"]["documentChanges"][0];
    assert_eq!(change["textDocument"]["uri"], uri.as_str(), "{fix:#}");
    assert_eq!(change["edits"][0]["newText"], "error", "{fix:#}");
    assert_eq!(change["edits"][0]["range"], range((0, 15), (0, 20)));
    assert!(client.shutdown_and_exit().await);
}

/// At a key position: the keys of a check item, or of its `check:` block,
/// that are not written yet.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn completion_offers_the_item_and_check_keys_not_yet_present() {
    let text = "- criticality: warn\n  \n  check:\n    function: is_unique\n    arguments:\n      columns: [id]\n    \n";
    let project = TestProject::new(&[(PATH, text)]);
    let uri = project.uri(PATH);
    let mut client = started(&project).await;
    let item = client
        .request("textDocument/completion", at(&uri, 1, 2))
        .await;
    assert_eq!(
        labels(&item),
        ["name", "filter", "user_metadata", "message_expr"]
    );
    let check = client
        .request("textDocument/completion", at(&uri, 6, 4))
        .await;
    assert_eq!(labels(&check), ["for_each_column"]);
    assert_eq!(check[0]["textEdit"]["newText"], "for_each_column:");
    assert!(client.shutdown_and_exit().await);
}
