//! Definition and hover cases users met: a `use_template` shared by several
//! flowgroups, `dlq_table` on its key and on its value, a flowgroup that
//! lhp.yaml's `include` leaves out.

mod common;

use common::*;
use serde_json::{json, Value};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn use_template_goes_to_the_template_once() {
    let project = fixture_copy("showcase");
    let uri = project.uri("pipelines/bronze/customers.yaml");
    let mut client = TestClient::start();
    client.initialize(&project.root, json!({})).await;
    client.open(&project.path("pipelines/bronze/customers.yaml"), 1);
    client.diagnostics(&uri, |p| p["version"] == 1).await;
    // Two flowgroups of this file use `bronze_quarantined`, which lists a preset.
    let found = client
        .request("textDocument/definition", at(&uri, 2, 18))
        .await;
    assert_eq!(
        found,
        json!([{ "uri": project.uri("templates/bronze_quarantined.yaml"), "range": range((0, 0), (0, 0)) }])
    );
    assert!(client.shutdown_and_exit().await);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn dlq_table_hover_and_definition_on_key_and_value() {
    let project = fixture_copy("showcase");
    let rel = "pipelines/bronze/products.yaml";
    let uri = project.uri(rel);
    let mut client = TestClient::start();
    client.initialize(&project.root, json!({})).await;
    client.open(&project.path(rel), 1);
    client.diagnostics(&uri, |p| p["version"] == 1).await;
    // Line 21: `      dlq_table: ${catalog}.${ops_schema}.dlq`; the key at 6..15,
    // the last part of the value at 42.
    let mut targets = Vec::new();
    for character in [8, 43] {
        let hover = client
            .request("textDocument/hover", at(&uri, 20, character))
            .await;
        let text = hover["contents"]["value"].as_str().unwrap_or_default();
        assert!(
            text.contains("inbox") && text.contains("sql/dlq/create_dlq.sql"),
            "hover at 20:{character}: {hover}"
        );
        let found = client
            .request("textDocument/definition", at(&uri, 20, character))
            .await;
        assert!(
            found.as_array().is_some_and(|f| !f.is_empty()
                && f.iter()
                    .all(|l| l["uri"] == project.uri("sql/dlq/create_dlq.sql"))),
            "definition at 20:{character}: {found}"
        );
        targets.push(found);
    }
    assert_eq!(
        targets[0], targets[1],
        "key and value lead to the same tables"
    );
    assert!(client.shutdown_and_exit().await);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn definition_in_a_flowgroup_left_out_by_include_says_why() {
    let flowgroup = "pipeline: p\nflowgroup: f\nactions:\n  - name: load\n    type: load\n    source:\n      type: delta\n      database: raw.t\n    target: v_t\n";
    let project = TestProject::new(&[
        (
            "lhp.yaml",
            "name: demo\nversion: \"1.0\"\ninclude:\n  - \"pipelines/bronze/*.yaml\"\n",
        ),
        ("pipelines/bronze/kept.yaml", flowgroup),
        ("pipelines/other/left_out.yaml", flowgroup),
    ]);
    let uri = project.uri("pipelines/other/left_out.yaml");
    let mut client = TestClient::start();
    client.initialize(&project.root, json!({})).await;
    client.open(&project.path("pipelines/other/left_out.yaml"), 1);
    let found = client
        .request("textDocument/definition", at(&uri, 8, 14))
        .await;
    assert_eq!(found, Value::Null);
    let message = client
        .wait_for("a message saying why", |m| {
            m["method"] == "window/showMessage"
        })
        .await;
    let text = message["params"]["message"].as_str().unwrap();
    assert!(
        text.contains("include")
            && text.contains("pipelines/bronze/*.yaml")
            && text.contains("left_out.yaml"),
        "{text}"
    );
    // A file that is part of the project gets no such message.
    let kept = project.uri("pipelines/bronze/kept.yaml");
    client.open(&project.path("pipelines/bronze/kept.yaml"), 1);
    client.diagnostics(&kept, |p| p["version"] == 1).await;
    let reply = client
        .request_reply("textDocument/definition", at(&kept, 0, 2))
        .await;
    assert_eq!(reply["result"], Value::Null);
    assert!(client.shutdown_and_exit().await);
}
