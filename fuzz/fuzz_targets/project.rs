//! The whole pipeline, model and rules, on arbitrary project files.
//!
//! The input is split at NUL bytes into the texts of a small project's
//! files (flowgroup, expectations, substitutions, template, preset, DDL),
//! served through the overlay as the language server serves open buffers.
//! Linting never panics, and every location and fix edit it reports lies
//! on character boundaries inside the file it names.
#![no_main]

use std::path::PathBuf;
use std::sync::{Arc, OnceLock};

use dqlint_linter::{lint, Selection};
use dqlint_project::{LoadOptions, Overlay, Project};
use libfuzzer_sys::fuzz_target;

const FILES: [&str; 6] = [
    "pipelines/fuzz/flowgroup.yaml",
    "expectations/fuzz.yaml",
    "substitutions/dev.yaml",
    "templates/fuzz_template.yaml",
    "presets/fuzz_preset.yaml",
    "sql/dlq.sql",
];

/// The project on disk: discovery walks real folders, the overlay then
/// replaces every file's text with the fuzzer's.
fn root() -> &'static PathBuf {
    static ROOT: OnceLock<PathBuf> = OnceLock::new();
    ROOT.get_or_init(|| {
        let root = std::env::temp_dir().join(format!("dqlint-fuzz-project-{}", std::process::id()));
        for rel in FILES.iter().chain(&["lhp.yaml"]) {
            let path = root.join(rel);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(&path, "").unwrap();
        }
        std::fs::write(root.join("lhp.yaml"), "name: fuzz\nversion: \"1.0\"\n").unwrap();
        std::fs::canonicalize(root).unwrap()
    })
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let root = root();
    let mut overlay = Overlay::new();
    for (rel, part) in FILES.iter().zip(text.split('\0')) {
        overlay.insert(root.join(rel), Arc::from(part));
    }
    let options = LoadOptions { overlay, ..Default::default() };
    let project = Project::load(root, &options).expect("the fuzz project has an lhp.yaml");
    for d in lint(&project, &Selection::default()) {
        let within = |file: dqlint_project::FileId, span: &std::ops::Range<usize>| {
            let text = &project.file(file).text;
            assert!(span.start <= span.end && span.end <= text.len(), "{} span {span:?} outside {}", d.rule.code, project.file(file).rel);
            assert!(text.is_char_boundary(span.start) && text.is_char_boundary(span.end), "{} span off a char boundary", d.rule.code);
        };
        within(d.primary.file, &d.primary.span);
        for r in &d.related {
            within(r.location.file, &r.location.span);
        }
        for edit in d.fix.iter().flat_map(|f| &f.edits) {
            within(edit.file, &edit.span);
        }
    }
});
