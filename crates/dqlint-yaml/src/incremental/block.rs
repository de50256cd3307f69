//! Re-reading one block sequence item of a document instead of the whole
//! document: an edit inside one action of a 24k-line flowgroup's
//! `actions:` list reads that action's lines, and the nodes after it only
//! move.
//!
//! An item's *lines* run from the line of its `-` to the next line, at the
//! sequence's indentation or less, that is neither blank nor a comment
//! (the next item's `-`, the next key of the mapping around), or to the
//! document's end. Read alone, those lines are a document holding a
//! one-item sequence at the same columns; its item is the item a fresh
//! parse of the whole document reads, provided that nothing outside the
//! lines depends on them and nothing in them reaches past them. (Alone,
//! the lines are followed by an item line `- x` at the item's column, as
//! in the document they are followed by a line at that column or less: at
//! the end of their input the readers end open nodes past the last line
//! break.) What is checked for that, else the whole document is read
//! again as before:
//!
//! - the document read without errors before the edit, and the lines read
//!   alone read without errors, as exactly one item, with no duplicate key
//!   (a document's duplicate keys are listed in walk order) before and
//!   after;
//! - the edit lies after the item's `- ` and before its lines' end, and
//!   every line of the edited lines after the first is blank, a comment,
//!   or indented deeper than the `-`: the item neither splits, nor merges
//!   with the next, nor changes the indentation its lines end at. An
//!   unclosed quote, bracket or brace would reach past the lines: read
//!   alone, it is a syntax error;
//! - no anchor or alias anywhere in the document (an alias may refer to an
//!   anchor in the item, or the item to one before it), nor a tab, a
//!   carriage return or a control character (tree-sitter stops reading at
//!   a NUL, the readers refuse the rest); the document is not nested too
//!   deep ([`too_deep`] counts brackets over the whole document) nor
//!   longer than tree-sitter reads ([`MAX_DOCUMENT_LINES`]);
//! - every node that ends in the item's lines other than the item's own
//!   ends where the item ends (the sequences and mappings around it), and
//!   every node after the lines starts after them;
//! - the item is neither empty (`- ` alone: its null node does not say
//!   where the item ends) nor the last lines of the document (where the
//!   nodes around it end at the end of the input).

use std::ops::Range;

use crate::document::{Document, Node, NodeKind};
use crate::syntax_error::too_deep;
use crate::tree::{DocumentReader, ReadBy, MAX_DOCUMENT_LINES};

use super::Replacement;

/// A block sequence item holding an edit.
#[derive(Debug)]
pub(super) struct Item {
    /// From the document's root to the sequence: the pair whose value, or
    /// the item, to go into at each level.
    path: Vec<usize>,
    index: usize,
    /// The item's lines, in the text before the edit.
    pub lines: Range<usize>,
    /// Column of the item's `-`.
    indent: usize,
}

/// The block sequence items of `root` (a document of `text`, ending at
/// `document_end`) holding the edit `change`, outermost first.
pub(super) fn items_holding(
    root: &Node,
    text: &str,
    document_end: usize,
    change: &Replacement,
) -> Vec<Item> {
    let mut found = Vec::new();
    let mut path = Vec::new();
    let mut node = root;
    loop {
        match &node.kind {
            NodeKind::Mapping(pairs) => {
                let Some(i) = pairs.iter().position(|p| {
                    p.key.span.end <= change.start
                        && p.value.span.start <= change.start
                        && change.old_end <= p.value.span.end
                }) else {
                    break;
                };
                path.push(i);
                node = &pairs[i].value;
            }
            NodeKind::Sequence(items) => {
                let Some(indent) = block_indent(text, node.span.start) else {
                    break;
                };
                let after = items.partition_point(|item| item.span.start <= change.start);
                let holding = [after.checked_sub(1), Some(after)]
                    .into_iter()
                    .flatten()
                    .filter(|&i| i < items.len())
                    .find_map(|i| {
                        let lines = item_lines(text, document_end, node, items, i, indent)?;
                        (lines.start + indent + 2 <= change.start
                            && change.start < lines.end
                            && change.old_end <= lines.end)
                            .then_some((i, lines))
                    });
                let Some((index, lines)) = holding else {
                    break;
                };
                found.push(Item {
                    path: path.clone(),
                    index,
                    lines,
                    indent,
                });
                path.push(index);
                node = &items[index];
            }
            NodeKind::Scalar(_) | NodeKind::Null => break,
        }
    }
    found
}

/// The column of a block sequence starting at `start` (its first `-`),
/// when only spaces come before it on its line; `None` for a flow
/// sequence or a sequence inside another's item line (`- - a`).
fn block_indent(text: &str, start: usize) -> Option<usize> {
    let bytes = text.as_bytes();
    if bytes.get(start) != Some(&b'-') {
        return None;
    }
    let line_start = line_start(text, start);
    bytes[line_start..start]
        .iter()
        .all(|b| *b == b' ')
        .then_some(start - line_start)
}

fn line_start(text: &str, at: usize) -> usize {
    text[..at].rfind('\n').map_or(0, |i| i + 1)
}

/// The first line starting at or after `at`.
fn next_line_start(text: &str, at: usize) -> usize {
    if at == 0 || text.as_bytes()[at - 1] == b'\n' {
        at
    } else {
        text[at..].find('\n').map_or(text.len(), |i| at + i + 1)
    }
}

/// What a line of a block sequence at column `indent` is.
#[derive(PartialEq, Eq)]
enum LineKind {
    /// Blank, or only a comment.
    Nothing,
    /// Indented deeper than the sequence: an item's content.
    Inside,
    /// A `-` at the sequence's column: an item starts.
    Item,
    /// Anything else at the sequence's column or less.
    Outside,
}

fn line_kind(line: &[u8], indent: usize) -> LineKind {
    let spaces = line.iter().take_while(|b| **b == b' ').count();
    match line.get(spaces) {
        None | Some(b'\n' | b'#') => LineKind::Nothing,
        Some(_) if spaces > indent => LineKind::Inside,
        Some(b'-')
            if spaces == indent && matches!(line.get(spaces + 1), None | Some(b' ' | b'\n')) =>
        {
            LineKind::Item
        }
        Some(_) => LineKind::Outside,
    }
}

/// The lines of `text[from..to]`, each with its line break.
fn lines_of(text: &str, from: usize, to: usize) -> impl Iterator<Item = (usize, &[u8])> {
    let bytes = &text.as_bytes()[from..to];
    bytes
        .split_inclusive(|b| *b == b'\n')
        .scan(from, |at, line| {
            let start = *at;
            *at += line.len();
            Some((start, line))
        })
}

/// Where the first line at or after `from` that is not blank or a comment
/// starts, with its kind; `end` if none.
fn next_content_line(text: &str, from: usize, end: usize, indent: usize) -> (usize, LineKind) {
    let from = next_line_start(text, from).min(end);
    lines_of(text, from, end)
        .map(|(start, line)| (start, line_kind(line, indent)))
        .find(|(_, kind)| *kind != LineKind::Nothing)
        .unwrap_or((end, LineKind::Outside))
}

/// The lines of item `index` of the block sequence `sequence` (its items
/// `items`, its `-` at column `indent`); `None` when they are not as
/// expected.
fn item_lines(
    text: &str,
    document_end: usize,
    sequence: &Node,
    items: &[Node],
    index: usize,
    indent: usize,
) -> Option<Range<usize>> {
    let start = if index == 0 {
        line_start(text, sequence.span.start)
    } else {
        let (start, kind) =
            next_content_line(text, items[index - 1].span.end, document_end, indent);
        (kind == LineKind::Item).then_some(start)?
    };
    if start > items[index].span.start {
        return None;
    }
    let (end, kind) = next_content_line(text, items[index].span.end, document_end, indent);
    let last = index + 1 == items.len();
    match kind {
        LineKind::Item if !last => Some(start..end),
        LineKind::Outside if last => Some(start..end),
        _ => None,
    }
}

/// Whether a document's bytes may hold an anchor or an alias (`&` or `*`
/// where a node can start, followed by a name), a tab, a carriage return,
/// a control character or a line break other than `\n`: a superset, so
/// that `false` proves there are none.
fn has_context_or_odd_bytes(bytes: &[u8]) -> bool {
    bytes.iter().enumerate().any(|(i, &b)| match b {
        b'&' | b'*' => {
            let node_start = i == 0 || matches!(bytes[i - 1], b' ' | b'\n' | b'[' | b'{' | b',');
            node_start && !matches!(bytes.get(i + 1), None | Some(b' ' | b'\n'))
        }
        b'\n' => false,
        0..=0x1f | 0x7f => true,
        // U+0085, U+2028, U+2029 and U+FEFF.
        0xc2 => bytes.get(i + 1) == Some(&0x85),
        0xe2 => bytes
            .get(i + 1..i + 3)
            .is_some_and(|c| c == [0x80, 0xa8] || c == [0x80, 0xa9]),
        0xef => bytes.get(i + 1..i + 3) == Some(&[0xbb, 0xbf][..]),
        _ => false,
    })
}

/// What [`reread_item`] read.
pub(super) struct Reread {
    pub by: ReadBy,
    /// The comments of the item's lines (to take the old ones' place).
    pub comments: Vec<Range<usize>>,
    /// Whether the whole document is free of what [`has_context_or_odd_bytes`]
    /// looks for (to spare the next edit reading it all again).
    pub plain: bool,
    new_item: Node,
    old_item_end: usize,
    new_span: Range<usize>,
}

/// How the item's lines move the bracket depth [`too_deep`] counts (its
/// scan: quotes end at line ends, comments are skipped): `None` unless they
/// never go below the depth they start at and end at it, else the deepest
/// they go above it. Both must be so, the new no deeper: then every depth
/// the scan of the new document meets is one the old one met, or a smaller.
fn same_or_shallower_nesting(old: &str, new: &str) -> bool {
    let excursion = |text: &str| {
        crate::syntax_error::bracket_nesting(text, true)
            .and_then(|(deepest, end)| (end == 0).then_some(deepest))
    };
    matches!((excursion(old), excursion(new)), (Some(old), Some(new)) if new <= old)
}

/// Brings `document` (its lines in `old_text`, the text before `change`)
/// up to date with `text`, when the edit lies in the block sequence item
/// `item` and that item can be read alone (`plain`: the document before
/// the edit held nothing [`has_context_or_odd_bytes`] looks for): reads the
/// item, for [`splice_item`]; `None` when the whole document must be read
/// again. Nothing is changed here, so that a refusal costs no copy of a
/// parse someone still holds.
#[expect(
    clippy::too_many_arguments,
    reason = "the edit, the item and the document's two states"
)]
pub(super) fn reread_item(
    reader: &mut DocumentReader,
    document: &Document,
    old_text: &str,
    text: &str,
    new_span: Range<usize>,
    change: &Replacement,
    item: &Item,
    plain: bool,
) -> Option<Reread> {
    let old_lines = item.lines.clone();
    let new_lines = old_lines.start..change.moved(old_lines.end);
    if new_lines.end > new_span.end
        || (new_lines.end < new_span.end && text.as_bytes()[new_lines.end - 1] != b'\n')
    {
        return None;
    }
    // Every line after the item's first stays inside the item.
    let first_end = next_line_start(text, new_lines.start + item.indent + 1).min(new_lines.end);
    if lines_of(text, first_end, new_lines.end).any(|(_, line)| {
        !matches!(
            line_kind(line, item.indent),
            LineKind::Nothing | LineKind::Inside
        )
    }) {
        return None;
    }
    if has_context_or_odd_bytes(&old_text.as_bytes()[old_lines.clone()]) {
        return None;
    }
    if document
        .duplicate_keys
        .iter()
        .any(|d| old_lines.contains(&d.second.start) || old_lines.contains(&d.first.start))
    {
        return None;
    }
    // The spans around and after the item must move as described.
    let old_item = locate(document.root.as_ref()?, &item.path, item.index)?;
    // An empty item (`- ` alone) ends where its `-` line does, which its
    // null node (at the `-`) does not say.
    if matches!(old_item.kind, NodeKind::Null) {
        return None;
    }
    let old_item_end = old_item.span.end;
    if !ancestors_fit(document.root.as_ref()?, item, old_item_end, &old_lines) {
        return None;
    }

    // Read alone, the item's lines would end the input; in the document a
    // line at the item's column or less follows them: an item line (`- x`)
    // stands for it.
    // At the end of the input, the readers end every node open there at
    // that end, past the last line break: which of the nodes around an
    // item that ends the document end with it is not known.
    if old_lines.end == document.span.end || new_lines.end == new_span.end {
        return None;
    }
    let mut source = String::with_capacity(new_lines.len() + item.indent + 4);
    source.push_str(&text[new_lines.clone()]);
    source.extend(std::iter::repeat_n(' ', item.indent));
    source.push_str("- x\n");
    let (read, by) = reader.read(&source, 0..source.len(), &mut None);
    if by == ReadBy::Refused
        || !read.errors.is_empty()
        || read.document.broken
        || !read.document.duplicate_keys.is_empty()
    {
        return None;
    }
    let root = read.document.root?;
    let NodeKind::Sequence(mut items) = root.kind else {
        return None;
    };
    if items.len() != 2 || root.span.start != item.indent {
        return None;
    }
    items.truncate(1);
    let mut new_item = items
        .pop()
        .filter(|item| !matches!(item.kind, NodeKind::Null))?;
    // From the offsets of `source` to the text's.
    let to_text = Replacement {
        start: 0,
        old_end: 0,
        new_end: new_lines.start,
    };
    move_node(&mut new_item, &to_text);
    let comments: Vec<Range<usize>> = read
        .comments
        .iter()
        .map(|c| to_text.moved_range(c))
        .collect();
    // The document-wide guards, last. The text around the item is the
    // same as before the edit, when the document read without errors:
    // not nested too deep, and plain when `plain` says so.
    let source = &text[new_span.clone()];
    let new_item_text = &text[new_lines.clone()];
    let now_plain = if plain {
        !has_context_or_odd_bytes(new_item_text.as_bytes())
    } else {
        !has_context_or_odd_bytes(source.as_bytes())
    };
    let lines = source.bytes().filter(|b| *b == b'\n').count() + 1;
    if !now_plain
        || lines > MAX_DOCUMENT_LINES
        || (too_deep(new_item_text).is_some()
            || !same_or_shallower_nesting(&old_text[old_lines.clone()], new_item_text))
            && too_deep(source).is_some()
    {
        return None;
    }

    // Proven: what to splice.
    Some(Reread {
        by,
        comments,
        plain: now_plain,
        new_item,
        old_item_end,
        new_span,
    })
}

/// Puts what [`reread_item`] read for `item` into `document`.
pub(super) fn splice_item(
    document: &mut Document,
    item: &Item,
    read: &mut Reread,
    change: &Replacement,
) {
    let old_lines = &item.lines;
    let new_item = std::mem::replace(
        &mut read.new_item,
        Node {
            span: 0..0,
            kind: NodeKind::Null,
        },
    );
    let new_item_end = new_item.span.end;
    if let Some(root) = document.root.as_mut() {
        splice(
            root,
            &item.path,
            item.index,
            new_item,
            read.old_item_end,
            new_item_end,
            old_lines,
            change,
        );
    }
    for duplicate in &mut document.duplicate_keys {
        for range in [&mut duplicate.first, &mut duplicate.second] {
            if range.start >= old_lines.end {
                *range = change.moved_range(range);
            }
        }
    }
    document.span = read.new_span.clone();
}

/// The item `index` of the sequence at `path` under `root`.
fn locate<'a>(root: &'a Node, path: &[usize], index: usize) -> Option<&'a Node> {
    let mut node = root;
    for &step in path.iter().chain([&index]) {
        node = match &node.kind {
            NodeKind::Mapping(pairs) => &pairs.get(step)?.value,
            NodeKind::Sequence(items) => items.get(step)?,
            _ => return None,
        };
    }
    Some(node)
}

/// Whether the nodes holding the item end where it ends or after its
/// lines, and the siblings after each on the way start after its lines.
fn ancestors_fit(root: &Node, item: &Item, item_end: usize, lines: &Range<usize>) -> bool {
    let mut node = root;
    for &step in item.path.iter().chain([&item.index]) {
        if node.span.end != item_end && node.span.end < lines.end {
            return false;
        }
        let (next, later_start) = match &node.kind {
            NodeKind::Mapping(pairs) => (
                &pairs[step].value,
                pairs.get(step + 1).map(|p| p.key.span.start),
            ),
            NodeKind::Sequence(items) => (&items[step], items.get(step + 1).map(|n| n.span.start)),
            _ => return false,
        };
        if later_start.is_some_and(|start| start < lines.end) {
            return false;
        }
        node = next;
    }
    true
}

/// Puts `new_item` in the place of item `index` of the sequence at `path`,
/// ends the nodes around it that ended with the old item with the new one,
/// and moves every node after the item's lines by the edit.
#[expect(
    clippy::too_many_arguments,
    reason = "the splice's inputs, each used once"
)]
fn splice(
    root: &mut Node,
    path: &[usize],
    index: usize,
    new_item: Node,
    old_item_end: usize,
    new_item_end: usize,
    lines: &Range<usize>,
    change: &Replacement,
) {
    let mut node = root;
    for &step in path.iter().chain([&index]) {
        if node.span.end == old_item_end {
            node.span.end = new_item_end;
        } else {
            node.span.end = change.moved(node.span.end);
        }
        let children = match &mut node.kind {
            NodeKind::Mapping(pairs) => {
                for pair in &mut pairs[step + 1..] {
                    move_node(&mut pair.key, change);
                    move_node(&mut pair.value, change);
                }
                &mut pairs[step].value
            }
            NodeKind::Sequence(items) => {
                for later in &mut items[step + 1..] {
                    move_node(later, change);
                }
                &mut items[step]
            }
            _ => unreachable!("checked by locate"),
        };
        node = children;
    }
    debug_assert!(node.span.start < lines.end);
    *node = new_item;
}

/// Moves a node after an edit by the edit's change in length.
pub(super) fn move_node(node: &mut Node, change: &Replacement) {
    // Iterative: aliases can nest values deeper than the stack likes.
    let mut pending: Vec<&mut Node> = vec![node];
    while let Some(node) = pending.pop() {
        node.span = change.moved_range(&node.span);
        match &mut node.kind {
            NodeKind::Mapping(pairs) => {
                for pair in pairs {
                    pending.push(&mut pair.key);
                    pending.push(&mut pair.value);
                }
            }
            NodeKind::Sequence(items) => pending.extend(items.iter_mut()),
            NodeKind::Scalar(_) | NodeKind::Null => {}
        }
    }
}
