//! Flowgroups and actions, resolved as LHP resolves them: local variables,
//! then templates, then presets (`reference/lhp-behaviour.md` §1.10).
//! Environment substitution happens later, per environment, on demand.

use std::collections::HashMap;
use std::sync::Arc;

use crate::templates::{Preset, Template};
use crate::value::{Entry, FileId, Origin, Value, ValueKind, Via};
use crate::vocabulary::tokens::scan_variables;

/// A problem met while resolving a flowgroup.
#[derive(Clone, Debug)]
pub struct Problem {
    pub kind: ProblemKind,
    pub message: String,
    pub origin: Origin,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ProblemKind {
    /// Wrong YAML type for a flowgroup, `actions`, an action.
    Structure,
    /// `%{var}` with no `variables:` entry.
    UndefinedVariable,
    /// `use_template` names no template (LHP-CFG-027).
    TemplateNotFound,
    /// A required template parameter is missing (LHP-CFG-012).
    TemplateParameterMissing,
    /// A preset that does not exist or an `extends` cycle.
    PresetProblem,
    /// An unknown blueprint, or a missing or unknown blueprint parameter.
    BlueprintProblem,
}

#[derive(Clone, Debug)]
pub struct Flowgroup {
    pub file: FileId,
    /// The flowgroup mapping after variables, templates and presets (its
    /// `actions` are in [`Flowgroup::actions`]).
    pub doc: Value,
    pub pipeline: Option<String>,
    pub name: Option<String>,
    pub actions: Vec<Action>,
    pub problems: Vec<Problem>,
    /// Presets applied (template's first), with their use sites.
    pub presets: Vec<(String, Origin)>,
    /// The `use_template` value, when any.
    pub template: Option<(String, Origin)>,
}

impl Flowgroup {
    /// The expectations files (project-relative, normalised) its
    /// data_quality actions read in `envs`; a path with a token an
    /// environment lacks reads nothing there.
    pub fn expectations_files(&self, envs: &[crate::Env]) -> std::collections::BTreeSet<String> {
        self.actions
            .iter()
            .filter(|a| a.is_data_quality())
            .flat_map(|a| a.expectations_files(envs))
            .collect()
    }

    /// Whether one of its actions is a data_quality action in quarantine mode.
    pub fn has_quarantine(&self) -> bool {
        self.actions.iter().any(Action::is_quarantine)
    }
}

#[derive(Clone, Debug)]
pub struct Action {
    pub value: Value,
}

impl Action {
    /// The files (project-relative, normalised) its `expectations_file`
    /// names in each of `envs`; a path with a token an environment lacks
    /// names nothing there.
    pub fn expectations_files<'a>(
        &'a self,
        envs: &'a [crate::Env],
    ) -> impl Iterator<Item = String> + 'a {
        self.get_str("expectations_file")
            .into_iter()
            .flat_map(move |path| {
                envs.iter().filter_map(move |env| {
                    let resolved = env.resolve(path);
                    resolved
                        .unresolved
                        .is_empty()
                        .then(|| crate::normalize_rel(&resolved.text))
                })
            })
    }

    pub fn get(&self, key: &str) -> Option<&Value> {
        self.value.get(key)
    }
    pub fn get_str(&self, key: &str) -> Option<&str> {
        self.value.get_str(key)
    }
    pub fn name(&self) -> Option<&str> {
        self.get_str("name")
    }
    pub fn action_type(&self) -> Option<&str> {
        self.get_str("type")
    }
    pub fn transform_type(&self) -> Option<&str> {
        self.get_str("transform_type")
    }
    pub fn is_data_quality(&self) -> bool {
        self.action_type() == Some("transform") && self.transform_type() == Some("data_quality")
    }
    /// `mode` as written, `dqe` when absent.
    pub fn dq_mode(&self) -> Option<&str> {
        match self.get("mode") {
            None => Some("dqe"),
            Some(v) if v.is_null() => Some("dqe"),
            Some(v) => v.as_str(),
        }
    }
    pub fn is_quarantine(&self) -> bool {
        self.is_data_quality() && self.get_str("mode") == Some("quarantine")
    }
    /// Where to point for a finding about the action as a whole: its
    /// `name` value, else the action mapping.
    pub fn anchor(&self) -> Origin {
        self.get("name")
            .map(|v| v.origin.clone())
            .unwrap_or_else(|| self.value.origin.at_start())
    }
}

/// Top-level keys of a flowgroup document that the flowgroups array passes
/// down to its elements.
const INHERITED_KEYS: [&str; 5] = [
    "pipeline",
    "use_template",
    "presets",
    "operational_metadata",
    "job_name",
];

/// Splits one YAML document into flowgroup mappings (single, or the
/// `flowgroups:` array with inherited keys).
pub fn split_document(doc: Value, problems: &mut Vec<Problem>) -> Vec<Value> {
    let Some(entries) = doc.as_map() else {
        problems.push(Problem {
            kind: ProblemKind::Structure,
            message: format!(
                "a flowgroup document must be a mapping, not {}",
                doc.type_name()
            ),
            origin: doc.origin.clone(),
        });
        return Vec::new();
    };
    let Some(array) = doc.get("flowgroups") else {
        return vec![doc];
    };
    let Some(items) = array.as_seq() else {
        problems.push(Problem {
            kind: ProblemKind::Structure,
            message: format!(
                "`flowgroups` must be a list of flowgroups, not {}",
                array.type_name()
            ),
            origin: array.origin.clone(),
        });
        return Vec::new();
    };
    let inherited: Vec<&Entry> = entries
        .iter()
        .filter(|e| INHERITED_KEYS.contains(&e.key.as_str()))
        .collect();
    let mut out = Vec::new();
    for item in items {
        if item.as_map().is_none() {
            problems.push(Problem {
                kind: ProblemKind::Structure,
                message: format!(
                    "each entry of `flowgroups` must be a mapping, not {}",
                    item.type_name()
                ),
                origin: item.origin.clone(),
            });
            continue;
        }
        let mut item = item.clone();
        if let ValueKind::Map(fields) = &mut item.kind {
            for entry in &inherited {
                if !fields.iter().any(|f| f.key == entry.key) {
                    fields.push((*entry).clone());
                }
            }
        }
        out.push(item);
    }
    out
}

/// Everything a flowgroup's resolution can look up.
pub struct Library<'a> {
    pub templates: &'a HashMap<String, Template>,
    pub presets: &'a HashMap<String, Preset>,
}

pub fn resolve(file: FileId, mut doc: Value, lib: &Library) -> Flowgroup {
    let mut problems = Vec::new();
    apply_variables(&mut doc, &mut problems);

    let fg_name = doc.get_str("flowgroup").unwrap_or("<unnamed>").to_string();
    // The actions move out of the document (its `actions` key stays, with
    // an empty list): the flowgroup holds each action once.
    let mut actions: Vec<Value> = match doc.get_mut("actions") {
        None => Vec::new(),
        Some(v) if v.is_null() => Vec::new(),
        Some(v) => match &mut v.kind {
            ValueKind::Seq(items) => std::mem::take(items),
            _ => {
                problems.push(Problem {
                    kind: ProblemKind::Structure,
                    message: format!("`actions` must be a list of actions, not {}", v.type_name()),
                    origin: v.origin.clone(),
                });
                Vec::new()
            }
        },
    };

    let mut preset_uses: Vec<(String, Origin)> = Vec::new();
    let mut template_use = None;
    if let Some(use_value) = doc.get("use_template").filter(|v| !v.is_null()) {
        let name = use_value.as_str().unwrap_or_default().to_string();
        template_use = Some((name.clone(), use_value.origin.clone()));
        match lib.templates.get(&name) {
            Some(template) => {
                let params = doc.get("template_parameters").cloned();
                let via = Arc::new(Via::Template {
                    name: name.clone(),
                    flowgroup: fg_name.clone(),
                    use_site: use_value.origin.clone(),
                });
                let expanded = template.instantiate(params.as_ref(), &via, &use_value.origin, &mut problems);
                // Exactly the room needed: the flowgroup keeps this list.
                actions.reserve_exact(expanded.len());
                actions.extend(expanded);
                for preset in &template.presets {
                    preset_uses.push((preset.clone(), use_value.origin.clone()));
                }
            }
            None => problems.push(Problem {
                kind: ProblemKind::TemplateNotFound,
                message: format!(
                    "template `{name}` not found: LHP looks for `templates/{name}.yaml` (LHP-CFG-027)"
                ),
                origin: use_value.origin.clone(),
            }),
        }
    }

    // Test actions are dropped unless `--include-tests`, as `lhp validate` does.
    actions.retain(|a| a.get_str("type") != Some("test"));

    if let Some(list) = doc.get("presets") {
        match list.as_seq() {
            Some(items) => {
                for item in items {
                    if let Some(name) = item.as_str() {
                        preset_uses.push((name.to_string(), item.origin.clone()));
                    }
                }
            }
            None if !list.is_null() => problems.push(Problem {
                kind: ProblemKind::Structure,
                message: format!(
                    "`presets` must be a list of preset names, not {}",
                    list.type_name()
                ),
                origin: list.origin.clone(),
            }),
            None => {}
        }
    }

    let mut valid_actions = Vec::with_capacity(actions.len());
    for action in actions {
        if action.as_map().is_none() {
            problems.push(Problem {
                kind: ProblemKind::Structure,
                message: format!("an action must be a mapping, not {}", action.type_name()),
                origin: action.origin.clone(),
            });
            continue;
        }
        valid_actions.push(action);
    }

    for (preset_name, use_site) in &preset_uses {
        let chain = match preset_chain(preset_name, lib.presets) {
            Ok(chain) => chain,
            Err(message) => {
                problems.push(Problem {
                    kind: ProblemKind::PresetProblem,
                    message,
                    origin: use_site.clone(),
                });
                continue;
            }
        };
        for preset in chain {
            let via = Arc::new(Via::Preset {
                name: preset.name.clone(),
                flowgroup: fg_name.clone(),
                use_site: use_site.clone(),
            });
            for action in &mut valid_actions {
                preset.apply(action, &via);
            }
        }
    }

    let pipeline = doc.get_str("pipeline").map(str::to_string);
    let name = doc.get_str("flowgroup").map(str::to_string);
    Flowgroup {
        file,
        doc,
        pipeline,
        name,
        actions: valid_actions
            .into_iter()
            .map(|value| Action { value })
            .collect(),
        problems,
        presets: preset_uses,
        template: template_use,
    }
}

/// The presets to apply for `name`, `extends` parents first.
fn preset_chain<'a>(
    name: &str,
    presets: &'a HashMap<String, Preset>,
) -> Result<Vec<&'a Preset>, String> {
    let mut chain = Vec::new();
    let mut current = Some(name.to_string());
    while let Some(n) = current {
        let Some(preset) = presets.get(&n) else {
            return Err(if n == name {
                format!(
                    "preset `{n}` not found: no file in `presets/` has `name: {n}` (LHP-ACT-001)"
                )
            } else {
                format!("preset `{name}` extends `{n}`, which does not exist")
            });
        };
        if chain.iter().any(|p: &&Preset| p.name == preset.name) {
            return Err(format!(
                "preset `{name}` has a cycle in `extends` through `{n}` (LHP-DEP-022)"
            ));
        }
        chain.push(preset);
        current = preset.extends.clone();
    }
    chain.reverse();
    Ok(chain)
}

/// Replaces `%{var}` from the flowgroup's `variables:` block (variables may
/// use other variables). Without a `variables:` block LHP leaves `%{x}` alone.
fn apply_variables(doc: &mut Value, problems: &mut Vec<Problem>) {
    let Some(vars) = doc.get("variables").and_then(Value::as_map) else {
        return;
    };
    let mut values: HashMap<String, String> = vars
        .iter()
        .filter_map(|e| e.value.as_str().map(|s| (e.key.clone(), s.to_string())))
        .collect();
    for _ in 0..10 {
        let snapshot = values.clone();
        let mut changed = false;
        for v in values.values_mut() {
            let (next, _) = substitute_variables(v, &snapshot);
            if next != *v {
                *v = next;
                changed = true;
            }
        }
        if !changed {
            break;
        }
    }
    let mut undefined: Vec<(String, Origin)> = Vec::new();
    if let ValueKind::Map(entries) = &mut doc.kind {
        for entry in entries.iter_mut().filter(|e| e.key != "variables") {
            substitute_in(&mut entry.value, &values, &mut undefined);
        }
    }
    for (name, origin) in undefined {
        problems.push(Problem {
            kind: ProblemKind::UndefinedVariable,
            message: format!(
                "`%{{{name}}}` is not defined in this flowgroup's `variables:` (LHP-CFG-011)"
            ),
            origin,
        });
    }
}

/// Replaces `%{name}` in every string of `value` from `vars`; collects the
/// names left over, with where they stand.
pub(crate) fn substitute_in(
    value: &mut Value,
    vars: &HashMap<String, String>,
    undefined: &mut Vec<(String, Origin)>,
) {
    match &mut value.kind {
        ValueKind::Str(s) if s.contains("%{") => {
            let (next, missing) = substitute_variables(s, vars);
            *s = next;
            for name in missing {
                undefined.push((name, value.origin.clone()));
            }
        }
        ValueKind::Map(entries) => entries
            .iter_mut()
            .for_each(|e| substitute_in(&mut e.value, vars, undefined)),
        ValueKind::Seq(items) => items
            .iter_mut()
            .for_each(|v| substitute_in(v, vars, undefined)),
        _ => {}
    }
}

fn substitute_variables(text: &str, vars: &HashMap<String, String>) -> (String, Vec<String>) {
    let mut out = String::new();
    let mut missing = Vec::new();
    let mut last = 0;
    for (name, range) in scan_variables(text) {
        out.push_str(&text[last..range.start]);
        match vars.get(&name) {
            Some(v) => out.push_str(v),
            None => {
                out.push_str(&text[range.clone()]);
                missing.push(name);
            }
        }
        last = range.end;
    }
    out.push_str(&text[last..]);
    (out, missing)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn variables_substitute() {
        let vars = HashMap::from([("x".to_string(), "1".to_string())]);
        assert_eq!(
            substitute_variables("%{x}-%{z}", &vars),
            ("1-%{z}".to_string(), vec!["z".to_string()])
        );
    }
}
