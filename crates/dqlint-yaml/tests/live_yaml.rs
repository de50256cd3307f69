//! `LiveYaml`, the parse of an open buffer kept up to date edit by edit,
//! must always equal a fresh parse of its text: spans, decoded values,
//! errors, comments, duplicate keys and broken flags. Checked after every
//! edit of long seeded edit sequences on real files, with the fast reader
//! on (against `parse`) and with tree-sitter alone (against
//! `parse_tree_sitter_only`), so tree-sitter's incremental path is held to
//! the invariant on every document, not only on those the fast reader
//! refuses.

mod edit_script;
mod source_files;

use std::path::{Path, PathBuf};

use dqlint_yaml::{parse, parse_tree_sitter_only, LiveYaml, YamlFile};
use edit_script::{check_edit, random_edit, Edit, Rng, READERS};
use source_files::files_with_extensions;

type Reference = fn(&str) -> YamlFile;

fn yaml_files(dir: &Path, out: &mut Vec<PathBuf>) {
    files_with_extensions(dir, &["yaml", "yml", "json"], out);
}

fn fixture_texts() -> Vec<(String, String)> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../fixtures");
    let mut files = Vec::new();
    yaml_files(&root, &mut files);
    let texts: Vec<(String, String)> = files
        .iter()
        .filter_map(|p| {
            Some((
                p.strip_prefix(&root).ok()?.display().to_string(),
                std::fs::read_to_string(p).ok()?,
            ))
        })
        .collect();
    assert!(texts.len() > 400, "the fixtures are where they were");
    texts
}

fn fixture(rel: &str) -> String {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../fixtures")
        .join(rel);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// `count` random edits of `text` (pasting from `paste`), the invariant
/// checked after each, for both readers.
fn edit_randomly(name: &str, text: &str, paste: &str, seed: u64, count: usize) {
    for (new, reference) in READERS {
        let mut rng = Rng::new(seed);
        let mut live = new(text);
        assert_eq!(*live.yaml(), reference(text), "{name}: the first parse");
        for i in 0..count {
            let edit = random_edit(&mut rng, live.text(), paste);
            check_edit(
                &mut live,
                &edit,
                reference,
                &format!("{name}, edit {i} (seed {seed})"),
            );
        }
    }
}

/// Types `typed` one character at a time at `at`, the invariant checked
/// after each keystroke; returns the buffer.
fn type_in(
    mut live: LiveYaml,
    reference: Reference,
    at: usize,
    typed: &str,
    name: &str,
) -> LiveYaml {
    let mut offset = at;
    for c in typed.chars() {
        let edit = Edit {
            range: offset..offset,
            text: c.to_string(),
        };
        check_edit(&mut live, &edit, reference, name);
        offset += c.len_utf8();
    }
    live
}

#[test]
fn every_fixture_survives_random_edits() {
    let texts = fixture_texts();
    for (i, (name, text)) in texts.iter().enumerate() {
        let paste = &texts[(i + 1) % texts.len()].1;
        edit_randomly(name, text, paste, i as u64, 12);
    }
}

#[test]
fn long_edit_sequences() {
    let files = [
        "showcase/pipelines/silver/orders_silver.yaml",
        "showcase/config/pipeline_config.yaml",
        "showcase/templates/bronze_quarantined.yaml",
        "showcase/expectations/products_quality.yaml",
    ];
    for (seed, rel) in files.iter().enumerate() {
        let paste = fixture(files[(seed + 1) % files.len()]);
        edit_randomly(rel, &fixture(rel), &paste, 1000 + seed as u64, 600);
    }
}

#[test]
fn corpus_files_survive_random_edits() {
    let corpus =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus/lhp-examples");
    if !corpus.is_dir() {
        eprintln!(
            "note: corpus not found at {}; test skipped",
            corpus.display()
        );
        return;
    }
    let mut files = Vec::new();
    yaml_files(&corpus, &mut files);
    // A spread of the corpus: flowgroups, templates, presets, expectations.
    let step = (files.len() / 40).max(1);
    for (i, path) in files.iter().step_by(step).enumerate() {
        let Ok(text) = std::fs::read_to_string(path) else {
            continue;
        };
        edit_randomly(
            &path.display().to_string(),
            &text,
            &text,
            5000 + i as u64,
            20,
        );
    }
}

#[test]
fn typing_a_flowgroup_character_by_character_then_deleting_it() {
    let text =
        fixture("showcase/pipelines/silver/orders_silver.yaml") + "description: naïve € 😀\n";
    for (new, reference) in READERS {
        let mut live = type_in(new(""), reference, 0, &text, "typing");
        assert_eq!(live.text(), text);
        while !live.text().is_empty() {
            let last = live.text().char_indices().last().map_or(0, |(i, _)| i);
            let edit = Edit {
                range: last..live.text().len(),
                text: String::new(),
            };
            check_edit(&mut live, &edit, reference, "deleting");
        }
    }
}

#[test]
fn syntax_errors_made_and_fixed() {
    let text = fixture("showcase/pipelines/silver/orders_silver.yaml");
    let colon = text.find("readMode:").unwrap() + "readMode".len();
    let line = text.find("    source: v_orders_bronze").unwrap();
    let value = text.find("v_orders_bronze\n").unwrap();
    let breakages = [
        (colon..colon + 1, ""),   // a missing `:`
        (line..line, "\t"),       // a tab in the indentation
        (line..line, " "),        // odd indentation
        (value..value, "\""),     // an unterminated quote
        (value..value, "[a, "),   // an unclosed flow sequence
        (value..value, "*nope "), // an alias to no anchor
        (line..line, "- "),       // a list item in a mapping
    ];
    for (new, reference) in READERS {
        let mut live = new(&text);
        for (range, broken) in &breakages {
            let before = live.text()[range.clone()].to_string();
            let make = Edit {
                range: range.clone(),
                text: broken.to_string(),
            };
            check_edit(&mut live, &make, reference, "breaking");
            assert!(
                !live.yaml().errors.is_empty(),
                "{broken:?} at {range:?} is a syntax error"
            );
            let fix = Edit {
                range: range.start..range.start + broken.len(),
                text: before,
            };
            check_edit(&mut live, &fix, reference, "fixing");
            assert_eq!(live.text(), text);
        }
    }
}

#[test]
fn line_breaks_converted_to_crlf_and_back_tabs_and_wide_characters() {
    let text = fixture("showcase/config/pipeline_config.yaml");
    for (new, reference) in READERS {
        let mut live = new(&text);
        // Every `\n` becomes `\r\n`, last first (offsets stay valid).
        let breaks: Vec<usize> = text.match_indices('\n').map(|(i, _)| i).collect();
        for &at in breaks.iter().rev() {
            check_edit(
                &mut live,
                &Edit {
                    range: at..at,
                    text: "\r".to_string(),
                },
                reference,
                "to CRLF",
            );
        }
        assert_eq!(live.text(), text.replace('\n', "\r\n"));
        // Tabs and multi-byte characters typed at line starts and ends.
        for (i, insert) in ["\t", "é", "😀", "€", "\u{2028}", "\u{feff}"]
            .iter()
            .enumerate()
        {
            let at = live
                .text()
                .match_indices("\r\n")
                .nth(i * 2)
                .map_or(0, |(i, _)| i);
            check_edit(
                &mut live,
                &Edit {
                    range: at..at,
                    text: insert.to_string(),
                },
                reference,
                "wide",
            );
            check_edit(
                &mut live,
                &Edit {
                    range: 0..0,
                    text: insert.to_string(),
                },
                reference,
                "wide at 0",
            );
        }
        // And back to `\n`: one replacement of the whole text.
        let back = live.text().replace("\r\n", "\n");
        let len = live.text().len();
        check_edit(
            &mut live,
            &Edit {
                range: 0..len,
                text: back,
            },
            reference,
            "to LF",
        );
    }
}

#[test]
fn document_markers_typed_and_deleted_at_every_line() {
    let text = fixture("showcase/config/pipeline_config.yaml");
    for (new, reference) in READERS {
        let mut live = new(&text);
        let starts: Vec<usize> = std::iter::once(0)
            .chain(text.match_indices('\n').map(|(i, _)| i + 1))
            .filter(|i| *i < text.len())
            .collect();
        for &at in starts.iter().rev() {
            // `-`, `-`, `-`, ` `: the line becomes a marker, then content again.
            live = type_in(live, reference, at, "--- ", "marker");
            check_edit(
                &mut live,
                &Edit {
                    range: at..at + 4,
                    text: String::new(),
                },
                reference,
                "unmarker",
            );
        }
        // Every marker deleted, then typed back.
        while let Some(at) = live.text().find("---") {
            check_edit(
                &mut live,
                &Edit {
                    range: at..at + 3,
                    text: String::new(),
                },
                reference,
                "merge",
            );
        }
        assert_eq!(live.yaml().documents.len(), 1);
        let end = live.text().len();
        check_edit(
            &mut live,
            &Edit {
                range: end..end,
                text: "---\n".to_string(),
            },
            reference,
            "empty last",
        );
    }
}

#[test]
fn everything_deleted_then_a_whole_file_pasted() {
    let a = fixture("showcase/pipelines/silver/orders_silver.yaml");
    let b = fixture("showcase/templates/bronze_quarantined.yaml");
    for (new, reference) in READERS {
        let mut live = new(&a);
        check_edit(
            &mut live,
            &Edit {
                range: 0..a.len(),
                text: String::new(),
            },
            reference,
            "delete all",
        );
        assert!(live.yaml().documents.iter().all(|d| d.root.is_none()));
        check_edit(
            &mut live,
            &Edit {
                range: 0..0,
                text: b.clone(),
            },
            reference,
            "paste",
        );
        check_edit(
            &mut live,
            &Edit {
                range: 0..b.len(),
                text: a.clone(),
            },
            reference,
            "paste over",
        );
        let mid = a.find("actions:").unwrap();
        check_edit(
            &mut live,
            &Edit {
                range: mid..mid,
                text: b.clone(),
            },
            reference,
            "paste inside",
        );
    }
}

/// The point of `LiveYaml`: an edit is not a parse from scratch. The
/// counters can only come out this way if documents after the edit were
/// kept and tree-sitter started from the previous tree.
#[test]
fn an_edit_reuses_unchanged_documents_and_the_previous_tree() {
    let text = fixture("showcase/pipelines/silver/orders_silver.yaml");
    let mut live = LiveYaml::new_tree_sitter_only(&text);
    assert_eq!(live.stats().fresh_parses, 2);
    let at = text.find("customers_silver").unwrap();
    live = type_in(
        live,
        parse_tree_sitter_only,
        at,
        "raw_",
        "typing in the second document",
    );
    let stats = live.stats();
    assert_eq!(
        (stats.edits, stats.incremental_parses, stats.fresh_parses),
        (4, 4, 2),
        "{stats:?}"
    );
    // The first document was never read again.
    assert_eq!(stats.reused_documents, 4);

    // With the fast reader on, a document it refuses (CRLF line breaks
    // here) goes to tree-sitter, incrementally after the first time.
    let crlf = text.replace('\n', "\r\n");
    let mut live = LiveYaml::new(&crlf);
    let at = crlf.find("customers_silver").unwrap();
    live = type_in(live, parse, at, "raw_", "typing in a CRLF document");
    let stats = live.stats();
    assert_eq!(
        (
            stats.incremental_parses,
            stats.fresh_parses,
            stats.reused_documents
        ),
        (4, 2, 4),
        "{stats:?}"
    );
}

/// tree-sitter recovers from a syntax error differently depending on the
/// tree it starts from, so a broken document is parsed from scratch (its
/// error messages must not depend on the edit history); the recovery
/// rounds and the other documents still are incremental.
#[test]
fn a_broken_document_is_parsed_from_scratch_and_handed_back_to_the_fast_reader_once_fixed() {
    let text = fixture("showcase/pipelines/silver/orders_silver.yaml");
    let broken = text.replacen("readMode: stream", "readMode stream", 1);
    let mut live = LiveYaml::new(&broken);
    let at = broken.find("readMode stream").unwrap() + "readMode stream".len();
    live = type_in(live, parse, at, "ing", "typing in a broken document");
    let stats = live.stats();
    // The broken document: read at first and after each keystroke, from
    // scratch; the other one read once.
    assert_eq!(stats.incremental_parses, 0, "{stats:?}");
    assert_eq!(stats.fresh_parses + stats.fast_reads, 5, "{stats:?}");
    if !dqlint_yaml::block_reader::enabled() {
        return; // DQLINT_NO_FAST_YAML: the rest is about the fast reader
    }
    assert_eq!(stats.fast_reads, 1, "{stats:?}");
    let colon = broken.find("readMode stream").unwrap() + "readMode".len();
    check_edit(
        &mut live,
        &Edit {
            range: colon..colon,
            text: ":".to_string(),
        },
        parse,
        "fixing",
    );
    assert_eq!(live.stats().fast_reads, 2);
}

/// Found by a long random run: an incremental parse of this edit recovers
/// from the error by keeping `&order_id` as a key, a fresh parse by
/// wrapping the whole document in an ERROR; the live parse must report
/// what a fresh parse reports.
#[test]
fn error_recovery_does_not_depend_on_the_edit_history() {
    let text = "&order_id\namount >= 0:\n  action: drop\n  name: non_negative_amount\n  name: non_negative_amount\n";
    let typo = Edit {
        range: 84..94,
        text: ":\n  action: drop\n  name: non_negativ".to_string(),
    };
    for (new, reference) in READERS {
        check_edit(&mut new(text), &typo, reference, "recovery");
    }
}

/// A flowgroup of `actions` actions as a generator writes them, in the
/// shapes the block re-read must get right: nested lists, a block scalar,
/// quoted values, comments between and inside actions, a `${token}`, and
/// (`flow`) a flow mapping in one action.
fn long_flowgroup(actions: usize, flow: bool) -> String {
    let mut out = String::from("# generated\npipeline: bronze\nflowgroup: big\nactions:\n");
    for i in 0..actions {
        out.push_str(&format!(
            "  - name: load_{i}\n    type: load\n    readMode: stream\n    source:\n      type: delta\n      catalog: ${{catalog}}\n      table: t_{i}\n"
        ));
        match i % 4 {
            0 => out.push_str("    sql: |\n      SELECT *\n      FROM x\n\n    # inside\n"),
            1 => out.push_str(&format!(
                "    expectations:\n      - name: e_{i}\n        expression: \"id > {i}\"\n      - name: f_{i}\n        expression: 'x'\n"
            )),
            2 => out.push_str("    target: v\n  # between actions\n\n"),
            _ => out.push_str("    options:\n    - a\n    -\n    - b: 1\n"),
        }
        if flow && i == actions / 2 {
            out.push_str("    extra: {a: 1, b: [2, 3]}\n");
        }
    }
    out.push_str("tail: end\n");
    out
}

/// The issue-15 keystrokes: a `$` of a `${token}` removed and put back in
/// the middle of a long flowgroup (the flow mapping `{catalog}` makes the
/// fast reader refuse the document), and a letter typed into a value. Each
/// reads only the action holding it, and equals a fresh parse.
#[test]
fn a_keystroke_in_one_action_reads_only_that_action() {
    let text = long_flowgroup(200, false);
    for (new, reference) in READERS {
        let mut live = new(&text);
        let dollar = text.match_indices("${catalog}").nth(100).unwrap().0;
        let table = text.find("table: t_101\n").unwrap() + "table: t_101".len();
        let edits = [
            Edit {
                range: dollar..dollar + 1,
                text: String::new(),
            },
            Edit {
                range: table - 1..table - 1,
                text: "x".to_string(),
            },
            Edit {
                range: table..table,
                text: "y".to_string(),
            },
            Edit {
                range: dollar..dollar,
                text: "$".to_string(),
            },
            Edit {
                range: table..table + 1,
                text: String::new(),
            },
        ];
        for (i, edit) in edits.iter().enumerate() {
            check_edit(&mut live, edit, reference, &format!("key {i}"));
        }
        let stats = live.stats();
        assert_eq!(stats.block_reads, edits.len(), "{stats:?}");
        assert_eq!(stats.incremental_parses, 0, "{stats:?}");
    }
}

/// Edits that the block re-read must refuse (they change what lies
/// around the action) or get exactly right: random edits, with the
/// block-structure ones (indentation, items split and merged, flow
/// mappings made and unmade), all over long flowgroups, checked against a
/// fresh parse after each. The counters show the block path was taken.
#[test]
fn random_edits_of_long_flowgroups_equal_a_fresh_parse() {
    for (seed, flow) in [(1u64, false), (2, true), (3, false), (4, true)] {
        let text = long_flowgroup(40, flow);
        let paste = long_flowgroup(3, !flow);
        for (new, reference) in READERS {
            let mut rng = Rng::new(seed);
            let mut live = new(&text);
            for i in 0..400 {
                let before = live.text().to_string();
                let edit = random_edit(&mut rng, &before, &paste);
                check_edit(
                    &mut live,
                    &edit,
                    reference,
                    &format!("edit {i} (seed {seed})"),
                );
                // Most edits are undone (as the whole text pasted back,
                // which the buffer narrows to what differs), so that the
                // flowgroup stays valid and edits keep landing in readable
                // actions; every third stays if it leaves no syntax error,
                // tab, carriage return or anchor (which rule the block
                // re-read out for the whole document).
                let keep = i % 3 == 0
                    && live.yaml().errors.is_empty()
                    && !live.text().contains(['\t', '\r', '&'])
                    && !live.text().contains("*a");
                if !keep {
                    let undo = Edit {
                        range: 0..live.text().len(),
                        text: before,
                    };
                    check_edit(&mut live, &undo, reference, &format!("undoing edit {i}"));
                }
            }
            let stats = live.stats();
            assert!(stats.block_reads > 40, "seed {seed}: {stats:?}");
        }
    }
}

/// Edits at the edges of an item: its `- `, the line break before the next
/// item, a line dedented out of it or indented into it, a new item typed
/// inside it, a quote or bracket left open, an anchor typed in.
#[test]
fn edits_at_an_items_edges_equal_a_fresh_parse() {
    let text = long_flowgroup(12, true);
    let items: Vec<usize> = text
        .match_indices("\n  - name")
        .map(|(i, _)| i + 1)
        .collect();
    for (new, reference) in READERS {
        for &item in &items[1..items.len() - 1] {
            let next = items.iter().find(|&&i| i > item).copied().unwrap();
            let value = item + "  - name: ".len();
            let cases: Vec<(std::ops::Range<usize>, &str)> = vec![
                (item + 2..item + 4, ""),
                (item + 3..item + 3, "x"),
                (item + 4..item + 4, "- "),
                (next - 1..next, ""),
                (next - 1..next - 1, "\n  - new: 1"),
                (next - 1..next - 1, "\nkey: 1"),
                (next - 1..next - 1, "\n# comment"),
                (value..value, "\""),
                (value..value, "[a, "),
                (value..value, "{a: "),
                (value..value, "&anchor "),
                (value..value, "*anchor"),
                (value..value, "\t"),
                (item + 15..item + 15, " "),
                (item + 15..item + 17, ""),
                (value..value, "|\n"),
                (value..value, "{a: 1,\n  b: 2}"),
            ];
            for (range, inserted) in cases {
                let mut live = new(&text);
                let edit = Edit {
                    range: range.clone(),
                    text: inserted.to_string(),
                };
                check_edit(
                    &mut live,
                    &edit,
                    reference,
                    &format!("{inserted:?} at {range:?}"),
                );
                // And undone.
                let undo = Edit {
                    range: range.start..range.start + inserted.len(),
                    text: text[range.clone()].to_string(),
                };
                check_edit(
                    &mut live,
                    &undo,
                    reference,
                    &format!("undoing {inserted:?}"),
                );
                assert_eq!(live.text(), text);
            }
        }
    }
}
