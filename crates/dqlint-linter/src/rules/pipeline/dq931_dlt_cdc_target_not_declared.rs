//! ## What it does
//! Reports an AUTO CDC flow (`create_auto_cdc_flow`, `apply_changes`,
//! `AUTO CDC INTO`, `APPLY CHANGES INTO`) whose `target` no pipeline source
//! of the project declares as a streaming table
//! (`create_streaming_table(...)`, `CREATE STREAMING TABLE`). When some
//! pipeline source could not be fully read (a syntax error, a name that is
//! not a literal), the target may be declared there: the finding is a
//! warning instead of an error.
//!
//! ## Why is this bad?
//! AUTO CDC writes into an existing streaming table, it does not create
//! one: the pipeline fails at analysis with "table not found".
//!
//! ## Example (bad)
//! `pipelines/customers.sql`:
//! ```sql
//! CREATE FLOW customers_cdc AS AUTO CDC INTO customers
//! FROM STREAM(customers_raw)
//! KEYS (customer_id)
//! SEQUENCE BY updated_at
//! STORED AS SCD TYPE 1;
//! ```
//!
//! ## Example (good)
//! `pipelines/customers.sql`:
//! ```sql
//! CREATE OR REFRESH STREAMING TABLE customers;
//!
//! CREATE FLOW customers_cdc AS AUTO CDC INTO customers
//! FROM STREAM(customers_raw)
//! KEYS (customer_id)
//! SEQUENCE BY updated_at
//! STORED AS SCD TYPE 1;
//! ```
//!
//! ## Fix
//! Declare the target before the flow: `dp.create_streaming_table("t")`
//! in Python, `CREATE OR REFRESH STREAMING TABLE t;` in SQL. dqlint's fix
//! (safe) inserts that declaration before the first flow into the target.

use std::collections::HashSet;

use dqlint_pipeline::model::{DatasetKind, Named};
use dqlint_project::{FileKind, Origin};

use crate::diagnostic::{Applicability, Diagnostic, Edit, Fix, Severity};
use crate::engine::{Context, Findings};
use crate::registry::rule;
use crate::rules::pipeline::{sources, PipelineSource};

pub fn check(ctx: &Context, out: &mut Findings) {
    let me = rule("DQ931");
    let sources = sources(ctx);
    let mut declared = Declared::default();
    let mut fully_known = ctx
        .project
        .files
        .iter()
        .all(|f| !f.kind.is_pipeline() || f.read_error.is_none());
    for source in sources {
        fully_known &= source.model.syntax_errors.is_empty();
        for target in &source.model.declared_targets {
            fully_known &= name_is_known(source, target);
            declared.insert(normal(&target.name));
        }
        for dataset in &source.model.datasets {
            // A streaming table defined with a query can take flows too.
            if matches!(
                dataset.kind,
                DatasetKind::StreamingTable | DatasetKind::Table
            ) {
                fully_known &= name_is_known(source, &dataset.name);
                declared.insert(normal(&dataset.name.name));
            }
        }
    }
    let mut fixed: HashSet<String> = HashSet::new();
    for source in sources {
        for cdc in &source.model.auto_cdc {
            let Some(target) = &cdc.target else { continue };
            if !name_is_known(source, target) {
                continue;
            }
            let wanted = normal(&target.name);
            if declared.contains(&wanted) {
                continue;
            }
            let mut diagnostic = Diagnostic::new(
                me,
                &Origin::new(source.id(), target.span.clone()),
                format!(
                    "the AUTO CDC target `{}` is not declared as a streaming table in the \
                     pipeline sources{}: AUTO CDC writes into an existing streaming table, it \
                     does not create one",
                    target.name,
                    if fully_known {
                        ""
                    } else {
                        " that dqlint could read"
                    }
                ),
            );
            if !fully_known {
                diagnostic = diagnostic.severity(Severity::Warning);
            }
            if fixed.insert(wanted) {
                if let Some(fix) = declare(source, cdc.span.start, target) {
                    diagnostic = diagnostic.fix(fix);
                }
            }
            out.push(diagnostic);
        }
    }
}

/// Lower case, without backticks or a legacy `LIVE.` prefix.
fn normal(name: &str) -> String {
    let name = name.replace('`', "").to_ascii_lowercase();
    match name.strip_prefix("live.") {
        Some(rest) => rest.to_string(),
        None => name,
    }
}

/// The tables the sources declare, for lookups by name: qualified names
/// compare whole; an unqualified one by the last part.
#[derive(Default)]
struct Declared {
    qualified: HashSet<String>,
    unqualified: HashSet<String>,
    /// The last part of every declared name.
    lasts: HashSet<String>,
}

impl Declared {
    fn insert(&mut self, name: String) {
        self.lasts.insert(last_part(&name).to_string());
        if name.contains('.') {
            self.qualified.insert(name);
        } else {
            self.unqualified.insert(name);
        }
    }

    fn contains(&self, wanted: &str) -> bool {
        if wanted.contains('.') {
            self.qualified.contains(wanted) || self.unqualified.contains(last_part(wanted))
        } else {
            self.lasts.contains(wanted)
        }
    }
}

fn last_part(name: &str) -> &str {
    name.rsplit('.').next().unwrap_or("")
}

/// Whether a Python name was evaluated (a string, or a constant), rather
/// than kept as the expression's text; SQL names always are.
pub(crate) fn name_is_known(source: &PipelineSource, named: &Named) -> bool {
    if source.file.kind != FileKind::PipelinePython {
        return true;
    }
    let text = &*source.file.text;
    let Some(written) = text.get(named.span.clone()) else {
        return true;
    };
    if written != named.name {
        return true;
    }
    let before = &text[..named.span.start];
    before.ends_with(['"', '\'']) || before.ends_with("def ")
}

/// The declaration, inserted before the statement of the flow.
fn declare(source: &PipelineSource, flow_start: usize, target: &Named) -> Option<Fix> {
    let text = &*source.file.text;
    let (at, new_text) = match source.file.kind {
        FileKind::PipelineSql => {
            let written = text.get(target.span.clone())?;
            (
                flow_start,
                format!("CREATE OR REFRESH STREAMING TABLE {written};\n\n"),
            )
        }
        FileKind::PipelinePython => {
            if target.name.contains(['"', '\\', '\n']) {
                return None;
            }
            let line_start = text[..flow_start].rfind('\n').map_or(0, |i| i + 1);
            let indent = &text[line_start..flow_start];
            if !indent.chars().all(|c| c == ' ' || c == '\t') {
                return None;
            }
            let callee = &text[flow_start..];
            let callee = &callee[..callee.find('(')?];
            let (alias, _) = callee.rsplit_once('.')?;
            if alias.is_empty()
                || !alias
                    .chars()
                    .all(|c| c.is_alphanumeric() || c == '_' || c == '.')
            {
                return None;
            }
            (
                line_start,
                format!(
                    "{indent}{alias}.create_streaming_table(\"{}\")\n\n",
                    target.name
                ),
            )
        }
        _ => return None,
    };
    Some(Fix {
        applicability: Applicability::Safe,
        description: format!(
            "declare `{}` as a streaming table before the flow",
            target.name
        ),
        edits: vec![Edit {
            file: source.id(),
            span: at..at,
            new_text,
        }],
    })
}
