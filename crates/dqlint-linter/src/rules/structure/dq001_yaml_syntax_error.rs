//! ## What it does
//! Reports a YAML or JSON file (or one `---` document of it) that does not
//! parse, at the first broken spot, and a file that cannot be read at all
//! (binary, not UTF-8, unreadable, too large). In pipeline sources, each
//! Python syntax error and each SQL pipeline statement that cannot be read
//! is reported; the rest of the file is still checked.
//!
//! ## Why is this bad?
//! LHP stops the whole run at the first YAML error (LHP-CFG-009). dqlint
//! keeps linting the other documents and files, and recovers what it can
//! of the broken document, so you see everything at once.
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
//! ```
//!
//! `expectations/orders.yaml`:
//! ```yaml
//! order_id IS NOT NULL:
//!   action: drop
//!   name: valid_order_id
//! amount >= 0
//!   action: drop
//!   name: non_negative_amount
//! ```
//!
//! ## Example (good)
//! `expectations/orders.yaml`:
//! ```yaml
//! order_id IS NOT NULL:
//!   action: drop
//!   name: valid_order_id
//! amount >= 0:
//!   action: drop
//!   name: non_negative_amount
//! ```
//!
//! ## Fix
//! Repair the syntax the message names (here the missing `:` after
//! `amount >= 0`).

use dqlint_project::FileKind;

use crate::diagnostic::Diagnostic;
use crate::engine::{Context, Findings};
use crate::registry::rule;

pub fn check(ctx: &Context, out: &mut Findings) {
    let me = rule("DQ001");
    for file in &ctx.project.files {
        if let Some(reason) = &file.read_error {
            let what = match file.kind {
                FileKind::Sql | FileKind::PipelineSql => "SQL file",
                FileKind::PipelinePython => "Python file",
                _ => "file",
            };
            // At the end of the text read: the first bad byte of a file
            // that is not UTF-8, else the start.
            let at = file.text.len();
            out.push(Diagnostic::at(
                me,
                file.id,
                at..at,
                format!("this {what} was not linted: {reason}"),
            ));
            continue;
        }
        for error in file.yaml.iter().flat_map(|y| y.errors.iter()) {
            out.push(Diagnostic::at(
                me,
                file.id,
                error.span.clone(),
                error.message.clone(),
            ));
        }
    }
    for source in crate::rules::pipeline::sources(ctx) {
        for (span, message) in &source.model.syntax_errors {
            out.push(Diagnostic::at(
                me,
                source.id(),
                span.clone(),
                message.clone(),
            ));
        }
    }
    if let Some(lhp) = ctx.project.project_config() {
        for (path, reason) in &ctx.project.walk_errors {
            out.push(Diagnostic::at(
                me,
                lhp.id,
                0..0,
                format!(
                    "`{}`: {reason}",
                    path.strip_prefix(&ctx.project.root)
                        .unwrap_or(path)
                        .to_string_lossy()
                        .replace('\\', "/")
                ),
            ));
        }
    }
}
