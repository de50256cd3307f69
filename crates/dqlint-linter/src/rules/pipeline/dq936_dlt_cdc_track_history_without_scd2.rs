//! ## What it does
//! Reports an AUTO CDC flow with `track_history_column_list` or
//! `track_history_except_column_list` (SQL: `TRACK HISTORY ON`) that is not
//! stored as SCD type 2 (`stored_as_scd_type` is 1, or not given: the
//! default is 1).
//!
//! ## Why is this bad?
//! History is tracked only in SCD type 2 tables; on a type 1 table the
//! flow is rejected, and the history the lists ask for is never kept.
//!
//! ## Example (bad)
//! `pipelines/customers.sql`:
//! ```sql
//! CREATE OR REFRESH STREAMING TABLE customers;
//!
//! CREATE FLOW customers_cdc AS AUTO CDC INTO customers
//! FROM STREAM(customers_raw)
//! KEYS (customer_id)
//! SEQUENCE BY updated_at
//! STORED AS SCD TYPE 1
//! TRACK HISTORY ON * EXCEPT (last_login);
//! ```
//!
//! ## Example (good)
//! `pipelines/customers.sql`:
//! ```sql
//! CREATE OR REFRESH STREAMING TABLE customers;
//!
//! CREATE FLOW customers_cdc AS AUTO CDC INTO customers
//! FROM STREAM(customers_raw)
//! KEYS (customer_id)
//! SEQUENCE BY updated_at
//! STORED AS SCD TYPE 2
//! TRACK HISTORY ON * EXCEPT (last_login);
//! ```
//!
//! ## Fix
//! Store the target as SCD type 2 (`stored_as_scd_type=2`, `STORED AS SCD
//! TYPE 2`), or drop the track-history list.

use dqlint_project::{FileKind, Origin};

use crate::diagnostic::Diagnostic;
use crate::engine::{Context, Findings};
use crate::registry::rule;
use crate::rules::pipeline::dq937_dlt_cdc_invalid_scd_type::scd_type;
use crate::rules::pipeline::sources;

pub fn check(ctx: &Context, out: &mut Findings) {
    let me = rule("DQ936");
    for source in sources(ctx) {
        let sql = source.file.kind == FileKind::PipelineSql;
        for cdc in &source.model.auto_cdc {
            let (what, list) = match (
                &cdc.track_history_column_list,
                &cdc.track_history_except_column_list,
            ) {
                (Some(l), _) => ("track_history_column_list", l),
                (None, Some(l)) => ("track_history_except_column_list", l),
                (None, None) => continue,
            };
            let stored = match &cdc.stored_as_scd_type {
                None => Some(1),
                Some(t) => scd_type(source, t),
            };
            // Unknown (a name not evaluated), or type 2: nothing to say.
            if stored.is_none() || stored == Some(2) {
                continue;
            }
            let what = if sql { "TRACK HISTORY ON" } else { what };
            let span = list
                .first()
                .map(|n| n.span.clone())
                .unwrap_or_else(|| cdc.span.clone());
            let how = match &cdc.stored_as_scd_type {
                None => "the target is SCD type 1 (the default)".to_string(),
                Some(t) => format!("the target is stored as SCD type {}", t.name),
            };
            let mut diagnostic = Diagnostic::new(
                me,
                &Origin::new(source.id(), span),
                format!("`{what}` without SCD type 2: {how}, which keeps no history"),
            );
            if let Some(t) = &cdc.stored_as_scd_type {
                diagnostic = diagnostic.related(
                    &Origin::new(source.id(), t.span.clone()),
                    "the SCD type is set here",
                );
            }
            out.push(diagnostic);
        }
    }
}
