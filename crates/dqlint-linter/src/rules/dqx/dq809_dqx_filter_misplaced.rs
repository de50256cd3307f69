//! ## What it does
//! Reports a `filter` written inside a check's `check:` block or inside its
//! `arguments:` instead of on the check item itself.
//!
//! ## Why is this bad?
//! DQX reads a check's filter only from the item. Inside `check:` it is
//! ignored without a word, so the rule applies to **every** row, not only
//! the rows the filter selects: rows the check was never meant for land in
//! the quarantine (a warning). Inside `arguments:` it is an argument the
//! function does not have, and `validate_checks` rejects the check (an
//! error).
//!
//! ## Example (bad)
//! `quality/orders_checks.yml`:
//! ```yaml
//! - criticality: error
//!   check:
//!     function: is_not_null
//!     filter: country = 'US'
//!     arguments:
//!       column: state
//! ```
//!
//! ## Example (good)
//! `quality/orders_checks.yml`:
//! ```yaml
//! - criticality: error
//!   filter: country = 'US'
//!   check:
//!     function: is_not_null
//!     arguments:
//!       column: state
//! ```
//!
//! ## Fix
//! Move the filter onto the item. A safe fix does so when the item has no
//! filter of its own; when it has one, an unsafe fix combines both with
//! `AND` (the check then applies to fewer rows than either filter alone).

use dqlint_dqx::{Entry, Typed};

use crate::diagnostic::{Applicability, Diagnostic, Edit, Fix, Severity};
use crate::engine::{Context, Findings};
use crate::registry::rule;
use crate::rules::dqx::{insert_before_key, own_lines, yaml_only_fix, ChecksFile};

pub fn check(_ctx: &Context, file: &ChecksFile, out: &mut Findings) {
    let me = rule("DQ809");
    let text = &file.file.text;
    for (item, fields) in file.checks() {
        let (Some(item_entries), Some(check)) = (item.as_map(), fields.check) else {
            continue;
        };
        let Some(block) = check.as_map() else {
            continue;
        };
        let function = fields
            .function
            .and_then(|f| f.as_str())
            .unwrap_or("the function");
        let mut places: Vec<(&Entry, &[Entry], bool)> = Vec::new();
        places.extend(
            block
                .iter()
                .filter(|e| e.key.as_str() == Some("filter"))
                .map(|e| (e, block, false)),
        );
        if let Some(arguments) = fields.arguments.and_then(|a| a.as_map()) {
            places.extend(
                arguments
                    .iter()
                    .filter(|e| e.key.as_str() == Some("filter"))
                    .map(|e| (e, arguments, true)),
            );
        }
        for (entry, siblings, in_arguments) in places {
            let shown = entry.value.as_str().unwrap_or("...");
            let mut d = if in_arguments {
                Diagnostic::at(
                    me,
                    file.id(),
                    entry.key.span.clone(),
                    format!(
                        "`filter` is not an argument of `{function}`: DQX rejects the check; a check's filter belongs on the item, beside `criticality`"
                    ),
                )
                .severity(Severity::Error)
            } else {
                Diagnostic::at(
                    me,
                    file.id(),
                    entry.key.span.clone(),
                    format!(
                        "DQX ignores a `filter` inside `check:`: the rule applies to every row, not only where `{shown}`; put it on the item, beside `criticality`"
                    ),
                )
            };
            // An `arguments:` left empty by the move would be null.
            if !(in_arguments && siblings.len() == 1) {
                if let Some(fix) = move_to_item(file.id(), text, item_entries, entry) {
                    d = d.fix(fix);
                }
            }
            out.push(yaml_only_fix(file, d));
        }
    }
}

/// The edits that take `nested` (a one-line `filter: ...` entry) out of its
/// block and put it on the item, or combine it with the item's filter.
fn move_to_item(
    file: dqlint_project::FileId,
    text: &str,
    item: &[Entry],
    nested: &Entry,
) -> Option<Fix> {
    let nested_text = nested.value.as_str()?;
    if text[nested.key.span.start..nested.value.span.end].contains('\n') {
        return None;
    }
    let remove = Edit {
        file,
        span: own_lines(text, nested.key.span.start..nested.value.span.end)?,
        new_text: String::new(),
    };
    let existing: Option<&Typed> = item
        .iter()
        .find(|e| e.key.as_str() == Some("filter"))
        .map(|e| &e.value);
    match existing {
        None => {
            let check_key = item.iter().find(|e| e.key.as_str() == Some("check"))?;
            let value = &text[nested.value.span.clone()];
            let (at, new_text) =
                insert_before_key(text, check_key.key.span.start, &format!("filter: {value}"))?;
            Some(Fix {
                description: "Move the filter onto the check item".into(),
                applicability: Applicability::Safe,
                edits: vec![
                    Edit {
                        file,
                        span: at..at,
                        new_text,
                    },
                    remove,
                ],
            })
        }
        Some(own) => {
            let own_text = own.as_str()?;
            let combined = format!("({own_text}) AND ({nested_text})");
            Some(Fix {
                description: "Combine it with the item's filter (AND)".into(),
                applicability: Applicability::Unsafe,
                edits: vec![
                    Edit {
                        file,
                        span: own.span.clone(),
                        new_text: double_quoted(&combined),
                    },
                    remove,
                ],
            })
        }
    }
}

/// `text` as a YAML double-quoted scalar.
fn double_quoted(text: &str) -> String {
    let mut out = String::from("\"");
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}
