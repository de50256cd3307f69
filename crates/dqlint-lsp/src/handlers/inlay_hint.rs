//! `textDocument/inlayHint`: after each `${token}` (and deprecated
//! `{token}`) of a file LHP substitutes, its value in each environment.

use dqlint_project::{FileKind, Project, SourceFile, TokenSyntax};
use tower_lsp_server::ls_types::{InlayHint, InlayHintKind, InlayHintLabel, Range};

use crate::convert;

/// Longer values are cut: a hint is a glance, the hover has it whole.
const MAX_VALUE: usize = 40;

pub fn inlay_hints(project: &Project, file: &SourceFile, range: Range) -> Vec<InlayHint> {
    if !matches!(
        file.kind,
        FileKind::Flowgroup
            | FileKind::Template
            | FileKind::Preset
            | FileKind::Expectations
            | FileKind::Sql
            | FileKind::PipelineConfig
    ) || project.envs.is_empty()
    {
        return Vec::new();
    }
    let first = range.start.line as usize;
    let last = (range.end.line as usize).min(file.lines.line_count().saturating_sub(1));
    let mut out = Vec::new();
    for line_no in first..=last {
        let line = file.lines.line_range(&file.text, line_no);
        let text = &file.text[line.clone()];
        if !text.contains('{') {
            continue;
        }
        for token in dqlint_project::substitution::scan_tokens(text) {
            if token.syntax == TokenSyntax::Secret {
                continue;
            }
            let values: Vec<String> = project
                .envs
                .iter()
                .map(|env| {
                    let value = match env.tokens.get(&token.name) {
                        Some(v) if v.value.chars().count() > MAX_VALUE => {
                            let cut: String = v.value.chars().take(MAX_VALUE).collect();
                            format!("{cut}…")
                        }
                        Some(v) => v.value.clone(),
                        None => "(undefined)".to_string(),
                    };
                    if project.envs.len() == 1 {
                        value
                    } else {
                        format!("{}: {value}", env.name)
                    }
                })
                .collect();
            out.push(InlayHint {
                position: convert::position(file, line.start + token.range.end),
                label: InlayHintLabel::String(format!("= {}", values.join(", "))),
                kind: Some(InlayHintKind::PARAMETER),
                text_edits: None,
                tooltip: None,
                padding_left: Some(true),
                padding_right: None,
                data: None,
            });
        }
    }
    out
}
