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

fn labels(reply: &Value) -> Vec<String> {
    reply
        .as_array()
        .unwrap_or_else(|| panic!("a completion list: {reply}"))
        .iter()
        .map(|i| i["label"].as_str().unwrap().to_string())
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn keys_and_values_of_the_block_at_the_cursor_in_every_lhp_file() {
    let project = orders_project();
    let uri = project.uri(FLOWGROUP_PATH);
    let mut client = TestClient::start();
    client.initialize(&project.root, json!({})).await;
    client.open(&project.path(FLOWGROUP_PATH), 1);
    client.diagnostics(&uri, |p| p["version"] == 1).await;
    let at = |uri: &str, line: u32, character: u32| json!({ "textDocument": { "uri": uri }, "position": { "line": line, "character": character } });

    // In `write_target:` of a streaming_table: its keys, not those present.
    let keys = labels(
        &client
            .request("textDocument/completion", at(&uri, 28, 6))
            .await,
    );
    assert!(keys.contains(&"cluster_columns".to_string()), "{keys:?}");
    for absent in [
        "type",
        "catalog",
        "schema",
        "sink_type",
        "expectations_file",
    ] {
        assert!(!keys.contains(&absent.to_string()), "{absent}: {keys:?}");
    }
    // In the cloudfiles source: a cloudfiles key, no delta one.
    let keys = labels(
        &client
            .request("textDocument/completion", at(&uri, 10, 6))
            .await,
    );
    assert!(
        keys.contains(&"schema_location".to_string())
            && !keys.contains(&"where_clause".to_string()),
        "{keys:?}"
    );
    // `format:`'s values.
    let values = labels(
        &client
            .request("textDocument/completion", at(&uri, 10, 14))
            .await,
    );
    assert!(values.contains(&"parquet".to_string()), "{values:?}");

    // Hover on a write_target key and on a value.
    let hover = client.request("textDocument/hover", at(&uri, 25, 8)).await;
    let text = hover["contents"]["value"].as_str().unwrap();
    assert!(
        text.starts_with("`type`") && text.contains("`streaming_table`"),
        "{text}"
    );
    let hover = client.request("textDocument/hover", at(&uri, 25, 14)).await;
    assert!(
        hover["contents"]["value"]
            .as_str()
            .unwrap()
            .starts_with("`type: streaming_table`"),
        "{hover}"
    );
    assert_eq!(hover["range"], range((25, 12), (25, 27)));

    // lhp.yaml and a substitutions file are LHP files too.
    let lhp = project.uri("lhp.yaml");
    client.open(&project.path("lhp.yaml"), 1);
    let hover = client.request("textDocument/hover", at(&lhp, 0, 1)).await;
    assert!(
        hover["contents"]["value"]
            .as_str()
            .unwrap()
            .starts_with("`name`"),
        "{hover}"
    );
    let keys = labels(
        &client
            .request("textDocument/completion", at(&lhp, 2, 0))
            .await,
    );
    assert!(
        keys.contains(&"include".to_string()) && !keys.contains(&"name".to_string()),
        "{keys:?}"
    );
    let subst = project.uri("substitutions/dev.yaml");
    client.open(&project.path("substitutions/dev.yaml"), 1);
    let hover = client.request("textDocument/hover", at(&subst, 1, 3)).await;
    assert!(
        hover["contents"]["value"]
            .as_str()
            .unwrap()
            .starts_with("`catalog`"),
        "{hover}"
    );
    assert!(client.shutdown_and_exit().await);
}

/// `expectations_file:` offers the project's YAML and JSON files from the
/// load's listing: in a sub-folder at most four deep, not in the LHP layout
/// folders, hidden folders or folders no dialect reads (a virtualenv).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn expectations_file_offers_the_projects_rule_files() {
    let project = TestProject::new(&[
        ("lhp.yaml", LHP_YAML),
        ("substitutions/dev.yaml", SUBSTITUTIONS),
        ("expectations/orders_quality.yaml", EXPECTATIONS),
        ("pipelines/bronze/orders.yaml", FLOWGROUP),
        ("quality/a/b/c/rules.json", "{}\n"),
        ("quality/a/b/c/d/too_deep.yaml", "{}\n"),
        ("top_level.yaml", "{}\n"),
        (".hidden/rules.yaml", "{}\n"),
        ("quality/.drafts/rules.yaml", "{}\n"),
        ("templates/t.yaml", "name: t\n"),
        ("venv/lib/site.yaml", "{}\n"),
        ("expectations/notes.txt", "not a rule file\n"),
    ]);
    let uri = project.uri(FLOWGROUP_PATH);
    let mut client = TestClient::start();
    client.initialize(&project.root, json!({})).await;
    client.open(&project.path(FLOWGROUP_PATH), 1);
    client.diagnostics(&uri, |p| p["version"] == 1).await;
    let offered = labels(
        &client
            .request(
                "textDocument/completion",
                json!({ "textDocument": { "uri": uri }, "position": { "line": 18, "character": 23 } }),
            )
            .await,
    );
    assert_eq!(
        offered,
        [
            "expectations/orders_quality.yaml",
            "quality/a/b/c/rules.json"
        ],
        "{offered:?}"
    );
    assert!(client.shutdown_and_exit().await);
}
