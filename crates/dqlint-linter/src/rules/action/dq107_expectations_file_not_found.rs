//! ## What it does
//! Reports an `expectations_file` that does not exist. Paths resolve
//! against the project root (absolute paths are allowed); tokens are
//! resolved per environment. A path that only differs in letter case from
//! an existing one is named.
//!
//! ## Why is this bad?
//! In dqe mode only `lhp generate` notices (LHP-IO-001); on a
//! case-sensitive file system (Databricks, Linux CI) `Expectations/` is not
//! `expectations/`, even if it works on a laptop.
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
//!     expectations_file: expectations/orderz.yaml
//! ```
//!
//! `expectations/orders.yaml`:
//! ```yaml
//! order_id IS NOT NULL:
//!   action: drop
//!   name: valid_order_id
//! ```
//!
//! ## Example (good)
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
//! ## Fix
//! Correct the path, relative to the folder holding `lhp.yaml`.

use dqlint_project::{normalize_rel, Missing};

use crate::diagnostic::{Applicability, Diagnostic, Edit, Fix};
use crate::engine::{Context, Findings};
use crate::registry::rule;

pub fn check(ctx: &Context, out: &mut Findings) {
    let me = rule("DQ107");
    for (_, action) in ctx.dq_actions() {
        let Some(value) = action.get("expectations_file") else {
            continue;
        };
        let Some(raw) = value.as_str().filter(|s| !s.is_empty()) else {
            continue;
        };
        let tokenized = raw.contains('{');
        for env in &ctx.envs {
            let resolved = env.resolve(raw);
            if !resolved.unresolved.is_empty() || resolved.has_secret {
                continue;
            }
            let rel = normalize_rel(&resolved.text);
            // What the load found at the path: nothing to say of a file.
            let Some(missing) = ctx.project.missing_expectations.get(&rel) else {
                continue;
            };
            let mut d = match (not_a_file(missing), missing) {
                (Some(what), _) => Diagnostic::new(
                    me,
                    &value.origin,
                    format!("expectations file `{rel}` {what}"),
                ),
                (
                    None,
                    Missing::Absent {
                        case_match: Some(real),
                    },
                ) if *real != rel => {
                    let mut d = Diagnostic::new(me, &value.origin, format!(
                        "expectations file `{rel}` not found; `{real}` exists but differs in letter case (paths are case-sensitive on Databricks)"
                    ));
                    if !tokenized
                        && crate::text::source_text(ctx.project, &value.origin).contains(raw)
                    {
                        let raw_text = crate::text::source_text(ctx.project, &value.origin);
                        d = d.fix(Fix {
                            applicability: Applicability::Safe,
                            description: format!("use `{real}`"),
                            edits: vec![Edit {
                                file: value.origin.file,
                                span: value.origin.span.clone(),
                                new_text: raw_text.replacen(raw, real, 1),
                            }],
                        });
                    }
                    d
                }
                (None, _) => {
                    // The reminder helps with a relative path only.
                    let hint = if std::path::Path::new(&rel).is_absolute() {
                        ""
                    } else {
                        " (paths are relative to the project root)"
                    };
                    Diagnostic::new(
                        me,
                        &value.origin,
                        format!("expectations file `{rel}` not found{hint}"),
                    )
                }
            };
            if tokenized {
                d = d.env(&env.name);
            }
            out.push(d);
        }
    }
}

/// What is at the path when something is there but it is no file LHP can
/// read: a folder, a FIFO or socket or device, a symbolic link to nothing.
fn not_a_file(missing: &Missing) -> Option<String> {
    Some(match missing {
        Missing::Absent { .. } => return None,
        Missing::DanglingLink(target) => format!(
            "is a symbolic link to `{}`, which does not exist (or is a link loop)",
            target.display()
        ),
        Missing::LinkToFolder(target) => format!(
            "is a symbolic link to the folder `{}`, not a file",
            target.display()
        ),
        Missing::LinkToSpecial(target) => format!(
            "is a symbolic link to `{}`, which is not a regular file",
            target.display()
        ),
        Missing::Folder => "is a folder, not a file".into(),
        Missing::Special => {
            "is not a regular file (a FIFO, socket or device): LHP cannot read rules from it".into()
        }
    })
}
