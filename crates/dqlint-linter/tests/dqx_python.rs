//! DQX's Python API (`DQRowRule(...)`, `InputConfig(...)`, the
//! apply-and-save calls) linted with the checks-file and run-config rules:
//! each finding at its exact place in the `.py` source, no fix (the fixes
//! write YAML), and seed 003's code free of findings.

use dqlint_linter::{lint, Selection};
use dqlint_project::{LoadOptions, Project};

/// The findings of a DQX-only project holding `source` as `job.py`, as
/// `CODE text-at-the-span: message`.
fn lint_python(source: &str) -> Vec<String> {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("dqlint.toml"), "[dqx]\n").unwrap();
    std::fs::write(dir.path().join("job.py"), source).unwrap();
    let project = Project::load(dir.path(), &LoadOptions::default()).unwrap();
    assert!(
        project.files.iter().any(|f| f.rel == "job.py"),
        "the loader reads a module importing databricks.labs.dqx"
    );
    lint(&project, &Selection::default())
        .iter()
        .map(|d| {
            let file = project.file(d.primary.file);
            assert!(d.fix.is_none(), "a fix on Python: {d:?}");
            format!(
                "{} {}: {}",
                d.rule.code,
                &file.text[d.primary.span.clone()],
                d.message
            )
        })
        .collect()
}

fn codes(found: &[String]) -> Vec<String> {
    found
        .iter()
        .map(|f| f.split(':').next().unwrap().to_string())
        .collect()
}

const HEADER: &str = "from databricks.labs.dqx import check_funcs\n\
from databricks.labs.dqx.engine import DQEngine\n\
from databricks.labs.dqx.rule import DQRowRule, DQDatasetRule, DQForEachColRule\n\
from databricks.labs.dqx.config import InputConfig, OutputConfig, RunConfig\n\
from pyspark.sql import functions as F\n\n";

#[test]
fn seed_003_is_clean() {
    let seed = format!(
        "{HEADER}dq = DQEngine(WorkspaceClient())\n\
checks = [\n\
    DQRowRule(criticality=\"warn\",  check_func=check_funcs.is_not_null,   column=\"col3\"),\n\
    DQDatasetRule(criticality=\"error\", check_func=check_funcs.is_unique, columns=[\"col1\", \"col2\"]),\n\
]\n\
dq.apply_checks_and_save_in_table(\n\
    checks=checks,\n\
    input_config=InputConfig(location=\"catalog.schema.input\"),\n\
    output_config=OutputConfig(location=\"catalog.schema.valid\"),\n\
    quarantine_config=OutputConfig(location=\"catalog.schema.quarantine\"),\n\
)\n\
dq.apply_checks_and_save_in_table(\n\
    checks=checks,\n\
    input_config=InputConfig(location=\"catalog.schema.input\"),\n\
    output_config=OutputConfig(location=\"catalog.schema.annotated\"),\n\
)\n\
dq.apply_checks_and_save_in_table(\n\
    checks=checks,\n\
    input_config=InputConfig(location=\"catalog.schema.input\"),\n\
    quarantine_config=OutputConfig(location=\"catalog.schema.quarantine\"),\n\
)\n\
dq.apply_checks_by_metadata_and_save_in_table(\n\
    checks=checks_metadata,\n\
    input_config=InputConfig(location=\"catalog.schema.input\"),\n\
    output_config=OutputConfig(location=\"catalog.schema.valid\"),\n\
    quarantine_config=OutputConfig(location=\"catalog.schema.quarantine\"),\n\
)\n"
    );
    assert_eq!(lint_python(&seed), Vec::<String>::new());
}

#[test]
fn no_destination_is_reported_at_the_call() {
    let found = lint_python(&format!(
        "{HEADER}dq.apply_checks_and_save_in_table(checks=checks, input_config=InputConfig(location=\"c.s.in\"))\n"
    ));
    assert_eq!(
        codes(&found),
        ["DQ855 apply_checks_and_save_in_table"],
        "{found:?}"
    );
}

#[test]
fn a_shared_checkpoint_across_outputs() {
    let found = lint_python(&format!(
        "{HEADER}CP = \"/Volumes/main/dq/cp/orders\"\n\
dq.apply_checks_and_save_in_table(\n\
    checks=checks,\n\
    input_config=InputConfig(location=\"main.raw.orders\", is_streaming=True),\n\
    output_config=OutputConfig(location=\"main.dq.orders\", options={{\"checkpointLocation\": CP}}),\n\
    quarantine_config=OutputConfig(location=\"main.dq.orders_q\", options={{\"checkpointLocation\": \"/Volumes/main/dq/cp/orders\"}}),\n\
)\n"
    ));
    assert_eq!(
        codes(&found),
        ["DQ856 \"/Volumes/main/dq/cp/orders\""],
        "{found:?}"
    );
}

#[test]
fn rules_are_checked_like_checks_files() {
    let found = lint_python(&format!(
        "{HEADER}checks = [\n\
    DQRowRule(check_func=check_funcs.is_not_nul, column=\"a\"),\n\
    DQRowRule(check_func=check_funcs.is_unique, columns=[\"a\"]),\n\
    DQRowRule(check_func=check_funcs.is_older_than_n_days, column=\"d\"),\n\
    DQRowRule(check_func=check_funcs.is_not_null, column=\"a\", criticality=\"warning\"),\n\
    DQRowRule(check_func=check_funcs.is_older_than_n_days, column=\"d\", check_func_kwargs={{\"days\": \"30\"}}),\n\
    DQRowRule(check_func=check_funcs.is_not_null, col_name=\"a\"),\n\
    DQRowRule(check_func=check_funcs.is_in_range, column=\"p\", check_func_kwargs={{\"min_limit\": 1, \"max_limit\": 9, \"strict\": True}}),\n\
]\n"
    ));
    let got = codes(&found);
    for expected in [
        "DQ810 is_not_nul",
        "DQ810 is_unique",
        "DQ811 DQRowRule",
        "DQ806 \"warning\"",
        "DQ813 \"30\"",
        "DQ812 \"strict\"",
        "DQ807 col_name",
    ] {
        assert!(
            got.contains(&expected.to_string()),
            "{expected}: {found:#?}"
        );
    }
    // Optional parameters left out are fine in Python (not in a file).
    assert!(
        !found.iter().any(|f| f.contains("no arguments")),
        "{found:#?}"
    );
}

#[test]
fn sql_in_an_f_string_points_into_its_pieces() {
    let found = lint_python(&format!(
        "{HEADER}COND = \"price > 0 AND\"\n\
r = DQRowRule(check_func=check_funcs.is_not_null, column=\"a\", filter=f\"{{COND}}\")\n\
s = DQRowRule(check_func=check_funcs.sql_expression, check_func_kwargs={{\"expression\": \"lenght(name) > 0\"}})\n"
    ));
    let got = codes(&found);
    assert!(got.contains(&"DQ307 AND".to_string()), "{found:#?}");
    assert!(got.contains(&"DQ306 lenght".to_string()), "{found:#?}");
}

#[test]
fn values_known_only_at_run_time_are_not_judged() {
    let found = lint_python(&format!(
        "{HEADER}def build(column, days, crit):\n\
    return [\n\
        DQRowRule(check_func=check_funcs.is_older_than_n_days, column=column, check_func_args=[days], criticality=crit),\n\
        DQRowRule(check_func=check_funcs.is_not_null, column=F.col(\"a\")),\n\
        DQRowRule(check_func=my_custom_check, column=\"a\", check_func_kwargs={{\"anything\": 1}}),\n\
        DQForEachColRule(columns=[\"a\", \"b\"], check_func=check_funcs.is_not_null),\n\
    ]\n"
    ));
    assert_eq!(found, Vec::<String>::new());
}

#[test]
fn prefiltered_errors_with_a_quarantine() {
    let found = lint_python(&format!(
        "{HEADER}dq.apply_checks_and_save_in_table(checks=checks, input_config=InputConfig(location=\"c.s.in\"), quarantine_config=OutputConfig(location=\"c.s.q\"))\n\
valid = df.filter(F.col(\"_errors\").isNull())\n"
    ));
    assert_eq!(
        codes(&found),
        ["DQ861 F.col(\"_errors\").isNull()"],
        "{found:?}"
    );
}

#[test]
fn an_apply_call_without_checks_or_their_location() {
    let found = lint_python(&format!(
        "{HEADER}dq.apply_checks_and_save_in_table(input_config=InputConfig(location=\"c.s.in\"), output_config=OutputConfig(location=\"c.s.out\"), checks=None)\n\
dq.apply_checks_and_save_in_table(input_config=InputConfig(location=\"c.s.in\"), output_config=OutputConfig(location=\"c.s.out\"), checks_location=\"/Workspace/checks.yml\")\n\
dq.apply_checks_and_save_in_table(input_config=InputConfig(location=\"c.s.in\"), output_config=OutputConfig(location=\"c.s.out\"), **options)\n"
    ));
    assert_eq!(
        codes(&found),
        ["DQ862 apply_checks_and_save_in_table"],
        "{found:?}"
    );
}

#[test]
fn positional_arguments_follow_each_methods_signature() {
    // The metadata variant takes `custom_check_functions` before `ref_dfs`
    // and `checks_location`: the eighth argument is the location there, the
    // seventh in the DQRule variant.
    let found = lint_python(&format!(
        "{HEADER}IN = InputConfig(location=\"c.s.in\")\n\
OUT = OutputConfig(location=\"c.s.out\")\n\
dq.apply_checks_by_metadata_and_save_in_table(IN, OUT, None, None, None, None, None, \"/Workspace/checks.yml\")\n\
dq.apply_checks_and_save_in_table(IN, OUT, None, None, None, None, \"/Workspace/checks.yml\")\n\
dq.apply_checks_by_metadata_and_save_in_table(IN, OUT, None, None, None, None, \"/Workspace/checks.yml\")\n"
    ));
    assert_eq!(
        codes(&found),
        ["DQ862 apply_checks_by_metadata_and_save_in_table"],
        "{found:?}"
    );
    assert!(found[0].contains("neither"), "{found:?}");
}

#[test]
fn save_results_in_table_writes_where_its_configs_say() {
    let found = lint_python(&format!(
        "{HEADER}valid, invalid = dq.apply_checks_and_split(df, checks)\n\
dq.save_results_in_table(\n\
    output_df=valid,\n\
    quarantine_df=invalid,\n\
    output_config=OutputConfig(location=\"main.dq.orders\"),\n\
    quarantine_config=OutputConfig(location=\"main.dq.orders\"),\n\
)\n\
dq.save_results_in_table(valid, invalid, None, OutputConfig(location=\"orders\"))\n\
dq.save_results_in_table(output_df=valid, run_config_name=\"orders\")\n"
    ));
    assert_eq!(
        codes(&found),
        ["DQ859 \"main.dq.orders\"", "DQ853 \"orders\""],
        "{found:?}"
    );
}

#[test]
fn a_pattern_run_takes_its_options_from_the_template() {
    // The template's locations are replaced per matching table; its
    // options (here one checkpoint for output and quarantine) are not.
    let found = lint_python(&format!(
        "{HEADER}dq.apply_checks_and_save_in_tables_for_patterns(\n\
    patterns=[\"main.raw.*\"],\n\
    checks_location=\"/Workspace/dqx/checks\",\n\
    run_config_template=RunConfig(\n\
        input_config=InputConfig(location=\"\", is_streaming=True),\n\
        output_config=OutputConfig(location=\"\", options={{\"checkpointLocation\": \"/Volumes/main/dq/cp\"}}),\n\
        quarantine_config=OutputConfig(location=\"\", options={{\"checkpointLocation\": \"/Volumes/main/dq/cp\"}}),\n\
    ),\n\
)\n\
dq.apply_checks_and_save_in_tables_for_patterns([\"main.raw.*\"], \"/Workspace/dqx/checks\")\n"
    ));
    assert_eq!(
        codes(&found),
        ["DQ856 \"/Volumes/main/dq/cp\""],
        "{found:?}"
    );
}
