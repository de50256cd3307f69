//! The server as an editor sees it: JSON-RPC frames in, frames out.

mod common;

use std::time::Duration;

use common::*;
use serde_json::{json, Value};

const FLOWGROUP_PATH: &str = "pipelines/bronze/orders.yaml";
const OPTIONS: fn() -> Value = || json!({ "debounceMs": 10 });

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn initialize_advertises_the_capabilities() {
    let project = orders_project();
    let mut client = TestClient::start();
    let result = client.initialize(&project.root, OPTIONS()).await;
    let caps = &result["capabilities"];
    assert_eq!(
        caps["textDocumentSync"]["change"], 2,
        "incremental sync: {caps:#}"
    );
    assert_eq!(caps["textDocumentSync"]["openClose"], true);
    assert_eq!(caps["hoverProvider"], true);
    assert_eq!(caps["documentSymbolProvider"], true);
    assert_eq!(caps["definitionProvider"], true);
    assert_eq!(caps["referencesProvider"], true);
    assert_eq!(
        caps["completionProvider"]["triggerCharacters"],
        json!(["{", ":"])
    );
    assert_eq!(
        caps["codeActionProvider"]["codeActionKinds"],
        json!(["quickfix", "source.fixAll.dqlint"])
    );
    assert_eq!(result["serverInfo"]["name"], "dqlint");
    // File watching is registered dynamically.
    client
        .wait_for("client/registerCapability", |m| {
            m["method"] == "client/registerCapability"
        })
        .await;
    assert!(
        client.shutdown_and_exit().await,
        "shutdown was received before exit"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn diagnostics_follow_edits_with_utf16_positions() {
    let project = orders_project();
    let uri = project.uri(FLOWGROUP_PATH);
    let mut client = TestClient::start();
    client.initialize(&project.root, OPTIONS()).await;
    client.open(&project.path(FLOWGROUP_PATH), 1);

    let published = client.diagnostics(&uri, |p| p["version"] == 1).await;
    assert_eq!(codes(&published), ["DQ105", "DQ603"]);
    let dq603 = diagnostic(&published, "DQ603");
    // `      path: "/Volumes/données/😀/{landing}`: 32 characters before `{`,
    // 33 UTF-16 units (the emoji counts twice).
    assert_eq!(dq603["range"], range((9, 33), (9, 42)));
    assert_eq!(dq603["severity"], 2);
    assert_eq!(dq603["source"], "dqlint");
    assert_eq!(dq603["tags"], json!([2]), "deprecated syntax is tagged");
    let dq105 = diagnostic(&published, "DQ105");
    assert_eq!(dq105["range"], range((19, 14), (19, 19)));
    assert_eq!(dq105["severity"], 1);
    assert!(dq105["codeDescription"]["href"]
        .as_str()
        .unwrap()
        .contains("DQ105"));
    assert!(dq105["message"]
        .as_str()
        .unwrap()
        .contains("`readMode` is `batch`"));

    // Mid-edit: `readMode: batch` loses its colon -> DQ001, and the server
    // keeps serving.
    client.change(&project.path(FLOWGROUP_PATH), 2, (19, 12), (19, 13), "");
    let broken = client.diagnostics(&uri, |p| p["version"] == 2).await;
    assert_eq!(codes(&broken), ["DQ001", "DQ603"]);
    assert_eq!(
        diagnostic(&broken, "DQ001")["range"]["start"],
        json!({ "line": 19, "character": 4 })
    );

    // Typing the colon back restores the finding.
    client.change(&project.path(FLOWGROUP_PATH), 3, (19, 12), (19, 12), ":");
    let restored = client.diagnostics(&uri, |p| p["version"] == 3).await;
    assert_eq!(codes(&restored), ["DQ105", "DQ603"]);

    // Fixing both (the bare token needs its `$`, after the emoji; the read
    // mode) clears the file.
    client.change(
        &project.path(FLOWGROUP_PATH),
        4,
        (19, 14),
        (19, 19),
        "stream",
    );
    client.change(&project.path(FLOWGROUP_PATH), 5, (9, 33), (9, 33), "$");
    let clean = client.diagnostics(&uri, |p| p["version"] == 5).await;
    assert_eq!(codes(&clean), Vec::<String>::new());

    assert!(client.shutdown_and_exit().await);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hover_shows_rule_docs_tokens_and_keys() {
    let project = orders_project();
    let uri = project.uri(FLOWGROUP_PATH);
    let mut client = TestClient::start();
    client.initialize(&project.root, OPTIONS()).await;
    client.open(&project.path(FLOWGROUP_PATH), 1);
    client.diagnostics(&uri, |p| p["version"] == 1).await;

    let at = |line: u32, character: u32| json!({ "textDocument": { "uri": uri }, "position": { "line": line, "character": character } });

    let finding = client.request("textDocument/hover", at(19, 16)).await;
    let text = finding["contents"]["value"].as_str().unwrap();
    assert!(
        text.contains("DQ105") && text.contains("non-stream-read-mode"),
        "{text}"
    );
    assert!(
        text.contains("What it does"),
        "the rule doc is shown: {text}"
    );
    assert_eq!(finding["range"], range((19, 14), (19, 19)));

    let token = client.request("textDocument/hover", at(26, 20)).await;
    let text = token["contents"]["value"].as_str().unwrap();
    assert!(
        text.contains("`catalog`") && text.contains("`dev`: `acme_dev`"),
        "{text}"
    );

    let key = client.request("textDocument/hover", at(18, 6)).await;
    assert!(
        key["contents"]["value"]
            .as_str()
            .unwrap()
            .starts_with("`expectations_file`"),
        "{key:#}"
    );

    let nothing = client.request("textDocument/hover", at(2, 0)).await;
    assert_eq!(nothing, Value::Null);

    assert!(client.shutdown_and_exit().await);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn code_actions_offer_quick_fixes_and_fix_all() {
    let project = orders_project();
    let uri = project.uri(FLOWGROUP_PATH);
    let mut client = TestClient::start();
    client.initialize(&project.root, OPTIONS()).await;
    client.open(&project.path(FLOWGROUP_PATH), 1);
    client.diagnostics(&uri, |p| p["version"] == 1).await;

    let params = |only: Value| {
        json!({
            "textDocument": { "uri": uri },
            "range": range((19, 15), (19, 15)),
            "context": { "diagnostics": [], "only": only }
        })
    };
    let actions = client
        .request("textDocument/codeAction", params(Value::Null))
        .await;
    let actions = actions.as_array().unwrap();
    let quickfix = actions
        .iter()
        .find(|a| a["kind"] == "quickfix")
        .expect("a quick fix");
    assert!(
        quickfix["title"]
            .as_str()
            .unwrap()
            .contains("readMode: stream"),
        "{quickfix:#}"
    );
    assert_eq!(quickfix["isPreferred"], true);
    assert_eq!(quickfix["diagnostics"][0]["code"], "DQ105");
    // Edits name the buffer version they were computed on: the client
    // applies nothing to a buffer that changed since.
    assert_eq!(
        quickfix["edit"]["documentChanges"],
        json!([{
            "textDocument": { "uri": uri, "version": 1 },
            "edits": [{ "range": range((19, 14), (19, 19)), "newText": "stream" }]
        }])
    );
    // Only the finding under the cursor gets a quick fix.
    assert_eq!(
        actions.iter().filter(|a| a["kind"] == "quickfix").count(),
        1
    );

    let fix_all = actions
        .iter()
        .find(|a| a["kind"] == "source.fixAll.dqlint")
        .expect("fix all");
    let document = &fix_all["edit"]["documentChanges"][0];
    assert_eq!(
        document["textDocument"],
        json!({ "uri": uri, "version": 1 })
    );
    let mut edits = document["edits"].as_array().unwrap().clone();
    edits.sort_by_key(|e| e["range"]["start"]["line"].as_u64());
    assert_eq!(
        Value::Array(edits),
        json!([
            { "range": range((9, 33), (9, 33)), "newText": "$" },
            { "range": range((19, 14), (19, 19)), "newText": "stream" }
        ])
    );

    // `only: ["source.fixAll"]` (what editors send on save) gets just fix-all.
    let on_save = client
        .request("textDocument/codeAction", params(json!(["source.fixAll"])))
        .await;
    let kinds: Vec<&str> = on_save
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["kind"].as_str().unwrap())
        .collect();
    assert_eq!(kinds, ["source.fixAll.dqlint"]);

    assert!(client.shutdown_and_exit().await);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn document_symbols_list_flowgroups_actions_and_rules() {
    let project = orders_project();
    let mut client = TestClient::start();
    client.initialize(&project.root, OPTIONS()).await;

    let symbols = client
        .request(
            "textDocument/documentSymbol",
            json!({ "textDocument": { "uri": project.uri(FLOWGROUP_PATH) } }),
        )
        .await;
    assert_eq!(symbols[0]["name"], "orders");
    let actions: Vec<(&str, &str)> = symbols[0]["children"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| (a["name"].as_str().unwrap(), a["detail"].as_str().unwrap()))
        .collect();
    assert_eq!(
        actions,
        [
            ("load_orders", "load"),
            ("orders_dq", "transform / data_quality"),
            ("write_orders", "write")
        ]
    );

    let rules = client
        .request(
            "textDocument/documentSymbol",
            json!({ "textDocument": { "uri": project.uri("expectations/orders_quality.yaml") } }),
        )
        .await;
    let names: Vec<&str> = rules
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["valid_order_id", "non_negative_amount"]);

    assert!(client.shutdown_and_exit().await);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn closed_files_keep_their_findings_on_disk() {
    let project = orders_project();
    let uri = project.uri(FLOWGROUP_PATH);
    let mut client = TestClient::start();
    client.initialize(&project.root, OPTIONS()).await;
    // The whole project is linted at start: findings of files never opened.
    let on_disk = client.diagnostics(&uri, |p| p["version"].is_null()).await;
    assert_eq!(codes(&on_disk), ["DQ105", "DQ603"]);

    client.open(&project.path(FLOWGROUP_PATH), 1);
    client.change(
        &project.path(FLOWGROUP_PATH),
        2,
        (19, 14),
        (19, 19),
        "stream",
    );
    let edited = client.diagnostics(&uri, |p| p["version"] == 2).await;
    assert_eq!(codes(&edited), ["DQ603"]);

    // Closing without saving: the disk text counts again.
    client.notify(
        "textDocument/didClose",
        json!({ "textDocument": { "uri": uri } }),
    );
    let closed = client.diagnostics(&uri, |p| p["version"].is_null()).await;
    assert_eq!(codes(&closed), ["DQ105", "DQ603"]);

    assert!(client.shutdown_and_exit().await);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn watched_file_changes_update_other_files() {
    let project = orders_project();
    let uri = project.uri(FLOWGROUP_PATH);
    let mut client = TestClient::start();
    client.initialize(&project.root, OPTIONS()).await;
    client.open(&project.path(FLOWGROUP_PATH), 1);
    client.diagnostics(&uri, |p| p["version"] == 1).await;

    // The expectations file is deleted outside the editor.
    let expectations = project.path("expectations/orders_quality.yaml");
    std::fs::remove_file(&expectations).unwrap();
    client.watched(&expectations, 3);
    let missing = client
        .diagnostics(&uri, |p| codes(p).contains(&"DQ107".to_string()))
        .await;
    assert_eq!(diagnostic(&missing, "DQ107")["range"]["start"]["line"], 18);

    // ... and restored.
    std::fs::write(&expectations, EXPECTATIONS).unwrap();
    client.watched(&expectations, 1);
    let back = client
        .diagnostics(&uri, |p| !codes(p).contains(&"DQ107".to_string()))
        .await;
    assert_eq!(codes(&back), ["DQ105", "DQ603"]);

    assert!(client.shutdown_and_exit().await);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn editing_an_expectations_file_updates_its_findings() {
    let project = orders_project();
    let rules_uri = project.uri("expectations/orders_quality.yaml");
    let mut client = TestClient::start();
    client.initialize(&project.root, OPTIONS()).await;
    client.open(&project.path("expectations/orders_quality.yaml"), 1);
    let clean = client.diagnostics(&rules_uri, |p| p["version"] == 1).await;
    assert_eq!(codes(&clean), Vec::<String>::new());

    // `action: drop` -> `action: explode`: an invalid rule action.
    client.change(
        &project.path("expectations/orders_quality.yaml"),
        2,
        (1, 10),
        (1, 14),
        "explode",
    );
    let invalid = client.diagnostics(&rules_uri, |p| p["version"] == 2).await;
    assert_eq!(codes(&invalid), ["DQ204"]);
    assert_eq!(
        diagnostic(&invalid, "DQ204")["range"],
        range((1, 10), (1, 17))
    );

    assert!(client.shutdown_and_exit().await);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_input_does_not_stop_the_server() {
    let project = orders_project();
    let mut client = TestClient::start();
    client.initialize(&project.root, OPTIONS()).await;

    // Not JSON at all: a parse error reply, then business as usual.
    client.send_raw(frame(b"{ this is not json"));
    let error = client
        .wait_for("a parse error", |m| m["error"]["code"] == -32700)
        .await;
    assert_eq!(error["id"], Value::Null);
    // JSON, but not JSON-RPC: "invalid request" under the request's id.
    client.send_raw(frame(br#"{"jsonrpc":"2.0","id":41,"method":7}"#));
    let error = client
        .wait_for("an invalid-request error", |m| m["id"] == 41)
        .await;
    assert_eq!(error["error"]["code"], -32600);
    // A header that cannot be read.
    client.send_raw(b"Content-Length: many\r\n\r\n".to_vec());
    client
        .wait_for("a header error", |m| {
            m["error"]["code"] == -32700 && m["error"]["message"].as_str().unwrap().contains("many")
        })
        .await;

    // Edits to a document that was never opened, a file outside any
    // project, an out-of-range position: ignored or answered with nothing.
    client.change(&project.path(FLOWGROUP_PATH), 7, (99, 0), (99, 5), "x");
    let outside = tempfile::tempdir().unwrap();
    let stray = outside.path().join("stray.yaml");
    std::fs::write(&stray, "a: b\n").unwrap();
    client.open(&stray, 1);
    let hover = client
        .request("textDocument/hover", json!({ "textDocument": { "uri": common::uri(&stray) }, "position": { "line": 0, "character": 0 } }))
        .await;
    assert_eq!(hover, Value::Null);
    client.open(&project.path(FLOWGROUP_PATH), 1);
    let hover = client
        .request(
            "textDocument/hover",
            json!({ "textDocument": { "uri": project.uri(FLOWGROUP_PATH) }, "position": { "line": 500, "character": 9 } }),
        )
        .await;
    assert_eq!(hover, Value::Null);

    // An edit range past the end of the text clamps instead of panicking.
    client.change(
        &project.path(FLOWGROUP_PATH),
        2,
        (28, 0),
        (400, 7),
        "      table: orders\n",
    );
    let published = client
        .diagnostics(&project.uri(FLOWGROUP_PATH), |p| p["version"] == 2)
        .await;
    assert_eq!(codes(&published), ["DQ105", "DQ603"]);

    // Unknown requests get "method not found", not silence.
    let reply = client.request_reply("dqlint/nonsense", json!({})).await;
    assert_eq!(reply["error"]["code"], -32601);

    // No stray publications for the file outside the project.
    let stray_uri = common::uri(&stray);
    assert!(
        !client
            .receives_within(Duration::from_millis(200), |m| m["params"]["uri"]
                == stray_uri)
            .await
    );
    assert!(client.shutdown_and_exit().await);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn exit_without_shutdown_reports_failure() {
    let project = orders_project();
    let mut client = TestClient::start();
    client.initialize(&project.root, OPTIONS()).await;
    client.notify("exit", Value::Null);
    let clean = tokio::time::timeout(Duration::from_secs(10), client.server)
        .await
        .unwrap()
        .unwrap();
    assert!(!clean, "exit without shutdown is not a clean exit");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn settings_select_rules() {
    let project = orders_project();
    let uri = project.uri(FLOWGROUP_PATH);
    let mut client = TestClient::start();
    client
        .initialize(
            &project.root,
            json!({ "debounceMs": 10, "ignore": ["DQ6"] }),
        )
        .await;
    client.open(&project.path(FLOWGROUP_PATH), 1);
    let published = client.diagnostics(&uri, |p| p["version"] == 1).await;
    assert_eq!(codes(&published), ["DQ105"]);

    client.notify(
        "workspace/didChangeConfiguration",
        json!({ "settings": { "dqlint": { "select": ["DQ603"] } } }),
    );
    let reselected = client.diagnostics(&uri, |p| codes(p) == ["DQ603"]).await;
    assert_eq!(reselected["version"], 1);

    assert!(client.shutdown_and_exit().await);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn definition_jumps_to_tokens_files_and_views() {
    let project = orders_project();
    let uri = project.uri(FLOWGROUP_PATH);
    let mut client = TestClient::start();
    client.initialize(&project.root, OPTIONS()).await;
    client.open(&project.path(FLOWGROUP_PATH), 1);
    client.diagnostics(&uri, |p| p["version"] == 1).await;
    let at = |line: u32, character: u32| json!({ "textDocument": { "uri": uri }, "position": { "line": line, "character": character } });

    // `${catalog}` -> its definition in substitutions/dev.yaml.
    let token = client.request("textDocument/definition", at(26, 20)).await;
    assert_eq!(token[0]["uri"], project.uri("substitutions/dev.yaml"));
    assert_eq!(token[0]["range"]["start"]["line"], 1);

    // `expectations_file` -> the file.
    let file = client.request("textDocument/definition", at(18, 30)).await;
    assert_eq!(
        file,
        json!([{ "uri": project.uri("expectations/orders_quality.yaml"), "range": range((0, 0), (0, 0)) }])
    );

    // `source: v_orders_raw` -> the `target` of the action producing it.
    let view = client.request("textDocument/definition", at(16, 16)).await;
    assert_eq!(
        view,
        json!([{ "uri": uri, "range": range((11, 12), (11, 24)) }])
    );

    assert_eq!(
        client.request("textDocument/definition", at(1, 3)).await,
        Value::Null
    );
    assert!(client.shutdown_and_exit().await);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn completion_offers_tokens_and_values() {
    let project = orders_project();
    let uri = project.uri(FLOWGROUP_PATH);
    let mut client = TestClient::start();
    client.initialize(&project.root, OPTIONS()).await;
    client.open(&project.path(FLOWGROUP_PATH), 1);
    client.diagnostics(&uri, |p| p["version"] == 1).await;
    let at = |line: u32, character: u32| json!({ "textDocument": { "uri": uri }, "position": { "line": line, "character": character } });

    let values = client.request("textDocument/completion", at(19, 14)).await;
    let labels: Vec<&str> = values
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["label"].as_str().unwrap())
        .collect();
    // `readMode` of a data_quality action: `batch` would be DQ105's finding.
    assert_eq!(labels, ["stream"]);

    // Typing `${ca` after non-ASCII text: token names, replacing `ca`.
    client.change(&project.path(FLOWGROUP_PATH), 2, (9, 42), (9, 49), "${ca");
    let tokens = client.request("textDocument/completion", at(9, 46)).await;
    let catalog = tokens
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["label"] == "catalog")
        .expect("catalog");
    assert_eq!(
        catalog["textEdit"],
        json!({ "range": range((9, 44), (9, 46)), "newText": "catalog}" })
    );
    assert_eq!(catalog["detail"], "dev: acme_dev");

    assert!(client.shutdown_and_exit().await);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn references_find_token_uses_and_expectation_users() {
    let project = orders_project();
    let mut client = TestClient::start();
    client.initialize(&project.root, OPTIONS()).await;
    let refs = |rel: &str, line: u32, character: u32, declaration: bool| {
        json!({
            "textDocument": { "uri": project.uri(rel) },
            "position": { "line": line, "character": character },
            "context": { "includeDeclaration": declaration }
        })
    };

    let uses = client
        .request(
            "textDocument/references",
            refs(FLOWGROUP_PATH, 26, 20, false),
        )
        .await;
    assert_eq!(
        uses,
        json!([{ "uri": project.uri(FLOWGROUP_PATH), "range": range((26, 15), (26, 25)) }])
    );
    let with_definition = client
        .request(
            "textDocument/references",
            refs(FLOWGROUP_PATH, 26, 20, true),
        )
        .await;
    assert_eq!(with_definition.as_array().unwrap().len(), 2);
    assert_eq!(
        with_definition[1]["uri"],
        project.uri("substitutions/dev.yaml")
    );

    let users = client
        .request(
            "textDocument/references",
            refs("expectations/orders_quality.yaml", 0, 3, false),
        )
        .await;
    assert_eq!(
        users,
        json!([{ "uri": project.uri(FLOWGROUP_PATH), "range": range((18, 23), (18, 55)) }])
    );

    assert!(client.shutdown_and_exit().await);
}

/// A file changed on disk while not open is re-linted like an edit in the
/// editor (with the files it affects), and closing a buffer without saving
/// brings back the findings of the text on disk.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn disk_changes_and_unsaved_closes_update_findings() {
    let project = orders_project();
    let rules = project.path("expectations/orders_quality.yaml");
    let rules_uri = project.uri("expectations/orders_quality.yaml");
    let mut client = TestClient::start();
    client.initialize(&project.root, OPTIONS()).await;
    client.open(&project.path(FLOWGROUP_PATH), 1);
    client
        .diagnostics(&project.uri(FLOWGROUP_PATH), |p| p["version"] == 1)
        .await;

    // A rule with a name already used, written by another program.
    let duplicated =
        format!("{EXPECTATIONS}amount < 1000000:\n  action: drop\n  name: valid_order_id\n");
    std::fs::write(&rules, &duplicated).unwrap();
    client.watched(&rules, 2);
    let found = client
        .diagnostics(&rules_uri, |p| codes(p).contains(&"DQ205".to_string()))
        .await;
    assert_eq!(diagnostic(&found, "DQ205")["range"]["start"]["line"], 8);

    // Opened, the duplicate renamed in the buffer, then closed unsaved:
    // the disk still has the duplicate.
    client.open(&rules, 1);
    client.change(&rules, 2, (8, 8), (8, 22), "order_cap");
    client
        .diagnostics(&rules_uri, |p| {
            p["version"] == 2 && !codes(p).contains(&"DQ205".to_string())
        })
        .await;
    client.notify(
        "textDocument/didClose",
        json!({ "textDocument": { "uri": rules_uri.clone() } }),
    );
    client
        .diagnostics(&rules_uri, |p| codes(p).contains(&"DQ205".to_string()))
        .await;

    assert!(client.shutdown_and_exit().await);
}

/// Requests right after edits (no waiting for diagnostics) answer for the
/// text the editor has: a token's new value, a finding gone.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn requests_right_after_edits_see_the_new_text() {
    let project = orders_project();
    let uri = project.uri(FLOWGROUP_PATH);
    let substitutions = project.path("substitutions/dev.yaml");
    let mut client = TestClient::start();
    client.initialize(&project.root, OPTIONS()).await;
    client.open(&project.path(FLOWGROUP_PATH), 1);
    client.open(&substitutions, 1);
    client.diagnostics(&uri, |p| p["version"] == 1).await;
    let at = |line: u32, character: u32| json!({ "textDocument": { "uri": uri }, "position": { "line": line, "character": character } });

    // `catalog: acme_dev` -> `catalog: acme_qa`, then hover the token.
    client.change(&substitutions, 2, (1, 16), (1, 19), "qa");
    let token = client.request("textDocument/hover", at(26, 20)).await;
    let text = token["contents"]["value"].as_str().unwrap();
    assert!(text.contains("`dev`: `acme_qa`"), "{text}");

    // `readMode: batch` -> `readMode: stream`: DQ105 is gone at once.
    client.change(
        &project.path(FLOWGROUP_PATH),
        2,
        (19, 14),
        (19, 19),
        "stream",
    );
    let hover = client.request("textDocument/hover", at(19, 16)).await;
    let text = hover["contents"]["value"].as_str().unwrap_or_default();
    assert!(!text.contains("DQ105"), "{text}");
    let references = client
        .request(
            "textDocument/references",
            json!({ "textDocument": { "uri": uri }, "position": { "line": 26, "character": 20 }, "context": { "includeDeclaration": true } }),
        )
        .await;
    assert!(
        references.as_array().is_some_and(|r| !r.is_empty()),
        "{references:#}"
    );

    assert!(client.shutdown_and_exit().await);
}

/// In a rule expression, completion offers the columns known to reach the
/// data_quality action: its source view's SQL select list (following `*`
/// to the view it reads) and the `table_schema` of the table it feeds.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn completion_offers_known_columns_in_rule_expressions() {
    const FLOWGROUP: &str = "\
pipeline: bronze
flowgroup: payments
actions:
  - name: load_payments
    type: load
    readMode: stream
    source:
      type: delta
      database: raw.payments
    target: v_payments_raw
  - name: shape_payments
    type: transform
    transform_type: sql
    source: v_payments_raw
    target: v_payments_shaped
    sql: |
      SELECT p.payment_id, p.amount AS amount_eur, current_timestamp() AS loaded_at
      FROM v_payments_raw p
  - name: tag_payments
    type: transform
    transform_type: sql
    source: v_payments_shaped
    target: v_payments
    sql: SELECT *, 'card' AS channel FROM v_payments_shaped
  - name: payments_dq
    type: transform
    transform_type: data_quality
    source: v_payments
    target: v_payments_checked
    readMode: stream
    expectations_file: expectations/payments.yaml
  - name: write_payments
    type: write
    source: v_payments_checked
    write_target:
      type: streaming_table
      catalog: main
      schema: bronze
      table: payments
      table_schema: \"payment_id BIGINT, amount_eur DECIMAL(10,2), loaded_at TIMESTAMP, channel STRING, settled BOOLEAN\"
";
    let project = TestProject::new(&[
        ("lhp.yaml", LHP_YAML),
        ("pipelines/bronze/payments.yaml", FLOWGROUP),
        (
            "expectations/payments.yaml",
            "payment_id IS NOT NULL:\n  action: drop\n  name: has_id\n",
        ),
    ]);
    let rules = project.path("expectations/payments.yaml");
    let rules_uri = project.uri("expectations/payments.yaml");
    let mut client = TestClient::start();
    client.initialize(&project.root, OPTIONS()).await;
    client.open(&rules, 1);
    client.diagnostics(&rules_uri, |p| p["version"] == 1).await;

    // A new rule being typed: `amount_eur > 0 AND se`.
    client.change(&rules, 2, (3, 0), (3, 0), "amount_eur > 0 AND se");
    let items = client
        .request(
            "textDocument/completion",
            json!({ "textDocument": { "uri": rules_uri }, "position": { "line": 3, "character": 21 } }),
        )
        .await;
    let items = items.as_array().expect("completions");
    let labels: Vec<&str> = items.iter().map(|i| i["label"].as_str().unwrap()).collect();
    assert_eq!(
        labels,
        [
            "amount_eur",
            "channel",
            "loaded_at",
            "payment_id",
            "settled"
        ]
    );
    let settled = items.iter().find(|i| i["label"] == "settled").unwrap();
    assert_eq!(
        settled["textEdit"],
        json!({ "range": range((3, 19), (3, 21)), "newText": "settled" })
    );
    assert!(settled["detail"].as_str().unwrap().contains("table_schema"));

    // A rule's own keys get no columns.
    let keys = client
        .request(
            "textDocument/completion",
            json!({ "textDocument": { "uri": rules_uri }, "position": { "line": 1, "character": 4 } }),
        )
        .await;
    assert!(!keys.to_string().contains("amount_eur"), "{keys:#}");

    assert!(client.shutdown_and_exit().await);
}

/// `$/cancelRequest` ends a request still waiting (here for the first load
/// of a large project) with `RequestCancelled`; the server goes on serving.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cancelled_requests_end_at_once() {
    let flowgroups: Vec<(String, String)> = (0..3000)
        .map(|i| {
            (
                format!("pipelines/bronze/table_{i}.yaml"),
                format!(
                    "pipeline: bronze\nflowgroup: table_{i}\nactions:\n  - name: load_{i}\n    type: load\n    readMode: stream\n    source:\n      type: delta\n      database: raw.table_{i}\n    target: v_{i}\n"
                ),
            )
        })
        .collect();
    let mut files: Vec<(&str, &str)> = vec![("lhp.yaml", LHP_YAML)];
    files.extend(flowgroups.iter().map(|(p, t)| (p.as_str(), t.as_str())));
    let project = TestProject::new(&files);
    let uri = project.uri("pipelines/bronze/table_7.yaml");
    let mut client = TestClient::start();
    client.initialize(&project.root, OPTIONS()).await;
    client.open(&project.path("pipelines/bronze/table_7.yaml"), 1);

    let hover = json!({
        "jsonrpc": "2.0", "id": 9001, "method": "textDocument/hover",
        "params": { "textDocument": { "uri": uri }, "position": { "line": 4, "character": 6 } }
    });
    client.send_raw(frame(hover.to_string().as_bytes()));
    client.notify("$/cancelRequest", json!({ "id": 9001 }));
    let reply = client
        .wait_for("the reply to the cancelled hover", |m| m["id"] == 9001)
        .await;
    // An answer instead would mean the request did not wait for the load.
    assert_eq!(reply["error"]["code"], -32800, "{reply:#}");

    // The next request is answered once the project is loaded.
    let answered = client
        .request(
            "textDocument/hover",
            json!({ "textDocument": { "uri": uri }, "position": { "line": 4, "character": 6 } }),
        )
        .await;
    assert!(
        answered["contents"]["value"]
            .as_str()
            .unwrap()
            .starts_with("`type`"),
        "{answered:#}"
    );

    assert!(client.shutdown_and_exit().await);
}

/// Several workspace folders, one holding two LHP projects (one nested
/// deeper): each project is linted on its own; removing a folder drops its
/// projects' findings, adding it back brings them again.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn several_folders_and_projects_at_once() {
    let orders = orders_project();
    let team = TestProject::new(&[
        ("one/lhp.yaml", LHP_YAML),
        ("one/substitutions/dev.yaml", SUBSTITUTIONS),
        ("one/expectations/orders_quality.yaml", EXPECTATIONS),
        ("one/pipelines/bronze/orders.yaml", FLOWGROUP),
        ("nested/two/lhp.yaml", LHP_YAML),
        (
            "nested/two/substitutions/dev.yaml",
            "dev:\n  landing: /Volumes/x\n",
        ),
        ("nested/two/expectations/orders_quality.yaml", EXPECTATIONS),
        ("nested/two/pipelines/bronze/orders.yaml", FLOWGROUP),
    ]);
    let mut client = TestClient::start();
    client
        .initialize_folders(&[&orders.root, &team.root], OPTIONS())
        .await;
    let files = [
        orders.path(FLOWGROUP_PATH),
        team.path("one/pipelines/bronze/orders.yaml"),
        team.path("nested/two/pipelines/bronze/orders.yaml"),
    ];
    for path in &files {
        client.open(path, 1);
    }
    for path in &files[..2] {
        let shown = client
            .diagnostics(&common::uri(path), |p| p["version"] == 1)
            .await;
        assert_eq!(codes(&shown), ["DQ105", "DQ603"], "{}", path.display());
    }
    // The nested project has no `catalog` token: its own substitutions.
    let nested = client
        .diagnostics(&common::uri(&files[2]), |p| p["version"] == 1)
        .await;
    assert_eq!(codes(&nested), ["DQ105", "DQ601", "DQ603"]);

    // The team folder goes: both its projects' findings are cleared.
    let folder = |root: &std::path::Path| json!([{ "uri": common::uri(root), "name": "team" }]);
    client.notify(
        "workspace/didChangeWorkspaceFolders",
        json!({ "event": { "added": [], "removed": folder(&team.root) } }),
    );
    for path in &files[1..] {
        client
            .diagnostics(&common::uri(path), |p| codes(p).is_empty())
            .await;
    }
    // ... and comes back.
    client.notify(
        "workspace/didChangeWorkspaceFolders",
        json!({ "event": { "added": folder(&team.root), "removed": [] } }),
    );
    for path in &files[1..] {
        client
            .diagnostics(&common::uri(path), |p| {
                codes(p).contains(&"DQ105".to_string())
            })
            .await;
    }
    assert!(client.shutdown_and_exit().await);
}

/// Hover and definition on quarantine configuration (the showcase): a
/// `dlq_table` shows its inbox and outbox per environment and where each
/// is created, and jumps there; a rule used in quarantine mode shows it is
/// enforced as `drop`; `use_template` and a template's preset jump to their
/// files.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn quarantine_hover_and_definitions() {
    let project = fixture_copy("showcase");
    let orders = project.path("pipelines/bronze/orders.yaml");
    let uri = project.uri("pipelines/bronze/orders.yaml");
    let mut client = TestClient::start();
    client.initialize(&project.root, OPTIONS()).await;
    client.open(&orders, 1);
    client.diagnostics(&uri, |p| p["version"] == 1).await;
    let at = |uri: &str, line: u32, character: u32| json!({ "textDocument": { "uri": uri }, "position": { "line": line, "character": character } });

    let dlq = client.request("textDocument/hover", at(&uri, 26, 8)).await;
    let text = dlq["contents"]["value"].as_str().unwrap();
    assert!(
        text.contains("| `dev` | `acme_dev.ops.dlq` | `sql/dlq/create_dlq.sql:4` | `acme_dev.ops.dlq_outbox` | `sql/dlq/create_dlq.sql:19` |"),
        "{text}"
    );
    assert!(text.contains("| `prod` | `acme_prod.ops.dlq` |"), "{text}");

    let created = client
        .request("textDocument/definition", at(&uri, 26, 43))
        .await;
    let lines: Vec<(String, u64)> = created
        .as_array()
        .unwrap()
        .iter()
        .map(|l| {
            (
                l["uri"]
                    .as_str()
                    .unwrap()
                    .rsplit('/')
                    .next()
                    .unwrap()
                    .to_string(),
                l["range"]["start"]["line"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        lines,
        [
            ("create_dlq.sql".to_string(), 3),
            ("create_dlq.sql".to_string(), 18)
        ]
    );

    let rules_uri = project.uri("expectations/orders_quality.json");
    client.open(&project.path("expectations/orders_quality.json"), 1);
    let rule = client
        .request("textDocument/hover", at(&rules_uri, 5, 50))
        .await;
    let text = rule["contents"]["value"].as_str().unwrap();
    assert!(
        text.contains("`amount > 0`")
            && text.contains("Policy kind: `range` on `amount`")
            && text.contains("enforced as `drop`")
            && text.contains("`orders_quarantine`"),
        "{text}"
    );

    let customers = project.uri("pipelines/bronze/customers.yaml");
    client.open(&project.path("pipelines/bronze/customers.yaml"), 1);
    let template = client
        .request("textDocument/definition", at(&customers, 2, 16))
        .await;
    assert!(
        template[0]["uri"]
            .as_str()
            .unwrap()
            .ends_with("templates/bronze_quarantined.yaml"),
        "{template:#}"
    );
    let template_uri = project.uri("templates/bronze_quarantined.yaml");
    client.open(&project.path("templates/bronze_quarantined.yaml"), 1);
    let preset = client
        .request("textDocument/definition", at(&template_uri, 4, 6))
        .await;
    assert!(
        preset[0]["uri"]
            .as_str()
            .unwrap()
            .ends_with("presets/bronze_defaults.yaml"),
        "{preset:#}"
    );

    assert!(client.shutdown_and_exit().await);
}
