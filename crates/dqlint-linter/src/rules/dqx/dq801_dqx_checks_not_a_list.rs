//! ## What it does
//! Reports a checks file whose top level is a mapping or a scalar instead
//! of a list of checks. Such a file is one a run config names as its
//! `checks_location` (files found by their content are lists already). An
//! empty or comment-only file is a valid empty list.
//!
//! ## Why is this bad?
//! DQX reads the checks file as a list of checks: `validate_checks`
//! rejects a mapping with one confusing message per key, and the run
//! configured with it fails.
//!
//! ## Example (bad)
//! `.dqx/config.yml`:
//! ```yaml
//! run_configs:
//!   - name: orders
//!     checks_location: orders_checks.yml
//! ```
//! `.dqx/orders_checks.yml`:
//! ```yaml
//! checks:
//!   - criticality: error
//!     check:
//!       function: is_not_null
//!       arguments:
//!         column: order_id
//! ```
//!
//! ## Example (good)
//! `.dqx/orders_checks.yml`:
//! ```yaml
//! - criticality: error
//!   check:
//!     function: is_not_null
//!     arguments:
//!       column: order_id
//! ```
//!
//! ## Fix
//! Make the checks the top-level list. When the mapping has one key that
//! holds a list, a safe fix unwraps it (removes the key and dedents the
//! list).

use dqlint_dqx::{Kind, Typed};

use crate::diagnostic::{Applicability, Diagnostic, Edit, Fix};
use crate::engine::{Context, Findings};
use crate::registry::rule;
use crate::rules::dqx::ChecksFile;

pub fn check(_ctx: &Context, file: &ChecksFile, out: &mut Findings) {
    let me = rule("DQ801");
    if file.is_python() {
        return;
    }
    let Some(root) = file.loaded.root.as_ref() else {
        return;
    };
    if matches!(root.kind, Kind::List(_) | Kind::None) {
        return;
    }
    let span = match root.as_map().and_then(|e| e.first()) {
        Some(first) => first.key.span.clone(),
        None => root.span.clone(),
    };
    let mut d = Diagnostic::at(
        me,
        file.id(),
        span,
        format!(
            "a DQX checks file is a list of checks; this one is {}, which DQX rejects",
            root.described()
        ),
    );
    if let Some(fix) = unwrap_fix(&file.file.text, root) {
        d = d.fix(Fix {
            description: "Make the list under the only key the top level".into(),
            applicability: Applicability::Safe,
            edits: vec![Edit {
                file: file.id(),
                span: root.span.clone(),
                new_text: fix,
            }],
        });
    }
    out.push(d);
}

/// The mapping's only value, a non-empty list of mappings, as the new
/// top level: its lines dedented to the list's column. `None` when a
/// comment sits between the key and the list (it would be lost).
fn unwrap_fix(text: &str, root: &Typed) -> Option<String> {
    let [only] = root.as_map()? else {
        return None;
    };
    let items = only.value.as_list()?;
    if items.is_empty() || items.iter().any(|i| i.as_map().is_none()) {
        return None;
    }
    let between = text.get(only.key.span.end..only.value.span.start)?;
    if between.contains('#') {
        return None;
    }
    let value = text.get(only.value.span.clone())?;
    let line_start = text[..only.value.span.start]
        .rfind('\n')
        .map_or(0, |i| i + 1);
    let column = text[line_start..only.value.span.start].chars().count();
    let mut out = String::new();
    for (i, line) in value.split_inclusive('\n').enumerate() {
        if i == 0 {
            out.push_str(line);
            continue;
        }
        let indent = line.len() - line.trim_start_matches(' ').len();
        out.push_str(&line[indent.min(column)..]);
    }
    Some(out)
}
