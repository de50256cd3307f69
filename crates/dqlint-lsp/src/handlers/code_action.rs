//! `textDocument/codeAction`: a quick fix per finding that carries a fix,
//! and `source.fixAll.dqlint` applying every safe fix of the file.

use std::collections::BTreeMap;
use std::path::Path;

use dqlint_linter::fix::{apply_plan, FixMode, FixPlan};
use dqlint_linter::{Applicability, Diagnostic as Finding};
use dqlint_project::FileId;
use tower_lsp_server::ls_types::{
    AnnotatedTextEdit, CodeAction, CodeActionKind, CodeActionOrCommand, DocumentChanges, OneOf,
    OptionalVersionedTextDocumentIdentifier, Range, TextDocumentEdit, TextEdit, WorkspaceEdit,
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

/// The edits of `fixes`, checked by the one fix engine (dqlint-linter's
/// `fix`: the conflict rule and the refusal of edits that break a file are
/// those of `dqlint lint --fix`), as a workspace edit; `None` when the
/// engine refuses them. Each open document's edits carry the version they
/// were computed on, so the client applies nothing to a buffer that
/// changed since (the server never writes files itself).
fn checked_edit<'a>(
    snapshot: &Snapshot,
    uris: &UriMap,
    fixes: impl IntoIterator<Item = &'a Finding>,
    mode: FixMode,
    only_file: Option<FileId>,
) -> Option<(WorkspaceEdit, usize)> {
    let plan = FixPlan::choose(fixes, mode, |f| only_file.is_some_and(|only| f != only));
    let round = apply_plan(&snapshot.project, plan);
    if round.fixes.is_empty() || !round.rejected.is_empty() && only_file.is_none() {
        return None;
    }
    let mut by_file: BTreeMap<FileId, Vec<dqlint_linter::fix::TextEdit>> = BTreeMap::new();
    for (file, edit) in round.fixes.iter().flat_map(|f| f.edits.iter()) {
        by_file.entry(*file).or_default().push(edit.clone());
    }
    let mut documents = Vec::new();
    for (file, mut edits) in by_file {
        let file = snapshot.project.file(file);
        edits.sort_by_key(|e| (e.span.start, e.span.end));
        let version = snapshot.versions.get(&file.path).map(|(_, v)| *v);
        documents.push(TextDocumentEdit {
            text_document: OptionalVersionedTextDocumentIdentifier {
                uri: uris.uri(&file.path)?,
                version,
            },
            edits: edits
                .iter()
                .map(|e| {
                    OneOf::Left::<TextEdit, AnnotatedTextEdit>(TextEdit {
                        range: convert::range(file, &e.span),
                        new_text: e.new_text.clone(),
                    })
                })
                .collect(),
        });
    }
    let edit = WorkspaceEdit {
        document_changes: Some(DocumentChanges::Edits(documents)),
        ..WorkspaceEdit::default()
    };
    Some((edit, round.fixes.len()))
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
            let Some((edit, _)) =
                checked_edit(snapshot, &uris, [*finding], FixMode::IncludeUnsafe, None)
            else {
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
        // Safe fixes whose edits stay in this file, as `--fix` takes
        // them in one round.
        let fixed = checked_edit(
            snapshot,
            &uris,
            in_file.iter().copied(),
            FixMode::SafeOnly,
            Some(file.id),
        );
        if let Some((edit, fixes)) = fixed {
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
