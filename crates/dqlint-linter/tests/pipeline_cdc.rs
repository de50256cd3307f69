//! The AUTO CDC and runtime rules of pipeline sources (DQ905, DQ906,
//! DQ930-DQ937) on small projects: what each reports in Python and SQL,
//! what valid pipeline code keeps silent, and the fixed text of the fixes.

use dqlint_linter::fix::{fixed_text, Syntax, TextEdit};
use dqlint_linter::{lint_configured, Config, Diagnostic, Selection, Severity};
use dqlint_project::Project;

const CDC_CODES: &[&str] = &[
    "DQ905", "DQ906", "DQ930", "DQ931", "DQ932", "DQ933", "DQ934", "DQ935", "DQ936", "DQ937",
];

struct Linted {
    project: Project,
    found: Vec<Diagnostic>,
    _dir: tempfile::TempDir,
}

fn lint(files: &[(&str, &str)]) -> Linted {
    let dir = tempfile::tempdir().unwrap();
    let mut files = files.to_vec();
    if !files.iter().any(|(p, _)| *p == "lhp.yaml") {
        files.push(("lhp.yaml", "name: cdc\nversion: \"1.0\"\n"));
    }
    for (rel, text) in files {
        let path = dir.path().join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
    let config = Config::discover(dir.path(), None).unwrap();
    let project = Project::load(dir.path(), &config.load_options(&[])).unwrap();
    let found = lint_configured(&project, &config, &Selection::default());
    Linted {
        project,
        found,
        _dir: dir,
    }
}

impl Linted {
    /// `CODE file `text at the span`` for the findings of this family.
    fn findings(&self) -> Vec<String> {
        self.found
            .iter()
            .filter(|d| CDC_CODES.contains(&d.rule.code))
            .map(|d| {
                let file = self.project.file(d.primary.file);
                format!(
                    "{} {} `{}`",
                    d.rule.code,
                    file.rel,
                    &file.text[d.primary.span.clone()]
                )
            })
            .collect()
    }

    fn one(&self, code: &str) -> &Diagnostic {
        let found: Vec<&Diagnostic> = self.found.iter().filter(|d| d.rule.code == code).collect();
        assert_eq!(found.len(), 1, "{:?}", self.findings());
        found[0]
    }

    /// The file's text with the finding's fix applied, checked as the CLI
    /// checks it (no new syntax error).
    fn fixed(&self, code: &str) -> String {
        let d = self.one(code);
        let fix = d.fix.as_ref().expect("a fix");
        let file = self.project.file(fix.edits[0].file);
        let edits: Vec<TextEdit> = fix
            .edits
            .iter()
            .map(|e| TextEdit {
                span: e.span.clone(),
                new_text: e.new_text.clone(),
            })
            .collect();
        fixed_text(Syntax::of_file(file), &file.text, &edits).unwrap()
    }
}

const SEED_002: &str = include_str!("../../../fixtures/pipelines/seed-002/pipeline.py");

#[test]
fn seed_002_reinject_passes_a_dataframe_as_source() {
    let linted = lint(&[("pipelines/sales.py", SEED_002)]);
    assert_eq!(
        linted.findings(),
        ["DQ930 pipelines/sales.py `remediated_quarantine`"]
    );
    let d = linted.one("DQ930");
    assert_eq!(
        d.fix.as_ref().unwrap().applicability,
        dqlint_linter::Applicability::Unsafe
    );
    let fixed = linted.fixed("DQ930");
    let expected = SEED_002.replace(
        "# Step 3: Re-inject via Auto CDC\n\ndp.create_auto_cdc_flow(",
        "# Step 3: Re-inject via Auto CDC\n\n@dp.temporary_view()\ndef remediated_quarantine_view():\n    return remediated_quarantine\n\n\ndp.create_auto_cdc_flow(",
    );
    let expected = expected.replace(
        "source=remediated_quarantine,",
        "source=\"remediated_quarantine_view\",",
    );
    assert_eq!(fixed, expected);
    // The fixed pipeline passes a name.
    let again = lint(&[("pipelines/sales.py", &fixed)]);
    assert_eq!(again.findings(), Vec::<String>::new());
}

#[test]
fn an_inline_dataframe_source_moves_into_the_view() {
    let source = "\
from pyspark import pipelines as dp

dp.create_streaming_table(\"orders\")

if True:
    dp.create_auto_cdc_flow(
        target=\"orders\",
        source=spark.readStream.table(\"orders_raw\")
            .select(\"id\", \"ts\"),
        keys=[\"id\"],
        sequence_by=\"ts\",
    )
";
    let linted = lint(&[("pipelines/orders.py", source)]);
    assert_eq!(linted.one("DQ930").rule.code, "DQ930");
    let fixed = linted.fixed("DQ930");
    assert_eq!(
        fixed,
        "\
from pyspark import pipelines as dp

dp.create_streaming_table(\"orders\")

if True:
    @dp.temporary_view()
    def orders_cdc_source():
        return (spark.readStream.table(\"orders_raw\")
            .select(\"id\", \"ts\"))


    dp.create_auto_cdc_flow(
        target=\"orders\",
        source=\"orders_cdc_source\",
        keys=[\"id\"],
        sequence_by=\"ts\",
    )
"
    );
    assert_eq!(
        lint(&[("pipelines/orders.py", &fixed)]).findings(),
        Vec::<String>::new()
    );
}

#[test]
fn a_string_source_a_constant_and_sql_stream_names_are_silent() {
    let python = "\
from pyspark import pipelines as dp
from pyspark.sql.functions import col, struct

SOURCE = \"orders_raw\"
dp.create_streaming_table(name=\"orders\")
dp.create_streaming_table(\"orders_history\")

dp.create_auto_cdc_flow(
    target=\"orders\",
    source=SOURCE,
    keys=[\"id\"],
    sequence_by=col(\"ts\"),
    stored_as_scd_type=\"2\",
    track_history_except_column_list=[\"note\"],
)

dp.create_auto_cdc_flow(
    target=\"orders_history\",
    source=\"orders_raw\",
    keys=[col(\"id\"), \"region\"],
    sequence_by=struct(\"ts\", \"id\"),
    stored_as_scd_type=2,
    column_list=[\"id\", \"region\", \"ts\"],
    except_column_list=None,
)
";
    let sql = "\
CREATE OR REFRESH STREAMING TABLE customers;

CREATE FLOW customers_cdc AS AUTO CDC INTO customers
FROM STREAM(customers_raw)
KEYS (customer_id, `region.code`)
SEQUENCE BY struct(updated_at, version)
COLUMNS * EXCEPT (operation)
STORED AS SCD TYPE 2
TRACK HISTORY ON *;
";
    let linted = lint(&[
        ("pipelines/orders.py", python),
        ("pipelines/customers.sql", sql),
    ]);
    assert_eq!(linted.findings(), Vec::<String>::new());
}

#[test]
fn a_target_declared_in_another_source_counts() {
    let declared = "\
from pyspark import pipelines as dp

dp.create_streaming_table(\"main.silver.orders\")
";
    let flow = "\
CREATE FLOW orders_cdc AS AUTO CDC INTO orders
FROM STREAM(orders_raw)
KEYS (id)
SEQUENCE BY ts;
";
    let linted = lint(&[
        ("pipelines/tables.py", declared),
        ("pipelines/orders.sql", flow),
    ]);
    assert_eq!(linted.findings(), Vec::<String>::new());
    let alone = lint(&[("pipelines/orders.sql", flow)]);
    assert_eq!(alone.findings(), ["DQ931 pipelines/orders.sql `orders`"]);
    assert_eq!(alone.one("DQ931").severity, Severity::Error);
    assert_eq!(
        alone.fixed("DQ931"),
        format!("CREATE OR REFRESH STREAMING TABLE orders;\n\n{flow}")
    );
}

#[test]
fn an_undeclared_python_target_is_declared_once_by_the_fix() {
    let source = "\
from pyspark import pipelines as dp

dp.create_auto_cdc_flow(target=\"orders\", source=\"a\", keys=[\"id\"], sequence_by=\"ts\")
dp.create_auto_cdc_flow(target=\"orders\", source=\"b\", keys=[\"id\"], sequence_by=\"ts\")
";
    let linted = lint(&[("pipelines/orders.py", source)]);
    let found: Vec<&Diagnostic> = linted
        .found
        .iter()
        .filter(|d| d.rule.code == "DQ931")
        .collect();
    assert_eq!(found.len(), 2);
    assert!(found[0].fix.is_some() && found[1].fix.is_none());
    let fix = found[0].fix.as_ref().unwrap();
    assert_eq!(fix.applicability, dqlint_linter::Applicability::Safe);
    let file = linted.project.file(fix.edits[0].file);
    let edits: Vec<TextEdit> = fix
        .edits
        .iter()
        .map(|e| TextEdit {
            span: e.span.clone(),
            new_text: e.new_text.clone(),
        })
        .collect();
    let fixed = fixed_text(Syntax::of_file(file), &file.text, &edits).unwrap();
    assert_eq!(
        fixed,
        source.replace(
            "\ndp.create_auto_cdc_flow(target=\"orders\", source=\"a\"",
            "\ndp.create_streaming_table(\"orders\")\n\ndp.create_auto_cdc_flow(target=\"orders\", source=\"a\""
        )
    );
    assert_eq!(
        lint(&[("pipelines/orders.py", &fixed)]).findings(),
        Vec::<String>::new()
    );
}

#[test]
fn an_unreadable_source_makes_an_undeclared_target_a_warning() {
    let flow = "\
from pyspark import pipelines as dp

dp.create_auto_cdc_flow(target=\"orders\", source=\"raw\", keys=[\"id\"], sequence_by=\"ts\")
";
    let broken = "\
from pyspark import pipelines as dp

dp.create_streaming_table(name=
";
    let linted = lint(&[
        ("pipelines/orders.py", flow),
        ("pipelines/tables.py", broken),
    ]);
    assert_eq!(linted.one("DQ931").severity, Severity::Warning);
    let unknown = "\
from pyspark import pipelines as dp

dp.create_streaming_table(table_name())
";
    let linted = lint(&[
        ("pipelines/orders.py", flow),
        ("pipelines/tables.py", unknown),
    ]);
    assert_eq!(linted.one("DQ931").severity, Severity::Warning);
}

#[test]
fn sequence_by_missing_in_python_and_sql() {
    let python = "\
from pyspark import pipelines as dp

dp.create_streaming_table(\"orders\")
dp.apply_changes(target=\"orders\", source=\"raw\", keys=[\"id\"])
dp.create_auto_cdc_flow(\"orders\", \"raw\", [\"id\"], \"ts\")
dp.create_auto_cdc_flow(**CDC_OPTIONS)
";
    let sql = "\
CREATE OR REFRESH STREAMING TABLE customers;
AUTO CDC INTO customers FROM STREAM(raw) KEYS (id);
";
    let linted = lint(&[
        ("pipelines/orders.py", python),
        ("pipelines/customers.sql", sql),
    ]);
    let mut found = linted.findings();
    found.retain(|f| !f.starts_with("DQ906"));
    assert_eq!(
        found,
        [
            "DQ932 pipelines/customers.sql `customers`",
            "DQ932 pipelines/orders.py `dp.apply_changes`",
        ]
    );
}

#[test]
fn processing_time_sequence_by() {
    let python = "\
from pyspark import pipelines as dp
from pyspark.sql import functions as F

dp.create_streaming_table(\"a\")
dp.create_streaming_table(\"b\")
dp.create_streaming_table(\"c\")
dp.create_streaming_table(\"d\")


@dp.temporary_view()
def stamped():
    return spark.readStream.table(\"raw\").withColumn(\"loaded_at\", F.current_timestamp())


@dp.temporary_view()
def stamped_again():
    return spark.readStream.table(\"stamped\")


dp.create_auto_cdc_flow(target=\"a\", source=\"raw\", keys=[\"id\"], sequence_by=F.current_timestamp())
dp.create_auto_cdc_flow(target=\"b\", source=\"stamped_again\", keys=[\"id\"], sequence_by=\"loaded_at\")
dp.create_auto_cdc_flow(
    target=\"c\",
    source=spark.readStream.table(\"raw\").withColumn(\"seen\", F.now()),
    keys=[\"id\"],
    sequence_by=\"seen\",
)
# A column named like a function is a column in Python.
dp.create_auto_cdc_flow(target=\"d\", source=\"raw\", keys=[\"id\"], sequence_by=\"current_date\")
";
    let sql = "\
CREATE OR REFRESH STREAMING TABLE e;
CREATE OR REFRESH STREAMING TABLE f;
CREATE TEMPORARY VIEW raw_stamped AS SELECT *, current_timestamp() AS ingested_at FROM STREAM(raw);
CREATE FLOW e_cdc AS AUTO CDC INTO e FROM STREAM(raw_stamped) KEYS (id) SEQUENCE BY ingested_at;
CREATE FLOW f_cdc AS AUTO CDC INTO f FROM STREAM(raw) KEYS (id) SEQUENCE BY current_timestamp;
";
    let linted = lint(&[("pipelines/orders.py", python), ("pipelines/more.sql", sql)]);
    let mut found = linted.findings();
    found.retain(|f| !f.starts_with("DQ930"));
    assert_eq!(
        found,
        [
            "DQ933 pipelines/more.sql `ingested_at`",
            "DQ933 pipelines/more.sql `current_timestamp`",
            "DQ933 pipelines/orders.py `F.current_timestamp()`",
            "DQ933 pipelines/orders.py `\"loaded_at\"`",
            "DQ933 pipelines/orders.py `\"seen\"`",
        ]
    );
}

#[test]
fn qualified_columns() {
    let python = "\
from pyspark import pipelines as dp
from pyspark.sql.functions import col

dp.create_streaming_table(\"a\")
dp.create_auto_cdc_flow(
    target=\"a\",
    source=\"raw\",
    keys=[\"src.id\", col(\"region\")],
    sequence_by=col(\"raw.ts\"),
    column_list=[\"id\", \"t.name\"],
    except_column_list=cfg.excluded,
)
";
    let sql = "\
CREATE OR REFRESH STREAMING TABLE b;
CREATE FLOW b_cdc AS AUTO CDC INTO b FROM STREAM(raw) KEYS (raw.id) SEQUENCE BY struct(b.ts, 1.5);
CREATE OR REFRESH STREAMING TABLE c;
CREATE FLOW c_cdc AS AUTO CDC INTO c FROM STREAM(raw) KEYS (id) SEQUENCE BY payload.ts;
";
    let linted = lint(&[("pipelines/a.py", python), ("pipelines/b.sql", sql)]);
    assert_eq!(
        linted.findings(),
        [
            "DQ934 pipelines/a.py `src.id`",
            "DQ934 pipelines/a.py `col(\"raw.ts\")`",
            "DQ934 pipelines/a.py `t.name`",
            "DQ934 pipelines/b.sql `raw.id`",
            "DQ934 pipelines/b.sql `struct(b.ts, 1.5)`",
        ]
    );
    // `sequence_by` is an expression: a dotted name whose qualifier is no
    // dataset of the flow reads a struct field (`SEQUENCE BY payload.ts`).
}

#[test]
fn include_and_except_lists_track_history_and_scd_types() {
    let python = "\
from pyspark import pipelines as dp

dp.create_streaming_table(\"a\")
dp.create_auto_cdc_flow(
    target=\"a\",
    source=\"raw\",
    keys=[\"id\"],
    sequence_by=\"ts\",
    stored_as_scd_type=\"2\",
    track_history_column_list=[\"name\"],
    track_history_except_column_list=[\"ts\"],
)
dp.create_auto_cdc_flow(
    target=\"a\",
    source=\"raw\",
    keys=[\"id\"],
    sequence_by=\"ts\",
    track_history_column_list=[\"name\"],
)
dp.create_auto_cdc_flow(
    target=\"a\",
    source=\"raw\",
    keys=[\"id\"],
    sequence_by=\"ts\",
    stored_as_scd_type=\"SCD2\",
)
dp.create_auto_cdc_flow(
    target=\"a\",
    source=\"raw\",
    keys=[\"id\"],
    sequence_by=\"ts\",
    stored_as_scd_type=SCD_TYPE,
    track_history_column_list=[\"name\"],
)
";
    let sql = "\
CREATE OR REFRESH STREAMING TABLE b;
CREATE FLOW b_cdc AS AUTO CDC INTO b FROM STREAM(raw) KEYS (id) SEQUENCE BY ts STORED AS SCD TYPE 3;
CREATE FLOW b_cdc2 AS AUTO CDC INTO b FROM STREAM(raw) KEYS (id) SEQUENCE BY ts TRACK HISTORY ON name;
";
    let linted = lint(&[("pipelines/a.py", python), ("pipelines/b.sql", sql)]);
    assert_eq!(
        linted.findings(),
        [
            "DQ935 pipelines/a.py `ts`",
            "DQ936 pipelines/a.py `name`",
            "DQ937 pipelines/a.py `\"SCD2\"`",
            "DQ937 pipelines/b.sql `3`",
            "DQ936 pipelines/b.sql `name`",
        ]
    );
}

#[test]
fn oss_spark_runtime_has_no_expectations_and_no_apply_changes() {
    let toml = "[dlt]\nruntime = \"oss-spark\"\n";
    let python = "\
from pyspark import pipelines as dp

RULES = {\"a\": \"x > 0\", \"b\": \"y > 0\"}


@dp.table()
@dp.expect_all_or_drop(RULES)
def t():
    return spark.readStream.table(\"raw\")


dp.create_streaming_table(\"c\")
dp.create_auto_cdc_flow(target=\"c\", source=\"raw\", keys=[\"id\"], sequence_by=\"ts\")
dp.apply_changes(target=\"c\", source=\"raw\", keys=[\"id\"], sequence_by=\"ts\")
";
    let sql = "\
CREATE OR REFRESH STREAMING TABLE s (CONSTRAINT ok EXPECT (x > 0)) AS SELECT * FROM STREAM(raw);
CREATE OR REFRESH STREAMING TABLE d;
APPLY CHANGES INTO d FROM STREAM(raw) KEYS (id) SEQUENCE BY ts;
CREATE FLOW d_cdc AS AUTO CDC INTO d FROM STREAM(raw) KEYS (id) SEQUENCE BY ts;
";
    let files = [("pipelines/a.py", python), ("pipelines/b.sql", sql)];
    let mut with_toml = files.to_vec();
    with_toml.push(("dqlint.toml", toml));
    let linted = lint(&with_toml);
    let mut found = linted.findings();
    found.retain(|f| f.starts_with("DQ905"));
    assert_eq!(
        found,
        [
            "DQ905 pipelines/a.py `@dp.expect_all_or_drop(RULES)`",
            "DQ905 pipelines/a.py `dp.apply_changes`",
            "DQ905 pipelines/b.sql `CONSTRAINT ok EXPECT (x > 0)`",
            "DQ905 pipelines/b.sql `APPLY CHANGES INTO`",
        ]
    );
    let databricks = lint(&files);
    assert!(databricks
        .findings()
        .iter()
        .all(|f| !f.starts_with("DQ905")));
}

#[test]
fn legacy_uses_are_info() {
    let python = "\
import dlt


@dlt.view()
def v():
    return spark.readStream.table(\"raw\")
";
    let sql = "CREATE OR REFRESH STREAMING LIVE TABLE t AS SELECT * FROM STREAM(LIVE.raw);\n";
    let linted = lint(&[("pipelines/a.py", python), ("pipelines/b.sql", sql)]);
    assert_eq!(
        linted.findings(),
        [
            "DQ906 pipelines/a.py `import dlt`",
            "DQ906 pipelines/a.py `@dlt.view`",
            "DQ906 pipelines/b.sql `CREATE OR REFRESH STREAMING LIVE TABLE`",
            "DQ906 pipelines/b.sql `LIVE.`",
        ]
    );
    assert!(linted
        .found
        .iter()
        .filter(|d| d.rule.code == "DQ906")
        .all(|d| d.severity == Severity::Info));
}
