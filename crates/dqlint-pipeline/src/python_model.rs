//! The Python pipeline reader: a Lakeflow Declarative Pipelines (DLT)
//! module read into a [`PipelineFile`], the same shape the SQL reader
//! yields.
//!
//! Datasets are the functions decorated with the pipeline module's
//! `table`, `materialized_view`, `temporary_view` or legacy `view`;
//! expectations are the `expect*` decorators below them; flows, AUTO CDC
//! calls and declared streaming tables are calls anywhere in the module.
//! Arguments are evaluated with [`Evaluator`] (module-level names, names
//! imported from another module of the project, a `for` over a literal
//! list); what it cannot evaluate stays [`Constraint::Unknown`] with its
//! reason. DataFrame expressions (reads, filters, select lists) are read
//! in `python_frame`, AUTO CDC in `python_cdc`.
//!
//! The module is never imported or run. Syntax errors are reported and the
//! rest is read; in a notebook export a cell that does not parse is left
//! out so that it cannot swallow the cells after it.

use std::cell::RefCell;
use std::collections::{HashMap, HashSet};
use std::ops::Range;
use std::rc::Rc;
use std::sync::Arc;

use crate::python::{Field, KindName};
use tree_sitter::Node;

use crate::eval::{Defined, Evaluated, Evaluator, Value};
use crate::model::{
    ApiMisuse, Dataset, DatasetKind, ExpectAction, Flow, LegacyUse, Misplacement, Named,
    PipelineFile,
};
use crate::python::{Discovery, PythonModule};

/// The expectation APIs of the pipeline module (the decorators that
/// declare expectations).
pub const EXPECTATION_APIS: &[&str] = &[
    "expect",
    "expect_or_drop",
    "expect_or_fail",
    "expect_all",
    "expect_all_or_drop",
    "expect_all_or_fail",
];

/// Items of one `for` over a literal list that are read, at most; a longer
/// list is read for its first items only.
const MAX_LOOP_ITEMS: usize = 64;
/// `for` loops expanded inside one another, at most.
const MAX_LOOP_NESTING: usize = 3;

/// Local bindings while reading (loop variables of a `for` over a literal list).
pub(crate) type Locals = Rc<HashMap<String, Value>>;

/// Reads a Python pipeline source. `imports` gives the source of another
/// module of the same project by its name as written (`rules`,
/// `conf.rules`, `.rules`),
/// for the names this module imports from it (one level: that module's own
/// imports are not followed). Never fails: what cannot be read is in
/// [`PipelineFile::syntax_errors`] or an unknown value.
pub fn read(source: &str, imports: &dyn Fn(&str) -> Option<String>) -> PipelineFile {
    let parsed = PythonModule::parse(source);
    let errors = parsed.syntax_errors();
    let module = match notebook_without_broken_cells(&parsed, &errors) {
        Some(clean) => PythonModule::parse(clean),
        None => parsed,
    };
    let mut file = PipelineFile {
        syntax_errors: errors.into_iter().map(|e| (e.span, e.message)).collect(),
        ..PipelineFile::default()
    };
    let discovery = module.discover();
    let imported = imported_values(&module, imports);
    let evaluator = Evaluator::with_imports(&module, imported);
    let mut reader = Reader::new(&module, &evaluator, discovery, &mut file);
    reader.read_module();
    file
}

/// A notebook export whose cells with syntax errors are blanked (same
/// length, newlines kept, so every span still holds), or `None` when
/// nothing needs blanking.
fn notebook_without_broken_cells(
    module: &PythonModule,
    errors: &[crate::python::SyntaxError],
) -> Option<String> {
    if errors.is_empty() || !module.source.starts_with("# Databricks notebook source") {
        return None;
    }
    let source = &module.source;
    let mut cells: Vec<Range<usize>> = Vec::new();
    let mut start = 0;
    let mut at = 0;
    for line in source.split_inclusive('\n') {
        if line.trim() == "# COMMAND ----------" {
            cells.push(start..at);
            start = at + line.len();
        }
        at += line.len();
    }
    cells.push(start..source.len());
    let mut out = source.clone().into_bytes();
    let mut blanked = false;
    for cell in cells {
        if errors
            .iter()
            .any(|e| cell.contains(&e.span.start) || (e.span.start == cell.end && !cell.is_empty()))
        {
            for b in &mut out[cell] {
                // Bytes of a multi-byte character become spaces one by one:
                // the text stays valid UTF-8 and keeps its length.
                if *b != b'\n' {
                    *b = b' ';
                }
            }
            blanked = true;
        }
    }
    blanked.then(|| String::from_utf8(out).unwrap_or_default())
}

/// Names imported from other modules of the project, evaluated there and
/// mapped onto the imported name in this file (the other file's bytes are
/// not this file's), each string byte keeping where that module wrote it.
/// `imports` is [`read`]'s; [`Evaluator::with_imports`] takes the result.
pub fn imported_values(
    module: &PythonModule,
    imports: &dyn Fn(&str) -> Option<String>,
) -> HashMap<String, Value> {
    let mut out = HashMap::new();
    let root = module.tree.root_node();
    let mut cursor = root.walk();
    let mut parsed: HashMap<String, Option<PythonModule>> = HashMap::new();
    let project_module = |name: &str| {
        !(name.is_empty()
            || name == "dlt"
            || name == "pyspark"
            || name.starts_with("pyspark.")
            || name.starts_with("databricks."))
    };
    for statement in root.children(&mut cursor) {
        if statement.kind_name() == "import_statement" {
            // `import conf.rules as r`: its names as `r.NAME`.
            let mut c = statement.walk();
            for imported in statement.children_by_field_name("name", &mut c) {
                let (dotted, alias) = match imported.kind_name() {
                    "aliased_import" => (imported.field("name"), imported.field("alias")),
                    _ => (Some(imported), Some(imported)),
                };
                let (Some(dotted), Some(alias)) = (dotted, alias) else {
                    continue;
                };
                let name = module.text(dotted).to_string();
                if !project_module(&name) {
                    continue;
                }
                let other = parsed
                    .entry(name.clone())
                    .or_insert_with(|| imports(&name).map(PythonModule::parse));
                let Some(other) = other.as_ref() else {
                    continue;
                };
                let evaluator = Evaluator::new(other);
                let prefix = module.text(alias);
                for (binding, value) in evaluator.bindings() {
                    let value = remap(value, alias.byte_range(), &name);
                    out.insert(format!("{prefix}.{binding}"), value);
                }
            }
            continue;
        }
        if statement.kind_name() != "import_from_statement" {
            continue;
        }
        let Some(from) = statement.field("module_name") else {
            continue;
        };
        // As written: the caller resolves a relative import (`.rules`).
        let name = module.text(from).to_string();
        if !project_module(name.trim_start_matches('.')) {
            continue;
        }
        let other = parsed
            .entry(name.clone())
            .or_insert_with(|| imports(&name).map(PythonModule::parse));
        let Some(other) = other.as_ref() else {
            continue;
        };
        let evaluator = Evaluator::new(other);
        let mut w = statement.walk();
        if let Some(star) = statement
            .children(&mut w)
            .find(|n| n.kind_name() == "wildcard_import")
        {
            for (binding, value) in evaluator.bindings() {
                out.insert(binding.to_string(), remap(value, star.byte_range(), &name));
            }
            continue;
        }
        let mut c = statement.walk();
        for imported in statement.children_by_field_name("name", &mut c) {
            let (original, local) = match imported.kind_name() {
                "aliased_import" => (imported.field("name"), imported.field("alias")),
                _ => (Some(imported), Some(imported)),
            };
            let (Some(original), Some(local)) = (original, local) else {
                continue;
            };
            let Some(value) = evaluator.lookup(module.text(original)) else {
                continue;
            };
            let value = remap(value, local.byte_range(), &name);
            out.insert(module.text(local).to_string(), value);
        }
    }
    out
}

/// A value of another module, its source map pointing at `to` (the name in
/// this file's import), spread over it in order; where the module wrote
/// each byte is kept beside it ([`Evaluated::definition`]).
fn remap(value: &Value, to: Range<usize>, module: &str) -> Value {
    remap_from(value, to, &Arc::from(module))
}

fn remap_from(value: &Value, to: Range<usize>, module: &Arc<str>) -> Value {
    match value {
        Value::Str(s) => {
            // First byte to the name's first, last to its last.
            let last = to.len().saturating_sub(1);
            let steps = s.text.len().saturating_sub(1).max(1);
            Value::Str(Evaluated {
                text: s.text.clone(),
                origin: (0..s.text.len())
                    .map(|k| Some(to.start + k * last / steps))
                    .collect(),
                defined: s
                    .origin
                    .iter()
                    .map(|at| {
                        at.map(|offset| Defined {
                            module: module.clone(),
                            offset,
                        })
                    })
                    .collect(),
            })
        }
        Value::Dict(entries) => Value::Dict(
            entries
                .iter()
                .map(|(k, v)| {
                    (
                        remap_from(k, to.clone(), module),
                        remap_from(v, to.clone(), module),
                    )
                })
                .collect(),
        ),
        Value::List(items) => Value::List(
            items
                .iter()
                .map(|v| remap_from(v, to.clone(), module))
                .collect(),
        ),
        Value::Int(i) => Value::Int(*i),
        Value::Unknown { reason, .. } => Value::Unknown {
            span: to,
            reason: format!("in module `{module}`: {reason}"),
        },
    }
}

/// What a decorator is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum DecoratorKind {
    /// `table`, `materialized_view`, `temporary_view`, `view`.
    Dataset(&'static str),
    Expect {
        action: ExpectAction,
        all: bool,
    },
    UnknownExpect,
    AppendFlow,
    Other,
}

pub(crate) struct Decorator<'m> {
    pub node: Node<'m>,
    kind: DecoratorKind,
    /// The callee (`dp.table`), without the call.
    pub callee: Node<'m>,
    /// The call, when the decorator is called (`@dp.table(...)`).
    pub call: Option<Node<'m>>,
    pub api: String,
}

/// The arguments of a call, as written.
pub(crate) struct Args<'m> {
    pub positional: Vec<Node<'m>>,
    pub keywords: Vec<(&'m str, Node<'m>, Node<'m>)>,
    /// `*args` or `**kwargs`: the arguments cannot be counted.
    pub splat: bool,
    /// The argument list node (`(...)`).
    pub list: Option<Node<'m>>,
}

impl<'m> Args<'m> {
    pub fn keyword(&self, name: &str) -> Option<Node<'m>> {
        self.keywords
            .iter()
            .rev()
            .find(|(k, _, _)| *k == name)
            .map(|(_, _, v)| *v)
    }

    /// The keyword argument `name`, else the positional one at `index`.
    pub fn get(&self, name: &str, index: usize) -> Option<Node<'m>> {
        self.keyword(name)
            .or_else(|| self.positional.get(index).copied())
    }
}

pub(crate) struct Reader<'m, 'f> {
    pub module: &'m PythonModule,
    pub eval: &'m Evaluator<'m>,
    pub discovery: Discovery,
    pub file: &'f mut PipelineFile,
    /// Top-level assignments by name, in file order (their right-hand sides).
    pub module_bindings: HashMap<&'m str, Vec<(Node<'m>, Node<'m>)>>,
    /// Top-level undecorated functions by name.
    pub helpers: HashMap<&'m str, Node<'m>>,
    /// Dict literals whose duplicate keys are already reported.
    pub checked_dicts: HashSet<usize>,
    /// Every function definition of the module, outer before inner: the
    /// scopes a name is looked up in (tree-sitter finds a node's parent by
    /// descending from the root, too slow to climb for every name).
    functions: Vec<Node<'m>>,
    /// The assignments of each function body read so far, by body node.
    assignments: RefCell<HashMap<usize, Rc<Vec<Node<'m>>>>>,
}

impl<'m, 'f> Reader<'m, 'f> {
    fn new(
        module: &'m PythonModule,
        eval: &'m Evaluator<'m>,
        discovery: Discovery,
        file: &'f mut PipelineFile,
    ) -> Self {
        let mut module_bindings: HashMap<&'m str, Vec<(Node<'m>, Node<'m>)>> = HashMap::new();
        let mut helpers = HashMap::new();
        let root = module.tree.root_node();
        let mut cursor = root.walk();
        for statement in root.children(&mut cursor) {
            match statement.kind_name() {
                "expression_statement" => {
                    let Some(assignment) = statement.named_child(0) else {
                        continue;
                    };
                    if assignment.kind_name() != "assignment" {
                        continue;
                    }
                    let (Some(left), Some(right)) =
                        (assignment.field("left"), assignment.field("right"))
                    else {
                        continue;
                    };
                    if left.kind_name() == "identifier" {
                        module_bindings
                            .entry(module.text(left))
                            .or_default()
                            .push((assignment, right));
                    }
                }
                "function_definition" => {
                    if let Some(name) = statement.field("name") {
                        helpers.insert(module.text(name), statement);
                    }
                }
                _ => {}
            }
        }
        Reader {
            module,
            eval,
            discovery,
            file,
            module_bindings,
            helpers,
            checked_dicts: HashSet::new(),
            functions: function_definitions(root),
            assignments: RefCell::new(HashMap::new()),
        }
    }

    /// The functions around `node`, innermost first.
    pub(crate) fn enclosing_functions(&self, node: Node) -> Vec<Node<'m>> {
        self.functions
            .iter()
            .rev()
            .filter(|f| {
                f.id() != node.id()
                    && f.start_byte() <= node.start_byte()
                    && node.end_byte() <= f.end_byte()
            })
            .copied()
            .collect()
    }

    /// The nearest function around `node`.
    pub(crate) fn enclosing_function(&self, node: Node) -> Option<Node<'m>> {
        self.enclosing_functions(node).into_iter().next()
    }

    /// The assignments of a function body in file order, not those of
    /// functions or classes nested in it (read once per body).
    pub(crate) fn local_assignments(&self, body: Node<'m>) -> Rc<Vec<Node<'m>>> {
        self.assignments
            .borrow_mut()
            .entry(body.id())
            .or_insert_with(|| Rc::new(local_assignments(body)))
            .clone()
    }

    pub fn text(&self, node: Node) -> &'m str {
        &self.module.source[node.byte_range()]
    }

    /// A string literal that is no f-string (nothing in it is a name).
    pub(crate) fn is_plain_string(&self, node: Node) -> bool {
        crate::eval::is_plain_string(&self.module.source, node)
    }

    /// An expression that holds no call: a string literal that is no
    /// f-string, or an expression that parsed without errors and has no
    /// `(` in its text (a call's arguments always open with one). What the
    /// module walk looks for inside an expression is a call: statements,
    /// definitions and assignments are never inside one.
    fn holds_no_call(&self, node: Node) -> bool {
        match node.kind_name() {
            "string" => self.is_plain_string(node),
            "attribute"
            | "subscript"
            | "keyword_argument"
            | "pair"
            | "dictionary"
            | "list"
            | "tuple"
            | "set"
            | "binary_operator"
            | "boolean_operator"
            | "comparison_operator"
            | "not_operator"
            | "unary_operator"
            | "parenthesized_expression"
            | "conditional_expression"
            | "concatenated_string"
            | "expression_list" => !node.has_error() && !self.text(node).contains('('),
            _ => false,
        }
    }

    /// The pipeline API a callee names (`dp.table` -> `table`).
    pub fn api(&self, callee: Node) -> Option<String> {
        match callee.kind_name() {
            "identifier" | "attribute" => self.discovery.api_name(self.text(callee)),
            _ => None,
        }
    }

    pub fn args(&self, call: Node<'m>) -> Args<'m> {
        let mut args = Args {
            positional: Vec::new(),
            keywords: Vec::new(),
            splat: false,
            list: None,
        };
        let Some(list) = call.field("arguments") else {
            return args;
        };
        args.list = Some(list);
        for arg in crate::python::children_of(list, true) {
            match arg.kind_name() {
                "comment" => {}
                "keyword_argument" => {
                    if let (Some(name), Some(value)) = (arg.field("name"), arg.field("value")) {
                        args.keywords.push((self.text(name), name, value));
                    }
                }
                "list_splat" | "dictionary_splat" => args.splat = true,
                _ => args.positional.push(arg),
            }
        }
        args
    }

    /// Evaluate `node` with the loop variables and the local bindings of
    /// the function it is in.
    pub fn value(&self, node: Node<'m>, locals: &Locals) -> Value {
        // Most arguments are string literals: no names, so no scope to build.
        if self.is_plain_string(node) {
            return self.eval.eval(node);
        }
        let scope = self.locals_at(node, locals);
        self.eval.eval_with(node, &scope)
    }

    /// A string argument as a [`Named`]: its text, at its content.
    pub fn named(&self, node: Node<'m>, locals: &Locals) -> Option<Named> {
        match self.value(node, locals) {
            Value::Str(s) => Some(Named {
                span: s
                    .source_span(0..s.text.len())
                    .unwrap_or_else(|| node.byte_range()),
                name: s.text,
            }),
            _ => None,
        }
    }

    fn read_module(&mut self) {
        let root = self.module.tree.root_node();
        let mut stack: Vec<(Node<'m>, Locals, usize)> = vec![(root, Rc::new(HashMap::new()), 0)];
        // One cursor for the whole walk: a cursor per node was a tenth of
        // the walk.
        let mut cursor = root.walk();
        let mut children = Vec::new();
        while let Some((node, locals, loops)) = stack.pop() {
            let mut visit_children = true;
            match node.kind_name() {
                "import_statement" | "import_from_statement" => self.legacy_import(node),
                "decorated_definition" => self.decorated(node, &locals),
                "call" => self.call(node, &locals),
                "assignment" => self.udf_assignment(node),
                "for_statement" if loops < MAX_LOOP_NESTING => {
                    if let Some(expanded) = self.literal_loop(node, &locals) {
                        visit_children = false;
                        let body = node.field("body");
                        for scope in expanded.into_iter().rev() {
                            if let Some(body) = body {
                                stack.push((body, scope, loops + 1));
                            }
                        }
                    }
                }
                _ => {}
            }
            if visit_children {
                // Children pop in source order. Leaves (names, numbers,
                // punctuation and keywords) hold nothing the walk looks
                // for, nor does an expression without a call in it.
                children.clear();
                crate::python::append_children(node, false, &mut cursor, &mut children);
                stack.extend(
                    children
                        .iter()
                        .rev()
                        .filter(|child| child.child_count() > 0 && !self.holds_no_call(**child))
                        .map(|child| (*child, locals.clone(), loops)),
                );
            }
        }
    }

    /// `for x in [literal list]:` (or `for k, v in D.items():`): one scope
    /// per item, or `None` when the iterable is not known.
    fn literal_loop(&self, node: Node<'m>, locals: &Locals) -> Option<Vec<Locals>> {
        let target = node.field("left")?;
        let iterable = node.field("right")?;
        let Value::List(items) = self.value(iterable, locals) else {
            return None;
        };
        let names: Vec<&str> = match target.kind_name() {
            "identifier" => vec![self.text(target)],
            "pattern_list" | "tuple_pattern" => {
                let mut c = target.walk();
                target
                    .named_children(&mut c)
                    .map(|n| self.text(n))
                    .collect()
            }
            _ => return None,
        };
        let mut scopes = Vec::new();
        for item in items.into_iter().take(MAX_LOOP_ITEMS) {
            let mut scope = (**locals).clone();
            if let [name] = names.as_slice() {
                scope.insert(name.to_string(), item);
            } else {
                let Value::List(parts) = item else {
                    return None;
                };
                if parts.len() != names.len() {
                    return None;
                }
                for (name, part) in names.iter().zip(parts) {
                    scope.insert(name.to_string(), part);
                }
            }
            scopes.push(Rc::new(scope));
        }
        Some(scopes)
    }

    fn legacy_import(&mut self, node: Node<'m>) {
        let legacy = match node.kind_name() {
            "import_statement" => {
                let mut c = node.walk();
                let names: Vec<Node> = node.children_by_field_name("name", &mut c).collect();
                names.iter().any(|n| {
                    let module = match n.kind_name() {
                        "aliased_import" => n.field("name"),
                        _ => Some(*n),
                    };
                    module.is_some_and(|m| self.text(m) == "dlt")
                })
            }
            _ => node
                .field("module_name")
                .is_some_and(|m| self.text(m) == "dlt"),
        };
        if legacy {
            let written = if node.kind_name() == "import_statement" {
                "import dlt"
            } else {
                "from dlt import"
            };
            self.file.legacy.push(LegacyUse {
                span: node.byte_range(),
                written: written.to_string(),
                replacement: "from pyspark import pipelines as dp".to_string(),
            });
        }
    }

    fn decorator(&self, node: Node<'m>) -> Option<Decorator<'m>> {
        let mut c = node.walk();
        let expression = node
            .named_children(&mut c)
            .find(|n| n.kind_name() != "comment")?;
        let (callee, call) = if expression.kind_name() == "call" {
            (expression.field("function")?, Some(expression))
        } else {
            (expression, None)
        };
        let api = self.api(callee).unwrap_or_default();
        let kind = match api.as_str() {
            "table" => DecoratorKind::Dataset("table"),
            "materialized_view" => DecoratorKind::Dataset("materialized_view"),
            "temporary_view" => DecoratorKind::Dataset("temporary_view"),
            "view" => DecoratorKind::Dataset("view"),
            // The first DLT release's names for `table` and `view`.
            "create_table" => DecoratorKind::Dataset("create_table"),
            "create_view" => DecoratorKind::Dataset("create_view"),
            "append_flow" => DecoratorKind::AppendFlow,
            "expect" => DecoratorKind::Expect {
                action: ExpectAction::Warn,
                all: false,
            },
            "expect_or_drop" => DecoratorKind::Expect {
                action: ExpectAction::Drop,
                all: false,
            },
            "expect_or_fail" => DecoratorKind::Expect {
                action: ExpectAction::Fail,
                all: false,
            },
            "expect_all" => DecoratorKind::Expect {
                action: ExpectAction::Warn,
                all: true,
            },
            "expect_all_or_drop" => DecoratorKind::Expect {
                action: ExpectAction::Drop,
                all: true,
            },
            "expect_all_or_fail" => DecoratorKind::Expect {
                action: ExpectAction::Fail,
                all: true,
            },
            other if other.starts_with("expect") => DecoratorKind::UnknownExpect,
            _ => DecoratorKind::Other,
        };
        Some(Decorator {
            node,
            kind,
            callee,
            call,
            api,
        })
    }

    fn decorated(&mut self, node: Node<'m>, locals: &Locals) {
        let Some(function) = node.field("definition") else {
            return;
        };
        if function.kind_name() != "function_definition" {
            return;
        }
        let mut c = node.walk();
        let decorators: Vec<Decorator<'m>> = node
            .children(&mut c)
            .filter(|n| n.kind_name() == "decorator")
            .filter_map(|n| self.decorator(n))
            .collect();
        self.udf_decorators(function, &decorators);
        let dataset_at = decorators
            .iter()
            .position(|d| matches!(d.kind, DecoratorKind::Dataset(_)));
        let flow_at = decorators
            .iter()
            .position(|d| d.kind == DecoratorKind::AppendFlow);
        let mut expectations = Vec::new();
        for (i, decorator) in decorators.iter().enumerate() {
            match decorator.kind {
                DecoratorKind::UnknownExpect => {
                    let attribute = decorator
                        .callee
                        .field("attribute")
                        .unwrap_or(decorator.callee);
                    self.file.api_misuses.push(ApiMisuse::UnknownExpectation {
                        written: Named {
                            name: decorator.api.clone(),
                            span: attribute.byte_range(),
                        },
                    });
                }
                DecoratorKind::Expect { action, all } => {
                    let read = self.expectations(decorator, action, all, locals);
                    let misplaced = match (dataset_at, flow_at) {
                        (Some(d), _) if i > d => None,
                        (Some(d), _) => Some((
                            Misplacement::AboveDataset,
                            Some(line_after(
                                &self.module.source,
                                decorators[d].node.end_byte(),
                            )),
                        )),
                        (None, Some(_)) => Some((Misplacement::OnAppendFlow, None)),
                        (None, None) => Some((Misplacement::NoDataset, None)),
                    };
                    match misplaced {
                        None => expectations.extend(read),
                        Some((why, belongs_at)) => {
                            self.file.api_misuses.push(ApiMisuse::MisplacedExpectation {
                                decorator: decorator.node.byte_range(),
                                why,
                                belongs_at,
                            })
                        }
                    }
                }
                DecoratorKind::Dataset(api @ ("view" | "create_view" | "create_table")) => {
                    self.file.legacy.push(LegacyUse {
                        span: decorator.node.start_byte()..decorator.callee.end_byte(),
                        written: format!("@{}", self.text(decorator.callee)),
                        replacement: if api == "create_table" {
                            "@dp.table".to_string()
                        } else {
                            "@dp.temporary_view".to_string()
                        },
                    })
                }
                _ => {}
            }
        }
        if let Some(d) = dataset_at {
            let decorator = &decorators[d];
            let DecoratorKind::Dataset(api) = decorator.kind else {
                return;
            };
            let args = decorator.call.map(|c| self.args(c));
            let name = self.dataset_name(function, args.as_ref(), locals);
            let facts = self.function_frame(function, locals);
            let kind = match api {
                "materialized_view" => DatasetKind::MaterializedView,
                "temporary_view" | "view" | "create_view" => DatasetKind::View,
                _ if facts.streaming => DatasetKind::StreamingTable,
                _ if facts.batch => DatasetKind::MaterializedView,
                _ => DatasetKind::Table,
            };
            let table_properties = args
                .as_ref()
                .and_then(|a| a.keyword("table_properties"))
                .map(|p| self.properties(p, locals))
                .unwrap_or_default();
            self.file.datasets.push(Dataset {
                name,
                kind,
                span: node.byte_range(),
                table_properties,
                reads: facts.reads,
                row_filters: facts.row_filters,
                select_list: facts.select_list,
                computed_columns: facts.computed_columns,
                grouping: facts.grouping,
                expectations,
            });
        } else if let Some(f) = flow_at {
            let decorator = &decorators[f];
            let args = decorator.call.map(|c| self.args(c));
            let target = args
                .as_ref()
                .and_then(|a| a.get("target", 0))
                .map(|t| self.name_or_text(t, locals));
            let name = args
                .as_ref()
                .and_then(|a| a.keyword("name"))
                .map(|n| self.name_or_text(n, locals))
                .or_else(|| self.function_name(function));
            let facts = self.function_frame(function, locals);
            self.file.flows.push(Flow {
                name,
                target,
                span: node.byte_range(),
                reads: facts.reads,
                select_list: facts.select_list,
            });
        }
    }

    fn function_name(&self, function: Node<'m>) -> Option<Named> {
        function.field("name").map(|n| Named {
            name: self.text(n).to_string(),
            span: n.byte_range(),
        })
    }

    /// A name argument: its value, or (not known) the expression as written,
    /// which names no other dataset.
    pub fn name_or_text(&self, node: Node<'m>, locals: &Locals) -> Named {
        self.named(node, locals).unwrap_or_else(|| Named {
            name: self.text(node).to_string(),
            span: node.byte_range(),
        })
    }

    fn dataset_name(&self, function: Node<'m>, args: Option<&Args<'m>>, locals: &Locals) -> Named {
        if let Some(name) = args.and_then(|a| a.keyword("name")) {
            return self.name_or_text(name, locals);
        }
        self.function_name(function).unwrap_or_else(|| Named {
            name: String::new(),
            span: function.byte_range(),
        })
    }

    /// `table_properties={...}`: the entries whose key and value are known.
    fn properties(&self, node: Node<'m>, locals: &Locals) -> Vec<(String, String)> {
        let scalar = |n: Node<'m>| -> Option<String> {
            match n.kind_name() {
                "true" => Some("true".to_string()),
                "false" => Some("false".to_string()),
                "integer" | "float" => Some(self.text(n).to_string()),
                _ => match self.value(n, locals) {
                    Value::Str(s) => Some(s.text),
                    _ => None,
                },
            }
        };
        if node.kind_name() == "dictionary" {
            let mut c = node.walk();
            return node
                .named_children(&mut c)
                .filter(|p| p.kind_name() == "pair")
                .filter_map(|p| Some((scalar(p.field("key")?)?, scalar(p.field("value")?)?)))
                .collect();
        }
        match self.value(node, locals) {
            Value::Dict(entries) => entries
                .into_iter()
                .filter_map(|(k, v)| match (k, v) {
                    (Value::Str(k), Value::Str(v)) => Some((k.text, v.text)),
                    (Value::Str(k), Value::Int(i)) => Some((k.text, i.to_string())),
                    _ => None,
                })
                .collect(),
            _ => Vec::new(),
        }
    }

    /// `@udf`, `@F.udf(...)`, `@pandas_udf(...)` on a function.
    fn udf_decorators(&mut self, function: Node<'m>, decorators: &[Decorator<'m>]) {
        if decorators
            .iter()
            .any(|d| is_udf_callee(self.text(d.callee)))
        {
            if let Some(name) = self.function_name(function) {
                self.file.python_udfs.push(name);
            }
        }
    }

    /// `name = F.udf(...)` / `name = pandas_udf(...)`.
    fn udf_assignment(&mut self, node: Node<'m>) {
        let (Some(left), Some(right)) = (node.field("left"), node.field("right")) else {
            return;
        };
        if left.kind_name() != "identifier" || right.kind_name() != "call" {
            return;
        }
        let Some(function) = right.field("function") else {
            return;
        };
        if is_udf_callee(self.text(function)) {
            self.file.python_udfs.push(Named {
                name: self.text(left).to_string(),
                span: left.byte_range(),
            });
        }
    }

    /// Calls of the pipeline API outside decorators, and UDF registration.
    fn call(&mut self, node: Node<'m>, locals: &Locals) {
        let Some(function) = node.field("function") else {
            return;
        };
        let callee = self.text(function);
        if callee.ends_with("udf.register") {
            let args = self.args(node);
            if let Some(name) = args.get("name", 0).and_then(|n| self.named(n, locals)) {
                self.file.python_udfs.push(name);
            }
            return;
        }
        let Some(api) = self.api(function) else {
            return;
        };
        let legacy = |written: &str, replacement: &str| LegacyUse {
            span: function.byte_range(),
            written: written.to_string(),
            replacement: replacement.to_string(),
        };
        match api.as_str() {
            "create_streaming_table" | "create_streaming_live_table" | "create_target_table" => {
                if api != "create_streaming_table" {
                    self.file
                        .legacy
                        .push(legacy(callee, "dp.create_streaming_table"));
                }
                let args = self.args(node);
                if let Some(name) = args.get("name", 0) {
                    let name = self.name_or_text(name, locals);
                    self.file.declared_targets.push(name.clone());
                    self.declared_table(node, name, &args, locals);
                }
            }
            "create_auto_cdc_flow" => self.auto_cdc(node, false, locals),
            "apply_changes" => {
                self.file
                    .legacy
                    .push(legacy(callee, "dp.create_auto_cdc_flow"));
                self.auto_cdc(node, true, locals);
            }
            "apply_changes_from_snapshot" => self
                .file
                .legacy
                .push(legacy(callee, "dp.create_auto_cdc_from_snapshot_flow")),
            _ => {}
        }
    }

    /// A streaming table declared without a query (as `CREATE STREAMING
    /// TABLE t (CONSTRAINT ...)` in SQL): a dataset with no reads, and the
    /// rules of its `expect_all*` arguments.
    fn declared_table(&mut self, call: Node<'m>, name: Named, args: &Args<'m>, locals: &Locals) {
        let mut expectations = Vec::new();
        for (api, key, rules) in &args.keywords {
            let action = match *api {
                "expect_all" => ExpectAction::Warn,
                "expect_all_or_drop" => ExpectAction::Drop,
                "expect_all_or_fail" => ExpectAction::Fail,
                _ => continue,
            };
            let origin = key.start_byte()..rules.end_byte();
            expectations.extend(self.dict_expectations(api, origin, *rules, action, locals));
        }
        let table_properties = args
            .keyword("table_properties")
            .map(|p| self.properties(p, locals))
            .unwrap_or_default();
        self.file.datasets.push(Dataset {
            name,
            kind: DatasetKind::StreamingTable,
            span: call.byte_range(),
            table_properties,
            reads: Vec::new(),
            row_filters: Vec::new(),
            select_list: None,
            computed_columns: Vec::new(),
            grouping: None,
            expectations,
        });
    }

    /// The bindings in scope at `node`: the loop variables, then the
    /// parameters (unknown) and earlier assignments of the function it is in.
    pub fn locals_at(&self, node: Node<'m>, locals: &Locals) -> HashMap<String, Value> {
        let mut scope = (**locals).clone();
        // Outermost first: an inner function sees its enclosing ones' names.
        for function in self.enclosing_functions(node).into_iter().rev() {
            self.bind_function(function, node, &mut scope);
        }
        scope
    }

    fn bind_function(
        &self,
        function: Node<'m>,
        node: Node<'m>,
        scope: &mut HashMap<String, Value>,
    ) {
        if let Some(parameters) = function.field("parameters") {
            let mut c = parameters.walk();
            for p in parameters.named_children(&mut c) {
                let name = match p.kind_name() {
                    "identifier" => Some(p),
                    "default_parameter" | "typed_default_parameter" => p.field("name"),
                    "typed_parameter" => p.named_child(0),
                    _ => None,
                };
                if let Some(name) = name {
                    let text = self.text(name);
                    scope.insert(
                        text.to_string(),
                        Value::Unknown {
                            span: name.byte_range(),
                            reason: format!("`{text}` is a parameter of the function"),
                        },
                    );
                }
            }
        }
        let Some(body) = function.field("body") else {
            return;
        };
        for &assignment in self.local_assignments(body).iter() {
            if assignment.end_byte() > node.start_byte() {
                break;
            }
            let (Some(left), Some(right)) = (assignment.field("left"), assignment.field("right"))
            else {
                continue;
            };
            if left.kind_name() == "identifier" {
                let value = self.eval.eval_with(right, scope);
                scope.insert(self.text(left).to_string(), value);
            }
        }
    }
}

/// Every `function_definition` under `root`, in pre-order (an enclosing
/// function before the ones nested in it).
fn function_definitions(root: Node) -> Vec<Node> {
    let mut out = Vec::new();
    let mut stack = vec![root];
    let mut cursor = root.walk();
    while let Some(n) = stack.pop() {
        match n.kind_name() {
            "function_definition" => out.push(n),
            // A definition is a statement: none is inside these (a lambda
            // is no `function_definition`), and they are most of a tree.
            "expression_statement"
            | "return_statement"
            | "decorator"
            | "parameters"
            | "import_statement"
            | "import_from_statement" => continue,
            _ => {}
        }
        push_named_children(n, &mut cursor, &mut stack);
    }
    out
}

/// Pushes `node`'s named children on a walk's `stack` so that they pop in
/// source order, with the walk's one cursor (no cursor or list per node).
pub(crate) fn push_named_children<'t>(
    node: Node<'t>,
    cursor: &mut tree_sitter::TreeCursor<'t>,
    stack: &mut Vec<Node<'t>>,
) {
    let first = stack.len();
    crate::python::append_children(node, true, cursor, stack);
    stack[first..].reverse();
}

/// The assignments of a function body in file order, not those of
/// functions or classes nested in it.
fn local_assignments(body: Node) -> Vec<Node> {
    let mut out = Vec::new();
    let mut stack = vec![body];
    let mut cursor = body.walk();
    while let Some(n) = stack.pop() {
        match n.kind_name() {
            "function_definition" | "class_definition" | "lambda" => continue,
            "assignment" => out.push(n),
            // An assignment is a statement, or the right-hand side of one
            // (`a = b = 1`): none is inside a `return` or a call.
            "return_statement" | "call" | "attribute" if !n.has_error() => continue,
            _ => {}
        }
        push_named_children(n, &mut cursor, &mut stack);
    }
    out
}

fn is_udf_callee(callee: &str) -> bool {
    let last = callee.rsplit('.').next().unwrap_or(callee);
    last == "udf" || last == "pandas_udf"
}

/// The byte offset of the line after the one holding `at`.
fn line_after(source: &str, at: usize) -> usize {
    let at = at.min(source.len());
    source[at..].find('\n').map_or(source.len(), |i| at + i + 1)
}
