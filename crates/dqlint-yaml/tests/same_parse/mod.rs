//! The fast readers (block YAML, strict JSON) are held equal to the
//! tree-sitter path: same documents, trees, duplicate keys, errors and
//! comments.

use std::path::{Path, PathBuf};

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

/// The files under `dir` whose extension is one of `extensions`, in a
/// stable order (sorted per folder), pushed onto `out`.
pub fn files_with_extensions(dir: &Path, extensions: &[&str], out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<_> = entries.filter_map(Result::ok).map(|e| e.path()).collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            files_with_extensions(&path, extensions, out);
        } else if path
            .extension()
            .is_some_and(|x| extensions.iter().any(|e| x == *e))
        {
            out.push(path);
        }
    }
}
