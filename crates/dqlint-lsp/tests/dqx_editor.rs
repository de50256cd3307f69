//! DQX checks files in the editor, through the protocol: hover on a check
//! function (signature, types, defaults, rule type, minimum DBR, DQX
//! version) and on `criticality`; completion of function names, missing
//! argument names, `bool` values and `criticality` values; DQX fixes as
//! code actions.

mod common;

use common::*;
use serde_json::json;

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

const JSON_PATH: &str = "quality/orders.json";

/// The whole buffer replaced, as a client does without ranges.
fn replace_text(client: &TestClient, uri: &str, version: i32, text: &str) {
    client.notify(
        "textDocument/didChange",
        json!({
            "textDocument": { "uri": uri, "version": version },
            "contentChanges": [{ "text": text }]
        }),
    );
}

/// The line and UTF-16 column of the first `|` in `text`, and the text
/// without it.
fn cursor(text: &str) -> (String, u32, u32) {
    let at = text.find('|').unwrap();
    let line = text[..at].matches('\n').count() as u32;
    let column = text[..at]
        .rsplit('\n')
        .next()
        .unwrap()
        .encode_utf16()
        .count() as u32;
    (text.replacen('|', "", 1), line, column)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn json_checks_complete_keys_functions_arguments_and_values_and_hover() {
    let (text, line, column) = cursor(
        "[\n  {\n    \"criticality\": \"error\",\n    \"check\": {\n      \"function\": \"is_in_r|ange\",\n      \"arguments\": {\"column\": \"amount\", \"min_limit\": 1, \"max_limit\": 9}\n    }\n  }\n]\n",
    );
    let project = TestProject::new(&[(PATH, CHECKS), (JSON_PATH, &text)]);
    let uri = project.uri(JSON_PATH);
    let mut client = started(&project).await;
    client.open(&project.path(JSON_PATH), 1);

    // Inside the quotes: the bare name replaces what is typed.
    let functions = client
        .request("textDocument/completion", at(&uri, line, column))
        .await;
    assert_eq!(labels(&functions), ["is_in_range"]);
    let edit = &functions.as_array().unwrap()[0]["textEdit"];
    assert_eq!(edit["newText"], "is_in_range");
    assert_eq!(edit["range"], range((line, column - 7), (line, column)));

    // Hover on the written function name.
    let hover = client
        .request("textDocument/hover", at(&uri, line, column - 3))
        .await;
    assert!(
        hover_text(&hover).contains("**`is_in_range`**: DQX row rule"),
        "{hover}"
    );

    // A key of the arguments, outside quotes: quoted, and not `column` again.
    let (typed, line, column) = cursor(
        "[{\"check\": {\"function\": \"is_in_range\", \"arguments\": {\"column\": \"amount\", |}}}]\n",
    );
    replace_text(&client, &uri, 2, &typed);
    let args = client
        .request("textDocument/completion", at(&uri, line, column))
        .await;
    let names = labels(&args);
    assert!(names.contains(&"min_limit".to_string()), "{names:?}");
    assert!(!names.contains(&"column".to_string()), "{names:?}");
    let min = args
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["label"] == "min_limit")
        .unwrap();
    assert_eq!(min["textEdit"]["newText"], "\"min_limit\": ");

    // Item keys, and criticality values.
    let (typed, line, column) = cursor("[{\"check\": {}, \"cr|\"}]\n");
    replace_text(&client, &uri, 3, &typed);
    let keys = client
        .request("textDocument/completion", at(&uri, line, column))
        .await;
    assert_eq!(labels(&keys), ["criticality"]);
    let (typed, line, column) = cursor("[{\"criticality\": |}]\n");
    replace_text(&client, &uri, 4, &typed);
    let values = client
        .request("textDocument/completion", at(&uri, line, column))
        .await;
    assert_eq!(labels(&values), ["error", "warn"]);
    assert_eq!(
        values.as_array().unwrap()[0]["textEdit"]["newText"],
        "\"error\""
    );
    assert!(client.shutdown_and_exit().await);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn enumerated_arguments_complete_their_values() {
    let text = "- check:\n    function: has_valid_string_case\n    arguments:\n      column: name\n      case: \n- check:\n    function: is_aggr_not_greater_than\n    arguments:\n      column: amount\n      aggr_type: st\n";
    let project = TestProject::new(&[(PATH, text)]);
    let uri = project.uri(PATH);
    let mut client = started(&project).await;
    let cases = client
        .request("textDocument/completion", at(&uri, 4, 12))
        .await;
    assert_eq!(labels(&cases), ["lower", "sentence", "title", "upper"]);
    let aggregates = client
        .request("textDocument/completion", at(&uri, 9, 19))
        .await;
    assert_eq!(labels(&aggregates), ["stddev", "stddev_pop", "stddev_samp"]);
    assert_eq!(
        aggregates.as_array().unwrap()[0]["textEdit"]["range"],
        range((9, 17), (9, 19))
    );
    assert!(client.shutdown_and_exit().await);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn completion_and_hover_follow_the_configured_dqx_version_and_extras() {
    let text = "- check:\n    function: has_num\n- check:\n    function: is_in_range\n    arguments: {column: a, min_limit: 1, max_limit: 2}\n- check:\n    function: does_not_contain_pi\n";
    let project = TestProject::new(&[
        (PATH, text),
        ("dqlint.toml", "[dqx]\nversion = \"0.16.0\"\n"),
    ]);
    let uri = project.uri(PATH);
    let mut client = started(&project).await;
    // `has_num_decimal_places` is 0.17 only.
    let none = client
        .request("textDocument/completion", at(&uri, 1, 21))
        .await;
    assert!(none.is_null() || labels(&none).is_empty(), "{none}");
    let hover = client.request("textDocument/hover", at(&uri, 3, 16)).await;
    assert!(
        hover_text(&hover).contains("checked against 0.16.0"),
        "{hover}"
    );
    assert!(client.shutdown_and_exit().await);

    // The `pii` extra's functions only when it is installed.
    let project = TestProject::new(&[(PATH, text), ("dqlint.toml", "[dqx]\nextras = [\"pii\"]\n")]);
    let uri = project.uri(PATH);
    let mut client = started(&project).await;
    let pii = client
        .request("textDocument/completion", at(&uri, 6, 33))
        .await;
    assert_eq!(labels(&pii), ["does_not_contain_pii"]);
    assert!(client.shutdown_and_exit().await);
    let project = TestProject::new(&[(PATH, text)]);
    let uri = project.uri(PATH);
    let mut client = started(&project).await;
    let none = client
        .request("textDocument/completion", at(&uri, 6, 33))
        .await;
    assert!(none.is_null() || labels(&none).is_empty(), "{none}");
    assert!(client.shutdown_and_exit().await);
}
