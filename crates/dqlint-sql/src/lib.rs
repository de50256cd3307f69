//! Databricks SQL support for dqlint.
//!
//! * [`expr`]: checks of one expectation's boolean SQL expression, as typed facts.
//! * [`functions`]: the Spark and Databricks SQL built-in functions (generated data).
//! * [`ddl`]: a small catalog of the `CREATE TABLE` / `ALTER TABLE` / `UPDATE`
//!   statements of a `.sql` file, used for the DLQ checks.
//! * [`ident`]: multi-part table names.
//! * [`conjuncts`]: what the top-level conjuncts of a rule check (not null,
//!   a literal bound), with their columns, for policies.
//! * [`columns`]: the columns a select list or a column list names (column
//!   completion in the language server).
//!
//! Every range handed out by this crate is a byte range into the text that
//! was passed in. Nothing in here panics on arbitrary input.

pub mod columns;
pub mod conjuncts;
pub mod ddl;
pub mod expr;
pub mod functions;
pub mod highlight;
pub mod ident;

mod text;

pub use text::template_holes;

/// The `-- ...` comments of a SQL text (not `/* */`, not `--` inside strings
/// or quoted identifiers), as byte ranges from `--` to the end of the line.
/// Suppression comments (`-- dqlint: ignore[...]`) live in these.
pub fn block_comments(text: &str) -> Vec<std::ops::Range<usize>> {
    text::segments(text)
        .into_iter()
        .filter(|s| s.kind == text::SegKind::Comment && text[s.range.clone()].starts_with("/*"))
        .map(|s| s.range)
        .collect()
}

/// The `--` comments of a SQL text, outside strings and quoted names.
pub fn line_comments(text: &str) -> Vec<std::ops::Range<usize>> {
    text::segments(text)
        .into_iter()
        .filter(|s| s.kind == text::SegKind::Comment && text[s.range.clone()].starts_with("--"))
        .map(|s| s.range)
        .collect()
}
