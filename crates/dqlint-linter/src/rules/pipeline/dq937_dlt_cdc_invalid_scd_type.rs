//! ## What it does
//! Reports an AUTO CDC `stored_as_scd_type` (SQL: `STORED AS SCD TYPE`)
//! that is neither 1 nor 2. In Python the type may be an integer or a
//! string (`2`, `"2"`).
//!
//! ## Why is this bad?
//! AUTO CDC stores a target as slowly changing dimension type 1 (the
//! latest row per key) or type 2 (every version, with `__START_AT` and
//! `__END_AT`); any other value is rejected and the pipeline fails.
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
//!     sequence_by="updated_at",
//!     stored_as_scd_type=3,
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
//!     stored_as_scd_type=2,
//! )
//! ```
//!
//! ## Fix
//! Use 1 (keep the latest version of each key) or 2 (keep the history).

use dqlint_pipeline::model::Named;
use dqlint_project::{FileKind, Origin};

use crate::diagnostic::Diagnostic;
use crate::engine::{Context, Findings};
use crate::registry::rule;
use crate::rules::pipeline::{sources, PipelineSource};

pub fn check(ctx: &Context, out: &mut Findings) {
    let me = rule("DQ937");
    for source in sources(ctx) {
        for cdc in &source.model.auto_cdc {
            let Some(written) = &cdc.stored_as_scd_type else {
                continue;
            };
            if !is_known(source, written) || matches!(scd_type(source, written), Some(1 | 2)) {
                continue;
            }
            out.push(Diagnostic::new(
                me,
                &Origin::new(source.id(), written.span.clone()),
                format!(
                    "SCD type `{}` does not exist: AUTO CDC stores a target as SCD type 1 or 2",
                    written.name
                ),
            ));
        }
    }
}

/// The SCD type as a number, when it is known and is one.
pub(crate) fn scd_type(source: &PipelineSource, written: &Named) -> Option<u32> {
    if !is_known(source, written) {
        return None;
    }
    // `"2"` as well as `2`.
    Some(written.name.trim().parse().unwrap_or(0))
}

/// Whether the Python reader evaluated the type (a literal or a module
/// constant) rather than keeping an expression's text; SQL types always
/// are.
fn is_known(source: &PipelineSource, written: &Named) -> bool {
    if source.file.kind != FileKind::PipelinePython {
        return true;
    }
    let text = source.file.text.get(written.span.clone()).unwrap_or("");
    text != written.name || text.chars().all(|c| c.is_ascii_digit())
}
