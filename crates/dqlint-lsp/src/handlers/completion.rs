//! `textDocument/completion`, from the buffer text as it is now: in every
//! LHP file, the keys of the block at the cursor not yet present and the
//! values a key accepts, from the LHP vocabulary
//! (`dqlint_project::vocabulary`); a rule's `action` in expectations files;
//! `${` token names from the substitutions files; `expectations_file`
//! paths; in a rule expression, the columns known to reach the
//! data_quality actions reading the file; DQX checks (`dqx.rs`) and
//! DQX's Python API (`dqx_python.rs`).

use std::collections::BTreeMap;
use std::path::Path;

use dqlint_project::vocabulary::{self, LhpFile};
use dqlint_project::{FileKind, Project};
use tower_lsp_server::ls_types::{
    CompletionItem, CompletionItemKind, CompletionTextEdit, Documentation, MarkupContent,
    MarkupKind, Position, Range, TextEdit,
};

use crate::handlers::yaml_context::{column, frames_at};

/// The actions a rule of an expectations file takes (LHP reads `action`,
/// or `failureAction` in the JSON list shape).
const RULE_ACTIONS: [&str; 3] = ["warn", "drop", "fail"];

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
    catalogue: &dqlint_dqx::Catalogue,
) -> Vec<CompletionItem> {
    // Nothing in files no dialect claims: outside any project, or a file
    // the project does not read (CI workflows, docker-compose, ...).
    let Some(kind) = project.and_then(|p| p.file_by_path(path)).map(|f| f.kind) else {
        return Vec::new();
    };
    completions_in(text, kind, path, position, project, catalogue)
}

/// Completions in a file of `kind`.
pub(super) fn completions_in(
    text: &str,
    kind: FileKind,
    path: &Path,
    position: Position,
    project: Option<&Project>,
    catalogue: &dqlint_dqx::Catalogue,
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

    if matches!(kind, FileKind::DqxChecks | FileKind::PipelinePython) {
        let is_json = path
            .extension()
            .is_some_and(|e| e.eq_ignore_ascii_case("json"));
        let offset = || {
            lines[..position.line as usize]
                .iter()
                .map(|l| l.len() + 1)
                .sum::<usize>()
                + before.len()
        };
        let (candidates, replaced) = if kind == FileKind::PipelinePython {
            super::dqx_python::completions(catalogue, text, offset())
        } else if is_json {
            super::dqx::json_completions(catalogue, text, offset())
        } else {
            super::dqx::completions(catalogue, &lines, position.line as usize, before)
        };
        let replaced = replaced.min(before.len());
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

    // A rule expression -> the columns of the rows it checks.
    if kind == FileKind::Expectations {
        if let Some(partial) = expression_prefix(&lines, position.line as usize, before) {
            let Some(project) = project else {
                return Vec::new();
            };
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
        let body = before.trim_start();
        let body = body
            .strip_prefix("- ")
            .unwrap_or(body)
            .trim_start_matches(['{', ' ']);
        let Some((key, value)) = body.split_once(':') else {
            return Vec::new();
        };
        let key = key.trim().trim_matches('"');
        if key != "action" && key != "failureAction" {
            return Vec::new();
        }
        let partial = value.trim_start().trim_start_matches('"');
        let lead = if value.is_empty() { " " } else { "" };
        return RULE_ACTIONS
            .iter()
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

    let Some(file) = LhpFile::of(kind) else {
        return Vec::new();
    };
    if !path.extension().is_some_and(|e| e == "yaml" || e == "yml") {
        return Vec::new();
    }
    let lines: Vec<&str> = lines.iter().map(|l| l.trim_end_matches('\r')).collect();
    let at = position.line as usize;
    let (col, opens) = column(before);
    let body = before.get(col..).unwrap_or("");
    let frames = frames_at(&lines, at, col, false, opens);
    let Some(block) = vocabulary::block_at(file, &frames) else {
        return Vec::new();
    };

    // `key: val` -> the values the key accepts here.
    if let Some((key, value)) = body.split_once(':') {
        let key = key.trim();
        let partial = value.trim_start();
        let lead = if value.is_empty() { " " } else { "" };
        if key == "expectations_file" {
            let Some(project) = project else {
                return Vec::new();
            };
            return expectation_paths(project)
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
        let Some(field) = block.key(key) else {
            return Vec::new();
        };
        return field
            .values
            .iter()
            .map(|v| {
                item(
                    v,
                    CompletionItemKind::ENUM_MEMBER,
                    None,
                    Some(field.doc),
                    Some((range_back(partial), format!("{lead}{v}"))),
                )
            })
            .collect();
    }

    // A key being typed: the block's keys not yet present.
    if !body.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_') {
        return Vec::new();
    }
    let present = frames.last().map(|f| f.entries.as_slice()).unwrap_or(&[]);
    block
        .keys
        .iter()
        .filter(|key| !present.iter().any(|(k, _)| *k == key.name))
        .map(|key| {
            let insert = if key.name == "quarantine" {
                format!(
                    "quarantine:\n{pad}  dlq_table: \n{pad}  source_table: ",
                    pad = " ".repeat(col)
                )
            } else {
                format!("{}: ", key.name)
            };
            let detail = (!key.values.is_empty()).then(|| key.values.join(" | "));
            item(
                key.name,
                CompletionItemKind::PROPERTY,
                detail,
                Some(key.doc),
                Some((range_back(body), insert)),
            )
        })
        .collect()
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
/// flowgroups, templates, presets, substitutions or config): the load's
/// listing, in a sub-folder at most four deep, outside hidden folders.
fn expectation_paths(project: &Project) -> Vec<String> {
    const NOT_HERE: [&str; 7] = [
        "pipelines",
        "templates",
        "presets",
        "substitutions",
        "config",
        "generated",
        "node_modules",
    ];
    let mut out: Vec<String> = project
        .listing
        .with_extension(&["yaml", "yml", "json"])
        .map(|path| dqlint_project::files::relative_path(&project.root, path))
        .filter(|rel| {
            let parts: Vec<&str> = rel.split('/').collect();
            (2..=5).contains(&parts.len())
                && !NOT_HERE.contains(&parts[0])
                && !parts.iter().any(|part| part.starts_with('.'))
        })
        .collect();
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
            crate::handlers::dqx::catalogue(),
        )
        .into_iter()
        .map(|i| i.label)
        .collect()
    }

    fn labels_in(kind: FileKind, file: &str, text: &str, line: u32, character: u32) -> Vec<String> {
        completions_in(
            text,
            kind,
            Path::new(file),
            Position { line, character },
            None,
            crate::handlers::dqx::catalogue(),
        )
        .into_iter()
        .map(|i| i.label)
        .collect()
    }

    const DQ: &str =
        "actions:\n  - name: dq\n    type: transform\n    transform_type: data_quality\n";

    #[test]
    fn values_the_key_accepts_where_it_is() {
        let text = format!("{DQ}    mode: ");
        assert_eq!(labels(&text, 4, 10), ["dqe", "quarantine"]);
        let text = format!("{DQ}    quarantine:\n      dlq_table: x\n  - name: l\n    type: ");
        assert_eq!(labels(&text, 7, 10), ["load", "transform", "write", "test"]);
        let text = "actions:\n  - name: w\n    type: write\n    write_target:\n      type: ";
        assert_eq!(
            labels(text, 4, 12),
            ["streaming_table", "materialized_view", "sink"]
        );
        let rule = "order_id IS NOT NULL:\n  action: ";
        assert_eq!(
            labels_in(
                FileKind::Expectations,
                "/p/expectations/o.yaml",
                rule,
                1,
                10
            ),
            ["warn", "drop", "fail"]
        );
    }

    #[test]
    fn keys_depend_on_the_block() {
        let text = format!("{DQ}    quarantine:\n      dl\n    mo");
        assert_eq!(labels(&text, 5, 8), ["dlq_table", "source_table"]);
        let action_keys = labels(&text, 6, 6);
        assert!(
            action_keys.contains(&"mode".to_string())
                && !action_keys.contains(&"dlq_table".to_string()),
            "{action_keys:?}"
        );
    }

    #[test]
    fn keys_of_each_block_and_not_twice() {
        let text = "pipeline: p\nflowgroup: f\nactions:\n  - name: dq\n    type: transform\n    transform_type: data_quality\n    mode: dqe\n    \n  - name: load\n    type: load\n    \n    source:\n      type: cloudfiles\n      \n  - name: w\n    type: write\n    write_target:\n      type: streaming_table\n      \n";
        let dq = labels(text, 7, 4);
        assert!(dq.contains(&"expectations_file".to_string()), "{dq:?}");
        assert!(!dq.contains(&"mode".to_string()), "present already: {dq:?}");
        assert!(!dq.contains(&"write_target".to_string()), "{dq:?}");
        let load = labels(text, 10, 4);
        assert!(load.contains(&"readMode".to_string()), "{load:?}");
        assert!(!load.contains(&"expectations_file".to_string()), "{load:?}");
        let source = labels(text, 13, 6);
        assert!(
            source.contains(&"schema_location".to_string()),
            "{source:?}"
        );
        assert!(!source.contains(&"type".to_string()), "{source:?}");
        let target = labels(text, 18, 6);
        assert!(target.contains(&"cdc_config".to_string()), "{target:?}");
        assert!(!target.contains(&"sink_type".to_string()), "{target:?}");
        let top = labels("pipeline: p\n", 1, 0);
        assert!(
            top.contains(&"flowgroup".to_string()) && !top.contains(&"pipeline".to_string()),
            "{top:?}"
        );
    }

    #[test]
    fn every_lhp_file() {
        let project = labels_in(FileKind::ProjectConfig, "/p/lhp.yaml", "name: p\n", 1, 0);
        assert!(project.contains(&"include".to_string()), "{project:?}");
        let subst = labels_in(
            FileKind::Substitutions,
            "/p/substitutions/dev.yaml",
            "dev:\n  \n",
            1,
            2,
        );
        assert!(subst.contains(&"catalog".to_string()), "{subst:?}");
        let preset = labels_in(
            FileKind::Preset,
            "/p/presets/x.yaml",
            "name: x\ndefaults:\n  \n",
            2,
            2,
        );
        assert!(preset.contains(&"load_actions".to_string()), "{preset:?}");
        let template = labels_in(
            FileKind::Template,
            "/p/templates/t.yaml",
            "name: t\nparameters:\n  - name: a\n    \n",
            3,
            4,
        );
        assert!(template.contains(&"required".to_string()), "{template:?}");
        let config = labels_in(
            FileKind::PipelineConfig,
            "/p/config/pipeline_config.yaml",
            "project_defaults:\n  \n",
            1,
            2,
        );
        assert!(config.contains(&"serverless".to_string()), "{config:?}");
    }

    #[test]
    fn read_mode_of_a_data_quality_action_is_only_stream() {
        let text = format!("{DQ}    readMode: ");
        assert_eq!(labels(&text, 4, 14), ["stream"]);
        let load = "actions:\n  - name: l\n    type: load\n    readMode: ";
        assert_eq!(labels(load, 3, 14), ["batch", "stream"]);
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
        // `é` is one UTF-16 unit; the cursor after `mode: ` is at 24.
        let text = "actions:\n  - name: é\n    transform_type: data_quality\n    type: transform\n    mode: ";
        assert_eq!(labels(text, 4, 10), ["dqe", "quarantine"]);
        assert_eq!(
            labels("pipeline: é\nactions:\n  - type: ", 2, 10),
            ["load", "transform", "write", "test"]
        );
        assert!(labels("  description: é", 0, 16).is_empty());
    }
}
