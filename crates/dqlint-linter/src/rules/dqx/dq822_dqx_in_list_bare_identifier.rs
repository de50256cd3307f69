//! ## What it does
//! Reports an `allowed` or `forbidden` item of `is_in_list`,
//! `is_not_in_list` or `is_not_null_and_is_in_list` that is a bare name
//! (`US`, not `"'US'"`). With a table schema for the file in
//! `[dqx.schemas]` that lacks the column it is an error: the run crashes.
//!
//! ## Why is this bad?
//! Since DQX 0.16 each item is resolved like a comparison limit: a string
//! that is neither a number nor an ISO date is a SQL expression, so `US`
//! is the column `US`. The run crashes when there is no such column
//! (`UNRESOLVED_COLUMN`), or compares with the wrong column when there is.
//!
//! ## Example (bad)
//! `quality/orders_checks.yml`:
//! ```yaml
//! - criticality: error
//!   check:
//!     function: is_in_list
//!     arguments:
//!       column: country
//!       allowed: [US, CA]
//! ```
//!
//! ## Example (good)
//! `quality/orders_checks.yml`:
//! ```yaml
//! - criticality: error
//!   check:
//!     function: is_in_list
//!     arguments:
//!       column: country
//!       allowed: ["'US'", "'CA'"]
//! ```
//!
//! ## Fix
//! Quote the value as a SQL string literal. A safe fix rewrites `US` to
//! `"'US'"`.

use crate::diagnostic::{Applicability, Diagnostic, Edit, Fix};
use crate::engine::{Context, Findings};
use crate::registry::rule;
use crate::rules::dqx::{yaml_only_fix, ChecksFile};

const LIST_FUNCTIONS: &[&str] = &["is_in_list", "is_not_in_list", "is_not_null_and_is_in_list"];

/// A string DQX reads as a column name: neither digits (a number) nor an
/// ISO date (what `get_limit_expr` tries first), a plain SQL name.
fn is_bare_name(s: &str) -> bool {
    let mut chars = s.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

pub fn check(ctx: &Context, file: &ChecksFile, out: &mut Findings) {
    let me = rule("DQ822");
    for (_, fields) in file.checks() {
        let Some(function) = fields.function.and_then(|f| f.as_str()) else {
            continue;
        };
        if !LIST_FUNCTIONS.contains(&function) {
            continue;
        }
        let Some(args) = fields.arguments else {
            continue;
        };
        for key in ["allowed", "forbidden"] {
            let Some(values) = args.get(key).and_then(|v| v.as_list()) else {
                continue;
            };
            for value in values {
                let Some(text) = value.as_str() else { continue };
                if !is_bare_name(text) {
                    continue;
                }
                let schema = ctx.dqx.schema_for(&file.file.rel);
                let lacking =
                    schema.filter(|s| !s.columns.iter().any(|c| c.eq_ignore_ascii_case(text)));
                let message = match lacking {
                    Some(s) => format!(
                        "`{text}` in `{key}` is a column reference, not the string \
                         '{text}': DQX reads a bare string as a SQL expression, and the \
                         table has no column `{text}` (schema from `[dqx.schemas]` \"{}\"), \
                         so the run crashes; write \"'{text}'\"",
                        s.files
                    ),
                    None => format!(
                        "`{text}` in `{key}` is a column reference, not the string \
                         '{text}': DQX reads a bare string as a SQL expression, and the \
                         run crashes when there is no column `{text}`; write \"'{text}'\""
                    ),
                };
                let mut d = Diagnostic::at(me, file.id(), value.span.clone(), message);
                if lacking.is_some() {
                    d = d.severity(crate::diagnostic::Severity::Error);
                }
                out.push(yaml_only_fix(
                    file,
                    d.fix(Fix {
                        description: format!("Write the string literal \"'{text}'\""),
                        applicability: Applicability::Safe,
                        edits: vec![Edit {
                            file: file.id(),
                            span: value.span.clone(),
                            new_text: format!("\"'{text}'\""),
                        }],
                    }),
                ));
            }
        }
    }
}
