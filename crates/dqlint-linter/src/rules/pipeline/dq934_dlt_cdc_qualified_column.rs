//! ## What it does
//! Reports a qualified column name (`src.id`, `col("src.id")`) in the
//! `keys`, `sequence_by`, `column_list` or `except_column_list` of an AUTO
//! CDC flow (SQL: `KEYS`, `SEQUENCE BY`, `COLUMNS`). `sequence_by` is an
//! expression, where `payload.ts` reads a field of a struct column: there a
//! dotted name is reported only when its qualifier names the source or the
//! target dataset (`orders_raw.ts`).
//!
//! ## Why is this bad?
//! AUTO CDC resolves these columns against the source and the target at
//! once: the API accepts column names only, and a qualifier makes the flow
//! fail at analysis.
//!
//! ## Example (bad)
//! `pipelines/customers.py`:
//! ```python
//! from pyspark import pipelines as dp
//! from pyspark.sql.functions import col
//!
//! dp.create_streaming_table("customers")
//!
//! dp.create_auto_cdc_flow(
//!     target="customers",
//!     source="customers_raw",
//!     keys=[col("src.customer_id")],
//!     sequence_by=col("updated_at"),
//! )
//! ```
//!
//! ## Example (good)
//! `pipelines/customers.py`:
//! ```python
//! from pyspark import pipelines as dp
//! from pyspark.sql.functions import col
//!
//! dp.create_streaming_table("customers")
//!
//! dp.create_auto_cdc_flow(
//!     target="customers",
//!     source="customers_raw",
//!     keys=[col("customer_id")],
//!     sequence_by=col("updated_at"),
//! )
//! ```
//!
//! ## Fix
//! Write the column name alone (`customer_id`); rename the column in the
//! source view if two sources share it.

use dqlint_pipeline::model::{AutoCdc, CdcSource, Named};
use dqlint_project::{FileKind, Origin};

use crate::diagnostic::Diagnostic;
use crate::engine::{Context, Findings};
use crate::registry::rule;
use crate::rules::pipeline::dq933_dlt_cdc_sequence_by_processing_time::identifiers;
use crate::rules::pipeline::{dataset_key, sources, PipelineSource};

pub fn check(ctx: &Context, out: &mut Findings) {
    let me = rule("DQ934");
    for source in sources(ctx) {
        for cdc in &source.model.auto_cdc {
            let mut named: Vec<(&str, &Named)> = Vec::new();
            named.extend(cdc.keys.iter().map(|k| ("keys", k)));
            named.extend(cdc.sequence_by.iter().map(|s| ("sequence_by", s)));
            for (what, list) in [
                ("column_list", &cdc.column_list),
                ("except_column_list", &cdc.except_column_list),
            ] {
                named.extend(list.iter().flatten().map(|c| (what, c)));
            }
            for (what, column) in named {
                if !is_sql(source, column) {
                    continue;
                }
                let words = identifiers(&column.name);
                let Some(at) = words.iter().position(|w| w.qualified) else {
                    continue;
                };
                let qualifier = words[at - 1].text;
                if what == "sequence_by" && !names_a_dataset(cdc, qualifier) {
                    // A struct field: `SEQUENCE BY payload.ts`.
                    continue;
                }
                let qualified = format!("{qualifier}.{}", words[at].text);
                let what = if source.file.kind == FileKind::PipelineSql {
                    match what {
                        "keys" => "KEYS",
                        "sequence_by" => "SEQUENCE BY",
                        _ => "COLUMNS",
                    }
                } else {
                    what
                };
                out.push(Diagnostic::new(
                    me,
                    &Origin::new(source.id(), column.span.clone()),
                    format!(
                        "`{qualified}` in `{what}` is a qualified name: AUTO CDC takes column \
                         names only (`{}`)",
                        words[at].text
                    ),
                ));
            }
        }
    }
}

/// Whether `qualifier` is the source's or the target's name (or its last
/// part), so `qualifier.column` is a qualified column, not a struct field.
fn names_a_dataset(cdc: &AutoCdc, qualifier: &str) -> bool {
    let qualifier = dataset_key(qualifier);
    let source = match &cdc.source {
        Some(CdcSource::Name(n)) => Some(n),
        _ => None,
    };
    source.into_iter().chain(&cdc.target).any(|n| {
        let key = dataset_key(&n.name);
        key == qualifier || key.rsplit('.').next() == Some(qualifier.as_str())
    })
}

/// Whether a name of the Python reader is SQL (a string, or a column
/// expression it translated) rather than Python text it kept as written
/// (`cfg.key`): only SQL names are checked.
fn is_sql(source: &PipelineSource, named: &Named) -> bool {
    if source.file.kind != FileKind::PipelinePython {
        return true;
    }
    let text = &*source.file.text;
    match text.get(named.span.clone()) {
        Some(written) if written == named.name => text[..named.span.start].ends_with(['"', '\'']),
        _ => true,
    }
}
