//! Facts about quarantine actions that several DQ5xx/DQ4xx rules share.

use dqlint_project::{Action, Env, Flowgroup, Origin};

/// A quarantine action with its DLQ and source table resolved for one env.
pub struct QuarantineUse<'a> {
    pub flowgroup: &'a Flowgroup,
    pub action: &'a Action,
    pub pipeline: String,
    pub dlq_table: String,
    pub source_table: String,
    pub dlq_origin: Origin,
    pub source_origin: Origin,
}

impl QuarantineUse<'_> {
    pub fn label(&self) -> String {
        format!(
            "`{}.{}`",
            self.flowgroup.name.as_deref().unwrap_or("?"),
            self.action.name().unwrap_or("?")
        )
    }
}

/// Every quarantine action whose two table names resolve in `env`.
pub fn resolved_uses<'a>(
    actions: impl Iterator<Item = (&'a Flowgroup, &'a Action)>,
    env: &Env,
) -> Vec<QuarantineUse<'a>> {
    let mut out = Vec::new();
    for (fg, action) in actions {
        let Some(block) = action.get("quarantine") else {
            continue;
        };
        let (Some(dlq), Some(src)) = (block.get("dlq_table"), block.get("source_table")) else {
            continue;
        };
        let (Some(dlq_raw), Some(src_raw)) = (dlq.as_str(), src.as_str()) else {
            continue;
        };
        let (d, s) = (env.resolve(dlq_raw), env.resolve(src_raw));
        if !d.unresolved.is_empty()
            || !s.unresolved.is_empty()
            || d.text.is_empty()
            || s.text.is_empty()
        {
            continue;
        }
        let pipeline = fg
            .pipeline
            .as_deref()
            .map(|p| env.resolve(p).text)
            .unwrap_or_default();
        out.push(QuarantineUse {
            flowgroup: fg,
            action,
            pipeline,
            dlq_table: d.text,
            source_table: s.text,
            dlq_origin: dlq.origin.clone(),
            source_origin: src.origin.clone(),
        });
    }
    out
}

/// Whether a finding built from `raw` values depends on token resolution.
pub fn tokenized(values: &[&str]) -> bool {
    values.iter().any(|v| v.contains('{'))
}
