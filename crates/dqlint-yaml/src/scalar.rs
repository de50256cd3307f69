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
    /// escape; a folded line break maps to the line break it replaced.
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
///
/// Never panics: malformed input (bad escapes, missing closing quote, odd
/// block headers) decodes leniently, keeping unexplained text literally.
pub fn decode(raw: &str, style: ScalarStyle, parent_indent: usize) -> Decoded {
    let mut out = Out::new(true);
    decode_into(raw, style, parent_indent, &mut out);
    let Out { value, sources } = out;
    let sources = sources.unwrap_or_default();
    debug_assert_eq!(
        sources.len(),
        value.len(),
        "offset map must cover every decoded byte"
    );
    Decoded { value, sources }
}

/// Decodes without building the offset map: the fast path for values that
/// no finding will point inside. Shares the decoder with [`decode`], so the
/// value is identical by construction.
pub fn decode_value(raw: &str, style: ScalarStyle, parent_indent: usize) -> String {
    if let Some(value) = verbatim(raw, style) {
        return value.to_string();
    }
    let mut out = Out::new(false);
    decode_into(raw, style, parent_indent, &mut out);
    out.value
}

/// The value of a one-line scalar that needs no decoding (no break to fold,
/// no escape, no doubled quote): most scalars of a real project. `None`
/// sends the scalar through the decoder; tests check both agree.
fn verbatim(raw: &str, style: ScalarStyle) -> Option<&str> {
    // Scalars are short: a plain loop beats a vectorised search's set-up.
    if raw.bytes().any(|b| b == b'\n' || b == b'\r') {
        return None;
    }
    match style {
        ScalarStyle::Plain => Some(raw.trim_matches(|c| c == ' ' || c == '\t')),
        ScalarStyle::SingleQuoted => {
            let inner = raw.strip_prefix('\'')?.strip_suffix('\'')?;
            (!inner.contains('\'')).then_some(inner)
        }
        ScalarStyle::DoubleQuoted => {
            let inner = raw.strip_prefix('"')?.strip_suffix('"')?;
            (!inner.bytes().any(|b| b == b'"' || b == b'\\')).then_some(inner)
        }
        ScalarStyle::Literal | ScalarStyle::Folded => None,
    }
}

fn decode_into(raw: &str, style: ScalarStyle, parent_indent: usize, out: &mut Out) {
    match style {
        ScalarStyle::Plain => decode_flow(raw, Flow::Plain, out),
        ScalarStyle::SingleQuoted => decode_flow(raw, Flow::Single, out),
        ScalarStyle::DoubleQuoted => decode_flow(raw, Flow::Double, out),
        ScalarStyle::Literal => decode_block(raw, BlockKind::Literal, parent_indent, out),
        ScalarStyle::Folded => decode_block(raw, BlockKind::Folded, parent_indent, out),
    }
}

// ---------------------------------------------------------------------------
// Output sink
// ---------------------------------------------------------------------------

/// Collects the decoded value and, optionally, the per-byte source map. One
/// sink for both paths keeps `decode` and `decode_value` from drifting apart.
struct Out {
    value: String,
    sources: Option<Vec<Range<u32>>>,
}

impl Out {
    fn new(with_map: bool) -> Self {
        Out {
            value: String::new(),
            sources: with_map.then(Vec::new),
        }
    }

    /// Appends one decoded char produced by the source bytes `src`.
    fn push(&mut self, c: char, src: Range<usize>) {
        self.value.push(c);
        if let Some(sources) = &mut self.sources {
            let r = to_u32(src.start)..to_u32(src.end);
            sources.extend(std::iter::repeat_n(r, c.len_utf8()));
        }
    }

    /// Appends `raw[span]` verbatim; every char maps to its own bytes.
    fn push_verbatim(&mut self, raw: &str, span: Range<usize>) {
        let text = &raw[span.clone()];
        self.value.push_str(text);
        if let Some(sources) = &mut self.sources {
            for (i, c) in text.char_indices() {
                let start = span.start + i;
                let r = to_u32(start)..to_u32(start + c.len_utf8());
                sources.extend(std::iter::repeat_n(r, c.len_utf8()));
            }
        }
    }
}

/// Offsets beyond 4 GiB cannot occur in a config file; saturate rather than
/// wrap so a pathological input still cannot panic.
fn to_u32(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

// ---------------------------------------------------------------------------
// Shared lexical helpers
// ---------------------------------------------------------------------------

fn is_white(b: u8) -> bool {
    b == b' ' || b == b'\t'
}

fn is_break(b: u8) -> bool {
    b == b'\n' || b == b'\r'
}

/// Length of the line break at `pos` (`\r\n` counts as one break), or 0.
fn break_len(bytes: &[u8], pos: usize) -> usize {
    match bytes.get(pos) {
        Some(b'\r') if bytes.get(pos + 1) == Some(&b'\n') => 2,
        Some(&b) if is_break(b) => 1,
        _ => 0,
    }
}

fn skip_white(bytes: &[u8], mut pos: usize, end: usize) -> usize {
    while pos < end && is_white(bytes[pos]) {
        pos += 1;
    }
    pos
}

/// The char starting at byte `pos` (always a char boundary: the decoders only
/// ever advance by whole chars or by ASCII bytes).
fn char_at(raw: &str, pos: usize) -> char {
    raw[pos..].chars().next().unwrap_or('\u{FFFD}')
}

// ---------------------------------------------------------------------------
// Flow scalars: plain, single-quoted, double-quoted
// ---------------------------------------------------------------------------

#[derive(Clone, Copy, PartialEq, Eq)]
enum Flow {
    Plain,
    Single,
    Double,
}

/// Decodes a flow scalar. All three flow styles share YAML line folding
/// (spec 6.5 / 7.3): trailing white space before a break and leading white
/// space after it are dropped, one break becomes a space and `n > 1` breaks
/// become `n - 1` line feeds. They differ only in delimiters and escapes.
fn decode_flow(raw: &str, flow: Flow, out: &mut Out) {
    let bytes = raw.as_bytes();
    let (mut pos, end) = flow_bounds(bytes, flow);
    while pos < end {
        let b = bytes[pos];
        pos = match b {
            b'\'' if flow == Flow::Single => {
                if bytes.get(pos + 1) == Some(&b'\'') {
                    out.push('\'', pos..pos + 2);
                    pos + 2
                } else {
                    return; // closing quote
                }
            }
            b'"' if flow == Flow::Double => return, // closing quote
            b'\\' if flow == Flow::Double => decode_backslash(raw, pos, end, out),
            b' ' | b'\t' => white_run(raw, pos, end, out),
            b'\n' | b'\r' => fold_breaks(bytes, pos, end, out),
            _ => {
                let c = char_at(raw, pos);
                out.push(c, pos..pos + c.len_utf8());
                pos + c.len_utf8()
            }
        };
    }
}

/// Where the content of a flow scalar starts and where decoding must stop.
/// Quoted styles skip the opening quote and stop at the closing one inside
/// the loop (so an unterminated string simply runs to the end). Plain
/// scalars have no delimiters, but tree-sitter might hand over surrounding
/// white space or breaks, which are never part of a plain value.
fn flow_bounds(bytes: &[u8], flow: Flow) -> (usize, usize) {
    let quote = match flow {
        Flow::Single => b'\'',
        Flow::Double => b'"',
        Flow::Plain => {
            let is_space = |b: &u8| is_white(*b) || is_break(*b);
            let start = bytes
                .iter()
                .position(|b| !is_space(b))
                .unwrap_or(bytes.len());
            let end = bytes
                .iter()
                .rposition(|b| !is_space(b))
                .map_or(start, |i| i + 1);
            return (start, end);
        }
    };
    let start = usize::from(bytes.first() == Some(&quote));
    (start, bytes.len())
}

/// Handles a run of spaces/tabs. White space right before a line break is
/// not content (it is trimmed by folding); anywhere else it is kept.
fn white_run(raw: &str, pos: usize, end: usize, out: &mut Out) -> usize {
    let run_end = skip_white(raw.as_bytes(), pos, end);
    if run_end < end && is_break(raw.as_bytes()[run_end]) {
        return run_end;
    }
    out.push_verbatim(raw, pos..run_end);
    run_end
}

/// Folds the line break at `pos` plus any following empty lines. A lone
/// break becomes a space (mapped to the break); otherwise the first break is
/// dropped and each further break becomes a line feed mapped to itself.
fn fold_breaks(bytes: &[u8], pos: usize, end: usize, out: &mut Out) -> usize {
    let first = pos..pos + break_len(bytes, pos);
    let (next, kept) = empty_lines_as_feeds(bytes, first.end, end, out);
    if kept == 0 {
        out.push(' ', first);
    }
    next
}

/// Skips the leading white space of the next line; every further line break
/// reached that way ends an empty line and is emitted as a line feed. Returns
/// the position of the next content and the number of feeds emitted.
fn empty_lines_as_feeds(bytes: &[u8], mut pos: usize, end: usize, out: &mut Out) -> (usize, usize) {
    let mut kept = 0;
    pos = skip_white(bytes, pos, end);
    while pos < end && is_break(bytes[pos]) {
        let len = break_len(bytes, pos);
        out.push('\n', pos..pos + len);
        kept += 1;
        pos = skip_white(bytes, pos + len, end);
    }
    (pos, kept)
}

/// Decodes the backslash at `pos` in a double-quoted scalar: an escaped line
/// break, a known escape, or (if invalid or truncated) a literal backslash.
fn decode_backslash(raw: &str, pos: usize, end: usize, out: &mut Out) -> usize {
    let bytes = raw.as_bytes();
    let brk = break_len(bytes, pos + 1);
    if brk > 0 {
        // Escaped line break: the break itself is dropped without a space,
        // but empty lines after it still contribute line feeds (spec 7.3.1).
        let (next, _) = empty_lines_as_feeds(bytes, pos + 1 + brk, end, out);
        return next;
    }
    match parse_escape(raw, pos) {
        Some((c, len)) => {
            out.push(c, pos..pos + len);
            pos + len
        }
        None => {
            // Not a YAML escape: keep the backslash; what follows is decoded
            // as ordinary text on the next iteration.
            out.push('\\', pos..pos + 1);
            pos + 1
        }
    }
}

/// Parses the escape starting with the backslash at `pos`, returning the
/// decoded char and the escape's length in bytes (backslash included).
fn parse_escape(raw: &str, pos: usize) -> Option<(char, usize)> {
    let c = match *raw.as_bytes().get(pos + 1)? {
        b'0' => '\0',
        b'a' => '\u{07}',
        b'b' => '\u{08}',
        b't' | b'\t' => '\t',
        b'n' => '\n',
        b'v' => '\u{0B}',
        b'f' => '\u{0C}',
        b'r' => '\r',
        b'e' => '\u{1B}',
        b' ' => ' ',
        b'"' => '"',
        b'/' => '/',
        b'\\' => '\\',
        b'N' => '\u{85}',
        b'_' => '\u{A0}',
        b'L' => '\u{2028}',
        b'P' => '\u{2029}',
        b'x' => return parse_hex_escape(raw, pos, 2),
        b'u' => return parse_hex_escape(raw, pos, 4),
        b'U' => return parse_hex_escape(raw, pos, 8),
        _ => return None,
    };
    Some((c, 2))
}

/// `\x`, `\u`, `\U` followed by exactly `digits` hex digits naming a valid
/// Unicode scalar value (surrogates and values above U+10FFFF are rejected).
fn parse_hex_escape(raw: &str, pos: usize, digits: usize) -> Option<(char, usize)> {
    let hex = raw.as_bytes().get(pos + 2..pos + 2 + digits)?;
    if !hex.iter().all(u8::is_ascii_hexdigit) {
        return None;
    }
    // All ASCII, so this slice is on char boundaries.
    let code = u32::from_str_radix(&raw[pos + 2..pos + 2 + digits], 16).ok()?;
    char::from_u32(code).map(|c| (c, 2 + digits))
}

// ---------------------------------------------------------------------------
// Block scalars: literal `|` and folded `>`
// ---------------------------------------------------------------------------

#[derive(Clone, Copy, PartialEq, Eq)]
enum BlockKind {
    Literal,
    Folded,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Chomp {
    Strip,
    Clip,
    Keep,
}

struct BlockHeader {
    chomp: Chomp,
    /// Explicit indentation indicator (1-9), relative to the parent node.
    indent: Option<usize>,
    /// Byte offset where the first content line starts.
    body_start: usize,
}

/// One source line of a block scalar body.
struct Line {
    start: usize,
    /// End of the line's text, before its line break.
    end: usize,
    /// The line break ending this line; `None` for a last line that
    /// tree-sitter cut off before its break.
    brk: Option<Range<usize>>,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum LineKind {
    /// Only indentation: contributes nothing but (maybe) its line break.
    Empty,
    /// Content starting at the given byte. `spaced` lines begin with white
    /// space after the indentation ("more-indented"); `>` never folds them.
    Content { start: usize, spaced: bool },
}

fn decode_block(raw: &str, kind: BlockKind, parent_indent: usize, out: &mut Out) {
    let header = parse_block_header(raw);
    let lines = split_lines(raw, header.body_start);
    let indent = match header.indent {
        Some(d) => parent_indent.saturating_add(d),
        None => detect_indent(raw, &lines),
    };
    let kinds = classify_lines(raw, &lines, indent);
    emit_block(raw, kind, header.chomp, &lines[..kinds.len()], &kinds, out);
}

/// Parses `|`/`>` followed by at most one chomping indicator and one
/// indentation digit in either order. Anything else on the header line (a
/// comment, or junk in invalid input) is not content and is ignored.
fn parse_block_header(raw: &str) -> BlockHeader {
    let bytes = raw.as_bytes();
    let mut header = BlockHeader {
        chomp: Chomp::Clip,
        indent: None,
        body_start: bytes.len(),
    };
    let mut chomp_seen = false;
    let mut pos = usize::from(matches!(bytes.first(), Some(b'|' | b'>')));
    while let Some(&b) = bytes.get(pos) {
        match b {
            b'+' | b'-' if !chomp_seen => {
                header.chomp = if b == b'+' { Chomp::Keep } else { Chomp::Strip };
                chomp_seen = true;
            }
            b'1'..=b'9' if header.indent.is_none() => header.indent = Some(usize::from(b - b'0')),
            _ => break,
        }
        pos += 1;
    }
    if let Some(i) = bytes[pos..].iter().position(|&b| is_break(b)) {
        header.body_start = pos + i + break_len(bytes, pos + i);
    }
    header
}

fn split_lines(raw: &str, body_start: usize) -> Vec<Line> {
    let bytes = raw.as_bytes();
    let mut lines = Vec::new();
    let mut start = body_start;
    while start < bytes.len() {
        let end = bytes[start..]
            .iter()
            .position(|&b| is_break(b))
            .map_or(bytes.len(), |i| start + i);
        let len = break_len(bytes, end);
        let brk = (len > 0).then(|| end..end + len);
        lines.push(Line { start, end, brk });
        start = end + len;
    }
    lines
}

fn leading_spaces(bytes: &[u8], line: &Line) -> usize {
    bytes[line.start..line.end]
        .iter()
        .take_while(|&&b| b == b' ')
        .count()
}

fn is_blank(bytes: &[u8], line: &Line) -> bool {
    bytes[line.start..line.end].iter().all(|&b| is_white(b))
}

/// Auto-detected content indentation: the leading spaces of the first line
/// that has something other than white space (spec 8.1.1.1). With no such
/// line every line is empty, which `usize::MAX` expresses.
fn detect_indent(raw: &str, lines: &[Line]) -> usize {
    let bytes = raw.as_bytes();
    lines
        .iter()
        .find(|l| !is_blank(bytes, l))
        .map_or(usize::MAX, |l| leading_spaces(bytes, l))
}

/// Classifies body lines against the content indentation. Stops at the first
/// non-blank line indented less than the content: the scalar ends there (a
/// trailing comment or the next node, should tree-sitter include it).
fn classify_lines(raw: &str, lines: &[Line], indent: usize) -> Vec<LineKind> {
    let bytes = raw.as_bytes();
    let mut kinds = Vec::with_capacity(lines.len());
    for line in lines {
        let spaces = leading_spaces(bytes, line);
        let kind = if spaces >= indent {
            let start = line.start + indent;
            // A white-space-only remainder beyond the indentation is content
            // per spec, unless it is a dangling last line with no break
            // (most likely the next line's indentation, not scalar text).
            if start == line.end || (line.brk.is_none() && is_blank(bytes, line)) {
                LineKind::Empty
            } else {
                LineKind::Content {
                    start,
                    spaced: is_white(bytes[start]),
                }
            }
        } else if is_blank(bytes, line) {
            LineKind::Empty
        } else {
            break;
        };
        kinds.push(kind);
    }
    kinds
}

/// Emits a classified block body. Between two content lines the separating
/// break and empty lines are kept as line feeds, except that `>` folds
/// between two non-spaced lines (one break -> space, else the first break
/// is dropped). The final break and trailing empty lines obey chomping.
fn emit_block(
    raw: &str,
    kind: BlockKind,
    chomp: Chomp,
    lines: &[Line],
    kinds: &[LineKind],
    out: &mut Out,
) {
    let mut prev: Option<(bool, Range<usize>)> = None; // (spaced, break) of the last content line
    let mut empties: Vec<Range<usize>> = Vec::new(); // breaks of empty lines since then
    for (line, kind_of_line) in lines.iter().zip(kinds) {
        let (start, spaced) = match *kind_of_line {
            LineKind::Empty => {
                empties.extend(line.brk.clone());
                continue;
            }
            LineKind::Content { start, spaced } => (start, spaced),
        };
        if let Some((prev_spaced, prev_break)) = prev.take() {
            let folds = kind == BlockKind::Folded && !prev_spaced && !spaced;
            if folds && empties.is_empty() {
                out.push(' ', prev_break);
            } else if !folds {
                out.push('\n', prev_break);
            }
        }
        // Leading empty lines and empty lines between content are content.
        for brk in empties.drain(..) {
            out.push('\n', brk);
        }
        out.push_verbatim(raw, start..line.end);
        // A content line followed by another line always has a break.
        let brk = line.brk.clone().unwrap_or(line.end..line.end);
        prev = Some((spaced, brk));
    }
    emit_chomped_tail(chomp, prev.map(|(_, brk)| brk), &empties, out);
}

/// Applies chomping to the last content line's break and the trailing empty
/// lines. tree-sitter may stop a block scalar before its final break, so
/// clip (and keep) synthesise that one line feed, mapped to the empty range
/// at the end of `raw`, rather than depend on how the node was delimited.
fn emit_chomped_tail(
    chomp: Chomp,
    last_break: Option<Range<usize>>,
    trailing: &[Range<usize>],
    out: &mut Out,
) {
    if chomp == Chomp::Strip {
        return;
    }
    if let Some(brk) = last_break {
        // A cut-off final line has the empty range at the end of `raw`.
        out.push('\n', brk);
    }
    if chomp == Chomp::Keep {
        for brk in trailing {
            out.push('\n', brk.clone());
        }
    }
}
