//! Pipeline sources yield the shared expectation model: seed 002's clean
//! table has its rule dict's rule, with its action, at the dict entry.

use dqlint_linter::rules::pipeline::{sources, PipelineExpectations};
use dqlint_linter::Context;
use dqlint_project::{
    Check, Dialect, Enforcement, ExpectationSource, LoadOptions, Project, RuleAction,
};

#[test]
fn seed_002_yields_its_datasets_and_rules() {
    let root =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/pipelines/seed-002");
    let project = Project::load(&root, &LoadOptions::default()).unwrap();
    let ctx = Context::new(&project);
    let model = PipelineExpectations(sources(&ctx)).datasets(&[]);
    let clean = model
        .iter()
        .find(|d| d.dataset == "sales_clean" && project.file(d.origin.file).rel == "pipeline.py")
        .expect("sales_clean is a dataset of pipeline.py");
    assert_eq!(clean.dialect, Dialect::PipelinePython);
    assert_eq!(clean.expectations.len(), 1);
    let rule = &clean.expectations[0];
    assert_eq!(rule.name.as_deref(), Some("valid_price"));
    assert_eq!(
        rule.check,
        Check::Sql("price IS NOT NULL AND price > 0".into())
    );
    assert_eq!(rule.enforcement, Enforcement::Row(RuleAction::Drop));
    let file = project.file(rule.origin.file);
    assert_eq!(
        &file.text[rule.origin.span.clone()],
        "price IS NOT NULL AND price > 0"
    );
    // The quarantine and the view have no expectations of their own.
    for name in ["sales_quarantine", "raw_ingestion_view"] {
        let d = model.iter().find(|d| d.dataset == name).unwrap();
        assert!(d.expectations.is_empty(), "{name}");
    }
}
