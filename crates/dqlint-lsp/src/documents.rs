//! Open editor buffers: their text, kept in sync from incremental
//! `didChange` events (UTF-16 positions), and the URI the client used.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use dqlint_project::Overlay;
use dqlint_yaml::LineIndex;
use tower_lsp_server::ls_types::{Position, Range, TextDocumentContentChangeEvent, Uri};

#[derive(Clone, Debug)]
pub struct Document {
    /// The URI exactly as the client sent it; diagnostics for this file are
    /// published under it, even when the canonical path differs (symlinks).
    pub uri: Uri,
    pub version: i32,
    pub text: Arc<str>,
}

/// Open buffers by canonical absolute path (the key the engine's overlay uses).
#[derive(Default, Debug)]
pub struct Documents {
    open: HashMap<PathBuf, Document>,
}

impl Documents {
    pub fn open(&mut self, path: PathBuf, document: Document) {
        self.open.insert(path, document);
    }

    pub fn close(&mut self, path: &Path) -> Option<Document> {
        self.open.remove(path)
    }

    pub fn text(&self, path: &Path) -> Option<Arc<str>> {
        self.open.get(path).map(|d| d.text.clone())
    }

    /// Applies `changes` in order; returns false when the document is not
    /// open (the change is then ignored).
    pub fn change(
        &mut self,
        path: &Path,
        version: i32,
        changes: Vec<TextDocumentContentChangeEvent>,
    ) -> bool {
        let Some(document) = self.open.get_mut(path) else {
            return false;
        };
        let mut text = document.text.to_string();
        for change in changes {
            apply_change(&mut text, change.range, &change.text);
        }
        document.text = Arc::from(text);
        document.version = version;
        true
    }

    /// The buffers under `root`, as the engine's overlay.
    pub fn overlay_under(&self, root: &Path) -> Overlay {
        self.open
            .iter()
            .filter(|(path, _)| path.starts_with(root))
            .map(|(path, doc)| (path.clone(), doc.text.clone()))
            .collect()
    }

    /// Versions of the buffers under `root`.
    pub fn versions_under(&self, root: &Path) -> HashMap<PathBuf, (Uri, i32)> {
        self.open
            .iter()
            .filter(|(path, _)| path.starts_with(root))
            .map(|(path, doc)| (path.clone(), (doc.uri.clone(), doc.version)))
            .collect()
    }
}

/// One content change: a range replacement, or the whole text when `range`
/// is absent. Out-of-range positions clamp to the end of their line or of the
/// text, as the protocol asks.
pub fn apply_change(text: &mut String, range: Option<Range>, new_text: &str) {
    let Some(range) = range else {
        text.clear();
        text.push_str(new_text);
        return;
    };
    let lines = LineIndex::new(text);
    let start = byte_offset(&lines, text, range.start);
    let end = byte_offset(&lines, text, range.end).max(start);
    text.replace_range(start..end, new_text);
}

/// Byte offset of an LSP position (0-based line, UTF-16 column).
pub fn byte_offset(lines: &LineIndex, text: &str, position: Position) -> usize {
    lines.offset_of_utf16(text, position.line, position.character)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn range(l1: u32, c1: u32, l2: u32, c2: u32) -> Option<Range> {
        Some(Range {
            start: Position {
                line: l1,
                character: c1,
            },
            end: Position {
                line: l2,
                character: c2,
            },
        })
    }

    #[test]
    fn edits_count_utf16_units() {
        // `é` is one UTF-16 unit (two bytes), `😀` two units (four bytes).
        let mut text = "a: é😀x\nb: 1\n".to_string();
        apply_change(&mut text, range(0, 6, 0, 7), "Y");
        assert_eq!(text, "a: é😀Y\nb: 1\n");
        apply_change(&mut text, range(0, 3, 0, 4), "");
        assert_eq!(text, "a: 😀Y\nb: 1\n");
    }

    #[test]
    fn inserts_across_lines_and_at_the_end() {
        let mut text = "one\ntwo\n".to_string();
        apply_change(&mut text, range(0, 3, 1, 0), " ");
        assert_eq!(text, "one two\n");
        apply_change(&mut text, range(1, 0, 1, 0), "three\n");
        assert_eq!(text, "one two\nthree\n");
        // Past the end of a line: clamps to the line end, not into the next line.
        apply_change(&mut text, range(0, 99, 0, 99), "!");
        assert_eq!(text, "one two!\nthree\n");
        // Past the last line: the end of the text.
        apply_change(&mut text, range(9, 0, 9, 0), "four");
        assert_eq!(text, "one two!\nthree\nfour");
    }

    #[test]
    fn crlf_line_ends_stay_whole() {
        let mut text = "a: 1\r\nb: 2\r\n".to_string();
        apply_change(&mut text, range(0, 4, 0, 4), "0");
        assert_eq!(text, "a: 10\r\nb: 2\r\n");
    }

    #[test]
    fn full_replacement() {
        let mut text = "old".to_string();
        apply_change(&mut text, None, "new");
        assert_eq!(text, "new");
    }
}
