//! `textDocument/codeAction`: a quick fix per finding that carries a fix,
//! and `source.fixAll.dqlint` applying every safe fix of the file.

use std::collections::HashMap;
use std::path::Path;

use dqlint_linter::{Applicability, Diagnostic as Finding, Edit};
use tower_lsp_server::ls_types::{
    CodeAction, CodeActionKind, CodeActionOrCommand, Range, TextEdit, Uri, WorkspaceEdit,
};

use crate::convert::{self, UriMap};
use crate::workspace::Snapshot;

pub const FIX_ALL: &str = "source.fixAll.dqlint";

pub fn fix_all_kind() -> CodeActionKind {
    CodeActionKind::new(FIX_ALL)
}

/// Whether an action of `kind` was asked for: `only` lists kinds or their
/// parents (`source` covers `source.fixAll.dqlint`).
fn wanted(only: Option<&[CodeActionKind]>, kind: &str) -> bool {
    let Some(only) = only else { return true };
    only.iter().any(|k| {
        let k = k.as_str();
        kind == k
            || kind
                .strip_prefix(k)
                .is_some_and(|rest| rest.starts_with('.'))
    })
}

fn overlaps(a: &Range, b: &Range) -> bool {
    (a.start.line, a.start.character) <= (b.end.line, b.end.character)
        && (b.start.line, b.start.character) <= (a.end.line, a.end.character)
}

fn workspace_edit(snapshot: &Snapshot, uris: &UriMap, edits: &[&Edit]) -> Option<WorkspaceEdit> {
    let mut changes: HashMap<Uri, Vec<TextEdit>> = HashMap::new();
    for edit in edits {
        let file = snapshot.project.file(edit.file);
        changes
            .entry(uris.uri(&file.path)?)
            .or_default()
            .push(TextEdit {
                range: convert::range(file, &edit.span),
                new_text: edit.new_text.clone(),
            });
    }
    Some(WorkspaceEdit {
        changes: Some(changes),
        ..WorkspaceEdit::default()
    })
}

pub fn code_actions(
    snapshot: &Snapshot,
    path: &Path,
    range: Range,
    only: Option<&[CodeActionKind]>,
) -> Vec<CodeActionOrCommand> {
    let Some(file) = snapshot.project.file_by_path(path) else {
        return Vec::new();
    };
    let uris = snapshot.uris();
    let in_file: Vec<&Finding> = snapshot
        .findings
        .iter()
        .filter(|f| f.primary.file == file.id)
        .collect();
    let mut actions = Vec::new();

    if wanted(only, CodeActionKind::QUICKFIX.as_str()) {
        for finding in &in_file {
            let Some(fix) = &finding.fix else { continue };
            let diagnostic =
                convert::diagnostic(&snapshot.project, &uris, &snapshot.settings, finding);
            if !overlaps(&diagnostic.range, &range) {
                continue;
            }
            let edits: Vec<&Edit> = fix.edits.iter().collect();
            let Some(edit) = workspace_edit(snapshot, &uris, &edits) else {
                continue;
            };
            let unsafe_note = if fix.applicability == Applicability::Unsafe {
                " (changes behaviour)"
            } else {
                ""
            };
            actions.push(CodeActionOrCommand::CodeAction(CodeAction {
                title: format!("{}: {}{unsafe_note}", finding.rule.code, fix.description),
                kind: Some(CodeActionKind::QUICKFIX),
                diagnostics: Some(vec![diagnostic]),
                edit: Some(edit),
                is_preferred: Some(fix.applicability == Applicability::Safe),
                ..CodeAction::default()
            }));
        }
    }

    if wanted(only, super::suppress::SUPPRESS) {
        actions.extend(super::suppress::actions(
            snapshot, &uris, file, &in_file, &range, overlaps,
        ));
    }

    if wanted(only, FIX_ALL) {
        // Safe fixes whose edits stay in this file and do not overlap an
        // edit already taken.
        let mut taken: Vec<&Edit> = Vec::new();
        let mut fixes = 0;
        for finding in &in_file {
            let Some(fix) = finding
                .fix
                .as_ref()
                .filter(|f| f.applicability == Applicability::Safe)
            else {
                continue;
            };
            if fix.edits.iter().any(|e| e.file != file.id) {
                continue;
            }
            let clashes = fix.edits.iter().any(|e| {
                taken.iter().any(|t| {
                    e.span.start < t.span.end.max(t.span.start + 1)
                        && t.span.start < e.span.end.max(e.span.start + 1)
                })
            });
            if clashes {
                continue;
            }
            taken.extend(fix.edits.iter());
            fixes += 1;
        }
        if fixes > 0 {
            if let Some(edit) = workspace_edit(snapshot, &uris, &taken) {
                actions.push(CodeActionOrCommand::CodeAction(CodeAction {
                    title: format!(
                        "dqlint: apply {fixes} safe fix{}",
                        if fixes == 1 { "" } else { "es" }
                    ),
                    kind: Some(fix_all_kind()),
                    edit: Some(edit),
                    ..CodeAction::default()
                }));
            }
        }
    }
    actions
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_match_their_parents() {
        assert!(wanted(None, FIX_ALL));
        assert!(wanted(Some(&[CodeActionKind::SOURCE]), FIX_ALL));
        assert!(wanted(Some(&[CodeActionKind::SOURCE_FIX_ALL]), FIX_ALL));
        assert!(!wanted(Some(&[CodeActionKind::QUICKFIX]), FIX_ALL));
        assert!(!wanted(Some(&[CodeActionKind::new("source.fix")]), FIX_ALL));
        assert!(wanted(Some(&[CodeActionKind::QUICKFIX]), "quickfix"));
    }
}
