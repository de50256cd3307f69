//! Project slices: what the language server lints after a keystroke.
//!
//! [`Project::load`] reads and parses every file of the project (seconds on
//! a 2,800-flowgroup project). After an edit, the server instead builds a
//! [`Project::slice`] of the last loaded project: the edited files are
//! re-parsed and re-interpreted (templates, presets, blueprints and
//! environments re-read, and the flowgroups built from an edited template,
//! preset or blueprint rebuilt), the flowgroups are cut down to the ones the
//! wanted findings can depend on, and every other flowgroup file becomes a
//! cheap stand-in (its path, no text or tree). Linting the slice gives, for
//! the files the caller asked about, the same findings as linting a fresh
//! load; `dqlint-lsp`'s `slice_equivalence` test pins that over every file
//! of every fixture project.
//!
//! Only an edit to `lhp.yaml` has no slice: it decides which files the
//! project has (`include`, `blueprint_include`), so the caller re-loads.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::path::Path;
use std::sync::Arc;

use crate::blueprints::{self, Blueprint};
use crate::files::{self, FileKind, Overlay, SourceFile};
use crate::flowgroup::{self, Flowgroup, Problem, ProblemKind};
use crate::value::{FileId, Origin, Value, ValueKind};
use crate::{Env, ExpectationSet, Preset, Project};
use dqlint_yaml::YamlFile;

/// New texts of files for [`Project::slice`], with their parse when the
/// caller has it (an editor buffer kept parsed edit by edit,
/// `dqlint_yaml::LiveYaml`): the slice parses only the others.
#[derive(Clone, Debug, Default)]
pub struct Edits {
    pub texts: HashMap<FileId, Arc<str>>,
    /// The parse of exactly `texts[id]` (`dqlint_yaml::parse` of it).
    pub parses: HashMap<FileId, Arc<YamlFile>>,
    /// Texts, by path, of files the project did not read (open buffers,
    /// files changed on disk): an edit may make it read them.
    pub outside: Overlay,
}

impl From<HashMap<FileId, Arc<str>>> for Edits {
    fn from(texts: HashMap<FileId, Arc<str>>) -> Edits {
        Edits {
            texts,
            ..Edits::default()
        }
    }
}

impl Edits {
    pub fn is_empty(&self) -> bool {
        self.texts.is_empty()
    }

    /// The edited file, re-read from its new text.
    fn apply(&self, file: &SourceFile, root: &Path) -> Option<SourceFile> {
        let text = self.texts.get(&file.id)?;
        Some(match self.parses.get(&file.id) {
            Some(yaml) if file.kind.is_yaml() => SourceFile {
                lines: dqlint_yaml::LineIndex::new(text),
                text: text.clone(),
                yaml: Some(yaml.clone()),
                dqx: None,
                read_error: None,
                ..copy(file)
            },
            _ => reparse(file, text.clone(), root),
        })
    }
}

/// Why no slice could be made; the caller falls back to [`Project::load`].
#[derive(Debug, PartialEq, Eq)]
pub enum NoSlice {
    /// An edited file decides what files the project has (`lhp.yaml`).
    LibraryChanged(String),
    /// An edited file is not part of the loaded project (new file).
    UnknownFile(String),
    /// An edited file found by its content (a DQX checks file or run
    /// config) now reads as another kind of file, or as none: which files
    /// the project has changed.
    KindChanged(String),
}

impl Project {
    /// A copy of this project with `edits` (new texts by file) applied,
    /// holding the flowgroups of the flowgroup files in which `keep` accepts
    /// at least one flowgroup. `keep` also gets the new flowgroups of every
    /// edited or rebuilt file, and judges those files by them.
    ///
    /// An edit to a template, preset or blueprint rebuilds the flowgroups
    /// built from it ([`Project::rebuilt_by`]); an edit to a substitutions
    /// file or `config/pipeline_config.yaml` changes what the rules resolve,
    /// not the flowgroups. Only `lhp.yaml` (which decides what files the
    /// project has) refuses a slice.
    ///
    /// Files that neither hold a kept flowgroup nor feed the model (the other
    /// flowgroup files) keep their path and text but lose their parse: rules
    /// then find nothing in them, which is why only the findings of the
    /// files the caller planned for are meaningful.
    pub fn slice(
        &self,
        all_edits: &Edits,
        keep: &dyn Fn(&Flowgroup, &[Flowgroup]) -> bool,
    ) -> Result<Project, NoSlice> {
        let edits = &all_edits.texts;
        let mut named: Option<Vec<std::path::PathBuf>> = None;
        for id in edits.keys() {
            let file = self
                .files
                .get(id.0 as usize)
                .ok_or_else(|| NoSlice::UnknownFile(format!("file #{}", id.0)))?;
            if matches!(file.kind, FileKind::ProjectConfig | FileKind::LintConfig) {
                return Err(NoSlice::LibraryChanged(file.rel.clone()));
            }
            // A pipeline source that stops reading as one (or an LHP `.sql`
            // file that starts to) changes which rules read it.
            if matches!(
                file.kind,
                FileKind::PipelinePython | FileKind::PipelineSql | FileKind::Sql
            ) {
                let now = match crate::dialect::classify(&file.rel, &edits[id]) {
                    Some(crate::Dialect::PipelinePython) => Some(FileKind::PipelinePython),
                    Some(crate::Dialect::PipelineSql) => Some(FileKind::PipelineSql),
                    _ if file.kind == FileKind::Sql => Some(FileKind::Sql),
                    _ => None,
                };
                if now != Some(file.kind) {
                    return Err(NoSlice::KindChanged(file.rel.clone()));
                }
            }
            if matches!(file.kind, FileKind::DqxChecks | FileKind::DqxRunConfig) {
                let text = &edits[id];
                let yaml = all_edits.parses.get(id).map(|y| y.as_ref());
                let now = self.dqx_forced.dqx_kind(&file.rel, text, yaml);
                // A file a run config names is a checks file whatever its
                // content, unless it now reads as a run config itself.
                let still_named = file.kind == FileKind::DqxChecks
                    && now != Some(FileKind::DqxRunConfig)
                    && named
                        .get_or_insert_with(|| {
                            crate::named_checks_files(&self.root, &self.files, &all_edits.outside)
                        })
                        .contains(&file.path);
                if now != Some(file.kind) && !still_named {
                    return Err(NoSlice::KindChanged(file.rel.clone()));
                }
            }
        }
        let edited_kind = |kind: FileKind| {
            edits
                .keys()
                .any(|id| self.files[id.0 as usize].kind == kind)
        };

        let empty: Arc<str> = Arc::from("");
        // Flowgroup files holding no flowgroup (broken, empty) are copied
        // whole: there is nothing to leave out of them, and their own
        // findings (syntax errors, wrong types) need their text.
        let holding: HashSet<FileId> = self.flowgroups.iter().map(|fg| fg.file).collect();
        let mut files: Vec<SourceFile> = self
            .files
            .iter()
            .map(|f| match all_edits.apply(f, &self.root) {
                Some(edited) => edited,
                None if f.kind == FileKind::Flowgroup && holding.contains(&f.id) => {
                    stand_in(f, &empty)
                }
                None => copy(f),
            })
            .collect();
        // A run config edit that changes which files its `checks_location`s
        // name changes which files are checks files.
        let edited_run_config = edits
            .keys()
            .any(|id| self.files[id.0 as usize].kind == FileKind::DqxRunConfig);
        if edited_run_config {
            // Files that are checks files by their content are so either way.
            let by_name_only = |paths: Vec<std::path::PathBuf>| -> Vec<std::path::PathBuf> {
                paths
                    .into_iter()
                    .filter(|p| {
                        !files.iter().any(|f| {
                            &f.path == p
                                && self.dqx_forced.dqx_kind(&f.rel, &f.text, f.yaml.as_deref())
                                    == Some(FileKind::DqxChecks)
                        })
                    })
                    .collect()
            };
            let before = by_name_only(named.unwrap_or_else(|| {
                crate::named_checks_files(&self.root, &self.files, &all_edits.outside)
            }));
            let after = by_name_only(crate::named_checks_files(
                &self.root,
                &files,
                &all_edits.outside,
            ));
            if after != before {
                let rel = edits
                    .keys()
                    .map(|id| &self.files[id.0 as usize])
                    .find(|f| f.kind == FileKind::DqxRunConfig)
                    .map_or_else(String::new, |f| f.rel.clone());
                return Err(NoSlice::KindChanged(rel));
            }
        }
        let ids_of = |files: &[SourceFile], kind: FileKind| -> Vec<FileId> {
            files
                .iter()
                .filter(|f| f.kind == kind)
                .map(|f| f.id)
                .collect()
        };

        // The library, re-read where edited.
        let templates = if edited_kind(FileKind::Template) {
            crate::read_templates(&files, &ids_of(&files, FileKind::Template))
        } else {
            self.templates.clone()
        };
        let presets = if edited_kind(FileKind::Preset) {
            crate::read_presets(files.iter().filter(|f| f.kind == FileKind::Preset))
        } else {
            self.presets.clone()
        };
        let mut library_problems = Vec::new();
        let blueprints = blueprints::collect(
            &files,
            &ids_of(&files, FileKind::Blueprint),
            &mut library_problems,
        );
        let problems = if edited_kind(FileKind::Blueprint) || edited_kind(FileKind::Preset) {
            library_problems.extend(crate::preset_file_problems(
                &files,
                &ids_of(&files, FileKind::Preset),
            ));
            library_problems
        } else {
            self.problems.clone()
        };
        let envs: Vec<Env> = self
            .envs
            .iter()
            .map(|env| match env.file {
                Some(id) if edits.contains_key(&id) => Env::from_file(
                    &env.name,
                    id,
                    files[id.0 as usize].first_document().as_ref(),
                ),
                _ => env.clone(),
            })
            .collect();
        let pipeline_config = match self.pipeline_config.file {
            Some(id) if edits.contains_key(&id) => {
                crate::load_pipeline_config(&files[id.0 as usize])
            }
            _ => self.pipeline_config.clone(),
        };
        let library = flowgroup::Library {
            templates: &templates,
            presets: &presets,
        };

        // Flowgroup files whose flowgroups change: the edited ones and those
        // built from an edited template, preset or blueprint (read again:
        // the load released their trees).
        let rebuilt = self.rebuilt_by_library(
            edits.keys().copied().collect::<Vec<_>>().as_slice(),
            &presets,
        );
        for id in &rebuilt {
            if !edits.contains_key(id) {
                let file = &self.files[id.0 as usize];
                files[id.0 as usize] = reparse(file, file.text.clone(), &self.root);
            }
        }
        let changed: HashSet<FileId> = edits
            .keys()
            .filter(|id| files[id.0 as usize].kind == FileKind::Flowgroup)
            .chain(&rebuilt)
            .copied()
            .collect();

        // Flowgroups in file order, as `load` makes them; changed files
        // replace their old flowgroups in place. A file is kept whole or not
        // at all: its findings need all its flowgroups.
        let mut changed_in_order: Vec<FileId> = changed.iter().copied().collect();
        changed_in_order.sort();
        let fresh_all: Vec<Flowgroup> = changed_in_order
            .iter()
            .flat_map(|id| flowgroups_of(&files[id.0 as usize], &library, &blueprints))
            .collect();
        // The expectations files a fresh load would read: those of every
        // flowgroup, kept or not, with the new texts and tokens. The same
        // as the load's when the environments and what the changed
        // flowgroups read are (the usual keystroke).
        let reads = |fgs: &mut dyn Iterator<Item = &Flowgroup>| -> BTreeSet<String> {
            let envs = crate::envs_or_none(&envs);
            fgs.flat_map(|fg| fg.expectations_files(&envs)).collect()
        };
        let same_reads = !edited_kind(FileKind::Substitutions)
            && reads(
                &mut self
                    .flowgroups
                    .iter()
                    .filter(|fg| changed.contains(&fg.file)),
            ) == reads(&mut fresh_all.iter());
        let wanted = (!same_reads).then(|| {
            crate::wanted_expectations(
                &self.root,
                self.flowgroups
                    .iter()
                    .filter(|fg| !changed.contains(&fg.file))
                    .chain(&fresh_all),
                &envs,
            )
        });
        let fresh_kept: HashSet<FileId> = fresh_all
            .iter()
            .filter(|fg| keep(fg, &fresh_all))
            .map(|fg| fg.file)
            .collect();
        let kept: HashSet<FileId> = self
            .flowgroups
            .iter()
            .filter(|fg| !changed.contains(&fg.file) && keep(fg, &fresh_all))
            .map(|fg| fg.file)
            .chain(fresh_kept.iter().copied())
            .collect();
        let mut fresh = fresh_all
            .into_iter()
            .filter(|fg| fresh_kept.contains(&fg.file))
            .peekable();
        let mut flowgroups: Vec<Flowgroup> = Vec::new();
        for fg in &self.flowgroups {
            while let Some(new) = fresh.next_if(|new| new.file <= fg.file) {
                flowgroups.push(new);
            }
            if kept.contains(&fg.file) && !changed.contains(&fg.file) {
                flowgroups.push(fg.clone());
            }
        }
        flowgroups.extend(fresh);
        for id in &kept {
            if !changed.contains(id) {
                files[id.0 as usize] = copy(&self.files[id.0 as usize]);
            }
        }
        // Rebuilt files the caller did not keep are linted as stand-ins too.
        for id in changed
            .iter()
            .filter(|id| !kept.contains(id) && !edits.contains_key(id))
        {
            files[id.0 as usize] = stand_in(&self.files[id.0 as usize], &empty);
        }

        // Expectations files: re-read where edited, new ones read, and the
        // ones nothing reads any more left out (a fresh load would not see
        // them).
        let mut overlay: Overlay = all_edits.outside.clone();
        overlay.extend(
            edits
                .iter()
                .map(|(id, text)| (self.files[id.0 as usize].path.clone(), text.clone())),
        );
        let (wanted, missing_expectations) = wanted.unwrap_or_else(|| {
            let found = self
                .expectations
                .keys()
                .map(|rel| (rel.clone(), crate::resolve_project_path(&self.root, rel)))
                .collect();
            (found, self.missing_expectations.clone())
        });
        let mut expectations = BTreeMap::new();
        for (rel, full) in wanted {
            let set = match self.expectations.get(&rel) {
                Some(set) if edits.contains_key(&set.file) => {
                    crate::interpret_expectations(&files[set.file.0 as usize])
                }
                Some(set) => set.clone(),
                None => {
                    // A file left out by an earlier slice is read again in
                    // its place: one id per path.
                    let id = files
                        .iter()
                        .find(|f| f.path == full)
                        .map_or(FileId(files.len() as u32), |f| f.id);
                    let file =
                        files::load_file(id, &self.root, full, FileKind::Expectations, &overlay);
                    let set = crate::interpret_expectations(&file);
                    match files.get_mut(id.0 as usize) {
                        Some(slot) => *slot = file,
                        None => files.push(file),
                    }
                    set
                }
            };
            expectations.insert(rel, set);
        }
        for (rel, set) in &self.expectations {
            if !expectations.contains_key(rel)
                && !expectations
                    .values()
                    .any(|s: &ExpectationSet| s.file == set.file)
            {
                let file = &self.files[set.file.0 as usize];
                files[set.file.0 as usize] = SourceFile {
                    text: empty.clone(),
                    lines: Default::default(),
                    yaml: None,
                    dqx: None,
                    read_error: None,
                    ..copy(file)
                };
            }
        }

        Ok(Project {
            root: self.root.clone(),
            files,
            envs,
            missing_envs: self.missing_envs.clone(),
            envs_from: self.envs_from,
            flowgroups,
            templates,
            presets,
            expectations,
            missing_expectations,
            pipeline_config,
            problems,
            walk_errors: self.walk_errors.clone(),
            dqx_forced: self.dqx_forced.clone(),
            listing: self.listing.clone(),
        })
    }

    /// The flowgroup files whose flowgroups are built from one of the
    /// library files (templates, presets, blueprints) among `edits`, before
    /// or after the edit.
    pub fn rebuilt_by(&self, edits: &HashMap<FileId, Arc<str>>) -> HashSet<FileId> {
        // The presets after the edit: edited preset files read again.
        let edited: Vec<SourceFile> = self
            .files
            .iter()
            .filter(|f| f.kind == FileKind::Preset && edits.contains_key(&f.id))
            .map(|f| reparse(f, edits[&f.id].clone(), &self.root))
            .collect();
        let presets = crate::read_presets(
            self.files
                .iter()
                .filter(|f| f.kind == FileKind::Preset)
                .map(|f| edited.iter().find(|e| e.id == f.id).unwrap_or(f)),
        );
        self.rebuilt_by_library(&edits.keys().copied().collect::<Vec<_>>(), &presets)
    }

    /// [`Project::rebuilt_by`] with the presets after the edit known: users
    /// of an edited template, of a preset (or a preset extending it) named
    /// in an edited preset file before or after the edit, and every
    /// blueprint instance for an edited blueprint.
    fn rebuilt_by_library(
        &self,
        edited: &[FileId],
        presets: &HashMap<String, Preset>,
    ) -> HashSet<FileId> {
        let mut out = HashSet::new();
        let kind = |id: &FileId| self.files.get(id.0 as usize).map(|f| f.kind);
        let templates: HashSet<String> = edited
            .iter()
            .filter(|id| kind(id) == Some(FileKind::Template))
            .filter_map(|id| crate::template_name(&self.files[id.0 as usize].rel))
            .collect();
        let edited_presets: HashSet<FileId> = edited
            .iter()
            .filter(|id| kind(id) == Some(FileKind::Preset))
            .copied()
            .collect();
        let mut preset_names: HashSet<String> = self
            .presets
            .values()
            .chain(presets.values())
            .filter(|p| edited_presets.contains(&p.file))
            .map(|p| p.name.clone())
            .collect();
        // ...and every preset that extends one of them, before or after.
        loop {
            let extending: Vec<String> = self
                .presets
                .values()
                .chain(presets.values())
                .filter(|p| {
                    !preset_names.contains(&p.name)
                        && p.extends.as_ref().is_some_and(|e| preset_names.contains(e))
                })
                .map(|p| p.name.clone())
                .collect();
            if extending.is_empty() {
                break;
            }
            preset_names.extend(extending);
        }
        for fg in &self.flowgroups {
            let uses_template = fg
                .template
                .as_ref()
                .is_some_and(|(name, _)| templates.contains(name));
            let uses_preset = fg
                .presets
                .iter()
                .any(|(name, _)| preset_names.contains(name));
            if uses_template || uses_preset {
                out.insert(fg.file);
            }
        }
        if edited
            .iter()
            .any(|id| kind(id) == Some(FileKind::Blueprint))
        {
            out.extend(
                self.files
                    .iter()
                    .filter(|f| f.kind == FileKind::Flowgroup && f.text.contains("use_blueprint"))
                    .map(|f| f.id),
            );
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
        dqx: file.dqx.clone(),
        read_error: file.read_error.clone(),
    }
}

/// The file's name only: no text, parse or line index, so nothing is linted
/// or scanned in it (suppression comments included), and no kept value
/// comes from it. Cheap to make: thousands per keystroke. A file that did
/// not parse stays visibly broken (as unreadable): whether some file is
/// broken decides whether other files' unused suppressions are reported.
fn stand_in(file: &SourceFile, empty: &Arc<str>) -> SourceFile {
    let broken = file.is_broken();
    SourceFile {
        id: file.id,
        path: file.path.clone(),
        rel: file.rel.clone(),
        kind: file.kind,
        text: empty.clone(),
        lines: Default::default(),
        yaml: None,
        dqx: None,
        read_error: broken.then(|| {
            "left out of this re-lint; it did not parse in the last full load".to_string()
        }),
    }
}

/// The flowgroups of one flowgroup file, exactly as `load` builds them
/// (blueprint instances stamped, misplaced blueprints and empty files
/// reported). `Project::load` builds them with this function too.
pub(crate) fn flowgroups_of(
    file: &SourceFile,
    library: &flowgroup::Library,
    blueprints_by_name: &HashMap<String, Blueprint>,
) -> Vec<Flowgroup> {
    let roots: Vec<Value> = file
        .yaml
        .iter()
        .flat_map(|y| y.documents.iter())
        .filter_map(|d| d.root.as_ref())
        .filter(|n| !n.is_null())
        .map(|n| Value::from_node(n, file.id))
        .collect();
    flowgroups_from(file, roots, library, blueprints_by_name)
}

/// [`flowgroups_of`], moving the file's document trees into the model
/// instead of copying them. Once a flowgroup file's flowgroups are built,
/// its trees are not read again (the model holds every value with its
/// origin): moving them keeps peak memory to one copy of a big project,
/// and copying every scalar cost a tenth of a cold run. Spans, errors,
/// comments and duplicate keys stay.
pub(crate) fn flowgroups_taking_trees(
    file: &mut SourceFile,
    library: &flowgroup::Library,
    blueprints_by_name: &HashMap<String, Blueprint>,
) -> Vec<Flowgroup> {
    let mut roots = Vec::new();
    if let Some(yaml) = &mut file.yaml {
        // Unshared right after the load made it: no copy.
        for document in &mut std::sync::Arc::make_mut(yaml).documents {
            if let Some(root) = document.root.take().filter(|n| !n.is_null()) {
                roots.push(Value::from_owned_node(root, file.id));
            }
        }
    }
    flowgroups_from(file, roots, library, blueprints_by_name)
}

/// The flowgroups of a flowgroup file whose non-null documents are
/// `roots`, in order.
fn flowgroups_from(
    file: &SourceFile,
    roots: Vec<Value>,
    library: &flowgroup::Library,
    blueprints_by_name: &HashMap<String, Blueprint>,
) -> Vec<Flowgroup> {
    let id = file.id;
    let mut doc_problems = Vec::new();
    let blueprint_instance = roots.iter().any(|v| v.get("use_blueprint").is_some());
    let docs: Vec<Value> = roots
        .into_iter()
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
    let readable =
        file.read_error.is_none() && file.yaml.as_ref().is_some_and(|y| y.errors.is_empty());
    if docs.is_empty() && doc_problems.is_empty() && readable && !blueprint_instance {
        doc_problems.push(Problem {
            kind: ProblemKind::Structure,
            message: "this flowgroup file is empty: LHP rejects it (LHP-CFG-005); add a flowgroup or delete the file".into(),
            origin: Origin::new(id, 0..0),
        });
    }
    let mut out: Vec<Flowgroup> = docs
        .into_iter()
        .map(|d| flowgroup::resolve(id, d, library))
        .collect();
    if let Some(first) = out.first_mut() {
        first.problems.extend(doc_problems);
    } else if !doc_problems.is_empty() {
        out.push(Flowgroup {
            file: id,
            doc: Value {
                kind: ValueKind::Null,
                origin: Origin::new(id, 0..0),
            },
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
