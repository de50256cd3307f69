//! ## What it does
//! Reports a DLQ inbox whose DDL (the `CREATE TABLE` plus any later
//! `ALTER TABLE ... SET/UNSET TBLPROPERTIES`) does not set
//! `'delta.enableChangeDataFeed' = 'true'`.
//!
//! ## Why is this bad?
//! The recycle flow reads the inbox's change data feed to pick up rows
//! marked `fixed`: without CDF the pipeline fails at runtime.
//!
//! ## Example
//! ```sql
//! CREATE TABLE IF NOT EXISTS main.ops.dlq ( ... )
//! TBLPROPERTIES ('delta.enableRowTracking' = 'true');
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
//!     'delta.enableRowTracking' = 'true'
//! );
//! ```

use crate::ddl_catalog::report_missing_property;
use crate::engine::{Context, Findings};

pub fn check(ctx: &Context, out: &mut Findings) {
    report_missing_property(
        ctx,
        out,
        "DQ404",
        "delta.enableChangeDataFeed",
        false,
        false,
        "the recycle flow reads its change data feed and fails at runtime",
    );
}
