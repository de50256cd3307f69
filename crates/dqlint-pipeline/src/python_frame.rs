//! DataFrame expressions of a Python pipeline source: what a dataset
//! function (or a DataFrame passed as an AUTO CDC source) reads, filters,
//! selects and computes.
//!
//! Reads are every `spark.readStream.table(x)`, `spark.read.table(x)`,
//! `spark.table(x)`, `<pipeline>.read[_stream](x)` in the function, in the
//! module-level DataFrames it names and in trivial module-level helpers it
//! calls (one `return`, no parameters). Row filters, the select list and
//! computed columns come from the method chain of the returned expression,
//! followed through local variables, module-level names and those helpers.

use std::collections::HashSet;

use crate::python::{Field, KindName};
use tree_sitter::Node;

use crate::eval::Value;
use crate::model::{ComputedColumn, Constraint, Grouping, Named, Read, RowFilter};
use crate::python_model::{Locals, Reader};

/// Steps followed through names and helpers in one chain, at most.
const MAX_STEPS: usize = 64;

/// What a DataFrame expression reads and does to its rows.
#[derive(Debug, Default)]
pub(crate) struct FrameFacts {
    pub reads: Vec<Read>,
    pub row_filters: Vec<RowFilter>,
    pub select_list: Option<Vec<Named>>,
    pub computed_columns: Vec<ComputedColumn>,
    /// The grouped aggregation the expression ends in, if it is one over
    /// one read this reader follows.
    pub grouping: Option<Grouping>,
    /// A streaming read (`readStream`, `read_stream`) is among the reads.
    pub streaming: bool,
    /// A batch read (`spark.read`, `read`) is among the reads.
    pub batch: bool,
}

/// Methods before a `groupBy` that keep the rows it counts.
const KEEP_ROWS: &[&str] = &[
    "alias",
    "hint",
    "cache",
    "persist",
    "repartition",
    "repartitionByRange",
    "coalesce",
    "orderBy",
    "sort",
    "sortWithinPartitions",
    "option",
    "options",
];

/// Methods after an aggregation that keep every group with duplicates
/// in view (a filter on the counts is `HAVING`).
const KEEP_GROUPS: &[&str] = &[
    "filter",
    "where",
    "alias",
    "hint",
    "cache",
    "persist",
    "repartition",
    "coalesce",
    "orderBy",
    "sort",
    "select",
    "selectExpr",
    "withColumn",
    "withColumns",
];

/// Methods that keep the columns of the frame they are called on.
const COLUMN_PRESERVING: &[&str] = &[
    "filter",
    "where",
    "alias",
    "distinct",
    "dropDuplicates",
    "drop_duplicates",
    "dropDuplicatesWithinWatermark",
    "limit",
    "orderBy",
    "sort",
    "sortWithinPartitions",
    "repartition",
    "repartitionByRange",
    "coalesce",
    "withWatermark",
    "hint",
    "cache",
    "persist",
    "sample",
    "option",
    "options",
];

impl<'m> Reader<'m, '_> {
    /// A dataset or flow function: reads in its body, the rest from its
    /// single `return`.
    pub(crate) fn function_frame(&self, function: Node<'m>, locals: &Locals) -> FrameFacts {
        let mut facts = FrameFacts::default();
        let Some(body) = function.field("body") else {
            return facts;
        };
        self.collect_reads(body, locals, &mut facts);
        let returns = returns(body);
        if let [only] = returns.as_slice() {
            if let Some(expression) = only.named_child(0) {
                self.chain(expression, locals, &mut facts);
            }
        }
        dedup_reads(&mut facts.reads);
        facts
    }

    /// A DataFrame expression (an AUTO CDC source): its reads, through the
    /// module-level names it uses, and its chain.
    pub(crate) fn expression_frame(&self, expression: Node<'m>, locals: &Locals) -> FrameFacts {
        let mut facts = FrameFacts::default();
        self.collect_reads(expression, locals, &mut facts);
        self.chain(expression, locals, &mut facts);
        dedup_reads(&mut facts.reads);
        facts
    }

    fn collect_reads(&self, region: Node<'m>, locals: &Locals, facts: &mut FrameFacts) {
        let mut seen: HashSet<usize> = HashSet::new();
        let mut stack = vec![region];
        let mut cursor = region.walk();
        let mut steps = 0;
        while let Some(node) = stack.pop() {
            match node.kind_name() {
                "call" => {
                    if let Some((read, streaming)) = self.read_call(node, locals) {
                        if let Some(read) = read {
                            facts.reads.push(read);
                        }
                        facts.streaming |= streaming;
                        facts.batch |= !streaming;
                    }
                    if let Some(helper) = self.trivial_helper(node) {
                        if steps < MAX_STEPS && seen.insert(helper.start_byte()) {
                            steps += 1;
                            if let Some(body) = helper.field("body") {
                                stack.push(body);
                            }
                        }
                    }
                }
                // The attribute is the node's last token: most are neither.
                "attribute" if self.names_a_reader(node) => {
                    if let (Some(object), Some(attribute)) =
                        (node.field("object"), node.field("attribute"))
                    {
                        if self.is_spark(object) {
                            match self.text(attribute) {
                                "readStream" => facts.streaming = true,
                                "read" => facts.batch = true,
                                _ => {}
                            }
                        }
                    }
                }
                "identifier" => {
                    // A module-level DataFrame the region names.
                    if let Some(rhs) = self.module_binding(node) {
                        if steps < MAX_STEPS && seen.insert(rhs.start_byte()) {
                            steps += 1;
                            stack.push(rhs);
                        }
                    }
                }
                _ => {}
            }
            // A name or a string literal that is no f-string holds no read.
            if node.child_count() > 0 && !self.is_plain_string(node) {
                crate::python_model::push_named_children(node, &mut cursor, &mut stack);
            }
        }
    }

    /// `spark.readStream.table(x)` and the like: the read (when its name is
    /// known) and whether it streams.
    fn read_call(&self, call: Node<'m>, locals: &Locals) -> Option<(Option<Read>, bool)> {
        let streaming = self.read_kind(call)?;
        let args = self.args(call);
        let read = args
            .positional
            .first()
            .copied()
            .or_else(|| args.keyword("name"))
            .or_else(|| args.keyword("tableName"))
            .and_then(|n| self.named(n, locals))
            .map(|source| Read { source, streaming });
        Some((read, streaming))
    }

    /// Whether `call` reads a dataset (`spark.readStream.table(x)` and the
    /// like), and if so whether it streams; its name is not evaluated.
    fn read_kind(&self, call: Node<'m>) -> Option<bool> {
        let function = call.field("function")?;
        let streaming = match self.api(function).as_deref() {
            Some("read") => false,
            Some("read_stream") => true,
            _ => {
                if function.kind_name() != "attribute" {
                    return None;
                }
                let method = self.text(function.field("attribute")?);
                let object = function.field("object")?;
                if method != "table" {
                    return None;
                }
                if self.is_spark(object) {
                    false
                } else {
                    self.reader_kind(object)?
                }
            }
        };
        Some(streaming)
    }

    /// `spark.readStream[.option(...)...]` -> streaming, `spark.read[...]` -> batch.
    fn reader_kind(&self, mut node: Node<'m>) -> Option<bool> {
        for _ in 0..MAX_STEPS {
            match node.kind_name() {
                "attribute" => {
                    let object = node.field("object")?;
                    let attribute = self.text(node.field("attribute")?);
                    if self.is_spark(object) {
                        return match attribute {
                            "readStream" => Some(true),
                            "read" => Some(false),
                            _ => None,
                        };
                    }
                    node = object;
                }
                "call" => node = node.field("function")?,
                _ => return None,
            }
        }
        None
    }

    /// An attribute that may be `<spark>.read` or `<spark>.readStream`
    /// (tree-sitter keeps a node's trailing comments out of it, so the
    /// attribute name ends its text unless it has errors).
    fn names_a_reader(&self, attribute: Node) -> bool {
        let text = self.text(attribute);
        attribute.has_error() || text.ends_with("read") || text.ends_with("readStream")
    }

    /// The Spark session: `spark`, `self.spark`, ...
    fn is_spark(&self, node: Node) -> bool {
        let text = self.text(node);
        text == "spark" || text.ends_with(".spark")
    }

    /// A call of a module-level function with no parameters whose body has
    /// one `return`: its definition.
    fn trivial_helper(&self, call: Node<'m>) -> Option<Node<'m>> {
        let function = call.field("function")?;
        if function.kind_name() != "identifier" {
            return None;
        }
        let helper = *self.helpers.get(self.text(function))?;
        let parameters = helper.field("parameters")?;
        if parameters.named_child_count() > 0 {
            return None;
        }
        let body = helper.field("body")?;
        (returns(body).len() == 1).then_some(helper)
    }

    /// The right-hand side a module-level name is bound to where `ident`
    /// uses it, unless a local binding of the function shadows it.
    fn module_binding(&self, ident: Node<'m>) -> Option<Node<'m>> {
        let name = self.text(ident);
        // Most names are no module-level name (`spark`, `F`, columns):
        // settled before the costlier look at parents and scopes.
        let bindings = self.module_bindings.get(name)?;
        if let Some(parent) = ident.parent() {
            // The attribute of `x.name` or the name of `name=` is not a use.
            if parent.kind_name() == "attribute" && parent.field("attribute") == Some(ident) {
                return None;
            }
            if parent.kind_name() == "keyword_argument" && parent.field("name") == Some(ident) {
                return None;
            }
        }
        for function in self.enclosing_functions(ident) {
            if self.local_binding(function, ident).is_some() || is_parameter(self, function, name) {
                return None;
            }
        }
        let inside_function = self.enclosing_function(ident).is_some();
        bindings
            .iter()
            .rev()
            .find(|(assignment, _)| inside_function || assignment.end_byte() <= ident.start_byte())
            .map(|(_, rhs)| *rhs)
    }

    /// The last assignment of `ident`'s name in `function` before it.
    pub(crate) fn local_binding(&self, function: Node<'m>, ident: Node<'m>) -> Option<Node<'m>> {
        let name = self.text(ident);
        let body = function.field("body")?;
        self.local_assignments(body)
            .iter()
            .copied()
            .rfind(|a| {
                a.end_byte() <= ident.start_byte()
                    && a.field("left")
                        .is_some_and(|l| l.kind_name() == "identifier" && self.text(l) == name)
            })
            .and_then(|a| a.field("right"))
    }

    /// The method chain of `expression`, outermost first, followed to its
    /// read; then row filters, computed columns and the select list from
    /// the innermost call out.
    fn chain(&self, expression: Node<'m>, locals: &Locals, facts: &mut FrameFacts) {
        let mut calls: Vec<(&'m str, Node<'m>)> = Vec::new();
        let mut node = expression;
        let mut base = None;
        for _ in 0..MAX_STEPS {
            match node.kind_name() {
                "parenthesized_expression" => match node.named_child(0) {
                    Some(inner) => node = inner,
                    None => break,
                },
                "call" => {
                    if self.read_kind(node).is_some() || self.spark_sql(node).is_some() {
                        base = Some(node);
                        break;
                    }
                    if let Some(helper) = self.trivial_helper(node) {
                        let body = helper.field("body");
                        match body.map(returns).as_deref() {
                            Some([only]) => match only.named_child(0) {
                                Some(inner) => node = inner,
                                None => break,
                            },
                            _ => break,
                        }
                        continue;
                    }
                    let Some(function) = node.field("function") else {
                        break;
                    };
                    if function.kind_name() != "attribute" {
                        break;
                    }
                    let (Some(object), Some(method)) =
                        (function.field("object"), function.field("attribute"))
                    else {
                        break;
                    };
                    calls.push((self.text(method), node));
                    node = object;
                }
                "identifier" => {
                    let local = self
                        .enclosing_functions(node)
                        .into_iter()
                        .find_map(|f| self.local_binding(f, node));
                    match local.or_else(|| self.module_binding(node)) {
                        Some(rhs) => node = rhs,
                        None => break,
                    }
                }
                _ => break,
            }
        }
        facts.grouping = base.and_then(|base| self.grouping(base, &calls, locals));
        let mut select: Option<Vec<Named>> = None;
        let mut known_columns = false;
        for (method, call) in calls.into_iter().rev() {
            let args = self.args(call);
            match method {
                "filter" | "where" => {
                    if let Some(arg) = args.get("condition", 0) {
                        facts.row_filters.push(RowFilter {
                            predicate: self.predicate(arg, locals),
                            span: arg.byte_range(),
                        });
                    }
                }
                "select" => {
                    let items = self.select_items(&args, locals, facts);
                    known_columns = items.is_some();
                    select = items;
                }
                "selectExpr" => {
                    let items = self.select_expr_items(&args, locals, facts);
                    known_columns = items.is_some();
                    select = items;
                }
                "withColumn" => {
                    let (Some(name), Some(value)) = (args.get("colName", 0), args.get("col", 1))
                    else {
                        continue;
                    };
                    let Some(name) = self.named(name, locals) else {
                        select = None;
                        continue;
                    };
                    if let Some(list) = select.as_mut() {
                        list.retain(|n| n.name != name.name);
                        list.push(name.clone());
                    }
                    facts.computed_columns.push(ComputedColumn {
                        expression: self.sqlish(value, locals),
                        name,
                    });
                }
                "withColumns" => {
                    let Some(map) = args
                        .positional
                        .first()
                        .filter(|m| m.kind_name() == "dictionary")
                    else {
                        select = None;
                        continue;
                    };
                    let mut c = map.walk();
                    let pairs: Vec<Node<'m>> = map.named_children(&mut c).collect();
                    for pair in pairs {
                        let (Some(k), Some(v)) = (pair.field("key"), pair.field("value")) else {
                            continue;
                        };
                        let Some(name) = self.named(k, locals) else {
                            select = None;
                            continue;
                        };
                        if let Some(list) = select.as_mut() {
                            list.retain(|n| n.name != name.name);
                            list.push(name.clone());
                        }
                        facts.computed_columns.push(ComputedColumn {
                            expression: self.sqlish(v, locals),
                            name,
                        });
                    }
                }
                "withColumnRenamed" => {
                    let Some((old, new)) = self.renamed(&args, locals) else {
                        select = None;
                        continue;
                    };
                    if let Some(list) = select.as_mut() {
                        for n in list.iter_mut().filter(|n| n.name == old.name) {
                            *n = new.clone();
                        }
                    }
                }
                "drop" => {
                    let names: Option<Vec<Named>> = args
                        .positional
                        .iter()
                        .map(|n| self.named(*n, locals))
                        .collect();
                    match (names, select.as_mut()) {
                        (Some(names), Some(list)) => {
                            list.retain(|n| !names.iter().any(|d| d.name == n.name))
                        }
                        _ => select = None,
                    }
                }
                m if COLUMN_PRESERVING.contains(&m) => {}
                _ => select = None,
            }
        }
        if known_columns {
            facts.select_list = select;
        }
    }

    /// `spark.sql(text)`: its text argument.
    fn spark_sql(&self, call: Node<'m>) -> Option<Node<'m>> {
        let function = call.field("function")?;
        if function.kind_name() != "attribute"
            || self.text(function.field("attribute")?) != "sql"
            || !self.is_spark(function.field("object")?)
        {
            return None;
        }
        self.args(call).get("sqlQuery", 0)
    }

    /// The grouped aggregation of a chain (`calls` outermost first) on
    /// `base`: a batch read grouped by plain columns and counted
    /// (`.groupBy("k").count()`, `.agg(F.count("*").alias("n"))`), or a
    /// `spark.sql` query with `GROUP BY`; then only steps that keep the
    /// groups (a filter on them, a rename of the count, an order). A step
    /// that changes the rows grouped (`dropDuplicates`, `limit`, a join)
    /// or the groups kept (`limit`) is no grouping.
    fn grouping(
        &self,
        base: Node<'m>,
        calls: &[(&'m str, Node<'m>)],
        locals: &Locals,
    ) -> Option<Grouping> {
        let mut steps = calls.iter().rev().peekable();
        let mut grouping = if let Some(query) = self.spark_sql(base) {
            let Value::Str(text) = self.value(query, locals) else {
                return None;
            };
            let mut grouping = crate::sql::query_facts(&text.text)?.grouping?;
            let at = |span: &std::ops::Range<usize>| {
                text.source_span(span.clone())
                    .unwrap_or_else(|| query.byte_range())
            };
            for key in &mut grouping.keys {
                key.span = at(&key.span);
            }
            grouping.source.span = at(&grouping.source.span);
            grouping
        } else {
            let (Some(read), false) = self.read_call(base, locals)? else {
                return None;
            };
            let mut rows_filtered = false;
            let keys = loop {
                let (method, call) = steps.next()?;
                match *method {
                    "filter" | "where" => rows_filtered = true,
                    "groupBy" | "groupby" => break self.grouping_keys(*call, locals)?,
                    m if KEEP_ROWS.contains(&m) => {}
                    _ => return None,
                }
            };
            let (method, call) = steps.next()?;
            let row_counts = match *method {
                "count" if self.args(*call).positional.is_empty() => vec!["count".to_string()],
                "agg" => self.row_count_aliases(*call, locals),
                _ => return None,
            };
            Grouping {
                source: read.source,
                keys,
                row_counts,
                rows_filtered,
            }
        };
        for (method, call) in steps {
            match *method {
                "withColumnRenamed" => {
                    let (old, new) = self.renamed(&self.args(*call), locals)?;
                    for count in grouping.row_counts.iter_mut().filter(|c| **c == old.name) {
                        *count = new.name.clone();
                    }
                }
                m if KEEP_GROUPS.contains(&m) => {}
                _ => return None,
            }
        }
        Some(grouping)
    }

    /// The literal names of `.withColumnRenamed(existing, new)`.
    fn renamed(
        &self,
        args: &crate::python_model::Args<'m>,
        locals: &Locals,
    ) -> Option<(Named, Named)> {
        let old = self.named(args.get("existing", 0)?, locals)?;
        let new = self.named(args.get("new", 1)?, locals)?;
        Some((old, new))
    }

    /// The keys of `.groupBy("a", F.col("b"))` / `.groupBy(["a", "b"])`,
    /// when every one is a plain column.
    fn grouping_keys(&self, call: Node<'m>, locals: &Locals) -> Option<Vec<Named>> {
        let args = self.args(call);
        if args.splat || !args.keywords.is_empty() {
            return None;
        }
        let mut nodes = Vec::new();
        for arg in &args.positional {
            if matches!(arg.kind_name(), "list" | "tuple") {
                let mut c = arg.walk();
                nodes.extend(arg.named_children(&mut c));
            } else {
                nodes.push(*arg);
            }
        }
        let keys: Vec<Named> = nodes
            .into_iter()
            .map(|node| match node.kind_name() {
                "call" if self.is_col(node) => {
                    let args = self.args(node);
                    self.named(args.positional.first().copied()?, locals)
                }
                _ => self.named(node, locals),
            })
            .map(|named| column_name(named?))
            .collect::<Option<_>>()?;
        (!keys.is_empty()).then_some(keys)
    }

    /// The aliases of `.agg(...)` items counting a group's rows:
    /// `F.count("*").alias("n")`, `F.count(F.lit(1)).alias("n")`.
    fn row_count_aliases(&self, call: Node<'m>, locals: &Locals) -> Vec<String> {
        let args = self.args(call);
        let mut out = Vec::new();
        for item in &args.positional {
            let Some(function) = item.field("function") else {
                continue;
            };
            if item.kind_name() != "call"
                || function.kind_name() != "attribute"
                || !function
                    .field("attribute")
                    .is_some_and(|a| matches!(self.text(a), "alias" | "name"))
            {
                continue;
            }
            let (Some(counted), Some(alias)) = (
                function.field("object"),
                self.args(*item)
                    .positional
                    .first()
                    .and_then(|n| self.named(*n, locals)),
            ) else {
                continue;
            };
            if self.counts_rows(counted, locals) {
                out.push(alias.name);
            }
        }
        out
    }

    /// `F.count("*")`, `count(lit(1))`.
    fn counts_rows(&self, node: Node<'m>, locals: &Locals) -> bool {
        let Some(function) = node.field("function") else {
            return false;
        };
        if node.kind_name() != "call" || last_segment(self.text(function)) != "count" {
            return false;
        }
        let args = self.args(node);
        let [only] = args.positional.as_slice() else {
            return false;
        };
        match only.kind_name() {
            "call" => {
                let f = only.field("function");
                f.is_some_and(|f| last_segment(self.text(f)) == "lit")
                    && matches!(self.args(*only).positional.as_slice(), [one] if self.text(*one) == "1")
            }
            _ => matches!(self.value(*only, locals), Value::Str(s) if s.text == "*"),
        }
    }

    /// A filter argument: a SQL string (or `F.expr("...")`), else unknown.
    fn predicate(&self, arg: Node<'m>, locals: &Locals) -> Constraint {
        let arg = self.expr_argument(arg).unwrap_or(arg);
        match self.value(arg, locals) {
            Value::Str(s) => Constraint::Known(s),
            Value::Unknown { span, reason } => {
                let column = matches!(
                    arg.kind_name(),
                    "comparison_operator" | "unary_operator" | "boolean_operator" | "not_operator"
                ) || (arg.kind_name() == "binary_operator"
                    && arg
                        .field("operator")
                        .is_some_and(|o| matches!(self.text(o), "&" | "|")))
                    || arg.kind_name() == "call";
                if column {
                    Constraint::Unknown {
                        span: arg.byte_range(),
                        reason: format!(
                            "a Column expression (`{}`), not a SQL string",
                            first_line(self.text(arg))
                        ),
                    }
                } else {
                    Constraint::Unknown { span, reason }
                }
            }
            _ => Constraint::Unknown {
                span: arg.byte_range(),
                reason: "not a string".to_string(),
            },
        }
    }

    /// The SQL string of `F.expr("...")` / `expr("...")`.
    fn expr_argument(&self, node: Node<'m>) -> Option<Node<'m>> {
        if node.kind_name() != "call" {
            return None;
        }
        let function = node.field("function")?;
        if last_segment(self.text(function)) != "expr" {
            return None;
        }
        self.args(node).get("str", 0)
    }

    fn select_items(
        &self,
        args: &crate::python_model::Args<'m>,
        locals: &Locals,
        facts: &mut FrameFacts,
    ) -> Option<Vec<Named>> {
        if args.splat || !args.keywords.is_empty() {
            return None;
        }
        let mut items = Vec::new();
        for arg in &args.positional {
            if matches!(arg.kind_name(), "list" | "tuple") {
                let mut c = arg.walk();
                for item in arg.named_children(&mut c) {
                    items.push(self.select_item(item, locals, facts)?);
                }
            } else {
                items.push(self.select_item(*arg, locals, facts)?);
            }
        }
        Some(items)
    }

    /// One `select` item's output name: `"a"`, `col("a")`, `x.alias("a")`.
    fn select_item(
        &self,
        node: Node<'m>,
        locals: &Locals,
        facts: &mut FrameFacts,
    ) -> Option<Named> {
        match node.kind_name() {
            "string" | "identifier" | "concatenated_string" => {
                let named = self.named(node, locals)?;
                column_name(named)
            }
            "call" => {
                let function = node.field("function")?;
                let callee = self.text(function);
                let args = self.args(node);
                if function.kind_name() == "attribute" {
                    let method = self.text(function.field("attribute")?);
                    if matches!(method, "alias" | "name") {
                        let object = function.field("object")?;
                        let name = self.named(args.positional.first().copied()?, locals)?;
                        if !self.is_col(object) {
                            facts.computed_columns.push(ComputedColumn {
                                name: name.clone(),
                                expression: self.sqlish(object, locals),
                            });
                        }
                        return Some(name);
                    }
                }
                if matches!(last_segment(callee), "col" | "column") {
                    let named = self.named(args.positional.first().copied()?, locals)?;
                    return column_name(named);
                }
                None
            }
            _ => None,
        }
    }

    fn is_col(&self, node: Node<'m>) -> bool {
        node.kind_name() == "call"
            && node
                .field("function")
                .is_some_and(|f| matches!(last_segment(self.text(f)), "col" | "column"))
    }

    /// `selectExpr("a", "b AS c", "current_timestamp() AS ts")`.
    fn select_expr_items(
        &self,
        args: &crate::python_model::Args<'m>,
        locals: &Locals,
        facts: &mut FrameFacts,
    ) -> Option<Vec<Named>> {
        if args.splat || !args.keywords.is_empty() {
            return None;
        }
        let mut items = Vec::new();
        for arg in &args.positional {
            let Value::Str(s) = self.value(*arg, locals) else {
                return None;
            };
            let text = s.text.trim_end();
            let lower = text.to_ascii_lowercase();
            let (expression, name_at) = match lower.rfind(" as ") {
                Some(i) => (text[..i].trim(), i + 4),
                None => (text, 0),
            };
            let name = text[name_at..].trim().trim_matches('`');
            if name.is_empty()
                || !name
                    .chars()
                    .all(|c| c.is_alphanumeric() || c == '_' || c == '.')
            {
                return None;
            }
            let start = name_at + text[name_at..].find(name.chars().next()?).unwrap_or(0);
            let named = Named {
                name: name.rsplit('.').next().unwrap_or(name).to_string(),
                span: s
                    .source_span(start..start + name.len())
                    .unwrap_or_else(|| arg.byte_range()),
            };
            if name_at > 0 && expression != name {
                facts.computed_columns.push(ComputedColumn {
                    name: named.clone(),
                    expression: expression.to_string(),
                });
            }
            items.push(named);
        }
        Some(items)
    }

    /// A Column expression as SQL-ish text: `F.col("ts")` -> `ts`,
    /// `F.current_timestamp()` -> `current_timestamp()`, `"ts"` -> `ts`,
    /// `F.expr("a + 1")` -> `a + 1`; anything else as written.
    pub(crate) fn sqlish(&self, node: Node<'m>, locals: &Locals) -> String {
        self.sqlish_at(node, locals, 0)
    }

    fn sqlish_at(&self, node: Node<'m>, locals: &Locals, depth: usize) -> String {
        let written = || self.text(node).to_string();
        if depth > 32 {
            return written();
        }
        let inner = |n: Node<'m>| self.sqlish_at(n, locals, depth + 1);
        match node.kind_name() {
            "string" | "concatenated_string" | "identifier" => match self.value(node, locals) {
                Value::Str(s) => s.text,
                _ => written(),
            },
            "integer" | "float" => written(),
            "true" => "true".to_string(),
            "false" => "false".to_string(),
            "none" => "NULL".to_string(),
            "parenthesized_expression" => match node.named_child(0) {
                Some(n) => format!("({})", inner(n)),
                None => written(),
            },
            "unary_operator" => {
                let (Some(op), Some(arg)) = (node.field("operator"), node.field("argument")) else {
                    return written();
                };
                match self.text(op) {
                    "~" => format!("NOT ({})", inner(arg)),
                    "-" => format!("-{}", inner(arg)),
                    _ => written(),
                }
            }
            "binary_operator" => {
                let (Some(l), Some(op), Some(r)) = (
                    node.field("left"),
                    node.field("operator"),
                    node.field("right"),
                ) else {
                    return written();
                };
                let op = match self.text(op) {
                    "&" => "AND",
                    "|" => "OR",
                    other => other,
                };
                format!("{} {op} {}", inner(l), inner(r))
            }
            "comparison_operator" => {
                let mut c = node.walk();
                let mut out = String::new();
                for child in node.children(&mut c) {
                    if child.is_named() {
                        out.push_str(&inner(child));
                    } else {
                        let op = match self.text(child) {
                            "==" => "=",
                            "!=" => "<>",
                            other => other,
                        };
                        out.push(' ');
                        out.push_str(op);
                        out.push(' ');
                    }
                }
                out
            }
            "call" => {
                let Some(function) = node.field("function") else {
                    return written();
                };
                let args = self.args(node);
                if args.splat {
                    return written();
                }
                let (name, object) = match function.kind_name() {
                    "identifier" => (self.text(function), None),
                    "attribute" => {
                        let (Some(object), Some(attribute)) =
                            (function.field("object"), function.field("attribute"))
                        else {
                            return written();
                        };
                        (self.text(attribute), Some(object))
                    }
                    _ => return written(),
                };
                match object {
                    // A function of a namespace (`F.coalesce(...)`) or a bare one.
                    None => self.sql_function(name, &args, locals, depth),
                    Some(o) if o.kind_name() == "identifier" => {
                        self.sql_function(name, &args, locals, depth)
                    }
                    // A method of a Column (`F.col("a").cast("int")`).
                    Some(o) => match (name, args.positional.first()) {
                        ("alias" | "name", _) => inner(o),
                        ("cast" | "astype", Some(t)) => {
                            let t = match self.value(*t, locals) {
                                Value::Str(s) => s.text,
                                _ => self.text(*t).to_string(),
                            };
                            format!("CAST({} AS {t})", inner(o))
                        }
                        ("isNull", None) => format!("{} IS NULL", inner(o)),
                        ("isNotNull", None) => format!("{} IS NOT NULL", inner(o)),
                        _ => written(),
                    },
                }
            }
            _ => written(),
        }
    }

    fn sql_function(
        &self,
        name: &str,
        args: &crate::python_model::Args<'m>,
        locals: &Locals,
        depth: usize,
    ) -> String {
        let inner = |n: Node<'m>| self.sqlish_at(n, locals, depth + 1);
        match (name, args.positional.as_slice()) {
            ("col" | "column", [one]) => inner(*one),
            ("expr", [one]) => match self.value(*one, locals) {
                Value::Str(s) => s.text,
                _ => inner(*one),
            },
            ("lit", [one]) => match one.kind_name() {
                "string" => match self.value(*one, locals) {
                    Value::Str(s) => format!("'{}'", s.text.replace('\'', "''")),
                    _ => inner(*one),
                },
                _ => inner(*one),
            },
            _ => {
                let parts: Vec<String> = args.positional.iter().map(|a| inner(*a)).collect();
                format!("{name}({})", parts.join(", "))
            }
        }
    }
}

fn is_parameter(reader: &Reader, function: Node, name: &str) -> bool {
    let Some(parameters) = function.field("parameters") else {
        return false;
    };
    let mut c = parameters.walk();
    let found = parameters.named_children(&mut c).any(|p| {
        let n = match p.kind_name() {
            "identifier" => Some(p),
            "default_parameter" | "typed_default_parameter" => p.field("name"),
            "typed_parameter" => p.named_child(0),
            _ => None,
        };
        n.is_some_and(|n| reader.text(n) == name)
    });
    found
}

/// The `return` statements of a function body, not of nested functions.
fn returns(body: Node) -> Vec<Node> {
    let mut out = Vec::new();
    let mut stack = vec![body];
    let mut cursor = body.walk();
    while let Some(n) = stack.pop() {
        match n.kind_name() {
            "function_definition" | "class_definition" | "lambda" => continue,
            "return_statement" => out.push(n),
            _ => {}
        }
        if !holds_statements(n) {
            continue;
        }
        crate::python_model::push_named_children(n, &mut cursor, &mut stack);
    }
    out
}

/// Whether a statement can be inside `node`: not inside an expression or
/// a simple statement that parsed without errors (the grammar puts
/// statements in blocks only). Most of a function body is expressions.
pub(crate) fn holds_statements(node: Node) -> bool {
    node.has_error()
        || !matches!(
            node.kind_name(),
            "return_statement" | "expression_statement" | "call" | "attribute"
        )
}

/// A column name as the frame names it (`t.a` -> `a`), not `*`.
fn column_name(named: Named) -> Option<Named> {
    let name = named.name.trim().trim_matches('`');
    if name.is_empty() || name.contains('*') {
        return None;
    }
    let last = name.rsplit('.').next().unwrap_or(name);
    let offset = named.name.rfind(last).unwrap_or(0);
    let span = if named.span.len() == named.name.len() {
        named.span.start + offset..named.span.start + offset + last.len()
    } else {
        named.span.clone()
    };
    Some(Named {
        name: last.to_string(),
        span,
    })
}

fn dedup_reads(reads: &mut Vec<Read>) {
    let mut seen = HashSet::new();
    reads.retain(|r| seen.insert((r.source.span.clone(), r.streaming)));
}

fn last_segment(callee: &str) -> &str {
    callee.rsplit('.').next().unwrap_or(callee)
}

fn first_line(text: &str) -> &str {
    text.lines().next().unwrap_or("")
}
