//! `textDocument/hover`: the rule behind a finding, a `${token}`'s value in
//! each environment, an expectation rule as LHP resolves it, a
//! `dlq_table`'s inbox and outbox names, a known key's documentation,
//! a DQX check function, argument or `criticality` (checks files and
//! DQX's Python API).

use std::fmt::Write as _;
use std::path::Path;

use dqlint_linter::Context;
use dqlint_project::{FileKind, SourceFile, TokenSyntax};
use tower_lsp_server::ls_types::{Hover, HoverContents, MarkupContent, MarkupKind, Position};

use crate::convert;
use crate::handlers::yaml_context;
use crate::workspace::Snapshot;
use dqlint_project::vocabulary::{self, LhpFile};

pub fn hover(snapshot: &Snapshot, path: &Path, position: Position) -> Option<Hover> {
    let file = snapshot.project.file_by_path(path)?;
    let offset = convert::offset(file, position);
    finding_hover(snapshot, file, offset)
        .or_else(|| super::suppress::hover(file, offset))
        .or_else(|| token_hover(snapshot, file, offset))
        .or_else(|| expectation_hover(snapshot, file, offset))
        .or_else(|| key_hover(snapshot, file, offset))
        .or_else(|| dqx_hover(snapshot, file, offset))
        .or_else(|| dqx_python_hover(snapshot, file, offset))
        .or_else(|| super::pipeline::hover(snapshot, file, offset))
}

/// A DQX check function's name or `criticality` in a checks file.
fn dqx_hover(snapshot: &Snapshot, file: &SourceFile, offset: usize) -> Option<Hover> {
    if file.kind != FileKind::DqxChecks {
        return None;
    }
    let catalogue = snapshot.config.dqx.catalogue();
    if file.rel.ends_with(".json") {
        let (span, doc) = super::dqx::json_hover(&catalogue, &file.text, offset)?;
        return Some(markdown(file, &span, doc));
    }
    let line_no = file.lines.line_of(offset);
    let line = file.lines.line_range(&file.text, line_no);
    let lines: Vec<&str> = file.text.split('\n').collect();
    let (span, doc) = super::dqx::hover(&catalogue, &lines, line_no, offset - line.start)?;
    Some(markdown(
        file,
        &(line.start + span.start..line.start + span.end),
        doc,
    ))
}

/// A check function, an argument or `criticality` of a rule built with
/// DQX's Python API.
fn dqx_python_hover(snapshot: &Snapshot, file: &SourceFile, offset: usize) -> Option<Hover> {
    if file.kind != FileKind::PipelinePython {
        return None;
    }
    let catalogue = snapshot.config.dqx.catalogue();
    let (span, doc) = super::dqx_python::hover(&catalogue, &file.text, offset)?;
    Some(markdown(file, &span, doc))
}

/// The kinds team policies count a rule as (`spec/policy.md`), as a hover
/// line: `` Policy kind: `not_null` on `id`, `range` on `amount` ``.
pub(super) fn kinds_line(kinds: &[dqlint_linter::rules::policy::KindFact]) -> String {
    let parts: Vec<String> = kinds
        .iter()
        .map(|k| match k.columns.as_slice() {
            [] => format!("`{}`", k.kind.name()),
            columns => format!(
                "`{}` on {}",
                k.kind.name(),
                columns
                    .iter()
                    .map(|c| format!("`{c}`"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        })
        .collect();
    format!("Policy kind: {}", parts.join(", "))
}

fn markdown(file: &SourceFile, span: &std::ops::Range<usize>, value: String) -> Hover {
    Hover {
        contents: HoverContents::Markup(MarkupContent {
            kind: MarkupKind::Markdown,
            value,
        }),
        range: Some(convert::range(file, span)),
    }
}

fn contains(span: &std::ops::Range<usize>, offset: usize) -> bool {
    span.start <= offset && (offset < span.end || offset == span.start || offset == span.end)
}

/// Findings under the cursor, each with its rule's documentation.
fn finding_hover(snapshot: &Snapshot, file: &SourceFile, offset: usize) -> Option<Hover> {
    let here: Vec<_> = snapshot
        .findings
        .iter()
        .filter(|f| f.primary.file == file.id && contains(&f.primary.span, offset))
        .collect();
    let first = here.first()?;
    let mut out = String::new();
    let mut documented: Vec<&str> = Vec::new();
    for finding in &here {
        let _ = writeln!(
            out,
            "**{}** `{}` ({}): {}\n",
            finding.rule.code,
            finding.rule.name,
            finding.severity.as_str(),
            convert::message(finding)
        );
    }
    for finding in &here {
        if documented.contains(&finding.rule.code) {
            continue;
        }
        documented.push(finding.rule.code);
        // The doc's `##` sections sit under this `###` heading.
        let doc = finding.rule.doc().replace("\n## ", "\n#### ");
        let doc = doc
            .strip_prefix("## ")
            .map(|d| format!("#### {d}"))
            .unwrap_or(doc);
        let _ = write!(
            out,
            "---\n\n### {} {}\n\n{doc}\n\n",
            finding.rule.code, finding.rule.name
        );
        if let Some(url) = snapshot
            .settings
            .rule_docs_url(finding.rule.code, finding.rule.name)
        {
            let _ = write!(out, "[Rule documentation]({url})\n\n");
        }
    }
    Some(markdown(
        file,
        &first.primary.span,
        out.trim_end().to_string(),
    ))
}

/// `${token}` / `{token}` / `${secret:...}` under the cursor.
fn token_hover(snapshot: &Snapshot, file: &SourceFile, offset: usize) -> Option<Hover> {
    if !matches!(
        file.kind,
        FileKind::Flowgroup
            | FileKind::Template
            | FileKind::Preset
            | FileKind::Expectations
            | FileKind::Sql
    ) {
        return None;
    }
    let line = file
        .lines
        .line_range(&file.text, file.lines.line_of(offset));
    let text = &file.text[line.clone()];
    let token = dqlint_project::substitution::scan_tokens(text)
        .into_iter()
        .find(|t| contains(&t.range, offset - line.start))?;
    let span = line.start + token.range.start..line.start + token.range.end;
    let project = &snapshot.project;
    let mut out = String::new();
    match token.syntax {
        TokenSyntax::Secret => {
            let _ = writeln!(
                out,
                "Secret `{}`: resolved by Databricks at run time, never by LHP.\n",
                token.name
            );
            for env in &project.envs {
                let scope = match token.name.split_once('/') {
                    Some((alias, _)) => env
                        .secret_scopes
                        .get(alias)
                        .cloned()
                        .unwrap_or_else(|| alias.to_string()),
                    None => env
                        .default_secret_scope
                        .clone()
                        .unwrap_or_else(|| "(no default scope)".into()),
                };
                let _ = writeln!(out, "- `{}`: scope `{scope}`", env.name);
            }
        }
        TokenSyntax::Dollar | TokenSyntax::Bare => {
            let _ = writeln!(out, "Token `{}`\n", token.name);
            if project.envs.is_empty() {
                out.push_str("No `substitutions/*.yaml`: nothing resolves it.\n");
            }
            for env in &project.envs {
                match env.tokens.get(&token.name) {
                    Some(value) => {
                        let _ = writeln!(out, "- `{}`: `{}`", env.name, value.value);
                    }
                    None => {
                        let _ = writeln!(out, "- `{}`: **not defined**", env.name);
                    }
                }
            }
            if token.syntax == TokenSyntax::Bare {
                out.push_str(
                    "\nThe bare `{token}` syntax is deprecated (LHP-DEPR-001); write `${token}`.\n",
                );
            }
        }
    }
    Some(markdown(file, &span, out.trim_end().to_string()))
}

/// A rule of an expectations file: its name, action and what quarantine
/// mode makes of it.
fn expectation_hover(snapshot: &Snapshot, file: &SourceFile, offset: usize) -> Option<Hover> {
    if file.kind != FileKind::Expectations {
        return None;
    }
    let ctx = Context::new(&snapshot.project);
    let (set, users) = ctx
        .expectation_sets()
        .find(|(set, _)| set.file == file.id)?;
    let rule = set.rules.iter().find(|r| contains(&r.span, offset))?;
    let expression = rule.expression.as_ref()?;
    let mut out = String::new();
    let _ = writeln!(out, "Expectation `{}`\n", expression.text);
    let kinds = dqlint_linter::rules::policy::classify_sql(&expression.text);
    let _ = writeln!(out, "- {}", kinds_line(&kinds));
    let action = rule
        .action
        .map(|a| a.as_str())
        .unwrap_or("skipped (unknown type)");
    match rule.effective_name(false) {
        Some(name) => {
            let _ = writeln!(out, "- dqe mode: `{name}`, action `{action}`");
        }
        None => {
            let _ = writeln!(out, "- dqe mode: action `{action}`");
        }
    }
    let quarantine_users: Vec<_> = users.iter().filter(|(_, a)| a.is_quarantine()).collect();
    if !quarantine_users.is_empty() {
        let name = rule.effective_name(true).unwrap_or_default();
        let _ = writeln!(
            out,
            "- quarantine mode: `{name}`, enforced as `drop` (failing rows go to the DLQ)"
        );
    }
    if !users.is_empty() {
        out.push_str("\nUsed by:\n");
        for (fg, action) in users {
            let _ = writeln!(
                out,
                "- `{}` in flowgroup `{}` (mode `{}`)",
                action.name().unwrap_or("?"),
                fg.name.as_deref().unwrap_or("?"),
                action.dq_mode().unwrap_or("?")
            );
        }
    }
    Some(markdown(file, &rule.span, out.trim_end().to_string()))
}

/// A key or a value of any LHP file: the key's documentation from the LHP
/// vocabulary (for the block the key is in) and the values it accepts; for
/// `dlq_table`, the resolved inbox and outbox in each environment and where
/// their `CREATE TABLE` is.
fn key_hover(snapshot: &Snapshot, file: &SourceFile, offset: usize) -> Option<Hover> {
    let lhp = LhpFile::of(file.kind)?;
    let line_no = file.lines.line_of(offset);
    let line = file.lines.line_range(&file.text, line_no);
    let found = vocabulary_hover(lhp, &file.text, line_no, offset - line.start)?;
    let (key, bare) = (found.key, found.value);
    let mut out = found.text;
    if key == "dlq_table" && !bare.is_empty() {
        out.push_str(
            "\n\n| env | inbox | created in | outbox | created in |\n|---|---|---|---|---|\n",
        );
        let project = &snapshot.project;
        let created = |ddl: &Option<(dqlint_project::FileId, std::ops::Range<usize>)>| match ddl {
            Some((file, span)) => {
                let file = project.file(*file);
                format!("`{}:{}`", file.rel, file.lines.line_of(span.start) + 1)
            }
            None => "no `CREATE TABLE`".to_string(),
        };
        for dlq in crate::handlers::dlq::dlq_tables(project, bare) {
            let env = if dlq.env.is_empty() {
                "(none)"
            } else {
                dlq.env.as_str()
            };
            let name = |n: &Option<String>| match n {
                Some(n) => format!("`{n}`"),
                None => "(a token does not resolve)".to_string(),
            };
            let _ = writeln!(
                out,
                "| `{env}` | {} | {} | {} | {} |",
                name(&dlq.inbox),
                created(&dlq.inbox_ddl),
                name(&dlq.outbox),
                created(&dlq.outbox_ddl),
            );
        }
    }
    let span = line.start + found.span.start..line.start + found.span.end;
    Some(markdown(file, &span, out.trim_end().to_string()))
}

/// What the vocabulary says of the key or value at byte `at` of line
/// `line_no` of `text`.
pub(super) struct VocabularyHover<'a> {
    pub key: &'a str,
    pub value: &'a str,
    /// Within the line.
    pub span: std::ops::Range<usize>,
    pub text: String,
}

pub(super) fn vocabulary_hover(
    lhp: LhpFile,
    text: &str,
    line_no: usize,
    at: usize,
) -> Option<VocabularyHover<'_>> {
    let lines: Vec<&str> = text.split('\n').map(|l| l.trim_end_matches('\r')).collect();
    let line = *lines.get(line_no)?;
    let indent = line.len() - line.trim_start().len();
    let (key_span, key) = key_at(line, indent).or_else(|| key_at(line, indent + 2))?;
    let value = line[key_span.end..].trim_start_matches(':');
    let value_start = key_span.end + 1 + (value.len() - value.trim_start().len());
    let value = value.split(" #").next().unwrap_or("").trim();
    let on_value = !value.is_empty() && at >= value_start && at <= value_start + value.len();
    if !(contains(&key_span, at) || on_value) {
        return None;
    }
    let (col, opens) = yaml_context::column(line);
    let frames = yaml_context::frames_at(&lines, line_no, col, true, opens);
    let block = vocabulary::block_at(lhp, &frames)?;
    let field = block.key(key)?;
    let bare = value.trim_matches(|c| c == '"' || c == '\'');
    // `dlq_table`'s value is hovered as its key: the tables are the point.
    let on_value = on_value && key != "dlq_table";
    let mut out = if on_value {
        let mut out = format!("`{key}: {bare}`\n\n{}", field.doc);
        let templated = ["${", "%{", "{{"].iter().any(|t| bare.contains(t));
        if !field.values.is_empty() && !field.values.contains(&bare) && !templated {
            let _ = write!(out, "\n\n**Not a value `{key}` accepts here.**");
        }
        out
    } else {
        format!("`{key}`: {}", field.doc)
    };
    if !field.values.is_empty() {
        let values: Vec<String> = field.values.iter().map(|v| format!("`{v}`")).collect();
        let _ = write!(out, "\n\nValues: {}", values.join(", "));
    }
    let span = if on_value {
        value_start..value_start + value.len()
    } else {
        key_span
    };
    Some(VocabularyHover {
        key,
        value: bare,
        span,
        text: out,
    })
}

/// The plain `key:` of a YAML line, when `at` falls on it.
fn key_at(line: &str, at: usize) -> Option<(std::ops::Range<usize>, &str)> {
    let mut start = line.len() - line.trim_start().len();
    if line[start..].starts_with("- ") {
        start += 2;
        start += line[start..].len() - line[start..].trim_start().len();
    }
    let rest = &line[start..];
    let len = rest.find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))?;
    if len == 0 || !rest[len..].starts_with(':') {
        return None;
    }
    let span = start..start + len;
    (span.start <= at && at <= span.end).then(|| (span.clone(), &line[span]))
}

#[cfg(test)]
mod tests {
    use super::key_at;

    #[test]
    fn finds_keys_of_mappings_and_list_items() {
        assert_eq!(
            key_at("    mode: quarantine", 6).map(|(_, k)| k),
            Some("mode")
        );
        assert_eq!(key_at("  - name: x", 5).map(|(_, k)| k), Some("name"));
        assert_eq!(key_at("    mode: quarantine", 12), None);
        assert_eq!(key_at("    # mode: x", 6), None);
    }
}
