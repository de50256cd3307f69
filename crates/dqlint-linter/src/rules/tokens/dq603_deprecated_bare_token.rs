//! ## What it does
//! Reports a bare `{token}` that LHP substitutes (the token is defined)
//! instead of `${token}`.
//!
//! ## Why is this bad?
//! The bare syntax is deprecated (LHP-DEPR-001) and ambiguous: any `{word}`
//! in a string, a regex quantifier included, is taken for a token.
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
//!       dlq_table: "{catalog}.ops.dlq"
//!       source_table: ${catalog}.bronze.orders
//! ```
//!
//! `expectations/orders.yaml`:
//! ```yaml
//! order_id IS NOT NULL:
//!   action: drop
//!   name: valid_order_id
//! ```
//!
//! `substitutions/dev.yaml`:
//! ```yaml
//! dev:
//!   catalog: main
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
//!       dlq_table: ${catalog}.ops.dlq
//!       source_table: ${catalog}.bronze.orders
//! ```
//!
//! ## Fix
//! Write `${catalog}` (the quick fix inserts the `$`).

use dqlint_project::TokenSyntax;

use crate::diagnostic::{Applicability, Diagnostic, Edit, Fix};
use crate::engine::{Context, Findings};
use crate::registry::rule;
use crate::tokens::braced_strings;

pub fn check(ctx: &Context, out: &mut Findings) {
    let me = rule("DQ603");
    let envs: Vec<_> = ctx.envs.iter().filter(|e| e.file.is_some()).collect();
    for strings in braced_strings(ctx) {
        for string in strings {
            for found in &string.tokens {
                let token = &found.token;
                if token.syntax != TokenSyntax::Bare
                    || !envs.iter().any(|e| e.has_token(&token.name))
                {
                    continue;
                }
                let at = found.origin(ctx.project);
                let exact =
                    crate::text::source_text(ctx.project, &at) == format!("{{{}}}", token.name);
                let mut d = Diagnostic::new(
                    me,
                    &at,
                    format!(
                        "bare `{{{0}}}` is deprecated (LHP-DEPR-001); write `${{{0}}}`",
                        token.name
                    ),
                );
                if exact {
                    d = d.fix(Fix {
                        applicability: Applicability::Safe,
                        description: format!("write `${{{}}}`", token.name),
                        edits: vec![Edit {
                            file: at.file,
                            span: at.span.start..at.span.start,
                            new_text: "$".into(),
                        }],
                    });
                }
                out.push(d);
            }
        }
    }
}
