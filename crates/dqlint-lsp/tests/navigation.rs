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

fn edits_of<'a>(edit: &'a Value, uri: &str) -> Vec<&'a Value> {
    edit["changes"][uri]
        .as_array()
        .map(|e| e.iter().collect())
        .unwrap_or_default()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rename_a_template_parameter_everywhere_it_is_written() {
    let project = fixture_copy("showcase");
    let rel = "pipelines/bronze/customers.yaml";
    let uri = project.uri(rel);
    let template = project.uri("templates/bronze_quarantined.yaml");
    let mut client = TestClient::start();
    let result = client.initialize(&project.root, json!({})).await;
    assert_eq!(
        result["capabilities"]["renameProvider"]["prepareProvider"],
        true
    );
    client.open(&project.path(rel), 1);
    client.diagnostics(&uri, |p| p["version"] == 1).await;
    let at = |line: u32, character: u32| json!({ "textDocument": { "uri": uri }, "position": { "line": line, "character": character } });

    let prepared = client.request("textDocument/prepareRename", at(6, 8)).await;
    assert_eq!(
        prepared,
        json!({ "range": range((6, 6), (6, 12)), "placeholder": "entity" })
    );
    let mut params = at(6, 8);
    params["newName"] = json!("feed");
    let edit = client.request("textDocument/rename", params).await;
    let here: Vec<_> = edits_of(&edit, &uri)
        .iter()
        .map(|e| e["range"].clone())
        .collect();
    assert_eq!(here, [range((6, 6), (6, 12)), range((10, 6), (10, 12))]);
    let text = std::fs::read_to_string(project.path("templates/bronze_quarantined.yaml")).unwrap();
    let uses = text.matches("{{ entity }}").count();
    let there = edits_of(&edit, &template);
    assert_eq!(
        there.len(),
        uses + 1,
        "the parameter and its {uses} uses: {edit}"
    );
    assert!(there.contains(&&json!({ "range": range((6, 10), (6, 16)), "newText": "feed" })));
    assert!(there.contains(&&json!({ "range": range((16, 18), (16, 24)), "newText": "feed" })));

    // An existing parameter's name is refused, and so is a place that is no name.
    let mut params = at(6, 8);
    params["newName"] = json!("table");
    let reply = client.request_reply("textDocument/rename", params).await;
    assert!(
        reply["error"]["message"]
            .as_str()
            .unwrap()
            .contains("exists already"),
        "{reply}"
    );
    let reply = client
        .request_reply("textDocument/prepareRename", at(1, 2))
        .await;
    assert!(
        reply["error"]["message"]
            .as_str()
            .unwrap()
            .contains("renames template parameters"),
        "{reply}"
    );
    assert!(client.shutdown_and_exit().await);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rename_a_view_and_an_action() {
    let project = orders_project();
    let uri = project.uri(FLOWGROUP_PATH);
    let mut client = TestClient::start();
    client.initialize(&project.root, json!({})).await;
    client.open(&project.path(FLOWGROUP_PATH), 1);
    client.diagnostics(&uri, |p| p["version"] == 1).await;
    let rename = |line: u32, character: u32, name: &str| json!({ "textDocument": { "uri": uri }, "position": { "line": line, "character": character }, "newName": name });

    // From the source that reads it: the target and the source.
    let edit = client
        .request("textDocument/rename", rename(16, 14, "v_raw"))
        .await;
    let ranges: Vec<_> = edits_of(&edit, &uri)
        .iter()
        .map(|e| e["range"].clone())
        .collect();
    assert_eq!(
        ranges,
        [range((11, 12), (11, 24)), range((16, 12), (16, 24))]
    );
    let reply = client
        .request_reply("textDocument/rename", rename(16, 14, "v_orders_validated"))
        .await;
    assert!(
        reply["error"]["message"]
            .as_str()
            .unwrap()
            .contains("exists already"),
        "{reply}"
    );

    let edit = client
        .request("textDocument/rename", rename(13, 12, "dq_orders"))
        .await;
    assert_eq!(
        edits_of(&edit, &uri),
        [&json!({ "range": range((13, 10), (13, 19)), "newText": "dq_orders" })]
    );
    let reply = client
        .request_reply("textDocument/rename", rename(13, 12, "load_orders"))
        .await;
    assert!(reply["error"].is_object(), "{reply}");
    let reply = client
        .request_reply("textDocument/rename", rename(13, 12, "has space"))
        .await;
    assert!(
        reply["error"]["message"]
            .as_str()
            .unwrap()
            .contains("not a name"),
        "{reply}"
    );
    assert!(client.shutdown_and_exit().await);
}
