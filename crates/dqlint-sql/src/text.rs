//! Text helpers shared by the expression and DDL checks: a lenient lexer that
//! knows where strings, quoted identifiers and comments are, the LHP token
//! scanner, and the mapping from sqlparser's (line, column) locations to byte
//! offsets.

use std::ops::Range;

use sqlparser::tokenizer::{Location, Token, TokenWithSpan};

// ---------------------------------------------------------------------------
// Locations
// ---------------------------------------------------------------------------

/// Walks a text forward, converting sqlparser locations (1-based line, 1-based
/// column counted in chars) into byte offsets. Seeking backwards restarts from
/// the top, so a sequence of increasing locations costs O(text length).
pub(crate) struct Cursor<'a> {
    text: &'a str,
    byte: usize,
    line: u64,
    col: u64,
}

impl<'a> Cursor<'a> {
    pub(crate) fn new(text: &'a str) -> Self {
        Cursor {
            text,
            byte: 0,
            line: 1,
            col: 1,
        }
    }

    /// Byte offset of `loc`; `None` for the "no location" value (line 0).
    /// A column past the end of its line is clamped to the line end.
    pub(crate) fn offset(&mut self, loc: Location) -> Option<usize> {
        if loc.line == 0 {
            return None;
        }
        let target = (loc.line, loc.column.max(1));
        if target < (self.line, self.col) {
            self.byte = 0;
            self.line = 1;
            self.col = 1;
        }
        let bytes = self.text.as_bytes();
        while (self.line, self.col) < target && self.byte < bytes.len() {
            let ch = match self.text[self.byte..].chars().next() {
                Some(c) => c,
                None => break,
            };
            if ch == '\n' {
                if self.line == target.0 {
                    break; // column past the line end: clamp
                }
                self.line += 1;
                self.col = 1;
            } else {
                self.col += 1;
            }
            self.byte += ch.len_utf8();
        }
        Some(self.byte)
    }
}

/// Byte ranges of every token (tokens must be in text order, as produced by
/// the tokenizer). A token without location gets an empty range at the end.
pub(crate) fn token_ranges(text: &str, tokens: &[TokenWithSpan]) -> Vec<Range<usize>> {
    let mut cursor = Cursor::new(text);
    tokens
        .iter()
        .map(|t| {
            let start = cursor.offset(t.span.start).unwrap_or(text.len());
            let end = cursor.offset(t.span.end).unwrap_or(start).max(start);
            start..end
        })
        .collect()
}

/// Byte range of the character at a location (empty at the end of the text).
pub(crate) fn char_range_at(text: &str, loc: Location) -> Range<usize> {
    let start = Cursor::new(text).offset(loc).unwrap_or(text.len());
    let len = text[start..].chars().next().map_or(0, char::len_utf8);
    start..start + len
}

/// Parses the " at Line: L, Column: C" suffix sqlparser puts in its error
/// messages. Returns the message without the suffix and the location.
pub(crate) fn split_error_location(message: &str) -> (String, Option<Location>) {
    if let Some(pos) = message.rfind(" at Line: ") {
        let tail = &message[pos + " at Line: ".len()..];
        let mut parts = tail.splitn(2, ", Column: ");
        let line = parts.next().and_then(|l| l.trim().parse::<u64>().ok());
        let col = parts.next().and_then(|c| {
            let digits: String = c.chars().take_while(|ch| ch.is_ascii_digit()).collect();
            digits.parse::<u64>().ok()
        });
        if let (Some(line), Some(column)) = (line, col) {
            return (message[..pos].to_string(), Some(Location { line, column }));
        }
    }
    (message.to_string(), None)
}

/// Turns sqlparser's "Expected: X, found: Y" into "expected X, found `Y`".
pub(crate) fn humanize_parser_message(message: &str) -> String {
    let m = message.trim();
    let Some(rest) = m.strip_prefix("Expected: ") else {
        return m.to_string();
    };
    match rest.rfind(", found: ") {
        Some(pos) => {
            let expected = &rest[..pos];
            let expected = if !expected.is_empty()
                && expected
                    .chars()
                    .all(|c| !c.is_alphanumeric() && !c.is_whitespace())
            {
                format!("`{expected}`")
            } else {
                expected.to_string()
            };
            let found = &rest[pos + ", found: ".len()..];
            if found == "EOF" {
                format!("expected {expected}, found the end of the text")
            } else {
                format!("expected {expected}, found `{found}`")
            }
        }
        None => format!("expected {rest}"),
    }
}

pub(crate) fn is_trivia(token: &Token) -> bool {
    matches!(token, Token::Whitespace(_))
}

// ---------------------------------------------------------------------------
// Lenient lexer
// ---------------------------------------------------------------------------

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum SegKind {
    /// Plain SQL text.
    Code,
    /// `'...'` or `"..."` string literal (backslash escapes, doubled quotes),
    /// or a `$$...$$` body.
    Str,
    /// `` `...` `` quoted identifier.
    Quoted,
    /// `-- ...` or (nested) `/* ... */`.
    Comment,
}

#[derive(Clone, Debug)]
pub(crate) struct Seg {
    pub kind: SegKind,
    pub range: Range<usize>,
}

/// Splits a text into code / string / quoted identifier / comment segments,
/// the way the Databricks tokenizer sees them. Unterminated constructs run to
/// the end of the text. Never fails.
pub(crate) fn segments(text: &str) -> Vec<Seg> {
    let b = text.as_bytes();
    let n = b.len();
    let mut out = Vec::new();
    let mut code_start = 0;
    let mut i = 0;
    let push = |out: &mut Vec<Seg>, kind, range: Range<usize>| {
        if !range.is_empty() {
            out.push(Seg { kind, range });
        }
    };
    while i < n {
        let c = b[i];
        let (kind, end) = match c {
            b'\'' | b'"' => {
                let mut j = i + 1;
                loop {
                    if j >= n {
                        break;
                    }
                    if b[j] == b'\\' {
                        j += 2;
                        continue;
                    }
                    if b[j] == c {
                        if j + 1 < n && b[j + 1] == c {
                            j += 2;
                            continue;
                        }
                        j += 1;
                        break;
                    }
                    j += 1;
                }
                (SegKind::Str, j.min(n))
            }
            b'`' => {
                let mut j = i + 1;
                loop {
                    if j >= n {
                        break;
                    }
                    if b[j] == b'`' {
                        if j + 1 < n && b[j + 1] == b'`' {
                            j += 2;
                            continue;
                        }
                        j += 1;
                        break;
                    }
                    j += 1;
                }
                (SegKind::Quoted, j.min(n))
            }
            b'$' if i + 1 < n && b[i + 1] == b'$' => {
                // `$$ ... $$` body (SQL/Python UDFs)
                let mut j = i + 2;
                while j + 1 < n && !(b[j] == b'$' && b[j + 1] == b'$') {
                    j += 1;
                }
                (SegKind::Str, if j + 1 < n { j + 2 } else { n })
            }
            b'-' if i + 1 < n && b[i + 1] == b'-' => {
                let mut j = i + 2;
                while j < n && b[j] != b'\n' {
                    j += 1;
                }
                (SegKind::Comment, j)
            }
            b'/' if i + 1 < n && b[i + 1] == b'*' => {
                let mut depth = 1usize;
                let mut j = i + 2;
                while j < n && depth > 0 {
                    if b[j] == b'/' && j + 1 < n && b[j + 1] == b'*' {
                        depth += 1;
                        j += 2;
                    } else if b[j] == b'*' && j + 1 < n && b[j + 1] == b'/' {
                        depth -= 1;
                        j += 2;
                    } else {
                        j += 1;
                    }
                }
                (SegKind::Comment, j.min(n))
            }
            _ => {
                i += 1;
                continue;
            }
        };
        push(&mut out, SegKind::Code, code_start..i);
        push(&mut out, kind, i..end);
        i = end;
        code_start = end;
    }
    push(&mut out, SegKind::Code, code_start..n);
    out
}

/// Statement chunks: the text between top-level `;` (outside strings, quoted
/// identifiers and comments). The `;` itself is not part of any chunk.
pub(crate) fn split_statements(text: &str) -> Vec<Range<usize>> {
    let mut out = Vec::new();
    let mut start = 0;
    for seg in segments(text) {
        if seg.kind != SegKind::Code {
            continue;
        }
        for (k, byte) in text.as_bytes()[seg.range.clone()].iter().enumerate() {
            if *byte == b';' {
                let pos = seg.range.start + k;
                out.push(start..pos);
                start = pos + 1;
            }
        }
    }
    out.push(start..text.len());
    out
}

// ---------------------------------------------------------------------------
// LHP substitution tokens
// ---------------------------------------------------------------------------

fn is_word_start(b: u8) -> bool {
    b.is_ascii_alphabetic() || b == b'_'
}

fn is_word_part(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

/// End (exclusive) of `{word}` starting at `open` (which holds `{`).
fn braced_word_end(b: &[u8], open: usize) -> Option<usize> {
    let mut j = open + 1;
    if j >= b.len() || !is_word_start(b[j]) {
        return None;
    }
    while j < b.len() && is_word_part(b[j]) {
        j += 1;
    }
    (j < b.len() && b[j] == b'}').then_some(j + 1)
}

/// The placeholders a templating tool fills in before Spark sees the SQL:
/// `${...}`, `%{word}` and `{word}` anywhere in the text, blanked before
/// parsing so that a token in place of a name still parses. Regex
/// quantifiers (`{8}`, `{2,3}`) and escapes such as `\p{Alpha}` are not
/// holes. This layer knows no LHP: LHP's own token syntax is
/// `dqlint_project::vocabulary::tokens`, and the linter's `token_syntax`
/// test holds every LHP token that can stand for a name inside a hole.
pub fn template_holes(text: &str) -> Vec<Range<usize>> {
    let b = text.as_bytes();
    let n = b.len();
    let mut out = Vec::new();
    let mut i = 0;
    while i < n {
        match b[i] {
            b'$' if i + 1 < n && b[i + 1] == b'{' => {
                let mut j = i + 2;
                while j < n && !matches!(b[j], b'}' | b'\n' | b'\'' | b'"' | b'`' | b'{') {
                    j += 1;
                }
                if j < n && b[j] == b'}' && j > i + 2 {
                    out.push(i..j + 1);
                    i = j + 1;
                    continue;
                }
            }
            b'%' if i + 1 < n && b[i + 1] == b'{' => {
                if let Some(end) = braced_word_end(b, i + 1) {
                    out.push(i..end);
                    i = end;
                    continue;
                }
            }
            b'{' => {
                let escaped = i >= 2 && b[i - 2] == b'\\' && b[i - 1].is_ascii_alphabetic();
                if !escaped {
                    if let Some(end) = braced_word_end(b, i) {
                        out.push(i..end);
                        i = end;
                        continue;
                    }
                }
            }
            _ => {}
        }
        i += 1;
    }
    out
}

/// Replaces the tokens that sit in code (not in strings, quoted identifiers
/// or comments) by `_` characters of the same byte length, so the tokenizer
/// sees an identifier and byte offsets stay the same.
pub(crate) fn blank_code_tokens(text: &str, tokens: &[Range<usize>]) -> String {
    if tokens.is_empty() {
        return text.to_string();
    }
    let segs = segments(text);
    let mut bytes = text.as_bytes().to_vec();
    for t in tokens {
        let in_code = segs
            .iter()
            .any(|s| s.kind == SegKind::Code && s.range.contains(&t.start));
        if in_code {
            for byte in &mut bytes[t.clone()] {
                *byte = b'_';
            }
        }
    }
    // The replaced ranges start and end on ASCII bytes (`$`, `%`, `{`, `}`),
    // so the result is still valid UTF-8; fall back to the input otherwise.
    String::from_utf8(bytes).unwrap_or_else(|_| text.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn segments_and_split() {
        let t = "a ';' -- x;\n b /* ; /* ; */ */ `c;` $$ x; $$ ; d";
        let chunks = split_statements(t);
        assert_eq!(chunks.len(), 2);
        assert_eq!(&t[chunks[1].clone()], " d");
    }

    #[test]
    fn tokens() {
        let t = "a = '${x}' and {b} and %{c} and 'x{8}' and '\\p{Alpha}' and {2,3}";
        let r = template_holes(t);
        let got: Vec<&str> = r.iter().map(|r| &t[r.clone()]).collect();
        assert_eq!(got, vec!["${x}", "{b}", "%{c}"]);
        let blanked = blank_code_tokens(t, &r);
        assert!(blanked.contains("'${x}'"));
        assert!(blanked.contains(" ___ and ____ and"));
    }

    #[test]
    fn cursor() {
        let t = "é = 1\n  ab";
        let mut c = Cursor::new(t);
        assert_eq!(c.offset(Location { line: 1, column: 2 }), Some(2));
        assert_eq!(c.offset(Location { line: 2, column: 3 }), Some(9));
        assert_eq!(
            c.offset(Location {
                line: 1,
                column: 99
            }),
            Some(6)
        );
    }
}
