//! ## What it does
//! Reports a call of a function that is neither a Spark or Databricks SQL
//! built-in nor a UDF the project declares, with the closest built-in
//! (`lenght` -> `length`).
//!
//! The Spark list is generated from Spark's own
//! function registry (`SHOW SYSTEM FUNCTIONS` on pyspark 4.3.0; the data
//! and the command that regenerates it are in `crates/dqlint-sql/data/`);
//! the Databricks-only built-ins (`ai_*`, `h3_*`, `st_*`, `read_files`,
//! `getdate`, ...) are a separate list there, with its source. Only
//! one-part names (and `system.builtin.name`) are checked: a qualified
//! call (`main.tools.mask(x)`) names a Unity Catalog function dqlint cannot
//! see.
//!
//! ## Why is this bad?
//! Spark cannot resolve the routine (`UNRESOLVED_ROUTINE`): an LHP
//! pipeline fails when its update starts; a DQX check is skipped and every
//! row is quarantined.
//!
//! Functions the project registers itself (`spark.udf.register`, a
//! session function) are declared in `dqlint.toml`, and their calls are
//! not reported:
//!
//! ```toml
//! [sql]
//! udfs = ["is_valid_sku"]
//! ```
//!
//! ## Example (bad)
//! `pipelines/bronze/orders.yaml`:
//! ```yaml
//! pipeline: bronze
//! flowgroup: orders
//! actions:
//!   - name: load_orders
//!     type: load
//!     readMode: stream
//!     source:
//!       type: cloudfiles
//!       path: /Volumes/main/landing/orders
//!       format: json
//!     target: v_orders_raw
//!   - name: orders_dq
//!     type: transform
//!     transform_type: data_quality
//!     source: v_orders_raw
//!     target: v_orders
//!     expectations_file: expectations/orders.yaml
//! ```
//!
//! `expectations/orders.yaml`:
//! ```yaml
//! lenght(customer_name) > 0:
//!   action: drop
//!   name: customer_name_present
//! ```
//!
//! ## Example (good)
//! `expectations/orders.yaml`:
//! ```yaml
//! length(customer_name) > 0:
//!   action: drop
//!   name: customer_name_present
//! ```
//!
//! ## Fix
//! Call the built-in meant, or declare the UDF in `[sql] udfs`.

use dqlint_sql::expr::ExprFact;

use crate::engine::{Context, Findings};

pub fn check(ctx: &Context, out: &mut Findings) {
    super::report_expression_findings(ctx, out, "DQ306", ExprFact::UnknownFunction);
}
