//! The LHP model yields the shared expectation model: each data_quality
//! action's dataset with the rules of its expectations file.

use dqlint_project::{envs_or_none, Check, Dialect, Enforcement, LoadOptions, Project, RuleAction};

fn project(files: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("lhp.yaml"), "name: em\n").unwrap();
    for (rel, text) in files {
        let path = dir.path().join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
    dir
}

const FLOWGROUP: &str = "pipeline: p
flowgroup: orders
actions:
  - name: orders_dq
    type: transform
    transform_type: data_quality
    source: v_orders
    target: v_orders_checked
    readMode: stream
    expectations_file: expectations/orders.yaml
  - name: orders_quarantine
    type: transform
    transform_type: data_quality
    mode: quarantine
    source: v_orders
    target: v_orders_q
    readMode: stream
    expectations_file: expectations/orders.yaml
    quarantine:
      dlq_table: c.s.dlq
      source_table: c.s.orders
";

const EXPECTATIONS: &str = "amount >= 0:
  action: drop
  name: non_negative_amount
id IS NOT NULL:
  action: warn
  name: id_present
";

#[test]
fn each_data_quality_action_is_a_dataset_with_its_files_rules() {
    let dir = project(&[
        ("pipelines/orders.yaml", FLOWGROUP),
        ("expectations/orders.yaml", EXPECTATIONS),
    ]);
    let project = Project::load(dir.path(), &LoadOptions::default()).unwrap();
    let model = project.expectation_model(&envs_or_none(&project.envs));
    assert_eq!(model.len(), 2);
    let dqe = &model[0];
    assert_eq!(dqe.dataset, "v_orders_checked");
    assert_eq!(dqe.dialect, Dialect::Lhp);
    let described: Vec<(Option<&str>, &Check, Enforcement)> = dqe
        .expectations
        .iter()
        .map(|e| (e.name.as_deref(), &e.check, e.enforcement))
        .collect();
    assert_eq!(
        described,
        vec![
            (
                Some("non_negative_amount"),
                &Check::Sql("amount >= 0".into()),
                Enforcement::Row(RuleAction::Drop)
            ),
            (
                Some("id_present"),
                &Check::Sql("id IS NOT NULL".into()),
                Enforcement::Row(RuleAction::Warn)
            ),
        ]
    );
    // Quarantine mode sends every failing row to the DLQ.
    assert_eq!(model[1].dataset, "v_orders_q");
    assert!(model[1]
        .expectations
        .iter()
        .all(|e| e.enforcement == Enforcement::Quarantine));
    // Origins point into the files they were written in.
    let rule = &dqe.expectations[0];
    let file = project.file(rule.origin.file);
    assert_eq!(file.rel, "expectations/orders.yaml");
    assert!(file.text[rule.origin.span.clone()].starts_with("amount >= 0"));
    let action = project.file(dqe.origin.file);
    assert_eq!(&action.text[dqe.origin.span.clone()], "orders_dq");
}
