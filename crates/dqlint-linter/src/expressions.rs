//! Rule expressions of the expectations files in use, checked once with
//! `dqlint-sql` and mapped back into the exact characters of the YAML or
//! JSON scalar (quotes, escapes, block scalars, mapping keys).

use std::ops::Range;

use dqlint_project::{FileId, Project};
use dqlint_yaml::scalar::{decode, ScalarStyle};

use crate::engine::Context;

/// One fact about a rule expression, located in its host file.
pub struct ExpressionFinding {
    pub kind: dqlint_sql::expr::ExprFact,
    pub message: String,
    pub file: FileId,
    pub span: Range<usize>,
    /// The whole expression scalar, for related locations.
    pub expression_span: Range<usize>,
    /// Where the dialect makes the finding more severe than the rule's
    /// default (a non-boolean DQX `sql_expression` crashes the run).
    pub severity: Option<crate::diagnostic::Severity>,
    /// For a rule written in one module and used by pipeline sources that
    /// import it: where each uses it, with the dataset's name.
    pub used_at: Vec<(FileId, Range<usize>, String)>,
}

pub fn findings<'c>(ctx: &'c Context) -> &'c [ExpressionFinding] {
    ctx.expression_findings.get_or_init(|| compute(ctx))
}

fn compute(ctx: &Context) -> Vec<ExpressionFinding> {
    let mut out = Vec::new();
    for (set, _) in ctx.expectation_sets() {
        for rule in &set.rules {
            let Some(expr) = &rule.expression else {
                continue;
            };
            let options = dqlint_sql::expr::ExprOptions { udfs: &ctx.udfs };
            for f in dqlint_sql::expr::check_expression_with(&expr.text, options) {
                let span = map_to_source(
                    ctx.project,
                    set.file,
                    &expr.span,
                    &expr.text,
                    f.range.clone(),
                );
                let message = match f.kind {
                    dqlint_sql::expr::ExprFact::UnknownFunction => with_consequence(
                        &f.message,
                        "Spark cannot resolve it, and the pipeline update fails when it starts",
                    ),
                    _ => f.message,
                };
                out.push(ExpressionFinding {
                    kind: f.kind,
                    message,
                    file: set.file,
                    span,
                    expression_span: expr.span.clone(),
                    severity: None,
                    used_at: Vec::new(),
                });
            }
        }
    }
    out.extend(dqx_findings(ctx));
    out.extend(pipeline_findings(ctx));
    out.extend(registry_findings(ctx));
    out
}

/// The rules of the team's registry (`[policy] registry`): pipeline code
/// loads them into expectations (`get_rules("orders")`), so they are
/// checked as DLT constraints are, at the characters of the registry file.
fn registry_findings(ctx: &Context) -> Vec<ExpressionFinding> {
    use crate::diagnostic::Severity;
    use dqlint_sql::expr::ExprFact;

    let fails = "the pipeline update fails when it analyses a dataset that loads it";
    let mut out = Vec::new();
    let mut seen = std::collections::HashSet::new();
    for file in ctx.rule_registry() {
        for rule in file.entries.iter().flat_map(|e| &e.rules) {
            let expr = &rule.constraint;
            // A rule under several tags is one rule.
            if !seen.insert((file.file, expr.span.start)) {
                continue;
            }
            let options = dqlint_sql::expr::ExprOptions { udfs: &ctx.udfs };
            for f in dqlint_sql::expr::check_expression_with(&expr.text, options) {
                let mut severity = None;
                let message = match f.kind {
                    ExprFact::SubstitutionToken => continue,
                    ExprFact::SyntaxError | ExprFact::UnknownFunction => {
                        with_consequence(&f.message, fails)
                    }
                    ExprFact::NotRowLevel | ExprFact::NotBoolean => {
                        severity = Some(Severity::Error);
                        with_consequence(&f.message, fails)
                    }
                    ExprFact::Nondeterministic | ExprFact::TrailingKeywordAlias => f.message,
                };
                let span = map_to_source(
                    ctx.project,
                    file.file,
                    &expr.span,
                    &expr.text,
                    f.range.clone(),
                );
                out.push(ExpressionFinding {
                    kind: f.kind,
                    message,
                    file: file.file,
                    span,
                    expression_span: expr.span.clone(),
                    severity,
                    used_at: Vec::new(),
                });
            }
        }
    }
    out
}

/// The known constraints of every pipeline source (decorators, `CONSTRAINT
/// ... EXPECT`), through the same checks, at the characters of the source
/// each piece came from: a rule imported from another module of the
/// project (`from rules import RULES`) at its characters there, once
/// however many sources use it, each use a related location. DLT
/// constraints may hold no subquery or aggregate and must be boolean:
/// both are errors there.
fn pipeline_findings(ctx: &Context) -> Vec<ExpressionFinding> {
    // A call of a Python UDF of the pipeline is DQ910's finding.
    let python_udfs: Vec<String> = crate::rules::pipeline::python_udfs(ctx)
        .into_iter()
        .map(|u| u.name)
        .collect();
    // Each distinct constraint text is checked once (a rule dict shared by
    // a clean table and its quarantine twin, the same rule in many
    // pipelines), in parallel; then each source's findings are placed on
    // its own (in parallel) and findings in imported modules merged after,
    // in source order.
    use rayon::prelude::*;
    let sources = crate::rules::pipeline::sources(ctx);
    let facts = constraint_facts(ctx, sources);
    let per_source: Vec<Vec<PipelineFinding>> = sources
        .par_iter()
        .map(|source| source_findings(ctx, source, &facts, &python_udfs))
        .collect();
    let mut out = Vec::new();
    // Findings in the modules rules are imported from, once each.
    let mut imported: Vec<ExpressionFinding> = Vec::new();
    for found in per_source.into_iter().flatten() {
        match found {
            PipelineFinding::Here(finding) => out.push(finding),
            PipelineFinding::Imported { finding, used } => {
                match imported.iter_mut().find(|o: &&mut ExpressionFinding| {
                    (o.file, &o.span, o.kind, &o.message)
                        == (finding.file, &finding.span, finding.kind, &finding.message)
                }) {
                    Some(same) => same.used_at.push(used),
                    None => imported.push(ExpressionFinding {
                        used_at: vec![used],
                        ..finding
                    }),
                }
            }
        }
    }
    out.extend(imported);
    out
}

/// A finding of a pipeline constraint: in the source, or in the module
/// the constraint was imported from, with where the source uses it.
enum PipelineFinding {
    Here(ExpressionFinding),
    Imported {
        finding: ExpressionFinding,
        used: (FileId, Range<usize>, String),
    },
}

/// The SQL facts of each distinct known constraint text of the pipeline
/// sources.
fn constraint_facts<'s>(
    ctx: &Context,
    sources: &'s [crate::rules::pipeline::PipelineSource],
) -> HashMap<&'s str, Vec<dqlint_sql::expr::ExprFinding>> {
    use dqlint_pipeline::model::Constraint;
    use rayon::prelude::*;

    let mut texts: Vec<&str> = Vec::new();
    let mut seen: std::collections::HashSet<&str, foldhash::fast::FixedState> = Default::default();
    let constraints = sources
        .iter()
        .flat_map(|source| &source.model.datasets)
        .flat_map(|dataset| &dataset.expectations)
        .filter_map(|expectation| match &expectation.constraint {
            Constraint::Known(text) => Some(text.text.as_str()),
            _ => None,
        });
    for text in constraints {
        if seen.insert(text) {
            texts.push(text);
        }
    }
    texts
        .into_par_iter()
        .map(|text| {
            let options = dqlint_sql::expr::ExprOptions { udfs: &ctx.udfs };
            (text, dqlint_sql::expr::check_expression_with(text, options))
        })
        .collect()
}

/// The findings of one pipeline source's known constraints, in order.
fn source_findings(
    ctx: &Context,
    source: &crate::rules::pipeline::PipelineSource,
    facts: &HashMap<&str, Vec<dqlint_sql::expr::ExprFinding>>,
    python_udfs: &[String],
) -> Vec<PipelineFinding> {
    use crate::diagnostic::Severity;
    use dqlint_pipeline::model::Constraint;
    use dqlint_sql::expr::ExprFact;

    let fails = "the pipeline update fails when it analyses the dataset";
    let mut out = Vec::new();
    for dataset in &source.model.datasets {
        for expectation in &dataset.expectations {
            let Constraint::Known(text) = &expectation.constraint else {
                continue;
            };
            let Some(whole) = text.source_span(0..text.text.len()) else {
                continue;
            };
            for f in facts[text.text.as_str()].iter().cloned() {
                let mut severity = None;
                let message = match f.kind {
                    // `${key}` is a pipeline configuration parameter
                    // the runtime substitutes.
                    ExprFact::SubstitutionToken => continue,
                    ExprFact::UnknownFunction
                        if text.text.get(f.range.clone()).is_some_and(|called| {
                            python_udfs.contains(&called.trim_matches('`').to_ascii_lowercase())
                        }) =>
                    {
                        continue
                    }
                    ExprFact::SyntaxError | ExprFact::UnknownFunction => {
                        with_consequence(&f.message, fails)
                    }
                    ExprFact::NotRowLevel | ExprFact::NotBoolean => {
                        severity = Some(Severity::Error);
                        with_consequence(&f.message, fails)
                    }
                    ExprFact::Nondeterministic => f.message.replace(
                        "a row's verdict can differ between the clean path, the DLQ and \
                                 the recycle path",
                        "a row's verdict can differ between a clean table, its quarantine \
                                 twin and a retried update",
                    ),
                    ExprFact::TrailingKeywordAlias => f.message,
                };
                let span = text
                    .source_span(f.range.clone())
                    .or_else(|| text.source_span(f.range.start..text.text.len()))
                    .unwrap_or_else(|| whole.clone());
                let defined = |range: Range<usize>| {
                    let (module, span) = text.definition(range)?;
                    let module =
                        crate::rules::pipeline::imported_module(ctx.project, source.file, module)?;
                    Some((module.id, span))
                };
                let finding = ExpressionFinding {
                    kind: f.kind,
                    message,
                    file: source.id(),
                    span,
                    expression_span: whole.clone(),
                    severity,
                    used_at: Vec::new(),
                };
                match defined(f.range.clone()).or_else(|| defined(f.range.start..text.text.len())) {
                    Some((module, span)) => {
                        let expression_span = defined(0..text.text.len())
                            .filter(|(m, _)| *m == module)
                            .map_or_else(|| span.clone(), |(_, s)| s);
                        let used = (finding.file, whole.clone(), dataset.name.name.clone());
                        let finding = ExpressionFinding {
                            file: module,
                            span,
                            expression_span,
                            ..finding
                        };
                        out.push(PipelineFinding::Imported { finding, used });
                    }
                    None => out.push(PipelineFinding::Here(finding)),
                }
            }
        }
    }
    out
}

/// Where a SQL string sits in a DQX check, which decides what its facts
/// mean there.
#[derive(Clone, Copy, PartialEq, Eq)]
enum DqxSite {
    /// `filter`, `arguments.row_filter`, `arguments.ref_row_filter`.
    Filter,
    /// `sql_expression`'s `expression`: evaluated in a projection.
    Expression,
    /// `message_expr`: string-valued.
    Message,
    /// `sql_query`'s `query`: a whole query `spark.sql` runs.
    Query,
    /// A limit (`min_limit`, `max_limit`, `limit`, `value`) that is not a
    /// value: DQX's `get_limit_expr` reads it with `F.expr`; in a dataset
    /// rule it is compared with an aggregate.
    Limit { dataset_rule: bool },
}

impl DqxSite {
    fn name(self) -> &'static str {
        match self {
            DqxSite::Filter => "filter",
            DqxSite::Expression => "sql_expression",
            DqxSite::Message => "message_expr",
            DqxSite::Query => "query",
            DqxSite::Limit { .. } => "limit",
        }
    }
}

/// The SQL strings of every check of every DQX checks file, through the
/// same expression checks, with DQX's consequences in the messages. The
/// `[dqx] variables` are substituted first, as DQX does.
fn dqx_findings(ctx: &Context) -> Vec<ExpressionFinding> {
    use rayon::prelude::*;

    // The files in parallel, each worker with its own facts by text (a
    // large root's files repeat the same few filters); findings in file
    // order.
    let per_worker: Vec<Vec<ExpressionFinding>> = crate::rules::dqx::checks_files(ctx)
        .par_iter()
        .fold(
            || (SqlFactsByText::new(&ctx.udfs), Vec::new()),
            |(mut facts_of, mut out), file| {
                dqx_file_findings(ctx, file, &mut facts_of, &mut out);
                (facts_of, out)
            },
        )
        .map(|(_, out)| out)
        .collect();
    per_worker.into_iter().flatten().collect()
}

/// The findings of [`dqx_findings`] in one checks file, into `out`.
fn dqx_file_findings(
    ctx: &Context,
    file: &crate::rules::dqx::ChecksFile,
    facts_of: &mut SqlFactsByText,
    out: &mut Vec<ExpressionFinding>,
) {
    use crate::diagnostic::Severity;
    use dqlint_sql::expr::ExprFact;

    let crashes = "the DQX run fails when it applies the check";
    let catalogue = crate::rules::dqx::catalogue_of(ctx);
    for (item, fields) in file.checks() {
        for (node, site) in dqx_sql_strings(catalogue, &ctx.dqx.variables, item, fields) {
            let Some(text) = node.as_str() else { continue };
            let read = crate::rules::dqx::substitute(text, &ctx.dqx.variables);
            let facts = facts_of.get(site == DqxSite::Query, &read.text);
            for f in facts.iter().cloned() {
                let mut severity = None;
                let skipped = || {
                    format!(
                        "DQX cannot evaluate this {}, so it skips the check at run time \
                         and every row is flagged (quarantined when the criticality is \
                         `error`)",
                        site.name()
                    )
                };
                let message = match (f.kind, site) {
                    (ExprFact::SubstitutionToken, _) => continue,
                    (ExprFact::NotBoolean, DqxSite::Message | DqxSite::Limit { .. }) => continue,
                    (ExprFact::NotRowLevel, DqxSite::Limit { dataset_rule: true }) => continue,
                    (ExprFact::NotRowLevel, DqxSite::Expression)
                        if f.message.starts_with(dqlint_sql::expr::SCALAR_SUBQUERY)
                            || f.message.starts_with(dqlint_sql::expr::WINDOW_OVER) =>
                    {
                        continue
                    }
                    (
                        ExprFact::SyntaxError | ExprFact::UnknownFunction,
                        DqxSite::Query | DqxSite::Limit { .. },
                    ) => {
                        severity = Some(Severity::Error);
                        with_consequence(&f.message, crashes)
                    }
                    (ExprFact::SyntaxError | ExprFact::UnknownFunction, _) => {
                        with_consequence(&f.message, &skipped())
                    }
                    (ExprFact::NotBoolean, _) => {
                        if site == DqxSite::Expression {
                            severity = Some(Severity::Error);
                        }
                        with_consequence(
                            &f.message,
                            &format!("a non-boolean {} crashes the DQX run", site.name()),
                        )
                    }
                    (ExprFact::NotRowLevel, DqxSite::Limit { .. }) => {
                        severity = Some(Severity::Error);
                        f.message.replace(
                            "in an expectation: an expectation is evaluated per row",
                            &format!("in the limit of a row rule: {crashes}"),
                        )
                    }
                    (ExprFact::NotRowLevel, _) => {
                        if site == DqxSite::Expression {
                            severity = Some(Severity::Error);
                        }
                        f.message.replace(
                            "in an expectation: an expectation is evaluated per row",
                            &format!(
                                "in a {}: DQX evaluates it per row, cannot evaluate this, \
                                 and skips the check at run time, so every row is flagged \
                                 (quarantined when the criticality is `error`)",
                                site.name()
                            ),
                        )
                    }
                    (ExprFact::Nondeterministic, _) => f.message.replace(
                        "a row's verdict can differ between the clean path, the DLQ and \
                         the recycle path",
                        "a rerun of the same checks can split the rows differently",
                    ),
                    (ExprFact::TrailingKeywordAlias, _) => f.message,
                };
                // Facts inside a placeholder left unresolved are DQ824's.
                if read.in_unresolved(&f.range) {
                    continue;
                }
                let range = read.written(f.range.clone());
                out.push(ExpressionFinding {
                    kind: f.kind,
                    message,
                    file: file.id(),
                    span: crate::rules::dqx::string_span(ctx, file, node, text, range),
                    expression_span: node.span.clone(),
                    severity,
                    used_at: Vec::new(),
                });
            }
        }
    }
}

/// The expression engine's facts about each distinct SQL text, found once:
/// checks files repeat the same filters and expressions across checks and
/// files (a fact's range is within the text, so it holds wherever the text
/// is written; each use maps it to its own characters).
struct SqlFactsByText<'u> {
    udfs: &'u [String],
    expressions: HashMap<String, Vec<dqlint_sql::expr::ExprFinding>>,
    queries: HashMap<String, Vec<dqlint_sql::expr::ExprFinding>>,
}

impl<'u> SqlFactsByText<'u> {
    fn new(udfs: &'u [String]) -> Self {
        SqlFactsByText {
            udfs,
            expressions: HashMap::default(),
            queries: HashMap::default(),
        }
    }

    /// The facts of `text`, read as a query or as an expression.
    fn get(&mut self, query: bool, text: &str) -> &[dqlint_sql::expr::ExprFinding] {
        let options = dqlint_sql::expr::ExprOptions { udfs: self.udfs };
        let seen = if query {
            &mut self.queries
        } else {
            &mut self.expressions
        };
        if !seen.contains_key(text) {
            let facts = if query {
                dqlint_sql::expr::check_query_with(text, options)
            } else {
                dqlint_sql::expr::check_expression_with(text, options)
            };
            seen.insert(text.to_string(), facts);
        }
        &seen[text]
    }
}

/// A map keyed by the project's own SQL texts: a fast hash does.
type HashMap<K, V> = std::collections::HashMap<K, V, foldhash::fast::FixedState>;

/// The SQL strings of one check item (strings only: another type is
/// DQ805's or DQ813's).
fn dqx_sql_strings<'t>(
    catalogue: &dqlint_dqx::Catalogue,
    variables: &std::collections::BTreeMap<String, String>,
    item: &'t dqlint_dqx::Typed,
    fields: crate::rules::dqx::CheckFields<'t>,
) -> Vec<(&'t dqlint_dqx::Typed, DqxSite)> {
    use crate::rules::dqx::dq823_dqx_limit_is_expression::{is_expression, LIMITS};

    let mut out = Vec::new();
    if item.as_map().is_none() {
        return out;
    }
    out.extend(fields.filter.map(|f| (f, DqxSite::Filter)));
    out.extend(fields.message_expr.map(|m| (m, DqxSite::Message)));
    let Some(args) = fields.arguments.and_then(|a| a.as_map()) else {
        return out;
    };
    // One walk over the arguments for every key read here (the last of a
    // repeated key wins, as in Python's dict).
    let (mut row_filter, mut ref_row_filter, mut expression, mut query) = (None, None, None, None);
    let mut limits: [Option<&dqlint_dqx::Typed>; LIMITS.len()] = [None; LIMITS.len()];
    for entry in args {
        let Some(key) = entry.key.as_str() else {
            continue;
        };
        let value = Some(&entry.value);
        match key {
            "row_filter" => row_filter = value,
            "ref_row_filter" => ref_row_filter = value,
            "expression" => expression = value,
            "query" => query = value,
            _ => {
                if let Some(i) = LIMITS.iter().position(|l| *l == key) {
                    limits[i] = value;
                }
            }
        }
    }
    out.extend(row_filter.map(|v| (v, DqxSite::Filter)));
    out.extend(ref_row_filter.map(|v| (v, DqxSite::Filter)));
    let function = fields.function.and_then(|f| f.as_str());
    match function {
        Some("sql_expression") => out.extend(expression.map(|v| (v, DqxSite::Expression))),
        Some("sql_query") => out.extend(query.map(|v| (v, DqxSite::Query))),
        _ => {}
    }
    if let Some(f) = function.and_then(|f| catalogue.any_function(f)) {
        let dataset_rule = f.rule_type == dqlint_dqx::RuleType::Dataset;
        for (key, v) in LIMITS.iter().zip(limits) {
            let Some(v) = v.filter(|_| f.param(key).is_some()) else {
                continue;
            };
            let read = v
                .as_str()
                .map(|t| crate::rules::dqx::substitute(t, variables).text);
            if read.is_some_and(|t| is_expression(&t)) {
                out.push((v, DqxSite::Limit { dataset_rule }));
            }
        }
    }
    out.retain(|(node, _)| node.as_str().is_some());
    out
}

/// A finding's message with what it means in the dialect at hand, ahead of
/// a did-you-mean.
pub fn with_consequence(message: &str, consequence: &str) -> String {
    match message.split_once("; did you mean") {
        Some((head, tail)) => format!("{head}: {consequence}; did you mean{tail}"),
        None => format!("{message}: {consequence}"),
    }
}

/// Maps a byte range of the decoded expression to the file.
pub fn map_to_source(
    project: &Project,
    file: FileId,
    scalar: &Range<usize>,
    decoded: &str,
    range: Range<usize>,
) -> Range<usize> {
    let text = &project.file(file).text;
    let Some(raw) = text.get(scalar.clone()) else {
        return scalar.clone();
    };
    let style = match raw.as_bytes().first() {
        Some(b'"') => ScalarStyle::DoubleQuoted,
        Some(b'\'') => ScalarStyle::SingleQuoted,
        Some(b'|') => ScalarStyle::Literal,
        Some(b'>') => ScalarStyle::Folded,
        _ => ScalarStyle::Plain,
    };
    let line_start = text[..scalar.start].rfind('\n').map(|i| i + 1).unwrap_or(0);
    let line = &text[line_start..scalar.start];
    let indent = line.len() - line.trim_start_matches(' ').len();
    let map = decode(raw, style, indent);
    if map.value != decoded {
        return scalar.clone();
    }
    let local = map.source_range(range);
    scalar.start + local.start..scalar.start + local.end
}

/// A SQL text of a file: decoded, its scalar's span, and the way from a
/// range of it back to the file.
type SqlText<'c> = (
    String,
    Range<usize>,
    Box<dyn Fn(Range<usize>) -> Range<usize> + 'c>,
);

/// The highlighted tokens of every SQL text in `file` (the rules of an
/// expectations file; the filters, expressions, messages and queries of a
/// DQX checks file), at their characters in the file. A token the
/// scalar's quoting makes inexact, or that spans lines, is left out.
pub fn sql_tokens(
    ctx: &Context,
    file: FileId,
) -> Vec<(Range<usize>, dqlint_sql::highlight::TokenKind)> {
    let source = ctx.project.file(file);
    let mut texts: Vec<SqlText<'_>> = Vec::new();
    if let Some(set) = ctx.project.expectations_for(&source.rel) {
        for rule in &set.rules {
            let Some(expr) = &rule.expression else {
                continue;
            };
            let (text, span) = (expr.text.clone(), expr.span.clone());
            let decoded = text.clone();
            let scalar = span.clone();
            texts.push((
                text,
                span,
                Box::new(move |r| map_to_source(ctx.project, file, &scalar, &decoded, r)),
            ));
        }
    }
    for checks in crate::rules::dqx::checks_files(ctx) {
        if checks.id() != file {
            continue;
        }
        let catalogue = crate::rules::dqx::catalogue_of(ctx);
        for (item, fields) in checks.checks() {
            for (node, _) in dqx_sql_strings(catalogue, &ctx.dqx.variables, item, fields) {
                let Some(text) = node.as_str() else { continue };
                let text = text.to_string();
                let decoded = text.clone();
                texts.push((
                    text,
                    node.span.clone(),
                    Box::new(move |r| {
                        crate::rules::dqx::string_span(ctx, checks, node, &decoded, r)
                    }),
                ));
            }
        }
    }
    let mut out = Vec::new();
    for (text, scalar, to_source) in &texts {
        for (range, kind) in dqlint_sql::highlight::highlight(text) {
            let within = &text[range.clone()];
            let at = to_source(range.clone());
            let exact = source.text.get(at.clone()) == Some(within);
            if exact && !within.contains('\n') && (at != *scalar || within.len() == at.len()) {
                out.push((at, kind));
            }
        }
    }
    out.sort_by_key(|(r, _)| (r.start, r.end));
    out.dedup_by_key(|(r, _)| r.start);
    out
}
