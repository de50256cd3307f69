//! Completion only where a dialect claims the file.

mod common;

use common::*;
use serde_json::{json, Value};

const FLOWGROUP_PATH: &str = "pipelines/bronze/orders.yaml";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn nothing_in_files_no_dialect_claims() {
    let project = orders_project();
    let typed = "services:\n  app:\n    mo\n";
    let workflow = project.path(".github/workflows/ci.yml");
    let compose = project.path("docker-compose.yml");
    let outside_dir = tempfile::tempdir().unwrap();
    let outside = outside_dir.path().join("pipelines.yaml");
    for file in [&workflow, &compose, &outside] {
        std::fs::create_dir_all(file.parent().unwrap()).unwrap();
        std::fs::write(file, typed).unwrap();
    }
    let mut client = TestClient::start();
    client.initialize(&project.root, json!({})).await;
    // The project's flowgroup does get completions at a key position.
    client.open(&project.path(FLOWGROUP_PATH), 1);
    client
        .diagnostics(&project.uri(FLOWGROUP_PATH), |p| p["version"] == 1)
        .await;
    let values = client
        .request(
            "textDocument/completion",
            json!({ "textDocument": { "uri": project.uri(FLOWGROUP_PATH) }, "position": { "line": 19, "character": 14 } }),
        )
        .await;
    assert!(values.as_array().is_some_and(|v| !v.is_empty()), "{values}");
    for file in [&workflow, &compose, &outside] {
        client.open(file, 1);
        let reply = client
            .request_reply(
                "textDocument/completion",
                json!({ "textDocument": { "uri": uri(file) }, "position": { "line": 2, "character": 6 } }),
            )
            .await;
        assert_eq!(reply["result"], Value::Null, "{}: {reply}", file.display());
    }
    assert!(client.shutdown_and_exit().await);
}
