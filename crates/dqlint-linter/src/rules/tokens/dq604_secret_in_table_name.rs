//! ## What it does
//! Reports a `${secret:...}` reference inside `quarantine.dlq_table` or
//! `quarantine.source_table`.
//!
//! ## Why is this bad?
//! LHP turns it into a `dbutils.secrets.get` f-string: the DLQ name
//! is then unknown until run time, tables cannot be matched to their DDL,
//! and the secret value ends up in table names and logs.
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
//!     mode: quarantine
//!     quarantine:
//!       dlq_table: main.ops.dlq
//!       source_table: ${secret:ops/catalog}.bronze.orders
//! ```
//!
//! `expectations/orders.yaml`:
//! ```yaml
//! order_id IS NOT NULL:
//!   action: drop
//!   name: valid_order_id
//! ```
//!
//! ## Example (good)
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
//!     mode: quarantine
//!     quarantine:
//!       dlq_table: main.ops.dlq
//!       source_table: main.bronze.orders
//! ```
//!
//! ## Fix
//! Use a substitution token (`${catalog}`) instead of a secret.

use dqlint_project::TokenSyntax;

use crate::diagnostic::Diagnostic;
use crate::engine::{Context, Findings};
use crate::registry::rule;
use crate::tokens::str_tokens;

pub fn check(ctx: &Context, out: &mut Findings) {
    let me = rule("DQ604");
    for (_, action) in ctx.quarantine_actions() {
        let Some(block) = action.get("quarantine") else {
            continue;
        };
        for field in ["dlq_table", "source_table"] {
            let Some(value) = block.get(field) else {
                continue;
            };
            for found in str_tokens(value) {
                let token = &found.token;
                if token.syntax == TokenSyntax::Secret {
                    out.push(Diagnostic::new(
                        me,
                        &found.origin(ctx.project),
                        format!(
                            "`{field}` uses secret `{}`: table names must not come from secrets",
                            token.name
                        ),
                    ));
                }
            }
        }
    }
}
