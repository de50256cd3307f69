//! One expression's tokens with their byte ranges, the parse, and the
//! checks of a parsed expression (row level, functions, boolean type).

use std::ops::{ControlFlow, Range};

use sqlparser::ast::{
    visit_expressions, Expr, Function, FunctionArguments, InTarget, ObjectNamePart, Query, Spanned,
};
use sqlparser::dialect::DatabricksDialect;
use sqlparser::parser::{Parser, ParserError};
use sqlparser::tokenizer::{Token, TokenWithSpan};

use super::boolean::non_boolean_reason;
use super::function_kinds::{
    arg_count, builtin_name, AGGREGATES, NONDETERMINISTIC_FUNCS, WINDOW_ONLY,
};
use super::tokens::describe_token;
use super::{
    syntax, ExprFact, ExprFinding, ExprOptions, RECURSION_LIMIT, SCALAR_SUBQUERY, WINDOW_OVER,
};
use crate::text;

pub(super) struct Ctx<'a> {
    pub(super) text: &'a str,
    pub(super) tokens: Vec<TokenWithSpan>,
    pub(super) ranges: Vec<Range<usize>>,
    /// Indices of the non-whitespace, non-comment tokens.
    pub(super) sig: Vec<usize>,
    /// For each parenthesis token index, the index of its partner.
    pub(super) partner: Vec<Option<usize>>,
    pub(super) options: ExprOptions<'a>,
}

impl<'a> Ctx<'a> {
    pub(super) fn new(text: &'a str, tokens: Vec<TokenWithSpan>, options: ExprOptions<'a>) -> Self {
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

    pub(super) fn max_paren_depth(&self) -> usize {
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
    pub(super) fn whole_range(&self) -> Range<usize> {
        match (self.sig.first(), self.sig.last()) {
            (Some(&a), Some(&b)) => self.ranges[a].start..self.ranges[b].end,
            _ => 0..self.text.len(),
        }
    }

    /// Token index starting exactly at a byte offset.
    pub(super) fn token_at(&self, offset: usize) -> Option<usize> {
        let k = self.ranges.partition_point(|r| r.start < offset);
        (k..self.ranges.len())
            .take_while(|&i| self.ranges[i].start == offset)
            .find(|&i| !text::is_trivia(&self.tokens[i].token))
    }

    pub(super) fn token_at_location(&self, loc: sqlparser::tokenizer::Location) -> Option<usize> {
        let off = text::Cursor::new(self.text).offset(loc)?;
        self.token_at(off)
    }

    /// The range of the token at a location; at the end of the text when the
    /// location is missing (sqlparser's EOF).
    pub(super) fn range_at_location(&self, loc: sqlparser::tokenizer::Location) -> Range<usize> {
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

    pub(super) fn next_sig(&self, index: usize) -> Option<usize> {
        let k = self.sig.partition_point(|&i| i <= index);
        self.sig.get(k).copied()
    }

    pub(super) fn prev_sig(&self, index: usize) -> Option<usize> {
        let k = self.sig.partition_point(|&i| i < index);
        k.checked_sub(1).map(|k| self.sig[k])
    }

    pub(super) fn parser_error(&self, e: &ParserError) -> ExprFinding {
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
    pub(super) fn call_range(&self, f: &Function) -> Option<Range<usize>> {
        let (first, last) = self.name_tokens(f)?;
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
    pub(super) fn name_range(&self, f: &Function) -> Option<Range<usize>> {
        let (first, last) = self.name_tokens(f)?;
        Some(self.ranges[first].start..self.ranges[last].end)
    }

    /// The tokens of a function name's first and last parts.
    fn name_tokens(&self, f: &Function) -> Option<(usize, usize)> {
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
        Some((first, last))
    }

    /// The range of a subquery: the parentheses around it.
    pub(super) fn subquery_range(&self, q: &Query) -> Range<usize> {
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

    pub(super) fn row_level_findings(&self, expr: &Expr) -> Vec<ExprFinding> {
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

    pub(super) fn function_findings(&self, f: &Function, out: &mut Vec<ExprFinding>) {
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

impl Ctx<'_> {
    /// The tokens as one query that reaches the end of the text (trailing
    /// semicolons allowed, as `spark.sql` allows them).
    pub(super) fn parse_query(&self) -> Result<Box<Query>, ExprFinding> {
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
    pub(super) fn parse(&self) -> Result<Expr, ExprFinding> {
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
    pub(super) fn facts(&self, expr: &Expr) -> Vec<ExprFinding> {
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
