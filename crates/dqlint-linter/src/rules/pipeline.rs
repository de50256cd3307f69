//! Pipeline sources (`spec/dlt.md`): Lakeflow Declarative Pipelines in
//! Python and SQL, read by `dqlint-pipeline` into the pipeline model once
//! per lint run ([`sources`]); the DQ9xx rules read that model.

use std::ops::Range;

use dqlint_pipeline::model::{Constraint, Dataset, Language, PipelineExpectation, PipelineFile};
use dqlint_pipeline::quarantine::{constraint_span, QuarantinePattern};
use dqlint_project::{FileId, FileKind, Project, SourceFile};

use crate::engine::Context;

pub mod dq901_dlt_unknown_expectation_decorator;
pub mod dq902_dlt_expectation_misplaced;
pub mod dq903_dlt_expectation_arguments;
pub mod dq904_dlt_duplicate_expectation_name;
pub mod dq905_dlt_unsupported_on_runtime;
pub mod dq906_dlt_legacy_api;
pub mod dq910_dlt_constraint_python_udf;
pub mod dq911_dlt_constraint_not_static;
pub mod dq912_dlt_warn_only_expectations;
pub mod dq920_dlt_quarantine_not_negation;
pub mod dq921_dlt_quarantine_null_gap;
pub mod dq922_dlt_quarantine_warn_rule;
pub mod dq923_dlt_quarantine_fail_rule;
pub mod dq924_dlt_quarantine_separate_reads;
pub mod dq925_dlt_reinject_schema_mismatch;
pub mod dq930_dlt_cdc_source_not_a_name;
pub mod dq931_dlt_cdc_target_not_declared;
pub mod dq932_dlt_cdc_sequence_by_missing;
pub mod dq933_dlt_cdc_sequence_by_processing_time;
pub mod dq934_dlt_cdc_qualified_column;
pub mod dq935_dlt_cdc_include_and_except;
pub mod dq936_dlt_cdc_track_history_without_scd2;
pub mod dq937_dlt_cdc_invalid_scd_type;

/// One pipeline source with what it declares.
pub struct PipelineSource<'a> {
    pub file: &'a SourceFile,
    pub model: PipelineFile,
}

impl PipelineSource<'_> {
    pub fn id(&self) -> FileId {
        self.file.id
    }

    pub fn language(&self) -> Language {
        match self.file.kind {
            FileKind::PipelineSql => Language::Sql,
            _ => Language::Python,
        }
    }
}

/// Every pipeline source of the project that could be read, in project
/// order (read once per lint run, whichever rule asks first).
pub fn sources<'c, 'a>(ctx: &'c Context<'a>) -> &'c [PipelineSource<'a>] {
    ctx.pipeline_sources.get_or_init(|| read_sources(ctx))
}

/// Builds what the pipeline rules share before the rules start: the
/// sources, then (when a selected rule reads them) the quarantine patterns
/// and the expression findings, each built in parallel itself. Built
/// lazily by the first rule that asks, they kept the other rule threads
/// waiting on the `OnceLock`, so their parallel parts ran on one core.
pub(crate) fn prepare(ctx: &Context, selected: &[&crate::registry::RuleMeta]) {
    if sources(ctx).is_empty() {
        return;
    }
    let reads = |family: &str| selected.iter().any(|r| r.code.starts_with(family));
    rayon::join(
        || {
            if reads("DQ92") {
                quarantine_patterns(ctx);
            }
        },
        || {
            if reads("DQ30") {
                crate::expressions::findings(ctx);
            }
        },
    );
}

fn read_sources<'a>(ctx: &Context<'a>) -> Vec<PipelineSource<'a>> {
    use rayon::prelude::*;
    let files: Vec<&'a SourceFile> = ctx
        .project
        .files
        .iter()
        .filter(|f| f.kind.is_pipeline() && f.read_error.is_none())
        .collect();
    files
        .into_par_iter()
        .map(|file| PipelineSource {
            file,
            model: read_model(ctx, file),
        })
        .collect()
}

fn read_model(ctx: &Context, file: &SourceFile) -> PipelineFile {
    read(ctx.project, file)
}

/// The pipeline model of one source of `project`: the SQL reader for a
/// SQL source, the Python reader for a Python one, with the modules of
/// the project it imports names from (one level: the loader read them).
/// The language server reads the file under the cursor with it.
pub fn read(project: &Project, file: &SourceFile) -> PipelineFile {
    if file.kind == FileKind::PipelineSql {
        return dqlint_pipeline::sql::read(&file.text);
    }
    dqlint_pipeline::python_model::read(&file.text, &|module| {
        imported_module(project, file, module).map(|f| f.text.to_string())
    })
}

/// The module of `project` that `file` imports as `module` (`rules`,
/// `conf.rules`, `.rules`), as the loader found it: where the values the
/// reader takes from it are written.
pub fn imported_module<'p>(
    project: &'p Project,
    file: &SourceFile,
    module: &str,
) -> Option<&'p SourceFile> {
    dqlint_project::dialect::module_candidates(&file.rel, module)
        .iter()
        .find_map(|rel| {
            project
                .files
                .iter()
                .find(|f| &f.rel == rel && f.read_error.is_none())
        })
}

/// A Python UDF the pipeline can reach: defined or registered in one of
/// its sources or in a project module a source imports.
pub struct PythonUdf {
    /// Lower-cased: SQL resolves function names case-insensitively.
    pub name: String,
    pub file: FileId,
    pub span: Range<usize>,
}

/// Every Python UDF of the pipeline sources and of the project modules
/// they import (the loader reads those as [`FileKind::PythonModule`]).
pub fn python_udfs(ctx: &Context) -> Vec<PythonUdf> {
    let in_sources = sources(ctx).iter().flat_map(|s| {
        s.model.python_udfs.iter().map(|u| PythonUdf {
            name: u.name.to_ascii_lowercase(),
            file: s.id(),
            span: u.span.clone(),
        })
    });
    let in_modules = ctx
        .project
        .files
        .iter()
        .filter(|f| f.kind == FileKind::PythonModule && f.read_error.is_none())
        .flat_map(|f| {
            let model = dqlint_pipeline::python_model::read(&f.text, &|_| None);
            model.python_udfs.into_iter().map(|u| PythonUdf {
                name: u.name.to_ascii_lowercase(),
                file: f.id,
                span: u.span,
            })
        });
    in_sources.chain(in_modules).collect()
}

/// Every clean/quarantine pair of the pipeline sources
/// (`dqlint_pipeline::quarantine`), the quarantine recognised by `[dlt]
/// quarantine_names` or by its use of the clean dataset's rule texts. The
/// file index of each side is an index into [`sources`].
pub fn quarantine_patterns<'c>(ctx: &'c Context) -> Vec<QuarantinePattern<'c>> {
    let datasets = indexed_datasets(ctx);
    // Found once per run (six rules read them): the analysis parses and
    // compares every candidate pair's predicates.
    ctx.quarantine_patterns
        .get_or_init(|| {
            dqlint_pipeline::quarantine::pattern_positions(&datasets, |name| {
                ctx.dlt.is_quarantine_name(name)
            })
        })
        .iter()
        .filter_map(|p| p.view(&datasets))
        .collect()
}

/// Every dataset of the pipeline sources with the index of its source in
/// [`sources`], as `dqlint_pipeline`'s cross-dataset analyses take them.
pub fn indexed_datasets<'c>(ctx: &'c Context) -> Vec<(usize, &'c Dataset)> {
    sources(ctx)
        .iter()
        .enumerate()
        .flat_map(|(i, s)| s.model.datasets.iter().map(move |d| (i, d)))
        .collect()
}

/// What a failing row does, as the shared expectation model says it.
pub fn rule_action(action: dqlint_pipeline::model::ExpectAction) -> dqlint_project::RuleAction {
    use dqlint_pipeline::model::ExpectAction;
    use dqlint_project::RuleAction;
    match action {
        ExpectAction::Warn => RuleAction::Warn,
        ExpectAction::Drop => RuleAction::Drop,
        ExpectAction::Fail => RuleAction::Fail,
    }
}

/// The file of a source index of [`quarantine_patterns`].
pub fn file_at(ctx: &Context, index: usize) -> FileId {
    sources(ctx)[index].id()
}

/// Where a quarantine dataset's row predicate is written: its (first) row
/// filter, else its name.
pub fn quarantine_site(pattern: &QuarantinePattern) -> Range<usize> {
    let q = pattern.quarantine.1;
    q.row_filters
        .first()
        .map(|f| f.span.clone())
        .unwrap_or_else(|| q.name.span.clone())
}

/// Where an expectation is declared: its constraint text, else the
/// decorator or `CONSTRAINT` clause.
pub fn expectation_site(e: &PipelineExpectation) -> Range<usize> {
    constraint_span(&e.constraint).unwrap_or_else(|| e.origin.clone())
}

/// An expectation as the messages name it: `` `valid_price` `` or its text.
pub fn expectation_label(e: &PipelineExpectation) -> String {
    match (&e.name, &e.constraint) {
        (Some(name), _) => format!("`{}`", name.name),
        (None, Constraint::Known(text)) => format!("`{}`", text.text),
        (None, Constraint::Unknown { .. }) => "an expectation".to_string(),
    }
}

/// A Python string literal holding `text` (double quotes, escaped).
pub fn python_string(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for c in text.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '"' => out.push_str("\\\""),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

pub use dqlint_pipeline::quarantine::dataset_key;

/// Whether two written names name one dataset: equal keys, or one
/// unqualified and equal to the other's last part.
pub fn same_dataset(a: &str, b: &str) -> bool {
    let (a, b) = (dataset_key(a), dataset_key(b));
    if a == b {
        return true;
    }
    let last = |s: &str| s.rsplit('.').next().unwrap_or("").to_string();
    (!a.contains('.') && a == last(&b)) || (!b.contains('.') && b == last(&a))
}

/// The pipeline sources as the shared expectation model: one dataset per
/// declared dataset, each known constraint with its action.
pub struct PipelineExpectations<'c, 'a>(pub &'c [PipelineSource<'a>]);

impl dqlint_project::ExpectationSource for PipelineExpectations<'_, '_> {
    fn datasets(&self, _envs: &[dqlint_project::Env]) -> Vec<dqlint_project::DatasetExpectations> {
        use dqlint_project::{
            Check, DatasetExpectations, Dialect, Enforcement, Expectation, SourceSpan,
        };
        let mut out = Vec::new();
        for source in self.0 {
            let dialect = match source.language() {
                Language::Python => Dialect::PipelinePython,
                Language::Sql => Dialect::PipelineSql,
            };
            for dataset in &source.model.datasets {
                let expectations = dataset
                    .expectations
                    .iter()
                    .filter_map(|e| {
                        let Constraint::Known(text) = &e.constraint else {
                            return None;
                        };
                        let action = rule_action(e.action);
                        Some(Expectation {
                            name: e.name.as_ref().map(|n| n.name.clone()),
                            check: Check::Sql(text.text.clone()),
                            enforcement: Enforcement::Row(action),
                            origin: SourceSpan {
                                file: source.id(),
                                span: expectation_site(e),
                            },
                        })
                    })
                    .collect();
                out.push(DatasetExpectations {
                    dataset: dataset.name.name.clone(),
                    dialect,
                    origin: SourceSpan {
                        file: source.id(),
                        span: dataset.name.span.clone(),
                    },
                    expectations,
                });
            }
        }
        out
    }
}

/// The datasets of the pipeline sources by name, for lookups in loops
/// (no scan of every source per lookup): names match as [`same_dataset`]
/// says.
pub struct DatasetIndex<'c> {
    exact: std::collections::HashMap<String, (FileId, &'c Dataset)>,
    by_last: std::collections::HashMap<String, (FileId, &'c Dataset)>,
}

impl<'c> DatasetIndex<'c> {
    pub fn new(ctx: &'c Context) -> DatasetIndex<'c> {
        let mut index = DatasetIndex {
            exact: Default::default(),
            by_last: Default::default(),
        };
        for source in sources(ctx) {
            for d in &source.model.datasets {
                let key = dataset_key(&d.name.name);
                let last = key.rsplit('.').next().unwrap_or("").to_string();
                index.exact.entry(key).or_insert((source.id(), d));
                index.by_last.entry(last).or_insert((source.id(), d));
            }
        }
        index
    }

    pub fn get(&self, name: &str) -> Option<(FileId, &'c Dataset)> {
        let key = dataset_key(name);
        if let Some(found) = self.exact.get(&key) {
            return Some(*found);
        }
        let last = key.rsplit('.').next().unwrap_or("");
        match key.contains('.') {
            // A qualified name matches an unqualified dataset of its last part.
            true => self.exact.get(last).copied(),
            false => self.by_last.get(last).copied(),
        }
    }
}

/// A call of a `[dlt] rule_loaders` function as an expectation argument,
/// `get_rules("orders")`: the loader as written and its literal entry name.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LoaderCall {
    /// The callee as written (`get_rules`, `registry.get_rules`).
    pub callee: String,
    /// The one string-literal argument, and its span in the file (quotes
    /// included); `None` when the argument is anything else.
    pub entry: Option<(String, Range<usize>)>,
}

/// The loader call written at `span` of `text` (an expectation argument
/// the evaluator did not know), when its callee is one of `loaders` (by
/// its full dotted name or its last part).
pub fn loader_call(text: &str, span: &Range<usize>, loaders: &[String]) -> Option<LoaderCall> {
    let written = text.get(span.clone())?;
    let open = written.find('(')?;
    let callee = written[..open].trim();
    let last = callee.rsplit('.').next().unwrap_or(callee);
    if !loaders.iter().any(|l| l == callee || l == last) {
        return None;
    }
    let inner = written[open + 1..].strip_suffix(')')?;
    let lead = inner.len() - inner.trim_start().len();
    let argument = inner.trim();
    let literal = (|| {
        let quote = argument
            .chars()
            .next()
            .filter(|q| *q == '"' || *q == '\'')?;
        let body = argument.strip_prefix(quote)?.strip_suffix(quote)?;
        // One plain literal: no escapes, no second string, no prefix.
        if body.is_empty() || body.contains(quote) || body.contains('\\') {
            return None;
        }
        let start = span.start + open + 1 + lead;
        Some((body.to_string(), start..start + argument.len()))
    })();
    Some(LoaderCall {
        callee: callee.to_string(),
        entry: literal,
    })
}

/// The rules of the registry entry `name` (`[policy] registry`), across
/// every registry file (tags may spread an entry over several), each with
/// its file; empty when no entry has the name.
pub fn registry_rules<'c>(
    ctx: &'c Context,
    name: &str,
) -> Vec<(FileId, &'c dqlint_project::rule_registry::RegistryRule)> {
    ctx.rule_registry()
        .iter()
        .flat_map(|file| {
            file.entries
                .iter()
                .filter(|e| e.name == name)
                .flat_map(move |e| e.rules.iter().map(move |r| (file.file, r)))
        })
        .collect()
}

/// Every entry name of the registry, sorted, without repeats.
pub fn registry_entry_names<'c>(ctx: &'c Context) -> Vec<&'c str> {
    let mut names: Vec<&str> = ctx
        .rule_registry()
        .iter()
        .flat_map(|f| f.entries.iter().map(|e| e.name.as_str()))
        .collect();
    names.sort_unstable();
    names.dedup();
    names
}

#[cfg(test)]
mod loader_tests {
    use super::*;

    #[test]
    fn loader_calls_and_their_entry() {
        let loaders = vec!["get_rules".to_string()];
        let text = r#"x = get_rules( "orders" )"#;
        let call = loader_call(text, &(4..text.len()), &loaders).expect("a loader call");
        assert_eq!(call.callee, "get_rules");
        let (entry, at) = call.entry.expect("literal");
        assert_eq!(entry, "orders");
        assert_eq!(&text[at], "\"orders\"");
        let dotted = "registry.get_rules('refunds')";
        let call = loader_call(dotted, &(0..dotted.len()), &loaders).expect("by last part");
        assert_eq!(call.entry.map(|e| e.0).as_deref(), Some("refunds"));
        let computed = "get_rules(f\"{layer}\")";
        let call = loader_call(computed, &(0..computed.len()), &loaders).expect("call");
        assert_eq!(call.entry, None, "an f-string is no literal entry");
        let other = "load_rules(\"orders\")";
        assert_eq!(loader_call(other, &(0..other.len()), &loaders), None);
    }
}
