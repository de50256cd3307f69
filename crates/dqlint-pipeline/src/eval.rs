//! The static evaluator of `spec/dlt.md`: string values built from
//! literals, f-strings, concatenation, module-level names, dicts, lists,
//! subscripts, `.values()` / `.items()` comprehensions, `join` and
//! `format`. Anything else is [`Value::Unknown`] with the reason, never a
//! guess. Every evaluated byte maps back to a source byte, so an error in
//! `f"NOT ({RULES['valid_price']})"` points into the dict entry.

use std::collections::HashMap;
use std::ops::Range;
use std::sync::Arc;

use crate::python::{Field, KindName};
use tree_sitter::Node;

use crate::python::PythonModule;

/// A string whose bytes each know their source byte (`None`: no source,
/// such as the separator of a `join` that came from an unknown place).
///
/// A value imported from another module of the project keeps two maps:
/// `origin` points its bytes at the imported name in this file (so every
/// span of the file's model is a span of the file), and `defined` at the
/// bytes of the module that wrote them.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Evaluated {
    pub text: String,
    pub origin: Vec<Option<usize>>,
    /// For each byte, where another module of the project wrote it; empty
    /// when no byte came from another module.
    pub defined: Vec<Option<Defined>>,
}

/// A byte of a value written in another module of the project: the module
/// as this file's import names it (`conf.rules`, `.rules`) and the byte's
/// offset in that module's text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Defined {
    pub module: Arc<str>,
    pub offset: usize,
}

impl Evaluated {
    fn push_source(&mut self, text: &str, start: usize) {
        for (i, _) in text.bytes().enumerate() {
            self.origin.push(Some(start + i));
        }
        self.text.push_str(text);
        self.pad_defined();
    }

    fn push_mapped(&mut self, text: &str, at: usize) {
        for _ in text.bytes() {
            self.origin.push(Some(at));
        }
        self.text.push_str(text);
        self.pad_defined();
    }

    fn append(&mut self, other: &Evaluated) {
        if !other.defined.is_empty() {
            self.defined.resize(self.text.len(), None);
            self.defined.extend_from_slice(&other.defined);
        }
        self.text.push_str(&other.text);
        self.origin.extend_from_slice(&other.origin);
        self.pad_defined();
    }

    /// Bytes `range` of `other`, with both their maps.
    fn push_part(&mut self, other: &Evaluated, range: Range<usize>) {
        if !other.defined.is_empty() {
            self.defined.resize(self.text.len(), None);
            self.defined
                .extend_from_slice(&other.defined[range.clone()]);
        }
        self.text.push_str(&other.text[range.clone()]);
        self.origin.extend_from_slice(&other.origin[range]);
        self.pad_defined();
    }

    /// Keeps `defined` empty, or as long as the text.
    fn pad_defined(&mut self) {
        if !self.defined.is_empty() {
            self.defined.resize(self.text.len(), None);
        }
    }

    /// Where another module of the project wrote evaluated bytes `range`:
    /// the module as imported and the span there, from the first mapped
    /// byte to the last. `None` when a byte of the range is this file's
    /// own, or the bytes come from more than one module.
    pub fn definition(&self, range: Range<usize>) -> Option<(&str, Range<usize>)> {
        let mapped = self.origin.get(range.clone())?;
        let defined = self.defined.get(range)?;
        let mut bytes = mapped
            .iter()
            .zip(defined)
            .filter(|(origin, _)| origin.is_some())
            .map(|(_, defined)| defined.as_ref());
        let first = bytes.next()??;
        let mut last = first;
        for byte in bytes {
            let byte = byte?;
            if byte.module != first.module {
                return None;
            }
            last = byte;
        }
        Some((&first.module, first.offset..last.offset + 1))
    }

    /// The source range of evaluated bytes `range` (its first and last
    /// mapped bytes): where a finding inside the value belongs.
    pub fn source_span(&self, range: Range<usize>) -> Option<Range<usize>> {
        let slice = self.origin.get(range)?;
        let first = slice.iter().flatten().next()?;
        let last = slice.iter().flatten().next_back()?;
        Some(*first..last + 1)
    }
}

/// A value the evaluator knows, or why it does not.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    Str(Evaluated),
    /// Entries in source order, duplicates kept (Python keeps the last).
    Dict(Vec<(Value, Value)>),
    List(Vec<Value>),
    Int(i64),
    Unknown {
        span: Range<usize>,
        reason: String,
    },
}

impl Value {
    pub fn as_str(&self) -> Option<&Evaluated> {
        match self {
            Value::Str(s) => Some(s),
            _ => None,
        }
    }

    fn unknown(node: Node, reason: impl Into<String>) -> Value {
        Value::Unknown {
            span: node.byte_range(),
            reason: reason.into(),
        }
    }

    /// Dict lookup by string key; the last entry wins, as in Python.
    pub fn get(&self, key: &str) -> Option<&Value> {
        match self {
            Value::Dict(entries) => entries
                .iter()
                .rev()
                .find(|(k, _)| k.as_str().is_some_and(|k| k.text == key))
                .map(|(_, v)| v),
            _ => None,
        }
    }
}

/// Whether `node` is a string literal that is no f-string: its value is
/// its text, whatever names are in scope.
pub(crate) fn is_plain_string(source: &str, node: Node) -> bool {
    node.kind_name() == "string"
        && !source.as_bytes()[node.start_byte()..]
            .iter()
            .take_while(|b| !matches!(b, b'\'' | b'"'))
            .take(3)
            .any(|b| matches!(b, b'f' | b'F'))
}

/// Module-level bindings, evaluated in file order.
pub struct Evaluator<'m> {
    module: &'m PythonModule,
    env: HashMap<String, Value>,
}

impl<'m> Evaluator<'m> {
    pub fn new(module: &'m PythonModule) -> Evaluator<'m> {
        Evaluator::with_imports(module, HashMap::new())
    }

    /// Like [`Evaluator::new`], with names imported from other modules of
    /// the project bound first (a later module-level binding wins).
    pub fn with_imports(
        module: &'m PythonModule,
        imported: HashMap<String, Value>,
    ) -> Evaluator<'m> {
        let mut evaluator = Evaluator {
            module,
            env: imported,
        };
        let root = module.tree.root_node();
        let mut cursor = root.walk();
        for statement in root.children(&mut cursor) {
            evaluator.bind_statement(statement);
        }
        evaluator
    }

    pub fn lookup(&self, name: &str) -> Option<&Value> {
        self.env.get(name)
    }

    /// Every module-level binding (for `from module import *`).
    pub fn bindings(&self) -> impl Iterator<Item = (&str, &Value)> {
        self.env.iter().map(|(k, v)| (k.as_str(), v))
    }

    fn bind_statement(&mut self, statement: Node) {
        if statement.kind_name() != "expression_statement" {
            return;
        }
        let Some(assignment) = statement.named_child(0) else {
            return;
        };
        if assignment.kind_name() != "assignment" {
            return;
        }
        let (Some(left), Some(right)) = (assignment.field("left"), assignment.field("right"))
        else {
            return;
        };
        let value = self.eval(right);
        match left.kind_name() {
            "identifier" => {
                self.env.insert(self.module.text(left).to_string(), value);
            }
            "subscript" => {
                // RULES["k"] = "..." on a known dict
                let (Some(target), Some(key)) = (left.field("value"), left.field("subscript"))
                else {
                    return;
                };
                let key = self.eval(key);
                let name = self.module.text(target).to_string();
                if let Some(Value::Dict(entries)) = self.env.get_mut(&name) {
                    entries.push((key, value));
                }
            }
            _ => {}
        }
    }

    /// Evaluate an expression with the module-level bindings.
    pub fn eval(&self, node: Node) -> Value {
        self.eval_in(node, &HashMap::new())
    }

    /// Evaluate with local bindings over the module-level ones (a `for`
    /// over a literal list, a function's local strings).
    pub fn eval_with(&self, node: Node, locals: &HashMap<String, Value>) -> Value {
        self.eval_in(node, locals)
    }

    fn eval_in(&self, node: Node, locals: &HashMap<String, Value>) -> Value {
        let text = self.module.text(node);
        match node.kind_name() {
            "string" => self.eval_string(node, locals),
            "concatenated_string" => {
                let mut out = Evaluated::default();
                let mut cursor = node.walk();
                for part in node.named_children(&mut cursor) {
                    match self.eval_in(part, locals) {
                        Value::Str(s) => out.append(&s),
                        other => return other,
                    }
                }
                Value::Str(out)
            }
            "integer" => text
                .replace('_', "")
                .parse()
                .map(Value::Int)
                .unwrap_or_else(|_| Value::unknown(node, "an integer out of range")),
            "parenthesized_expression" => match node.named_child(0) {
                Some(inner) => self.eval_in(inner, locals),
                None => Value::unknown(node, "an empty expression"),
            },
            "identifier" => locals
                .get(text)
                .or_else(|| self.env.get(text))
                .cloned()
                .unwrap_or_else(|| {
                    Value::unknown(
                        node,
                        format!("`{text}` is not bound to a value at module level"),
                    )
                }),
            "binary_operator" => {
                let op = node.field("operator").map(|o| self.module.text(o));
                let (Some(l), Some(r)) = (node.field("left"), node.field("right")) else {
                    return Value::unknown(node, "an incomplete expression");
                };
                if op != Some("+") {
                    return Value::unknown(node, "an operator other than `+` on strings");
                }
                match (self.eval_in(l, locals), self.eval_in(r, locals)) {
                    (Value::Str(mut a), Value::Str(b)) => {
                        a.append(&b);
                        Value::Str(a)
                    }
                    (Value::List(mut a), Value::List(b)) => {
                        a.extend(b);
                        Value::List(a)
                    }
                    (u @ Value::Unknown { .. }, _) | (_, u @ Value::Unknown { .. }) => u,
                    _ => Value::unknown(node, "`+` of values of different types"),
                }
            }
            "dictionary" => {
                let mut entries = Vec::new();
                let mut cursor = node.walk();
                for pair in node.named_children(&mut cursor) {
                    if pair.kind_name() == "comment" {
                        continue;
                    }
                    if pair.kind_name() != "pair" {
                        return Value::unknown(pair, "a `**` expansion in a dict");
                    }
                    let (Some(k), Some(v)) = (pair.field("key"), pair.field("value")) else {
                        continue;
                    };
                    entries.push((self.eval_in(k, locals), self.eval_in(v, locals)));
                }
                Value::Dict(entries)
            }
            "list" | "tuple" => {
                let mut cursor = node.walk();
                Value::List(
                    node.named_children(&mut cursor)
                        .filter(|n| n.kind_name() != "comment")
                        .map(|item| self.eval_in(item, locals))
                        .collect(),
                )
            }
            "subscript" => {
                let (Some(target), Some(key)) = (node.field("value"), node.field("subscript"))
                else {
                    return Value::unknown(node, "an incomplete subscript");
                };
                let target = self.eval_in(target, locals);
                if let u @ Value::Unknown { .. } = target {
                    return u;
                }
                match (&target, self.eval_in(key, locals)) {
                    (Value::Dict(_), Value::Str(k)) => target
                        .get(&k.text)
                        .cloned()
                        .unwrap_or_else(|| Value::unknown(node, format!("no key `{}`", k.text))),
                    (Value::List(items), Value::Int(i)) => {
                        let i = if i < 0 { items.len() as i64 + i } else { i };
                        usize::try_from(i)
                            .ok()
                            .and_then(|i| items.get(i))
                            .cloned()
                            .unwrap_or_else(|| Value::unknown(node, "an index out of range"))
                    }
                    (_, u @ Value::Unknown { .. }) => u,
                    _ => Value::unknown(node, "a subscript the evaluator cannot follow"),
                }
            }
            "call" => self.eval_call(node, locals),
            // `rules.RULES` after `import rules`: bound under its dotted name.
            "attribute" if self.env.contains_key(text) => self.env[text].clone(),
            "dictionary_comprehension" | "list_comprehension" => {
                self.eval_comprehension(node, locals)
            }
            _ => Value::unknown(node, format!("`{}` is not a static value", short(text))),
        }
    }

    fn eval_string(&self, node: Node, locals: &HashMap<String, Value>) -> Value {
        let mut out = Evaluated::default();
        let mut raw = false;
        for part in crate::python::children_of(node, false) {
            let text = self.module.text(part);
            match part.kind_name() {
                "string_start" => {
                    raw = text.contains(['r', 'R']);
                    if text.contains(['b', 'B']) {
                        return Value::unknown(node, "a bytes literal");
                    }
                }
                "string_content" if part.child_count() == 0 => {
                    out.push_source(text, part.start_byte());
                }
                "string_content" => {
                    // tree-sitter nests escapes inside the content
                    let mut at = part.start_byte();
                    let mut c = part.walk();
                    for escape in part.children(&mut c) {
                        out.push_source(&self.module.source[at..escape.start_byte()], at);
                        let e = self.module.text(escape);
                        if raw || escape.kind_name() != "escape_sequence" {
                            out.push_source(e, escape.start_byte());
                        } else {
                            out.push_mapped(&unescape(e), escape.start_byte());
                        }
                        at = escape.end_byte();
                    }
                    out.push_source(&self.module.source[at..part.end_byte()], at);
                }
                "escape_sequence" => {
                    if raw {
                        out.push_source(text, part.start_byte());
                    } else {
                        out.push_mapped(&unescape(text), part.start_byte());
                    }
                }
                "interpolation" => {
                    if part.field("format_specifier").is_some()
                        || part.field("type_conversion").is_some()
                    {
                        return Value::unknown(part, "an f-string conversion or format spec");
                    }
                    let Some(expression) = part.field("expression") else {
                        return Value::unknown(part, "an empty interpolation");
                    };
                    match self.eval_in(expression, locals) {
                        Value::Str(s) => out.append(&s),
                        Value::Int(i) => out.push_mapped(&i.to_string(), expression.start_byte()),
                        Value::Unknown { span, reason } => return Value::Unknown { span, reason },
                        _ => {
                            return Value::unknown(expression, "an interpolation of a dict or list")
                        }
                    }
                }
                _ => {}
            }
        }
        Value::Str(out)
    }

    fn eval_call(&self, node: Node, locals: &HashMap<String, Value>) -> Value {
        let Some(function) = node.field("function") else {
            return Value::unknown(node, "a call");
        };
        let args: Vec<Node> = node
            .field("arguments")
            .map(|a| {
                let mut c = a.walk();
                a.named_children(&mut c).collect()
            })
            .unwrap_or_default();
        if function.kind_name() != "attribute" {
            return Value::unknown(
                node,
                format!("the result of `{}(...)`", short(self.module.text(function))),
            );
        }
        let (Some(object), Some(method)) = (function.field("object"), function.field("attribute"))
        else {
            return Value::unknown(node, "a call");
        };
        let method = self.module.text(method);
        let object = self.eval_in(object, locals);
        match (method, &object) {
            (_, Value::Unknown { .. }) => object,
            ("values", Value::Dict(_)) | ("keys", Value::Dict(_)) | ("items", Value::Dict(_)) => {
                let Value::Dict(entries) = dedup(&object) else {
                    unreachable!()
                };
                Value::List(
                    entries
                        .into_iter()
                        .map(|(k, v)| match method {
                            "values" => v,
                            "keys" => k,
                            _ => Value::List(vec![k, v]),
                        })
                        .collect(),
                )
            }
            ("join", Value::Str(separator)) => {
                let Some(arg) = args.first() else {
                    return Value::unknown(node, "`join` without an argument");
                };
                match self.eval_in(*arg, locals) {
                    Value::List(items) => {
                        let mut out = Evaluated::default();
                        for (i, item) in items.iter().enumerate() {
                            if i > 0 {
                                out.append(separator);
                            }
                            match item {
                                Value::Str(s) => out.append(s),
                                Value::Unknown { span, reason } => {
                                    return Value::Unknown {
                                        span: span.clone(),
                                        reason: reason.clone(),
                                    }
                                }
                                _ => return Value::unknown(*arg, "`join` of a non-string"),
                            }
                        }
                        Value::Str(out)
                    }
                    u @ Value::Unknown { .. } => u,
                    _ => Value::unknown(*arg, "`join` of a non-list"),
                }
            }
            ("format", Value::Str(template)) => {
                let mut values = Vec::new();
                for arg in &args {
                    if arg.kind_name() == "keyword_argument" {
                        return Value::unknown(*arg, "`format` with keyword arguments");
                    }
                    match self.eval_in(*arg, locals) {
                        Value::Str(s) => values.push(s),
                        u @ Value::Unknown { .. } => return u,
                        _ => return Value::unknown(*arg, "`format` of a non-string"),
                    }
                }
                format_positional(template, &values)
                    .map(Value::Str)
                    .unwrap_or_else(|| {
                        Value::unknown(node, "a `format` template the evaluator cannot follow")
                    })
            }
            _ => Value::unknown(node, format!("the result of `.{method}(...)`")),
        }
    }

    fn eval_comprehension(&self, node: Node, locals: &HashMap<String, Value>) -> Value {
        let Some(body) = node.field("body") else {
            return Value::unknown(node, "a comprehension");
        };
        let mut cursor = node.walk();
        let clauses: Vec<Node> = node.named_children(&mut cursor).skip(1).collect();
        let [clause] = clauses.as_slice() else {
            return Value::unknown(node, "a comprehension with several clauses or a condition");
        };
        if clause.kind_name() != "for_in_clause" {
            return Value::unknown(node, "a comprehension");
        }
        let (Some(target), Some(iterable)) = (clause.field("left"), clause.field("right")) else {
            return Value::unknown(node, "a comprehension");
        };
        let items = match self.eval_in(iterable, locals) {
            Value::List(items) => items,
            u @ Value::Unknown { .. } => return u,
            _ => return Value::unknown(iterable, "a comprehension over a non-list"),
        };
        let names: Vec<&str> = match target.kind_name() {
            "identifier" => vec![self.module.text(target)],
            "pattern_list" | "tuple_pattern" => {
                let mut c = target.walk();
                target
                    .named_children(&mut c)
                    .map(|n| self.module.text(n))
                    .collect()
            }
            _ => return Value::unknown(target, "a comprehension target"),
        };
        let mut entries = Vec::new();
        let mut list = Vec::new();
        for item in items {
            let mut scope = locals.clone();
            if names.len() == 1 {
                scope.insert(names[0].to_string(), item);
            } else {
                let Value::List(parts) = item else {
                    return Value::unknown(iterable, "unpacking a non-pair");
                };
                if parts.len() != names.len() {
                    return Value::unknown(iterable, "unpacking of the wrong length");
                }
                for (name, part) in names.iter().zip(parts) {
                    scope.insert(name.to_string(), part);
                }
            }
            if body.kind_name() == "pair" {
                let (Some(k), Some(v)) = (body.field("key"), body.field("value")) else {
                    return Value::unknown(body, "a comprehension");
                };
                entries.push((self.eval_in(k, &scope), self.eval_in(v, &scope)));
            } else {
                list.push(self.eval_in(body, &scope));
            }
        }
        if body.kind_name() == "pair" {
            Value::Dict(entries)
        } else {
            Value::List(list)
        }
    }
}

/// The dict as Python holds it: one entry per key, the last value, first position.
fn dedup(dict: &Value) -> Value {
    let Value::Dict(entries) = dict else {
        return dict.clone();
    };
    let mut out: Vec<(Value, Value)> = Vec::new();
    for (k, v) in entries {
        if let Some(slot) = out.iter_mut().find(|(existing, _)| existing == k) {
            slot.1 = v.clone();
        } else {
            out.push((k.clone(), v.clone()));
        }
    }
    Value::Dict(out)
}

fn format_positional(template: &Evaluated, values: &[Evaluated]) -> Option<Evaluated> {
    let mut out = Evaluated::default();
    let bytes = template.text.as_bytes();
    let mut next_auto = 0;
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'{' if bytes.get(i + 1) == Some(&b'{') => {
                out.push_part(template, i..i + 1);
                i += 2;
            }
            b'}' if bytes.get(i + 1) == Some(&b'}') => {
                out.push_part(template, i..i + 1);
                i += 2;
            }
            b'{' => {
                let close = template.text[i..].find('}')? + i;
                let field = &template.text[i + 1..close];
                let index = if field.is_empty() {
                    next_auto += 1;
                    next_auto - 1
                } else {
                    field.parse().ok()?
                };
                out.append(values.get(index)?);
                i = close + 1;
            }
            b'}' => return None,
            _ => {
                let ch_len = template.text[i..].chars().next()?.len_utf8();
                out.push_part(template, i..i + ch_len);
                i += ch_len;
            }
        }
    }
    Some(out)
}

fn unescape(escape: &str) -> String {
    match escape {
        "\\n" => "\n".into(),
        "\\t" => "\t".into(),
        "\\r" => "\r".into(),
        "\\\\" => "\\".into(),
        "\\'" => "'".into(),
        "\\\"" => "\"".into(),
        "\\\n" => String::new(),
        "{{" => "{".into(),
        "}}" => "}".into(),
        other => other.to_string(),
    }
}

fn short(text: &str) -> String {
    let line = text.lines().next().unwrap_or("");
    if line.len() > 40 {
        format!("{}...", &line[..line.floor_char_boundary_compat(40)])
    } else {
        line.to_string()
    }
}

trait FloorCharBoundary {
    fn floor_char_boundary_compat(&self, i: usize) -> usize;
}

impl FloorCharBoundary for str {
    fn floor_char_boundary_compat(&self, mut i: usize) -> usize {
        while !self.is_char_boundary(i) {
            i -= 1;
        }
        i
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn eval_last(source: &str) -> (PythonModule, Value) {
        let module = PythonModule::parse(source);
        let value = {
            let evaluator = Evaluator::new(&module);
            evaluator.lookup("X").cloned().expect("X is bound")
        };
        (module, value)
    }

    fn text(value: &Value) -> &str {
        &value
            .as_str()
            .unwrap_or_else(|| panic!("not a string: {value:?}"))
            .text
    }

    #[test]
    fn f_string_over_a_dict_entry_maps_back_into_the_entry() {
        let source = "RULES = {\"valid_price\": \"price IS NOT NULL AND price > 0\"}\nX = f\"NOT ({RULES['valid_price']})\"\n";
        let (module, value) = eval_last(source);
        assert_eq!(text(&value), "NOT (price IS NOT NULL AND price > 0)");
        let s = value.as_str().unwrap();
        let at = s.text.find("price > 0").unwrap();
        let span = s.source_span(at..at + 9).unwrap();
        assert_eq!(&module.source[span.clone()], "price > 0");
        assert!(
            span.end < source.find('\n').unwrap(),
            "points into the dict entry"
        );
        let not = s.source_span(0..3).unwrap();
        assert_eq!(&module.source[not], "NOT");
    }

    #[test]
    fn join_format_and_comprehensions() {
        let (_, v) = eval_last(
            "R = {'a': 'x > 0', 'b': 'y = 1'}\nX = \"NOT({0})\".format(\" AND \".join(R.values()))\n",
        );
        assert_eq!(text(&v), "NOT(x > 0 AND y = 1)");
        let (_, v) =
            eval_last("R = {'a': 'x > 0'}\nX = {k: f\"NOT ({v})\" for k, v in R.items()}\n");
        assert_eq!(v.get("a").map(text), Some("NOT (x > 0)"));
        let (_, v) = eval_last("A = 'x'\nX = A + ' > ' 'y'\n");
        assert_eq!(text(&v), "x > y");
        let (_, v) = eval_last("R = {}\nR['k'] = 'a\\'b'\nX = R['k']\n");
        assert_eq!(text(&v), "a'b");
        // A comment between entries is no `**` expansion.
        let (_, v) = eval_last("X = {\n  'a': 'x > 0',  # reviewed\n  # next\n  'b': 'y',\n}\n");
        assert_eq!(v.get("b").map(text), Some("y"));
    }

    #[test]
    fn unknown_values_say_why() {
        let (_, v) = eval_last("X = get_rules('silver')\n");
        let Value::Unknown { reason, .. } = v else {
            panic!("{v:?}")
        };
        assert!(reason.contains("get_rules"), "{reason}");
        let (_, v) = eval_last("X = f'{spark.conf.get(\"k\")} > 0'\n");
        assert!(matches!(v, Value::Unknown { .. }));
        let (_, v) = eval_last("X = RULES['missing']\n");
        assert!(matches!(v, Value::Unknown { .. }));
    }

    #[test]
    fn duplicate_keys_are_kept_and_the_last_wins() {
        let (_, v) = eval_last("X = {'a': '1', 'a': '2'}\n");
        let Value::Dict(entries) = &v else { panic!() };
        assert_eq!(entries.len(), 2);
        assert_eq!(v.get("a").map(text), Some("2"));
    }
}
