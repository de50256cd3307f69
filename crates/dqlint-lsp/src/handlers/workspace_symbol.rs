//! `workspace/symbol`: flowgroups, actions, the views they make, DLQ
//! tables, expectations files and DQX checks files of every project, by a
//! case-insensitive match of the query's characters in order.

use dqlint_project::{FileKind, Origin};
use tower_lsp_server::ls_types::{Location, OneOf, SymbolKind, WorkspaceSymbol};

use crate::convert;
use crate::workspace::Snapshot;

/// More would not help a picker; clients ask again as the query grows.
const LIMIT: usize = 500;

/// Whether `query`'s characters appear in `name` in order (any case).
fn matches(name: &str, query: &str) -> bool {
    let mut chars = name.chars().flat_map(char::to_lowercase);
    query
        .chars()
        .flat_map(char::to_lowercase)
        .all(|q| chars.any(|c| c == q))
}

pub fn workspace_symbols(
    snapshots: &[std::sync::Arc<Snapshot>],
    query: &str,
) -> Vec<WorkspaceSymbol> {
    let mut out = Vec::new();
    for snapshot in snapshots {
        let project = &snapshot.project;
        let uris = snapshot.uris();
        let mut push = |name: &str, kind: SymbolKind, container: Option<&str>, origin: &Origin| {
            if out.len() >= LIMIT || !matches(name, query) {
                return;
            }
            let Some(location) = convert::location(project, &uris, origin.file, &origin.span)
            else {
                return;
            };
            out.push(symbol(name, kind, container, location));
        };
        for fg in &project.flowgroups {
            let fg_name = fg.name.as_deref().unwrap_or("?");
            let origin = fg
                .doc
                .get("flowgroup")
                .map(|v| &v.origin)
                .unwrap_or(&fg.doc.origin);
            push(fg_name, SymbolKind::MODULE, fg.pipeline.as_deref(), origin);
            for action in &fg.actions {
                if let Some(name) = action.get("name") {
                    push(
                        name.as_str().unwrap_or("?"),
                        SymbolKind::FUNCTION,
                        Some(fg_name),
                        &name.origin,
                    );
                }
                if let Some(target) = action.get("target").filter(|t| t.as_str().is_some()) {
                    push(
                        target.as_str().unwrap_or("?"),
                        SymbolKind::VARIABLE,
                        Some(fg_name),
                        &target.origin,
                    );
                }
                if let Some(dlq) = action.get("quarantine").and_then(|q| q.get("dlq_table")) {
                    push(
                        dlq.as_str().unwrap_or("?"),
                        SymbolKind::STRUCT,
                        Some(fg_name),
                        &dlq.origin,
                    );
                }
            }
        }
        for file in &project.files {
            let kind = match file.kind {
                FileKind::Expectations => SymbolKind::FILE,
                FileKind::DqxChecks | FileKind::DqxRunConfig => SymbolKind::PACKAGE,
                _ => continue,
            };
            let whole = Origin {
                file: file.id,
                span: 0..0,
                via: None,
            };
            push(&file.rel, kind, None, &whole);
        }
    }
    out
}

#[allow(deprecated)]
fn symbol(
    name: &str,
    kind: SymbolKind,
    container: Option<&str>,
    location: Location,
) -> WorkspaceSymbol {
    WorkspaceSymbol {
        name: name.to_string(),
        kind,
        tags: None,
        container_name: container.map(str::to_string),
        location: OneOf::Left(location),
        data: None,
    }
}

#[cfg(test)]
mod tests {
    use super::matches;

    #[test]
    fn characters_in_order_any_case() {
        assert!(matches("orders_dq", "odq"));
        assert!(matches("Orders", "ORD"));
        assert!(matches("x", ""));
        assert!(!matches("orders", "sro"));
    }
}
