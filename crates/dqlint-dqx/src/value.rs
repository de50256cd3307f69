//! The typed-value layer: the Python value DQX receives from `safe_load`
//! (YAML) or `json.load` (JSON), node by node, each with the exact span of
//! its source in the CST of `dqlint-yaml`.

use std::ops::Range;

use dqlint_yaml::{Node, NodeKind, Pair, ScalarStyle, YamlFile};

use crate::yaml11::{self, Date, Scalar11};

/// How a file is read: DQX picks the reader by extension.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// PyYAML `safe_load` (every extension but `.json`).
    Yaml,
    /// `json.load`.
    Json,
}

impl Format {
    /// DQX's `SerializerFactory`: `.json` is JSON, anything else YAML.
    pub fn for_path(path: &str) -> Format {
        if path.to_ascii_lowercase().ends_with(".json") {
            Format::Json
        } else {
            Format::Yaml
        }
    }
}

/// One Python value with where it was written.
#[derive(Clone, Debug, PartialEq)]
pub struct Typed {
    pub span: Range<usize>,
    pub kind: Kind,
    /// A scalar written without quotes (YAML plain style).
    pub plain: bool,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Kind {
    None,
    Bool(bool),
    /// Python ints are unbounded; past `i128` the value saturates.
    Int(i128),
    Float(f64),
    Str(String),
    Date(Date),
    /// A date and its time of day as written (boxed: a rare value, and
    /// every `Typed` is as large as its largest kind).
    DateTime(Date, Box<str>),
    /// `{__decimal__: "0.01"}`, DQX's marker for a `Decimal`.
    Decimal(String),
    List(Vec<Typed>),
    Map(Vec<Entry>),
    /// A Python value no checks file can hold, from a `.py` source: an
    /// object of a known class (`F.col("a")`: `Column`), or one the static
    /// reader cannot know (a variable bound at run time, a call), which
    /// every type accepts: it is never guessed. Boxed: only Python sources
    /// hold them, and every `Typed` is as large as its largest kind.
    Object(Box<PyObject>),
}

/// A Python object of a `.py` source ([`Kind::Object`]).
#[derive(Clone, Debug, PartialEq)]
pub struct PyObject {
    /// Its class when known (`Column`); `None`: known only at run time.
    pub class: Option<String>,
    /// Its source text.
    pub source: String,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Entry {
    pub key: Typed,
    pub value: Typed,
}

/// Something the reader itself rejects: the file does not load in DQX.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LoadError {
    pub span: Range<usize>,
    pub message: String,
}

impl Typed {
    pub fn new(span: Range<usize>, kind: Kind) -> Typed {
        Typed {
            span,
            kind,
            plain: false,
        }
    }

    /// The Python type's name as DQX's messages print it.
    pub fn py_type(&self) -> &'static str {
        match &self.kind {
            Kind::None => "NoneType",
            Kind::Bool(_) => "bool",
            Kind::Int(_) => "int",
            Kind::Float(_) => "float",
            Kind::Str(_) => "str",
            Kind::Date(_) => "datetime.date",
            Kind::DateTime(..) => "datetime.datetime",
            Kind::Decimal(_) => "Decimal",
            Kind::List(_) => "list",
            Kind::Map(_) => "dict",
            Kind::Object(_) => "object",
        }
    }

    /// A human name for messages ("a string", "a boolean", ...).
    pub fn described(&self) -> &'static str {
        match &self.kind {
            Kind::None => "null",
            Kind::Bool(_) => "a boolean",
            Kind::Int(_) => "an integer",
            Kind::Float(_) => "a float",
            Kind::Str(_) => "a string",
            Kind::Date(_) => "a date",
            Kind::DateTime(..) => "a timestamp",
            Kind::Decimal(_) => "a Decimal",
            Kind::List(_) => "a list",
            Kind::Map(_) => "a mapping",
            Kind::Object(o) if o.class.is_some() => "a Spark Column",
            Kind::Object(_) => "a value known only at run time",
        }
    }

    /// A Python value the static reader could not know.
    pub fn is_unknown(&self) -> bool {
        matches!(&self.kind, Kind::Object(o) if o.class.is_none())
    }

    pub fn as_str(&self) -> Option<&str> {
        match &self.kind {
            Kind::Str(s) => Some(s),
            _ => None,
        }
    }

    pub fn as_list(&self) -> Option<&[Typed]> {
        match &self.kind {
            Kind::List(items) => Some(items),
            _ => None,
        }
    }

    pub fn as_map(&self) -> Option<&[Entry]> {
        match &self.kind {
            Kind::Map(entries) => Some(entries),
            _ => None,
        }
    }

    pub fn is_none(&self) -> bool {
        matches!(self.kind, Kind::None)
    }

    /// The entry whose key is the string `key` (the last, as Python's
    /// dict keeps it).
    pub fn entry(&self, key: &str) -> Option<&Entry> {
        // Every rule asks every check for its keys: the first byte rules
        // out most keys before a full compare.
        let first = key.as_bytes().first();
        self.as_map()?.iter().rev().find(|e| {
            e.key
                .as_str()
                .is_some_and(|k| k.as_bytes().first() == first && k == key)
        })
    }

    pub fn get(&self, key: &str) -> Option<&Typed> {
        self.entry(key).map(|e| &e.value)
    }

    /// A short rendering of the value for messages (`'US'`, `true`, `[..]`).
    pub fn shown(&self) -> String {
        match &self.kind {
            Kind::None => "null".into(),
            Kind::Bool(b) => b.to_string(),
            Kind::Int(i) => i.to_string(),
            Kind::Float(f) => f.to_string(),
            Kind::Str(s) => format!("{s:?}"),
            Kind::Date(d) => d.to_string(),
            Kind::DateTime(d, t) => format!("{d} {t}"),
            Kind::Decimal(d) => format!("Decimal({d:?})"),
            Kind::List(_) => "a list".into(),
            Kind::Map(_) => "a mapping".into(),
            Kind::Object(o) => o.source.clone(),
        }
    }
}

/// The typed value of a whole file: its one document, as DQX loads it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Loaded {
    /// `None`: the file is empty (or comments only): DQX reads no checks.
    pub root: Option<Typed>,
    pub errors: Vec<LoadError>,
}

/// Types the parse of a file as DQX's reader would.
///
/// Syntax errors of the CST are not repeated here (the YAML layer reports
/// them); what is added is what only the Python reader rejects: several
/// documents, values `safe_load` cannot construct (`2024-02-30`, `=`,
/// unknown tags), JSON that `json.load` refuses.
pub fn load(text: &str, yaml: &YamlFile, format: Format) -> Loaded {
    let errors = document_errors(text, yaml, format);
    let root = yaml.documents.iter().find_map(|d| d.root.as_ref());
    typed_root(text, format, root, errors)
}

/// [`load`], taking the tree out of the parse instead of copying it: the
/// typed values keep the tree's strings. What a one-shot lint does with a
/// checks file it will not read again as YAML (the document spans, errors,
/// comments and duplicate keys stay in `yaml`; the roots do not).
pub fn load_taking(text: &str, yaml: &mut YamlFile, format: Format) -> Loaded {
    let errors = document_errors(text, yaml, format);
    let root = yaml.documents.iter_mut().find_map(|d| d.root.take());
    for document in &mut yaml.documents {
        document.root = None;
    }
    typed_root(text, format, root, errors)
}

/// What the reader rejects about the file as a whole: JSON `json.load`
/// refuses, a second YAML document.
fn document_errors(text: &str, yaml: &YamlFile, format: Format) -> Vec<LoadError> {
    let mut errors = Vec::new();
    if format == Format::Json {
        if let Some(e) = json_error(text) {
            errors.push(e);
        }
    }
    if yaml.documents.len() > 1 && format == Format::Yaml {
        let with_root = yaml.documents.iter().filter(|d| d.root.is_some()).count();
        let second = &yaml.documents[1];
        if with_root > 1 || second.root.is_some() || has_explicit_start(text, &second.span) {
            errors.push(LoadError {
                span: second.span.start..second.span.start + 3.min(second.span.len()),
                message: "expected a single document in the stream, but found another document"
                    .into(),
            });
        }
    }
    errors
}

fn typed_root<N: TreeNode>(
    text: &str,
    format: Format,
    root: Option<N>,
    mut errors: Vec<LoadError>,
) -> Loaded {
    let root = root.map(|node| {
        let mut builder = Builder {
            text,
            format,
            // JSON has no tags, and a YAML tag starts with `!`: a file
            // without one is not searched for a tag before each scalar.
            tags: format == Format::Yaml && text.contains('!'),
            errors: &mut errors,
        };
        builder.typed(node)
    });
    Loaded { root, errors }
}

fn has_explicit_start(text: &str, span: &Range<usize>) -> bool {
    text.get(span.clone())
        .is_some_and(|t| t.trim_start().starts_with("---"))
}

/// A node of the YAML tree as the builder reads it: borrowed (its strings
/// are copied: the language server keeps its trees) or owned (its strings
/// are taken: a one-shot lint drops the tree after typing).
trait TreeNode: Sized {
    type Items: Iterator<Item = Self>;
    type Pairs: Iterator<Item = (Self, Self)>;
    type Text: std::ops::Deref<Target = str> + Into<String>;
    /// The node's span and kind.
    fn read(self) -> (Range<usize>, ReadOf<Self>);
}

type ReadOf<N> = Read<<N as TreeNode>::Items, <N as TreeNode>::Pairs, <N as TreeNode>::Text>;

/// A node's kind, its children still to read.
enum Read<Items, Pairs, Text> {
    Null,
    Sequence(Items),
    Mapping(Pairs),
    Scalar { value: Text, plain: bool },
}

impl<'t> TreeNode for &'t Node {
    type Items = std::slice::Iter<'t, Node>;
    type Pairs = std::iter::Map<std::slice::Iter<'t, Pair>, fn(&'t Pair) -> (&'t Node, &'t Node)>;
    type Text = &'t str;
    fn read(self) -> (Range<usize>, ReadOf<Self>) {
        let read = match &self.kind {
            NodeKind::Null => Read::Null,
            NodeKind::Sequence(items) => Read::Sequence(items.iter()),
            NodeKind::Mapping(pairs) => Read::Mapping(pairs.iter().map(pair_refs as _)),
            NodeKind::Scalar(s) => Read::Scalar {
                value: s.value.as_str(),
                plain: s.style == ScalarStyle::Plain,
            },
        };
        (self.span.clone(), read)
    }
}

impl TreeNode for Node {
    type Items = std::vec::IntoIter<Node>;
    type Pairs = std::iter::Map<std::vec::IntoIter<Pair>, fn(Pair) -> (Node, Node)>;
    type Text = String;
    fn read(self) -> (Range<usize>, ReadOf<Self>) {
        let read = match self.kind {
            NodeKind::Null => Read::Null,
            NodeKind::Sequence(items) => Read::Sequence(items.into_iter()),
            NodeKind::Mapping(pairs) => Read::Mapping(pairs.into_iter().map(pair_parts as _)),
            NodeKind::Scalar(s) => Read::Scalar {
                plain: s.style == ScalarStyle::Plain,
                value: s.value,
            },
        };
        (self.span, read)
    }
}

fn pair_refs(pair: &Pair) -> (&Node, &Node) {
    (&pair.key, &pair.value)
}

fn pair_parts(pair: Pair) -> (Node, Node) {
    (pair.key, pair.value)
}

struct Builder<'a> {
    text: &'a str,
    format: Format,
    /// Whether a scalar can have a `!tag` before it.
    tags: bool,
    errors: &'a mut Vec<LoadError>,
}

impl Builder<'_> {
    /// The node's value (an owned node's strings are taken, a borrowed
    /// node's copied).
    fn typed<N: TreeNode>(&mut self, node: N) -> Typed {
        let (span, read) = node.read();
        match read {
            Read::Null => Typed::new(span, Kind::None),
            Read::Sequence(items) => {
                let items = items.map(|n| self.typed(n)).collect();
                Typed::new(span, Kind::List(items))
            }
            Read::Mapping(pairs) => {
                let entries: Vec<Entry> = pairs
                    .map(|(key, value)| Entry {
                        key: self.typed(key),
                        value: self.typed(value),
                    })
                    .collect();
                if let [only] = entries.as_slice() {
                    if only.key.as_str() == Some("__decimal__") {
                        return self.decimal(span, &only.value);
                    }
                }
                Typed::new(span, Kind::Map(entries))
            }
            Read::Scalar { value, plain } => {
                // JSON has no tags (and its files can be one long line, which
                // the search for a tag would scan back over per scalar).
                let tag = if self.tags {
                    self.tag_before(span.start)
                } else {
                    None
                };
                let kind = match (self.format, tag) {
                    (Format::Yaml, Some(tag)) => self.tagged(&tag, &value, &span),
                    (Format::Yaml, None) if plain => match yaml11::resolve(&value) {
                        // A string keeps the tree's string (most of a
                        // checks file).
                        yaml11::Tag::Str => Kind::Str(value.into()),
                        tag => match yaml11::construct(&value, tag) {
                            Ok(v) => from_scalar(v),
                            Err(message) => {
                                self.errors.push(LoadError {
                                    span: span.clone(),
                                    message: format!("`{}` does not load: {message}", &*value),
                                });
                                Kind::Str(value.into())
                            }
                        },
                    },
                    (Format::Json, _) if plain => json_scalar(&value),
                    _ => Kind::Str(value.into()),
                };
                Typed { span, kind, plain }
            }
        }
    }

    fn decimal(&mut self, span: Range<usize>, value: &Typed) -> Typed {
        let digits = match &value.kind {
            Kind::Str(s) => s.trim().to_string(),
            Kind::Int(i) => i.to_string(),
            Kind::Float(f) => f.to_string(),
            _ => String::new(),
        };
        if !is_python_decimal(&digits) {
            self.errors.push(LoadError {
                span: value.span.clone(),
                message: format!(
                    "`__decimal__` holds {}, which `Decimal()` rejects (decimal.InvalidOperation)",
                    value.shown()
                ),
            });
        }
        Typed::new(span, Kind::Decimal(digits))
    }

    /// A `!tag` written just before a node (the CST keeps no tags).
    fn tag_before(&self, start: usize) -> Option<String> {
        let line_start = self.text[..start].rfind('\n').map_or(0, |i| i + 1);
        let before = self.text[line_start..start].trim_end();
        let word = before
            .rsplit([' ', '\t', '[', '{', ',', '-', ':'])
            .next()
            .unwrap_or("");
        (word.starts_with('!') && before.ends_with(word)).then(|| word.to_string())
    }

    fn tagged(&mut self, tag: &str, value: &str, span: &Range<usize>) -> Kind {
        let name = tag
            .strip_prefix("!!")
            .or_else(|| {
                tag.strip_prefix("!<tag:yaml.org,2002:")
                    .map(|t| t.trim_end_matches('>'))
            })
            .unwrap_or("");
        let built = match name {
            "str" => Ok(Scalar11::Str(value.to_string())),
            "int" | "float" | "bool" | "null" | "timestamp" => {
                // An explicit tag skips the resolver but not the constructor.
                let wanted = match name {
                    "int" => yaml11::Tag::Int,
                    "float" => yaml11::Tag::Float,
                    "bool" => yaml11::Tag::Bool,
                    "null" => yaml11::Tag::Null,
                    _ => yaml11::Tag::Timestamp,
                };
                if yaml11::resolve(value) == wanted {
                    yaml11::construct_plain(value)
                } else {
                    Err(format!("`{value}` is not a valid {name}"))
                }
            }
            _ => Err(format!(
                "could not determine a constructor for the tag '{tag}' (safe_load knows only the standard tags)"
            )),
        };
        match built {
            Ok(v) => from_scalar(v),
            Err(message) => {
                self.errors.push(LoadError {
                    span: span.clone(),
                    message,
                });
                Kind::Str(value.to_string())
            }
        }
    }
}

fn from_scalar(v: Scalar11) -> Kind {
    match v {
        Scalar11::None => Kind::None,
        Scalar11::Bool(b) => Kind::Bool(b),
        Scalar11::Int { value, .. } => Kind::Int(value),
        Scalar11::Float(f) => Kind::Float(f),
        Scalar11::Date(d) => Kind::Date(d),
        Scalar11::DateTime { date, time } => Kind::DateTime(date, time.into_boxed_str()),
        Scalar11::Str(s) => Kind::Str(s),
    }
}

/// A bare JSON token: `true`, `false`, `null`, or a number (an int when it
/// has no fraction or exponent, as `json.load` reads it).
fn json_scalar(text: &str) -> Kind {
    match text {
        "true" => Kind::Bool(true),
        "false" => Kind::Bool(false),
        "null" => Kind::None,
        "NaN" => Kind::Float(f64::NAN),
        "Infinity" => Kind::Float(f64::INFINITY),
        "-Infinity" => Kind::Float(f64::NEG_INFINITY),
        _ if !text.contains(['.', 'e', 'E']) => match text.parse::<i128>() {
            Ok(i) => Kind::Int(i),
            Err(_)
                if text
                    .trim_start_matches('-')
                    .bytes()
                    .all(|b| b.is_ascii_digit()) =>
            {
                Kind::Int(if text.starts_with('-') {
                    i128::MIN
                } else {
                    i128::MAX
                })
            }
            Err(_) => Kind::Str(text.to_string()),
        },
        _ => text
            .parse::<f64>()
            .map(Kind::Float)
            .unwrap_or_else(|_| Kind::Str(text.to_string())),
    }
}

/// What `json.load` rejects, at the place it names.
fn json_error(text: &str) -> Option<LoadError> {
    // Python accepts the NaN/Infinity extensions serde_json does not: swap
    // them for a number of the same length before checking the syntax.
    // (Most files hold neither word: they are checked as they are.)
    let patched = if text.contains("NaN") || text.contains("Infinity") {
        std::borrow::Cow::Owned(patch_json_constants(text))
    } else {
        std::borrow::Cow::Borrowed(text)
    };
    let err = serde_json::from_str::<serde::de::IgnoredAny>(&patched).err()?;
    if text.trim().is_empty() {
        return Some(LoadError {
            span: 0..0,
            message: "an empty file is not JSON (json.load: Expecting value)".into(),
        });
    }
    if err.classify() == serde_json::error::Category::Data {
        // Out-of-range numbers: Python reads them as inf or a big int.
        return None;
    }
    let offset = offset_of(text, err.line(), err.column());
    let end = text[offset..]
        .char_indices()
        .nth(1)
        .map_or(text.len(), |(i, _)| offset + i);
    let message = err.to_string();
    let message = message
        .split(" at line ")
        .next()
        .unwrap_or(&message)
        .to_string();
    Some(LoadError {
        span: offset..end,
        message: format!("not valid JSON (json.load rejects it): {message}"),
    })
}

fn patch_json_constants(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut in_string = false;
    let mut escaped = false;
    let mut rest = text;
    while let Some(c) = rest.chars().next() {
        if in_string {
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == '"' {
                in_string = false;
            }
            out.push(c);
            rest = &rest[c.len_utf8()..];
            continue;
        }
        if c == '"' {
            in_string = true;
        }
        let replaced = ["-Infinity", "Infinity", "NaN"]
            .iter()
            .find(|word| rest.starts_with(**word));
        if let Some(word) = replaced {
            out.push_str(&"0".repeat(word.len()));
            rest = &rest[word.len()..];
        } else {
            out.push(c);
            rest = &rest[c.len_utf8()..];
        }
    }
    out
}

fn offset_of(text: &str, line: usize, column: usize) -> usize {
    let mut offset = 0;
    for (i, l) in text.split_inclusive('\n').enumerate() {
        if i + 1 == line {
            let col = column.saturating_sub(1);
            return offset + l.char_indices().nth(col).map_or(l.len(), |(b, _)| b);
        }
        offset += l.len();
    }
    text.len()
}

/// Whether `Decimal(s)` accepts the string (Python's decimal syntax).
fn is_python_decimal(s: &str) -> bool {
    let s = s.trim().replace('_', "");
    let body = s.strip_prefix(['+', '-']).unwrap_or(&s);
    let lower = body.to_ascii_lowercase();
    if matches!(lower.as_str(), "inf" | "infinity" | "nan" | "snan") {
        return true;
    }
    let (mantissa, exponent) = match lower.split_once('e') {
        Some((m, e)) => (m, Some(e)),
        None => (lower.as_str(), None),
    };
    let digits_ok = {
        let (int, frac) = mantissa.split_once('.').unwrap_or((mantissa, ""));
        (!int.is_empty() || !frac.is_empty())
            && int.bytes().all(|b| b.is_ascii_digit())
            && frac.bytes().all(|b| b.is_ascii_digit())
    };
    let exp_ok = exponent.is_none_or(|e| {
        let e = e.strip_prefix(['+', '-']).unwrap_or(e);
        !e.is_empty() && e.bytes().all(|b| b.is_ascii_digit())
    });
    digits_ok && exp_ok
}

#[cfg(test)]
mod tests {
    use super::*;

    fn root(text: &str, format: Format) -> Loaded {
        let yaml = dqlint_yaml::parse(text);
        let borrowed = load(text, &yaml, format);
        // Taking the tree's strings reads the same values and errors as
        // copying them, and leaves the rest of the parse as it was.
        let mut taken_from = yaml.clone();
        let taken = load_taking(text, &mut taken_from, format);
        assert_eq!(borrowed, taken, "{text}");
        assert!(taken_from.documents.iter().all(|d| d.root.is_none()));
        assert_eq!(taken_from.errors, yaml.errors);
        assert_eq!(taken_from.comments, yaml.comments);
        borrowed
    }

    #[test]
    fn yaml11_values_with_spans() {
        let text = "- a: NO\n  b: '2024-01-01'\n  c: 2024-01-01\n  d: {__decimal__: '0.01'}\n";
        let loaded = root(text, Format::Yaml);
        assert!(loaded.errors.is_empty(), "{:?}", loaded.errors);
        let item = &loaded.root.unwrap().as_list().unwrap()[0].clone();
        let a = item.get("a").unwrap();
        assert_eq!(a.kind, Kind::Bool(false));
        assert_eq!(&text[a.span.clone()], "NO");
        assert!(a.plain);
        assert_eq!(item.get("b").unwrap().kind, Kind::Str("2024-01-01".into()));
        assert!(matches!(item.get("c").unwrap().kind, Kind::Date(_)));
        assert_eq!(item.get("d").unwrap().kind, Kind::Decimal("0.01".into()));
    }

    #[test]
    fn json_is_json() {
        let loaded = root(
            r#"[{"a": 1e5, "b": 1, "c": "NO", "d": null}]"#,
            Format::Json,
        );
        assert!(loaded.errors.is_empty(), "{:?}", loaded.errors);
        let item = loaded.root.unwrap().as_list().unwrap()[0].clone();
        assert_eq!(item.get("a").unwrap().kind, Kind::Float(100000.0));
        assert_eq!(item.get("b").unwrap().kind, Kind::Int(1));
        assert_eq!(item.get("c").unwrap().kind, Kind::Str("NO".into()));
        assert_eq!(item.get("d").unwrap().kind, Kind::None);
        let broken = root("[{\"a\": 1,}]", Format::Json);
        assert_eq!(broken.errors.len(), 1);
    }

    #[test]
    fn several_documents_do_not_load() {
        let loaded = root("- a: 1\n---\n- b: 2\n", Format::Yaml);
        assert_eq!(loaded.errors.len(), 1);
    }

    #[test]
    fn tags() {
        let loaded = root("a: !!str 123\nb: !custom x\n", Format::Yaml);
        let r = loaded.root.unwrap();
        assert_eq!(r.get("a").unwrap().kind, Kind::Str("123".into()));
        assert_eq!(loaded.errors.len(), 1);
    }

    #[test]
    fn decimals() {
        assert!(is_python_decimal("0.01"));
        assert!(is_python_decimal("-1e5"));
        assert!(is_python_decimal("NaN"));
        assert!(!is_python_decimal("abc"));
        assert!(!is_python_decimal(""));
    }
}
