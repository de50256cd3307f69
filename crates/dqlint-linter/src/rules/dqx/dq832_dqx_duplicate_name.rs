//! ## What it does
//! Reports two checks of one file with the same explicit `name`. The first
//! is the related location.
//!
//! ## Why is this bad?
//! DQX reports failures under the check's name in `_errors` and
//! `_warnings`: with two checks of one name, a failing row shows one entry
//! and nobody can tell which check it was. DQX says nothing.
//!
//! ## Example (bad)
//! `quality/orders_checks.yml`:
//! ```yaml
//! - criticality: error
//!   name: id_present
//!   check: {function: is_not_null, arguments: {column: order_id}}
//! - criticality: error
//!   name: id_present
//!   check: {function: is_not_null, arguments: {column: customer_id}}
//! ```
//!
//! ## Example (good)
//! `quality/orders_checks.yml`:
//! ```yaml
//! - criticality: error
//!   name: order_id_present
//!   check: {function: is_not_null, arguments: {column: order_id}}
//! - criticality: error
//!   name: customer_id_present
//!   check: {function: is_not_null, arguments: {column: customer_id}}
//! ```
//!
//! ## Fix
//! Give each check its own name (or none: DQX then derives one from the
//! function and column).

use std::collections::HashMap;

use crate::diagnostic::Diagnostic;
use crate::engine::{Context, Findings};
use crate::registry::rule;
use crate::rules::dqx::ChecksFile;

pub fn check(_ctx: &Context, file: &ChecksFile, out: &mut Findings) {
    let me = rule("DQ832");
    let mut first: HashMap<&str, std::ops::Range<usize>> = HashMap::new();
    for (_, fields) in file.checks() {
        let Some(name) = fields.name else {
            continue;
        };
        let Some(text) = name.as_str() else {
            continue;
        };
        match first.get(text) {
            Some(at) => out.push(
                Diagnostic::at(
                    me,
                    file.id(),
                    name.span.clone(),
                    format!(
                        "another check of this file is named `{text}`: DQX reports both under one name in `_errors`/`_warnings`"
                    ),
                )
                .related(
                    &dqlint_project::Origin::new(file.id(), at.clone()),
                    "the first check with this name",
                ),
            ),
            None => {
                first.insert(text, name.span.clone());
            }
        }
    }
}
