//! Semantic tokens through the protocol: the SQL of expectation rules and
//! of DQX checks is highlighted as SQL, at the exact characters, and
//! nothing else is.

mod common;

use common::*;
use serde_json::{json, Value};

const RULES: &str = "\
order_id IS NOT NULL:
  action: drop
  name: valid_order_id
\"upper(status) IN ('NEW', 'PAID')\":
  action: warn
  name: known_status
";

const CHECKS: &str = "\
- criticality: warn
  filter: amount > 10 AND region = 'EU'
  check:
    function: is_not_null
    arguments:
      column: id
";

/// `(line, column, text, type)` per token, decoded from the relative form.
fn decoded(reply: &Value, legend: &[String], text: &str) -> Vec<(u32, u32, String, String)> {
    let data: Vec<u32> = reply["data"]
        .as_array()
        .unwrap_or_else(|| panic!("semantic tokens: {reply}"))
        .iter()
        .map(|v| v.as_u64().unwrap() as u32)
        .collect();
    let lines: Vec<&str> = text.split('\n').collect();
    let (mut line, mut column) = (0u32, 0u32);
    data.chunks(5)
        .map(|t| {
            if t[0] > 0 {
                column = 0;
            }
            line += t[0];
            column += t[1];
            let written: String = lines[line as usize]
                .chars()
                .skip(column as usize)
                .take(t[2] as usize)
                .collect();
            (line, column, written, legend[t[3] as usize].clone())
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_sql_of_rules_and_dqx_checks_is_highlighted() {
    let project = TestProject::new(&[
        ("lhp.yaml", LHP_YAML),
        ("substitutions/dev.yaml", SUBSTITUTIONS),
        ("expectations/orders_quality.yaml", RULES),
        ("pipelines/bronze/orders.yaml", FLOWGROUP),
        ("quality/orders_checks.yml", CHECKS),
    ]);
    let mut client = TestClient::start();
    let init = client
        .initialize(&project.root, json!({ "debounceMs": 10 }))
        .await;
    let provider = &init["capabilities"]["semanticTokensProvider"];
    assert_eq!(provider["full"], true, "{init}");
    let legend: Vec<String> = provider["legend"]["tokenTypes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t.as_str().unwrap().to_string())
        .collect();

    let uri = project.uri("expectations/orders_quality.yaml");
    let reply = client
        .request(
            "textDocument/semanticTokens/full",
            json!({ "textDocument": { "uri": uri } }),
        )
        .await;
    let tokens = decoded(&reply, &legend, RULES);
    let t = |line: u32, column: u32, text: &str, kind: &str| {
        (line, column, text.to_string(), kind.to_string())
    };
    assert_eq!(
        tokens,
        [
            t(0, 0, "order_id", "variable"),
            t(0, 9, "IS", "keyword"),
            t(0, 12, "NOT", "keyword"),
            t(0, 16, "NULL", "keyword"),
            t(3, 1, "upper", "function"),
            t(3, 7, "status", "variable"),
            t(3, 15, "IN", "keyword"),
            t(3, 19, "'NEW'", "string"),
            t(3, 26, "'PAID'", "string"),
        ]
    );

    let uri = project.uri("quality/orders_checks.yml");
    let reply = client
        .request(
            "textDocument/semanticTokens/full",
            json!({ "textDocument": { "uri": uri } }),
        )
        .await;
    let tokens = decoded(&reply, &legend, CHECKS);
    assert_eq!(
        tokens,
        [
            t(1, 10, "amount", "variable"),
            t(1, 17, ">", "operator"),
            t(1, 19, "10", "number"),
            t(1, 22, "AND", "keyword"),
            t(1, 26, "region", "variable"),
            t(1, 33, "=", "operator"),
            t(1, 35, "'EU'", "string"),
        ]
    );

    // A flowgroup has no SQL of ours: nothing.
    let uri = project.uri("pipelines/bronze/orders.yaml");
    let reply = client
        .request(
            "textDocument/semanticTokens/full",
            json!({ "textDocument": { "uri": uri } }),
        )
        .await;
    assert_eq!(reply["data"], json!([]), "{reply}");
    assert!(client.shutdown_and_exit().await);
}
