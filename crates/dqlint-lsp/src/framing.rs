//! A guard in front of the JSON-RPC reader. tower-lsp-server's reader stops
//! for good at the first message it cannot decode (the stream ends after a
//! codec error), which would end the server on one bad frame. Here every
//! frame is checked first: a well-formed one passes unchanged; a broken one
//! becomes a `dqlint/invalidMessage` request (or notification) that the
//! server answers with the JSON-RPC error the client should get.

use serde_json::{json, Value};
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncReadExt, AsyncWriteExt, BufReader, DuplexStream};
use tower_lsp_server::jsonrpc::{Request, Response};

pub const INVALID_MESSAGE: &str = "dqlint/invalidMessage";

/// Frames larger than this are refused rather than buffered.
const MAX_FRAME: usize = 256 * 1024 * 1024;

/// Header lines are read this many bytes at a time at most.
const MAX_HEADER_LINE: u64 = 64 * 1024;

/// Returns a reader carrying only well-formed frames of `input`.
pub fn guard<I>(input: I) -> DuplexStream
where
    I: AsyncRead + Unpin + Send + 'static,
{
    let (reader, mut writer) = tokio::io::duplex(1 << 16);
    tokio::spawn(async move {
        let mut input = BufReader::new(input);
        loop {
            let frame = match read_frame(&mut input).await {
                Frame::Message(body) => checked(body),
                Frame::Broken(reason) => substitute(None, -32700, &reason),
                Frame::End => break,
            };
            let mut bytes = format!("Content-Length: {}\r\n\r\n", frame.len()).into_bytes();
            bytes.extend_from_slice(&frame);
            if writer.write_all(&bytes).await.is_err() {
                break;
            }
        }
        // Dropping the writer ends the server's input: it exits.
    });
    reader
}

enum Frame {
    Message(Vec<u8>),
    Broken(String),
    End,
}

async fn read_frame<I: AsyncRead + Unpin>(input: &mut BufReader<I>) -> Frame {
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

/// The body if the server's reader accepts it, else its substitute.
fn checked(body: Vec<u8>) -> Vec<u8> {
    if let Ok(request) = serde_json::from_slice::<Request>(&body) {
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
        return body;
    }
    if serde_json::from_slice::<Response>(&body).is_ok() {
        return body;
    }
    match serde_json::from_slice::<Value>(&body) {
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
                let message = json!({ "jsonrpc": "2.0", "method": INVALID_MESSAGE, "params": { "code": -32600, "reason": reason } });
                message.to_string().into_bytes()
            }
        }
    }
}

/// A request the server answers with error `code` under `id` (null when the
/// id could not be read, as JSON-RPC asks).
fn substitute(id: Option<Value>, code: i64, reason: &str) -> Vec<u8> {
    let message = json!({
        "jsonrpc": "2.0",
        "id": id.unwrap_or(Value::Null),
        "method": INVALID_MESSAGE,
        "params": { "code": code, "reason": reason },
    });
    message.to_string().into_bytes()
}
