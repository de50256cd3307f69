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

mod alter;
mod statement;
mod types;
mod update;

use std::ops::Range;

use sqlparser::dialect::DatabricksDialect;
use sqlparser::tokenizer::Tokenizer;

use crate::text;
use statement::Stmt;

pub use types::{canonical_type, type_matches};

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
    let subs = text::template_holes(raw);
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
