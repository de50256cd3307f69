//! `textDocument/definition`: `expectations_file` -> the file; `${token}`
//! -> its definition in each substitutions file; `use_template` -> the
//! template; a preset name -> the preset; a `source` view -> the action(s)
//! whose `target` it is.

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
    found
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
    let mut found = Vec::new();
    for fg in &project.flowgroups {
        if let Some((name, origin)) = &fg.template {
            if contains(origin, file.id, offset) {
                if let Some(template) = project.templates.get(name) {
                    found.extend(uris.uri(&project.file(template.file).path).map(file_start));
                }
            }
        }
        for (name, origin) in &fg.presets {
            if contains(origin, file.id, offset) {
                if let Some(preset) = project.presets.get(name) {
                    found.extend(uris.uri(&project.file(preset.file).path).map(file_start));
                }
            }
        }
        for action in &fg.actions {
            if let Some(value) = action
                .get("expectations_file")
                .filter(|v| contains(&v.origin, file.id, offset))
            {
                let Some(written) = value.as_str() else {
                    continue;
                };
                for env in dqlint_project::envs_or_none(&project.envs) {
                    let resolved = env.resolve(written);
                    if !resolved.unresolved.is_empty() {
                        continue;
                    }
                    let target = resolve_project_path(
                        &project.root,
                        &dqlint_project::normalize_rel(&resolved.text),
                    );
                    if let Some(uri) = target.is_file().then(|| uris.uri(&target)).flatten() {
                        let location = file_start(uri);
                        if !found.contains(&location) {
                            found.push(location);
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
