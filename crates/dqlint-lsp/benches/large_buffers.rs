//! Typing in large buffers, over the protocol: a flowgroup of 8k and 24k
//! lines and a 10 MB one, edited at 20 keys/s; for each burst of keys, the
//! time from the last keystroke's `didChange` to the `publishDiagnostics`
//! of its version, and the process's memory before the buffer is opened,
//! at its peak and after it is closed.
//!
//! ```text
//! cargo bench -p dqlint-lsp --bench large_buffers [-- BURSTS [NAME]]
//! ```
//!
//! Each buffer is measured in a process of its own (the bench runs itself
//! once per buffer), so one buffer's memory does not count in the next
//! one's. The flowgroup is a file of the project on disk when the server
//! starts, as a generated flowgroup is: "before" is the server with the
//! project loaded, the file's on-disk model included. Each key removes or
//! restores the `$` of a `${token}` in the middle of the file, so the
//! findings of every key differ from the last (DQ603 comes and goes) and
//! an odd burst changes what was last published; the buffer is closed with
//! the text it was opened with. Figures go to docs/lsp-latency.md.

#[path = "../tests/common/mod.rs"]
mod common;

use std::path::Path;
use std::time::{Duration, Instant};

use common::{uri, TestClient};
use serde_json::json;

/// Twenty keys a second.
const KEY_GAP: Duration = Duration::from_millis(50);
const KEYS_PER_BURST: usize = 5;

/// The buffers: name and number of actions (10 lines an action).
const BUFFERS: [(&str, usize); 3] = [
    ("lines_8k", 800),
    ("lines_24k", 2_400),
    ("buffer_10mb", 55_000),
];

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

/// Resident memory of this process (the server runs in it) from
/// `/proc/self/statm`, and its peak (VmHWM), in MB.
fn memory() -> (f64, f64) {
    let page_mb = 4096.0 / (1024.0 * 1024.0);
    let rss = std::fs::read_to_string("/proc/self/statm")
        .ok()
        .and_then(|s| s.split_whitespace().nth(1)?.parse::<f64>().ok())
        .map_or(0.0, |pages| pages * page_mb);
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let peak = status
        .lines()
        .find(|l| l.starts_with("VmHWM:"))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|kb| kb.parse::<f64>().ok())
        .map_or(0.0, |kb| kb / 1024.0);
    (rss, peak)
}

fn quantiles(mut samples: Vec<Duration>) -> (f64, f64) {
    samples.sort();
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    (
        ms(samples[samples.len() / 2]),
        ms(samples[(samples.len() * 9 / 10).min(samples.len() - 1)]),
    )
}

fn write(root: &Path, rel: &str, text: &str) {
    let path = root.join(rel);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

/// One buffer, in this process.
async fn run(name: &str, actions: usize, bursts: usize) {
    let temp = tempfile::tempdir().unwrap();
    let root = std::fs::canonicalize(temp.path()).unwrap().join("project");
    let text = flowgroup(actions);
    write(&root, "lhp.yaml", "name: big\nversion: \"1.0\"\n");
    write(
        &root,
        "substitutions/dev.yaml",
        "dev:\n  catalog: acme_dev\n",
    );
    let small = "pipelines/bronze/small.yaml";
    write(
        &root,
        small,
        "pipeline: bronze\nflowgroup: small\nactions: []\n",
    );
    let rel = format!("pipelines/bronze/{name}.yaml");
    write(&root, &rel, &text);
    let path = root.join(&rel);
    let file_uri = uri(&path);

    let mut client = TestClient::start();
    client.initialize(&root, json!({})).await;
    // The first open waits for the project's load.
    client.open(&root.join(small), 1);
    client
        .diagnostics(&uri(&root.join(small)), |p| p["version"] == 1)
        .await;
    tokio::time::sleep(Duration::from_secs(1)).await;
    let (rss_before, _) = memory();

    let lines = text.lines().count();
    // The `$` of the `${catalog}` of the middle action.
    let middle = actions / 2;
    let line = 3 + middle * ACTION.lines().count() + 5;
    let column = text.lines().nth(line).unwrap().find("${").unwrap() as u32;
    let at = (line as u32, column);

    let opened = Instant::now();
    client.open(&path, 1);
    client.diagnostics(&file_uri, |p| p["version"] == 1).await;
    let open_ms = opened.elapsed().as_secs_f64() * 1e3;

    let mut version = 1;
    let mut removed = false;
    let key = |client: &mut TestClient, version: i32, removed: &mut bool| {
        let (end, new) = if *removed {
            (at, "$")
        } else {
            ((at.0, at.1 + 1), "")
        };
        *removed = !*removed;
        client.change(&path, version, at, end, new);
    };
    let mut finals = Vec::new();
    for _ in 0..bursts {
        let mut last_sent = Instant::now();
        for _ in 0..KEYS_PER_BURST {
            version += 1;
            last_sent = Instant::now();
            key(&mut client, version, &mut removed);
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
    if removed {
        version += 1;
        key(&mut client, version, &mut removed);
        let wanted = version;
        client
            .diagnostics(&file_uri, |p| p["version"] == json!(wanted))
            .await;
    }
    let (_, peak) = memory();
    client.notify(
        "textDocument/didClose",
        json!({ "textDocument": { "uri": file_uri } }),
    );
    tokio::time::sleep(Duration::from_secs(2)).await;
    let (rss_after, _) = memory();
    let (p50, p90) = quantiles(finals);
    println!(
        "{name}: {lines} lines, {:.1} MB; open -> diagnostics {open_ms:.0} ms; last key -> final diagnostics at 20 keys/s: median {p50:.0} ms, p90 {p90:.0} ms ({bursts} bursts of {KEYS_PER_BURST}); memory {rss_before:.0} MB before open, peak {peak:.0} MB, {rss_after:.0} MB after close ({:+.1}%)",
        text.len() as f64 / 1e6,
        (rss_after - rss_before) / rss_before * 100.0
    );
    client.shutdown_and_exit().await;
}

fn main() {
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| a != "--bench")
        .collect();
    // `--one NAME BURSTS`: measure that buffer here (the bench's children).
    if let [flag, name, bursts] = args.as_slice() {
        if flag == "--one" {
            let (name, actions) = BUFFERS
                .iter()
                .find(|(n, _)| n == name)
                .copied()
                .expect("a buffer name");
            let bursts: usize = bursts.parse().expect("a number of bursts");
            tokio::runtime::Builder::new_multi_thread()
                .worker_threads(2)
                .enable_all()
                .build()
                .unwrap()
                .block_on(run(name, actions, bursts));
            return;
        }
    }
    let bursts: usize = args.first().and_then(|n| n.parse().ok()).unwrap_or(10);
    let only = args.get(1);
    let me = std::env::current_exe().unwrap();
    for (name, _) in BUFFERS {
        if only.is_some_and(|o| o != name) {
            continue;
        }
        let bursts = if name == "buffer_10mb" {
            bursts.min(5)
        } else {
            bursts
        };
        let status = std::process::Command::new(&me)
            .args(["--one", name, &bursts.to_string()])
            .status()
            .unwrap();
        assert!(status.success(), "{name}: {status}");
    }
}
