//! ## What it does
//! Finds a remediated branch re-injected into a clean target (an
//! `append_flow` or an AUTO CDC flow reading a quarantine dataset, directly
//! or through one dataset between) whose literal `.select(...)` list names
//! other columns than the clean branch into the same target. Silent when
//! either list is not literal.
//!
//! ## Why is this bad?
//! Seed 002's "Schema Match": the remediated rows must have the clean
//! branch's columns. A column missing on one side is NULL on every row
//! that branch writes, and an extra one fails the flow or widens the
//! table, depending on schema evolution.
//!
//! ## Example (bad)
//! `transformations/sales.py`:
//! ```python
//! from pyspark import pipelines as dp
//!
//! @dp.temporary_view()
//! def raw_sales():
//!     return spark.readStream.table("raw_ingestion")
//!
//! @dp.table()
//! @dp.expect_or_drop("valid_price", "price IS NOT NULL AND price > 0")
//! def sales_clean():
//!     return spark.readStream.table("raw_sales")
//!
//! @dp.table()
//! def sales_quarantine():
//!     return spark.readStream.table("raw_sales").filter("NOT (price IS NOT NULL AND price > 0)")
//!
//! dp.create_streaming_table("sales_silver")
//!
//! @dp.append_flow(target="sales_silver")
//! def clean_flow():
//!     return spark.readStream.table("sales_clean").select("order_id", "price", "ingestion_time")
//!
//! @dp.append_flow(target="sales_silver")
//! def remediated_flow():
//!     return spark.readStream.table("sales_quarantine").select("order_id", "price")
//! ```
//!
//! ## Example (good)
//! `transformations/sales.py`:
//! ```python
//! from pyspark import pipelines as dp
//!
//! @dp.temporary_view()
//! def raw_sales():
//!     return spark.readStream.table("raw_ingestion")
//!
//! @dp.table()
//! @dp.expect_or_drop("valid_price", "price IS NOT NULL AND price > 0")
//! def sales_clean():
//!     return spark.readStream.table("raw_sales")
//!
//! @dp.table()
//! def sales_quarantine():
//!     return spark.readStream.table("raw_sales").filter("NOT (price IS NOT NULL AND price > 0)")
//!
//! dp.create_streaming_table("sales_silver")
//!
//! @dp.append_flow(target="sales_silver")
//! def clean_flow():
//!     return spark.readStream.table("sales_clean").select("order_id", "price", "ingestion_time")
//!
//! @dp.append_flow(target="sales_silver")
//! def remediated_flow():
//!     return spark.readStream.table("sales_quarantine").select("order_id", "price", "ingestion_time")
//! ```
//!
//! ## Fix
//! Select the clean branch's columns, in its order, in the remediated
//! branch.

use std::cell::RefCell;
use std::collections::{BTreeSet, HashMap};
use std::ops::Range;

use dqlint_pipeline::model::{CdcSource, Named, Read};
use dqlint_project::{FileId, Origin};

use crate::diagnostic::Diagnostic;
use crate::engine::{Context, Findings};
use crate::registry::rule;
use crate::rules::pipeline::{
    dataset_key, quarantine_patterns, same_dataset, sources, DatasetIndex,
};

/// One branch writing into a target.
struct Branch<'c> {
    file: FileId,
    target: &'c str,
    reads: Vec<&'c str>,
    select_list: Option<&'c [Named]>,
    span: Range<usize>,
}

pub fn check<'c>(ctx: &'c Context, out: &mut Findings) {
    let me = rule("DQ925");
    let index = DatasetIndex::new(ctx);
    let quarantines: std::collections::HashSet<String> = quarantine_patterns(ctx)
        .iter()
        .map(|p| dataset_key(&p.quarantine.1.name.name))
        .collect();
    // Asked of every read of every branch, and many branches read the
    // same datasets: answered once per name.
    let answered: RefCell<HashMap<&str, bool>> = RefCell::default();
    let is_quarantine = |name: &'c str| {
        if let Some(&known) = answered.borrow().get(name) {
            return known;
        }
        let quarantine = quarantines.contains(&dataset_key(name))
            || index
                .get(name)
                .is_some_and(|(_, d)| quarantines.contains(&dataset_key(&d.name.name)))
            || ctx.dlt.is_quarantine_name(name);
        answered.borrow_mut().insert(name, quarantine);
        quarantine
    };
    // Fed by a quarantine: reads one, or reads a dataset that reads one.
    let remediated = |branch: &Branch<'c>| {
        branch.reads.iter().any(|r| {
            is_quarantine(r)
                || index.get(r).is_some_and(|(_, d)| {
                    d.reads
                        .iter()
                        .any(|inner| is_quarantine(&inner.source.name))
                })
        })
    };
    let branches = branches(ctx, &index);
    let is_remediated: Vec<bool> = branches.iter().map(remediated).collect();
    let mut by_target: std::collections::HashMap<String, Vec<usize>> = Default::default();
    for (i, b) in branches.iter().enumerate() {
        let key = dataset_key(b.target);
        let last = key.rsplit('.').next().unwrap_or("").to_string();
        by_target.entry(last).or_default().push(i);
    }
    for (fixed, _) in branches.iter().zip(&is_remediated).filter(|(_, r)| **r) {
        let Some(fixed_list) = fixed.select_list else {
            continue;
        };
        let key = dataset_key(fixed.target);
        let last = key.rsplit('.').next().unwrap_or("");
        let clean = by_target
            .get(last)
            .into_iter()
            .flatten()
            .filter(|&&i| !is_remediated[i])
            .map(|&i| &branches[i])
            .find(|b| same_dataset(b.target, fixed.target) && b.select_list.is_some());
        let Some(clean) = clean else { continue };
        let clean_list = clean.select_list.unwrap_or(&[]);
        let names = |list: &[Named]| -> BTreeSet<String> {
            list.iter().map(|n| n.name.to_ascii_lowercase()).collect()
        };
        let (have, want) = (names(fixed_list), names(clean_list));
        if have == want {
            continue;
        }
        let missing: Vec<String> = want.difference(&have).map(|c| format!("`{c}`")).collect();
        let extra: Vec<String> = have.difference(&want).map(|c| format!("`{c}`")).collect();
        let mut parts = Vec::new();
        if !missing.is_empty() {
            parts.push(format!("lacks {}", missing.join(", ")));
        }
        if !extra.is_empty() {
            parts.push(format!("adds {}", extra.join(", ")));
        }
        let span = match (fixed_list.first(), fixed_list.last()) {
            (Some(first), Some(last)) => first.span.start..last.span.end,
            _ => fixed.span.clone(),
        };
        let message = format!(
            "the remediated branch into `{}` {} against the clean branch: its rows get NULL in \
             the columns it lacks, and a column the target does not have fails the flow or \
             widens the table",
            fixed.target,
            parts.join(" and ")
        );
        let clean_span = match (clean_list.first(), clean_list.last()) {
            (Some(first), Some(last)) => first.span.start..last.span.end,
            _ => clean.span.clone(),
        };
        out.push(Diagnostic::at(me, fixed.file, span, message).related(
            &Origin::new(clean.file, clean_span),
            format!("the clean branch into `{}` selects these", clean.target),
        ));
    }
}

/// Every branch writing into a target: append flows, AUTO CDC flows, and
/// a dataset's own query.
fn branches<'c>(ctx: &'c Context, index: &DatasetIndex<'c>) -> Vec<Branch<'c>> {
    let names = |reads: &'c [Read]| reads.iter().map(|r| r.source.name.as_str()).collect();
    let mut out = Vec::new();
    for source in sources(ctx) {
        for flow in &source.model.flows {
            let Some(target) = &flow.target else { continue };
            out.push(Branch {
                file: source.id(),
                target: &target.name,
                reads: names(&flow.reads),
                select_list: flow.select_list.as_deref(),
                span: flow.span.clone(),
            });
        }
        for cdc in &source.model.auto_cdc {
            let Some(target) = &cdc.target else { continue };
            let (reads, select_list) = match &cdc.source {
                Some(CdcSource::Name(name)) => (
                    vec![name.name.as_str()],
                    index
                        .get(&name.name)
                        .and_then(|(_, d)| d.select_list.as_deref()),
                ),
                _ => (names(&cdc.source_reads), cdc.source_select_list.as_deref()),
            };
            out.push(Branch {
                file: source.id(),
                target: &target.name,
                reads,
                select_list,
                span: cdc.span.clone(),
            });
        }
        for dataset in &source.model.datasets {
            if dataset.reads.is_empty() {
                continue;
            }
            out.push(Branch {
                file: source.id(),
                target: &dataset.name.name,
                reads: names(&dataset.reads),
                select_list: dataset.select_list.as_deref(),
                span: dataset.span.clone(),
            });
        }
    }
    out
}
