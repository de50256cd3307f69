//! Byte offsets to human positions: 1-based lines, columns in Unicode scalar
//! values (CLI) or UTF-16 code units (LSP).

use memchr::memchr_iter;

/// Start offsets of every line of a text. [`LineIndex::lazy`] finds them
/// on the first question: a project's files are read in full, and only
/// those with something to report are asked where their lines start.
#[derive(Clone, Debug, Default)]
pub struct LineIndex {
    starts: std::sync::OnceLock<Vec<usize>>,
    /// The text, kept until the first question by a lazy index.
    text: Option<std::sync::Arc<str>>,
    len: usize,
}

/// A position as people read it: 1-based line, 1-based column.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Position {
    pub line: u32,
    pub column: u32,
}

impl LineIndex {
    pub fn new(text: &str) -> LineIndex {
        LineIndex {
            starts: std::sync::OnceLock::from(line_starts(text)),
            text: None,
            len: text.len(),
        }
    }

    /// The index of `text`, whose line starts are found when first needed.
    pub fn lazy(text: std::sync::Arc<str>) -> LineIndex {
        LineIndex {
            starts: std::sync::OnceLock::new(),
            len: text.len(),
            text: Some(text),
        }
    }

    fn starts(&self) -> &[usize] {
        // A default index (no text) has no lines.
        self.starts
            .get_or_init(|| self.text.as_deref().map(line_starts).unwrap_or_default())
    }

    pub fn line_count(&self) -> usize {
        self.starts().len()
    }

    /// 0-based line of a byte offset.
    pub fn line_of(&self, offset: usize) -> usize {
        match self.starts().binary_search(&offset.min(self.len)) {
            Ok(line) => line,
            Err(next) => next - 1,
        }
    }

    /// Byte offset where a 0-based line starts.
    pub fn line_start(&self, line: usize) -> usize {
        self.starts().get(line).copied().unwrap_or(self.len)
    }

    /// Byte range of a 0-based line, without its line break.
    pub fn line_range(&self, text: &str, line: usize) -> std::ops::Range<usize> {
        let start = self.line_start(line);
        let mut end = self
            .starts()
            .get(line + 1)
            .map(|s| s - 1)
            .unwrap_or(self.len);
        if end > start && text.as_bytes().get(end - 1) == Some(&b'\r') {
            end -= 1;
        }
        start..end.max(start)
    }

    /// 1-based line and column (in Unicode scalar values) of a byte offset.
    pub fn position(&self, text: &str, offset: usize) -> Position {
        let offset = floor_char_boundary(text, offset.min(text.len()));
        let line = self.line_of(offset);
        let start = self.line_start(line);
        let column = text[start..offset].chars().count();
        Position {
            line: line as u32 + 1,
            column: column as u32 + 1,
        }
    }

    /// 0-based line and UTF-16 column of a byte offset (the LSP's encoding).
    pub fn utf16_position(&self, text: &str, offset: usize) -> (u32, u32) {
        let offset = floor_char_boundary(text, offset.min(text.len()));
        let line = self.line_of(offset);
        let start = self.line_start(line);
        let column: usize = text[start..offset].chars().map(char::len_utf16).sum();
        (line as u32, column as u32)
    }

    /// Byte offset of a 0-based line and UTF-16 column; clamps to the line.
    pub fn offset_of_utf16(&self, text: &str, line: u32, column: u32) -> usize {
        if line as usize >= self.starts().len() {
            return text.len();
        }
        let range = self.line_range(text, line as usize);
        let mut units = 0u32;
        for (i, c) in text[range.clone()].char_indices() {
            if units >= column {
                return range.start + i;
            }
            units += c.len_utf16() as u32;
        }
        range.end
    }
}

fn line_starts(text: &str) -> Vec<usize> {
    let mut starts = vec![0];
    starts.extend(memchr_iter(b'\n', text.as_bytes()).map(|i| i + 1));
    starts
}

/// Columns of a line's leading indentation, a tab counting eight. YAML
/// forbids tabs there, which is often the very error being recovered from:
/// counting one deep keeps a tab-indented line nested, not top-level.
pub fn indent_width(line: &str) -> usize {
    let body = line.trim_start_matches([' ', '\t']);
    line[..line.len() - body.len()]
        .chars()
        .map(|c| if c == '\t' { 8 } else { 1 })
        .sum()
}

/// tree-sitter's position of a byte offset: 0-based row, column in bytes.
pub fn point_at(text: &str, offset: usize) -> tree_sitter::Point {
    point_after(
        tree_sitter::Point { row: 0, column: 0 },
        &text.as_bytes()[..offset.min(text.len())],
    )
}

/// tree-sitter's position just after `bytes`, which start at `from`.
pub fn point_after(from: tree_sitter::Point, bytes: &[u8]) -> tree_sitter::Point {
    match memchr::memrchr(b'\n', bytes) {
        Some(last) => tree_sitter::Point {
            row: from.row + memchr_iter(b'\n', bytes).count(),
            column: bytes.len() - last - 1,
        },
        None => tree_sitter::Point {
            row: from.row,
            column: from.column + bytes.len(),
        },
    }
}

pub fn floor_char_boundary(text: &str, mut offset: usize) -> usize {
    while offset > 0 && !text.is_char_boundary(offset) {
        offset -= 1;
    }
    offset
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positions_count_scalar_values_and_utf16_units() {
        let text = "a: é\nb: 😀x\n";
        let index = LineIndex::new(text);
        let x = text.find('x').unwrap();
        assert_eq!(index.position(text, x), Position { line: 2, column: 5 });
        assert_eq!(index.utf16_position(text, x), (1, 5));
        assert_eq!(index.offset_of_utf16(text, 1, 5), x);
        assert_eq!(
            index.position(text, text.len()),
            Position { line: 3, column: 1 }
        );
    }
}
