//! DQX's Python API in the editor, through the protocol: hover on a check
//! function named `check_funcs.<name>`, on a `check_func_kwargs` key and
//! on `criticality`; completion after `check_funcs.`, of the arguments
//! `check_func_kwargs` misses, of `bool` values and `criticality` values;
//! the catalogue `[dqx]` configures; nothing in a Python file that does not
//! use DQX.

mod common;

use common::*;
use serde_json::{json, Value};

const PATH: &str = "quality/rules.py";
const SOURCE: &str = r#"from databricks.labs.dqx.rule import DQRowRule, DQDatasetRule
from databricks.labs.dqx import check_funcs

checks = [
    DQRowRule(
        criticality="warn",
        check_func=check_funcs.is_in_range,
        column="amount",
        check_func_kwargs={"min_limit": 0, },
    ),
    DQDatasetRule(criticality="", check_func=check_funcs.is_unique, columns=["id"],
                  check_func_kwargs={"nulls_distinct": }),
]
"#;

const PLAIN: &str = "quality/plain.py";
const PLAIN_SOURCE: &str = "from pyspark import pipelines as dp\nchecks = dict(criticality=\"\")\n";

fn at(uri: &str, line: u32, character: u32) -> Value {
    json!({ "textDocument": { "uri": uri }, "position": { "line": line, "character": character } })
}

fn labels(items: &Value) -> Vec<String> {
    let items = items
        .as_array()
        .or_else(|| items["items"].as_array())
        .unwrap_or_else(|| panic!("a completion list: {items}"));
    items
        .iter()
        .map(|i| i["label"].as_str().unwrap().to_string())
        .collect()
}

fn hover_text(hover: &Value) -> String {
    hover["contents"]["value"]
        .as_str()
        .unwrap_or_else(|| panic!("a markdown hover: {hover}"))
        .to_string()
}

async fn started(project: &TestProject, path: &str) -> TestClient {
    let mut client = TestClient::start();
    client
        .initialize(&project.root, json!({ "debounceMs": 10 }))
        .await;
    client.open(&project.path(path), 1);
    client
        .diagnostics(&project.uri(path), |p| p["version"] == 1)
        .await;
    client
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hover_on_a_rules_function_argument_and_criticality() {
    let project = TestProject::new(&[(".git/HEAD", "ref: refs/heads/main\n"), (PATH, SOURCE)]);
    let uri = project.uri(PATH);
    let mut client = started(&project, PATH).await;

    // `check_funcs.is_in_range`: the function's signature and table.
    let hover = client.request("textDocument/hover", at(&uri, 6, 30)).await;
    let text = hover_text(&hover);
    for part in [
        "**`is_in_range`**: DQX row rule (`DQRowRule`)",
        "| `allow_nulls` | `bool` | `True` |",
        "In DQX 0.16.0, 0.17.0 (checked against 0.17.0",
        "Policy kind: `range`",
    ] {
        assert!(text.contains(part), "`{part}` missing from:\n{text}");
    }
    assert_eq!(hover["range"], range((6, 31), (6, 42)));

    // A key of `check_func_kwargs`: its parameter.
    let hover = client.request("textDocument/hover", at(&uri, 8, 29)).await;
    let text = hover_text(&hover);
    assert!(
        text.starts_with("`min_limit: "),
        "a parameter of is_in_range: {text}"
    );
    assert!(text.contains("a parameter of `is_in_range`"), "{text}");
    assert_eq!(hover["range"], range((8, 28), (8, 37)));

    // `criticality="warn"`: what each value does, this one marked.
    let text = hover_text(&client.request("textDocument/hover", at(&uri, 5, 10)).await);
    assert!(
        text.contains("- `warn` (this check): rows failing"),
        "{text}"
    );
    assert!(client.shutdown_and_exit().await);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn completion_of_functions_arguments_and_values() {
    let project = TestProject::new(&[(".git/HEAD", "ref: refs/heads/main\n"), (PATH, SOURCE)]);
    let uri = project.uri(PATH);
    let mut client = started(&project, PATH).await;

    // `check_funcs.is_in|_range`: the functions so named.
    let functions = client
        .request("textDocument/completion", at(&uri, 6, 36))
        .await;
    let names = labels(&functions);
    assert!(names.contains(&"is_in_range".to_string()), "{names:?}");
    assert!(names.iter().all(|n| n.starts_with("is_in")), "{names:?}");
    let first = &functions.as_array().unwrap()[0];
    assert_eq!(first["kind"], 3, "a function: {first}");
    assert_eq!(first["textEdit"]["range"], range((6, 31), (6, 36)));

    // `{"min_limit": 0, |}`: the arguments not written yet, quoted.
    let arguments = client
        .request("textDocument/completion", at(&uri, 8, 43))
        .await;
    assert_eq!(labels(&arguments), ["max_limit", "allow_nulls"]);
    assert_eq!(arguments[0]["textEdit"]["newText"], "\"max_limit\": ");

    // `{"nulls_distinct": |}` (a bool): Python's True / False.
    let values = client
        .request("textDocument/completion", at(&uri, 11, 55))
        .await;
    assert_eq!(labels(&values), ["True", "False"]);

    // `criticality="|"`.
    let criticality = client
        .request("textDocument/completion", at(&uri, 10, 31))
        .await;
    assert_eq!(labels(&criticality), ["error", "warn"]);
    assert_eq!(criticality[0]["textEdit"]["newText"], "error");
    assert!(client.shutdown_and_exit().await);
}

/// `[dqx] version = "0.16.0"`: the functions of 0.17 only are not offered.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_catalogue_follows_the_projects_dqx_version() {
    let source = SOURCE.replace("check_funcs.is_in_range", "check_funcs.has_num");
    let project = TestProject::new(&[
        (".git/HEAD", "ref: refs/heads/main\n"),
        ("dqlint.toml", "[dqx]\nversion = \"0.16.0\"\n"),
        (PATH, &source),
    ]);
    let uri = project.uri(PATH);
    let mut client = started(&project, PATH).await;
    let functions = client
        .request("textDocument/completion", at(&uri, 6, 31 + 7))
        .await;
    assert!(
        functions.is_null() || labels(&functions).is_empty(),
        "{functions}"
    );
    let hover = client.request("textDocument/hover", at(&uri, 10, 60)).await;
    assert!(
        hover_text(&hover).contains("checked against 0.16.0"),
        "{hover}"
    );
    assert!(client.shutdown_and_exit().await);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_python_file_without_dqx_gets_nothing() {
    let project = TestProject::new(&[
        (".git/HEAD", "ref: refs/heads/main\n"),
        (PATH, SOURCE),
        (PLAIN, PLAIN_SOURCE),
    ]);
    let uri = project.uri(PLAIN);
    let mut client = started(&project, PATH).await;
    client.open(&project.path(PLAIN), 1);
    let items = client
        .request("textDocument/completion", at(&uri, 1, 27))
        .await;
    assert!(
        items.is_null() || labels(&items).is_empty(),
        "nothing in a plain Python file: {items}"
    );
    let hover = client.request("textDocument/hover", at(&uri, 1, 16)).await;
    assert!(hover.is_null(), "{hover}");
    assert!(client.shutdown_and_exit().await);
}
