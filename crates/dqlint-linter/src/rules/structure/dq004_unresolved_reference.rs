//! ## What it does
//! Reports a reference LHP cannot resolve while building a flowgroup: a
//! `use_template` naming no `templates/<name>.yaml`, a required template
//! parameter left out of `template_parameters`, a preset that no
//! `presets/*.yaml` names, a cycle in preset `extends`, a preset file
//! without `name:`, and a `use_blueprint` naming no blueprint or giving it a
//! missing or unknown parameter.
//!
//! ## Why is this bad?
//! LHP stops on these (LHP-CFG-027, LHP-CFG-012, LHP-ACT-001, LHP-DEP-022,
//! LHP-VAL-041..043),
//! one at a time; and every action the template or preset should have
//! contributed is missing from what dqlint (and LHP) can check.
//!
//! ## Example (bad)
//! `pipelines/bronze/orders.yaml`:
//! ```yaml
//! pipeline: bronze
//! flowgroup: orders
//! use_template: bronze_dq_tempalte
//! template_parameters:
//!   entity: orders
//! actions:
//!   - name: load_orders
//!     type: load
//!     readMode: stream
//!     source:
//!       type: cloudfiles
//!       path: /Volumes/main/landing/orders
//!       format: json
//!     target: v_orders_raw
//! ```
//!
//! `templates/bronze_dq.yaml`:
//! ```yaml
//! name: bronze_dq
//! parameters:
//!   - name: entity
//!     required: true
//! actions:
//!   - name: "{{ entity }}_dq"
//!     type: transform
//!     transform_type: data_quality
//!     source: v_{{ entity }}_raw
//!     target: v_{{ entity }}
//!     expectations_file: expectations/{{ entity }}.yaml
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
//! use_template: bronze_dq
//! template_parameters:
//!   entity: orders
//! actions:
//!   - name: load_orders
//!     type: load
//!     readMode: stream
//!     source:
//!       type: cloudfiles
//!       path: /Volumes/main/landing/orders
//!       format: json
//!     target: v_orders_raw
//! ```
//!
//! ## Fix
//! Name an existing template (its file stem) or preset (its `name:`), and
//! pass every required parameter.

use dqlint_project::ProblemKind;

use crate::diagnostic::Diagnostic;
use crate::engine::{Context, Findings};
use crate::registry::rule;

const KINDS: [ProblemKind; 4] = [
    ProblemKind::TemplateNotFound,
    ProblemKind::TemplateParameterMissing,
    ProblemKind::PresetProblem,
    ProblemKind::BlueprintProblem,
];

pub fn check(ctx: &Context, out: &mut Findings) {
    let me = rule("DQ004");
    for p in ctx
        .project
        .all_problems()
        .filter(|p| KINDS.contains(&p.kind))
    {
        out.push(Diagnostic::new(me, &p.origin, p.message.clone()));
    }
}
