//! A fast reader for documents written in strict JSON: an object or array
//! of double-quoted strings, numbers, `true`, `false` and `null`, spread
//! over lines with spaces.
//!
//! Why: DQX checks files are often JSON, and tree-sitter-yaml reads them as
//! YAML flow collections at about 10 MB/s; on a DQX project that was a
//! fifth of a lint run. JSON is a subset of YAML 1.2, so this reader builds
//! exactly the [`Document`](crate::Document) the tree-sitter path builds
//! for the same text (flow nodes spanning `{`..`}` and `[`..`]`, quoted
//! scalars spanning their quotes, numbers and constants as plain scalars,
//! duplicate keys in the order the tree walk finds them), and gives up on
//! everything else: comments, trailing commas, tabs, CRLF, `NaN`, a key
//! and its `:` on different lines (an implicit YAML key is one line), the
//! merge key `"<<"`, control characters, a lone scalar as the document,
//! any syntax error. A document it gives up on goes to tree-sitter as
//! before, so every message stays the same. `tests/json_reader.rs` compares
//! both paths; `DQLINT_NO_FAST_YAML=1` turns this reader off with the block
//! reader. As with the block reader, a document longer than tree-sitter can
//! count ([`MAX_DOCUMENT_LINES`](crate::tree::MAX_DOCUMENT_LINES)) is read
//! here and refused there.

use std::collections::HashMap;
use std::ops::Range;

use crate::document::{plain_kind, DuplicateKey, Node, NodeKind, Pair, Scalar, ScalarKind};
use crate::scalar::{self, ScalarStyle};

/// Deeper nesting goes to tree-sitter (and its depth guard); keeps the
/// recursion here shallow whatever the input. A container is refused where
/// the guard would refuse its bracket (`syntax_error::brackets_too_deep`:
/// more than this many levels), so a document this reader reads passes the
/// guard's bracket count, which is not run again for it.
const MAX_DEPTH: usize = crate::syntax_error::MAX_NESTING;
/// A mapping with more pairs than this finds duplicate keys through a hash
/// map; smaller ones (almost all) compare with the keys before.
const LINEAR_KEYS: usize = 16;

/// What the reader makes of one document.
pub struct ReadDocument {
    pub root: Node,
    pub duplicate_keys: Vec<DuplicateKey>,
}

/// Reads the document `span` of `text` if it is one JSON object or array
/// (surrounded by spaces and line breaks only); `None` sends it to
/// tree-sitter.
pub fn read_document(text: &str, span: Range<usize>) -> Option<ReadDocument> {
    let mut reader = Reader {
        text,
        bytes: text.as_bytes(),
        at: span.start,
        end: span.end,
        line_start: span.start,
        duplicate_keys: Vec::new(),
    };
    reader.skip_space();
    if !matches!(reader.peek(), Some(b'{' | b'[')) {
        return None;
    }
    let root = reader.value(0)?;
    reader.skip_space();
    if reader.at != reader.end {
        return None;
    }
    Some(ReadDocument {
        root,
        duplicate_keys: reader.duplicate_keys,
    })
}

struct Reader<'a> {
    text: &'a str,
    bytes: &'a [u8],
    at: usize,
    /// End of the document.
    end: usize,
    /// Start of the line of `at` (line breaks are only ever whitespace).
    line_start: usize,
    duplicate_keys: Vec<DuplicateKey>,
}

impl Reader<'_> {
    fn peek(&self) -> Option<u8> {
        (self.at < self.end).then(|| self.bytes[self.at])
    }

    /// Spaces and line feeds; a tab or carriage return is left in place
    /// (and fails what follows: YAML reads those differently).
    fn skip_space(&mut self) {
        while let Some(b) = self.peek() {
            match b {
                b' ' => {}
                b'\n' => self.line_start = self.at + 1,
                _ => break,
            }
            self.at += 1;
        }
    }

    /// Spaces only: between a key and its `:`.
    fn skip_spaces_on_line(&mut self) {
        while self.peek() == Some(b' ') {
            self.at += 1;
        }
    }

    fn eat(&mut self, byte: u8) -> Option<()> {
        (self.peek() == Some(byte)).then(|| self.at += 1)
    }

    fn value(&mut self, depth: usize) -> Option<Node> {
        if depth > MAX_DEPTH {
            return None;
        }
        match self.peek()? {
            // This container would be nesting level `depth + 1`.
            b'{' | b'[' if depth >= MAX_DEPTH => None,
            b'{' => self.object(depth),
            b'[' => self.array(depth),
            b'"' => self.string(),
            b'-' | b'0'..=b'9' => self.number(),
            b't' => self.constant("true"),
            b'f' => self.constant("false"),
            b'n' => self.constant("null"),
            _ => None,
        }
    }

    fn object(&mut self, depth: usize) -> Option<Node> {
        let start = self.at;
        self.at += 1;
        let mut pairs: Vec<Pair> = Vec::new();
        // Key -> its first pair, once the mapping is large.
        let mut index: Option<HashMap<String, usize>> = None;
        self.skip_space();
        if self.eat(b'}').is_none() {
            loop {
                self.skip_space();
                if self.peek() != Some(b'"') {
                    return None;
                }
                let key = self.string()?;
                self.skip_spaces_on_line();
                self.eat(b':')?;
                self.skip_space();
                let value = self.value(depth + 1)?;
                let name = key.as_str()?;
                if name == "<<" {
                    // tree-sitter's walk merges under this key.
                    return None;
                }
                // The tree walk records a duplicate after the pair's value
                // (whose own duplicates come first), against the first key.
                if index.is_none() && pairs.len() >= LINEAR_KEYS {
                    let mut map = HashMap::with_capacity(pairs.len() * 2);
                    for (i, pair) in pairs.iter().enumerate() {
                        if let Some(k) = pair.key.as_str() {
                            map.entry(k.to_string()).or_insert(i);
                        }
                    }
                    index = Some(map);
                }
                let first = match &mut index {
                    Some(map) => match map.get(name) {
                        Some(i) => Some(*i),
                        None => {
                            map.insert(name.to_string(), pairs.len());
                            None
                        }
                    },
                    None => pairs.iter().position(|p| p.key.as_str() == Some(name)),
                };
                if let Some(first) = first {
                    self.duplicate_keys.push(DuplicateKey {
                        key: name.to_string(),
                        first: pairs[first].key.span.clone(),
                        second: key.span.clone(),
                    });
                }
                pairs.push(Pair { key, value });
                if !self.another_follows(b'}')? {
                    break;
                }
            }
        }
        Some(Node {
            span: start..self.at,
            kind: NodeKind::Mapping(pairs),
        })
    }

    /// After a member or an element: `,` (another follows, `Some(true)`)
    /// or the closing bracket `close` (`Some(false)`), consumed.
    fn another_follows(&mut self, close: u8) -> Option<bool> {
        self.skip_space();
        let more = match self.peek()? {
            b',' => true,
            c if c == close => false,
            _ => return None,
        };
        self.at += 1;
        Some(more)
    }

    fn array(&mut self, depth: usize) -> Option<Node> {
        let start = self.at;
        self.at += 1;
        let mut items = Vec::new();
        self.skip_space();
        if self.eat(b']').is_none() {
            loop {
                self.skip_space();
                items.push(self.value(depth + 1)?);
                if !self.another_follows(b']')? {
                    break;
                }
            }
        }
        items.shrink_to_fit();
        Some(Node {
            span: start..self.at,
            kind: NodeKind::Sequence(items),
        })
    }

    /// A double-quoted string on one line, with JSON's escapes; decoded as
    /// the tree-sitter path decodes the same YAML scalar.
    fn string(&mut self) -> Option<Node> {
        let start = self.at;
        self.at += 1;
        let mut escaped = false;
        loop {
            let b = self.peek()?;
            match b {
                b'"' => break,
                b'\\' => {
                    escaped = true;
                    self.at += 1;
                    match self.peek()? {
                        b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't' => self.at += 1,
                        b'u' => {
                            let hex = self.text.get(self.at + 1..self.at + 5)?;
                            let code = u32::from_str_radix(hex, 16).ok()?;
                            // Surrogates (halves of a pair) and NUL: left to
                            // tree-sitter, which decides what they read as.
                            if code == 0 || (0xD800..0xE000).contains(&code) {
                                return None;
                            }
                            if !hex.bytes().all(|h| h.is_ascii_hexdigit()) {
                                return None;
                            }
                            self.at += 5;
                        }
                        _ => return None,
                    }
                }
                0x20..=0x7e => self.at += 1,
                0x80.. => {
                    let c = self.text[self.at..].chars().next()?;
                    if !printable(c) {
                        return None;
                    }
                    self.at += c.len_utf8();
                }
                // Control characters, DEL.
                _ => return None,
            }
        }
        self.at += 1;
        let span = start..self.at;
        let raw = &self.text[span.clone()];
        let value = if escaped {
            scalar::decode_value(raw, ScalarStyle::DoubleQuoted, 0)
        } else {
            raw[1..raw.len() - 1].to_string()
        };
        Some(self.scalar(span, value, ScalarStyle::DoubleQuoted, ScalarKind::Str))
    }

    /// `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`, a plain scalar.
    fn number(&mut self) -> Option<Node> {
        let start = self.at;
        self.eat(b'-');
        match self.peek()? {
            b'0' => self.at += 1,
            b'1'..=b'9' => self.digits(),
            _ => return None,
        }
        if self.eat(b'.').is_some() {
            self.some_digits()?;
        }
        if matches!(self.peek(), Some(b'e' | b'E')) {
            self.at += 1;
            if matches!(self.peek(), Some(b'+' | b'-')) {
                self.at += 1;
            }
            self.some_digits()?;
        }
        self.plain(start)
    }

    fn digits(&mut self) {
        while self.peek().is_some_and(|b| b.is_ascii_digit()) {
            self.at += 1;
        }
    }

    fn some_digits(&mut self) -> Option<()> {
        let before = self.at;
        self.digits();
        (self.at > before).then_some(())
    }

    fn constant(&mut self, word: &str) -> Option<Node> {
        let start = self.at;
        if !self.text[start..self.end].starts_with(word) {
            return None;
        }
        self.at += word.len();
        self.plain(start)
    }

    /// The plain scalar from `start` to here, which must end at a JSON
    /// delimiter (`1x` or `truex` are no JSON).
    fn plain(&mut self, start: usize) -> Option<Node> {
        if !matches!(self.peek(), None | Some(b' ' | b'\n' | b',' | b']' | b'}')) {
            return None;
        }
        let raw = &self.text[start..self.at];
        let kind = plain_kind(raw);
        Some(self.scalar(start..self.at, raw.to_string(), ScalarStyle::Plain, kind))
    }

    fn scalar(
        &self,
        span: Range<usize>,
        value: String,
        style: ScalarStyle,
        kind: ScalarKind,
    ) -> Node {
        Node {
            kind: NodeKind::Scalar(Scalar {
                value,
                style,
                kind,
                parent_indent: self.indent_before(span.start),
            }),
            span,
        }
    }

    /// The spaces that start the line of `at`, up to `at` (what the tree
    /// walk records as a scalar's parent indentation).
    fn indent_before(&self, at: usize) -> u32 {
        let spaces = self.bytes[self.line_start..at]
            .iter()
            .take_while(|b| **b == b' ')
            .count();
        spaces as u32
    }
}

/// Characters YAML reads as printable text inside a quoted scalar; the
/// others (C1 controls, odd line breaks, byte-order marks) go to
/// tree-sitter.
fn printable(c: char) -> bool {
    !matches!(
        c,
        '\u{80}'..='\u{9f}' | '\u{2028}' | '\u{2029}' | '\u{feff}' | '\u{fffe}' | '\u{ffff}'
    )
}
