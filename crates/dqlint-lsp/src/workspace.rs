//! The LHP projects the server serves: one [`ProjectState`] per folder
//! holding `lhp.yaml`. After each edit (in the editor, or of a file changed
//! on disk), the files whose findings it can change are re-linted at once on
//! a slice of the last model ([`crate::incremental`]), and only those. The
//! project is loaded from disk at start, when files appear or disappear, and
//! after an edit to `lhp.yaml` or `dqlint.toml` (debounced). Requests after
//! an edit are served from the quick re-lint of the file they ask about, or
//! from the last model brought up to date in memory ([`Workspace::refresh`]).
//! Findings are published per file, only when they change.

use std::collections::{BTreeSet, HashMap, HashSet};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use dqlint_linter::{Config, Diagnostic as Finding};
use dqlint_project::{files, Edits, FileId, Overlay, Project};
use dqlint_yaml::LiveYaml;
use tower_lsp_server::ls_types::{Diagnostic, MessageType, Uri};
use tower_lsp_server::Client;

use crate::convert::{self, UriMap};
use crate::documents::{Documents, ParseJob};
use crate::settings::Settings;

/// Folders never searched for projects.
const SKIPPED_FOLDERS: [&str; 5] = [
    "node_modules",
    "target",
    "venv",
    "__pycache__",
    "site-packages",
];
/// How deep under a workspace folder projects are looked for.
const DISCOVERY_DEPTH: usize = 4;

/// Open buffers: canonical path -> (client URI, version).
pub type Versions = HashMap<PathBuf, (Uri, i32)>;

/// A lint result and the buffers it was computed from.
pub struct Snapshot {
    pub project: Project,
    pub findings: Vec<Finding>,
    pub settings: Settings,
    /// The `dqlint.toml` it was linted with (quick re-lints reuse it).
    pub config: Config,
    /// Open buffers at lint time.
    pub versions: Versions,
}

impl Snapshot {
    pub fn uris(&self) -> UriMap {
        UriMap::new(
            self.versions
                .iter()
                .map(|(path, (uri, _))| (path.clone(), uri.clone())),
        )
    }
}

#[derive(Clone, PartialEq)]
struct Published {
    version: Option<i32>,
    diagnostics: Vec<Diagnostic>,
}

/// One LHP project.
pub struct ProjectState {
    pub root: PathBuf,
    /// Bumped by every change that touches the project.
    generation: AtomicU64,
    /// The generation of the last lint run that finished (or failed).
    linted: AtomicU64,
    /// How long the last full lint took, in milliseconds.
    full_lint_ms: AtomicU64,
    /// Serialises lint runs, so results are published in change order.
    run: tokio::sync::Mutex<()>,
    /// Serialises quick re-lints (see [`Workspace::relint`]).
    quick: tokio::sync::Mutex<()>,
    snapshot: Mutex<Option<Arc<Snapshot>>>,
    /// The last quick re-lint, with the files it re-linted: requests about
    /// those files are answered from it while the buffers are unchanged.
    quick_view: Mutex<Option<(Arc<Snapshot>, HashSet<PathBuf>)>>,
    /// Per edited file, the files its last quick re-lint re-linted (since
    /// the last model): the next edit of it re-lints them again.
    last_focus: Mutex<HashMap<PathBuf, HashSet<PathBuf>>>,
    /// Set when its workspace folder is removed: nothing more is linted or
    /// published for it.
    forgotten: AtomicBool,
    /// Edits numbered in arrival order, and the latest one per file.
    edits: AtomicU64,
    latest_edit: Mutex<HashMap<PathBuf, u64>>,
    /// Texts of files changed on disk, not open in the editor, since the
    /// last load: edits like the editor's, behind the open buffers.
    on_disk: Mutex<HashMap<PathBuf, Arc<str>>>,
    published: Mutex<HashMap<Uri, Published>>,
    /// The last `dqlint.toml` error shown, so it is shown once.
    config_problem: Mutex<Option<String>>,
}

impl ProjectState {
    fn new(root: PathBuf) -> ProjectState {
        ProjectState {
            root,
            generation: AtomicU64::new(1),
            linted: AtomicU64::new(0),
            full_lint_ms: AtomicU64::new(0),
            run: tokio::sync::Mutex::new(()),
            quick: tokio::sync::Mutex::new(()),
            snapshot: Mutex::new(None),
            quick_view: Mutex::new(None),
            last_focus: Mutex::new(HashMap::new()),
            forgotten: AtomicBool::new(false),
            edits: AtomicU64::new(0),
            latest_edit: Mutex::new(HashMap::new()),
            on_disk: Mutex::new(HashMap::new()),
            published: Mutex::new(HashMap::new()),
            config_problem: Mutex::new(None),
        }
    }

    pub fn snapshot(&self) -> Option<Arc<Snapshot>> {
        lock(&self.snapshot).clone()
    }

    /// A new model: the quick re-lints' bookkeeping starts over from it.
    fn replace_snapshot(&self, snapshot: Option<Arc<Snapshot>>) {
        *lock(&self.snapshot) = snapshot;
        lock(&self.last_focus).clear();
        *lock(&self.quick_view) = None;
    }

    /// Numbers an edit of `path`, for [`Workspace::relint_edit`].
    pub fn edit(&self, path: &Path) -> u64 {
        let ticket = self.edits.fetch_add(1, Ordering::SeqCst);
        lock(&self.latest_edit).insert(path.to_path_buf(), ticket);
        ticket
    }

    /// Forgets the edit number of `path` when `ticket` is its latest.
    fn forget_edit(&self, path: &Path, ticket: u64) {
        let mut latest = lock(&self.latest_edit);
        if latest.get(path) == Some(&ticket) {
            latest.remove(path);
        }
    }

    /// Whether an edit of `path` came after the edit `ticket`.
    fn superseded(&self, path: &Path, ticket: u64) -> bool {
        lock(&self.latest_edit)
            .get(path)
            .is_some_and(|latest| *latest != ticket)
    }

    /// Records the text a file not open in the editor now has on disk.
    /// A text the model already holds is no change: it is not kept twice
    /// (a large file closed unchanged would otherwise stay in memory again).
    pub fn saw_on_disk(&self, path: PathBuf, text: Arc<str>) {
        let in_model = self.snapshot().is_some_and(|s| {
            s.project
                .file_by_path(&path)
                .is_some_and(|f| f.text == text)
        });
        if in_model {
            lock(&self.on_disk).remove(&path);
        } else {
            lock(&self.on_disk).insert(path, text);
        }
    }
}

/// Everything the server knows, shared by the handlers.
pub struct Workspace {
    pub client: Client,
    pub documents: Mutex<Documents>,
    pub settings: Mutex<Settings>,
    projects: Mutex<HashMap<PathBuf, Arc<ProjectState>>>,
}

/// A poisoned lock only means a handler panicked while holding it; the data
/// is still the best there is.
pub fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|e| e.into_inner())
}

/// The folder holding `lhp.yaml` above `path` (which may exist only in the
/// editor, or have just been deleted).
pub fn project_root_of(path: &Path) -> Option<PathBuf> {
    files::lhp_project_above(path)
}

impl Workspace {
    pub fn new(client: Client) -> Workspace {
        Workspace {
            client,
            documents: Mutex::new(Documents::default()),
            settings: Mutex::new(Settings::default()),
            projects: Mutex::new(HashMap::new()),
        }
    }

    pub fn project(&self, root: &Path) -> Arc<ProjectState> {
        lock(&self.projects)
            .entry(root.to_path_buf())
            .or_insert_with(|| Arc::new(ProjectState::new(root.to_path_buf())))
            .clone()
    }

    pub fn project_of(&self, path: &Path) -> Option<Arc<ProjectState>> {
        let root = if path.file_name().is_some_and(|n| n == "lhp.yaml") {
            path.parent()?.to_path_buf()
        } else {
            match project_root_of(path) {
                Some(root) => root,
                // Outside any LHP project: the root of the other dialects
                // it lies in (DQX files, pipeline sources).
                None => return self.dqx_root_of(path),
            }
        };
        Some(self.project(&root))
    }

    /// The innermost root without `lhp.yaml` (DQX files, pipeline sources; found by
    /// [`Workspace::discover`]) that holds `path`.
    fn dqx_root_of(&self, path: &Path) -> Option<Arc<ProjectState>> {
        lock(&self.projects)
            .values()
            .filter(|p| path.starts_with(&p.root) && !files::holds_lhp_project(&p.root))
            .max_by_key(|p| p.root.components().count())
            .cloned()
    }

    pub fn projects(&self) -> Vec<Arc<ProjectState>> {
        lock(&self.projects).values().cloned().collect()
    }

    /// A workspace folder was removed: the projects inside it (and not in a
    /// folder still open) go, with their findings. One around it stays if
    /// another folder is in it.
    pub async fn forget_folder(&self, removed: &Path, remaining: &[PathBuf]) {
        let gone: Vec<Arc<ProjectState>> = {
            let mut projects = lock(&self.projects);
            let roots: Vec<PathBuf> = projects
                .keys()
                .filter(|root| root.starts_with(removed))
                .filter(|root| {
                    !remaining
                        .iter()
                        .any(|f| root.starts_with(f) || f.starts_with(root))
                })
                .cloned()
                .collect();
            roots
                .iter()
                .filter_map(|root| projects.remove(root))
                .collect()
        };
        for project in gone {
            project.forgotten.store(true, Ordering::SeqCst);
            // A run in flight publishes before this clears.
            let _running = project.run.lock().await;
            let _quick = project.quick.lock().await;
            self.clear(&project).await;
        }
    }

    /// Finds the projects in (or around) the workspace folders. A folder
    /// with no LHP project in or around it is a root of the other dialects
    /// (at the root `dqlint lint FOLDER` takes) when DQX files or pipeline
    /// sources are there.
    pub fn discover(&self, folders: &[PathBuf]) {
        for folder in folders {
            let folder = &convert::canonical(folder).unwrap_or_else(|| folder.clone());
            self.discover_lhp(folder);
            let found_lhp = lock(&self.projects).keys().any(|root| {
                (root.starts_with(folder) || folder.starts_with(root))
                    && files::holds_lhp_project(root)
            });
            if !found_lhp {
                let workspace = dqlint_project::discover(folder);
                let other_dialects = !workspace.is_empty()
                    || Config::discover(&workspace.root, None).is_ok_and(|c| c.dqx.present);
                if other_dialects {
                    if let Some(root) = convert::canonical(&workspace.root) {
                        self.project(&root);
                    }
                }
            }
        }
    }

    /// The LHP projects in or around `folder` (those holding `lhp.yaml`).
    fn discover_lhp(&self, folder: &Path) {
        if let Some(root) = dqlint_project::find_root(folder) {
            self.project(&root);
        }
        for root in files::lhp_projects_under(folder, DISCOVERY_DEPTH, &SKIPPED_FOLDERS) {
            self.project(&root);
        }
    }

    /// Marks the project changed and lints it once no other change follows
    /// within the debounce time.
    ///
    /// The quiet time is the debounce setting, or as long as the last full
    /// lint took if that was longer: on a project of thousands of files a
    /// re-load costs both cores for seconds and the next edit makes it
    /// stale, while the quick re-lint already shows the edited file.
    pub fn schedule(self: &Arc<Self>, project: Arc<ProjectState>) {
        let generation = project.generation.fetch_add(1, Ordering::SeqCst) + 1;
        let last = Duration::from_millis(project.full_lint_ms.load(Ordering::SeqCst));
        let delay = lock(&self.settings).debounce().max(last);
        let workspace = self.clone();
        tokio::spawn(async move {
            if !delay.is_zero() {
                tokio::time::sleep(delay).await;
            }
            if project.generation.load(Ordering::SeqCst) == generation {
                workspace.lint(&project).await;
            }
        });
    }

    /// The model and findings with every edit in: for a request about
    /// `path` that needs only that file's model (`whole` false), the last
    /// quick re-lint when it covered `path` and nothing changed since;
    /// otherwise the last model brought up to date ([`Workspace::refresh`]).
    pub async fn fresh_snapshot(
        &self,
        project: &Arc<ProjectState>,
        path: &Path,
        whole: bool,
    ) -> Option<Arc<Snapshot>> {
        if project.linted.load(Ordering::SeqCst) < project.generation.load(Ordering::SeqCst) {
            self.lint(project).await;
        }
        // A quick re-lint in flight finishes first.
        drop(project.quick.lock().await);
        let base = project.snapshot()?;
        let (edits, versions, _) = self.edits_against(project, &base, false);
        if edits.is_empty() {
            return Some(base);
        }
        if !whole {
            let quick = lock(&project.quick_view).clone();
            if let Some((view, focus)) = quick {
                if view.versions == versions && focus.contains(path) {
                    return Some(view);
                }
            }
        }
        self.refresh(project).await;
        project.snapshot()
    }

    /// The edits (editor buffers, then files changed on disk) that differ
    /// from `base`, and the buffer versions they were taken at; with
    /// `parse`, the jobs that bring the parses of the edited open buffers
    /// up to date (run them with [`run_parse_jobs`] off the lock, and give
    /// their parses back with [`Workspace::give_back`]).
    fn edits_against(
        &self,
        project: &ProjectState,
        base: &Snapshot,
        parse: bool,
    ) -> (Edits, Versions, Vec<(FileId, ParseJob)>) {
        let mut documents = lock(&self.documents);
        let mut texts = lock(&project.on_disk).clone();
        texts.extend(documents.overlay_under(&project.root));
        let mut edits = Edits::default();
        let mut jobs = Vec::new();
        for (path, text) in texts {
            let Some(file) = base.project.file_by_path(&path) else {
                edits.outside.insert(path, text);
                continue;
            };
            if file.text == text {
                continue;
            }
            // An open buffer's parse, brought up to the buffer's text (the
            // one `texts` holds: both are read under this lock).
            if parse {
                jobs.extend(documents.take_parse(&path).map(|job| (file.id, job)));
            }
            edits.texts.insert(file.id, text);
        }
        (edits, documents.versions_under(&project.root), jobs)
    }

    /// What a blocking task that ran parse jobs computed, once its parses
    /// are given back (none when it did not finish: a panic loses them).
    fn settle<T>(
        &self,
        taken: &[PathBuf],
        joined: Result<(Vec<(PathBuf, LiveYaml)>, T), tokio::task::JoinError>,
    ) -> Result<T, tokio::task::JoinError> {
        match joined {
            Ok((parses, outcome)) => {
                self.give_back(taken, parses);
                Ok(outcome)
            }
            Err(e) => {
                self.give_back(taken, Vec::new());
                Err(e)
            }
        }
    }

    /// Takes back the parses [`run_parse_jobs`] brought up to date; the
    /// jobs of `taken` that did not come back (a panic) are lost.
    fn give_back(&self, taken: &[PathBuf], parses: Vec<(PathBuf, LiveYaml)>) {
        let mut documents = lock(&self.documents);
        for path in taken {
            if !parses.iter().any(|(p, _)| p == path) {
                documents.parse_lost(path);
            }
        }
        for (path, live) in parses {
            documents.give_back(&path, live);
        }
    }

    /// Brings the last model up to date with every edit, in memory (no
    /// disk read), lints it and publishes what changed. Falls back to a
    /// load when no slice can be made (an edit of `lhp.yaml`).
    pub async fn refresh(&self, project: &Arc<ProjectState>) {
        let _running = project.run.lock().await;
        let Some(base) = project.snapshot() else {
            return;
        };
        let (mut edits, versions, jobs) = self.edits_against(project, &base, true);
        if edits.is_empty() {
            return;
        }
        let settings = lock(&self.settings).clone();
        let selection = settings.selection();
        let task_base = base.clone();
        let taken: Vec<PathBuf> = jobs.iter().map(|(_, job)| job.path.clone()).collect();
        let outcome = crate::memory::spawn_blocking(move || {
            let mut parses = Vec::new();
            let outcome = catch_unwind(AssertUnwindSafe(|| {
                parses = run_parse_jobs(&mut edits, jobs);
                task_base
                    .project
                    .slice(&edits, &|_, _| true)
                    .map(|project| {
                        let findings =
                            dqlint_linter::lint_configured(&project, &task_base.config, &selection);
                        (project, findings)
                    })
            }));
            (parses, outcome)
        })
        .await;
        let outcome = self.settle(&taken, outcome);
        match outcome {
            Ok(Ok(Ok((model, findings)))) => {
                let snapshot = Arc::new(Snapshot {
                    project: model,
                    findings,
                    settings,
                    config: base.config.clone(),
                    versions,
                });
                project.replace_snapshot(Some(snapshot.clone()));
                let moved_on = self.publish(project, &snapshot).await;
                drop(_running);
                for path in moved_on {
                    self.relint(project, &path).await;
                }
            }
            Ok(Ok(Err(_))) => {
                drop(_running);
                project.generation.fetch_add(1, Ordering::SeqCst);
                self.lint(project).await;
            }
            Ok(Err(panic)) => {
                self.log_panic(
                    format!("updating {}", project.root.display()),
                    panic_message(panic.as_ref()),
                )
                .await;
            }
            Err(_) => {}
        }
    }

    /// Loads and lints the project with the open buffers, then publishes
    /// what changed.
    pub async fn lint(&self, project: &Arc<ProjectState>) {
        let _running = project.run.lock().await;
        let generation = project.generation.load(Ordering::SeqCst);
        if project.linted.load(Ordering::SeqCst) >= generation {
            return;
        }
        let (overlay, versions) = {
            let documents = lock(&self.documents);
            (
                documents.overlay_under(&project.root),
                documents.versions_under(&project.root),
            )
        };
        // The load reads the disk: changes seen there so far are in it.
        let on_disk: Vec<(PathBuf, Arc<str>)> = lock(&project.on_disk)
            .iter()
            .map(|(path, text)| (path.clone(), text.clone()))
            .collect();
        let settings = lock(&self.settings).clone();
        let root = project.root.clone();
        let config = self.config(project, &settings, &overlay).await;
        let mut options = config.load_options(&settings.envs);
        options.overlay = overlay;
        let selection = settings.selection();
        let task_config = config.clone();
        let started = Instant::now();
        let outcome = crate::memory::spawn_blocking(move || {
            catch_unwind(AssertUnwindSafe(|| {
                Project::load(&root, &options).map(|project| {
                    let findings =
                        dqlint_linter::lint_configured(&project, &task_config, &selection);
                    (project, findings)
                })
            }))
        })
        .await;
        project
            .full_lint_ms
            .store(started.elapsed().as_millis() as u64, Ordering::SeqCst);
        project.linted.store(generation, Ordering::SeqCst);
        match outcome {
            Ok(Ok(Ok((loaded, findings)))) => {
                let snapshot = Arc::new(Snapshot {
                    project: loaded,
                    findings,
                    settings,
                    config,
                    versions,
                });
                project.replace_snapshot(Some(snapshot.clone()));
                // Disk changes seen again while the load ran stay, and are
                // re-linted on the new model below.
                let changed_meanwhile: Vec<PathBuf> = {
                    let mut seen = lock(&project.on_disk);
                    for (path, text) in &on_disk {
                        if seen.get(path).is_some_and(|now| Arc::ptr_eq(now, text)) {
                            seen.remove(path);
                        }
                    }
                    seen.keys().cloned().collect()
                };
                let moved_on = self.publish(project, &snapshot).await;
                // Buffers edited and files changed on disk while the load
                // ran: their quick re-lint ran on the previous model (or
                // not yet); run it on this one.
                for path in moved_on.into_iter().chain(changed_meanwhile) {
                    self.relint(project, &path).await;
                }
            }
            Ok(Ok(Err(load_error))) => {
                // The project is gone (lhp.yaml deleted or unreadable): its
                // findings go with it.
                self.client
                    .log_message(
                        MessageType::WARNING,
                        format!("dqlint: {}: {load_error}", project.root.display()),
                    )
                    .await;
                project.replace_snapshot(None);
                self.clear(project).await;
                if !files::holds_lhp_project(&project.root) {
                    lock(&self.projects).remove(&project.root);
                }
            }
            Ok(Err(panic)) => {
                let doing = format!("linting {} (findings not updated)", project.root.display());
                self.log_panic(doing, panic_message(panic.as_ref())).await;
            }
            Err(join_error) => {
                self.client
                    .log_message(
                        MessageType::ERROR,
                        format!("dqlint: lint task failed: {join_error}"),
                    )
                    .await;
            }
        }
    }

    /// The project's `dqlint.toml` (or the `configPath` setting, relative
    /// to the project root), read through the open buffers. A broken file
    /// is shown to the user once and the defaults are used meanwhile.
    async fn config(
        &self,
        project: &ProjectState,
        settings: &Settings,
        overlay: &Overlay,
    ) -> Config {
        let explicit = settings.config_path.as_ref().map(|p| project.root.join(p));
        let read = Config::discover_with(&project.root, explicit.as_deref(), |path| {
            overlay.get(path).map(|text| text.to_string())
        });
        let (config, problem) = match read {
            Ok(config) => (config, None),
            Err(e) => (Config::default(), Some(e.to_string())),
        };
        let changed = {
            let mut last = lock(&project.config_problem);
            let changed = *last != problem;
            *last = problem.clone();
            changed
        };
        if let (true, Some(problem)) = (changed, problem) {
            let message =
                format!("dqlint: {problem} (using the default configuration until it is fixed)");
            self.client
                .log_message(MessageType::ERROR, message.clone())
                .await;
            self.client.show_message(MessageType::ERROR, message).await;
        }
        config
    }

    /// Publishes the files whose findings (or open version) changed, and
    /// empties the files that no longer have any.
    /// Returns the buffers edited since the snapshot read them.
    async fn publish(&self, project: &ProjectState, snapshot: &Snapshot) -> Vec<PathBuf> {
        let uris = snapshot.uris();
        let mut by_uri: HashMap<Uri, Published> = HashMap::new();
        for finding in &snapshot.findings {
            let path = &snapshot.project.file(finding.primary.file).path;
            let Some(uri) = uris.uri(path) else { continue };
            let version = snapshot.versions.get(path).map(|(_, v)| *v);
            by_uri
                .entry(uri)
                .or_insert_with(|| Published {
                    version,
                    diagnostics: Vec::new(),
                })
                .diagnostics
                .push(convert::diagnostic(
                    &snapshot.project,
                    &uris,
                    &snapshot.settings,
                    finding,
                ));
        }
        // Open buffers of the project always get an answer for their version.
        for (uri, version) in snapshot.versions.values() {
            by_uri.entry(uri.clone()).or_insert_with(|| Published {
                version: Some(*version),
                diagnostics: Vec::new(),
            });
        }
        // Buffers edited since this lint read them keep what the quick
        // re-lint published for their newer text; the caller re-lints them.
        let (moved_on_paths, moved_on): (Vec<PathBuf>, Vec<Uri>) = {
            let documents = lock(&self.documents);
            documents
                .versions_under(&project.root)
                .into_iter()
                .filter(|(path, (_, version))| {
                    snapshot.versions.get(path).map(|(_, v)| v) != Some(version)
                })
                .map(|(path, (uri, _))| (path, uri))
                .unzip()
        };
        let mut changes: Vec<(Uri, Published)> = Vec::new();
        {
            let mut published = lock(&project.published);
            for (uri, old) in published.iter() {
                if !by_uri.contains_key(uri)
                    && !old.diagnostics.is_empty()
                    && !moved_on.contains(uri)
                {
                    changes.push((
                        uri.clone(),
                        Published {
                            version: None,
                            diagnostics: Vec::new(),
                        },
                    ));
                }
            }
            for (uri, new) in &by_uri {
                if published.get(uri) != Some(new) && !moved_on.contains(uri) {
                    changes.push((uri.clone(), new.clone()));
                }
            }
            for uri in &moved_on {
                by_uri.remove(uri);
                if let Some(kept) = published.remove(uri) {
                    by_uri.insert(uri.clone(), kept);
                }
            }
            *published = by_uri;
        }
        self.send_for(project, changes).await;
        moved_on_paths
    }

    /// Publishes `changes`, unless `project` was forgotten meanwhile (its
    /// workspace folder removed).
    async fn send_for(&self, project: &ProjectState, changes: Vec<(Uri, Published)>) {
        if project.forgotten.load(Ordering::SeqCst) {
            return;
        }
        for (uri, p) in changes {
            self.client
                .publish_diagnostics(uri, p.diagnostics, p.version)
                .await;
        }
    }

    /// Re-lints what an edit of `path` affects, on a slice of the last
    /// model, and publishes the findings of those files at once. Returns
    /// false when that cannot be done and the project must be loaded again:
    /// before the first load, for a file that load did not see (a new file)
    /// and for an edit of `lhp.yaml`.
    pub async fn relint(&self, project: &Arc<ProjectState>, path: &Path) -> bool {
        self.relint_edit(project, path, None).await
    }

    /// [`Workspace::relint`] for the edit `ticket` of [`ProjectState::edit`]:
    /// skipped when a later edit of the same file is queued behind it (that
    /// one reads the newer text anyway). A keystroke that costs more than
    /// the next one's delay (a token used in every file) does not pile up.
    pub async fn relint_edit(
        &self,
        project: &Arc<ProjectState>,
        path: &Path,
        ticket: Option<u64>,
    ) -> bool {
        let _running = project.quick.lock().await;
        if ticket.is_some_and(|ticket| project.superseded(path, ticket)) {
            return true;
        }
        let Some(base) = project.snapshot() else {
            return false;
        };
        let Some(edited) = base.project.file_by_path(path).map(|f| f.id) else {
            return false;
        };
        let (mut edits, versions, jobs) = self.edits_against(project, &base, true);
        let settings = lock(&self.settings).clone();
        if edits.is_empty() {
            // Every buffer and file agrees with the model again (a buffer
            // closed unchanged, an edit undone): its findings hold for the
            // files the quick re-lints touched, and their state goes, with
            // the memory it holds (a large buffer's parse and findings).
            let mut focus: BTreeSet<FileId> = BTreeSet::from([edited]);
            {
                let mut last = lock(&project.last_focus);
                focus.extend(
                    last.values()
                        .flatten()
                        .filter_map(|p| base.project.file_by_path(p).map(|f| f.id)),
                );
                // A new table, not a cleared one: the old one was made
                // while the buffers were edited, among their pages.
                *last = HashMap::new();
            }
            *lock(&project.quick_view) = None;
            // A buffer closed: its memory goes back to the system once its
            // findings are out, off this path (collecting waits on other
            // threads; an edit undone, the buffer still open, frees little).
            let closed = lock(&self.documents).text(path).is_none();
            let findings: Vec<Finding> = base
                .findings
                .iter()
                .filter(|f| focus.contains(&f.primary.file))
                .cloned()
                .collect();
            self.publish_focus(
                project,
                &base.project,
                &focus,
                &findings,
                &versions,
                &settings,
            )
            .await;
            if closed {
                // No edit of it is pending any more (a later one would have
                // superseded this one): its number goes with the buffer.
                if let Some(ticket) = ticket {
                    project.forget_edit(path, ticket);
                }
                tokio::spawn(crate::memory::release_freed_memory());
            }
            return true;
        }
        let edited_paths: Vec<PathBuf> = edits
            .texts
            .keys()
            .map(|id| base.project.file(*id).path.clone())
            .collect();
        let revisit: BTreeSet<FileId> = lock(&project.last_focus)
            .get(path)
            .into_iter()
            .flatten()
            .filter_map(|p| base.project.file_by_path(p).map(|f| f.id))
            .collect();
        let selection = settings.selection();
        let task_base = base.clone();
        let taken: Vec<PathBuf> = jobs.iter().map(|(_, job)| job.path.clone()).collect();
        let task_project = project.clone();
        let task_path = path.to_path_buf();
        let outcome = crate::memory::spawn_blocking(move || {
            let mut parses = Vec::new();
            let outcome = catch_unwind(AssertUnwindSafe(|| {
                parses = run_parse_jobs(&mut edits, jobs);
                // A key typed while the buffer was parsed makes this text
                // stale: the re-lint queued for that key lints the newer one.
                if ticket.is_some_and(|ticket| task_project.superseded(&task_path, ticket)) {
                    return None;
                }
                let had_findings: HashSet<FileId> =
                    task_base.findings.iter().map(|f| f.primary.file).collect();
                Some(dqlint_linter::relint::relint(
                    &task_base.project,
                    edited,
                    &edits,
                    &task_base.config,
                    &selection,
                    &|id| had_findings.contains(&id),
                    &revisit,
                ))
            }));
            (parses, outcome)
        })
        .await;
        let outcome = self.settle(&taken, outcome);
        let relinted = match outcome {
            Ok(Ok(Some(Ok(relinted)))) => relinted,
            Ok(Ok(None)) => return true,
            Ok(Ok(Some(Err(_)))) => return false,
            Ok(Err(panic)) => {
                self.log_panic(
                    format!("re-linting {}", path.display()),
                    panic_message(panic.as_ref()),
                )
                .await;
                return false;
            }
            Err(_) => return false,
        };
        // An edit that came meanwhile has its own re-lint queued behind
        // this one (they run in turn): it publishes the files it affects,
        // and the others' findings here are not stale (it cannot change
        // them), so everything is published.
        self.publish_focus(
            project,
            &relinted.project,
            &relinted.focus,
            &relinted.findings,
            &versions,
            &settings,
        )
        .await;
        let focus: HashSet<PathBuf> = relinted
            .focus
            .iter()
            .map(|id| relinted.project.file(*id).path.clone())
            .collect();
        let view = Snapshot {
            project: relinted.project,
            findings: relinted.findings,
            settings,
            config: base.config.clone(),
            versions,
        };
        {
            // The other files edited since the model were part of this
            // re-lint too: their next re-lint revisits its files.
            let mut last = lock(&project.last_focus);
            for other in &edited_paths {
                last.entry(other.clone())
                    .or_default()
                    .extend(focus.iter().cloned());
            }
            last.insert(path.to_path_buf(), focus.clone());
        }
        *lock(&project.quick_view) = Some((Arc::new(view), focus));
        true
    }

    /// Publishes, for the `focus` files of `model`, the `findings` (those
    /// whose primary location is in a focus file) where they differ from
    /// what is shown, never over the findings of a newer buffer version.
    async fn publish_focus(
        &self,
        project: &ProjectState,
        model: &Project,
        focus: &BTreeSet<FileId>,
        findings: &[Finding],
        versions: &Versions,
        settings: &Settings,
    ) {
        let uris = UriMap::new(
            versions
                .iter()
                .map(|(p, (uri, _))| (p.clone(), uri.clone())),
        );
        let mut by_uri: HashMap<Uri, Published> = HashMap::new();
        let mut uri_of: HashMap<FileId, Uri> = HashMap::new();
        for id in focus {
            let path = &model.file(*id).path;
            let Some(uri) = uris.uri(path) else { continue };
            let version = versions.get(path).map(|(_, v)| *v);
            uri_of.insert(*id, uri.clone());
            by_uri.insert(
                uri,
                Published {
                    version,
                    diagnostics: Vec::new(),
                },
            );
        }
        for finding in findings {
            let Some(uri) = uri_of.get(&finding.primary.file) else {
                continue;
            };
            let diagnostic = convert::diagnostic(model, &uris, settings, finding);
            if let Some(p) = by_uri.get_mut(uri) {
                p.diagnostics.push(diagnostic);
            }
        }
        let mut changes: Vec<(Uri, Published)> = Vec::new();
        {
            let mut published = lock(&project.published);
            for (uri, new) in by_uri {
                let unchanged = match published.get(&uri) {
                    Some(old) => *old == new,
                    None => new.version.is_none() && new.diagnostics.is_empty(),
                };
                // Never over the findings of a newer version of a buffer.
                let older = matches!(
                    (published.get(&uri).and_then(|p| p.version), new.version),
                    (Some(shown), Some(ours)) if shown > ours
                );
                if unchanged || older {
                    continue;
                }
                if new.version.is_none() && new.diagnostics.is_empty() {
                    published.remove(&uri);
                } else {
                    published.insert(uri.clone(), new.clone());
                }
                changes.push((uri, new));
            }
        }
        self.send_for(project, changes).await;
    }

    /// Withdraws what was published under `uri` for `project`.
    pub async fn unpublish(&self, project: &ProjectState, uri: &Uri) {
        let shown = lock(&project.published)
            .remove(uri)
            .is_some_and(|p| !p.diagnostics.is_empty());
        if shown {
            self.client
                .publish_diagnostics(uri.clone(), Vec::new(), None)
                .await;
        }
    }

    /// Logs a panic (`reason`) caught while `doing` something; the server
    /// goes on.
    async fn log_panic(&self, doing: String, reason: String) {
        self.client
            .log_message(
                MessageType::ERROR,
                format!("dqlint: internal error while {doing}: {reason}"),
            )
            .await;
    }

    async fn clear(&self, project: &ProjectState) {
        let uris: Vec<Uri> = lock(&project.published)
            .drain()
            .filter(|(_, p)| !p.diagnostics.is_empty())
            .map(|(u, _)| u)
            .collect();
        for uri in uris {
            self.client.publish_diagnostics(uri, Vec::new(), None).await;
        }
    }

    /// Re-lints every project (settings changed).
    pub fn schedule_all(self: &Arc<Self>) {
        for project in self.projects() {
            self.schedule(project);
        }
    }
}

/// Brings the parses of `jobs` up to date and puts them in `edits`; returns
/// the live parses, for [`Workspace::give_back`].
fn run_parse_jobs(edits: &mut Edits, jobs: Vec<(FileId, ParseJob)>) -> Vec<(PathBuf, LiveYaml)> {
    jobs.into_iter()
        .map(|(id, job)| {
            let path = job.path.clone();
            let (yaml, live) = job.run();
            edits.parses.insert(id, yaml);
            (path, live)
        })
        .collect()
}

pub fn panic_message(panic: &(dyn std::any::Any + Send)) -> String {
    if let Some(s) = panic.downcast_ref::<&str>() {
        s.to_string()
    } else if let Some(s) = panic.downcast_ref::<String>() {
        s.clone()
    } else {
        "panic".to_string()
    }
}
