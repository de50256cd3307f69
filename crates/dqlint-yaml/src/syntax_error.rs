//! Where a tree-sitter parse went wrong, said as a person would say it,
//! and which lines the recovery blanks: the helpers of
//! [`crate::tree`]'s error recovery, plus the depth guard both readers obey.

use std::ops::Range;

/// Nesting deeper than this is not configuration; the grammar's scanner
/// aborts on deep indentation and the tree walk would exhaust the stack.
pub(crate) const MAX_NESTING: usize = 128;
const MAX_INDENT: usize = 256;

/// Refuses documents nested too deeply to parse safely.
pub(crate) fn too_deep(source: &str) -> Option<String> {
    indented_too_deep(source).or_else(|| brackets_too_deep(source))
}

/// Refuses a document with a line indented past [`MAX_INDENT`].
pub(crate) fn indented_too_deep(source: &str) -> Option<String> {
    // Only a line longer than the limit can be indented past it.
    let indented_too_deep = |line: &str| {
        line.len() > MAX_INDENT
            && line.len() - line.trim_start_matches([' ', '-']).len() > MAX_INDENT
    };
    let mut line_start = 0;
    let long_line_too_deep = memchr::memchr_iter(b'\n', source.as_bytes())
        .chain(std::iter::once(source.len()))
        .any(|end| {
            let line = &source[line_start..end];
            line_start = end + 1;
            // As `str::lines`: `\r` goes with the `\n` after it.
            let line = match line.strip_suffix('\r') {
                Some(body) if end < source.len() => body,
                _ => line,
            };
            indented_too_deep(line)
        });
    long_line_too_deep.then(|| {
        format!(
            "this YAML document is indented more than {MAX_INDENT} columns deep; it was not linted"
        )
    })
}

/// Refuses a document whose `[`/`{` brackets nest deeper than
/// [`MAX_NESTING`].
pub(crate) fn brackets_too_deep(source: &str) -> Option<String> {
    // Each bracket opens at most one level: with few of them (every real
    // document), the nesting cannot be too deep.
    let opening = memchr::memchr2_iter(b'[', b'{', source.as_bytes()).count();
    if opening <= MAX_NESTING {
        return None;
    }
    let (deepest, _) = bracket_nesting(source, false).unwrap_or_default();
    (deepest > MAX_NESTING).then(|| {
        format!("this YAML document nests brackets {deepest} levels deep (more than {MAX_NESTING}); it was not linted")
    })
}

/// How deep `[`/`{` brackets nest in `text`, as the depth guard counts them
/// (one pass over the bytes: a JSON file has hundreds): brackets inside
/// quotes, which end at a line's end (they do not span lines in flow
/// collections often enough to matter here), and in comments do not count.
/// The deepest depth reached and the depth at the end; a closing bracket
/// without an opener is ignored, or, when `strict`, makes it `None`.
pub(crate) fn bracket_nesting(text: &str, strict: bool) -> Option<(usize, usize)> {
    let bytes = text.as_bytes();
    let (mut depth, mut deepest) = (0usize, 0usize);
    let mut quote: Option<u8> = None;
    let mut at = 0;
    while at < bytes.len() {
        let b = bytes[at];
        match (quote, b) {
            (_, b'\n') => quote = None,
            (Some(q), c) if c == q => quote = None,
            // Inside quotes only the closing quote or a line break counts:
            // on to whichever comes first (most of a JSON file is quoted).
            (Some(q), _) => match memchr::memchr2(q, b'\n', &bytes[at..]) {
                Some(next) => {
                    at += next;
                    continue;
                }
                None => break,
            },
            (None, b'"' | b'\'') => quote = Some(b),
            // A comment: on to the line break.
            (None, b'#') => match bytes[at..].iter().position(|c| *c == b'\n') {
                Some(to_break) => {
                    at += to_break;
                    continue;
                }
                None => break,
            },
            (None, b'[' | b'{') => {
                depth += 1;
                deepest = deepest.max(depth);
            }
            (None, b']' | b'}') => match depth.checked_sub(1) {
                Some(outer) => depth = outer,
                None if strict => return None,
                None => {}
            },
            _ => {}
        }
        at += 1;
    }
    Some((deepest, depth))
}

/// Finds the spot to blame in a tree with errors, and says what is wrong.
pub(crate) fn locate_error(tree: &tree_sitter::Tree, source: &str) -> Option<(usize, String)> {
    let root = tree.root_node();
    // The grammar sometimes gives up and stops the tree at the mistake: the
    // culprit is the first non-blank line after where the tree ends.
    let covered = root.end_byte();
    if root.is_error() && !source[covered..].trim().is_empty() {
        let at = covered + (source[covered..].len() - source[covered..].trim_start().len());
        return Some((at, describe_line(source, at)));
    }
    let node = first_error(root)?;
    if node.is_missing() {
        let what = node.kind();
        return Some((
            node.start_byte(),
            format!("YAML syntax error: missing `{what}`"),
        ));
    }
    // A root ERROR spanning the whole document: blame its last line with content.
    let at = if node.id() == root.id() {
        let mut cursor = node.walk();
        let last = node
            .children(&mut cursor)
            .filter(|c| c.kind() != "comment")
            .last();
        last.map(|c| c.start_byte()).unwrap_or(node.start_byte())
    } else {
        node.start_byte()
    };
    Some((at, describe_line(source, at)))
}

fn first_error(node: tree_sitter::Node) -> Option<tree_sitter::Node> {
    if node.is_missing() {
        return Some(node);
    }
    let mut cursor = node.walk();
    for child in node.children(&mut cursor) {
        if child.has_error() || child.is_missing() || child.is_error() {
            if let Some(found) = first_error(child) {
                return Some(found);
            }
        }
    }
    if node.is_error() {
        Some(node)
    } else {
        None
    }
}

/// A message for the line at `at`, naming the usual mistakes.
fn describe_line(source: &str, at: usize) -> String {
    let line = line_bounds(source, at);
    let content = source[line.clone()].trim_end_matches(['\n', '\r']);
    let trimmed = content.trim_start_matches(' ');
    if trimmed.starts_with('\t')
        || content.contains("\t") && content.trim_start().len() < trimmed.len()
    {
        return "YAML syntax error: a tab is used for indentation; YAML allows only spaces"
            .to_string();
    }
    let body = trimmed.trim_start_matches("- ").trim();
    let next = next_content_line(source, line.end);
    let indent = content.len() - trimmed.len();
    if !body.is_empty()
        && !body.starts_with('#')
        && !body.contains(':')
        && !body.starts_with(['"', '\'', '[', '{', '|', '>'])
    {
        if let Some(next) = next {
            let next_indent = next.len() - next.trim_start_matches(' ').len();
            if next_indent > indent {
                return format!(
                    "YAML syntax error: missing `:` after `{body}` (the indented lines below \
                     need a key to belong to)"
                );
            }
        }
        return format!(
            "YAML syntax error: `{body}` is neither a `key: value` pair nor a list item"
        );
    }
    if body.ends_with(": -") || body == "-" && next.is_none() {
        return "YAML syntax error: a lone `-` cannot be a value here; quote it or start a list on \
                the next line"
            .to_string();
    }
    for quote in ['"', '\''] {
        if body.matches(quote).count() % 2 == 1 {
            return format!("YAML syntax error: unterminated {quote}-quoted string");
        }
    }
    if indent % 2 == 1 {
        return format!("YAML syntax error: bad indentation ({indent} spaces) for `{body}`");
    }
    format!("YAML syntax error near `{}`", truncate(body, 40))
}

fn truncate(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        text.to_string()
    } else {
        format!("{}…", text.chars().take(max).collect::<String>())
    }
}

fn next_content_line(source: &str, from: usize) -> Option<&str> {
    source[from.min(source.len())..]
        .split('\n')
        .find(|l| !l.trim().is_empty() && !l.trim_start().starts_with('#'))
}

/// End of the lines after `line` that are indented deeper than it.
pub(crate) fn nested_block_end(source: &str, line: Range<usize>) -> usize {
    // A tab-indented broken line is nested: it must not take the less
    // indented lines after it down with it.
    let indent_of = crate::lines::indent_width;
    let own = indent_of(&source[line.clone()]);
    let mut end = line.end;
    for next in source[line.end..].split_inclusive('\n') {
        if next.trim().is_empty() || indent_of(next) > own {
            end += next.len();
        } else {
            break;
        }
    }
    end
}

/// The full line (with its `\n`) containing `at`.
pub(crate) fn line_bounds(source: &str, at: usize) -> Range<usize> {
    let at = crate::lines::floor_char_boundary(source, at.min(source.len()));
    let start = source[..at].rfind('\n').map(|i| i + 1).unwrap_or(0);
    let end = source[at..]
        .find('\n')
        .map(|i| at + i + 1)
        .unwrap_or(source.len());
    start..end
}

pub(crate) fn trim_range(source: &str, line: Range<usize>) -> Range<usize> {
    let text = &source[line.clone()];
    let start = line.start + (text.len() - text.trim_start().len());
    let end = line.start + text.trim_end().len();
    if end <= start {
        line.start..line.start
    } else {
        start..end
    }
}

#[cfg(test)]
mod depth_guard_tests {
    use super::too_deep;

    #[test]
    fn indentation_past_the_limit_is_refused() {
        let line = format!("{}x: 1\n", " ".repeat(300));
        let message = too_deep(&format!("a:\n{line}")).unwrap();
        assert!(message.contains("indented more than 256"), "{message}");
        // Long lines that are not indented are fine.
        assert_eq!(too_deep(&format!("a: {}\n", "y".repeat(1000))), None);
        assert_eq!(too_deep(&format!("{}x: 1\n", " ".repeat(256))), None);
    }

    #[test]
    fn brackets_nested_past_the_limit_are_refused() {
        let nested = |n: usize| format!("a: {}{}\n", "[".repeat(n), "]".repeat(n));
        assert_eq!(too_deep(&nested(128)), None);
        let message = too_deep(&nested(129)).unwrap();
        assert!(message.contains("129 levels"), "{message}");
        // Many brackets side by side, in quotes or in comments: not deep.
        assert_eq!(too_deep(&format!("a: {}\n", "[]".repeat(500))), None);
        assert_eq!(too_deep(&format!("a: '{}'\n", "[".repeat(500))), None);
        assert_eq!(too_deep(&format!("a: 1 # {}\n", "{".repeat(500))), None);
    }
}
