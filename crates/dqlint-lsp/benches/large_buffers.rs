//! Typing in large buffers, over the protocol: a flowgroup of 8k and 24k
//! lines and a 10 MB one, edited at 20 keys/s; for each burst of keys, the
//! time from the last keystroke's `didChange` to the `publishDiagnostics`
//! of its version, and the process's memory before the buffer is opened,
//! at its peak and after it is closed.
//!
//! ```text
//! cargo bench -p dqlint-lsp --bench large_buffers [-- BURSTS]
//! ```
//!
//! Each key removes or restores the `$` of a `${token}` in the middle of
//! the file, so the findings of every key differ from the last (DQ603
//! comes and goes) and an odd burst changes what was last published.
//! Figures go to docs/lsp-latency.md.

#[path = "../tests/common/mod.rs"]
mod common;

use std::path::Path;
use std::time::{Duration, Instant};

use common::{uri, TestClient};
use serde_json::json;

/// Twenty keys a second.
const KEY_GAP: Duration = Duration::from_millis(50);
const KEYS_PER_BURST: usize = 5;

/// Lines of one generated action.
const ACTION: &str = "  - name: load_N
    type: load
    readMode: stream
    source:
      type: delta
      catalog: ${catalog}
      schema: raw
      table: t_N
    target: v_N
    description: \"load N\"
";

fn flowgroup(actions: usize) -> String {
    let mut out = String::from("pipeline: bronze\nflowgroup: big\nactions:\n");
    for i in 0..actions {
        out.push_str(&ACTION.replace('N', &i.to_string()));
    }
    out
}

/// VmRSS and VmHWM of this process (the server runs in it), in MB.
fn memory() -> (f64, f64) {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let field = |name: &str| {
        status
            .lines()
            .find(|l| l.starts_with(name))
            .and_then(|l| l.split_whitespace().nth(1))
            .and_then(|kb| kb.parse::<f64>().ok())
            .map_or(0.0, |kb| kb / 1024.0)
    };
    (field("VmRSS:"), field("VmHWM:"))
}

fn median(mut samples: Vec<Duration>) -> (f64, f64) {
    samples.sort();
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    (
        ms(samples[samples.len() / 2]),
        ms(samples[(samples.len() * 9 / 10).min(samples.len() - 1)]),
    )
}

async fn run(client: &mut TestClient, root: &Path, name: &str, actions: usize, bursts: usize) {
    let text = flowgroup(actions);
    let path = root.join(format!("pipelines/bronze/{name}.yaml"));
    std::fs::write(&path, &text).unwrap();
    let lines = text.lines().count();
    // The `$` of the `${catalog}` of the middle action.
    let middle = actions / 2;
    let line = 3 + middle * ACTION.lines().count() + 5;
    let column = text.lines().nth(line).unwrap().find("${").unwrap() as u32;
    let at = (line as u32, column);
    let file_uri = uri(&path);

    let (rss_before, _) = memory();
    let opened = Instant::now();
    client.open(&path, 1);
    client.diagnostics(&file_uri, |p| p["version"] == 1).await;
    let open_ms = opened.elapsed().as_secs_f64() * 1e3;

    let mut version = 1;
    let mut finals = Vec::new();
    let mut removed = false;
    for _ in 0..bursts {
        let mut last_sent = Instant::now();
        for _ in 0..KEYS_PER_BURST {
            version += 1;
            let (end, new) = if removed {
                (at, "$")
            } else {
                ((at.0, at.1 + 1), "")
            };
            removed = !removed;
            last_sent = Instant::now();
            client.change(&path, version, at, end, new);
            tokio::time::sleep(KEY_GAP).await;
        }
        let wanted = version;
        client
            .diagnostics(&file_uri, |p| p["version"] == json!(wanted))
            .await;
        finals.push(last_sent.elapsed());
        // A pause between bursts, as a typist makes.
        tokio::time::sleep(Duration::from_millis(300)).await;
    }
    let (_, peak) = memory();
    client.notify(
        "textDocument/didClose",
        json!({ "textDocument": { "uri": file_uri } }),
    );
    tokio::time::sleep(Duration::from_secs(2)).await;
    let (rss_after, _) = memory();
    let (p50, p90) = median(finals);
    println!(
        "{name}: {lines} lines, {:.1} MB; open -> diagnostics {open_ms:.0} ms; last key -> final diagnostics at 20 keys/s: median {p50:.0} ms, p90 {p90:.0} ms ({bursts} bursts of {KEYS_PER_BURST}); memory {rss_before:.0} MB before, peak {peak:.0} MB, {rss_after:.0} MB after close",
        text.len() as f64 / 1e6
    );
    std::fs::remove_file(&path).ok();
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    let bursts: usize = std::env::args()
        .skip(1)
        .find(|a| a != "--bench")
        .and_then(|n| n.parse().ok())
        .unwrap_or(10);
    let temp = tempfile::tempdir().unwrap();
    let root = std::fs::canonicalize(temp.path()).unwrap().join("project");
    for (rel, text) in [
        ("lhp.yaml", "name: big\nversion: \"1.0\"\n"),
        ("substitutions/dev.yaml", "dev:\n  catalog: acme_dev\n"),
        (
            "pipelines/bronze/small.yaml",
            "pipeline: bronze\nflowgroup: small\nactions: []\n",
        ),
    ] {
        let path = root.join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
    let mut client = TestClient::start();
    client.initialize(&root, json!({})).await;
    client.open(&root.join("pipelines/bronze/small.yaml"), 1);
    client
        .diagnostics(&uri(&root.join("pipelines/bronze/small.yaml")), |p| {
            p["version"] == 1
        })
        .await;
    // 10 lines an action: 8k and 24k lines; about 10 MB.
    run(&mut client, &root, "lines_8k", 800, bursts).await;
    run(&mut client, &root, "lines_24k", 2_400, bursts).await;
    run(&mut client, &root, "buffer_10mb", 55_000, bursts.min(5)).await;
    client.shutdown_and_exit().await;
}
