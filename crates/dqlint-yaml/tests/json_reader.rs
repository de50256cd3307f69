//! The JSON reader must give exactly what tree-sitter gives, or give up.
//! Checked on every JSON file of the corpus, the fixtures and the DQX
//! conformance cases, on generated JSON in many layouts, and on
//! hand-picked edge cases.

mod same_parse;
mod source_files;

use std::path::{Path, PathBuf};

use dqlint_yaml::json_reader::read_document;
use dqlint_yaml::tree::document_spans;
use same_parse::assert_same_parse;
use source_files::files_with_extensions;

/// Compares both paths on `text`; returns whether the JSON reader read
/// every document.
fn compare(name: &str, text: &str) -> bool {
    assert_same_parse(name, text);
    document_spans(text)
        .into_iter()
        .all(|span| read_document(text, span).is_some())
}

/// Compares every JSON file under `dir`: (files, files read fast).
fn compare_tree(dir: &Path) -> (usize, usize) {
    let mut files = Vec::new();
    files_with_extensions(dir, &["json"], &mut files);
    let mut read = 0;
    for path in &files {
        let Ok(text) = std::fs::read_to_string(path) else {
            continue;
        };
        if compare(&path.display().to_string(), &text) {
            read += 1;
        }
    }
    (files.len(), read)
}

#[test]
fn real_json_reads_the_same_both_ways() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let (fixtures, fixtures_read) = compare_tree(&root.join("../../fixtures"));
    let (cases, cases_read) = compare_tree(&root.join("../../tests"));
    assert!(fixtures + cases > 0);
    assert!(fixtures_read + cases_read > 0);
    let corpus = root.join("../../../shared/corpus");
    if corpus.is_dir() {
        let (files, read) = compare_tree(&corpus);
        eprintln!("corpus: {read} of {files} JSON files read by the JSON reader");
    } else {
        eprintln!("note: corpus not found at {}", corpus.display());
    }
}

/// A small deterministic generator (xorshift), so that failures replay.
struct Gen(u64);

impl Gen {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, n: u64) -> usize {
        (self.next() % n) as usize
    }

    fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[self.below(items.len() as u64)]
    }

    /// Whitespace between tokens: nothing, spaces, or a line break with an
    /// indentation (sometimes none).
    fn space(&mut self, out: &mut String, indent: usize) {
        match self.below(6) {
            0 | 1 => {}
            2 | 3 => out.push(' '),
            4 => {
                out.push('\n');
                out.push_str(&" ".repeat(indent));
            }
            _ => out.push_str("\n\n"),
        }
    }

    fn string(&mut self, out: &mut String) {
        out.push('"');
        for _ in 0..self.below(4) {
            out.push_str(self.pick(&[
                "column_a",
                "is_not_null",
                "x > 0 AND y < 'q'",
                "\\\"",
                "\\\\",
                "\\/",
                "\\n",
                "\\t",
                "\\b\\f\\r",
                "\\u00e9",
                "\\u20AC",
                "\\u0041",
                "é ü 中文",
                "😀",
                " ",
                "#not a comment",
                "a: b",
                "- x",
                "{[,]}",
                "'",
                "&anchor *alias !tag",
                "<<",
                "%",
                "@`",
            ]));
        }
        out.push('"');
    }

    fn value(&mut self, out: &mut String, depth: usize) {
        let kinds = if depth > 4 { 4 } else { 7 };
        match self.below(kinds) {
            0 => self.string(out),
            1 => out.push_str(self.pick(&[
                "0", "-0", "1", "-12", "3.5", "-0.25", "1e5", "1E+5", "2.5e-3", "10", "007x",
            ])),
            2 => out.push_str(self.pick(&["true", "false", "null"])),
            3 => self.string(out),
            4 | 5 => {
                out.push('{');
                let n = self.below(5);
                for i in 0..n {
                    self.space(out, depth * 2 + 2);
                    if self.below(4) == 0 {
                        // A key used again (a duplicate), or a fresh one.
                        out.push_str(self.pick(&["\"column\"", "\"name\"", "\"\""]));
                    } else {
                        self.string(out);
                    }
                    if self.below(8) == 0 {
                        out.push(' ');
                    }
                    out.push(':');
                    self.space(out, depth * 2 + 4);
                    self.value(out, depth + 1);
                    self.space(out, depth * 2);
                    if i + 1 < n {
                        out.push(',');
                    }
                }
                out.push('}');
            }
            _ => {
                out.push('[');
                let n = self.below(5);
                for i in 0..n {
                    self.space(out, depth * 2 + 2);
                    self.value(out, depth + 1);
                    self.space(out, depth * 2);
                    if i + 1 < n {
                        out.push(',');
                    }
                }
                out.push(']');
            }
        }
    }
}

#[test]
fn generated_json_reads_the_same_both_ways() {
    let mut gen = Gen(0x9e37_79b9_7f4a_7c15);
    let mut read = 0;
    let total = 3000;
    for _ in 0..total {
        let mut text = String::new();
        gen.space(&mut text, 0);
        if gen.below(2) == 0 {
            text.push('[');
            for i in 0..gen.below(4) {
                if i > 0 {
                    text.push(',');
                }
                gen.space(&mut text, 2);
                gen.value(&mut text, 1);
            }
            gen.space(&mut text, 0);
            text.push(']');
        } else {
            text.push('{');
            text.push_str("\"checks\": ");
            gen.value(&mut text, 1);
            text.push('}');
        }
        gen.space(&mut text, 0);
        if compare(&text, &text) {
            read += 1;
        }
    }
    // Most generated documents are plain JSON and must take the fast path
    // (the rest hold `007x`, which no JSON reader accepts).
    assert!(read * 2 > total, "only {read} of {total} read fast");
}

/// Each case is compared; `fast` says whether the reader must take it.
#[test]
fn edge_cases() {
    let cases: &[(&str, bool)] = &[
        ("[]", true),
        ("{}\n", true),
        ("  \n[\n]\n\n", true),
        (
            "[{\"a\": 1, \"b\": [true, false, null], \"c\": {}}]\n",
            true,
        ),
        ("{\"a\":1,\"b\":\"x\"}", true),
        ("{\"a\" :1}", true),
        ("{\"a\":\n  1}", true),
        ("[\n{\n\"a\": 1\n}\n]\n", true),
        ("[\n-1, -0.5e-3, 0, 1E9]\n", true),
        (
            "{\"dup\": 1, \"dup\": {\"x\": 1, \"x\": 2}, \"dup\": 3}",
            true,
        ),
        (
            "{\"esc\": \"\\\" \\\\ \\/ \\b \\f \\n \\r \\t \\u00e9 \\u20ac\"}",
            true,
        ),
        ("{\"uni\": \"é 中文 😀\"}", true),
        ("{\"a\": \"#x\"}", true),
        // Left to tree-sitter: not strict JSON, or not read alike by YAML.
        ("{\"a\"\n: 1}", false),
        ("[1, 2,]", false),
        ("{\"a\": 1,}", false),
        ("{\"a\": NaN}", false),
        ("{\"a\": 01}", false),
        ("{\"a\": .5}", false),
        ("{\"a\": 1.}", false),
        ("{\"a\": +1}", false),
        ("{'a': 1}", false),
        ("{a: 1}", false),
        ("{\"a\": 1} # comment", false),
        ("{\"a\":\t1}", false),
        ("{\"a\": 1}\r\n", false),
        ("{\"<<\": {\"b\": 1}}", false),
        ("{\"a\": \"\\ud83d\\ude00\"}", false),
        ("{\"a\": \"\\u0000\"}", false),
        ("{\"a\": \"\\x41\"}", false),
        ("{\"a\": \"tab\tinside\"}", false),
        ("{\"a\": \"\u{85}\"}", false),
        ("{\"a\": \"\u{feff}\"}", false),
        ("\u{feff}{\"a\": 1}", false),
        ("\"just a string\"", false),
        ("42", false),
        ("{\"a\": 1} {\"b\": 2}", false),
        ("[1] x", false),
        ("{\"a\": truex}", false),
        ("{\"a\": 1", false),
        ("a: 1\n", false),
        ("---\n{\"a\": 1}\n", false),
        ("[1]\n---\n{\"a\": [2]}\n", false),
    ];
    for (text, fast) in cases {
        let all_read = compare(&format!("{text:?}"), text);
        assert_eq!(all_read, *fast, "JSON reader taken for {text:?}");
    }
}

/// The reader refuses exactly the bracket nesting the depth guard refuses
/// (more than 128 levels), whatever the innermost value: the guard's own
/// bracket count is not run again on what the reader reads.
#[test]
fn nesting_limit_is_the_depth_guard_s() {
    for levels in 126..=131 {
        let empty = format!("{}{}\n", "[".repeat(levels), "]".repeat(levels));
        let scalar = format!("{}1{}\n", "[".repeat(levels), "]".repeat(levels));
        let objects = format!(
            "{}{}\n",
            "{\"a\": ".repeat(levels - 1) + "{",
            "}".repeat(levels)
        );
        for text in [&empty, &scalar, &objects] {
            let read = read_document(text, 0..text.len()).is_some();
            assert_eq!(read, levels <= 128, "{levels} levels: {text}");
            let parse = dqlint_yaml::parse(text);
            assert_eq!(
                parse.errors.is_empty(),
                levels <= 128,
                "{levels} levels: {:?}",
                parse.errors
            );
        }
    }
}
