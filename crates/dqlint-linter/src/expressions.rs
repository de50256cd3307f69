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
                });
            }
        }
    }
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
