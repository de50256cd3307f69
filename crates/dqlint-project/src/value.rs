//! Configuration values that remember where they came from.

use std::ops::Range;
use std::sync::Arc;

use dqlint_yaml::{Node, NodeKind, ScalarKind};

/// Index of a file in [`crate::Project::files`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct FileId(pub u32);

/// Where a value was written, and what it passed through to get here.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Origin {
    pub file: FileId,
    pub span: Range<usize>,
    /// Set when the value was written in a template or a preset and reached
    /// the flowgroup through it.
    pub via: Option<Arc<Via>>,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Via {
    /// Text of template `name`, instantiated by `flowgroup` at `use_site`
    /// (the `use_template` value).
    Template {
        name: String,
        flowgroup: String,
        use_site: Origin,
    },
    /// A value set by preset `name`, applied by the flowgroup at `use_site`
    /// (the entry in its `presets:` list, or the template's).
    Preset {
        name: String,
        flowgroup: String,
        use_site: Origin,
    },
    /// A spec of blueprint `name`, stamped by the instance at `use_site`
    /// (its `use_blueprint` value).
    Blueprint { name: String, use_site: Origin },
}

impl Origin {
    pub fn new(file: FileId, span: Range<usize>) -> Origin {
        Origin {
            file,
            span,
            via: None,
        }
    }

    /// A zero-width origin at the start of this one (for "missing" values).
    pub fn at_start(&self) -> Origin {
        Origin {
            file: self.file,
            span: self.span.start..self.span.start,
            via: self.via.clone(),
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct Value {
    pub kind: ValueKind,
    pub origin: Origin,
}

#[derive(Clone, Debug, PartialEq)]
pub enum ValueKind {
    Str(String),
    /// A number, kept as written.
    Number(String),
    Bool(bool),
    Null,
    Map(Vec<Entry>),
    Seq(Vec<Value>),
}

#[derive(Clone, Debug, PartialEq)]
pub struct Entry {
    pub key: String,
    pub key_origin: Origin,
    pub value: Value,
}

impl Value {
    pub fn from_node(node: &Node, file: FileId) -> Value {
        Value::from_node_via(node, file, None)
    }

    pub fn from_node_via(node: &Node, file: FileId, via: Option<Arc<Via>>) -> Value {
        let origin = Origin {
            file,
            span: node.span.clone(),
            via: via.clone(),
        };
        let kind = match &node.kind {
            NodeKind::Null => ValueKind::Null,
            NodeKind::Scalar(s) => match s.kind {
                ScalarKind::Null => ValueKind::Null,
                ScalarKind::Bool => ValueKind::Bool(yaml_true(&s.value)),
                ScalarKind::Int | ScalarKind::Float => ValueKind::Number(s.value.clone()),
                ScalarKind::Str => ValueKind::Str(s.value.clone()),
            },
            NodeKind::Sequence(items) => ValueKind::Seq(
                items
                    .iter()
                    .map(|n| Value::from_node_via(n, file, via.clone()))
                    .collect(),
            ),
            NodeKind::Mapping(pairs) => ValueKind::Map(
                pairs
                    .iter()
                    .map(|p| Entry {
                        key: key_text(&p.key),
                        key_origin: Origin {
                            file,
                            span: p.key.span.clone(),
                            via: via.clone(),
                        },
                        value: Value::from_node_via(&p.value, file, via.clone()),
                    })
                    .collect(),
            ),
        };
        Value { kind, origin }
    }

    /// [`Value::from_node`], taking the tree's strings instead of copying
    /// them.
    pub fn from_owned_node(node: Node, file: FileId) -> Value {
        let origin = Origin {
            file,
            span: node.span,
            via: None,
        };
        let kind = match node.kind {
            NodeKind::Null => ValueKind::Null,
            NodeKind::Scalar(s) => match s.kind {
                ScalarKind::Null => ValueKind::Null,
                ScalarKind::Bool => ValueKind::Bool(yaml_true(&s.value)),
                ScalarKind::Int | ScalarKind::Float => ValueKind::Number(s.value),
                ScalarKind::Str => ValueKind::Str(s.value),
            },
            NodeKind::Sequence(items) => ValueKind::Seq(
                items
                    .into_iter()
                    .map(|n| Value::from_owned_node(n, file))
                    .collect(),
            ),
            NodeKind::Mapping(pairs) => ValueKind::Map(
                pairs
                    .into_iter()
                    .map(|p| Entry {
                        key_origin: Origin {
                            file,
                            span: p.key.span.clone(),
                            via: None,
                        },
                        key: owned_key_text(p.key),
                        value: Value::from_owned_node(p.value, file),
                    })
                    .collect(),
            ),
        };
        Value { kind, origin }
    }

    pub fn as_str(&self) -> Option<&str> {
        match &self.kind {
            ValueKind::Str(s) | ValueKind::Number(s) => Some(s),
            _ => None,
        }
    }

    pub fn as_map(&self) -> Option<&[Entry]> {
        match &self.kind {
            ValueKind::Map(entries) => Some(entries),
            _ => None,
        }
    }

    pub fn as_seq(&self) -> Option<&[Value]> {
        match &self.kind {
            ValueKind::Seq(items) => Some(items),
            _ => None,
        }
    }

    pub fn is_null(&self) -> bool {
        matches!(self.kind, ValueKind::Null)
    }

    /// The entry for `key` (the last one, as PyYAML keeps it).
    pub fn entry(&self, key: &str) -> Option<&Entry> {
        self.as_map()?.iter().rev().find(|e| e.key == key)
    }

    pub fn get(&self, key: &str) -> Option<&Value> {
        self.entry(key).map(|e| &e.value)
    }

    /// The value for `key` (the last entry, as PyYAML keeps it), to change.
    pub fn get_mut(&mut self, key: &str) -> Option<&mut Value> {
        match &mut self.kind {
            ValueKind::Map(entries) => entries
                .iter_mut()
                .rev()
                .find(|e| e.key == key)
                .map(|e| &mut e.value),
            _ => None,
        }
    }

    pub fn get_str(&self, key: &str) -> Option<&str> {
        self.get(key).and_then(Value::as_str)
    }

    /// A value is truthy the way Python sees it.
    pub fn is_truthy(&self) -> bool {
        match &self.kind {
            ValueKind::Str(s) => !s.is_empty(),
            ValueKind::Number(n) => !n.trim_start_matches(['-', '+', '0', '.']).is_empty(),
            ValueKind::Bool(b) => *b,
            ValueKind::Null => false,
            ValueKind::Map(m) => !m.is_empty(),
            ValueKind::Seq(s) => !s.is_empty(),
        }
    }

    pub fn type_name(&self) -> &'static str {
        match &self.kind {
            ValueKind::Str(_) => "a string",
            ValueKind::Number(_) => "a number",
            ValueKind::Bool(_) => "a boolean",
            ValueKind::Null => "null",
            ValueKind::Map(_) => "a mapping",
            ValueKind::Seq(_) => "a list",
        }
    }

    /// Calls `f` on every string value (not keys), depth first.
    pub fn for_each_str<'a>(&'a self, f: &mut dyn FnMut(&'a str, &'a Value)) {
        match &self.kind {
            ValueKind::Str(s) => f(s, self),
            ValueKind::Map(entries) => entries.iter().for_each(|e| e.value.for_each_str(f)),
            ValueKind::Seq(items) => items.iter().for_each(|v| v.for_each_str(f)),
            _ => {}
        }
    }

    /// Rewrites every string value (not keys) in place.
    pub fn map_strs(&mut self, f: &mut dyn FnMut(&str) -> Option<String>) {
        match &mut self.kind {
            ValueKind::Str(s) => {
                if let Some(new) = f(s) {
                    *s = new;
                }
            }
            ValueKind::Map(entries) => entries.iter_mut().for_each(|e| e.value.map_strs(f)),
            ValueKind::Seq(items) => items.iter_mut().for_each(|v| v.map_strs(f)),
            _ => {}
        }
    }

    /// Python's `str()` of the value, as Jinja prints it into a template.
    pub fn python_str(&self) -> String {
        match &self.kind {
            ValueKind::Str(s) | ValueKind::Number(s) => s.clone(),
            _ => self.python_repr(),
        }
    }

    fn python_repr(&self) -> String {
        match &self.kind {
            ValueKind::Str(s) => format!("'{}'", s.replace('\\', "\\\\").replace('\'', "\\'")),
            ValueKind::Number(n) => n.clone(),
            ValueKind::Bool(true) => "True".into(),
            ValueKind::Bool(false) => "False".into(),
            ValueKind::Null => "None".into(),
            ValueKind::Seq(items) => {
                let parts: Vec<String> = items.iter().map(Value::python_repr).collect();
                format!("[{}]", parts.join(", "))
            }
            ValueKind::Map(entries) => {
                let parts: Vec<String> = entries
                    .iter()
                    .map(|e| format!("'{}': {}", e.key, e.value.python_repr()))
                    .collect();
                format!("{{{}}}", parts.join(", "))
            }
        }
    }

    /// Gives this value and everything below it a new provenance.
    pub fn set_via(&mut self, via: &Arc<Via>) {
        self.origin.via = Some(via.clone());
        match &mut self.kind {
            ValueKind::Map(entries) => entries.iter_mut().for_each(|e| {
                e.key_origin.via = Some(via.clone());
                e.value.set_via(via);
            }),
            ValueKind::Seq(items) => items.iter_mut().for_each(|v| v.set_via(via)),
            _ => {}
        }
    }
}

/// Whether a scalar YAML 1.1 reads as a boolean is true.
fn yaml_true(text: &str) -> bool {
    matches!(
        text.trim().to_ascii_lowercase().as_str(),
        "true" | "yes" | "on"
    )
}

fn owned_key_text(key: Node) -> String {
    match key.kind {
        NodeKind::Scalar(s) => s.value,
        NodeKind::Null => String::new(),
        _ => "<complex key>".to_string(),
    }
}

fn key_text(key: &Node) -> String {
    match &key.kind {
        NodeKind::Scalar(s) => s.value.clone(),
        NodeKind::Null => String::new(),
        _ => "<complex key>".to_string(),
    }
}

/// Deep-merges `overlay` into `base`; the overlay wins on conflicts, nested
/// mappings merge recursively (LHP's preset merge).
pub fn deep_merge(base: &mut Value, overlay: Value) {
    match (&mut base.kind, overlay.kind) {
        (ValueKind::Map(base_entries), ValueKind::Map(overlay_entries)) => {
            // Room for the new keys at once: a preset's defaults reach
            // every action of their type, and growing each action's map
            // key by key left it with up to twice the room it needs.
            let new_keys = overlay_entries
                .iter()
                .filter(|entry| !base_entries.iter().any(|e| e.key == entry.key))
                .count();
            base_entries.reserve_exact(new_keys);
            for entry in overlay_entries {
                match base_entries.iter_mut().rev().find(|e| e.key == entry.key) {
                    Some(existing)
                        if existing.value.as_map().is_some() && entry.value.as_map().is_some() =>
                    {
                        deep_merge(&mut existing.value, entry.value)
                    }
                    Some(existing) => existing.value = entry.value,
                    None => base_entries.push(entry),
                }
            }
        }
        (_, kind) => {
            *base = Value {
                kind,
                origin: overlay.origin,
            }
        }
    }
}
