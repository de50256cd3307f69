//! Project slices: what the language server lints after a keystroke.
//!
//! [`Project::load`] reads and parses every file of the project (seconds on
//! a 2,800-flowgroup project). After an edit to a flowgroup, expectations or
//! `.sql` file, the server instead builds a [`Project::slice`] of the last
//! loaded project: the edited files are re-parsed and re-interpreted, the
//! flowgroups are cut down to the ones the wanted findings can depend on, and
//! every other file becomes a cheap stand-in (its path and text, no tree).
//! Linting the slice gives, for the files the caller asked about, the same
//! findings as linting a fresh load; `dqlint-lsp`'s `slice_equivalence` test
//! pins that over every fixture project.
//!
//! An edit to anything the flowgroups are built from (lhp.yaml, templates,
//! presets, blueprints, substitutions, pipeline_config) changes every
//! flowgroup: no slice then, the caller re-loads.

use std::collections::{HashMap, HashSet};
use std::path::Path;
use std::sync::Arc;

use crate::blueprints::{self, Blueprint};
use crate::files::{self, FileKind, Overlay, SourceFile};
use crate::flowgroup::{self, Flowgroup, Problem, ProblemKind};
use crate::value::{FileId, Origin, Value, ValueKind};
use crate::{envs_or_none, expectations, normalize_rel, resolve_project_path, Project};

/// Why no slice could be made; the caller falls back to [`Project::load`].
#[derive(Debug, PartialEq, Eq)]
pub enum NoSlice {
    /// An edited file is one the flowgroups are built from.
    LibraryChanged(String),
    /// An edited file is not part of the loaded project (new file).
    UnknownFile(String),
}

impl Project {
    /// A copy of this project with `edits` (new texts by file) applied to
    /// flowgroup, expectations and `.sql` files, holding the flowgroups of
    /// the flowgroup files in which `keep` accepts at least one flowgroup
    /// (edited files are judged by their new flowgroups).
    ///
    /// Files that neither hold a kept flowgroup nor feed the model (the other
    /// flowgroup files) keep their path and text but lose their parse: rules
    /// then find nothing in them, which is why only the findings of the
    /// files the caller planned for are meaningful.
    pub fn slice(&self, edits: &HashMap<FileId, Arc<str>>, keep: &dyn Fn(&Flowgroup) -> bool) -> Result<Project, NoSlice> {
        for id in edits.keys() {
            let file = self.files.get(id.0 as usize).ok_or_else(|| NoSlice::UnknownFile(format!("file #{}", id.0)))?;
            if !matches!(file.kind, FileKind::Flowgroup | FileKind::Expectations | FileKind::Sql) {
                return Err(NoSlice::LibraryChanged(file.rel.clone()));
            }
        }
        let blueprints = self.blueprints();
        let library = flowgroup::Library { templates: &self.templates, presets: &self.presets };

        let empty: Arc<str> = Arc::from("");
        let mut files: Vec<SourceFile> = self
            .files
            .iter()
            .map(|f| match edits.get(&f.id) {
                Some(text) => reparse(f, text.clone(), &self.root),
                None if f.kind == FileKind::Flowgroup => stand_in(f, &empty),
                None => copy(f),
            })
            .collect();

        // Flowgroups in file order, as `load` makes them; edited files
        // replace their old flowgroups in place. A file is kept whole or not
        // at all: its findings need all its flowgroups.
        let mut fresh: Vec<(FileId, Vec<Flowgroup>)> = edits
            .keys()
            .filter(|id| files[id.0 as usize].kind == FileKind::Flowgroup)
            .map(|id| (*id, flowgroups_of(&files[id.0 as usize], &library, &blueprints)))
            .filter(|(_, fgs)| fgs.iter().any(keep))
            .collect();
        fresh.sort_by_key(|(id, _)| *id);
        let kept: HashSet<FileId> = self
            .flowgroups
            .iter()
            .filter(|fg| !edits.contains_key(&fg.file) && keep(fg))
            .map(|fg| fg.file)
            .chain(fresh.iter().map(|(id, _)| *id))
            .collect();
        let mut fresh = fresh.into_iter().peekable();
        let mut flowgroups: Vec<Flowgroup> = Vec::new();
        for fg in &self.flowgroups {
            while let Some((_, new)) = fresh.next_if(|(id, _)| *id <= fg.file) {
                flowgroups.extend(new);
            }
            if kept.contains(&fg.file) && !edits.contains_key(&fg.file) {
                flowgroups.push(fg.clone());
            }
        }
        flowgroups.extend(fresh.flat_map(|(_, new)| new));
        for id in &kept {
            if !edits.contains_key(id) {
                files[id.0 as usize] = copy(&self.files[id.0 as usize]);
            }
        }

        let mut expectations = self.expectations.clone();
        for (rel, set) in expectations.iter_mut() {
            if edits.contains_key(&set.file) {
                *set = interpret_expectations(&files[set.file.0 as usize]);
            }
            debug_assert_eq!(normalize_rel(rel), *rel);
        }
        // An edit may point a flowgroup at an expectations file the load did
        // not read.
        let envs = envs_or_none(&self.envs);
        let overlay: Overlay = edits
            .iter()
            .map(|(id, text)| (self.files[id.0 as usize].path.clone(), text.clone()))
            .collect();
        for (_, action) in flowgroups.iter().flat_map(|fg| fg.actions.iter().map(move |a| (fg, a))) {
            if !action.is_data_quality() {
                continue;
            }
            let Some(path) = action.get_str("expectations_file") else { continue };
            for env in &envs {
                let resolved = env.resolve(path);
                if !resolved.unresolved.is_empty() {
                    continue;
                }
                let rel = normalize_rel(&resolved.text);
                if expectations.contains_key(&rel) {
                    continue;
                }
                let full = resolve_project_path(&self.root, &rel);
                if !full.is_file() {
                    continue;
                }
                let id = FileId(files.len() as u32);
                let file = files::load_file(id, &self.root, full, FileKind::Expectations, &overlay);
                expectations.insert(rel, interpret_expectations(&file));
                files.push(file);
            }
        }

        Ok(Project {
            root: self.root.clone(),
            files,
            envs: self.envs.clone(),
            missing_envs: self.missing_envs.clone(),
            flowgroups,
            templates: self.templates.clone(),
            presets: self.presets.clone(),
            expectations,
            pipeline_config: self.pipeline_config.clone(),
            problems: self.problems.clone(),
            walk_errors: self.walk_errors.clone(),
        })
    }

    /// The project's blueprints by name (the first definition of a name
    /// wins, as in `load`).
    fn blueprints(&self) -> HashMap<String, Blueprint> {
        let mut out: HashMap<String, Blueprint> = HashMap::new();
        for file in self.files.iter().filter(|f| f.kind == FileKind::Blueprint) {
            if let Some(blueprint) = file.first_document().and_then(|v| Blueprint::from_value(file.id, &v)) {
                out.entry(blueprint.name.clone()).or_insert(blueprint);
            }
        }
        out
    }
}

/// The file re-read from `text` and parsed again.
fn reparse(file: &SourceFile, text: Arc<str>, root: &Path) -> SourceFile {
    let overlay: Overlay = HashMap::from([(file.path.clone(), text)]);
    files::load_file(file.id, root, file.path.clone(), file.kind, &overlay)
}

fn copy(file: &SourceFile) -> SourceFile {
    SourceFile {
        id: file.id,
        path: file.path.clone(),
        rel: file.rel.clone(),
        kind: file.kind,
        text: file.text.clone(),
        lines: file.lines.clone(),
        yaml: file.yaml.clone(),
        read_error: file.read_error.clone(),
    }
}

/// The file's name only: no text, parse or line index, so nothing is linted
/// or scanned in it (suppression comments included), and no kept value
/// comes from it. Cheap to make: thousands per keystroke. A file that did
/// not parse stays visibly broken (as unreadable): whether some file is
/// broken decides whether other files' unused suppressions are reported.
fn stand_in(file: &SourceFile, empty: &Arc<str>) -> SourceFile {
    let broken = file.read_error.is_some() || file.yaml.as_ref().is_some_and(|y| !y.errors.is_empty());
    SourceFile {
        id: file.id,
        path: file.path.clone(),
        rel: file.rel.clone(),
        kind: file.kind,
        text: empty.clone(),
        lines: Default::default(),
        yaml: None,
        read_error: broken.then(|| "left out of this re-lint; it did not parse in the last full load".to_string()),
    }
}

/// An expectations file's rules, as `load` reads them.
fn interpret_expectations(file: &SourceFile) -> expectations::ExpectationSet {
    let unreadable = file.read_error.is_some() || file.yaml.as_ref().is_some_and(|y| !y.errors.is_empty());
    if unreadable {
        return expectations::ExpectationSet { file: file.id, shape: expectations::Shape::Invalid, rules: Vec::new(), invalid: None };
    }
    let docs: Vec<Option<&dqlint_yaml::Node>> =
        file.yaml.iter().flat_map(|y| y.documents.iter()).map(|d| d.root.as_ref()).collect();
    expectations::interpret(file.id, &docs, 0..file.text.len())
}

/// The flowgroups of one flowgroup file, exactly as `load` builds them
/// (blueprint instances stamped, misplaced blueprints and empty files
/// reported). `Project::load` builds them with this function too.
pub(crate) fn flowgroups_of(
    file: &SourceFile,
    library: &flowgroup::Library,
    blueprints_by_name: &HashMap<String, Blueprint>,
) -> Vec<Flowgroup> {
    let id = file.id;
    let mut doc_problems = Vec::new();
    let docs: Vec<Value> = file
        .yaml
        .iter()
        .flat_map(|y| y.documents.iter())
        .filter_map(|d| d.root.as_ref())
        .filter(|n| !n.is_null())
        .map(|n| Value::from_node(n, id))
        .enumerate()
        .flat_map(|(index, v)| {
            if v.get("use_blueprint").is_some() && index > 0 {
                doc_problems.push(Problem {
                    kind: ProblemKind::Structure,
                    message: "a blueprint instance file holds one document; LHP rejects several (LHP-CFG-052)".into(),
                    origin: v.origin.at_start(),
                });
                Vec::new()
            } else if v.get("use_blueprint").is_some() {
                blueprints::expand(&v, blueprints_by_name, &mut doc_problems)
            } else if blueprints::looks_like_blueprint(&v) {
                doc_problems.push(Problem {
                    kind: ProblemKind::Structure,
                    message: "this is a blueprint definition: LHP expects blueprints under `blueprints/` and rejects them under `pipelines/` (LHP-CFG-040)".into(),
                    origin: v.origin.at_start(),
                });
                Vec::new()
            } else {
                flowgroup::split_document(v, &mut doc_problems)
            }
        })
        .collect();
    let readable = file.read_error.is_none() && file.yaml.as_ref().is_some_and(|y| y.errors.is_empty());
    let blueprint_instance = file
        .yaml
        .iter()
        .flat_map(|y| y.documents.iter())
        .any(|d| d.root.as_ref().is_some_and(|n| n.get("use_blueprint").is_some()));
    if docs.is_empty() && doc_problems.is_empty() && readable && !blueprint_instance {
        doc_problems.push(Problem {
            kind: ProblemKind::Structure,
            message: "this flowgroup file is empty: LHP rejects it (LHP-CFG-005); add a flowgroup or delete the file".into(),
            origin: Origin::new(id, 0..0),
        });
    }
    let mut out: Vec<Flowgroup> = docs.into_iter().map(|d| flowgroup::resolve(id, d, library)).collect();
    if let Some(first) = out.first_mut() {
        first.problems.extend(doc_problems);
    } else if !doc_problems.is_empty() {
        out.push(Flowgroup {
            file: id,
            doc: Value { kind: ValueKind::Null, origin: Origin::new(id, 0..0) },
            pipeline: None,
            name: None,
            actions: Vec::new(),
            problems: doc_problems,
            presets: Vec::new(),
            template: None,
        });
    }
    out
}
