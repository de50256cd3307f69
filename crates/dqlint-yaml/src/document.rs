//! The document model every reader builds: a [`YamlFile`] of `---`
//! [`Document`]s, each a tree of owned [`Node`]s with byte spans, plus the
//! syntax errors, duplicate keys and comments found on the way.
//!
//! Both readers, the fast line reader ([`crate::block_reader`]) and the
//! tree-sitter walk ([`crate::builder`]), build exactly these values; what
//! reads them never knows which reader did.

use std::ops::Range;

use crate::scalar::ScalarStyle;

#[derive(Clone, Debug, PartialEq)]
pub struct YamlFile {
    pub documents: Vec<Document>,
    /// Syntax errors of all documents, in source order.
    pub errors: Vec<SyntaxError>,
    /// Every comment (`# ...`) in the file, in source order.
    pub comments: Vec<Range<usize>>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Document {
    /// Bytes of this document, `---` line included.
    pub span: Range<usize>,
    /// `None` for an empty document (only comments or nothing).
    pub root: Option<Node>,
    /// Whether the document had syntax errors (its tree may have holes).
    pub broken: bool,
    pub duplicate_keys: Vec<DuplicateKey>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SyntaxError {
    pub span: Range<usize>,
    pub message: String,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DuplicateKey {
    pub key: String,
    pub first: Range<usize>,
    pub second: Range<usize>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Node {
    pub span: Range<usize>,
    pub kind: NodeKind,
}

#[derive(Clone, Debug, PartialEq)]
pub enum NodeKind {
    Mapping(Vec<Pair>),
    Sequence(Vec<Node>),
    Scalar(Scalar),
    /// `key:` with nothing after it, or an empty flow entry.
    Null,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Pair {
    pub key: Node,
    pub value: Node,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Scalar {
    pub value: String,
    pub style: ScalarStyle,
    pub kind: ScalarKind,
    /// Indentation of the line that owns the scalar (for block scalars'
    /// explicit indentation indicators).
    pub parent_indent: u32,
}

/// What a plain scalar resolves to (YAML 1.1 as PyYAML reads it, which is
/// what LHP uses); quoted and block scalars are always strings.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ScalarKind {
    Str,
    Int,
    Float,
    Bool,
    Null,
}

impl Node {
    pub fn as_mapping(&self) -> Option<&[Pair]> {
        match &self.kind {
            NodeKind::Mapping(pairs) => Some(pairs),
            _ => None,
        }
    }

    pub fn as_sequence(&self) -> Option<&[Node]> {
        match &self.kind {
            NodeKind::Sequence(items) => Some(items),
            _ => None,
        }
    }

    pub fn as_scalar(&self) -> Option<&Scalar> {
        match &self.kind {
            NodeKind::Scalar(s) => Some(s),
            _ => None,
        }
    }

    /// The value of a scalar that reads as a string (not null).
    pub fn as_str(&self) -> Option<&str> {
        match &self.kind {
            NodeKind::Scalar(s) if s.kind != ScalarKind::Null => Some(&s.value),
            _ => None,
        }
    }

    pub fn is_null(&self) -> bool {
        matches!(&self.kind, NodeKind::Null)
            || matches!(&self.kind, NodeKind::Scalar(s) if s.kind == ScalarKind::Null)
    }

    /// The pair whose key reads `key` (the last one, as PyYAML keeps it).
    pub fn pair(&self, key: &str) -> Option<&Pair> {
        self.as_mapping()?
            .iter()
            .rev()
            .find(|p| p.key.as_str() == Some(key))
    }

    pub fn get(&self, key: &str) -> Option<&Node> {
        self.pair(key).map(|p| &p.value)
    }

    /// A human name for the node's YAML type, for messages.
    pub fn type_name(&self) -> &'static str {
        match &self.kind {
            NodeKind::Mapping(_) => "a mapping",
            NodeKind::Sequence(_) => "a list",
            NodeKind::Null => "null",
            NodeKind::Scalar(s) => match s.kind {
                ScalarKind::Null => "null",
                ScalarKind::Bool => "a boolean",
                ScalarKind::Int | ScalarKind::Float => "a number",
                ScalarKind::Str => "a string",
            },
        }
    }
}

/// The plain scalars PyYAML's YAML 1.1 resolver reads as null (its
/// pattern `~|null|Null|NULL|`, the empty scalar included).
pub fn is_null_word(text: &str) -> bool {
    matches!(text, "" | "~" | "null" | "Null" | "NULL")
}

/// The plain scalars PyYAML's YAML 1.1 resolver reads as booleans.
pub fn is_bool_word(text: &str) -> bool {
    matches!(
        text,
        "yes"
            | "Yes"
            | "YES"
            | "no"
            | "No"
            | "NO"
            | "true"
            | "True"
            | "TRUE"
            | "false"
            | "False"
            | "FALSE"
            | "on"
            | "On"
            | "ON"
            | "off"
            | "Off"
            | "OFF"
    )
}

/// YAML 1.1 resolution of plain scalars, as PyYAML's safe loader does it.
pub fn plain_kind(raw: &str) -> ScalarKind {
    // Readers hand over scalars without surrounding blanks: `trim` (which
    // decodes Unicode white space at both ends) only when an end is not a
    // printable ASCII character.
    let printable = |b: Option<&u8>| b.is_some_and(|b| b.is_ascii_graphic());
    let bytes = raw.as_bytes();
    let text = if printable(bytes.first()) && printable(bytes.last()) {
        raw
    } else {
        raw.trim()
    };
    // Only these characters start a null, a boolean or a number: most
    // scalars are names, told apart by their first byte.
    if text.as_bytes().first().is_some_and(|&c| {
        !matches!(
            c,
            b'~' | b'n'
                | b'N'
                | b't'
                | b'T'
                | b'f'
                | b'F'
                | b'y'
                | b'Y'
                | b'o'
                | b'O'
                | b'-'
                | b'+'
                | b'.'
                | b'_'
                | b'0'..=b'9'
        )
    }) {
        return ScalarKind::Str;
    }
    if is_null_word(text) {
        return ScalarKind::Null;
    }
    if is_bool_word(text) {
        return ScalarKind::Bool;
    }
    // Only a digit, `.` or `_` can start a number (after a sign): most
    // scalars are names and stop here, without the allocations below.
    let unsigned = text.strip_prefix(['-', '+']).unwrap_or(text);
    if unsigned
        .bytes()
        .next()
        .is_some_and(|b| !b.is_ascii_digit() && b != b'.' && b != b'_')
    {
        return ScalarKind::Str;
    }
    let digits = unsigned.replace('_', "");
    if !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()) {
        return ScalarKind::Int;
    }
    if let Some(hex) = digits.strip_prefix("0x") {
        if !hex.is_empty() && hex.bytes().all(|b| b.is_ascii_hexdigit()) {
            return ScalarKind::Int;
        }
    }
    let lower = digits.to_ascii_lowercase();
    if lower == ".inf" || lower == ".nan" {
        return ScalarKind::Float;
    }
    let mut seen_digit = false;
    let mut seen_dot = false;
    let mut chars = lower.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '0'..='9' => seen_digit = true,
            '.' if !seen_dot => seen_dot = true,
            'e' if seen_digit && seen_dot => {
                if matches!(chars.peek(), Some('-') | Some('+')) {
                    chars.next();
                }
                let rest: String = chars.collect();
                return if !rest.is_empty() && rest.bytes().all(|b| b.is_ascii_digit()) {
                    ScalarKind::Float
                } else {
                    ScalarKind::Str
                };
            }
            _ => return ScalarKind::Str,
        }
    }
    if seen_digit && seen_dot {
        ScalarKind::Float
    } else {
        ScalarKind::Str
    }
}
