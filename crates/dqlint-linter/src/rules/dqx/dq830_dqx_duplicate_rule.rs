//! ## What it does
//! Reports a check identical to an earlier one of the same file: the same
//! function, arguments (in any order), `for_each_column`, criticality and
//! filter. The earlier check is the related location.
//!
//! ## Why is this bad?
//! DQX runs both and reports every failing row twice in `_errors` or
//! `_warnings`; its semantic validation only logs it. Usually one copy was
//! meant to differ (another column, another limit).
//!
//! ## Example (bad)
//! `quality/orders_checks.yml`:
//! ```yaml
//! - criticality: error
//!   check:
//!     function: is_not_null
//!     arguments:
//!       column: order_id
//! - criticality: error
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
//!   check:
//!     function: is_not_null
//!     arguments:
//!       column: order_id
//! - criticality: error
//!   check:
//!     function: is_not_null
//!     arguments:
//!       column: customer_id
//! ```
//!
//! ## Fix
//! Remove the copy, or change what it was meant to check.

use std::collections::HashMap;
use std::hash::{Hash, Hasher};

use foldhash::fast::FixedState;

use dqlint_dqx::Typed;

use crate::diagnostic::Diagnostic;
use crate::engine::{Context, Findings};
use crate::registry::rule;
use crate::rules::dqx::{canonical, fast_hasher, fingerprint, CheckFields, ChecksFile};

/// What DQX compares two checks by, and where the function is named.
pub fn identity<'a>(fields: &CheckFields<'a>) -> Option<(String, &'a Typed)> {
    let function = fields.function?;
    let name = function.as_str()?;
    let part = |v: Option<&Typed>| v.map(canonical).unwrap_or_default();
    let criticality = fields
        .criticality
        .and_then(|c| c.as_str())
        .unwrap_or("error");
    Some((
        format!(
            "{name}|{}|{}|{criticality}|{}",
            part(fields.arguments),
            part(fields.for_each_column),
            part(fields.filter)
        ),
        function,
    ))
}

/// A hash of [`identity`]'s string, computed without writing it: equal
/// identities hash alike, so only checks whose hashes agree have their
/// identities written and compared.
fn identity_hash<'a>(fields: &CheckFields<'a>) -> Option<(u64, &'a Typed)> {
    let function = fields.function?;
    let name = function.as_str()?;
    let criticality = fields
        .criticality
        .and_then(|c| c.as_str())
        .unwrap_or("error");
    let mut hasher = fast_hasher();
    name.hash(&mut hasher);
    for part in [fields.arguments, fields.for_each_column, fields.filter] {
        part.map(fingerprint).hash(&mut hasher);
    }
    criticality.hash(&mut hasher);
    Some((hasher.finish(), function))
}

pub fn check(_ctx: &Context, file: &ChecksFile, out: &mut Findings) {
    let me = rule("DQ830");
    // identity hash -> the first checks with it (index, function span)
    let mut first: HashMap<u64, Vec<(usize, std::ops::Range<usize>)>, FixedState> =
        HashMap::default();
    for (index, (_, fields)) in file.checks().enumerate() {
        let Some((hash, function)) = identity_hash(&fields) else {
            continue;
        };
        let candidates = first.entry(hash).or_default();
        let same = (!candidates.is_empty())
            .then(|| identity(&fields).map(|(key, _)| key))
            .flatten()
            .and_then(|key| {
                candidates.iter().find(|(earlier, _)| {
                    identity(&file.fields(*earlier)).is_some_and(|(k, _)| k == key)
                })
            });
        match same {
            Some((earlier, at)) => out.push(
                Diagnostic::at(
                    me,
                    file.id(),
                    function.span.clone(),
                    format!(
                        "this check repeats check {} of this file (same function, arguments, criticality and filter): DQX reports each failing row twice",
                        earlier + 1
                    ),
                )
                .related(
                    &dqlint_project::Origin::new(file.id(), at.clone()),
                    "the same check, first written here",
                ),
            ),
            None => candidates.push((index, function.span.clone())),
        }
    }
}
