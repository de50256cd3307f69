//! ## What it does
//! Reports a `regex_match` `regex` that Java's regex compiler (which Spark
//! uses) definitely rejects: an unclosed group or character class, an
//! unmatched `)`, a quantifier with nothing to repeat (`*a`, `a|+b`,
//! `(*a)`), a trailing backslash. Only definite errors: a construct Java
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
use crate::rules::dqx::checks_files;

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
                if b[i + 1] == b'Q' {
                    i = p[i + 2..].find("\\E").map_or(b.len(), |n| i + 2 + n + 2);
                } else {
                    i += 2;
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

pub fn check(ctx: &Context, out: &mut Findings) {
    let me = rule("DQ825");
    for file in checks_files(ctx) {
        for item in file.items() {
            let Some(check) = item.get("check") else {
                continue;
            };
            if check.get("function").and_then(|f| f.as_str()) != Some("regex_match") {
                continue;
            }
            let Some(regex) = check.get("arguments").and_then(|a| a.get("regex")) else {
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
}

#[cfg(test)]
mod tests {
    use super::java_regex_error;

    #[test]
    fn only_what_java_rejects() {
        // each verdict checked with java.util.regex.Pattern.compile (Java 17)
        for bad in [
            "(", ")", "a)", "[a-z", "*a", "+a", "a|*b", "(*a)", "a\\", "[[a]", "a|?b",
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
        ] {
            assert_eq!(java_regex_error(good), None, "{good}");
        }
    }
}
