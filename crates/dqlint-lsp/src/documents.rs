//! Open editor buffers: their text, kept in sync from incremental
//! `didChange` events (UTF-16 positions), and the URI the client used; for
//! YAML and JSON buffers also their parse ([`LiveYaml`]), brought up to
//! date incrementally instead of re-parsed whole on every keystroke.
//!
//! A change only edits the text: the parse is brought up to date when a
//! lint asks for it ([`Documents::take_parse`]), once for all the changes
//! since, and off the lock and the protocol's thread. Keys typed faster
//! than a large buffer parses are not each parsed in turn.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use dqlint_project::Overlay;
use dqlint_yaml::{LineIndex, LiveYaml, YamlFile};
use tower_lsp_server::ls_types::{Position, Range, TextDocumentContentChangeEvent, Uri};

#[derive(Clone, Debug)]
pub struct Document {
    /// The URI exactly as the client sent it; diagnostics for this file are
    /// published under it, even when the canonical path differs (symlinks).
    pub uri: Uri,
    pub version: i32,
    pub text: Arc<str>,
}

/// Open buffers by canonical absolute path (the key the engine's overlay uses).
#[derive(Default, Debug)]
pub struct Documents {
    open: HashMap<PathBuf, Document>,
    /// The parse of each open YAML/JSON buffer, behind its text.
    parses: HashMap<PathBuf, LiveParse>,
}

/// The parse of an open YAML/JSON buffer: a [`LiveYaml`] of an earlier text
/// and the bytes changed since.
#[derive(Debug, Default)]
struct LiveParse {
    /// `None` while a [`ParseJob`] brings it up to date (or after that job
    /// panicked: the next one parses the buffer afresh).
    live: Option<LiveYaml>,
    /// The bytes changed since the text of `live` (or since the text a job
    /// took), as one replacement.
    behind: Option<ReplacedBytes>,
    /// A job holds `live`.
    out: bool,
    /// The text the buffer was opened with, until the first job parses it:
    /// `behind` is then relative to it. The first parse reads that text
    /// (usually the file's on disk, which the fast line reader reads) and
    /// then re-reads the edited block, instead of reading the edited text
    /// whole: a key that makes a flow mapping (tree-sitter's, 100-250 ms
    /// at 24k lines) then costs a block re-read, as every later key does.
    opened: Option<Arc<str>>,
}

/// A buffer's parse taken out of [`Documents`] to be brought up to its
/// text ([`ParseJob::run`], which may take long: run it off the lock), then
/// given back ([`Documents::give_back`]).
pub struct ParseJob {
    pub path: PathBuf,
    live: Option<LiveYaml>,
    behind: Option<ReplacedBytes>,
    /// The text `behind` is relative to when there is no `live` yet.
    opened: Option<Arc<str>>,
    /// The buffer's text the parse is brought to.
    pub text: Arc<str>,
}

impl ParseJob {
    /// The parse of `self.text` (exactly `dqlint_yaml::parse` of it), and
    /// the live parse to give back.
    pub fn run(self) -> (Arc<YamlFile>, LiveYaml) {
        let text = &self.text;
        // The parse the change applies to: the one held, else, before the
        // first parse, that of the text the buffer was opened with.
        let held = self.live.or_else(|| {
            self.behind
                .as_ref()
                .and(self.opened.as_deref())
                .map(LiveYaml::new)
        });
        let live = match (held, self.behind) {
            (Some(mut live), Some(r)) => {
                live.edit(r.start, r.old_end, &text[r.start..r.new_end]);
                live
            }
            (Some(live), None) => live,
            (None, _) => LiveYaml::new(text),
        };
        debug_assert_eq!(live.text(), &**text, "the parse follows the buffer");
        (live.yaml(), live)
    }
}

/// Buffers whose parse is kept: the files dqlint reads as YAML (JSON is
/// read by the same parser). `.sql` and anything else keep text only.
fn is_yaml(path: &Path) -> bool {
    path.extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| matches!(e, "yaml" | "yml" | "json"))
}

impl Documents {
    pub fn open(&mut self, path: PathBuf, document: Document) {
        if is_yaml(&path) {
            let parse = LiveParse {
                opened: Some(document.text.clone()),
                ..LiveParse::default()
            };
            self.parses.insert(path.clone(), parse);
        }
        self.open.insert(path, document);
    }

    pub fn close(&mut self, path: &Path) -> Option<Document> {
        self.parses.remove(path);
        self.open.remove(path)
    }

    pub fn text(&self, path: &Path) -> Option<Arc<str>> {
        self.open.get(path).map(|d| d.text.clone())
    }

    /// An open YAML/JSON buffer's parse, taken out to be brought up to its
    /// text, so the engine need not parse the buffer whole again. `None`
    /// for other buffers, files not open, and while another job holds it.
    pub fn take_parse(&mut self, path: &Path) -> Option<ParseJob> {
        let text = self.open.get(path)?.text.clone();
        let parse = self.parses.get_mut(path)?;
        if parse.out {
            return None;
        }
        parse.out = true;
        Some(ParseJob {
            path: path.to_path_buf(),
            live: parse.live.take(),
            behind: parse.behind.take(),
            opened: parse.opened.take(),
            text,
        })
    }

    /// Takes back the parse of a [`ParseJob`] (the text it was brought to
    /// `text`); the changes made meanwhile stay to be applied to it. A
    /// buffer closed (or closed and opened again) meanwhile drops it.
    pub fn give_back(&mut self, path: &Path, live: LiveYaml) {
        if let Some(parse) = self.parses.get_mut(path).filter(|p| p.out) {
            parse.live = Some(live);
            parse.out = false;
        }
    }

    /// A [`ParseJob`] of `path` did not finish (it panicked): the next one
    /// parses the buffer afresh.
    pub fn parse_lost(&mut self, path: &Path) {
        if let Some(parse) = self.parses.get_mut(path).filter(|p| p.out) {
            *parse = LiveParse::default();
        }
    }

    /// Applies `changes` in order; returns false when the document is not
    /// open (the change is then ignored).
    pub fn change(
        &mut self,
        path: &Path,
        version: i32,
        changes: Vec<TextDocumentContentChangeEvent>,
    ) -> bool {
        let Some(document) = self.open.get_mut(path) else {
            return false;
        };
        let mut text = document.text.to_string();
        // The changes, as one replacement of the bytes they touched: the
        // parse is brought up to date once per notification.
        let mut replaced: Option<ReplacedBytes> = None;
        for change in changes {
            let this = apply_change(&mut text, change.range, &change.text);
            replaced = Some(replaced.map_or(this, |before| before.then(this)));
        }
        // The parse follows when a lint asks for it.
        if let (Some(parse), Some(r)) = (self.parses.get_mut(path), replaced) {
            parse.behind = Some(parse.behind.map_or(r, |before| before.then(r)));
        }
        document.text = Arc::from(text);
        document.version = version;
        true
    }

    /// The buffers under `root`, as the engine's overlay.
    pub fn overlay_under(&self, root: &Path) -> Overlay {
        self.open
            .iter()
            .filter(|(path, _)| path.starts_with(root))
            .map(|(path, doc)| (path.clone(), doc.text.clone()))
            .collect()
    }

    /// Versions of the buffers under `root`.
    pub fn versions_under(&self, root: &Path) -> HashMap<PathBuf, (Uri, i32)> {
        self.open
            .iter()
            .filter(|(path, _)| path.starts_with(root))
            .map(|(path, doc)| (path.clone(), (doc.uri.clone(), doc.version)))
            .collect()
    }
}

/// Bytes `start..old_end` of a text that became `start..new_end`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ReplacedBytes {
    pub start: usize,
    pub old_end: usize,
    pub new_end: usize,
}

impl ReplacedBytes {
    /// One replacement doing what `self` and then `next` (in the offsets of
    /// the text `self` left) do: the smallest range covering both.
    pub fn then(self, next: ReplacedBytes) -> ReplacedBytes {
        let start = self.start.min(next.start);
        // The end of the covered bytes in the text between the two changes;
        // past `self.new_end` they are the original's, shifted.
        let between_end = self.new_end.max(next.old_end);
        ReplacedBytes {
            start,
            old_end: self.old_end + (between_end - self.new_end),
            new_end: between_end - next.old_end + next.new_end,
        }
    }
}

/// One content change: a range replacement, or the whole text when `range`
/// is absent. Out-of-range positions clamp to the end of their line or of the
/// text, as the protocol asks. Returns the bytes it replaced.
pub fn apply_change(text: &mut String, range: Option<Range>, new_text: &str) -> ReplacedBytes {
    let Some(range) = range else {
        let old_end = text.len();
        text.clear();
        text.push_str(new_text);
        return ReplacedBytes {
            start: 0,
            old_end,
            new_end: new_text.len(),
        };
    };
    let lines = LineIndex::new(text);
    let start = byte_offset(&lines, text, range.start);
    let end = byte_offset(&lines, text, range.end).max(start);
    text.replace_range(start..end, new_text);
    ReplacedBytes {
        start,
        old_end: end,
        new_end: start + new_text.len(),
    }
}

/// Byte offset of an LSP position (0-based line, UTF-16 column).
pub fn byte_offset(lines: &LineIndex, text: &str, position: Position) -> usize {
    lines.offset_of_utf16(text, position.line, position.character)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An open YAML/JSON buffer's text and its parse (exactly
    /// `dqlint_yaml::parse` of that text), brought up to date as a lint
    /// does it. A helper here, not a method: the layering test reads the
    /// code before the first `#[cfg(test)]` of a file.
    fn parsed(documents: &mut Documents, path: &Path) -> Option<(Arc<str>, Arc<YamlFile>)> {
        let job = documents.take_parse(path)?;
        let text = job.text.clone();
        let (yaml, live) = job.run();
        documents.give_back(path, live);
        Some((text, yaml))
    }

    fn range(l1: u32, c1: u32, l2: u32, c2: u32) -> Option<Range> {
        Some(Range {
            start: Position {
                line: l1,
                character: c1,
            },
            end: Position {
                line: l2,
                character: c2,
            },
        })
    }

    #[test]
    fn edits_count_utf16_units() {
        // `é` is one UTF-16 unit (two bytes), `😀` two units (four bytes).
        let mut text = "a: é😀x\nb: 1\n".to_string();
        apply_change(&mut text, range(0, 6, 0, 7), "Y");
        assert_eq!(text, "a: é😀Y\nb: 1\n");
        apply_change(&mut text, range(0, 3, 0, 4), "");
        assert_eq!(text, "a: 😀Y\nb: 1\n");
    }

    #[test]
    fn inserts_across_lines_and_at_the_end() {
        let mut text = "one\ntwo\n".to_string();
        apply_change(&mut text, range(0, 3, 1, 0), " ");
        assert_eq!(text, "one two\n");
        apply_change(&mut text, range(1, 0, 1, 0), "three\n");
        assert_eq!(text, "one two\nthree\n");
        // Past the end of a line: clamps to the line end, not into the next line.
        apply_change(&mut text, range(0, 99, 0, 99), "!");
        assert_eq!(text, "one two!\nthree\n");
        // Past the last line: the end of the text.
        apply_change(&mut text, range(9, 0, 9, 0), "four");
        assert_eq!(text, "one two!\nthree\nfour");
    }

    #[test]
    fn crlf_line_ends_stay_whole() {
        let mut text = "a: 1\r\nb: 2\r\n".to_string();
        apply_change(&mut text, range(0, 4, 0, 4), "0");
        assert_eq!(text, "a: 10\r\nb: 2\r\n");
    }

    #[test]
    fn full_replacement() {
        let mut text = "old".to_string();
        apply_change(&mut text, None, "new");
        assert_eq!(text, "new");
    }

    /// Several changes in one notification fold into one replacement that
    /// turns the old text into the new one, whatever their order.
    #[test]
    fn changes_fold_into_one_replacement() {
        let mut seed = 0x2545_f491_4f6c_dd1d_u64;
        let mut next = move |n: usize| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed % n as u64) as usize
        };
        for _ in 0..2000 {
            let original = "key: value\nlist:\n  - é😀\n".repeat(1 + next(3));
            let mut text = original.clone();
            let mut folded: Option<ReplacedBytes> = None;
            for _ in 0..1 + next(4) {
                let start = next(text.len() + 1);
                let end = (start + next(6)).min(text.len());
                if !text.is_char_boundary(start) || !text.is_char_boundary(end) {
                    continue;
                }
                let inserted = ["", "x", "\n", "ü-", "abc: d"][next(5)];
                text.replace_range(start..end, inserted);
                let this = ReplacedBytes {
                    start,
                    old_end: end,
                    new_end: start + inserted.len(),
                };
                folded = Some(folded.map_or(this, |before| before.then(this)));
            }
            let Some(r) = folded else { continue };
            let mut rebuilt = original.clone();
            rebuilt.replace_range(r.start..r.old_end, &text[r.start..r.new_end]);
            assert_eq!(rebuilt, text);
        }
    }

    fn document(text: &str) -> Document {
        Document {
            uri: "file:///p/a.yaml".parse().unwrap(),
            version: 1,
            text: Arc::from(text),
        }
    }

    fn change(range: Option<Range>, text: &str) -> TextDocumentContentChangeEvent {
        TextDocumentContentChangeEvent {
            range,
            range_length: None,
            text: text.to_string(),
        }
    }

    #[test]
    fn yaml_buffers_keep_their_parse_in_step_with_their_text() {
        let mut documents = Documents::default();
        let path = PathBuf::from("/p/pipelines/a.yaml");
        documents.open(path.clone(), document("a: é\n---\nb: &x 1\nc: *x\n"));
        // Two changes in one notification, the second in the offsets the
        // first left: `é` -> `😀` (UTF-16 columns), then a key typed in the
        // second document.
        let changes = vec![
            change(range(0, 3, 0, 4), "😀"),
            change(range(3, 0, 3, 0), "d: 2\n"),
        ];
        assert!(documents.change(&path, 2, changes));
        let (text, yaml) = parsed(&mut documents, &path).unwrap();
        assert_eq!(&*text, "a: 😀\n---\nb: &x 1\nd: 2\nc: *x\n");
        assert_eq!(*yaml, dqlint_yaml::parse(&text));
        assert_eq!(documents.text(&path), Some(text));

        assert!(documents.change(&path, 3, vec![change(None, "whole: new\n")]));
        let (text, yaml) = parsed(&mut documents, &path).unwrap();
        assert_eq!(
            (&*text, &*yaml),
            ("whole: new\n", &dqlint_yaml::parse("whole: new\n"))
        );

        documents.close(&path);
        assert!(parsed(&mut documents, &path).is_none());
    }

    /// Changes made while a job brings the parse up to date stay for the
    /// next one; a buffer closed meanwhile does not take the parse back.
    #[test]
    fn changes_during_a_parse_job_are_not_lost() {
        let mut documents = Documents::default();
        let path = PathBuf::from("/p/pipelines/a.yaml");
        documents.open(path.clone(), document("a: 1\nb: {x}\n"));
        assert!(documents.change(&path, 2, vec![change(range(0, 3, 0, 4), "22")]));
        let job = documents.take_parse(&path).unwrap();
        assert_eq!(&*job.text, "a: 22\nb: {x}\n");
        // One job at a time.
        assert!(documents.take_parse(&path).is_none());
        assert!(documents.change(&path, 3, vec![change(range(1, 3, 1, 6), "${x}")]));
        let (yaml, live) = job.run();
        assert_eq!(*yaml, dqlint_yaml::parse("a: 22\nb: {x}\n"));
        documents.give_back(&path, live);
        let (text, yaml) = parsed(&mut documents, &path).unwrap();
        assert_eq!(&*text, "a: 22\nb: ${x}\n");
        assert_eq!(*yaml, dqlint_yaml::parse(&text));

        // A job that never comes back: the next one parses afresh.
        let job = documents.take_parse(&path).unwrap();
        drop(job);
        documents.parse_lost(&path);
        assert!(documents.change(&path, 4, vec![change(range(0, 0, 0, 0), "c: 3\n")]));
        let (text, yaml) = parsed(&mut documents, &path).unwrap();
        assert_eq!(*yaml, dqlint_yaml::parse(&text));

        // Closed and opened again while a job runs: its parse is dropped.
        let job = documents.take_parse(&path).unwrap();
        documents.close(&path);
        documents.open(path.clone(), document("z: 1\n"));
        let (_, live) = job.run();
        documents.give_back(&path, live);
        let (text, yaml) = parsed(&mut documents, &path).unwrap();
        assert_eq!((&*text, &*yaml), ("z: 1\n", &dqlint_yaml::parse("z: 1\n")));
    }

    /// The first parse of a buffer reads the text it was opened with and
    /// re-reads only the block its first change touched: a change that
    /// makes a flow mapping (which only tree-sitter reads) is not the
    /// reason to read the whole buffer with tree-sitter.
    #[test]
    fn the_first_parse_reads_the_opened_text_then_the_edited_block() {
        let mut documents = Documents::default();
        let path = PathBuf::from("/p/pipelines/a.yaml");
        let opened = "pipeline: p\nflowgroup: f\nactions:\n  - name: a\n    source:\n      catalog: ${c}\n  - name: b\n    type: load\n";
        documents.open(path.clone(), document(opened));
        // The `$` of `${c}` removed: `{c}` is a flow mapping.
        assert!(documents.change(&path, 2, vec![change(range(5, 15, 5, 16), "")]));
        let job = documents.take_parse(&path).unwrap();
        let (yaml, live) = job.run();
        assert_eq!(*yaml, dqlint_yaml::parse(live.text()));
        assert!(live.text().contains("catalog: {c}"));
        let stats = live.stats();
        assert_eq!((stats.edits, stats.block_reads), (1, 1), "{stats:?}");
        documents.give_back(&path, live);
        // Later keys go on from that parse.
        assert!(documents.change(&path, 3, vec![change(range(5, 15, 5, 15), "$")]));
        let (text, yaml) = parsed(&mut documents, &path).unwrap();
        assert_eq!(&*text, opened);
        assert_eq!(*yaml, dqlint_yaml::parse(opened));
    }

    #[test]
    fn sql_buffers_keep_text_only() {
        let mut documents = Documents::default();
        let path = PathBuf::from("/p/sql/t.sql");
        documents.open(path.clone(), document("CREATE TABLE t (a INT)"));
        assert!(documents.change(&path, 2, vec![change(range(0, 0, 0, 0), "-- x\n")]));
        assert!(parsed(&mut documents, &path).is_none());
        assert_eq!(
            documents.text(&path).as_deref(),
            Some("-- x\nCREATE TABLE t (a INT)")
        );
    }
}
