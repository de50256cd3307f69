//! The expectation decorators of a Python pipeline source:
//! `expect(name, constraint)`, `expect_or_drop`, `expect_or_fail`, and the
//! `expect_all*` forms over a dict of name to constraint (a literal, a
//! module-level name, a comprehension). A misuse of the arguments is
//! recorded and yields no expectation; a value the evaluator cannot know
//! is an unknown constraint, with its reason.

use std::ops::Range;

use crate::python::{Field, KindName};
use tree_sitter::Node;

use crate::eval::Value;
use crate::model::{ApiMisuse, Constraint, ExpectAction, Named, PipelineExpectation};
use crate::python_model::{Decorator, Locals, Reader};

impl<'m> Reader<'m, '_> {
    /// The expectations one decorator declares; argument misuses are
    /// recorded and yield none.
    pub(crate) fn expectations(
        &mut self,
        decorator: &Decorator<'m>,
        action: ExpectAction,
        all: bool,
        locals: &Locals,
    ) -> Vec<PipelineExpectation> {
        let origin = decorator.node.byte_range();
        let Some(call) = decorator.call else {
            self.bad_arguments(
                decorator.node.byte_range(),
                &decorator.api,
                "is used without arguments: it must be called".to_string(),
            );
            return Vec::new();
        };
        let args = self.args(call);
        let span = args.list.map_or(call.byte_range(), |l| l.byte_range());
        if args.splat {
            return vec![PipelineExpectation {
                name: None,
                constraint: Constraint::Unknown {
                    span: span.clone(),
                    reason: "arguments passed with `*` or `**`".to_string(),
                },
                action,
                origin,
                from_dict: None,
            }];
        }
        let allowed: &[&str] = if all {
            &["expectations"]
        } else {
            &["name", "description", "constraint"]
        };
        if let Some((unexpected, _, _)) =
            args.keywords.iter().find(|(k, _, _)| !allowed.contains(k))
        {
            self.bad_arguments(
                span,
                &decorator.api,
                format!("has no argument `{unexpected}`"),
            );
            return Vec::new();
        }
        let count = args.positional.len() + args.keywords.len();
        if all {
            let (1, Some(rules)) = (count, args.get("expectations", 0)) else {
                self.bad_arguments(
                    span,
                    &decorator.api,
                    format!(
                        "takes 1 argument (a dict of expectation name to constraint), got {count}"
                    ),
                );
                return Vec::new();
            };
            return self.dict_expectations(&decorator.api, origin, rules, action, locals);
        }
        let name = args.keyword("name").or(args.keyword("description"));
        let constraint = args.keyword("constraint");
        let mut positional = args.positional.iter().copied();
        let name = name.or_else(|| positional.next());
        let constraint = constraint.or_else(|| positional.next());
        let (2, Some(name), Some(constraint)) = (count, name, constraint) else {
            self.bad_arguments(
                span,
                &decorator.api,
                format!("takes 2 arguments (name, constraint), got {count}"),
            );
            return Vec::new();
        };
        let name_value = self.value(name, locals);
        let constraint_value = self.value(constraint, locals);
        let mut wrong = Vec::new();
        if let Some(kind) = not_a_string(&name_value) {
            wrong.push(format!("the name is {kind}, not a str"));
        }
        if let Some(kind) = not_a_string(&constraint_value) {
            wrong.push(format!("the constraint is {kind}, not a str"));
        }
        if !wrong.is_empty() {
            self.bad_arguments(span, &decorator.api, wrong.join("; "));
            return Vec::new();
        }
        vec![PipelineExpectation {
            name: match name_value {
                Value::Str(s) => Some(Named {
                    span: s
                        .source_span(0..s.text.len())
                        .unwrap_or_else(|| name.byte_range()),
                    name: s.text,
                }),
                _ => None,
            },
            constraint: constraint_of(constraint_value, constraint),
            action,
            origin,
            from_dict: None,
        }]
    }

    pub(crate) fn dict_expectations(
        &mut self,
        api: &str,
        origin: Range<usize>,
        rules: Node<'m>,
        action: ExpectAction,
        locals: &Locals,
    ) -> Vec<PipelineExpectation> {
        self.duplicate_keys(rules, locals);
        let entries = match self.value(rules, locals) {
            Value::Dict(entries) => python_dict(entries),
            Value::Unknown { span, reason } => {
                return vec![PipelineExpectation {
                    name: None,
                    constraint: Constraint::Unknown { span, reason },
                    action,
                    origin,
                    from_dict: None,
                }]
            }
            other => {
                let kind = not_a_string(&other).unwrap_or("a str");
                self.bad_arguments(
                    rules.byte_range(),
                    api,
                    format!("takes a dict of expectation name to constraint, got {kind}"),
                );
                return Vec::new();
            }
        };
        let mut out = Vec::new();
        let mut wrong = Vec::new();
        for (key, value) in entries {
            let name = match &key {
                Value::Str(s) => Some(Named {
                    name: s.text.clone(),
                    span: s
                        .source_span(0..s.text.len())
                        .unwrap_or_else(|| rules.byte_range()),
                }),
                Value::Unknown { .. } => None,
                other => {
                    wrong.push(format!(
                        "a key is {}, not a str",
                        not_a_string(other).unwrap_or("not a str")
                    ));
                    continue;
                }
            };
            if let Some(kind) = not_a_string(&value) {
                let key = name.as_ref().map_or("?", |n| n.name.as_str());
                wrong.push(format!("the constraint of `{key}` is {kind}, not a str"));
                continue;
            }
            let from_dict = self.dict_entry(&key, &value).or(Some(rules.byte_range()));
            out.push(PipelineExpectation {
                name,
                constraint: constraint_of(value, rules),
                action,
                origin: origin.clone(),
                from_dict,
            });
        }
        if !wrong.is_empty() {
            self.bad_arguments(rules.byte_range(), api, wrong.join("; "));
        }
        out
    }

    /// The dict entry (`"k": "v"` pair, or `D["k"] = "v"` statement) a key
    /// was evaluated from.
    fn dict_entry(&self, key: &Value, value: &Value) -> Option<Range<usize>> {
        let at = match (key, value) {
            (Value::Str(k), _) if k.origin.iter().flatten().next().is_some() => {
                *k.origin.iter().flatten().next()?
            }
            (_, Value::Str(v)) => *v.origin.iter().flatten().next()?,
            _ => return None,
        };
        let root = self.module.tree.root_node();
        let innermost = root.descendant_for_byte_range(at, at + 1)?;
        let entry = |node: Node| match node.kind_name() {
            "pair" | "expression_statement" | "import_from_statement" => {
                Some(Some(node.byte_range()))
            }
            "module" => Some(None),
            _ => None,
        };
        // Down to that node with a cursor, then back up its ancestors: the
        // cursor keeps them, where `Node::parent` descends from the root
        // again at each step.
        let mut cursor = root.walk();
        while cursor.node() != innermost && cursor.goto_first_child_for_byte(at).is_some() {}
        if cursor.node() == innermost {
            loop {
                if let Some(found) = entry(cursor.node()) {
                    return found;
                }
                if !cursor.goto_parent() {
                    return None;
                }
            }
        }
        let mut node = innermost;
        loop {
            if let Some(found) = entry(node) {
                return found;
            }
            node = node.parent()?;
        }
    }

    /// One key twice in a dict literal that holds expectations: the literal
    /// passed, or the module-level literal a name in the argument is bound to.
    fn duplicate_keys(&mut self, rules: Node<'m>, locals: &Locals) {
        let mut literals = Vec::new();
        if rules.kind_name() == "dictionary" {
            literals.push(rules);
        }
        let mut stack = vec![rules];
        while let Some(n) = stack.pop() {
            if n.kind_name() == "identifier" {
                if let Some(bindings) = self.module_bindings.get(self.text(n)) {
                    literals.extend(
                        bindings
                            .iter()
                            .map(|(_, rhs)| *rhs)
                            .filter(|rhs| rhs.kind_name() == "dictionary"),
                    );
                }
            }
            let mut c = n.walk();
            stack.extend(n.named_children(&mut c));
        }
        for dict in literals {
            if !self.checked_dicts.insert(dict.start_byte()) {
                continue;
            }
            let mut seen: Vec<(String, Range<usize>)> = Vec::new();
            let mut c = dict.walk();
            let pairs: Vec<Node<'m>> = dict
                .named_children(&mut c)
                .filter(|p| p.kind_name() == "pair")
                .collect();
            for pair in pairs {
                let Some(key) = pair.field("key") else {
                    continue;
                };
                let Value::Str(key) = self.value(key, locals) else {
                    continue;
                };
                if let Some((_, first)) = seen.iter().find(|(k, _)| *k == key.text) {
                    self.file.api_misuses.push(ApiMisuse::DuplicateDictKey {
                        key: key.text.clone(),
                        first: first.clone(),
                        second: pair.byte_range(),
                    });
                } else {
                    seen.push((key.text, pair.byte_range()));
                }
            }
        }
    }

    fn bad_arguments(&mut self, span: Range<usize>, api: &str, detail: String) {
        self.file.api_misuses.push(ApiMisuse::BadArguments {
            span,
            api: api.to_string(),
            detail,
        });
    }
}

/// What a known value is when it is not a string (`a dict`), or `None`.
fn not_a_string(value: &Value) -> Option<&'static str> {
    match value {
        Value::Dict(_) => Some("a dict"),
        Value::List(_) => Some("a list"),
        Value::Int(_) => Some("an int"),
        Value::Str(_) | Value::Unknown { .. } => None,
    }
}

fn constraint_of(value: Value, node: Node) -> Constraint {
    match value {
        Value::Str(s) => Constraint::Known(s),
        Value::Unknown { span, reason } => Constraint::Unknown { span, reason },
        _ => Constraint::Unknown {
            span: node.byte_range(),
            reason: "not a string".to_string(),
        },
    }
}

/// The entries of a dict as Python holds them: a duplicate key keeps its
/// first position and its last value.
fn python_dict(entries: Vec<(Value, Value)>) -> Vec<(Value, Value)> {
    let mut out: Vec<(Value, Value)> = Vec::new();
    for (k, v) in entries {
        let same = |existing: &Value| match (existing, &k) {
            (Value::Str(a), Value::Str(b)) => a.text == b.text,
            _ => false,
        };
        if let Some(slot) = out.iter_mut().find(|(existing, _)| same(existing)) {
            *slot = (k, v);
        } else {
            out.push((k, v));
        }
    }
    out
}
