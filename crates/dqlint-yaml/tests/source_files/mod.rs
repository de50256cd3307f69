//! The test inputs found on disk: real projects' files, by extension.

use std::path::{Path, PathBuf};

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
