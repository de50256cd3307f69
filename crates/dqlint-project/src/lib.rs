//! The LHP project model: what `lhp validate` / `lhp generate` would see,
//! with every value keeping its [`Origin`].

pub mod blueprints;
pub mod dialect;
pub mod expectation_model;
pub mod expectations;
pub mod files;
pub mod flowgroup;
pub mod incremental;
pub mod rule_registry;
pub mod substitution;
pub mod templates;
pub mod timings;
pub mod value;
pub mod vocabulary;

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

use rayon::prelude::*;

pub use blueprints::Blueprint;
pub use dialect::{
    classify, discover, find_lint_root, holds_dialect_files, Dialect, RootMarker, Workspace,
};
pub use expectation_model::{
    Check, DatasetExpectations, Enforcement, Expectation, ExpectationSource, SourceSpan,
};
pub use expectations::{ExpectationSet, Rule, RuleAction, Shape};
pub use files::{FileKind, Missing, Overlay, SourceFile};
pub use flowgroup::{Action, Flowgroup, Problem, ProblemKind};
pub use incremental::{Edits, NoSlice};
pub use substitution::{Env, Resolved, TokenRef, TokenSyntax};
pub use templates::{Preset, Template};
pub use value::{Entry, FileId, Origin, Value, ValueKind, Via};

/// Why a project could not be loaded at all (exit code 2).
#[derive(Debug)]
pub struct LoadError(pub String);

impl std::fmt::Display for LoadError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// What to load.
#[derive(Clone, Debug, Default)]
pub struct LoadOptions {
    /// `--env` values; empty means every `substitutions/*.yaml`.
    pub envs: Vec<String>,
    /// Editor buffers that override the disk.
    pub overlay: Overlay,
    /// Globs (project-relative) of the `.sql` files to read; `None`: every
    /// `.sql` file under the root (`ddl` in `dqlint.toml`).
    pub ddl: Option<globset::GlobSet>,
    /// The `dqlint.toml` whose `envs` gave [`LoadOptions::envs`] (none when
    /// they came from `--env` or are the default): read as a project file
    /// ([`FileKind::LintConfig`], [`Project::envs_from`]).
    pub envs_from: Option<PathBuf>,
    /// `[dqx] checks`: files read as DQX checks files whatever their content.
    pub dqx_checks: Option<globset::GlobSet>,
    /// `[dqx] configs`: files read as DQX run configs whatever their content.
    pub dqx_configs: Option<globset::GlobSet>,
    /// `[policy] registry`: YAML files read as the team's rule registry
    /// ([`FileKind::PolicyRegistry`], [`rule_registry`]).
    pub registry: Option<globset::GlobSet>,
    /// The project is linted once and dropped (the CLI): each DQX checks
    /// file found by its content is typed as it is read
    /// ([`SourceFile::dqx`]) and its YAML trees are released, so a large
    /// DQX root never holds its trees and its typed checks at once. The
    /// language server keeps the trees (rename, re-lints of slices).
    pub release_dqx_trees: bool,
}

/// The files `dqlint.toml` forces to a DQX kind (`[dqx] checks`,
/// `[dqx] configs`; project-relative globs). A run config glob wins.
#[derive(Clone, Debug, Default)]
pub struct DqxForced {
    pub checks: Option<globset::GlobSet>,
    pub configs: Option<globset::GlobSet>,
}

impl DqxForced {
    /// The kind forced on the file at project-relative `rel`, if any.
    pub fn kind_of(&self, rel: &str) -> Option<FileKind> {
        let hit = |set: &Option<globset::GlobSet>| set.as_ref().is_some_and(|s| s.is_match(rel));
        if hit(&self.configs) {
            Some(FileKind::DqxRunConfig)
        } else if hit(&self.checks) {
            Some(FileKind::DqxChecks)
        } else {
            None
        }
    }

    /// The DQX kind of a YAML/JSON file outside LHP's layout: forced by
    /// `dqlint.toml`, else by its content ([`dialect::dqx_kind`]).
    pub fn dqx_kind(
        &self,
        rel: &str,
        text: &str,
        yaml: Option<&dqlint_yaml::YamlFile>,
    ) -> Option<FileKind> {
        self.kind_of(rel)
            .or_else(|| dialect::dqx_kind(rel, text, yaml))
    }
}

#[derive(Debug)]
pub struct Project {
    pub root: PathBuf,
    pub files: Vec<SourceFile>,
    pub envs: Vec<Env>,
    /// Environments asked for with `--env` that have no substitutions file.
    pub missing_envs: Vec<String>,
    /// The `dqlint.toml` that listed the environments (`envs`), when they
    /// came from it ([`LoadOptions::envs_from`]).
    pub envs_from: Option<FileId>,
    pub flowgroups: Vec<Flowgroup>,
    pub templates: HashMap<String, Template>,
    pub presets: HashMap<String, Preset>,
    /// Expectations files by their project-relative path as referenced.
    pub expectations: BTreeMap<String, ExpectationSet>,
    /// Expectations files referenced (by project-relative path) that are
    /// no file LHP can read, with what is there instead.
    pub missing_expectations: BTreeMap<String, Missing>,
    pub pipeline_config: PipelineConfig,
    /// Problems found outside any flowgroup (bad preset file, ...).
    pub problems: Vec<Problem>,
    /// Files walked under `pipelines/` that the walk could not read
    /// (symlink loops, permissions), with the reason.
    pub walk_errors: Vec<(PathBuf, String)>,
    /// The files `dqlint.toml` makes DQX files whatever their content.
    pub dqx_forced: DqxForced,
    /// The files under the root, as the load walked them.
    pub listing: files::Listing,
}

/// `continuous` per pipeline from `config/pipeline_config.yaml`.
#[derive(Clone, Debug, Default)]
pub struct PipelineConfig {
    pub file: Option<FileId>,
    pub default_continuous: Option<(bool, Origin)>,
    pub continuous: HashMap<String, (bool, Origin)>,
}

impl PipelineConfig {
    /// The `continuous: true` setting that applies to `pipeline`, if any.
    pub fn continuous_for(&self, pipeline: &str) -> Option<&Origin> {
        match self
            .continuous
            .get(pipeline)
            .or(self.default_continuous.as_ref())
        {
            Some((true, origin)) => Some(origin),
            _ => None,
        }
    }
}

/// The nearest ancestor folder (or `start` itself) holding `lhp.yaml`
/// (see [`find_lint_root`] for the roots of other dialects).
pub fn find_root(start: &Path) -> Option<PathBuf> {
    match find_lint_root(start) {
        (root, RootMarker::LhpProject) => Some(root),
        _ => None,
    }
}

impl Project {
    pub fn file(&self, id: FileId) -> &SourceFile {
        &self.files[id.0 as usize]
    }

    /// The project's `lhp.yaml`.
    pub fn project_config(&self) -> Option<&SourceFile> {
        self.files
            .iter()
            .find(|f| f.kind == FileKind::ProjectConfig)
    }

    pub fn file_by_path(&self, path: &Path) -> Option<&SourceFile> {
        self.files.iter().find(|f| f.path == path)
    }

    /// Whether a file stands at `path`: one the load read (from the disk or
    /// an open buffer), else a regular file on disk (`files::is_file`).
    /// The editor links and jumps only to files that exist.
    pub fn has_file(&self, path: &Path) -> bool {
        self.file_by_path(path)
            .is_some_and(|f| f.read_error.is_none())
            || files::is_file(path)
    }

    /// Every problem met while building the model: the flowgroups' and the
    /// project-wide ones (blueprint and preset files).
    pub fn all_problems(&self) -> impl Iterator<Item = &Problem> {
        self.flowgroups
            .iter()
            .flat_map(|fg| fg.problems.iter())
            .chain(&self.problems)
    }

    /// The kinds of the files that do not read or parse.
    pub fn broken_kinds(&self) -> std::collections::HashSet<FileKind> {
        self.files
            .iter()
            .filter(|f| f.is_broken())
            .map(|f| f.kind)
            .collect()
    }

    /// Every action of every flowgroup, with its flowgroup.
    pub fn actions(&self) -> impl Iterator<Item = (&Flowgroup, &Action)> {
        self.flowgroups
            .iter()
            .flat_map(|fg| fg.actions.iter().map(move |a| (fg, a)))
    }

    /// The project-relative path under which the expectations file `file`
    /// is read.
    pub fn expectations_rel(&self, file: FileId) -> Option<&str> {
        self.expectations
            .iter()
            .find(|(_, set)| set.file == file)
            .map(|(rel, _)| rel.as_str())
    }

    pub fn expectations_for(&self, rel: &str) -> Option<&ExpectationSet> {
        self.expectations.get(&normalize_rel(rel))
    }

    /// The team's rule registry: every [`FileKind::PolicyRegistry`] file,
    /// read ([`rule_registry::RegistryFile::interpret`]).
    pub fn rule_registry(&self) -> Vec<rule_registry::RegistryFile> {
        self.files
            .iter()
            .filter(|f| f.kind == FileKind::PolicyRegistry && f.read_error.is_none())
            .map(|f| {
                let roots: Vec<&dqlint_yaml::Node> = f
                    .yaml
                    .as_ref()
                    .map(|y| y.documents.iter().filter_map(|d| d.root.as_ref()).collect())
                    .unwrap_or_default();
                rule_registry::RegistryFile::interpret(f.id, &f.rel, &roots)
            })
            .collect()
    }

    /// Whether this is an LHP project (its root holds `lhp.yaml`); else a
    /// DQX-only root ([`Project::load`]).
    pub fn is_lhp(&self) -> bool {
        self.project_config().is_some()
    }

    /// Loads the project at `root`: a folder holding `lhp.yaml`, or any
    /// other folder, which is then a DQX-only root: no LHP layout walk, no
    /// DDL catalog, only the DQX checks files and run configs under it
    /// (found as in an LHP project: by content, and by the run configs'
    /// `checks_location`). A DQX-only root without such files loads as an
    /// empty project; the CLI refuses it before (exit 2, nothing to lint).
    pub fn load(root: &Path, options: &LoadOptions) -> Result<Project, LoadError> {
        let root = std::fs::canonicalize(root)
            .map_err(|e| LoadError(format!("cannot read project root {}: {e}", root.display())))?;
        if !root.is_dir() {
            return Err(LoadError(format!(
                "{} is not a folder to lint",
                root.display()
            )));
        }
        let dqx_forced = DqxForced {
            checks: options.dqx_checks.clone(),
            configs: options.dqx_configs.clone(),
        };
        let mut loader = Loader {
            root: root.clone(),
            overlay: &options.overlay,
            files: Vec::new(),
            walk_errors: Vec::new(),
            dqx_forced: &dqx_forced,
            listing: files::Listing::walk(&root),
            release_dqx_trees: options.release_dqx_trees,
        };
        if !root.join("lhp.yaml").is_file() {
            timings::phase_done("load: start (root without an LHP project)");
            loader.add_dqx_files(&root);
            timings::phase_done("load: DQX files");
            loader.add_pipeline_files(&root, true);
            timings::phase_done("load: pipeline sources");
            loader.add_registry_files(&root, options.registry.as_ref());
            let walk_errors = std::mem::take(&mut loader.walk_errors);
            let listing = std::mem::take(&mut loader.listing);
            return Ok(Project {
                root,
                files: loader.files,
                envs: Vec::new(),
                missing_envs: Vec::new(),
                envs_from: None,
                flowgroups: Vec::new(),
                templates: HashMap::new(),
                presets: HashMap::new(),
                expectations: BTreeMap::new(),
                missing_expectations: BTreeMap::new(),
                pipeline_config: PipelineConfig::default(),
                problems: Vec::new(),
                walk_errors,
                dqx_forced,
                listing,
            });
        }

        timings::phase_done("load: start");
        let project_file = loader.add(root.join("lhp.yaml"), FileKind::ProjectConfig);
        loader.parse_pending();
        let include = include_patterns(&loader.files[project_file.0 as usize]);

        let flowgroup_paths = loader.walk(&root.join("pipelines"), true);
        let flowgroup_paths: Vec<PathBuf> = flowgroup_paths
            .into_iter()
            .filter(|p| {
                include.as_ref().is_none_or(|set| {
                    let rel = files::relative_path(&root.join("pipelines"), p);
                    set.is_match(&rel)
                })
            })
            .collect();
        loader.files.reserve(flowgroup_paths.len());
        let flowgroup_ids: Vec<FileId> = flowgroup_paths
            .into_iter()
            .map(|p| loader.add(p, FileKind::Flowgroup))
            .collect();
        // LHP opens `templates/<name>.yaml`, so `use_template:
        // ingestion/csv` reads a file in a sub-folder.
        let template_ids: Vec<FileId> = loader
            .walk(&root.join("templates"), true)
            .into_iter()
            .filter(|p| p.extension().is_some_and(|x| x == "yaml"))
            .map(|p| loader.add(p, FileKind::Template))
            .collect();
        let blueprint_ids: Vec<FileId> = blueprint_paths(
            &root,
            &blueprint_patterns(&loader.files[project_file.0 as usize]),
            &mut loader,
        )
        .into_iter()
        .map(|p| loader.add(p, FileKind::Blueprint))
        .collect();
        let preset_ids: Vec<FileId> = top_level_yaml(&root.join("presets"))
            .into_iter()
            .map(|p| loader.add(p, FileKind::Preset))
            .collect();
        let substitution_paths = top_level_yaml(&root.join("substitutions"));
        let substitution_ids: Vec<FileId> = substitution_paths
            .into_iter()
            .map(|p| loader.add(p, FileKind::Substitutions))
            .collect();
        let pipeline_config_path = root.join("config").join("pipeline_config.yaml");
        let pipeline_config_id = pipeline_config_path
            .is_file()
            .then(|| loader.add(pipeline_config_path, FileKind::PipelineConfig));
        timings::phase_done("load: walk");
        // Flowgroup files are read, parsed and resolved in one parallel
        // pass below, each tree freed as soon as its flowgroups are built;
        // what resolution needs (templates, presets, tokens) comes first.
        loader.parse_pending_where(|f| f.kind != FileKind::Flowgroup);
        timings::phase_done("load: read + parse (all but flowgroups)");

        let mut problems = Vec::new();
        let templates = read_templates(&loader.files, &template_ids);
        let presets = read_presets(preset_ids.iter().map(|id| &loader.files[id.0 as usize]));

        let blueprints = blueprints::collect(&loader.files, &blueprint_ids, &mut problems);

        let (envs, missing_envs) = load_envs(&loader.files, &substitution_ids, &options.envs);

        let library = flowgroup::Library {
            templates: &templates,
            presets: &presets,
        };
        // Flowgroup files were registered right after lhp.yaml, in one run.
        let flowgroup_files = match (flowgroup_ids.first(), flowgroup_ids.last()) {
            (Some(first), Some(last)) => first.0 as usize..last.0 as usize + 1,
            _ => 0..0,
        };
        debug_assert_eq!(flowgroup_files.len(), flowgroup_ids.len());
        let (root_ref, overlay) = (&loader.root, loader.overlay);
        let flowgroups: Vec<Flowgroup> = loader.files[flowgroup_files]
            .par_iter_mut()
            .flat_map_iter(|file| {
                load_if_pending(file, root_ref, overlay);
                incremental::flowgroups_taking_trees(file, &library, &blueprints)
            })
            .collect();

        timings::phase_done("load: flowgroups read, parsed and resolved");
        let (wanted, missing_expectations) = wanted_expectations(&root, &flowgroups, &envs);
        let expectation_ids: Vec<(String, FileId)> = wanted
            .into_iter()
            .map(|(rel, full)| {
                let id = loader.add(full, FileKind::Expectations);
                (rel, id)
            })
            .collect();
        loader.parse_pending();
        let expectations = expectation_ids
            .into_iter()
            .map(|(rel, id)| (rel, interpret_expectations(&loader.files[id.0 as usize])))
            .collect();

        let pipeline_config = pipeline_config_id
            .map(|id| load_pipeline_config(&loader.files[id.0 as usize]))
            .unwrap_or_default();

        // SQL files: the DDL catalog (DQ4xx) reads them.
        let sql_paths = loader.sql_files();
        let sql_paths = sql_paths.into_iter().filter(|p| {
            options
                .ddl
                .as_ref()
                .is_none_or(|set| set.is_match(files::relative_path(&root, p)))
        });
        let first_sql = loader.files.len();
        for path in sql_paths {
            loader.add(path, FileKind::Sql);
        }
        loader.parse_pending();
        // A `.sql` file holding pipeline statements is a pipeline source
        // (its DLQ DDL, if any, still feeds the DDL catalog).
        for file in &mut loader.files[first_sql..] {
            if file.read_error.is_none()
                && dialect::classify(&file.rel, &file.text) == Some(dialect::Dialect::PipelineSql)
            {
                file.kind = FileKind::PipelineSql;
            }
        }

        loader.add_dqx_files(&root);
        loader.add_pipeline_files(&root, false);
        loader.add_registry_files(&root, options.registry.as_ref());

        // Last, so that flowgroup ids stay one run after lhp.yaml's.
        // A configuration given as text (tests) or gone since it was read
        // is not a file findings can point at.
        let envs_from = options
            .envs_from
            .as_ref()
            .filter(|path| options.overlay.contains_key(*path) || path.is_file())
            .map(|path| {
                let path = match options.overlay.contains_key(path) {
                    true => path.clone(),
                    false => std::fs::canonicalize(path).unwrap_or_else(|_| path.clone()),
                };
                let id = loader.add(path, FileKind::LintConfig);
                loader.parse_pending();
                id
            });

        timings::phase_done("load: expectations + sql");
        problems.extend(preset_file_problems(&loader.files, &preset_ids));
        let walk_errors = std::mem::take(&mut loader.walk_errors);
        let listing = std::mem::take(&mut loader.listing);
        Ok(Project {
            root,
            files: loader.files,
            envs,
            missing_envs,
            envs_from,
            flowgroups,
            templates,
            presets,
            expectations,
            missing_expectations,
            pipeline_config,
            problems,
            walk_errors,
            dqx_forced,
            listing,
        })
    }
}

/// The files under `root` that the run configs among `files` name as
/// `checks_location` (`dqlint_dqx::discovery::checks_locations`: relative
/// to the run config's folder, as DQX resolves them against its
/// installation folder), that exist (on disk or in `overlay`) and are not
/// a run config themselves. Sorted, without duplicates.
pub fn named_checks_files(root: &Path, files: &[SourceFile], overlay: &Overlay) -> Vec<PathBuf> {
    let mut out = std::collections::BTreeSet::new();
    for file in files.iter().filter(|f| f.kind == FileKind::DqxRunConfig) {
        let Some(yaml) = file.yaml.as_ref() else {
            continue;
        };
        let dir = file.path.parent().unwrap_or(root);
        for (location, _) in dqlint_dqx::discovery::checks_locations(&file.text, yaml) {
            let Some(path) = lexical_join(dir, &location) else {
                continue;
            };
            if !path.starts_with(root) || path == file.path {
                continue;
            }
            if overlay.contains_key(&path) || path.is_file() {
                out.insert(path);
            }
        }
    }
    let run_configs: std::collections::HashSet<&Path> = files
        .iter()
        .filter(|f| f.kind == FileKind::DqxRunConfig)
        .map(|f| f.path.as_path())
        .collect();
    out.into_iter()
        .filter(|p| !run_configs.contains(p.as_path()))
        .collect()
}

/// `dir/rel` with `.` and `..` resolved without touching the disk; `None`
/// when `..` climbs above the filesystem root.
fn lexical_join(dir: &Path, rel: &str) -> Option<PathBuf> {
    let mut out = dir.to_path_buf();
    for part in rel.split(['/', '\\']) {
        match part {
            "" | "." => {}
            ".." => {
                if !out.pop() {
                    return None;
                }
            }
            p => out.push(p),
        }
    }
    Some(out)
}

/// The environments to check; with none, one pseudo-environment in which
/// no token resolves (token-dependent checks then skip).
pub fn envs_or_none(envs: &[Env]) -> Vec<Env> {
    if envs.is_empty() {
        vec![Env::without_file("")]
    } else {
        envs.to_vec()
    }
}

/// `./a\\b` and `a/b` name the same file to LHP.
pub fn normalize_rel(path: &str) -> String {
    let p = path.replace('\\', "/");
    p.trim_start_matches("./").to_string()
}

pub fn resolve_project_path(root: &Path, rel: &str) -> PathBuf {
    let p = Path::new(rel);
    if p.is_absolute() {
        p.to_path_buf()
    } else {
        root.join(p)
    }
}

struct Loader<'a> {
    root: PathBuf,
    overlay: &'a Overlay,
    files: Vec<SourceFile>,
    walk_errors: Vec<(PathBuf, String)>,
    dqx_forced: &'a DqxForced,
    /// The root's files, walked once (`files::Listing`).
    listing: files::Listing,
    /// [`LoadOptions::release_dqx_trees`].
    release_dqx_trees: bool,
}

impl Loader<'_> {
    /// Registers a file; it is read and parsed by the next `parse_pending`.
    fn add(&mut self, path: PathBuf, kind: FileKind) -> FileId {
        let id = FileId(self.files.len() as u32);
        let rel = files::relative_path(&self.root, &path);
        self.files.push(SourceFile {
            id,
            path,
            rel,
            kind,
            text: std::sync::Arc::from(""),
            lines: Default::default(),
            yaml: None,
            dqx: None,
            read_error: Some(String::from("\u{0}pending")),
        });
        id
    }

    /// Reads and parses every registered file not read yet, in parallel.
    fn parse_pending(&mut self) {
        self.parse_pending_where(|_| true);
    }

    /// Reads and parses the registered files not read yet that `wanted`
    /// picks, in parallel.
    fn parse_pending_where(&mut self, wanted: impl Fn(&SourceFile) -> bool + Sync) {
        let root = self.root.clone();
        let overlay = self.overlay;
        self.files
            .par_iter_mut()
            .filter(|f| wanted(f))
            .for_each(|f| load_if_pending(f, &root, overlay));
    }

    /// `*.yaml`/`*.yml` files under `dir`, sorted; follows symlinks but
    /// reports loops instead of walking them.
    fn walk(&mut self, dir: &Path, yaml: bool) -> Vec<PathBuf> {
        let wanted = |path: &Path| {
            let ext = path
                .extension()
                .and_then(|x| x.to_str())
                .unwrap_or_default();
            if yaml {
                ext == "yaml" || ext == "yml"
            } else {
                ext == "sql"
            }
        };
        // The load's listing already holds the folder, unless it has links
        // (which LHP follows and the listing does not) or entries the
        // listing skipped or could not read.
        if let Some(listed) = self.listing.files_below(dir) {
            return listed.iter().filter(|p| wanted(p)).cloned().collect();
        }
        let mut out = Vec::new();
        if !dir.is_dir() {
            return out;
        }
        for entry in walkdir::WalkDir::new(dir)
            .follow_links(true)
            .sort_by(files::by_file_name)
        {
            match entry {
                Ok(e) if e.file_type().is_file() => {
                    if wanted(e.path()) {
                        out.push(e.into_path());
                    }
                }
                Ok(_) => {}
                Err(e) => {
                    let path = e
                        .path()
                        .map(Path::to_path_buf)
                        .unwrap_or_else(|| dir.to_path_buf());
                    let is_link =
                        std::fs::symlink_metadata(&path).is_ok_and(|m| m.file_type().is_symlink());
                    let reason = if e.loop_ancestor().is_some() {
                        "symbolic link loop: this folder links back to one of its parents; it was not walked".to_string()
                    } else if is_link && std::fs::metadata(&path).is_err() {
                        match std::fs::read_link(&path) {
                            Ok(target) if std::fs::symlink_metadata(path.parent().unwrap_or(dir).join(&target)).is_ok() => format!(
                                "symbolic link loop: it links to `{}`, which leads back to it; it was not read",
                                target.display()
                            ),
                            Ok(target) => format!(
                                "symbolic link to `{}`, which does not exist; it was not read",
                                target.display()
                            ),
                            Err(_) => "symbolic link that cannot be followed; it was not read".to_string(),
                        }
                    } else {
                        format!("cannot read: {e}")
                    };
                    self.walk_errors.push((path, reason));
                }
            }
        }
        out
    }

    /// DQX checks files and run configs anywhere under the root, found by
    /// their content (dqlint-dqx decides), and the files a run config names
    /// as `checks_location`, whatever their content; read and parsed.
    fn add_dqx_files(&mut self, root: &Path) {
        for mut file in self.walk_dqx(root) {
            file.id = FileId(self.files.len() as u32);
            self.files.push(file);
        }
        let named: Vec<PathBuf> = {
            let known = self.known_files();
            named_checks_files(root, &self.files, self.overlay)
                .into_iter()
                .filter(|p| !known.contains(files::relative_path(root, p).as_str()))
                .collect()
        };
        for path in named {
            self.add(path, FileKind::DqxChecks);
        }
        self.parse_pending();
    }

    /// YAML/JSON files not read as LHP files whose content makes them DQX
    /// checks files or run configs, read and parsed (once, in parallel:
    /// the parse that decides the kind is the file's parse).
    fn walk_dqx(&mut self, root: &Path) -> Vec<SourceFile> {
        let known = self.known_files();
        let candidates: Vec<PathBuf> = self
            .listing
            .with_extension(&["yml", "yaml", "json"])
            .filter(|path| !known.contains(files::relative_path(root, path).as_str()))
            .cloned()
            .collect();
        let overlay = self.overlay;
        let forced = self.dqx_forced;
        let release = self.release_dqx_trees;
        candidates
            .into_par_iter()
            .filter_map(|path| {
                let text = files::read_text(&path, overlay).ok()?;
                let rel = files::relative_path(root, &path);
                // `[dqx] checks` / `configs` decide alone; else the cheap
                // look at the text first: most YAML is not DQX.
                let forced_kind = forced.kind_of(&rel);
                if forced_kind.is_none() {
                    dialect::classify(&rel, &text)?;
                }
                let file =
                    files::file_from_text(FileId(0), root, path, FileKind::DqxChecks, text, None);
                let kind = match forced_kind {
                    Some(kind) => kind,
                    None => dialect::dqx_kind(&rel, &file.text, file.yaml.as_deref())?,
                };
                let mut file = SourceFile { kind, ..file };
                if release && kind == FileKind::DqxChecks {
                    // Typed while its tree is fresh, then the tree goes.
                    file.type_dqx_checks();
                }
                Some(file)
            })
            .collect()
    }

    /// The files under the root, in name order and outside the folders
    /// discovery skips, that no kind has claimed yet and that `wanted`
    /// (given the path and its extension) keeps.
    fn unclaimed_files(&self, wanted: impl Fn(&Path, Option<&str>) -> bool) -> Vec<PathBuf> {
        let mut candidates: Vec<PathBuf> = self
            .listing
            .files()
            .iter()
            .filter(|path| wanted(path, path.extension().and_then(|x| x.to_str())))
            .cloned()
            .collect();
        if !candidates.is_empty() {
            let known = self.known_files();
            candidates
                .retain(|path| !known.contains(files::relative_path(&self.root, path).as_str()));
        }
        candidates
    }

    /// The files registered so far, by project-relative path: the same
    /// path whichever way it was written (relative paths join a path's
    /// components), and hashed as a string (hashing a `Path` parses it).
    fn known_files(&self) -> std::collections::HashSet<&str, foldhash::fast::FixedState> {
        self.files.iter().map(|f| f.rel.as_str()).collect()
    }

    /// The YAML files `[policy] registry` names that no other kind claimed
    /// (a file is read as one kind), read and parsed.
    fn add_registry_files(&mut self, root: &Path, registry: Option<&globset::GlobSet>) {
        let Some(globs) = registry else {
            return;
        };
        let paths = self.unclaimed_files(|path, ext| {
            matches!(ext, Some("yml" | "yaml")) && globs.is_match(files::relative_path(root, path))
        });
        for path in paths {
            self.add(path, FileKind::PolicyRegistry);
        }
        self.parse_pending();
    }

    /// Pipeline sources under the root, found by their content: Python
    /// modules (and, with `sql`, SQL files: an LHP project's `.sql` files
    /// are walked for its DDL catalog and classified there), read once.
    fn add_pipeline_files(&mut self, root: &Path, sql: bool) {
        let candidates =
            self.unclaimed_files(|_, ext| ext == Some("py") || (sql && ext == Some("sql")));
        let overlay = self.overlay;
        let found: Vec<SourceFile> = candidates
            .into_par_iter()
            .filter_map(|path| {
                let text = files::read_text(&path, overlay).ok()?;
                let rel = files::relative_path(root, &path);
                let kind = match dialect::classify(&rel, &text)? {
                    dialect::Dialect::PipelinePython => FileKind::PipelinePython,
                    dialect::Dialect::PipelineSql => FileKind::PipelineSql,
                    _ => return None,
                };
                Some(files::file_from_text(
                    FileId(0),
                    root,
                    path,
                    kind,
                    text,
                    None,
                ))
            })
            .collect();
        for mut file in found {
            file.id = FileId(self.files.len() as u32);
            self.files.push(file);
        }
        self.add_imported_modules(root);
    }

    /// The project's own modules the Python pipeline sources import names
    /// from (one level, as the static evaluator follows them), read as
    /// [`FileKind::PythonModule`] unless they are pipeline sources already.
    fn add_imported_modules(&mut self, root: &Path) {
        let mut known: std::collections::HashSet<String> =
            self.files.iter().map(|f| f.rel.clone()).collect();
        let mut wanted: Vec<String> = Vec::new();
        for file in self
            .files
            .iter()
            .filter(|f| f.kind == FileKind::PipelinePython)
        {
            for module in dialect::imported_modules(&file.text) {
                let candidates = dialect::module_candidates(&file.rel, &module);
                if candidates.iter().any(|c| known.contains(c)) {
                    continue;
                }
                let found = candidates.into_iter().find(|c| {
                    let path = root.join(c);
                    self.overlay.contains_key(&path) || path.is_file()
                });
                if let Some(rel) = found {
                    known.insert(rel.clone());
                    wanted.push(rel);
                }
            }
        }
        for rel in wanted {
            self.add(root.join(&rel), FileKind::PythonModule);
        }
        self.parse_pending();
    }

    /// The `.sql` files under the root (the DDL catalog's and the SQL
    /// pipeline sources' candidates).
    fn sql_files(&self) -> Vec<PathBuf> {
        self.listing.with_extension(&["sql"]).cloned().collect()
    }
}

/// `blueprint_include` globs of lhp.yaml (relative to the project root).
fn blueprint_patterns(project_file: &SourceFile) -> Vec<String> {
    project_file
        .first_document()
        .and_then(|doc| {
            doc.get("blueprint_include")
                .and_then(Value::as_seq)
                .map(|items| {
                    items
                        .iter()
                        .filter_map(Value::as_str)
                        .map(str::to_string)
                        .collect()
                })
        })
        .unwrap_or_default()
}

/// Blueprint definitions: files matching the `blueprint_include` globs, by
/// default every YAML file under `blueprints/`.
fn blueprint_paths(root: &Path, patterns: &[String], loader: &mut Loader) -> Vec<PathBuf> {
    if patterns.is_empty() {
        return loader.walk(&root.join("blueprints"), true);
    }
    let mut builder = globset::GlobSetBuilder::new();
    let mut bases: Vec<PathBuf> = Vec::new();
    for pattern in patterns {
        let Ok(glob) = globset::Glob::new(pattern) else {
            continue;
        };
        builder.add(glob);
        // Walk only the literal folder the pattern starts with.
        let base: PathBuf = Path::new(pattern)
            .components()
            .take_while(|c| {
                !c.as_os_str()
                    .to_string_lossy()
                    .contains(['*', '?', '[', '{'])
            })
            .collect();
        let base = if base.extension().is_some() {
            base.parent().map(Path::to_path_buf).unwrap_or_default()
        } else {
            base
        };
        if !bases.iter().any(|b| base.starts_with(b)) {
            bases.push(base);
        }
    }
    let Ok(set) = builder.build() else {
        return Vec::new();
    };
    let mut out: Vec<PathBuf> = Vec::new();
    for base in bases {
        for path in loader.walk(&root.join(base), true) {
            if set.is_match(files::relative_path(root, &path)) && !out.contains(&path) {
                out.push(path);
            }
        }
    }
    out
}

/// Reads and parses a file registered by `Loader::add` and not read yet.
fn load_if_pending(file: &mut SourceFile, root: &Path, overlay: &Overlay) {
    if file.read_error.as_deref() == Some("\u{0}pending") {
        *file = files::load_file(
            file.id,
            root,
            std::mem::take(&mut file.path),
            file.kind,
            overlay,
        );
    }
}

fn top_level_yaml(dir: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut out: Vec<PathBuf> = entries
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.is_file() && p.extension().is_some_and(|x| x == "yaml"))
        .collect();
    out.sort();
    out
}

fn include_patterns(project_file: &SourceFile) -> Option<globset::GlobSet> {
    let root = project_file.first_document()?;
    let list = root.get("include")?.as_seq()?;
    let mut builder = globset::GlobSetBuilder::new();
    let mut any = false;
    for item in list {
        if let Some(pattern) = item.as_str() {
            if let Ok(glob) = globset::Glob::new(pattern) {
                builder.add(glob);
                any = true;
            }
        }
    }
    if !any {
        return None;
    }
    builder.build().ok()
}

/// Templates by name, as LHP finds them: `use_template: NAME` opens
/// `templates/NAME.yaml`, so a template's name is its path under
/// `templates/` without `.yaml` (`ingestion/csv_ingestion_template`).
pub(crate) fn read_templates(files: &[SourceFile], ids: &[FileId]) -> HashMap<String, Template> {
    ids.iter()
        .filter_map(|id| {
            let file = &files[id.0 as usize];
            let name = template_name(&file.rel)?;
            let root_value = file.first_document()?;
            Some((name.clone(), Template::from_value(&name, *id, &root_value)))
        })
        .collect()
}

/// The name `use_template:` gives the template at project-relative `rel`.
pub(crate) fn template_name(rel: &str) -> Option<String> {
    let rel = rel.replace('\\', "/");
    let under = rel.strip_prefix("templates/").unwrap_or(&rel);
    let name = under
        .strip_suffix(".yaml")
        .or_else(|| under.strip_suffix(".yml"))
        .unwrap_or(under);
    (!name.is_empty()).then(|| name.to_string())
}

/// Presets by their `name:` (a later file wins a duplicate name).
pub(crate) fn read_presets<'a>(
    files: impl IntoIterator<Item = &'a SourceFile>,
) -> HashMap<String, Preset> {
    let mut presets = HashMap::new();
    for file in files {
        if let Some(preset) = file
            .first_document()
            .and_then(|v| Preset::from_value(file.id, &v))
        {
            presets.insert(preset.name.clone(), preset);
        }
    }
    presets
}

/// The expectations files the data_quality actions of `flowgroups` read in
/// some environment, by project-relative path: those that exist, and
/// those that do not with what is there instead.
pub(crate) fn wanted_expectations<'a>(
    root: &Path,
    flowgroups: impl IntoIterator<Item = &'a Flowgroup>,
    envs: &[Env],
) -> (BTreeMap<String, PathBuf>, BTreeMap<String, Missing>) {
    let envs = envs_or_none(envs);
    let mut wanted: BTreeMap<String, PathBuf> = BTreeMap::new();
    let mut missing: BTreeMap<String, Missing> = BTreeMap::new();
    for fg in flowgroups {
        for rel in fg.expectations_files(&envs) {
            if wanted.contains_key(&rel) || missing.contains_key(&rel) {
                continue;
            }
            let full = resolve_project_path(root, &rel);
            match files::probe_missing(root, &rel, &full) {
                None => {
                    wanted.insert(rel, full);
                }
                Some(what) => {
                    missing.insert(rel, what);
                }
            }
        }
    }
    (wanted, missing)
}

/// An expectations file's rules, as the rules read them (none when the
/// file does not read or parse).
pub(crate) fn interpret_expectations(file: &SourceFile) -> ExpectationSet {
    if file.is_broken() {
        return ExpectationSet {
            file: file.id,
            shape: Shape::Invalid,
            rules: Vec::new(),
            invalid: None,
        };
    }
    let docs: Vec<(std::ops::Range<usize>, Option<&dqlint_yaml::Node>)> = file
        .yaml
        .iter()
        .flat_map(|y| y.documents.iter())
        .map(|d| (d.span.clone(), d.root.as_ref()))
        .collect();
    expectations::interpret(file.id, &docs, 0..file.text.len())
}

pub(crate) fn load_envs(
    files: &[SourceFile],
    ids: &[FileId],
    requested: &[String],
) -> (Vec<Env>, Vec<String>) {
    let by_name: BTreeMap<String, &SourceFile> = ids
        .iter()
        .map(|id| &files[id.0 as usize])
        .filter_map(|f| {
            Some((
                Path::new(&f.rel)
                    .file_stem()?
                    .to_string_lossy()
                    .into_owned(),
                f,
            ))
        })
        .collect();
    let names: Vec<String> = if requested.is_empty() {
        by_name.keys().cloned().collect()
    } else {
        requested.to_vec()
    };
    let mut envs = Vec::new();
    let mut missing = Vec::new();
    for name in names {
        match by_name.get(&name) {
            Some(file) => envs.push(Env::from_file(
                &name,
                file.id,
                file.first_document().as_ref(),
            )),
            None => {
                missing.push(name.clone());
                envs.push(Env::without_file(&name));
            }
        }
    }
    (envs, missing)
}

pub(crate) fn load_pipeline_config(file: &SourceFile) -> PipelineConfig {
    let mut config = PipelineConfig {
        file: Some(file.id),
        ..Default::default()
    };
    let Some(yaml) = &file.yaml else {
        return config;
    };
    for doc in yaml.documents.iter().filter_map(|d| d.root.as_ref()) {
        let value = Value::from_node(doc, file.id);
        let continuous = |v: &Value| match v.get("continuous") {
            Some(c) => match &c.kind {
                ValueKind::Bool(b) => Some((*b, c.origin.clone())),
                ValueKind::Str(s) => Some((s.eq_ignore_ascii_case("true"), c.origin.clone())),
                _ => None,
            },
            None => None,
        };
        if let Some(defaults) = value.get("project_defaults") {
            config.default_continuous = continuous(defaults);
            continue;
        }
        let Some(setting) = continuous(&value) else {
            continue;
        };
        let names: Vec<String> = match value.get("pipeline") {
            Some(p) => match &p.kind {
                ValueKind::Str(s) => vec![s.clone()],
                ValueKind::Seq(items) => items
                    .iter()
                    .filter_map(|i| i.as_str().map(str::to_string))
                    .collect(),
                _ => Vec::new(),
            },
            None => Vec::new(),
        };
        for name in names {
            config.continuous.insert(name, setting.clone());
        }
    }
    config
}

pub(crate) fn preset_file_problems(files: &[SourceFile], ids: &[FileId]) -> Vec<Problem> {
    let mut out = Vec::new();
    for id in ids {
        let file = &files[id.0 as usize];
        if let Some(root) = file.first_document() {
            if root.as_map().is_some() && root.get_str("name").is_none() {
                out.push(Problem {
                    kind: ProblemKind::PresetProblem,
                    message: "this preset has no `name:`; LHP finds presets by that field, so nothing can use it".into(),
                    origin: root.origin.at_start(),
                });
            }
        }
    }
    out
}

#[cfg(test)]
mod template_name_tests {
    use super::template_name;

    #[test]
    fn a_template_is_named_by_its_path_under_templates() {
        assert_eq!(
            template_name("templates/csv_ingestion_template.yaml").as_deref(),
            Some("csv_ingestion_template")
        );
        assert_eq!(
            template_name("templates/ingestion/csv_ingestion_template.yaml").as_deref(),
            Some("ingestion/csv_ingestion_template")
        );
        assert_eq!(template_name("templates/.yaml"), None);
    }
}
