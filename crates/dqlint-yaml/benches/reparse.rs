//! One keystroke in an open buffer: a whole `parse` of the new text against
//! `LiveYaml::edit`, which keeps unchanged documents and lets tree-sitter
//! start from the previous tree.
//!
//! ```text
//! cargo bench -p dqlint-yaml --bench reparse [-- ROUNDS]
//! ```
//!
//! Each round types a character into the buffer and deletes it again (two
//! keystrokes, each timed alone); ROUNDS defaults to 300. Figures go to
//! docs/lsp-latency.md.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use dqlint_yaml::{parse, LiveYaml};

/// The corpus flowgroup if the corpus is there, else a fixture like it.
fn flowgroup() -> (String, String) {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let corpus = root.join("../../../shared/corpus/lhp-examples/performance_testing/pipelines/02_bronze/domain_a/address_bronze.yaml");
    let fixture = root.join("../../fixtures/showcase/pipelines/bronze/orders.yaml");
    for path in [corpus, fixture] {
        if let Ok(text) = std::fs::read_to_string(&path) {
            let name = path.file_name().unwrap().to_string_lossy().to_string();
            return (name, text);
        }
    }
    panic!("neither the corpus nor the fixtures are here");
}

/// A flowgroup of `lines` lines: many actions, each a few nested keys.
fn generated(lines: usize, documents: usize) -> String {
    let mut text = String::new();
    let per_document = lines / documents;
    for d in 0..documents {
        if d > 0 {
            text.push_str("---\n");
        }
        text.push_str(&format!(
            "pipeline: generated\nflowgroup: fg_{d}\nactions:\n"
        ));
        let mut i = 0;
        while text.lines().count() < per_document * (d + 1) {
            text.push_str(&format!(
                "  - name: load_table_{d}_{i}\n    type: load\n    readMode: stream\n    source:\n      type: delta\n      \
                 catalog: \"${{catalog}}\"\n      schema: \"${{raw_schema}}\"\n      table: table_{i}\n    target: v_table_{d}_{i}\n    \
                 description: \"Load table {i} from the raw schema\"\n"
            ));
            i += 1;
        }
    }
    text
}

/// A keystroke site: the byte offset just after `needle`'s `nth` match.
fn after(text: &str, needle: &str, nth: usize) -> usize {
    text.match_indices(needle)
        .nth(nth)
        .map(|(i, _)| i + needle.len())
        .expect("the needle is in the text")
}

struct Figures {
    parse: Duration,
    live: Duration,
    parse_p90: Duration,
    live_p90: Duration,
}

fn median_and_p90(mut samples: Vec<Duration>) -> (Duration, Duration) {
    samples.sort();
    (samples[samples.len() / 2], samples[samples.len() * 9 / 10])
}

/// Times `rounds` type-and-delete rounds at `at` both ways, checking once
/// that both ways agree.
fn measure(text: &str, at: usize, rounds: usize) -> Figures {
    let typed = {
        let mut t = text.to_string();
        t.insert(at, 'x');
        t
    };
    assert_eq!(*LiveYaml::new(&typed).yaml(), parse(&typed));
    // Interleaved, so that both ways see the same machine load and heap.
    let mut parse_samples = Vec::with_capacity(rounds * 2);
    let mut live_samples = Vec::with_capacity(rounds * 2);
    let mut live = LiveYaml::new(text);
    for _ in 0..rounds {
        for (after_edit, (start, end, insert)) in
            [(typed.as_str(), (at, at, "x")), (text, (at, at + 1, ""))]
        {
            let started = Instant::now();
            std::hint::black_box(parse(std::hint::black_box(after_edit)));
            parse_samples.push(started.elapsed());
            let started = Instant::now();
            live.edit(start, end, insert);
            std::hint::black_box(live.yaml());
            live_samples.push(started.elapsed());
        }
    }
    assert_eq!(live.text(), text);
    assert_eq!(*live.yaml(), parse(text));
    let (parse, parse_p90) = median_and_p90(parse_samples);
    let (live, live_p90) = median_and_p90(live_samples);
    Figures {
        parse,
        live,
        parse_p90,
        live_p90,
    }
}

fn ms(d: Duration) -> String {
    format!("{:.3} ms", d.as_secs_f64() * 1000.0)
}

fn main() {
    let rounds: usize = std::env::args()
        .skip(1)
        .find_map(|a| a.parse().ok())
        .unwrap_or(300);
    let (name, flowgroup) = flowgroup();
    let broken_flowgroup = flowgroup.replacen("readMode: stream", "readMode stream", 1);
    let large = generated(5_000, 1);
    let large_crlf = large.replace('\n', "\r\n");
    let large_broken = large.replacen("readMode: stream", "readMode stream", 1);
    let split = generated(5_000, 50);
    let split_broken = split.replacen("readMode: stream", "readMode stream", 1);
    // A keystroke in a plain value (`table: x`) half way down the buffer.
    let site = |text: &str| after(text, "table: ", text.matches("table: ").count() / 2);
    let quoted = |text: &str| {
        after(
            text,
            "description: \"Load",
            text.matches("description: \"Load").count() / 2,
        )
    };
    let cases: Vec<(String, &str, usize)> = vec![
        (
            format!("flowgroup ({name}, {} lines)", flowgroup.lines().count()),
            &flowgroup,
            site(&flowgroup),
        ),
        (
            "generated, 5,000 lines, one document".to_string(),
            &large,
            site(&large),
        ),
        (
            format!("flowgroup ({name}) with a syntax error (missing `:`)"),
            &broken_flowgroup,
            site(&broken_flowgroup),
        ),
        (
            "generated, 5,000 lines, with a syntax error (missing `:`)".to_string(),
            &large_broken,
            site(&large_broken),
        ),
        (
            "generated, 5,000 lines, CRLF line breaks (tree-sitter reads it)".to_string(),
            &large_crlf,
            site(&large_crlf),
        ),
        (
            "the same, typing inside a double-quoted string".to_string(),
            &large_crlf,
            quoted(&large_crlf),
        ),
        (
            "generated, 5,000 lines in 50 documents".to_string(),
            &split,
            site(&split),
        ),
        (
            "generated, 5,000 lines in 50 documents, a syntax error in the first".to_string(),
            &split_broken,
            site(&split_broken),
        ),
    ];
    println!("one keystroke, {rounds} rounds of type + delete; release build\n");
    println!("| buffer | `parse` median (p90) | `LiveYaml::edit` median (p90) | ratio |");
    println!("|---|---|---|---|");
    for (label, text, at) in cases {
        let f = measure(text, at, rounds);
        let ratio = f.parse.as_secs_f64() / f.live.as_secs_f64();
        println!(
            "| {label} | {} ({}) | {} ({}) | {ratio:.1}x |",
            ms(f.parse),
            ms(f.parse_p90),
            ms(f.live),
            ms(f.live_p90)
        );
    }
}
