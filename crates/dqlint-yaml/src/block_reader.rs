//! A fast reader for the plain block-style YAML that LHP projects are
//! written in: `key: value` mappings, `- item` sequences, plain, quoted and
//! `|`/`>` block scalars on their own lines, one-line `[a, b]` lists and
//! comments.
//!
//! Why: tree-sitter-yaml reads about 10 MB/s, so parsing a 13 MB project
//! costs more than everything else dqlint does together. This reader walks
//! lines instead of building a concrete syntax tree, and produces exactly
//! the [`Document`] (nodes, spans, decoded scalars, duplicate keys,
//! comments) that the tree-sitter path would. Anything outside that subset
//! (anchors, tags, flow mappings, multi-line plain or quoted scalars, CRLF,
//! tabs, syntax errors of any kind...) makes it give up on the document,
//! which then goes through tree-sitter as before. So a document is either
//! read by both paths identically or only by tree-sitter: the tests in
//! `tests/block_reader.rs` compare both paths on real projects, and
//! `DQLINT_NO_FAST_YAML=1` turns this reader off for a whole run. One
//! exception: a document longer than tree-sitter can count
//! ([`MAX_DOCUMENT_LINES`](crate::tree::MAX_DOCUMENT_LINES)) is read here
//! and refused there.

use std::ops::Range;

use crate::document::{plain_kind, DuplicateKey, Node, NodeKind, Pair, Scalar, ScalarKind};
use crate::scalar::{self, ScalarStyle};

/// Deeper indentation than this goes to tree-sitter, which reports it.
const MAX_INDENT: usize = 256;

/// Whether the fast reader may be used (tests and the equivalence check
/// switch it off with `DQLINT_NO_FAST_YAML=1`).
pub fn enabled() -> bool {
    static ENABLED: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *ENABLED.get_or_init(|| {
        std::env::var_os("DQLINT_NO_FAST_YAML").is_none_or(|v| v.is_empty() || v == "0")
    })
}

/// What the reader makes of one document, or `None` when it must go to
/// tree-sitter.
pub struct ReadDocument {
    pub root: Option<Node>,
    pub duplicate_keys: Vec<DuplicateKey>,
    pub comments: Vec<Range<usize>>,
}

/// Reads the document `span` of `text` (a `---` line, if any, first).
pub fn read_document(text: &str, span: Range<usize>) -> Option<ReadDocument> {
    let source = &text[span.clone()];
    // Control characters (a NUL ends tree-sitter's input, YAML forbids the
    // rest) and unusual line breaks are tree-sitter's business.
    if has_control(source.as_bytes())
        || (!source.is_ascii() && source.contains(['\u{85}', '\u{2028}', '\u{2029}', '\u{feff}']))
    {
        return None;
    }
    let mut lines = Vec::with_capacity(memchr::memchr_iter(b'\n', source.as_bytes()).count() + 1);
    let mut last_marker = None;
    let mut start = span.start;
    for end in memchr::memchr_iter(b'\n', source.as_bytes())
        .map(|nl| span.start + nl)
        .chain((!source.is_empty() && !source.ends_with('\n')).then_some(span.end))
    {
        let body = &text.as_bytes()[start..end];
        let indent = body.iter().take_while(|b| **b == b' ').count();
        if indent > MAX_INDENT {
            return None;
        }
        let kind = LineKind::of(body, indent);
        if kind == LineKind::Marker {
            last_marker = Some(lines.len());
        }
        lines.push(Line {
            start,
            end,
            indent,
            kind,
        });
        start = end + 1;
    }
    // No line limit here: walking lines has none, unlike tree-sitter's
    // scanner (MAX_DOCUMENT_LINES), so a long plain document is read.
    let mut reader = Reader {
        text,
        lines,
        last_marker,
        at: 0,
        doc_end: span.end,
        comments: Vec::new(),
        duplicate_keys: Vec::new(),
        pairs: Vec::new(),
        items: Vec::new(),
    };
    reader.document().map(|root| ReadDocument {
        root,
        duplicate_keys: reader.duplicate_keys,
        comments: reader.comments,
    })
}

/// Whether `bytes` hold a control character other than `\n` (or DEL).
/// Branch-free over blocks of bytes, so that the compiler can vectorise the
/// scan of every document.
fn has_control(bytes: &[u8]) -> bool {
    bytes.chunks(64).any(|block| {
        block.iter().fold(false, |found, &b| {
            found | ((b < 0x20) & (b != b'\n')) | (b == 0x7f)
        })
    })
}

struct Line {
    start: usize,
    /// End of the line's text, before `\n`.
    end: usize,
    indent: usize,
    kind: LineKind,
}

/// What a line holds, told once when the lines are cut: the reader asks
/// again at every value whether the next line has content.
#[derive(Clone, Copy, PartialEq, Eq)]
enum LineKind {
    /// Nothing but spaces.
    Blank,
    /// A comment after the indentation.
    Comment,
    /// `...`, `---` or `%` at column 0: a document marker or directive
    /// (or content that starts like one), which tree-sitter reads.
    Marker,
    Content,
}

impl LineKind {
    fn of(body: &[u8], indent: usize) -> LineKind {
        match body.get(indent) {
            None => LineKind::Blank,
            Some(b'#') => LineKind::Comment,
            _ if body.starts_with(b"...") || body.starts_with(b"---") || body.starts_with(b"%") => {
                LineKind::Marker
            }
            _ => LineKind::Content,
        }
    }
}

struct Reader<'a> {
    text: &'a str,
    lines: Vec<Line>,
    /// The last [`LineKind::Marker`] line.
    last_marker: Option<usize>,
    /// The next line to read.
    at: usize,
    /// tree-sitter stretches a block that runs to the end of the document
    /// (and a block scalar followed by nothing but blank lines) to here.
    doc_end: usize,
    comments: Vec<Range<usize>>,
    duplicate_keys: Vec<DuplicateKey>,
    /// Pairs and items of the mappings and sequences being read, innermost
    /// last: each list is moved out in one exact allocation when it ends,
    /// instead of growing (and then shrinking) a vector per list.
    pairs: Vec<Pair>,
    items: Vec<Node>,
}

/// Characters that cannot start a plain scalar (or that start YAML syntax
/// this reader leaves to tree-sitter).
fn starts_special(c: u8) -> bool {
    matches!(
        c,
        b'-' | b'?'
            | b':'
            | b','
            | b'['
            | b']'
            | b'{'
            | b'}'
            | b'#'
            | b'&'
            | b'*'
            | b'!'
            | b'|'
            | b'>'
            | b'\''
            | b'"'
            | b'%'
            | b'@'
            | b'`'
    )
}

impl<'a> Reader<'a> {
    fn document(&mut self) -> Option<Option<Node>> {
        if let Some(first) = self.lines.first() {
            let body = &self.text[first.start..first.end];
            if let Some(rest) = body.strip_prefix("---") {
                let after = rest.trim_start_matches(' ');
                if !after.is_empty() {
                    if !after.starts_with('#') || rest.len() == after.len() {
                        return None;
                    }
                    self.comments.push(first.end - after.len()..first.end);
                }
                self.at = 1;
            }
        }
        // A later line at column 0 that starts like a marker or directive
        // (`---x`, `...`, `%`) is tree-sitter's to read: as content, not as
        // the end of the document.
        if self.last_marker.is_some_and(|last| last >= self.at) {
            return None;
        }
        let Some(first) = self.next_content() else {
            return Some(None);
        };
        let indent = self.lines[first].indent;
        let root = self.block_node(first, indent)?;
        if self.next_content().is_some() {
            return None;
        }
        Some(Some(root))
    }

    /// Skips blank and comment lines (recording the comments); the index of
    /// the next line with content, which is not consumed.
    fn next_content(&mut self) -> Option<usize> {
        while let Some(line) = self.lines.get(self.at) {
            match line.kind {
                LineKind::Blank => {}
                LineKind::Comment => self.comments.push(line.start + line.indent..line.end),
                LineKind::Marker => return None,
                LineKind::Content => return Some(self.at),
            }
            self.at += 1;
        }
        None
    }

    /// A mapping or a sequence starting at the content of line `i`, whose
    /// entries sit at column `indent`.
    fn block_node(&mut self, i: usize, indent: usize) -> Option<Node> {
        let start = self.lines[i].start + indent;
        if is_dash(&self.text[start..self.lines[i].end]) {
            self.sequence(i, indent)
        } else {
            self.mapping(i, start, indent)
        }
    }

    /// A block mapping whose first key starts at byte `first` of line `i`
    /// and whose keys all sit at column `column`.
    fn mapping(&mut self, mut i: usize, mut key_start: usize, column: usize) -> Option<Node> {
        let base = self.pairs.len();
        loop {
            let line_end = self.lines[i].end;
            let (key, colon) = self.key(i, key_start, line_end)?;
            if key.as_str() == Some("<<") {
                return None;
            }
            self.at = i + 1;
            let value = self.value(i, colon + 1, column, colon + 1, true)?;
            if let Some(name) = key.as_str() {
                // Mappings are small: a scan beats hashing every key.
                let first = self.pairs[base..]
                    .iter()
                    .find(|p| p.key.as_str() == Some(name));
                if let Some(first) = first {
                    self.duplicate_keys.push(DuplicateKey {
                        key: name.to_string(),
                        first: first.key.span.clone(),
                        second: key.span.clone(),
                    });
                }
            }
            self.pairs.push(Pair { key, value });
            match self.next_content() {
                Some(next) if self.lines[next].indent == column => {
                    let start = self.lines[next].start + column;
                    if is_dash(&self.text[start..self.lines[next].end]) {
                        return None;
                    }
                    i = next;
                    key_start = start;
                }
                Some(next) if self.lines[next].indent > column => return None,
                next => {
                    let last = self
                        .pairs
                        .last()
                        .map(|p| p.value.span.end.max(p.key.span.end))
                        .unwrap_or(0);
                    let end = self.block_end(last, next.is_none());
                    let start = self.pairs[base].key.span.start;
                    let pairs: Vec<Pair> = self.pairs.drain(base..).collect();
                    return Some(Node {
                        span: start..end,
                        kind: NodeKind::Mapping(pairs),
                    });
                }
            }
        }
    }

    /// Where a mapping or sequence ends, as tree-sitter puts it: at the end
    /// of the document if it runs to there, else after its last value or
    /// the comments that follow it, whichever is later.
    fn block_end(&self, last_value_end: usize, at_document_end: bool) -> usize {
        if at_document_end {
            return self.doc_end;
        }
        last_value_end.max(self.comments.last().map_or(0, |c| c.end))
    }

    /// A plain key at `from`: the key node and the byte offset of its `:`.
    fn key(&self, i: usize, from: usize, line_end: usize) -> Option<(Node, usize)> {
        let bytes = self.text.as_bytes();
        if from >= line_end || starts_special(bytes[from]) {
            return None;
        }
        let colon = key_colon(&self.text[from..line_end])? + from;
        let raw_end = from + self.text[from..colon].trim_end_matches(' ').len();
        let node = self.scalar(i, from..raw_end, ScalarStyle::Plain);
        Some((node, colon))
    }

    /// The value after a `:` or `- ` at byte `from` of line `i`; `column` is
    /// the column of the owning mapping or sequence, `empty_at` where an
    /// empty value is placed. `mapping_value` allows a sequence at the
    /// mapping's own column (`key:\n- a`).
    fn value(
        &mut self,
        i: usize,
        from: usize,
        column: usize,
        empty_at: usize,
        mapping_value: bool,
    ) -> Option<Node> {
        let line_end = self.lines[i].end;
        let rest = &self.text[from..line_end];
        let skipped = rest.len() - rest.trim_start_matches(' ').len();
        let start = from + skipped;
        if start < line_end && skipped == 0 {
            // `key:x` is not a pair and `-x` not an item: callers check that.
            return None;
        }
        if start >= line_end || self.text.as_bytes()[start] == b'#' {
            if start < line_end {
                self.comments.push(start..line_end);
            }
            let next = self.next_content();
            return match next {
                Some(n) if self.lines[n].indent > column => {
                    self.block_node(n, self.lines[n].indent)
                }
                Some(n)
                    if mapping_value
                        && self.lines[n].indent == column
                        && is_dash(&self.text[self.lines[n].start + column..self.lines[n].end]) =>
                {
                    self.sequence(n, column)
                }
                _ if mapping_value => Some(Node {
                    span: empty_at..empty_at,
                    kind: NodeKind::Null,
                }),
                _ => None,
            };
        }
        let node = match self.text.as_bytes()[start] {
            b'|' | b'>' => return self.block_scalar(i, start, column),
            b'"' | b'\'' => {
                let end = quoted_end(&self.text[start..line_end])? + start;
                let style = if self.text.as_bytes()[start] == b'"' {
                    ScalarStyle::DoubleQuoted
                } else {
                    ScalarStyle::SingleQuoted
                };
                self.trailing_comment(end, line_end)?;
                self.scalar(i, start..end, style)
            }
            b'[' => self.flow_sequence(i, start, line_end)?,
            b'-' if self
                .text
                .as_bytes()
                .get(start + 1)
                .is_some_and(|c| !matches!(c, b' ' | b'\n'))
                && start + 1 < line_end =>
            {
                self.plain_value(i, start, line_end)?
            }
            c if starts_special(c) => return None,
            _ => self.plain_value(i, start, line_end)?,
        };
        // A scalar on the line: the next line must not continue it.
        if let Some(n) = self.next_content() {
            if self.lines[n].indent > column {
                return None;
            }
        }
        Some(node)
    }

    /// A plain scalar from `start` to the end of the line (or a comment).
    fn plain_value(&mut self, i: usize, start: usize, line_end: usize) -> Option<Node> {
        let end = start + plain_end(&self.text[start..line_end]);
        let raw = &self.text[start..end];
        if raw.contains(": ") || raw.ends_with(':') {
            return None;
        }
        if end < line_end {
            self.trailing_comment(end, line_end)?;
        }
        Some(self.scalar(i, start..end, ScalarStyle::Plain))
    }

    /// After a scalar ending at `end`: nothing, or spaces and a comment.
    fn trailing_comment(&mut self, end: usize, line_end: usize) -> Option<()> {
        let rest = &self.text[end..line_end];
        let trimmed = rest.trim_start_matches(' ');
        if trimmed.is_empty() {
            return Some(());
        }
        if trimmed.starts_with('#') && trimmed.len() < rest.len() {
            self.comments.push(line_end - trimmed.len()..line_end);
            return Some(());
        }
        None
    }

    fn sequence(&mut self, mut i: usize, column: usize) -> Option<Node> {
        let base = self.items.len();
        let start = self.lines[i].start + column;
        loop {
            let dash = self.lines[i].start + column;
            let line_end = self.lines[i].end;
            self.at = i + 1;
            let after = dash + 1;
            let rest = &self.text[after..line_end];
            let content = after + (rest.len() - rest.trim_start_matches(' ').len());
            let item = if content < line_end
                && !starts_special(self.text.as_bytes()[content])
                && key_colon(&self.text[content..line_end]).is_some()
            {
                let item_column = content - self.lines[i].start;
                self.mapping(i, content, item_column)?
            } else if content < line_end && is_dash(&self.text[content..line_end]) {
                return None;
            } else {
                self.value(i, after, column, after, false)?
            };
            self.items.push(item);
            match self.next_content() {
                Some(next)
                    if self.lines[next].indent == column
                        && is_dash(
                            &self.text[self.lines[next].start + column..self.lines[next].end],
                        ) =>
                {
                    i = next;
                }
                Some(next) if self.lines[next].indent > column => return None,
                next => {
                    let last = self.items.last().map_or(start, |n: &Node| n.span.end);
                    let end = self.block_end(last, next.is_none());
                    let items: Vec<Node> = self.items.drain(base..).collect();
                    return Some(Node {
                        span: start..end,
                        kind: NodeKind::Sequence(items),
                    });
                }
            }
        }
    }

    /// `|`, `|-`, `>`, `>-` at `header` on line `i`, owned by a node at
    /// `column`; content lines follow, indented deeper.
    fn block_scalar(&mut self, i: usize, header: usize, column: usize) -> Option<Node> {
        let line_end = self.lines[i].end;
        let head = &self.text[header..line_end];
        let indicator = head.as_bytes()[0];
        let mut rest = &head[1..];
        if rest.starts_with('-') {
            rest = &rest[1..];
        }
        if !rest.trim_matches(' ').is_empty() {
            return None;
        }
        let mut content_indent = None;
        let mut end = None;
        let mut j = i + 1;
        while j < self.lines.len() {
            let line = &self.lines[j];
            if line.kind == LineKind::Blank {
                j += 1;
                continue;
            }
            if line.indent <= column {
                break;
            }
            match content_indent {
                None => content_indent = Some(line.indent),
                Some(ci) if line.indent < ci => return None,
                _ => {}
            }
            end = Some(line.end);
            j += 1;
        }
        let mut end = end?;
        // Trailing blank lines are not part of the scalar, unless nothing
        // but blank lines follows until the end of the document.
        self.at = self.lines[i + 1..j]
            .iter()
            .rposition(|l| l.kind != LineKind::Blank)
            .map(|p| i + 2 + p)
            .unwrap_or(i + 1);
        if self.lines[j..].iter().all(|l| l.kind == LineKind::Blank) {
            end = self.doc_end;
            self.at = self.lines.len();
        }
        let style = if indicator == b'|' {
            ScalarStyle::Literal
        } else {
            ScalarStyle::Folded
        };
        Some(self.scalar(i, header..end, style))
    }

    /// `[a, "b", c]` on one line.
    fn flow_sequence(&mut self, i: usize, open: usize, line_end: usize) -> Option<Node> {
        let bytes = self.text.as_bytes();
        let mut items = Vec::new();
        let mut at = open + 1;
        let close;
        loop {
            while at < line_end && bytes[at] == b' ' {
                at += 1;
            }
            if at >= line_end {
                return None;
            }
            if bytes[at] == b']' && items.is_empty() {
                close = at;
                break;
            }
            let (item_end, style) = match bytes[at] {
                b'"' => (
                    at + quoted_end(&self.text[at..line_end])?,
                    ScalarStyle::DoubleQuoted,
                ),
                b'\'' => (
                    at + quoted_end(&self.text[at..line_end])?,
                    ScalarStyle::SingleQuoted,
                ),
                c if starts_special(c) => return None,
                _ => {
                    let len = self.text[at..line_end]
                        .find([',', ']', '[', '{', '}', '#', ':', '"', '\''])
                        .unwrap_or(line_end - at);
                    let raw = self.text[at..at + len].trim_end_matches(' ');
                    if raw.is_empty() {
                        return None;
                    }
                    (at + raw.len(), ScalarStyle::Plain)
                }
            };
            items.push(self.scalar(i, at..item_end, style));
            at = item_end;
            while at < line_end && bytes[at] == b' ' {
                at += 1;
            }
            match bytes.get(at) {
                Some(b',') if at < line_end => at += 1,
                Some(b']') if at < line_end => {
                    close = at;
                    break;
                }
                _ => return None,
            }
        }
        self.trailing_comment(close + 1, line_end)?;
        Some(Node {
            span: open..close + 1,
            kind: NodeKind::Sequence(items),
        })
    }

    /// A scalar node starting on line `i`, decoded as the tree-sitter path
    /// decodes it.
    fn scalar(&self, i: usize, raw: Range<usize>, style: ScalarStyle) -> Node {
        let text = &self.text[raw.clone()];
        let parent_indent = self.lines[i].indent as u32;
        let kind = if style == ScalarStyle::Plain {
            plain_kind(text)
        } else {
            ScalarKind::Str
        };
        // A plain scalar here is one line, starts and ends with neither a
        // space nor a tab (tabs go to tree-sitter): its value is its text,
        // without the decoder's scan for a line break to fold.
        let value = if style == ScalarStyle::Plain {
            text.to_string()
        } else {
            scalar::decode_value(text, style, parent_indent as usize)
        };
        debug_assert_eq!(
            value,
            scalar::decode_value(text, style, parent_indent as usize)
        );
        Node {
            span: raw,
            kind: NodeKind::Scalar(Scalar {
                value,
                style,
                kind,
                parent_indent,
            }),
        }
    }
}

/// `-` followed by a space or the end of the line: a sequence entry.
fn is_dash(body: &str) -> bool {
    body == "-" || body.starts_with("- ")
}

/// The offset of the `:` that ends a plain key on this line (`: ` or `:` at
/// the end), if the line is a `key: value` pair.
fn key_colon(body: &str) -> Option<usize> {
    let bytes = body.as_bytes();
    for (i, b) in bytes.iter().enumerate() {
        match b {
            b':' if bytes.get(i + 1).is_none_or(|n| *n == b' ') => return Some(i),
            b'#' if i > 0 && bytes[i - 1] == b' ' => return None,
            _ => {}
        }
    }
    None
}

/// The length of the escape after a `\\` in a double-quoted scalar: one of
/// YAML 1.2's single-character escapes, or `x`, `u`, `U` with 2, 4 or 8 hex
/// digits; `None` for anything else.
fn escape_len(rest: &[u8]) -> Option<usize> {
    let digits = match rest.first()? {
        b'0' | b'a' | b'b' | b't' | b'\t' | b'n' | b'v' | b'f' | b'r' | b'e' | b' ' | b'"'
        | b'/' | b'\\' | b'N' | b'_' | b'L' | b'P' => return Some(1),
        b'x' => 2,
        b'u' => 4,
        b'U' => 8,
        _ => return None,
    };
    let hex = rest.get(1..=digits)?;
    hex.iter().all(u8::is_ascii_hexdigit).then_some(1 + digits)
}

/// Where a plain scalar on one line ends: before ` #` or trailing spaces.
fn plain_end(body: &str) -> usize {
    let bytes = body.as_bytes();
    let mut end = bytes.len();
    for i in 1..bytes.len() {
        if bytes[i] == b'#' && bytes[i - 1] == b' ' {
            end = i;
            break;
        }
    }
    body[..end].trim_end_matches(' ').len()
}

/// The end (exclusive, after the closing quote) of a quoted scalar that
/// starts `body`, if it closes on this line and holds only escapes YAML
/// defines (tree-sitter reports any other as a syntax error: the document
/// is handed over).
fn quoted_end(body: &str) -> Option<usize> {
    let bytes = body.as_bytes();
    let quote = bytes[0];
    let mut i = 1;
    while i < bytes.len() {
        match bytes[i] {
            b'\\' if quote == b'"' => i += 1 + escape_len(&bytes[i + 1..])?,
            b'\'' if quote == b'\'' && bytes.get(i + 1) == Some(&b'\'') => i += 2,
            c if c == quote => return Some(i + 1),
            _ => i += 1,
        }
    }
    None
}
