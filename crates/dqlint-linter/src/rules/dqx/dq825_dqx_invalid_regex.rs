//! ## What it does
//! Reports a `regex_match` `regex` that Java's regex compiler (which Spark
//! uses) definitely rejects: an unclosed group or character class, an
//! unmatched `)`, a quantifier with nothing to repeat (`*a`, `a|+b`,
//! `(*a)`), a trailing backslash, an escape Java gives no meaning (`\q`,
//! `\i`) or whose continuation is missing (`\x4`, `\u12`, `\k` without
//! `<`), a `{` that is not a counted repetition (`a{x}`, `a{,3}`, an
//! unclosed `\d{3`, `a{2,1}`). Only definite errors: a construct Java
//! accepts (`[]a]`, `(?i)`, `\Q(\E`, possessive `a++`) is never reported.
//! Each message is Java's own (checked with `java.util.regex.Pattern` on
//! Java 17).
//!
//! ## Why is this bad?
//! Spark compiles the pattern when the check runs: the whole run crashes.
//!
//! ## Example (bad)
//! `quality/orders_checks.yml`:
//! ```yaml
//! - criticality: error
//!   check:
//!     function: regex_match
//!     arguments:
//!       column: sku
//!       regex: '^[A-Z]{3}-([0-9]+$'
//! ```
//!
//! ## Example (good)
//! `quality/orders_checks.yml`:
//! ```yaml
//! - criticality: error
//!   check:
//!     function: regex_match
//!     arguments:
//!       column: sku
//!       regex: '^[A-Z]{3}-([0-9]+)$'
//! ```
//!
//! ## Fix
//! Correct the pattern.

use std::ops::Range;

use crate::diagnostic::Diagnostic;
use crate::engine::{Context, Findings};
use crate::registry::rule;
use crate::rules::dqx::ChecksFile;

/// The first definite Java regex error: its range in `p` and Java's words.
pub fn java_regex_error(p: &str) -> Option<(Range<usize>, String)> {
    let b = p.as_bytes();
    let mut open: Vec<usize> = Vec::new();
    // whether a quantifier here would have nothing to repeat
    let mut at_start = true;
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        match c {
            b'\\' => {
                if i + 1 >= b.len() {
                    return Some((
                        i..i + 1,
                        "Unexpected internal error (a trailing backslash)".into(),
                    ));
                }
                let e = b[i + 1];
                if e == b'Q' {
                    i = p[i + 2..].find("\\E").map_or(b.len(), |n| i + 2 + n + 2);
                    at_start = false;
                    continue;
                }
                if let Some(why) = bad_escape(b, i) {
                    return Some((i..(i + 2).min(b.len()), why.into()));
                }
                i += 2;
                // `\p{Lu}`, `\x{1F600}`, `\N{name}`, `\b{g}`: the braces belong to it
                if matches!(e, b'p' | b'P' | b'x' | b'N' | b'b') && b.get(i) == Some(&b'{') {
                    i = p[i..].find('}').map_or(b.len(), |n| i + n + 1);
                }
                at_start = false;
                continue;
            }
            b'[' => {
                let start = i;
                let mut j = i + 1;
                if b.get(j) == Some(&b'^') {
                    j += 1;
                }
                if b.get(j) == Some(&b']') {
                    j += 1;
                }
                let mut depth = 1;
                while j < b.len() {
                    match b[j] {
                        b'\\' => j += 1,
                        b'[' => depth += 1,
                        b']' => {
                            depth -= 1;
                            if depth == 0 {
                                break;
                            }
                        }
                        _ => {}
                    }
                    j += 1;
                }
                if j >= b.len() {
                    return Some((start..b.len(), "Unclosed character class".into()));
                }
                i = j + 1;
                at_start = false;
                continue;
            }
            b'(' => {
                open.push(i);
                i += 1;
                if b.get(i) == Some(&b'?') {
                    // a group construct: (?:, (?i), (?<name>, look-arounds
                    i += 1;
                    at_start = false;
                } else {
                    at_start = true;
                }
                continue;
            }
            b')' => {
                if open.pop().is_none() {
                    return Some((i..i + 1, "Unmatched closing ')'".into()));
                }
                at_start = false;
            }
            b'{' => {
                if let Some(error) = repetition_error(b, i) {
                    return Some(error);
                }
                // a valid `{n,m}`: skip it whole
                i = p[i..].find('}').map_or(b.len(), |n| i + n + 1);
                continue;
            }
            b'|' => at_start = true,
            b'*' | b'+' | b'?' if at_start => {
                return Some((i..i + 1, format!("Dangling meta character '{}'", c as char)));
            }
            _ => at_start = false,
        }
        i += p[i..].chars().next().map_or(1, char::len_utf8);
    }
    open.last()
        .map(|&o| (o..o + 1, "Unclosed group".to_string()))
}

/// An escape Java refuses: a letter it gives no meaning, or one whose
/// required continuation is missing (`\\k` without `<`, `\\x` without hex
/// digits, `\\u` without four, `\\0` without an octal digit, `\\c` at the
/// end).
fn bad_escape(b: &[u8], i: usize) -> Option<&'static str> {
    let e = *b.get(i + 1)?;
    let next = b.get(i + 2).copied();
    let hex = |k: usize| b.get(k).is_some_and(u8::is_ascii_hexdigit);
    match e {
        b'C' | b'E' | b'F' | b'g' | b'i' | b'I' | b'j' | b'J' | b'K' | b'l' | b'L' | b'm'
        | b'M' | b'o' | b'O' | b'q' | b'T' | b'U' | b'y' | b'Y' => {
            Some("Illegal/unsupported escape sequence")
        }
        b'k' if next != Some(b'<') => Some("\\k is not followed by '<' for named capturing group"),
        b'x' if next != Some(b'{') && !(hex(i + 2) && hex(i + 3)) => {
            Some("Illegal hexadecimal escape sequence")
        }
        b'u' if !(hex(i + 2) && hex(i + 3) && hex(i + 4) && hex(i + 5)) => {
            Some("Illegal Unicode escape sequence")
        }
        b'0' if !next.is_some_and(|c| (b'0'..=b'7').contains(&c)) => {
            Some("Illegal octal escape sequence")
        }
        b'c' if next.is_none() => Some("Illegal control escape sequence"),
        _ => None,
    }
}

/// A `{` outside a character class that is no `{n}`, `{n,}` or `{n,m}`
/// with n <= m: Java's "Illegal repetition" (it never reads `{` as a
/// literal there).
fn repetition_error(b: &[u8], i: usize) -> Option<(Range<usize>, String)> {
    let digits = |mut k: usize| {
        let start = k;
        while b.get(k).is_some_and(u8::is_ascii_digit) {
            k += 1;
        }
        (
            k,
            (k > start)
                .then(|| std::str::from_utf8(&b[start..k]).ok()?.parse::<u64>().ok())
                .flatten(),
        )
    };
    let (mut k, min) = digits(i + 1);
    let Some(min) = min else {
        return Some((i..i + 1, "Illegal repetition".into()));
    };
    let mut max = Some(min);
    if b.get(k) == Some(&b',') {
        let (after, m) = digits(k + 1);
        k = after;
        max = m;
    }
    if b.get(k) != Some(&b'}') {
        return Some((i..k.min(b.len()), "Unclosed counted closure".into()));
    }
    if max.is_some_and(|m| m < min) {
        return Some((i..k + 1, "Illegal repetition range".into()));
    }
    None
}

pub fn check(ctx: &Context, file: &ChecksFile, out: &mut Findings) {
    let me = rule("DQ825");
    for (_, fields) in file.checks() {
        if fields.function.and_then(|f| f.as_str()) != Some("regex_match") {
            continue;
        }
        let Some(regex) = fields.arguments.and_then(|a| a.get("regex")) else {
            continue;
        };
        let Some(text) = regex.as_str() else { continue };
        let Some((range, why)) = java_regex_error(text) else {
            continue;
        };
        let span = crate::rules::dqx::string_span(ctx, file, regex, text, range);
        out.push(Diagnostic::at(
            me,
            file.id(),
            span,
            format!(
                "the regex does not compile in Java (\"{why}\"): Spark fails on it and the \
                 DQX run crashes"
            ),
        ));
    }
}

#[cfg(test)]
mod tests {
    use super::java_regex_error;

    #[test]
    fn only_what_java_rejects() {
        // each verdict checked with java.util.regex.Pattern.compile (Java 17)
        for bad in [
            "(", ")", "a)", "[a-z", "*a", "+a", "a|*b", "(*a)", "a\\", "[[a]", "a|?b", "\\q",
            "\\C", "\\E", "\\k", "\\x", "\\xGG", "\\x4", "\\u12", "\\0", "\\c", "{", "a{", "a{x}",
            "a{2,1}", "a{,3}", "\\d{3", "a{ 3}",
        ] {
            assert!(java_regex_error(bad).is_some(), "{bad}");
        }
        for good in [
            "(?i)a",
            "[]a]",
            "[^]a]",
            "\\Q(\\E",
            "[(]",
            "\\(",
            "(?<n>a)",
            "a++",
            "[a-z]+@[a-z]+\\.com",
            "^\\d{3}-\\d{4}$",
            "^[A-Z]{3}-([0-9]+)$",
            "a*?",
            "",
            "\\a",
            "\\e",
            "\\G",
            "\\h",
            "\\R",
            "\\X",
            "\\cA",
            "\\01",
            "\\1",
            "\\-",
            "\\_",
            "a{3}",
            "x{2,}",
            "{3}",
            "[{]",
            "\\{",
            "a{3}{2}",
            "(a){2}",
            "^{2}",
            "a|{2}",
            "\\pL",
            "\\p{Lu}",
            "\\x41",
            "\\x{1F600}",
            "\\u0041",
            "(?<n>a)\\k<n>",
            "\\b{g}",
            "\\N{LATIN SMALL LETTER A}",
            "\\p{Lu}{2}",
        ] {
            assert_eq!(java_regex_error(good), None, "{good}");
        }
    }
}
