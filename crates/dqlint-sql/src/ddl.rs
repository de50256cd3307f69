//! A small catalog of the DDL in a `.sql` file: `CREATE TABLE`,
//! `ALTER TABLE ... SET/UNSET TBLPROPERTIES | CLUSTER BY` and `UPDATE`, for
//! the DLQ checks.
//!
//! The file is split at top-level `;`. Each statement is recognised by its
//! leading keywords; anything else (SELECT, CREATE VIEW, MERGE, DLT
//! `CREATE OR REFRESH STREAMING TABLE`, Jinja templates, ...) is skipped
//! without error. sqlparser's `DatabricksDialect` tokenizes the statement and
//! parses the column definitions; the table clauses after the column list are
//! read by our own loop, in any order (sqlparser 0.64 only accepts a fixed
//! order and no `CLUSTER BY` for Databricks).
//!
//! All ranges are byte ranges in the text given to [`parse_sql_file`].

use std::ops::Range;

use sqlparser::ast::{ColumnOption, DataType};
use sqlparser::dialect::DatabricksDialect;
use sqlparser::parser::{Parser, ParserError};
use sqlparser::tokenizer::{Location, Token, TokenWithSpan, Tokenizer};

use crate::ident::normalize_table_name;
use crate::text;

/// The statements of one file, in file order, and the errors met.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SqlFile {
    pub statements: Vec<DdlStatement>,
    pub errors: Vec<DdlError>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
#[allow(clippy::large_enum_variant)] // the variants are the API; files hold few statements
pub enum DdlStatement {
    CreateTable(CreateTable),
    AlterTable(AlterTable),
    Update(UpdateStmt),
}

/// `CREATE [OR REPLACE] [EXTERNAL] TABLE [IF NOT EXISTS] name [(columns)] clauses`
/// or `REPLACE TABLE name ...`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CreateTable {
    /// Normalized name (see [`normalize_table_name`]).
    pub name: String,
    pub name_range: Range<usize>,
    /// From `CREATE` to the last token before the `;` (the `;` is excluded).
    pub statement_range: Range<usize>,
    pub or_replace: bool,
    pub if_not_exists: bool,
    pub columns: Vec<ColumnDef>,
    /// The column list with its parentheses; an empty range at the end of the
    /// name when there is no column list.
    pub columns_range: Range<usize>,
    pub tblproperties: Option<PropertyList>,
    /// Column names as written (backticks removed, nested fields joined with
    /// `.`) and the range of the whole `CLUSTER BY ...` clause.
    /// `CLUSTER BY AUTO` and `CLUSTER BY NONE` give an empty list.
    pub cluster_by: Option<(Vec<String>, Range<usize>)>,
    /// Like `cluster_by`, for `PARTITIONED BY (...)`.
    pub partitioned_by: Option<(Vec<String>, Range<usize>)>,
    /// `USING <format>` as written.
    pub using: Option<String>,
    /// Table `COMMENT` (unquoted).
    pub comment: Option<String>,
    /// `LOCATION` (unquoted).
    pub location: Option<String>,
}

/// A `TBLPROPERTIES (...)` clause.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PropertyList {
    /// The whole `TBLPROPERTIES (...)`.
    pub range: Range<usize>,
    /// Byte offset of `(`.
    pub open_paren: usize,
    /// Byte offset of `)`.
    pub close_paren: usize,
    pub entries: Vec<Property>,
}

/// One `'key' = 'value'` entry. Key and value are unquoted; a key written as
/// an identifier (`delta.enableRowTracking = true`) is joined with `.`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Property {
    pub key: String,
    pub value: String,
    /// From the key to the value.
    pub range: Range<usize>,
}

/// One column of a `CREATE TABLE`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ColumnDef {
    /// As written, backticks removed.
    pub name: String,
    /// Canonical rendering (see [`canonical_type`]), e.g. `STRING`,
    /// `ARRAY<STRUCT<NAME: STRING, RULE: STRING>>`. Compare with
    /// [`type_matches`].
    pub data_type: String,
    pub not_null: bool,
    /// From the column name to the end of its definition (before `,`/`)`).
    pub range: Range<usize>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AlterOp {
    SetProperties(Vec<Property>),
    UnsetProperties(Vec<String>),
    /// `CLUSTER BY (cols)`; `CLUSTER BY NONE` / `AUTO` give an empty list.
    ClusterBy(Vec<String>),
}

/// `ALTER TABLE name <op>`. Operations other than SET/UNSET TBLPROPERTIES
/// and CLUSTER BY are not recorded (the statement is kept with the
/// operations that were recognised, possibly none).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AlterTable {
    pub name: String,
    pub name_range: Range<usize>,
    pub statement_range: Range<usize>,
    pub ops: Vec<AlterOp>,
}

/// `UPDATE name [alias] SET ... [WHERE ...]`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UpdateStmt {
    /// Normalized name.
    pub table: String,
    pub table_range: Range<usize>,
    pub statement_range: Range<usize>,
    /// The WHERE clause has a top-level AND conjunct
    /// `[alias.]_dlq_source_table = ...` (also `==`, `<=>`, reversed operands)
    /// or `[alias.]_dlq_source_table IN (...)`.
    pub where_pins_source_table: bool,
}

/// A statement this module cares about that could not be parsed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DdlError {
    pub message: String,
    pub range: Range<usize>,
}

/// DLQ inbox contract: (column, canonical type, NOT NULL).
pub const DLQ_INBOX_COLUMNS: &[(&str, &str, bool)] = &[
    ("_dlq_sk", "STRING", true),
    ("_dlq_source_table", "STRING", true),
    ("_dlq_status", "STRING", true),
    ("_dlq_timestamp", "TIMESTAMP", true),
    (
        "_dlq_failed_rules",
        "ARRAY<STRUCT<NAME: STRING, RULE: STRING>>",
        false,
    ),
    ("_dlq_rescued_data", "STRING", false),
    ("_row_data", "VARIANT", true),
];

/// DLQ outbox contract: (column, canonical type, NOT NULL).
pub const DLQ_OUTBOX_COLUMNS: &[(&str, &str, bool)] = &[
    ("_dlq_sk", "STRING", true),
    ("_dlq_source_table", "STRING", true),
    ("_row_data", "VARIANT", true),
    ("_dlq_recycled_at", "TIMESTAMP", true),
];

/// Table properties the inbox needs (`'key' = 'true'`).
pub const DLQ_INBOX_PROPERTIES: &[&str] = &[
    "delta.enableChangeDataFeed",
    "delta.enableRowTracking",
    "delta.enableDeletionVectors",
];

/// Table properties the outbox needs (`'key' = 'true'`).
pub const DLQ_OUTBOX_PROPERTIES: &[&str] =
    &["delta.enableRowTracking", "delta.enableDeletionVectors"];

/// The canonical inbox DDL for a table name (as written in the YAML).
pub fn dlq_inbox_ddl(table: &str) -> String {
    contract_ddl(table, DLQ_INBOX_COLUMNS, DLQ_INBOX_PROPERTIES)
}

/// The canonical outbox DDL for an outbox table name (`<dlq_table>_outbox`).
pub fn dlq_outbox_ddl(table: &str) -> String {
    contract_ddl(table, DLQ_OUTBOX_COLUMNS, DLQ_OUTBOX_PROPERTIES)
}

fn contract_ddl(table: &str, columns: &[(&str, &str, bool)], props: &[&str]) -> String {
    let mut s = format!("CREATE TABLE IF NOT EXISTS {table} (\n");
    for (i, (name, ty, not_null)) in columns.iter().enumerate() {
        let ty = if ty.starts_with("ARRAY<STRUCT") {
            "ARRAY<STRUCT<name: STRING, rule: STRING>>"
        } else {
            ty
        };
        s.push_str(&format!("    {name:<18} {ty}"));
        if *not_null {
            s.push_str(" NOT NULL");
        }
        s.push_str(if i + 1 < columns.len() { ",\n" } else { "\n" });
    }
    s.push_str(")\nCLUSTER BY (_dlq_source_table)\nTBLPROPERTIES (\n");
    for (i, p) in props.iter().enumerate() {
        s.push_str(&format!("    '{p}' = 'true'"));
        s.push_str(if i + 1 < props.len() { ",\n" } else { "\n" });
    }
    s.push_str(");\n");
    s
}

// ---------------------------------------------------------------------------
// Types
// ---------------------------------------------------------------------------

/// Whether two Databricks type texts denote the same type: case, spacing,
/// the optional `:` in struct fields, backticks and aliases (`INTEGER` =
/// `INT`, `LONG` = `BIGINT`, `BOOL` = `BOOLEAN`, `DEC`/`NUMERIC` = `DECIMAL`,
/// `TIMESTAMP_LTZ` = `TIMESTAMP`, ...) do not matter.
pub fn type_matches(actual: &str, expected: &str) -> bool {
    canonical_type(actual) == canonical_type(expected)
}

/// Canonical rendering of a type text: upper case, aliases resolved,
/// `ARRAY<T>`, `MAP<K, V>`, `STRUCT<NAME: T, ...>`, `DECIMAL(P,S)`.
/// Text that does not look like a type is upper-cased with its whitespace
/// collapsed.
pub fn canonical_type(text: &str) -> String {
    let lexemes = lex_type(text);
    let mut pos = 0;
    match render_type(&lexemes, &mut pos, 0) {
        Some(s) if pos == lexemes.len() => s,
        _ => text
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ")
            .to_uppercase(),
    }
}

#[derive(Debug, Clone, PartialEq)]
enum Lx {
    Word(String),
    Quoted(String),
    Str,
    Punct(char),
}

fn lex_type(text: &str) -> Vec<Lx> {
    let chars: Vec<char> = text.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c.is_whitespace() {
            i += 1;
        } else if c.is_alphanumeric() || c == '_' {
            let mut w = String::new();
            while i < chars.len() && (chars[i].is_alphanumeric() || chars[i] == '_') {
                w.push(chars[i]);
                i += 1;
            }
            out.push(Lx::Word(w));
        } else if c == '`' {
            let mut w = String::new();
            i += 1;
            while i < chars.len() {
                if chars[i] == '`' {
                    if i + 1 < chars.len() && chars[i + 1] == '`' {
                        w.push('`');
                        i += 2;
                        continue;
                    }
                    i += 1;
                    break;
                }
                w.push(chars[i]);
                i += 1;
            }
            out.push(Lx::Quoted(w));
        } else if c == '\'' || c == '"' {
            i += 1;
            while i < chars.len() && chars[i] != c {
                if chars[i] == '\\' {
                    i += 1;
                }
                i += 1;
            }
            i += 1;
            out.push(Lx::Str);
        } else {
            out.push(Lx::Punct(c));
            i += 1;
        }
    }
    out
}

fn type_alias(word: &str) -> String {
    let up = word.to_uppercase();
    match up.as_str() {
        "INTEGER" => "INT",
        "LONG" => "BIGINT",
        "SHORT" => "SMALLINT",
        "BYTE" => "TINYINT",
        "BOOL" => "BOOLEAN",
        "DEC" | "NUMERIC" => "DECIMAL",
        "REAL" => "FLOAT",
        "TIMESTAMP_LTZ" => "TIMESTAMP",
        "TEXT" => "STRING",
        _ => return up,
    }
    .to_string()
}

/// Nesting limit of [`render_type`] (deeper types fall back to plain text).
const MAX_TYPE_DEPTH: usize = 64;

fn render_type(lx: &[Lx], pos: &mut usize, depth: usize) -> Option<String> {
    if depth > MAX_TYPE_DEPTH {
        return None;
    }
    let Lx::Word(w) = lx.get(*pos)? else {
        return None;
    };
    *pos += 1;
    let mut name = type_alias(w);
    // DOUBLE PRECISION, INTERVAL DAY TO SECOND, ...
    while let Some(Lx::Word(next)) = lx.get(*pos) {
        let up = next.to_uppercase();
        if matches!(
            up.as_str(),
            "NOT" | "NULL" | "COMMENT" | "COLLATE" | "DEFAULT"
        ) {
            break;
        }
        if name == "DOUBLE" && up == "PRECISION" {
            *pos += 1;
            continue;
        }
        name.push(' ');
        name.push_str(&up);
        *pos += 1;
    }
    match lx.get(*pos) {
        Some(Lx::Punct('(')) => {
            *pos += 1;
            let mut args = Vec::new();
            loop {
                match lx.get(*pos)? {
                    Lx::Word(a) => args.push(a.to_uppercase()),
                    Lx::Punct(',') => {}
                    Lx::Punct(')') => {
                        *pos += 1;
                        break;
                    }
                    _ => return None,
                }
                *pos += 1;
            }
            Some(format!("{name}({})", args.join(",")))
        }
        Some(Lx::Punct('<')) => {
            *pos += 1;
            let inner = match name.as_str() {
                "STRUCT" => {
                    let mut fields = Vec::new();
                    loop {
                        let field = match lx.get(*pos)? {
                            Lx::Word(f) | Lx::Quoted(f) => f.to_uppercase(),
                            Lx::Punct('>') if fields.is_empty() => break,
                            _ => return None,
                        };
                        *pos += 1;
                        if lx.get(*pos) == Some(&Lx::Punct(':')) {
                            *pos += 1;
                        }
                        let ty = render_type(lx, pos, depth + 1)?;
                        // field modifiers: NOT NULL, COMMENT '...', COLLATE x
                        loop {
                            match lx.get(*pos) {
                                Some(Lx::Word(m)) if m.eq_ignore_ascii_case("not") => *pos += 1,
                                Some(Lx::Word(m)) if m.eq_ignore_ascii_case("null") => *pos += 1,
                                Some(Lx::Word(m)) if m.eq_ignore_ascii_case("comment") => {
                                    *pos += 1;
                                    if lx.get(*pos) == Some(&Lx::Str) {
                                        *pos += 1;
                                    }
                                }
                                _ => break,
                            }
                        }
                        fields.push(format!("{field}: {ty}"));
                        match lx.get(*pos)? {
                            Lx::Punct(',') => *pos += 1,
                            Lx::Punct('>') => break,
                            _ => return None,
                        }
                    }
                    fields.join(", ")
                }
                _ => {
                    let mut items = Vec::new();
                    loop {
                        items.push(render_type(lx, pos, depth + 1)?);
                        match lx.get(*pos)? {
                            Lx::Punct(',') => *pos += 1,
                            Lx::Punct('>') => break,
                            _ => return None,
                        }
                    }
                    items.join(", ")
                }
            };
            *pos += 1; // '>'
            Some(format!("{name}<{inner}>"))
        }
        _ => Some(name),
    }
}

fn render_data_type(dt: &DataType) -> String {
    canonical_type(&dt.to_string())
}

/// sqlparser does not accept `NOT NULL` or `COMMENT '...'` on the fields of
/// a `STRUCT<...>` type, `INTERVAL DAY TO SECOND` as a column type, nor
/// column masks `MASK fn [USING COLUMNS (...)]` (valid in Databricks). Those tokens are replaced by whitespace (so token indices
/// and positions are unchanged).
fn strip_nested_field_modifiers(tokens: &[TokenWithSpan]) -> Vec<TokenWithSpan> {
    use sqlparser::tokenizer::Whitespace;
    let mut out = tokens.to_vec();
    let sig: Vec<usize> = (0..out.len())
        .filter(|&i| !text::is_trivia(&out[i].token))
        .collect();
    let word_is = |t: &Token, kw: &str| matches!(t, Token::Word(w) if w.quote_style.is_none() && w.value.eq_ignore_ascii_case(kw));
    let mut depth = 0usize;
    let mut k = 0;
    while k < sig.len() {
        let t = out[sig[k]].token.clone();
        let next = sig.get(k + 1).map(|&i| out[i].token.clone());
        let prev_is_separator =
            k == 0 || matches!(out[sig[k - 1]].token, Token::Comma | Token::LParen);
        if depth == 0
            && word_is(&t, "MASK")
            && !prev_is_separator
            && matches!(next, Some(Token::Word(_)))
        {
            // column mask: `MASK fn [USING COLUMNS (...)]`
            let blank = |out: &mut Vec<TokenWithSpan>, j: usize| {
                out[sig[j]].token = Token::Whitespace(Whitespace::Space);
            };
            blank(&mut out, k);
            let mut j = k + 1;
            blank(&mut out, j);
            while j + 2 < sig.len()
                && out[sig[j + 1]].token == Token::Period
                && matches!(out[sig[j + 2]].token, Token::Word(_))
            {
                blank(&mut out, j + 1);
                blank(&mut out, j + 2);
                j += 2;
            }
            j += 1;
            if j + 2 < sig.len()
                && word_is(&out[sig[j]].token, "USING")
                && word_is(&out[sig[j + 1]].token, "COLUMNS")
                && out[sig[j + 2]].token == Token::LParen
            {
                let mut d = 0usize;
                while j < sig.len() {
                    match out[sig[j]].token {
                        Token::LParen => d += 1,
                        Token::RParen => d = d.saturating_sub(1),
                        _ => {}
                    }
                    let closing = out[sig[j]].token == Token::RParen && d == 0;
                    blank(&mut out, j);
                    j += 1;
                    if closing {
                        break;
                    }
                }
            }
            k = j;
            continue;
        }
        if word_is(&t, "INTERVAL") {
            // `INTERVAL DAY TO SECOND` as a column type: keep `INTERVAL` only
            const UNITS: &[&str] = &["YEAR", "MONTH", "DAY", "HOUR", "MINUTE", "SECOND", "TO"];
            let mut j = k + 1;
            while j < sig.len() && UNITS.iter().any(|u| word_is(&out[sig[j]].token, u)) {
                out[sig[j]].token = Token::Whitespace(Whitespace::Space);
                j += 1;
            }
            k = j;
            continue;
        }
        if depth == 0 {
            let opens_type = ["STRUCT", "ARRAY", "MAP"].iter().any(|kw| word_is(&t, kw))
                && next == Some(Token::Lt);
            if opens_type {
                depth = 1;
                k += 2;
                continue;
            }
            k += 1;
            continue;
        }
        match t {
            Token::Lt => depth += 1,
            Token::Gt => depth -= 1,
            Token::ShiftRight => depth = depth.saturating_sub(2),
            _ if word_is(&t, "NOT") && next.as_ref().is_some_and(|n| word_is(n, "NULL")) => {
                out[sig[k]].token = Token::Whitespace(Whitespace::Space);
                out[sig[k + 1]].token = Token::Whitespace(Whitespace::Space);
                k += 2;
                continue;
            }
            _ if word_is(&t, "COMMENT")
                && matches!(
                    next,
                    Some(Token::SingleQuotedString(_) | Token::DoubleQuotedString(_))
                ) =>
            {
                out[sig[k]].token = Token::Whitespace(Whitespace::Space);
                out[sig[k + 1]].token = Token::Whitespace(Whitespace::Space);
                k += 2;
                continue;
            }
            _ => {}
        }
        k += 1;
    }
    out
}

// ---------------------------------------------------------------------------
// File and statements
// ---------------------------------------------------------------------------

/// Parses the statements of a `.sql` file that matter for the DLQ checks.
pub fn parse_sql_file(text: &str) -> SqlFile {
    let mut file = SqlFile::default();
    for chunk in text::split_statements(text) {
        parse_chunk(text, chunk, &mut file);
    }
    file
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Kind {
    Create,
    Alter,
    Update,
}

/// The first few words of a statement, skipping comments.
fn leading_words(chunk: &str, max: usize) -> Vec<String> {
    let mut words = Vec::new();
    for seg in text::segments(chunk) {
        match seg.kind {
            text::SegKind::Comment => continue,
            text::SegKind::Code => {
                let s = &chunk[seg.range.clone()];
                let mut rest = s;
                loop {
                    rest = rest.trim_start();
                    if rest.is_empty() {
                        break;
                    }
                    let len = rest
                        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                        .unwrap_or(rest.len());
                    if len == 0 {
                        return words;
                    }
                    words.push(rest[..len].to_ascii_uppercase());
                    if words.len() >= max {
                        return words;
                    }
                    rest = &rest[len..];
                }
            }
            _ => return words,
        }
    }
    words
}

fn classify(words: &[String]) -> Option<Kind> {
    let w: Vec<&str> = words.iter().map(String::as_str).collect();
    match w.as_slice() {
        ["CREATE", "TABLE", ..]
        | ["CREATE", "EXTERNAL", "TABLE", ..]
        | ["CREATE", "OR", "REPLACE", "TABLE", ..]
        | ["CREATE", "OR", "REPLACE", "EXTERNAL", "TABLE", ..]
        | ["REPLACE", "TABLE", ..] => Some(Kind::Create),
        ["ALTER", "TABLE", ..] => Some(Kind::Alter),
        ["UPDATE", ..] => Some(Kind::Update),
        _ => None,
    }
}

fn parse_chunk(file_text: &str, chunk: Range<usize>, file: &mut SqlFile) {
    let raw = &file_text[chunk.clone()];
    let Some(kind) = classify(&leading_words(raw, 5)) else {
        return;
    };
    let subs = text::substitution_tokens(raw);
    let prepared = text::blank_code_tokens(raw, &subs);
    let dialect = DatabricksDialect {};
    let tokens = match Tokenizer::new(&dialect, &prepared).tokenize_with_location() {
        Ok(t) => t,
        Err(e) => {
            if kind != Kind::Update {
                let r = text::char_range_at(&prepared, e.location);
                let (msg, _) = text::split_error_location(&e.message);
                file.errors.push(DdlError {
                    message: format!("cannot read this statement: {}", msg.trim()),
                    range: r.start + chunk.start..r.end + chunk.start,
                });
            }
            return;
        }
    };
    let st = Stmt::new(file_text, &prepared, chunk.start, tokens);
    let result = match kind {
        Kind::Create => st.parse_create().map(|c| c.map(DdlStatement::CreateTable)),
        Kind::Alter => st.parse_alter().map(|a| a.map(DdlStatement::AlterTable)),
        Kind::Update => Ok(st.parse_update().map(DdlStatement::Update)),
    };
    match result {
        Ok(Some(s)) => file.statements.push(s),
        Ok(None) => {}
        Err(e) => file.errors.push(e),
    }
}

/// One statement's tokens with absolute byte ranges.
struct Stmt<'a> {
    /// The whole file (original text, for slices).
    file: &'a str,
    /// The statement text as tokenized (tokens blanked), for location lookups.
    prepared: &'a str,
    base: usize,
    tokens: Vec<TokenWithSpan>,
    /// Absolute byte ranges.
    ranges: Vec<Range<usize>>,
    /// Indices of significant tokens.
    sig: Vec<usize>,
}

type PResult<T> = Result<T, DdlError>;

const CREATE_CLAUSES: &str =
    "USING, PARTITIONED BY, CLUSTER BY, COMMENT, TBLPROPERTIES, LOCATION, OPTIONS or the end of the statement";

impl<'a> Stmt<'a> {
    fn new(file: &'a str, prepared: &'a str, base: usize, tokens: Vec<TokenWithSpan>) -> Self {
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

    fn tok(&self, k: usize) -> &Token {
        self.sig
            .get(k)
            .map_or(&Token::EOF, |&i| &self.tokens[i].token)
    }

    fn range(&self, k: usize) -> Range<usize> {
        match self.sig.get(k) {
            Some(&i) => self.ranges[i].clone(),
            None => {
                let end = self.end();
                end..end
            }
        }
    }

    /// End of the last significant token.
    fn end(&self) -> usize {
        self.sig
            .last()
            .map_or(self.base + self.prepared.len(), |&i| self.ranges[i].end)
    }

    fn statement_range(&self) -> Range<usize> {
        self.range(0).start..self.end()
    }

    fn is_kw(&self, k: usize, kw: &str) -> bool {
        matches!(self.tok(k), Token::Word(w) if w.quote_style.is_none() && w.value.eq_ignore_ascii_case(kw))
    }

    fn err_at(&self, k: usize, message: String) -> DdlError {
        DdlError {
            message,
            range: self.range(k),
        }
    }

    fn unexpected(&self, k: usize, expected: &str, context: &str) -> DdlError {
        let found = match self.tok(k) {
            Token::EOF => "the end of the statement".to_string(),
            t => format!("`{t}`"),
        };
        self.err_at(k, format!("{context}: expected {expected}, found {found}"))
    }

    fn expect(&self, k: usize, t: Token, what: &str, context: &str) -> PResult<usize> {
        if *self.tok(k) == t {
            Ok(k + 1)
        } else {
            Err(self.unexpected(k, what, context))
        }
    }

    /// Index in `sig` of the `)` matching the `(` at `k`.
    fn matching_paren(&self, k: usize) -> Option<usize> {
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
    fn object_name(&self, k: usize, context: &str) -> PResult<(String, Range<usize>, usize)> {
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
    fn parser_error(&self, e: ParserError, context: &str) -> DdlError {
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

    fn range_at_location(&self, loc: Location) -> Range<usize> {
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

    fn parse_create(&self) -> PResult<Option<CreateTable>> {
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
    fn parse_column_list(&self, open: usize) -> PResult<(Vec<ColumnDef>, usize)> {
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
    fn starts_table_constraint(&self, k: usize) -> bool {
        let next = self.tok(k + 1);
        (self.is_kw(k, "CONSTRAINT") && matches!(next, Token::Word(_)))
            || ((self.is_kw(k, "PRIMARY") || self.is_kw(k, "FOREIGN")) && self.is_kw(k + 1, "KEY"))
            || ((self.is_kw(k, "UNIQUE") || self.is_kw(k, "CHECK")) && *next == Token::LParen)
    }

    /// sig index of the first significant token at or after token index `t`.
    fn sig_index_at_or_after(&self, t: usize) -> usize {
        self.sig.partition_point(|&i| i < t)
    }

    /// sig index of the last significant token before token index `t`.
    fn sig_index_before(&self, t: usize) -> usize {
        self.sig.partition_point(|&i| i < t).saturating_sub(1)
    }

    fn string_literal(&self, k: usize, what: &str, context: &str) -> PResult<String> {
        match self.tok(k) {
            Token::SingleQuotedString(s) | Token::DoubleQuotedString(s) => Ok(s.clone()),
            _ => Err(self.unexpected(k, what, context)),
        }
    }

    /// A column reference (`a`, `` `a b` ``, `a.b`) starting at k.
    fn column_ref(&self, k: usize) -> Option<(String, usize)> {
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
    fn column_name_list(&self, k: usize, context: &str) -> PResult<(Vec<String>, usize)> {
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
    fn skip_group(&self, k: usize) -> Option<usize> {
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
    fn cluster_by(&self, k: usize, context: &str) -> PResult<(Vec<String>, usize)> {
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
    fn property_list(
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

    // -- ALTER TABLE --------------------------------------------------------

    fn parse_alter(&self) -> PResult<Option<AlterTable>> {
        const CTX: &str = "ALTER TABLE";
        let mut k = 2; // ALTER TABLE
        if self.is_kw(k, "IF") && self.is_kw(k + 1, "EXISTS") {
            k += 2;
        }
        let (name, name_range, next) = self.object_name(k, CTX)?;
        k = next;
        let mut ops = Vec::new();
        if self.is_kw(k, "SET") && self.is_kw(k + 1, "TBLPROPERTIES") {
            let (entries, _, _) = self.property_list(k + 2, true, CTX)?;
            ops.push(AlterOp::SetProperties(entries));
        } else if self.is_kw(k, "UNSET") && self.is_kw(k + 1, "TBLPROPERTIES") {
            let mut j = k + 2;
            if self.is_kw(j, "IF") && self.is_kw(j + 1, "EXISTS") {
                j += 2;
            }
            let (entries, _, _) = self.property_list(j, false, CTX)?;
            ops.push(AlterOp::UnsetProperties(
                entries.into_iter().map(|p| p.key).collect(),
            ));
        } else if self.is_kw(k, "CLUSTER") {
            let (cols, _) = self.cluster_by(k + 1, CTX)?;
            ops.push(AlterOp::ClusterBy(cols));
        }
        Ok(Some(AlterTable {
            name,
            name_range,
            statement_range: self.statement_range(),
            ops,
        }))
    }

    // -- UPDATE ---------------------------------------------------------------

    fn parse_update(&self) -> Option<UpdateStmt> {
        let (table, table_range, next) = self.object_name(1, "UPDATE").ok()?;
        // WHERE at parenthesis depth 0
        let mut depth = 0i32;
        let mut where_at = None;
        for k in next..self.sig.len() {
            match self.tok(k) {
                Token::LParen => depth += 1,
                Token::RParen => depth -= 1,
                _ if depth == 0 && self.is_kw(k, "WHERE") => {
                    where_at = Some(k);
                    break;
                }
                _ => {}
            }
        }
        let pins = match where_at {
            Some(w) => {
                let idx: Vec<usize> = (w + 1..self.sig.len()).collect();
                self.pins_source_table(&idx)
            }
            None => false,
        };
        Some(UpdateStmt {
            table,
            table_range,
            statement_range: self.statement_range(),
            where_pins_source_table: pins,
        })
    }

    /// Strips parentheses that wrap the whole slice.
    fn strip_parens<'s>(&self, mut s: &'s [usize]) -> &'s [usize] {
        while s.len() >= 2
            && *self.tok(s[0]) == Token::LParen
            && self.matching_paren(s[0]) == Some(s[s.len() - 1])
        {
            s = &s[1..s.len() - 1];
        }
        s
    }

    /// Splits at top-level `AND` (not the AND of a `BETWEEN`).
    fn split_and<'s>(&self, s: &'s [usize]) -> Vec<&'s [usize]> {
        let mut parts = Vec::new();
        let mut depth = 0i32;
        let mut start = 0;
        let mut pending_between = 0;
        for (n, &k) in s.iter().enumerate() {
            match self.tok(k) {
                Token::LParen => depth += 1,
                Token::RParen => depth -= 1,
                _ if depth == 0 && self.is_kw(k, "BETWEEN") => pending_between += 1,
                _ if depth == 0 && self.is_kw(k, "AND") => {
                    if pending_between > 0 {
                        pending_between -= 1;
                    } else {
                        parts.push(&s[start..n]);
                        start = n + 1;
                    }
                }
                _ => {}
            }
        }
        parts.push(&s[start..]);
        parts
    }

    fn has_top_level_or(&self, s: &[usize]) -> bool {
        let mut depth = 0i32;
        s.iter().any(|&k| {
            match self.tok(k) {
                Token::LParen => depth += 1,
                Token::RParen => depth -= 1,
                _ => {}
            }
            depth == 0 && self.is_kw(k, "OR")
        })
    }

    fn is_source_table_ref(&self, s: &[usize]) -> bool {
        let Some(&first) = s.first() else {
            return false;
        };
        match self.column_ref(first) {
            Some((name, last)) => {
                last == s[s.len() - 1]
                    && name
                        .rsplit('.')
                        .next()
                        .is_some_and(|n| n.eq_ignore_ascii_case("_dlq_source_table"))
            }
            None => false,
        }
    }

    fn pins_source_table(&self, s: &[usize]) -> bool {
        let s = self.strip_parens(s);
        let parts = self.split_and(s);
        if parts.len() > 1 {
            return parts.iter().any(|p| self.pins_source_table(p));
        }
        if self.has_top_level_or(s) {
            return false;
        }
        // col = x, x = col, col == x, col <=> x
        let mut depth = 0i32;
        for (n, &k) in s.iter().enumerate() {
            match self.tok(k) {
                Token::LParen => depth += 1,
                Token::RParen => depth -= 1,
                Token::Eq | Token::DoubleEq | Token::Spaceship if depth == 0 => {
                    let (l, r) = (&s[..n], &s[n + 1..]);
                    return !l.is_empty()
                        && !r.is_empty()
                        && (self.is_source_table_ref(l) || self.is_source_table_ref(r));
                }
                _ if depth == 0 && self.is_kw(k, "IN") => {
                    let l = &s[..n];
                    let next_is_list = s.get(n + 1).is_some_and(|&j| *self.tok(j) == Token::LParen);
                    return self.is_source_table_ref(l) && next_is_list;
                }
                _ => {}
            }
        }
        false
    }
}
