//! The frames a client may get wrong, and requests nobody serves: each gets
//! its JSON-RPC error, and the message after it is still read and answered.

mod common;

use common::*;
use serde_json::{json, Value};

/// A request the server answers with MethodNotFound under `id`: proof that
/// it read the message.
fn probe(id: i64) -> Vec<u8> {
    frame(
        json!({ "jsonrpc": "2.0", "id": id, "method": "dqlintTest/probe" })
            .to_string()
            .as_bytes(),
    )
}

async fn answered(client: &mut TestClient, id: i64) {
    let reply = client
        .wait_for(&format!("the answer to request {id}"), |m| m["id"] == id)
        .await;
    assert_eq!(reply["error"]["code"], -32601, "{reply}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unknown_requests_get_method_not_found_dollar_ones_too() {
    let project = orders_project();
    let mut client = TestClient::start();
    client.initialize(&project.root, json!({})).await;
    for method in ["$/someRequest", "$/dqlint/unknown", "dqlint/unknown"] {
        let reply = client.request_reply(method, json!({})).await;
        assert_eq!(reply["error"]["code"], -32601, "{method}: {reply}");
    }
    // A `$/` notification is no request: no answer, and nothing breaks.
    client.notify("$/someNotification", json!({}));
    client.send_raw(probe(90));
    answered(&mut client, 90).await;
    assert!(client.shutdown_and_exit().await);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_header_without_content_length_loses_no_later_message() {
    let project = orders_project();
    let mut client = TestClient::start();
    client.initialize(&project.root, json!({})).await;
    let mut bytes = b"Content-Type: application/vscode-jsonrpc; charset=utf-8\r\n\r\n".to_vec();
    bytes.extend_from_slice(br#"{"jsonrpc":"2.0","id":70,"method":"dqlintTest/lost"}"#);
    bytes.extend(probe(71));
    client.send_raw(bytes);
    let error = client
        .wait_for("the header error", |m| m["error"]["code"] == -32700)
        .await;
    assert_eq!(error["id"], Value::Null);
    assert!(error["error"]["message"]
        .as_str()
        .unwrap()
        .contains("Content-Length"));
    answered(&mut client, 71).await;
    assert!(client.shutdown_and_exit().await);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_short_content_length_loses_no_later_message() {
    let project = orders_project();
    let mut client = TestClient::start();
    client.initialize(&project.root, json!({})).await;
    let body = br#"{"jsonrpc":"2.0","id":80,"method":"dqlintTest/cut"}"#;
    let mut bytes = format!("Content-Length: {}\r\n\r\n", body.len() - 20).into_bytes();
    bytes.extend_from_slice(body);
    bytes.extend(probe(81));
    client.send_raw(bytes);
    client
        .wait_for("the parse error of the cut message", |m| {
            m["error"]["code"] == -32700
        })
        .await;
    answered(&mut client, 81).await;
    assert!(client.shutdown_and_exit().await);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_frame_over_the_cap_is_refused_not_awaited() {
    let project = orders_project();
    let mut client = TestClient::start();
    client.initialize(&project.root, json!({})).await;
    // 8 GB announced, never sent: the server must not wait for it.
    let mut bytes = b"Content-Length: 8000000000\r\n\r\n".to_vec();
    bytes.extend(probe(61));
    client.send_raw(bytes);
    let error = client
        .wait_for("the too-large error", |m| m["error"]["code"] == -32700)
        .await;
    assert!(
        error["error"]["message"]
            .as_str()
            .unwrap()
            .contains("too large"),
        "{error}"
    );
    answered(&mut client, 61).await;
    assert!(client.shutdown_and_exit().await);
}
