//! Expectations files in every shape LHP accepts (see
//! `reference/lhp-behaviour.md` §3): a constraint-keyed mapping, a list of
//! `constraint|expression` items, either wrapped in `expectations:`.

use std::ops::Range;

use dqlint_yaml::{Node, NodeKind, ScalarKind};

use crate::value::FileId;

#[derive(Clone, Debug)]
pub struct ExpectationSet {
    pub file: FileId,
    pub shape: Shape,
    pub rules: Vec<Rule>,
    /// Why the file as a whole is unusable, with where to point.
    pub invalid: Option<(String, Range<usize>)>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shape {
    /// Format C: every key is a SQL constraint.
    Keyed,
    /// Format B: a list of items.
    List,
    /// Unusable top level (scalar, null, several documents, broken).
    Invalid,
}

/// What a rule does to a failing row.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RuleAction {
    Warn,
    Drop,
    Fail,
}

impl RuleAction {
    pub fn as_str(self) -> &'static str {
        match self {
            RuleAction::Warn => "warn",
            RuleAction::Drop => "drop",
            RuleAction::Fail => "fail",
        }
    }
}

/// A scalar of the expectations file, with its location.
#[derive(Clone, Debug)]
pub struct Located {
    pub text: String,
    pub span: Range<usize>,
    /// The raw scalar is a mapping key (keyed format) rather than a value.
    pub is_key: bool,
}

/// One item of the file, usable or not.
#[derive(Clone, Debug)]
pub struct Rule {
    /// The whole item (list element, or the key of a keyed rule).
    pub span: Range<usize>,
    pub expression: Option<Located>,
    /// The name as the quarantine path sees it (`name` first).
    pub name: Option<Located>,
    /// The name LHP uses in dqe mode (`message` first), when it differs.
    pub dqe_name: Option<Located>,
    /// The action LHP applies in dqe mode; `None` when the item is skipped
    /// (unknown `type`).
    pub action: Option<RuleAction>,
    /// The scalar that decided the action, if any was written.
    pub action_source: Option<Located>,
    /// An action value LHP does not accept, with its location.
    pub invalid_action: Option<(Located, &'static str)>,
    /// List format: `type` and `failureAction` disagree.
    pub conflicting_type: Option<(Located, Located)>,
    /// Keyed format: the value is not a mapping.
    pub value_not_mapping: Option<Range<usize>>,
    /// Default name for quarantine mode (`rule_<n>`) or dqe.
    pub index: usize,
}

impl Rule {
    pub fn is_usable(&self) -> bool {
        self.expression.is_some() && self.value_not_mapping.is_none()
    }

    /// The name under which LHP collects this rule (duplicates collapse).
    pub fn effective_name(&self, quarantine: bool) -> Option<String> {
        let expr = self.expression.as_ref()?;
        let named = if quarantine {
            self.name.as_ref()
        } else {
            self.dqe_name.as_ref().or(self.name.as_ref())
        };
        Some(match named {
            Some(n) => n.text.clone(),
            None if quarantine => format!("rule_{}", self.index + 1),
            None if self.is_list_item() => format!("Constraint failed: {}", expr.text),
            None => expr.text.clone(),
        })
    }

    fn is_list_item(&self) -> bool {
        !self.expression.as_ref().is_some_and(|e| e.is_key)
    }
}

/// `documents`: each `---` document's span (from its `---` line, when it
/// has one) and root.
pub fn interpret(
    file: FileId,
    documents: &[(Range<usize>, Option<&Node>)],
    whole: Range<usize>,
) -> ExpectationSet {
    let invalid = |message: &str, span: Range<usize>| ExpectationSet {
        file,
        shape: Shape::Invalid,
        rules: Vec::new(),
        invalid: Some((message.to_string(), span)),
    };
    let present: Vec<(&Range<usize>, &Node)> = documents
        .iter()
        .filter_map(|(span, root)| root.map(|r| (span, r)))
        .collect();
    if present.len() > 1 {
        // At the `---` that starts the second document with rules (LHP
        // stops there), or its first node when it has no marker.
        let (doc, root) = present[1];
        let at = if doc.start < root.span.start {
            doc.start..doc.start + 3
        } else {
            root.span.start..root.span.start
        };
        return invalid(
            "the expectations file holds several YAML documents; LHP reads exactly one (LHP-IO-003)",
            at,
        );
    }
    let Some((_, root)) = present.first() else {
        return invalid(
            "the expectations file is empty: it defines no rule",
            whole.start..whole.start,
        );
    };
    let body = match root.pair("expectations") {
        Some(pair) if root.as_mapping().is_some() => &pair.value,
        _ => root,
    };
    match &body.kind {
        NodeKind::Mapping(pairs) => ExpectationSet {
            file,
            shape: Shape::Keyed,
            rules: pairs.iter().enumerate().map(|(i, p)| keyed_rule(i, &p.key, &p.value)).collect(),
            invalid: None,
        },
        NodeKind::Sequence(items) => ExpectationSet {
            file,
            shape: Shape::List,
            rules: items.iter().enumerate().map(|(i, item)| list_rule(i, item)).collect(),
            invalid: None,
        },
        _ if !std::ptr::eq(body, *root) => invalid(
            &format!("`expectations:` holds {}; it must be a list or a mapping of rules", body.type_name()),
            body.span.clone(),
        ),
        _ => invalid(
            &format!("the top level of the expectations file is {}; it must be a mapping or a list of rules", root.type_name()),
            root.span.clone(),
        ),
    }
}

fn located(node: &Node, is_key: bool) -> Option<Located> {
    let scalar = node.as_scalar()?;
    if scalar.kind == ScalarKind::Null {
        return None;
    }
    Some(Located {
        text: scalar.value.clone(),
        span: node.span.clone(),
        is_key,
    })
}

fn keyed_rule(index: usize, key: &Node, value: &Node) -> Rule {
    let expression = located(key, true);
    let mut rule = Rule {
        span: key.span.clone(),
        expression,
        name: None,
        dqe_name: None,
        action: Some(RuleAction::Warn),
        action_source: None,
        invalid_action: None,
        conflicting_type: None,
        value_not_mapping: None,
        index,
    };
    match &value.kind {
        NodeKind::Mapping(_) => {
            rule.name = value.get("name").and_then(|n| located(n, false));
            if let Some(action) = value.get("action").and_then(|n| located(n, false)) {
                match parse_action(&action.text) {
                    Some(a) => rule.action = Some(a),
                    // LHP silently treats anything else as warn (E31).
                    None => rule.invalid_action = Some((action.clone(), "warn, drop or fail")),
                }
                rule.action_source = Some(action);
            }
        }
        // `{}` or `key:` alone: LHP's `.get` on None crashes too.
        _ => {
            rule.value_not_mapping = Some(if value.span.is_empty() {
                key.span.clone()
            } else {
                value.span.clone()
            })
        }
    }
    rule
}

fn list_rule(index: usize, item: &Node) -> Rule {
    let get = |k: &str| item.get(k).and_then(|n| located(n, false));
    let expression = get("constraint").or_else(|| get("expression"));
    let name = get("name").or_else(|| get("message"));
    let dqe_name = get("message").or_else(|| get("name"));
    let mut rule = Rule {
        span: item.span.clone(),
        expression,
        name,
        dqe_name,
        action: Some(RuleAction::Warn),
        action_source: None,
        invalid_action: None,
        conflicting_type: None,
        value_not_mapping: None,
        index,
    };
    let type_value = get("type");
    let failure = get("failureAction");
    let type_action = type_value.as_ref().map(|t| match t.text.as_str() {
        "expect" => Some(RuleAction::Warn),
        "expect_or_drop" => Some(RuleAction::Drop),
        "expect_or_fail" => Some(RuleAction::Fail),
        _ => None,
    });
    if let Some(t) = &type_value {
        rule.action_source = Some(t.clone());
        match type_action.flatten() {
            Some(a) => rule.action = Some(a),
            None => {
                // An unknown type makes LHP skip the item in dqe mode.
                rule.action = None;
                rule.invalid_action = Some((t.clone(), "expect, expect_or_drop or expect_or_fail"));
            }
        }
    }
    if let Some(f) = &failure {
        match parse_action(&f.text) {
            Some(a) => {
                if let (Some(t), Some(Some(ta))) = (&type_value, type_action) {
                    if ta != a {
                        rule.conflicting_type = Some((t.clone(), f.clone()));
                    }
                }
                rule.action = Some(a);
                rule.action_source = Some(f.clone());
                // A valid failureAction overrides an unknown `type`.
                rule.invalid_action = None;
            }
            None => {
                rule.invalid_action = Some((f.clone(), "warn, drop or fail"));
            }
        }
    }
    rule
}

fn parse_action(text: &str) -> Option<RuleAction> {
    match text.trim().to_ascii_lowercase().as_str() {
        "warn" => Some(RuleAction::Warn),
        "drop" => Some(RuleAction::Drop),
        "fail" => Some(RuleAction::Fail),
        _ => None,
    }
}
