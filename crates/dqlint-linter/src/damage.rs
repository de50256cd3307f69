//! Where a syntax error leaves a document unreliable.
//!
//! The YAML layer recovers a broken document by blanking the offending
//! lines, so the rest of the document still parses. What was on those lines
//! is lost: a `quarantine` key without its `:` takes its `dlq_table` with
//! it, and a rule reading the recovered action would report the block as
//! missing. Such follow-on findings are noise next to the DQ001 that names
//! the real problem, so findings located in the block around a syntax error
//! are withheld until the syntax is repaired.
//!
//! The block around an error is the one the indentation gives: from the
//! nearest line above that is less indented than the broken line (the key or
//! `- ` item that owns it), widened to the list item (action, rule) that key
//! belongs to, down to the next line at the owner's indentation or less. A
//! broken line that is itself a list item owns its own block; a broken
//! top-level line spoils its whole document.

use std::ops::Range;

use dqlint_project::{FileId, Project};

use crate::diagnostic::Diagnostic;

/// The byte ranges, per file, where only syntax findings are trusted.
pub struct Damage {
    regions: Vec<(FileId, Range<usize>)>,
}

impl Damage {
    pub fn of(project: &Project) -> Damage {
        let mut regions = Vec::new();
        for file in &project.files {
            let Some(yaml) = &file.yaml else { continue };
            for error in &yaml.errors {
                let document = yaml
                    .documents
                    .iter()
                    .find(|d| d.span.contains(&error.span.start) || d.span.end == error.span.start)
                    .map(|d| d.span.clone())
                    .unwrap_or(0..file.text.len());
                regions.push((
                    file.id,
                    block_around(&file.text, error.span.start, document),
                ));
            }
        }
        Damage { regions }
    }

    /// Whether `diagnostic` may be a follow-on of a syntax error: it is not
    /// itself about syntax and its primary location is in a damaged block.
    pub fn hides(&self, diagnostic: &Diagnostic) -> bool {
        diagnostic.rule.code != "DQ001"
            && self.regions.iter().any(|(file, range)| {
                *file == diagnostic.primary.file
                    && range.start <= diagnostic.primary.span.start
                    && diagnostic.primary.span.start < range.end
            })
    }
}

/// One line of the document: its byte range and indentation.
struct Line {
    start: usize,
    end: usize,
    indent: usize,
    /// Blank or comment only: says nothing about structure.
    empty: bool,
    item: bool,
}

fn lines_of(text: &str, within: &Range<usize>) -> Vec<Line> {
    let mut lines = Vec::new();
    let mut start = within.start;
    let slice = &text[within.start..within.end.min(text.len())];
    for raw in slice.split_inclusive('\n') {
        let end = start + raw.len();
        let body = raw.trim_end_matches(['\n', '\r']);
        // The YAML recovery's measure: a tab-indented line is nested.
        let content = body.trim_start_matches([' ', '\t']);
        let indent = dqlint_yaml::lines::indent_width(body);
        lines.push(Line {
            start,
            end,
            indent,
            empty: content.is_empty() || content.starts_with('#'),
            item: content == "-" || content.starts_with("- "),
        });
        start = end;
    }
    lines
}

fn block_around(text: &str, at: usize, document: Range<usize>) -> Range<usize> {
    if !text.is_char_boundary(document.start)
        || !text.is_char_boundary(document.end.min(text.len()))
    {
        return document;
    }
    let lines = lines_of(text, &document);
    let Some(broken) = lines
        .iter()
        .position(|l| l.start <= at && at < l.end)
        .or(lines.len().checked_sub(1))
    else {
        return document;
    };
    let owner = if lines[broken].item {
        Some(broken)
    } else {
        let indent = lines[broken].indent;
        lines[..broken]
            .iter()
            .rposition(|l| !l.empty && l.indent < indent)
    };
    let Some(mut owner) = owner else {
        return document;
    };
    // Widen to the list item (an action, a rule) the owner belongs to: the
    // item is what rules report on, from its first line.
    let mut ancestor = owner;
    while !lines[ancestor].item {
        let indent = lines[ancestor].indent;
        match lines[..ancestor]
            .iter()
            .rposition(|l| !l.empty && l.indent < indent)
        {
            Some(above) => ancestor = above,
            None => break,
        }
    }
    if lines[ancestor].item {
        owner = ancestor;
    }
    let owner_indent = lines[owner].indent;
    let end = lines[broken + 1..]
        .iter()
        .find(|l| !l.empty && l.indent <= owner_indent)
        .map(|l| l.start)
        .unwrap_or(document.end);
    lines[owner].start..end
}

#[cfg(test)]
mod tests {
    use super::*;

    fn block(text: &str, broken_line: &str) -> String {
        let at = text.find(broken_line).unwrap();
        text[block_around(text, at, 0..text.len())].to_string()
    }

    const ACTIONS: &str = "pipeline: p\nactions:\n  - name: a\n    mode: quarantine\n    quarantine\n      dlq_table: x\n\n  - name: b\n    target: v\n";

    #[test]
    fn a_broken_key_spoils_the_action_that_owns_it() {
        assert_eq!(
            block(ACTIONS, "    quarantine\n"),
            "  - name: a\n    mode: quarantine\n    quarantine\n      dlq_table: x\n\n"
        );
    }

    #[test]
    fn a_broken_item_line_spoils_only_that_item() {
        let text = "actions:\n  - name a\n    mode: dqe\n  - name: b\n";
        assert_eq!(block(text, "  - name a"), "  - name a\n    mode: dqe\n");
    }

    #[test]
    fn a_broken_top_level_line_spoils_the_document() {
        let text = "pipeline: p\nactions\n  - name: a\n";
        assert_eq!(block(text, "actions\n"), text);
    }

    #[test]
    fn a_broken_nested_line_spoils_its_whole_list_item() {
        let text = "actions:\n  - name: a\n    quarantine:\n      dlq_table: x\n\tsource_table: y\n  - name: b\n    readMode: batch\n";
        assert_eq!(
            block(text, "\tsource_table"),
            "  - name: a\n    quarantine:\n      dlq_table: x\n\tsource_table: y\n"
        );
        let text = "actions:\n  - name: a\n    quarantine:\n      dlq_table x\n  - name: b\n";
        assert_eq!(
            block(text, "      dlq_table x"),
            "  - name: a\n    quarantine:\n      dlq_table x\n"
        );
    }

    #[test]
    fn comments_and_blank_lines_do_not_end_or_own_a_block() {
        let text = "actions:\n  - name: a\n    # note\n    bad line here\n# top comment\n    target: v\n  - name: b\n";
        assert_eq!(
            block(text, "    bad line"),
            "  - name: a\n    # note\n    bad line here\n# top comment\n    target: v\n"
        );
    }
}
