//! The YAML layer on arbitrary text: parsing never panics, every span it
//! reports lies on character boundaries inside the text, and each scalar's
//! offset map points inside the scalar's own source; and the fast line
//! reader for plain block YAML agrees with tree-sitter on every document;
//! and a `LiveYaml` of the text, edited a few times (edits derived from the
//! input bytes), always equals a fresh parse of its text.
#![no_main]

#[path = "../../crates/dqlint-yaml/tests/edit_script/mod.rs"]
mod edit_script;

use dqlint_yaml::{parse, scalar, LineIndex, Node, NodeKind};
use libfuzzer_sys::fuzz_target;

fn check_node(text: &str, node: &Node, depth: usize) {
    assert!(node.span.start <= node.span.end && node.span.end <= text.len(), "span {:?} outside the text", node.span);
    assert!(text.is_char_boundary(node.span.start) && text.is_char_boundary(node.span.end));
    if depth > 300 {
        return;
    }
    match &node.kind {
        NodeKind::Mapping(pairs) => {
            for pair in pairs {
                check_node(text, &pair.key, depth + 1);
                check_node(text, &pair.value, depth + 1);
            }
        }
        NodeKind::Sequence(items) => items.iter().for_each(|n| check_node(text, n, depth + 1)),
        NodeKind::Scalar(s) => {
            let raw = &text[node.span.clone()];
            let decoded = scalar::decode(raw, s.style, s.parent_indent as usize);
            assert_eq!(decoded.sources.len(), decoded.value.len());
            for i in 0..decoded.value.len() {
                let range = decoded.source_range(i..i + 1);
                assert!(range.end <= raw.len(), "decoded byte {i} maps outside the scalar");
            }
        }
        NodeKind::Null => {}
    }
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let file = parse(text);
    // The line reader for plain block YAML must read exactly what
    // tree-sitter reads, or hand the document over.
    let reference = dqlint_yaml::tree::parse_tree_sitter_only(text);
    assert_eq!(file.errors, reference.errors, "syntax errors differ from tree-sitter's");
    assert_eq!(file.comments, reference.comments, "comments differ from tree-sitter's");
    assert_eq!(file.documents.len(), reference.documents.len());
    for (fast, slow) in file.documents.iter().zip(&reference.documents) {
        assert_eq!(fast.span, slow.span);
        assert_eq!(fast.root, slow.root, "the fast reader's tree differs from tree-sitter's");
        assert_eq!(fast.broken, slow.broken);
        assert_eq!(fast.duplicate_keys, slow.duplicate_keys);
    }
    for error in &file.errors {
        assert!(error.span.end <= text.len() && text.is_char_boundary(error.span.start));
    }
    for document in &file.documents {
        if let Some(root) = &document.root {
            check_node(text, root, 0);
        }
    }
    let lines = LineIndex::new(text);
    for offset in [0, text.len() / 2, text.len()] {
        let offset = dqlint_yaml::lines::floor_char_boundary(text, offset);
        // Between the `\r` and `\n` of a CRLF (or after a final `\r`) is no
        // position an editor has: line ends clamp before the `\r`.
        if offset > 0 && text.as_bytes()[offset - 1] == b'\r' && matches!(text.as_bytes().get(offset), Some(b'\n') | None) {
            continue;
        }
        let (line, column) = lines.utf16_position(text, offset);
        assert_eq!(lines.offset_of_utf16(text, line, column), offset, "UTF-16 positions round-trip");
    }
    edit_script::check_live_edits(data, text);
});
