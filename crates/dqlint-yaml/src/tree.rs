//! Typed, owned views over the tree-sitter-yaml CST.
//!
//! A file is cut into `---` documents and each is parsed on its own, so a
//! document that the grammar cannot recover (missing `:`, tabs, bad
//! indentation: upstream issues #12/#14) does not hide the documents after
//! it. Inside a broken document the offending line is blanked and the
//! document re-parsed, so the keys around the mistake are still linted.

use std::collections::HashMap;
use std::ops::Range;

use crate::scalar::{self, ScalarStyle};

/// The grammar's external scanner counts rows in an `int16_t` (upstream #49).
pub const MAX_DOCUMENT_LINES: usize = 32_768;
/// Budget of nodes produced by alias expansion in one document (alias bombs).
const ALIAS_NODE_BUDGET: usize = 100_000;
/// How many broken lines of one document are blanked out before giving up.
const MAX_RECOVERY_ROUNDS: usize = 12;

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

/// Parses a YAML (or JSON) text. Never fails: broken parts become
/// [`SyntaxError`]s and holes in the tree.
///
/// Documents in the plain block style go through the fast line reader
/// ([`crate::block_reader`]), the rest through tree-sitter; both give the
/// same [`Document`].
pub fn parse(text: &str) -> YamlFile {
    parse_with(text, crate::block_reader::enabled())
}

/// [`parse`] with every document going through tree-sitter: the reference
/// the fast reader is checked against.
pub fn parse_tree_sitter_only(text: &str) -> YamlFile {
    parse_with(text, false)
}

fn parse_with(text: &str, fast: bool) -> YamlFile {
    let mut reader = DocumentReader::new(fast);
    let mut file = YamlFile {
        documents: Vec::new(),
        errors: Vec::new(),
        comments: Vec::new(),
    };
    for span in document_spans(text) {
        let (read, _) = reader.read(text, span, &mut None);
        file.errors.extend(read.errors);
        file.comments.extend(read.comments);
        file.documents.push(read.document);
    }
    put_in_source_order(&mut file);
    file
}

/// Sorts a file's errors and comments as [`parse`] hands them out. Documents
/// are read one by one, and the tree walk meets comments in tree order, not
/// always source order.
pub(crate) fn put_in_source_order(file: &mut YamlFile) {
    file.errors.sort_by_key(|e| e.span.start);
    file.comments.sort_by_key(|c| (c.start, c.end));
    file.comments.dedup();
}

/// What one `---` document adds to its [`YamlFile`]; errors and comments in
/// the order they were found.
pub(crate) struct DocumentParse {
    pub document: Document,
    pub errors: Vec<SyntaxError>,
    pub comments: Vec<Range<usize>>,
}

/// Which reader read a document.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ReadBy {
    FastReader,
    /// tree-sitter from scratch.
    TreeSitter,
    /// tree-sitter starting from the document's previous tree.
    TreeSitterIncremental,
    /// Neither: the document is too long or too deeply nested to read.
    Refused,
}

/// Reads documents one at a time, through the fast line reader when allowed
/// and it accepts the document, else through tree-sitter (one parser, made
/// on first need).
pub(crate) struct DocumentReader {
    fast: bool,
    parser: Option<tree_sitter::Parser>,
}

impl DocumentReader {
    pub fn new(fast: bool) -> DocumentReader {
        DocumentReader { fast, parser: None }
    }

    /// Reads the document `span` of `text`. `tree`, when given, is
    /// tree-sitter's tree of an earlier text of this document, already
    /// `edit`ed to this text: tree-sitter then re-parses only what changed.
    /// When tree-sitter reads the document, `tree` becomes its tree of this
    /// text (before any recovery blanked a line), ready for the next edit.
    pub fn read(
        &mut self,
        text: &str,
        span: Range<usize>,
        tree: &mut Option<tree_sitter::Tree>,
    ) -> (DocumentParse, ReadBy) {
        // The depth guard speaks for both readers: a document it refuses is
        // refused whichever reader would have read it.
        if self.fast && too_deep(&text[span.clone()]).is_none() {
            if let Some(read) = crate::block_reader::read_document(text, span.clone()) {
                let document = Document {
                    span,
                    root: read.root,
                    broken: false,
                    duplicate_keys: read.duplicate_keys,
                };
                let read = DocumentParse {
                    document,
                    errors: Vec::new(),
                    comments: read.comments,
                };
                return (read, ReadBy::FastReader);
            }
        }
        let parser = self.parser.get_or_insert_with(|| {
            let mut parser = tree_sitter::Parser::new();
            parser
                .set_language(&tree_sitter_yaml::LANGUAGE.into())
                .expect("tree-sitter-yaml is ABI-compatible with the linked runtime");
            parser
        });
        parse_document(parser, text, span, tree)
    }
}

/// Cuts a text at lines that start with `---` (the marker belongs to the
/// document after it).
pub fn document_spans(text: &str) -> Vec<Range<usize>> {
    let bytes = text.as_bytes();
    let mut cuts = vec![0];
    let mut line_start = 0;
    while line_start < bytes.len() {
        let rest = &bytes[line_start..];
        if rest.starts_with(b"---")
            && rest
                .get(3)
                .is_none_or(|b| matches!(b, b' ' | b'\t' | b'\n' | b'\r'))
            && line_start != 0
        {
            cuts.push(line_start);
        }
        match rest.iter().position(|b| *b == b'\n') {
            Some(nl) => line_start += nl + 1,
            None => break,
        }
    }
    cuts.push(text.len());
    cuts.windows(2).map(|w| w[0]..w[1]).collect()
}

fn parse_document(
    parser: &mut tree_sitter::Parser,
    text: &str,
    span: Range<usize>,
    previous: &mut Option<tree_sitter::Tree>,
) -> (DocumentParse, ReadBy) {
    let base = span.start;
    let mut errors = Vec::new();
    let mut comments = Vec::new();
    let unread = |span, errors, comments| {
        let document = Document {
            span,
            root: None,
            broken: true,
            duplicate_keys: Vec::new(),
        };
        (
            DocumentParse {
                document,
                errors,
                comments,
            },
            ReadBy::Refused,
        )
    };
    let mut source = text[span.clone()].to_string();
    let lines = source.lines().count();
    if lines > MAX_DOCUMENT_LINES {
        errors.push(SyntaxError {
            span: base..base,
            message: format!(
                "this YAML document has {lines} lines and uses syntax (flow mappings, anchors, \
                 multi-line scalars, tabs, CRLF or a syntax error) that only the full YAML \
                 grammar reads, which stops at {MAX_DOCUMENT_LINES} lines, so it was not linted: \
                 split it into several files, or write it in plain block style"
            ),
        });
        return unread(span, errors, comments);
    }

    if let Some(message) = too_deep(&source) {
        errors.push(SyntaxError {
            span: base..base,
            message,
        });
        return unread(span, errors, comments);
    }
    // How tree-sitter recovers from a syntax error depends on the tree it
    // starts from: an incremental parse of a broken document can differ from
    // a fresh one, and the errors reported would then depend on the edit
    // history. So a broken document is parsed afresh, and keeps no tree to
    // start from next time (it most likely is still broken after the next
    // edit, and an incremental parse through errors is slow).
    let mut by = if previous.is_some() {
        ReadBy::TreeSitterIncremental
    } else {
        ReadBy::TreeSitter
    };
    let mut first = parser.parse(&source, previous.as_ref());
    if by == ReadBy::TreeSitterIncremental
        && first.as_ref().is_none_or(|t| t.root_node().has_error())
    {
        by = ReadBy::TreeSitter;
        first = parser.parse(&source, None);
    }
    let Some(first) = first else {
        *previous = None;
        return unread(span, errors, comments);
    };
    *previous = (!first.root_node().has_error()).then(|| first.clone());
    let mut tree = first;
    let mut broken = false;
    let mut reported_lines: Vec<usize> = Vec::new();
    for _ in 0..MAX_RECOVERY_ROUNDS {
        if !tree.root_node().has_error() {
            break;
        }
        broken = true;
        let Some((error_at, message)) = locate_error(&tree, &source) else {
            break;
        };
        let line = line_bounds(&source, error_at);
        if reported_lines.contains(&line.start) {
            break;
        }
        reported_lines.push(line.start);
        let shown = trim_range(&source, line.clone());
        errors.push(SyntaxError {
            span: base + shown.start..base + shown.end,
            message,
        });
        // Blank the line and the lines nested under it (they cannot belong
        // anywhere now), keeping offsets, and try again.
        let blanked = line.start..nested_block_end(&source, line);
        // One space per byte, so every offset after the blank stays valid
        // in the original text (a multi-byte character becomes several).
        let blank: String = source[blanked.clone()]
            .chars()
            .map(|c| {
                if c == '\n' {
                    "\n".to_string()
                } else {
                    " ".repeat(c.len_utf8())
                }
            })
            .collect();
        // Same length, same line breaks: the blank is an edit that moves
        // nothing, and tree-sitter re-parses only around it.
        let start_position = crate::lines::point_at(&source, blanked.start);
        let end_position =
            crate::lines::point_after(start_position, &source.as_bytes()[blanked.clone()]);
        tree.edit(&tree_sitter::InputEdit {
            start_byte: blanked.start,
            old_end_byte: blanked.end,
            new_end_byte: blanked.end,
            start_position,
            old_end_position: end_position,
            new_end_position: end_position,
        });
        source.replace_range(blanked, &blank);
        match parser.parse(&source, Some(&tree)) {
            Some(t) => tree = t,
            None => break,
        }
    }

    let mut builder = Builder {
        text: &source,
        base,
        anchors: HashMap::new(),
        alias_budget: ALIAS_NODE_BUDGET,
        duplicate_keys: Vec::new(),
        errors: Vec::new(),
        comments: &mut comments,
    };
    let root = builder.document_root(tree.root_node());
    let duplicate_keys = std::mem::take(&mut builder.duplicate_keys);
    let alias_errors = std::mem::take(&mut builder.errors);
    if !alias_errors.is_empty() {
        broken = true;
    }
    errors.extend(alias_errors);
    let document = Document {
        span,
        root,
        broken,
        duplicate_keys,
    };
    (
        DocumentParse {
            document,
            errors,
            comments,
        },
        by,
    )
}

/// Nesting deeper than this is not configuration; the grammar's scanner
/// aborts on deep indentation and the tree walk would exhaust the stack.
const MAX_NESTING: usize = 128;
const MAX_INDENT: usize = 256;

/// Refuses documents nested too deeply to parse safely.
fn too_deep(source: &str) -> Option<String> {
    let mut depth: usize = 0;
    let mut deepest = 0;
    let mut quote: Option<u8> = None;
    for line in source.lines() {
        let indent = line.len() - line.trim_start_matches([' ', '-']).len();
        if indent > MAX_INDENT {
            return Some(format!(
                "this YAML document is indented more than {MAX_INDENT} columns deep; it was not linted"
            ));
        }
        for b in line.bytes() {
            match (quote, b) {
                (Some(q), c) if c == q => quote = None,
                (Some(_), _) => {}
                (None, b'"' | b'\'') => quote = Some(b),
                (None, b'#') => break,
                (None, b'[' | b'{') => {
                    depth += 1;
                    deepest = deepest.max(depth);
                }
                (None, b']' | b'}') => depth = depth.saturating_sub(1),
                _ => {}
            }
        }
        // Quotes do not span lines in flow collections often enough to
        // matter for a depth guard.
        quote = None;
    }
    (deepest > MAX_NESTING).then(|| {
        format!("this YAML document nests brackets {deepest} levels deep (more than {MAX_NESTING}); it was not linted")
    })
}

/// Finds the spot to blame in a tree with errors, and says what is wrong.
fn locate_error(tree: &tree_sitter::Tree, source: &str) -> Option<(usize, String)> {
    let root = tree.root_node();
    // The grammar sometimes gives up and stops the tree at the mistake: the
    // culprit is the first non-blank line after where the tree ends.
    let covered = root.end_byte();
    if root.is_error() && !source[covered..].trim().is_empty() {
        let at = covered + (source[covered..].len() - source[covered..].trim_start().len());
        return Some((at, describe_line(source, at)));
    }
    let node = first_error(root)?;
    if node.is_missing() {
        let what = node.kind();
        return Some((
            node.start_byte(),
            format!("YAML syntax error: missing `{what}`"),
        ));
    }
    // A root ERROR spanning the whole document: blame its last line with content.
    let at = if node.id() == root.id() {
        let mut cursor = node.walk();
        let last = node
            .children(&mut cursor)
            .filter(|c| c.kind() != "comment")
            .last();
        last.map(|c| c.start_byte()).unwrap_or(node.start_byte())
    } else {
        node.start_byte()
    };
    Some((at, describe_line(source, at)))
}

fn first_error(node: tree_sitter::Node) -> Option<tree_sitter::Node> {
    if node.is_missing() {
        return Some(node);
    }
    let mut cursor = node.walk();
    for child in node.children(&mut cursor) {
        if child.has_error() || child.is_missing() || child.is_error() {
            if let Some(found) = first_error(child) {
                return Some(found);
            }
        }
    }
    if node.is_error() {
        Some(node)
    } else {
        None
    }
}

/// A message for the line at `at`, naming the usual mistakes.
fn describe_line(source: &str, at: usize) -> String {
    let line = line_bounds(source, at);
    let content = source[line.clone()].trim_end_matches(['\n', '\r']);
    let trimmed = content.trim_start_matches(' ');
    if trimmed.starts_with('\t')
        || content.contains("\t") && content.trim_start().len() < trimmed.len()
    {
        return "YAML syntax error: a tab is used for indentation; YAML allows only spaces"
            .to_string();
    }
    let body = trimmed.trim_start_matches("- ").trim();
    let next = next_content_line(source, line.end);
    let indent = content.len() - trimmed.len();
    if !body.is_empty()
        && !body.starts_with('#')
        && !body.contains(':')
        && !body.starts_with(['"', '\'', '[', '{', '|', '>'])
    {
        if let Some(next) = next {
            let next_indent = next.len() - next.trim_start_matches(' ').len();
            if next_indent > indent {
                return format!(
                    "YAML syntax error: missing `:` after `{body}` (the indented lines below \
                     need a key to belong to)"
                );
            }
        }
        return format!(
            "YAML syntax error: `{body}` is neither a `key: value` pair nor a list item"
        );
    }
    if body.ends_with(": -") || body == "-" && next.is_none() {
        return "YAML syntax error: a lone `-` cannot be a value here; quote it or start a list on \
                the next line"
            .to_string();
    }
    for quote in ['"', '\''] {
        if body.matches(quote).count() % 2 == 1 {
            return format!("YAML syntax error: unterminated {quote}-quoted string");
        }
    }
    if indent % 2 == 1 {
        return format!("YAML syntax error: bad indentation ({indent} spaces) for `{body}`");
    }
    format!("YAML syntax error near `{}`", truncate(body, 40))
}

fn truncate(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        text.to_string()
    } else {
        format!("{}…", text.chars().take(max).collect::<String>())
    }
}

fn next_content_line(source: &str, from: usize) -> Option<&str> {
    source[from.min(source.len())..]
        .split('\n')
        .find(|l| !l.trim().is_empty() && !l.trim_start().starts_with('#'))
}

/// End of the lines after `line` that are indented deeper than it.
fn nested_block_end(source: &str, line: Range<usize>) -> usize {
    // A tab-indented broken line is nested: it must not take the less
    // indented lines after it down with it.
    let indent_of = crate::lines::indent_width;
    let own = indent_of(&source[line.clone()]);
    let mut end = line.end;
    for next in source[line.end..].split_inclusive('\n') {
        if next.trim().is_empty() || indent_of(next) > own {
            end += next.len();
        } else {
            break;
        }
    }
    end
}

/// The full line (with its `\n`) containing `at`.
fn line_bounds(source: &str, at: usize) -> Range<usize> {
    let at = crate::lines::floor_char_boundary(source, at.min(source.len()));
    let start = source[..at].rfind('\n').map(|i| i + 1).unwrap_or(0);
    let end = source[at..]
        .find('\n')
        .map(|i| at + i + 1)
        .unwrap_or(source.len());
    start..end
}

fn trim_range(source: &str, line: Range<usize>) -> Range<usize> {
    let text = &source[line.clone()];
    let start = line.start + (text.len() - text.trim_start().len());
    let end = line.start + text.trim_end().len();
    if end <= start {
        line.start..line.start
    } else {
        start..end
    }
}

struct Builder<'a> {
    text: &'a str,
    base: usize,
    anchors: HashMap<String, Node>,
    alias_budget: usize,
    duplicate_keys: Vec<DuplicateKey>,
    errors: Vec<SyntaxError>,
    comments: &'a mut Vec<Range<usize>>,
}

impl Builder<'_> {
    fn span(&self, node: tree_sitter::Node) -> Range<usize> {
        self.base + node.start_byte()..self.base + node.end_byte()
    }

    fn document_root(&mut self, root: tree_sitter::Node) -> Option<Node> {
        let mut found = None;
        self.visit_content(root, &mut found);
        found
    }

    /// Walks stream/document/ERROR wrappers to the first content node;
    /// collects comments on the way.
    fn visit_content(&mut self, node: tree_sitter::Node, found: &mut Option<Node>) {
        let mut cursor = node.walk();
        let children: Vec<_> = node.children(&mut cursor).collect();
        // An ERROR wrapper whose children are loose mapping pairs: rebuild
        // the mapping from what survived.
        if node.is_error() && children.iter().any(|c| c.kind() == "block_mapping_pair") {
            let pairs = self.mapping_pairs(&children);
            if found.is_none() {
                *found = Some(Node {
                    span: self.span(node),
                    kind: NodeKind::Mapping(pairs),
                });
            }
            self.collect_comments(node);
            return;
        }
        for child in children {
            match child.kind() {
                "comment" => self.comments.push(self.span(child)),
                "document" | "ERROR" | "stream" => self.visit_content(child, found),
                "block_node" | "flow_node" => {
                    if found.is_none() {
                        *found = self.node(child);
                    } else {
                        self.collect_comments(child);
                    }
                }
                _ => self.collect_comments(child),
            }
        }
    }

    fn collect_comments(&mut self, node: tree_sitter::Node) {
        if node.kind() == "comment" {
            self.comments.push(self.span(node));
            return;
        }
        let mut cursor = node.walk();
        for child in node.children(&mut cursor) {
            self.collect_comments(child);
        }
    }

    /// Converts a `block_node`/`flow_node` (or a bare content node).
    fn node(&mut self, node: tree_sitter::Node) -> Option<Node> {
        let mut anchor = None;
        let mut content = None;
        let mut cursor = node.walk();
        for child in node.children(&mut cursor) {
            match child.kind() {
                "anchor" => {
                    anchor = child
                        .child_by_field_name("name")
                        .or_else(|| child.named_child(0))
                        .map(|n| self.text[n.byte_range()].to_string());
                }
                "tag" => {}
                "comment" => self.comments.push(self.span(child)),
                "alias" => {
                    let name = child
                        .named_child(0)
                        .map(|n| self.text[n.byte_range()].to_string())
                        .unwrap_or_default();
                    content = Some(self.alias(child, &name));
                }
                _ if child.is_named() && content.is_none() => content = self.content(child),
                _ => {}
            }
        }
        if node.kind() != "block_node" && node.kind() != "flow_node" && content.is_none() {
            content = self.content(node);
        }
        let content = content.unwrap_or(Node {
            span: self.span(node),
            kind: NodeKind::Null,
        });
        if let Some(name) = anchor {
            self.anchors.insert(name, content.clone());
        }
        Some(content)
    }

    fn alias(&mut self, at: tree_sitter::Node, name: &str) -> Node {
        let span = self.span(at);
        match self.anchors.get(name) {
            Some(target) => {
                let size = node_count(target);
                if size > self.alias_budget {
                    self.errors.push(SyntaxError {
                        span: span.clone(),
                        message: format!(
                            "alias `*{name}` expands past {ALIAS_NODE_BUDGET} nodes in this \
                             document (an alias bomb?); it was not expanded"
                        ),
                    });
                    return Node {
                        span,
                        kind: NodeKind::Null,
                    };
                }
                self.alias_budget -= size;
                // The alias reads as the anchored value, located at the alias.
                Node {
                    span,
                    kind: target.kind.clone(),
                }
            }
            None => {
                self.errors.push(SyntaxError {
                    span: span.clone(),
                    message: format!("YAML error: alias `*{name}` refers to no anchor before it"),
                });
                Node {
                    span,
                    kind: NodeKind::Null,
                }
            }
        }
    }

    fn content(&mut self, node: tree_sitter::Node) -> Option<Node> {
        let span = self.span(node);
        let kind = match node.kind() {
            "block_mapping" | "flow_mapping" => {
                let mut cursor = node.walk();
                let children: Vec<_> = node.children(&mut cursor).collect();
                NodeKind::Mapping(self.mapping_pairs(&children))
            }
            "block_sequence" | "flow_sequence" => {
                let mut items = Vec::new();
                let mut cursor = node.walk();
                for child in node.children(&mut cursor) {
                    match child.kind() {
                        "block_sequence_item" => {
                            let mut c2 = child.walk();
                            let value = child
                                .named_children(&mut c2)
                                .find(|n| n.kind() != "comment")
                                .and_then(|n| self.node(n));
                            self.collect_item_comments(child);
                            items.push(value.unwrap_or(Node {
                                span: self.span(child).end..self.span(child).end,
                                kind: NodeKind::Null,
                            }));
                        }
                        "flow_node" => items.extend(self.node(child)),
                        "flow_pair" => {
                            // `[a: 1]` is a list holding a one-pair mapping.
                            let pairs = self.mapping_pairs(&[child]);
                            items.push(Node {
                                span: self.span(child),
                                kind: NodeKind::Mapping(pairs),
                            });
                        }
                        "comment" => self.comments.push(self.span(child)),
                        _ => {}
                    }
                }
                NodeKind::Sequence(items)
            }
            "plain_scalar" | "single_quote_scalar" | "double_quote_scalar" | "block_scalar" => {
                NodeKind::Scalar(self.scalar(node))
            }
            "block_node" | "flow_node" => return self.node(node),
            _ => return None,
        };
        Some(Node { span, kind })
    }

    fn collect_item_comments(&mut self, item: tree_sitter::Node) {
        let mut cursor = item.walk();
        for child in item.children(&mut cursor) {
            if child.kind() == "comment" {
                self.comments.push(self.span(child));
            }
        }
    }

    fn mapping_pairs(&mut self, children: &[tree_sitter::Node]) -> Vec<Pair> {
        let mut pairs: Vec<Pair> = Vec::new();
        let mut seen: HashMap<String, Range<usize>> = HashMap::new();
        for child in children {
            match child.kind() {
                "block_mapping_pair" | "flow_pair" => {
                    let key = child.child_by_field_name("key").and_then(|k| self.node(k));
                    let value = child
                        .child_by_field_name("value")
                        .and_then(|v| self.node(v));
                    let colon_end = {
                        let mut cursor = child.walk();
                        let colon = child.children(&mut cursor).find(|c| c.kind() == ":");
                        colon
                            .map(|c| self.base + c.end_byte())
                            .unwrap_or(self.span(*child).end)
                    };
                    let key = key.unwrap_or(Node {
                        span: self.span(*child).start..self.span(*child).start,
                        kind: NodeKind::Null,
                    });
                    let value = value.unwrap_or(Node {
                        span: colon_end..colon_end,
                        kind: NodeKind::Null,
                    });
                    self.collect_pair_comments(*child);
                    if key.as_str() == Some("<<") {
                        merge_into(&mut pairs, &value);
                        continue;
                    }
                    if let Some(name) = key.as_str() {
                        if let Some(first) = seen.get(name) {
                            self.duplicate_keys.push(DuplicateKey {
                                key: name.to_string(),
                                first: first.clone(),
                                second: key.span.clone(),
                            });
                        } else {
                            seen.insert(name.to_string(), key.span.clone());
                        }
                    }
                    pairs.push(Pair { key, value });
                }
                // `{a, b: 1}`: a flow entry without a value.
                "flow_node" => {
                    if let Some(key) = self.node(*child) {
                        let end = key.span.end;
                        pairs.push(Pair {
                            key,
                            value: Node {
                                span: end..end,
                                kind: NodeKind::Null,
                            },
                        });
                    }
                }
                "comment" => self.comments.push(self.span(*child)),
                "ERROR" => self.collect_comments(*child),
                _ => {}
            }
        }
        pairs
    }

    fn collect_pair_comments(&mut self, pair: tree_sitter::Node) {
        let mut cursor = pair.walk();
        for child in pair.children(&mut cursor) {
            if child.kind() == "comment" {
                self.comments.push(self.span(child));
            }
        }
    }

    fn scalar(&mut self, node: tree_sitter::Node) -> Scalar {
        let raw = &self.text[node.byte_range()];
        let line_start = self.text[..node.start_byte()]
            .rfind('\n')
            .map(|i| i + 1)
            .unwrap_or(0);
        let line = &self.text[line_start..node.start_byte()];
        let parent_indent = (line.len() - line.trim_start_matches(' ').len()) as u32;
        let (style, kind) = match node.kind() {
            "single_quote_scalar" => (ScalarStyle::SingleQuoted, ScalarKind::Str),
            "double_quote_scalar" => (ScalarStyle::DoubleQuoted, ScalarKind::Str),
            "block_scalar" => {
                let folded = raw.starts_with('>');
                (
                    if folded {
                        ScalarStyle::Folded
                    } else {
                        ScalarStyle::Literal
                    },
                    ScalarKind::Str,
                )
            }
            _ => (ScalarStyle::Plain, plain_kind(raw)),
        };
        let value = scalar::decode_value(raw, style, parent_indent as usize);
        Scalar {
            value,
            style,
            kind,
            parent_indent,
        }
    }
}

/// `<<: *base` merge keys: pairs of the merged mapping(s) that the mapping
/// does not already have.
fn merge_into(pairs: &mut Vec<Pair>, value: &Node) {
    let sources: Vec<&Node> = match &value.kind {
        NodeKind::Sequence(items) => items.iter().collect(),
        _ => vec![value],
    };
    for source in sources {
        if let Some(merged) = source.as_mapping() {
            for pair in merged {
                let present = pairs.iter().any(|p| p.key.as_str() == pair.key.as_str());
                if !present {
                    pairs.push(pair.clone());
                }
            }
        }
    }
}

fn node_count(node: &Node) -> usize {
    match &node.kind {
        NodeKind::Mapping(pairs) => {
            1 + pairs
                .iter()
                .map(|p| node_count(&p.key) + node_count(&p.value))
                .sum::<usize>()
        }
        NodeKind::Sequence(items) => 1 + items.iter().map(node_count).sum::<usize>(),
        _ => 1,
    }
}

/// YAML 1.1 resolution of plain scalars, as PyYAML's safe loader does it.
pub fn plain_kind(raw: &str) -> ScalarKind {
    let text = raw.trim();
    match text {
        "" | "~" | "null" | "Null" | "NULL" => return ScalarKind::Null,
        "true" | "True" | "TRUE" | "false" | "False" | "FALSE" | "yes" | "Yes" | "YES" | "no"
        | "No" | "NO" | "on" | "On" | "ON" | "off" | "Off" | "OFF" => return ScalarKind::Bool,
        _ => {}
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

#[cfg(test)]
mod tests {
    use super::*;

    fn keys(node: &Node) -> Vec<String> {
        node.as_mapping()
            .unwrap()
            .iter()
            .map(|p| p.key.as_str().unwrap_or("?").to_string())
            .collect()
    }

    #[test]
    fn documents_parse_separately_and_a_broken_one_does_not_hide_the_next() {
        let text = "a: 1\n---\nactions:\n  - name: x\n    quarantine\n      dlq_table: a.b.c\n  - name: z\n---\npipeline: next\n";
        let file = parse(text);
        assert_eq!(file.documents.len(), 3);
        assert_eq!(file.errors.len(), 1, "{:?}", file.errors);
        assert!(file.errors[0]
            .message
            .contains("missing `:` after `quarantine`"));
        assert_eq!(&text[file.errors[0].span.clone()], "quarantine");
        let last = file.documents[2].root.as_ref().unwrap();
        assert_eq!(last.get("pipeline").unwrap().as_str(), Some("next"));
        // The broken document still yields its other keys.
        let broken = file.documents[1].root.as_ref().unwrap();
        let actions = broken.get("actions").unwrap().as_sequence().unwrap();
        assert!(actions
            .iter()
            .any(|a| a.get("name").and_then(Node::as_str) == Some("z")));
    }

    #[test]
    fn tab_indentation_is_named() {
        let text = "a:\n\tb: 1\nc: 2\n";
        let file = parse(text);
        assert!(!file.errors.is_empty());
        assert!(file.errors[0].message.contains("tab"), "{:?}", file.errors);
        let root = file.documents[0].root.as_ref().unwrap();
        assert!(keys(root).contains(&"c".to_string()), "{root:?}");
    }

    #[test]
    fn duplicate_keys_are_detected() {
        let file = parse("a: 1\nb: 2\na: 3\n");
        let dups = &file.documents[0].duplicate_keys;
        assert_eq!(dups.len(), 1);
        assert_eq!(dups[0].key, "a");
        assert_eq!(
            file.documents[0]
                .root
                .as_ref()
                .unwrap()
                .get("a")
                .unwrap()
                .as_str(),
            Some("3")
        );
    }

    #[test]
    fn json_goes_through_the_same_parser() {
        let file = parse("{\"expectations\": [{\"name\": \"a\", \"expression\": \"x > 0\"}]}");
        assert!(file.errors.is_empty());
        let root = file.documents[0].root.as_ref().unwrap();
        let items = root.get("expectations").unwrap().as_sequence().unwrap();
        assert_eq!(items[0].get("expression").unwrap().as_str(), Some("x > 0"));
    }

    #[test]
    fn anchors_aliases_and_merge_keys() {
        let file = parse("base: &b\n  x: 1\ncopy: *b\nmerged:\n  <<: *b\n  y: 2\n");
        let root = file.documents[0].root.as_ref().unwrap();
        assert_eq!(
            root.get("copy").unwrap().get("x").unwrap().as_str(),
            Some("1")
        );
        assert_eq!(keys(root.get("merged").unwrap()), vec!["x", "y"]);
    }

    #[test]
    fn alias_bomb_is_bounded() {
        let mut text = String::from("a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n");
        for i in 1..12 {
            let p = i - 1;
            text.push_str(&format!(
                "a{i}: &a{i} [*a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}]\n"
            ));
        }
        let file = parse(&text);
        assert!(file.errors.iter().any(|e| e.message.contains("alias bomb")));
    }

    #[test]
    fn scalar_kinds_follow_pyyaml() {
        assert_eq!(plain_kind("true"), ScalarKind::Bool);
        assert_eq!(plain_kind("yes"), ScalarKind::Bool);
        assert_eq!(plain_kind("12"), ScalarKind::Int);
        assert_eq!(plain_kind("1.5"), ScalarKind::Float);
        assert_eq!(plain_kind("~"), ScalarKind::Null);
        assert_eq!(plain_kind("stream"), ScalarKind::Str);
        assert_eq!(plain_kind("1.2.3"), ScalarKind::Str);
        // Signs, underscores, hex, inf/nan and what only looks numeric.
        assert_eq!(plain_kind("-12"), ScalarKind::Int);
        assert_eq!(plain_kind("+1_000"), ScalarKind::Int);
        assert_eq!(plain_kind("_1"), ScalarKind::Int);
        assert_eq!(plain_kind("0x1F"), ScalarKind::Int);
        assert_eq!(plain_kind("-.inf"), ScalarKind::Float);
        assert_eq!(plain_kind(".NaN"), ScalarKind::Float);
        assert_eq!(plain_kind(".5"), ScalarKind::Float);
        assert_eq!(plain_kind("1.5e-3"), ScalarKind::Float);
        assert_eq!(plain_kind("-x"), ScalarKind::Str);
        assert_eq!(plain_kind("-"), ScalarKind::Str);
        assert_eq!(plain_kind("e5"), ScalarKind::Str);
        assert_eq!(plain_kind("inf"), ScalarKind::Str);
    }

    #[test]
    fn empty_values_are_null_at_the_colon() {
        let text = "quarantine:\nmode: dqe\n";
        let file = parse(text);
        let root = file.documents[0].root.as_ref().unwrap();
        let q = root.get("quarantine").unwrap();
        assert!(q.is_null());
        assert_eq!(q.span, 11..11);
    }

    #[test]
    fn oversized_documents_get_one_clear_error() {
        // Plain block style: the line reader reads any length.
        let text: String = (0..MAX_DOCUMENT_LINES + 1)
            .map(|i| format!("k{i}: {i}\n"))
            .collect();
        let file = parse(&text);
        assert!(file.errors.is_empty(), "{:?}", file.errors.first());
        assert_eq!(
            file.documents[0]
                .root
                .as_ref()
                .and_then(|r| r.as_mapping())
                .map(|m| m.len()),
            Some(MAX_DOCUMENT_LINES + 1)
        );
        // Syntax only tree-sitter reads (a flow mapping) past its limit.
        let file = parse(&format!("k: {{a: 1}}\n{text}"));
        assert_eq!(file.errors.len(), 1);
        assert!(file.errors[0].message.contains("32768"));
    }
}
