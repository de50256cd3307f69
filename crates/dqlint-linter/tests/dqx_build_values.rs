//! DQ818's enumerations and bounds, held to DQX 0.17.0's verdicts
//! (`dqx_oracle.py --build`, one check per file): every value DQX refuses
//! to build is reported, every value it builds is not.

use dqlint_linter::{lint, Selection};
use dqlint_project::{LoadOptions, Project};

/// (arguments of the check, whether DQX 0.17.0 builds it)
const CASES: &[(&str, &str, bool)] = &[
    ("has_valid_string_case", "{column: a, case: Upper}", false),
    ("has_valid_string_case", "{column: a, case: upper}", true),
    (
        "is_valid_country_code",
        "{column: a, code_format: ALPHA-2}",
        true,
    ),
    (
        "is_valid_country_code",
        "{column: a, code_format: alpha2}",
        false,
    ),
    (
        "is_valid_currency_code",
        "{column: a, code_format: alpha-3}",
        false,
    ),
    ("is_valid_national_id", "{column: a, country: us}", true),
    ("is_valid_national_id", "{column: a, country: DE}", false),
    (
        "has_no_aggr_outliers",
        "{column: a, time_column: t, time_interval: days}",
        false,
    ),
    (
        "has_no_aggr_outliers",
        "{column: a, time_column: t, sigma: 0}",
        false,
    ),
    (
        "has_no_aggr_outliers",
        "{column: a, time_column: t, lookback_num_intervals: 1}",
        false,
    ),
    (
        "has_no_aggr_outliers",
        "{column: a, time_column: t, warmup_num_intervals: 20}",
        false,
    ),
    (
        "has_no_aggr_outliers",
        "{column: a, time_column: t, warmup_num_intervals: 14}",
        true,
    ),
];

#[test]
fn build_time_values_as_dqx_builds_them() {
    let dir = tempfile::tempdir().unwrap();
    for (i, (function, arguments, _)) in CASES.iter().enumerate() {
        std::fs::write(
            dir.path().join(format!("c{i:02}.yml")),
            format!("- criticality: error\n  check:\n    function: {function}\n    arguments: {arguments}\n"),
        )
        .unwrap();
    }
    let project = Project::load(dir.path(), &LoadOptions::default()).unwrap();
    let found = lint(&project, &Selection::default());
    for (i, (function, arguments, builds)) in CASES.iter().enumerate() {
        let rel = format!("c{i:02}.yml");
        let here: Vec<String> = found
            .iter()
            .filter(|d| project.file(d.primary.file).rel == rel)
            .map(|d| format!("{} {}", d.rule.code, d.message))
            .collect();
        if *builds {
            assert!(here.is_empty(), "{function} {arguments}: {here:?}");
        } else {
            assert!(
                here.len() == 1 && here[0].starts_with("DQ818"),
                "{function} {arguments}: {here:?}"
            );
        }
    }
}

/// DQ822 is an error when the file's schema lacks the bare name.
#[test]
fn a_bare_name_the_schema_lacks_is_an_error() {
    use dqlint_linter::{lint_configured, Config, Severity};
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("dqlint.toml"),
        "[dqx.schemas]\n\"orders.yml\" = \"country STRING, US STRING\"\n\"customers.yml\" = \"country STRING\"\n",
    )
    .unwrap();
    let check = "- criticality: error\n  check:\n    function: is_in_list\n    arguments: {column: country, allowed: [US]}\n";
    std::fs::write(dir.path().join("orders.yml"), check).unwrap();
    std::fs::write(dir.path().join("customers.yml"), check).unwrap();
    let config = Config::discover(dir.path(), None).unwrap();
    let project = Project::load(dir.path(), &config.load_options(&[])).unwrap();
    let found: Vec<(String, Severity)> = lint_configured(&project, &config, &Selection::default())
        .iter()
        .map(|d| (project.file(d.primary.file).rel.clone(), d.severity))
        .collect();
    assert!(
        found.contains(&("customers.yml".into(), Severity::Error)),
        "{found:?}"
    );
    assert!(
        found.contains(&("orders.yml".into(), Severity::Warning)),
        "{found:?}"
    );
}
