//! Quarantine patterns in pipeline sources (DQ920-DQ925): the forms the
//! contract names as silent stay silent, the mistakes are found at the
//! right characters, across files and in both languages.

use dqlint_linter::{lint, Selection};
use dqlint_project::{LoadOptions, Project};

/// `(code, the text at the primary span)` per finding of the DQ92x rules
/// (and DQ3xx), for sources written under a fresh `.git` root.
fn lint_sources(files: &[(&str, &str)]) -> Vec<(String, String)> {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join(".git")).unwrap();
    for (rel, text) in files {
        let path = dir.path().join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
    let project = Project::load(dir.path(), &LoadOptions::default()).unwrap();
    lint(&project, &Selection::default())
        .iter()
        .filter(|d| d.rule.code.starts_with("DQ92") || d.rule.code.starts_with("DQ3"))
        .map(|d| {
            let file = project.file(d.primary.file);
            (
                d.rule.code.to_string(),
                file.text[d.primary.span.clone()].to_string(),
            )
        })
        .collect()
}

const HEAD: &str = "from pyspark import pipelines as dp\n\nRULES = {\n    \"valid_price\": \"price IS NOT NULL AND price > 0\",\n    \"valid_id\": \"order_id IS NOT NULL\",\n}\n\n@dp.temporary_view()\ndef raw_sales():\n    return spark.readStream.table(\"raw_ingestion\")\n\n@dp.table()\n@dp.expect_all_or_drop(RULES)\ndef sales_clean():\n    return spark.readStream.table(\"raw_sales\")\n\n";

fn with_quarantine(body: &str) -> String {
    format!("{HEAD}@dp.table()\ndef sales_quarantine():\n    return spark.readStream.table(\"raw_sales\"){body}\n")
}

#[test]
fn the_exact_negation_in_its_usual_spellings_is_silent() {
    for body in [
        ".filter(\"NOT ({0})\".format(\" AND \".join(RULES.values())))",
        ".filter(\"NOT (price IS NOT NULL AND price > 0 AND order_id IS NOT NULL)\")",
        ".filter(\"NOT (order_id IS NOT NULL) OR NOT (price IS NOT NULL AND price > 0)\")",
        ".filter(\"order_id IS NULL OR price IS NULL OR price <= 0\")",
        ".where(\"NOT (\" + \" AND \".join(RULES.values()) + \")\")",
    ] {
        let found = lint_sources(&[("pipelines/sales.py", &with_quarantine(body))]);
        assert!(found.is_empty(), "{body}: {found:?}");
    }
}

#[test]
fn one_rule_of_two_is_reported_at_the_filter_with_the_uncovered_rule() {
    let found = lint_sources(&[(
        "pipelines/sales.py",
        &with_quarantine(".filter(f\"NOT ({RULES['valid_price']})\")"),
    )]);
    assert_eq!(
        found,
        [(
            "DQ920".to_string(),
            "f\"NOT ({RULES['valid_price']})\"".to_string()
        )]
    );
}

#[test]
fn per_rule_negations_keep_only_rows_failing_every_rule() {
    let source = format!(
        "{HEAD}@dp.table()\n@dp.expect_all_or_drop({{k: f\"NOT ({{v}})\" for k, v in RULES.items()}})\ndef sales_quarantine():\n    return spark.readStream.table(\"raw_sales\")\n"
    );
    let found = lint_sources(&[("pipelines/sales.py", &source)]);
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0].0, "DQ920");
}

#[test]
fn a_pair_across_files_is_found_by_the_quarantine_name() {
    let clean = "from pyspark import pipelines as dp\n\n@dp.table()\n@dp.expect_or_drop(\"valid_price\", \"price IS NOT NULL AND price > 0\")\ndef sales_clean():\n    return spark.readStream.table(\"raw_sales\")\n";
    let quarantine = "from pyspark import pipelines as dp\n\n@dp.table()\ndef sales_quarantine():\n    return spark.readStream.table(\"raw_sales\").filter(\"price <= 0\")\n";
    let found = lint_sources(&[("a/clean.py", clean), ("b/quarantine.py", quarantine)]);
    assert_eq!(
        found,
        [
            ("DQ924".to_string(), "raw_sales".to_string()),
            ("DQ920".to_string(), "\"price <= 0\"".to_string()),
        ]
    );
}

#[test]
fn sql_pairs_are_checked_like_python_ones() {
    let sql = "CREATE TEMPORARY VIEW raw_sales AS SELECT * FROM STREAM(raw_ingestion);\n\
               CREATE OR REFRESH STREAMING TABLE sales_clean (\n  CONSTRAINT valid_price EXPECT (price > 0) ON VIOLATION DROP ROW,\n  CONSTRAINT valid_id EXPECT (order_id IS NOT NULL) ON VIOLATION DROP ROW\n) AS SELECT * FROM STREAM(raw_sales);\n\
               CREATE OR REFRESH STREAMING TABLE sales_quarantine AS SELECT * FROM STREAM(raw_sales) WHERE NOT (price > 0);\n";
    let found = lint_sources(&[("pipelines/sales.sql", sql)]);
    assert_eq!(
        found,
        [
            ("DQ921".to_string(), "price > 0".to_string()),
            ("DQ920".to_string(), "NOT (price > 0)".to_string()),
        ]
    );
}

#[test]
fn no_pattern_is_claimed_without_a_shared_upstream_or_a_marker() {
    // A filtered table of another source, and an unmarked filtered copy.
    let source = format!(
        "{HEAD}@dp.table()\ndef sales_eu():\n    return spark.readStream.table(\"raw_sales\").filter(\"region = 'EU'\")\n\n@dp.table()\ndef refunds_quarantine():\n    return spark.readStream.table(\"raw_refunds\").filter(\"amount < 0\")\n"
    );
    let found = lint_sources(&[("pipelines/sales.py", &source)]);
    assert!(found.is_empty(), "{found:?}");
}

/// A generated rule dict of `n` rules used by `expect_all_or_drop` and a
/// quarantine joining every rule (2n AND terms).
fn large_dict(n: usize) -> String {
    let mut s = String::from("from pyspark import pipelines as dp\n\nR = {\n");
    for i in 0..n {
        s.push_str(&format!(
            "    \"r{i}\": \"c{i} IS NOT NULL AND c{i} > {i}\",\n"
        ));
    }
    s.push_str("}\n\n@dp.table()\n@dp.expect_all_or_drop(R)\ndef wide_clean():\n    return spark.readStream.table(\"wide_raw\")\n\n@dp.table()\ndef wide_quarantine():\n    return spark.readStream.table(\"wide_raw\").filter(\"NOT({0})\".format(\" AND \".join(R.values())))\n");
    s
}

#[test]
fn a_very_large_rule_dict_does_not_overflow_the_stack() {
    // The CLI's rayon workers have 2 MB stacks, as a test thread has.
    for n in [1500, 2000, 5000] {
        let source = large_dict(n);
        let found = std::thread::Builder::new()
            .stack_size(2 * 1024 * 1024)
            .spawn(move || lint_sources(&[("transformations/wide.py", &source)]))
            .unwrap()
            .join()
            .expect("no stack overflow");
        // Each reads the source itself (DQ924); nothing else is claimed.
        assert!(
            found.iter().all(|(code, _)| code == "DQ924"),
            "{n}: {found:?}"
        );
    }
}

fn one_rule_pair(rule: &str, quarantine: &str) -> String {
    format!(
        "from pyspark import pipelines as dp\n\n@dp.temporary_view()\ndef src():\n    return spark.readStream.table(\"raw\")\n\n@dp.table()\n@dp.expect_or_drop(\"r\", \"{rule}\")\ndef items_clean():\n    return spark.readStream.table(\"src\")\n\n@dp.table()\ndef items_quarantine():\n    return spark.readStream.table(\"src\").filter(\"{quarantine}\")\n"
    )
}

#[test]
fn exact_negations_the_normaliser_sees_or_cannot_decide_are_silent() {
    for (rule, q) in [
        (
            "status IN ('OPEN','CLOSED')",
            "status NOT IN ('OPEN','CLOSED')",
        ),
        ("x BETWEEN 1 AND 5", "x NOT BETWEEN 1 AND 5"),
        ("x BETWEEN 1 AND 5", "x < 1 OR x > 5"),
        ("name LIKE 'a%'", "name NOT LIKE 'a%'"),
        ("name ILIKE 'a%'", "name NOT ILIKE 'a%'"),
        (
            "`price` IS NOT NULL AND `price` > 0",
            "price IS NULL OR price <= 0",
        ),
        ("a IS NOT NULL", "isnull(a)"),
        ("isnotnull(a)", "a IS NULL"),
        ("a IS TRUE", "a IS NOT TRUE"),
        // The null-safe complement: keeps the NULL prices too.
        ("price > 0", "NOT coalesce(price > 0, false)"),
    ] {
        let found = lint_sources(&[("transformations/items.py", &one_rule_pair(rule, q))]);
        assert!(found.is_empty(), "{rule} / {q}: {found:?}");
    }
}

#[test]
fn rules_that_are_never_null_have_no_null_gap() {
    for rule in [
        "coalesce(price > 0, false)",
        "nvl(price > 0, false)",
        "isnotnull(price) AND price > 0",
        "NOT isnull(price) AND price > 0",
        "(price > 0) IS TRUE",
        "CASE WHEN price IS NULL THEN false ELSE price > 0 END",
    ] {
        let q = format!("NOT ({rule})");
        let found = lint_sources(&[("transformations/items.py", &one_rule_pair(rule, &q))]);
        assert!(found.is_empty(), "{rule}: {found:?}");
    }
}

fn filtered_pair(clean_filter: &str, quarantine_tail: &str) -> String {
    format!(
        "from pyspark import pipelines as dp\n\n@dp.table()\n@dp.expect_or_drop(\"valid_quantity\", \"quantity IS NOT NULL AND quantity > 0\")\ndef orders_clean():\n    return spark.readStream.table(\"bronze\"){clean_filter}\n\n@dp.table()\ndef orders_quarantine():\n    return spark.readStream.table(\"bronze\"){quarantine_tail}\n"
    )
}

#[test]
fn a_row_filter_shared_by_clean_and_quarantine_is_no_extra_condition() {
    let clean = ".filter(\"topic = 'orders'\")";
    for q in [
        ".filter(\"topic = 'orders' AND (quantity IS NULL OR quantity <= 0)\")",
        ".filter(\"topic = 'orders'\").filter(\"quantity IS NULL OR quantity <= 0\")",
        ".filter(\"topic = 'orders' AND NOT (quantity IS NOT NULL AND quantity > 0)\")",
    ] {
        let found = lint_sources(&[("transformations/orders.py", &filtered_pair(clean, q))]);
        assert!(
            found.iter().all(|(code, _)| code == "DQ924"),
            "{q}: {found:?}"
        );
    }
    // The clean side filters on something the quarantine does not: nothing claimed.
    let found = lint_sources(&[(
        "transformations/orders.py",
        &filtered_pair(clean, ".filter(\"quantity IS NULL OR quantity <= 0\")"),
    )]);
    assert!(found.iter().all(|(code, _)| code == "DQ924"), "{found:?}");
}

#[test]
fn the_fix_within_a_shared_filter_keeps_the_filter() {
    let source = filtered_pair(
        ".filter(\"topic = 'orders'\")",
        ".filter(\"topic = 'orders' AND quantity <= 0\")",
    );
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join(".git")).unwrap();
    std::fs::create_dir_all(dir.path().join("transformations")).unwrap();
    std::fs::write(dir.path().join("transformations/orders.py"), &source).unwrap();
    let project = Project::load(dir.path(), &LoadOptions::default()).unwrap();
    let found = lint(&project, &Selection::default());
    let dq920: Vec<_> = found.iter().filter(|d| d.rule.code == "DQ920").collect();
    assert_eq!(dq920.len(), 1, "{found:?}");
    assert!(
        !dq920[0].message.contains("no rule rejects"),
        "{}",
        dq920[0].message
    );
    let fix = dq920[0].fix.as_ref().expect("an unsafe fix");
    assert_eq!(
        fix.edits[0].new_text,
        "\"topic = 'orders' AND NOT (quantity IS NOT NULL AND quantity > 0)\""
    );
}

#[test]
fn a_pair_by_name_only_needs_a_shared_column() {
    let source = "from pyspark import pipelines as dp\n\n@dp.table()\ndef bronze_encounters_quarantine():\n    return spark.readStream.table(\"bronze_encounters\").filter(\"_rescued_data IS NOT NULL\")\n\n@dp.table()\n@dp.expect_all_or_drop({\"ids\": \"encounter_id IS NOT NULL AND patient_id IS NOT NULL\"})\ndef silver_encounters():\n    return spark.readStream.table(\"bronze_encounters\")\n";
    let found = lint_sources(&[("transformations/encounters.py", source)]);
    assert!(found.is_empty(), "{found:?}");
}

/// A SQL clean/quarantine pair over one view: `rules` as drop constraints,
/// `filter` as the quarantine's WHERE.
fn sql_pair(rules: &[&str], filter: &str) -> String {
    let constraints: Vec<String> = rules
        .iter()
        .enumerate()
        .map(|(i, r)| format!("  CONSTRAINT r{i} EXPECT ({r}) ON VIOLATION DROP ROW"))
        .collect();
    format!(
        "CREATE TEMPORARY VIEW raw_sales AS SELECT * FROM STREAM(raw_ingestion);\n\
         CREATE OR REFRESH STREAMING TABLE sales_clean (\n{}\n) AS SELECT * FROM STREAM(raw_sales);\n\
         CREATE OR REFRESH STREAMING TABLE sales_quarantine AS SELECT * FROM STREAM(raw_sales) WHERE {filter};\n",
        constraints.join(",\n")
    )
}

fn dq920_messages(source: &str) -> Vec<String> {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join(".git")).unwrap();
    std::fs::create_dir_all(dir.path().join("transformations")).unwrap();
    std::fs::write(dir.path().join("transformations/sales.sql"), source).unwrap();
    let project = Project::load(dir.path(), &LoadOptions::default()).unwrap();
    lint(&project, &Selection::default())
        .into_iter()
        .filter(|d| d.rule.code == "DQ920")
        .map(|d| d.message)
        .collect()
}

#[test]
fn different_forms_that_keep_the_same_rows_are_no_finding() {
    for (rules, filter) in [
        (
            &["price IS NOT NULL AND price > 0 AND price > 1"][..],
            "price IS NULL OR price <= 1",
        ),
        // NULL prices are the null gap's (DQ921), not a disagreement here.
        (&["price > 0", "price > 1"], "NOT (price > 1)"),
        (
            &["qty IS NOT NULL AND qty BETWEEN 1 AND 5"],
            "qty IS NULL OR qty < 1 OR qty > 5",
        ),
        (
            &["coalesce(price, 0) > 0"],
            "NOT (coalesce(price, 0) > 0) OR price IS NULL",
        ),
    ] {
        let messages = dq920_messages(&sql_pair(rules, filter));
        assert!(messages.is_empty(), "{rules:?} / {filter}: {messages:?}");
    }
}

#[test]
fn a_finding_names_a_row_the_tables_disagree_on() {
    // `qty >= 1` and `qty > 0` keep the same integers, not the same
    // decimals: true for every type is what counts.
    let messages = dq920_messages(&sql_pair(
        &["qty IS NOT NULL AND qty >= 1"],
        "qty IS NULL OR qty <= 0",
    ));
    assert_eq!(messages.len(), 1, "{messages:?}");
    assert!(
        messages[0].contains("a row with qty = 0.5 is in neither table"),
        "{}",
        messages[0]
    );
    let messages = dq920_messages(&sql_pair(
        &["price IS NOT NULL AND price > 0", "order_id IS NOT NULL"],
        "NOT (price IS NOT NULL AND price > 0)",
    ));
    assert_eq!(messages.len(), 1, "{messages:?}");
    assert!(
        messages[0].contains("order_id = NULL") && messages[0].contains("in neither table"),
        "{}",
        messages[0]
    );
    let messages = dq920_messages(&sql_pair(
        &["price IS NOT NULL AND price > 0"],
        "price IS NULL OR price <= 0 OR status = 'X'",
    ));
    assert!(
        messages[0].contains("status = 'X' is in both"),
        "{}",
        messages[0]
    );
}

/// Every finding as `code file:start..end message`, in output order.
fn rendered(project: &Project, selection: &Selection) -> Vec<String> {
    lint(project, selection)
        .iter()
        .map(|d| {
            format!(
                "{} {}:{:?} {}",
                d.rule.code,
                project.file(d.primary.file).rel,
                d.primary.span,
                d.message
            )
        })
        .collect()
}

#[test]
fn findings_do_not_depend_on_threads_or_on_the_rules_selected() {
    // Sources, quarantine patterns and constraint findings are built in
    // parallel before the rules start: many pairs over many files, some
    // with a planted mistake, must give the same findings in the same
    // order on one thread and on four, and a rule selected alone must
    // find what it finds in a full run.
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join(".git")).unwrap();
    std::fs::create_dir(dir.path().join("pipelines")).unwrap();
    for i in 0..24 {
        let body = match i % 3 {
            0 => ".filter(\"NOT (price IS NOT NULL AND price > 0)\")",
            1 => ".filter(\"NOT ({0})\".format(\" AND \".join(RULES.values())))",
            _ => ".filter(\"order_id IS NULL OR pric(e) <= 0\")",
        };
        let mut source = with_quarantine(body).replace("sales", &format!("sales_{i}"));
        if i % 5 == 0 {
            // A rule that does not parse: DQ301 from the constraint findings.
            source = source.replace("\"order_id IS NOT NULL\"", "\"order_id IS NOT\"");
        }
        std::fs::write(dir.path().join(format!("pipelines/s{i}.py")), source).unwrap();
    }
    let project = Project::load(dir.path(), &LoadOptions::default()).unwrap();
    let in_pool = |threads: usize, selection: &Selection| {
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap()
            .install(|| rendered(&project, selection))
    };
    let all = Selection::default();
    let one_thread = in_pool(1, &all);
    assert!(
        one_thread.iter().filter(|f| f.starts_with("DQ920")).count() >= 8,
        "{one_thread:#?}"
    );
    assert!(
        one_thread.iter().any(|f| f.starts_with("DQ3")),
        "{one_thread:#?}"
    );
    assert_eq!(one_thread, in_pool(4, &all));
    for code in ["DQ920", "DQ921", "DQ306", "DQ301", "DQ001"] {
        let alone = Selection {
            select: vec![code.to_string()],
            ..Selection::default()
        };
        let expected: Vec<String> = one_thread
            .iter()
            .filter(|f| f.starts_with(code))
            .cloned()
            .collect();
        assert_eq!(in_pool(2, &alone), expected, "{code}");
    }
}
