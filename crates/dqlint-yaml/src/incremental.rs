//! An open buffer's YAML, kept parsed edit by edit.
//!
//! After an edit the text is cut into `---` documents again. A document whose
//! bytes are those of a document before the edit keeps its result, moved by
//! the edit's change in length. The others are read again: by the fast line
//! reader when it accepts them, else by tree-sitter starting from the
//! document's previous tree, edited to the new text, so that tree-sitter
//! re-parses only around the change (and the recovery from a syntax error,
//! which blanks a line, is an edit of that tree too).
//!
//! The invariant the tests and the fuzzer hold this to: after any sequence
//! of edits, [`LiveYaml::yaml`] equals [`parse`](crate::parse) of
//! [`LiveYaml::text`], spans, errors, comments and duplicate keys included.

use std::fmt;
use std::ops::Range;
use std::sync::Arc;

use crate::document::{Document, SyntaxError, YamlFile};
use crate::lines::{floor_char_boundary, point_after};
use crate::tree::{document_spans, put_in_source_order, DocumentReader, ReadBy};

mod block;

/// A buffer's text and its parse.
pub struct LiveYaml {
    text: String,
    yaml: Arc<YamlFile>,
    /// One per document of `yaml`, in the same order.
    documents: Vec<LiveDocument>,
    reader: DocumentReader,
    stats: ReparseStats,
}

/// What a document keeps between edits beyond its [`Document`].
struct LiveDocument {
    span: Range<usize>,
    /// This document's share of the file's errors and comments.
    errors: Vec<SyntaxError>,
    comments: Vec<Range<usize>>,
    /// tree-sitter's tree of the document, once tree-sitter has read it, in
    /// the document's own offsets. Every edit of the document is applied to
    /// it (also while the fast reader reads the document), so it always
    /// describes the current text and the next tree-sitter parse can start
    /// from it.
    tree: Option<tree_sitter::Tree>,
    /// Known to hold no anchor, alias, tab, carriage return or control
    /// character (set by a block re-read, which checks; `false` when not
    /// known).
    plain: bool,
}

/// How documents were brought up to date, counted over the buffer's life
/// (from [`LiveYaml::new`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ReparseStats {
    /// Edits that changed the text.
    pub edits: usize,
    /// Documents kept from before an edit, unread.
    pub reused_documents: usize,
    /// Documents read by the fast line reader.
    pub fast_reads: usize,
    /// tree-sitter parses that started from the document's previous tree.
    pub incremental_parses: usize,
    /// tree-sitter parses from scratch.
    pub fresh_parses: usize,
    /// Edits brought up to date by reading only the block sequence item
    /// holding them (one action of a flowgroup's `actions:`), the rest of
    /// their document moved, not read.
    pub block_reads: usize,
}

/// One replacement, in byte offsets: `start..old_end` of the text before it
/// became `start..new_end`.
#[derive(Clone, Copy, Debug)]
struct Replacement {
    start: usize,
    old_end: usize,
    new_end: usize,
}

impl Replacement {
    /// Where an offset at or after `old_end` lands.
    fn moved(&self, offset: usize) -> usize {
        offset - self.old_end + self.new_end
    }

    fn moved_range(&self, range: &Range<usize>) -> Range<usize> {
        self.moved(range.start)..self.moved(range.end)
    }

    /// The offset in the old text of a byte of the new text (the start of the
    /// replacement for bytes it inserted).
    fn origin(&self, offset: usize) -> usize {
        if offset <= self.start {
            offset
        } else if offset >= self.new_end {
            offset - self.new_end + self.old_end
        } else {
            self.start
        }
    }
}

impl LiveYaml {
    /// Parses `text`; [`LiveYaml::yaml`] is then what [`parse`](crate::parse) gives.
    pub fn new(text: &str) -> LiveYaml {
        LiveYaml::with_reader(text, crate::block_reader::enabled())
    }

    /// [`LiveYaml::new`] with every document going through tree-sitter: it
    /// then equals [`parse_tree_sitter_only`](crate::parse_tree_sitter_only),
    /// edit after edit.
    pub fn new_tree_sitter_only(text: &str) -> LiveYaml {
        LiveYaml::with_reader(text, false)
    }

    fn with_reader(text: &str, fast: bool) -> LiveYaml {
        let mut live = LiveYaml {
            text: text.to_string(),
            yaml: Arc::new(YamlFile {
                documents: Vec::new(),
                errors: Vec::new(),
                comments: Vec::new(),
            }),
            documents: Vec::new(),
            reader: DocumentReader::new(fast),
            stats: ReparseStats::default(),
        };
        let mut documents = Vec::new();
        for span in document_spans(text) {
            let (document, live_document) = live.read(text, span, None);
            documents.push(document);
            live.documents.push(live_document);
        }
        live.yaml = Arc::new(live.assemble(documents));
        live
    }

    pub fn text(&self) -> &str {
        &self.text
    }

    /// The parse of [`LiveYaml::text`]; cheap to hand out and to keep.
    pub fn yaml(&self) -> Arc<YamlFile> {
        self.yaml.clone()
    }

    pub fn stats(&self) -> ReparseStats {
        self.stats
    }

    /// Replaces bytes `start..old_end` with `new_text` and brings the parse
    /// up to date. Offsets past the end clamp to it, an end before the start
    /// to the start, and an offset inside a character to that character's
    /// start.
    pub fn edit(&mut self, start: usize, old_end: usize, new_text: &str) {
        let start = floor_char_boundary(&self.text, start.min(self.text.len()));
        let old_end = floor_char_boundary(&self.text, old_end.min(self.text.len())).max(start);
        // Editors often send more than changed (a whole line, a whole file):
        // what the old and new text share at either end is no change.
        let replaced = &self.text[start..old_end];
        let same_before = common_prefix(replaced, new_text);
        let same_after = common_suffix(&replaced[same_before..], &new_text[same_before..]);
        let new_text = &new_text[same_before..new_text.len() - same_after];
        let start = start + same_before;
        let old_end = old_end - same_after;
        if start == old_end && new_text.is_empty() {
            return;
        }
        self.stats.edits += 1;
        let change = Replacement {
            start,
            old_end,
            new_end: start + new_text.len(),
        };
        let old_text = std::mem::take(&mut self.text);
        let mut text = String::with_capacity(old_text.len() - (old_end - start) + new_text.len());
        text.push_str(&old_text[..start]);
        text.push_str(new_text);
        text.push_str(&old_text[old_end..]);

        let spans = document_spans(&text);
        if self.edit_in_block(&old_text, &text, &spans, &change) {
            self.text = text;
            return;
        }
        let (before, after) = self.unchanged_documents(&spans, &change);
        let old_count = self.documents.len();
        let changed_spans = &spans[before..spans.len() - after];
        let old_changed: Vec<LiveDocument> =
            self.documents.drain(before..old_count - after).collect();
        let trees = edited_trees(old_changed, changed_spans, &old_text, &text, &change);

        let mut reread = Vec::with_capacity(changed_spans.len());
        let mut reread_live = Vec::with_capacity(changed_spans.len());
        for (span, tree) in changed_spans.iter().zip(trees) {
            let (document, live_document) = self.read(&text, span.clone(), tree);
            reread.push(document);
            reread_live.push(live_document);
        }
        for document in &mut self.documents[before..] {
            move_live_document(document, &change);
        }
        self.documents.splice(before..before, reread_live);
        self.stats.reused_documents += before + after;

        let placeholder = Arc::new(YamlFile {
            documents: Vec::new(),
            errors: Vec::new(),
            comments: Vec::new(),
        });
        let (mut documents, kept_after) =
            match Arc::try_unwrap(std::mem::replace(&mut self.yaml, placeholder)) {
                Ok(file) => {
                    let mut documents = file.documents;
                    let kept_after = documents.split_off(old_count - after);
                    documents.truncate(before);
                    (documents, kept_after)
                }
                // Someone still holds the previous parse: copy only what is kept.
                Err(shared) => (
                    shared.documents[..before].to_vec(),
                    shared.documents[old_count - after..].to_vec(),
                ),
            };
        documents.extend(reread);
        documents.extend(kept_after.into_iter().map(|mut document| {
            move_document(&mut document, &change);
            document
        }));
        self.text = text;
        self.yaml = Arc::new(self.assemble(documents));
    }

    /// Brings the parse up to date by reading only the block sequence item
    /// holding the edit (`block`), when one document changed, read without
    /// errors, and the item can be proven to read alone as in the whole
    /// document; false, with nothing changed, when it cannot.
    fn edit_in_block(
        &mut self,
        old_text: &str,
        text: &str,
        spans: &[Range<usize>],
        change: &Replacement,
    ) -> bool {
        let (before, after) = self.unchanged_documents(spans, change);
        if self.documents.len() != spans.len() || before + after + 1 != spans.len() {
            return false;
        }
        let live = &self.documents[before];
        let new_span = spans[before].clone();
        if !live.errors.is_empty()
            || new_span.start != live.span.start
            || new_span.end != change.moved(live.span.end)
        {
            return false;
        }
        let document = &self.yaml.documents[before];
        let Some(root) = document.root.as_ref().filter(|_| !document.broken) else {
            return false;
        };
        let items = block::items_holding(root, old_text, live.span.end, change);
        if items.is_empty() {
            return false;
        }
        let document = &self.yaml.documents[before];
        let plain = self.documents[before].plain;
        let Some((mut read, item)) = items.iter().find_map(|item| {
            block::reread_item(
                &mut self.reader,
                document,
                old_text,
                text,
                new_span.clone(),
                change,
                item,
                plain,
            )
            .map(|read| (read, item))
        }) else {
            return false;
        };
        // Copies the parse only if someone still holds it.
        let file = Arc::make_mut(&mut self.yaml);
        block::splice_item(&mut file.documents[before], item, &mut read, change);
        let lines = item.lines.clone();
        let block::Reread {
            by,
            comments,
            plain,
            ..
        } = read;
        self.stats.block_reads += 1;
        match by {
            ReadBy::FastReader => self.stats.fast_reads += 1,
            ReadBy::TreeSitter => self.stats.fresh_parses += 1,
            ReadBy::TreeSitterIncremental | ReadBy::Refused => {}
        }
        self.stats.reused_documents += before + after;
        for document in &mut file.documents[before + 1..] {
            move_document(document, change);
        }
        let live = &mut self.documents[before];
        let old_span = std::mem::replace(&mut live.span, new_span.clone());
        live.comments.retain(|c| !lines.contains(&c.start));
        for comment in &mut live.comments {
            if comment.start >= lines.end {
                *comment = change.moved_range(comment);
            }
        }
        live.comments.extend(comments);
        live.plain = plain;
        if let Some(tree) = &mut live.tree {
            tree.edit(&input_edit(
                &old_text.as_bytes()[old_span.clone()],
                &text.as_bytes()[new_span.clone()],
                change.start - old_span.start,
                change.old_end - old_span.start,
                change.new_end - new_span.start,
            ));
        }
        for document in &mut self.documents[before + 1..] {
            move_live_document(document, change);
        }
        let documents = std::mem::take(&mut Arc::make_mut(&mut self.yaml).documents);
        self.yaml = Arc::new(self.assemble(documents));
        true
    }

    /// How many documents at the start and at the end of the new text
    /// (`spans`) are byte for byte documents of the old one.
    fn unchanged_documents(&self, spans: &[Range<usize>], change: &Replacement) -> (usize, usize) {
        let old = &self.documents;
        let common = old.len().min(spans.len());
        let before = old
            .iter()
            .zip(spans)
            .take_while(|(document, span)| {
                document.span.end <= change.start && document.span == **span
            })
            .count();
        let after = old[before..]
            .iter()
            .rev()
            .zip(spans[before..].iter().rev())
            .take(common - before)
            .take_while(|(document, span)| {
                document.span.start >= change.old_end
                    && change.moved_range(&document.span) == **span
            })
            .count();
        (before, after)
    }

    /// Reads one document of `text`, starting from `tree` (edited to it).
    fn read(
        &mut self,
        text: &str,
        span: Range<usize>,
        mut tree: Option<tree_sitter::Tree>,
    ) -> (Document, LiveDocument) {
        let (read, by) = self.reader.read(text, span.clone(), &mut tree);
        match by {
            ReadBy::FastReader => self.stats.fast_reads += 1,
            ReadBy::TreeSitter => self.stats.fresh_parses += 1,
            ReadBy::TreeSitterIncremental => self.stats.incremental_parses += 1,
            ReadBy::Refused => {}
        }
        let live = LiveDocument {
            span,
            errors: read.errors,
            comments: read.comments,
            tree,
            plain: false,
        };
        (read.document, live)
    }

    /// The file of `documents`, with every document's errors and comments.
    fn assemble(&self, documents: Vec<Document>) -> YamlFile {
        let mut file = YamlFile {
            documents,
            errors: self
                .documents
                .iter()
                .flat_map(|d| d.errors.iter().cloned())
                .collect(),
            comments: self
                .documents
                .iter()
                .flat_map(|d| d.comments.iter().cloned())
                .collect(),
        };
        put_in_source_order(&mut file);
        file
    }
}

impl fmt::Debug for LiveYaml {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("LiveYaml")
            .field("bytes", &self.text.len())
            .field("documents", &self.documents.len())
            .field("stats", &self.stats)
            .finish()
    }
}

/// For each changed document of the new text, a tree to start from: the
/// tree of the old document it grew out of, edited to the new document's
/// text (`None` where that document had no tree).
fn edited_trees(
    old: Vec<LiveDocument>,
    spans: &[Range<usize>],
    old_text: &str,
    text: &str,
    change: &Replacement,
) -> Vec<Option<tree_sitter::Tree>> {
    if let ([_], [span]) = (&old[..], spans) {
        // One document changed in place, the usual keystroke: the edit is
        // known, at the same offsets within the document.
        let Some(document) = old.into_iter().next() else {
            return vec![None];
        };
        let Some(mut tree) = document.tree else {
            return vec![None];
        };
        let base = span.start;
        tree.edit(&input_edit(
            &old_text.as_bytes()[document.span.clone()],
            &text.as_bytes()[span.clone()],
            change.start - base,
            change.old_end - base,
            change.new_end - base,
        ));
        return vec![Some(tree)];
    }
    // Documents split or merged (a `---` typed or deleted): each new
    // document starts from the old document holding its first byte, edited
    // by the difference of the two texts.
    spans
        .iter()
        .map(|span| {
            let origin = change.origin(span.start);
            let source = old
                .iter()
                .find(|d| d.span.contains(&origin))
                .or(old.last())?;
            let mut tree = source.tree.clone()?;
            let old_document = &old_text[source.span.clone()];
            let new_document = &text[span.clone()];
            let start = common_prefix(old_document, new_document);
            let same_after = common_suffix(&old_document[start..], &new_document[start..]);
            tree.edit(&input_edit(
                old_document.as_bytes(),
                new_document.as_bytes(),
                start,
                old_document.len() - same_after,
                new_document.len() - same_after,
            ));
            Some(tree)
        })
        .collect()
}

/// tree-sitter's description of replacing `start..old_end` of `old` by what
/// is `start..new_end` of `new`.
fn input_edit(
    old: &[u8],
    new: &[u8],
    start: usize,
    old_end: usize,
    new_end: usize,
) -> tree_sitter::InputEdit {
    let start_position = point_after(tree_sitter::Point { row: 0, column: 0 }, &old[..start]);
    tree_sitter::InputEdit {
        start_byte: start,
        old_end_byte: old_end,
        new_end_byte: new_end,
        start_position,
        old_end_position: point_after(start_position, &old[start..old_end]),
        new_end_position: point_after(start_position, &new[start..new_end]),
    }
}

/// Bytes `a` and `b` share at the start, ending on a character boundary of both.
fn common_prefix(a: &str, b: &str) -> usize {
    let mut same = a.bytes().zip(b.bytes()).take_while(|(x, y)| x == y).count();
    while !(a.is_char_boundary(same) && b.is_char_boundary(same)) {
        same -= 1;
    }
    same
}

/// Bytes `a` and `b` share at the end, starting on a character boundary of both.
fn common_suffix(a: &str, b: &str) -> usize {
    let mut same = a
        .bytes()
        .rev()
        .zip(b.bytes().rev())
        .take_while(|(x, y)| x == y)
        .count();
    while !(a.is_char_boundary(a.len() - same) && b.is_char_boundary(b.len() - same)) {
        same -= 1;
    }
    same
}

/// Moves a document that lies after a replacement by its change in length.
fn move_document(document: &mut Document, change: &Replacement) {
    document.span = change.moved_range(&document.span);
    for duplicate in &mut document.duplicate_keys {
        duplicate.first = change.moved_range(&duplicate.first);
        duplicate.second = change.moved_range(&duplicate.second);
    }
    if let Some(root) = &mut document.root {
        block::move_node(root, change);
    }
}

fn move_live_document(document: &mut LiveDocument, change: &Replacement) {
    document.span = change.moved_range(&document.span);
    for error in &mut document.errors {
        error.span = change.moved_range(&error.span);
    }
    for comment in &mut document.comments {
        *comment = change.moved_range(comment);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse;

    fn edited(text: &str, edits: &[(usize, usize, &str)]) -> LiveYaml {
        let mut live = LiveYaml::new(text);
        assert_eq!(*live.yaml(), parse(text));
        for (start, end, new_text) in edits {
            live.edit(*start, *end, new_text);
            assert_eq!(
                *live.yaml(),
                parse(live.text()),
                "after replacing {start}..{end} by {new_text:?}"
            );
        }
        live
    }

    /// The language server keeps buffers behind a mutex shared by tasks.
    #[test]
    fn a_live_buffer_can_move_between_threads() {
        fn shareable<T: Send + Sync>() {}
        shareable::<LiveYaml>();
    }

    #[test]
    fn documents_after_the_edit_move_and_are_not_read_again() {
        let text = "a: 1\n---\nb: [x, y]  # c\n---\nc: &x 2\nd: *x\n";
        let live = edited(text, &[(0, 1, "aa"), (0, 2, "a")]);
        assert_eq!(
            live.text(),
            "a: 1\n---\nb: [x, y]  # c\n---\nc: &x 2\nd: *x\n"
        );
        assert_eq!(live.stats().reused_documents, 4);
    }

    #[test]
    fn a_keystroke_in_a_tree_sitter_document_parses_incrementally() {
        // The anchor keeps the fast reader out.
        let text = "a: &x 1\nb: *x\nc: [1, 2]\n";
        let live = edited(text, &[(12, 12, "z"), (13, 13, "z"), (12, 14, "")]);
        assert_eq!(live.stats().incremental_parses, 3);
        assert_eq!(live.stats().fresh_parses, 1);
    }

    #[test]
    fn typing_and_deleting_a_document_marker() {
        let text = "a: &x 1\nb: *x\nc: 2\n";
        let live = edited(
            text,
            &[
                (8, 8, "-"),
                (9, 9, "-"),
                (10, 10, "-"),
                (11, 11, "\n"),
                (8, 12, ""),
            ],
        );
        assert_eq!(live.text(), text);
    }

    #[test]
    fn offsets_out_of_range_or_inside_a_character_clamp() {
        let text = "a: é\n";
        let live = edited(
            text,
            &[
                (4, 5, "x"),
                (99, 3, "y"),
                (2, 1, "z"),
                (usize::MAX, usize::MAX, "\n"),
            ],
        );
        assert_eq!(live.text(), "a:z x\ny\n");
    }

    #[test]
    fn a_whole_file_replacement_reads_only_what_changed() {
        let text = "a: 1\n---\nb: 2\n---\nc: 3\n";
        let mut live = LiveYaml::new(text);
        let replaced = text.replace("b: 2", "b: 3");
        live.edit(0, text.len(), &replaced);
        assert_eq!(*live.yaml(), parse(&replaced));
        assert_eq!(live.stats().reused_documents, 2);
        // Replacing the text by itself changes nothing.
        live.edit(0, replaced.len(), &replaced);
        assert_eq!(live.stats().edits, 1);
    }
}
