//! ## What it does
//! Reports an unquoted value that YAML 1.1, which DQX reads its checks
//! files with (PyYAML), types differently from YAML 1.2, which most editors,
//! formatters and other tools use: `yes`/`no`/`on`/`off` (booleans in 1.1),
//! bare dates (`2024-01-01`), `1:30` (the integer 90), `0777` (octal), in a
//! place where DQX accepts the 1.1 value, so nothing fails: an argument
//! whose type takes it, or a `user_metadata` value.
//!
//! Underscored numbers (`1_000`) for a numeric parameter and bare dates
//! for a parameter that takes a date (`min_limit: 2025-01-01`) are left
//! alone: DQX reads the value that was meant.
//!
//! ## Why is this bad?
//! The check silently does something else than it reads: `owner: no` in
//! `user_metadata` is the boolean `false`, `allowed: [on, off]` compares
//! with booleans, `max_limit: 0777` is 511.
//!
//! ## Example (bad)
//! `quality/orders_checks.yml`:
//! ```yaml
//! - criticality: warn
//!   check:
//!     function: is_not_null
//!     arguments:
//!       column: order_id
//!   user_metadata:
//!     country: NO
//! ```
//!
//! ## Example (good)
//! `quality/orders_checks.yml`:
//! ```yaml
//! - criticality: warn
//!   check:
//!     function: is_not_null
//!     arguments:
//!       column: order_id
//!   user_metadata:
//!     country: "NO"
//! ```
//!
//! ## Fix
//! Quote the value if the text is meant; write `false`, `511` or the
//! number you meant otherwise. A safe fix quotes it where a string is
//! accepted (a `user_metadata` value, an argument that takes a string).

use dqlint_dqx::{Kind, Typed};

use crate::diagnostic::{Applicability, Diagnostic, Edit, Fix};
use crate::engine::{Context, Findings};
use crate::registry::rule;
use crate::rules::dqx::ChecksFile;

pub fn check(ctx: &Context, file: &ChecksFile, out: &mut Findings) {
    let me = rule("DQ815");
    if file.is_python() {
        return;
    }
    let text = &file.file.text;
    let mut report = |value: &Typed, quotable: bool, numeric: bool, dated: bool| {
        let Some(src) = text.get(value.span.clone()) else {
            return;
        };
        if !value.plain || !dqlint_dqx::yaml11::differs_from_yaml12(src) {
            return;
        }
        // A bare date where a date is taken is what was meant.
        if dated && matches!(value.kind, Kind::Date(_) | Kind::DateTime(..)) {
            return;
        }
        if numeric
            && matches!(value.kind, Kind::Int(_) | Kind::Float(_))
            && !src.contains(':')
            && !src.trim_start_matches(['-', '+']).starts_with('0')
        {
            return;
        }
        let mut d = Diagnostic::at(
            me,
            file.id(),
            value.span.clone(),
            format!(
                "DQX reads the unquoted `{src}` as YAML 1.1 does, {} {}, not the text other YAML tools show",
                value.described(),
                value.shown()
            ),
        );
        if quotable {
            d = d.fix(Fix {
                description: format!("Quote `{src}`"),
                applicability: Applicability::Safe,
                edits: vec![Edit {
                    file: file.id(),
                    span: value.span.clone(),
                    new_text: format!("\"{src}\""),
                }],
            });
        }
        out.push(d);
    };
    for index in 0..file.items().len() {
        let fields = file.fields(index);
        if let Some(metadata) = fields.user_metadata.and_then(|m| m.as_map()) {
            for entry in metadata {
                scalars(&entry.value, &mut |v, top| report(v, top, false, false));
            }
        }
        let Some(check) = file.resolved(ctx, index) else {
            continue;
        };
        for entry in check.arguments {
            // Most arguments hold no unquoted scalar that YAML 1.1 reads
            // otherwise: their parameter's type is not looked at.
            let mut surprising = false;
            scalars(&entry.value, &mut |v, _| {
                surprising |= v.plain
                    && text
                        .get(v.span.clone())
                        .is_some_and(dqlint_dqx::yaml11::differs_from_yaml12);
            });
            if !surprising {
                continue;
            }
            let Some(param) = entry.key.as_str().and_then(|n| check.function.param(n)) else {
                continue;
            };
            // DQX rejects what its type does not take (DQ813, DQ814).
            if !param.ty.strict_accepts(&entry.value) {
                continue;
            }
            let numeric = param.ty.is_int()
                || param
                    .ty
                    .members()
                    .iter()
                    .any(|m| matches!(m, dqlint_dqx::ParamType::Float));
            let dated = param.ty.members().iter().any(|m| {
                matches!(
                    m,
                    dqlint_dqx::ParamType::Date | dqlint_dqx::ParamType::DateTime
                )
            });
            let takes_str = param.ty.accepts_str();
            scalars(&entry.value, &mut |v, top| {
                report(v, top && takes_str, numeric, dated)
            });
        }
    }
}

/// Every scalar of `value`, with whether it is `value` itself (not an item
/// of a list or mapping inside it).
fn scalars(value: &Typed, each: &mut dyn FnMut(&Typed, bool)) {
    fn walk(value: &Typed, top: bool, each: &mut dyn FnMut(&Typed, bool)) {
        match &value.kind {
            Kind::List(items) => items.iter().for_each(|i| walk(i, false, each)),
            Kind::Map(entries) => entries.iter().for_each(|e| walk(&e.value, false, each)),
            _ => each(value, top),
        }
    }
    walk(value, true, each);
}
