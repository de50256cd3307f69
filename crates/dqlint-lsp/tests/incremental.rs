//! Edits that change other files' findings, and the guarantee behind the
//! quick re-lint: whatever the edits, once the server is quiet its
//! published diagnostics are those of a fresh `lint` of the final text.

mod common;

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use common::*;
use dqlint_project::{LoadOptions, Overlay, Project};
use serde_json::{json, Value};

const OPTIONS: fn() -> Value = || json!({ "debounceMs": 10 });

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn expectations_and_their_quarantine_users_update_each_other() {
    let project = fixture_copy("rules/DQ207/bad");
    let rules = project.path("expectations/orders_quality.yaml");
    let flowgroup = project.path("pipelines/bronze/orders.yaml");
    let mut client = TestClient::start();
    client.initialize(&project.root, OPTIONS()).await;
    client.open(&rules, 1);
    client.open(&flowgroup, 1);
    let coerced = client
        .diagnostics(&uri(&rules), |p| p["version"] == 1)
        .await;
    assert_eq!(codes(&coerced), ["DQ207"]);
    let related = &diagnostic(&coerced, "DQ207")["relatedInformation"][0];
    assert_eq!(
        related["location"]["uri"],
        uri(&flowgroup),
        "points at the quarantine user"
    );

    // The rule's action becomes `drop`: nothing left to coerce.
    client.change(&rules, 2, (4, 10), (4, 14), "drop");
    let clean = client
        .diagnostics(&uri(&rules), |p| p["version"] == 2)
        .await;
    assert_eq!(codes(&clean), Vec::<String>::new());
    client.change(&rules, 3, (4, 10), (4, 14), "warn");
    let back = client
        .diagnostics(&uri(&rules), |p| p["version"] == 3)
        .await;
    assert_eq!(codes(&back), ["DQ207"]);

    // The user leaves quarantine mode: the expectations file's finding goes.
    let text = std::fs::read_to_string(&flowgroup).unwrap();
    let line = text
        .lines()
        .position(|l| l.trim() == "mode: quarantine")
        .unwrap() as u32;
    client.change(&flowgroup, 2, (line, 10), (line, 20), "dqe");
    let gone = client
        .diagnostics(&uri(&rules), |p| codes(p).is_empty())
        .await;
    assert_eq!(gone["version"], 3);

    assert!(client.shutdown_and_exit().await);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ddl_edits_update_dlq_findings_in_sql_and_flowgroups() {
    let project = fixture_copy("rules/DQ404/bad");
    let ddl = project.path("sql/dlq.sql");
    let flowgroup = project.path("pipelines/bronze/orders.yaml");
    let mut client = TestClient::start();
    client.initialize(&project.root, OPTIONS()).await;
    client.open(&ddl, 1);
    client.open(&flowgroup, 1);
    let missing_cdf = client.diagnostics(&uri(&ddl), |p| p["version"] == 1).await;
    assert_eq!(codes(&missing_cdf), ["DQ404"]);

    // Add the change data feed to the inbox's TBLPROPERTIES.
    client.change(
        &ddl,
        2,
        (11, 15),
        (11, 15),
        "\n    'delta.enableChangeDataFeed' = 'true',",
    );
    let fixed = client.diagnostics(&uri(&ddl), |p| p["version"] == 2).await;
    assert_eq!(codes(&fixed), Vec::<String>::new());

    // Rename the inbox: the quarantine action's DLQ has no DDL any more.
    client.change(&ddl, 3, (1, 45), (1, 45), "_renamed");
    let orphan = client
        .diagnostics(&uri(&flowgroup), |p| codes(p) == ["DQ402"])
        .await;
    assert_eq!(orphan["version"], 1);
    assert_eq!(
        diagnostic(&orphan, "DQ402")["range"]["start"],
        json!({ "line": 21, "character": 17 })
    );

    assert!(client.shutdown_and_exit().await);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn substitution_edits_update_token_findings_everywhere() {
    let project = orders_project();
    let substitutions = project.path("substitutions/dev.yaml");
    let flowgroup = project.path("pipelines/bronze/orders.yaml");
    let mut client = TestClient::start();
    client.initialize(&project.root, OPTIONS()).await;
    client.open(&flowgroup, 1);
    client.open(&substitutions, 1);
    let before = client
        .diagnostics(&uri(&flowgroup), |p| p["version"] == 1)
        .await;
    assert!(!codes(&before).contains(&"DQ601".to_string()));

    // `catalog:` -> `catalogue:`: `${catalog}` no longer resolves.
    client.change(&substitutions, 2, (1, 9), (1, 9), "ue");
    let unresolved = client
        .diagnostics(&uri(&flowgroup), |p| {
            codes(p).contains(&"DQ601".to_string())
        })
        .await;
    assert_eq!(
        diagnostic(&unresolved, "DQ601")["range"]["start"]["line"],
        26
    );
    client.change(&substitutions, 3, (1, 9), (1, 11), "");
    client
        .diagnostics(&uri(&flowgroup), |p| {
            !codes(p).contains(&"DQ601".to_string())
        })
        .await;

    assert!(client.shutdown_and_exit().await);
}

/// A small deterministic random source (xorshift64*).
struct Random(u64);

impl Random {
    fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        (self.0.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 33) as usize % n.max(1)
    }
}

/// The LSP position (UTF-16 column) of char `column` of `line`, and the
/// byte offset it stands for.
fn locate(text: &str, line: usize, column: usize) -> ((u32, u32), usize) {
    let start: usize = text.split_inclusive('\n').take(line).map(str::len).sum();
    let line_text = text[start..].split('\n').next().unwrap_or("");
    let prefix: String = line_text.chars().take(column).collect();
    let utf16 = prefix.encode_utf16().count() as u32;
    ((line as u32, utf16), start + prefix.len())
}

/// A random small edit of `text`, sent to the server and applied locally.
fn random_edit(random: &mut Random, text: &mut String) -> ((u32, u32), (u32, u32), String) {
    const INSERTS: [&str; 10] = [
        "x",
        ":",
        "\n",
        "  ",
        "${catalog}",
        "quarantine",
        "- ",
        "'",
        "{",
        ",",
    ];
    let lines = text.split('\n').count();
    let line = random.below(lines);
    let width = text.split('\n').nth(line).unwrap().chars().count();
    let column = random.below(width + 1);
    let (start, start_byte) = locate(text, line, column);
    let (end, end_byte, insert) = if random.below(2) == 0 {
        let length = 1 + random.below(8);
        let (end, end_byte) = locate(text, line, (column + length).min(width));
        (end, end_byte, String::new())
    } else {
        (
            start,
            start_byte,
            INSERTS[random.below(INSERTS.len())].to_string(),
        )
    };
    text.replace_range(start_byte..end_byte, &insert);
    (start, end, insert)
}

type Published = BTreeMap<String, Vec<(String, Value, String)>>;

/// What a fresh load + lint of `texts` (buffers over the disk) publishes.
fn fresh_lint(root: &Path, texts: &HashMap<PathBuf, String>) -> Published {
    let overlay: Overlay = texts
        .iter()
        .map(|(path, text)| (path.clone(), Arc::from(text.as_str())))
        .collect();
    // The project's dqlint.toml, as the server reads it.
    let config = dqlint_linter::Config::discover(root, None).unwrap();
    let project = Project::load(
        root,
        &LoadOptions {
            overlay,
            ..config.load_options(&[])
        },
    )
    .unwrap();
    let mut out = Published::new();
    for finding in dqlint_linter::lint_configured(&project, &config, &Default::default()) {
        let file = project.file(finding.primary.file);
        let at = |offset| {
            let (line, character) = file.lines.utf16_position(&file.text, offset);
            json!({ "line": line, "character": character })
        };
        let message = if finding.envs.is_empty() {
            finding.message.clone()
        } else {
            format!("{} [env: {}]", finding.message, finding.envs.join(", "))
        };
        out.entry(uri(&file.path)).or_default().push((
            finding.rule.code.to_string(),
            json!({ "start": at(finding.primary.span.start), "end": at(finding.primary.span.end) }),
            message,
        ));
    }
    out
}

/// The last diagnostics published for each file.
fn last_published(messages: &[Value], into: &mut Published) {
    for m in messages
        .iter()
        .filter(|m| m["method"] == "textDocument/publishDiagnostics")
    {
        let params = &m["params"];
        let list: Vec<(String, Value, String)> = params["diagnostics"]
            .as_array()
            .unwrap()
            .iter()
            .map(|d| {
                (
                    d["code"].as_str().unwrap().to_string(),
                    d["range"].clone(),
                    d["message"].as_str().unwrap().to_string(),
                )
            })
            .collect();
        into.insert(params["uri"].as_str().unwrap().to_string(), list);
    }
    into.retain(|_, list| !list.is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn random_edits_end_in_a_fresh_lint() {
    let project = fixture_copy("showcase");
    let files = [
        "pipelines/bronze/orders.yaml",
        "pipelines/bronze/customers.yaml",
        "expectations/orders_quality.json",
        "expectations/customers_quality.yaml",
        "sql/dlq/create_dlq.sql",
        "substitutions/dev.yaml",
        "templates/bronze_quarantined.yaml",
        "presets/bronze_defaults.yaml",
        "config/pipeline_config.yaml",
    ];
    let mut texts: HashMap<PathBuf, String> = HashMap::new();
    let mut versions: HashMap<PathBuf, i32> = HashMap::new();
    let mut client = TestClient::start();
    client.initialize(&project.root, OPTIONS()).await;
    for rel in files {
        let path = project.path(rel);
        client.open(&path, 1);
        texts.insert(path.clone(), std::fs::read_to_string(&path).unwrap());
        versions.insert(path, 1);
    }
    let mut published = Published::new();
    for seed in [7_u64, 1234, 987_654_321] {
        let mut random = Random(seed);
        for _ in 0..40 {
            // Every kind of file but lhp.yaml: each edit re-lints only the
            // files it affects, nothing else corrects them later.
            let rel = files[random.below(files.len())];
            let path = project.path(rel);
            let text = texts.get_mut(&path).unwrap();
            let (start, end, insert) = random_edit(&mut random, text);
            let version = versions.get_mut(&path).unwrap();
            *version += 1;
            client.change(&path, *version, start, end, &insert);
            // Some edits come in bursts, some after the lint ran.
            if random.below(3) == 0 {
                tokio::time::sleep(Duration::from_millis(random.below(40) as u64)).await;
            }
        }
        // Quiet for longer than a quick re-lint of the showcase, even on a
        // busy CI machine.
        let messages = client.drain_until_quiet(Duration::from_millis(3000)).await;
        last_published(&messages, &mut published);
        let expected = fresh_lint(&project.root, &texts);
        let differing: Vec<String> = published
            .keys()
            .chain(expected.keys())
            .collect::<std::collections::BTreeSet<_>>()
            .into_iter()
            .filter(|uri| published.get(*uri) != expected.get(*uri))
            .map(|uri| {
                format!(
                    "{uri}\n  published: {:?}\n  fresh lint: {:?}",
                    published.get(uri),
                    expected.get(uri)
                )
            })
            .collect();
        assert!(
            differing.is_empty(),
            "after the edits of seed {seed}, the published diagnostics differ from a fresh lint:\n{}",
            differing.join("\n")
        );
    }
    assert!(client.shutdown_and_exit().await);
}
