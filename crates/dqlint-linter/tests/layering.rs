//! The layering rule of docs/architecture.md: rule codes belong to the
//! linter. The model crates read sources and return typed facts, the SQL
//! and YAML crates know their languages, the language server asks the
//! linter; none of them names a rule (`DQ` and three digits), so a rule is
//! added, renamed or retired without touching them.

use std::path::{Path, PathBuf};

const BELOW_THE_LINTER: &[&str] = &[
    "dqlint-yaml",
    "dqlint-sql",
    "dqlint-project",
    "dqlint-dqx",
    "dqlint-pipeline",
    "dqlint-lsp",
];

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// `DQ` followed by exactly three digits, as a word.
fn rule_codes(text: &str) -> Vec<String> {
    let bytes = text.as_bytes();
    let mut found = Vec::new();
    for i in 0..bytes.len().saturating_sub(4) {
        let word_start = i == 0 || !bytes[i - 1].is_ascii_alphanumeric();
        let digits = bytes[i + 2..i + 5].iter().all(u8::is_ascii_digit);
        let word_end = bytes.get(i + 5).is_none_or(|b| !b.is_ascii_alphanumeric());
        if word_start && &bytes[i..i + 2] == b"DQ" && digits && word_end {
            found.push(text[i..i + 5].to_string());
        }
    }
    found
}

#[test]
fn no_crate_below_the_linter_names_a_rule_code() {
    let crates = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut offenders = Vec::new();
    for name in BELOW_THE_LINTER {
        let mut files = Vec::new();
        rust_files(&crates.join(name).join("src"), &mut files);
        assert!(!files.is_empty(), "{name}/src holds no Rust file");
        for file in files {
            let text = std::fs::read_to_string(&file).unwrap();
            for (n, line) in text.lines().enumerate() {
                for code in rule_codes(line) {
                    offenders.push(format!("{}:{}: {code}", file.display(), n + 1));
                }
            }
        }
    }
    assert!(
        offenders.is_empty(),
        "rule codes belong to dqlint-linter; found:\n{}",
        offenders.join("\n")
    );
}

#[test]
fn the_scanner_finds_codes_and_only_codes() {
    assert_eq!(rule_codes("see DQ301, DQ9xx and XDQ123"), vec!["DQ301"]);
    assert_eq!(rule_codes("DQ1234 DQ12"), Vec::<String>::new());
}

/// What reads the disk: rules never do (invariant 2 of
/// docs/architecture.md); the load finds what they need to know about
/// paths (`Project::missing_expectations`).
const DISK_ACCESS: &[&str] = &[
    "std::fs",
    "fs::read",
    "File::open",
    ".is_file()",
    ".is_dir()",
    ".exists()",
    "read_dir",
    "metadata(",
    "canonicalize",
    "walkdir",
];

/// The disk accesses in `code` (of `file`), outside comments, as
/// `path:line: call`.
fn disk_access(file: &Path, code: &str) -> Vec<String> {
    let mut found = Vec::new();
    for (n, line) in code.lines().enumerate() {
        if line.trim_start().starts_with("//") {
            continue;
        }
        for call in DISK_ACCESS.iter().filter(|call| line.contains(*call)) {
            found.push(format!("{}:{}: {call}", file.display(), n + 1));
        }
    }
    found
}

#[test]
fn no_rule_reads_the_disk() {
    let linter = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&linter.join("rules"), &mut files);
    files.extend(
        [
            "engine.rs",
            "expressions.rs",
            "ddl_catalog.rs",
            "quarantine.rs",
            "tokens.rs",
            "text.rs",
            "relint.rs",
        ]
        .iter()
        .map(|f| linter.join(f)),
    );
    let mut offenders = Vec::new();
    for file in files {
        let text = std::fs::read_to_string(&file).unwrap();
        offenders.extend(disk_access(&file, &text));
    }
    assert!(
        offenders.is_empty(),
        "rules read the project model, not the disk; found:\n{}",
        offenders.join("\n")
    );
}

/// The editor's features (completion, definition, links, hover...) read the
/// project model the load built, which holds the open buffers; a path they
/// need to probe goes through `dqlint_project::files`, like the load's. So
/// does the rest of the server (finding projects in workspace folders,
/// canonical paths): `files` is the one place that touches the disk.
#[test]
fn the_language_server_reads_the_disk_only_through_files() {
    let server = Path::new(env!("CARGO_MANIFEST_DIR")).join("../dqlint-lsp/src");
    let mut files = Vec::new();
    rust_files(&server, &mut files);
    assert!(
        files
            .iter()
            .filter(|f| f.starts_with(server.join("handlers")))
            .count()
            > 10,
        "the handlers moved: {}",
        server.display()
    );
    let mut offenders = Vec::new();
    for file in files {
        let text = std::fs::read_to_string(&file).unwrap();
        // Unit tests may look at the disk (the docs pages a link names).
        let code = text.split("#[cfg(test)]").next().unwrap_or_default();
        offenders.extend(disk_access(&file, code));
    }
    assert!(
        offenders.is_empty(),
        "the language server reads the disk through dqlint_project::files; found:\n{}",
        offenders.join("\n")
    );
}
