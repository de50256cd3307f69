//! `textDocument/documentLink`: the files a flowgroup or template names
//! (`expectations_file`, `sql_path`, `schema_file`, `tags_file`, a
//! `use_template`, `presets`) link to the file, when it exists.

use std::path::{Path, PathBuf};

use dqlint_project::{resolve_project_path, Origin, SourceFile, Value};
use tower_lsp_server::ls_types::DocumentLink;

use crate::convert;
use crate::workspace::Snapshot;

/// Keys whose value is a path from the project root.
const PATH_KEYS: [&str; 4] = ["expectations_file", "sql_path", "schema_file", "tags_file"];

pub fn document_links(snapshot: &Snapshot, path: &Path) -> Vec<DocumentLink> {
    let project = &snapshot.project;
    let Some(file) = project.file_by_path(path) else {
        return Vec::new();
    };
    let uris = snapshot.uris();
    let envs = dqlint_project::envs_or_none(&project.envs);
    let mut out: Vec<DocumentLink> = Vec::new();
    let mut push = |origin: &Origin, target: PathBuf, tooltip: String| {
        if origin.file != file.id || !project.has_file(&target) {
            return;
        }
        let Some(uri) = uris.uri(&target) else {
            return;
        };
        let range = convert::range(file, &value_span(file, origin));
        if out.iter().any(|l| l.range == range) {
            return;
        }
        out.push(DocumentLink {
            range,
            target: Some(uri),
            tooltip: Some(tooltip),
            data: None,
        });
    };
    for fg in &project.flowgroups {
        if let Some((name, origin)) = &fg.template {
            if let Some(template) = project.templates.get(name) {
                let target = project.file(template.file);
                push(
                    origin,
                    target.path.clone(),
                    format!("template {}", target.rel),
                );
            }
        }
        for (name, origin) in &fg.presets {
            if let Some(preset) = project.presets.get(name) {
                let target = project.file(preset.file);
                push(
                    origin,
                    target.path.clone(),
                    format!("preset {}", target.rel),
                );
            }
        }
        for action in &fg.actions {
            let mut values: Vec<&Value> = Vec::new();
            for block in [
                Some(&action.value),
                action.get("source"),
                action.get("write_target"),
            ]
            .into_iter()
            .flatten()
            {
                values.extend(PATH_KEYS.iter().filter_map(|k| block.get(k)));
            }
            for value in values {
                let Some(raw) = value.as_str() else { continue };
                // A path with tokens links where the first environment puts it.
                let rel = match envs.first() {
                    Some(env) => env.resolve(raw).text,
                    None => raw.to_string(),
                };
                let rel = dqlint_project::normalize_rel(&rel);
                push(
                    &value.origin,
                    resolve_project_path(&project.root, &rel),
                    rel,
                );
            }
        }
    }
    out
}

/// The span of a scalar without its quotes.
fn value_span(file: &SourceFile, origin: &Origin) -> std::ops::Range<usize> {
    let raw = file.text.get(origin.span.clone()).unwrap_or("");
    if raw.len() >= 2 && (raw.starts_with('"') || raw.starts_with('\'')) {
        origin.span.start + 1..origin.span.end - 1
    } else {
        origin.span.clone()
    }
}
