//! Every key of the LHP vocabulary (and so every key LHP's JSON schemas
//! know: `dqlint-project/tests/vocabulary.rs`) is completed and hovered
//! where it belongs, and every value of a key with values.

use std::path::Path;

use dqlint_project::vocabulary::{self, LhpFile};
use dqlint_project::FileKind;
use tower_lsp_server::ls_types::Position;

use super::completion::completions_in;
use super::hover::vocabulary_hover;

/// A document whose last line (blank) is in block `id`, the column of that
/// line's keys, and the file it is in.
fn document(id: &str) -> (String, usize, FileKind, LhpFile, &'static str) {
    let (prefix, rest) = id.split_once(':').unwrap();
    let mut lines: Vec<String> = Vec::new();
    let mut indent = 0;
    let open = |lines: &mut Vec<String>, indent: &mut usize, seg: &str| {
        let (name, item) = match seg.strip_suffix("[]") {
            Some(n) => (n, true),
            None => (seg, false),
        };
        let name = if name == "*" { "x_key" } else { name };
        lines.push(format!("{}{name}:", " ".repeat(*indent)));
        if item {
            lines.push(format!("{}  - zz: 0", " ".repeat(*indent)));
            *indent += 4;
        } else {
            *indent += 2;
        }
    };
    let (kind, lhp, file) = match prefix {
        "flowgroup" | "action" | "source" | "write_target" => (
            FileKind::Flowgroup,
            LhpFile::Flowgroup,
            "/p/pipelines/f.yaml",
        ),
        "template" => (FileKind::Template, LhpFile::Template, "/p/templates/t.yaml"),
        "preset" => (FileKind::Preset, LhpFile::Preset, "/p/presets/p.yaml"),
        "project" => (FileKind::ProjectConfig, LhpFile::Project, "/p/lhp.yaml"),
        "substitution" => (
            FileKind::Substitutions,
            LhpFile::Substitutions,
            "/p/substitutions/dev.yaml",
        ),
        "pipeline_config" => (
            FileKind::PipelineConfig,
            LhpFile::PipelineConfig,
            "/p/config/pipeline_config.yaml",
        ),
        "blueprint" => (
            FileKind::Blueprint,
            LhpFile::Blueprint,
            "/p/blueprints/b.yaml",
        ),
        other => panic!("{other}"),
    };
    match prefix {
        "action" => {
            open(&mut lines, &mut indent, "actions[]");
            let mut parts = rest.split('/');
            if let Some(ty) = parts.next().filter(|t| !t.is_empty()) {
                lines.push(format!("    type: {ty}"));
                if let Some(sub) = parts.next() {
                    let key = if ty == "test" {
                        "test_type"
                    } else {
                        "transform_type"
                    };
                    lines.push(format!("    {key}: {sub}"));
                }
            }
        }
        "source" | "write_target" => {
            open(&mut lines, &mut indent, "actions[]");
            let ty = if prefix == "source" { "load" } else { "write" };
            lines.push(format!("    type: {ty}"));
            open(&mut lines, &mut indent, prefix);
            lines.push(format!("      type: {rest}"));
        }
        _ if !rest.is_empty() => {
            for seg in rest.split('.') {
                open(&mut lines, &mut indent, seg);
            }
        }
        _ => {}
    }
    lines.push(" ".repeat(indent));
    (lines.join("\n"), indent, kind, lhp, file)
}

#[test]
fn every_key_is_completed_and_hovered_where_it_belongs() {
    let mut checked = 0;
    for block in vocabulary::blocks() {
        let (text, indent, kind, lhp, file) = document(block.id);
        let last = text.split('\n').count() - 1;
        let present: Vec<&str> = text
            .split('\n')
            .filter(|l| l.len() - l.trim_start().len() == indent && !l.trim().is_empty())
            .filter_map(|l| l.trim().split(':').next())
            .collect();
        let offered: Vec<String> = completions_in(
            &text,
            kind,
            Path::new(file),
            Position::new(last as u32, indent as u32),
            None,
            crate::handlers::dqx::catalogue(),
        )
        .into_iter()
        .map(|i| i.label)
        .collect();
        // The block the cursor is in: this one, or the one LHP reads the same
        // mapping as (the actions of a template or of a `flowgroups:` item
        // are read as a flowgroup's).
        let lines: Vec<&str> = text.split('\n').collect();
        let frames = super::yaml_context::frames_at(&lines, last, indent, false, false);
        let resolved = vocabulary::block_at(lhp, &frames).unwrap();
        for key in block.keys {
            if present.contains(&key.name) {
                continue;
            }
            let key = resolved.key(key.name).unwrap_or_else(|| {
                panic!("`{}` of `{}` not in `{}`", key.name, block.id, resolved.id)
            });
            assert!(
                offered.iter().any(|o| o == key.name),
                "`{}` of `{}` not offered in\n{text}\n: {offered:?}",
                key.name,
                block.id
            );
            // Hover on the key, typed where the cursor was.
            let mut with_key = text.clone();
            let value = key.values.first().copied().unwrap_or("v");
            with_key.push_str(&format!("{}: {value}", key.name));
            let hover = vocabulary_hover(lhp, &with_key, last, indent + 1)
                .unwrap_or_else(|| panic!("no hover on `{}` of `{}`", key.name, block.id));
            assert!(
                hover.text.starts_with(&format!("`{}`", key.name)) && hover.text.contains(key.doc),
                "{}: {}",
                block.id,
                hover.text
            );
            if key.values.is_empty() {
                checked += 1;
                continue;
            }
            // Hover on a value, and the values completed after `key: `.
            let hover = vocabulary_hover(lhp, &with_key, last, indent + key.name.len() + 3)
                .unwrap_or_else(|| {
                    panic!("no hover on a value of `{}` of `{}`", key.name, block.id)
                });
            if key.name != "dlq_table" {
                assert!(
                    hover.text.contains(value) && !hover.text.contains("Not a value"),
                    "{}: {}",
                    block.id,
                    hover.text
                );
            }
            let mut typing = text.clone();
            typing.push_str(&format!("{}: ", key.name));
            let values: Vec<String> = completions_in(
                &typing,
                kind,
                Path::new(file),
                Position::new(last as u32, (indent + key.name.len() + 2) as u32),
                None,
                crate::handlers::dqx::catalogue(),
            )
            .into_iter()
            .map(|i| i.label)
            .collect();
            assert_eq!(
                values, key.values,
                "values of `{}` of `{}`",
                key.name, block.id
            );
            checked += 1;
        }
    }
    assert!(checked > 700, "{checked}");
}
