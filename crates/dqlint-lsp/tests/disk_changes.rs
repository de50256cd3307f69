//! Files changed on disk while the server works: a change during a full
//! load is not lost, and a batch of hundreds (a branch checkout) does not
//! queue hundreds of re-lints ahead of the next keystroke.

mod common;

use std::time::{Duration, Instant};

use common::*;
use serde_json::json;

fn filler(i: usize) -> String {
    format!(
        "pipeline: zfiller\nflowgroup: f{i}\n\nactions:\n  - name: load_f{i}\n    type: load\n    readMode: stream\n    source:\n      type: cloudfiles\n      path: ${{landing}}/f{i}\n      format: json\n    target: v_f{i}_raw\n\n  - name: write_f{i}\n    type: write\n    source: v_f{i}_raw\n    write_target:\n      type: streaming_table\n      catalog: ${{catalog}}\n      schema: bronze\n      table: f{i}\n"
    )
}

fn project_with_fillers(n: usize) -> TestProject {
    let project = fixture_copy("rules/DQ207/bad");
    for i in 0..n {
        let path = project.path(&format!("pipelines/zfiller/f{i}.yaml"));
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, filler(i)).unwrap();
    }
    project
}

/// A file changed on disk again while a full load runs keeps its newer
/// text: it is re-linted on the loaded model.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_disk_change_during_a_full_load_is_lost() {
    let project = project_with_fillers(4000); // a load of ~1 s (debug build)
    let subs = project.path("substitutions/dev.yaml");
    let orders = project.path("pipelines/bronze/orders.yaml");
    let original = std::fs::read_to_string(&subs).unwrap();
    let mut client = TestClient::start();
    let started = Instant::now();
    client
        .initialize(&project.root, json!({ "debounceMs": 10 }))
        .await;
    client
        .diagnostics(&project.uri("expectations/orders_quality.yaml"), |_| true)
        .await;
    let load_time = started.elapsed();

    // 1. dev.yaml changes on disk (a comment): it is now in `on_disk`.
    std::fs::write(&subs, format!("{original}# touched\n")).unwrap();
    client.watched(&subs, 2);
    tokio::time::sleep(Duration::from_millis(300)).await;

    // 2. A file appears (a load is due); a request starts the load now.
    let new = project.path("pipelines/zfiller/new.yaml");
    std::fs::write(&new, filler(99999)).unwrap();
    client.watched(&new, 1);
    client.open(&orders, 1);
    let at = json!({ "textDocument": { "uri": uri(&orders) }, "position": { "line": 0, "character": 0 } });
    client.send_raw(frame(
        json!({"jsonrpc": "2.0", "id": 900, "method": "textDocument/hover", "params": at})
            .to_string()
            .as_bytes(),
    ));

    // 3. While it loads (after it read dev.yaml), `landing` is renamed on
    // disk: `${landing}` in orders.yaml no longer resolves (DQ601).
    tokio::time::sleep(load_time / 8).await;
    std::fs::write(&subs, original.replace("landing:", "landing_x:")).unwrap();
    client.watched(&subs, 2);
    client.wait_for("the hover", |m| m["id"] == 900).await;
    client.drain_until_quiet(Duration::from_millis(2000)).await;

    // A keystroke in orders.yaml re-lints it on the loaded model, which has
    // the old dev.yaml and no on_disk entry any more.
    let lines = std::fs::read_to_string(&orders).unwrap().lines().count() as u32;
    client.change(&orders, 2, (lines, 0), (lines, 0), "# typed\n");
    let after = client
        .diagnostics(&uri(&orders), |p| p["version"] == 2)
        .await;
    assert!(
        codes(&after).contains(&"DQ601".to_string()),
        "the disk has `landing_x:` but orders.yaml shows {:?}",
        codes(&after)
    );
}

/// `git checkout` changing N files: one didChangeWatchedFiles with N
/// changes starts N quick re-lints, in turn, each re-reading (parse +
/// linear `file_by_path`) every file changed on disk so far.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn many_files_changed_on_disk_at_once() {
    for n in [100usize, 200, 400] {
        let project = project_with_fillers(1500);
        let mut client = TestClient::start();
        client
            .initialize(&project.root, json!({ "debounceMs": 10 }))
            .await;
        client
            .diagnostics(&project.uri("expectations/orders_quality.yaml"), |_| true)
            .await;
        let mut changes = Vec::new();
        for i in 0..n {
            let path = project.path(&format!("pipelines/zfiller/f{i}.yaml"));
            std::fs::write(
                &path,
                filler(i).replace("readMode: stream", "readMode: batch"),
            )
            .unwrap();
            changes.push(json!({ "uri": uri(&path), "type": 2 }));
        }
        let started = Instant::now();
        client.notify(
            "workspace/didChangeWatchedFiles",
            json!({ "changes": changes }),
        );
        let orders = project.path("pipelines/bronze/orders.yaml");
        client.open(&orders, 1);
        let target = uri(&orders);
        // One load of the project, not one re-lint per changed file (57 s
        // for 400 files before); generous for a busy CI machine.
        assert!(
            client
                .receives_within(Duration::from_secs(30), |m| m["method"]
                    == "textDocument/publishDiagnostics"
                    && m["params"]["uri"] == target
                    && m["params"]["version"] == 1)
                .await,
            "{n} files changed on disk: no findings for the file opened next after {:?}",
            started.elapsed()
        );
    }
}
