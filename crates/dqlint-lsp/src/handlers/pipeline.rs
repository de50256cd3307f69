//! Pipeline sources in the editor: hover on an expectation (its decorator
//! says what happens to a failing row; its constraint, or a name or dict
//! entry holding one, shows the resolved SQL and the datasets using it),
//! and definition from `RULES['k']` to the entry and between a quarantine
//! dataset and its clean twin.

use std::fmt::Write as _;
use std::ops::Range;

use dqlint_pipeline::model::{Constraint, ExpectAction, PipelineFile};
use dqlint_pipeline::{Evaluator, PythonModule, Value};
use dqlint_project::{FileKind, SourceFile};
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

/// The SQL text a Python expression under the cursor evaluates to, with
/// the source span it comes from: a name, a subscript (`RULES['k']`), a
/// string.
fn value_at(file: &SourceFile, offset: usize) -> Option<(String, Range<usize>, Range<usize>)> {
    if file.kind != FileKind::PipelinePython {
        return None;
    }
    let module = PythonModule::parse(file.text.to_string());
    let evaluator = Evaluator::new(&module);
    let mut node = module
        .tree
        .root_node()
        .descendant_for_byte_range(offset, offset)?;
    for _ in 0..4 {
        if matches!(
            node.kind(),
            "subscript" | "identifier" | "attribute" | "string"
        ) {
            if let Value::Str(text) = evaluator.eval(node) {
                let source = text.source_span(0..text.text.len())?;
                return Some((text.text, node.byte_range(), source));
            }
        }
        node = node.parent()?;
    }
    None
}

pub fn hover(snapshot: &Snapshot, file: &SourceFile, offset: usize) -> Option<Hover> {
    if !is_pipeline(file) {
        return None;
    }
    let model = dqlint_linter::read_pipeline_source(&snapshot.project, file);
    // On a decorator or a `CONSTRAINT` clause, outside its constraint text.
    for dataset in &model.datasets {
        for e in &dataset.expectations {
            let on_text = match &e.constraint {
                Constraint::Known(text) => text
                    .source_span(0..text.text.len())
                    .is_some_and(|s| within(&s, offset)),
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
    let (sql, span, source) = value_at(file, offset).or_else(|| {
        constraint_texts(&model)
            .into_iter()
            .find(|(_, source)| within(source, offset))
            .map(|(sql, source)| (sql, source.clone(), source))
    })?;
    let users = users_of(&model, &source);
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
        Some(dataset) => kinds_of(dataset, &sql),
        None => super::hover::kinds_line(&dqlint_linter::rules::policy::classify_sql(&sql)),
    };
    let mut doc = format!("```sql\n{sql}\n```\n\n{kinds}\n\nUsed by:");
    for user in users {
        let _ = write!(doc, "\n- {user}");
    }
    Some(markdown(file, &span, doc))
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

/// The datasets whose expectations or row filters take text from `source`.
fn users_of(model: &PipelineFile, source: &Range<usize>) -> Vec<String> {
    let from_source = |c: &Constraint| match c {
        Constraint::Known(text) => text.origin.iter().flatten().any(|b| source.contains(b)),
        Constraint::Unknown { .. } => false,
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
    if let Some((_, span, source)) = value_at(file, offset) {
        if !overlaps(&span, &source) {
            return location(file, &source).into_iter().collect();
        }
    }
    // A quarantine dataset's name -> its clean twin, and back.
    let project = &snapshot.project;
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
