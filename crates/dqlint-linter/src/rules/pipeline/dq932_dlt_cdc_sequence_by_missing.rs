//! ## What it does
//! Reports an AUTO CDC flow without `sequence_by=` (Python) or `SEQUENCE
//! BY` (SQL).
//!
//! ## Why is this bad?
//! AUTO CDC orders the changes of one key by `sequence_by`; without it the
//! flow does not run (the argument is required), and an ordering guessed
//! from arrival would let an old change overwrite a newer one.
//!
//! ## Example (bad)
//! `pipelines/customers.py`:
//! ```python
//! from pyspark import pipelines as dp
//!
//! dp.create_streaming_table("customers")
//!
//! dp.create_auto_cdc_flow(
//!     target="customers",
//!     source="customers_raw",
//!     keys=["customer_id"],
//! )
//! ```
//!
//! ## Example (good)
//! `pipelines/customers.py`:
//! ```python
//! from pyspark import pipelines as dp
//!
//! dp.create_streaming_table("customers")
//!
//! dp.create_auto_cdc_flow(
//!     target="customers",
//!     source="customers_raw",
//!     keys=["customer_id"],
//!     sequence_by="updated_at",
//! )
//! ```
//!
//! ## Fix
//! Add `sequence_by` with a column of the source that orders the changes
//! of a key: an event time, a version, a log sequence number (or a
//! `struct` of several).

use dqlint_project::{FileKind, Origin};

use crate::diagnostic::Diagnostic;
use crate::engine::{Context, Findings};
use crate::registry::rule;
use crate::rules::pipeline::sources;

pub fn check(ctx: &Context, out: &mut Findings) {
    let me = rule("DQ932");
    for source in sources(ctx) {
        let python = source.file.kind == FileKind::PipelinePython;
        for cdc in &source.model.auto_cdc {
            if cdc.sequence_by.is_some() {
                continue;
            }
            let text = &*source.file.text;
            let call = text.get(cdc.span.clone()).unwrap_or("");
            // `**options` may hold it.
            if python && call.contains("**") {
                continue;
            }
            let span = match &cdc.target {
                Some(t) if !python => t.span.clone(),
                _ => {
                    let head = call.find('(').unwrap_or(call.len());
                    cdc.span.start..cdc.span.start + head
                }
            };
            let what = if python {
                "`sequence_by=`"
            } else {
                "`SEQUENCE BY`"
            };
            out.push(Diagnostic::new(
                me,
                &Origin::new(source.id(), span),
                format!(
                    "this AUTO CDC flow{} has no {what}: changes of a key cannot be ordered",
                    cdc.target
                        .as_ref()
                        .map(|t| format!(" into `{}`", t.name))
                        .unwrap_or_default()
                ),
            ));
        }
    }
}
