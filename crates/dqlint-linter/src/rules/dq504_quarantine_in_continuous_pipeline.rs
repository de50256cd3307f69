//! ## What it does
//! Reports a quarantine action in a pipeline that `config/pipeline_config.yaml`
//! makes `continuous: true` (directly or through `project_defaults`).
//!
//! ## Why is this bad?
//! Quarantine mode requires a triggered pipeline: its DLQ MERGE and recycle
//! flows are built for batch-triggered updates. LHP's docs say so but
//! nothing checks it.
//!
//! ## Example
//! ```yaml
//! # config/pipeline_config.yaml
//! pipeline: bronze
//! continuous: true
//! ```
//!
//! ## Fix
//! Run the pipeline triggered (`continuous: false`), or use `mode: dqe`.
//!
//! ## Valid
//! ```yaml
//! pipeline: bronze
//! continuous: false
//! ```

use crate::diagnostic::Diagnostic;
use crate::engine::{origin_of, Context, Findings};
use crate::registry::rule;

pub fn check(ctx: &Context, out: &mut Findings) {
    let me = rule("DQ504");
    for (fg, action) in ctx.quarantine_actions() {
        let Some(pipeline) = fg.pipeline.as_deref() else { continue };
        let Some(setting) = ctx.project.pipeline_config.continuous_for(pipeline) else { continue };
        out.push(
            Diagnostic::new(me, &origin_of(action, "mode"), format!(
                "action `{}` uses quarantine mode, but pipeline `{pipeline}` is `continuous: true`; quarantine needs a triggered pipeline",
                action.name().unwrap_or("?")
            ))
            .related(setting, "the pipeline is made continuous here"),
        );
    }
}
