//! Scalar decoding: values for every style and escape, and exact offset maps.

use dqlint_yaml::scalar::{decode, decode_value, Decoded, ScalarStyle};
use ScalarStyle::{DoubleQuoted, Folded, Literal, Plain, SingleQuoted};

/// Decodes and checks the invariants every decoding must satisfy: the map
/// covers each decoded byte, all bytes of one char share a range, ranges lie
/// on char boundaries of `raw`, and the fast path yields the same value.
fn dec(raw: &str, style: ScalarStyle, parent_indent: usize) -> Decoded {
    let d = decode(raw, style, parent_indent);
    assert_eq!(d.sources.len(), d.value.len(), "map length for {raw:?}");
    assert_eq!(
        decode_value(raw, style, parent_indent),
        d.value,
        "fast path for {raw:?}"
    );
    for (i, c) in d.value.char_indices() {
        let r = &d.sources[i];
        for k in 1..c.len_utf8() {
            assert_eq!(
                &d.sources[i + k],
                r,
                "bytes of one char share a range in {raw:?}"
            );
        }
        let (s, e) = (r.start as usize, r.end as usize);
        assert!(
            s <= e && e <= raw.len(),
            "range {r:?} out of bounds for {raw:?}"
        );
        assert!(
            raw.is_char_boundary(s) && raw.is_char_boundary(e),
            "range {r:?} splits a char in {raw:?}"
        );
    }
    d
}

fn value(raw: &str, style: ScalarStyle) -> String {
    dec(raw, style, 0).value
}

/// The raw source slice that the first occurrence of `needle` in the decoded
/// value maps back to.
fn source_of<'a>(raw: &'a str, d: &Decoded, needle: &str) -> &'a str {
    let at = d
        .value
        .find(needle)
        .unwrap_or_else(|| panic!("{needle:?} not in {:?}", d.value));
    &raw[d.source_range(at..at + needle.len())]
}

// --- plain -----------------------------------------------------------------

#[test]
fn plain_single_line() {
    assert_eq!(value("price > 0", Plain), "price > 0");
}

#[test]
fn plain_multi_line_folds_to_spaces_and_feeds() {
    assert_eq!(value("a b  \n   c\n\n  d\n\n\n e", Plain), "a b c\nd\n\ne");
}

#[test]
fn plain_trims_surrounding_space_and_handles_crlf() {
    assert_eq!(value("  one\r\n  two \r\n", Plain), "one two");
}

#[test]
fn plain_folded_break_maps_to_break_bytes() {
    let raw = "amount\n    > 0";
    let d = dec(raw, Plain, 0);
    assert_eq!(d.value, "amount > 0");
    assert_eq!(d.sources[6], 6..7);
    assert_eq!(source_of(raw, &d, "amount > 0"), raw);
}

// --- single-quoted -----------------------------------------------------------

#[test]
fn single_quoted_doubled_quote() {
    let raw = "'it''s ok'";
    let d = dec(raw, SingleQuoted, 0);
    assert_eq!(d.value, "it's ok");
    assert_eq!(source_of(raw, &d, "'"), "''");
    assert_eq!(source_of(raw, &d, "ok"), "ok");
}

#[test]
fn single_quoted_keeps_backslashes_and_edge_spaces() {
    assert_eq!(value(r"' a\n '", SingleQuoted), r" a\n ");
}

#[test]
fn single_quoted_multi_line_folding() {
    assert_eq!(
        value("'first  \n   second\n\n   third'", SingleQuoted),
        "first second\nthird"
    );
}

#[test]
fn single_quoted_token_after_non_ascii() {
    let raw = "'日本 ''x'' AND price > 0'";
    let d = dec(raw, SingleQuoted, 0);
    assert_eq!(d.value, "日本 'x' AND price > 0");
    assert_eq!(source_of(raw, &d, "price"), "price");
}

// --- double-quoted -----------------------------------------------------------

#[test]
fn double_quoted_token_after_escaped_quotes() {
    let raw = r#""a \"b\" AND price > 0""#;
    let d = dec(raw, DoubleQuoted, 0);
    assert_eq!(d.value, r#"a "b" AND price > 0"#);
    assert_eq!(source_of(raw, &d, "price"), "price");
    assert_eq!(d.source_range(10..15), 13..18);
    assert_eq!(source_of(raw, &d, "\"b\""), r#"\"b\""#);
}

#[test]
fn double_quoted_single_char_escapes() {
    let cases: &[(&str, &str)] = &[
        (r"\0", "\0"),
        (r"\a", "\u{07}"),
        (r"\b", "\u{08}"),
        (r"\t", "\t"),
        ("\\\t", "\t"),
        (r"\n", "\n"),
        (r"\v", "\u{0B}"),
        (r"\f", "\u{0C}"),
        (r"\r", "\r"),
        (r"\e", "\u{1B}"),
        (r"\ ", " "),
        (r#"\""#, "\""),
        (r"\/", "/"),
        (r"\\", "\\"),
        (r"\N", "\u{85}"),
        (r"\_", "\u{A0}"),
        (r"\L", "\u{2028}"),
        (r"\P", "\u{2029}"),
    ];
    for (escape, expected) in cases {
        let raw = format!("\"x{escape}y\"");
        let d = dec(&raw, DoubleQuoted, 0);
        assert_eq!(d.value, format!("x{expected}y"), "escape {escape:?}");
        // The whole escape maps to its two source bytes, for every decoded byte.
        let at = 1..1 + expected.len();
        assert_eq!(&raw[d.source_range(at)], *escape, "map of {escape:?}");
    }
}

#[test]
fn double_quoted_hex_escapes() {
    let raw = r#""\x41\u00e9\U0001F600z""#;
    let d = dec(raw, DoubleQuoted, 0);
    assert_eq!(d.value, "Aé😀z");
    assert_eq!(source_of(raw, &d, "A"), r"\x41");
    assert_eq!(source_of(raw, &d, "é"), r"\u00e9");
    assert_eq!(source_of(raw, &d, "😀"), r"\U0001F600");
    // Every byte of the 2-byte é maps to the whole 6-byte escape.
    assert_eq!(d.sources[1], 5..11);
    assert_eq!(d.sources[2], 5..11);
    assert_eq!(source_of(raw, &d, "z"), "z");
}

#[test]
fn double_quoted_invalid_escapes_stay_literal() {
    assert_eq!(
        value(r#""\q \x4G \uD800 \U00110000 \'""#, DoubleQuoted),
        r"\q \x4G \uD800 \U00110000 \'"
    );
}

#[test]
fn double_quoted_truncated_escape_and_unterminated() {
    assert_eq!(value(r#""ab\u12"#, DoubleQuoted), r"ab\u12");
    assert_eq!(value(r#""ab\"#, DoubleQuoted), r"ab\");
    assert_eq!(value("\"", DoubleQuoted), "");
    assert_eq!(value("", DoubleQuoted), "");
}

#[test]
fn double_quoted_escaped_line_break_joins_without_space() {
    let raw = "\"price \\\n    > 0 AND qty\\\n  \n  > 1\"";
    let d = dec(raw, DoubleQuoted, 0);
    // White space before the backslash is content; empty lines after an
    // escaped break still become line feeds.
    assert_eq!(d.value, "price > 0 AND qty\n> 1");
    assert_eq!(source_of(raw, &d, "qty"), "qty");
    assert_eq!(source_of(raw, &d, "> 1"), "> 1");
}

#[test]
fn double_quoted_multi_line_folding() {
    let raw = "\" 1st \t\n  2nd\n\n \t3rd\\t\n 4th \"";
    assert_eq!(value(raw, DoubleQuoted), " 1st 2nd\n3rd\t 4th ");
}

#[test]
fn double_quoted_folded_feed_maps_to_its_break() {
    let raw = "\"a\n\r\n  b\"";
    let d = dec(raw, DoubleQuoted, 0);
    assert_eq!(d.value, "a\nb");
    assert_eq!(source_of(raw, &d, "\n"), "\r\n");
}

#[test]
fn double_quoted_escaped_tab_survives_trimming() {
    assert_eq!(value("\"a\\t\n b\"", DoubleQuoted), "a\t b");
    assert_eq!(value("\"a\\ \n b\"", DoubleQuoted), "a  b");
}

#[test]
fn non_ascii_before_and_after_the_token() {
    let raw = "\"é 日本 \\u00e9 🦀 price > 0 🦀 日本 é\"";
    let d = dec(raw, DoubleQuoted, 0);
    assert_eq!(d.value, "é 日本 é 🦀 price > 0 🦀 日本 é");
    assert_eq!(source_of(raw, &d, "price"), "price");
    assert_eq!(source_of(raw, &d, "🦀"), "🦀");
    let last = d.value.rfind("日本").unwrap();
    assert_eq!(&raw[d.source_range(last..last + "日本".len())], "日本");
}

// --- literal block -------------------------------------------------------------

#[test]
fn literal_clip_without_trailing_break_in_raw() {
    assert_eq!(
        value("|\n  SELECT 1\n  FROM t", Literal),
        "SELECT 1\nFROM t\n"
    );
}

#[test]
fn literal_clip_with_trailing_blank_lines() {
    assert_eq!(value("|\n  a\n\n   b\n\n\n", Literal), "a\n\n b\n");
}

#[test]
fn literal_strip() {
    assert_eq!(value("|-\n  a\n  b\n\n", Literal), "a\nb");
    assert_eq!(value("|-\n  a\n  b", Literal), "a\nb");
}

#[test]
fn literal_keep() {
    assert_eq!(value("|+\n  a\n\n\n", Literal), "a\n\n\n");
    assert_eq!(value("|+\n  a", Literal), "a\n");
}

#[test]
fn literal_header_comment_and_leading_empty_lines() {
    assert_eq!(
        value("| # the query\n\n  a\n    b\n", Literal),
        "\na\n  b\n"
    );
}

#[test]
fn literal_explicit_indentation_indicator_either_order() {
    // Content indentation = parent indentation (2) + indicator (2).
    for raw in ["|2-\n      a\n     b\n", "|-2\n      a\n     b\n"] {
        assert_eq!(dec(raw, Literal, 2).value, "  a\n b", "{raw:?}");
    }
}

#[test]
fn literal_stops_at_dedented_line() {
    assert_eq!(value("|\n  a\n# trailing comment\n", Literal), "a\n");
}

#[test]
fn literal_empty_and_crlf() {
    assert_eq!(value("|\n", Literal), "");
    assert_eq!(value("|+\n\n\n", Literal), "\n\n");
    assert_eq!(value("|\r\n  a\r\n  b\r\n", Literal), "a\nb\n");
}

#[test]
fn literal_offsets_skip_indentation() {
    let raw = "|\n  amount > 0\n  AND price > 0\n";
    let d = dec(raw, Literal, 0);
    assert_eq!(d.value, "amount > 0\nAND price > 0\n");
    assert_eq!(source_of(raw, &d, "price"), "price");
    assert_eq!(source_of(raw, &d, "0\nAND"), "0\n  AND");
}

// --- folded block ----------------------------------------------------------------

#[test]
fn folded_clip_folds_lines() {
    assert_eq!(value(">\n  a\n  b\n\n  c\n", Folded), "a b\nc\n");
}

#[test]
fn folded_keeps_more_indented_lines() {
    let raw = ">\n  a\n  b\n\n    code\n    more\n\n  c\n  d\n";
    assert_eq!(value(raw, Folded), "a b\n\n  code\n  more\n\nc d\n");
}

#[test]
fn folded_strip_and_keep() {
    assert_eq!(value(">-\n  a\n  b\n\n", Folded), "a b");
    assert_eq!(value(">+\n  a\n  b\n\n", Folded), "a b\n\n");
}

#[test]
fn folded_explicit_indent_and_leading_empty_line() {
    assert_eq!(dec(">1\n\n  a\n  b", Folded, 0).value, "\n a\n b\n");
}

#[test]
fn folded_space_maps_to_break_and_token_maps_exactly() {
    let raw = ">-\n  日本 amount\n  AND price > 0 🦀\n";
    let d = dec(raw, Folded, 0);
    assert_eq!(d.value, "日本 amount AND price > 0 🦀");
    assert_eq!(source_of(raw, &d, "price"), "price");
    let space = d.value.find(" AND").unwrap();
    assert_eq!(&raw[d.source_range(space..space + 1)], "\n");
    assert_eq!(source_of(raw, &d, "amount AND"), "amount\n  AND");
}

// --- robustness ------------------------------------------------------------------

#[test]
fn source_range_edges() {
    let d = dec("'ab'", SingleQuoted, 0);
    assert_eq!(d.source_range(1..1), 2..2);
    assert_eq!(d.source_range(2..9), 3..3);
    assert_eq!(d.source_range(0..9), 1..3);
}

#[test]
fn never_panics_on_arbitrary_input() {
    // Deterministic pseudo-random strings over characters that stress every
    // branch: quotes, escapes, breaks, indentation, indicators, multi-byte.
    let alphabet = [
        "\\", "\"", "'", "\n", "\r", "\r\n", " ", "\t", "|", ">", "+", "-", "1", "9", "#", "x",
        "u", "U", "0", "e", "F", "é", "日", "🦀", "a",
    ];
    let mut seed: u64 = 0x9E37_79B9_7F4A_7C15;
    for _ in 0..4000 {
        let mut raw = String::new();
        seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let len = (seed >> 59) as usize;
        for _ in 0..len {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            raw.push_str(alphabet[(seed >> 33) as usize % alphabet.len()]);
        }
        for style in [Plain, SingleQuoted, DoubleQuoted, Literal, Folded] {
            for parent_indent in [0, 3, usize::MAX] {
                dec(&raw, style, parent_indent);
            }
        }
    }
}

/// `decode_value` takes a shortcut for one-line scalars that need no
/// decoding; it must agree with the full decoder (`decode`) everywhere.
#[test]
fn the_verbatim_shortcut_agrees_with_the_decoder() {
    let raws = [
        "",
        " ",
        "a",
        "  a b  ",
        "\ta\t",
        "a\tb",
        "é ü",
        "a #b",
        "x: y",
        "'",
        "''",
        "'a'",
        "'a''b'",
        "'a'b'",
        "'a",
        "\"",
        "\"\"",
        "\"a\"",
        "\"a\\nb\"",
        "\"a\"b\"",
        "\"a",
        "a\nb",
        "a\r\nb",
        "'a\n  b'",
        "\"a \\\"q\\\" b\"",
        "${catalog}.${schema}.t",
        "{{ name }}",
        "-5",
        "1.5e3",
        "~",
        "'  padded  '",
        "\"  padded  \"",
    ];
    let styles = [
        ScalarStyle::Plain,
        ScalarStyle::SingleQuoted,
        ScalarStyle::DoubleQuoted,
    ];
    for raw in raws {
        for style in styles {
            assert_eq!(
                decode_value(raw, style, 0),
                dec(raw, style, 0).value,
                "{raw:?} as {style:?}"
            );
        }
    }
}
