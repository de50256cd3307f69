//! Pipeline sources in the editor: hover on an expectation (its decorator
//! says what happens to a failing row; its constraint, or a name or dict
//! entry holding one, shows the resolved SQL and the datasets using it),
//! and definition from `RULES['k']` to the entry (in the module it is
//! imported from, for an imported name) and between a quarantine dataset
//! and its clean twin.

use std::fmt::Write as _;
use std::ops::Range;

use dqlint_pipeline::model::{Constraint, ExpectAction, PipelineFile};
use dqlint_pipeline::{Evaluated, Evaluator, PythonModule, Value};
use dqlint_project::{FileKind, Project, SourceFile};
use tower_lsp_server::ls_types::{Hover, HoverContents, Location, MarkupContent, MarkupKind};

use crate::convert::{self, UriMap};
use crate::workspace::Snapshot;

fn is_pipeline(file: &SourceFile) -> bool {
    matches!(file.kind, FileKind::PipelinePython | FileKind::PipelineSql)
}

fn within(span: &Range<usize>, offset: usize) -> bool {
    span.start <= offset && offset <= span.end
}

fn overlaps(a: &Range<usize>, b: &Range<usize>) -> bool {
    a.start < b.end && b.start < a.end
}

fn action_words(action: ExpectAction) -> (&'static str, &'static str) {
    match action {
        ExpectAction::Warn => (
            "warn",
            "a failing row is **kept** and counted in the update's data quality metrics; the update succeeds",
        ),
        ExpectAction::Drop => (
            "drop",
            "a failing row is **dropped** before it is written, and counted",
        ),
        ExpectAction::Fail => (
            "fail",
            "a failing row **stops the update**: nothing of the batch is written until the data or the rule changes",
        ),
    }
}

/// What the Python expression under the cursor evaluates to, where
/// `wanted`: a name, a subscript (`RULES['k']`), a string, or the one
/// around it; names imported from other modules of the project are bound
/// as the pipeline reader binds them. With the expression's span.
fn value_at(
    project: &Project,
    file: &SourceFile,
    offset: usize,
    wanted: fn(&Value) -> bool,
) -> Option<(Value, Range<usize>)> {
    if file.kind != FileKind::PipelinePython {
        return None;
    }
    let module = PythonModule::parse(file.text.to_string());
    let imported = dqlint_pipeline::python_model::imported_values(&module, &|name| {
        imported_module(project, file, name).map(|f| f.text.to_string())
    });
    let evaluator = Evaluator::with_imports(&module, imported);
    let mut node = module
        .tree
        .root_node()
        .descendant_for_byte_range(offset, offset)?;
    for _ in 0..4 {
        if matches!(
            node.kind(),
            "subscript" | "identifier" | "attribute" | "string"
        ) {
            let value = evaluator.eval(node);
            if wanted(&value) {
                return Some((value, node.byte_range()));
            }
        }
        node = node.parent()?;
    }
    None
}

/// The SQL text under the cursor: the text, the expression's span, the
/// span of this file it comes from (an imported value: the imported name)
/// and, for a value of another module, where that module writes it.
fn sql_at(project: &Project, file: &SourceFile, offset: usize) -> Option<SqlAt> {
    let (Value::Str(text), span) = value_at(project, file, offset, |v| matches!(v, Value::Str(_)))?
    else {
        return None;
    };
    Some(SqlAt {
        source: text.source_span(0..text.text.len())?,
        defined: text
            .definition(0..text.text.len())
            .map(|(module, span)| (module.to_string(), span)),
        sql: text.text,
        span,
    })
}

struct SqlAt {
    sql: String,
    span: Range<usize>,
    source: Range<usize>,
    defined: Option<(String, Range<usize>)>,
}

/// Where another module of the project writes `value`: every string of it
/// (a dict's keys and values, a list's items) written there, from the
/// first byte to the last.
fn defined_in(value: &Value) -> Option<(String, Range<usize>)> {
    fn strings<'v>(value: &'v Value, out: &mut Vec<&'v Evaluated>) {
        match value {
            Value::Str(s) if !s.text.is_empty() => out.push(s),
            Value::Dict(entries) => entries.iter().for_each(|(k, v)| {
                strings(k, out);
                strings(v, out);
            }),
            Value::List(items) => items.iter().for_each(|v| strings(v, out)),
            _ => {}
        }
    }
    let mut all = Vec::new();
    strings(value, &mut all);
    let mut out: Option<(String, Range<usize>)> = None;
    for s in all {
        let (module, span) = s.definition(0..s.text.len())?;
        match &mut out {
            None => out = Some((module.to_string(), span)),
            Some((m, _)) if m != module => return None,
            Some((_, whole)) => *whole = whole.start.min(span.start)..whole.end.max(span.end),
        }
    }
    out
}

/// The module of the project `file` imports as `module`.
fn imported_module<'p>(
    project: &'p Project,
    file: &SourceFile,
    module: &str,
) -> Option<&'p SourceFile> {
    dqlint_linter::rules::pipeline::imported_module(project, file, module)
}

pub fn hover(snapshot: &Snapshot, file: &SourceFile, offset: usize) -> Option<Hover> {
    if !is_pipeline(file) {
        return None;
    }
    let model = dqlint_linter::read_pipeline_source(&snapshot.project, file);
    let value = sql_at(&snapshot.project, file, offset);
    // On a decorator or a `CONSTRAINT` clause, outside its constraint text
    // (or the expression evaluating to it, such as an imported rule).
    for dataset in &model.datasets {
        for e in &dataset.expectations {
            let on_text = match &e.constraint {
                Constraint::Known(text) => text.source_span(0..text.text.len()).is_some_and(|s| {
                    within(&s, offset) || value.as_ref().is_some_and(|v| v.source == s)
                }),
                Constraint::Unknown { span, .. } => within(span, offset),
            };
            if within(&e.origin, offset) && !on_text {
                let (word, effect) = action_words(e.action);
                let name = e
                    .name
                    .as_ref()
                    .map_or("this expectation", |n| n.name.as_str());
                let mut doc = format!(
                    "**`{name}`** on `{}` ({word}): {effect}.",
                    dataset.name.name
                );
                if let Constraint::Known(text) = &e.constraint {
                    let _ = write!(
                        doc,
                        "\n\n```sql\n{}\n```\n\n{}",
                        text.text,
                        kinds_of(dataset, &text.text)
                    );
                }
                return Some(markdown(file, &e.origin, doc));
            }
        }
    }
    // On a constraint text, or on what evaluates to one.
    let at = value.or_else(|| {
        constraint_texts(&model)
            .into_iter()
            .find(|(_, source)| within(source, offset))
            .map(|(sql, source)| SqlAt {
                sql,
                span: source.clone(),
                source,
                defined: None,
            })
    })?;
    let SqlAt { sql, span, .. } = &at;
    let users = users_of(&model, &at);
    if users.is_empty() {
        return None;
    }
    // The dataset whose expectation this text is, if one is.
    let owner = model.datasets.iter().find(|d| {
        d.expectations.iter().any(|e| match &e.constraint {
            Constraint::Known(text) => text
                .source_span(0..text.text.len())
                .is_some_and(|s| within(&s, offset)),
            Constraint::Unknown { .. } => false,
        })
    });
    let kinds = match owner {
        Some(dataset) => kinds_of(dataset, sql),
        None => super::hover::kinds_line(&dqlint_linter::rules::policy::classify_sql(sql)),
    };
    let mut doc = format!("```sql\n{sql}\n```\n\n{kinds}\n\nUsed by:");
    for user in users {
        let _ = write!(doc, "\n- {user}");
    }
    Some(markdown(file, span, doc))
}

/// The policy kind line of an expectation `sql` of `dataset`: on a view
/// that groups a table by its keys and counts the rows, `n = 1` makes the
/// keys `unique` in that table (`spec/policy.md`); else the kinds its SQL
/// reads as.
fn kinds_of(dataset: &dqlint_pipeline::model::Dataset, sql: &str) -> String {
    use dqlint_pipeline::model::DatasetKind;
    if let Some(grouping) = dataset.grouping.as_ref().filter(|g| {
        !g.rows_filtered
            && dataset.kind != DatasetKind::StreamingTable
            && dqlint_pipeline::uniqueness::at_most_one(sql, &g.row_counts)
    }) {
        let keys: Vec<String> = grouping
            .keys
            .iter()
            .map(|k| format!("`{}`", k.name))
            .collect();
        return format!(
            "Policy kind: `unique` on {} of `{}` (at most one row per key, counted by this view)",
            keys.join(", "),
            grouping.source.name
        );
    }
    super::hover::kinds_line(&dqlint_linter::rules::policy::classify_sql(sql))
}

/// Every known constraint and row filter text with its whole source span.
fn constraint_texts(model: &PipelineFile) -> Vec<(String, Range<usize>)> {
    let mut out = Vec::new();
    for dataset in &model.datasets {
        let texts = dataset
            .expectations
            .iter()
            .map(|e| &e.constraint)
            .chain(dataset.row_filters.iter().map(|f| &f.predicate));
        for c in texts {
            if let Constraint::Known(text) = c {
                if let Some(span) = text.source_span(0..text.text.len()) {
                    out.push((text.text.clone(), span));
                }
            }
        }
    }
    out
}

/// The datasets whose expectations or row filters take text from where
/// `at` is written: this file's characters, or another module's.
fn users_of(model: &PipelineFile, at: &SqlAt) -> Vec<String> {
    let from_source = |c: &Constraint| match (c, &at.defined) {
        (Constraint::Known(text), None) => {
            text.origin.iter().flatten().any(|b| at.source.contains(b))
        }
        (Constraint::Known(text), Some((module, span))) => text
            .defined
            .iter()
            .flatten()
            .any(|d| *d.module == **module && span.contains(&d.offset)),
        (Constraint::Unknown { .. }, _) => false,
    };
    let mut out = Vec::new();
    for dataset in &model.datasets {
        for e in dataset
            .expectations
            .iter()
            .filter(|e| from_source(&e.constraint))
        {
            let (word, _) = action_words(e.action);
            let name = e
                .name
                .as_ref()
                .map_or(String::new(), |n| format!(" `{}`", n.name));
            out.push(format!(
                "`{}`: expectation{name} ({word})",
                dataset.name.name
            ));
        }
        if dataset
            .row_filters
            .iter()
            .any(|f| from_source(&f.predicate))
        {
            out.push(format!("`{}`: row filter", dataset.name.name));
        }
    }
    out.dedup();
    out
}

pub fn definition(
    snapshot: &Snapshot,
    uris: &UriMap,
    file: &SourceFile,
    offset: usize,
) -> Vec<Location> {
    if !is_pipeline(file) {
        return Vec::new();
    }
    let location = |file: &SourceFile, span: &Range<usize>| {
        uris.uri(&file.path).map(|uri| Location {
            uri,
            range: convert::range(file, span),
        })
    };
    // A value -> where it is written: in this file, or in the module it
    // is imported from.
    let project = &snapshot.project;
    let is_str = |v: &Value| matches!(v, Value::Str(_));
    let is_collection = |v: &Value| matches!(v, Value::Dict(_) | Value::List(_));
    if let Some((value, span)) = value_at(project, file, offset, is_str)
        .or_else(|| value_at(project, file, offset, is_collection))
    {
        if let Some((module, defined)) = defined_in(&value) {
            if let Some(module) = imported_module(project, file, &module) {
                return location(module, &defined).into_iter().collect();
            }
        }
        if let Value::Str(text) = &value {
            if let Some(source) = text.source_span(0..text.text.len()) {
                if !overlaps(&span, &source) {
                    return location(file, &source).into_iter().collect();
                }
            }
        }
    }
    // A quarantine dataset's name -> its clean twin, and back.
    let sources: Vec<&SourceFile> = project.files.iter().filter(|f| is_pipeline(f)).collect();
    let models: Vec<PipelineFile> = sources
        .iter()
        .map(|f| dqlint_linter::read_pipeline_source(project, f))
        .collect();
    let datasets: Vec<(usize, &dqlint_pipeline::model::Dataset)> = models
        .iter()
        .enumerate()
        .flat_map(|(i, m)| m.datasets.iter().map(move |d| (i, d)))
        .collect();
    let dlt = &snapshot.config.dlt;
    let mut found = Vec::new();
    for pattern in dqlint_pipeline::quarantine::patterns(&datasets, |n| dlt.is_quarantine_name(n)) {
        let (q, c) = (pattern.quarantine, pattern.clean);
        for ((here, d), (there, twin)) in [(q, c), (c, q)] {
            if sources[here].id == file.id && within(&d.name.span, offset) {
                found.extend(location(sources[there], &twin.name.span));
            }
        }
    }
    found
}

fn markdown(file: &SourceFile, span: &Range<usize>, value: String) -> Hover {
    Hover {
        contents: HoverContents::Markup(MarkupContent {
            kind: MarkupKind::Markdown,
            value,
        }),
        range: Some(convert::range(file, span)),
    }
}
