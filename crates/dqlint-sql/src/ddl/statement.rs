//! One statement's tokens, and the reading of `CREATE TABLE`: the column
//! list through sqlparser, the table clauses after it by our own loop.

use std::ops::Range;

use sqlparser::ast::ColumnOption;
use sqlparser::dialect::DatabricksDialect;
use sqlparser::parser::{Parser, ParserError};
use sqlparser::tokenizer::{Location, Token, TokenWithSpan};

use super::types::{render_data_type, strip_nested_field_modifiers};
use super::{ColumnDef, CreateTable, DdlError, Property, PropertyList};
use crate::ident::normalize_table_name;
use crate::text;

/// One statement's tokens with absolute byte ranges.
pub(super) struct Stmt<'a> {
    /// The whole file (original text, for slices).
    pub(super) file: &'a str,
    /// The statement text as tokenized (tokens blanked), for location lookups.
    pub(super) prepared: &'a str,
    pub(super) base: usize,
    pub(super) tokens: Vec<TokenWithSpan>,
    /// Absolute byte ranges.
    pub(super) ranges: Vec<Range<usize>>,
    /// Indices of significant tokens.
    pub(super) sig: Vec<usize>,
}

pub(super) type PResult<T> = Result<T, DdlError>;

const CREATE_CLAUSES: &str =
    "USING, PARTITIONED BY, CLUSTER BY, COMMENT, TBLPROPERTIES, LOCATION, OPTIONS or the end of the statement";

impl<'a> Stmt<'a> {
    pub(super) fn new(
        file: &'a str,
        prepared: &'a str,
        base: usize,
        tokens: Vec<TokenWithSpan>,
    ) -> Self {
        let ranges = text::token_ranges(prepared, &tokens)
            .into_iter()
            .map(|r| r.start + base..r.end + base)
            .collect();
        let sig = (0..tokens.len())
            .filter(|&i| !text::is_trivia(&tokens[i].token))
            .collect();
        Stmt {
            file,
            prepared,
            base,
            tokens,
            ranges,
            sig,
        }
    }

    pub(super) fn tok(&self, k: usize) -> &Token {
        self.sig
            .get(k)
            .map_or(&Token::EOF, |&i| &self.tokens[i].token)
    }

    pub(super) fn range(&self, k: usize) -> Range<usize> {
        match self.sig.get(k) {
            Some(&i) => self.ranges[i].clone(),
            None => {
                let end = self.end();
                end..end
            }
        }
    }

    /// End of the last significant token.
    pub(super) fn end(&self) -> usize {
        self.sig
            .last()
            .map_or(self.base + self.prepared.len(), |&i| self.ranges[i].end)
    }

    pub(super) fn statement_range(&self) -> Range<usize> {
        self.range(0).start..self.end()
    }

    pub(super) fn is_kw(&self, k: usize, kw: &str) -> bool {
        matches!(self.tok(k), Token::Word(w) if w.quote_style.is_none() && w.value.eq_ignore_ascii_case(kw))
    }

    pub(super) fn err_at(&self, k: usize, message: String) -> DdlError {
        DdlError {
            message,
            range: self.range(k),
        }
    }

    pub(super) fn unexpected(&self, k: usize, expected: &str, context: &str) -> DdlError {
        let found = match self.tok(k) {
            Token::EOF => "the end of the statement".to_string(),
            t => format!("`{t}`"),
        };
        self.err_at(k, format!("{context}: expected {expected}, found {found}"))
    }

    pub(super) fn expect(&self, k: usize, t: Token, what: &str, context: &str) -> PResult<usize> {
        if *self.tok(k) == t {
            Ok(k + 1)
        } else {
            Err(self.unexpected(k, what, context))
        }
    }

    /// Index in `sig` of the `)` matching the `(` at `k`.
    pub(super) fn matching_paren(&self, k: usize) -> Option<usize> {
        let mut depth = 0usize;
        for j in k..self.sig.len() {
            match self.tok(j) {
                Token::LParen => depth += 1,
                Token::RParen => {
                    depth = depth.checked_sub(1)?;
                    if depth == 0 {
                        return Some(j);
                    }
                }
                _ => {}
            }
        }
        None
    }

    /// A dotted name starting at `k`: (normalized name, range, next index).
    pub(super) fn object_name(
        &self,
        k: usize,
        context: &str,
    ) -> PResult<(String, Range<usize>, usize)> {
        if !matches!(self.tok(k), Token::Word(_)) {
            return Err(self.unexpected(k, "a table name", context));
        }
        let mut last = k;
        while *self.tok(last + 1) == Token::Period && matches!(self.tok(last + 2), Token::Word(_)) {
            last += 2;
        }
        let range = self.range(k).start..self.range(last).end;
        let slice = &self.file[range.clone()];
        let name = normalize_table_name(slice).unwrap_or_else(|| slice.to_lowercase());
        Ok((name, range, last + 1))
    }

    /// Converts a sqlparser error from a sub-parser over this statement's
    /// tokens into a DdlError.
    pub(super) fn parser_error(&self, e: ParserError, context: &str) -> DdlError {
        let m = match e {
            ParserError::RecursionLimitExceeded => {
                return DdlError {
                    message: format!("{context}: nested too deeply"),
                    range: self.statement_range(),
                }
            }
            ParserError::ParserError(m) | ParserError::TokenizerError(m) => m,
        };
        let (msg, loc) = text::split_error_location(&m);
        let range = match loc {
            Some(loc) => self.range_at_location(loc),
            None => {
                let end = self.end();
                end..end
            }
        };
        DdlError {
            message: format!("{context}: {}", text::humanize_parser_message(&msg)),
            range,
        }
    }

    pub(super) fn range_at_location(&self, loc: Location) -> Range<usize> {
        let Some(off) = text::Cursor::new(self.prepared).offset(loc) else {
            let end = self.end();
            return end..end;
        };
        let abs = off + self.base;
        match self.sig.iter().find(|&&i| self.ranges[i].start == abs) {
            Some(&i) => self.ranges[i].clone(),
            None => {
                let r = text::char_range_at(self.prepared, loc);
                r.start + self.base..r.end + self.base
            }
        }
    }

    // -- CREATE TABLE -------------------------------------------------------

    pub(super) fn parse_create(&self) -> PResult<Option<CreateTable>> {
        const CTX: &str = "CREATE TABLE";
        let mut k = 0;
        let mut or_replace = false;
        if self.is_kw(0, "REPLACE") {
            or_replace = true;
            k = 1;
        } else {
            k += 1; // CREATE
            if self.is_kw(k, "OR") && self.is_kw(k + 1, "REPLACE") {
                or_replace = true;
                k += 2;
            }
            if self.is_kw(k, "EXTERNAL") {
                k += 1;
            }
        }
        if !self.is_kw(k, "TABLE") {
            return Err(self.unexpected(k, "TABLE", CTX));
        }
        k += 1;
        let mut if_not_exists = false;
        if self.is_kw(k, "IF") {
            if self.is_kw(k + 1, "NOT") && self.is_kw(k + 2, "EXISTS") {
                if_not_exists = true;
                k += 3;
            } else {
                return Err(self.unexpected(k + 1, "NOT EXISTS", CTX));
            }
        }
        if self.is_kw(k, "IDENTIFIER") && *self.tok(k + 1) == Token::LParen {
            return Ok(None); // name computed at run time
        }
        let (name, name_range, next) = self.object_name(k, CTX)?;
        k = next;

        let mut table = CreateTable {
            name,
            name_range: name_range.clone(),
            statement_range: self.statement_range(),
            or_replace,
            if_not_exists,
            columns: Vec::new(),
            columns_range: name_range.end..name_range.end,
            tblproperties: None,
            cluster_by: None,
            partitioned_by: None,
            using: None,
            comment: None,
            location: None,
        };
        let has_columns = *self.tok(k) == Token::LParen;
        if has_columns {
            let (columns, close) = self.parse_column_list(k)?;
            table.columns = columns;
            table.columns_range = self.range(k).start..self.range(close).end;
            k = close + 1;
        } else if self.is_kw(k, "LIKE") || self.is_kw(k, "AS") {
            return Ok(None); // CREATE TABLE ... LIKE / AS SELECT: no schema here
        }

        let mut seen: Vec<&'static str> = Vec::new();
        let mut once = |k: usize, clause: &'static str| -> PResult<()> {
            if seen.contains(&clause) {
                return Err(self.err_at(k, format!("{CTX}: duplicate {clause} clause")));
            }
            seen.push(clause);
            Ok(())
        };
        loop {
            let start = k;
            match self.tok(k) {
                Token::EOF => break,
                Token::Word(w) if w.quote_style.is_none() => {
                    let kw = w.value.to_ascii_uppercase();
                    match kw.as_str() {
                        "USING" => {
                            once(start, "USING")?;
                            match self.tok(k + 1) {
                                Token::Word(f) => table.using = Some(f.value.clone()),
                                _ => {
                                    return Err(self.unexpected(k + 1, "a data source format", CTX))
                                }
                            }
                            k += 2;
                        }
                        "PARTITIONED" => {
                            once(start, "PARTITIONED BY")?;
                            if !self.is_kw(k + 1, "BY") {
                                return Err(self.unexpected(k + 1, "BY", CTX));
                            }
                            let (cols, close) = self.column_name_list(k + 2, CTX)?;
                            table.partitioned_by =
                                Some((cols, self.range(start).start..self.range(close).end));
                            k = close + 1;
                        }
                        "CLUSTER" => {
                            once(start, "CLUSTER BY")?;
                            let (cols, last) = self.cluster_by(k + 1, CTX)?;
                            table.cluster_by =
                                Some((cols, self.range(start).start..self.range(last).end));
                            k = last + 1;
                        }
                        "COMMENT" => {
                            once(start, "COMMENT")?;
                            table.comment = Some(self.string_literal(k + 1, "a string", CTX)?);
                            k += 2;
                        }
                        "LOCATION" => {
                            once(start, "LOCATION")?;
                            table.location =
                                Some(self.string_literal(k + 1, "a path string", CTX)?);
                            k += 2;
                        }
                        "TBLPROPERTIES" => {
                            once(start, "TBLPROPERTIES")?;
                            let (entries, open, close) = self.property_list(k + 1, true, CTX)?;
                            table.tblproperties = Some(PropertyList {
                                range: self.range(start).start..self.range(close).end,
                                open_paren: self.range(open).start,
                                close_paren: self.range(close).start,
                                entries,
                            });
                            k = close + 1;
                        }
                        "OPTIONS" => {
                            once(start, "OPTIONS")?;
                            let (_, _, close) = self.property_list(k + 1, true, CTX)?;
                            k = close + 1;
                        }
                        "WITH" if *self.tok(k + 1) == Token::LParen => {
                            let close = self
                                .matching_paren(k + 1)
                                .ok_or_else(|| self.unexpected(self.sig.len(), "`)`", CTX))?;
                            k = close + 1;
                        }
                        "AS" => break, // CREATE TABLE t (cols) AS SELECT ...
                        _ => return Err(self.unexpected(k, CREATE_CLAUSES, CTX)),
                    }
                }
                _ => return Err(self.unexpected(k, CREATE_CLAUSES, CTX)),
            }
        }
        Ok(Some(table))
    }

    /// The column list starting at the `(` at sig index `open`. Returns the
    /// columns and the sig index of the closing `)`.
    pub(super) fn parse_column_list(&self, open: usize) -> PResult<(Vec<ColumnDef>, usize)> {
        const CTX: &str = "CREATE TABLE column list";
        let first_tok = self.sig[open];
        let dialect = DatabricksDialect {};
        let stream = strip_nested_field_modifiers(&self.tokens[first_tok..]);
        // next token the parser will see (absolute index), skipping whitespace
        // and the tokens blanked above
        let next_visible = |from: usize| {
            (from..stream.len())
                .find(|&i| !text::is_trivia(&stream[i].token))
                .map_or(self.tokens.len(), |i| first_tok + i)
        };
        let mut p = Parser::new(&dialect).with_tokens_with_locations(stream.clone());
        // token index (absolute in self.tokens) of the parser's position
        let abs = |p: &Parser| first_tok + p.index();
        let pe = |e: ParserError| self.parser_error(e, CTX);
        p.expect_token(&Token::LParen).map_err(pe)?;
        let mut columns = Vec::new();
        if p.consume_token(&Token::RParen) {
            return Ok((columns, self.sig_index_before(abs(&p))));
        }
        loop {
            let start_sig = self.sig_index_at_or_after(abs(&p));
            if self.starts_table_constraint(start_sig) {
                // table constraints are not columns
                if p.parse_optional_table_constraint().map_err(pe)?.is_none() {
                    return Err(self.unexpected(start_sig, "a table constraint", CTX));
                }
            } else if let Token::Word(_) = p.peek_token().token {
                let def = p.parse_column_def().map_err(pe)?;
                let end_sig = self.sig_index_before(next_visible(p.index()));
                let not_null = def
                    .options
                    .iter()
                    .any(|o| matches!(o.option, ColumnOption::NotNull));
                columns.push(ColumnDef {
                    name: def.name.value.clone(),
                    data_type: render_data_type(&def.data_type),
                    not_null,
                    range: self.range(start_sig).start..self.range(end_sig).end,
                });
            } else {
                let k = self.sig_index_at_or_after(abs(&p));
                return Err(self.unexpected(k, "a column name or a constraint", CTX));
            }
            if p.consume_token(&Token::Comma) {
                // trailing comma before `)` is an error in Databricks
                continue;
            }
            if p.consume_token(&Token::RParen) {
                return Ok((columns, self.sig_index_before(abs(&p))));
            }
            let k = self.sig_index_at_or_after(abs(&p));
            return Err(self.unexpected(k, "`,` or `)` after a column definition", CTX));
        }
    }

    /// Whether the column-list element at k is a table constraint. Only the
    /// Databricks forms count, so columns named `key`, `index`, `check`,
    /// `unique`, `primary`, `foreign`... stay columns.
    pub(super) fn starts_table_constraint(&self, k: usize) -> bool {
        let next = self.tok(k + 1);
        (self.is_kw(k, "CONSTRAINT") && matches!(next, Token::Word(_)))
            || ((self.is_kw(k, "PRIMARY") || self.is_kw(k, "FOREIGN")) && self.is_kw(k + 1, "KEY"))
            || ((self.is_kw(k, "UNIQUE") || self.is_kw(k, "CHECK")) && *next == Token::LParen)
    }

    /// sig index of the first significant token at or after token index `t`.
    pub(super) fn sig_index_at_or_after(&self, t: usize) -> usize {
        self.sig.partition_point(|&i| i < t)
    }

    /// sig index of the last significant token before token index `t`.
    pub(super) fn sig_index_before(&self, t: usize) -> usize {
        self.sig.partition_point(|&i| i < t).saturating_sub(1)
    }

    pub(super) fn string_literal(&self, k: usize, what: &str, context: &str) -> PResult<String> {
        match self.tok(k) {
            Token::SingleQuotedString(s) | Token::DoubleQuotedString(s) => Ok(s.clone()),
            _ => Err(self.unexpected(k, what, context)),
        }
    }

    /// A column reference (`a`, `` `a b` ``, `a.b`) starting at k.
    pub(super) fn column_ref(&self, k: usize) -> Option<(String, usize)> {
        let Token::Word(w) = self.tok(k) else {
            return None;
        };
        let mut name = w.value.clone();
        let mut last = k;
        while *self.tok(last + 1) == Token::Period {
            let Token::Word(n) = self.tok(last + 2) else {
                break;
            };
            name.push('.');
            name.push_str(&n.value);
            last += 2;
        }
        Some((name, last))
    }

    /// `( col [, col]* )` at k; returns names and the index of `)`.
    pub(super) fn column_name_list(
        &self,
        k: usize,
        context: &str,
    ) -> PResult<(Vec<String>, usize)> {
        let mut j = self.expect(k, Token::LParen, "`(`", context)?;
        let mut cols = Vec::new();
        if *self.tok(j) == Token::RParen {
            return Ok((cols, j));
        }
        loop {
            let (name, last) = self
                .column_ref(j)
                .ok_or_else(|| self.unexpected(j, "a column name", context))?;
            cols.push(name);
            j = last + 1;
            // PARTITIONED BY (col TYPE) in the Hive form: skip a type
            while !matches!(self.tok(j), Token::Comma | Token::RParen | Token::EOF) {
                if *self.tok(j) == Token::LParen || *self.tok(j) == Token::Lt {
                    j = self.skip_group(j).unwrap_or(j + 1);
                } else {
                    j += 1;
                }
            }
            match self.tok(j) {
                Token::Comma => j += 1,
                Token::RParen => return Ok((cols, j)),
                _ => return Err(self.unexpected(j, "`,` or `)`", context)),
            }
        }
    }

    /// Skips a `(...)` or `<...>` group starting at k; returns the index
    /// after it.
    pub(super) fn skip_group(&self, k: usize) -> Option<usize> {
        let (open, close) = match self.tok(k) {
            Token::LParen => (Token::LParen, Token::RParen),
            Token::Lt => (Token::Lt, Token::Gt),
            _ => return None,
        };
        let mut depth = 0usize;
        for j in k..self.sig.len() {
            let t = self.tok(j);
            if *t == open {
                depth += 1;
            } else if *t == close {
                depth -= 1;
                if depth == 0 {
                    return Some(j + 1);
                }
            } else if *t == Token::ShiftRight && open == Token::Lt {
                depth = depth.saturating_sub(2);
                if depth == 0 {
                    return Some(j + 1);
                }
            }
        }
        None
    }

    /// After `CLUSTER` at k-1: `BY (cols)` / `BY AUTO` / `BY NONE`. Returns
    /// the columns and the index of the clause's last token.
    pub(super) fn cluster_by(&self, k: usize, context: &str) -> PResult<(Vec<String>, usize)> {
        if !self.is_kw(k, "BY") {
            return Err(self.unexpected(k, "BY", context));
        }
        if self.is_kw(k + 1, "AUTO") || self.is_kw(k + 1, "NONE") {
            return Ok((Vec::new(), k + 1));
        }
        self.column_name_list(k + 1, context)
    }

    /// `( key [=] value, ... )` at k (or keys only when `with_values` is
    /// false). Returns entries, index of `(` and of `)`.
    pub(super) fn property_list(
        &self,
        k: usize,
        with_values: bool,
        context: &str,
    ) -> PResult<(Vec<Property>, usize, usize)> {
        let open = k;
        let mut j = self.expect(k, Token::LParen, "`(`", context)?;
        let mut entries = Vec::new();
        if *self.tok(j) == Token::RParen {
            return Ok((entries, open, j));
        }
        loop {
            let key_start = j;
            let key = match self.tok(j) {
                Token::SingleQuotedString(s) | Token::DoubleQuotedString(s) => {
                    j += 1;
                    s.clone()
                }
                Token::Word(_) => {
                    let (name, last) = self.column_ref(j).unwrap_or_default();
                    j = last + 1;
                    name
                }
                _ => return Err(self.unexpected(j, "a property key", context)),
            };
            let mut value = String::new();
            let mut last = j - 1;
            if with_values {
                if *self.tok(j) == Token::Eq {
                    j += 1;
                }
                let negative = *self.tok(j) == Token::Minus;
                if negative {
                    j += 1;
                }
                value = match self.tok(j) {
                    Token::SingleQuotedString(s) | Token::DoubleQuotedString(s) => s.clone(),
                    Token::Number(n, _) => {
                        if negative {
                            format!("-{n}")
                        } else {
                            n.clone()
                        }
                    }
                    Token::Word(w) if !negative => w.value.clone(),
                    _ => return Err(self.unexpected(j, "a property value", context)),
                };
                last = j;
                j += 1;
            }
            entries.push(Property {
                key,
                value,
                range: self.range(key_start).start..self.range(last).end,
            });
            match self.tok(j) {
                Token::Comma => j += 1,
                Token::RParen => return Ok((entries, open, j)),
                _ => return Err(self.unexpected(j, "`,` or `)`", context)),
            }
        }
    }
}
