//! The fast block reader must give exactly what tree-sitter gives, or give
//! up. Checked on every YAML/JSON file of the real LHP projects in the
//! corpus and of the repository's fixtures, and on hand-picked edge cases.

mod same_parse;
mod source_files;

use std::path::{Path, PathBuf};

use dqlint_yaml::block_reader::read_document;
use dqlint_yaml::tree::document_spans;
use same_parse::assert_same_parse;
use source_files::files_with_extensions;

/// Compares both paths on `text`; returns (documents, documents read fast).
fn compare(name: &str, text: &str) -> (usize, usize) {
    assert_same_parse(name, text);
    let spans = document_spans(text);
    let read = spans
        .iter()
        .filter(|s| read_document(text, (*s).clone()).is_some())
        .count();
    (spans.len(), read)
}

fn compare_tree(dir: &Path) -> (usize, usize, usize) {
    let mut files = Vec::new();
    files_with_extensions(dir, &["yaml", "yml", "json"], &mut files);
    let (mut docs, mut read) = (0, 0);
    for path in &files {
        let Ok(text) = std::fs::read_to_string(path) else {
            continue;
        };
        let (d, r) = compare(&path.display().to_string(), &text);
        docs += d;
        read += r;
    }
    (files.len(), docs, read)
}

#[test]
fn corpus_projects_read_the_same_both_ways() {
    let corpus =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus/lhp-examples");
    if !corpus.is_dir() {
        eprintln!(
            "note: corpus not found at {}; test skipped",
            corpus.display()
        );
        return;
    }
    let (files, docs, read) = compare_tree(&corpus);
    eprintln!("corpus: {files} files, {docs} documents, {read} read by the fast reader");
    assert!(files > 2800);
    // The point of the reader: nearly every real document takes the fast path.
    assert!(
        read * 100 >= docs * 95,
        "only {read} of {docs} documents were read fast"
    );
}

#[test]
fn fixtures_read_the_same_both_ways() {
    let fixtures = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../fixtures");
    let (files, _, read) = compare_tree(&fixtures);
    assert!(files > 50 && read > 0);
}

/// The fuzzing seeds: small, odd inputs (broken syntax, Unicode spaces,
/// deep nesting) that the reader must either read exactly as tree-sitter
/// does or leave to it.
#[test]
fn fuzz_seeds_read_the_same_both_ways() {
    let seeds = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../fuzz/seeds/yaml");
    let Ok(entries) = std::fs::read_dir(&seeds) else {
        eprintln!("note: no fuzz seeds at {}; test skipped", seeds.display());
        return;
    };
    let mut compared = 0;
    for entry in entries.filter_map(Result::ok) {
        let Ok(text) = std::fs::read_to_string(entry.path()) else {
            continue;
        };
        compare(&entry.path().display().to_string(), &text);
        compared += 1;
    }
    assert!(compared > 0);
}

/// Each case is compared; `fast` says whether the reader must take it
/// (so a reader that gives up on everything fails here).
#[test]
fn edge_cases() {
    let cases: &[(&str, bool)] = &[
        ("a: 1\nb: two\n", true),
        ("a:\n  b: 1\n  c:\n    - x\n    - y\n", true),
        (
            "actions:\n- name: x\n  type: load\n- name: y\nnext: 1\n",
            true,
        ),
        (
            "# head\n\na: 1 # trailing   \n# middle\nb: 'q''s' # c\n\n# tail\n",
            true,
        ),
        ("k: \"esc \\\" \\n \\u00e9\"\n", true),
        // Every escape YAML defines is read fast; any other one, or a
        // short hex escape, is tree-sitter's syntax error.
        (
            "k: \"\\0\\a\\b\\t\\n\\v\\f\\r\\e\\ \\/\\\\\\N\\_\\L\\P\"\n",
            true,
        ),
        ("k: \"\\x41 \\u00e9 \\U0001F600\"\n", true),
        ("k: \"fee]]]\\]]d\"\n", false),
        ("k: \"\\q\"\n", false),
        ("k: \"\\x4\"\n", false),
        ("k: \"\\uabcg\"\n", false),
        ("k: [a, 'b', \"c d\", 12]\ne: []\n", true),
        ("sql: |\n  SELECT *\n\n    FROM x\n\n\nnext: 1\n", true),
        ("sql: >-\n  folded\n  text\n# after\n", true),
        ("- |\n  one\n- two\n", true),
        ("list:\n  - a: 1\n    b:\n      c: 2\n  - - nested\n", false),
        ("empty:\nother: ~\nnum: -5\nf: 1.5e3\nb: yes\n", true),
        ("dup: 1\ndup: 2\n", true),
        ("---\na: 1\n---\nb: 2\n", true),
        ("--- # c\na: 1\n", true),
        ("url: http://x/y#frag\nwin: C:\\path\n", true),
        ("a: &x 1\nb: *x\n", false),
        ("a: {b: 1}\n", false),
        ("a: 1\n b: 2\n", false),
        ("a: multi\n  line plain\n", false),
        ("a: \"multi\n  line\"\n", false),
        ("a:\n\tb: 1\n", false),
        ("a: 1\r\nb: 2\r\n", false),
        ("quarantine\n  dlq_table: x\n", false),
        ("a: |+\n  keep\n\n", false),
        ("a: |2\n    x\n", false),
        ("? complex\n: value\n", false),
        ("\"quoted key\": 1\n", false),
        ("a: !tag x\n", false),
        ("just a scalar\n", false),
        ("{\"json\": [1, 2]}\n", false),
        ("a: 'x' trailing\n", false),
        ("- \n- x\n", false),
        ("a: b: c\n", false),
        ("", true),
        ("# only a comment\n", true),
        ("a: 1\n\u{a0}\nb: 2\n", false),
        ("a:\u{3000}1\n", false),
        ("k: v\u{a0}# not a comment\n", true),
        // Lines told apart once (blank, comment, marker, content): a
        // marker-like line after the start is tree-sitter's, wherever it
        // is; one in a block scalar or indented is not a marker.
        ("a: 1\n...\n", false),
        ("a: 1\n...x\n", false),
        ("a: 1\n---x\n", false),
        ("a: 1\n%YAML 1.1\n", false),
        ("a: |\n  ...\n  ---\n  # kept\n  %x\nb: 2\n", true),
        ("a:\n  - ---\n", true),
        ("a: |\n  text\n  # in the scalar\n\n# after\nb: 2\n", true),
        ("a:\n  # one\n\n  # two\n  b: 1\n   # deeper\nc: 2\n", true),
        ("--- # c\n# only comments\n\n", true),
        ("a: 1\n  \n    \nb: 2\n", true),
        ("- a\n-  b\n- c # x\n", true),
    ];
    for (text, fast) in cases {
        compare(&format!("{text:?}"), text);
        let spans = document_spans(text);
        let all_read = spans
            .iter()
            .all(|s| read_document(text, s.clone()).is_some());
        assert_eq!(all_read, *fast, "fast path taken for {text:?}");
    }
}
