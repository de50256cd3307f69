//! Protocol-level edge cases found in review: words after non-ASCII text,
//! a buffer the project starts reading, a buffer opened through a symlink.

mod common;

use common::*;
use serde_json::json;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_word_after_a_non_ascii_character() {
    let project = fixture_copy("rules/DQ207/bad");
    let orders = project.path("pipelines/bronze/orders.yaml");
    let text = std::fs::read_to_string(&orders).unwrap().replacen(
        "flowgroup: orders\n",
        "flowgroup: orders\ndescription: caféx\n",
        1,
    );
    let mut client = TestClient::start();
    client
        .initialize(&project.root, json!({ "debounceMs": 10 }))
        .await;
    client.open_text(&orders, 1, &text);
    client
        .diagnostics(&uri(&orders), |p| p["version"] == 1)
        .await;
    // `caféx|`: UTF-16 column 18.
    let at = json!({ "textDocument": { "uri": uri(&orders) }, "position": { "line": 2, "character": 18 } });
    let completion = client
        .request_reply("textDocument/completion", at.clone())
        .await;
    let definition = client.request_reply("textDocument/definition", at).await;
    let errors: Vec<_> = [("completion", &completion), ("definition", &definition)]
        .into_iter()
        .filter(|(_, r)| r.get("error").is_some())
        .map(|(m, r)| format!("{m}: {}", r["error"]))
        .collect();
    let logs: Vec<String> = client
        .drain_until_quiet(std::time::Duration::from_millis(300))
        .await
        .iter()
        .filter(|m| m["method"] == "window/logMessage")
        .map(|m| m["params"]["message"].to_string())
        .collect();
    assert!(errors.is_empty(), "{errors:#?}\n{logs:#?}");
}

/// An expectations file no flowgroup read at the last load, open with
/// unsaved changes, then named by a flowgroup: the slice reads it from
/// disk, not from the buffer.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_newly_read_expectations_file_is_read_from_disk_not_its_buffer() {
    let project = fixture_copy("rules/DQ207/bad");
    let orders = project.path("pipelines/bronze/orders.yaml");
    let extra = project.path("expectations/extra.yaml");
    std::fs::write(&extra, "a > 0:\n  action: drop\n  name: a\n").unwrap();
    let mut client = TestClient::start();
    client
        .initialize(&project.root, json!({ "debounceMs": 10 }))
        .await;
    client.open(&orders, 1);
    client
        .diagnostics(&uri(&orders), |p| p["version"] == 1)
        .await;
    // Unsaved: `warn` under quarantine is DQ207.
    client.open_text(&extra, 1, "a > 0:\n  action: warn\n  name: a\n");
    client
        .drain_until_quiet(std::time::Duration::from_millis(1000))
        .await;
    // orders.yaml now reads extra.yaml (line 18: `    expectations_file: expectations/orders_quality.yaml`).
    client.change(&orders, 2, (18, 36), (18, 50), "extra");
    let published = client
        .drain_until_quiet(std::time::Duration::from_millis(1500))
        .await;
    let for_extra: Vec<_> = published
        .iter()
        .filter(|m| {
            m["method"] == "textDocument/publishDiagnostics" && m["params"]["uri"] == uri(&extra)
        })
        .map(|m| codes(&m["params"]))
        .collect();
    let overlay: dqlint_project::Overlay = [
        (
            orders.clone(),
            std::sync::Arc::from(
                std::fs::read_to_string(&orders)
                    .unwrap()
                    .replace("orders_quality.yaml", "extra.yaml")
                    .as_str(),
            ),
        ),
        (
            extra.clone(),
            std::sync::Arc::from("a > 0:\n  action: warn\n  name: a\n"),
        ),
    ]
    .into_iter()
    .collect();
    let fresh = dqlint_project::Project::load(
        &project.root,
        &dqlint_project::LoadOptions {
            overlay,
            ..Default::default()
        },
    )
    .unwrap();
    let fresh_codes: Vec<_> = dqlint_linter::lint(&fresh, &Default::default())
        .iter()
        .filter(|d| fresh.file(d.primary.file).path == extra)
        .map(|d| d.rule.code.to_string())
        .collect();
    assert_eq!(fresh_codes, ["DQ207"], "fresh lint");
    assert_eq!(
        for_extra.last().cloned(),
        Some(vec!["DQ207".to_string()]),
        "a fresh lint of the buffers reports DQ207 in extra.yaml"
    );
}

/// A buffer opened under a URI other than its canonical path's (a symlinked
/// folder; on Windows VS Code's `file:///c%3A/...`): after didClose its
/// findings go on under the canonical URI, and the ones published under
/// the client's URI are never cleared (before, the close re-linted the
/// whole project, which cleared them).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn closing_a_buffer_opened_through_a_symlink() {
    let project = fixture_copy("rules/DQ207/bad");
    let link_dir = tempfile::tempdir().unwrap();
    let link = link_dir.path().join("link");
    std::os::unix::fs::symlink(&project.root, &link).unwrap();
    let via_link = link.join("expectations/orders_quality.yaml");
    let mut client = TestClient::start();
    client
        .initialize(&project.root, json!({ "debounceMs": 10 }))
        .await;
    client.open(&via_link, 1);
    let shown = client
        .diagnostics(&uri(&via_link), |p| p["version"] == 1)
        .await;
    assert_eq!(codes(&shown), ["DQ207"]);
    client.notify(
        "textDocument/didClose",
        json!({ "textDocument": { "uri": uri(&via_link) } }),
    );
    // The file is then fixed on disk.
    let real = project.path("expectations/orders_quality.yaml");
    std::fs::write(
        &real,
        std::fs::read_to_string(&real)
            .unwrap()
            .replace("warn", "drop"),
    )
    .unwrap();
    client.watched(&real, 2);
    let messages = client
        .drain_until_quiet(std::time::Duration::from_millis(1500))
        .await;
    let last_for = |u: String| {
        messages
            .iter()
            .rev()
            .find(|m| m["method"] == "textDocument/publishDiagnostics" && m["params"]["uri"] == u)
            .map(|m| codes(&m["params"]))
    };
    assert_eq!(
        last_for(uri(&via_link)),
        Some(vec![]),
        "the DQ207 shown under the link URI stays"
    );
}
