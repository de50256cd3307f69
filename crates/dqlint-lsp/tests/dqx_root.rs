//! A workspace folder with DQX files and no `lhp.yaml`: a DQX-only root.
//! Its checks files get diagnostics, edits re-lint them, and an edit that
//! makes a file stop being a checks file re-loads the root.

mod common;

use common::*;
use serde_json::json;

const CHECKS: &str = "\
- criticality: eror
  check:
    function: is_not_null
    arguments:
      column: id
";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn dqx_files_without_lhp_yaml_get_diagnostics_and_edits_relint() {
    let project = TestProject::new(&[
        ("quality/orders.yml", CHECKS),
        (
            "quality/customers.yml",
            "- check:\n    function: is_not_nul\n    arguments:\n      column: id\n",
        ),
        // No DDL catalog, no LHP findings from stray files.
        (
            "sql/stray.sql",
            "CREATE TABLE x (id INT) TBLPROPERTIES (;\n",
        ),
        ("notes.yaml", "name: not dqx\n"),
    ]);
    let orders = project.path("quality/orders.yml");
    let mut client = TestClient::start();
    client
        .initialize(&project.root, json!({ "debounceMs": 10 }))
        .await;
    client.open(&orders, 1);
    let first = client
        .diagnostics(&uri(&orders), |p| p["version"] == 1)
        .await;
    assert_eq!(codes(&first), ["DQ806"]);
    // A checks file not open in the editor is linted too.
    let closed = client
        .diagnostics(&project.uri("quality/customers.yml"), |p| {
            !codes(p).is_empty()
        })
        .await;
    assert_eq!(codes(&closed), ["DQ810"]);

    // `eror` -> `error`: the finding goes (quick re-lint).
    client.change(&orders, 2, (0, 15), (0, 19), "error");
    let fixed = client
        .diagnostics(&uri(&orders), |p| p["version"] == 2)
        .await;
    assert_eq!(codes(&fixed), Vec::<String>::new());

    // A misspelled function: reported again.
    client.change(&orders, 3, (2, 14), (2, 25), "is_not_nul");
    let unknown = client
        .diagnostics(&uri(&orders), |p| p["version"] == 3)
        .await;
    assert_eq!(codes(&unknown), ["DQ810"]);

    // The file stops being a checks file (no slice: the root re-loads),
    // then becomes one again.
    client.change(&orders, 4, (0, 0), (5, 0), "name: plain yaml\n");
    let plain = client
        .diagnostics(&uri(&orders), |p| p["version"] == 4)
        .await;
    assert_eq!(codes(&plain), Vec::<String>::new());
    client.change(&orders, 5, (0, 0), (1, 0), CHECKS);
    let back = client
        .diagnostics(&uri(&orders), |p| p["version"] == 5 && !codes(p).is_empty())
        .await;
    assert_eq!(codes(&back), ["DQ806"]);

    // Nothing was published for the stray files.
    let all = client
        .drain_until_quiet(std::time::Duration::from_millis(300))
        .await;
    for message in &all {
        let file = message["params"]["uri"].as_str().unwrap_or_default();
        assert!(
            !file.ends_with("stray.sql") && !file.ends_with("notes.yaml"),
            "{message}"
        );
    }
    assert!(client.shutdown_and_exit().await);
}
