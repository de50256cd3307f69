//! ## What it does
//! Reports a data_quality action whose `readMode` is not `stream`.
//!
//! ## Why is this bad?
//! The data_quality generator only streams. `lhp validate` passes such a
//! config, and `lhp generate` then fails with LHP-VAL-068 (E01, E26).
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
//!     readMode: batch
//!     mode: quarantine
//!     quarantine:
//!       dlq_table: main.ops.dlq
//!       source_table: main.bronze.orders
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
//!     readMode: stream
//!     mode: quarantine
//!     quarantine:
//!       dlq_table: main.ops.dlq
//!       source_table: main.bronze.orders
//! ```
//!
//! ## Fix
//! Use `readMode: stream` or remove the key (stream is the default). When
//! the value comes from a template parameter (`readMode: "{{ rm }}"` in the
//! template, `rm: batch` in the flowgroup's `template_parameters`), the
//! finding points at the parameter's value and the fix rewrites it there;
//! the template stays as it is (the fix is unsafe when the template uses
//! the parameter for something else too).

use dqlint_project::{Flowgroup, Origin, Value, Via};

use crate::diagnostic::{Applicability, Diagnostic, Edit, Fix};
use crate::engine::{Context, Findings};
use crate::registry::rule;
use crate::text::{requote, source_text};

pub fn check(ctx: &Context, out: &mut Findings) {
    let me = rule("DQ105");
    for (fg, action) in ctx.dq_actions() {
        let Some(mode) = action.get("readMode").filter(|m| !m.is_null()) else {
            continue;
        };
        if mode.as_str() == Some("stream") {
            continue;
        }
        let shown = mode
            .as_str()
            .map(|s| format!("`{s}`"))
            .unwrap_or_else(|| mode.type_name().to_string());
        if let Some(param) = template_parameter(ctx, fg, &mode.origin) {
            out.push(parameter_finding(ctx, &shown, &mode.origin, &param));
            continue;
        }
        let from_template = matches!(mode.origin.via.as_deref(), Some(Via::Template { .. }));
        if from_template && placeholder_name(source_text(ctx.project, &mode.origin)).is_some() {
            // Rendered from a parameter the flowgroup does not set (the
            // template's default): the template's text is not the value
            // that is wrong for this flowgroup, so no edit there.
            out.push(Diagnostic::new(me, &mode.origin, message(&shown)));
            continue;
        }
        out.push(Diagnostic::new(me, &mode.origin, message(&shown)).fix(Fix {
            applicability: Applicability::Safe,
            description: "set `readMode: stream`".into(),
            edits: vec![Edit {
                file: mode.origin.file,
                span: mode.origin.span.clone(),
                new_text: requote(ctx.project, &mode.origin, "stream"),
            }],
        }));
    }
}

fn message(shown: &str) -> String {
    format!(
        "`readMode` is {shown}; data_quality actions only stream (`lhp generate` fails with LHP-VAL-068)"
    )
}

/// A template's `readMode: "{{ rm }}"` with the flowgroup's
/// `template_parameters: {rm: batch}`: the parameter's value.
struct TemplateParameter<'a> {
    name: String,
    template: String,
    value: &'a Value,
    /// The template uses the parameter anywhere else too.
    used_elsewhere: bool,
}

fn template_parameter<'a>(
    ctx: &Context,
    fg: &'a Flowgroup,
    rendered: &Origin,
) -> Option<TemplateParameter<'a>> {
    let Some(Via::Template { name: template, .. }) = rendered.via.as_deref() else {
        return None;
    };
    let name = placeholder_name(source_text(ctx.project, rendered))?;
    let value = fg.doc.get("template_parameters")?.get(&name)?;
    // Only a value written as is (not through a template, a preset or a
    // `%{variable}`): that text is what the fix rewrites.
    let written = source_text(ctx.project, &value.origin);
    if value.origin.via.is_some()
        || unquote(written) != value.as_str().unwrap_or_default()
        || value.as_str().is_none()
    {
        return None;
    }
    let uses = placeholder_uses(&ctx.project.file(rendered.file).text, &name);
    Some(TemplateParameter {
        name,
        template: template.clone(),
        value,
        used_elsewhere: uses > 1,
    })
}

fn parameter_finding(
    ctx: &Context,
    shown: &str,
    rendered: &Origin,
    param: &TemplateParameter,
) -> Diagnostic {
    let me = rule("DQ105");
    let at = &param.value.origin;
    let (applicability, description) = if param.used_elsewhere {
        (
            Applicability::Unsafe,
            format!(
                "set template parameter `{}: stream` (template `{}` uses it elsewhere too)",
                param.name, param.template
            ),
        )
    } else {
        (
            Applicability::Safe,
            format!("set template parameter `{}: stream`", param.name),
        )
    };
    Diagnostic::new(
        me,
        at,
        format!(
            "`readMode` is {shown} through template parameter `{}`; data_quality actions only stream (`lhp generate` fails with LHP-VAL-068)",
            param.name
        ),
    )
    .related(
        &Origin::new(rendered.file, rendered.span.clone()),
        format!(
            "`readMode` of template `{}` is set from parameter `{}`",
            param.template, param.name
        ),
    )
    .fix(Fix {
        applicability,
        description,
        edits: vec![Edit {
            file: at.file,
            span: at.span.clone(),
            new_text: requote(ctx.project, at, "stream"),
        }],
    })
}

fn unquote(raw: &str) -> &str {
    let raw = raw.trim();
    for q in ['"', '\''] {
        if let Some(inner) = raw.strip_prefix(q).and_then(|r| r.strip_suffix(q)) {
            return inner;
        }
    }
    raw
}

/// `{{ name }}` (quoted or not, nothing else in the value): `name`.
fn placeholder_name(raw: &str) -> Option<String> {
    let inner = unquote(raw)
        .trim()
        .strip_prefix("{{")?
        .strip_suffix("}}")?
        .trim();
    let simple = !inner.is_empty() && inner.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    simple.then(|| inner.to_string())
}

/// How many `{{ ... }}` expressions of a template's text read `name`.
fn placeholder_uses(text: &str, name: &str) -> usize {
    let mut count = 0;
    let mut rest = text;
    while let Some(open) = rest.find("{{") {
        let after = &rest[open + 2..];
        let Some(close) = after.find("}}") else {
            break;
        };
        let expr = &after[..close];
        let first = expr.split('|').next().unwrap_or_default().trim();
        if first == name {
            count += 1;
        }
        rest = &after[close + 2..];
    }
    count
}

#[cfg(test)]
mod tests {
    use super::{placeholder_name, placeholder_uses};

    #[test]
    fn placeholders() {
        assert_eq!(placeholder_name("\"{{ rm }}\"").as_deref(), Some("rm"));
        assert_eq!(placeholder_name("'{{rm}}'").as_deref(), Some("rm"));
        assert_eq!(placeholder_name("{{ rm | lower }}"), None);
        assert_eq!(placeholder_name("\"{{ rm }}x\""), None);
        assert_eq!(placeholder_name("batch"), None);
        assert_eq!(
            placeholder_uses(
                "a: \"{{ rm }}\"\nb: \"{{ rm | upper }}\"\nc: \"{{ rmx }}\"\n",
                "rm"
            ),
            2
        );
    }
}
