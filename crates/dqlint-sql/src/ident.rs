//! Databricks multi-part identifiers (`catalog.schema.table`), for quarantine table names and
//! for matching table names between YAML and DDL.

/// Why a table name is not a usable `catalog.schema.table`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NameProblem {
    /// Nothing but whitespace.
    Empty,
    /// Part `index` (0-based) is empty: `a..b`, `.a.b`, `` a.``.b ``.
    EmptyPart { index: usize },
    /// Not three parts.
    WrongPartCount { parts: usize },
    /// Contains a `${secret:...}` reference.
    Secret,
    /// A backtick-quoted part is not closed.
    UnterminatedBacktick,
}

impl std::fmt::Display for NameProblem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            NameProblem::Empty => write!(f, "the table name is empty"),
            NameProblem::EmptyPart { index } => {
                let which = ["catalog", "schema", "table"].get(*index).map_or_else(
                    || format!("part {}", index + 1),
                    |s| format!("the {s} part"),
                );
                write!(f, "{which} of the table name is empty")
            }
            NameProblem::WrongPartCount { parts } => write!(
                f,
                "the table name has {parts} part{}; expected catalog.schema.table",
                if *parts == 1 { "" } else { "s" }
            ),
            NameProblem::Secret => write!(f, "the table name contains a secret reference"),
            NameProblem::UnterminatedBacktick => {
                write!(f, "a backtick-quoted part of the table name is not closed")
            }
        }
    }
}

/// Splits a dotted name into its parts, unquoting backticked parts
/// (`` `a.b` `` is one part, ` `` ` is an escaped backtick). Unquoted parts are
/// trimmed. Does not check the part count.
fn split_parts(text: &str) -> Result<Vec<String>, NameProblem> {
    let t = text.trim();
    if t.is_empty() {
        return Err(NameProblem::Empty);
    }
    if t.to_ascii_lowercase().contains("${secret:") {
        return Err(NameProblem::Secret);
    }
    let chars: Vec<char> = t.chars().collect();
    let mut parts = Vec::new();
    let mut cur = String::new();
    let mut quoted_part = false;
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        match c {
            '`' => {
                // quoted section
                let mut j = i + 1;
                let mut closed = false;
                while j < chars.len() {
                    if chars[j] == '`' {
                        if j + 1 < chars.len() && chars[j + 1] == '`' {
                            cur.push('`');
                            j += 2;
                            continue;
                        }
                        closed = true;
                        break;
                    }
                    cur.push(chars[j]);
                    j += 1;
                }
                if !closed {
                    return Err(NameProblem::UnterminatedBacktick);
                }
                quoted_part = true;
                i = j + 1;
            }
            '.' => {
                parts.push(finish_part(&cur, quoted_part));
                cur.clear();
                quoted_part = false;
                i += 1;
            }
            _ => {
                // whitespace before a part or next to a quoted section is not
                // part of the name
                let skip = c.is_whitespace() && (quoted_part || cur.is_empty());
                if !skip {
                    cur.push(c);
                }
                i += 1;
            }
        }
    }
    parts.push(finish_part(&cur, quoted_part));
    if let Some(index) = parts.iter().position(|p| p.is_empty()) {
        return Err(NameProblem::EmptyPart { index });
    }
    Ok(parts)
}

fn finish_part(cur: &str, quoted: bool) -> String {
    if quoted {
        cur.to_string()
    } else {
        cur.trim_end().to_string()
    }
}

/// Parses a Databricks three-part name (`cat.schema.table`, backticks allowed,
/// with dots inside and ` `` ` escapes). Returns the unquoted parts.
pub fn parse_table_name(text: &str) -> Result<Vec<String>, NameProblem> {
    let parts = split_parts(text)?;
    if parts.len() != 3 {
        return Err(NameProblem::WrongPartCount { parts: parts.len() });
    }
    Ok(parts)
}

/// Lower-cased, backticks removed, parts joined with `.`. Accepts any number
/// of parts (so two-part names in DDL still match); `None` when the name is
/// empty, has an empty part, an unclosed backtick or a secret. LHP tokens
/// (`${x}`, `{x}`, `%{x}`) keep their case.
pub fn normalize_table_name(text: &str) -> Option<String> {
    let parts = split_parts(text).ok()?;
    Some(
        parts
            .iter()
            .map(|p| lowercase_outside_tokens(p))
            .collect::<Vec<_>>()
            .join("."),
    )
}

fn lowercase_outside_tokens(s: &str) -> String {
    let tokens = crate::text::template_holes(s);
    let mut out = String::with_capacity(s.len());
    let mut pos = 0;
    for t in tokens {
        out.push_str(&s[pos..t.start].to_lowercase());
        out.push_str(&s[t.clone()]);
        pos = t.end;
    }
    out.push_str(&s[pos..].to_lowercase());
    out
}
