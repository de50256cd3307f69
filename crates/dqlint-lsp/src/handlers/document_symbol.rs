//! `textDocument/documentSymbol`: flowgroup > actions (with their type);
//! expectations file > rules.

use std::path::Path;

use dqlint_project::{FileKind, Origin, SourceFile};
use tower_lsp_server::ls_types::{DocumentSymbol, SymbolKind};

use crate::convert;
use crate::workspace::Snapshot;

#[allow(deprecated)] // `DocumentSymbol::deprecated` has to be spelled out.
fn symbol(
    file: &SourceFile,
    name: String,
    detail: Option<String>,
    kind: SymbolKind,
    whole: &std::ops::Range<usize>,
    selection: &std::ops::Range<usize>,
    children: Vec<DocumentSymbol>,
) -> DocumentSymbol {
    let range = convert::range(file, whole);
    // The selection range must lie inside the range.
    let selection = if selection.start >= whole.start && selection.end <= whole.end {
        selection
    } else {
        whole
    };
    DocumentSymbol {
        name: if name.trim().is_empty() {
            "?".into()
        } else {
            name
        },
        detail,
        kind,
        tags: None,
        deprecated: None,
        range,
        selection_range: convert::range(file, selection),
        children: (!children.is_empty()).then_some(children),
    }
}

/// Only what is written in this file: values that came from a template or
/// a preset live elsewhere.
fn here(file: &SourceFile, origin: &Origin) -> bool {
    origin.file == file.id && origin.via.is_none()
}

pub fn document_symbols(snapshot: &Snapshot, path: &Path) -> Option<Vec<DocumentSymbol>> {
    let project = &snapshot.project;
    let file = project.file_by_path(path)?;
    match file.kind {
        FileKind::Flowgroup => Some(
            project
                .flowgroups
                .iter()
                .filter(|fg| fg.file == file.id && here(file, &fg.doc.origin))
                .map(|fg| {
                    let actions = fg
                        .actions
                        .iter()
                        .filter(|a| here(file, &a.value.origin))
                        .map(|action| {
                            let selection = action
                                .get("name")
                                .map(|v| v.origin.span.clone())
                                .unwrap_or(action.value.origin.span.clone());
                            let detail = match (
                                action.action_type(),
                                action.transform_type(),
                                action.get_str("mode"),
                            ) {
                                (Some(t), Some(tt), Some(mode)) => {
                                    Some(format!("{t} / {tt} ({mode})"))
                                }
                                (Some(t), Some(tt), None) => Some(format!("{t} / {tt}")),
                                (Some(t), None, _) => Some(t.to_string()),
                                _ => None,
                            };
                            symbol(
                                file,
                                action.name().unwrap_or("?").to_string(),
                                detail,
                                SymbolKind::FUNCTION,
                                &action.value.origin.span,
                                &selection,
                                Vec::new(),
                            )
                        })
                        .collect();
                    let selection = fg
                        .doc
                        .entry("flowgroup")
                        .map(|e| e.value.origin.span.clone())
                        .unwrap_or(fg.doc.origin.span.clone());
                    symbol(
                        file,
                        fg.name.clone().unwrap_or_else(|| "flowgroup".into()),
                        fg.pipeline.as_ref().map(|p| format!("pipeline {p}")),
                        SymbolKind::MODULE,
                        &fg.doc.origin.span,
                        &selection,
                        actions,
                    )
                })
                .collect(),
        ),
        FileKind::Expectations => {
            let set = project.expectations.values().find(|s| s.file == file.id)?;
            Some(
                set.rules
                    .iter()
                    .map(|rule| {
                        let expression = rule.expression.as_ref().map(|e| e.text.clone());
                        let name = rule
                            .name
                            .as_ref()
                            .map(|n| n.text.clone())
                            .or_else(|| expression.clone())
                            .unwrap_or_else(|| format!("rule {}", rule.index + 1));
                        let detail = match (rule.action, &expression) {
                            (Some(a), Some(e)) if rule.name.is_some() => {
                                Some(format!("{}: {e}", a.as_str()))
                            }
                            (Some(a), _) => Some(a.as_str().to_string()),
                            _ => None,
                        };
                        let selection = rule
                            .name
                            .as_ref()
                            .map(|n| n.span.clone())
                            .unwrap_or(rule.span.clone());
                        symbol(
                            file,
                            name,
                            detail,
                            SymbolKind::PROPERTY,
                            &rule.span,
                            &selection,
                            Vec::new(),
                        )
                    })
                    .collect(),
            )
        }
        _ => None,
    }
}
