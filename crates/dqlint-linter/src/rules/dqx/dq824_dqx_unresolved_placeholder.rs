//! ## What it does
//! Reports a `{{ name }}` placeholder in a string of a check that no
//! `[dqx] variables` entry in `dqlint.toml` gives a value, except the input
//! placeholder of `sql_query` (`{{ input_view }}`, or the one its
//! `input_placeholder` argument names), which DQX fills in itself.
//!
//! ## Why is this bad?
//! DQX substitutes the variables it is given (`variables=` of
//! `apply_checks_by_metadata`, `ExtraParams.variables`) and only logs a
//! warning for a placeholder left over. The text then reaches Spark as
//! written: a filter, a column or an SQL expression that holds `{{ ... }}`
//! does not parse, so DQX **skips the check at run time** and reports it
//! on every row (with `criticality: error`, every row is quarantined); a
//! limit that holds one is read as an SQL
//! expression that does not parse, and **the whole run fails**. In a
//! `name` or `user_metadata` it stays in the results as written.
//!
//! Checked against DQX 0.17.0 (`dqx_oracle.py --apply`): the contract
//! says "crash" for every placeholder; DQX crashes only for a limit
//! (`ParseException`) and skips the check for a filter, a column and an
//! `sql_expression` ("Check evaluation skipped due to invalid check
//! filter"). The messages say what DQX does.
//!
//! ## Example (bad)
//! `quality/orders_checks.yml`:
//! ```yaml
//! - criticality: error
//!   filter: "price > {{ min_price }}"
//!   check:
//!     function: is_not_null
//!     arguments:
//!       column: order_id
//! ```
//!
//! ## Example (good)
//! `dqlint.toml`:
//! ```toml
//! [dqx]
//! variables = { min_price = "0" }
//! ```
//!
//! ## Fix
//! Add the variable to `[dqx] variables` (and pass it to DQX), or write
//! the value in the check.

use dqlint_dqx::{Kind, Typed};

use crate::diagnostic::Diagnostic;
use crate::engine::{Context, Findings};
use crate::registry::rule;
use crate::rules::dqx::ChecksFile;

/// What DQX does with a string that keeps a placeholder, by where it is.
fn consequence(path: &[&str]) -> &'static str {
    match path {
        ["filter"] | ["check", "arguments", "row_filter" | "ref_row_filter"] => {
            "the filter does not parse, so DQX skips the check at run time and reports it on every row (all rows quarantined for `error`)"
        }
        ["check", "arguments", "min_limit" | "max_limit" | "limit" | "value", ..] => {
            "DQX reads the limit as an SQL expression that does not parse: the whole run fails"
        }
        ["check", "arguments", "column" | "columns" | "expression", ..]
        | ["check", "for_each_column", ..] => {
            "the column or expression does not parse, so DQX skips the check at run time and reports it on every row (all rows quarantined for `error`)"
        }
        ["check", "arguments", "query", ..] => {
            "the query does not parse: the whole run fails"
        }
        ["name"] | ["user_metadata", ..] => "DQX keeps it in the results as written",
        _ => "DQX passes it on as written",
    }
}

/// Whether the SQL text before a position leaves a `'...'` literal open.
fn in_sql_literal(before: &str) -> bool {
    let mut open = false;
    let mut escaped = false;
    for c in before.chars() {
        match c {
            '\\' if open => escaped = !escaped,
            '\'' if !escaped => open = !open,
            _ => escaped = false,
        }
    }
    open
}

/// Whether the string at `path` is SQL DQX parses (a filter, an
/// expression, a query, a limit, a message expression).
fn is_sql(path: &[&str]) -> bool {
    matches!(
        path,
        ["filter"]
            | ["message_expr"]
            | [
                "check",
                "arguments",
                "row_filter" | "ref_row_filter" | "expression" | "query"
            ]
            | [
                "check",
                "arguments",
                "min_limit" | "max_limit" | "limit" | "value",
                ..
            ]
    )
}

/// The placeholders `{{ ... }}` of a string (DQX's `\{\{[^}]*\}\}`), each
/// with its name and its byte range in `raw`.
pub fn placeholders(raw: &str) -> Vec<(String, std::ops::Range<usize>)> {
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(start) = raw[from..].find("{{").map(|i| from + i) {
        let body = &raw[start + 2..];
        let Some(close) = body.find('}') else { break };
        if !body[close..].starts_with("}}") {
            from = start + 2 + close + 1;
            continue;
        }
        let end = start + 2 + close + 2;
        let name = raw[start..end].trim_matches(|c| matches!(c, '{' | '}' | ' ' | '\t'));
        out.push((name.to_string(), start..end));
        from = end;
    }
    out
}

pub fn check(ctx: &Context, file: &ChecksFile, out: &mut Findings) {
    let me = rule("DQ824");
    let known = |name: &str| ctx.dqx.variables.contains_key(name);
    if !may_hold_placeholders(file) {
        return;
    }
    for (item, fields) in file.checks() {
        let function = fields.function.and_then(Typed::as_str);
        let input = (function == Some("sql_query")).then(|| {
            fields
                .arguments
                .and_then(|a| a.get("input_placeholder"))
                .and_then(Typed::as_str)
                .unwrap_or("input_view")
                .to_string()
        });
        let mut strings = Vec::new();
        collect(item, &mut Vec::new(), &mut strings);
        for (path, value) in strings {
            if path.first() == Some(&"criticality") {
                continue; // DQ806's.
            }
            let Kind::Str(text) = &value.kind else {
                continue;
            };
            let raw = &file.file.text[value.span.clone()];
            for (name, range) in placeholders(text) {
                if known(&name) {
                    continue;
                }
                let is_query = path.as_slice() == ["check", "arguments", "query"];
                if is_query && input.as_deref() == Some(name.as_str()) {
                    continue;
                }
                // The placeholder's own characters when the source
                // holds them as decoded (no escapes in between).
                let in_literal = in_sql_literal(&text[..range.start]);
                let placeholder = &text[range];
                let span = match raw.find(placeholder) {
                    Some(at) => value.span.start + at..value.span.start + at + placeholder.len(),
                    None => value.span.clone(),
                };
                let hint = if name.is_empty() {
                    "an empty placeholder".to_string()
                } else {
                    format!("no `[dqx] variables` entry gives `{name}` a value")
                };
                out.push(Diagnostic::at(
                    me,
                    file.id(),
                    span,
                    format!(
                        "unresolved placeholder `{placeholder}`: {hint}; {}",
                        if in_literal && is_sql(&path) {
                            "it stays as written inside the SQL string literal, so the check compares with that text"
                        } else {
                            consequence(&path)
                        }
                    ),
                ));
            }
        }
    }
}

/// Every scalar under `node`, with the path of mapping keys to it (list
/// items add no key).
/// Whether a string of the file can hold `{{`: a checks file's strings are
/// its text decoded, and only an escape (a backslash) writes a brace
/// otherwise than as itself (line folding puts a space between two lines).
/// A Python source's strings can be concatenated: always looked at.
fn may_hold_placeholders(file: &crate::rules::dqx::ChecksFile) -> bool {
    let text = &file.file.text;
    file.is_python() || text.contains("{{") || text.contains('\\')
}

fn collect<'a>(node: &'a Typed, path: &mut Vec<&'a str>, out: &mut Vec<(Vec<&'a str>, &'a Typed)>) {
    match &node.kind {
        Kind::Map(entries) => {
            for entry in entries {
                let key = entry.key.as_str().unwrap_or("");
                path.push(key);
                collect(&entry.value, path, out);
                path.pop();
            }
        }
        Kind::List(items) => {
            for item in items {
                collect(item, path, out);
            }
        }
        // Only a string with `{{` can hold a placeholder: the others (almost
        // all) are passed over without copying their path.
        Kind::Str(text) if text.contains('{') && text.contains("{{") => {
            out.push((path.clone(), node))
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::placeholders;

    #[test]
    fn finds_placeholders_as_dqx_does() {
        let found: Vec<String> = placeholders("a {{ x }} b {{y}} {{ }} {x} {{ z } }}")
            .into_iter()
            .map(|(n, _)| n)
            .collect();
        assert_eq!(found, ["x", "y", ""]);
    }
}
