//! Checks of one expectation's SQL boolean expression: typed facts
//! ([`ExprFact`]) at exact byte ranges.
//!
//! The expression is tokenized and parsed with sqlparser's
//! `DatabricksDialect`; positions come from the tokenizer and are mapped back
//! to byte offsets in the text given. LHP substitution tokens (`${x}`, `{x}`,
//! `%{x}`) are reported as substitution tokens and, where they stand in code, replaced by an
//! identifier of the same length before parsing, so they do not also produce
//! a syntax error.

use std::ops::{ControlFlow, Range};

use sqlparser::ast::{
    visit_expressions, BinaryOperator, DataType, Expr, Function, FunctionArg, FunctionArgExpr,
    FunctionArguments, InTarget, ObjectNamePart, Query, Spanned, UnaryOperator, Value,
};
use sqlparser::dialect::DatabricksDialect;
use sqlparser::parser::{Parser, ParserError};
use sqlparser::tokenizer::{Token, TokenWithSpan, Tokenizer};

use crate::text;

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

/// Aggregate functions (Databricks built-ins). Higher-order array functions
/// such as `aggregate`, `reduce`, `filter`, `exists`, `forall` are not here.
const AGGREGATES: &[&str] = &[
    "any",
    "any_value",
    "approx_count_distinct",
    "approx_percentile",
    "approx_top_k",
    "array_agg",
    "avg",
    "bit_and",
    "bit_or",
    "bit_xor",
    "bitmap_construct_agg",
    "bitmap_or_agg",
    "bool_and",
    "bool_or",
    "collect_list",
    "collect_set",
    "corr",
    "count",
    "count_if",
    "count_min_sketch",
    "covar_pop",
    "covar_samp",
    "every",
    "first",
    "first_value",
    "grouping",
    "grouping_id",
    "histogram_numeric",
    "hll_sketch_agg",
    "hll_union_agg",
    "kurtosis",
    "last",
    "last_value",
    "listagg",
    "max",
    "max_by",
    "mean",
    "measure",
    "median",
    "min",
    "min_by",
    "mode",
    "percentile",
    "percentile_approx",
    "percentile_cont",
    "percentile_disc",
    "regr_avgx",
    "regr_avgy",
    "regr_count",
    "regr_intercept",
    "regr_r2",
    "regr_slope",
    "regr_sxx",
    "regr_sxy",
    "regr_syy",
    "skewness",
    "some",
    "std",
    "stddev",
    "stddev_pop",
    "stddev_samp",
    "string_agg",
    "sum",
    "try_avg",
    "try_sum",
    "var_pop",
    "var_samp",
    "variance",
];

/// Ranking / offset functions that only exist as window functions.
const WINDOW_ONLY: &[&str] = &[
    "cume_dist",
    "dense_rank",
    "lag",
    "lead",
    "nth_value",
    "ntile",
    "percent_rank",
    "rank",
    "row_number",
];

/// Functions whose value changes between evaluations.
const NONDETERMINISTIC_FUNCS: &[&str] = &[
    "curdate",
    "current_date",
    "current_time",
    "current_timestamp",
    "getdate",
    "input_file_block_length",
    "input_file_block_start",
    "input_file_name",
    "localtimestamp",
    "monotonically_increasing_id",
    "now",
    "rand",
    "randn",
    "random",
    "randstr",
    "shuffle",
    "spark_partition_id",
    "uniform",
    "uuid",
];

/// Built-in functions that never return BOOLEAN.
const NON_BOOLEAN_FUNCS: &[&str] = &[
    "abs",
    "acos",
    "add_months",
    "array",
    "array_join",
    "array_size",
    "ascii",
    "asin",
    "atan",
    "atan2",
    "base64",
    "bigint",
    "bin",
    "bit_length",
    "bround",
    "btrim",
    "cardinality",
    "cbrt",
    "ceil",
    "ceiling",
    "char",
    "char_length",
    "character_length",
    "chr",
    "concat",
    "concat_ws",
    "conv",
    "cos",
    "crc32",
    "date",
    "date_add",
    "date_diff",
    "date_format",
    "date_sub",
    "date_trunc",
    "dateadd",
    "datediff",
    "day",
    "dayofmonth",
    "dayofweek",
    "dayofyear",
    "decimal",
    "degrees",
    "double",
    "exp",
    "factorial",
    "float",
    "floor",
    "format_number",
    "format_string",
    "from_unixtime",
    "hash",
    "hex",
    "hour",
    "initcap",
    "instr",
    "int",
    "last_day",
    "lcase",
    "left",
    "len",
    "length",
    "ln",
    "locate",
    "log",
    "log10",
    "log1p",
    "log2",
    "lower",
    "lpad",
    "ltrim",
    "make_date",
    "make_timestamp",
    "map",
    "md5",
    "minute",
    "mod",
    "month",
    "months_between",
    "named_struct",
    "next_day",
    "octet_length",
    "pmod",
    "position",
    "pow",
    "power",
    "printf",
    "quarter",
    "radians",
    "regexp_count",
    "regexp_extract",
    "regexp_instr",
    "regexp_replace",
    "regexp_substr",
    "repeat",
    "replace",
    "reverse",
    "right",
    "round",
    "rpad",
    "rtrim",
    "second",
    "sha",
    "sha1",
    "sha2",
    "sign",
    "signum",
    "sin",
    "size",
    "smallint",
    "split",
    "split_part",
    "sqrt",
    "string",
    "struct",
    "substr",
    "substring",
    "substring_index",
    "tan",
    "timestamp",
    "timestampadd",
    "timestampdiff",
    "tinyint",
    "to_char",
    "to_date",
    "to_json",
    "to_number",
    "to_timestamp",
    "translate",
    "trim",
    "trunc",
    "try_add",
    "try_divide",
    "try_multiply",
    "try_subtract",
    "try_to_number",
    "try_to_timestamp",
    "ucase",
    "unbase64",
    "unhex",
    "unix_date",
    "unix_micros",
    "unix_millis",
    "unix_seconds",
    "upper",
    "weekday",
    "weekofyear",
    "xxhash64",
    "year",
];

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

    let subs = text::substitution_tokens(text);
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
        Err(error) => {
            let Some(last) = ctx.sig.last().copied().filter(|_| ctx.sig.len() > 1) else {
                return vec![error];
            };
            let trailing = unquoted_word(&ctx.tokens[last].token)
                .filter(|w| TRAILING_KEYWORDS.contains(&w.as_str()));
            let prefix = Ctx::new(ctx.text, ctx.tokens[..last].to_vec(), ctx.options);
            match (trailing, prefix.parse_query()) {
                (Some(_), Ok(q)) => {
                    let range = ctx.ranges[last].clone();
                    let keyword = &ctx.text[range.clone()];
                    let finding = ExprFinding {
                        kind: ExprFact::TrailingKeywordAlias,
                        message: format!(
                            "the query ends in `{keyword}`: Spark reads the trailing keyword as \
                             an alias and runs only what comes before it, so the clause meant to \
                             follow `{keyword}` is silently missing"
                        ),
                        range,
                    };
                    (q, vec![finding])
                }
                _ => return vec![error],
            }
        }
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

/// The functions Spark's grammar calls without parentheses.
const NILADIC_FUNCTIONS: &[&str] = &[
    "current_date",
    "current_time",
    "current_timestamp",
    "current_user",
    "session_user",
    "user",
];

/// A column an expression reads: the name as Spark resolves it (unquoted,
/// the first part of a dotted path) and where it is written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ColumnRef {
    pub name: String,
    pub range: Range<usize>,
}

/// The columns a row-level expression reads (`a > 0 AND s.city = 'x'`: `a`
/// and `s`), without lambda parameters (`exists(xs, x -> x > 0)` reads
/// `xs`); `None` when it does not parse whole. LHP tokens are blanked as
/// [`check_expression`] does.
pub fn column_references(text: &str) -> Option<Vec<ColumnRef>> {
    let subs = text::substitution_tokens(text);
    let prepared = text::blank_code_tokens(text, &subs);
    let ctx = tokens_of(&prepared, ExprOptions::default(), "expression").ok()??;
    let expr = ctx.parse().ok()?;
    let mut lambda_params: Vec<String> = Vec::new();
    let mut idents: Vec<sqlparser::ast::Ident> = Vec::new();
    let _ = visit_expressions(&expr, |e| {
        match e {
            Expr::Lambda(l) => {
                lambda_params.extend(l.params.iter().map(|p| p.name.value.to_ascii_lowercase()))
            }
            Expr::Identifier(i) => idents.push(i.clone()),
            Expr::CompoundIdentifier(parts) => idents.extend(parts.first().cloned()),
            _ => {}
        }
        ControlFlow::<()>::Continue(())
    });
    let mut out = Vec::new();
    for ident in idents {
        // `100L`, `1.5D`: a typed number literal the tokenizer reads as a word
        let number =
            ident.quote_style.is_none() && ident.value.starts_with(|c: char| c.is_ascii_digit());
        // `current_date`, `user`: functions Spark calls without parentheses
        // when no column has the name (pyspark 4.3: `SELECT user`)
        let niladic = ident.quote_style.is_none()
            && NILADIC_FUNCTIONS
                .iter()
                .any(|f| ident.value.eq_ignore_ascii_case(f));
        if number || niladic || lambda_params.contains(&ident.value.to_ascii_lowercase()) {
            continue;
        }
        let Some(token) = ctx.token_at_location(ident.span.start) else {
            continue;
        };
        out.push(ColumnRef {
            name: ident.value,
            range: ctx.ranges[token].clone(),
        });
    }
    Some(out)
}

/// The expression tree of a rule text as [`check_expression`] reads it
/// (substitution tokens blanked, Databricks spellings rewritten), when it
/// parses whole and is within the size limits.
pub(crate) fn parse_rule(text: &str) -> Option<Expr> {
    let subs = text::substitution_tokens(text);
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

/// An expression that does not parse because it ends in a bare keyword
/// after a complete expression: the trailing-keyword finding at the keyword, and the
/// facts of the expression before it (what Spark runs).
fn trailing_keyword_alias(ctx: &Ctx) -> Option<Vec<ExprFinding>> {
    let &last = ctx.sig.last()?;
    if ctx.sig.len() < 2 {
        return None;
    }
    let word = unquoted_word(&ctx.tokens[last].token)?;
    if !TRAILING_KEYWORDS.contains(&word.as_str()) {
        return None;
    }
    let prefix = Ctx::new(ctx.text, ctx.tokens[..last].to_vec(), ctx.options);
    let expr = prefix.parse().ok()?;
    let range = ctx.ranges[last].clone();
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

impl Ctx<'_> {
    /// The tokens as one query that reaches the end of the text (trailing
    /// semicolons allowed, as `spark.sql` allows them).
    fn parse_query(&self) -> Result<Box<Query>, ExprFinding> {
        let dialect = DatabricksDialect {};
        let mut parser = Parser::new(&dialect)
            .with_recursion_limit(RECURSION_LIMIT)
            .with_tokens_with_locations(self.tokens.clone());
        let query = parser.parse_query().map_err(|e| self.parser_error(&e))?;
        while parser.consume_token(&Token::SemiColon) {}
        let next = parser.peek_token();
        if next.token != Token::EOF {
            let range = self.range_at_location(next.span.start);
            return Err(syntax(
                format!(
                    "expected the end of the query, found {}",
                    describe_token(&next.token)
                ),
                range,
            ));
        }
        Ok(query)
    }

    /// The tokens as one expression that reaches the end of the text.
    fn parse(&self) -> Result<Expr, ExprFinding> {
        let dialect = DatabricksDialect {};
        let mut parser = Parser::new(&dialect)
            .with_recursion_limit(RECURSION_LIMIT)
            .with_tokens_with_locations(self.tokens.clone());
        let expr = parser.parse_expr().map_err(|e| self.parser_error(&e))?;
        let next = parser.peek_token();
        if next.token != Token::EOF {
            let range = self.range_at_location(next.span.start);
            return Err(syntax(
                format!(
                    "expected the end of the expression, found {}",
                    describe_token(&next.token)
                ),
                range,
            ));
        }
        Ok(expr)
    }

    /// The facts of an expression that parses.
    fn facts(&self, expr: &Expr) -> Vec<ExprFinding> {
        let mut out = self.row_level_findings(expr);
        if let Some(reason) = non_boolean_reason(expr) {
            out.push(ExprFinding {
                kind: ExprFact::NotBoolean,
                message: format!("the expression cannot be boolean: it is {reason}"),
                range: self.whole_range(),
            });
        }
        out
    }
}

fn syntax(message: String, range: Range<usize>) -> ExprFinding {
    ExprFinding {
        kind: ExprFact::SyntaxError,
        message: format!("syntax error: {message}"),
        range,
    }
}

fn humanize_tokenizer_message(message: &str) -> String {
    let (m, _) = text::split_error_location(message);
    let mut m = m.trim().to_string();
    if let Some(first) = m.get(..1) {
        m = first.to_lowercase() + &m[1..];
    }
    m
}

fn describe_token(token: &Token) -> String {
    match token {
        Token::EOF => "the end of the text".to_string(),
        other => format!("`{other}`"),
    }
}

const SPARK_INTERVAL_UNITS: &[&str] = &[
    "YEAR",
    "YEARS",
    "MONTH",
    "MONTHS",
    "WEEK",
    "WEEKS",
    "DAY",
    "DAYS",
    "HOUR",
    "HOURS",
    "MINUTE",
    "MINUTES",
    "SECOND",
    "SECONDS",
    "MILLISECOND",
    "MILLISECONDS",
    "MICROSECOND",
    "MICROSECONDS",
];

/// Interval units sqlparser accepts after `INTERVAL <value>`.
const SQLPARSER_INTERVAL_UNITS: &[&str] = &[
    "YEAR", "YEARS", "MONTH", "MONTHS", "WEEK", "WEEKS", "DAY", "DAYS", "HOUR", "HOURS", "MINUTE",
    "MINUTES", "SECOND", "SECONDS",
];

/// Words after which `DIV` cannot be the integer-division operator.
const NOT_OPERAND_END: &[&str] = &[
    "AND", "OR", "NOT", "WHEN", "THEN", "ELSE", "CASE", "IN", "IS", "LIKE", "ILIKE", "RLIKE",
    "REGEXP", "BETWEEN", "SELECT", "WHERE",
];

fn unquoted_word(t: &Token) -> Option<String> {
    match t {
        Token::Word(w) if w.quote_style.is_none() => Some(w.value.to_ascii_uppercase()),
        _ => None,
    }
}

fn is_string_token(t: &Token) -> bool {
    matches!(
        t,
        Token::SingleQuotedString(_) | Token::DoubleQuotedString(_)
    )
}

/// Rewrites the token stream where sqlparser does not know valid Databricks
/// syntax. Spans are kept, so positions stay exact:
///
/// * numeric literal suffixes (`100L`, `1.5D`, `10BD`, `2S`, `1Y`, `1F`): the
///   suffix word is dropped;
/// * raw string literals (`r'\d+'`): the `r` prefix is dropped;
/// * the integer division operator `a DIV b` becomes `a / b`;
/// * intervals: `INTERVAL '1 day'` (no unit) gets a unit, multi-unit
///   `INTERVAL 1 DAY 2 HOURS` keeps its first pair, and millisecond /
///   microsecond units become `SECOND`.
fn fixup_tokens(text: &str, tokens: Vec<TokenWithSpan>) -> Vec<TokenWithSpan> {
    let ranges = text::token_ranges(text, &tokens);
    let sig: Vec<usize> = (0..tokens.len())
        .filter(|&i| !text::is_trivia(&tokens[i].token))
        .collect();
    let mut skip = vec![false; tokens.len()];
    let mut replace: Vec<Option<Token>> = vec![None; tokens.len()];
    let mut insert_after: Vec<Option<TokenWithSpan>> = vec![None; tokens.len()];
    let tok = |k: usize| sig.get(k).map(|&i| &tokens[i].token);
    let is_unit = |k: usize| {
        tok(k)
            .and_then(unquoted_word)
            .is_some_and(|w| SPARK_INTERVAL_UNITS.contains(&w.as_str()))
    };
    // index in `sig` of the end of an interval value starting at k, if any
    let value_end = |k: usize| -> Option<usize> {
        let k = match tok(k)? {
            Token::Minus | Token::Plus => k + 1,
            _ => k,
        };
        match tok(k)? {
            Token::Number(..) => Some(k),
            t if is_string_token(t) => Some(k),
            _ => None,
        }
    };

    for k in 0..sig.len() {
        let i = sig[k];
        let t = &tokens[i].token;
        let word = unquoted_word(t);
        let prev = k.checked_sub(1).map(|p| sig[p]);
        let next = sig.get(k + 1).copied();
        match word.as_deref() {
            Some("L" | "S" | "Y" | "D" | "F" | "BD") => {
                if let Some(p) = prev {
                    if matches!(tokens[p].token, Token::Number(..))
                        && ranges[p].end == ranges[i].start
                    {
                        skip[i] = true;
                    }
                }
            }
            Some("R") => {
                if let Some(n) = next {
                    if is_string_token(&tokens[n].token) && ranges[i].end == ranges[n].start {
                        skip[i] = true;
                    }
                }
            }
            Some("DIV") => {
                let operand_before = prev.is_some_and(|p| match &tokens[p].token {
                    Token::Number(..) | Token::RParen | Token::RBracket => true,
                    Token::Word(w) => {
                        w.quote_style.is_some()
                            || !NOT_OPERAND_END.contains(&w.value.to_ascii_uppercase().as_str())
                    }
                    other => is_string_token(other),
                });
                let call = next.is_some_and(|n| tokens[n].token == Token::LParen);
                if operand_before && !call && next.is_some() {
                    replace[i] = Some(Token::Div);
                }
            }
            Some("EXISTS") => {
                // `NOT exists(arr, x -> ...)`: the higher-order function, not
                // an EXISTS subquery (sqlparser reads `NOT EXISTS (` as one)
                let Some(open) = next.filter(|&n| tokens[n].token == Token::LParen) else {
                    continue;
                };
                let inner = sig.get(k + 2).map(|&n| &tokens[n].token);
                let subquery = inner.and_then(unquoted_word).is_some_and(|w| {
                    matches!(w.as_str(), "SELECT" | "WITH" | "VALUES" | "FROM" | "TABLE")
                }) || matches!(inner, Some(Token::LParen));
                if !subquery && open > i {
                    if let Token::Word(w) = t {
                        replace[i] = Some(Token::Word(sqlparser::tokenizer::Word {
                            value: w.value.clone(),
                            quote_style: None,
                            keyword: sqlparser::keywords::Keyword::NoKeyword,
                        }));
                    }
                }
            }
            Some("INTERVAL") => {
                let Some(v_end) = value_end(k + 1) else {
                    continue;
                };
                if !is_unit(v_end + 1) {
                    if is_string_token(tok(v_end).unwrap_or(&Token::EOF)) {
                        // INTERVAL '1 day': give the parser a unit
                        let s = sig[v_end];
                        let end = tokens[s].span.end;
                        insert_after[s] = Some(TokenWithSpan::new(
                            Token::make_keyword("DAY"),
                            sqlparser::tokenizer::Span::new(end, end),
                        ));
                    }
                    continue;
                }
                let unit = sig[v_end + 1];
                if let Some(u) = unquoted_word(&tokens[unit].token) {
                    if !SQLPARSER_INTERVAL_UNITS.contains(&u.as_str()) {
                        replace[unit] = Some(Token::make_keyword("SECOND"));
                    }
                }
                // further `value unit` pairs
                let mut m = v_end + 2;
                while let Some(e) = value_end(m) {
                    if !is_unit(e + 1) {
                        break;
                    }
                    for &idx in &sig[m..=e + 1] {
                        skip[idx] = true;
                    }
                    m = e + 2;
                }
            }
            _ => {}
        }
        // Spark's shifts `<<`, `>>` and `>>>` (DBR 15.4+), which sqlparser's
        // Databricks dialect does not parse: read as another bitwise
        // operator (a number either way), `>>>`'s last `>` dropped.
        if matches!(t, Token::ShiftLeft | Token::ShiftRight) {
            replace[i] = Some(Token::Ampersand);
            if let Some(n) = next {
                if matches!(t, Token::ShiftRight)
                    && matches!(tokens[n].token, Token::Gt)
                    && ranges[n].start == ranges[i].end
                {
                    skip[n] = true;
                }
            }
        }
    }

    let mut out = Vec::with_capacity(tokens.len() + 1);
    for (i, mut t) in tokens.into_iter().enumerate() {
        if skip[i] {
            continue;
        }
        if let Some(r) = replace[i].take() {
            t.token = r;
        }
        out.push(t);
        if let Some(extra) = insert_after[i].take() {
            out.push(extra);
        }
    }
    out
}

struct Ctx<'a> {
    text: &'a str,
    tokens: Vec<TokenWithSpan>,
    ranges: Vec<Range<usize>>,
    /// Indices of the non-whitespace, non-comment tokens.
    sig: Vec<usize>,
    /// For each parenthesis token index, the index of its partner.
    partner: Vec<Option<usize>>,
    options: ExprOptions<'a>,
}

impl<'a> Ctx<'a> {
    fn new(text: &'a str, tokens: Vec<TokenWithSpan>, options: ExprOptions<'a>) -> Self {
        let ranges = text::token_ranges(text, &tokens);
        let sig: Vec<usize> = (0..tokens.len())
            .filter(|&i| !text::is_trivia(&tokens[i].token))
            .collect();
        let mut partner = vec![None; tokens.len()];
        let mut stack = Vec::new();
        for &i in &sig {
            match tokens[i].token {
                Token::LParen => stack.push(i),
                Token::RParen => {
                    if let Some(open) = stack.pop() {
                        partner[open] = Some(i);
                        partner[i] = Some(open);
                    }
                }
                _ => {}
            }
        }
        Ctx {
            text,
            tokens,
            ranges,
            sig,
            partner,
            options,
        }
    }

    fn max_paren_depth(&self) -> usize {
        let (mut depth, mut max) = (0usize, 0usize);
        for &i in &self.sig {
            match self.tokens[i].token {
                Token::LParen => {
                    depth += 1;
                    max = max.max(depth);
                }
                Token::RParen => depth = depth.saturating_sub(1),
                _ => {}
            }
        }
        max
    }

    /// From the first to the last significant token.
    fn whole_range(&self) -> Range<usize> {
        match (self.sig.first(), self.sig.last()) {
            (Some(&a), Some(&b)) => self.ranges[a].start..self.ranges[b].end,
            _ => 0..self.text.len(),
        }
    }

    /// Token index starting exactly at a byte offset.
    fn token_at(&self, offset: usize) -> Option<usize> {
        let k = self.ranges.partition_point(|r| r.start < offset);
        (k..self.ranges.len())
            .take_while(|&i| self.ranges[i].start == offset)
            .find(|&i| !text::is_trivia(&self.tokens[i].token))
    }

    fn token_at_location(&self, loc: sqlparser::tokenizer::Location) -> Option<usize> {
        let off = text::Cursor::new(self.text).offset(loc)?;
        self.token_at(off)
    }

    /// The range of the token at a location; at the end of the text when the
    /// location is missing (sqlparser's EOF).
    fn range_at_location(&self, loc: sqlparser::tokenizer::Location) -> Range<usize> {
        if loc.line == 0 {
            let end = self
                .sig
                .last()
                .map_or(self.text.len(), |&i| self.ranges[i].end);
            return end..end;
        }
        match self.token_at_location(loc) {
            Some(i) => self.ranges[i].clone(),
            None => text::char_range_at(self.text, loc),
        }
    }

    fn next_sig(&self, index: usize) -> Option<usize> {
        let k = self.sig.partition_point(|&i| i <= index);
        self.sig.get(k).copied()
    }

    fn prev_sig(&self, index: usize) -> Option<usize> {
        let k = self.sig.partition_point(|&i| i < index);
        k.checked_sub(1).map(|k| self.sig[k])
    }

    fn parser_error(&self, e: &ParserError) -> ExprFinding {
        match e {
            ParserError::RecursionLimitExceeded => syntax(
                format!("the expression is nested too deeply (more than {RECURSION_LIMIT} levels)"),
                self.whole_range(),
            ),
            ParserError::ParserError(m) | ParserError::TokenizerError(m) => {
                let (msg, loc) = text::split_error_location(m);
                let range = match loc {
                    Some(loc) => self.range_at_location(loc),
                    None => self
                        .range_at_location(sqlparser::tokenizer::Location { line: 0, column: 0 }),
                };
                let msg = if msg.starts_with("No infix parser for token")
                    || msg.starts_with("No prefix parser for token")
                {
                    format!("unexpected `{}`", &self.text[range.clone()])
                } else {
                    text::humanize_parser_message(&msg)
                };
                syntax(msg, range)
            }
        }
    }

    /// The range of a function call: its name through the closing parenthesis
    /// and, for a window function, through the `OVER` clause.
    fn call_range(&self, f: &Function) -> Option<Range<usize>> {
        let idents: Vec<&sqlparser::ast::Ident> = f
            .name
            .0
            .iter()
            .filter_map(|p| match p {
                ObjectNamePart::Identifier(i) => Some(i),
                _ => None,
            })
            .collect();
        let first = self.token_at_location(idents.first()?.span.start)?;
        let last = self
            .token_at_location(idents.last()?.span.start)
            .unwrap_or(first);
        let mut end_tok = last;
        if let Some(n) = self.next_sig(end_tok) {
            if self.tokens[n].token == Token::LParen {
                end_tok = self.partner[n].unwrap_or(*self.sig.last()?);
            }
        }
        if f.over.is_some() {
            if let Some(over) = self.next_sig(end_tok) {
                if let Token::Word(w) = &self.tokens[over].token {
                    if w.value.eq_ignore_ascii_case("over") {
                        end_tok = over;
                        if let Some(n) = self.next_sig(over) {
                            end_tok = match self.tokens[n].token {
                                Token::LParen => self.partner[n].unwrap_or(*self.sig.last()?),
                                _ => n,
                            };
                        }
                    }
                }
            }
        }
        Some(self.ranges[first].start..self.ranges[end_tok].end)
    }

    /// The range of a function's name (all its parts).
    fn name_range(&self, f: &Function) -> Option<Range<usize>> {
        let idents: Vec<&sqlparser::ast::Ident> = f
            .name
            .0
            .iter()
            .filter_map(|p| match p {
                ObjectNamePart::Identifier(i) => Some(i),
                _ => None,
            })
            .collect();
        let first = self.token_at_location(idents.first()?.span.start)?;
        let last = self
            .token_at_location(idents.last()?.span.start)
            .unwrap_or(first);
        Some(self.ranges[first].start..self.ranges[last].end)
    }

    /// The range of a subquery: the parentheses around it.
    fn subquery_range(&self, q: &Query) -> Range<usize> {
        let start = q.span().start;
        let Some(first) = self.token_at_location(start) else {
            return self.whole_range();
        };
        // nearest unmatched `(` before the query's first token
        let mut depth = 0usize;
        let mut cur = first;
        while let Some(p) = self.prev_sig(cur) {
            match self.tokens[p].token {
                Token::RParen => depth += 1,
                Token::LParen if depth == 0 => {
                    let close = self.partner[p].unwrap_or(*self.sig.last().unwrap_or(&p));
                    return self.ranges[p].start..self.ranges[close].end;
                }
                Token::LParen => depth -= 1,
                _ => {}
            }
            cur = p;
        }
        self.whole_range()
    }

    fn row_level_findings(&self, expr: &Expr) -> Vec<ExprFinding> {
        let mut found: Vec<ExprFinding> = Vec::new();
        let mut subqueries: Vec<Range<usize>> = Vec::new();
        let _ = visit_expressions(expr, |e| {
            match e {
                Expr::Subquery(q) => {
                    let r = self.subquery_range(q);
                    subqueries.push(r.clone());
                    found.push(ExprFinding {
                        kind: ExprFact::NotRowLevel,
                        message: format!(
                            "{SCALAR_SUBQUERY} is not allowed in an expectation: an expectation \
                             is evaluated per row"
                        ),
                        range: r,
                    });
                }
                Expr::Exists { subquery: q, .. }
                | Expr::In {
                    target: InTarget::Subquery(q),
                    ..
                } => {
                    let r = self.subquery_range(q);
                    subqueries.push(r.clone());
                    found.push(ExprFinding {
                        kind: ExprFact::NotRowLevel,
                        message: "a subquery is not allowed in an expectation: an expectation \
                                  is evaluated per row"
                            .to_string(),
                        range: r,
                    });
                }
                Expr::Function(f) => {
                    if let FunctionArguments::Subquery(q) = &f.args {
                        let r = self.call_range(f).unwrap_or_else(|| self.subquery_range(q));
                        subqueries.push(r.clone());
                        found.push(ExprFinding {
                            kind: ExprFact::NotRowLevel,
                            message: "a subquery is not allowed in an expectation: an \
                                      expectation is evaluated per row"
                                .to_string(),
                            range: r,
                        });
                    } else {
                        self.function_findings(f, &mut found);
                    }
                }
                _ => {}
            }
            ControlFlow::<()>::Continue(())
        });
        // Findings inside a subquery are covered by the subquery finding.
        let keep = |f: &ExprFinding| {
            !subqueries
                .iter()
                .any(|s| *s != f.range && s.start <= f.range.start && f.range.end <= s.end)
        };
        let mut out: Vec<ExprFinding> = found.into_iter().filter(keep).collect();
        out.dedup();
        out
    }

    fn function_findings(&self, f: &Function, out: &mut Vec<ExprFinding>) {
        let Some(name) = builtin_name(f) else { return };
        let range = || self.call_range(f).unwrap_or_else(|| self.whole_range());
        // `s LIKE ALL ('%a%', ...)` parses as a call of `all`
        let quantifier = name == "all";
        if !quantifier && !crate::functions::is_builtin(&name) && !self.options.udfs.contains(&name)
        {
            let suggestion = crate::functions::closest_builtin(&name)
                .map(|c| format!("; did you mean `{c}`?"))
                .unwrap_or_default();
            out.push(ExprFinding {
                kind: ExprFact::UnknownFunction,
                message: format!(
                    "`{name}` is not a Spark or Databricks SQL built-in function, nor a UDF \
                     declared in `dqlint.toml` (`[sql] udfs`){suggestion}"
                ),
                range: self.name_range(f).unwrap_or_else(range),
            });
            return;
        }
        if f.over.is_some() {
            out.push(ExprFinding {
                kind: ExprFact::NotRowLevel,
                message: format!(
                    "{WINDOW_OVER} (`{name}`) is not allowed in an expectation: an expectation \
                     is evaluated per row"
                ),
                range: range(),
            });
            return;
        }
        if WINDOW_ONLY.contains(&name.as_str()) {
            out.push(ExprFinding {
                kind: ExprFact::NotRowLevel,
                message: format!(
                    "window function `{name}` is not allowed in an expectation: an expectation \
                     is evaluated per row"
                ),
                range: range(),
            });
            return;
        }
        if AGGREGATES.contains(&name.as_str()) || f.filter.is_some() || !f.within_group.is_empty() {
            out.push(ExprFinding {
                kind: ExprFact::NotRowLevel,
                message: format!(
                    "aggregate function `{name}` is not allowed in an expectation: an \
                     expectation is evaluated per row"
                ),
                range: range(),
            });
            return;
        }
        let nondeterministic = NONDETERMINISTIC_FUNCS.contains(&name.as_str())
            || (name == "unix_timestamp" && arg_count(f) == 0);
        if nondeterministic {
            out.push(ExprFinding {
                kind: ExprFact::Nondeterministic,
                message: format!(
                    "`{name}` is nondeterministic: a row's verdict can differ between the clean \
                     path, the DLQ and the recycle path"
                ),
                range: range(),
            });
        }
    }
}

/// Lower-case name of a built-in function call (one-part name, or
/// `system.builtin.name`); `None` for user functions.
pub(crate) fn builtin_name(f: &Function) -> Option<String> {
    let parts: Vec<String> = f
        .name
        .0
        .iter()
        .map(|p| match p {
            ObjectNamePart::Identifier(i) => Some(i.value.to_ascii_lowercase()),
            _ => None,
        })
        .collect::<Option<Vec<_>>>()?;
    match parts.as_slice() {
        [one] => Some(one.clone()),
        [a, b, c] if a == "system" && b == "builtin" => Some(c.clone()),
        _ => None,
    }
}

fn arg_count(f: &Function) -> usize {
    match &f.args {
        FunctionArguments::List(l) => l.args.len(),
        FunctionArguments::None => 0,
        FunctionArguments::Subquery(_) => 1,
    }
}

pub(crate) fn arg_exprs(f: &Function) -> Vec<&Expr> {
    match &f.args {
        FunctionArguments::List(l) => l
            .args
            .iter()
            .filter_map(|a| match a {
                FunctionArg::Unnamed(FunctionArgExpr::Expr(e))
                | FunctionArg::Named {
                    arg: FunctionArgExpr::Expr(e),
                    ..
                }
                | FunctionArg::ExprNamed {
                    arg: FunctionArgExpr::Expr(e),
                    ..
                } => Some(e),
                _ => None,
            })
            .collect(),
        _ => Vec::new(),
    }
}

fn is_boolean_type(t: &DataType) -> bool {
    match t {
        DataType::Boolean | DataType::Bool => true,
        DataType::Custom(name, _) => name.to_string().eq_ignore_ascii_case("boolean"),
        _ => false,
    }
}

fn is_null_literal(e: &Expr) -> bool {
    match e {
        Expr::Nested(inner) => is_null_literal(inner),
        Expr::Value(v) => matches!(v.value, Value::Null),
        _ => false,
    }
}

/// Why `e` can never be a boolean, or `None` if it may be (conservative:
/// columns, unknown functions and anything doubtful may be boolean).
fn non_boolean_reason(e: &Expr) -> Option<String> {
    let s = |x: &str| Some(x.to_string());
    match e {
        Expr::Nested(inner) => non_boolean_reason(inner),
        Expr::Value(v) => match &v.value {
            Value::Boolean(_) | Value::Null | Value::Placeholder(_) => None,
            Value::Number(..) => s("a number literal"),
            Value::SingleQuotedString(_)
            | Value::DoubleQuotedString(_)
            | Value::EscapedStringLiteral(_)
            | Value::UnicodeStringLiteral(_)
            | Value::NationalStringLiteral(_)
            | Value::SingleQuotedRawStringLiteral(_)
            | Value::DoubleQuotedRawStringLiteral(_)
            | Value::TripleSingleQuotedString(_)
            | Value::TripleDoubleQuotedString(_) => s("a string literal"),
            _ => s("a literal"),
        },
        Expr::BinaryOp { op, .. } => match op {
            BinaryOperator::Plus
            | BinaryOperator::Minus
            | BinaryOperator::Multiply
            | BinaryOperator::Divide
            | BinaryOperator::Modulo
            | BinaryOperator::DuckIntegerDivide
            | BinaryOperator::MyIntegerDivide => s("arithmetic"),
            BinaryOperator::StringConcat => s("a string concatenation (`||`)"),
            BinaryOperator::BitwiseAnd
            | BinaryOperator::BitwiseOr
            | BinaryOperator::BitwiseXor
            | BinaryOperator::PGBitwiseXor
            | BinaryOperator::PGBitwiseShiftLeft
            | BinaryOperator::PGBitwiseShiftRight => s("a bitwise operation"),
            _ => None,
        },
        Expr::UnaryOp { op, expr } => match op {
            UnaryOperator::Minus | UnaryOperator::Plus => {
                if matches!(expr.as_ref(), Expr::Value(_)) {
                    s("a number literal")
                } else {
                    s("arithmetic")
                }
            }
            UnaryOperator::BitwiseNot => s("a bitwise operation"),
            _ => None,
        },
        Expr::Cast { data_type, .. } => {
            if is_boolean_type(data_type) {
                None
            } else {
                Some(format!("a cast to {data_type}"))
            }
        }
        Expr::TypedString(_) => s("a typed literal"),
        Expr::Interval(_) => s("an interval"),
        Expr::Array(_) | Expr::Map(_) | Expr::Struct { .. } | Expr::Dictionary(_) => {
            s("an array, map or struct value")
        }
        Expr::Tuple(_) => s("a tuple"),
        Expr::Extract { .. }
        | Expr::Ceil { .. }
        | Expr::Floor { .. }
        | Expr::Position { .. }
        | Expr::Substring { .. }
        | Expr::Trim { .. }
        | Expr::Overlay { .. }
        | Expr::AtTimeZone { .. } => s("a function that returns a non-boolean value"),
        Expr::Case {
            conditions,
            else_result,
            ..
        } => {
            let results = conditions
                .iter()
                .map(|c| &c.result)
                .chain(else_result.as_deref());
            for r in results {
                if is_null_literal(r) {
                    continue;
                }
                if let Some(why) = non_boolean_reason(r) {
                    return Some(format!("a CASE with a non-boolean result ({why})"));
                }
            }
            None
        }
        Expr::Function(f) => {
            let name = builtin_name(f)?;
            if f.over.is_some()
                || AGGREGATES.contains(&name.as_str())
                || WINDOW_ONLY.contains(&name.as_str())
            {
                return None; // reported as not row-level
            }
            if NON_BOOLEAN_FUNCS.contains(&name.as_str()) {
                return Some(format!("`{name}(...)`, which returns a non-boolean value"));
            }
            let args = arg_exprs(f);
            let results: Vec<&Expr> = match name.as_str() {
                "coalesce" | "nvl" | "ifnull" => args,
                "nullif" => args.into_iter().take(1).collect(),
                "if" | "iff" => args.into_iter().skip(1).collect(),
                "nvl2" => args.into_iter().skip(1).collect(),
                _ => return None,
            };
            for r in results {
                if is_null_literal(r) {
                    continue;
                }
                if let Some(why) = non_boolean_reason(r) {
                    return Some(format!("`{name}(...)` with a non-boolean argument ({why})"));
                }
            }
            None
        }
        _ => None,
    }
}
