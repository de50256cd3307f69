//! ## What it does
//! Reports a `dqlint: ignore[...]` or `dqlint: ignore-file[...]` comment
//! that suppressed nothing: no finding of the listed rules on its line (or
//! in its file), a code that is not a dqlint rule, or a directive dqlint
//! cannot read (`ignore DQ207` without brackets, a missing `]`,
//! `ignore-file` below the file's first content).
//!
//! A listed rule that did not run (turned off by `--select`, `--ignore` or
//! `dqlint.toml`) is not reported, and nothing is reported when `--env`
//! checks only some of the project's environments: the finding may exist
//! in another one.
//!
//! ## Why is this bad?
//! A suppression outlives the mistake it was written for: once the
//! configuration is fixed, the comment silently hides the next real
//! finding on that line. A directive dqlint cannot read hides nothing,
//! while its author believes it does.
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
//!       source_table: main.bronze.orders
//! ```
//!
//! `expectations/orders.yaml`:
//! ```yaml
//! amount >= 0:
//!   action: drop  # dqlint: ignore[DQ207] kept as warn on purpose
//!   name: non_negative_amount
//! ```
//!
//! ## Example (good)
//! `expectations/orders.yaml`:
//! ```yaml
//! amount >= 0:
//!   action: warn  # dqlint: ignore[DQ207] kept as warn on purpose
//!   name: non_negative_amount
//! ```
//!
//! ## Fix
//! Remove the comment, or the unused codes from its list (the safe fix does
//! either). To keep a directive on purpose, add `DQ009` to its list.

use dqlint_project::SourceFile;

use crate::diagnostic::{Applicability, Diagnostic, Edit, Fix};
use crate::engine::{Context, Findings};
use crate::registry::{rule, RuleMeta, RULES};
use crate::suppression::{removal, Directive, Scope};

/// DQ009 reads the other rules' findings, not the model: the engine
/// reports it after suppressions are applied ([`unused`]).
pub fn check(_: &Context, _: &mut Findings) {}

/// Which parts of a directive suppressed something.
pub struct Usage {
    /// Per entry, in order.
    pub entries: Vec<bool>,
    /// A bare directive suppressed a finding.
    pub bare: bool,
}

/// The DQ009 finding for a directive, if any. `ran(rule)` says whether a
/// rule reported in this file (only those can leave a directive unused).
pub fn unused(
    file: &SourceFile,
    directive: &Directive,
    usage: &Usage,
    ran: impl Fn(&RuleMeta) -> bool,
) -> Option<Diagnostic> {
    let me = rule("DQ009");
    if let Some(problem) = &directive.problem {
        return Some(Diagnostic::at(
            me,
            file.id,
            directive.span.clone(),
            problem.clone(),
        ));
    }
    let place = match directive.scope {
        Scope::File => "in this file".to_string(),
        Scope::Line(line) => {
            let here = file.lines.line_of(directive.comment.start);
            if line == here {
                "on this line".to_string()
            } else {
                format!("on line {}", line + 1)
            }
        }
    };
    let remove_all = || Fix {
        applicability: Applicability::Safe,
        description: "remove the unused suppression".into(),
        edits: vec![Edit {
            file: file.id,
            span: removal(file, directive),
            new_text: String::new(),
        }],
    };
    if directive.is_bare() {
        // A bare directive may be there for any rule: only when every rule
        // ran can it be known to hide nothing.
        if usage.bare || !RULES.iter().all(|r| r.code == me.code || ran(r)) {
            return None;
        }
        let message = format!("unused suppression: no finding {place}");
        return Some(
            Diagnostic::at(me, file.id, directive.span.clone(), message).fix(remove_all()),
        );
    }
    let mut unknown = Vec::new();
    let mut unused = Vec::new();
    let mut keep = Vec::new();
    for (entry, used) in directive.entries.iter().zip(&usage.entries) {
        if !entry.is_known() {
            unknown.push(entry);
        } else if !used
            && !entry.names_unused_suppression()
            // A prefix may be there for any rule it covers: every one of
            // them must have run for it to be known unused.
            && RULES.iter().filter(|r| entry.covers(r)).all(&ran)
        {
            unused.push(entry);
        } else {
            keep.push(entry);
        }
    }
    if unknown.is_empty() && unused.is_empty() {
        return None;
    }
    let quote = |list: &[&crate::suppression::Entry]| {
        list.iter()
            .map(|e| format!("`{}`", e.text))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let mut parts = Vec::new();
    if !unused.is_empty() {
        parts.push(format!(
            "unused suppression of {}: no such finding {place}",
            quote(&unused)
        ));
    }
    if !unknown.is_empty() {
        let what = if unknown.len() == 1 {
            "is not a dqlint rule code, prefix or name"
        } else {
            "are not dqlint rule codes, prefixes or names"
        };
        parts.push(format!("{} {what} (see `dqlint rule`)", quote(&unknown)));
    }
    let reported: Vec<_> = unused.iter().chain(&unknown).collect();
    let span = if reported.len() == 1 && !keep.is_empty() {
        reported[0].span.clone()
    } else {
        directive.span.clone()
    };
    let fix = if keep.is_empty() {
        remove_all()
    } else {
        let list = directive.list.clone().unwrap_or(directive.span.clone());
        let kept: Vec<&str> = keep.iter().map(|e| e.text.as_str()).collect();
        Fix {
            applicability: Applicability::Safe,
            description: format!(
                "remove {} from the suppression",
                quote(&reported.iter().map(|e| **e).collect::<Vec<_>>())
            ),
            edits: vec![Edit {
                file: file.id,
                span: list,
                new_text: kept.join(", "),
            }],
        }
    };
    Some(Diagnostic::at(me, file.id, span, parts.join("; ")).fix(fix))
}
