//! Edits as an editor makes them, drawn from a seeded generator: shared by
//! the `LiveYaml` tests and the `yaml` fuzz target (which includes this file
//! by path), so a saved fuzz input replays the very same edits.
#![allow(dead_code)]

use std::ops::Range;

use dqlint_yaml::{LiveYaml, YamlFile};

/// xorshift64*: deterministic, no dependency, good enough to pick edits.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }

    /// A generator seeded by bytes (FNV-1a of them).
    pub fn from_bytes(bytes: &[u8]) -> Rng {
        let hash = bytes.iter().fold(0xcbf2_9ce4_8422_2325_u64, |h, b| {
            (h ^ u64::from(*b)).wrapping_mul(0x100_0000_01b3)
        });
        Rng::new(hash)
    }

    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// A number in `0..n` (0 when `n` is 0).
    pub fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.next() % n as u64) as usize
        }
    }

    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }
}

/// A way to read a buffer live, and the fresh parse it must equal.
pub type Reader = (fn(&str) -> LiveYaml, fn(&str) -> YamlFile);

/// Both ways of reading: with the fast line reader, and tree-sitter only
/// (so tree-sitter's incremental path is checked on every document, not
/// only on those the fast reader refuses).
pub const READERS: [Reader; 2] = [
    (LiveYaml::new, dqlint_yaml::parse),
    (
        LiveYaml::new_tree_sitter_only,
        dqlint_yaml::parse_tree_sitter_only,
    ),
];

/// One replacement of bytes `range` by `text`.
#[derive(Clone, Debug)]
pub struct Edit {
    pub range: Range<usize>,
    pub text: String,
}

/// What a keystroke inserts: YAML syntax, indentation, line breaks of both
/// kinds, tabs, and characters of two, three and four bytes.
const TYPED: &[&str] = &[
    "a",
    "k",
    "_",
    "1",
    ":",
    " ",
    " ",
    "-",
    "\n",
    "\n",
    "#",
    "\"",
    "'",
    "[",
    "]",
    "{",
    "}",
    ",",
    "&",
    "*",
    "|",
    ">",
    "!",
    "\t",
    "\r\n",
    "\r",
    "é",
    "€",
    "😀",
    "---\n",
    "  ",
    "key: value\n",
    "- item\n",
    "...\n",
    "{x}",
    "{a: 1, b: [2]}",
    "{a: 1,\n  b: 2}",
    "[1,\n 2]",
    "|\n",
    ">-\n",
    "&a ",
    "*a",
    "$",
];

/// A random edit of `text`, as an editor would make one; `paste` is text to
/// paste from (another file, or the text's own earlier state).
pub fn random_edit(rng: &mut Rng, text: &str, paste: &str) -> Edit {
    let len = text.len();
    let at = char_floor(text, rng.below(len + 1));
    let line = line_around(text, at);
    let (range, new_text) = match rng.below(24) {
        // Typing and deleting: most of what happens in an editor.
        0..=6 => (at..at, rng.pick(TYPED).to_string()),
        7..=9 => (at..char_floor(text, at + 1 + rng.below(3)), String::new()),
        // A document marker typed at or removed from a line start.
        10 => (line.start..line.start, "---\n".to_string()),
        11 => match text.match_indices("---").nth(rng.below(4)) {
            Some((i, _)) => (i..i + 3, String::new()),
            None => (line.start..line.start, "---".to_string()),
        },
        // A line deleted, duplicated, or indented by a tab or spaces.
        12 => (line.clone(), String::new()),
        13 => (line.end..line.end, text[line.clone()].to_string()),
        14 => (
            line.start..line.start,
            rng.pick(&["\t", " ", "  ", "- "]).to_string(),
        ),
        // A piece of the other text pasted over a selection.
        15 | 16 => {
            let from = char_floor(paste, rng.below(paste.len() + 1));
            let to = char_floor(paste, from + rng.below(200));
            let end = char_floor(text, at + rng.below(100));
            (at..end.max(at), paste[from..to].to_string())
        }
        // Line breaks converted (to CRLF and back).
        17 => {
            if text[line.clone()].ends_with("\r\n") {
                (line.end - 2..line.end, "\n".to_string())
            } else if text[line.clone()].ends_with('\n') {
                (line.end - 1..line.end, "\r\n".to_string())
            } else {
                (at..at, "\r\n".to_string())
            }
        }
        // Everything deleted, or the other text pasted over everything.
        18 => (
            0..len,
            if rng.below(2) == 0 {
                String::new()
            } else {
                paste.to_string()
            },
        ),
        // Block structure: a line indented or dedented by two spaces, an
        // item split at the cursor into two at the line's indentation, an
        // item merged into the one before it (its `- ` or the line break
        // before it deleted), and a `$` of a `${token}` removed or put back
        // (`{token}` is a flow mapping).
        20 => {
            if rng.below(2) == 0 {
                (line.start..line.start, "  ".to_string())
            } else {
                let spaces = text[line.clone()]
                    .bytes()
                    .take_while(|b| *b == b' ')
                    .count();
                (line.start..line.start + spaces.min(2), String::new())
            }
        }
        21 => {
            let indent = text[line.clone()]
                .bytes()
                .take_while(|b| *b == b' ')
                .count();
            (at..at, format!("\n{}- ", " ".repeat(indent)))
        }
        22 => match text.match_indices("\n  - ").nth(rng.below(8)) {
            Some((i, _)) if rng.below(2) == 0 => (i + 3..i + 5, String::new()),
            Some((i, _)) => (i..i + 1, String::new()),
            None => (line.start..line.start, "- ".to_string()),
        },
        23 => match text.match_indices('{').nth(rng.below(8)) {
            Some((i, _)) if i > 0 && text.as_bytes()[i - 1] == b'$' => (i - 1..i, String::new()),
            Some((i, _)) => (i..i, "$".to_string()),
            None => (at..at, "{x}".to_string()),
        },
        // Offsets an API caller should not send (inside a character, past
        // the end, reversed): they must clamp, never panic.
        _ => {
            let start = rng.below(len + 3);
            (start..rng.below(len + 3), rng.pick(TYPED).to_string())
        }
    };
    Edit {
        range,
        text: new_text,
    }
}

/// A few edits derived from fuzzer input bytes (for the `yaml` target and
/// its saved inputs): the input is the text and what gets pasted.
pub fn edits_from_bytes(data: &[u8], text: &str) -> Vec<Edit> {
    let mut rng = Rng::from_bytes(data);
    let mut current = text.to_string();
    let mut edits = Vec::new();
    for _ in 0..1 + rng.below(4) {
        let edit = random_edit(&mut rng, &current, text);
        apply(&mut current, &edit);
        edits.push(edit);
    }
    edits
}

/// The fuzzer's check of `LiveYaml` on an input: a few edits derived from
/// the bytes, the invariant checked after each, with both readers.
pub fn check_live_edits(data: &[u8], text: &str) {
    for (new, reference) in READERS {
        let mut live = new(text);
        assert!(
            *live.yaml() == reference(text),
            "LiveYaml::new differs from a fresh parse"
        );
        for (i, edit) in edits_from_bytes(data, text).iter().enumerate() {
            check_edit(&mut live, edit, reference, &format!("edit {i}"));
        }
    }
}

/// Applies an edit to a plain string the way `LiveYaml::edit` clamps it.
pub fn apply(text: &mut String, edit: &Edit) {
    let start = char_floor(text, edit.range.start.min(text.len()));
    let end = char_floor(text, edit.range.end.min(text.len())).max(start);
    text.replace_range(start..end, &edit.text);
}

/// Applies `edit` to `live` and checks the invariant: the live parse is
/// exactly a fresh parse of the text (`reference`: `parse`, or
/// `parse_tree_sitter_only` for a tree-sitter-only `LiveYaml`).
pub fn check_edit(
    live: &mut LiveYaml,
    edit: &Edit,
    reference: fn(&str) -> YamlFile,
    context: &str,
) {
    let before = live.text().to_string();
    live.edit(edit.range.start, edit.range.end, &edit.text);
    let mut expected_text = before.clone();
    apply(&mut expected_text, edit);
    assert_eq!(
        live.text(),
        expected_text,
        "{context}: the edit {edit:?} was applied differently"
    );
    let fresh = reference(live.text());
    if *live.yaml() != fresh {
        panic!(
            "{context}: after {edit:?} on {before:?}\n{}",
            first_difference(&live.yaml(), &fresh, live.text())
        );
    }
}

/// A short account of where two parses of `text` differ.
pub fn first_difference(live: &YamlFile, fresh: &YamlFile, text: &str) -> String {
    if live.documents.len() != fresh.documents.len() {
        let spans = |f: &YamlFile| {
            f.documents
                .iter()
                .map(|d| d.span.clone())
                .collect::<Vec<_>>()
        };
        return format!(
            "documents: live {:?}, fresh {:?}",
            spans(live),
            spans(fresh)
        );
    }
    for (a, b) in live.documents.iter().zip(&fresh.documents) {
        if a != b {
            return format!(
                "document {:?} ({:?}):\nlive  {a:?}\nfresh {b:?}",
                b.span,
                &text[b.span.clone()]
            );
        }
    }
    if live.errors != fresh.errors {
        return format!("errors:\nlive  {:?}\nfresh {:?}", live.errors, fresh.errors);
    }
    format!(
        "comments:\nlive  {:?}\nfresh {:?}",
        live.comments, fresh.comments
    )
}

fn char_floor(text: &str, offset: usize) -> usize {
    dqlint_yaml::lines::floor_char_boundary(text, offset.min(text.len()))
}

/// The line holding `at`, with its line break.
fn line_around(text: &str, at: usize) -> Range<usize> {
    let start = text[..at].rfind('\n').map_or(0, |i| i + 1);
    let end = text[at..].find('\n').map_or(text.len(), |i| at + i + 1);
    start..end
}
