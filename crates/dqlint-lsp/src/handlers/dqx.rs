//! DQX checks files in the editor (the "Editor" section of the DQX
//! contract): hover on a check function's name (its signature, parameter
//! types and defaults, rule type, minimum DBR, the DQX versions that have
//! it), on an argument (its parameter) and on `criticality`; completion of
//! function names, of the arguments a check still misses, of the item and
//! `check:` keys not yet written, of argument values DQX knows (`bool`,
//! the enumerations it checks, curated `aggr_type`s) and of `criticality`
//! values. YAML is read from the buffer's lines (block YAML, as checks
//! files are written), JSON with the tolerant scan of [`super::dqx_json`];
//! both against the catalogue the project's `[dqx]` configures (version,
//! extras, custom functions), as the DQX rules check. DQX's fixes come as
//! code actions through their findings.

use std::fmt::Write as _;
use std::ops::Range;

use dqlint_dqx::{Catalogue, Function, ParamType, RuleType, CRITICALITIES};

/// The catalogue the `dqx` rules check against.
pub fn catalogue() -> &'static Catalogue {
    Catalogue::default_version()
}

/// What `criticality` values do (DQX's `Criticality`).
pub fn criticality_doc(value: &str) -> Option<&'static str> {
    Some(match value {
        "error" => "rows failing the check are errors: they go to the invalid (quarantine) output only, with the failure in the `_errors` column (the default)",
        "warn" => "rows failing the check are kept in the valid output too, with the failure in the `_warnings` column",
        _ => return None,
    })
}

/// One `key: value` line of block YAML: indent, key, and where key and
/// value are (byte ranges in the line; the value without quotes).
#[derive(Debug, PartialEq)]
pub struct KeyLine<'a> {
    pub indent: usize,
    pub key: &'a str,
    pub key_span: Range<usize>,
    pub value: &'a str,
    pub value_span: Range<usize>,
}

pub fn key_line(line: &str) -> Option<KeyLine<'_>> {
    let mut start = line.len() - line.trim_start().len();
    if line[start..].starts_with("- ") {
        start += 2;
        start += line[start..].len() - line[start..].trim_start().len();
    }
    let rest = &line[start..];
    let len = rest.find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))?;
    if len == 0 || !rest[len..].starts_with(':') {
        return None;
    }
    let after = start + len + 1;
    let raw = &line[after..];
    let lead = raw.len() - raw.trim_start().len();
    let mut value = raw.trim();
    if let Some(hash) = value.find(" #") {
        value = value[..hash].trim_end();
    }
    let mut value_start = after + lead;
    if value.len() >= 2
        && (value.starts_with('"') && value.ends_with('"')
            || value.starts_with('\'') && value.ends_with('\''))
    {
        value = &value[1..value.len() - 1];
        value_start += 1;
    }
    Some(KeyLine {
        indent: start,
        key: &line[start..start + len],
        key_span: start..start + len,
        value,
        value_span: value_start..value_start + value.len(),
    })
}

fn indent_of(line: &str) -> Option<usize> {
    let t = line.trim_start();
    (!t.is_empty() && !t.starts_with('#')).then(|| line.len() - t.len())
}

/// The `arguments:` line above `line_no` whose mapping holds that line
/// (indent below `indent`), if any.
fn arguments_above(lines: &[&str], line_no: usize, indent: usize) -> Option<usize> {
    for i in (0..line_no).rev() {
        let Some(at) = indent_of(lines[i]) else {
            continue;
        };
        let at = key_line(lines[i]).map_or(at, |k| k.indent);
        if at < indent {
            return key_line(lines[i])
                .filter(|k| k.key == "arguments" && k.value.is_empty())
                .map(|_| i);
        }
    }
    None
}

/// The `function:` of the check block holding the key line `at`: a
/// sibling at the same indent, above or below, within the lines indented
/// at least as much.
fn function_of_block<'a>(lines: &[&'a str], at: usize) -> Option<&'a str> {
    let indent = key_line(lines[at])?.indent;
    let in_block = |i: &usize| indent_of(lines[*i]).is_none_or(|own| own >= indent);
    let up = (0..at).rev().take_while(in_block);
    let down = (at + 1..lines.len()).take_while(in_block);
    up.chain(down).find_map(|i| {
        key_line(lines[i])
            .filter(|k| k.indent == indent && k.key == "function")
            .map(|k| k.value)
    })
}

/// The argument names already written under the `arguments:` at `at`.
fn written_arguments<'a>(lines: &[&'a str], at: usize) -> Vec<&'a str> {
    let base = key_line(lines[at]).map_or(0, |k| k.indent);
    let mut inner = None;
    let mut out = Vec::new();
    for line in &lines[at + 1..] {
        let Some(own) = indent_of(line) else { continue };
        if own <= base {
            break;
        }
        let inner = *inner.get_or_insert(own);
        if let Some(k) = key_line(line).filter(|k| k.indent == inner) {
            out.push(k.key);
        }
    }
    out
}

/// Markdown for a check function: signature, parameters, rule type,
/// minimum DBR, module and the DQX versions that have it.
pub fn function_doc(cat: &Catalogue, f: &Function) -> String {
    let mut out = format!(
        "**`{}`**: DQX {} rule (`{}`)\n\n```python\n{}\n```\n\n",
        f.name,
        f.rule_type.as_str(),
        match f.rule_type {
            RuleType::Row => "DQRowRule",
            RuleType::Dataset => "DQDatasetRule",
        },
        f.signature()
    );
    if f.params.is_empty() {
        out.push_str("No parameters.\n\n");
    } else {
        out.push_str("| parameter | type | default |\n|---|---|---|\n");
        for p in &f.params {
            let default = match (&p.default, p.required) {
                (_, true) | (None, _) => "required".to_string(),
                (Some(d), false) => format!("`{d}`"),
            };
            let ty = if p.type_text.is_empty() {
                "any".to_string()
            } else {
                format!("`{}`", p.type_text.replace('|', "\\|"))
            };
            let _ = writeln!(out, "| `{}` | {ty} | {default} |", p.name);
        }
        out.push('\n');
    }
    let _ = writeln!(
        out,
        "Minimum Databricks Runtime: {}.\n",
        f.min_dbr
            .as_deref()
            .map_or("any supported".to_string(), |v| v.to_string())
    );
    if let Some(extra) = f.extra {
        let _ = writeln!(
            out,
            "Needs the `{0}` extra: `pip install databricks-labs-dqx[{0}]`.\n",
            extra.name()
        );
    }
    let mut versions: Vec<&str> = vec![cat.version];
    versions.extend(cat.other_versions_with(&f.name));
    versions.sort();
    let _ = write!(
        out,
        "In DQX {} (checked against {}; module `{}`).",
        versions.join(", "),
        cat.version,
        f.module
    );
    out
}

/// The hover of a check function named `name`.
fn function_hover(cat: &Catalogue, name: &str) -> Option<String> {
    Some(function_hover_of(cat, cat.any_function(name)?))
}

/// The hover of a check function: its documentation and policy kind.
pub(super) fn function_hover_of(cat: &Catalogue, f: &Function) -> String {
    let kind = match f.name.as_str() {
        "sql_expression" => "by its `expression`, as a pipeline rule".to_string(),
        name => format!(
            "`{}`",
            dqlint_linter::rules::policy::function_kind(name).name()
        ),
    };
    format!("{}\n\nPolicy kind: {kind}", function_doc(cat, f))
}

/// The hover of `criticality`, marking the check's own value.
pub(super) fn criticality_hover(value: &str) -> String {
    let mut out =
        String::from("`criticality`: what a row failing this check becomes (default `error`).\n\n");
    for v in CRITICALITIES {
        let mark = if *v == value { " (this check)" } else { "" };
        let _ = writeln!(out, "- `{v}`{mark}: {}", criticality_doc(v).unwrap_or(""));
    }
    out.trim_end().to_string()
}

/// The hover of an argument: its parameter.
pub(super) fn param_hover(f: &Function, name: &str) -> Option<String> {
    let p = f.param(name)?;
    let ty = if p.type_text.is_empty() {
        "any".to_string()
    } else {
        p.type_text.clone()
    };
    let default = match (&p.default, p.required) {
        (Some(d), false) => format!("optional, default `{d}`"),
        _ => "required".to_string(),
    };
    Some(format!(
        "`{}: {ty}` ({default}): a parameter of `{}`\n\n```python\n{}\n```",
        p.name,
        f.name,
        f.signature()
    ))
}

/// Hover in a checks file's line `line` at byte `at` (of the line):
/// where the hover applies (in the line) and its markdown.
pub fn hover(
    cat: &Catalogue,
    lines: &[&str],
    line_no: usize,
    at: usize,
) -> Option<(Range<usize>, String)> {
    let k = key_line(lines.get(line_no)?)?;
    let on = |r: &Range<usize>| r.start <= at && at <= r.end;
    match k.key {
        "function" if on(&k.value_span) || on(&k.key_span) => {
            Some((k.value_span.clone(), function_hover(cat, k.value)?))
        }
        "criticality" if on(&k.value_span) || on(&k.key_span) => {
            let span = if on(&k.value_span) && !k.value.is_empty() {
                k.value_span.clone()
            } else {
                k.key_span.clone()
            };
            Some((span, criticality_hover(k.value)))
        }
        _ if on(&k.key_span) => {
            // An argument of a check: its parameter.
            let args = arguments_above(lines, line_no, k.indent)?;
            let f = function_of_block(lines, args).and_then(|n| cat.any_function(n))?;
            Some((k.key_span.clone(), param_hover(f, k.key)?))
        }
        _ => None,
    }
}

/// Hover in a JSON checks file at byte `offset`: the range of the text it
/// applies to and its markdown (a function name, a criticality, an
/// argument name).
pub fn json_hover(cat: &Catalogue, text: &str, offset: usize) -> Option<(Range<usize>, String)> {
    use super::dqx_json::{Block, Writing};
    let at = super::dqx_json::at(text, offset)?;
    if !at.in_string {
        return None;
    }
    let word = text.get(at.token.clone())?;
    let doc = match (&at.block, &at.writing) {
        (Block::Check, Writing::Value { key }) if key == "function" => function_hover(cat, word)?,
        (Block::Item, Writing::Value { key }) if key == "criticality" => criticality_hover(word),
        (Block::Item, Writing::Key) if word == "criticality" => criticality_hover(""),
        (Block::Arguments, Writing::Key) => param_hover(
            at.function.as_deref().and_then(|n| cat.any_function(n))?,
            word,
        )?,
        _ => return None,
    };
    Some((at.token, doc))
}

/// A completion: label, detail, documentation, text inserted in place of
/// the word before the cursor.
pub struct Candidate {
    pub label: String,
    pub detail: Option<String>,
    pub doc: Option<String>,
    pub insert: String,
    pub kind: CandidateKind,
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum CandidateKind {
    Function,
    Argument,
    Value,
}

/// The functions a check can name with this catalogue (its extras
/// installed, its custom functions), row rules first, as completions.
pub fn function_candidates(
    cat: &Catalogue,
    partial: &str,
    insert: impl Fn(&str) -> String,
) -> Vec<Candidate> {
    let mut functions: Vec<&Function> = cat
        .functions()
        .filter(|f| cat.function(&f.name, &[]).is_some() && f.name.starts_with(partial))
        .collect();
    // Row rules first: a check is one unless it names a dataset function.
    functions.sort_by_key(|f| (f.rule_type == RuleType::Dataset, f.name.clone()));
    functions
        .into_iter()
        .map(|f| Candidate {
            label: f.name.clone(),
            detail: Some(format!(
                "{} rule: {} (DQX {})",
                f.rule_type.as_str(),
                f.signature(),
                cat.version
            )),
            doc: Some(function_doc(cat, f)),
            insert: insert(&f.name),
            kind: CandidateKind::Function,
        })
        .collect()
}

/// `error`, `warn`.
pub fn criticality_candidates(partial: &str, insert: impl Fn(&str) -> String) -> Vec<Candidate> {
    CRITICALITIES
        .iter()
        .filter(|v| v.starts_with(partial))
        .map(|v| Candidate {
            label: v.to_string(),
            detail: None,
            doc: criticality_doc(v).map(String::from),
            insert: insert(v),
            kind: CandidateKind::Value,
        })
        .collect()
}

/// The values an argument takes where DQX knows them: `true`/`false` for a
/// `bool` parameter, the enumerations DQX checks when it builds the rule
/// (`case`, `code_format`, `country`, `time_interval`) and the curated
/// `aggr_type`s. `insert` gets the value and whether it is a string.
pub fn value_candidates(
    f: &Function,
    param: &str,
    partial: &str,
    insert: impl Fn(&str, bool) -> String,
) -> Vec<Candidate> {
    let Some((values, strings)) = argument_values(f, param) else {
        return Vec::new();
    };
    values
        .iter()
        .filter(|v| v.starts_with(partial))
        .map(|v| Candidate {
            label: v.to_string(),
            detail: Some(format!("{param} of {}", f.name)),
            doc: None,
            insert: insert(v, strings),
            kind: CandidateKind::Value,
        })
        .collect()
}

/// The values DQX knows for argument `param` of `f`, and whether they
/// are strings: `true`/`false` for a `bool` parameter (YAML's spelling),
/// the enumerations DQX checks and the curated `aggr_type`s.
pub fn argument_values(f: &Function, param: &str) -> Option<(&'static [&'static str], bool)> {
    let p = f.param(param)?;
    let is_bool = match &p.ty {
        ParamType::Bool => true,
        ParamType::Union(types) => types.contains(&ParamType::Bool),
        _ => false,
    };
    if is_bool {
        return Some((&["true", "false"], false));
    }
    dqlint_linter::rules::dqx::dq818_dqx_invalid_argument_value::argument_values(&f.name, param)
        .map(|values| (values, true))
}

/// The parameters of `f` not yet written, as argument-name completions.
pub fn param_candidates(
    f: &Function,
    written: &[&str],
    partial: &str,
    insert: impl Fn(&str) -> String,
) -> Vec<Candidate> {
    f.params
        .iter()
        .filter(|p| !written.contains(&p.name.as_str()) && p.name.starts_with(partial))
        .map(|p| Candidate {
            label: p.name.clone(),
            detail: Some(format!(
                "{}{}",
                if p.type_text.is_empty() {
                    "any"
                } else {
                    &p.type_text
                },
                match (&p.default, p.required) {
                    (Some(d), false) => format!(" = {d}"),
                    _ => " (required)".to_string(),
                }
            )),
            doc: None,
            insert: insert(&p.name),
            kind: CandidateKind::Argument,
        })
        .collect()
}

/// The keys of a check item or of its `check:` block not yet written.
pub fn key_candidates(
    keys: &[&str],
    what: &str,
    written: &[&str],
    partial: &str,
    insert: impl Fn(&str) -> String,
) -> Vec<Candidate> {
    keys.iter()
        .filter(|k| !written.contains(k) && k.starts_with(partial))
        .map(|k| Candidate {
            label: k.to_string(),
            detail: Some(what.to_string()),
            doc: None,
            insert: insert(k),
            kind: CandidateKind::Argument,
        })
        .collect()
}

/// Completions in a checks file at line `line_no`, `before` being the
/// line up to the cursor; with the length of the word they replace.
pub fn completions(
    cat: &Catalogue,
    lines: &[&str],
    line_no: usize,
    before: &str,
) -> (Vec<Candidate>, usize) {
    let indent = before.len() - before.trim_start().len();
    let body = before.trim_start();
    let body = body.strip_prefix("- ").unwrap_or(body);
    if let Some((key, value)) = body.split_once(':') {
        let key = key.trim();
        let lead = if value.is_empty() { " " } else { "" };
        let partial = value.trim_start().trim_start_matches(['"', '\'']);
        let plain = |v: &str| format!("{lead}{v}");
        let out: Vec<Candidate> = match key {
            "function" => function_candidates(cat, partial, plain),
            "criticality" => criticality_candidates(partial, plain),
            name => {
                // `arg: ` -> the values the parameter takes.
                let Some(args) = arguments_above(lines, line_no, indent) else {
                    return (Vec::new(), 0);
                };
                let Some(f) = function_of_block(lines, args).and_then(|n| cat.any_function(n))
                else {
                    return (Vec::new(), 0);
                };
                value_candidates(f, name, partial, |v, _| plain(v))
            }
        };
        return (out, partial.len());
    }
    // A key being typed under `arguments:` -> the parameters not written yet.
    if !body.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
        return (Vec::new(), 0);
    }
    let Some(args) = arguments_above(lines, line_no, indent) else {
        return (block_keys(lines, line_no, before, body), body.len());
    };
    let Some(f) = function_of_block(lines, args).and_then(|n| cat.any_function(n)) else {
        return (Vec::new(), 0);
    };
    let written = written_arguments(lines, args);
    let out = param_candidates(f, &written, body, |p| format!("{p}: "));
    (out, body.len())
}

/// Completions in a JSON checks file at byte `offset`; with the length of
/// the word they replace. Inside quotes the bare name is inserted; where a
/// key or a string value goes and no quote is open, the quoted form.
pub fn json_completions(cat: &Catalogue, text: &str, offset: usize) -> (Vec<Candidate>, usize) {
    use super::dqx_json::{Block, Writing};
    let Some(at) = super::dqx_json::at(text, offset) else {
        return (Vec::new(), 0);
    };
    let quoted = |v: &str| {
        if at.in_string {
            v.to_string()
        } else {
            format!("\"{v}\"")
        }
    };
    let key = |k: &str| {
        if at.in_string {
            k.to_string()
        } else {
            format!("\"{k}\": ")
        }
    };
    let written: Vec<&str> = at.written.iter().map(String::as_str).collect();
    let partial = at.partial.as_str();
    let function = at.function.as_deref().and_then(|n| cat.any_function(n));
    let out = match (&at.block, &at.writing) {
        (Block::Item, Writing::Key) => key_candidates(
            dqlint_dqx::ITEM_KEYS,
            "check item key",
            &written,
            partial,
            key,
        ),
        (Block::Check, Writing::Key) => key_candidates(
            dqlint_dqx::CHECK_KEYS,
            "check block key",
            &written,
            partial,
            key,
        ),
        (Block::Arguments, Writing::Key) => match function {
            Some(f) => param_candidates(f, &written, partial, key),
            None => Vec::new(),
        },
        (Block::Item, Writing::Value { key }) if key == "criticality" => {
            criticality_candidates(partial, quoted)
        }
        (Block::Check, Writing::Value { key }) if key == "function" => {
            function_candidates(cat, partial, quoted)
        }
        (Block::Arguments, Writing::Value { key }) => match function {
            Some(f) => value_candidates(f, key, partial, |v, string| {
                if string {
                    quoted(v)
                } else {
                    v.to_string()
                }
            }),
            None => Vec::new(),
        },
        _ => Vec::new(),
    };
    (out, partial.len())
}

/// A key being typed in a check item (`- criticality: ...`) or in its
/// `check:` block: the keys DQX reads there that the block lacks.
fn block_keys(lines: &[&str], line_no: usize, before: &str, partial: &str) -> Vec<Candidate> {
    let starts_item = before.trim_start().starts_with("- ");
    let key_indent = before.len() - partial.len();
    let mut written: Vec<&str> = Vec::new();
    let mut parent: Option<&str> = None;
    let mut is_item = starts_item;
    if !starts_item {
        for line in lines[..line_no].iter().rev() {
            let Some(indent) = indent_of(line) else {
                continue;
            };
            let k = key_line(line);
            match k {
                Some(k) if k.indent == key_indent => {
                    written.push(k.key);
                    if line.trim_start().starts_with("- ") {
                        is_item = true;
                        break;
                    }
                }
                _ if indent >= key_indent => {}
                _ => {
                    parent = k.map(|k| k.key);
                    break;
                }
            }
        }
    }
    for line in &lines[line_no + 1..] {
        let Some(indent) = indent_of(line) else {
            continue;
        };
        // The next item (`- ` at a lower indent) or the end of the block.
        if indent < key_indent {
            break;
        }
        if let Some(k) = key_line(line).filter(|k| k.indent == key_indent) {
            if line.trim_start().starts_with("- ") {
                break;
            }
            written.push(k.key);
        }
    }
    let (keys, what): (&[&str], &str) = match (parent, is_item) {
        (Some("check"), _) => (dqlint_dqx::CHECK_KEYS, "check block key"),
        (None, true) => (dqlint_dqx::ITEM_KEYS, "check item key"),
        _ => return Vec::new(),
    };
    key_candidates(keys, what, &written, partial, |k| match k {
        "check" | "arguments" | "user_metadata" | "for_each_column" => format!("{k}:"),
        _ => format!("{k}: "),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const CHECKS: &str = "- criticality: warn\n  check:\n    function: is_not_null_and_not_empty\n    arguments:\n      column: a\n      \n- check:\n    arguments:\n      \n    function: is_in_range\n";

    fn keys_at(text: &str, line_no: usize, before: &str) -> Vec<String> {
        let lines: Vec<&str> = text.split('\n').collect();
        let body = before.trim_start();
        let body = body.strip_prefix("- ").unwrap_or(body);
        completions(catalogue(), &lines, line_no, before)
            .0
            .into_iter()
            .filter(|c| c.label.starts_with(body))
            .map(|c| c.label)
            .collect()
    }

    #[test]
    fn offers_the_keys_an_item_or_check_block_lacks() {
        let text = "- criticality: warn\n  \n  check:\n    function: is_unique\n    \n";
        // `check:` is written below the cursor.
        assert_eq!(
            keys_at(text, 1, "  "),
            ["name", "filter", "user_metadata", "message_expr"]
        );
        assert_eq!(keys_at(text, 4, "    "), ["arguments", "for_each_column"]);
        assert_eq!(keys_at(text, 4, "    for"), ["for_each_column"]);
        let fresh = "- criticality: warn\n  check:\n    function: is_unique\n- ch\n";
        assert_eq!(keys_at(fresh, 3, "- ch"), ["check"]);
    }

    #[test]
    fn reads_key_lines() {
        let k = key_line("  - check: \"x\"  # c").unwrap();
        assert_eq!((k.indent, k.key, k.value), (4, "check", "x"));
        assert_eq!(&"  - check: \"x\"  # c"[k.value_span], "x");
        assert!(key_line("    # a: b").is_none());
    }

    #[test]
    fn finds_the_function_of_an_arguments_block_above_or_below() {
        let lines: Vec<&str> = CHECKS.split('\n').collect();
        let args = arguments_above(&lines, 5, 6).unwrap();
        assert_eq!(args, 3);
        assert_eq!(
            function_of_block(&lines, args),
            Some("is_not_null_and_not_empty")
        );
        assert_eq!(written_arguments(&lines, args), ["column"]);
        let args = arguments_above(&lines, 8, 6).unwrap();
        assert_eq!(function_of_block(&lines, args), Some("is_in_range"));
    }
}
