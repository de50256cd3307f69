//! Reading the client's frames. tower-lsp-server's own reader stops for
//! good at the first message it cannot decode, which would end the server
//! on one bad frame; here every frame is checked: a well-formed one becomes
//! the request or response it holds; a broken one becomes a
//! `dqlint/invalidMessage` request (or notification) that the server
//! answers with the JSON-RPC error the client should get. The connection's
//! loop is in [`crate::transport`].

use serde::de::{Deserializer, IgnoredAny};
use serde::Deserialize;
use serde_json::{json, Value};
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncReadExt, BufReader};
use tower_lsp_server::jsonrpc::{Id, Request, Response};

pub const INVALID_MESSAGE: &str = "dqlint/invalidMessage";

/// Frames larger than this are refused rather than buffered.
const MAX_FRAME: usize = 256 * 1024 * 1024;

/// Header lines are read this many bytes at a time at most.
const MAX_HEADER_LINE: u64 = 64 * 1024;

/// A message from the client, as the server's service takes it.
pub enum Incoming {
    Request(Request),
    /// The answer to one of the server's own requests
    /// (`workspace/configuration`, `client/registerCapability`...).
    Response(Response),
}

pub enum Frame {
    Message(Vec<u8>),
    Broken(String),
    End,
}

pub async fn read_frame<I: AsyncRead + Unpin>(input: &mut BufReader<I>) -> Frame {
    let mut length: Option<Result<usize, String>> = None;
    let mut saw_header = false;
    loop {
        let mut line = Vec::new();
        // Bounded: the body of a refused frame, read as header lines, must
        // not pile up in memory waiting for a newline.
        match (&mut *input)
            .take(MAX_HEADER_LINE)
            .read_until(b'\n', &mut line)
            .await
        {
            Ok(0) | Err(_) => return Frame::End,
            Ok(_) => {}
        }
        let line = String::from_utf8_lossy(&line);
        let mut line = line.trim_end_matches(['\r', '\n']);
        // After a broken frame (no Content-Length, or one shorter than its
        // body) the rest of that body runs into the next frame's header on
        // one line: start reading the header where it starts, so that the
        // next message is not lost with the broken one.
        if let Some(at) = header_start(line) {
            line = &line[at..];
        }
        if line.is_empty() {
            if !saw_header {
                continue; // Stray blank lines between frames.
            }
            break;
        }
        saw_header = true;
        if let Some((name, value)) = line.split_once(':') {
            if name.trim().eq_ignore_ascii_case("content-length") {
                length = Some(
                    value
                        .trim()
                        .parse::<usize>()
                        .map_err(|e| format!("bad Content-Length `{}`: {e}", value.trim())),
                );
            }
        }
    }
    let length = match length {
        None => return Frame::Broken("missing Content-Length header".into()),
        Some(Err(reason)) => return Frame::Broken(reason),
        Some(Ok(n)) if n > MAX_FRAME => {
            return Frame::Broken(format!("a {n}-byte message is too large"))
        }
        Some(Ok(n)) => n,
    };
    let mut body = vec![0; length];
    match input.read_exact(&mut body).await {
        Ok(_) => Frame::Message(body),
        Err(_) => Frame::End,
    }
}

/// Where a `Content-Length` header starts in `line` when something else
/// (the tail of a broken frame's body) comes before it.
fn header_start(line: &str) -> Option<usize> {
    const NAME: &[u8] = b"content-length:";
    let bytes = line.as_bytes();
    (1..bytes.len().saturating_sub(NAME.len() - 1))
        .find(|&at| bytes[at..at + NAME.len()].eq_ignore_ascii_case(NAME))
}

/// What the frame `body` holds, checked as tower-lsp-server's reader would
/// read it (a response first, then a request or notification), with the
/// messages it would refuse or leave unanswered substituted.
pub fn decode(body: &[u8]) -> Incoming {
    if let Ok(request) = serde_json::from_slice::<Request>(body) {
        // LSP: a request whose method starts with `$/` that the receiver
        // does not know gets MethodNotFound. tower-lsp-server drops such
        // requests unanswered; no `$/` request is served here (the `$/`
        // methods the server knows are notifications).
        if let Some(id) = request.id() {
            if request.method().starts_with("$/") {
                let id = serde_json::to_value(id).ok();
                let reason = format!("method not found: {}", request.method());
                return substitute(id, -32601, &reason);
            }
        }
        // A request's fields all have defaults, so a response reads as a
        // request too: it is a response when it reads as one.
        if may_be_response(body) {
            if let Ok(response) = serde_json::from_slice::<Response>(body) {
                return Incoming::Response(response);
            }
        }
        return Incoming::Request(request);
    }
    if let Ok(response) = serde_json::from_slice::<Response>(body) {
        return Incoming::Response(response);
    }
    match serde_json::from_slice::<Value>(body) {
        Err(e) => substitute(None, -32700, &format!("the message is not JSON: {e}")),
        Ok(value) => {
            let id = value
                .get("id")
                .filter(|id| id.is_string() || id.is_i64() || id.is_u64())
                .cloned();
            let is_request = value.get("method").is_some() && id.is_some();
            let reason =
                "the message is not a valid JSON-RPC 2.0 request, notification or response";
            if is_request {
                substitute(id, -32600, reason)
            } else {
                // A broken notification or response: nobody waits for an answer.
                Incoming::Request(
                    Request::build(INVALID_MESSAGE)
                        .params(json!({ "code": -32600, "reason": reason }))
                        .finish(),
                )
            }
        }
    }
}

/// Whether `body` has a `result` or an `error` member, without which it is
/// no response (a check that reads no value, so a large request's text is
/// not copied again to find that it is not a response).
fn may_be_response(body: &[u8]) -> bool {
    fn present<'de, D: Deserializer<'de>>(value: D) -> Result<bool, D::Error> {
        IgnoredAny::deserialize(value).map(|_| true)
    }
    #[derive(Deserialize)]
    struct Members {
        #[serde(default, deserialize_with = "present")]
        result: bool,
        #[serde(default, deserialize_with = "present")]
        error: bool,
    }
    serde_json::from_slice::<Members>(body).is_ok_and(|m| m.result || m.error)
}

/// A request the server answers with error `code` under `id` (null when the
/// id could not be read, as JSON-RPC asks).
pub fn substitute(id: Option<Value>, code: i64, reason: &str) -> Incoming {
    let id = id
        .and_then(|id| serde_json::from_value::<Id>(id).ok())
        .unwrap_or(Id::Null);
    Incoming::Request(
        Request::build(INVALID_MESSAGE)
            .params(json!({ "code": code, "reason": reason }))
            .id(id)
            .finish(),
    )
}
