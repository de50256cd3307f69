//! Pipeline sources in the editor, through the protocol: diagnostics in a
//! `.py` pipeline source as it is typed, nothing for a plain Python file,
//! hover on a decorator and on a rule text (resolved SQL, the datasets
//! using it), definition from `RULES['k']` to the entry and from a
//! quarantine dataset to its clean twin, the DQ920 fix as a code action.

mod common;

use common::*;
use serde_json::{json, Value};

const PATH: &str = "transformations/sales.py";
const SOURCE: &str = r#"from pyspark import pipelines as dp

RULES = {
    "valid_price": "price IS NOT NULL AND price > 0",
    "valid_id": "order_id IS NOT NULL",
}

@dp.temporary_view()
def raw_sales():
    return spark.readStream.table("raw_ingestion")

@dp.table()
@dp.expect_all_or_drop(RULES)
def sales_clean():
    return spark.readStream.table("raw_sales")

@dp.table()
def sales_quarantine():
    return spark.readStream.table("raw_sales").filter(f"NOT ({RULES['valid_price']})")
"#;

fn at(uri: &str, line: u32, character: u32) -> Value {
    json!({ "textDocument": { "uri": uri }, "position": { "line": line, "character": character } })
}

fn hover_text(hover: &Value) -> String {
    hover["contents"]["value"]
        .as_str()
        .unwrap_or_else(|| panic!("a markdown hover: {hover}"))
        .to_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_pipeline_source_gets_diagnostics_hovers_definitions_and_fixes() {
    let project = TestProject::new(&[
        (".git/HEAD", "ref: refs/heads/main\n"),
        (PATH, SOURCE),
        ("tools/plain.py", "import os\ndef f(:\n"),
    ]);
    let uri = project.uri(PATH);
    let mut client = TestClient::start();
    client
        .initialize(&project.root, json!({ "debounceMs": 10 }))
        .await;
    client.open(&project.path(PATH), 1);
    let first = client.diagnostics(&uri, |p| p["version"] == 1).await;
    assert_eq!(codes(&first), ["DQ920"]);

    // Hover on the decorator: what a failing row does.
    let text = hover_text(&client.request("textDocument/hover", at(&uri, 12, 5)).await);
    assert!(
        text.contains("(drop): a failing row is **dropped**"),
        "{text}"
    );
    // Hover on the dict entry: the SQL and the datasets using it (on the
    // filter itself, the finding's hover comes first).
    let text = hover_text(&client.request("textDocument/hover", at(&uri, 3, 25)).await);
    assert!(text.contains("price IS NOT NULL AND price > 0"), "{text}");
    assert!(
        text.contains("Policy kind: `not_null` on `price`, `range` on `price`"),
        "{text}"
    );
    assert!(
        text.contains("`sales_clean`: expectation `valid_price` (drop)"),
        "{text}"
    );
    assert!(text.contains("`sales_quarantine`: row filter"), "{text}");

    // Definition: the subscript -> the dict entry; the quarantine -> its twin.
    let entry = client
        .request("textDocument/definition", at(&uri, 18, 65))
        .await;
    assert_eq!(
        entry[0]["range"]["start"],
        json!({ "line": 3, "character": 20 }),
        "{entry}"
    );
    let twin = client
        .request("textDocument/definition", at(&uri, 17, 8))
        .await;
    assert_eq!(
        twin[0]["range"]["start"],
        json!({ "line": 13, "character": 4 }),
        "{twin}"
    );

    // The unsafe fix as a code action, applied by the client.
    let finding = diagnostic(&first, "DQ920").clone();
    let actions = client
        .request(
            "textDocument/codeAction",
            json!({
                "textDocument": { "uri": uri },
                "range": finding["range"],
                "context": { "diagnostics": [finding] }
            }),
        )
        .await;
    let fix = actions
        .as_array()
        .unwrap()
        .iter()
        .find(|a| {
            a["title"]
                .as_str()
                .is_some_and(|t| t.contains("NOT (price IS NOT NULL"))
        })
        .unwrap_or_else(|| panic!("a DQ920 fix among {actions}"));
    let edits = &fix["edit"]["documentChanges"][0]["edits"];
    assert_eq!(edits[0]["range"], range((18, 54), (18, 85)));
    assert_eq!(
        edits[0]["newText"],
        "\"NOT (price IS NOT NULL AND price > 0 AND order_id IS NOT NULL)\""
    );

    // Typing the fix in: the finding goes.
    client.change(
        &project.path(PATH),
        2,
        (18, 54),
        (18, 85),
        "\"NOT (price IS NOT NULL AND price > 0 AND order_id IS NOT NULL)\"",
    );
    let fixed = client.diagnostics(&uri, |p| p["version"] == 2).await;
    assert_eq!(codes(&fixed), Vec::<String>::new());

    // A Python file that is no pipeline source gets nothing, even broken.
    let all = client
        .drain_until_quiet(std::time::Duration::from_millis(300))
        .await;
    assert!(
        !all.iter()
            .any(|m| m["params"]["uri"] == project.uri("tools/plain.py")),
        "{all:?}"
    );
    assert!(client.shutdown_and_exit().await);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_count_of_a_uniqueness_view_hovers_as_unique_on_its_keys() {
    let source = r#"from pyspark import pipelines as dp

@dp.materialized_view()
@dp.expect_or_fail("one_row_per_order", "n = 1")
def orders_unique():
    return spark.sql("SELECT order_id, count(*) AS n FROM orders GROUP BY order_id")
"#;
    let project = TestProject::new(&[(".git/HEAD", "ref: refs/heads/main\n"), (PATH, source)]);
    let uri = project.uri(PATH);
    let mut client = TestClient::start();
    client
        .initialize(&project.root, json!({ "debounceMs": 10 }))
        .await;
    client.open(&project.path(PATH), 1);
    client.diagnostics(&uri, |p| p["version"] == 1).await;
    let unique = "Policy kind: `unique` on `order_id` of `orders`";
    // On the decorator, and on the constraint text.
    let text = hover_text(&client.request("textDocument/hover", at(&uri, 3, 5)).await);
    assert!(text.contains(unique), "{text}");
    let text = hover_text(&client.request("textDocument/hover", at(&uri, 3, 44)).await);
    assert!(text.contains(unique), "{text}");
    assert!(!text.contains("`range`"), "{text}");
    assert!(client.shutdown_and_exit().await);
}

/// A rule dict imported from another module of the project: definition
/// goes to its characters in that module, hover shows the SQL and who
/// uses it, and a SQL error in it is reported there, with the import as
/// a related location.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn values_imported_from_a_project_module_point_at_their_definition() {
    let rules = "RULES = {\n    \"valid_price\": \"price > = 0\",\n    \"valid_id\": \"order_id IS NOT NULL\",\n}\n";
    let source = r#"from pyspark import pipelines as dp
from quality.rules import RULES

@dp.table()
@dp.expect_all_or_drop(RULES)
def sales_clean():
    return spark.readStream.table("raw_sales")

@dp.table()
@dp.expect("id", RULES["valid_id"])
def sales_ids():
    return spark.readStream.table("raw_sales")
"#;
    let project = TestProject::new(&[
        (".git/HEAD", "ref: refs/heads/main\n"),
        (PATH, source),
        ("quality/rules.py", rules),
    ]);
    let uri = project.uri(PATH);
    let rules_uri = project.uri("quality/rules.py");
    let mut client = TestClient::start();
    client
        .initialize(&project.root, json!({ "debounceMs": 10 }))
        .await;
    client.open(&project.path(PATH), 1);
    client.diagnostics(&uri, |p| p["version"] == 1).await;

    // `RULES["valid_id"]` -> the entry's text in quality/rules.py.
    let entry = client
        .request("textDocument/definition", at(&uri, 9, 19))
        .await;
    assert_eq!(entry[0]["uri"], rules_uri, "{entry}");
    assert_eq!(entry[0]["range"], range((2, 17), (2, 37)), "{entry}");
    // `RULES` in the decorator -> the dict's entries there.
    let dict = client
        .request("textDocument/definition", at(&uri, 4, 25))
        .await;
    assert_eq!(dict[0]["uri"], rules_uri, "{dict}");
    assert_eq!(dict[0]["range"], range((1, 5), (2, 37)), "{dict}");

    // Hover on the subscript: the SQL, and the datasets using that entry.
    let text = hover_text(&client.request("textDocument/hover", at(&uri, 9, 19)).await);
    assert!(text.contains("order_id IS NOT NULL"), "{text}");
    assert!(
        text.contains("`sales_clean`: expectation `valid_id` (drop)"),
        "{text}"
    );
    assert!(
        text.contains("`sales_ids`: expectation `id` (warn)"),
        "{text}"
    );
    assert!(!text.contains("valid_price"), "{text}");

    // The SQL error of the module's rule, at its characters there.
    client.open(&project.path("quality/rules.py"), 1);
    let found = client
        .diagnostics(&rules_uri, |p| {
            p["diagnostics"].as_array().is_some_and(|d| !d.is_empty())
        })
        .await;
    let error = diagnostic(&found, "DQ301");
    // `price > = 0`: the `=`.
    assert_eq!(error["range"], range((1, 28), (1, 29)), "{error}");
    let related = &error["relatedInformation"][0];
    assert_eq!(related["location"]["uri"], uri, "{error}");
    assert_eq!(
        related["location"]["range"],
        range((1, 26), (1, 31)),
        "{error}"
    );
    assert!(client.shutdown_and_exit().await);
}
