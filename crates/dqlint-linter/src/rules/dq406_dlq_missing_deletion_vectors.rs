//! ## What it does
//! Reports a DLQ inbox or outbox whose DDL does not set
//! `'delta.enableDeletionVectors' = 'true'`. An error when two or more
//! quarantine actions (in any pipeline) share the DLQ, else a warning.
//!
//! ## Why is this bad?
//! Several pipelines MERGE into a shared DLQ at the same time; without
//! deletion vectors (and clustering by `_dlq_source_table`, DQ407) the
//! concurrent MERGEs conflict and fail with `DELTA_CONCURRENT_APPEND`.
//!
//! ## Example
//! ```sql
//! CREATE TABLE IF NOT EXISTS main.ops.dlq ( ... )
//! TBLPROPERTIES (
//!     'delta.enableChangeDataFeed' = 'true',
//!     'delta.enableRowTracking' = 'true'
//! );
//! ```
//!
//! ## Fix
//! Add the property to the `TBLPROPERTIES` list (the quick fix does).
//!
//! ## Valid
//! ```sql
//! CREATE TABLE IF NOT EXISTS main.ops.dlq ( ... )
//! TBLPROPERTIES (
//!     'delta.enableChangeDataFeed' = 'true',
//!     'delta.enableRowTracking' = 'true',
//!     'delta.enableDeletionVectors' = 'true'
//! );
//! ```

use crate::ddl_catalog::report_missing_property;
use crate::engine::{Context, Findings};

pub fn check(ctx: &Context, out: &mut Findings) {
    report_missing_property(
        ctx,
        out,
        "DQ406",
        "delta.enableDeletionVectors",
        true,
        true,
        "concurrent MERGEs fail with DELTA_CONCURRENT_APPEND",
    );
}
