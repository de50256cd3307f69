//! Blueprints: flowgroup specs stamped once per instance.
//!
//! A blueprint under `blueprints/` declares `parameters` and a list of
//! `flowgroups` specs. An instance file under `pipelines/` says
//! `use_blueprint: <name>` with `parameters:`; LHP replaces each `%{param}`
//! of every spec with the instance's value, then treats the stamped specs as
//! ordinary flowgroups (templates, presets and all). The stamped values keep
//! their origin in the blueprint's text, and say which instance stamped them.

use std::collections::HashMap;
use std::sync::Arc;

use crate::flowgroup::{substitute_in, Problem, ProblemKind};
use crate::value::{FileId, Origin, Value, ValueKind, Via};

#[derive(Clone, Debug)]
pub struct Blueprint {
    pub name: String,
    pub file: FileId,
    pub parameters: Vec<Parameter>,
    /// The `flowgroups` specs, unstamped.
    pub specs: Vec<Value>,
}

#[derive(Clone, Debug)]
pub struct Parameter {
    pub name: String,
    pub required: bool,
    pub default: Option<String>,
}

impl Blueprint {
    /// A blueprint document: `name` and a `flowgroups` list; `None` for
    /// anything else (LHP rejects it; we only need the usable ones).
    pub fn from_value(file: FileId, root: &Value) -> Option<Blueprint> {
        let name = root.get_str("name")?.to_string();
        let specs = root.get("flowgroups")?.as_seq()?.to_vec();
        let parameters = root
            .get("parameters")
            .and_then(Value::as_seq)
            .unwrap_or_default()
            .iter()
            .filter_map(|p| {
                Some(Parameter {
                    name: p.get_str("name")?.to_string(),
                    required: p
                        .get("required")
                        .is_some_and(|r| matches!(&r.kind, ValueKind::Bool(true))),
                    default: p
                        .get("default")
                        .filter(|d| !d.is_null())
                        .map(Value::python_str),
                })
            })
            .collect();
        Some(Blueprint {
            name,
            file,
            parameters,
            specs,
        })
    }
}

/// The blueprints of the project by name, with the problems of their files:
/// several documents in one file (LHP-CFG-048), a name used twice
/// (LHP-VAL-046).
pub fn collect(
    files: &[crate::SourceFile],
    ids: &[FileId],
    problems: &mut Vec<Problem>,
) -> HashMap<String, Blueprint> {
    let mut blueprints: HashMap<String, Blueprint> = HashMap::new();
    for id in ids {
        let file = &files[id.0 as usize];
        let documents: Vec<&dqlint_yaml::Node> = file
            .yaml
            .iter()
            .flat_map(|y| y.documents.iter())
            .filter_map(|d| d.root.as_ref())
            .collect();
        let readable =
            file.read_error.is_none() && file.yaml.as_ref().is_some_and(|y| y.errors.is_empty());
        if documents.is_empty() && readable {
            problems.push(Problem {
                kind: ProblemKind::Structure,
                message: "this blueprint file is empty: LHP stops the whole run (LHP-CFG-047); add a blueprint or delete the file"
                    .into(),
                origin: Origin::new(*id, 0..0),
            });
            continue;
        }
        if let Some(second) = documents.get(1) {
            problems.push(Problem {
                kind: ProblemKind::Structure,
                message: "a blueprint file holds one document; LHP rejects several (LHP-CFG-048)"
                    .into(),
                origin: Origin::new(*id, second.span.start..second.span.start),
            });
        }
        let Some(root) = file.first_document() else {
            continue;
        };
        let Some(blueprint) = Blueprint::from_value(*id, &root) else {
            continue;
        };
        match blueprints.get(&blueprint.name) {
            Some(first) => {
                let origin = root
                    .get("name")
                    .map(|n| n.origin.clone())
                    .unwrap_or_else(|| root.origin.at_start());
                problems.push(Problem {
                    kind: ProblemKind::BlueprintProblem,
                    message: format!(
                        "blueprint `{}` is also defined in `{}`; LHP rejects the duplicate name (LHP-VAL-046)",
                        blueprint.name,
                        files[first.file.0 as usize].rel
                    ),
                    origin,
                });
            }
            None => {
                blueprints.insert(blueprint.name.clone(), blueprint);
            }
        }
    }
    blueprints
}

/// Whether a document under `pipelines/` is a blueprint definition put in
/// the wrong place (LHP-CFG-040): `parameters` and `flowgroups`, no `actions`.
pub fn looks_like_blueprint(doc: &Value) -> bool {
    doc.get("parameters").is_some()
        && doc.get("flowgroups").is_some()
        && doc.get("actions").is_none()
}

/// The flowgroup documents an instance stamps out of its blueprint, or none
/// (with the problems saying why).
pub fn expand(
    instance: &Value,
    blueprints: &HashMap<String, Blueprint>,
    problems: &mut Vec<Problem>,
) -> Vec<Value> {
    let Some(use_value) = instance.get("use_blueprint") else {
        return Vec::new();
    };
    let Some(name) = use_value.as_str().filter(|n| !n.trim().is_empty()) else {
        problems.push(Problem {
            kind: ProblemKind::Structure,
            message: "`use_blueprint` must name one blueprint (LHP-CFG-054)".into(),
            origin: use_value.origin.clone(),
        });
        return Vec::new();
    };
    let Some(blueprint) = blueprints.get(name) else {
        let mut known: Vec<&str> = blueprints.keys().map(String::as_str).collect();
        known.sort();
        let hint = match known.as_slice() {
            [] => "the project has no blueprint under `blueprints/`".to_string(),
            names => format!("known blueprints: {}", names.join(", ")),
        };
        problems.push(Problem {
            kind: ProblemKind::BlueprintProblem,
            message: format!("blueprint `{name}` not found ({hint}) (LHP-VAL-041)"),
            origin: use_value.origin.clone(),
        });
        return Vec::new();
    };

    let given = instance
        .get("parameters")
        .and_then(Value::as_map)
        .unwrap_or_default();
    let mut values: HashMap<String, String> = HashMap::new();
    for entry in given {
        if blueprint.parameters.iter().any(|p| p.name == entry.key) {
            values.insert(entry.key.clone(), entry.value.python_str());
        } else {
            problems.push(Problem {
                kind: ProblemKind::BlueprintProblem,
                message: format!(
                    "blueprint `{name}` has no parameter `{}` (LHP-VAL-043)",
                    entry.key
                ),
                origin: entry.key_origin.clone(),
            });
        }
    }
    let mut complete = true;
    for parameter in &blueprint.parameters {
        if values.contains_key(&parameter.name) {
            continue;
        }
        match &parameter.default {
            Some(default) => {
                values.insert(parameter.name.clone(), default.clone());
            }
            None if parameter.required => {
                complete = false;
                problems.push(Problem {
                    kind: ProblemKind::BlueprintProblem,
                    message: format!(
                        "blueprint `{name}` needs parameter `{}` (LHP-VAL-042)",
                        parameter.name
                    ),
                    origin: use_value.origin.clone(),
                });
            }
            None => {}
        }
    }
    if !complete {
        // LHP stops at the missing parameter; half-stamped specs would only
        // add follow-on findings.
        return Vec::new();
    }

    let via = Arc::new(Via::Blueprint {
        name: name.to_string(),
        use_site: use_value.origin.clone(),
    });
    blueprint
        .specs
        .iter()
        .map(|spec| {
            // The spec's own `variables:` win over the instance's parameters
            // (LHP merges them as `{**parameters, **spec.variables}`).
            let mut values = values.clone();
            for entry in spec.get("variables").and_then(Value::as_map).unwrap_or_default() {
                values.insert(entry.key.clone(), entry.value.python_str());
            }
            let mut stamped = spec.clone();
            let mut leftover: Vec<(String, Origin)> = Vec::new();
            substitute_in(&mut stamped, &values, &mut leftover);
            // `%{x}` still there is an error (LHP-VAL-055): once per name.
            let mut reported: Vec<&str> = Vec::new();
            for (variable, origin) in &leftover {
                if reported.contains(&variable.as_str()) {
                    continue;
                }
                reported.push(variable);
                let why = match blueprint.parameters.iter().find(|p| &p.name == variable) {
                    Some(_) => format!("parameter `{variable}` of blueprint `{name}` is not set by this instance and has no default"),
                    None => format!("it is not a parameter of blueprint `{name}`"),
                };
                problems.push(Problem {
                    kind: ProblemKind::UndefinedVariable,
                    message: format!("`%{{{variable}}}` stays unresolved: {why} (LHP-VAL-055)"),
                    origin: origin.clone(),
                });
            }
            stamped.set_via(&via);
            stamped
        })
        .collect()
}
