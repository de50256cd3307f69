//! Engine values to LSP values: byte spans to UTF-16 ranges, paths to URIs,
//! findings to diagnostics.

use std::collections::HashMap;
use std::ops::Range as Span;
use std::path::{Path, PathBuf};

use dqlint_linter::{Diagnostic as Finding, Severity};
use dqlint_project::{FileId, Project, SourceFile};
use serde_json::json;
use tower_lsp_server::ls_types::{
    CodeDescription, Diagnostic, DiagnosticRelatedInformation, DiagnosticSeverity, DiagnosticTag,
    Location, NumberOrString, Position, Range, Uri,
};

use crate::settings::Settings;

/// The canonical absolute path of a `file:` URI (the engine's overlay key).
/// A file that exists only in the editor keeps its name under its
/// canonical parent folder.
pub fn uri_to_path(uri: &Uri) -> Option<PathBuf> {
    if uri.scheme().as_str() != "file" {
        return None;
    }
    let path = uri.to_file_path()?.into_owned();
    canonical(&path)
}

pub use dqlint_project::files::canonical;

/// How to name files in messages to the client: open buffers under the URI
/// the client gave, the others from their path.
#[derive(Default)]
pub struct UriMap {
    open: HashMap<PathBuf, Uri>,
}

impl UriMap {
    pub fn new(open: impl IntoIterator<Item = (PathBuf, Uri)>) -> UriMap {
        UriMap {
            open: open.into_iter().collect(),
        }
    }

    pub fn uri(&self, path: &Path) -> Option<Uri> {
        match self.open.get(path) {
            Some(uri) => Some(uri.clone()),
            None => Uri::from_file_path(path),
        }
    }
}

pub fn position(file: &SourceFile, offset: usize) -> Position {
    let (line, character) = file.lines.utf16_position(&file.text, offset);
    Position { line, character }
}

pub fn range(file: &SourceFile, span: &Span<usize>) -> Range {
    Range {
        start: position(file, span.start),
        end: position(file, span.end.max(span.start)),
    }
}

pub fn offset(file: &SourceFile, position: Position) -> usize {
    file.lines
        .offset_of_utf16(&file.text, position.line, position.character)
}

pub fn location(
    project: &Project,
    uris: &UriMap,
    file: FileId,
    span: &Span<usize>,
) -> Option<Location> {
    let source = project.file(file);
    Some(Location {
        uri: uris.uri(&source.path)?,
        range: range(source, span),
    })
}

pub fn severity(severity: Severity) -> DiagnosticSeverity {
    match severity {
        Severity::Error => DiagnosticSeverity::ERROR,
        Severity::Warning => DiagnosticSeverity::WARNING,
        Severity::Info => DiagnosticSeverity::INFORMATION,
    }
}

/// Tags the editor renders specially, as the rule declares them.
fn tags(rule: &dqlint_linter::registry::RuleMeta) -> Option<Vec<DiagnosticTag>> {
    use dqlint_linter::registry::EditorTag;
    rule.editor_tag().map(|tag| {
        vec![match tag {
            EditorTag::Deprecated => DiagnosticTag::DEPRECATED,
            EditorTag::Unnecessary => DiagnosticTag::UNNECESSARY,
        }]
    })
}

/// The message as the CLI prints it: with the environments it holds in.
pub fn message(finding: &Finding) -> String {
    if finding.envs.is_empty() {
        finding.message.clone()
    } else {
        format!("{} [env: {}]", finding.message, finding.envs.join(", "))
    }
}

pub fn diagnostic(
    project: &Project,
    uris: &UriMap,
    settings: &Settings,
    finding: &Finding,
) -> Diagnostic {
    let file = project.file(finding.primary.file);
    let related: Vec<DiagnosticRelatedInformation> = finding
        .related
        .iter()
        .filter_map(|r| {
            Some(DiagnosticRelatedInformation {
                location: location(project, uris, r.location.file, &r.location.span)?,
                message: r.message.clone(),
            })
        })
        .collect();
    let code_description = settings
        .rule_docs_url(finding.rule.code, finding.rule.name)
        .and_then(|url| url.parse::<Uri>().ok())
        .map(|href| CodeDescription { href });
    Diagnostic {
        range: range(file, &finding.primary.span),
        severity: Some(severity(finding.severity)),
        code: Some(NumberOrString::String(finding.rule.code.to_string())),
        code_description,
        source: Some("dqlint".to_string()),
        message: message(finding),
        related_information: (!related.is_empty()).then_some(related),
        tags: tags(finding.rule),
        data: finding.fix.as_ref().map(
            |fix| json!({ "fix": fix.description, "applicability": fix.applicability.as_str() }),
        ),
    }
}
