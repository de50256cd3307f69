//! Language-server latency on a large project: how long after a one-file
//! `didChange` the diagnostics of that file arrive, and how long the first
//! load takes. Drives the server in-process through the same framed JSON-RPC
//! pipes as the protocol tests.
//!
//! ```text
//! cargo bench -p dqlint-lsp --bench latency [-- PROJECT [EDITS]]
//! ```
//!
//! PROJECT defaults to the corpus' `performance_testing` (2,808
//! flowgroups), copied to a temporary folder first; EDITS to 200. Each edit
//! removes or restores the `$` of a `${token}` in a data_quality flowgroup,
//! so every edit changes the file's findings (DQ603 comes and goes).
//! Figures go to docs/lsp-latency.md.

#[path = "../tests/common/mod.rs"]
mod common;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use std::collections::HashMap;
use std::sync::Arc;

use common::{uri, TestClient};
use dqlint_linter::relint::relint;
use dqlint_linter::{Config, Selection};
use dqlint_project::{Edits, LoadOptions, Project};
use serde_json::json;

/// Byte range of the `$` at `(line, column)` (ASCII line).
fn locate(text: &str, at: (u32, u32)) -> (usize, usize) {
    let start: usize = text
        .split_inclusive('\n')
        .take(at.0 as usize)
        .map(str::len)
        .sum::<usize>()
        + at.1 as usize;
    (start, start + 1)
}

fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_tree(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
}

/// The first flowgroup (by path) with a data_quality action and a `${token}`.
fn pick_flowgroup(root: &Path) -> Option<PathBuf> {
    let mut pending = vec![root.join("pipelines")];
    let mut found: Vec<PathBuf> = Vec::new();
    while let Some(dir) = pending.pop() {
        for entry in std::fs::read_dir(&dir).ok()?.flatten() {
            let path = entry.path();
            if path.is_dir() {
                pending.push(path);
            } else if path.extension().is_some_and(|e| e == "yaml") {
                let text = std::fs::read_to_string(&path).unwrap_or_default();
                if text.contains("data_quality") && text.contains("${") {
                    found.push(path);
                }
            }
        }
    }
    found.sort();
    found.into_iter().next()
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    let index = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[index]
}

fn summary(label: &str, mut samples: Vec<Duration>) {
    samples.sort();
    println!(
        "{label}: {} edits, median {:.1} ms, p90 {:.1} ms, max {:.1} ms",
        samples.len(),
        percentile(&samples, 0.5).as_secs_f64() * 1e3,
        percentile(&samples, 0.9).as_secs_f64() * 1e3,
        samples.last().unwrap().as_secs_f64() * 1e3,
    );
}

/// Sends `count` edits toggling the `$` at `(line, column)`, each after
/// `pause`, and returns the time from each `didChange` to the file's
/// `publishDiagnostics` for that version.
async fn edits(
    client: &mut TestClient,
    path: &Path,
    at: (u32, u32),
    first_version: i32,
    count: usize,
    pause: Duration,
) -> Vec<Duration> {
    let file_uri = uri(path);
    let mut samples = Vec::new();
    for i in 0..count {
        let version = first_version + i as i32;
        tokio::time::sleep(pause).await;
        let removes = (version - first_version) % 2 == 0;
        let end = if removes { (at.0, at.1 + 1) } else { at };
        let text = if removes { "" } else { "$" };
        let sent = Instant::now();
        client.change(path, version, at, end, text);
        client
            .diagnostics(&file_uri, |p| p["version"] == json!(version))
            .await;
        samples.push(sent.elapsed());
    }
    samples
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    let mut args = std::env::args().skip(1).filter(|a| a != "--bench");
    let source = args.next().map(PathBuf::from).unwrap_or_else(|| {
        PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("../../../shared/corpus/lhp-examples/performance_testing")
    });
    let count: usize = args.next().and_then(|n| n.parse().ok()).unwrap_or(200);
    if !source.join("lhp.yaml").is_file() {
        eprintln!(
            "latency: no LHP project at {}; pass one as the first argument",
            source.display()
        );
        std::process::exit(2);
    }
    let temp = tempfile::tempdir().unwrap();
    let root = std::fs::canonicalize(temp.path()).unwrap().join("project");
    copy_tree(&source, &root);
    let Some(flowgroup) = pick_flowgroup(&root) else {
        eprintln!(
            "latency: no flowgroup with a data_quality action and a ${{token}} in {}",
            source.display()
        );
        std::process::exit(2);
    };
    let text = std::fs::read_to_string(&flowgroup).unwrap();
    let (line, line_text) = text
        .lines()
        .enumerate()
        .find(|(_, l)| l.contains("${"))
        .unwrap();
    let column = line_text.find("${").unwrap() as u32;
    let at = (line as u32, column);
    println!(
        "project: {} ({} bytes edited file: {})",
        source.display(),
        text.len(),
        flowgroup.strip_prefix(&root).unwrap().display()
    );

    // A whole parse of the edited file: what an incremental tree-sitter
    // re-parse could save per keystroke at most.
    let mut parses: Vec<Duration> = (0..50)
        .map(|_| {
            let start = Instant::now();
            std::hint::black_box(dqlint_yaml::parse(&text));
            start.elapsed()
        })
        .collect();
    parses.sort();
    println!(
        "full tree-sitter parse of the edited file: median {:.2} ms",
        percentile(&parses, 0.5).as_secs_f64() * 1e3
    );

    // The server's work per keystroke alone (no JSON-RPC, no scheduling):
    // the quick re-lint of the edited file on the loaded project.
    let loaded = Project::load(&root, &LoadOptions::default()).unwrap();
    let had_findings: std::collections::HashSet<_> =
        dqlint_linter::lint_configured(&loaded, &Config::default(), &Selection::default())
            .iter()
            .map(|f| f.primary.file)
            .collect();
    let id = loaded.file_by_path(&flowgroup).unwrap().id;
    let (start, end) = locate(&text, at);
    let edited: Arc<str> = Arc::from(format!("{}{}", &text[..start], &text[end..]));
    let mut work: Vec<Duration> = (0..100)
        .map(|i| {
            let new_text = if i % 2 == 0 {
                edited.clone()
            } else {
                Arc::from(text.as_str())
            };
            let edits = Edits::from(HashMap::from([(id, new_text)]));
            let started = Instant::now();
            let relinted = relint(
                &loaded,
                id,
                &edits,
                &Config::default(),
                &Selection::default(),
                &|id| had_findings.contains(&id),
                &Default::default(),
            )
            .unwrap();
            std::hint::black_box(relinted.findings.len());
            drop(relinted);
            started.elapsed()
        })
        .collect();
    work.sort();
    println!(
        "quick re-lint in-process (slice + lint + drop): median {:.1} ms, p90 {:.1} ms",
        percentile(&work, 0.5).as_secs_f64() * 1e3,
        percentile(&work, 0.9).as_secs_f64() * 1e3
    );

    // Edits of the files many others depend on, in-process: a template and
    // an expectations file used by hundreds of flowgroups, and the value of
    // a token used nearly everywhere. Each re-lints every file it affects.
    let wide = |rel: &str, edit: &dyn Fn(&str) -> String| {
        let Some(file) = loaded.files.iter().find(|f| f.rel == rel) else {
            return;
        };
        let edits = Edits::from(HashMap::from([(file.id, Arc::from(edit(&file.text)))]));
        let run = || {
            relint(
                &loaded,
                file.id,
                &edits,
                &Config::default(),
                &Selection::default(),
                &|id| had_findings.contains(&id),
                &Default::default(),
            )
            .unwrap()
        };
        let focus = run().focus.len();
        let mut samples: Vec<Duration> = (0..10)
            .map(|_| {
                let started = Instant::now();
                drop(run());
                started.elapsed()
            })
            .collect();
        samples.sort();
        println!(
            "quick re-lint of an edit to {rel} (re-lints {focus} files): median {:.0} ms",
            percentile(&samples, 0.5).as_secs_f64() * 1e3
        );
    };
    wide("templates/bronze_cleanse_template.yaml", &|t| {
        format!("{t}\n# edited\n")
    });
    wide("expectations/generic_quality.json", &|t| format!("{t} "));
    wide("substitutions/dev.yaml", &|t| {
        t.replacen("catalog: acme_edw_dev", "catalog: acme_edw_dew", 1)
    });

    // What a request after an edit may wait for once (Workspace::refresh):
    // the whole model brought up to date in memory, and linted.
    let one_edit = Edits::from(HashMap::from([(id, edited.clone())]));
    let mut refreshes: Vec<Duration> = (0..10)
        .map(|_| {
            let started = Instant::now();
            let model = loaded.slice(&one_edit, &|_, _| true).unwrap();
            let findings =
                dqlint_linter::lint_configured(&model, &Config::default(), &Selection::default());
            std::hint::black_box(findings.len());
            drop(model);
            started.elapsed()
        })
        .collect();
    refreshes.sort();
    println!(
        "whole model brought up to date in memory and linted (refresh): median {:.0} ms",
        percentile(&refreshes, 0.5).as_secs_f64() * 1e3
    );
    drop(loaded);

    let mut client = TestClient::start();
    let started = Instant::now();
    client.initialize(&root, json!({})).await;
    client.open(&flowgroup, 1);
    client
        .diagnostics(&uri(&flowgroup), |p| p["version"] == 1)
        .await;
    let initial = started.elapsed();
    println!(
        "initial load (initialize to the opened file's diagnostics): {:.0} ms",
        initial.as_secs_f64() * 1e3
    );

    // Typing: the next edit as soon as the last one's findings are shown.
    let typing = edits(&mut client, &flowgroup, at, 2, count, Duration::ZERO).await;
    summary("typing (no pause)", typing);
    // Typing at ~8 keys/s: 120 ms between edits.
    let steady = edits(
        &mut client,
        &flowgroup,
        at,
        2 + count as i32,
        count / 4,
        Duration::from_millis(120),
    )
    .await;
    summary("typing (120 ms apart)", steady);
    // Pauses as long as a whole load: an edit never triggers one (only
    // lhp.yaml, dqlint.toml and new or deleted files do), so these show
    // an idle server's answer.
    let version = 2 + count as i32 + (count / 4) as i32;
    let pause = initial.max(Duration::from_millis(400)) + Duration::from_millis(300);
    let paused = edits(&mut client, &flowgroup, at, version, 12, pause).await;
    summary(
        &format!("edits {} ms apart (idle server)", pause.as_millis()),
        paused,
    );

    client.shutdown_and_exit().await;
}
