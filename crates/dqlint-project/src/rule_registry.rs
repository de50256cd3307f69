//! The team's rule registry (`[policy] registry` in `dqlint.toml`): YAML
//! files holding the expectations that pipeline code loads
//! through a rule loader (`@dp.expect_all_or_drop(get_rules("orders"))`)
//! instead of writing them inline (seed 004: "we moved all DLT expectation
//! definitions into a central registry (a YAML-based schema config)").
//!
//! A registry file names its entries in one of three ways, each rule a
//! `name` and a `constraint` (the two columns of the rules table that the
//! Databricks docs' portable-expectations pattern reads):
//!
//! - **tagged rules**: a list of `{name, constraint, tag}` items (at the top,
//!   or under `rules:`); `tag` is one entry name or a list of them, and an
//!   entry is every rule carrying its tag, across every registry file;
//! - **entries by key**: a top-level mapping whose keys are entry names,
//!   each value a mapping `name: constraint` or a list of
//!   `{name, constraint}` items;
//! - **the file stem**: `orders.yaml` holding a mapping `name: constraint`
//!   (every value a string) or a list of untagged `{name, constraint}` items
//!   is the entry `orders`.
//!
//! Anything else in a registry file (a rule without a string constraint, a
//! scalar top level) is no rule; nothing here reports, the linter decides.

use std::ops::Range;
use std::path::Path;

use dqlint_yaml::{Node, NodeKind};

use crate::expectations::Located;
use crate::value::FileId;

/// How an entry is named in its file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EntryForm {
    /// Rules carrying `tag: <entry>`.
    Tag,
    /// A top-level key.
    Key,
    /// The file's stem.
    FileStem,
}

/// One rule of the registry.
#[derive(Clone, Debug)]
pub struct RegistryRule {
    /// `None` when the item has no string `name` (a loader cannot key it).
    pub name: Option<Located>,
    pub constraint: Located,
}

/// A named group of rules in one file.
#[derive(Clone, Debug)]
pub struct RegistryEntry {
    pub name: String,
    pub form: EntryForm,
    /// Where the entry is named: the key, the first tag, or the file's
    /// first rule (stem).
    pub span: Range<usize>,
    pub rules: Vec<RegistryRule>,
}

/// What one registry file declares.
#[derive(Clone, Debug)]
pub struct RegistryFile {
    pub file: FileId,
    pub entries: Vec<RegistryEntry>,
}

impl RegistryFile {
    /// Reads the registry file `file` (project-relative `rel`) from its
    /// documents' roots.
    pub fn interpret(file: FileId, rel: &str, roots: &[&Node]) -> RegistryFile {
        let stem = Path::new(rel)
            .file_stem()
            .and_then(|s| s.to_str())
            .unwrap_or(rel)
            .to_string();
        let mut out = RegistryFile {
            file,
            entries: Vec::new(),
        };
        for root in roots {
            out.read_root(root, &stem);
        }
        out
    }

    /// Every entry named `name` (tags may spread one over several files:
    /// the caller gathers them over the registry).
    pub fn entries_named<'s>(&'s self, name: &'s str) -> impl Iterator<Item = &'s RegistryEntry> {
        self.entries.iter().filter(move |e| e.name == name)
    }

    fn read_root(&mut self, root: &Node, stem: &str) {
        match &root.kind {
            NodeKind::Sequence(items) => self.read_items(items, stem),
            NodeKind::Mapping(pairs) => {
                // `rules:` wrapping a list of items.
                if pairs.len() == 1 && pairs[0].key.as_str() == Some("rules") {
                    if let Some(items) = pairs[0].value.as_sequence() {
                        return self.read_items(items, stem);
                    }
                }
                let mut flat = Vec::new();
                for pair in pairs {
                    let Some(key) = located(&pair.key, true) else {
                        continue;
                    };
                    match &pair.value.kind {
                        NodeKind::Scalar(_) => {
                            if let Some(constraint) = located(&pair.value, false) {
                                flat.push(RegistryRule {
                                    name: Some(key),
                                    constraint,
                                });
                            }
                        }
                        NodeKind::Mapping(rules) => {
                            let rules = rules
                                .iter()
                                .filter_map(|p| {
                                    Some(RegistryRule {
                                        name: Some(located(&p.key, true)?),
                                        constraint: located(&p.value, false)?,
                                    })
                                })
                                .collect();
                            self.entries.push(RegistryEntry {
                                name: key.text.clone(),
                                form: EntryForm::Key,
                                span: key.span.clone(),
                                rules,
                            });
                        }
                        NodeKind::Sequence(items) => {
                            let rules = items.iter().filter_map(item_rule).collect();
                            self.entries.push(RegistryEntry {
                                name: key.text.clone(),
                                form: EntryForm::Key,
                                span: key.span.clone(),
                                rules,
                            });
                        }
                        NodeKind::Null => {}
                    }
                }
                if let Some(first) = flat.first() {
                    let span = first.name.as_ref().map_or(0..0, |n| n.span.clone());
                    self.entries.push(RegistryEntry {
                        name: stem.to_string(),
                        form: EntryForm::FileStem,
                        span,
                        rules: flat,
                    });
                }
            }
            _ => {}
        }
    }

    fn read_items(&mut self, items: &[Node], stem: &str) {
        let mut untagged = Vec::new();
        for item in items {
            let Some(rule) = item_rule(item) else {
                continue;
            };
            let tags = tags_of(item);
            if tags.is_empty() {
                untagged.push(rule);
                continue;
            }
            for tag in tags {
                match self
                    .entries
                    .iter_mut()
                    .find(|e| e.form == EntryForm::Tag && e.name == tag.text)
                {
                    Some(entry) => entry.rules.push(rule.clone()),
                    None => self.entries.push(RegistryEntry {
                        name: tag.text.clone(),
                        form: EntryForm::Tag,
                        span: tag.span.clone(),
                        rules: vec![rule.clone()],
                    }),
                }
            }
        }
        if let Some(first) = untagged.first() {
            let span = first.constraint.span.clone();
            self.entries.push(RegistryEntry {
                name: stem.to_string(),
                form: EntryForm::FileStem,
                span,
                rules: untagged,
            });
        }
    }
}

/// `{name, constraint}`: a rule when its constraint is a string.
fn item_rule(item: &Node) -> Option<RegistryRule> {
    let constraint = located(item.get("constraint")?, false)?;
    Some(RegistryRule {
        name: item.get("name").and_then(|n| located(n, false)),
        constraint,
    })
}

fn tags_of(item: &Node) -> Vec<Located> {
    match item.get("tag").or_else(|| item.get("tags")) {
        Some(node) => match &node.kind {
            NodeKind::Sequence(tags) => tags.iter().filter_map(|t| located(t, false)).collect(),
            _ => located(node, false).into_iter().collect(),
        },
        None => Vec::new(),
    }
}

/// A string scalar (numbers and booleans are read as written: PyYAML
/// would give a loader an int, which is no constraint name).
fn located(node: &Node, is_key: bool) -> Option<Located> {
    let scalar = node.as_scalar()?;
    if scalar.kind != dqlint_yaml::ScalarKind::Str {
        return None;
    }
    Some(Located {
        text: scalar.value.clone(),
        span: node.span.clone(),
        is_key,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(rel: &str, text: &str) -> RegistryFile {
        let yaml = dqlint_yaml::parse(text);
        let roots: Vec<&Node> = yaml
            .documents
            .iter()
            .filter_map(|d| d.root.as_ref())
            .collect();
        RegistryFile::interpret(FileId(0), rel, &roots)
    }

    fn summary(file: &RegistryFile) -> Vec<(String, EntryForm, Vec<String>)> {
        file.entries
            .iter()
            .map(|e| {
                (
                    e.name.clone(),
                    e.form,
                    e.rules.iter().map(|r| r.constraint.text.clone()).collect(),
                )
            })
            .collect()
    }

    #[test]
    fn tagged_rules() {
        let text = "\
- name: valid_id
  constraint: id IS NOT NULL
  tag: orders
- name: valid_price
  constraint: price > 0
  tag: [orders, refunds]
- name: loose
  constraint: \"true\"
";
        let file = read("expectations/rules.yaml", text);
        assert_eq!(
            summary(&file),
            [
                (
                    "orders".into(),
                    EntryForm::Tag,
                    vec!["id IS NOT NULL".into(), "price > 0".into()]
                ),
                ("refunds".into(), EntryForm::Tag, vec!["price > 0".into()]),
                ("rules".into(), EntryForm::FileStem, vec!["true".into()]),
            ]
        );
        let rule = &file.entries[0].rules[1];
        assert_eq!(&text[rule.constraint.span.clone()], "price > 0");
        assert_eq!(
            rule.name.as_ref().map(|n| n.text.as_str()),
            Some("valid_price")
        );
        let wrapped = read(
            "r.yaml",
            "rules:\n  - name: valid_id\n    constraint: id IS NOT NULL\n    tag: orders\n",
        );
        assert_eq!(
            summary(&wrapped),
            [(
                "orders".into(),
                EntryForm::Tag,
                vec!["id IS NOT NULL".into()]
            )]
        );
    }

    #[test]
    fn entries_by_key_and_by_stem() {
        let keyed = read(
            "registry.yaml",
            "orders:\n  valid_id: id IS NOT NULL\n  valid_price: price > 0\ncustomers:\n  - name: valid_email\n    constraint: email LIKE '%@%'\n",
        );
        assert_eq!(
            summary(&keyed),
            [
                (
                    "orders".into(),
                    EntryForm::Key,
                    vec!["id IS NOT NULL".into(), "price > 0".into()]
                ),
                (
                    "customers".into(),
                    EntryForm::Key,
                    vec!["email LIKE '%@%'".into()]
                ),
            ]
        );
        let stem = read(
            "expectations/orders.yaml",
            "valid_id: id IS NOT NULL\nvalid_price: price > 0\n",
        );
        assert_eq!(
            summary(&stem),
            [(
                "orders".into(),
                EntryForm::FileStem,
                vec!["id IS NOT NULL".into(), "price > 0".into()]
            )]
        );
        assert_eq!(stem.entries_named("orders").count(), 1);
        assert_eq!(stem.entries_named("order").count(), 0);
    }

    #[test]
    fn what_is_no_rule() {
        assert!(read("x.yaml", "just a string\n").entries.is_empty());
        assert!(read("x.yaml", "- name: a\n  constraint: 5\n")
            .entries
            .is_empty());
        let empty = read("x.yaml", "orders:\n");
        assert!(empty.entries.is_empty());
    }
}
