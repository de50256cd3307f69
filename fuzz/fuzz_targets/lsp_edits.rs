//! Sequences of editor edits, applied as the language server applies them
//! (LSP ranges in UTF-16 positions, clamped), then re-linted the quick way
//! the server does after a keystroke: the findings it publishes for the
//! files it re-lints must equal a fresh load and lint of the same text, and
//! every other file's findings must stay as they were.
//!
//! Input: byte 0 picks a fixture project, byte 1 one of its files (any but
//! `lhp.yaml`); then edits of five bytes (start line, start column, end
//! line, end column, length n) followed by n bytes of replacement text.
#![no_main]

use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

use dqlint_linter::{lint_configured, Config, Diagnostic, Selection};
use dqlint_linter::relint::{describe, relint};
use dqlint_project::{Edits, FileKind, LoadOptions, Overlay, Project};
use dqlint_yaml::LineIndex;
use libfuzzer_sys::fuzz_target;

const FIXTURES: [&str; 8] = [
    "rules/DQ207/bad",
    "rules/DQ404/bad",
    "rules/DQ501/bad",
    "rules/DQ009/bad",
    "rules/DQ603/bad",
    // A preset, blueprints, and the showcase's template, presets and
    // substitutions: the edits of the files flowgroups are built from.
    "rules/DQ109/bad",
    "rules/DQ004/good",
    "showcase",
];

struct Base {
    root: PathBuf,
    config: Config,
    project: Project,
    findings: Vec<Diagnostic>,
    had_findings: std::collections::HashSet<dqlint_project::FileId>,
}

fn bases() -> &'static Vec<Base> {
    static BASES: OnceLock<Vec<Base>> = OnceLock::new();
    BASES.get_or_init(|| {
        let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures");
        FIXTURES
            .iter()
            .map(|rel| {
                let root = std::fs::canonicalize(fixtures.join(rel)).expect("the fixture exists");
                let config = Config::discover(&root, None).expect("the fixture's config");
                let project = Project::load(&root, &config.load_options(&[])).expect("the fixture loads");
                let findings = lint_configured(&project, &config, &Selection::default());
                let had_findings = findings.iter().map(|f| f.primary.file).collect();
                Base { root, config, project, findings, had_findings }
            })
            .collect()
    })
}


fn findings_in(project: &Project, findings: &[Diagnostic], file: &str) -> Vec<String> {
    findings.iter().filter(|d| project.file(d.primary.file).rel == file).map(|d| describe(project, d)).collect()
}

fuzz_target!(|data: &[u8]| {
    let [pick, which, edits @ ..] = data else { return };
    let base = &bases()[*pick as usize % FIXTURES.len()];
    let editable: Vec<_> = base
        .project
        .files
        .iter()
        .filter(|f| f.kind != FileKind::ProjectConfig)
        .collect();
    let file = editable[*which as usize % editable.len()];

    let mut text = file.text.to_string();
    let mut rest = edits;
    while let [l1, c1, l2, c2, n, tail @ ..] = rest {
        let n = (*n as usize).min(tail.len());
        let insert = String::from_utf8_lossy(&tail[..n]);
        let lines = LineIndex::new(&text);
        let start = lines.offset_of_utf16(&text, *l1 as u32, *c1 as u32);
        let end = lines.offset_of_utf16(&text, *l2 as u32, *c2 as u32).max(start);
        assert!(text.is_char_boundary(start) && text.is_char_boundary(end), "positions land on characters");
        text.replace_range(start..end, &insert);
        rest = &tail[n..];
    }

    let new_text: Arc<str> = Arc::from(text);
    let selection = Selection::default();
    let edits = Edits::from(HashMap::from([(file.id, new_text.clone())]));
    let Ok(quick) = relint(&base.project, file.id, &edits, &base.config, &selection, &|id| base.had_findings.contains(&id), &BTreeSet::new()) else { return };
    let overlay: Overlay = HashMap::from([(file.path.clone(), new_text)]);
    let fresh = Project::load(&base.root, &LoadOptions { overlay, ..base.config.load_options(&[]) }).unwrap();
    let fresh_findings = lint_configured(&fresh, &base.config, &selection);
    let focus: BTreeSet<String> = quick.focus.iter().map(|id| quick.project.file(*id).rel.clone()).collect();
    for rel in &focus {
        assert_eq!(
            findings_in(&quick.project, &quick.findings, rel),
            findings_in(&fresh, &fresh_findings, rel),
            "editing {}, the quick re-lint of {rel} differs from a fresh lint",
            file.rel
        );
    }
    // Every other file keeps its findings: re-linting only the focus
    // leaves nothing stale.
    let files: BTreeSet<String> = fresh.files.iter().chain(&base.project.files).map(|f| f.rel.clone()).collect();
    for rel in files.difference(&focus) {
        assert_eq!(
            findings_in(&base.project, &base.findings, rel),
            findings_in(&fresh, &fresh_findings, rel),
            "editing {} changes the findings of {rel}, which the quick re-lint leaves out",
            file.rel
        );
    }
});
