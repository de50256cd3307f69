//! ## What it does
//! Reports a `create_auto_cdc_flow(...)` / `apply_changes(...)` whose
//! `source=` is not a dataset name: a DataFrame variable or expression (as
//! in the re-inject step of the quarantine pattern), or, in SQL, a
//! subquery after `AUTO CDC INTO ... FROM`.
//!
//! ## Why is this bad?
//! The API takes the name of a dataset of the pipeline, as a string. A
//! DataFrame fails when the pipeline is loaded, so the re-injected rows
//! never reach the target.
//!
//! ## Example (bad)
//! `pipelines/orders.py`:
//! ```python
//! from pyspark import pipelines as dp
//! from pyspark.sql import functions as F
//!
//! dp.create_streaming_table("orders_silver")
//!
//! remediated = spark.readStream.table("orders_quarantine").select("order_id", "price", "ingested_at")
//!
//! dp.create_auto_cdc_flow(
//!     target="orders_silver",
//!     source=remediated,
//!     keys=["order_id"],
//!     sequence_by=F.col("ingested_at"),
//! )
//! ```
//!
//! ## Example (good)
//! `pipelines/orders.py`:
//! ```python
//! from pyspark import pipelines as dp
//! from pyspark.sql import functions as F
//!
//! dp.create_streaming_table("orders_silver")
//!
//!
//! @dp.temporary_view()
//! def remediated():
//!     return spark.readStream.table("orders_quarantine").select("order_id", "price", "ingested_at")
//!
//!
//! dp.create_auto_cdc_flow(
//!     target="orders_silver",
//!     source="remediated",
//!     keys=["order_id"],
//!     sequence_by=F.col("ingested_at"),
//! )
//! ```
//!
//! ## Fix
//! Define the DataFrame in a `@dp.temporary_view()` function and pass the
//! view's name. dqlint's fix (unsafe: the DataFrame is then built inside
//! the view) adds such a view just before the call and passes its name.

use dqlint_pipeline::model::{AutoCdc, CdcSource};
use dqlint_project::{FileKind, Origin};

use crate::diagnostic::{Applicability, Diagnostic, Edit, Fix};
use crate::engine::{Context, Findings};
use crate::registry::rule;
use crate::rules::pipeline::{sources, PipelineSource};

pub fn check(ctx: &Context, out: &mut Findings) {
    let me = rule("DQ930");
    let names: Vec<String> = sources(ctx)
        .iter()
        .flat_map(|s| {
            s.model
                .datasets
                .iter()
                .map(|d| d.name.name.to_ascii_lowercase())
        })
        .collect();
    for source in sources(ctx) {
        for cdc in &source.model.auto_cdc {
            let Some(CdcSource::NotAName { span, text }) = &cdc.source else {
                continue;
            };
            let what = if source.file.kind == FileKind::PipelineSql {
                "a subquery"
            } else {
                "not a string"
            };
            let mut diagnostic = Diagnostic::new(
                me,
                &Origin::new(source.id(), span.clone()),
                format!(
                    "the AUTO CDC source `{}` is {what}: the API takes the name of a dataset, \
                     so the pipeline fails to load; define a temporary view and pass its name",
                    first_line(text)
                ),
            );
            if let Some(fix) = wrap_in_view(source, cdc, span, text, &names) {
                diagnostic = diagnostic.fix(fix);
            }
            out.push(diagnostic);
        }
    }
}

fn first_line(text: &str) -> String {
    let line = text.lines().next().unwrap_or("").trim_end();
    if line.len() < text.trim_end().len() {
        format!("{line} ...")
    } else {
        line.to_string()
    }
}

/// A `@<alias>.temporary_view()` returning the DataFrame, inserted before
/// the statement of the call, and `source="<view>"`. Only when the call
/// starts its line as a statement and is spelt `<alias>.<api>(`.
fn wrap_in_view(
    source: &PipelineSource,
    cdc: &AutoCdc,
    span: &std::ops::Range<usize>,
    text: &str,
    names: &[String],
) -> Option<Fix> {
    if source.file.kind != FileKind::PipelinePython {
        return None;
    }
    let file = &*source.file.text;
    let line_start = file[..cdc.span.start].rfind('\n').map_or(0, |i| i + 1);
    let indent = &file[line_start..cdc.span.start];
    if !indent.chars().all(|c| c == ' ' || c == '\t') {
        return None;
    }
    let callee = &file[cdc.span.start..];
    let callee = &callee[..callee.find('(')?];
    let (alias, _) = callee.rsplit_once('.')?;
    if alias.is_empty()
        || !alias
            .chars()
            .all(|c| c.is_alphanumeric() || c == '_' || c == '.')
    {
        return None;
    }
    let identifier = !text.is_empty()
        && text.chars().all(|c| c.is_alphanumeric() || c == '_')
        && !text.starts_with(|c: char| c.is_ascii_digit());
    let base = if identifier {
        format!("{text}_view")
    } else {
        let target = cdc
            .target
            .as_ref()
            .map(|t| t.name.rsplit('.').next().unwrap_or(&t.name).to_string())
            .filter(|t| t.chars().all(|c| c.is_alphanumeric() || c == '_') && !t.is_empty());
        match target {
            Some(t) => format!("{t}_cdc_source"),
            None => "cdc_source".to_string(),
        }
    };
    let taken = |name: &str| {
        names.iter().any(|n| n == &name.to_ascii_lowercase())
            || file.contains(&format!("def {name}("))
            || file.contains(&format!("\"{name}\""))
            || file.contains(&format!("'{name}'"))
    };
    let mut view = base.clone();
    let mut n = 2;
    while taken(&view) {
        view = format!("{base}_{n}");
        n += 1;
    }
    let body = if text.contains('\n') {
        format!("({text})")
    } else {
        text.to_string()
    };
    let inserted = format!(
        "{indent}@{alias}.temporary_view()\n{indent}def {view}():\n{indent}    return {body}\n\n\n"
    );
    let id = source.id();
    Some(Fix {
        applicability: Applicability::Unsafe,
        description: format!(
            "define the DataFrame as the temporary view `{view}` and pass its name"
        ),
        edits: vec![
            Edit {
                file: id,
                span: line_start..line_start,
                new_text: inserted,
            },
            Edit {
                file: id,
                span: span.clone(),
                new_text: format!("\"{view}\""),
            },
        ],
    })
}
