//! The fast readers (block YAML, strict JSON) are held equal to the
//! tree-sitter path: same documents, trees, duplicate keys, errors and
//! comments.

use dqlint_yaml::{parse, parse_tree_sitter_only};

/// Asserts that `parse` (which tries the fast readers first) and the
/// tree-sitter path give the same file for `text`.
pub fn assert_same_parse(name: &str, text: &str) {
    let fast = parse(text);
    let reference = parse_tree_sitter_only(text);
    assert_eq!(fast.documents.len(), reference.documents.len(), "{name}");
    for (a, b) in fast.documents.iter().zip(&reference.documents) {
        assert_eq!(a.span, b.span, "{name}");
        assert_eq!(a.root, b.root, "{name}: document at {:?}", a.span);
        assert_eq!(
            a.duplicate_keys, b.duplicate_keys,
            "{name}: document at {:?}",
            a.span
        );
        assert_eq!(a.broken, b.broken, "{name}: document at {:?}", a.span);
    }
    assert_eq!(fast.errors, reference.errors, "{name}");
    assert_eq!(fast.comments, reference.comments, "{name}");
}
