//! ## What it does
//! Reports a check item whose `name`, `filter`, `message_expr` or
//! `criticality` is not a string, or whose `user_metadata` is not a
//! mapping (its values may be anything). Values are typed as DQX reads
//! them: YAML 1.1, so an unquoted `name: no` is the boolean `false`.
//!
//! ## Why is this bad?
//! DQX's `validate_checks` rejects the check ("Input should be a valid
//! string").
//!
//! ## Example (bad)
//! `quality/orders_checks.yml`:
//! ```yaml
//! - criticality: error
//!   name: 2024
//!   check:
//!     function: is_not_null
//!     arguments:
//!       column: order_id
//! ```
//!
//! ## Example (good)
//! `quality/orders_checks.yml`:
//! ```yaml
//! - criticality: error
//!   name: "2024"
//!   check:
//!     function: is_not_null
//!     arguments:
//!       column: order_id
//! ```
//!
//! ## Fix
//! Quote the value, or write the mapping `user_metadata` expects.

use dqlint_dqx::Kind;

use crate::diagnostic::Diagnostic;
use crate::engine::{Context, Findings};
use crate::registry::rule;
use crate::rules::dqx::ChecksFile;

pub fn check(_ctx: &Context, file: &ChecksFile, out: &mut Findings) {
    let me = rule("DQ805");
    for (item, fields) in file.checks() {
        if item.as_map().is_none() {
            continue;
        }
        for (key, value) in [
            ("name", fields.name),
            ("filter", fields.filter),
            ("message_expr", fields.message_expr),
            ("criticality", fields.criticality),
        ] {
            let Some(value) = value else {
                continue;
            };
            // `str | None` fields take null; `criticality: str` does not.
            // In Python: a value known only at run time is not
            // judged, and `message_expr` takes a Column too.
            let ok = matches!(value.kind, Kind::Str(_))
                || (value.is_none() && key != "criticality")
                || value.is_unknown()
                || (key == "message_expr" && matches!(value.kind, Kind::Object(_)));
            if !ok {
                out.push(Diagnostic::at(
                    me,
                    file.id(),
                    value.span.clone(),
                    format!(
                        "`{key}` must be a string, but DQX reads {} here; it rejects the check",
                        value.described()
                    ),
                ));
            }
        }
        if let Some(meta) = fields.user_metadata {
            let ok = meta.is_none()
                || meta.is_unknown()
                || meta
                    .as_map()
                    .is_some_and(|m| m.iter().all(|e| e.key.as_str().is_some()));
            if !ok {
                out.push(Diagnostic::at(
                    me,
                    file.id(),
                    meta.span.clone(),
                    format!(
                        "`user_metadata` must be a mapping with string keys, not {}; DQX rejects the check",
                        meta.described()
                    ),
                ));
            }
        }
    }
}
