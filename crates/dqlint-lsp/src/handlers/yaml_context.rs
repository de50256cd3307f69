//! Where a place of a YAML buffer is, read from the text as typed (it need
//! not parse): the mappings from the document's top down to the one holding
//! the place, each with the key holding it and its plain `key: value`
//! entries; what the vocabulary resolves to a block (completion, hover).

use dqlint_project::vocabulary::Frame;

/// A line's key column (after a list item's `- `) and whether it opens a
/// list item.
pub fn column(line: &str) -> (usize, bool) {
    let spaces = line.len() - line.trim_start_matches(' ').len();
    let rest = &line[spaces..];
    if rest == "-" || rest.starts_with("- ") {
        let after = &rest[1..];
        (
            spaces + 1 + (after.len() - after.trim_start_matches(' ').len()),
            true,
        )
    } else {
        (spaces, false)
    }
}

/// The `key` and plain value of a `key: value` line (quotes and a trailing
/// comment dropped; empty for a block or no value).
pub fn entry(line: &str) -> Option<(&str, &str)> {
    let (col, _) = column(line);
    let body = line.get(col..)?.trim_end();
    if body.starts_with('#') {
        return None;
    }
    let (key, value) = match body.split_once(": ") {
        Some((k, v)) if !k.contains(": ") => (k, v),
        _ => (body.strip_suffix(':')?, ""),
    };
    let key = key.trim().trim_matches(|c| c == '"' || c == '\'');
    if key.is_empty() || key.contains(['{', '[', '#']) {
        return None;
    }
    let value = value.split(" #").next().unwrap_or("").trim();
    Some((key, value.trim_matches(|c| c == '"' || c == '\'')))
}

fn skip(line: &str) -> bool {
    let t = line.trim();
    t.is_empty() || t.starts_with('#')
}

fn boundary(line: &str) -> bool {
    line.starts_with("---") || line.starts_with("...")
}

/// The mapping whose keys sit at column `indent` around line `at`: its
/// entries, whether it is a list item, and the line holding it (the
/// `key:` above it), if any. `at` itself counts when `include` (hover);
/// `at_item`: line `at` opens the item (a `- ` being typed).
fn mapping<'a>(
    lines: &[&'a str],
    at: usize,
    indent: usize,
    include: bool,
    at_item: bool,
) -> (Vec<(&'a str, &'a str)>, bool, Option<usize>) {
    let mut entries = Vec::new();
    let mut item = at_item;
    let mut top = at;
    if include {
        entries.extend(entry(lines[at]));
    }
    if !at_item {
        for i in (0..at).rev() {
            let line = lines[i];
            if boundary(line) {
                break;
            }
            if skip(line) {
                continue;
            }
            let (col, opens) = column(line);
            if col < indent {
                break;
            }
            if col == indent {
                entries.extend(entry(line));
                top = i;
                if opens {
                    item = true;
                    break;
                }
            }
        }
    }
    for line in lines.iter().skip(at + 1) {
        if boundary(line) {
            break;
        }
        if skip(line) {
            continue;
        }
        let (col, opens) = column(line);
        if col < indent || (col == indent && opens) {
            break;
        }
        if col == indent {
            entries.extend(entry(line));
        }
    }
    let holder = (0..top)
        .rev()
        .take_while(|i| !boundary(lines[*i]))
        .filter(|i| !skip(lines[*i]))
        .find(|i| column(lines[*i]).0 < indent);
    (entries, item, holder)
}

/// The frames (outermost first) of the mapping whose keys sit at column
/// `indent` on line `at`.
pub fn frames_at<'a>(
    lines: &[&'a str],
    at: usize,
    indent: usize,
    include: bool,
    at_item: bool,
) -> Vec<Frame<'a>> {
    let mut frames = Vec::new();
    let (mut at, mut indent, mut include, mut at_item) = (at, indent, include, at_item);
    while frames.len() < 32 {
        let (entries, item, holder) = mapping(lines, at, indent, include, at_item);
        frames.push(Frame {
            key: None,
            item,
            entries,
        });
        let Some(h) = holder else { break };
        let Some((key, value)) = entry(lines[h]) else {
            break;
        };
        if !value.is_empty() && !value.starts_with(['|', '>', '&', '!']) {
            break;
        }
        if let Some(last) = frames.last_mut() {
            last.key = Some(key);
        }
        at = h;
        indent = column(lines[h]).0;
        include = true;
        at_item = false;
    }
    frames.reverse();
    frames
}

#[cfg(test)]
mod tests {
    use super::*;

    fn path(text: &str, at: usize, indent: usize) -> Vec<(Option<String>, bool)> {
        let lines: Vec<&str> = text.split('\n').collect();
        frames_at(&lines, at, indent, true, false)
            .into_iter()
            .map(|f| (f.key.map(str::to_string), f.item))
            .collect()
    }

    #[test]
    fn nested_blocks_and_items() {
        let text = "pipeline: p\nactions:\n  - name: w\n    type: write\n    write_target:\n      type: streaming_table\n      cdc_config:\n        keys: [id]\n  - name: x\n";
        assert_eq!(
            path(text, 7, 8),
            [
                (None, false),
                (Some("actions".into()), true),
                (Some("write_target".into()), false),
                (Some("cdc_config".into()), false)
            ]
        );
        let lines: Vec<&str> = text.split('\n').collect();
        let frames = frames_at(&lines, 5, 6, true, false);
        assert_eq!(frames[1].value("type"), Some("write"));
        assert_eq!(frames[2].value("type"), Some("streaming_table"));
        assert_eq!(path(text, 8, 4).len(), 2);
        assert_eq!(path(text, 0, 0), [(None, false)]);
    }

    #[test]
    fn unindented_lists_and_documents() {
        let text = "actions:\n- name: a\n  type: load\n---\npipeline: q\n";
        assert_eq!(
            path(text, 2, 2),
            [(None, false), (Some("actions".into()), true)]
        );
        assert_eq!(path(text, 4, 0), [(None, false)]);
    }

    #[test]
    fn entries() {
        assert_eq!(entry("  - name: x # c"), Some(("name", "x")));
        assert_eq!(entry("    source:"), Some(("source", "")));
        assert_eq!(entry("    path: s3://b/k"), Some(("path", "s3://b/k")));
        assert_eq!(entry("  # mode: x"), None);
    }
}
