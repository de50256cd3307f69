//! The SQL pipeline reader: Lakeflow Declarative Pipelines (DLT) SQL
//! sources read into a [`PipelineFile`].
//!
//! sqlparser 0.64 parses none of the pipeline statements (`CREATE
//! STREAMING TABLE`, `CONSTRAINT ... EXPECT`, `CREATE FLOW ... AUTO CDC
//! INTO`, ...), so the statements are scanned on its tokenizer (Databricks
//! dialect), and only the expressions inside them (`WHERE`, `SEQUENCE BY`,
//! `APPLY AS DELETE WHEN`) go to its expression parser, which says where
//! each one ends. Every fact keeps the byte range it was read from; an
//! `EXPECT (...)` body is an [`Evaluated`] text whose source map is the
//! identity, so the SQL checks point into the file.
//!
//! Statements end at `;` and at a notebook cell boundary
//! (`-- COMMAND ----------`). A pipeline statement that cannot be read is a
//! syntax error of the file (never a silent skip); the next statement is
//! read as usual. `SET`, `USE` and `RESET` are read and ignored.

use std::collections::HashSet;
use std::ops::Range;

use sqlparser::dialect::DatabricksDialect;
use sqlparser::parser::Parser;
use sqlparser::tokenizer::{Location, Token, TokenWithSpan, Tokenizer, Whitespace};

use crate::eval::Evaluated;
use crate::model::{
    AutoCdc, CdcSource, ComputedColumn, Constraint, Dataset, DatasetKind, ExpectAction, Flow,
    Grouping, LegacyUse, Named, PipelineExpectation, PipelineFile, Read, RowFilter,
};

/// Nesting limit handed to sqlparser's expression parser.
const RECURSION_LIMIT: usize = 64;

/// Reads a SQL pipeline source. Never fails: what cannot be read is in
/// [`PipelineFile::syntax_errors`].
pub fn read(source: &str) -> PipelineFile {
    let mut file = PipelineFile::default();
    let lexed = lex(source);
    file.syntax_errors.extend(lexed.errors);
    legacy_live_prefixes(&lexed.tokens, &mut file);
    for statement in statements(&lexed.tokens, &lexed.cell_starts, &lexed.cut_before) {
        let mut reader = StatementReader {
            source,
            toks: statement,
            file: &mut file,
        };
        reader.read();
    }
    file
}

/// A significant token (no whitespace or comment) and its byte range.
#[derive(Clone, Debug)]
struct Tok {
    raw: TokenWithSpan,
    span: Range<usize>,
}

impl Tok {
    fn token(&self) -> &Token {
        &self.raw.token
    }
}

struct Lexed {
    tokens: Vec<Tok>,
    /// Indices into `tokens` that start a notebook cell, or resume after a
    /// tokenizer error.
    cell_starts: HashSet<usize>,
    /// Indices into `tokens` where a tokenizer error cut the statement
    /// before them: that statement is already reported, not read.
    cut_before: HashSet<usize>,
    errors: Vec<(Range<usize>, String)>,
}

/// Tokenizes the whole file. A tokenizer error (an unterminated string or
/// comment) is reported and tokenizing resumes on the next line.
fn lex(source: &str) -> Lexed {
    let dialect = DatabricksDialect {};
    let mut out = Lexed {
        tokens: Vec::new(),
        cell_starts: HashSet::new(),
        cut_before: HashSet::new(),
        errors: Vec::new(),
    };
    let mut base = 0;
    while base < source.len() {
        let chunk = &source[base..];
        let mut buf = Vec::new();
        let result = Tokenizer::new(&dialect, chunk).tokenize_with_location_into_buf(&mut buf);
        let mut cursor = LocationCursor::new(chunk);
        for raw in buf {
            let start = cursor.offset(raw.span.start).unwrap_or(chunk.len());
            let end = cursor.offset(raw.span.end).unwrap_or(start).max(start);
            let span = base + start..base + end;
            match &raw.token {
                Token::Whitespace(Whitespace::SingleLineComment { comment, .. }) => {
                    if comment.trim_start().starts_with("COMMAND ----------") {
                        out.cell_starts.insert(out.tokens.len());
                    }
                }
                Token::Whitespace(_) | Token::EOF => {}
                _ => out.tokens.push(Tok { raw, span }),
            }
        }
        match result {
            Ok(()) => break,
            Err(error) => {
                let at = cursor
                    .offset(error.location)
                    .unwrap_or(chunk.len())
                    .min(chunk.len());
                let line_end = chunk[at..].find('\n').map_or(chunk.len(), |i| at + i + 1);
                let message = error
                    .message
                    .split(" at Line:")
                    .next()
                    .unwrap_or(&error.message)
                    .to_string();
                out.errors.push((
                    base + at..base + line_end.max(at),
                    format!("this SQL cannot be tokenized: {message}"),
                ));
                // Resume after the offending line; nothing is lost but that line.
                out.cell_starts.insert(out.tokens.len());
                out.cut_before.insert(out.tokens.len());
                let next = base + line_end.max(at + 1);
                base = if next > source.len() {
                    source.len()
                } else {
                    let mut n = next;
                    while !source.is_char_boundary(n) {
                        n += 1;
                    }
                    n
                };
            }
        }
    }
    out
}

/// Maps sqlparser locations (1-based line, column in chars) to byte
/// offsets, walking forward; tokens come in text order.
struct LocationCursor<'a> {
    text: &'a str,
    byte: usize,
    line: u64,
    col: u64,
}

impl<'a> LocationCursor<'a> {
    fn new(text: &'a str) -> Self {
        LocationCursor {
            text,
            byte: 0,
            line: 1,
            col: 1,
        }
    }

    fn offset(&mut self, loc: Location) -> Option<usize> {
        if loc.line == 0 {
            return None;
        }
        let target = (loc.line, loc.column.max(1));
        if target < (self.line, self.col) {
            self.byte = 0;
            self.line = 1;
            self.col = 1;
        }
        while (self.line, self.col) < target {
            let Some(ch) = self.text[self.byte..].chars().next() else {
                break;
            };
            if ch == '\n' {
                if self.line == target.0 {
                    break;
                }
                self.line += 1;
                self.col = 1;
            } else {
                self.col += 1;
            }
            self.byte += ch.len_utf8();
        }
        Some(self.byte)
    }
}

/// The statements: token runs between `;` and cell boundaries.
fn statements<'t>(
    tokens: &'t [Tok],
    cell_starts: &HashSet<usize>,
    cut_before: &HashSet<usize>,
) -> Vec<&'t [Tok]> {
    let mut out = Vec::new();
    let mut start = 0;
    for (i, tok) in tokens.iter().enumerate() {
        if cell_starts.contains(&i) && i > start {
            if !cut_before.contains(&i) {
                out.push(&tokens[start..i]);
            }
            start = i;
        }
        if matches!(tok.token(), Token::SemiColon) {
            if i > start {
                out.push(&tokens[start..i]);
            }
            start = i + 1;
        }
    }
    if start < tokens.len() && !cut_before.contains(&tokens.len()) {
        out.push(&tokens[start..]);
    }
    out
}

/// `LIVE.` prefixes anywhere in the file (legacy: datasets of the pipeline
/// are read by name).
fn legacy_live_prefixes(tokens: &[Tok], file: &mut PipelineFile) {
    for pair in tokens.windows(3) {
        if is_kw(&pair[0], "LIVE")
            && matches!(pair[1].token(), Token::Period)
            && matches!(pair[2].token(), Token::Word(_))
        {
            file.legacy.push(LegacyUse {
                span: pair[0].span.start..pair[1].span.end,
                written: "LIVE.".to_string(),
                replacement: "the dataset name without `LIVE.`".to_string(),
            });
        }
    }
}

fn is_kw(tok: &Tok, word: &str) -> bool {
    matches!(tok.token(), Token::Word(w) if w.quote_style.is_none() && w.value.eq_ignore_ascii_case(word))
}

fn word(tok: &Tok) -> Option<&str> {
    match tok.token() {
        Token::Word(w) => Some(&w.value),
        _ => None,
    }
}

/// An aggregate that counts a group's rows: `count(*)`, `count(1)`.
fn is_row_count(expression: &str) -> bool {
    let compact: String = expression
        .chars()
        .filter(|c| !c.is_whitespace())
        .collect::<String>()
        .to_ascii_lowercase();
    matches!(compact.as_str(), "count(*)" | "count(1)")
}

/// Keywords that end a list or an expression of an AUTO CDC statement.
const CDC_CLAUSES: &[&str] = &[
    "FROM", "KEYS", "IGNORE", "APPLY", "SEQUENCE", "COLUMNS", "STORED", "TRACK",
];

/// Keywords that end a `WHERE` at the query's own level.
const QUERY_CLAUSES: &[&str] = &[
    "GROUP",
    "ORDER",
    "LIMIT",
    "HAVING",
    "WINDOW",
    "QUALIFY",
    "UNION",
    "EXCEPT",
    "INTERSECT",
    "MINUS",
    "CLUSTER",
    "DISTRIBUTE",
    "SORT",
    "OFFSET",
];

struct StatementReader<'a, 'f> {
    source: &'a str,
    toks: &'a [Tok],
    file: &'f mut PipelineFile,
}

/// What a query (after `AS`, or the text of a Python `spark.sql(...)`)
/// says about its dataset.
#[derive(Debug, Default)]
pub struct QueryFacts {
    pub reads: Vec<Read>,
    pub row_filters: Vec<RowFilter>,
    pub select_list: Option<Vec<Named>>,
    pub computed_columns: Vec<ComputedColumn>,
    pub grouping: Option<Grouping>,
}

/// The facts of one query text, spans relative to it; `None` when it does
/// not tokenize or is no query (`spark.sql("SHOW TABLES")`).
pub fn query_facts(text: &str) -> Option<QueryFacts> {
    let lexed = lex(text);
    if !lexed.errors.is_empty() {
        return None;
    }
    let toks = &lexed.tokens;
    let lo = toks.iter().position(|t| word(t).is_some())?;
    let starts_query = |w: &str| w.eq_ignore_ascii_case("SELECT") || w.eq_ignore_ascii_case("WITH");
    if !word(&toks[lo]).is_some_and(starts_query) {
        return None;
    }
    let hi = toks
        .iter()
        .position(|t| matches!(t.token(), Token::SemiColon))
        .unwrap_or(toks.len());
    let mut file = PipelineFile::default();
    let reader = StatementReader {
        source: text,
        toks: &toks[..hi],
        file: &mut file,
    };
    Some(reader.query(lo, hi))
}

impl StatementReader<'_, '_> {
    fn kw(&self, i: usize, word: &str) -> bool {
        self.toks.get(i).is_some_and(|t| is_kw(t, word))
    }

    fn kws(&self, i: usize, words: &[&str]) -> bool {
        words.iter().enumerate().all(|(k, w)| self.kw(i + k, w))
    }

    fn is(&self, i: usize, token: &Token) -> bool {
        self.toks.get(i).is_some_and(|t| t.token() == token)
    }

    /// Byte range of tokens `lo..hi` (non-empty).
    fn span(&self, lo: usize, hi: usize) -> Range<usize> {
        let hi = hi.min(self.toks.len());
        if lo >= hi {
            let at = self
                .toks
                .get(lo)
                .or(self.toks.last())
                .map_or(0, |t| t.span.start);
            return at..at;
        }
        self.toks[lo].span.start..self.toks[hi - 1].span.end
    }

    fn whole(&self) -> Range<usize> {
        self.span(0, self.toks.len())
    }

    fn error(&mut self, span: Range<usize>, message: impl Into<String>) {
        self.file.syntax_errors.push((span, message.into()));
    }

    /// The token after `(` at `open` that closes it, within the statement.
    fn matching(&self, open: usize) -> Option<usize> {
        let mut depth = 0usize;
        for (i, tok) in self.toks.iter().enumerate().skip(open) {
            match tok.token() {
                Token::LParen => depth += 1,
                Token::RParen => {
                    depth = depth.checked_sub(1)?;
                    if depth == 0 {
                        return Some(i);
                    }
                }
                _ => {}
            }
        }
        None
    }

    /// A dotted name at `i`: its parts' unquoted values joined with `.`,
    /// its span, and the index after it.
    fn name(&self, i: usize) -> Option<(Named, usize)> {
        let first = self.toks.get(i)?;
        word(first)?;
        let mut parts = vec![word(first)?.to_string()];
        let mut end = i + 1;
        while self.is(end, &Token::Period) {
            let Some(part) = self.toks.get(end + 1).and_then(word) else {
                break;
            };
            parts.push(part.to_string());
            end += 2;
        }
        Some((
            Named {
                name: parts.join("."),
                span: self.span(i, end),
            },
            end,
        ))
    }

    /// A read name: a dotted name without a `LIVE.` prefix (legacy uses are
    /// reported file-wide), not followed by `(` (a table function).
    fn read_name(&self, i: usize) -> Option<(Named, usize)> {
        let (mut named, end) = self.name(i)?;
        if self.is(end, &Token::LParen) {
            return None;
        }
        if self.kw(i, "LIVE") && end > i + 1 {
            named.name = named.name["LIVE.".len()..].to_string();
            named.span = self.span(i + 2, end);
        }
        Some((named, end))
    }

    /// Depth-0 comma-separated items of `lo..hi`.
    fn items(&self, lo: usize, hi: usize) -> Vec<(usize, usize)> {
        let mut out = Vec::new();
        let mut depth = 0i32;
        let mut start = lo;
        for i in lo..hi.min(self.toks.len()) {
            match self.toks[i].token() {
                Token::LParen | Token::LBracket => depth += 1,
                Token::RParen | Token::RBracket => depth -= 1,
                Token::Comma if depth == 0 => {
                    out.push((start, i));
                    start = i + 1;
                }
                _ => {}
            }
        }
        if start < hi {
            out.push((start, hi));
        }
        out
    }

    /// Items of `lo..hi` as names (the source text of each item).
    fn name_list(&self, lo: usize, hi: usize) -> Vec<Named> {
        self.items(lo, hi)
            .into_iter()
            .filter(|(a, b)| a < b)
            .map(|(a, b)| {
                let span = self.span(a, b);
                Named {
                    name: self.source[span.clone()].to_string(),
                    span,
                }
            })
            .collect()
    }

    /// Parses an expression starting at `lo` (tokens up to `hi`) with
    /// sqlparser; the index after it.
    fn expression_end(&self, lo: usize, hi: usize) -> Option<usize> {
        let hi = hi.min(self.toks.len());
        if lo >= hi {
            return None;
        }
        let tokens: Vec<TokenWithSpan> = self.toks[lo..hi].iter().map(|t| t.raw.clone()).collect();
        let dialect = DatabricksDialect {};
        let mut parser = Parser::new(&dialect)
            .with_recursion_limit(RECURSION_LIMIT)
            .with_tokens_with_locations(tokens);
        parser.parse_expr().ok()?;
        let used = parser.index();
        (used > 0).then_some(lo + used.min(hi - lo))
    }

    /// The first depth-0 token in `lo..hi` that is one of `words`.
    fn next_clause(&self, lo: usize, hi: usize, words: &[&str]) -> usize {
        let mut depth = 0i32;
        for i in lo..hi.min(self.toks.len()) {
            match self.toks[i].token() {
                Token::LParen => depth += 1,
                Token::RParen => depth -= 1,
                _ if depth == 0 && words.iter().any(|w| self.kw(i, w)) => return i,
                _ => {}
            }
        }
        hi
    }

    fn read(&mut self) {
        let Some(first) = self.toks.first() else {
            return;
        };
        if is_kw(first, "CREATE") {
            self.create();
        } else if self.kws(0, &["APPLY", "CHANGES", "INTO"]) {
            self.auto_cdc(0, 3, true);
        } else if self.kws(0, &["AUTO", "CDC", "INTO"]) {
            self.auto_cdc(0, 3, false);
        } else if ["SET", "USE", "RESET"].iter().any(|w| is_kw(first, w)) {
        } else {
            let text = self.source[first.span.clone()].to_string();
            self.error(
                self.whole(),
                format!(
                    "`{text} ...` is not a statement of a pipeline source: a Lakeflow SQL \
                     pipeline runs CREATE ... TABLE / VIEW / FLOW, APPLY CHANGES INTO, SET \
                     and USE; this statement is not checked"
                ),
            );
        }
    }

    fn create(&mut self) {
        let mut i = 1;
        let mut streaming = false;
        let mut materialized = false;
        let mut temporary = false;
        let mut live = None;
        loop {
            if self.kws(i, &["OR", "REFRESH"]) || self.kws(i, &["OR", "REPLACE"]) {
                i += 2;
            } else if self.kw(i, "STREAMING") {
                streaming = true;
                i += 1;
            } else if self.kw(i, "MATERIALIZED") {
                materialized = true;
                i += 1;
            } else if self.kw(i, "TEMPORARY") || self.kw(i, "TEMP") {
                temporary = true;
                i += 1;
            } else if self.kw(i, "PRIVATE") {
                i += 1;
            } else if self.kw(i, "LIVE") {
                live = Some(i);
                i += 1;
            } else {
                break;
            }
        }
        let (kind, written) = if self.kw(i, "TABLE") {
            if streaming {
                (DatasetKind::StreamingTable, "STREAMING TABLE")
            } else if live.is_some() {
                (DatasetKind::MaterializedView, "TABLE")
            } else {
                (DatasetKind::Table, "TABLE")
            }
        } else if self.kw(i, "VIEW") {
            if materialized {
                (DatasetKind::MaterializedView, "MATERIALIZED VIEW")
            } else {
                (DatasetKind::View, "VIEW")
            }
        } else if self.kw(i, "FLOW") {
            self.flow(i + 1);
            return;
        } else {
            // CREATE FUNCTION, CREATE TEMPORARY FUNCTION, ...: not a dataset.
            if live.is_some() || streaming || materialized {
                let span = self.whole();
                self.error(
                    span,
                    "a CREATE statement of a pipeline source without TABLE, VIEW or FLOW where \
                     dqlint expects one; this statement is not checked",
                );
            }
            return;
        };
        if let Some(at) = live {
            let (written, replacement) = match (streaming, written) {
                (true, _) => ("CREATE STREAMING LIVE TABLE", "CREATE STREAMING TABLE"),
                (_, "VIEW") if temporary => ("CREATE TEMPORARY LIVE VIEW", "CREATE TEMPORARY VIEW"),
                (_, "VIEW") => ("CREATE LIVE VIEW", "CREATE TEMPORARY VIEW"),
                _ => ("CREATE LIVE TABLE", "CREATE MATERIALIZED VIEW"),
            };
            self.file.legacy.push(LegacyUse {
                span: self.span(0, i + 1).start..self.span(at, i + 1).end,
                written: written.to_string(),
                replacement: replacement.to_string(),
            });
        }
        i += 1;
        if self.kws(i, &["IF", "NOT", "EXISTS"]) {
            i += 3;
        }
        let Some((name, after)) = self.name(i) else {
            let span = self.span(0, (i + 1).min(self.toks.len()));
            self.error(
                span,
                format!(
                    "CREATE ... {written} without a dataset name; this statement is not checked"
                ),
            );
            return;
        };
        let mut dataset = Dataset {
            name,
            kind,
            span: self.whole(),
            table_properties: Vec::new(),
            reads: Vec::new(),
            row_filters: Vec::new(),
            select_list: None,
            computed_columns: Vec::new(),
            grouping: None,
            expectations: Vec::new(),
        };
        let mut i = after;
        if self.is(i, &Token::LParen) {
            let Some(close) = self.matching(i) else {
                let span = self.span(i, self.toks.len());
                self.error(span, "this column list is not closed: `)` is missing");
                return;
            };
            self.schema(i + 1, close, &mut dataset);
            i = close + 1;
        }
        let mut query = None;
        while i < self.toks.len() {
            if self.kw(i, "AS") {
                query = Some(i + 1);
                break;
            }
            if self.kw(i, "TBLPROPERTIES") && self.is(i + 1, &Token::LParen) {
                if let Some(close) = self.matching(i + 1) {
                    dataset.table_properties = self.properties(i + 2, close);
                    i = close + 1;
                    continue;
                }
            }
            if self.is(i, &Token::LParen) {
                match self.matching(i) {
                    Some(close) => i = close + 1,
                    None => {
                        let span = self.span(i, self.toks.len());
                        self.error(span, "`(` is not closed: `)` is missing");
                        return;
                    }
                }
                continue;
            }
            i += 1;
        }
        match query {
            Some(q) if q < self.toks.len() => {
                let facts = self.query(q, self.toks.len());
                dataset.reads = facts.reads;
                dataset.row_filters = facts.row_filters;
                dataset.select_list = facts.select_list;
                dataset.computed_columns = facts.computed_columns;
                dataset.grouping = facts.grouping;
            }
            Some(q) => {
                let span = self.span(q - 1, q);
                self.error(
                    span,
                    "`AS` without a query; this statement is not fully checked",
                );
            }
            None if kind == DatasetKind::StreamingTable => {
                self.file.declared_targets.push(dataset.name.clone());
            }
            None => {}
        }
        self.file.datasets.push(dataset);
    }

    /// The column list of a CREATE: column definitions, `CONSTRAINT ...
    /// EXPECT` expectations and other table constraints.
    fn schema(&mut self, lo: usize, hi: usize, dataset: &mut Dataset) {
        for (a, b) in self.items(lo, hi) {
            if !self.kw(a, "CONSTRAINT") {
                continue;
            }
            let origin = self.span(a, b);
            let Some(name_tok) = self.toks.get(a + 1).filter(|_| a + 1 < b) else {
                self.error(origin, "CONSTRAINT without a name");
                continue;
            };
            let Some(name) = word(name_tok) else {
                self.error(name_tok.span.clone(), "CONSTRAINT without a name");
                continue;
            };
            let name = Named {
                name: name.to_string(),
                span: name_tok.span.clone(),
            };
            if !self.kw(a + 2, "EXPECT") {
                // PRIMARY KEY, FOREIGN KEY, CHECK: not expectations.
                continue;
            }
            let open = a + 3;
            let Some(close) = self
                .is(open, &Token::LParen)
                .then(|| self.matching(open))
                .flatten()
                .filter(|&c| c < b)
            else {
                let span = self.span(a, b);
                self.error(
                    span,
                    format!(
                        "`CONSTRAINT {} EXPECT` takes a parenthesised expression: \
                         EXPECT (<expression>); this expectation is not checked",
                        name.name
                    ),
                );
                continue;
            };
            let inner = self.toks[open].span.end..self.toks[close].span.start;
            let constraint = self.verbatim(inner);
            let mut action = ExpectAction::Warn;
            let rest = close + 1;
            if rest < b {
                if self.kws(rest, &["ON", "VIOLATION", "DROP", "ROW"]) && rest + 4 == b {
                    action = ExpectAction::Drop;
                } else if self.kws(rest, &["ON", "VIOLATION", "FAIL", "UPDATE"]) && rest + 4 == b {
                    action = ExpectAction::Fail;
                } else {
                    let span = self.span(rest, b);
                    self.error(
                        span,
                        format!(
                            "after `EXPECT (...)` only `ON VIOLATION DROP ROW` or `ON VIOLATION \
                             FAIL UPDATE` may follow; expectation `{}` is read as a warning",
                            name.name
                        ),
                    );
                }
            }
            dataset.expectations.push(PipelineExpectation {
                name: Some(name),
                constraint,
                action,
                origin,
                from_dict: None,
            });
        }
    }

    /// The text of a byte range, trimmed, as an identity-mapped constraint.
    fn verbatim(&self, range: Range<usize>) -> Constraint {
        let text = &self.source[range.clone()];
        let start = range.start + (text.len() - text.trim_start().len());
        Constraint::Known(Evaluated::verbatim(text.trim(), start))
    }

    /// `TBLPROPERTIES (k = v, ...)`: literal entries.
    fn properties(&self, lo: usize, hi: usize) -> Vec<(String, String)> {
        let mut out = Vec::new();
        for (a, b) in self.items(lo, hi) {
            let Some(eq) = (a..b).find(|&i| self.is(i, &Token::Eq)) else {
                continue;
            };
            let text = |lo: usize, hi: usize| -> String {
                if hi == lo + 1 {
                    if let Token::SingleQuotedString(s) | Token::DoubleQuotedString(s) =
                        self.toks[lo].token()
                    {
                        return s.clone();
                    }
                }
                let span = self.span(lo, hi);
                self.source[span].to_string()
            };
            if eq > a && eq + 1 < b {
                out.push((text(a, eq), text(eq + 1, b)));
            }
        }
        out
    }

    /// Reads, the row filter and the literal select list of the query in `lo..hi`.
    fn query(&self, lo: usize, hi: usize) -> QueryFacts {
        let mut facts = QueryFacts::default();
        let mut ctes = HashSet::new();
        let mut body = lo;
        if self.kw(lo, "WITH") {
            let mut i = lo + 1;
            if self.kw(i, "RECURSIVE") {
                i += 1;
            }
            while let Some(name) = self.toks.get(i).and_then(word) {
                ctes.insert(name.to_ascii_lowercase());
                let mut j = i + 1;
                if self.is(j, &Token::LParen) && !self.kw(j, "AS") {
                    if let Some(c) = self.matching(j) {
                        j = c + 1;
                    }
                }
                if !self.kw(j, "AS") || !self.is(j + 1, &Token::LParen) {
                    break;
                }
                let Some(close) = self.matching(j + 1) else {
                    break;
                };
                i = close + 1;
                body = i;
                if self.is(i, &Token::Comma) {
                    i += 1;
                } else {
                    break;
                }
            }
        }
        // Reads: FROM/JOIN at a level where a SELECT was seen (so that
        // `extract(year FROM ts)` is not a read), and STREAM(x) anywhere.
        let mut select_seen = vec![false];
        let mut i = lo;
        while i < hi {
            match self.toks[i].token() {
                Token::LParen => select_seen.push(false),
                Token::RParen if select_seen.len() > 1 => {
                    select_seen.pop();
                }
                _ => {}
            }
            if self.kw(i, "SELECT") {
                if let Some(top) = select_seen.last_mut() {
                    *top = true;
                }
            }
            if self.kw(i, "STREAM") && self.is(i + 1, &Token::LParen) {
                if let Some((named, end)) = self.read_name(i + 2) {
                    if self.is(end, &Token::RParen) {
                        facts.reads.push(Read {
                            source: named,
                            streaming: true,
                        });
                    }
                }
            } else if (self.kw(i, "FROM") || self.kw(i, "JOIN"))
                && select_seen.last().copied().unwrap_or(false)
            {
                let (at, streaming) = if self.kw(i + 1, "STREAM") && !self.is(i + 2, &Token::LParen)
                {
                    (i + 2, true)
                } else {
                    (i + 1, false)
                };
                if !(self.kw(at, "STREAM") && self.is(at + 1, &Token::LParen)) {
                    if let Some((named, _)) = self.read_name(at) {
                        if !ctes.contains(&named.name.to_ascii_lowercase()) {
                            facts.reads.push(Read {
                                source: named,
                                streaming,
                            });
                        }
                    }
                }
            }
            i += 1;
        }
        // The query's own SELECT list and WHERE.
        let mut depth = 0i32;
        let mut select_at = None;
        let mut from_at = None;
        let mut where_at = None;
        let mut group_at = None;
        for i in body..hi {
            match self.toks[i].token() {
                Token::LParen => depth += 1,
                Token::RParen => depth -= 1,
                _ if depth != 0 => {}
                _ if select_at.is_none() && self.kw(i, "SELECT") => select_at = Some(i),
                _ if select_at.is_some() && from_at.is_none() && self.kw(i, "FROM") => {
                    from_at = Some(i)
                }
                _ if from_at.is_some() && where_at.is_none() && self.kw(i, "WHERE") => {
                    where_at = Some(i)
                }
                _ if QUERY_CLAUSES.iter().any(|w| self.kw(i, w)) && select_at.is_some() => {
                    if from_at.is_some() && self.kws(i, &["GROUP", "BY"]) {
                        group_at = Some(i);
                    }
                    break;
                }
                _ => {}
            }
        }
        if let (Some(s), Some(f)) = (select_at, from_at) {
            facts.select_list = self.select_list(s + 1, f);
            facts.computed_columns = self.computed_columns(s + 1, f);
            if let Some(g) = group_at {
                facts.grouping = self
                    .grouping(s + 1, f, where_at, g, hi, &facts)
                    .filter(|g| !ctes.contains(&g.source.name.to_ascii_lowercase()));
            }
        }
        if let Some(w) = where_at {
            let end = self
                .expression_end(w + 1, hi)
                .unwrap_or_else(|| self.next_clause(w + 1, hi, QUERY_CLAUSES));
            if end > w + 1 {
                let span = self.span(w + 1, end);
                facts.row_filters.push(RowFilter {
                    predicate: self.verbatim(span.clone()),
                    span,
                });
            }
        }
        facts
    }

    /// `SELECT ... FROM t [alias] [WHERE ...] GROUP BY k, ... [HAVING ...]
    /// [ORDER BY ...]` over one table: its keys (plain columns, by name, by
    /// position or `ALL`) and the select items counting a group's rows.
    /// Anything else (a join, a subquery, `ROLLUP`, a `LIMIT` on the groups,
    /// a key that is an expression) is no grouping this reader vouches for.
    fn grouping(
        &self,
        select: usize,
        from: usize,
        where_at: Option<usize>,
        group: usize,
        hi: usize,
        facts: &QueryFacts,
    ) -> Option<Grouping> {
        let table_end = where_at.unwrap_or(group);
        let (source, end) = self.read_name(from + 1)?;
        let one_table = end == table_end
            || (end + 1 == table_end && word(&self.toks[end]).is_some())
            || (end + 2 == table_end && self.kw(end, "AS") && word(&self.toks[end + 1]).is_some());
        if !one_table || self.kw(from + 1, "STREAM") {
            return None;
        }
        let keys_end = self.next_clause(group + 2, hi, QUERY_CLAUSES);
        let mut at = keys_end;
        while at < hi {
            if !(self.kw(at, "HAVING") || self.kws(at, &["ORDER", "BY"])) {
                return None;
            }
            at = self.next_clause(at + 1, hi, QUERY_CLAUSES);
        }
        let row_counts: Vec<String> = facts
            .computed_columns
            .iter()
            .filter(|c| is_row_count(&c.expression))
            .map(|c| c.name.name.clone())
            .collect();
        let plain = |(a, b): (usize, usize)| match self.name(a) {
            Some((named, end)) if end == b => Some(Named {
                name: named
                    .name
                    .rsplit('.')
                    .next()
                    .unwrap_or(&named.name)
                    .to_string(),
                span: self.span(b - 1, b),
            }),
            _ => None,
        };
        let counts_rows = |(a, b): (usize, usize)| {
            b >= a + 2
                && self.kw(b - 2, "AS")
                && word(&self.toks[b - 1])
                    .is_some_and(|alias| row_counts.iter().any(|c| c == alias))
        };
        let select_items = self.items(select, from);
        let group_items = self.items(group + 2, keys_end);
        let keys: Vec<Named> = match group_items.as_slice() {
            // The keys are the select items that aggregate nothing.
            [(a, b)] if *b == a + 1 && self.kw(*a, "ALL") => select_items
                .iter()
                .filter(|item| !counts_rows(**item))
                .map(|item| plain(*item))
                .collect::<Option<_>>()?,
            _ => group_items
                .iter()
                .map(|&(a, b)| match self.toks[a].token() {
                    Token::Number(position, _) if b == a + 1 => {
                        let index: usize = position.parse().ok()?;
                        plain(*select_items.get(index.checked_sub(1)?)?)
                    }
                    _ => plain((a, b)),
                })
                .collect::<Option<_>>()?,
        };
        (!keys.is_empty()).then_some(Grouping {
            source,
            keys,
            row_counts,
            rows_filtered: where_at.is_some(),
        })
    }

    /// A select list without `*`: each item's output name.
    fn select_list(&self, lo: usize, hi: usize) -> Option<Vec<Named>> {
        let mut lo = lo;
        if self.kw(lo, "DISTINCT") || self.kw(lo, "ALL") {
            lo += 1;
        }
        let mut out = Vec::new();
        for (a, b) in self.items(lo, hi) {
            if a >= b {
                return None;
            }
            if (a..b).any(|i| matches!(self.toks[i].token(), Token::Mul))
                && !(a..b).any(|i| self.is(i, &Token::LParen))
            {
                return None;
            }
            let span = self.span(a, b);
            let alias = (a..b).rev().find(|&i| self.kw(i, "AS"));
            let name = match alias {
                Some(at) if at + 2 == b => word(&self.toks[at + 1]).map(str::to_string),
                _ => match self.name(a) {
                    Some((named, end)) if end == b => {
                        named.name.rsplit('.').next().map(str::to_string)
                    }
                    _ => None,
                },
            }
            .unwrap_or_else(|| self.source[span.clone()].to_string());
            out.push(Named { name, span });
        }
        (!out.is_empty()).then_some(out)
    }

    /// The items of a select list that compute a column, `expr AS c` where
    /// `expr` is not a plain column (`*` items do not hide the others).
    fn computed_columns(&self, lo: usize, hi: usize) -> Vec<ComputedColumn> {
        let mut out = Vec::new();
        for (a, b) in self.items(lo, hi) {
            let Some(at) = (a..b).rev().find(|&i| self.kw(i, "AS")) else {
                continue;
            };
            if at + 2 != b || at == a {
                continue;
            }
            let Some(alias) = word(&self.toks[at + 1]) else {
                continue;
            };
            if matches!(self.name(a), Some((_, end)) if end == at) {
                continue;
            }
            let expression = self.span(a, at);
            out.push(ComputedColumn {
                name: Named {
                    name: alias.to_string(),
                    span: self.span(at + 1, b),
                },
                expression: self.source[expression].to_string(),
            });
        }
        out
    }

    /// `CREATE FLOW name [COMMENT '...'] AS INSERT INTO ... | AUTO CDC INTO ...`.
    fn flow(&mut self, at: usize) {
        let Some((name, mut i)) = self.name(at) else {
            let span = self.span(0, (at + 1).min(self.toks.len()));
            self.error(
                span,
                "CREATE FLOW without a flow name; this statement is not checked",
            );
            return;
        };
        while i < self.toks.len() && !self.kw(i, "AS") {
            i += 1;
        }
        if i >= self.toks.len() {
            let span = self.whole();
            self.error(
                span,
                format!(
                    "CREATE FLOW {} without `AS INSERT INTO ...` or `AS AUTO CDC INTO ...`; \
                     this statement is not checked",
                    name.name
                ),
            );
            return;
        }
        i += 1;
        if self.kws(i, &["AUTO", "CDC", "INTO"]) {
            self.auto_cdc(0, i + 3, false);
        } else if self.kws(i, &["APPLY", "CHANGES", "INTO"]) {
            self.auto_cdc(0, i + 3, true);
        } else if self.kws(i, &["INSERT", "INTO"]) {
            let mut j = i + 2;
            if self.kw(j, "ONCE") {
                j += 1;
            }
            let target = self.name(j);
            let Some((target, mut q)) = target else {
                let span = self.span(i, j + 1);
                self.error(
                    span,
                    "INSERT INTO without a target; this flow is not checked",
                );
                return;
            };
            if self.kws(q, &["BY", "NAME"]) {
                q += 2;
            }
            let facts = self.query(q, self.toks.len());
            self.file.flows.push(Flow {
                name: Some(name),
                target: Some(target),
                span: self.whole(),
                reads: facts.reads,
                select_list: facts.select_list,
            });
        } else {
            let span = self.span(i, self.toks.len());
            self.error(
                span,
                format!(
                    "CREATE FLOW {} AS takes INSERT INTO ... or AUTO CDC INTO ...; this \
                     statement is not checked",
                    name.name
                ),
            );
        }
    }

    /// `AUTO CDC INTO` / `APPLY CHANGES INTO` (tokens from `at`, after INTO).
    fn auto_cdc(&mut self, start: usize, at: usize, legacy: bool) {
        let end = self.toks.len();
        if legacy {
            let written_at = at - 3;
            self.file.legacy.push(LegacyUse {
                span: self.span(written_at, at),
                written: "APPLY CHANGES INTO".to_string(),
                replacement: "AUTO CDC INTO".to_string(),
            });
        }
        let mut cdc = AutoCdc {
            span: self.span(start, end),
            target: None,
            source: None,
            keys: Vec::new(),
            sequence_by: None,
            stored_as_scd_type: None,
            column_list: None,
            except_column_list: None,
            track_history_column_list: None,
            track_history_except_column_list: None,
            source_reads: Vec::new(),
            source_select_list: None,
            source_computed_columns: Vec::new(),
            legacy,
        };
        let Some((target, mut i)) = self.name(at) else {
            let span = self.span(at.saturating_sub(1), (at + 1).min(end));
            self.error(
                span,
                "AUTO CDC INTO without a target; this statement is not checked",
            );
            return;
        };
        cdc.target = Some(target);
        while i < end {
            if self.kw(i, "FROM") {
                let (source, next) = self.cdc_source(i + 1);
                // A subquery source: what it reads and selects (the
                // re-inject checks compare it with the clean branch).
                if matches!(source, Some(CdcSource::NotAName { .. }))
                    && self.is(i + 1, &Token::LParen)
                {
                    let facts = self.query(i + 2, next.saturating_sub(1).max(i + 2));
                    cdc.source_reads = facts.reads;
                    cdc.source_select_list = facts.select_list;
                    cdc.source_computed_columns = facts.computed_columns;
                }
                cdc.source = source;
                i = next;
            } else if self.kw(i, "KEYS") {
                let Some(close) = self
                    .is(i + 1, &Token::LParen)
                    .then(|| self.matching(i + 1))
                    .flatten()
                else {
                    let span = self.span(i, i + 1);
                    self.error(
                        span,
                        "KEYS takes a parenthesised column list: KEYS (id, ...)",
                    );
                    return self.file.auto_cdc.push(cdc);
                };
                cdc.keys = self.name_list(i + 2, close);
                i = close + 1;
            } else if self.kws(i, &["IGNORE", "NULL", "UPDATES"]) {
                i += 3;
            } else if self.kws(i, &["APPLY", "AS"])
                && (self.kw(i + 2, "DELETE") || self.kw(i + 2, "TRUNCATE"))
                && self.kw(i + 3, "WHEN")
            {
                match self.expression_end(i + 4, end) {
                    Some(next) => i = next,
                    None => {
                        let stop = self.next_clause(i + 4, end, CDC_CLAUSES);
                        let span = self.span(i + 4, stop.max(i + 5));
                        self.error(span, "this APPLY AS ... WHEN condition does not parse");
                        i = stop.max(i + 4);
                    }
                }
            } else if self.kws(i, &["SEQUENCE", "BY"]) {
                let stop = self
                    .expression_end(i + 2, end)
                    .unwrap_or_else(|| self.next_clause(i + 2, end, CDC_CLAUSES));
                if stop > i + 2 {
                    let span = self.span(i + 2, stop);
                    cdc.sequence_by = Some(Named {
                        name: self.source[span.clone()].to_string(),
                        span,
                    });
                } else {
                    let span = self.span(i, i + 2);
                    self.error(span, "SEQUENCE BY without an expression");
                }
                i = stop.max(i + 2);
            } else if self.kw(i, "COLUMNS") {
                let (include, except, next) = self.column_selection(i + 1, end);
                cdc.column_list = include;
                cdc.except_column_list = except;
                i = next;
            } else if self.kws(i, &["STORED", "AS", "SCD", "TYPE"]) {
                match self.toks.get(i + 4) {
                    Some(tok) if i + 4 < end => {
                        cdc.stored_as_scd_type = Some(Named {
                            name: self.source[tok.span.clone()].to_string(),
                            span: tok.span.clone(),
                        });
                        i += 5;
                    }
                    _ => {
                        let span = self.span(i, i + 4);
                        self.error(span, "STORED AS SCD TYPE without a type (1 or 2)");
                        i += 4;
                    }
                }
            } else if self.kws(i, &["TRACK", "HISTORY", "ON"]) {
                let (include, except, next) = self.column_selection(i + 3, end);
                cdc.track_history_column_list = include.or_else(|| {
                    except.is_none().then(|| {
                        vec![Named {
                            name: "*".to_string(),
                            span: self.span(i + 3, i + 4),
                        }]
                    })
                });
                cdc.track_history_except_column_list = except;
                i = next;
            } else {
                let span = self.span(i, i + 1);
                let text = self.source[span.clone()].to_string();
                self.error(
                    span,
                    format!(
                        "`{text}` is not a clause of AUTO CDC INTO (FROM, KEYS, IGNORE NULL \
                         UPDATES, APPLY AS DELETE WHEN, APPLY AS TRUNCATE WHEN, SEQUENCE BY, \
                         COLUMNS, STORED AS SCD TYPE, TRACK HISTORY ON); the rest of this \
                         statement is not checked"
                    ),
                );
                break;
            }
        }
        if cdc.source.is_none() {
            let span = cdc
                .target
                .as_ref()
                .map_or(cdc.span.clone(), |t| t.span.clone());
            self.error(span, "AUTO CDC INTO without `FROM <source>`");
        }
        self.file.auto_cdc.push(cdc);
    }

    /// The source after `FROM` in AUTO CDC: `STREAM(x)`, `STREAM x`, `x`,
    /// or something that is not a name.
    fn cdc_source(&mut self, at: usize) -> (Option<CdcSource>, usize) {
        let end = self.toks.len();
        if self.kw(at, "STREAM") && self.is(at + 1, &Token::LParen) {
            let Some(close) = self.matching(at + 1) else {
                let span = self.span(at, end);
                self.error(span, "`STREAM(` is not closed: `)` is missing");
                return (None, end);
            };
            if let Some((named, after)) = self.read_name(at + 2) {
                if after == close {
                    return (Some(CdcSource::Name(named)), close + 1);
                }
            }
            let span = self.span(at, close + 1);
            let text = self.source[span.clone()].to_string();
            return (Some(CdcSource::NotAName { span, text }), close + 1);
        }
        let at = if self.kw(at, "STREAM") { at + 1 } else { at };
        if let Some((named, after)) = self.read_name(at) {
            if !CDC_CLAUSES.iter().any(|w| self.kw(at, w)) {
                return (Some(CdcSource::Name(named)), after);
            }
        }
        let stop = if self.is(at, &Token::LParen) {
            self.matching(at).map_or(end, |c| c + 1)
        } else {
            self.next_clause(at, end, CDC_CLAUSES)
        };
        if stop <= at {
            let span = self.span(at.saturating_sub(1), at);
            self.error(span, "FROM without a source");
            return (None, at);
        }
        let span = self.span(at, stop);
        let text = self.source[span.clone()].to_string();
        (Some(CdcSource::NotAName { span, text }), stop)
    }

    /// `a, b` or `* EXCEPT (a, b)` (or `*`): (include list, except list, next index).
    fn column_selection(
        &mut self,
        at: usize,
        end: usize,
    ) -> (Option<Vec<Named>>, Option<Vec<Named>>, usize) {
        if matches!(self.toks.get(at).map(Tok::token), Some(Token::Mul)) {
            if self.kw(at + 1, "EXCEPT") && self.is(at + 2, &Token::LParen) {
                if let Some(close) = self.matching(at + 2) {
                    return (None, Some(self.name_list(at + 3, close)), close + 1);
                }
                let span = self.span(at, end);
                self.error(span, "`* EXCEPT (` is not closed: `)` is missing");
                return (None, None, end);
            }
            return (None, None, at + 1);
        }
        let stop = self.next_clause(at, end, CDC_CLAUSES);
        if stop == at {
            let span = self.span(at.saturating_sub(1), at);
            self.error(span, "an empty column list");
            return (None, None, at);
        }
        let list = if self.is(at, &Token::LParen) && self.matching(at) == Some(stop - 1) {
            self.name_list(at + 1, stop - 1)
        } else {
            self.name_list(at, stop)
        };
        (Some(list), None, stop)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text<'s>(source: &'s str, span: &Range<usize>) -> &'s str {
        &source[span.clone()]
    }

    fn known(c: &Constraint) -> &Evaluated {
        match c {
            Constraint::Known(e) => e,
            Constraint::Unknown { reason, .. } => panic!("unknown: {reason}"),
        }
    }

    /// The shape of the Databricks docs' streaming table with expectations.
    const ORDERS: &str = "\
-- Databricks notebook source
CREATE OR REFRESH STREAMING TABLE orders_bronze
COMMENT 'raw orders'
TBLPROPERTIES ('quality' = 'bronze', pipelines.reset.allowed = false)
AS SELECT * FROM STREAM read_files('/Volumes/main/raw/orders', format => 'json');

-- COMMAND ----------

CREATE OR REFRESH STREAMING TABLE orders_silver (
  order_id BIGINT NOT NULL,
  CONSTRAINT valid_id EXPECT (order_id IS NOT NULL) ON VIOLATION DROP ROW,
  CONSTRAINT valid_price EXPECT (price > 0) ON VIOLATION FAIL UPDATE,
  CONSTRAINT recent EXPECT (order_ts > '2020-01-01'),
  CONSTRAINT pk PRIMARY KEY (order_id)
)
AS SELECT order_id, price, order_ts AS ts
FROM STREAM(orders_bronze)
WHERE status <> 'test' AND extract(year FROM order_ts) > 2019

-- COMMAND ----------

CREATE MATERIALIZED VIEW daily AS
WITH t AS (SELECT * FROM orders_silver)
SELECT date(ts) AS day, count(*) AS n FROM t GROUP BY date(ts)
";

    fn grouping_of(query: &str) -> Option<(String, Vec<String>, Vec<String>, bool)> {
        let source = format!("CREATE MATERIALIZED VIEW v AS {query}");
        let file = read(&source);
        let g = file.datasets[0].grouping.clone()?;
        for key in &g.keys {
            assert_eq!(&source[key.span.clone()], key.name.as_str(), "{query}");
        }
        Some((
            g.source.name,
            g.keys.into_iter().map(|k| k.name).collect(),
            g.row_counts,
            g.rows_filtered,
        ))
    }

    #[test]
    fn groupings_of_one_table() {
        let strings = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        let expect = |src: &str, keys: &[&str], counts: &[&str], filtered: bool| {
            Some((src.to_string(), strings(keys), strings(counts), filtered))
        };
        assert_eq!(
            grouping_of("SELECT pk, count(*) AS num_entries FROM LIVE.report GROUP BY pk"),
            expect("report", &["pk"], &["num_entries"], false)
        );
        assert_eq!(
            grouping_of(
                "SELECT o.order_id, o.line, COUNT(1) AS n, sum(x) AS s FROM silver.orders AS o \
                 WHERE o.ts > '2020-01-01' GROUP BY o.order_id, 2 HAVING count(1) > 1 ORDER BY n"
            ),
            expect("silver.orders", &["order_id", "line"], &["n"], true)
        );
        assert_eq!(
            grouping_of("SELECT order_id, count(*) AS n FROM orders GROUP BY ALL"),
            expect("orders", &["order_id"], &["n"], false)
        );
        // Not one table's plain keys, or groups cut off: no grouping.
        for query in [
            "SELECT date(ts) AS day, count(*) AS n FROM t GROUP BY date(ts)",
            "SELECT k, count(*) AS n FROM a JOIN b USING (k) GROUP BY k",
            "SELECT k, count(*) AS n FROM (SELECT DISTINCT k FROM t) GROUP BY k",
            "SELECT k, count(*) AS n FROM t GROUP BY k LIMIT 10",
            "SELECT k, count(*) AS n FROM t GROUP BY ROLLUP(k)",
            "SELECT k, count(*) AS n FROM t GROUP BY k WITH ROLLUP",
            "SELECT k, sum(x) AS s, count(*) AS n FROM t GROUP BY ALL",
            "SELECT k, count(*) AS n FROM STREAM(t) GROUP BY k",
            "WITH d AS (SELECT DISTINCT k FROM t) SELECT k, count(*) AS n FROM d GROUP BY k",
            "SELECT k, count(*) AS n FROM t",
        ] {
            assert_eq!(grouping_of(query), None, "{query}");
        }
        // A count of distinct values or of a column is no row count.
        assert_eq!(
            grouping_of("SELECT k, count(DISTINCT x) AS n, count(x) AS m FROM t GROUP BY k"),
            expect("t", &["k"], &[], false)
        );
    }

    #[test]
    fn datasets_expectations_reads_and_filters() {
        let file = read(ORDERS);
        assert_eq!(file.syntax_errors, vec![]);
        let names: Vec<_> = file.datasets.iter().map(|d| d.name.name.as_str()).collect();
        assert_eq!(names, ["orders_bronze", "orders_silver", "daily"]);
        let bronze = &file.datasets[0];
        assert_eq!(bronze.kind, DatasetKind::StreamingTable);
        assert_eq!(
            bronze.table_properties,
            [
                ("quality".to_string(), "bronze".to_string()),
                ("pipelines.reset.allowed".to_string(), "false".to_string())
            ]
        );
        assert!(bronze.reads.is_empty(), "read_files(...) is not a dataset");

        let silver = &file.datasets[1];
        let exp: Vec<_> = silver
            .expectations
            .iter()
            .map(|e| {
                let c = known(&e.constraint);
                assert_eq!(
                    text(
                        ORDERS,
                        &(c.origin[0].unwrap()..c.origin[0].unwrap() + c.text.len())
                    ),
                    c.text
                );
                (
                    e.name.as_ref().unwrap().name.as_str(),
                    c.text.as_str(),
                    e.action,
                )
            })
            .collect();
        assert_eq!(
            exp,
            [
                ("valid_id", "order_id IS NOT NULL", ExpectAction::Drop),
                ("valid_price", "price > 0", ExpectAction::Fail),
                ("recent", "order_ts > '2020-01-01'", ExpectAction::Warn),
            ]
        );
        assert_eq!(
            text(ORDERS, &silver.expectations[0].origin),
            "CONSTRAINT valid_id EXPECT (order_id IS NOT NULL) ON VIOLATION DROP ROW"
        );
        assert_eq!(silver.reads.len(), 1, "{:?}", silver.reads);
        assert_eq!(silver.reads[0].source.name, "orders_bronze");
        assert!(silver.reads[0].streaming);
        let filter = known(&silver.row_filters[0].predicate);
        assert_eq!(
            filter.text,
            "status <> 'test' AND extract(year FROM order_ts) > 2019"
        );
        let select: Vec<_> = silver
            .select_list
            .as_ref()
            .unwrap()
            .iter()
            .map(|n| n.name.as_str())
            .collect();
        assert_eq!(select, ["order_id", "price", "ts"]);

        let daily = &file.datasets[2];
        assert_eq!(daily.kind, DatasetKind::MaterializedView);
        let reads: Vec<_> = daily.reads.iter().map(|r| r.source.name.as_str()).collect();
        assert_eq!(reads, ["orders_silver"], "the CTE `t` is not a read");
        assert!(file.legacy.is_empty());
    }

    #[test]
    fn cells_without_semicolons_are_separate_statements() {
        let source = "CREATE TEMPORARY VIEW v AS SELECT * FROM a\n-- COMMAND ----------\nCREATE MATERIALIZED VIEW m AS SELECT * FROM v\n";
        let file = read(source);
        assert_eq!(file.syntax_errors, vec![]);
        assert_eq!(file.datasets.len(), 2);
        assert_eq!(file.datasets[0].kind, DatasetKind::View);
        assert_eq!(file.datasets[1].reads[0].source.name, "v");
    }

    #[test]
    fn auto_cdc_with_every_clause() {
        let source = "\
CREATE OR REFRESH STREAMING TABLE customers;

CREATE FLOW customers_cdc AS AUTO CDC INTO customers
FROM STREAM(customers_raw)
KEYS (customer_id, region)
IGNORE NULL UPDATES
APPLY AS DELETE WHEN operation = 'DELETE'
APPLY AS TRUNCATE WHEN operation = 'TRUNCATE'
SEQUENCE BY struct(ts, seq)
COLUMNS * EXCEPT (operation, seq)
STORED AS SCD TYPE 2
TRACK HISTORY ON * EXCEPT (city);
";
        let file = read(source);
        assert_eq!(file.syntax_errors, vec![]);
        assert_eq!(file.declared_targets.len(), 1);
        assert_eq!(file.declared_targets[0].name, "customers");
        let [cdc] = file.auto_cdc.as_slice() else {
            panic!("{:?}", file.auto_cdc)
        };
        assert!(!cdc.legacy);
        assert_eq!(cdc.target.as_ref().unwrap().name, "customers");
        let Some(CdcSource::Name(source_name)) = &cdc.source else {
            panic!("{:?}", cdc.source)
        };
        assert_eq!(source_name.name, "customers_raw");
        let keys: Vec<_> = cdc.keys.iter().map(|k| k.name.as_str()).collect();
        assert_eq!(keys, ["customer_id", "region"]);
        let seq = cdc.sequence_by.as_ref().unwrap();
        assert_eq!(seq.name, "struct(ts, seq)");
        assert_eq!(text(source, &seq.span), "struct(ts, seq)");
        assert_eq!(cdc.stored_as_scd_type.as_ref().unwrap().name, "2");
        let except: Vec<_> = cdc
            .except_column_list
            .as_ref()
            .unwrap()
            .iter()
            .map(|k| k.name.as_str())
            .collect();
        assert_eq!(except, ["operation", "seq"]);
        assert!(cdc.column_list.is_none());
        assert_eq!(
            cdc.track_history_except_column_list.as_ref().unwrap()[0].name,
            "city"
        );
    }

    #[test]
    fn legacy_apply_changes_live_prefix_and_live_table() {
        let source = "\
CREATE STREAMING LIVE TABLE silver;
APPLY CHANGES INTO LIVE.silver
FROM STREAM(LIVE.bronze)
KEYS (id)
SEQUENCE BY ts
COLUMNS id, name
STORED AS SCD TYPE 1;
CREATE LIVE TABLE gold AS SELECT id, name FROM LIVE.silver;
CREATE TEMPORARY LIVE VIEW v AS SELECT * FROM STREAM LIVE.silver;
";
        let file = read(source);
        assert_eq!(file.syntax_errors, vec![]);
        let legacy: Vec<_> = file.legacy.iter().map(|l| l.written.as_str()).collect();
        assert_eq!(
            legacy,
            [
                "LIVE.",
                "LIVE.",
                "LIVE.",
                "LIVE.",
                "CREATE STREAMING LIVE TABLE",
                "APPLY CHANGES INTO",
                "CREATE LIVE TABLE",
                "CREATE TEMPORARY LIVE VIEW",
            ]
        );
        assert_eq!(text(source, &file.legacy[0].span), "LIVE.");
        let cdc = &file.auto_cdc[0];
        assert!(cdc.legacy);
        assert_eq!(cdc.target.as_ref().unwrap().name, "LIVE.silver");
        assert_eq!(
            cdc.source,
            Some(CdcSource::Name(Named {
                name: "bronze".into(),
                span: source.find("bronze)").unwrap()..source.find("bronze)").unwrap() + 6
            }))
        );
        let cols: Vec<_> = cdc
            .column_list
            .as_ref()
            .unwrap()
            .iter()
            .map(|c| c.name.as_str())
            .collect();
        assert_eq!(cols, ["id", "name"]);
        assert_eq!(cdc.stored_as_scd_type.as_ref().unwrap().name, "1");
        assert_eq!(file.datasets[1].kind, DatasetKind::MaterializedView);
        assert_eq!(file.datasets[1].reads[0].source.name, "silver");
        assert!(file.datasets[2].reads[0].streaming);
        assert_eq!(file.datasets[2].reads[0].source.name, "silver");
    }

    #[test]
    fn insert_into_flow() {
        let source = "CREATE FLOW backfill AS INSERT INTO ONCE sales BY NAME SELECT id, amount FROM old_sales;\nCREATE FLOW live_f AS INSERT INTO sales SELECT id, amount FROM STREAM(new_sales)";
        let file = read(source);
        assert_eq!(file.syntax_errors, vec![]);
        assert_eq!(file.flows.len(), 2);
        assert_eq!(file.flows[0].target.as_ref().unwrap().name, "sales");
        assert_eq!(file.flows[0].reads[0].source.name, "old_sales");
        assert!(!file.flows[0].reads[0].streaming);
        assert!(file.flows[1].reads[0].streaming);
        assert_eq!(file.flows[1].select_list.as_ref().unwrap().len(), 2);
    }

    #[test]
    fn computed_columns_of_select_lists() {
        let source = "\
CREATE OR REFRESH STREAMING TABLE orders_stamped AS
SELECT *, current_timestamp() AS ingested_at, o.id AS order_id, amount * 2 AS doubled
FROM STREAM(orders_raw) o;

CREATE OR REFRESH STREAMING TABLE orders;
CREATE FLOW orders_cdc AS AUTO CDC INTO orders
FROM (SELECT id, now() AS seen FROM STREAM(orders_raw))
KEYS (id)
SEQUENCE BY seen;
";
        let file = read(source);
        assert_eq!(file.syntax_errors, vec![]);
        let computed: Vec<_> = file.datasets[0]
            .computed_columns
            .iter()
            .map(|c| (c.name.name.as_str(), c.expression.as_str()))
            .collect();
        // `o.id AS order_id` renames a column: nothing is computed.
        assert_eq!(
            computed,
            [
                ("ingested_at", "current_timestamp()"),
                ("doubled", "amount * 2")
            ]
        );
        assert_eq!(
            text(source, &file.datasets[0].computed_columns[0].name.span),
            "ingested_at"
        );
        let cdc = &file.auto_cdc[0];
        let computed: Vec<_> = cdc
            .source_computed_columns
            .iter()
            .map(|c| (c.name.name.as_str(), c.expression.as_str()))
            .collect();
        assert_eq!(computed, [("seen", "now()")]);
    }

    #[test]
    fn cdc_source_that_is_not_a_name_and_missing_sequence() {
        let source = "CREATE FLOW f AS AUTO CDC INTO t FROM (SELECT * FROM s) KEYS (id) STORED AS SCD TYPE 3";
        let file = read(source);
        let cdc = &file.auto_cdc[0];
        assert!(
            matches!(cdc.source, Some(CdcSource::NotAName { ref text, .. }) if text == "(SELECT * FROM s)")
        );
        assert!(cdc.sequence_by.is_none());
        assert_eq!(cdc.source_reads[0].source.name, "s");
        assert_eq!(cdc.stored_as_scd_type.as_ref().unwrap().name, "3");
    }

    #[test]
    fn unreadable_statements_are_findings_and_the_rest_is_read() {
        let source = "\
CREATE STREAMING TABLE (a INT);
CREATE STREAMING TABLE ok (CONSTRAINT c EXPECT x > 0 ON VIOLATION DROP ROW) AS SELECT * FROM STREAM(s);
CREATE MATERIALIZED VIEW m (CONSTRAINT d EXPECT (x > 0) ON VIOLATION DELETE ROW) AS SELECT * FROM s;
SELEC * FROM nowhere;
SELECT 'unterminated FROM x
CREATE MATERIALIZED VIEW after_error AS SELECT * FROM s;
";
        let file = read(source);
        let messages: Vec<_> = file
            .syntax_errors
            .iter()
            .map(|(span, m)| (text(source, span).lines().next().unwrap_or(""), m.as_str()))
            .collect();
        assert_eq!(messages.len(), 5, "{messages:#?}");
        assert!(messages[0].1.contains("tokenized"), "{messages:#?}");
        assert!(messages
            .iter()
            .any(|(_, m)| m.contains("without a dataset name")));
        assert!(messages
            .iter()
            .any(|(_, m)| m.contains("parenthesised expression")));
        assert!(messages
            .iter()
            .any(|(_, m)| m.contains("ON VIOLATION DROP ROW")));
        assert!(messages
            .iter()
            .any(|(_, m)| m.contains("not a statement of a pipeline")));
        let names: Vec<_> = file.datasets.iter().map(|d| d.name.name.as_str()).collect();
        assert_eq!(names, ["ok", "m", "after_error"]);
        assert!(file.datasets[0].expectations.is_empty());
        assert_eq!(file.datasets[1].expectations[0].action, ExpectAction::Warn);
    }

    #[test]
    fn spans_survive_multibyte_text() {
        let source = "-- é ü\nCREATE MATERIALIZED VIEW m (CONSTRAINT `ünï` EXPECT (name <> 'é')) AS SELECT * FROM s";
        let file = read(source);
        assert_eq!(file.syntax_errors, vec![]);
        let e = &file.datasets[0].expectations[0];
        assert_eq!(e.name.as_ref().unwrap().name, "ünï");
        let c = known(&e.constraint);
        let start = c.origin[0].unwrap();
        assert_eq!(&source[start..start + c.text.len()], "name <> 'é'");
    }

    #[test]
    fn arbitrary_input_never_panics_and_spans_are_char_boundaries() {
        let pieces = [
            "CREATE",
            "OR",
            "REFRESH",
            "STREAMING",
            "TABLE",
            "LIVE",
            ".",
            "x",
            "(",
            ")",
            ",",
            "CONSTRAINT",
            "EXPECT",
            "ON",
            "VIOLATION",
            "DROP",
            "ROW",
            "AS",
            "SELECT",
            "*",
            "FROM",
            "STREAM",
            "WHERE",
            ";",
            "AUTO",
            "CDC",
            "INTO",
            "KEYS",
            "SEQUENCE",
            "BY",
            "COLUMNS",
            "EXCEPT",
            "STORED",
            "SCD",
            "TYPE",
            "TRACK",
            "HISTORY",
            "APPLY",
            "CHANGES",
            "FLOW",
            "INSERT",
            "'",
            "`",
            "é",
            "\n-- COMMAND ----------\n",
            "/*",
            "1",
            "=",
            "TBLPROPERTIES",
            "WITH",
        ];
        let mut seed: u64 = 0x9e37_79b9_7f4a_7c15;
        for _ in 0..3000 {
            let mut s = String::new();
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            let len = (seed % 40) as usize;
            for _ in 0..len {
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                s.push_str(pieces[(seed % pieces.len() as u64) as usize]);
                s.push(' ');
            }
            check_spans(&s);
        }
    }

    /// Every span of the model lies on character boundaries of the source.
    pub(crate) fn check_spans(source: &str) {
        let file = read(source);
        let ok = |r: &Range<usize>| {
            assert!(
                r.start <= r.end && source.get(r.clone()).is_some(),
                "bad span {r:?} in {source:?}"
            )
        };
        for (r, _) in &file.syntax_errors {
            ok(r);
        }
        for d in &file.datasets {
            ok(&d.span);
            ok(&d.name.span);
            for e in &d.expectations {
                ok(&e.origin);
                if let Constraint::Known(c) = &e.constraint {
                    if let Some(r) = c.source_span(0..c.text.len()) {
                        ok(&r);
                    }
                }
            }
        }
        for l in &file.legacy {
            ok(&l.span);
        }
        for c in &file.auto_cdc {
            ok(&c.span);
            if let Some(s) = &c.sequence_by {
                ok(&s.span);
            }
        }
    }
}
