//! Templates (`templates/<stem>.yaml`) and presets (`presets/*.yaml`), as
//! LHP really applies them.

use std::collections::HashMap;
use std::sync::Arc;

use dqlint_yaml::NodeKind;

use crate::flowgroup::{Problem, ProblemKind};
use crate::value::{deep_merge, FileId, Origin, Value, ValueKind, Via};
use crate::vocabulary::tokens::find_pair;

#[derive(Clone, Debug)]
pub struct Template {
    pub name: String,
    pub file: FileId,
    pub parameters: Vec<TemplateParameter>,
    pub actions: Vec<Value>,
    pub presets: Vec<String>,
}

#[derive(Clone, Debug)]
pub struct TemplateParameter {
    pub name: String,
    pub required: bool,
    pub default: Option<Value>,
}

impl Template {
    pub fn from_value(name: &str, file: FileId, root: &Value) -> Template {
        let parameters = root
            .get("parameters")
            .and_then(Value::as_seq)
            .unwrap_or_default()
            .iter()
            .filter_map(|p| {
                Some(TemplateParameter {
                    name: p.get_str("name")?.to_string(),
                    required: matches!(
                        p.get("required").map(|v| &v.kind),
                        Some(ValueKind::Bool(true))
                    ),
                    default: p.get("default").cloned(),
                })
            })
            .collect();
        let actions = root
            .get("actions")
            .and_then(Value::as_seq)
            .map(<[Value]>::to_vec)
            .unwrap_or_default();
        let presets = root
            .get("presets")
            .and_then(Value::as_seq)
            .unwrap_or_default()
            .iter()
            .filter_map(|v| v.as_str().map(str::to_string))
            .collect();
        Template {
            name: name.to_string(),
            file,
            parameters,
            actions,
            presets,
        }
    }

    /// The template's actions rendered with the flowgroup's parameters.
    pub fn instantiate(
        &self,
        params: Option<&Value>,
        via: &Arc<Via>,
        use_site: &Origin,
        problems: &mut Vec<Problem>,
    ) -> Vec<Value> {
        let mut values: HashMap<String, Value> = HashMap::new();
        for p in &self.parameters {
            if let Some(d) = &p.default {
                values.insert(p.name.clone(), d.clone());
            }
        }
        if let Some(entries) = params.and_then(Value::as_map) {
            for e in entries {
                values.insert(e.key.clone(), e.value.clone());
            }
        }
        let missing: Vec<&str> = self
            .parameters
            .iter()
            .filter(|p| p.required && params.and_then(|v| v.get(&p.name)).is_none())
            .map(|p| p.name.as_str())
            .collect();
        if !missing.is_empty() {
            problems.push(Problem {
                kind: ProblemKind::TemplateParameterMissing,
                message: format!(
                    "template `{}` needs parameter(s) {} in `template_parameters` (LHP-CFG-012)",
                    self.name,
                    missing
                        .iter()
                        .map(|m| format!("`{m}`"))
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
                origin: use_site.clone(),
            });
        }
        self.actions
            .iter()
            .map(|action| {
                let mut action = action.clone();
                render_value(&mut action, &values);
                action.set_via(via);
                action
            })
            .collect()
    }
}

/// Renders `{{ }}` in every string value, then re-types the result as LHP
/// does (`"[]"` becomes a list, `"true"` a boolean, ...).
fn render_value(value: &mut Value, params: &HashMap<String, Value>) {
    match &mut value.kind {
        ValueKind::Str(s) if find_pair(s, 0, *b"{{").is_some() => {
            let rendered = render(s, params);
            let origin = token_origin(s, params).unwrap_or_else(|| value.origin.clone());
            *value = retype(rendered, origin);
        }
        ValueKind::Map(entries) => entries
            .iter_mut()
            .for_each(|e| render_value(&mut e.value, params)),
        ValueKind::Seq(items) => items.iter_mut().for_each(|v| render_value(v, params)),
        _ => {}
    }
}

/// Where the tokens of a rendered template string were written: when the
/// template's own text holds no token and exactly one parameter it uses
/// brings tokens, they are in that parameter's value in the flowgroup's
/// `template_parameters` (`source_table: "{catalog}.bronze.invoice"`), not
/// in the template line `table: "{{ source_table }}"`, so findings about
/// them point there.
fn token_origin(text: &str, params: &HashMap<String, Value>) -> Option<Origin> {
    let mut literal = String::new();
    let mut names = Vec::new();
    let mut rest = text;
    while let Some(open) = find_pair(rest, 0, *b"{{") {
        literal.push_str(&rest[..open]);
        let after = &rest[open + 2..];
        let close = find_pair(after, 0, *b"}}")?;
        let name = after[..close].split('|').next().unwrap_or_default().trim();
        names.push(name);
        rest = &after[close + 2..];
    }
    literal.push_str(rest);
    if literal.contains('{') {
        return None;
    }
    let mut bringing = names
        .iter()
        .filter_map(|n| params.get(*n))
        .filter(|v| v.as_str().is_some_and(|s| s.contains('{')));
    let first = bringing.next()?;
    bringing.next().is_none().then(|| first.origin.clone())
}

/// A small, non-strict Jinja: `{{ name }}` and `{{ name | filter }}`;
/// undefined names render as the empty string.
pub fn render(text: &str, params: &HashMap<String, Value>) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(open) = find_pair(rest, 0, *b"{{") {
        out.push_str(&rest[..open]);
        let after = &rest[open + 2..];
        let Some(close) = find_pair(after, 0, *b"}}") else {
            out.push_str(&rest[open..]);
            return out;
        };
        let expr = after[..close].trim();
        let mut parts = expr.split('|').map(str::trim);
        let name = parts.next().unwrap_or_default();
        let mut rendered = params.get(name).map(Value::python_str);
        for filter in parts {
            if let Some(arg) = filter
                .strip_prefix("default(")
                .and_then(|f| f.strip_suffix(')'))
            {
                if rendered.is_none() {
                    rendered = Some(arg.trim().trim_matches(['"', '\'']).to_string());
                }
            } else if filter == "upper" {
                rendered = rendered.map(|r| r.to_uppercase());
            } else if filter == "lower" {
                rendered = rendered.map(|r| r.to_lowercase());
            }
        }
        out.push_str(&rendered.unwrap_or_default());
        rest = &after[close + 2..];
    }
    out.push_str(rest);
    out
}

fn retype(text: String, origin: Origin) -> Value {
    let trimmed = text.trim();
    let kind = match trimmed {
        "None" => ValueKind::Null,
        "[]" => ValueKind::Seq(Vec::new()),
        "{}" => ValueKind::Map(Vec::new()),
        "true" | "True" => ValueKind::Bool(true),
        "false" | "False" => ValueKind::Bool(false),
        _ if !trimmed.is_empty()
            && trimmed
                .strip_prefix('-')
                .unwrap_or(trimmed)
                .bytes()
                .all(|b| b.is_ascii_digit())
            && trimmed != "-" =>
        {
            ValueKind::Number(trimmed.to_string())
        }
        _ if (trimmed.starts_with('[') && trimmed.ends_with(']'))
            || (trimmed.starts_with('{') && trimmed.ends_with('}')) =>
        {
            match parse_flow(trimmed, &origin) {
                Some(kind) => kind,
                None => ValueKind::Str(text),
            }
        }
        _ => ValueKind::Str(text),
    };
    Value { kind, origin }
}

/// Parses a rendered Python/YAML flow literal; every part keeps the
/// template's origin.
fn parse_flow(text: &str, origin: &Origin) -> Option<ValueKind> {
    let file = dqlint_yaml::parse(text);
    if !file.errors.is_empty() {
        return None;
    }
    let node = file.documents.first()?.root.as_ref()?;
    if !matches!(node.kind, NodeKind::Mapping(_) | NodeKind::Sequence(_)) {
        return None;
    }
    let mut value = Value::from_node(node, origin.file);
    relocate(&mut value, origin);
    Some(value.kind)
}

fn relocate(value: &mut Value, origin: &Origin) {
    value.origin = origin.clone();
    match &mut value.kind {
        ValueKind::Map(entries) => entries.iter_mut().for_each(|e| {
            e.key_origin = origin.clone();
            relocate(&mut e.value, origin);
        }),
        ValueKind::Seq(items) => items.iter_mut().for_each(|v| relocate(v, origin)),
        _ => {}
    }
}

#[derive(Clone, Debug)]
pub struct Preset {
    pub name: String,
    pub file: FileId,
    pub extends: Option<String>,
    pub defaults: Option<Value>,
}

impl Preset {
    pub fn from_value(file: FileId, root: &Value) -> Option<Preset> {
        Some(Preset {
            name: root.get_str("name")?.to_string(),
            file,
            extends: root.get_str("extends").map(str::to_string),
            defaults: root.get("defaults").cloned(),
        })
    }

    /// Applies the preset to one action: `load_actions.<type>` into
    /// `source`, `write_actions.<type>` into `write_target`, the preset
    /// winning on conflicts (E40). `transform_actions` and the nested
    /// `defaults` never apply (E18/E39): they are reported, not merged.
    pub fn apply(&self, action: &mut Value, via: &Arc<Via>) {
        let Some(defaults) = &self.defaults else {
            return;
        };
        let (section, field, subtype_key) = match action.get_str("type") {
            Some("load") => ("load_actions", "source", "type"),
            Some("write") => ("write_actions", "write_target", "type"),
            _ => return,
        };
        let Some(target) = action.get(field) else {
            return;
        };
        let Some(subtype) = target.get_str(subtype_key).map(str::to_string) else {
            return;
        };
        let Some(overlay) = defaults.get(section).and_then(|s| s.get(&subtype)) else {
            return;
        };
        if overlay.as_map().is_none() {
            return;
        }
        let mut overlay = overlay.clone();
        overlay.set_via(via);
        if let ValueKind::Map(entries) = &mut action.kind {
            if let Some(entry) = entries.iter_mut().rev().find(|e| e.key == field) {
                deep_merge(&mut entry.value, overlay);
            }
        }
    }
}
