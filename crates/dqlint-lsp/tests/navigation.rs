//! Folding ranges, document links, inlay hints and workspace symbols,
//! through the protocol.

mod common;

use common::*;
use serde_json::{json, Value};

const FLOWGROUP_PATH: &str = "pipelines/bronze/orders.yaml";

fn doc(uri: &str) -> Value {
    json!({ "textDocument": { "uri": uri } })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn folding_links_and_hints_in_a_flowgroup() {
    let project = orders_project();
    let uri = project.uri(FLOWGROUP_PATH);
    let mut client = TestClient::start();
    let result = client.initialize(&project.root, json!({})).await;
    let caps = &result["capabilities"];
    assert_eq!(caps["foldingRangeProvider"], true, "{caps}");
    assert_eq!(caps["inlayHintProvider"], true);
    assert_eq!(caps["workspaceSymbolProvider"], true);
    assert!(caps["documentLinkProvider"].is_object());
    client.open(&project.path(FLOWGROUP_PATH), 1);
    client.diagnostics(&uri, |p| p["version"] == 1).await;

    let folds = client.request("textDocument/foldingRange", doc(&uri)).await;
    let spans: Vec<(u64, u64)> = folds
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                f["startLine"].as_u64().unwrap(),
                f["endLine"].as_u64().unwrap(),
            )
        })
        .collect();
    for expected in [(3, 28), (4, 11), (7, 10), (13, 19), (21, 28), (24, 28)] {
        assert!(spans.contains(&expected), "{expected:?} in {spans:?}");
    }

    let links = client.request("textDocument/documentLink", doc(&uri)).await;
    assert_eq!(
        links,
        json!([{
            "range": range((18, 23), (18, 55)),
            "target": project.uri("expectations/orders_quality.yaml"),
            "tooltip": "expectations/orders_quality.yaml"
        }])
    );

    let mut params = doc(&uri);
    params["range"] = range((0, 0), (29, 0));
    let hints = client.request("textDocument/inlayHint", params).await;
    let hints = hints.as_array().unwrap();
    let labels: Vec<(&Value, &str)> = hints
        .iter()
        .map(|h| (&h["position"], h["label"].as_str().unwrap()))
        .collect();
    assert!(
        labels.contains(&(&json!({ "line": 26, "character": 25 }), "= acme_dev")),
        "{labels:?}"
    );
    // After `{landing}`, in UTF-16 units (the path has `é` and an emoji).
    assert!(
        labels.contains(&(
            &json!({ "line": 9, "character": 42 }),
            "= /Volumes/acme_dev/landing/files"
        )),
        "{labels:?}"
    );
    let mut params = doc(&uri);
    params["range"] = range((0, 0), (20, 0));
    let fewer = client.request("textDocument/inlayHint", params).await;
    assert_eq!(
        fewer.as_array().unwrap().len(),
        1,
        "only the hints in range: {fewer}"
    );
    assert!(client.shutdown_and_exit().await);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn workspace_symbols_name_flowgroups_actions_views_and_files() {
    let project = orders_project();
    let uri = project.uri(FLOWGROUP_PATH);
    let mut client = TestClient::start();
    client.initialize(&project.root, json!({})).await;
    client.open(&project.path(FLOWGROUP_PATH), 1);
    client.diagnostics(&uri, |p| p["version"] == 1).await;
    let all = client
        .request("workspace/symbol", json!({ "query": "" }))
        .await;
    let names: Vec<(&str, u64)> = all
        .as_array()
        .unwrap()
        .iter()
        .map(|s| (s["name"].as_str().unwrap(), s["kind"].as_u64().unwrap()))
        .collect();
    // LSP SymbolKind: 1 file, 2 module, 12 function, 13 variable.
    for expected in [
        ("orders", 2),
        ("load_orders", 12),
        ("orders_dq", 12),
        ("v_orders_validated", 13),
        ("expectations/orders_quality.yaml", 1),
    ] {
        assert!(names.contains(&expected), "{expected:?} in {names:?}");
    }
    let found = client
        .request("workspace/symbol", json!({ "query": "ORDERS_DQ" }))
        .await;
    assert_eq!(
        found,
        json!([{
            "name": "orders_dq",
            "kind": 12,
            "containerName": "orders",
            "location": { "uri": uri, "range": range((13, 10), (13, 19)) }
        }])
    );
    assert!(client.shutdown_and_exit().await);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn templates_and_presets_link_to_their_files() {
    let project = fixture_copy("showcase");
    let rel = "pipelines/bronze/customers.yaml";
    let uri = project.uri(rel);
    let mut client = TestClient::start();
    client.initialize(&project.root, json!({})).await;
    client.open(&project.path(rel), 1);
    client.diagnostics(&uri, |p| p["version"] == 1).await;
    let links = client.request("textDocument/documentLink", doc(&uri)).await;
    let links = links.as_array().unwrap();
    assert!(
        links.iter().any(|l| l["range"] == range((2, 14), (2, 32))
            && l["target"] == project.uri("templates/bronze_quarantined.yaml")),
        "{links:?}"
    );
    assert!(client.shutdown_and_exit().await);
}
