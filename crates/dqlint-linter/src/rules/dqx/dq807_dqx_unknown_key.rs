//! ## What it does
//! Reports keys of a check item other than `check`, `criticality`, `name`,
//! `filter`, `user_metadata`, `message_expr` (and the storage keys of
//! DQ808), and keys of a `check:` block other than `function`,
//! `arguments`, `for_each_column`, with a did-you-mean.
//!
//! ## Why is this bad?
//! DQX ignores unknown keys silently: a misspelt `criticallity: warn`
//! leaves the check at `error`, a `filtr:` applies the check to every row.
//!
//! ## Example (bad)
//! `quality/orders_checks.yml`:
//! ```yaml
//! - criticallity: warn
//!   check:
//!     function: is_not_null
//!     arguments:
//!       column: order_id
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
//! ```
//!
//! ## Fix
//! Correct the key; a safe fix renames it when the key it means is absent.

use crate::diagnostic::{Applicability, Diagnostic, Edit, Fix};
use crate::engine::{Context, Findings};
use crate::registry::rule;
use crate::rules::dqx::{closest, ChecksFile};

pub fn check(_ctx: &Context, file: &ChecksFile, out: &mut Findings) {
    let me = rule("DQ807");
    if let Some(api) = &file.python {
        // Python: pydantic forbids extra fields, the rule is not built.
        for check in &api.checks {
            for (key, span) in &check.unknown_keywords {
                let fields = [
                    "check_func",
                    "name",
                    "criticality",
                    "column",
                    "columns",
                    "filter",
                    "check_func_args",
                    "check_func_kwargs",
                    "user_metadata",
                    "message_expr",
                ];
                let meant = match key.as_str() {
                    "col_name" | "col" => Some("column"),
                    "col_names" | "cols" => Some("columns"),
                    "metadata" => Some("user_metadata"),
                    "kwargs" | "arguments" => Some("check_func_kwargs"),
                    _ => closest(key, fields.iter().copied()),
                };
                out.push(Diagnostic::at(
                    me,
                    file.id(),
                    span.clone(),
                    format!(
                        "`{}` has no field `{key}`{}: pydantic refuses it and the rule cannot be built (InvalidCheckError: Extra inputs are not permitted)",
                        check.class.name(),
                        meant
                            .map(|m| format!(" (did you mean `{m}`?)"))
                            .unwrap_or_default()
                    ),
                ));
            }
        }
        return;
    }
    for (item, fields) in file.checks() {
        let Some(entries) = item.as_map() else {
            continue;
        };
        // The flat form is DQ803's.
        let check = fields.check;
        let flat = check.is_none();
        let mut blocks = vec![(entries, dqlint_dqx::ITEM_KEYS, "check item")];
        if let Some(block) = check.and_then(|c| c.as_map()) {
            blocks.push((block, dqlint_dqx::CHECK_KEYS, "`check` block"));
        }
        for (entries, known, what) in blocks {
            for entry in entries {
                let Some(key) = entry.key.as_str() else {
                    continue;
                };
                if known.contains(&key)
                    || dqlint_dqx::STORAGE_KEYS.contains(&key)
                    || (flat && dqlint_dqx::CHECK_KEYS.contains(&key))
                    // A misplaced `filter` in `check:` is DQ809's.
                    || (key == "filter" && what != "check item")
                {
                    continue;
                }
                let meant = match key {
                    "metadata" => Some("user_metadata"),
                    "argument" | "args" => Some("arguments"),
                    _ => closest(key, known.iter().copied()),
                };
                let mut d = Diagnostic::at(
                    me,
                    file.id(),
                    entry.key.span.clone(),
                    format!(
                        "DQX ignores the unknown key `{key}` of a {what}{}",
                        meant
                            .map(|m| format!(" (did you mean `{m}`?)"))
                            .unwrap_or_default()
                    ),
                );
                if let Some(m) =
                    meant.filter(|m| !entries.iter().any(|e| e.key.as_str() == Some(m)))
                {
                    d = d.fix(Fix {
                        applicability: Applicability::Safe,
                        description: format!("Rename `{key}` to `{m}`"),
                        edits: vec![Edit {
                            file: file.id(),
                            span: entry.key.span.clone(),
                            new_text: m.to_string(),
                        }],
                    });
                }
                out.push(d);
            }
        }
    }
}
