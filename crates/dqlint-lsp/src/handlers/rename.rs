//! `textDocument/prepareRename` and `textDocument/rename`: a template
//! parameter (its `parameters` entry, its `{{ uses }}` in the template and
//! the `template_parameters` keys of the flowgroups using the template), a
//! view (the `target` making it and every `source` reading it in the
//! pipeline), an action's name, a substitution token (its key in every
//! `substitutions/<env>.yaml` defining it and every `${name}` or `{name}`
//! LHP substitutes, in YAML values, nested token values and `sql_path`
//! files, and in the DDL table names dqlint resolves:
//! [`super::rename_token`]) and a rule's name in an expectations file
//! ([`super::rename_rule`]). Anything else, or a rename that would
//! collide, leave a value written in a template behind or edit text it
//! cannot edit exactly, is refused with the reason.

use std::collections::HashMap;
use std::ops::Range;
use std::path::Path;

use dqlint_project::{FileId, FileKind, Origin, Project, SourceFile, TokenSyntax, Value};
use dqlint_yaml::document::plain_kind;
use dqlint_yaml::ScalarKind;
use tower_lsp_server::ls_types::{Position, TextEdit, Uri, WorkspaceEdit};

use crate::convert;
use crate::handlers::rename_rule::{self, Quoting};
use crate::handlers::rename_token::{self, Wanted, Written, RESERVED};
use crate::handlers::yaml_context::{column, entry, frames_at};
use crate::workspace::Snapshot;

/// What is renamed, and every place it is written.
pub struct Renamable {
    pub what: String,
    pub name: String,
    /// The span under the cursor.
    pub here: (FileId, Range<usize>),
    /// Each place, and how a new name is written there.
    pub places: Vec<(FileId, Range<usize>, Quoting)>,
    kind: Kind,
}

enum Kind {
    TemplateParameter { template: String },
    View { pipeline: Option<String> },
    Action { flowgroup: usize },
    Token,
    RuleName { file: FileId, index: usize },
}

fn is_name(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// The identifier at `offset` of `text`, with its span.
fn word_at(text: &str, offset: usize) -> Option<(Range<usize>, &str)> {
    let start = text[..offset]
        .char_indices()
        .rev()
        .find(|(_, c)| !is_name(*c))
        .map_or(0, |(i, c)| i + c.len_utf8());
    let end = text[offset..]
        .find(|c: char| !is_name(c))
        .map_or(text.len(), |i| offset + i);
    (start < end).then(|| (start..end, &text[start..end]))
}

fn lines_of(text: &str) -> Vec<&str> {
    text.split('\n').map(|l| l.trim_end_matches('\r')).collect()
}

/// Line start offsets of `text`.
fn starts(text: &str) -> Vec<usize> {
    std::iter::once(0)
        .chain(text.match_indices('\n').map(|(i, _)| i + 1))
        .collect()
}

/// The spans of `name` inside the `{{ ... }}` of a template's text.
fn jinja_uses(text: &str, name: &str) -> Vec<Range<usize>> {
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(open) = text[from..].find("{{").map(|i| from + i) {
        let Some(close) = text[open..].find("}}").map(|i| open + i) else {
            break;
        };
        let inner = &text[open + 2..close];
        let mut at = 0;
        while let Some(i) = inner[at..].find(name).map(|i| at + i) {
            let before = inner[..i].chars().next_back();
            let after = inner[i + name.len()..].chars().next();
            if !before.is_some_and(|c| is_name(c) || c == '.') && !after.is_some_and(is_name) {
                out.push(open + 2 + i..open + 2 + i + name.len());
            }
            at = i + name.len();
        }
        from = close + 2;
    }
    out
}

/// Keys `name` of a `template_parameters:` mapping in `text`, or the
/// values `name` of `name:` entries of a `parameters:` list.
fn yaml_places(text: &str, name: &str, under: &str, value: bool) -> Vec<Range<usize>> {
    let lines = lines_of(text);
    let starts = starts(text);
    let mut out = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        let Some((key, v)) = entry(line) else {
            continue;
        };
        let hit = if value {
            key == "name" && v == name
        } else {
            key == name
        };
        if !hit {
            continue;
        }
        let (col, opens) = column(line);
        let frames = frames_at(&lines, i, col, true, opens);
        if frames.last().and_then(|f| f.key) != Some(under) {
            continue;
        }
        let at = if value {
            line[col..]
                .find(": ")
                .map(|p| col + p + 2)
                .and_then(|p| line[p..].find(name).map(|q| p + q))
        } else {
            line[col..].find(name).map(|p| col + p)
        };
        if let Some(at) = at {
            out.push(starts[i] + at..starts[i] + at + name.len());
        }
    }
    out
}

fn contains(origin: &Origin, file: FileId, offset: usize) -> bool {
    origin.file == file && origin.span.start <= offset && offset <= origin.span.end
}

/// A scalar's span without its quotes.
fn unquoted(project: &Project, origin: &Origin) -> Range<usize> {
    let raw = project
        .file(origin.file)
        .text
        .get(origin.span.clone())
        .unwrap_or("");
    if raw.len() >= 2 && (raw.starts_with('"') || raw.starts_with('\'')) {
        origin.span.start + 1..origin.span.end - 1
    } else {
        origin.span.clone()
    }
}

/// The strings a `source` reads (a view name, or a list of them).
fn source_views(source: &Value) -> Vec<&Value> {
    match source.as_seq() {
        Some(items) => items.iter().filter(|v| v.as_str().is_some()).collect(),
        None => source.as_str().map(|_| vec![source]).unwrap_or_default(),
    }
}

pub fn find(snapshot: &Snapshot, path: &Path, position: Position) -> Result<Renamable, String> {
    let project = &snapshot.project;
    let file = project
        .file_by_path(path)
        .ok_or("dqlint: this file is no part of an LHP project")?;
    let offset = convert::offset(file, position);
    if let Some(found) = token_at(project, file, offset) {
        return found;
    }
    let rule = rename_rule::find(project, file, offset);
    if let Some(reason) = no_token_here(file, offset).filter(|_| !matches!(rule, Some(Ok(_)))) {
        return Err(reason);
    }
    if let Some(found) = rule {
        return found.map(|rule| Renamable {
            what: "rule".into(),
            name: rule.name,
            here: (file.id, rule.here),
            places: rule
                .places
                .into_iter()
                .map(|(span, quoting)| (file.id, span, quoting))
                .collect(),
            kind: Kind::RuleName {
                file: file.id,
                index: rule.index,
            },
        });
    }
    let (span, word) = word_at(&file.text, offset).ok_or("dqlint: no name here")?;
    let refuse = || {
        Err("dqlint renames template parameters, views (`target`/`source`), action names, `${tokens}` and rule names; this is none of them".to_string())
    };
    match file.kind {
        FileKind::Template => {
            let template = project
                .templates
                .values()
                .find(|t| t.file == file.id)
                .ok_or("dqlint: this template is not loaded")?;
            if !template.parameters.iter().any(|p| p.name == word) {
                return refuse();
            }
            let in_template: Vec<Range<usize>> = yaml_places(&file.text, word, "parameters", true)
                .into_iter()
                .chain(jinja_uses(&file.text, word))
                .collect();
            if !in_template
                .iter()
                .any(|r| r.start <= offset && offset <= r.end)
            {
                return refuse();
            }
            Ok(template_parameter(
                project,
                &template.name,
                word,
                (file.id, span),
            ))
        }
        FileKind::Flowgroup => {
            // A key of `template_parameters:`.
            for fg in project.flowgroups.iter().filter(|fg| fg.file == file.id) {
                let Some((template, _)) = &fg.template else {
                    continue;
                };
                let keys = yaml_places(&file.text, word, "template_parameters", false);
                if keys.iter().any(|r| r.start <= offset && offset <= r.end)
                    && project
                        .templates
                        .get(template)
                        .is_some_and(|t| t.parameters.iter().any(|p| p.name == word))
                {
                    return Ok(template_parameter(project, template, word, (file.id, span)));
                }
            }
            for (index, fg) in project.flowgroups.iter().enumerate() {
                for action in &fg.actions {
                    let mut views: Vec<&Value> = action.get("target").into_iter().collect();
                    views.extend(action.get("source").map(source_views).unwrap_or_default());
                    if let Some(view) = views.iter().find(|v| contains(&v.origin, file.id, offset))
                    {
                        let name = view.as_str().unwrap_or_default().to_string();
                        return views_of(project, fg.pipeline.clone(), name, (file.id, span));
                    }
                    if let Some(name) = action
                        .get("name")
                        .filter(|v| contains(&v.origin, file.id, offset))
                    {
                        if name.origin.via.is_some() {
                            return Err("dqlint: this action's name is written in a template: rename it there".into());
                        }
                        return Ok(Renamable {
                            what: "action".into(),
                            name: name.as_str().unwrap_or_default().to_string(),
                            here: (file.id, span),
                            places: vec![(
                                file.id,
                                unquoted(project, &name.origin),
                                Quoting::Verbatim,
                            )],
                            kind: Kind::Action { flowgroup: index },
                        });
                    }
                }
            }
            refuse()
        }
        _ => refuse(),
    }
}

/// The token whose use or definition is at `offset`, with every place it
/// is written; `None` when there is none.
fn token_at(
    project: &Project,
    file: &SourceFile,
    offset: usize,
) -> Option<Result<Renamable, String>> {
    let here = rename_token::written(project, &Wanted::Any, Some(file.id))
        .into_iter()
        .find(|w| w.whole.start <= offset && offset <= w.whole.end)?;
    let name = here.name.clone();
    if RESERVED.contains(&name.as_str()) {
        return Some(Err(format!(
            "dqlint: LHP defines `${{{name}}}` itself (the `--env` value); it cannot be renamed"
        )));
    }
    let all = rename_token::written(project, &Wanted::Named(&name), None);
    if here.bare && !all.iter().any(|w| w.definition) {
        // `{8}` in a regex is read as a token by LHP, but names nothing.
        return Some(Err(format!(
            "dqlint: no substitutions file defines `{{{name}}}`; it is no token to rename"
        )));
    }
    if let Some(w) = all.iter().find(|w| !w.exact) {
        return Some(Err(format!(
            "dqlint: `{name}` is written with an escape sequence in {}; write it plainly there first",
            place(project, w)
        )));
    }
    Some(Ok(Renamable {
        what: "token".into(),
        name,
        here: (file.id, here.name_span),
        places: all
            .into_iter()
            .map(|w| (w.file, w.name_span, Quoting::Verbatim))
            .collect(),
        kind: Kind::Token,
    }))
}

/// `path` line N, for a message.
fn place(project: &Project, w: &Written) -> String {
    let file = project.file(w.file);
    format!(
        "`{}` line {}",
        file.rel,
        file.lines.line_of(w.whole.start) + 1
    )
}

/// Why the `${...}` at `offset`, which LHP does not substitute or which is
/// a secret, is no token to rename.
fn no_token_here(file: &SourceFile, offset: usize) -> Option<String> {
    let line = file
        .lines
        .line_range(&file.text, file.lines.line_of(offset));
    let token = dqlint_project::substitution::scan_tokens(&file.text[line.clone()])
        .into_iter()
        .find(|t| line.start + t.range.start <= offset && offset <= line.start + t.range.end)?;
    Some(match (token.syntax, file.kind) {
        (TokenSyntax::Secret, _) => "dqlint: `${secret:...}` is a secret reference, not a token of the substitutions files".into(),
        (_, FileKind::Expectations) => "dqlint: LHP does not substitute tokens in expectations files (their rules are SQL as written), so this is no use of a token".into(),
        _ => "dqlint: this is in no place dqlint knows LHP to substitute (flowgroups, templates, presets, blueprints, substitutions, the pipeline config, `sql_path` files, DDL table names), so it is not renamed as a token".into(),
    })
}

fn template_parameter(
    project: &Project,
    template: &str,
    name: &str,
    here: (FileId, Range<usize>),
) -> Renamable {
    let mut places = Vec::new();
    if let Some(t) = project.templates.get(template) {
        let text = &project.file(t.file).text;
        for span in yaml_places(text, name, "parameters", true)
            .into_iter()
            .chain(jinja_uses(text, name))
        {
            places.push((t.file, span, Quoting::Verbatim));
        }
    }
    let mut users: Vec<FileId> = project
        .flowgroups
        .iter()
        .filter(|fg| fg.template.as_ref().is_some_and(|(t, _)| t == template))
        .map(|fg| fg.file)
        .collect();
    users.sort();
    users.dedup();
    for file in users {
        let text = &project.file(file).text;
        for span in yaml_places(text, name, "template_parameters", false) {
            places.push((file, span, Quoting::Verbatim));
        }
    }
    Renamable {
        what: "template parameter".into(),
        name: name.to_string(),
        here,
        places,
        kind: Kind::TemplateParameter {
            template: template.to_string(),
        },
    }
}

fn views_of(
    project: &Project,
    pipeline: Option<String>,
    name: String,
    here: (FileId, Range<usize>),
) -> Result<Renamable, String> {
    let mut places = Vec::new();
    for fg in project
        .flowgroups
        .iter()
        .filter(|fg| fg.pipeline == pipeline)
    {
        for action in &fg.actions {
            let mut views: Vec<&Value> = action.get("target").into_iter().collect();
            views.extend(action.get("source").map(source_views).unwrap_or_default());
            for view in views
                .into_iter()
                .filter(|v| v.as_str() == Some(name.as_str()))
            {
                if view.origin.via.is_some() {
                    return Err(format!(
                        "dqlint: view `{name}` is also written in a template (`{}`): rename it there first",
                        project.file(view.origin.file).rel
                    ));
                }
                let place = (
                    view.origin.file,
                    unquoted(project, &view.origin),
                    Quoting::Verbatim,
                );
                if !places.contains(&place) {
                    places.push(place);
                }
            }
        }
    }
    Ok(Renamable {
        what: "view".into(),
        name,
        here,
        places,
        kind: Kind::View { pipeline },
    })
}

/// The edits renaming `found` to `new`, or why that is not safe.
pub fn edits(snapshot: &Snapshot, found: &Renamable, new: &str) -> Result<WorkspaceEdit, String> {
    let project = &snapshot.project;
    match &found.kind {
        Kind::RuleName { file, index } => {
            if let Some(reason) = rename_rule::refusal(project, project.file(*file), *index, new) {
                return Err(reason);
            }
        }
        Kind::Token => {
            if new.is_empty() || !new.chars().all(is_name) {
                return Err(format!(
                    "dqlint: `{new}` is not a token name (letters, digits, `_`: LHP's `\\w+`)"
                ));
            }
            if plain_kind(new) != ScalarKind::Str {
                return Err(format!(
                    "dqlint: `{new}` would be read as {} as a key of a substitutions file, not as a name",
                    match plain_kind(new) {
                        ScalarKind::Bool => "a boolean",
                        ScalarKind::Null => "null",
                        _ => "a number",
                    }
                ));
            }
        }
        _ => {
            if new.is_empty()
                || !new.chars().all(is_name)
                || new.starts_with(|c: char| c.is_ascii_digit())
            {
                return Err(format!(
                    "dqlint: `{new}` is not a name (letters, digits, `_`)"
                ));
            }
        }
    }
    if new == found.name {
        return Ok(WorkspaceEdit::default());
    }
    if matches!(found.kind, Kind::Token) {
        if let Some(reason) = token_taken(project, new) {
            return Err(reason);
        }
    }
    let taken = match &found.kind {
        Kind::TemplateParameter { template } => project
            .templates
            .get(template)
            .is_some_and(|t| t.parameters.iter().any(|p| p.name == new)),
        Kind::View { pipeline } => project
            .flowgroups
            .iter()
            .filter(|fg| &fg.pipeline == pipeline)
            .flat_map(|fg| &fg.actions)
            .any(|a| a.get_str("target") == Some(new)),
        Kind::Action { flowgroup } => project.flowgroups[*flowgroup]
            .actions
            .iter()
            .any(|a| a.name() == Some(new)),
        // Checked above, with where.
        Kind::Token | Kind::RuleName { .. } => false,
    };
    if taken {
        return Err(format!(
            "dqlint: a {} named `{new}` exists already",
            found.what
        ));
    }
    let uris = snapshot.uris();
    let mut changes: HashMap<Uri, Vec<TextEdit>> = HashMap::new();
    for (file, span, quoting) in &found.places {
        let source: &SourceFile = project.file(*file);
        let uri = uris
            .uri(&source.path)
            .ok_or_else(|| format!("dqlint: no URI for {}", source.rel))?;
        changes.entry(uri).or_default().push(TextEdit {
            range: convert::range(source, span),
            new_text: quoting.spell(new),
        });
    }
    Ok(WorkspaceEdit {
        changes: Some(changes),
        ..WorkspaceEdit::default()
    })
}

/// Why `${new}` cannot be a token's new name: LHP defines it, a
/// substitutions file defines it, or a use already means it.
fn token_taken(project: &Project, new: &str) -> Option<String> {
    if RESERVED.contains(&new) {
        return Some(format!(
            "dqlint: LHP defines `${{{new}}}` itself (the `--env` value)"
        ));
    }
    let written = rename_token::written(project, &Wanted::Named(new), None);
    if let Some(w) = written.iter().find(|w| w.definition) {
        return Some(format!(
            "dqlint: a token named `{new}` exists already ({})",
            place(project, w)
        ));
    }
    written.first().map(|w| {
        format!(
            "dqlint: `${{{new}}}` is used already ({}) and would then mean this token; rename that one first",
            place(project, w)
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jinja_uses_are_whole_names() {
        let text = "table: {{ table }}_x\nsql: {{table|lower}} {{ tables }} {{ a.table }}";
        let uses = jinja_uses(text, "table");
        assert_eq!(uses.len(), 2);
        assert_eq!(&text[uses[0].clone()], "table");
        assert_eq!(uses[1].start, text.find("{{table").unwrap() + 2);
    }

    #[test]
    fn template_parameter_places() {
        let template = "name: t\nparameters:\n  - name: entity\n    required: true\nactions:\n  - name: load_{{ entity }}\n";
        assert_eq!(yaml_places(template, "entity", "parameters", true).len(), 1);
        let fg = "use_template: t\ntemplate_parameters:\n  entity: x\n  other: entity\n";
        let keys = yaml_places(fg, "entity", "template_parameters", false);
        let at = fg.find("  entity").unwrap() + 2;
        assert_eq!(keys.len(), 1);
        assert_eq!(keys[0], at..at + 6);
    }
}
