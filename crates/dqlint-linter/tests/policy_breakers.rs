//! The circuit-breaker and registry policies (DQ952-DQ954) in every
//! dialect: LHP quarantine actions, DQX run configs and Python engines,
//! pipeline views; the rules a registry loader call resolves to, counted
//! by DQ950; and the `unique` an aggregate view grouped by the key gives
//! the dataset it reads.

use std::path::Path;

use dqlint_linter::rules::policy::{breaker_state, datasets};
use dqlint_linter::{lint_configured, Config, Context, Selection};
use dqlint_project::Project;

/// A project in a temporary folder: `files` over a copy of `base` (a
/// folder of the repository, or none).
fn project(base: Option<&str>, files: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    if let Some(base) = base {
        let from = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../..")
            .join(base);
        copy_dir(&from, dir.path());
    }
    for (rel, text) in files {
        let path = dir.path().join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
    if !dir.path().join("lhp.yaml").exists() {
        std::fs::write(dir.path().join("lhp.yaml"), "name: t\nversion: \"1.0\"\n").unwrap();
    }
    dir
}

fn copy_dir(from: &Path, to: &Path) {
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            std::fs::create_dir_all(&target).unwrap();
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
}

/// `(code, file:line, message)` of every finding.
fn lint(dir: &Path) -> Vec<(String, String, String)> {
    let config = Config::discover(dir, None).expect("valid dqlint.toml");
    let project = Project::load(dir, &config.load_options(&[])).unwrap();
    lint_configured(&project, &config, &Selection::default())
        .iter()
        .map(|d| {
            let file = project.file(d.primary.file);
            let p = file.lines.position(&file.text, d.primary.span.start);
            (
                d.rule.code.to_string(),
                format!("{}:{}", file.rel, p.line),
                d.message.clone(),
            )
        })
        .collect()
}

fn codes_of(found: &[(String, String, String)], prefix: &str) -> Vec<String> {
    found
        .iter()
        .filter(|(c, _, _)| c.starts_with(prefix))
        .map(|(c, at, _)| format!("{c} {at}"))
        .collect()
}

/// The breaker column of `dqlint policy` for each dataset, by label.
fn breaker_columns(dir: &Path) -> Vec<(String, String)> {
    let config = Config::discover(dir, None).unwrap();
    let project = Project::load(dir, &config.load_options(&[])).unwrap();
    let mut ctx = Context::with_dqx(&project, &config.dqx);
    ctx.dlt = config.dlt.clone();
    ctx.team_policy = config.team_policy.clone();
    datasets(&ctx)
        .iter()
        .filter(|d| !d.auxiliary)
        .map(|d| (d.label.clone(), breaker_state(&ctx, d).text()))
        .collect()
}

const BREAKER_POLICY: &str =
    "[policy.circuit_breaker]\ndatasets = [\"*.bronze.*\", \"*.silver.*\", \"silver_*\"]\nmax_quarantine_ratio = 0.05\n";

#[test]
fn an_lhp_quarantine_action_has_no_breaker_unless_a_pipeline_view_watches_its_table() {
    let bare = project(
        Some("fixtures/rules/DQ404/good"),
        &[("dqlint.toml", BREAKER_POLICY)],
    );
    let found = lint(bare.path());
    assert_eq!(
        codes_of(&found, "DQ95"),
        ["DQ953 pipelines/bronze/orders.yaml:14"],
        "{found:?}"
    );
    assert!(
        found[0].2.contains("LHP has no circuit breaker"),
        "{}",
        found[0].2
    );

    // A materialized view of the project reading the table LHP writes and
    // its DLQ is the breaker.
    let watched = project(
        Some("fixtures/rules/DQ404/good"),
        &[
            ("dqlint.toml", BREAKER_POLICY),
            (
                "transformations/breaker.py",
                r#"from pyspark import pipelines as dp
from pyspark.sql import functions as F

@dp.materialized_view()
@dp.expect_or_fail("at_most_5_percent", "quarantined * 20 <= total")
def orders_breaker():
    q = spark.read.table("acme_dev.ops.dlq").agg(F.count("*").alias("quarantined"))
    c = spark.read.table("bronze.orders").agg(F.count("*").alias("total"))
    return q.crossJoin(c)
"#,
            ),
        ],
    );
    let found = lint(watched.path());
    assert_eq!(codes_of(&found, "DQ95"), Vec::<String>::new(), "{found:?}");
    let columns = breaker_columns(watched.path());
    let orders = columns
        .iter()
        .find(|(label, _)| label == "${catalog}.bronze.orders")
        .unwrap_or_else(|| panic!("{columns:?}"));
    // `q * 20 <= t` with `t` perhaps the clean count alone: 1/21 of a batch.
    assert_eq!(orders.1, "ok (4.8%)");
    assert!(
        !columns.iter().any(|(label, _)| label == "orders_breaker"),
        "the breaker view is no policy subject: {columns:?}"
    );
}

const DQX_JOB: &str = r#"from databricks.labs.dqx.actions import DQAction, FailPipeline
from databricks.labs.dqx.config import InputConfig, OutputConfig
from databricks.labs.dqx.engine import DQEngine
from databricks.labs.dqx.metrics_observer import DQMetricsObserver
from databricks.sdk import WorkspaceClient

breaker = DQAction(condition="CONDITION", action=FailPipeline())
dq = DQEngine(WorkspaceClient(), observer=DQMetricsObserver(), actions=[breaker])
dq.apply_checks_and_save_in_table(
    input_config=InputConfig(location="main.bronze.orders"),
    output_config=OutputConfig(location="main.silver.orders"),
    quarantine_config=OutputConfig(location="main.silver.orders_quarantine"),
    checks_location="/Workspace/dqx/checks/orders.yml",
)
"#;

fn dqx_job(condition: &str) -> tempfile::TempDir {
    project(
        None,
        &[
            ("dqlint.toml", BREAKER_POLICY),
            ("jobs/orders.py", &DQX_JOB.replace("CONDITION", condition)),
        ],
    )
}

#[test]
fn dqx_fail_actions_are_breakers_read_with_their_threshold_and_guard() {
    let tight = dqx_job("input_row_count > 0 and error_row_count / input_row_count > 0.05");
    assert_eq!(codes_of(&lint(tight.path()), "DQ95"), Vec::<String>::new());
    assert_eq!(
        breaker_columns(tight.path()),
        [("main.silver.orders".to_string(), "ok (5%)".to_string())]
    );

    let loose = dqx_job("error_row_count / input_row_count > 0.1");
    let found = lint(loose.path());
    assert_eq!(
        codes_of(&found, "DQ95"),
        ["DQ954 jobs/orders.py:7", "DQ954 jobs/orders.py:7"],
        "{found:?}"
    );
    assert!(found
        .iter()
        .any(|f| f.2.contains("lets up to 10% of a batch")));
    assert!(found
        .iter()
        .any(|f| f.2.contains("divides by `input_row_count`")
            && f.2.contains("InvalidConditionError")));
    assert_eq!(
        breaker_columns(loose.path()),
        [(
            "main.silver.orders".to_string(),
            "too loose (10%), unguarded division".to_string()
        )]
    );

    // A condition on something else than a share (any error at all) is a
    // breaker, stricter than any ratio: nothing to say.
    let any_error = dqx_job("error_row_count > 0");
    assert_eq!(
        codes_of(&lint(any_error.path()), "DQ95"),
        Vec::<String>::new()
    );
    assert_eq!(
        breaker_columns(any_error.path()),
        [("main.silver.orders".to_string(), "present".to_string())]
    );
}

#[test]
fn a_dqx_run_config_is_watched_only_through_its_actions_location() {
    let config = |extra: &str| {
        format!(
            "run_configs:\n  - name: orders\n    input_config:\n      location: main.bronze.orders\n    output_config:\n      location: main.silver.orders\n    quarantine_config:\n      location: main.silver.orders_quarantine\n    checks_location: checks.yml\n{extra}"
        )
    };
    let checks = "- criticality: error\n  check:\n    function: is_not_null\n    arguments:\n      column: id\n";
    let without = project(
        None,
        &[
            ("dqlint.toml", BREAKER_POLICY),
            ("quality/config.yml", &config("")),
            ("quality/checks.yml", checks),
        ],
    );
    let found = lint(without.path());
    assert_eq!(
        codes_of(&found, "DQ95"),
        ["DQ953 quality/config.yml:6"],
        "{found:?}"
    );
    assert!(found[0].2.contains("actions_location"), "{}", found[0].2);

    let with = project(
        None,
        &[
            ("dqlint.toml", BREAKER_POLICY),
            (
                "quality/config.yml",
                &config("    actions_location: main.ops.dqx_actions\n"),
            ),
            ("quality/checks.yml", checks),
        ],
    );
    assert_eq!(codes_of(&lint(with.path()), "DQ95"), Vec::<String>::new());
    assert_eq!(
        breaker_columns(with.path()),
        [(
            "main.silver.orders".to_string(),
            "actions not read".to_string()
        )]
    );

    // Without a quarantine there is nothing to break on.
    let clean_only = project(
        None,
        &[
            ("dqlint.toml", BREAKER_POLICY),
            (
                "quality/config.yml",
                "run_configs:\n  - name: orders\n    input_config:\n      location: main.bronze.orders\n    output_config:\n      location: main.silver.orders\n",
            ),
            ("quality/checks.yml", checks),
        ],
    );
    assert_eq!(
        codes_of(&lint(clean_only.path()), "DQ95"),
        Vec::<String>::new()
    );
    assert_eq!(
        breaker_columns(clean_only.path()),
        [(
            "main.silver.orders".to_string(),
            "no quarantine".to_string()
        )]
    );
}

#[test]
fn a_pipeline_breaker_in_sql_is_read_and_a_guarded_division_passes() {
    let sql = |expect: &str| {
        format!(
            "CREATE TEMPORARY VIEW ledger_raw AS SELECT * FROM STREAM(bronze_ledger);\n\
             CREATE OR REFRESH STREAMING TABLE silver_ledger (\n  CONSTRAINT valid_amount EXPECT (amount IS NOT NULL AND amount > 0) ON VIOLATION DROP ROW\n) AS SELECT * FROM STREAM(ledger_raw);\n\
             CREATE OR REFRESH STREAMING TABLE quarantine_ledger AS SELECT * FROM STREAM(ledger_raw) WHERE NOT (amount IS NOT NULL AND amount > 0);\n\
             CREATE OR REFRESH MATERIALIZED VIEW ledger_breaker (\n  CONSTRAINT share EXPECT ({expect}) ON VIOLATION FAIL UPDATE\n) AS SELECT q.n AS quarantined, c.n AS clean\nFROM (SELECT count(*) AS n FROM quarantine_ledger) q\nCROSS JOIN (SELECT count(*) AS n FROM silver_ledger) c;\n"
        )
    };
    let guarded = project(
        None,
        &[
            ("dqlint.toml", BREAKER_POLICY),
            (
                "transformations/ledger.sql",
                &sql("quarantined + clean = 0 OR quarantined / (quarantined + clean) <= 0.05"),
            ),
        ],
    );
    let found = lint(guarded.path());
    assert_eq!(codes_of(&found, "DQ95"), Vec::<String>::new(), "{found:?}");

    let unguarded = project(
        None,
        &[
            ("dqlint.toml", BREAKER_POLICY),
            (
                "transformations/ledger.sql",
                &sql("quarantined / (quarantined + clean) <= 0.05"),
            ),
        ],
    );
    let found = lint(unguarded.path());
    assert_eq!(
        codes_of(&found, "DQ95"),
        ["DQ954 transformations/ledger.sql:7"],
        "{found:?}"
    );
    assert!(found
        .iter()
        .any(|f| f.2.contains("divides by `quarantined + clean`")));

    let none = project(
        None,
        &[
            ("dqlint.toml", BREAKER_POLICY),
            (
                "transformations/ledger.sql",
                &sql("quarantined >= 0").replace("ON VIOLATION FAIL UPDATE", ""),
            ),
        ],
    );
    let found = lint(none.path());
    assert_eq!(
        codes_of(&found, "DQ95"),
        ["DQ953 transformations/ledger.sql:2"],
        "a warn-only view is no breaker: {found:?}"
    );
}

const REGISTRY_POLICY: &str = "[[policy.mandatory]]\ndatasets = [\"silver_*\"]\nkinds = [\"not_null\", \"range\"]\n\n[policy]\nregistry = [\"expectations/*.yaml\"]\n\n[dlt]\nrule_loaders = [\"get_rules\"]\n";

const REGISTRY: &str = "orders:\n  valid_order_id: order_id IS NOT NULL\n  valid_amount: amount >= 0\nrefunds:\n  valid_refund_id: refund_id IS NOT NULL\n";

fn pipeline(decorators: &str) -> String {
    format!(
        "from pyspark import pipelines as dp\nfrom quality.registry import get_rules\n\n@dp.table()\n{decorators}\ndef silver_orders():\n    return spark.readStream.table(\"bronze_orders\")\n"
    )
}

#[test]
fn registry_rules_count_as_the_datasets_expectations() {
    let loaded = project(
        None,
        &[
            ("dqlint.toml", REGISTRY_POLICY),
            ("expectations/registry.yaml", REGISTRY),
            (
                "transformations/orders.py",
                &pipeline("@dp.expect_all_or_drop(get_rules(\"orders\"))"),
            ),
        ],
    );
    let found = lint(loaded.path());
    assert_eq!(codes_of(&found, "DQ9"), Vec::<String>::new(), "{found:?}");

    // The entry has no range rule: DQ950 says so, from the registry's rules.
    let partial = project(
        None,
        &[
            ("dqlint.toml", REGISTRY_POLICY),
            ("expectations/registry.yaml", REGISTRY),
            (
                "transformations/orders.py",
                &pipeline("@dp.expect_all_or_drop(get_rules(\"refunds\"))"),
            ),
        ],
    );
    let found = lint(partial.path());
    assert_eq!(
        codes_of(&found, "DQ9"),
        ["DQ950 transformations/orders.py:6"],
        "{found:?}"
    );
    assert!(
        found[0].2.contains("lacks the mandatory range"),
        "{}",
        found[0].2
    );

    // Loaded as warnings, they are DQ951's.
    let warn = project(
        None,
        &[
            ("dqlint.toml", REGISTRY_POLICY),
            ("expectations/registry.yaml", REGISTRY),
            (
                "transformations/orders.py",
                &pipeline("@dp.expect_all(get_rules(\"orders\"))"),
            ),
        ],
    );
    let found = lint(warn.path());
    assert_eq!(
        codes_of(&found, "DQ95"),
        [
            "DQ951 transformations/orders.py:5",
            "DQ951 transformations/orders.py:5"
        ],
        "{found:?}"
    );
}

#[test]
fn inline_rules_and_unknown_entries_are_dq952_and_a_computed_entry_is_dq911() {
    let dir = project(
        None,
        &[
            ("dqlint.toml", REGISTRY_POLICY),
            ("expectations/registry.yaml", REGISTRY),
            (
                "transformations/orders.py",
                &pipeline(
                    "@dp.expect_all_or_drop(get_rules(\"orders\"))\n@dp.expect_or_drop(\"positive\", \"amount > 0\")\n@dp.expect_all_or_drop(get_rules(\"order\"))\n@dp.expect_all_or_drop(get_rules(ENTRY))",
                ),
            ),
        ],
    );
    let found = lint(dir.path());
    assert_eq!(
        codes_of(&found, "DQ9"),
        [
            "DQ952 transformations/orders.py:6",
            "DQ952 transformations/orders.py:7",
            "DQ911 transformations/orders.py:8",
        ],
        "{found:?}"
    );
    let message = |code: &str| &found.iter().find(|f| f.0 == code).unwrap().2;
    assert!(message("DQ911").contains("cannot be resolved"));
    let unknown = &found.iter().filter(|f| f.0 == "DQ952").nth(1).unwrap().2;
    assert!(
        unknown.contains("`get_rules(\"order\")`")
            && unknown.contains("its entries: orders, refunds"),
        "{unknown}"
    );

    // Without a registry, a loader call is the loader's business and an
    // inline rule is fine.
    let no_registry = project(
        None,
        &[
            ("dqlint.toml", "[dlt]\nrule_loaders = [\"get_rules\"]\n"),
            (
                "transformations/orders.py",
                &pipeline(
                    "@dp.expect_or_drop(\"positive\", \"amount > 0\")\n@dp.expect_all_or_drop(get_rules(ENTRY))",
                ),
            ),
        ],
    );
    let found = lint(no_registry.path());
    assert_eq!(codes_of(&found, "DQ9"), Vec::<String>::new(), "{found:?}");
}

/// DQ950's unsafe fix, applied: the missing rules are written where the
/// dataset's rules are, and the dataset then meets its policy with no new
/// finding.
fn apply_dq950_fix(dir: &Path) -> Vec<(String, String)> {
    let config = Config::discover(dir, None).unwrap();
    let project = Project::load(dir, &config.load_options(&[])).unwrap();
    let found = lint_configured(&project, &config, &Selection::default());
    let fixes: Vec<_> = found
        .iter()
        .filter(|d| d.rule.code == "DQ950")
        .map(|d| d.fix.clone().expect("a template fix"))
        .collect();
    assert_eq!(fixes.len(), 1, "{found:?}");
    let fix = &fixes[0];
    assert_eq!(fix.applicability, dqlint_linter::Applicability::Unsafe);
    let mut written = Vec::new();
    for edit in &fix.edits {
        let file = project.file(edit.file);
        let mut text = file.text.to_string();
        text.replace_range(edit.span.clone(), &edit.new_text);
        std::fs::write(dir.join(&file.rel), &text).unwrap();
        written.push((file.rel.clone(), text));
    }
    written
}

#[test]
fn dq950_writes_a_template_of_each_missing_rule_where_the_rules_are() {
    let policy = "[[policy.mandatory]]\ndatasets = [\"*.silver.*\", \"silver_*\"]\nkinds = [\"not_null\", \"range\"]\ncolumns = { not_null = [\"order_id\"], range = [\"amount\"] }\nmin_action = \"fail\"\n";
    // LHP, keyed expectations file.
    let lhp = project(
        Some("fixtures/rules/DQ950/bad"),
        &[
            ("dqlint.toml", policy),
            (
                "expectations/orders.yaml",
                "customer_id IS NOT NULL:\n  action: fail\n  name: valid_customer",
            ),
        ],
    );
    let written = apply_dq950_fix(lhp.path());
    assert_eq!(
        written,
        [(
            "expectations/orders.yaml".to_string(),
            "customer_id IS NOT NULL:\n  action: fail\n  name: valid_customer\norder_id IS NOT NULL:\n  action: fail\n  name: order_id_not_null\namount >= 0:\n  action: fail\n  name: amount_in_range\n".to_string()
        )]
    );
    assert_eq!(lint(lhp.path()), Vec::<(String, String, String)>::new());

    // DQX checks file (no criticality fails a run: a `drop` policy).
    let drop_policy = policy.replace("\"fail\"", "\"drop\"");
    let dqx = project(
        None,
        &[
            ("dqlint.toml", &drop_policy),
            (
                "quality/config.yml",
                "run_configs:\n  - name: orders\n    input_config:\n      location: main.bronze.orders\n    output_config:\n      location: main.silver.orders\n",
            ),
            (
                "quality/checks.yml",
                "- criticality: error\n  check:\n    function: is_not_null\n    arguments:\n      column: customer_id\n",
            ),
        ],
    );
    let written = apply_dq950_fix(dqx.path());
    assert!(
        written[0].1.ends_with("- name: amount_range\n  criticality: error\n  check:\n    function: is_not_less_than\n    arguments:\n      column: amount\n      limit: 0\n"),
        "{}",
        written[0].1
    );
    assert_eq!(lint(dqx.path()), Vec::<(String, String, String)>::new());

    // A Python pipeline dataset: decorators above its `def`.
    let python = project(
        None,
        &[
            ("dqlint.toml", policy),
            (
                "transformations/orders.py",
                "from pyspark import pipelines as dp\n\n@dp.table()\ndef silver_orders():\n    return spark.readStream.table(\"bronze_orders\")\n",
            ),
        ],
    );
    let written = apply_dq950_fix(python.path());
    assert!(
        written[0].1.contains("@dp.table()\n@dp.expect_or_fail(\"order_id_not_null\", \"order_id IS NOT NULL\")\n@dp.expect_or_fail(\"amount_in_range\", \"amount >= 0\")\ndef silver_orders():"),
        "{}",
        written[0].1
    );
    assert_eq!(lint(python.path()), Vec::<(String, String, String)>::new());
}

#[test]
fn dq950_offers_no_template_it_cannot_write() {
    // `unique` of a pipeline dataset: row expectations cannot check it.
    let dir = project(
        None,
        &[
            (
                "dqlint.toml",
                "[[policy.mandatory]]\ndatasets = [\"silver_*\"]\nkinds = [\"unique\"]\ncolumns = { unique = [\"id\"] }\n",
            ),
            (
                "transformations/orders.py",
                "from pyspark import pipelines as dp\n\n@dp.table()\ndef silver_orders():\n    return spark.readStream.table(\"bronze_orders\")\n",
            ),
        ],
    );
    let config = Config::discover(dir.path(), None).unwrap();
    let project = Project::load(dir.path(), &config.load_options(&[])).unwrap();
    let found = lint_configured(&project, &config, &Selection::default());
    let dq950: Vec<_> = found.iter().filter(|d| d.rule.code == "DQ950").collect();
    assert_eq!(dq950.len(), 1);
    assert!(dq950[0].fix.is_none());
}

#[test]
fn pipeline_sql_datasets_meet_policies_through_their_constraints() {
    let policy = "[[policy.mandatory]]\ndatasets = [\"silver_*\"]\ntable_properties = { quality = \"silver\" }\nkinds = [\"not_null\", \"range\"]\ncolumns = { not_null = [\"id\"] }\n";
    let dir = project(
        None,
        &[
            ("dqlint.toml", policy),
            (
                "transformations/silver.sql",
                "CREATE OR REFRESH STREAMING TABLE silver_orders (\n  CONSTRAINT valid_id EXPECT (id IS NOT NULL) ON VIOLATION DROP ROW,\n  CONSTRAINT valid_amount EXPECT (amount >= 0)\n) AS SELECT * FROM STREAM(bronze_orders);\n\
                 CREATE OR REFRESH MATERIALIZED VIEW customers_clean (\n  CONSTRAINT valid_id EXPECT (id IS NOT NULL) ON VIOLATION FAIL UPDATE\n) TBLPROPERTIES ('quality' = 'silver') AS SELECT * FROM bronze_customers;\n\
                 CREATE OR REFRESH MATERIALIZED VIEW gold_totals AS SELECT count(*) AS n FROM silver_orders;\n",
            ),
        ],
    );
    let found = lint(dir.path());
    assert_eq!(
        codes_of(&found, "DQ9"),
        [
            "DQ951 transformations/silver.sql:3",
            "DQ950 transformations/silver.sql:5",
        ],
        "{found:?}"
    );
    assert!(found
        .iter()
        .any(|f| f.0 == "DQ950" && f.2.contains("`customers_clean` lacks the mandatory range")));
}

#[test]
fn a_dqx_engine_built_elsewhere_or_with_unread_actions_is_not_judged() {
    let imported = project(
        None,
        &[
            ("dqlint.toml", BREAKER_POLICY),
            (
                "jobs/orders.py",
                &DQX_JOB
                    .replace("dq = DQEngine(WorkspaceClient(), observer=DQMetricsObserver(), actions=[breaker])\n", "from jobs.engine import dq\n")
                    .replace("breaker = DQAction(condition=\"CONDITION\", action=FailPipeline())\n", ""),
            ),
        ],
    );
    assert_eq!(
        codes_of(&lint(imported.path()), "DQ95"),
        Vec::<String>::new()
    );
    assert_eq!(
        breaker_columns(imported.path()),
        [(
            "main.silver.orders".to_string(),
            "actions not read".to_string()
        )]
    );
    let computed = project(
        None,
        &[
            ("dqlint.toml", BREAKER_POLICY),
            (
                "jobs/orders.py",
                &DQX_JOB.replace("actions=[breaker]", "actions=load_actions()"),
            ),
        ],
    );
    assert_eq!(
        codes_of(&lint(computed.path()), "DQ95"),
        Vec::<String>::new()
    );
}

const UNIQUE_POLICY: &str = "[[policy.mandatory]]\ndatasets = [\"*.silver.*\", \"silver_*\"]\nkinds = [\"not_null\", \"unique\"]\ncolumns = { not_null = [\"order_id\"], unique = [\"order_id\"] }\nmin_action = \"drop\"\n";

/// A Python pipeline with `silver_orders` (not_null on `order_id`) and,
/// when given, a view over it.
fn orders_with_view(view: &str) -> tempfile::TempDir {
    let source = format!(
        r#"from pyspark import pipelines as dp
from pyspark.sql import functions as F

@dp.table
@dp.expect_or_drop("valid_id", "order_id IS NOT NULL")
def silver_orders():
    return spark.readStream.table("bronze_orders")
{view}"#
    );
    project(
        None,
        &[
            ("dqlint.toml", UNIQUE_POLICY),
            ("transformations/orders.py", &source),
        ],
    )
}

#[test]
fn an_aggregate_view_grouped_by_the_key_gives_its_dataset_unique() {
    let dq95 = |view: &str| codes_of(&lint(orders_with_view(view).path()), "DQ95");
    // No view: unique on order_id is missing.
    let found = lint(orders_with_view("").path());
    assert_eq!(
        codes_of(&found, "DQ95"),
        ["DQ950 transformations/orders.py:6"]
    );
    assert!(
        found[0].2.contains("unique on `order_id`"),
        "{}",
        found[0].2
    );

    // Databricks' documented form (spark.sql), a DataFrame chain, SQL
    // positions: each meets the requirement, and the check view (named
    // like a silver table) is no policy subject itself.
    for view in [
        r#"
@dp.materialized_view
@dp.expect_or_fail("unique_pk", "num_entries = 1")
def silver_orders_pk():
    return spark.sql("SELECT order_id, count(*) AS num_entries FROM silver_orders GROUP BY order_id")
"#,
        r#"
@dp.materialized_view(name="silver_orders_dupes")
@dp.expect_or_drop("one_row_per_id", "n <= 1")
def dupes():
    return spark.read.table("silver_orders").groupBy("order_id").agg(F.count("*").alias("n"))
"#,
        r#"
@dp.temporary_view
@dp.expect_or_fail("unique_id", "count < 2")
def silver_orders_counts():
    return spark.read.table("LIVE.silver_orders").groupBy(F.col("order_id")).count()
"#,
    ] {
        assert_eq!(dq95(view), Vec::<String>::new(), "{view}");
    }

    // A warn-only count is below min_action; a composite key, a filtered
    // read and a bound that lets duplicates pass are no unique on order_id.
    assert_eq!(
        dq95(
            r#"
@dp.materialized_view
@dp.expect("unique_pk", "n = 1")
def pk_check():
    return spark.read.table("silver_orders").groupBy("order_id").agg(F.count("*").alias("n"))
"#
        ),
        // At the warn-only rule, in the view.
        ["DQ951 transformations/orders.py:10"]
    );
    for view in [
        r#"
@dp.materialized_view
@dp.expect_or_fail("unique_pk", "n = 1")
def pk_check():
    return spark.read.table("silver_orders").groupBy("order_id", "line").agg(F.count("*").alias("n"))
"#,
        r#"
@dp.materialized_view
@dp.expect_or_fail("unique_pk", "n = 1")
def pk_check():
    return spark.sql("SELECT order_id, count(*) AS n FROM silver_orders WHERE day = current_date() GROUP BY order_id")
"#,
        r#"
@dp.materialized_view
@dp.expect_or_fail("few_dupes", "n <= 2")
def pk_check():
    return spark.read.table("silver_orders").groupBy("order_id").agg(F.count("*").alias("n"))
"#,
    ] {
        assert_eq!(dq95(view), ["DQ950 transformations/orders.py:6"], "{view}");
    }
}

#[test]
fn a_sql_uniqueness_view_covers_the_table_an_lhp_action_writes_in_every_environment() {
    let policy = "[[policy.mandatory]]\ndatasets = [\"*.silver.*\"]\nkinds = [\"not_null\", \"unique\"]\ncolumns = { unique = [\"order_id\"] }\n";
    let bare = project(
        Some("fixtures/rules/DQ950/good"),
        &[("dqlint.toml", policy)],
    );
    let found = lint(bare.path());
    assert_eq!(
        codes_of(&found, "DQ95"),
        ["DQ950 pipelines/silver/orders.yaml:12"],
        "{found:?}"
    );
    let checked = project(
        Some("fixtures/rules/DQ950/good"),
        &[
            ("dqlint.toml", policy),
            (
                "transformations/checks.sql",
                "CREATE OR REFRESH MATERIALIZED VIEW orders_pk_check (\n  CONSTRAINT unique_order_id EXPECT (n = 1) ON VIOLATION FAIL UPDATE\n) AS SELECT order_id, count(*) AS n FROM silver.orders GROUP BY ALL;\n",
            ),
        ],
    );
    let found = lint(checked.path());
    assert_eq!(codes_of(&found, "DQ9"), Vec::<String>::new(), "{found:?}");
}
