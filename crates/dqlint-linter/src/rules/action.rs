//! The data_quality action itself: mode, quarantine block, readMode, expectations_file, source.
pub mod dq101_invalid_dq_mode;
pub mod dq102_quarantine_block_missing;
pub mod dq103_quarantine_block_without_mode;
pub mod dq104_quarantine_field_missing;
pub mod dq105_non_stream_read_mode;
pub mod dq106_expectations_file_not_set;
pub mod dq107_expectations_file_not_found;
pub mod dq108_dq_source_not_single_view;
pub mod dq109_preset_data_quality_ignored;

use dqlint_project::{Flowgroup, Origin, Value, Via};

use crate::diagnostic::{Applicability, Diagnostic, Edit, Fix};
use crate::engine::Context;
use crate::registry::RuleMeta;
use crate::text::{requote, source_text};

/// Where a fix of an action's value must land. A value written in a
/// template as `"{{ rm }}"` is the flowgroup's `template_parameters`
/// value `rm: batch`: rewriting the template would leave that value as it
/// is and change every other flowgroup using the template.
pub(crate) enum FixTarget<'a> {
    /// The value as written (in the flowgroup, or literally in a template).
    Written,
    /// A template parameter the flowgroup sets.
    Parameter(TemplateParameter<'a>),
    /// Rendered from a template parameter the flowgroup does not set (its
    /// default), or not as a whole: no value of this flowgroup to rewrite.
    Default,
}

pub(crate) fn fix_target<'a>(ctx: &Context, fg: &'a Flowgroup, value: &Value) -> FixTarget<'a> {
    let Some(Via::Template { name: template, .. }) = value.origin.via.as_deref() else {
        return FixTarget::Written;
    };
    let written = source_text(ctx.project, &value.origin);
    if !written.contains("{{") {
        return FixTarget::Written;
    }
    let Some(name) = placeholder_name(written) else {
        return FixTarget::Default;
    };
    let Some(param) = fg.doc.get("template_parameters").and_then(|p| p.get(&name)) else {
        return FixTarget::Default;
    };
    // Only a value written as is (not through a template, a preset or a
    // `%{variable}`): that text is what the fix rewrites.
    let param_text = source_text(ctx.project, &param.origin);
    if param.origin.via.is_some() || param.as_str().is_none_or(|s| unquote(param_text) != s) {
        return FixTarget::Default;
    }
    let uses = placeholder_uses(&ctx.project.file(value.origin.file).text, &name);
    FixTarget::Parameter(TemplateParameter {
        name,
        template: template.clone(),
        value: param,
        rendered: Origin::new(value.origin.file, value.origin.span.clone()),
        used_elsewhere: uses > 1,
    })
}

/// A template's `key: "{{ rm }}"` with the flowgroup's
/// `template_parameters: {rm: batch}`: the parameter's value.
pub(crate) struct TemplateParameter<'a> {
    pub name: String,
    pub template: String,
    pub value: &'a Value,
    /// The placeholder in the template.
    pub rendered: Origin,
    /// The template uses the parameter anywhere else too.
    pub used_elsewhere: bool,
}

impl TemplateParameter<'_> {
    /// The finding at the parameter's value, the template line related,
    /// with a fix that writes `new` there (unsafe when the template uses
    /// the parameter elsewhere too: those values would change as well).
    pub fn finding(
        &self,
        ctx: &Context,
        rule: &'static RuleMeta,
        key: &str,
        message: String,
        new: &str,
        applicability: Applicability,
    ) -> Diagnostic {
        let at = &self.value.origin;
        let (applicability, description) = if self.used_elsewhere {
            (
                Applicability::Unsafe,
                format!(
                    "set template parameter `{}: {new}` (template `{}` uses it elsewhere too)",
                    self.name, self.template
                ),
            )
        } else {
            (
                applicability,
                format!("set template parameter `{}: {new}`", self.name),
            )
        };
        Diagnostic::new(rule, at, message)
            .related(
                &self.rendered,
                format!(
                    "`{key}` of template `{}` is set from parameter `{}`",
                    self.template, self.name
                ),
            )
            .fix(Fix {
                applicability,
                description,
                edits: vec![Edit {
                    file: at.file,
                    span: at.span.clone(),
                    new_text: requote(ctx.project, at, new),
                }],
            })
    }
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
