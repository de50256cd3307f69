//! ## What it does
//! Reports a DLQ inbox or outbox whose DDL (the `CREATE TABLE` plus any
//! later `ALTER TABLE ... SET/UNSET TBLPROPERTIES`) does not set
//! `'delta.enableRowTracking' = 'true'`.
//!
//! ## Why is this bad?
//! LHP's DLQ contract requires row tracking on both tables: the MERGEs of
//! the quarantine and recycle sinks and the outbox read rely on stable row
//! identities.
//!
//! ## Example
//! ```sql
//! CREATE TABLE IF NOT EXISTS main.ops.dlq_outbox ( ... );
//! ```
//!
//! ## Fix
//! Add the property to the `TBLPROPERTIES` list (the quick fix does).
//!
//! ## Valid
//! ```sql
//! CREATE TABLE IF NOT EXISTS main.ops.dlq_outbox ( ... )
//! TBLPROPERTIES ('delta.enableRowTracking' = 'true');
//! ```

use crate::ddl_catalog::report_missing_property;
use crate::engine::{Context, Findings};

pub fn check(ctx: &Context, out: &mut Findings) {
    report_missing_property(
        ctx,
        out,
        "DQ405",
        "delta.enableRowTracking",
        true,
        false,
        "LHP's DLQ contract requires row tracking",
    );
}
