//! The seed code typed in as pipeline sources (`fixtures/pipelines`) gives
//! exactly the findings the contract (`spec/dlt.md`) names for it, file by
//! file: the mistakes the seeds show are found, and their correct code
//! (seed 002's exact negation on a shared view) stays silent.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

/// `file -> codes` of `dqlint lint DIR --format json`.
fn findings(dir: &str) -> BTreeMap<String, Vec<String>> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/pipelines");
    let output = Command::new(env!("CARGO_BIN_EXE_dqlint"))
        .args(["lint", "--format", "json", "--no-cache"])
        .arg(root.join(dir))
        .output()
        .unwrap();
    let report: serde_json::Value = serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&output.stderr)));
    let mut out: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for d in report["diagnostics"].as_array().unwrap() {
        let file = d["file"].as_str().unwrap().rsplit('/').next().unwrap();
        out.entry(file.to_string())
            .or_default()
            .push(d["code"].as_str().unwrap().to_string());
    }
    out
}

fn codes(list: &[(&str, &[&str])]) -> BTreeMap<String, Vec<String>> {
    list.iter()
        .filter(|(_, codes)| !codes.is_empty())
        .map(|(f, codes)| (f.to_string(), codes.iter().map(|c| c.to_string()).collect()))
        .collect()
}

#[test]
fn seed_002_quarantine_remediate_reinject() {
    // The exact negation of the shared rule dict on one view: no DQ92x;
    // the re-inject step passes a DataFrame as `source=` (DQ930).
    assert_eq!(
        findings("seed-002"),
        codes(&[("before.py", &[]), ("pipeline.py", &["DQ930"])])
    );
}

#[test]
fn seed_004_stop_bad_data() {
    // The outage: `expect` only warns. The fix's quarantine reads the
    // source a second time instead of a view. Both files `import dlt`,
    // the legacy module (DQ906, info).
    assert_eq!(
        findings("seed-004"),
        codes(&[
            ("before.py", &["DQ906", "DQ912"]),
            ("after.py", &["DQ906", "DQ924"])
        ])
    );
}
