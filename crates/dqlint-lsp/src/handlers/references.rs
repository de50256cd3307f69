//! `textDocument/references`: from a `${token}`, every use in the project
//! (and its definitions when asked); from an expectations file, every
//! data_quality action that uses it.

use std::path::Path;

use dqlint_linter::Context;
use dqlint_project::substitution::{scan_tokens, TokenSyntax};
use dqlint_project::FileKind;
use tower_lsp_server::ls_types::{Location, Position};

use crate::convert;
use crate::workspace::Snapshot;

pub fn references(
    snapshot: &Snapshot,
    path: &Path,
    position: Position,
    with_declaration: bool,
) -> Vec<Location> {
    let project = &snapshot.project;
    let Some(file) = project.file_by_path(path) else {
        return Vec::new();
    };
    let offset = convert::offset(file, position);
    let uris = snapshot.uris();
    let mut found = Vec::new();

    let line = file
        .lines
        .line_range(&file.text, file.lines.line_of(offset));
    let token = scan_tokens(&file.text[line.clone()]).into_iter().find(|t| {
        t.syntax != TokenSyntax::Secret
            && t.range.start + line.start <= offset
            && offset <= t.range.end + line.start
    });
    if let Some(token) = token {
        for source in project
            .files
            .iter()
            .filter(|f| f.kind != FileKind::Substitutions)
        {
            for used in scan_tokens(&source.text) {
                if used.syntax != TokenSyntax::Secret && used.name == token.name {
                    found.extend(convert::location(project, &uris, source.id, &used.range));
                }
            }
        }
        if with_declaration {
            for env in &project.envs {
                if let Some(origin) = env.tokens.get(&token.name).and_then(|v| v.origin.as_ref()) {
                    found.extend(convert::location(project, &uris, origin.file, &origin.span));
                }
            }
        }
        return found;
    }

    if file.kind == FileKind::Expectations {
        let ctx = Context::new(project);
        for (set, users) in ctx.expectation_sets() {
            if set.file != file.id {
                continue;
            }
            for (_, action) in users {
                if let Some(value) = action.get("expectations_file") {
                    found.extend(convert::location(
                        project,
                        &uris,
                        value.origin.file,
                        &value.origin.span,
                    ));
                }
            }
        }
    }
    found
}
