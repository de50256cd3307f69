//! `dqlint policy`: the coverage view of team policies, as a table and as
//! JSON, on the mixed-dialect project `fixtures/policy/mixed`.

use std::process::Command;

fn dqlint(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_dqlint"))
        .args(args)
        .current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
        .output()
        .expect("dqlint runs")
}

#[test]
fn the_table_lists_every_dataset_with_its_kinds_and_policy() {
    let out = dqlint(&["policy", "fixtures/policy/mixed"]);
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<Vec<&str>> = text
        .lines()
        .map(|l| {
            l.split("  ")
                .map(str::trim)
                .filter(|c| !c.is_empty())
                .collect()
        })
        .collect();
    assert_eq!(
        lines[0],
        ["dataset", "where", "kinds(actions)", "policy", "breaker"]
    );
    assert_eq!(
        lines[1],
        [
            "${catalog}.${silver_schema}.orders",
            "pipelines/silver/orders.yaml:14",
            "not_null(fail) range(drop) other(warn)",
            "missing unique on `id`",
            "-"
        ]
    );
    assert_eq!(
        lines[2],
        [
            "main.silver.customers",
            "quality/config.yml:6",
            "not_null(error) unique(error) range(warn)",
            "too weak range",
            "-"
        ]
    );
    assert_eq!(lines.len(), 5, "{text}");
    assert!(
        !text.contains("silver_products_quarantine"),
        "quarantine tables are left out"
    );
}

#[test]
fn json_has_the_names_kinds_policies_and_breaker() {
    let out = dqlint(&[
        "policy",
        "fixtures/policy/mixed",
        "--format",
        "json",
        "--env",
        "dev",
    ]);
    assert_eq!(out.status.code(), Some(0));
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["version"], 1);
    let orders = &report["datasets"][0];
    assert_eq!(
        orders["names"],
        serde_json::json!(["acme_dev.silver.orders"])
    );
    assert_eq!(orders["dialect"], "lhp");
    assert_eq!(orders["kinds"][0]["kind"], "not_null");
    assert_eq!(orders["kinds"][0]["columns"], serde_json::json!(["id"]));
    assert_eq!(orders["policies"][0]["line"], 3);
    assert_eq!(
        orders["policies"][0]["missing"],
        serde_json::json!(["unique on `id`"])
    );
    assert_eq!(orders["breaker"], "-");
    let products = report["datasets"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["dataset"] == "silver_products")
        .unwrap();
    assert_eq!(products["quarantine"], true);
    assert_eq!(
        products["policies"][0]["below_min_action"],
        serde_json::json!(["range"])
    );
}

#[test]
fn a_broken_policy_is_exit_2_with_its_place() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("lhp.yaml"), "name: x\n").unwrap();
    std::fs::write(
        dir.path().join("dqlint.toml"),
        "[policy.circuit_breaker]\ndatasets = [\"*\"]\nmax_quarantine_ratio = 2\n",
    )
    .unwrap();
    let out = dqlint(&["policy", dir.path().to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        err.contains("dqlint.toml:3:24: `max_quarantine_ratio` is 2"),
        "{err}"
    );
}
