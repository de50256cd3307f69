//! `textDocument/definition`: `expectations_file` -> the file; `${token}`
//! -> its definition in each substitutions file; `use_template` -> the
//! template; a preset name -> the preset; a `source` view -> the action(s)
//! whose `target` it is; a `dlq_table` -> the `CREATE TABLE` of its inbox
//! and outbox.

use std::path::Path;

use dqlint_project::{resolve_project_path, FileId, Origin, SourceFile, Value};
use tower_lsp_server::ls_types::{Location, Position, Range, Uri};

use crate::convert::{self, UriMap};
use crate::workspace::Snapshot;

fn contains(origin: &Origin, file: FileId, offset: usize) -> bool {
    origin.file == file && origin.span.start <= offset && offset <= origin.span.end
}

fn file_start(uri: Uri) -> Location {
    let zero = Position {
        line: 0,
        character: 0,
    };
    Location {
        uri,
        range: Range {
            start: zero,
            end: zero,
        },
    }
}

pub fn definition(snapshot: &Snapshot, path: &Path, position: Position) -> Vec<Location> {
    let Some(file) = snapshot.project.file_by_path(path) else {
        return Vec::new();
    };
    let offset = convert::offset(file, position);
    let uris = snapshot.uris();
    let mut found = token_definitions(snapshot, &uris, file, offset);
    if found.is_empty() {
        found = model_definitions(snapshot, &uris, file, offset);
    }
    if found.is_empty() {
        found.extend(listed_preset(snapshot, &uris, file, offset));
    }
    if found.is_empty() {
        found = super::pipeline::definition(snapshot, &uris, file, offset);
    }
    // Several flowgroups of one file share its `use_template` (and its
    // origin): each target once.
    let mut unique = Vec::with_capacity(found.len());
    for location in found {
        if !unique.contains(&location) {
            unique.push(location);
        }
    }
    unique
}

/// Why a YAML file under the project's root has no definitions: it is no
/// part of the project because `lhp.yaml`'s `include` does not match it
/// (LHP skips such flowgroups, and so does dqlint).
pub fn not_in_project(snapshot: &Snapshot, path: &Path) -> Option<String> {
    let project = &snapshot.project;
    if project.file_by_path(path).is_some()
        || !matches!(
            path.extension().and_then(|e| e.to_str()),
            Some("yaml" | "yml")
        )
    {
        return None;
    }
    let rel = path.strip_prefix(&project.root).ok()?;
    if !rel.starts_with("pipelines") {
        return None;
    }
    let include = project
        .project_config()?
        .first_document()?
        .get("include")?
        .as_seq()?
        .iter()
        .filter_map(|item| item.as_str())
        .map(|pattern| format!("`{pattern}`"))
        .collect::<Vec<_>>()
        .join(", ");
    Some(format!(
        "dqlint: `{}` is not part of the project: lhp.yaml's `include` ({include}) does not match it, so LHP skips this flowgroup and there is nothing to go to",
        rel.display()
    ))
}

/// On the key of a `key: value` line, the offset of its value (so that
/// definition works on `dlq_table:` as on its value); else `offset`.
fn value_offset_on_key_line(file: &SourceFile, offset: usize, key: &str) -> usize {
    let line = file
        .lines
        .line_range(&file.text, file.lines.line_of(offset));
    let text = &file.text[line.clone()];
    let indent = text.len() - text.trim_start().len();
    let Some(after) = text[indent..].strip_prefix(key) else {
        return offset;
    };
    let Some(value) = after.strip_prefix(':') else {
        return offset;
    };
    let at = offset - line.start;
    if at > indent + key.len() {
        return offset;
    }
    let value_start = indent + key.len() + 1 + (value.len() - value.trim_start().len());
    line.start + value_start.min(text.len())
}

/// A preset named in a `presets:` list of a template (or of a flowgroup
/// no model value points back to): the preset's file.
fn listed_preset(
    snapshot: &Snapshot,
    uris: &UriMap,
    file: &SourceFile,
    offset: usize,
) -> Option<Location> {
    let line_no = file.lines.line_of(offset);
    let line = &file.text[file.lines.line_range(&file.text, line_no)];
    let column = offset.checked_sub(file.lines.line_range(&file.text, line_no).start)?;
    let is_name = |c: char| c.is_ascii_alphanumeric() || c == '_' || c == '-';
    let start = line
        .get(..column)?
        .char_indices()
        .rev()
        .find(|(_, c)| !is_name(*c))
        .map_or(0, |(i, c)| i + c.len_utf8());
    let end = line
        .get(column..)?
        .find(|c| !is_name(c))
        .map_or(line.len(), |i| column + i);
    let word = &line[start..end];
    let preset = snapshot.project.presets.get(word)?;
    // The word sits in `presets: [..]` or in a list under `presets:`.
    let in_list = line.trim_start().starts_with("presets:") || {
        let indent = line.len() - line.trim_start().len();
        line.trim_start().starts_with("- ")
            && (0..line_no).rev().find_map(|n| {
                let above = &file.text[file.lines.line_range(&file.text, n)];
                let above_indent = above.len() - above.trim_start().len();
                (!above.trim().is_empty()
                    && !above.trim_start().starts_with('-')
                    && above_indent <= indent)
                    .then(|| above.trim_start().starts_with("presets:"))
            }) == Some(true)
    };
    in_list.then(|| {
        uris.uri(&snapshot.project.file(preset.file).path)
            .map(file_start)
    })?
}

fn token_definitions(
    snapshot: &Snapshot,
    uris: &UriMap,
    file: &SourceFile,
    offset: usize,
) -> Vec<Location> {
    let line = file
        .lines
        .line_range(&file.text, file.lines.line_of(offset));
    let Some(token) = dqlint_project::substitution::scan_tokens(&file.text[line.clone()])
        .into_iter()
        .find(|t| t.range.start + line.start <= offset && offset <= t.range.end + line.start)
    else {
        return Vec::new();
    };
    snapshot
        .project
        .envs
        .iter()
        .filter_map(|env| env.tokens.get(&token.name)?.origin.as_ref())
        .filter_map(|origin| convert::location(&snapshot.project, uris, origin.file, &origin.span))
        .collect()
}

fn model_definitions(
    snapshot: &Snapshot,
    uris: &UriMap,
    file: &SourceFile,
    offset: usize,
) -> Vec<Location> {
    let project = &snapshot.project;
    let envs = dqlint_project::envs_or_none(&project.envs);
    let mut found = Vec::new();
    let dlq_offset = value_offset_on_key_line(file, offset, "dlq_table");
    for fg in &project.flowgroups {
        if let Some((name, origin)) = &fg.template {
            if contains(origin, file.id, offset) {
                if let Some(template) = project.templates.get(name) {
                    found.extend(uris.uri(&project.file(template.file).path).map(file_start));
                }
            }
        }
        let on_template = fg
            .template
            .as_ref()
            .is_some_and(|(_, origin)| contains(origin, file.id, offset));
        for (name, origin) in &fg.presets {
            // A template's presets carry its `use_template` origin: there
            // the definition is the template alone.
            if !on_template && contains(origin, file.id, offset) {
                if let Some(preset) = project.presets.get(name) {
                    found.extend(uris.uri(&project.file(preset.file).path).map(file_start));
                }
            }
        }
        for action in &fg.actions {
            if action
                .get("expectations_file")
                .is_some_and(|v| contains(&v.origin, file.id, offset))
            {
                for rel in action.expectations_files(&envs) {
                    let target = resolve_project_path(&project.root, &rel);
                    if let Some(uri) = project
                        .has_file(&target)
                        .then(|| uris.uri(&target))
                        .flatten()
                    {
                        let location = file_start(uri);
                        if !found.contains(&location) {
                            found.push(location);
                        }
                    }
                }
            }
            if let Some(dlq) = action
                .get("quarantine")
                .and_then(|q| q.get("dlq_table"))
                .filter(|v| contains(&v.origin, file.id, dlq_offset))
            {
                for tables in
                    crate::handlers::dlq::dlq_tables(project, dlq.as_str().unwrap_or_default())
                {
                    for (ddl_file, span) in
                        [tables.inbox_ddl, tables.outbox_ddl].into_iter().flatten()
                    {
                        if let Some(location) = convert::location(project, uris, ddl_file, &span) {
                            if !found.contains(&location) {
                                found.push(location);
                            }
                        }
                    }
                }
            }
            if let Some(source) = action
                .get("source")
                .filter(|v| contains(&v.origin, file.id, offset))
            {
                let views: Vec<&Value> = match source.as_seq() {
                    Some(items) => items
                        .iter()
                        .filter(|v| contains(&v.origin, file.id, offset))
                        .collect(),
                    None => vec![source],
                };
                for view in views.iter().filter_map(|v| v.as_str()) {
                    for (other_fg, producer) in project.actions() {
                        if other_fg.pipeline != fg.pipeline
                            || producer.get_str("target") != Some(view)
                        {
                            continue;
                        }
                        let target = &producer.get("target").expect("matched above").origin;
                        found.extend(convert::location(project, uris, target.file, &target.span));
                    }
                }
            }
        }
    }
    found
}
