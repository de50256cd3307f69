//! Where a substitution token is written, for `rename`: its definitions
//! (the keys of the `global` and `<env>` blocks of every
//! `substitutions/<env>.yaml`) and its uses (`${name}`, and the deprecated
//! bare `{name}`) in every place LHP substitutes: the string values of
//! flowgroups, templates, presets, blueprints, the pipeline config, the
//! token values of the substitutions files themselves (nested tokens), the
//! `operational_metadata`, `event_log` and `monitoring` values of
//! `lhp.yaml`, and the `sql_path` files actions read
//! (`reference/lhp-behaviour.md` §1.4, §4); and the table names of the
//! DDL in other `.sql` files, which dqlint resolves to match them to
//! `dlq_table`s. Expectations files are not substituted (E36): a `${name}`
//! in a rule is SQL text, not a use; nor are Python files.
//!
//! Each place is the name's bytes, found through the YAML parse and the
//! scalar decoder's map from value to source, never by searching the text.

use std::borrow::Cow;
use std::collections::{HashMap, HashSet};
use std::ops::Range;
use std::path::Path;

use dqlint_project::substitution::scan_tokens;
use dqlint_project::{FileId, FileKind, Project, SourceFile, TokenSyntax, Value};
use dqlint_sql::ddl::{parse_sql_file, DdlStatement};
use dqlint_yaml::scalar::decode;
use dqlint_yaml::{Node, NodeKind, ScalarKind, YamlFile};

/// The tokens LHP defines itself (the `--env` value).
pub const RESERVED: [&str; 2] = ["workspace_env", "logical_env"];

/// One place a token's name is written.
#[derive(Clone, Debug)]
pub struct Written {
    pub file: FileId,
    /// The name's bytes.
    pub name_span: Range<usize>,
    /// The whole `${name}` (the key, for a definition).
    pub whole: Range<usize>,
    pub name: String,
    /// The name's bytes in the source read exactly the name (no escape
    /// sequence stands for any of its characters).
    pub exact: bool,
    pub definition: bool,
    /// The deprecated bare `{name}`.
    pub bare: bool,
}

/// Which tokens to look for.
pub enum Wanted<'a> {
    /// Every token (of one file: what is under the cursor).
    Any,
    Named(&'a str),
}

impl Wanted<'_> {
    fn accepts(&self, name: &str) -> bool {
        match self {
            Wanted::Any => true,
            Wanted::Named(wanted) => *wanted == name,
        }
    }

    /// Whether `text` can hold a wanted token at all (most files cannot
    /// hold a given name: they are not parsed again).
    fn may_be_in(&self, text: &str) -> bool {
        match self {
            Wanted::Any => text.contains('{'),
            Wanted::Named(name) => text.contains(name),
        }
    }
}

/// Every place a wanted token is written in the project (in file `only`,
/// when given).
pub fn written(project: &Project, wanted: &Wanted, only: Option<FileId>) -> Vec<Written> {
    let mut sql_files: Option<HashSet<FileId>> = None;
    let mut out = Vec::new();
    for file in &project.files {
        if only.is_some_and(|id| id != file.id) || !wanted.may_be_in(&file.text) {
            continue;
        }
        match file.kind {
            FileKind::Flowgroup
            | FileKind::Template
            | FileKind::Preset
            | FileKind::Blueprint
            | FileKind::PipelineConfig => {
                for root in roots(file).iter() {
                    strings(file, root, wanted, &mut out);
                }
            }
            FileKind::ProjectConfig => {
                for root in roots(file).iter() {
                    for key in ["operational_metadata", "event_log", "monitoring"] {
                        if let Some(node) = root.get(key) {
                            strings(file, node, wanted, &mut out);
                        }
                    }
                }
            }
            FileKind::Substitutions => {
                let env = Path::new(&file.rel)
                    .file_stem()
                    .map(|s| s.to_string_lossy().into_owned())
                    .unwrap_or_default();
                for root in roots(file).iter() {
                    for block in token_blocks(root, &env) {
                        for pair in block {
                            definition(file, &pair.key, wanted, &mut out);
                            // Only scalar values are token values LHP expands.
                            if matches!(pair.value.kind, NodeKind::Scalar(_)) {
                                strings(file, &pair.value, wanted, &mut out);
                            }
                        }
                    }
                }
            }
            kind if kind.is_sql()
                && sql_files
                    .get_or_insert_with(|| sql_path_files(project))
                    .contains(&file.id) =>
            {
                for token in scan_tokens(&file.text) {
                    if token.syntax == TokenSyntax::Secret || !wanted.accepts(&token.name) {
                        continue;
                    }
                    let name_span = name_range(&token.syntax, &token.range);
                    out.push(Written {
                        file: file.id,
                        name_span,
                        whole: token.range,
                        name: token.name,
                        exact: true,
                        definition: false,
                        bare: token.syntax == TokenSyntax::Bare,
                    });
                }
            }
            // DDL: dqlint resolves the tokens of the table names (DQ4xx
            // match them to `dlq_table`), so those are uses too.
            kind if kind.is_sql() => {
                for statement in parse_sql_file(&file.text).statements {
                    let name = match &statement {
                        DdlStatement::CreateTable(create) => create.name_range.clone(),
                        DdlStatement::AlterTable(alter) => alter.name_range.clone(),
                        DdlStatement::Update(update) => update.table_range.clone(),
                    };
                    let Some(written) = file.text.get(name.clone()) else {
                        continue;
                    };
                    for token in scan_tokens(written) {
                        if token.syntax == TokenSyntax::Secret || !wanted.accepts(&token.name) {
                            continue;
                        }
                        let whole = name.start + token.range.start..name.start + token.range.end;
                        out.push(Written {
                            file: file.id,
                            name_span: name_range(&token.syntax, &whole),
                            whole,
                            name: token.name,
                            exact: true,
                            definition: false,
                            bare: token.syntax == TokenSyntax::Bare,
                        });
                    }
                }
            }
            _ => {}
        }
    }
    out
}

/// The `global` block and the file's own environment block: the only ones
/// LHP reads from `substitutions/<env>.yaml`.
fn token_blocks<'a>(root: &'a Node, env: &str) -> Vec<&'a [dqlint_yaml::Pair]> {
    ["global", env]
        .into_iter()
        .filter_map(|block| root.get(block)?.as_mapping())
        .collect()
}

/// The document roots of a file. Flowgroup files give their trees up once
/// the flowgroups are built (memory): those are parsed again, from the
/// same text, by the same parser.
fn roots(file: &SourceFile) -> Vec<Node> {
    let yaml: Cow<YamlFile> = match &file.yaml {
        Some(yaml) if file.kind != FileKind::Flowgroup => Cow::Borrowed(yaml.as_ref()),
        _ => Cow::Owned(dqlint_yaml::parse(&file.text)),
    };
    yaml.documents
        .iter()
        .filter_map(|d| d.root.clone())
        .collect()
}

/// The name inside `${name}` or `{name}`.
fn name_range(syntax: &TokenSyntax, whole: &Range<usize>) -> Range<usize> {
    let open = if *syntax == TokenSyntax::Dollar { 2 } else { 1 };
    whole.start + open..whole.end - 1
}

/// The tokens of every string value under `node` (keys are not substituted).
fn strings(file: &SourceFile, node: &Node, wanted: &Wanted, out: &mut Vec<Written>) {
    match &node.kind {
        NodeKind::Mapping(pairs) => {
            for pair in pairs {
                strings(file, &pair.value, wanted, out);
            }
        }
        NodeKind::Sequence(items) => {
            for item in items {
                strings(file, item, wanted, out);
            }
        }
        NodeKind::Scalar(scalar) if scalar.kind == ScalarKind::Str => {
            if !scalar.value.contains('{') {
                return;
            }
            let Some(raw) = file.text.get(node.span.clone()) else {
                return;
            };
            let decoded = decode(raw, scalar.style, scalar.parent_indent as usize);
            for token in scan_tokens(&decoded.value) {
                if token.syntax == TokenSyntax::Secret || !wanted.accepts(&token.name) {
                    continue;
                }
                let at = |r: Range<usize>| {
                    let source = decoded.source_range(r);
                    node.span.start + source.start..node.span.start + source.end
                };
                let name_span = at(name_range(&token.syntax, &token.range));
                let whole = at(token.range.clone());
                let exact = file.text.get(name_span.clone()) == Some(token.name.as_str());
                out.push(Written {
                    file: file.id,
                    name_span,
                    whole,
                    name: token.name,
                    exact,
                    definition: false,
                    bare: token.syntax == TokenSyntax::Bare,
                });
            }
        }
        _ => {}
    }
}

/// A key of a token block.
fn definition(file: &SourceFile, key: &Node, wanted: &Wanted, out: &mut Vec<Written>) {
    let NodeKind::Scalar(scalar) = &key.kind else {
        return;
    };
    if !wanted.accepts(&scalar.value) {
        return;
    }
    let Some(raw) = file.text.get(key.span.clone()) else {
        return;
    };
    let decoded = decode(raw, scalar.style, scalar.parent_indent as usize);
    let source = decoded.source_range(0..decoded.value.len());
    let name_span = key.span.start + source.start..key.span.start + source.end;
    let exact = file.text.get(name_span.clone()) == Some(scalar.value.as_str());
    out.push(Written {
        file: file.id,
        name_span,
        whole: key.span.clone(),
        name: scalar.value.clone(),
        exact,
        definition: true,
        bare: false,
    });
}

/// The SQL files an action's `sql_path` names (LHP 0.9.3 substitutes their
/// text), in any environment.
fn sql_path_files(project: &Project) -> HashSet<FileId> {
    let by_rel: HashMap<&str, FileId> = project
        .files
        .iter()
        .filter(|f| f.kind.is_sql())
        .map(|f| (f.rel.as_str(), f.id))
        .collect();
    let mut out = HashSet::new();
    if by_rel.is_empty() {
        return out;
    }
    let envs = dqlint_project::envs_or_none(&project.envs);
    for (_, action) in project.actions() {
        let mut paths = Vec::new();
        sql_paths(&action.value, &mut paths);
        for path in paths {
            for env in &envs {
                let resolved = env.resolve(path);
                let rel = dqlint_project::normalize_rel(&resolved.text);
                if let Some(id) = by_rel.get(rel.as_str()) {
                    out.insert(*id);
                }
            }
        }
    }
    out
}

/// Every `sql_path` string under an action (its own, its `source`'s, its
/// `write_target`'s).
fn sql_paths<'a>(value: &'a Value, out: &mut Vec<&'a str>) {
    if let Some(entries) = value.as_map() {
        for entry in entries {
            match entry.value.as_str() {
                Some(path) if entry.key == "sql_path" => out.push(path),
                _ => sql_paths(&entry.value, out),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scalar_tokens(yaml: &str) -> Vec<(String, String, bool)> {
        let file = SourceFile {
            id: FileId(0),
            path: "f.yaml".into(),
            rel: "f.yaml".into(),
            kind: FileKind::Template,
            text: yaml.into(),
            lines: dqlint_yaml::LineIndex::new(yaml),
            yaml: None,
            dqx: None,
            read_error: None,
        };
        let mut out = Vec::new();
        for root in roots(&file) {
            strings(&file, &root, &Wanted::Named("catalog"), &mut out);
        }
        out.into_iter()
            .map(|w| {
                (
                    yaml[w.name_span].to_string(),
                    yaml[w.whole].to_string(),
                    w.exact,
                )
            })
            .collect()
    }

    #[test]
    fn names_in_every_scalar_style() {
        let yaml = "a: ${catalog}.s\nb: \"x.${catalog}\"\nc: '{catalog}'\nd: |\n  SELECT ${catalog}\ne: ${secret:catalog} ${catalogs} %{catalog} {{ catalog }}\n${catalog}: key\n";
        let found = scalar_tokens(yaml);
        assert_eq!(
            found,
            [
                ("catalog".into(), "${catalog}".into(), true),
                ("catalog".into(), "${catalog}".into(), true),
                ("catalog".into(), "{catalog}".into(), true),
                ("catalog".into(), "${catalog}".into(), true),
            ]
        );
    }

    #[test]
    fn an_escaped_name_is_not_exact() {
        let found = scalar_tokens("a: \"${cat\\u0061log}\"\n");
        assert_eq!(found.len(), 1);
        assert!(!found[0].2, "{found:?}");
    }
}
