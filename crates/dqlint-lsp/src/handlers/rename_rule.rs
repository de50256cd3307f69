//! A rule's name in an expectations file, for `rename`: the `name` (or, in
//! the list format, `message`) value LHP puts in the expectation decorator
//! and, in quarantine mode, in the DLQ's `_dlq_failed_rules`. Nothing else
//! in a project refers to it (dqlint's suppressions name dqlint's rules,
//! not these), so the file is the only place edited. A rule without a
//! `name` is named by its expression: that is no name to rename.
//!
//! The new name is written in the scalar's own quoting (JSON keeps its
//! double quotes); a plain YAML scalar that the new name cannot stay plain
//! in is written double-quoted.

use std::ops::Range;

use dqlint_project::{ExpectationSet, FileKind, Project, SourceFile};
use dqlint_yaml::document::plain_kind;
use dqlint_yaml::scalar::decode;
use dqlint_yaml::{Node, NodeKind, ScalarKind, ScalarStyle};

/// How a scalar's content is written, so that a new name is written alike.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Quoting {
    /// Written as is: an identifier (a view, a token) needs no quoting.
    Verbatim,
    /// A plain YAML scalar (the span is the whole scalar).
    Plain,
    /// `"..."` (YAML or JSON; the span is inside the quotes).
    Double,
    /// `'...'` (the span is inside the quotes).
    Single,
}

impl Quoting {
    /// `name` as the content of a scalar written this way.
    pub fn spell(self, name: &str) -> String {
        match self {
            Quoting::Verbatim => name.to_string(),
            Quoting::Plain if stays_plain(name) => name.to_string(),
            Quoting::Plain => format!("\"{}\"", escape_double(name)),
            Quoting::Double => escape_double(name),
            Quoting::Single => name.replace('\'', "''"),
        }
    }
}

/// The rule name at `offset` of an expectations file: the set, the rule's
/// index, the name and the places it is written (with their quoting);
/// `None` when the cursor is on no rule's name or expression.
pub struct RuleName {
    pub index: usize,
    pub name: String,
    pub here: Range<usize>,
    pub places: Vec<(Range<usize>, Quoting)>,
}

pub fn find(
    project: &Project,
    file: &SourceFile,
    offset: usize,
) -> Option<Result<RuleName, String>> {
    if file.kind != FileKind::Expectations {
        return None;
    }
    let set = set_of(project, file)?;
    let within = |span: &Range<usize>| span.start <= offset && offset <= span.end;
    for rule in &set.rules {
        let names: Vec<_> = [&rule.name, &rule.dqe_name].into_iter().flatten().collect();
        let Some(named) = names.iter().find(|n| within(&n.span)) else {
            if let Some(expression) = rule.expression.as_ref().filter(|e| within(&e.span)) {
                if names.is_empty() {
                    return Some(Err(format!(
                        "dqlint: this rule has no `name`, so LHP names it by its expression; add `name:` to give it one (`{}`)",
                        expression.text
                    )));
                }
                return Some(Err(
                    "dqlint: this is the rule's expression; rename its `name` value".to_string(),
                ));
            }
            continue;
        };
        // `name` and `message` both written with the same text are one name.
        let mut places = Vec::new();
        let mut seen = Vec::new();
        for n in names.iter().filter(|n| n.text == named.text) {
            if seen.contains(&n.span) {
                continue;
            }
            seen.push(n.span.clone());
            match written(file, &n.span) {
                Ok(place) => places.push(place),
                Err(reason) => return Some(Err(reason)),
            }
        }
        let here = places
            .iter()
            .find(|(span, _)| span.start <= offset && offset <= span.end)
            .or(places.first())
            .map(|(span, _)| span.clone())
            .unwrap_or_else(|| named.span.clone());
        return Some(Ok(RuleName {
            index: rule.index,
            name: named.text.clone(),
            here,
            places,
        }));
    }
    None
}

/// Why `new` cannot name rule `index` of the file, if it cannot.
pub fn refusal(project: &Project, file: &SourceFile, index: usize, new: &str) -> Option<String> {
    if new.trim().is_empty() || new.chars().any(char::is_control) {
        return Some(format!(
            "dqlint: `{}` is no rule name (one line of text, not blank)",
            new.escape_debug()
        ));
    }
    let set = set_of(project, file)?;
    set.rules
        .iter()
        .filter(|rule| rule.index != index)
        .find(|rule| {
            [&rule.name, &rule.dqe_name]
                .into_iter()
                .flatten()
                .any(|n| n.text == new)
                || rule.effective_name(true).as_deref() == Some(new)
                || rule.effective_name(false).as_deref() == Some(new)
        })
        .map(|rule| {
            format!(
                "dqlint: a rule named `{new}` exists already in this file (line {}); LHP would keep only one of them",
                file.lines.line_of(rule.span.start) + 1
            )
        })
}

fn set_of<'a>(project: &'a Project, file: &SourceFile) -> Option<&'a ExpectationSet> {
    project.expectations.values().find(|s| s.file == file.id)
}

/// The content span of the name scalar at `span`, and how it is quoted.
fn written(file: &SourceFile, span: &Range<usize>) -> Result<(Range<usize>, Quoting), String> {
    let node = file
        .yaml
        .as_ref()
        .and_then(|y| {
            y.documents
                .iter()
                .find_map(|d| scalar_at(d.root.as_ref()?, span))
        })
        .ok_or("dqlint: this rule name is not where the file says it is; save and retry")?;
    let NodeKind::Scalar(scalar) = &node.kind else {
        return Err("dqlint: this rule name is not a scalar".into());
    };
    let raw = file.text.get(span.clone()).unwrap_or("");
    if raw.contains('\n') {
        return Err(
            "dqlint: this rule name is written over several lines; put it on one line first".into(),
        );
    }
    let (content, quoting) =
        match scalar.style {
            ScalarStyle::Plain => (span.clone(), Quoting::Plain),
            ScalarStyle::DoubleQuoted if raw.len() >= 2 && raw.ends_with('"') => {
                (span.start + 1..span.end - 1, Quoting::Double)
            }
            ScalarStyle::SingleQuoted if raw.len() >= 2 && raw.ends_with('\'') => {
                (span.start + 1..span.end - 1, Quoting::Single)
            }
            _ => return Err(
                "dqlint: this rule name is written as a block scalar; write it on one line first"
                    .into(),
            ),
        };
    // The content must read back as the name, or the edit would not be exact.
    let decoded = decode(raw, scalar.style, scalar.parent_indent as usize);
    if decoded.value != scalar.value {
        return Err("dqlint: this rule name's quoting cannot be read back exactly".into());
    }
    Ok((content, quoting))
}

fn scalar_at<'a>(node: &'a Node, span: &Range<usize>) -> Option<&'a Node> {
    if node.span.end < span.start || node.span.start > span.end {
        return None;
    }
    match &node.kind {
        NodeKind::Scalar(_) if node.span == *span => Some(node),
        NodeKind::Mapping(pairs) => pairs
            .iter()
            .find_map(|p| scalar_at(&p.key, span).or_else(|| scalar_at(&p.value, span))),
        NodeKind::Sequence(items) => items.iter().find_map(|n| scalar_at(n, span)),
        _ => None,
    }
}

/// Whether `name` reads back as the same string written plain, in block
/// and in flow context alike.
fn stays_plain(name: &str) -> bool {
    let Some(first) = name.chars().next() else {
        return false;
    };
    name.trim() == name
        && !"-?:,[]{}#&*!|>'\"%@`".contains(first)
        && !name.contains(": ")
        && !name.contains(" #")
        && !name.ends_with(':')
        && !name.contains([',', '[', ']', '{', '}'])
        && !name.chars().any(char::is_control)
        && plain_kind(name) == ScalarKind::Str
}

/// `name` inside double quotes, valid YAML and JSON alike.
fn escape_double(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    for c in name.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if c.is_control() => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_keep_their_quoting() {
        assert_eq!(Quoting::Plain.spell("valid_id"), "valid_id");
        assert_eq!(Quoting::Plain.spell("ids are set"), "ids are set");
        for needs_quotes in [
            "a: b", "yes", "12", "- x", "a #b", "[x]", "x,y", " x", "null",
        ] {
            assert!(
                Quoting::Plain.spell(needs_quotes).starts_with('"'),
                "{needs_quotes}"
            );
        }
        assert_eq!(Quoting::Plain.spell("say \"hi\""), "say \"hi\"");
        assert_eq!(Quoting::Plain.spell("\"hi\""), "\"\\\"hi\\\"\"");
        assert_eq!(Quoting::Double.spell("a\"b\\c"), "a\\\"b\\\\c");
        assert_eq!(Quoting::Single.spell("it's"), "it''s");
    }
}
