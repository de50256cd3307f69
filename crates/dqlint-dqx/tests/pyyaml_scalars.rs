//! dqlint's YAML 1.1 typing against PyYAML's own answers
//! (`data/pyyaml_scalars.json`, recorded by `scripts/gen_pyyaml_scalars.py`).

use dqlint_dqx::{load, Format, Kind};

#[derive(serde::Deserialize)]
struct Recorded {
    pyyaml: String,
    scalars: Vec<Case>,
}

#[derive(serde::Deserialize)]
struct Case {
    text: String,
    #[serde(rename = "type")]
    ty: String,
    value: serde_json::Value,
}

fn describe(kind: &Kind) -> (String, serde_json::Value) {
    use serde_json::Value as J;
    match kind {
        Kind::None => ("null".into(), J::Null),
        Kind::Bool(b) => ("bool".into(), J::Bool(*b)),
        Kind::Int(i) => ("int".into(), J::String(i.to_string())),
        Kind::Float(f) => ("float".into(), J::String(python_repr(*f))),
        Kind::Str(s) => ("str".into(), J::String(s.clone())),
        Kind::Date(d) => ("date".into(), J::String(d.to_string())),
        Kind::DateTime(..) => ("datetime".into(), J::Null),
        other => (format!("{other:?}"), J::Null),
    }
}

fn python_repr(f: f64) -> String {
    if f.is_nan() {
        return "nan".into();
    }
    if f.is_infinite() {
        return if f > 0.0 { "inf".into() } else { "-inf".into() };
    }
    let s = format!("{f:?}");
    // Python prints large/small floats in exponent form as 1e+16.
    if let Some((m, e)) = s.split_once('e') {
        let e: i32 = e.parse().unwrap();
        return format!("{m}e{}{:02}", if e < 0 { '-' } else { '+' }, e.abs());
    }
    s
}

#[test]
fn every_recorded_scalar_types_as_pyyaml_says() {
    let recorded: Recorded =
        serde_json::from_str(include_str!("../data/pyyaml_scalars.json")).unwrap();
    assert!(recorded.pyyaml.starts_with("6."));
    assert!(recorded.scalars.len() > 200);
    let mut failures = Vec::new();
    for case in &recorded.scalars {
        let text = format!("v: {}\n", case.text);
        let yaml = dqlint_yaml::parse(&text);
        let loaded = load(&text, &yaml, Format::Yaml);
        let got = if !loaded.errors.is_empty() || !yaml.errors.is_empty() {
            ("error".to_string(), serde_json::Value::Null)
        } else {
            let root = loaded.root.expect("a mapping");
            describe(&root.get("v").expect("the key").kind)
        };
        // Ints past i128 saturate: their type is what matters to DQX.
        let big = case.ty == "int" && case.text.trim_start_matches(['-', '+']).len() > 38;
        let got = if big {
            (got.0, serde_json::Value::Null)
        } else {
            got
        };
        let expected_value = match case.ty.as_str() {
            _ if big => serde_json::Value::Null,
            // Values of errors and timestamps' times are not compared.
            "error" | "datetime" => serde_json::Value::Null,
            _ => case.value.clone(),
        };
        if got.0 != case.ty || got.1 != expected_value {
            failures.push(format!(
                "{:?}: PyYAML {} {}, dqlint {} {}",
                case.text, case.ty, case.value, got.0, got.1
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} differ:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
