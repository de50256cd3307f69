//! ## What it does
//! Reports a word DQX forbids in SQL (`delete insert update drop truncate
//! alter create replace grant revoke merge use refresh analyze optimize
//! zorder`, a whole word in any case) in a check's `filter`,
//! `arguments.row_filter` or `sql_query`'s `query`, outside quoted
//! literals and backticked names, as DQX's `is_sql_query_safe` scans them:
//! inside a comment too (`/* replace later */`), and across one
//! (`dr/**/op`).
//!
//! ## Why is this bad?
//! DQX refuses the SQL: a `sql_query` check fails to build, and a check
//! with such a filter is skipped at run time, so every row is flagged
//! (quarantined when the criticality is `error`). A column named `update`
//! is enough; `update_flag` and a backticked `` `update` `` are fine.
//!
//! ## Example (bad)
//! `quality/orders_checks.yml`:
//! ```yaml
//! - criticality: error
//!   filter: amount > 0 /* replace later */
//!   check:
//!     function: is_not_null
//!     arguments:
//!       column: order_id
//! ```
//!
//! ## Example (good)
//! `quality/orders_checks.yml`:
//! ```yaml
//! - criticality: error
//!   filter: amount > 0
//!   check:
//!     function: is_not_null
//!     arguments:
//!       column: order_id
//! ```
//!
//! ## Fix
//! Backtick a column with a forbidden name; drop a comment that holds a
//! forbidden word (a safe fix does, where the comment is written as
//! it reads).

use std::ops::Range;

use crate::diagnostic::{Applicability, Diagnostic, Edit, Fix};
use crate::engine::{Context, Findings};
use crate::registry::rule;
use crate::rules::dqx::{yaml_only_fix, ChecksFile};

const FORBIDDEN: &[&str] = &[
    "delete", "insert", "update", "drop", "truncate", "alter", "create", "replace", "grant",
    "revoke", "merge", "use", "refresh", "analyze", "optimize", "zorder",
];

#[derive(Clone, Copy, PartialEq, Eq)]
enum Seg {
    Code,
    Comment,
    Literal,
}

/// DQX's `_SQL_COMMENT_OR_LITERAL_PATTERN`, left to right: comments,
/// quoted literals (`''` and backslash escapes) and backticked names.
fn segments(text: &str) -> Vec<(Seg, Range<usize>)> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    let mut code_start = 0;
    while i < b.len() {
        let found: Option<(Seg, usize)> = match b[i] {
            b'-' if b.get(i + 1) == Some(&b'-') => {
                let end = text[i..].find('\n').map_or(b.len(), |n| i + n);
                Some((Seg::Comment, end))
            }
            b'/' if b.get(i + 1) == Some(&b'*') => text[i + 2..]
                .find("*/")
                .map(|n| (Seg::Comment, i + 2 + n + 2)),
            q @ (b'\'' | b'"') => {
                let mut j = i + 1;
                let mut end = None;
                while j < b.len() {
                    if b[j] == b'\\' {
                        j += 2;
                        continue;
                    }
                    if b[j] == q {
                        if b.get(j + 1) == Some(&q) {
                            j += 2;
                            continue;
                        }
                        end = Some(j + 1);
                        break;
                    }
                    j += 1;
                }
                end.map(|e| (Seg::Literal, e.min(b.len())))
            }
            b'`' => {
                let mut j = i + 1;
                let mut end = None;
                while j < b.len() {
                    if b[j] == b'`' {
                        if b.get(j + 1) == Some(&b'`') {
                            j += 2;
                            continue;
                        }
                        end = Some(j + 1);
                        break;
                    }
                    j += 1;
                }
                end.map(|e| (Seg::Literal, e))
            }
            _ => None,
        };
        match found {
            Some((seg, end)) => {
                if code_start < i {
                    out.push((Seg::Code, code_start..i));
                }
                out.push((seg, i..end));
                i = end;
                code_start = end;
            }
            None => i += text[i..].chars().next().map_or(1, char::len_utf8),
        }
    }
    if code_start < b.len() {
        out.push((Seg::Code, code_start..b.len()));
    }
    out
}

fn is_word_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// Whole-word forbidden words of `scan`, whose byte `k` came from the
/// original offset `origin[k]`: (original range, word).
fn forbidden_words(scan: &str, origin: &[usize]) -> Vec<(Range<usize>, &'static str)> {
    let lower = scan.to_ascii_lowercase();
    let mut out = Vec::new();
    for word in FORBIDDEN {
        let mut from = 0;
        while let Some(at) = lower[from..].find(word).map(|n| from + n) {
            let end = at + word.len();
            from = end;
            let before = lower[..at].chars().next_back();
            let after = lower[end..].chars().next();
            if before.is_some_and(is_word_char) || after.is_some_and(is_word_char) {
                continue;
            }
            out.push((origin[at]..origin[end - 1] + 1, *word));
        }
    }
    out.sort_by_key(|(r, _)| r.start);
    out
}

/// A map keyed by the project's own SQL texts: a fast hash does.
type HashMap<K, V> = std::collections::HashMap<K, V, foldhash::fast::FixedState>;

/// A forbidden word's range, the word, and the comment holding it.
pub type UnsafeWord = (Range<usize>, &'static str, Option<Range<usize>>);

/// The forbidden words of a SQL text as DQX finds them: each with its
/// range in `text` and the comment holding it, if any.
pub fn unsafe_words(text: &str) -> Vec<UnsafeWord> {
    let segs = segments(text);
    // pass 1: literals blanked (same length), comments kept
    let mut keep = String::with_capacity(text.len());
    for (seg, r) in &segs {
        match seg {
            Seg::Literal => keep.push_str(&" ".repeat(r.len())),
            _ => keep.push_str(&text[r.clone()]),
        }
    }
    let identity: Vec<usize> = (0..=text.len()).collect();
    let mut out: Vec<UnsafeWord> = forbidden_words(&keep, &identity)
        .into_iter()
        .map(|(r, w)| {
            let comment = segs
                .iter()
                .find(|(s, c)| *s == Seg::Comment && c.start <= r.start && r.end <= c.end)
                .map(|(_, c)| c.clone());
            (r, w, comment)
        })
        .collect();
    if !segs.iter().any(|(s, _)| *s == Seg::Comment) {
        return out;
    }
    // pass 2: comments removed, for a word split by one
    let mut without = String::new();
    let mut origin = Vec::new();
    for (seg, r) in &segs {
        match seg {
            Seg::Comment => {}
            Seg::Literal => {
                without.push(' ');
                origin.push(r.start);
            }
            Seg::Code => {
                without.push_str(&text[r.clone()]);
                origin.extend(r.clone());
            }
        }
    }
    origin.push(text.len());
    for (r, w) in forbidden_words(&without, &origin) {
        if !out
            .iter()
            .any(|(o, ..)| o.start <= r.start && r.start < o.end)
        {
            out.push((r, w, None));
        }
    }
    out
}

pub fn check(ctx: &Context, file: &ChecksFile, out: &mut Findings) {
    let me = rule("DQ820");
    // Filters repeat across a file's checks: each distinct text is
    // scanned once.
    let mut words_of: HashMap<String, Vec<UnsafeWord>> = HashMap::default();
    for (_, fields) in file.checks() {
        let args = fields.arguments;
        let function = fields.function.and_then(|f| f.as_str());
        let mut sites = Vec::new();
        if let Some(f) = fields.filter {
            sites.push((f, "filter"));
        }
        if let Some(f) = args.and_then(|a| a.get("row_filter")) {
            sites.push((f, "row_filter"));
        }
        if function == Some("sql_query") {
            if let Some(q) = args.and_then(|a| a.get("query")) {
                sites.push((q, "query"));
            }
        }
        for (node, site) in sites {
            let Some(text) = node.as_str() else { continue };
            let consequence = if site == "query" {
                "DQX refuses to build this sql_query check"
            } else {
                "DQX skips the check at run time, so every row is flagged (quarantined \
                 when the criticality is `error`)"
            };
            let read = crate::rules::dqx::substitute(text, &ctx.dqx.variables);
            let words = words_of
                .entry(read.text.clone())
                .or_insert_with(|| unsafe_words(&read.text));
            for (range, word, comment) in words.iter().cloned() {
                let word = word.to_string();
                let range = read.written(range);
                let comment = comment.map(|c| read.written(c));
                let span = crate::rules::dqx::string_span(ctx, file, node, text, range);
                let place = if comment.is_some() {
                    " (in a comment)"
                } else {
                    ""
                };
                let mut d = Diagnostic::at(
                    me,
                    file.id(),
                    span,
                    format!(
                        "`{word}`{place} in the {site} is a word DQX forbids in SQL: \
                         {consequence}"
                    ),
                );
                if let Some(c) = comment {
                    let source = crate::rules::dqx::string_span(ctx, file, node, text, c.clone());
                    let written = &file.file.text[source.clone()];
                    if written == &text[c] {
                        d = d.fix(Fix {
                            description: "Drop the comment".into(),
                            applicability: Applicability::Safe,
                            edits: vec![Edit {
                                file: file.id(),
                                span: source,
                                new_text: String::new(),
                            }],
                        });
                    }
                }
                out.push(yaml_only_fix(file, d));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::unsafe_words;

    fn words(text: &str) -> Vec<(&str, bool)> {
        unsafe_words(text)
            .into_iter()
            .map(|(r, _, c)| (&text[r], c.is_some()))
            .collect()
    }

    #[test]
    fn scans_as_dqx_does() {
        assert_eq!(words("update = 1"), vec![("update", false)]);
        assert_eq!(words("UPDATE_flag = 1 AND `update` = 2"), vec![]);
        assert_eq!(words("status = 'drop' OR s = \"can\\'t drop\""), vec![]);
        assert_eq!(words("a > 0 /* replace later */"), vec![("replace", true)]);
        assert_eq!(words("a > 0 -- drop me\n AND b"), vec![("drop", true)]);
        assert_eq!(words("dr/**/op = 1"), vec![("dr/**/op", false)]);
        assert_eq!(words("used > 0 AND reuse = 1"), vec![]);
    }
}
