//! DQX's Python API read statically: `DQRowRule(...)`, `DQDatasetRule(...)`
//! and `DQForEachColRule(...)` with literal arguments, turned into the
//! check DQX's own `to_dict()` would write (the metadata a checks file
//! holds), every value at its place in the source, so that the checks-file
//! rules read Python rules unchanged; and `InputConfig` / `OutputConfig` /
//! `RunConfig` and the apply-and-save calls, turned into the run configs
//! `config.yml` declares.
//!
//! Read as DQX 0.17.0 builds them (`rule.py`, `engine.py`): a rule is a
//! pydantic model with keyword fields only (`extra="forbid"`); `column` /
//! `columns` go first among the positional arguments when the function
//! requires them, then `check_func_args`, and as keywords when optional;
//! a `column` the function does not have is dropped. Values the reader
//! cannot know (a variable bound at run time, a call) are
//! [`Kind::Object`] with no class, which every check accepts; `F.col(...)`
//! and the other `pyspark.sql.functions` calls are `Column`s.

use std::collections::HashMap;
use std::ops::Range;

use dqlint_dqx::run_config::Run;
use dqlint_dqx::yaml11::Date;
use dqlint_dqx::{Catalogue, Entry, Kind, PyObject, Typed};
use tree_sitter::Node;

use crate::breaker::{count_bound_with_aliases, CountBound, Sense};
use crate::eval::{Evaluated, Evaluator, Value};
use crate::python::{KindName, PythonModule};

/// Which rule class a check is built with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RuleClass {
    Row,
    Dataset,
    ForEachCol,
}

impl RuleClass {
    pub fn name(self) -> &'static str {
        match self {
            RuleClass::Row => "DQRowRule",
            RuleClass::Dataset => "DQDatasetRule",
            RuleClass::ForEachCol => "DQForEachColRule",
        }
    }
}

/// One rule constructor call.
#[derive(Clone, Debug)]
pub struct ApiCheck {
    pub class: RuleClass,
    /// The constructor's name where it is called (`DQRowRule`).
    pub callee: Range<usize>,
    /// The check as DQX's metadata writes it: `criticality`, `name`,
    /// `filter`, `user_metadata`, `message_expr` and `check:` with
    /// `function`, `arguments` and `for_each_column`, each at its source.
    pub item: Typed,
    /// Keywords no rule field has (pydantic refuses them).
    pub unknown_keywords: Vec<(String, Range<usize>)>,
    /// `column` / `columns` given to a function without that parameter:
    /// DQX drops them without a word.
    pub dropped: Vec<(String, Range<usize>)>,
}

/// How a run config came to be written in Python.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RunSource {
    /// `RunConfig(...)`.
    RunConfig,
    /// An apply-and-save call: the method's name and where it is written.
    Call { method: String, span: Range<usize> },
}

/// A run config of the Python API.
#[derive(Clone, Debug)]
pub struct ApiRun {
    pub run: Run,
    pub source: RunSource,
    /// A call whose keywords are not all known (`**kwargs`): what it
    /// leaves out is not known either.
    pub open: bool,
    /// A call: none of `output_config`, `quarantine_config`,
    /// `metrics_config` is given (or each is `None`).
    pub no_destination: bool,
    /// A call with `checks=` and `checks_location=` both: the key spans.
    pub checks_and_location: Option<(Range<usize>, Range<usize>)>,
    /// An apply-and-save call given neither `checks` nor
    /// `checks_location` (or each `None`).
    pub no_checks_source: bool,
}

/// What a module builds with DQX's Python API.
#[derive(Clone, Debug, Default)]
pub struct DqxApi {
    pub checks: Vec<ApiCheck>,
    pub runs: Vec<ApiRun>,
    /// The source map of every string value (keyed by the value's span):
    /// where each character of an f-string or a concatenation comes from.
    pub strings: Vec<(Range<usize>, Evaluated)>,
    /// Expressions that keep only the rows whose `_errors` is null
    /// (`F.col("_errors").isNull()`, `"_errors IS NULL"`).
    pub errors_filters: Vec<Range<usize>>,
    /// Actions that fail the run (DQX 0.16+, `actions/`): `DQAction(...,
    /// action=FailPipeline(...))` or its metadata dict
    /// `{"action": {"type": "fail_pipeline"}, "condition": ...}`.
    pub fail_actions: Vec<FailAction>,
    /// `DQMetricsObserver(custom_metrics=["<sql> as <alias>"])`: each
    /// alias with its SQL; a condition may name them.
    pub custom_metrics: Vec<(String, String)>,
}

/// An action that fails the run when its condition over the observer's
/// metrics holds (always, without one).
#[derive(Clone, Debug)]
pub struct FailAction {
    /// The `DQAction(...)` call or the metadata dict.
    pub span: Range<usize>,
    /// The condition's value as written, and its evaluated text.
    pub condition: Option<(Range<usize>, Evaluated)>,
    /// The share of error rows the condition lets pass, when it bounds
    /// one count against another (custom metrics read in place).
    pub bound: Option<CountBound>,
}

impl DqxApi {
    /// The source range of bytes `range` of the string value at `span`.
    pub fn string_source(&self, span: &Range<usize>, range: Range<usize>) -> Option<Range<usize>> {
        self.strings
            .iter()
            .find(|(s, _)| s == span)
            .and_then(|(_, e)| e.source_span(range))
    }

    /// Whether a run or call of the module writes a quarantine.
    pub fn has_quarantine(&self) -> bool {
        self.runs.iter().any(|r| r.run.quarantine.is_some())
    }
}

const INPUT_FIELDS: &[&str] = &["location", "format", "is_streaming", "schema", "options"];
const OUTPUT_FIELDS: &[&str] = &[
    "location",
    "format",
    "mode",
    "options",
    "trigger",
    "partition_by",
    "cluster_by",
];
const RUN_FIELDS: &[&str] = &[
    "name",
    "input_config",
    "output_config",
    "quarantine_config",
    "metrics_config",
    "profiler_config",
    "checks_user_requirements",
    "checks_location",
];
/// The engine's methods that write a run's results, each with its
/// parameters in order (DQX 0.17.0's `engine.py`; 0.16.0 has the same
/// without the trailing `use_cached_result`).
const SAVE_METHODS: &[(&str, &[&str])] = &[
    (
        "apply_checks_and_save_in_table",
        &[
            "input_config",
            "output_config",
            "checks",
            "quarantine_config",
            "metrics_config",
            "ref_dfs",
            "checks_location",
            "run_config_name",
            "use_cached_result",
        ],
    ),
    (
        "apply_checks_by_metadata_and_save_in_table",
        &[
            "input_config",
            "output_config",
            "checks",
            "quarantine_config",
            "metrics_config",
            "custom_check_functions",
            "ref_dfs",
            "checks_location",
            "run_config_name",
            "use_cached_result",
        ],
    ),
    (
        "save_results_in_table",
        &[
            "output_df",
            "quarantine_df",
            "observation",
            "output_config",
            "quarantine_config",
            "metrics_config",
            "run_config_name",
            "product_name",
            "assume_user",
            "install_folder",
            "rule_set_fingerprint",
        ],
    ),
    (
        "apply_checks_and_save_in_tables_for_patterns",
        &[
            "patterns",
            "checks_location",
            "exclude_patterns",
            "exclude_matched",
            "run_config_template",
            "max_parallelism",
            "output_table_suffix",
            "quarantine_table_suffix",
        ],
    ),
];

/// The methods that apply checks before saving: they need a source of
/// checks and a destination.
fn applies_checks(method: &str) -> bool {
    matches!(
        method,
        "apply_checks_and_save_in_table" | "apply_checks_by_metadata_and_save_in_table"
    )
}

/// What a save call passes that its run is made of.
const SAVE_RUN_FIELDS: &[&str] = &[
    "input_config",
    "output_config",
    "quarantine_config",
    "metrics_config",
    "checks",
    "checks_location",
];

/// Reads what `module` builds with DQX's API, against `catalogue` (the
/// signatures place positional arguments).
pub fn read(module: &PythonModule, catalogue: &Catalogue) -> DqxApi {
    let mut reader = Reader::new(module, catalogue);
    reader.walk(module.tree.root_node());
    let mut out = reader.out;
    let aliases = out.custom_metrics.clone();
    for action in &mut out.fail_actions {
        action.bound = action
            .condition
            .as_ref()
            .and_then(|(_, text)| count_bound_with_aliases(&text.text, Sense::Fires, &aliases));
    }
    out
}

/// The names a module imports from DQX (and from `pyspark.sql.functions`,
/// which builds the `Column` arguments): what makes a call a DQX rule and
/// a `check_func` a check function, for the reader and for the editor.
#[derive(Clone, Debug, Default)]
pub struct DqxImports {
    /// Local names of DQX's check-function modules (`check_funcs`).
    pub func_modules: Vec<String>,
    /// Names imported from them: local name -> function.
    pub func_names: HashMap<String, String>,
    /// Local names of DQX's classes: local name -> class.
    pub classes: HashMap<String, String>,
    /// Local names of `pyspark.sql.functions` (`F`) and names imported
    /// from it.
    pub spark_functions: Vec<String>,
    pub spark_names: Vec<String>,
}

impl DqxImports {
    /// The imports of `module`'s top-level statements (a notebook's
    /// cells and `if` blocks are not module level).
    pub fn of(module: &PythonModule) -> DqxImports {
        let mut imports = DqxImports::default();
        let root = module.tree.root_node();
        let mut cursor = root.walk();
        for statement in root.children(&mut cursor) {
            imports.read(&module.source, statement);
        }
        imports
    }

    /// Whether the module imports anything of DQX.
    pub fn uses_dqx(&self) -> bool {
        !(self.func_modules.is_empty() && self.func_names.is_empty() && self.classes.is_empty())
    }

    /// Whether `dotted` (an expression's text) names a check-function
    /// module: a local name of one, or its full path.
    pub fn is_funcs_module(&self, dotted: &str) -> bool {
        self.func_modules.iter().any(|m| m == dotted) || is_funcs_module(dotted)
    }

    /// The check function a `check_func` written as `written` names:
    /// `check_funcs.is_not_null`, or a name imported from a check-function
    /// module.
    pub fn check_function<'a>(&'a self, written: &'a str) -> Option<&'a str> {
        match written.rsplit_once('.') {
            Some((module, name)) => self.is_funcs_module(module.trim()).then_some(name.trim()),
            None => self.func_names.get(written.trim()).map(String::as_str),
        }
    }

    /// The DQX class a callee written as `callee` names (`DQRowRule`,
    /// `rule.DQRowRule`).
    pub fn class_of<'a>(&'a self, callee: &'a str) -> Option<&'a str> {
        match callee.rsplit_once('.') {
            None => self.classes.get(callee).map(String::as_str),
            Some((object, attribute)) => (object.starts_with("databricks.labs.dqx")
                || self
                    .classes
                    .contains_key(object.split('.').next().unwrap_or("")))
            .then_some(attribute),
        }
    }

    /// Reads one statement, if it is an import.
    fn read(&mut self, source: &str, statement: Node) {
        let text = |n: Node| &source[n.byte_range()];
        let parts = |name: Node| match name.kind_name() {
            "aliased_import" => (
                name.child_by_field_name("name").map_or("", text),
                name.child_by_field_name("alias").map(text),
            ),
            _ => (text(name), None),
        };
        let mut c = statement.walk();
        let names: Vec<Node> = statement.children_by_field_name("name", &mut c).collect();
        match statement.kind_name() {
            "import_statement" => {
                for name in names {
                    let (module, alias) = parts(name);
                    let local = alias.unwrap_or(module);
                    if is_funcs_module(module) {
                        self.func_modules.push(local.to_string());
                    } else if module == "pyspark.sql.functions" {
                        self.spark_functions.push(local.to_string());
                    }
                }
            }
            "import_from_statement" => {
                let Some(module) = statement.child_by_field_name("module_name") else {
                    return;
                };
                let module = text(module);
                for name in names {
                    let (api, alias) = parts(name);
                    let local = alias.unwrap_or(api).to_string();
                    let full = format!("{module}.{api}");
                    if is_funcs_module(&full) {
                        self.func_modules.push(local);
                    } else if is_funcs_module(module) {
                        self.func_names.insert(local, api.to_string());
                    } else if module.starts_with("databricks.labs.dqx") {
                        self.classes.insert(local, api.to_string());
                    } else if full == "pyspark.sql.functions" {
                        self.spark_functions.push(local);
                    } else if module == "pyspark.sql.functions" {
                        self.spark_names.push(local);
                    }
                }
            }
            _ => {}
        }
    }
}

struct Reader<'m> {
    module: &'m PythonModule,
    catalogue: &'m Catalogue,
    evaluator: Evaluator<'m>,
    /// Module-level `name = value`, in file order.
    bindings: HashMap<&'m str, Vec<Node<'m>>>,
    imports: DqxImports,
    out: DqxApi,
}

impl<'m> Reader<'m> {
    fn new(module: &'m PythonModule, catalogue: &'m Catalogue) -> Reader<'m> {
        let mut reader = Reader {
            module,
            catalogue,
            evaluator: Evaluator::new(module),
            bindings: HashMap::new(),
            imports: DqxImports::default(),
            out: DqxApi::default(),
        };
        reader.scan_module();
        reader
    }

    fn text(&self, node: Node) -> &'m str {
        &self.module.source[node.byte_range()]
    }

    fn scan_module(&mut self) {
        let root = self.module.tree.root_node();
        let mut cursor = root.walk();
        let statements: Vec<Node<'m>> = root.children(&mut cursor).collect();
        for statement in statements {
            self.scan_statement(statement);
        }
    }

    fn scan_statement(&mut self, statement: Node<'m>) {
        match statement.kind_name() {
            "import_statement" | "import_from_statement" => {
                self.imports.read(&self.module.source, statement);
            }
            "expression_statement" => {
                let Some(assignment) = statement.named_child(0) else {
                    return;
                };
                if assignment.kind_name() != "assignment" {
                    return;
                }
                let (Some(left), Some(right)) = (
                    assignment.child_by_field_name("left"),
                    assignment.child_by_field_name("right"),
                ) else {
                    return;
                };
                if left.kind_name() == "identifier" {
                    self.bindings
                        .entry(self.text(left))
                        .or_default()
                        .push(right);
                }
            }
            // A notebook's cells, `if __name__ == ...`: not module level.
            _ => {}
        }
    }

    /// The DQX class a callee names (`DQRowRule`, `rule.DQRowRule`).
    fn class_of(&self, callee: Node) -> Option<&str> {
        matches!(callee.kind_name(), "identifier" | "attribute")
            .then(|| self.imports.class_of(self.text(callee)))
            .flatten()
    }

    fn walk(&mut self, node: Node<'m>) {
        if node.kind_name() == "call" {
            self.call(node);
        } else if node.kind_name() == "dictionary" {
            self.action_metadata(node);
        }
        let mut cursor = node.walk();
        let children: Vec<Node<'m>> = node.named_children(&mut cursor).collect();
        for child in children {
            self.walk(child);
        }
    }

    fn call(&mut self, node: Node<'m>) {
        let Some(callee) = node.child_by_field_name("function") else {
            return;
        };
        match self.class_of(callee) {
            Some("DQRowRule") => return self.rule(node, callee, RuleClass::Row),
            Some("DQDatasetRule") => return self.rule(node, callee, RuleClass::Dataset),
            Some("DQForEachColRule") => return self.rule(node, callee, RuleClass::ForEachCol),
            Some("DQAction") => return self.dq_action(node),
            Some("DQMetricsObserver") => {
                self.observer(node);
                return;
            }
            Some("RunConfig") => {
                if !self.is_template(node) {
                    let item = self.typed(node);
                    if item.as_map().is_some() {
                        self.out.runs.push(ApiRun {
                            run: dqlint_dqx::run_config::run_of(&item),
                            source: RunSource::RunConfig,
                            open: has_splat(node),
                            no_destination: false,
                            checks_and_location: None,
                            no_checks_source: false,
                        });
                    }
                }
                return;
            }
            _ => {}
        }
        if callee.kind_name() == "attribute" {
            let method = callee
                .child_by_field_name("attribute")
                .map_or("", |m| self.text(m));
            if let Some((method, params)) = SAVE_METHODS.iter().find(|(m, _)| *m == method) {
                self.save_call(node, callee, method, params);
            } else if method == "isNull" {
                if let Some(object) = callee.child_by_field_name("object") {
                    if self.names_errors_column(object) {
                        self.out.errors_filters.push(node.byte_range());
                    }
                }
            } else if matches!(method, "filter" | "where") {
                for (_, value) in self.arguments(node).positional {
                    if let Value::Str(s) = self.evaluator.eval(value) {
                        let normal = s.text.split_whitespace().collect::<Vec<_>>().join(" ");
                        if normal.eq_ignore_ascii_case("_errors IS NULL")
                            || normal.eq_ignore_ascii_case("`_errors` IS NULL")
                        {
                            self.out.errors_filters.push(value.byte_range());
                        }
                    }
                }
            }
        }
    }

    /// `DQAction(condition=..., action=FailPipeline(...))`: a fail action
    /// (other actions alert, and do not stop the run).
    fn dq_action(&mut self, node: Node<'m>) {
        let args = self.arguments(node);
        let keyword = |name: &str| {
            args.keywords
                .iter()
                .find(|(k, _, _)| *k == name)
                .map(|(_, _, v)| *v)
        };
        let Some(action) = keyword("action") else {
            return;
        };
        let fails = match action.kind_name() {
            "call" => {
                action
                    .child_by_field_name("function")
                    .and_then(|f| self.class_of(f))
                    == Some("FailPipeline")
            }
            // The metadata form of the action: `{"type": "fail_pipeline"}`.
            _ => self
                .evaluator
                .eval(action)
                .get("type")
                .and_then(Value::as_str)
                .is_some_and(|t| t.text == "fail_pipeline"),
        };
        if !fails {
            return;
        }
        let condition = keyword("condition").and_then(|c| match self.evaluator.eval(c) {
            Value::Str(text) => Some((c.byte_range(), text)),
            _ => None,
        });
        // A condition the reader cannot know is no unconditional action.
        if keyword("condition").is_some_and(|c| self.text(c) != "None") && condition.is_none() {
            return;
        }
        self.out.fail_actions.push(FailAction {
            span: node.byte_range(),
            condition,
            bound: None,
        });
    }

    /// `{"action": {"type": "fail_pipeline", ...}, "condition": "..."}`.
    fn action_metadata(&mut self, node: Node<'m>) {
        let value = self.evaluator.eval(node);
        let fails = value
            .get("action")
            .and_then(|a| a.get("type"))
            .and_then(Value::as_str)
            .is_some_and(|t| t.text == "fail_pipeline");
        if !fails {
            return;
        }
        let condition = match value.get("condition") {
            Some(Value::Str(text)) => {
                let span = self
                    .dict_value_span(node, "condition")
                    .unwrap_or(node.byte_range());
                Some((span, text.clone()))
            }
            None => None,
            Some(_) => return,
        };
        self.out.fail_actions.push(FailAction {
            span: node.byte_range(),
            condition,
            bound: None,
        });
    }

    fn dict_value_span(&self, dict: Node<'m>, key: &str) -> Option<Range<usize>> {
        let mut cursor = dict.walk();
        let pairs: Vec<Node> = dict.named_children(&mut cursor).collect();
        pairs.into_iter().find_map(|pair| {
            let k = pair.child_by_field_name("key")?;
            (self.string_value(k).as_deref() == Some(key))
                .then(|| pair.child_by_field_name("value").map(|v| v.byte_range()))
                .flatten()
        })
    }

    /// `DQMetricsObserver(custom_metrics=[...])`: `<sql> as <alias>` items.
    fn observer(&mut self, node: Node<'m>) {
        let args = self.arguments(node);
        let Some((_, _, metrics)) = args
            .keywords
            .iter()
            .find(|(k, _, _)| *k == "custom_metrics")
        else {
            return;
        };
        let Value::List(items) = self.evaluator.eval(*metrics) else {
            return;
        };
        for item in items {
            let Some(text) = item.as_str() else { continue };
            if let Some((sql, alias)) = split_alias(&text.text) {
                self.out.custom_metrics.push((alias, sql));
            }
        }
    }

    /// `F.col("_errors")`, `col("_errors")`, `df._errors`, `df["_errors"]`.
    fn names_errors_column(&self, node: Node) -> bool {
        match node.kind_name() {
            "attribute" => node
                .child_by_field_name("attribute")
                .is_some_and(|a| self.text(a) == "_errors"),
            "subscript" => node
                .child_by_field_name("subscript")
                .is_some_and(|s| self.string_value(s).as_deref() == Some("_errors")),
            "call" => {
                let args = self.arguments(node);
                node.child_by_field_name("function")
                    .is_some_and(|f| self.is_spark_function(f))
                    && args.positional.len() == 1
                    && self.string_value(args.positional[0].1).as_deref() == Some("_errors")
            }
            _ => false,
        }
    }

    fn string_value(&self, node: Node) -> Option<String> {
        match self.evaluator.eval(node) {
            Value::Str(s) => Some(s.text),
            _ => None,
        }
    }

    /// A `RunConfig(...)` given as `run_config_template=`: its locations
    /// are derived from the matched tables.
    fn is_template(&self, node: Node) -> bool {
        node.parent().is_some_and(|p| {
            p.kind_name() == "keyword_argument"
                && p.child_by_field_name("name")
                    .is_some_and(|n| self.text(n) == "run_config_template")
        })
    }

    fn arguments(&self, call: Node<'m>) -> Arguments<'m> {
        let mut args = Arguments::default();
        let Some(list) = call.child_by_field_name("arguments") else {
            return args;
        };
        let mut cursor = list.walk();
        for (i, arg) in list.named_children(&mut cursor).enumerate() {
            match arg.kind_name() {
                "keyword_argument" => {
                    if let (Some(name), Some(value)) = (
                        arg.child_by_field_name("name"),
                        arg.child_by_field_name("value"),
                    ) {
                        args.keywords
                            .push((self.text(name), name.byte_range(), value));
                    }
                }
                "list_splat" | "dictionary_splat" => args.splat = true,
                "comment" => {}
                _ => args.positional.push((i, arg)),
            }
        }
        args
    }

    fn rule(&mut self, node: Node<'m>, callee: Node<'m>, class: RuleClass) {
        let args = self.arguments(node);
        if args.splat {
            return;
        }
        let mut item: Vec<Entry> = Vec::new();
        let mut unknown = Vec::new();
        let mut function: Option<Typed> = None;
        let mut column = None;
        let mut columns = None;
        let mut func_args = None;
        let mut func_kwargs = None;
        for (name, key_span, value) in &args.keywords {
            let key = Typed::new(key_span.clone(), Kind::Str(name.to_string()));
            match *name {
                "check_func" => function = Some(self.check_func(*value)),
                "column" if class == RuleClass::ForEachCol => {
                    unknown.push(("column".to_string(), key_span.clone()))
                }
                "column" => column = Some((key, self.typed(*value))),
                "columns" => columns = Some((key, self.typed(*value))),
                "check_func_args" => func_args = Some(self.typed(*value)),
                "check_func_kwargs" => func_kwargs = Some(self.typed(*value)),
                "name" | "criticality" | "filter" | "user_metadata" | "message_expr" => {
                    let value = self.typed(*value);
                    item.push(Entry { key, value });
                }
                other => unknown.push((other.to_string(), key_span.clone())),
            }
        }
        // pydantic models take no positional argument: DQX fails on them,
        // and the rest of the call says nothing reliable.
        if !args.positional.is_empty() {
            return;
        }
        let Some(function) = function else { return };
        let mut check = vec![Entry {
            key: Typed::new(function.span.clone(), Kind::Str("function".into())),
            value: function.clone(),
        }];
        let signature = function.as_str().and_then(|name| {
            self.catalogue
                .function(name, &[])
                .or_else(|| self.catalogue.any_function(name))
        });
        let mut dropped = Vec::new();
        let callee_span = callee.byte_range();
        if class == RuleClass::ForEachCol {
            if let Some((key, value)) = columns.take() {
                check.push(Entry {
                    key: Typed::new(key.span, Kind::Str("for_each_column".into())),
                    value,
                });
            }
        }
        let arguments = match (signature, func_args.as_ref(), func_kwargs.as_ref()) {
            (_, Some(a), _) if a.as_list().is_none() => None,
            (_, _, Some(k)) if k.as_map().is_none() => None,
            (None, Some(a), _) if !a.as_list().is_some_and(<[Typed]>::is_empty) => None,
            (signature, _, _) => {
                let mut entries: Vec<Entry> = Vec::new();
                let target = signature.map(|f| f.for_each_target());
                let params: Vec<&dqlint_dqx::Param> = signature
                    .map(|f| f.params.iter().filter(|p| !p.keyword_only).collect())
                    .unwrap_or_default();
                let mut positional: Vec<(Option<Typed>, Typed)> = Vec::new();
                let mut keywords: Vec<(Typed, Typed)> = Vec::new();
                for (name, given) in [("column", column.take()), ("columns", columns.take())] {
                    let Some((key, value)) = given else { continue };
                    if value.is_none() {
                        continue;
                    }
                    match signature.and_then(|f| f.param(name)) {
                        Some(p) if p.required => positional.push((Some(key), value)),
                        Some(_) => keywords.push((key, value)),
                        None if signature.is_some() => dropped.push((name.to_string(), key.span)),
                        None => keywords.push((key, value)),
                    }
                }
                for value in func_args.as_ref().and_then(Typed::as_list).unwrap_or(&[]) {
                    positional.push((None, value.clone()));
                }
                let mut slots = params.iter().filter(|p| {
                    class != RuleClass::ForEachCol || Some(p.name.as_str()) != target || !p.required
                });
                for (key, value) in positional {
                    let Some(param) = slots.next() else { break };
                    let key = key.map_or_else(
                        || Typed::new(value.span.clone(), Kind::Str(param.name.clone())),
                        |k| Typed::new(k.span, Kind::Str(param.name.clone())),
                    );
                    entries.push(Entry { key, value });
                }
                for entry in func_kwargs.as_ref().and_then(Typed::as_map).unwrap_or(&[]) {
                    let name = entry.key.as_str();
                    // `_build_kwargs`: a required column/columns in the
                    // kwargs is promoted to the positional one.
                    if matches!(name, Some("column" | "columns"))
                        && entries.iter().any(|e| e.key.as_str() == name)
                    {
                        continue;
                    }
                    entries.push(entry.clone());
                }
                for (key, value) in keywords {
                    entries.push(Entry { key, value });
                }
                let span = func_kwargs
                    .as_ref()
                    .map_or(callee_span.clone(), |k| k.span.clone());
                Some(Typed::new(span, Kind::Map(entries)))
            }
        };
        match arguments {
            Some(arguments) => check.push(Entry {
                key: Typed::new(callee_span.clone(), Kind::Str("arguments".into())),
                value: arguments,
            }),
            None => check.push(Entry {
                key: Typed::new(callee_span.clone(), Kind::Str("arguments".into())),
                value: unknown_value(callee_span.clone(), "check_func_kwargs"),
            }),
        }
        item.push(Entry {
            key: Typed::new(callee_span.clone(), Kind::Str("check".into())),
            value: Typed::new(node.byte_range(), Kind::Map(check)),
        });
        self.out.checks.push(ApiCheck {
            class,
            callee: callee_span,
            item: Typed::new(node.byte_range(), Kind::Map(item)),
            unknown_keywords: unknown,
            dropped,
        });
    }

    /// `check_funcs.is_not_null`, an imported `is_not_null`: the name at
    /// its span; anything else (a custom function) is not known.
    fn check_func(&self, node: Node<'m>) -> Typed {
        match node.kind_name() {
            "attribute" => {
                let (Some(object), Some(attribute)) = (
                    node.child_by_field_name("object"),
                    node.child_by_field_name("attribute"),
                ) else {
                    return self.unknown(node);
                };
                if self.imports.is_funcs_module(self.text(object)) {
                    return Typed::new(
                        attribute.byte_range(),
                        Kind::Str(self.text(attribute).to_string()),
                    );
                }
                self.unknown(node)
            }
            "identifier" => match self.imports.func_names.get(self.text(node)) {
                Some(name) => Typed::new(node.byte_range(), Kind::Str(name.clone())),
                None => self.unknown(node),
            },
            _ => self.unknown(node),
        }
    }

    /// A call of one of [`SAVE_METHODS`] read as the run config it
    /// amounts to: its configs and checks location at their places.
    ///
    /// `apply_checks_and_save_in_tables_for_patterns` runs its
    /// `run_config_template` once per matching table, with the input,
    /// output and quarantine locations derived from the table's name: the
    /// template's options are the run's, its locations are not.
    fn save_call(&mut self, node: Node<'m>, callee: Node<'m>, method: &str, params: &[&str]) {
        let args = self.arguments(node);
        let mut given: Vec<(&str, Range<usize>, Node<'m>)> = Vec::new();
        for (i, (_, value)) in args.positional.iter().enumerate() {
            if let Some(name) = params.get(i) {
                given.push((name, value.byte_range(), *value));
            }
        }
        for (name, key_span, value) in &args.keywords {
            given.push((name, key_span.clone(), *value));
        }
        let mut entries: Vec<Entry> = Vec::new();
        for (name, key, value) in given {
            if name == "run_config_template" {
                let template = self.typed(value);
                for entry in template.as_map().unwrap_or(&[]) {
                    let field = entry.key.as_str().unwrap_or("");
                    if matches!(
                        field,
                        "input_config" | "output_config" | "quarantine_config" | "metrics_config"
                    ) {
                        entries.push(entry.clone());
                    }
                }
            } else if SAVE_RUN_FIELDS.contains(&name) {
                let value = self.typed(value);
                entries.push(Entry {
                    key: Typed::new(key, Kind::Str(name.into())),
                    value,
                });
            }
        }
        let key_of = |name: &str| {
            entries
                .iter()
                .find(|e| e.key.as_str() == Some(name) && !e.value.is_none())
                .map(|e| e.key.span.clone())
        };
        let applies = applies_checks(method);
        let no_destination = applies
            && !args.splat
            && key_of("output_config").is_none()
            && key_of("quarantine_config").is_none()
            && key_of("metrics_config").is_none();
        let checks_key = key_of("checks");
        let location_key = key_of("checks_location");
        let no_checks_source =
            applies && !args.splat && checks_key.is_none() && location_key.is_none();
        let method_span = callee
            .child_by_field_name("attribute")
            .map_or(callee.byte_range(), |a| a.byte_range());
        let item = Typed::new(node.byte_range(), Kind::Map(entries));
        let mut run = dqlint_dqx::run_config::run_of(&item);
        if method == "apply_checks_and_save_in_tables_for_patterns" {
            for io in [&mut run.input, &mut run.output, &mut run.quarantine]
                .into_iter()
                .flatten()
            {
                io.location = None;
            }
        }
        // A call has no inline-checks mistake of its own (its form of it
        // is `checks_and_location`) and no name.
        run.inline_checks = None;
        run.name = method.to_string();
        run.name_written = false;
        run.name_span = method_span.clone();
        self.out.runs.push(ApiRun {
            run,
            source: RunSource::Call {
                method: method.to_string(),
                span: method_span,
            },
            open: args.splat,
            no_destination,
            checks_and_location: checks_key.zip(location_key),
            no_checks_source,
        });
    }

    fn unknown(&self, node: Node) -> Typed {
        unknown_value(node.byte_range(), self.text(node))
    }

    /// The Python value of an expression, as DQX would receive it.
    fn typed(&mut self, node: Node<'m>) -> Typed {
        self.typed_at(node, 0)
    }

    fn typed_at(&mut self, node: Node<'m>, depth: usize) -> Typed {
        if depth > 16 {
            return self.unknown(node);
        }
        let span = node.byte_range();
        let text = self.text(node);
        match node.kind_name() {
            "string" | "concatenated_string" => match self.evaluator.eval(node) {
                Value::Str(s) => {
                    let value = s.text.clone();
                    self.out.strings.push((span.clone(), s));
                    Typed::new(span, Kind::Str(value))
                }
                _ => self.unknown(node),
            },
            "integer" => parse_int(text)
                .map(|i| Typed::new(span.clone(), Kind::Int(i)))
                .unwrap_or_else(|| self.unknown(node)),
            "float" => text
                .replace('_', "")
                .parse::<f64>()
                .map(|f| Typed::new(span.clone(), Kind::Float(f)))
                .unwrap_or_else(|_| self.unknown(node)),
            "true" => Typed::new(span, Kind::Bool(true)),
            "false" => Typed::new(span, Kind::Bool(false)),
            "none" => Typed::new(span, Kind::None),
            "unary_operator" => {
                let op = node.child_by_field_name("operator").map(|o| self.text(o));
                let Some(arg) = node.child_by_field_name("argument") else {
                    return self.unknown(node);
                };
                let inner = self.typed_at(arg, depth + 1);
                let kind = match (op, inner.kind) {
                    (Some("-"), Kind::Int(i)) => Kind::Int(-i),
                    (Some("-"), Kind::Float(f)) => Kind::Float(-f),
                    (Some("+"), k @ (Kind::Int(_) | Kind::Float(_))) => k,
                    _ => return self.unknown(node),
                };
                Typed::new(span, kind)
            }
            "parenthesized_expression" => match node.named_child(0) {
                Some(inner) => self.typed_at(inner, depth + 1),
                None => self.unknown(node),
            },
            "list" | "tuple" => {
                let mut cursor = node.walk();
                let children: Vec<Node<'m>> = node
                    .named_children(&mut cursor)
                    .filter(|n| n.kind_name() != "comment")
                    .collect();
                if children.iter().any(|c| c.kind_name() == "list_splat") {
                    return self.unknown(node);
                }
                let items = children
                    .into_iter()
                    .map(|c| self.typed_at(c, depth + 1))
                    .collect();
                Typed::new(span, Kind::List(items))
            }
            "dictionary" => {
                let mut cursor = node.walk();
                let pairs: Vec<Node<'m>> = node
                    .named_children(&mut cursor)
                    .filter(|n| n.kind_name() != "comment")
                    .collect();
                let mut entries = Vec::new();
                for pair in pairs {
                    let (Some(k), Some(v)) = (
                        pair.child_by_field_name("key"),
                        pair.child_by_field_name("value"),
                    ) else {
                        return self.unknown(node);
                    };
                    let key = self.typed_at(k, depth + 1);
                    let value = self.typed_at(v, depth + 1);
                    entries.push(Entry { key, value });
                }
                Typed::new(span, Kind::Map(entries))
            }
            "identifier" => match self.binding(node) {
                Some(bound) => self.typed_at(bound, depth + 1),
                None => self.unknown(node),
            },
            "call" => self.call_value(node, depth),
            "attribute" | "subscript" | "binary_operator" => {
                // Strings built with `+`, `.format`, a dict entry.
                match self.evaluator.eval(node) {
                    Value::Str(s) => {
                        let value = s.text.clone();
                        self.out.strings.push((span.clone(), s));
                        Typed::new(span, Kind::Str(value))
                    }
                    _ if self.is_column_expression(node) => column_value(span, text),
                    _ => self.unknown(node),
                }
            }
            _ => self.unknown(node),
        }
    }

    fn call_value(&mut self, node: Node<'m>, depth: usize) -> Typed {
        let span = node.byte_range();
        let Some(callee) = node.child_by_field_name("function") else {
            return self.unknown(node);
        };
        let fields = match self.class_of(callee) {
            Some("InputConfig") => Some(INPUT_FIELDS),
            Some("OutputConfig") => Some(OUTPUT_FIELDS),
            Some("RunConfig") => Some(RUN_FIELDS),
            _ => None,
        };
        if let Some(fields) = fields {
            let args = self.arguments(node);
            if args.splat {
                return self.unknown(node);
            }
            let mut entries = Vec::new();
            for (i, (_, value)) in args.positional.iter().enumerate() {
                let Some(name) = fields.get(i) else { continue };
                let v = self.typed_at(*value, depth + 1);
                entries.push(Entry {
                    key: Typed::new(value.byte_range(), Kind::Str((*name).into())),
                    value: v,
                });
            }
            for (name, key_span, value) in &args.keywords {
                let v = self.typed_at(*value, depth + 1);
                entries.push(Entry {
                    key: Typed::new(key_span.clone(), Kind::Str(name.to_string())),
                    value: v,
                });
            }
            return Typed::new(span, Kind::Map(entries));
        }
        let name = self.text(callee);
        let args = self.arguments(node);
        let literal_args: Vec<Typed> = args
            .positional
            .iter()
            .map(|(_, a)| self.typed_at(*a, depth + 1))
            .collect();
        match name.rsplit('.').next().unwrap_or(name) {
            "Decimal" if literal_args.len() == 1 => {
                let digits = match &literal_args[0].kind {
                    Kind::Str(s) => s.trim().to_string(),
                    Kind::Int(i) => i.to_string(),
                    _ => return self.unknown(node),
                };
                return Typed::new(span, Kind::Decimal(digits));
            }
            "date" if literal_args.len() == 3 && args.keywords.is_empty() => {
                if let [Kind::Int(y), Kind::Int(m), Kind::Int(d)] = [
                    &literal_args[0].kind,
                    &literal_args[1].kind,
                    &literal_args[2].kind,
                ] {
                    return Typed::new(
                        span,
                        Kind::Date(Date {
                            year: u16::try_from(*y).unwrap_or(0),
                            month: u8::try_from(*m).unwrap_or(0),
                            day: u8::try_from(*d).unwrap_or(0),
                        }),
                    );
                }
            }
            _ => {}
        }
        if self.is_column_expression(node) {
            return column_value(span, self.text(node));
        }
        self.unknown(node)
    }

    /// `F.col(...)`, `col(...)`, `F.expr(...).cast(...)`: a Spark Column.
    fn is_column_expression(&self, node: Node) -> bool {
        match node.kind_name() {
            "call" => node.child_by_field_name("function").is_some_and(|f| {
                self.is_spark_function(f)
                    || (f.kind_name() == "attribute"
                        && f.child_by_field_name("object")
                            .is_some_and(|o| self.is_column_expression(o)))
            }),
            _ => false,
        }
    }

    fn is_spark_function(&self, callee: Node) -> bool {
        match callee.kind_name() {
            "identifier" => self
                .imports
                .spark_names
                .iter()
                .any(|n| n == self.text(callee)),
            "attribute" => callee.child_by_field_name("object").is_some_and(|o| {
                let object = self.text(o);
                self.imports.spark_functions.iter().any(|f| f == object)
                    || object == "pyspark.sql.functions"
            }),
            _ => false,
        }
    }

    /// The module-level value a name is bound to where it is used, unless
    /// an enclosing function binds it itself.
    fn binding(&self, name: Node<'m>) -> Option<Node<'m>> {
        let text = self.text(name);
        let mut parent = name.parent();
        let mut in_function = false;
        while let Some(p) = parent {
            if matches!(p.kind_name(), "function_definition" | "lambda") {
                in_function = true;
                if self.binds_locally(p, text) {
                    return None;
                }
            }
            if p.kind_name() == "for_statement" || p.kind_name() == "for_in_clause" {
                if let Some(left) = p.child_by_field_name("left") {
                    if contains_identifier(self, left, text) {
                        return None;
                    }
                }
            }
            parent = p.parent();
        }
        let candidates = self.bindings.get(text)?;
        if in_function {
            return candidates.last().copied();
        }
        candidates
            .iter()
            .rev()
            .find(|rhs| rhs.end_byte() <= name.start_byte())
            .copied()
    }

    fn binds_locally(&self, function: Node, name: &str) -> bool {
        if let Some(params) = function.child_by_field_name("parameters") {
            if contains_identifier(self, params, name) {
                return true;
            }
        }
        let Some(body) = function.child_by_field_name("body") else {
            return false;
        };
        assigns(self, body, name)
    }
}

#[derive(Default)]
struct Arguments<'m> {
    positional: Vec<(usize, Node<'m>)>,
    keywords: Vec<(&'m str, Range<usize>, Node<'m>)>,
    splat: bool,
}

fn has_splat(call: Node) -> bool {
    call.child_by_field_name("arguments").is_some_and(|list| {
        let mut c = list.walk();
        let found = list
            .named_children(&mut c)
            .any(|a| matches!(a.kind_name(), "list_splat" | "dictionary_splat"));
        found
    })
}

fn contains_identifier(reader: &Reader, node: Node, name: &str) -> bool {
    if node.kind_name() == "identifier" {
        return reader.text(node) == name;
    }
    let mut cursor = node.walk();
    let found = node
        .named_children(&mut cursor)
        .any(|c| contains_identifier(reader, c, name));
    found
}

/// Whether `body` assigns `name` (an assignment, a loop, a `with ... as`,
/// an import), nested functions included.
fn assigns(reader: &Reader, node: Node, name: &str) -> bool {
    let target = match node.kind_name() {
        "assignment" | "augmented_assignment" | "for_statement" => node.child_by_field_name("left"),
        "as_pattern" => node.child_by_field_name("alias"),
        _ => None,
    };
    if target.is_some_and(|t| contains_identifier(reader, t, name)) {
        return true;
    }
    let mut cursor = node.walk();
    let found = node
        .named_children(&mut cursor)
        .any(|c| assigns(reader, c, name));
    found
}

fn is_funcs_module(dotted: &str) -> bool {
    matches!(
        dotted,
        "databricks.labs.dqx.check_funcs"
            | "databricks.labs.dqx.geo.check_funcs"
            | "databricks.labs.dqx.pii.pii_detection_funcs"
            | "databricks.labs.dqx.anomaly.check_funcs"
    )
}

fn unknown_value(span: Range<usize>, source: &str) -> Typed {
    Typed::new(
        span,
        Kind::Object(Box::new(PyObject {
            class: None,
            source: source.to_string(),
        })),
    )
}

fn column_value(span: Range<usize>, source: &str) -> Typed {
    Typed::new(
        span,
        Kind::Object(Box::new(PyObject {
            class: Some("Column".into()),
            source: source.to_string(),
        })),
    )
}

fn parse_int(text: &str) -> Option<i128> {
    let t = text.replace('_', "").to_ascii_lowercase();
    if let Some(h) = t.strip_prefix("0x") {
        i128::from_str_radix(h, 16).ok()
    } else if let Some(o) = t.strip_prefix("0o") {
        i128::from_str_radix(o, 8).ok()
    } else if let Some(b) = t.strip_prefix("0b") {
        i128::from_str_radix(b, 2).ok()
    } else {
        t.parse().ok()
    }
}

/// `<sql> as <alias>` (the alias a custom metric is named by), split at
/// its last ` as `.
fn split_alias(text: &str) -> Option<(String, String)> {
    let lower = text.to_ascii_lowercase();
    let at = lower.rfind(" as ")?;
    let alias = text[at + 4..].trim().trim_matches('`');
    let sql = text[..at].trim();
    (!sql.is_empty() && !alias.is_empty() && alias.chars().all(|c| c.is_alphanumeric() || c == '_'))
        .then(|| (sql.to_string(), alias.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read_source(source: &str) -> (PythonModule, DqxApi) {
        let module = PythonModule::parse(source);
        let api = read(&module, Catalogue::default_version());
        (module, api)
    }

    const BREAKER: &str = r#"from databricks.labs.dqx.engine import DQEngine
from databricks.labs.dqx.metrics_observer import DQMetricsObserver
from databricks.labs.dqx.actions import DQAction, DQAlert, FailPipeline

observer = DQMetricsObserver(
    name="orders",
    custom_metrics=["error_row_count * 1.0 / input_row_count as error_row_ratio"],
)
actions = [
    DQAction(condition="error_row_count > 0", action=DQAlert(destinations=[])),
    DQAction(
        condition="input_row_count > 0 and error_row_count / input_row_count > 0.05",
        action=FailPipeline(message="more than 5% of the batch quarantined"),
    ),
    DQAction(condition="error_row_ratio > 0.2", action={"type": "fail_pipeline"}),
    {"action": {"type": "fail_pipeline"}, "condition": "error_row_count > 0.01 * input_row_count"},
    DQAction(action=FailPipeline()),
]
engine = DQEngine(ws, observer=observer, actions=actions)
"#;

    #[test]
    fn fail_actions_and_their_bounds() {
        let (module, api) = read_source(BREAKER);
        assert_eq!(
            api.custom_metrics,
            [(
                "error_row_count * 1.0 / input_row_count".to_string(),
                "error_row_ratio".to_string()
            )]
            .map(|(sql, alias)| (alias, sql))
        );
        let ratios: Vec<Option<(f64, Option<bool>)>> = api
            .fail_actions
            .iter()
            .map(|a| {
                a.bound.as_ref().map(|b| {
                    (
                        (b.max_ratio * 100.0).round() / 100.0,
                        b.division.as_ref().map(|d| d.guarded),
                    )
                })
            })
            .collect();
        assert_eq!(
            ratios,
            [
                Some((0.05, Some(true))),
                Some((0.2, Some(false))),
                Some((0.01, None)),
                None
            ],
            "the alert is no fail action; FailPipeline() without a condition always fails"
        );
        let (span, text) = api.fail_actions[1].condition.clone().expect("condition");
        assert_eq!(&module.source[span], "\"error_row_ratio > 0.2\"");
        assert_eq!(text.text, "error_row_ratio > 0.2");
        assert!(api.fail_actions[3].condition.is_none());
    }

    const SEED: &str = r#"from databricks.labs.dqx import check_funcs
from databricks.labs.dqx.engine import DQEngine
from databricks.labs.dqx.rule import DQRowRule, DQDatasetRule
from databricks.labs.dqx.config import InputConfig, OutputConfig
from databricks.sdk import WorkspaceClient

dq = DQEngine(WorkspaceClient())

checks = [
    DQRowRule(criticality="warn",  check_func=check_funcs.is_not_null,   column="col3"),
    DQDatasetRule(criticality="error", check_func=check_funcs.is_unique, columns=["col1", "col2"]),
]

dq.apply_checks_and_save_in_table(
    checks=checks,
    input_config=InputConfig(location="catalog.schema.input"),
    output_config=OutputConfig(location="catalog.schema.valid"),
    quarantine_config=OutputConfig(location="catalog.schema.quarantine"),
)

dq.apply_checks_and_save_in_table(
    checks=checks,
    input_config=InputConfig(location="catalog.schema.input"),
)
"#;

    fn arg<'a>(check: &'a ApiCheck, name: &str) -> Option<&'a Typed> {
        check.item.get("check")?.get("arguments")?.get(name)
    }

    #[test]
    fn seed_rules_become_metadata_at_their_spans() {
        let (module, api) = read_source(SEED);
        assert_eq!(api.checks.len(), 2);
        let row = &api.checks[0];
        assert_eq!(row.class, RuleClass::Row);
        let function = row.item.get("check").unwrap().get("function").unwrap();
        assert_eq!(function.as_str(), Some("is_not_null"));
        assert_eq!(&module.source[function.span.clone()], "is_not_null");
        let column = arg(row, "column").unwrap();
        assert_eq!(&module.source[column.span.clone()], "\"col3\"");
        assert_eq!(column.as_str(), Some("col3"));
        assert_eq!(row.item.get("criticality").unwrap().as_str(), Some("warn"));
        let columns = arg(&api.checks[1], "columns").unwrap();
        assert_eq!(columns.as_list().unwrap().len(), 2);
    }

    #[test]
    fn seed_calls_become_runs() {
        let (_, api) = read_source(SEED);
        assert_eq!(api.runs.len(), 2);
        let full = &api.runs[0];
        assert!(!full.no_destination);
        assert_eq!(
            full.run
                .quarantine
                .as_ref()
                .unwrap()
                .location
                .as_ref()
                .unwrap()
                .0,
            "catalog.schema.quarantine"
        );
        assert!(api.runs[1].no_destination);
        assert!(api.has_quarantine());
    }

    #[test]
    fn positional_arguments_follow_the_signature() {
        let (module, api) = read_source(
            "from databricks.labs.dqx import check_funcs as cf\nfrom databricks.labs.dqx.rule import DQRowRule\n\
             LIMIT = 30\nr = DQRowRule(check_func=cf.is_older_than_n_days, column='d', check_func_args=[LIMIT])\n\
             s = DQRowRule(check_func=cf.is_in_range, column='p', check_func_kwargs={'min_limit': -1, 'max_limit': 2.5})\n",
        );
        let days = arg(&api.checks[0], "days").unwrap();
        assert_eq!(days.kind, Kind::Int(30));
        assert_eq!(&module.source[days.span.clone()], "30");
        assert_eq!(
            arg(&api.checks[1], "min_limit").unwrap().kind,
            Kind::Int(-1)
        );
        assert_eq!(
            arg(&api.checks[1], "max_limit").unwrap().kind,
            Kind::Float(2.5)
        );
    }

    #[test]
    fn unknown_values_and_custom_functions_are_not_guessed() {
        let (_, api) = read_source(
            "from databricks.labs.dqx import check_funcs\nfrom databricks.labs.dqx.rule import DQRowRule\n\
             from pyspark.sql import functions as F\n\
             def build(col_name):\n    return DQRowRule(check_func=check_funcs.is_not_null, column=col_name)\n\
             r = DQRowRule(check_func=my_check, column='a')\n\
             c = DQRowRule(check_func=check_funcs.is_not_null, column=F.col('a'))\n",
        );
        assert!(arg(&api.checks[0], "column").unwrap().is_unknown());
        let f = api.checks[1]
            .item
            .get("check")
            .unwrap()
            .get("function")
            .unwrap();
        assert!(f.is_unknown());
        let c = arg(&api.checks[2], "column").unwrap();
        assert!(matches!(&c.kind, Kind::Object(o) if o.class.as_deref() == Some("Column")));
    }

    #[test]
    fn for_each_and_dropped_columns() {
        let (_, api) = read_source(
            "from databricks.labs.dqx import check_funcs\nfrom databricks.labs.dqx.rule import DQForEachColRule, DQRowRule\n\
             a = DQForEachColRule(columns=['a', 'b'], check_func=check_funcs.is_not_null)\n\
             b = DQRowRule(check_func=check_funcs.sql_expression, column='x', check_func_kwargs={'expression': 'x > 0'})\n",
        );
        let fe = api.checks[0]
            .item
            .get("check")
            .unwrap()
            .get("for_each_column")
            .unwrap();
        assert_eq!(fe.as_list().unwrap().len(), 2);
        assert_eq!(api.checks[1].dropped.len(), 1);
    }

    #[test]
    fn f_string_filters_keep_a_source_map() {
        let (module, api) = read_source(
            "from databricks.labs.dqx import check_funcs\nfrom databricks.labs.dqx.rule import DQRowRule\n\
             COND = 'price >'\nr = DQRowRule(check_func=check_funcs.is_not_null, column='a', filter=f\"{COND} 0 AND\")\n",
        );
        let filter = api.checks[0].item.get("filter").unwrap();
        assert_eq!(filter.as_str(), Some("price > 0 AND"));
        let span = api.string_source(&filter.span, 0..5).unwrap();
        assert_eq!(&module.source[span], "price");
    }

    #[test]
    fn errors_prefilters() {
        let (_, api) = read_source(
            "from databricks.labs.dqx.engine import DQEngine\nfrom pyspark.sql import functions as F\n\
             good = df.filter(F.col('_errors').isNull())\nalso = df.where('_errors IS NULL')\nfine = df.filter(F.col('x').isNull())\n",
        );
        assert_eq!(api.errors_filters.len(), 2);
    }

    #[test]
    fn streaming_run_configs() {
        let (_, api) = read_source(
            "from databricks.labs.dqx.config import RunConfig, InputConfig, OutputConfig\n\
             rc = RunConfig(name='orders', input_config=InputConfig('main.raw.orders', is_streaming=True),\n\
                 output_config=OutputConfig('main.dq.orders', options={'checkpointLocation': '/Volumes/c/s/v/cp'}),\n\
                 quarantine_config=OutputConfig('main.dq.orders_q', options={'checkpointLocation': '/Volumes/c/s/v/cp'}))\n",
        );
        let run = &api.runs[0].run;
        assert_eq!(run.name, "orders");
        assert!(run.input.as_ref().unwrap().is_streaming);
        assert!(run.output.as_ref().unwrap().checkpoint.is_some());
        assert!(run.quarantine.as_ref().unwrap().checkpoint.is_some());
    }
}
