//! Suppression comments in the editor: "Suppress DQxxx on this line" and
//! "... in this file", quick fixes per finding under the cursor that write
//! a `dqlint: ignore[...]` / `ignore-file[...]` comment (YAML and SQL files; JSON has no comments; where
//! the comment goes is decided, and checked, by
//! [`dqlint_linter::suppression::suppress_edit`]), and hover on a code in
//! such a comment.

use std::collections::{HashMap, HashSet};

use dqlint_linter::suppression::{suppress_edit, suppress_file_edit, UNUSED_SUPPRESSION};
use dqlint_linter::Diagnostic as Finding;
use dqlint_linter::RULES;
use dqlint_project::SourceFile;
use tower_lsp_server::ls_types::{
    CodeAction, CodeActionKind, CodeActionOrCommand, Hover, HoverContents, MarkupContent,
    MarkupKind, Range, TextEdit, WorkspaceEdit,
};

use crate::convert::{self, UriMap};
use crate::workspace::Snapshot;

/// A sub-kind of `quickfix`: clients asking for quick fixes get it, and
/// can tell it from the fixes that repair the configuration.
pub const SUPPRESS: &str = "quickfix.dqlint.suppress";

pub fn actions(
    snapshot: &Snapshot,
    uris: &UriMap,
    file: &SourceFile,
    findings: &[&Finding],
    range: &Range,
    overlaps: impl Fn(&Range, &Range) -> bool,
) -> Vec<CodeActionOrCommand> {
    let Some(uri) = uris.uri(&file.path) else {
        return Vec::new();
    };
    let mut offered: HashSet<(&str, Option<usize>)> = HashSet::new();
    let mut out = Vec::new();
    for finding in findings {
        // An unused suppression has its own fix: removing the directive.
        if finding.rule.code == UNUSED_SUPPRESSION {
            continue;
        }
        let diagnostic = convert::diagnostic(&snapshot.project, uris, &snapshot.settings, finding);
        if !overlaps(&diagnostic.range, range) {
            continue;
        }
        let code = finding.rule.code;
        let line = file.lines.line_of(finding.primary.span.start);
        let choices = [
            (
                Some(line),
                suppress_edit(file, finding.rule, finding.primary.span.start),
                "on this line",
            ),
            (None, suppress_file_edit(file, finding.rule), "in this file"),
        ];
        for (scope, edit, place) in choices {
            let Some(edit) = edit else { continue };
            if !offered.insert((code, scope)) {
                continue;
            }
            let text_edit = TextEdit {
                range: convert::range(file, &edit.span),
                new_text: edit.new_text,
            };
            out.push(CodeActionOrCommand::CodeAction(CodeAction {
                title: format!("Suppress {code} {place}"),
                kind: Some(CodeActionKind::new(SUPPRESS)),
                diagnostics: Some(vec![diagnostic.clone()]),
                edit: Some(WorkspaceEdit {
                    changes: Some(HashMap::from([(uri.clone(), vec![text_edit])])),
                    ..WorkspaceEdit::default()
                }),
                is_preferred: Some(false),
                ..CodeAction::default()
            }));
        }
    }
    out
}

/// Hover on a code in a suppression comment: the rule's documentation (for
/// a prefix, the rules it covers).
pub fn hover(file: &SourceFile, offset: usize) -> Option<Hover> {
    let directive = dqlint_linter::suppression::directives(file)
        .into_iter()
        .find(|d| d.span.start <= offset && offset <= d.span.end)?;
    let entry = directive
        .entries
        .iter()
        .find(|e| e.span.start <= offset && offset <= e.span.end)?;
    let rules: Vec<_> = RULES.iter().filter(|r| entry.covers(r)).collect();
    let value = match rules.as_slice() {
        [] => format!(
            "`{}` is not a dqlint rule code, prefix or name.",
            entry.text
        ),
        [rule] => format!(
            "### {} {}\n\nDefault severity: {}\n\n{}",
            rule.code,
            rule.name,
            rule.severity.as_str(),
            rule.doc().replace("\n## ", "\n#### ")
        ),
        many => {
            let mut out = format!("`{}` covers {} rules:\n\n", entry.text, many.len());
            for rule in many {
                out.push_str(&format!(
                    "- **{}** `{}`: {}\n",
                    rule.code,
                    rule.name,
                    rule.summary()
                ));
            }
            out
        }
    };
    Some(Hover {
        contents: HoverContents::Markup(MarkupContent {
            kind: MarkupKind::Markdown,
            value,
        }),
        range: Some(convert::range(file, &entry.span)),
    })
}
