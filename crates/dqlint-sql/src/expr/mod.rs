//! Checks of one expectation's SQL boolean expression: typed facts
//! ([`ExprFact`]) at exact byte ranges.
//!
//! The expression is tokenized and parsed with sqlparser's
//! `DatabricksDialect`; positions come from the tokenizer and are mapped back
//! to byte offsets in the text given. LHP substitution tokens (`${x}`, `{x}`,
//! `%{x}`) are reported as substitution tokens and, where they stand in code, replaced by an
//! identifier of the same length before parsing, so they do not also produce
//! a syntax error.

mod boolean;
mod column_refs;
mod context;
mod function_kinds;
mod tokens;

use std::ops::{ControlFlow, Range};

use sqlparser::ast::{visit_expressions, Expr};
use sqlparser::dialect::DatabricksDialect;
use sqlparser::parser::ParserError;
use sqlparser::tokenizer::Tokenizer;

use crate::text;
use context::Ctx;
use tokens::{fixup_tokens, humanize_tokenizer_message, unquoted_word};

pub use column_refs::{column_references, ColumnRef};
pub(crate) use function_kinds::{arg_exprs, builtin_name};

/// What is wrong with an expression: a fact about the SQL, not a rule
/// (the linter's SQL rules decide which finding each becomes).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ExprFact {
    /// The expression does not parse.
    SyntaxError,
    /// An aggregate, a window function or a subquery.
    NotRowLevel,
    /// A nondeterministic function.
    Nondeterministic,
    /// An LHP substitution token (`${x}`, `{x}`, `%{x}`) inside it.
    SubstitutionToken,
    /// The top level cannot be boolean.
    NotBoolean,
    /// A call of a function that is neither a Spark/Databricks built-in
    /// nor a declared UDF.
    UnknownFunction,
    /// A complete expression followed by a bare keyword (`price > 0 AND`),
    /// which Spark reads as an alias.
    TrailingKeywordAlias,
}

/// What the project adds to the built-in functions.
#[derive(Debug, Clone, Copy, Default)]
pub struct ExprOptions<'a> {
    /// Functions the project declares (`[sql] udfs` in `dqlint.toml`),
    /// lower case: calls of these one-part names are not unknown.
    pub udfs: &'a [String],
}

/// Longest expression (in significant tokens) that is parsed. Longer ones are
/// only scanned for substitution tokens: no real expectation comes close, and
/// it bounds the depth of the trees we walk and drop.
pub const MAX_TOKENS: usize = 4000;

/// Nesting limit handed to the parser (sqlparser's default is 50).
const RECURSION_LIMIT: usize = 64;

/// One finding in an expression. `range` is a byte range in the text given
/// to [`check_expression`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExprFinding {
    pub kind: ExprFact,
    pub message: String,
    pub range: Range<usize>,
}

/// How a scalar subquery finding (a [`ExprFact::NotRowLevel`]) begins: a
/// dialect that evaluates expressions in a projection (DQX's
/// `sql_expression`) runs scalar subqueries, and tells them by this.
pub const SCALAR_SUBQUERY: &str = "a scalar subquery";

/// How the finding for a function with an `OVER` clause (a
/// [`ExprFact::NotRowLevel`]) begins: DQX's `sql_expression` is a
/// projection, where Spark evaluates a window over the whole input (DQX
/// 0.17.0 runs `MAX(x) OVER (PARTITION BY k) > 100` per row).
pub const WINDOW_OVER: &str = "window function with an OVER clause";

/// Checks one expectation's SQL boolean expression (the decoded text).
pub fn check_expression(text: &str) -> Vec<ExprFinding> {
    check_expression_with(text, ExprOptions::default())
}

/// [`check_expression`] with the project's declared functions.
pub fn check_expression_with(text: &str, options: ExprOptions) -> Vec<ExprFinding> {
    let mut findings = Vec::new();

    let subs = text::template_holes(text);
    for r in &subs {
        findings.push(ExprFinding {
            kind: ExprFact::SubstitutionToken,
            message: format!(
                "`{}` is not substituted: LHP does not resolve tokens in expectations files, \
                 so Spark receives this text verbatim",
                &text[r.clone()]
            ),
            range: r.clone(),
        });
    }

    let prepared = text::blank_code_tokens(text, &subs);
    findings.extend(check_prepared(&prepared, options));
    findings.sort_by_key(|f| (f.range.start, f.range.end));
    findings
}

/// The tokens of a text ready for the parser, or the finding that stops it
/// there (a tokenizer error, nothing to parse, nesting too deep). `None`
/// when it is too long to parse ([`MAX_TOKENS`]).
fn tokens_of<'a>(
    text: &'a str,
    options: ExprOptions<'a>,
    what: &str,
) -> Result<Option<Ctx<'a>>, ExprFinding> {
    let dialect = DatabricksDialect {};
    let tokens = match Tokenizer::new(&dialect, text).tokenize_with_location() {
        Ok(t) => t,
        Err(e) => {
            let mut range = text::char_range_at(text, e.location);
            if e.message.to_ascii_lowercase().contains("unterminated") {
                range.end = text.len();
            }
            return Err(syntax(humanize_tokenizer_message(&e.message), range));
        }
    };
    let tokens = fixup_tokens(text, tokens);
    let ctx = Ctx::new(text, tokens, options);
    if ctx.sig.is_empty() {
        return Err(syntax(format!("the {what} is empty"), 0..text.len()));
    }
    if ctx.max_paren_depth() > RECURSION_LIMIT {
        return Err(ctx.parser_error(&ParserError::RecursionLimitExceeded));
    }
    Ok((ctx.sig.len() <= MAX_TOKENS).then_some(ctx))
}

fn check_prepared(text: &str, options: ExprOptions) -> Vec<ExprFinding> {
    let ctx = match tokens_of(text, options, "expression") {
        Ok(Some(ctx)) => ctx,
        Ok(None) => return Vec::new(),
        Err(finding) => return vec![finding],
    };
    let expr = match ctx.parse() {
        Ok(e) => e,
        Err(error) => return trailing_keyword_alias(&ctx).unwrap_or_else(|| vec![error]),
    };
    ctx.facts(&expr)
}

/// Checks a whole query (DQX's `sql_query`), as Spark's `spark.sql` reads
/// it: whether it parses (a trailing bare keyword is an alias, as in an
/// expression) and calls of functions that are neither built-ins nor
/// declared UDFs. Aggregates, windows and subqueries belong in a query:
/// no finding. `{{ name }}` placeholders must be blanked by the caller.
pub fn check_query_with(text: &str, options: ExprOptions) -> Vec<ExprFinding> {
    let ctx = match tokens_of(text, options, "query") {
        Ok(Some(ctx)) => ctx,
        Ok(None) => return Vec::new(),
        Err(finding) => return vec![finding],
    };
    let (query, mut out) = match ctx.parse_query() {
        Ok(q) => (q, Vec::new()),
        Err(error) => match without_trailing_keyword(&ctx, Ctx::parse_query) {
            Some((_, query, range)) => {
                let keyword = &ctx.text[range.clone()];
                let finding = ExprFinding {
                    kind: ExprFact::TrailingKeywordAlias,
                    message: format!(
                        "the query ends in `{keyword}`: Spark reads the trailing keyword as an \
                         alias and runs only what comes before it, so the clause meant to follow \
                         `{keyword}` is silently missing"
                    ),
                    range,
                };
                (query, vec![finding])
            }
            None => return vec![error],
        },
    };
    let mut calls = Vec::new();
    let _ = visit_expressions(&query, |e| {
        if let Expr::Function(f) = e {
            ctx.function_findings(f, &mut calls);
        }
        ControlFlow::<()>::Continue(())
    });
    calls.retain(|f| f.kind == ExprFact::UnknownFunction);
    out.extend(calls);
    out.sort_by_key(|f| (f.range.start, f.range.end));
    out.dedup();
    out
}

/// The expression tree of a rule text as [`check_expression`] reads it
/// (substitution tokens blanked, Databricks spellings rewritten), when it
/// parses whole and is within the size limits.
pub(crate) fn parse_rule(text: &str) -> Option<Expr> {
    let subs = text::template_holes(text);
    let prepared = text::blank_code_tokens(text, &subs);
    let dialect = DatabricksDialect {};
    let tokens = Tokenizer::new(&dialect, &prepared)
        .tokenize_with_location()
        .ok()?;
    let tokens = fixup_tokens(&prepared, tokens);
    let ctx = Ctx::new(&prepared, tokens, ExprOptions::default());
    if ctx.sig.is_empty() || ctx.sig.len() > MAX_TOKENS || ctx.max_paren_depth() > RECURSION_LIMIT {
        return None;
    }
    ctx.parse().ok()
}

/// Keywords that Spark, parsing an expression, takes as the alias of the
/// complete expression before them (`price > 0 AND` runs as
/// `price > 0 AS AND`; observed with pyspark 4.3, `F.expr` and `SELECT`).
const TRAILING_KEYWORDS: &[&str] = &[
    "ALL", "AND", "ANY", "AS", "BETWEEN", "BY", "CASE", "CAST", "DISTINCT", "DIV", "ELSE", "END",
    "ESCAPE", "EXISTS", "FALSE", "FILTER", "FROM", "GROUP", "HAVING", "ILIKE", "IN", "INTERVAL",
    "IS", "JOIN", "LIKE", "LIMIT", "NOT", "NULL", "ON", "OR", "ORDER", "OVER", "REGEXP", "RLIKE",
    "SELECT", "SOME", "THEN", "TRUE", "UNION", "WHEN", "WHERE",
];

/// What Spark runs of a text that does not parse because it ends in a bare
/// keyword after a complete expression or query: the parse (by `parse`) of
/// what comes before the keyword, with its tokens, and the keyword's range.
fn without_trailing_keyword<'a, T>(
    ctx: &Ctx<'a>,
    parse: impl Fn(&Ctx<'a>) -> Result<T, ExprFinding>,
) -> Option<(Ctx<'a>, T, Range<usize>)> {
    let &last = ctx.sig.last()?;
    if ctx.sig.len() < 2 {
        return None;
    }
    let word = unquoted_word(&ctx.tokens[last].token)?;
    if !TRAILING_KEYWORDS.contains(&word.as_str()) {
        return None;
    }
    let prefix = Ctx::new(ctx.text, ctx.tokens[..last].to_vec(), ctx.options);
    let parsed = parse(&prefix).ok()?;
    Some((prefix, parsed, ctx.ranges[last].clone()))
}

/// An expression that ends in a trailing keyword: the finding at the
/// keyword, and the facts of the expression before it (what Spark runs).
fn trailing_keyword_alias(ctx: &Ctx) -> Option<Vec<ExprFinding>> {
    let (prefix, expr, range) = without_trailing_keyword(ctx, Ctx::parse)?;
    let keyword = &ctx.text[range.clone()];
    let mut out = vec![ExprFinding {
        kind: ExprFact::TrailingKeywordAlias,
        message: format!(
            "the expression ends in `{keyword}`: Spark reads the trailing keyword as an alias \
             (`... AS {keyword}`) and runs only what comes before it, so the condition meant \
             to follow `{keyword}` is silently missing"
        ),
        range,
    }];
    out.extend(prefix.facts(&expr));
    Some(out)
}

fn syntax(message: String, range: Range<usize>) -> ExprFinding {
    ExprFinding {
        kind: ExprFact::SyntaxError,
        message: format!("syntax error: {message}"),
        range,
    }
}
