//! ## What it does
//! Reports a preset that sets `transform_actions.data_quality` fields, or a
//! nested `defaults` block: LHP never applies either.
//!
//! ## Why is this bad?
//! LHP's docs suggest setting the shared `dlq_table` in a preset, but
//! transform presets only fill keys "not already present" on a model dump
//! in which every field is present: they never apply. The
//! actions silently run without the settings you see in the preset.
//!
//! ## Example (bad)
//! `pipelines/bronze/orders.yaml`:
//! ```yaml
//! pipeline: bronze
//! flowgroup: orders
//! presets:
//!   - bronze_quarantine
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
//! `presets/bronze_quarantine.yaml`:
//! ```yaml
//! name: bronze_quarantine
//! defaults:
//!   transform_actions:
//!     data_quality:
//!       mode: quarantine
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
//! `presets/bronze_quarantine.yaml`:
//! ```yaml
//! name: bronze_quarantine
//! defaults:
//!   write_actions:
//!     streaming_table:
//!       table_properties:
//!         delta.enableChangeDataFeed: "true"
//! ```
//!
//! ## Fix
//! Set these fields on each action, or in a template.

use dqlint_project::FileKind;

use crate::diagnostic::Diagnostic;
use crate::engine::{Context, Findings};
use crate::registry::rule;

pub fn check(ctx: &Context, out: &mut Findings) {
    let me = rule("DQ109");
    for file in ctx
        .project
        .files
        .iter()
        .filter(|f| f.kind == FileKind::Preset)
    {
        let Some(root) = file.first_document() else {
            continue;
        };
        let Some(defaults) = root.get("defaults") else {
            continue;
        };
        let preset = root.get_str("name").unwrap_or("?").to_string();
        let users: Vec<_> = ctx
            .project
            .flowgroups
            .iter()
            .filter_map(|fg| {
                fg.presets
                    .iter()
                    .find(|(n, _)| *n == preset)
                    .map(|(_, site)| (fg, site))
            })
            .take(5)
            .collect();
        let mut report = |at: &dqlint_project::Origin, message: String| {
            let mut d = Diagnostic::new(me, at, message);
            for (fg, site) in &users {
                d = d.related(
                    site,
                    format!(
                        "preset used by flowgroup `{}`",
                        fg.name.as_deref().unwrap_or("?")
                    ),
                );
            }
            out.push(d);
        };
        if let Some(entry) = defaults
            .get("transform_actions")
            .and_then(|t| t.entry("data_quality"))
        {
            if entry.value.as_map().is_some_and(|m| !m.is_empty()) {
                let keys: Vec<String> = entry
                    .value
                    .as_map()
                    .unwrap()
                    .iter()
                    .map(|e| format!("`{}`", e.key))
                    .collect();
                report(&entry.key_origin, format!(
                    "preset `{preset}` sets data_quality {} under `transform_actions`, but LHP never applies transform presets",
                    keys.join(", ")
                ));
            }
        }
        if let Some(entry) = defaults.entry("defaults") {
            if entry.value.as_map().is_some_and(|m| !m.is_empty()) {
                report(
                    &entry.key_origin,
                    format!(
                        "preset `{preset}` has a nested `defaults` block; LHP never applies it"
                    ),
                );
            }
        }
    }
}
