//! ## What it does
//! Reports an AUTO CDC `sequence_by` / `SEQUENCE BY` that is processing
//! time: a call of `current_timestamp()`, `now()`, `current_date()`,
//! `localtimestamp()`, `uuid()` or `rand()`, or a column that the source
//! computes from one of them in the pipeline sources
//! (`withColumn("c", F.current_timestamp())`, `current_timestamp() AS c`).
//!
//! ## Why is this bad?
//! Processing time orders the changes by when the pipeline saw them, not by
//! when they happened: a rerun, a full refresh or a backfill, and rows
//! re-injected from a quarantine, resolve the same changes differently.
//!
//! ## Example (bad)
//! `pipelines/customers.py`:
//! ```python
//! from pyspark import pipelines as dp
//! from pyspark.sql import functions as F
//!
//! dp.create_streaming_table("customers")
//!
//!
//! @dp.temporary_view()
//! def customers_changes():
//!     return spark.readStream.table("customers_raw").withColumn("loaded_at", F.current_timestamp())
//!
//!
//! dp.create_auto_cdc_flow(
//!     target="customers",
//!     source="customers_changes",
//!     keys=["customer_id"],
//!     sequence_by=F.col("loaded_at"),
//! )
//! ```
//!
//! ## Example (good)
//! `pipelines/customers.py`:
//! ```python
//! from pyspark import pipelines as dp
//! from pyspark.sql import functions as F
//!
//! dp.create_streaming_table("customers")
//!
//!
//! @dp.temporary_view()
//! def customers_changes():
//!     return spark.readStream.table("customers_raw").withColumn("loaded_at", F.current_timestamp())
//!
//!
//! dp.create_auto_cdc_flow(
//!     target="customers",
//!     source="customers_changes",
//!     keys=["customer_id"],
//!     sequence_by=F.col("updated_at"),
//! )
//! ```
//!
//! ## Fix
//! Sequence by a value of the source data: an event time, a version, a log
//! sequence number.

use std::collections::{HashMap, HashSet};

use dqlint_pipeline::model::{CdcSource, ComputedColumn, Dataset};
use dqlint_project::{FileKind, Origin};

use crate::diagnostic::Diagnostic;
use crate::engine::{Context, Findings};
use crate::registry::rule;
use crate::rules::pipeline::sources;

/// Functions whose value is the time (or chance) of processing.
const PROCESSING_TIME: &[&str] = &[
    "current_timestamp",
    "now",
    "current_date",
    "localtimestamp",
    "uuid",
    "rand",
    "randn",
];
/// Of those, the ones SQL also accepts without parentheses.
const NILADIC: &[&str] = &["current_timestamp", "current_date", "localtimestamp"];

/// Upstream datasets followed to find where a column is computed.
const MAX_HOPS: usize = 8;

pub fn check(ctx: &Context, out: &mut Findings) {
    let me = rule("DQ933");
    // By lower-cased name: every CDC flow follows its source upstream.
    let mut datasets: HashMap<String, Vec<&Dataset>> = HashMap::new();
    for dataset in sources(ctx).iter().flat_map(|s| s.model.datasets.iter()) {
        datasets
            .entry(dataset.name.name.to_ascii_lowercase())
            .or_default()
            .push(dataset);
    }
    for source in sources(ctx) {
        for cdc in &source.model.auto_cdc {
            let Some(sequence) = &cdc.sequence_by else {
                continue;
            };
            let words = identifiers(&sequence.name);
            // In Python a string is a column name, never a niladic function.
            let sql = source.file.kind == FileKind::PipelineSql;
            let message = if let Some(f) = processing_call(&words, sql) {
                format!("`sequence_by` calls `{f}`")
            } else {
                let computed: Vec<&ComputedColumn> = match &cdc.source {
                    Some(CdcSource::Name(name)) => upstream_columns(&datasets, &name.name),
                    _ => cdc.source_computed_columns.iter().collect(),
                };
                let found = words.iter().filter(|w| !w.call).find_map(|w| {
                    computed.iter().find(|c| {
                        c.name.name.eq_ignore_ascii_case(w.text)
                            && processing_call(&identifiers(&c.expression), true).is_some()
                    })
                });
                let Some(column) = found else { continue };
                format!(
                    "`sequence_by` is `{}`, which the source computes as `{}`",
                    column.name.name, column.expression
                )
            };
            out.push(Diagnostic::new(
                me,
                &Origin::new(source.id(), sequence.span.clone()),
                format!(
                    "{message}: processing time orders changes by when the pipeline saw them, \
                     so reruns and backfills resolve them differently"
                ),
            ));
        }
    }
}

/// The computed columns of a dataset and of the datasets it reads.
fn upstream_columns<'d>(
    datasets: &HashMap<String, Vec<&'d Dataset>>,
    name: &str,
) -> Vec<&'d ComputedColumn> {
    let mut out = Vec::new();
    let mut names = vec![name.to_string()];
    let mut seen = HashSet::new();
    for _ in 0..MAX_HOPS {
        let mut next = Vec::new();
        for name in names {
            let last = name
                .rsplit('.')
                .next()
                .unwrap_or(&name)
                .to_ascii_lowercase();
            if !seen.insert(last.clone()) {
                continue;
            }
            for dataset in datasets.get(&last).into_iter().flatten() {
                out.extend(dataset.computed_columns.iter());
                next.extend(dataset.reads.iter().map(|r| r.source.name.clone()));
            }
        }
        if next.is_empty() {
            break;
        }
        names = next;
    }
    out
}

/// An identifier of a SQL-ish expression, and whether a `(` follows it.
pub(crate) struct Word<'t> {
    pub text: &'t str,
    pub call: bool,
    /// Joined to the previous identifier by a `.` (`src.id`).
    pub qualified: bool,
}

/// The identifiers of `text` outside string literals; backticked ones
/// whole.
pub(crate) fn identifiers(text: &str) -> Vec<Word<'_>> {
    let bytes = text.as_bytes();
    let mut out: Vec<Word> = Vec::new();
    let mut i = 0;
    let mut after_dot = false;
    while i < bytes.len() {
        let c = bytes[i];
        if c == b'\'' || c == b'"' {
            let end = text[i + 1..]
                .find(c as char)
                .map_or(text.len(), |e| i + 1 + e + 1);
            i = end;
            after_dot = false;
            continue;
        }
        let start = i;
        let word = if c == b'`' {
            let end = text[i + 1..]
                .find('`')
                .map_or(text.len(), |e| i + 1 + e + 1);
            i = end;
            Some(&text[start..end])
        } else if c.is_ascii_alphabetic() || c == b'_' {
            while i < bytes.len() && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'_') {
                i += 1;
            }
            Some(&text[start..i])
        } else if c.is_ascii_digit() {
            // A number (`1.5`, `2e3`): not an identifier.
            while i < bytes.len() && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'.') {
                i += 1;
            }
            after_dot = false;
            None
        } else {
            i += 1;
            after_dot = c == b'.' && !out.is_empty() && start > 0 && {
                let prev = bytes[start - 1];
                prev.is_ascii_alphanumeric() || prev == b'_' || prev == b'`'
            };
            None
        };
        if let Some(word) = word {
            let rest = text[i..].trim_start();
            out.push(Word {
                text: word,
                call: rest.starts_with('('),
                qualified: after_dot,
            });
            after_dot = false;
        }
    }
    out
}

/// The first processing-time function the words call.
fn processing_call(words: &[Word], niladic: bool) -> Option<String> {
    words.iter().find_map(|w| {
        let lower = w.text.to_ascii_lowercase();
        let known = if w.call {
            PROCESSING_TIME.contains(&lower.as_str())
        } else {
            niladic && !w.qualified && NILADIC.contains(&lower.as_str())
        };
        known.then(|| format!("{lower}()"))
    })
}
