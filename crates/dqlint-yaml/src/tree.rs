//! Typed, owned views over the tree-sitter-yaml CST.
//!
//! A file is cut into `---` documents and each is parsed on its own, so a
//! document that the grammar cannot recover (missing `:`, tabs, bad
//! indentation: upstream issues #12/#14) does not hide the documents after
//! it. Inside a broken document the offending line is blanked and the
//! document re-parsed, so the keys around the mistake are still linted.

use std::ops::Range;

use crate::document::{Document, SyntaxError, YamlFile};
use crate::syntax_error::{
    brackets_too_deep, indented_too_deep, line_bounds, locate_error, nested_block_end, too_deep,
    trim_range,
};

/// The grammar's external scanner counts rows in an `int16_t` (upstream #49).
pub const MAX_DOCUMENT_LINES: usize = 32_768;
/// How many broken lines of one document are blanked out before giving up.
const MAX_RECOVERY_ROUNDS: usize = 12;

/// Parses a YAML (or JSON) text. Never fails: broken parts become
/// [`SyntaxError`]s and holes in the tree.
///
/// Documents in the plain block style go through the fast line reader
/// ([`crate::block_reader`]), strict JSON ones through the JSON reader
/// ([`crate::json_reader`]), the rest through tree-sitter; all give the
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
        // The depth guard speaks for every reader: a document it refuses is
        // refused whichever reader would have read it. The JSON reader
        // refuses brackets nested past the guard's limit itself (brackets
        // are JSON's only nesting), so the guard's bracket count runs only
        // before the block reader.
        if self.fast && indented_too_deep(&text[span.clone()]).is_none() {
            // A JSON document is tried first: the block reader would
            // walk all of its lines before giving up.
            if let Some(read) = crate::json_reader::read_document(text, span.clone()) {
                let document = Document {
                    span,
                    root: Some(read.root),
                    broken: false,
                    duplicate_keys: read.duplicate_keys,
                };
                let read = DocumentParse {
                    document,
                    errors: Vec::new(),
                    comments: Vec::new(),
                };
                return (read, ReadBy::FastReader);
            }
            let block_read = brackets_too_deep(&text[span.clone()])
                .is_none()
                .then(|| crate::block_reader::read_document(text, span.clone()))
                .flatten();
            if let Some(read) = block_read {
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
    // Only a line break followed by `---` can start a document: the search
    // runs for the marker, not line by line.
    for marker in memchr::memmem::find_iter(bytes, b"\n---") {
        let line_start = marker + 1;
        if bytes
            .get(line_start + 3)
            .is_none_or(|b| matches!(b, b' ' | b'\t' | b'\n' | b'\r'))
        {
            cuts.push(line_start);
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

    let built = crate::builder::build(&source, base, tree.root_node(), &mut comments);
    let root = built.root;
    let duplicate_keys = built.duplicate_keys;
    let alias_errors = built.errors;
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::document::{plain_kind, Node, ScalarKind};

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
