//! `dqlint.toml` in the language server (loaded per project, re-read when
//! it changes, a broken one shown to the user) and the "Suppress DQxxx on
//! this line" code action, through the protocol.

mod common;

use common::*;
use serde_json::{json, Value};

const FLOWGROUP_PATH: &str = "pipelines/bronze/orders.yaml";
const OPTIONS: fn() -> Value = || json!({ "debounceMs": 10 });

fn code_action_params(uri: &str, start: (u32, u32), end: (u32, u32)) -> Value {
    json!({
        "textDocument": { "uri": uri },
        "range": range(start, end),
        "context": { "diagnostics": [] }
    })
}

fn suppress_actions(actions: &Value) -> Vec<&Value> {
    actions
        .as_array()
        .map(|a| {
            a.iter()
                .filter(|a| a["kind"] == "quickfix.dqlint.suppress")
                .collect()
        })
        .unwrap_or_default()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn suppress_on_this_line_inserts_a_comment_that_hides_the_finding() {
    let project = orders_project();
    let uri = project.uri(FLOWGROUP_PATH);
    let mut client = TestClient::start();
    client.initialize(&project.root, OPTIONS()).await;
    client.open(&project.path(FLOWGROUP_PATH), 1);
    let published = client.diagnostics(&uri, |p| p["version"] == 1).await;
    assert_eq!(codes(&published), ["DQ105", "DQ603"]);

    // `    readMode: batch` (line 19): the cursor on `batch`.
    let actions = client
        .request(
            "textDocument/codeAction",
            code_action_params(&uri, (19, 14), (19, 19)),
        )
        .await;
    let suppress = suppress_actions(&actions);
    let titles: Vec<&str> = suppress
        .iter()
        .map(|a| a["title"].as_str().unwrap())
        .collect();
    assert_eq!(
        titles,
        ["Suppress DQ105 on this line", "Suppress DQ105 in this file"],
        "for the finding under the cursor only: {actions:#}"
    );
    assert_eq!(
        suppress[1]["edit"]["changes"][&uri],
        json!([{ "range": range((0, 0), (0, 0)), "newText": "# dqlint: ignore-file[DQ105]\n" }])
    );
    assert_eq!(suppress[0]["diagnostics"][0]["code"], "DQ105");
    assert_eq!(
        suppress[0]["edit"]["changes"][&uri],
        json!([{ "range": range((19, 19), (19, 19)), "newText": "  # dqlint: ignore[DQ105]" }])
    );
    // Clients asking only for quick fixes get it too (a `quickfix` sub-kind).
    let only = client
        .request(
            "textDocument/codeAction",
            json!({
                "textDocument": { "uri": uri },
                "range": range((19, 14), (19, 19)),
                "context": { "diagnostics": [], "only": ["quickfix"] }
            }),
        )
        .await;
    assert_eq!(suppress_actions(&only).len(), 2);

    // Applying it hides DQ105 and leaves no unused suppression.
    client.change(
        &project.path(FLOWGROUP_PATH),
        2,
        (19, 19),
        (19, 19),
        "  # dqlint: ignore[DQ105]",
    );
    let after = client.diagnostics(&uri, |p| p["version"] == 2).await;
    assert_eq!(codes(&after), ["DQ603"]);
    assert!(client.shutdown_and_exit().await);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn suppress_is_not_offered_in_json_files() {
    let flowgroup = "pipeline: bronze
flowgroup: orders
actions:
  - name: orders_dq
    type: transform
    transform_type: data_quality
    source: v_orders_raw
    target: v_orders_validated
    expectations_file: expectations/orders.json
    mode: quarantine
    quarantine:
      dlq_table: ${catalog}.ops.dlq
      source_table: ${catalog}.bronze.orders
";
    let json_rules =
        "[{\"name\": \"positive\", \"constraint\": \"amount > 0\", \"type\": \"expect\"}]\n";
    let project = TestProject::new(&[
        ("lhp.yaml", LHP_YAML),
        ("substitutions/dev.yaml", SUBSTITUTIONS),
        ("expectations/orders.json", json_rules),
        ("pipelines/bronze/orders.yaml", flowgroup),
    ]);
    let uri = project.uri("expectations/orders.json");
    let mut client = TestClient::start();
    client.initialize(&project.root, OPTIONS()).await;
    client.open(&project.path("expectations/orders.json"), 1);
    let published = client.diagnostics(&uri, |p| p["version"] == 1).await;
    assert_eq!(codes(&published), ["DQ207"]);
    let actions = client
        .request(
            "textDocument/codeAction",
            code_action_params(&uri, (0, 0), (0, 80)),
        )
        .await;
    assert!(
        suppress_actions(&actions).is_empty(),
        "JSON has no comments: {actions:#}"
    );
    assert!(client.shutdown_and_exit().await);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_project_configuration_applies_and_is_watched() {
    let project = orders_project();
    let uri = project.uri(FLOWGROUP_PATH);
    let config = project.path("dqlint.toml");
    let mut client = TestClient::start();
    client.initialize(&project.root, OPTIONS()).await;
    client
        .wait_for("client/registerCapability", |m| {
            m["method"] == "client/registerCapability"
                && m["params"]["registrations"][0]["registerOptions"]["watchers"]
                    .as_array()
                    .is_some_and(|w| w.iter().any(|w| w["globPattern"] == "**/dqlint.toml"))
        })
        .await;
    let first = client.diagnostics(&uri, |p| !codes(p).is_empty()).await;
    assert_eq!(codes(&first), ["DQ105", "DQ603"]);

    // A new dqlint.toml turns DQ105 off and makes DQ603 an error.
    std::fs::write(
        &config,
        "ignore = [\"DQ105\"]\n[severity]\nDQ603 = \"error\"\n",
    )
    .unwrap();
    client.watched(&config, 1);
    let configured = client.diagnostics(&uri, |p| codes(p) == ["DQ603"]).await;
    assert_eq!(diagnostic(&configured, "DQ603")["severity"], 1);

    // A broken one is shown once; the defaults apply until it is fixed.
    std::fs::write(&config, "ignore = [\"DQ105\"]\nselct = []\n").unwrap();
    client.watched(&config, 2);
    let shown = client
        .wait_for("window/showMessage", |m| {
            m["method"] == "window/showMessage"
        })
        .await;
    let message = shown["params"]["message"].as_str().unwrap();
    assert!(
        message.contains("dqlint.toml:2:1: unknown key `selct`"),
        "{message}"
    );
    let defaults = client
        .diagnostics(&uri, |p| codes(p) == ["DQ105", "DQ603"])
        .await;
    assert_eq!(diagnostic(&defaults, "DQ603")["severity"], 2);
    assert!(client.shutdown_and_exit().await);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_config_path_setting_replaces_the_project_file() {
    let project = orders_project();
    std::fs::write(project.path("dqlint.toml"), "ignore = [\"DQ105\"]\n").unwrap();
    std::fs::create_dir_all(project.path("ci")).unwrap();
    std::fs::write(
        project.path("ci/only-tokens.toml"),
        "select = [\"DQ6\"]\n[severity]\nDQ603 = \"info\"\n",
    )
    .unwrap();
    let uri = project.uri(FLOWGROUP_PATH);
    let mut client = TestClient::start();
    client
        .initialize(
            &project.root,
            json!({ "debounceMs": 10, "configPath": "ci/only-tokens.toml" }),
        )
        .await;
    let published = client.diagnostics(&uri, |p| !codes(p).is_empty()).await;
    assert_eq!(codes(&published), ["DQ603"]);
    assert_eq!(diagnostic(&published, "DQ603")["severity"], 3);
    assert!(client.shutdown_and_exit().await);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hover_on_a_suppressed_code_shows_the_rule() {
    let project = orders_project();
    let flowgroup = project.path(FLOWGROUP_PATH);
    let text = std::fs::read_to_string(&flowgroup).unwrap().replace(
        "readMode: batch",
        "readMode: batch  # dqlint: ignore[DQ105, DQ6, DQ009]",
    );
    std::fs::write(&flowgroup, text).unwrap();
    let uri = project.uri(FLOWGROUP_PATH);
    let mut client = TestClient::start();
    client.initialize(&project.root, OPTIONS()).await;
    let at = |character: u32| json!({ "textDocument": { "uri": uri }, "position": { "line": 19, "character": character } });
    // `    readMode: batch  # dqlint: ignore[DQ105, DQ6, DQ009]`: `DQ105` at 38..43
    // (DQ009 keeps the unused `DQ6` from being reported over the hover).
    let hover = client.request("textDocument/hover", at(40)).await;
    assert_eq!(hover["range"], range((19, 38), (19, 43)));
    let value = hover["contents"]["value"].as_str().unwrap();
    assert!(
        value.starts_with("### DQ105 non-stream-read-mode"),
        "{value}"
    );
    let prefix = client.request("textDocument/hover", at(46)).await;
    let value = prefix["contents"]["value"].as_str().unwrap();
    assert!(
        value.starts_with("`DQ6` covers 5 rules") && value.contains("DQ601"),
        "{value}"
    );
    assert!(client.shutdown_and_exit().await);
}

/// DQ602 for an environment that `envs` in dqlint.toml lists is published
/// on dqlint.toml, at the name (not at `lhp.yaml:1:1`), and goes away when
/// the file no longer lists it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn dq602_for_an_environment_of_dqlint_toml_is_published_on_its_line() {
    let project = orders_project();
    let config = project.path("dqlint.toml");
    std::fs::write(&config, "# environments\nenvs = [\"dev\", \"staging\"]\n").unwrap();
    let config_uri = project.uri("dqlint.toml");
    let mut client = TestClient::start();
    client.initialize(&project.root, OPTIONS()).await;
    let published = client
        .diagnostics(&config_uri, |p| !codes(p).is_empty())
        .await;
    assert_eq!(codes(&published), ["DQ602"]);
    let d = diagnostic(&published, "DQ602");
    assert_eq!(d["range"], range((1, 16), (1, 23)), "{d:#}");
    assert!(
        d["message"].as_str().unwrap().contains("`staging`"),
        "{d:#}"
    );

    std::fs::write(&config, "envs = [\"dev\"]\n").unwrap();
    client.watched(&config, 2);
    client
        .diagnostics(&config_uri, |p| codes(p).is_empty())
        .await;
    assert!(client.shutdown_and_exit().await);
}
