//! The server's end of the connection: reads the client's frames (checked
//! by [`crate::framing`]), hands requests to the `LspService` and the
//! client's answers to the server's own pending requests, and writes the
//! service's answers and the server's requests to the client.
//!
//! tower-lsp-server's `Server::serve` does the same with tokio-util's
//! `FramedRead`, whose buffer grows to the largest message received and is
//! kept for the session: after a large buffer's `didOpen` the server kept
//! a copy of its size (0.5 MB for 24k lines, 11 MB for 11 MB) once the
//! buffer was closed. Here a message's bytes are freed once it is decoded,
//! and an answer's once it is written. What the service sees is what that
//! loop gave it: the same concurrency (4 requests at once, in order of
//! arrival), the service ready before each request (it is not during
//! `initialize`), and the input left at `exit`.

use futures::channel::mpsc;
use futures::{future, stream, SinkExt, StreamExt, TryFutureExt};
use serde::Serialize;
use tokio::io::{AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tower_lsp_server::jsonrpc::{Request, Response};
use tower_lsp_server::ClientSocket;
use tower_service::Service;

use crate::framing::{self, Frame, Incoming};

/// Requests handled at once (tower-lsp-server's default): a long request
/// does not hold up the next ones, and `$/cancelRequest` can reach it.
const MAX_CONCURRENCY: usize = 4;

/// Requests read ahead of the ones being handled.
const MESSAGE_QUEUE_SIZE: usize = 100;

/// A message to the client.
#[derive(Serialize)]
#[serde(untagged)]
enum Outgoing {
    Response(Response),
    Request(Request),
}

/// Serves `service` over `input`/`output` until `exit` or the end of input,
/// then until the answers of the requests read before are written.
pub async fn serve<I, O, S>(input: I, output: O, mut service: S, socket: ClientSocket)
where
    I: AsyncRead + Unpin,
    O: AsyncWrite,
    S: Service<Request, Response = Option<Response>>,
    S::Future: Send + 'static,
{
    let (client_requests, mut client_responses) = socket.split();
    let (client_requests, stop_client_requests) = stream::abortable(client_requests);
    let (mut responses_tx, responses_rx) = mpsc::channel::<Outgoing>(0);
    let (mut server_tasks_tx, server_tasks_rx) = mpsc::channel(MESSAGE_QUEUE_SIZE);

    let handle_requests = server_tasks_rx
        .buffer_unordered(MAX_CONCURRENCY)
        .filter_map(future::ready)
        .map(|response| Ok(Outgoing::Response(response)))
        .forward(responses_tx.clone());

    let write_output = async {
        let mut output = std::pin::pin!(output);
        let mut outgoing = stream::select(responses_rx, client_requests.map(Outgoing::Request));
        while let Some(message) = outgoing.next().await {
            if write_message(&mut output, &message).await.is_err() {
                // The client is gone: what is still sent goes nowhere (the
                // channels close with this stream).
                break;
            }
        }
    };

    let read_input = async {
        let mut input = BufReader::new(input);
        loop {
            let message = match framing::read_frame(&mut input).await {
                // The frame's bytes are dropped here, once decoded.
                Frame::Message(body) => framing::decode(&body),
                Frame::Broken(reason) => framing::substitute(None, -32700, &reason),
                Frame::End => break,
            };
            match message {
                Incoming::Request(request) => {
                    // Not ready while `initialize` runs; an error once the
                    // server has exited.
                    if future::poll_fn(|cx| service.poll_ready(cx)).await.is_err() {
                        break;
                    }
                    // LSP: the server exits at `exit`, whether or not the
                    // client closes its end.
                    let exit = request.method() == "exit";
                    let answer = service.call(request).unwrap_or_else(|_| None);
                    if server_tasks_tx.send(answer).await.is_err() || exit {
                        break;
                    }
                }
                Incoming::Response(response) => {
                    if client_responses.send(response).await.is_err() {
                        break;
                    }
                }
            }
        }
        server_tasks_tx.disconnect();
        responses_tx.disconnect();
        stop_client_requests.abort();
    };

    // A failed forward only means the output closed first.
    let (_, (), ()) = futures::join!(handle_requests, write_output, read_input);
}

/// Writes one framed message and flushes it.
async fn write_message<O: AsyncWrite + Unpin>(
    output: &mut O,
    message: &Outgoing,
) -> std::io::Result<()> {
    let body = serde_json::to_string(message)?;
    let frame = format!("Content-Length: {}\r\n\r\n{body}", body.len());
    drop(body);
    output.write_all(frame.as_bytes()).await?;
    output.flush().await
}
