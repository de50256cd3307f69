//! dqlint's language server: LSP 3.17 over stdio on `tower-lsp-server`.
//! The only crate that knows LSP types; the engine is the CLI's
//! (`Project::load` + `dqlint_linter::lint`), run on the open buffers.

mod convert;
mod documents;
mod framing;
mod handlers;
mod memory;
mod server;
mod settings;
mod transport;
mod workspace;

use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncWrite};
use tower_lsp_server::LspService;

pub use settings::{Settings, DEFAULT_RULE_DOCS_URL};

/// Serves one client over `input`/`output` until `exit` (or end of input).
/// Returns whether `shutdown` was received first.
pub async fn serve<I, O>(input: I, output: O) -> bool
where
    I: AsyncRead + Unpin + Send + 'static,
    O: AsyncWrite,
{
    memory::configure_allocator();
    let shutdown = Arc::new(AtomicBool::new(false));
    let flag = shutdown.clone();
    let (service, socket) = LspService::build(move |client| server::Backend::new(client, flag))
        .custom_method(framing::INVALID_MESSAGE, server::Backend::invalid_message)
        .finish();
    transport::serve(input, output, service, socket).await;
    shutdown.load(Ordering::SeqCst)
}

/// `dqlint server`: serves on stdin/stdout. Exit status 0 after
/// `shutdown` + `exit`, 1 when the client exits without `shutdown`.
pub fn run_stdio() -> ExitCode {
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(e) => {
            eprintln!("dqlint: error: cannot start the server runtime: {e}");
            return ExitCode::from(2);
        }
    };
    // Served from a task, not from this thread: the protocol's reads (a
    // large buffer's text, every change's JSON) then allocate on the
    // runtime's workers, whose heaps the close of a large buffer collects
    // (crates/dqlint-lsp/src/memory.rs); this thread, parked in `block_on`,
    // would keep what it freed until it next allocated.
    let served = runtime
        .block_on(async { tokio::spawn(serve(tokio::io::stdin(), tokio::io::stdout())).await });
    let clean = match served {
        Ok(clean) => clean,
        // A panic in the protocol's own loop unwinds as it did through
        // `block_on`.
        Err(e) if e.is_panic() => std::panic::resume_unwind(e.into_panic()),
        Err(_) => false,
    };
    // A lint still running must not hold the process after `exit`.
    runtime.shutdown_timeout(Duration::from_millis(100));
    if clean {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}
