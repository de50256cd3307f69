//! `textDocument/foldingRange`: the YAML blocks of a file a dialect claims
//! (a key holding a mapping, a list or a block scalar; a list item), read
//! from the buffer's text by indentation, so that it works while the
//! buffer does not parse.

use dqlint_project::SourceFile;
use tower_lsp_server::ls_types::{FoldingRange, FoldingRangeKind};

/// Leading spaces of a line; for a list item, those before its `- `.
fn lead(line: &str) -> usize {
    line.len() - line.trim_start_matches(' ').len()
}

fn is_item(line: &str) -> bool {
    let t = line.trim_start_matches(' ');
    t == "-" || t.starts_with("- ")
}

pub fn folding_ranges(file: &SourceFile) -> Vec<FoldingRange> {
    if !file.kind.is_yaml() || file.text.trim_start().starts_with(['{', '[']) {
        return Vec::new();
    }
    let lines: Vec<&str> = file
        .text
        .split('\n')
        .map(|l| l.trim_end_matches('\r'))
        .collect();
    let content = |l: &str| {
        let t = l.trim();
        !t.is_empty() && !t.starts_with('#')
    };
    let mut out = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        if !content(line) || line.starts_with("---") {
            continue;
        }
        let base = lead(line);
        // A key with nothing after its colon (or a block scalar) holds what
        // follows; an item holds its own keys.
        let body = line.trim();
        let holds = is_item(line)
            || body.ends_with(':')
            || body.ends_with(": |")
            || body.ends_with(": >")
            || body.ends_with(": |-")
            || body.ends_with(": >-");
        if !holds {
            continue;
        }
        let mut end = None;
        for (j, next) in lines.iter().enumerate().skip(i + 1) {
            if next.starts_with("---") {
                break;
            }
            if !content(next) {
                continue;
            }
            let inside = lead(next) > base
                // An unindented list belongs to the key above it.
                || (!is_item(line) && is_item(next) && lead(next) == base);
            if !inside {
                break;
            }
            end = Some(j);
        }
        if let Some(end) = end {
            out.push(FoldingRange {
                start_line: i as u32,
                start_character: None,
                end_line: end as u32,
                end_character: None,
                kind: Some(FoldingRangeKind::Region),
                collapsed_text: None,
            });
        }
    }
    out
}
