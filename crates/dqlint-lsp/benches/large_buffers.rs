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
//! project loaded, the file's on-disk model included. Two kinds of burst
//! alternate. In a `$` burst each key removes or restores the `$` of a
//! `${token}` in the middle of the file, so the findings of every key
//! differ from the last (DQ603 comes and goes) and an odd burst changes
//! what was last published; the text goes back and forth between two
//! states. In a typing burst each key types a letter into a value, so
//! every key makes a new text; every other one has the `$` removed, a flow
//! mapping in the document, which tree-sitter reads. A burst's keys are
//! 50 ms apart; the time measured starts at its last key. The buffer is
//! closed with the text it was opened with. Figures go to
//! docs/lsp-latency.md.

/// The server as `dqlint server` runs it: the binary allocates with
/// mimalloc (docs/performance.md, "Allocator"), and the server runs in
/// this process. With `DQLINT_BENCH_HEAP=1`, the blocks allocated between
/// "before open" and "after close" that are still live are printed by
/// allocating stack (`heap.rs`).
#[global_allocator]
static ALLOCATOR: heap::Heap = heap::Heap;

mod heap;

#[path = "../tests/common/mod.rs"]
mod common;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use common::{uri, TestClient};
use dqlint_linter::relint::relint;
use dqlint_linter::{Config, Selection};
use dqlint_project::{Edits, LoadOptions, Project};
use serde_json::json;

/// Twenty keys a second.
const KEY_GAP: Duration = Duration::from_millis(50);
const KEYS_PER_BURST: usize = 5;

/// The buffers: name and number of actions (10 lines an action).
const BUFFERS: [(&str, usize); 4] = [
    // A small flowgroup: what typing costs the server's memory whatever
    // the buffer's size (code and tables first used by editing, threads).
    ("lines_100", 10),
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

/// This process's anonymous resident memory (heaps, stacks; not the
/// binary's pages) from `/proc/self/smaps_rollup`, in MB.
fn anonymous() -> f64 {
    std::fs::read_to_string("/proc/self/smaps_rollup")
        .unwrap_or_default()
        .lines()
        .find_map(|l| l.strip_prefix("Anonymous:"))
        .and_then(|kb| kb.trim().trim_end_matches("kB").trim().parse::<f64>().ok())
        .map_or(0.0, |kb| kb / 1024.0)
}

/// This process's threads (`/proc/self/status`).
fn threads() -> usize {
    std::fs::read_to_string("/proc/self/status")
        .unwrap_or_default()
        .lines()
        .find_map(|l| l.strip_prefix("Threads:"))
        .and_then(|n| n.trim().parse().ok())
        .unwrap_or(0)
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

/// Writes the bench's project under `root`: the generated flowgroup of
/// `actions` actions (`pipelines/bronze/NAME.yaml`), a small one, and a
/// substitutions file; the flowgroup's path and text, and where the `$` of
/// the `${catalog}` of its middle action is (line, column).
fn project(root: &Path, name: &str, actions: usize) -> (PathBuf, String, (u32, u32)) {
    let text = flowgroup(actions);
    write(root, "lhp.yaml", "name: big\nversion: \"1.0\"\n");
    write(
        root,
        "substitutions/dev.yaml",
        "dev:\n  catalog: acme_dev\n",
    );
    let small = "pipelines/bronze/small.yaml";
    write(
        root,
        small,
        "pipeline: bronze\nflowgroup: small\nactions: []\n",
    );
    let rel = format!("pipelines/bronze/{name}.yaml");
    write(root, &rel, &text);
    let path = root.join(&rel);
    let middle = actions / 2;
    let line = 3 + middle * ACTION.lines().count() + 5;
    let column = text.lines().nth(line).unwrap().find("${").unwrap() as u32;
    (path, text, (line as u32, column))
}

/// One buffer, in this process.
async fn run(name: &str, actions: usize, bursts: usize, heap_on: bool) {
    let temp = tempfile::tempdir().unwrap();
    let root = std::fs::canonicalize(temp.path()).unwrap().join("project");
    let (path, text, at) = project(&root, name, actions);
    let small = "pipelines/bronze/small.yaml";
    let file_uri = uri(&path);

    let mut client = TestClient::start();
    client.initialize(&root, json!({})).await;
    // The first open waits for the project's load.
    client.open(&root.join(small), 1);
    client
        .diagnostics(&uri(&root.join(small)), |p| p["version"] == 1)
        .await;
    tokio::time::sleep(Duration::from_secs(1)).await;
    // This thread is the client's (the server runs on the runtime's
    // workers and blocking threads): what the client freed here, mimalloc
    // keeps in this thread's heap until it collects. In `dqlint server` the
    // client is another process: its memory is not counted.
    heap::collect_here();
    let (rss_before, _) = memory();
    let anon_before = anonymous();
    let threads_before = threads();
    let live_before = heap::live();
    let maps_before = heap_on.then(heap::mappings);
    heap::start();

    let lines = text.lines().count();
    let line = at.0 as usize;

    let opened = Instant::now();
    client.open(&path, 1);
    client.diagnostics(&file_uri, |p| p["version"] == 1).await;
    let open_ms = opened.elapsed().as_secs_f64() * 1e3;

    // Two kinds of burst. The `$` key: each key removes or restores the
    // `$`, so the text goes back and forth between two states (at first
    // the model's and one with DQ603's subject). Typing: each key types a
    // letter after the middle action's `table:` value, so every key makes
    // a text not seen before (nor the model's). A `$` burst has an
    // odd number of keys: every other typing burst types with the `$`
    // removed, `{catalog}` a flow mapping, which the YAML line reader
    // refuses: tree-sitter reads the document then.
    let table_line = line + 2;
    let table_end = text.lines().nth(table_line).unwrap().len() as u32;
    let mut version = 1;
    let mut removed = false;
    let mut typed = 0u32;
    let mut dollar = Vec::new();
    let mut typing = Vec::new();
    let mut typing_flow = Vec::new();
    for burst in 0..bursts * 2 {
        let typing_burst = burst % 2 == 1;
        let mut last_sent = Instant::now();
        for k in 0..KEYS_PER_BURST {
            // The gap is between keys: the wait after the last one is what
            // is measured.
            if k > 0 {
                tokio::time::sleep(KEY_GAP).await;
            }
            version += 1;
            last_sent = Instant::now();
            if !typing_burst {
                let (end, new) = if removed {
                    (at, "$")
                } else {
                    ((at.0, at.1 + 1), "")
                };
                removed = !removed;
                client.change(&path, version, at, end, new);
            } else {
                let end = (table_line as u32, table_end + typed);
                typed += 1;
                client.change(&path, version, end, end, "x");
            }
        }
        let wanted = version;
        client
            .diagnostics(&file_uri, |p| p["version"] == json!(wanted))
            .await;
        let elapsed = last_sent.elapsed();
        if std::env::var_os("DQLINT_BENCH_BURSTS").is_some() {
            eprintln!(
                "trace burst {burst} ({}), versions up to {wanted}: {:.1} ms",
                if typing_burst { "typing" } else { "$" },
                elapsed.as_secs_f64() * 1e3
            );
        }
        if typing_burst && removed {
            typing_flow.push(elapsed);
        } else if typing_burst {
            typing.push(elapsed);
        } else {
            dollar.push(elapsed);
        }
        // A pause between bursts, as a typist makes.
        tokio::time::sleep(Duration::from_millis(300)).await;
    }
    // Back to the text the buffer was opened with.
    let back = [
        (removed, (at, at, "$")),
        (
            typed > 0,
            (
                (table_line as u32, table_end),
                (table_line as u32, table_end + typed),
                "",
            ),
        ),
    ];
    for (needed, (start, end, new)) in back {
        if needed {
            version += 1;
            client.change(&path, version, start, end, new);
            let wanted = version;
            client
                .diagnostics(&file_uri, |p| p["version"] == json!(wanted))
                .await;
        }
    }
    let (_, peak) = memory();
    client.notify(
        "textDocument/didClose",
        json!({ "textDocument": { "uri": file_uri } }),
    );
    tokio::time::sleep(Duration::from_secs(2)).await;
    let (rss_client_uncollected, _) = memory();
    heap::collect_here();
    let (rss_after, _) = memory();
    let anon_after = anonymous();
    let threads_after = threads();
    if heap_on {
        println!(
            "  heap: Rust live bytes {:.2} MB before open, {:.2} MB after close",
            live_before as f64 / 1e6,
            heap::live() as f64 / 1e6
        );
        heap::stop(30);
        if let Some(before) = &maps_before {
            heap::print_mapping_changes(before);
        }
    }
    let ms = |(p50, p90): (f64, f64)| format!("median {p50:.0} ms, p90 {p90:.0} ms");
    println!(
        "{name}: {lines} lines, {:.1} MB; open -> diagnostics {open_ms:.0} ms; memory {rss_before:.1} MB before open, peak {peak:.0} MB, {rss_after:.1} MB after close ({:+.1}%; {rss_client_uncollected:.1} MB before the client's thread collected, {:+.1}%)",
        text.len() as f64 / 1e6,
        (rss_after - rss_before) / rss_before * 100.0,
        (rss_client_uncollected - rss_before) / rss_before * 100.0,
    );
    println!(
        "  of which anonymous (heaps, stacks; the rest is the binary's pages): {anon_before:.1} MB before open, {anon_after:.1} MB after close; threads {threads_before} before open, {threads_after} after close"
    );
    // tokio ends a blocking thread idle for 10 s (its keep-alive): the
    // threads started for the buffer's parses and re-lints, and their
    // heaps, are gone then.
    tokio::time::sleep(Duration::from_millis(10_500)).await;
    heap::collect_here();
    let (rss_later, _) = memory();
    println!(
        "  12.5 s after close: {rss_later:.1} MB ({:+.1}%), anonymous {:.1} MB, threads {}",
        (rss_later - rss_before) / rss_before * 100.0,
        anonymous(),
        threads()
    );
    println!(
        "  last key -> final diagnostics at 20 keys/s, bursts of {KEYS_PER_BURST}: `$` key {} ({bursts} bursts); typing {}; typing with a flow mapping in the document {} ({} bursts each)",
        ms(quantiles(dollar)),
        ms(quantiles(typing)),
        ms(quantiles(typing_flow)),
        bursts / 2
    );
    client.shutdown_and_exit().await;
    in_process(&root, &path, &text, at, bursts * KEYS_PER_BURST);
}

/// Median of `samples`, in milliseconds.
fn median_ms(mut samples: Vec<Duration>) -> f64 {
    samples.sort();
    samples[samples.len() / 2].as_secs_f64() * 1e3
}

/// The server's work per `$` key, step by step, without the protocol: the
/// buffer's parse brought up to date edit by edit (every key, none
/// coalesced) and the quick re-lint (slice, lint, and the slice dropped).
fn in_process(root: &Path, path: &Path, text: &str, at: (u32, u32), keys: usize) {
    let loaded = Project::load(root, &LoadOptions::default()).unwrap();
    let id = loaded.file_by_path(path).unwrap().id;
    let start: usize = text
        .split_inclusive('\n')
        .take(at.0 as usize)
        .map(str::len)
        .sum::<usize>()
        + at.1 as usize;
    let mut live = dqlint_yaml::LiveYaml::new(text);
    // Per key kind: removing the `$`, restoring it.
    let mut parse = [Vec::new(), Vec::new()];
    let mut relinted = [Vec::new(), Vec::new()];
    // The server keeps the last parse (its quick re-lint's view, for
    // hovers) while the next key is parsed: the parse is then shared.
    let mut previous = None;
    for i in 0..keys.max(10) {
        let restoring = i % 2;
        let started = Instant::now();
        if restoring == 0 {
            live.edit(start, start + 1, "");
        } else {
            live.edit(start, start, "$");
        }
        let yaml = live.yaml();
        parse[restoring].push(started.elapsed());
        previous = Some(yaml.clone());
        let new_text: Arc<str> = Arc::from(live.text());
        let mut edits = Edits::from(HashMap::from([(id, new_text)]));
        edits.parses.insert(id, yaml);
        let started = Instant::now();
        let done = relint(
            &loaded,
            id,
            &edits,
            &Config::default(),
            &Selection::default(),
            &|_| false,
            &Default::default(),
        )
        .unwrap();
        drop(done);
        relinted[restoring].push(started.elapsed());
    }
    drop(previous);
    let [parse_removing, parse_restoring] = parse.map(median_ms);
    let [relint_removing, relint_restoring] = relinted.map(median_ms);
    println!(
        "  in process, per key removing / restoring the `$`: parse {parse_removing:.1} / {parse_restoring:.1} ms, quick re-lint {relint_removing:.1} / {relint_restoring:.1} ms (medians); {:?}",
        live.stats()
    );
}

fn main() {
    let heap_on = heap::init();
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
                .block_on(run(name, actions, bursts, heap_on));
            return;
        }
    }
    // `--in-process NAME KEYS`: only the server's work per key, without
    // the protocol (for a profiler).
    if let [flag, name, keys] = args.as_slice() {
        if flag == "--in-process" {
            let actions = BUFFERS
                .iter()
                .find(|(n, _)| n == name)
                .map(|(_, actions)| *actions)
                .expect("a buffer name");
            let keys: usize = keys.parse().expect("a number of keys");
            let temp = tempfile::tempdir().unwrap();
            let root = std::fs::canonicalize(temp.path()).unwrap().join("project");
            let (path, text, at) = project(&root, name, actions);
            in_process(&root, &path, &text, at, keys);
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
