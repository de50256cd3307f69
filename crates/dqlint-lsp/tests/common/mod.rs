//! A scripted LSP client: talks to `dqlint_lsp::serve` through in-memory
//! pipes with real `Content-Length` framing, answers the server's own
//! requests, and waits for notifications with a timeout.

#![allow(dead_code)]

use std::collections::VecDeque;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::{json, Value};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::sync::mpsc;
use tokio::task::JoinHandle;

const TIMEOUT: Duration = Duration::from_secs(20);

/// What a Linux pipe holds.
const PIPE_CAPACITY: usize = 64 * 1024;

pub struct TestClient {
    outgoing: mpsc::UnboundedSender<Vec<u8>>,
    incoming: mpsc::UnboundedReceiver<Value>,
    /// Messages read while waiting for something else.
    backlog: VecDeque<Value>,
    next_id: i64,
    pub server: JoinHandle<bool>,
    /// Requests the server sent to us (method names), in order.
    pub server_requests: Vec<String>,
}

pub fn frame(body: &[u8]) -> Vec<u8> {
    let mut out = format!("Content-Length: {}\r\n\r\n", body.len()).into_bytes();
    out.extend_from_slice(body);
    out
}

impl TestClient {
    pub fn start() -> TestClient {
        // A pipe's capacity, as between an editor and `dqlint server` (a
        // Linux pipe holds 64 KiB): each direction's buffer, in this
        // process, keeps its largest size, which a real pipe does not put
        // in the server's memory (benches/large_buffers.rs measures it).
        let (client_end, server_end) = tokio::io::duplex(PIPE_CAPACITY);
        let (server_read, server_write) = tokio::io::split(server_end);
        let server = tokio::spawn(dqlint_lsp::serve(server_read, server_write));
        let (client_read, mut client_write) = tokio::io::split(client_end);

        let (outgoing, mut to_write) = mpsc::unbounded_channel::<Vec<u8>>();
        tokio::spawn(async move {
            while let Some(bytes) = to_write.recv().await {
                if client_write.write_all(&bytes).await.is_err() {
                    break;
                }
                let _ = client_write.flush().await;
            }
        });

        let (deliver, incoming) = mpsc::unbounded_channel::<Value>();
        let answer = outgoing.clone();
        tokio::spawn(async move {
            let mut reader = BufReader::new(client_read);
            loop {
                let mut length = None;
                loop {
                    let mut line = String::new();
                    match reader.read_line(&mut line).await {
                        Ok(0) | Err(_) => return,
                        Ok(_) => {}
                    }
                    let line = line.trim_end();
                    if line.is_empty() {
                        break;
                    }
                    if let Some(value) = line.strip_prefix("Content-Length: ") {
                        length = value.parse::<usize>().ok();
                    }
                }
                let mut body = vec![0; length.expect("a Content-Length header")];
                if reader.read_exact(&mut body).await.is_err() {
                    return;
                }
                let message: Value = serde_json::from_slice(&body).expect("the server sends JSON");
                // Answer the server's requests (registerCapability...) at once.
                if message.get("method").is_some() && message.get("id").is_some() {
                    let reply = json!({ "jsonrpc": "2.0", "id": message["id"], "result": null });
                    let _ = answer.send(frame(reply.to_string().as_bytes()));
                }
                if deliver.send(message).is_err() {
                    return;
                }
            }
        });
        TestClient {
            outgoing,
            incoming,
            backlog: VecDeque::new(),
            next_id: 0,
            server,
            server_requests: Vec::new(),
        }
    }

    pub fn send_raw(&self, bytes: Vec<u8>) {
        self.outgoing.send(bytes).expect("the writer is alive");
    }

    /// `workspace/didChangeWatchedFiles` for one file (`kind`: 1 created,
    /// 2 changed, 3 deleted).
    pub fn watched(&self, path: &Path, kind: u8) {
        self.notify(
            "workspace/didChangeWatchedFiles",
            json!({ "changes": [{ "uri": uri(path), "type": kind }] }),
        );
    }

    pub fn notify(&self, method: &str, params: Value) {
        let message = json!({ "jsonrpc": "2.0", "method": method, "params": params });
        self.send_raw(frame(message.to_string().as_bytes()));
    }

    /// Sends a request and returns its `result` (panics on an error reply).
    pub async fn request(&mut self, method: &str, params: Value) -> Value {
        let reply = self.request_reply(method, params).await;
        assert!(reply.get("error").is_none(), "{method} failed: {reply}");
        reply["result"].clone()
    }

    /// Sends a request and returns the whole reply.
    pub async fn request_reply(&mut self, method: &str, params: Value) -> Value {
        self.next_id += 1;
        let id = self.next_id;
        let message = json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params });
        self.send_raw(frame(message.to_string().as_bytes()));
        self.wait_for(&format!("the reply to {method}"), |m| {
            m.get("method").is_none() && m["id"] == json!(id)
        })
        .await
    }

    async fn next(&mut self) -> Option<Value> {
        let message = self.incoming.recv().await?;
        if let (Some(method), Some(_)) = (
            message.get("method").and_then(Value::as_str),
            message.get("id"),
        ) {
            self.server_requests.push(method.to_string());
        }
        Some(message)
    }

    /// The first message (read now or kept from before) matching `wanted`.
    pub async fn wait_for(&mut self, what: &str, wanted: impl Fn(&Value) -> bool) -> Value {
        if let Some(i) = self.backlog.iter().position(&wanted) {
            return self.backlog.remove(i).unwrap();
        }
        let deadline = tokio::time::Instant::now() + TIMEOUT;
        loop {
            match tokio::time::timeout_at(deadline, self.next()).await {
                Ok(Some(message)) if wanted(&message) => return message,
                Ok(Some(message)) => self.backlog.push_back(message),
                Ok(None) => panic!("the server closed the connection while waiting for {what}"),
                Err(_) => panic!(
                    "timed out waiting for {what}; received meanwhile: {:#?}",
                    self.backlog
                ),
            }
        }
    }

    /// The next `publishDiagnostics` for `uri` that satisfies `wanted`;
    /// earlier ones for that URI are dropped.
    pub async fn diagnostics(&mut self, uri: &str, wanted: impl Fn(&Value) -> bool) -> Value {
        let is_for_uri = |m: &Value| {
            m["method"] == "textDocument/publishDiagnostics" && m["params"]["uri"] == uri
        };
        loop {
            let message = self
                .wait_for(&format!("diagnostics for {uri}"), is_for_uri)
                .await;
            if wanted(&message["params"]) {
                return message["params"].clone();
            }
        }
    }

    /// Whether a message matching `wanted` arrives within `wait`.
    pub async fn receives_within(
        &mut self,
        wait: Duration,
        wanted: impl Fn(&Value) -> bool,
    ) -> bool {
        if self.backlog.iter().any(&wanted) {
            return true;
        }
        let deadline = tokio::time::Instant::now() + wait;
        loop {
            match tokio::time::timeout_at(deadline, self.next()).await {
                Ok(Some(message)) if wanted(&message) => return true,
                Ok(Some(message)) => self.backlog.push_back(message),
                Ok(None) | Err(_) => return false,
            }
        }
    }

    /// Every message received (and kept) until none arrives for `quiet`.
    pub async fn drain_until_quiet(&mut self, quiet: Duration) -> Vec<Value> {
        let mut out: Vec<Value> = self.backlog.drain(..).collect();
        let deadline = tokio::time::Instant::now() + TIMEOUT;
        loop {
            match tokio::time::timeout(quiet, self.next()).await {
                Ok(Some(message)) => out.push(message),
                Ok(None) | Err(_) => return out,
            }
            assert!(
                tokio::time::Instant::now() < deadline,
                "the server never went quiet"
            );
        }
    }

    /// `shutdown` then `exit`; returns what `serve` returned.
    pub async fn shutdown_and_exit(mut self) -> bool {
        assert_eq!(self.request("shutdown", Value::Null).await, Value::Null);
        self.notify("exit", Value::Null);
        tokio::time::timeout(TIMEOUT, self.server)
            .await
            .expect("the server ends after exit")
            .expect("no panic")
    }

    pub async fn initialize(&mut self, root: &Path, options: Value) -> Value {
        self.initialize_folders(&[root], options).await
    }

    /// `initialize` with several workspace folders (the first is `rootUri`).
    pub async fn initialize_folders(&mut self, folders: &[&Path], options: Value) -> Value {
        let workspace_folders: Vec<Value> = folders
            .iter()
            .map(|f| json!({ "uri": uri(f), "name": f.file_name().unwrap().to_string_lossy() }))
            .collect();
        let result = self
            .request(
                "initialize",
                json!({
                    "processId": null,
                    "rootUri": uri(folders[0]),
                    "workspaceFolders": workspace_folders,
                    "capabilities": {
                        "workspace": { "didChangeWatchedFiles": { "dynamicRegistration": true } },
                        "textDocument": { "publishDiagnostics": { "relatedInformation": true } }
                    },
                    "initializationOptions": options,
                }),
            )
            .await;
        self.notify("initialized", json!({}));
        result
    }

    pub fn open(&self, path: &Path, version: i32) {
        let text = std::fs::read_to_string(path).unwrap();
        self.open_text(path, version, &text);
    }

    /// Opens `path` with a buffer text that may differ from the disk.
    pub fn open_text(&self, path: &Path, version: i32, text: &str) {
        self.notify(
            "textDocument/didOpen",
            json!({ "textDocument": { "uri": uri(path), "languageId": "yaml", "version": version, "text": text } }),
        );
    }

    /// One incremental edit: replace `(line, character)..(line, character)`.
    pub fn change(
        &self,
        path: &Path,
        version: i32,
        start: (u32, u32),
        end: (u32, u32),
        text: &str,
    ) {
        self.notify(
            "textDocument/didChange",
            json!({
                "textDocument": { "uri": uri(path), "version": version },
                "contentChanges": [{
                    "range": {
                        "start": { "line": start.0, "character": start.1 },
                        "end": { "line": end.0, "character": end.1 }
                    },
                    "text": text
                }]
            }),
        );
    }
}

pub fn uri(path: &Path) -> String {
    let mut out = String::from("file://");
    for byte in path.to_str().unwrap().bytes() {
        match byte {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'/' | b'-' | b'_' | b'.' | b'~' => {
                out.push(byte as char)
            }
            _ => out.push_str(&format!("%{byte:02X}")),
        }
    }
    out
}

/// Codes of the diagnostics of a `publishDiagnostics` params object.
pub fn codes(params: &Value) -> Vec<String> {
    let mut codes: Vec<String> = params["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["code"].as_str().unwrap().to_string())
        .collect();
    codes.sort();
    codes
}

pub fn diagnostic<'a>(params: &'a Value, code: &str) -> &'a Value {
    params["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["code"] == code)
        .unwrap_or_else(|| panic!("no {code} in {params:#}"))
}

pub fn range(start: (u32, u32), end: (u32, u32)) -> Value {
    json!({
        "start": { "line": start.0, "character": start.1 },
        "end": { "line": end.0, "character": end.1 }
    })
}

/// A copy of the repository fixture project `fixtures/<rel>` in a
/// temporary folder.
pub fn fixture_copy(rel: &str) -> TestProject {
    let source = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../fixtures")
        .join(rel);
    let mut files: Vec<(String, String)> = Vec::new();
    let mut pending = vec![source.clone()];
    while let Some(dir) = pending.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            // Not part of a fixture: the run cache that CLI tests' lint runs leave.
            if path.file_name().is_some_and(|n| n == ".dqlint_cache") {
                continue;
            }
            if path.is_dir() {
                pending.push(path);
            } else {
                let rel = path
                    .strip_prefix(&source)
                    .unwrap()
                    .to_str()
                    .unwrap()
                    .to_string();
                files.push((rel, std::fs::read_to_string(&path).unwrap()));
            }
        }
    }
    let borrowed: Vec<(&str, &str)> = files
        .iter()
        .map(|(r, t)| (r.as_str(), t.as_str()))
        .collect();
    TestProject::new(&borrowed)
}

/// A small LHP project in a temporary folder (canonical path).
pub struct TestProject {
    _dir: tempfile::TempDir,
    pub root: PathBuf,
}

impl TestProject {
    pub fn new(files: &[(&str, &str)]) -> TestProject {
        let dir = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(dir.path()).unwrap();
        for (rel, text) in files {
            let path = root.join(rel);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        }
        TestProject { _dir: dir, root }
    }

    pub fn path(&self, rel: &str) -> PathBuf {
        self.root.join(rel)
    }

    pub fn uri(&self, rel: &str) -> String {
        uri(&self.path(rel))
    }
}

pub const LHP_YAML: &str = "name: orders_demo\nversion: \"1.0\"\n";

pub const SUBSTITUTIONS: &str =
    "dev:\n  catalog: acme_dev\n  landing: /Volumes/acme_dev/landing/files\n";

pub const EXPECTATIONS: &str = "\
order_id IS NOT NULL:
  action: drop
  name: valid_order_id
amount >= 0:
  action: drop
  name: non_negative_amount
";

/// A flowgroup with two findings: DQ603 on line 9 after non-ASCII text
/// (`é` is one UTF-16 unit, `😀` two), DQ105 on line 19.
pub const FLOWGROUP: &str = "\
pipeline: bronze
flowgroup: orders

actions:
  - name: load_orders
    type: load
    readMode: stream
    source:
      type: cloudfiles
      path: \"/Volumes/données/😀/{landing}/orders\"
      format: json
    target: v_orders_raw

  - name: orders_dq
    type: transform
    transform_type: data_quality
    source: v_orders_raw
    target: v_orders_validated
    expectations_file: expectations/orders_quality.yaml
    readMode: batch

  - name: write_orders
    type: write
    source: v_orders_validated
    write_target:
      type: streaming_table
      catalog: ${catalog}
      schema: bronze
      table: orders
";

pub fn orders_project() -> TestProject {
    TestProject::new(&[
        ("lhp.yaml", LHP_YAML),
        ("substitutions/dev.yaml", SUBSTITUTIONS),
        ("expectations/orders_quality.yaml", EXPECTATIONS),
        ("pipelines/bronze/orders.yaml", FLOWGROUP),
    ])
}

/// A `textDocument` + `position` request body.
pub fn at(uri: &str, line: u32, character: u32) -> Value {
    json!({ "textDocument": { "uri": uri }, "position": { "line": line, "character": character } })
}

/// The labels of a completion answer (a list, or a `CompletionList`).
pub fn labels(items: &Value) -> Vec<String> {
    let items = items
        .as_array()
        .or_else(|| items["items"].as_array())
        .unwrap_or_else(|| panic!("a completion list: {items}"));
    items
        .iter()
        .map(|i| i["label"].as_str().unwrap().to_string())
        .collect()
}

/// The markdown of a hover answer.
pub fn hover_text(hover: &Value) -> String {
    hover["contents"]["value"]
        .as_str()
        .unwrap_or_else(|| panic!("a markdown hover: {hover}"))
        .to_string()
}
