//! `textDocument/completion`, from the buffer text as it is now: keys of a
//! data_quality action and of `quarantine`; enum values (`mode`,
//! `readMode`, rule `action`...); `${` token names from the substitutions
//! files; `expectations_file` paths; in a rule expression, the columns
//! known to reach the data_quality actions reading the file.

use std::collections::BTreeMap;
use std::path::Path;

use dqlint_project::{FileKind, Project};
use tower_lsp_server::ls_types::{
    CompletionItem, CompletionItemKind, CompletionTextEdit, Documentation, MarkupContent,
    MarkupKind, Position, Range, TextEdit,
};

use crate::handlers::field_docs;

const QUARANTINE_KEYS: [&str; 2] = ["dlq_table", "source_table"];

/// Values LHP accepts for a key (`action`/`failureAction`: expectation rules).
fn enum_values(key: &str) -> Option<&'static [&'static str]> {
    Some(match key {
        "mode" => &["dqe", "quarantine"],
        "readMode" => &["stream", "batch"],
        "action" | "failureAction" => &["warn", "drop", "fail"],
        "type" => &["load", "transform", "write", "test"],
        "transform_type" => &["sql", "python", "data_quality", "temp_table", "schema"],
        _ => return None,
    })
}

fn item(
    label: &str,
    kind: CompletionItemKind,
    detail: Option<String>,
    doc: Option<&str>,
    edit: Option<(Range, String)>,
) -> CompletionItem {
    CompletionItem {
        label: label.to_string(),
        kind: Some(kind),
        detail,
        documentation: doc.map(|d| {
            Documentation::MarkupContent(MarkupContent {
                kind: MarkupKind::Markdown,
                value: d.to_string(),
            })
        }),
        text_edit: edit
            .map(|(range, new_text)| CompletionTextEdit::Edit(TextEdit { range, new_text })),
        ..CompletionItem::default()
    }
}

/// Completions at `position` of `text` (the open buffer of `path`);
/// `project` is the latest lint result, for token names and paths.
pub fn completions(
    text: &str,
    path: &Path,
    position: Position,
    project: Option<&Project>,
) -> Vec<CompletionItem> {
    // Nothing in files no dialect claims: outside any project, or a file
    // the project does not read (CI workflows, docker-compose, ...).
    let Some(kind) = project.and_then(|p| p.file_by_path(path)).map(|f| f.kind) else {
        return Vec::new();
    };
    completions_in(text, kind, path, position, project)
}

/// Completions in a file of `kind`.
fn completions_in(
    text: &str,
    kind: FileKind,
    path: &Path,
    position: Position,
    project: Option<&Project>,
) -> Vec<CompletionItem> {
    let lines: Vec<&str> = text.split('\n').collect();
    let Some(line) = lines
        .get(position.line as usize)
        .map(|l| l.trim_end_matches('\r'))
    else {
        return Vec::new();
    };
    // The line up to the cursor (UTF-16 column to byte offset).
    let mut units = 0u32;
    let cut = line
        .char_indices()
        .find(|(_, c)| {
            let past = units >= position.character;
            units += c.len_utf16() as u32;
            past
        })
        .map(|(i, _)| i)
        .unwrap_or(line.len());
    let before = &line[..cut];
    let range_back = |chars: &str| Range {
        start: Position {
            line: position.line,
            character: position.character - chars.encode_utf16().count() as u32,
        },
        end: position,
    };

    // `${par` -> token names.
    if let Some(open) = before.rfind("${") {
        let partial = &before[open + 2..];
        if partial
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_')
        {
            let Some(project) = project else {
                return Vec::new();
            };
            let closes = line[cut..].starts_with('}');
            let mut names: BTreeMap<&str, Vec<String>> = BTreeMap::new();
            for env in &project.envs {
                for (name, value) in &env.tokens {
                    names
                        .entry(name.as_str())
                        .or_default()
                        .push(format!("{}: {}", env.name, value.value));
                }
            }
            return names
                .into_iter()
                .map(|(name, mut values)| {
                    values.sort();
                    let insert = if closes {
                        name.to_string()
                    } else {
                        format!("{name}}}")
                    };
                    item(
                        name,
                        CompletionItemKind::VARIABLE,
                        Some(values.join(", ")),
                        None,
                        Some((range_back(partial), insert)),
                    )
                })
                .collect();
        }
    }

    if kind == FileKind::DqxChecks {
        let (candidates, replaced) =
            super::dqx::completions(&lines, position.line as usize, before);
        let replaced = &before[before.len() - replaced..];
        return candidates
            .into_iter()
            .map(|c| {
                let kind = match c.kind {
                    super::dqx::CandidateKind::Function => CompletionItemKind::FUNCTION,
                    super::dqx::CandidateKind::Argument => CompletionItemKind::PROPERTY,
                    super::dqx::CandidateKind::Value => CompletionItemKind::ENUM_MEMBER,
                };
                item(
                    &c.label,
                    kind,
                    c.detail,
                    c.doc.as_deref(),
                    Some((range_back(replaced), c.insert)),
                )
            })
            .collect();
    }

    let indent = before.len() - before.trim_start().len();
    let body = before.trim_start();
    let body = body.strip_prefix("- ").unwrap_or(body);

    // A rule expression -> the columns of the rows it checks.
    if let Some(project) = project {
        if let Some(partial) = expression_prefix(&lines, position.line as usize, before) {
            return known_columns(project, path)
                .into_iter()
                .map(|(column, from)| {
                    item(
                        &column,
                        CompletionItemKind::FIELD,
                        Some(from),
                        None,
                        Some((range_back(partial), column.clone())),
                    )
                })
                .collect();
        }
    }

    // `key: val` -> values of the key.
    if let Some((key, value)) = body.split_once(':') {
        let key = key.trim();
        let partial = value.trim_start();
        let lead = if value.is_empty() { " " } else { "" };
        if let Some(values) = enum_values(key) {
            let block = Block::around(&lines, position.line as usize, indent);
            let data_quality = block.value("transform_type") == Some("data_quality");
            return values
                .iter()
                // A data_quality action only streams (`batch` fails `lhp generate`).
                .filter(|v| !(data_quality && key == "readMode" && **v != "stream"))
                .map(|v| {
                    item(
                        v,
                        CompletionItemKind::ENUM_MEMBER,
                        None,
                        None,
                        Some((range_back(partial), format!("{lead}{v}"))),
                    )
                })
                .collect();
        }
        if key == "expectations_file" {
            let Some(project) = project else {
                return Vec::new();
            };
            return expectation_paths(&project.root)
                .into_iter()
                .map(|rel| {
                    item(
                        &rel,
                        CompletionItemKind::FILE,
                        None,
                        None,
                        Some((range_back(partial), format!("{lead}{rel}"))),
                    )
                })
                .collect();
        }
        return Vec::new();
    }

    // A key being typed: which block is it in?
    if !body.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_') {
        return Vec::new();
    }
    let parent = lines[..position.line as usize]
        .iter()
        .rev()
        .map(|l| l.trim_end_matches('\r'))
        .filter(|l| !l.trim().is_empty() && !l.trim_start().starts_with('#'))
        .find(|l| l.len() - l.trim_start().len() < indent)
        .map(|l| {
            l.trim()
                .trim_start_matches("- ")
                .trim_end_matches(':')
                .trim()
        });
    let is_yaml_config = path.extension().is_some_and(|e| e == "yaml" || e == "yml");
    if !is_yaml_config || !matches!(kind, FileKind::Flowgroup | FileKind::Template) {
        return Vec::new();
    }
    let block = Block::around(&lines, position.line as usize, indent);
    // The keys offered are a data_quality action's: only in an item of
    // `actions:` that is (or may still become) one, and in its `quarantine`.
    let in_data_quality_action = block.parent == Some("actions")
        && block.value("type").is_none_or(|t| t == "transform")
        && block
            .value("transform_type")
            .is_none_or(|t| t == "data_quality");
    if parent != Some("quarantine") && !in_data_quality_action {
        return Vec::new();
    }
    let keys: Vec<(&str, Option<&str>)> = if parent == Some("quarantine") {
        QUARANTINE_KEYS
            .iter()
            .map(|k| (*k, field_docs::lookup(k)))
            .collect()
    } else {
        field_docs::FIELDS
            .iter()
            .filter(|(k, _)| !QUARANTINE_KEYS.contains(k))
            .map(|(k, d)| (*k, Some(*d)))
            .collect()
    };
    keys.into_iter()
        .filter(|(key, _)| !block.has(key))
        .map(|(key, doc)| {
            let insert = if key == "quarantine" {
                format!(
                    "quarantine:\n{pad}  dlq_table: \n{pad}  source_table: ",
                    pad = " ".repeat(indent)
                )
            } else {
                format!("{key}: ")
            };
            item(
                key,
                CompletionItemKind::PROPERTY,
                None,
                doc,
                Some((range_back(body), insert)),
            )
        })
        .collect()
}

/// The mapping the cursor's line belongs to, read from the text as typed
/// (it need not parse): its keys at the cursor's indent, from the list
/// item's `- ` line (if any) to the next line indented less, and the key of
/// the block holding it.
struct Block<'a> {
    entries: Vec<(&'a str, &'a str)>,
    parent: Option<&'a str>,
}

impl<'a> Block<'a> {
    fn around(lines: &[&'a str], at: usize, indent: usize) -> Block<'a> {
        // A line's key column, and whether it opens a list item.
        fn column(line: &str) -> (usize, bool) {
            let spaces = line.len() - line.trim_start().len();
            let item = line[spaces..].starts_with("- ");
            (if item { spaces + 2 } else { spaces }, item)
        }
        fn entry(line: &str) -> Option<(&str, &str)> {
            let body = line.trim().trim_start_matches("- ").trim_start();
            let (key, value) = body.split_once(':')?;
            let value = value.split(" #").next().unwrap_or("").trim();
            Some((key.trim(), value.trim_matches(|c| c == '"' || c == '\'')))
        }
        let skip = |l: &&str| l.trim().is_empty() || l.trim_start().starts_with('#');
        let mut entries = Vec::new();
        let mut parent = None;
        // Upwards, the cursor's line excluded.
        for line in lines[..at].iter().rev().map(|l| l.trim_end_matches('\r')) {
            if skip(&line) {
                continue;
            }
            let (col, item) = column(line);
            if col < indent {
                parent = entry(line).map(|(k, _)| k);
                break;
            }
            if col == indent {
                entries.extend(entry(line));
                if item {
                    // The key above the list holds it.
                    parent = lines[..at]
                        .iter()
                        .rev()
                        .map(|l| l.trim_end_matches('\r'))
                        .filter(|l| !skip(l))
                        .find(|l| {
                            column(l).0 < indent - 2 || (column(l).0 == indent - 2 && !column(l).1)
                        })
                        .and_then(entry)
                        .map(|(k, _)| k);
                    break;
                }
            }
        }
        // Downwards, to the end of the mapping (or the next list item).
        for line in lines.iter().skip(at + 1).map(|l| l.trim_end_matches('\r')) {
            if skip(&line) {
                continue;
            }
            let (col, item) = column(line);
            if col < indent || (col == indent && item) {
                break;
            }
            if col == indent {
                entries.extend(entry(line));
            }
        }
        Block { entries, parent }
    }

    fn has(&self, key: &str) -> bool {
        self.entries.iter().any(|(k, _)| *k == key)
    }

    fn value(&self, key: &str) -> Option<&'a str> {
        self.entries
            .iter()
            .find(|(k, _)| *k == key)
            .map(|(_, v)| *v)
            .filter(|v| !v.is_empty())
    }
}

/// When the cursor (after `before` on line `at`) is in a rule expression
/// of an expectations file, the part of a column name typed so far: after
/// `constraint:` / `expression:` (list shape, YAML or JSON), or in a
/// top-level key (keyed shape, also under `expectations:`).
fn expression_prefix<'a>(lines: &[&str], at: usize, before: &'a str) -> Option<&'a str> {
    let partial_start = before
        .char_indices()
        .rev()
        .find(|(_, c)| !(c.is_ascii_alphanumeric() || *c == '_'))
        .map_or(0, |(i, c)| i + c.len_utf8());
    let partial = &before[partial_start..];
    let head = before.trim_start();
    let head = head
        .strip_prefix("- ")
        .unwrap_or(head)
        .trim_start_matches(['{', ' ']);
    for key in ["constraint", "expression"] {
        for form in [format!("{key}:"), format!("\"{key}\":")] {
            if head.starts_with(&form) {
                return Some(partial);
            }
        }
    }
    // Keyed shape: the rule keys are the top-level keys, or those right
    // under a top-level `expectations:`.
    if before.contains(':') || before.trim_start().starts_with(['-', '"', '{', '#']) {
        return None;
    }
    let indent = before.len() - before.trim_start().len();
    let wrapped = lines
        .iter()
        .take(at)
        .find(|l| !l.trim().is_empty() && !l.starts_with([' ', '#']));
    let rule_indent = match wrapped {
        Some(l) if l.trim_end().trim_end_matches('\r') == "expectations:" => lines
            .iter()
            .skip_while(|l| l.trim_end_matches('\r') != "expectations:")
            .skip(1)
            .find(|l| !l.trim().is_empty())
            .map_or(2, |l| l.len() - l.trim_start().len()),
        _ => 0,
    };
    (indent == rule_indent
        && (indent > 0 || wrapped.is_none() || !lines[at].starts_with("expectations")))
    .then_some(partial)
}

/// The columns known to reach the data_quality actions that read the
/// expectations file at `path`, each with where it is known from: the
/// select lists of the `sql` transforms producing their source view
/// (following `*` to the views it reads, within the flowgroup), and the
/// `table_schema` of the writes of their target view.
fn known_columns(project: &Project, path: &Path) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    let Some(rel) = project
        .file_by_path(path)
        .and_then(|file| project.expectations_rel(file.id))
    else {
        return out;
    };
    let envs = dqlint_project::envs_or_none(&project.envs);
    for fg in &project.flowgroups {
        for action in fg.actions.iter().filter(|a| a.is_data_quality()) {
            if !action.expectations_files(&envs).any(|read| read == rel) {
                continue;
            }
            if let Some(source) = action.get_str("source") {
                view_columns(fg, source, 0, &mut out);
            }
            let Some(target) = action.get_str("target") else {
                continue;
            };
            for write in fg
                .actions
                .iter()
                .filter(|a| a.get_str("source") == Some(target))
            {
                let Some(schema) = write
                    .get("write_target")
                    .and_then(|w| w.get_str("table_schema"))
                else {
                    continue;
                };
                for column in dqlint_sql::columns::column_list_names(schema) {
                    out.entry(column).or_insert_with(|| {
                        format!("column of the table written from `{target}` (table_schema)")
                    });
                }
            }
        }
    }
    out
}

/// The columns the select list of the `sql` transform making `view` names.
fn view_columns(
    fg: &dqlint_project::Flowgroup,
    view: &str,
    depth: usize,
    out: &mut BTreeMap<String, String>,
) {
    if depth > 8 {
        return;
    }
    let Some(producer) = fg
        .actions
        .iter()
        .find(|a| a.get_str("target") == Some(view))
    else {
        return;
    };
    match producer.get_str("transform_type") {
        Some("sql") => {
            let Some(columns) = producer
                .get_str("sql")
                .and_then(dqlint_sql::columns::select_columns)
            else {
                return;
            };
            for column in columns.names {
                out.entry(column)
                    .or_insert_with(|| format!("column of view `{view}` (its SQL)"));
            }
            for relation in columns.all_of {
                view_columns(fg, &relation, depth + 1, out);
            }
        }
        // Views that pass their source's rows on unchanged.
        Some("data_quality") | Some("temp_table") => {
            if let Some(source) = producer.get_str("source") {
                view_columns(fg, source, depth + 1, out);
            }
        }
        _ => {}
    }
}

/// YAML and JSON files of the project that can hold expectations (not the
/// flowgroups, templates, presets, substitutions or config).
fn expectation_paths(root: &Path) -> Vec<String> {
    const NOT_HERE: [&str; 7] = [
        "pipelines",
        "templates",
        "presets",
        "substitutions",
        "config",
        "generated",
        "node_modules",
    ];
    let mut out = Vec::new();
    let mut pending = vec![(root.to_path_buf(), 0)];
    while let Some((dir, depth)) = pending.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            let name = entry.file_name().to_string_lossy().into_owned();
            if name.starts_with('.') {
                continue;
            }
            if entry.file_type().is_ok_and(|t| t.is_dir()) {
                if depth < 4 && !(depth == 0 && NOT_HERE.contains(&name.as_str())) {
                    pending.push((path, depth + 1));
                }
            } else if depth > 0 && [".yaml", ".yml", ".json"].iter().any(|e| name.ends_with(e)) {
                out.push(dqlint_project::files::relative_path(root, &path));
            }
        }
    }
    out.sort();
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn labels(text: &str, line: u32, character: u32) -> Vec<String> {
        completions_in(
            text,
            FileKind::Flowgroup,
            Path::new("/p/pipelines/f.yaml"),
            Position { line, character },
            None,
        )
        .into_iter()
        .map(|i| i.label)
        .collect()
    }

    #[test]
    fn enum_values_after_a_key() {
        assert_eq!(labels("    mode: ", 0, 10), ["dqe", "quarantine"]);
        assert_eq!(labels("    readMode: st", 0, 16), ["stream", "batch"]);
        assert_eq!(labels("  - action: ", 0, 12), ["warn", "drop", "fail"]);
    }

    #[test]
    fn keys_depend_on_the_block() {
        let text = "actions:\n  - name: x\n    quarantine:\n      dl\n    mo";
        assert_eq!(labels(text, 3, 8), ["dlq_table", "source_table"]);
        let action_keys = labels(text, 4, 6);
        assert!(
            action_keys.contains(&"mode".to_string())
                && !action_keys.contains(&"dlq_table".to_string())
        );
    }

    #[test]
    fn keys_only_in_data_quality_actions_and_not_twice() {
        let text = "pipeline: p\nflowgroup: f\nactions:\n  - name: dq\n    type: transform\n    transform_type: data_quality\n    mode: dqe\n    \n  - name: load\n    type: load\n    \n    write_target:\n      \n";
        let dq = labels(text, 7, 4);
        assert!(dq.contains(&"expectations_file".to_string()), "{dq:?}");
        assert!(!dq.contains(&"mode".to_string()), "present already: {dq:?}");
        assert!(labels(text, 10, 4).is_empty(), "a load action");
        assert!(labels(text, 12, 6).is_empty(), "inside write_target");
        assert!(
            labels("pipeline: p\n", 1, 0).is_empty(),
            "the flowgroup's top level"
        );
    }

    #[test]
    fn read_mode_of_a_data_quality_action_is_only_stream() {
        let text = "actions:\n  - name: dq\n    type: transform\n    transform_type: data_quality\n    readMode: ";
        assert_eq!(labels(text, 4, 14), ["stream"]);
        let load = "actions:\n  - name: l\n    type: load\n    readMode: ";
        assert_eq!(labels(load, 3, 14), ["stream", "batch"]);
    }

    #[test]
    fn expressions_are_found_in_every_shape() {
        let prefix = |text: &str, line: usize, character: usize| {
            let lines: Vec<&str> = text.split('\n').collect();
            expression_prefix(&lines, line, &lines[line][..character]).map(str::to_string)
        };
        let keyed = "order_id IS NOT NULL:\n  action: drop\nam";
        assert_eq!(prefix(keyed, 2, 2).as_deref(), Some("am"));
        assert_eq!(
            prefix(keyed, 1, 4),
            None,
            "a rule's own keys are not expressions"
        );
        let wrapped = "expectations:\n  a > 0:\n    action: drop\n  amount > 0 AND cu";
        assert_eq!(prefix(wrapped, 3, 19).as_deref(), Some("cu"));
        assert_eq!(prefix(wrapped, 2, 6), None);
        let list = "- constraint: amount > 0 AND st\n  action: warn";
        assert_eq!(prefix(list, 0, 31).as_deref(), Some("st"));
        let json = "{\"expectations\": [\n  {\"expression\": \"x > 0 and sta";
        assert_eq!(prefix(json, 1, 31).as_deref(), Some("sta"));
    }

    #[test]
    fn non_ascii_before_the_cursor() {
        // `é` is one UTF-16 unit; the cursor after `mode: ` is at 8.
        assert_eq!(labels("é # x\n  mode: ", 1, 8), ["dqe", "quarantine"]);
        assert!(labels("  description: é", 0, 16).is_empty());
    }
}
