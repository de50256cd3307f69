//! Team policies over the three dialects (`spec/policy.md`): the one view
//! of datasets the policy rules read, on a project that mixes LHP, DQX and
//! pipeline code (`fixtures/policy/mixed`).

use dqlint_linter::config::{dataset_glob_matches, Config, MandatoryKind, UNKNOWN_NAME_PART};
use dqlint_linter::rules::policy::{datasets, PolicyDataset, RuleKind};
use dqlint_linter::Context;
use dqlint_project::{Check, Dialect, Enforcement, Project, RuleAction};

fn fixture(name: &str) -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../fixtures/policy")
        .join(name)
}

fn load(name: &str) -> (Project, Config) {
    let root = fixture(name);
    let config = Config::discover(&root, None).expect("the fixture's dqlint.toml is valid");
    let project = Project::load(&root, &config.load_options(&[])).unwrap();
    (project, config)
}

fn find<'d>(all: &'d [PolicyDataset], label: &str) -> &'d PolicyDataset {
    all.iter()
        .find(|d| d.label == label)
        .unwrap_or_else(|| panic!("no dataset `{label}` in {:?}", labels(all)))
}

fn labels(all: &[PolicyDataset]) -> Vec<&str> {
    all.iter().map(|d| d.label.as_str()).collect()
}

fn kinds_of(d: &PolicyDataset) -> Vec<(String, RuleKind, Vec<String>)> {
    d.expectations
        .iter()
        .flat_map(|e| {
            e.kinds.iter().map(|k| {
                (
                    e.name.clone().unwrap_or_default(),
                    k.kind,
                    k.columns.clone(),
                )
            })
        })
        .collect()
}

fn fact(name: &str, kind: RuleKind, columns: &[&str]) -> (String, RuleKind, Vec<String>) {
    (
        name.to_string(),
        kind,
        columns.iter().map(|c| c.to_string()).collect(),
    )
}

#[test]
fn lhp_datasets_are_named_by_the_write_target_in_every_environment() {
    let (project, config) = load("mixed");
    let mut ctx = Context::new(&project);
    ctx.team_policy = config.team_policy.clone();
    let all = datasets(&ctx);
    let orders = find(all, "${catalog}.${silver_schema}.orders");
    assert_eq!(orders.dialect, Dialect::Lhp);
    let names: Vec<(&str, Vec<&str>)> = orders
        .names
        .iter()
        .map(|n| (n.name.as_str(), n.envs.iter().map(String::as_str).collect()))
        .collect();
    assert_eq!(
        names,
        [
            ("acme_dev.silver.orders", vec!["dev"]),
            ("acme_prod.silver.orders", vec!["prod"])
        ]
    );
    assert!(orders
        .name_texts()
        .all(|n| dataset_glob_matches("*.silver.*", n)));
    assert_eq!(
        orders.table_properties,
        [("quality".to_string(), "silver".to_string())]
    );
    assert!(!orders.has_quarantine && !orders.auxiliary);
    // The finding place: the data_quality action's name.
    let file = project.file(orders.site.file);
    assert_eq!(file.rel, "pipelines/silver/orders.yaml");
    assert_eq!(&file.text[orders.site.span.clone()], "validate_orders");
    assert_eq!(
        kinds_of(orders),
        [
            fact("valid_id", RuleKind::NotNull, &["id"]),
            fact("valid_amounts", RuleKind::Range, &["price", "quantity"]),
            fact("known_status", RuleKind::Other, &[]),
        ]
    );
    let actions: Vec<Enforcement> = orders.expectations.iter().map(|e| e.enforcement).collect();
    assert_eq!(
        actions,
        [
            Enforcement::Row(RuleAction::Fail),
            Enforcement::Row(RuleAction::Drop),
            Enforcement::Row(RuleAction::Warn)
        ]
    );
    // The policy selects it by name and by table property.
    let policy = &config.team_policy.mandatory[0];
    assert!(policy.selects(orders.name_texts(), &orders.table_properties));
    assert_eq!(policy.kinds[1], MandatoryKind::Unique);
}

#[test]
fn a_token_no_environment_defines_is_covered_by_a_star_only() {
    let envs = [dqlint_project::Env::without_file("")];
    let names = dqlint_linter::rules::policy::names_per_env("${catalog}.silver.orders", &envs);
    assert_eq!(names.len(), 1);
    assert_eq!(names[0].name, format!("{UNKNOWN_NAME_PART}.silver.orders"));
    assert!(names[0].envs.is_empty());
    assert!(dataset_glob_matches("*.silver.*", &names[0].name));
    assert!(!dataset_glob_matches("acme.silver.*", &names[0].name));
}

#[test]
fn dqx_runs_are_named_by_their_tables_with_the_checks_they_read() {
    let (project, _) = load("mixed");
    let ctx = Context::new(&project);
    let all = datasets(&ctx);
    let customers = find(all, "main.silver.customers");
    assert_eq!(customers.dialect, Dialect::DqxRunConfig);
    let names: Vec<&str> = customers.name_texts().collect();
    assert_eq!(names, ["main.bronze.customers", "main.silver.customers"]);
    assert!(customers.has_quarantine);
    let file = project.file(customers.site.file);
    assert_eq!(file.rel, "quality/config.yml");
    assert_eq!(
        &file.text[customers.site.span.clone()],
        "main.silver.customers"
    );
    assert_eq!(
        kinds_of(customers),
        [
            fact("", RuleKind::NotNull, &["id"]),
            fact("", RuleKind::Unique, &["id"]),
            fact("", RuleKind::Range, &["age"]),
        ]
    );
    let actions: Vec<Enforcement> = customers
        .expectations
        .iter()
        .map(|e| e.enforcement)
        .collect();
    assert_eq!(
        actions,
        [
            Enforcement::DqxError,
            Enforcement::DqxError,
            Enforcement::DqxWarn
        ]
    );
    assert!(matches!(
        &customers.expectations[1].check,
        Check::Function { name, .. } if name == "is_unique"
    ));
    let checks = project.file(customers.expectations[0].origin.file);
    assert_eq!(checks.rel, "quality/customers_checks.yml");

    // The Python API: the apply call's tables, the module's rules.
    let payments = find(all, "main.silver.payments");
    assert_eq!(payments.dialect, Dialect::DqxRunConfig);
    assert!(!payments.has_quarantine);
    assert_eq!(
        project.file(payments.site.file).rel,
        "transformations/payments.py"
    );
    assert_eq!(
        kinds_of(payments),
        [
            fact("", RuleKind::NotNull, &["id"]),
            fact("", RuleKind::Range, &["amount"]),
        ]
    );
}

#[test]
fn pipeline_datasets_have_their_name_properties_and_quarantine() {
    let (project, _) = load("mixed");
    let ctx = Context::new(&project);
    let all = datasets(&ctx);
    let products = find(all, "silver_products");
    assert_eq!(products.dialect, Dialect::PipelinePython);
    assert_eq!(
        products.table_properties,
        [("quality".to_string(), "silver".to_string())]
    );
    assert!(products.has_quarantine, "paired with its quarantine");
    assert!(!products.auxiliary);
    assert_eq!(
        kinds_of(products),
        [
            fact("id_present", RuleKind::NotNull, &["id"]),
            fact("positive_price", RuleKind::Range, &["price"]),
        ]
    );
    let file = project.file(products.site.file);
    assert_eq!(&file.text[products.site.span.clone()], "silver_products");
    let quarantine = find(all, "silver_products_quarantine");
    assert!(
        quarantine.auxiliary,
        "a quarantine table is no policy subject"
    );
}

#[test]
fn dq950_and_dq951_report_in_every_dialect_and_dq912_gives_way() {
    let (project, config) = load("mixed");
    let findings =
        dqlint_linter::lint_configured(&project, &config, &dqlint_linter::Selection::default());
    let got: Vec<(&str, String, String)> = findings
        .iter()
        .filter(|d| d.rule.code.starts_with("DQ95") || d.rule.code == "DQ912")
        .map(|d| {
            (
                d.rule.code,
                project.file(d.primary.file).rel.clone(),
                d.message.clone(),
            )
        })
        .collect();
    let expected = [
        ("DQ950", "pipelines/silver/orders.yaml", "`${catalog}.${silver_schema}.orders` lacks the mandatory unique on `id` (dqlint.toml:3); present: not_null on `id`, range"),
        ("DQ951", "quality/customers_checks.yml", "`main.silver.customers`: its mandatory range is only this rule (`warn`): failing rows are kept; the policy (dqlint.toml:3) needs `drop` or stronger"),
        ("DQ950", "transformations/payments.py", "`main.silver.payments` lacks the mandatory unique on `id` (dqlint.toml:3); present: not_null on `id`, range"),
        ("DQ951", "transformations/silver_products.py", "`silver_products`: its mandatory range is only `positive_price` (`warn`): failing rows are kept; the policy (dqlint.toml:3) needs `drop` or stronger"),
        ("DQ950", "transformations/silver_products.py", "`silver_products` lacks the mandatory unique on `id` (dqlint.toml:3); present: not_null on `id`, range"),
    ];
    let expected: Vec<(&str, String, String)> = expected
        .iter()
        .map(|(c, f, m)| (*c, f.to_string(), m.to_string()))
        .collect();
    assert_eq!(got, expected);
}

#[test]
fn without_a_policy_nothing_is_reported_and_dq912_speaks_again() {
    let (project, _) = load("mixed");
    let none = dqlint_linter::Selection::default();
    let findings = dqlint_linter::lint_configured(&project, &Config::default(), &none);
    assert!(findings.iter().all(|d| !d.rule.code.starts_with("DQ95")));
    // DQ951's own example: a warn-only pipeline dataset.
    let root =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/rules/DQ951/bad");
    let config = Config::discover(&root, None).unwrap();
    let project = Project::load(&root, &config.load_options(&[])).unwrap();
    let codes = |config: &Config| -> Vec<&str> {
        dqlint_linter::lint_configured(&project, config, &none)
            .iter()
            .map(|d| d.rule.code)
            .collect()
    };
    assert_eq!(codes(&config), ["DQ951"]);
    assert_eq!(codes(&Config::default()), ["DQ912"]);
}
