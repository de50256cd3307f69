//! Reading project files: the one place that touches the disk (or the
//! editor's open buffers, through [`Overlay`]).

use std::collections::HashMap;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use dqlint_yaml::{LineIndex, YamlFile};

use crate::value::FileId;

/// What role a file plays in the LHP project.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FileKind {
    ProjectConfig,
    Flowgroup,
    Template,
    Blueprint,
    Preset,
    Substitutions,
    PipelineConfig,
    Expectations,
    Sql,
    /// A DQX checks file (`dqlint-dqx`: found by content).
    DqxChecks,
    /// A DQX run config (`config.yml` with `run_configs`).
    DqxRunConfig,
    /// A Python pipeline source (`import dlt`, `pyspark.pipelines`) or a
    /// module of DQX's Python API (`databricks.labs.dqx`), found by content.
    PipelinePython,
    /// A SQL pipeline source (`CREATE STREAMING TABLE`, `CONSTRAINT ...
    /// EXPECT`, `AUTO CDC INTO`), found by content; its DLQ DDL, if any,
    /// is read by the DDL catalog as a [`FileKind::Sql`] file's is.
    PipelineSql,
    /// A Python module a pipeline source imports names from (`from rules
    /// import RULES`) that is no pipeline source itself: read for the
    /// values it binds, not linted on its own.
    PythonModule,
    /// The `dqlint.toml` whose `envs` chose the environments (TOML, not
    /// parsed here: `dqlint-linter::config` reads it); a project file so
    /// that findings about those environments (an unknown environment) can point at it.
    LintConfig,
    /// A file of the team's rule registry (`[policy] registry` globs in
    /// `dqlint.toml`): rules pipeline code loads by entry name
    /// ([`crate::rule_registry`]).
    PolicyRegistry,
}

impl FileKind {
    pub fn is_yaml(self) -> bool {
        !matches!(
            self,
            FileKind::Sql
                | FileKind::LintConfig
                | FileKind::PipelinePython
                | FileKind::PipelineSql
                | FileKind::PythonModule
        )
    }

    /// A `.sql` file: LHP's DDL, or a SQL pipeline source.
    pub fn is_sql(self) -> bool {
        matches!(self, FileKind::Sql | FileKind::PipelineSql)
    }

    /// A pipeline source, Python or SQL.
    pub fn is_pipeline(self) -> bool {
        matches!(self, FileKind::PipelinePython | FileKind::PipelineSql)
    }
}

/// One file of the project, read and (for YAML/JSON) parsed.
#[derive(Debug)]
pub struct SourceFile {
    pub id: FileId,
    pub path: PathBuf,
    /// Path relative to the project root, with `/` separators.
    pub rel: String,
    pub kind: FileKind,
    pub text: Arc<str>,
    pub lines: LineIndex,
    /// The parse (shared: copies of a project share it). For flowgroup
    /// files the document trees (`root`) are released once
    /// `Project::flowgroups` is built from them (memory); spans, errors,
    /// comments and duplicate keys stay.
    pub yaml: Option<Arc<YamlFile>>,
    /// DQX's reading of a checks file, typed while the file was read, its
    /// YAML trees then released (a one-shot lint:
    /// [`crate::LoadOptions::release_dqx_trees`]). `None`: the rules type
    /// the file from `yaml` when they first read it.
    pub dqx: Option<Arc<dqlint_dqx::Loaded>>,
    /// Why the file could not be read (missing, binary, not UTF-8...).
    pub read_error: Option<String>,
}

impl SourceFile {
    /// Types a checks file that parses as DQX reads it into
    /// [`SourceFile::dqx`], taking the trees out of its parse (which must
    /// not be shared yet: a parse another file holds is left as it is).
    pub(crate) fn type_dqx_checks(&mut self) {
        let Some(yaml) = self.yaml.as_mut().and_then(Arc::get_mut) else {
            return;
        };
        if !yaml.errors.is_empty() {
            return;
        }
        let format = dqlint_dqx::Format::for_path(&self.rel);
        let loaded = dqlint_dqx::load_taking(&self.text, yaml, format);
        self.dqx = Some(Arc::new(loaded));
    }

    /// Whether the file could not be read or does not parse (a YAML syntax
    /// error anywhere in it).
    pub fn is_broken(&self) -> bool {
        self.read_error.is_some() || self.yaml.as_ref().is_some_and(|y| !y.errors.is_empty())
    }

    /// The first non-empty YAML document as a [`crate::Value`] (lhp.yaml,
    /// templates, presets and substitutions hold one document).
    pub fn first_document(&self) -> Option<crate::Value> {
        let node = self
            .yaml
            .as_ref()?
            .documents
            .iter()
            .find_map(|d| d.root.as_ref())?;
        Some(crate::Value::from_node(node, self.id))
    }
}

/// Text of open editor buffers, which win over the disk.
pub type Overlay = HashMap<PathBuf, Arc<str>>;

/// The regular files under a lint root, walked once per load: in file-name
/// order, symbolic links not followed, outside the folders no dialect reads
/// (`dialect::SKIPPED`: version control, caches, virtual environments,
/// build and LHP output). The loader finds SQL, DQX, pipeline and registry
/// files in it, and the editor offers paths from it, so none of them walks
/// the disk again. (The LHP layout folders, `pipelines/`, `templates/` and
/// `blueprints/`, are read as LHP reads them: links followed, loops
/// reported; see the loader.)
#[derive(Clone, Debug, Default)]
pub struct Listing {
    files: Arc<[PathBuf]>,
    /// What the walk did not read as the loader's walks of the LHP folders
    /// do: symbolic links (not followed here), skipped folders, entries
    /// that could not be read.
    unlike_lhp: Arc<[PathBuf]>,
    root: Option<PathBuf>,
}

impl Listing {
    pub fn walk(root: &Path) -> Listing {
        let mut files = Vec::new();
        let mut unlike_lhp = Vec::new();
        let mut skipped = Vec::new();
        let walk = walkdir::WalkDir::new(root)
            .sort_by(by_file_name)
            .into_iter()
            .filter_entry(|e| {
                let read = e.depth() == 0
                    || !crate::dialect::SKIPPED.contains(&e.file_name().to_string_lossy().as_ref());
                if !read {
                    skipped.push(e.path().to_path_buf());
                }
                read
            });
        for entry in walk {
            match entry {
                Ok(entry) if entry.file_type().is_file() => files.push(entry.into_path()),
                Ok(entry) if entry.path_is_symlink() => unlike_lhp.push(entry.into_path()),
                Ok(_) => {}
                Err(e) => unlike_lhp.push(e.path().unwrap_or(root).to_path_buf()),
            }
        }
        unlike_lhp.append(&mut skipped);
        Listing {
            files: files.into(),
            unlike_lhp: unlike_lhp.into(),
            root: Some(root.to_path_buf()),
        }
    }

    /// The listed files below `folder`, in walk order, when the walk read
    /// that folder as LHP reads it (nothing in it a link, skipped or
    /// unreadable), so that the loader need not walk it again; `None`
    /// otherwise, or when `folder` is not below the listed root.
    pub fn files_below(&self, folder: &Path) -> Option<&[PathBuf]> {
        use std::path::Component;
        let plain = folder.components().all(|c| {
            matches!(
                c,
                Component::Normal(_) | Component::RootDir | Component::Prefix(_)
            )
        });
        if !plain
            || !self
                .root
                .as_ref()
                .is_some_and(|root| folder.starts_with(root))
            || self.unlike_lhp.iter().any(|p| p.starts_with(folder))
        {
            return None;
        }
        // Listed paths are the walk's joins of the root and its entries:
        // below `folder` is `folder`'s bytes and a separator (comparing
        // components would parse each of thousands of paths).
        let mut prefix = folder.as_os_str().as_encoded_bytes();
        while let [rest @ .., last] = prefix {
            if !std::path::is_separator(char::from(*last)) {
                break;
            }
            prefix = rest;
        }
        let below = |path: &PathBuf| {
            let path = path.as_os_str().as_encoded_bytes();
            path.len() > prefix.len() + 1
                && path.starts_with(prefix)
                && std::path::is_separator(char::from(path[prefix.len()]))
        };
        let first = self
            .files
            .iter()
            .position(below)
            .unwrap_or(self.files.len());
        let count = self.files[first..].iter().take_while(|p| below(p)).count();
        Some(&self.files[first..first + count])
    }

    /// Every listed file, in walk order.
    pub fn files(&self) -> &[PathBuf] {
        &self.files
    }

    /// The listed files whose extension is one of `extensions`.
    pub fn with_extension<'a>(
        &'a self,
        extensions: &'a [&str],
    ) -> impl Iterator<Item = &'a PathBuf> + 'a {
        self.files.iter().filter(move |path| {
            path.extension()
                .and_then(|x| x.to_str())
                .is_some_and(|x| extensions.contains(&x))
        })
    }
}

/// Files larger than this are reported, not read. The largest real LHP
/// file we know is a few hundred KB; a file this size is generated or a
/// mistake, and parsing it would take seconds and about twenty times its
/// size in memory (measured: 1.1 GB for 50 MB).
pub const MAX_FILE_BYTES: u64 = 16 * 1024 * 1024;

/// What stands at a path a flowgroup reads a file from, when no file LHP
/// can read is there (found by the load, so that rules read no disk).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Missing {
    /// Nothing; `case_match` is the project-relative path that exists and
    /// differs only in letter case, if there is one.
    Absent { case_match: Option<String> },
    /// A folder.
    Folder,
    /// A FIFO, socket or device.
    Special,
    /// A symbolic link to nothing (or a link loop), with its target.
    DanglingLink(PathBuf),
    /// A symbolic link to a folder, with its target.
    LinkToFolder(PathBuf),
    /// A symbolic link to something that is no regular file, with its target.
    LinkToSpecial(PathBuf),
}

/// Whether a regular file (or a link to one) stands at `path` on disk.
pub fn is_file(path: &Path) -> bool {
    path.is_file()
}

/// Whether `folder` holds an LHP project (its `lhp.yaml`) on disk.
pub fn holds_lhp_project(folder: &Path) -> bool {
    is_file(&folder.join("lhp.yaml"))
}

/// The nearest folder above `path` holding `lhp.yaml`; `path` itself may
/// exist only in the editor, or have just been deleted.
pub fn lhp_project_above(path: &Path) -> Option<PathBuf> {
    path.ancestors()
        .skip(1)
        .find(|folder| holds_lhp_project(folder))
        .map(Path::to_path_buf)
}

/// The folders holding `lhp.yaml` under `folder`, at most `depth` folders
/// down, not looking into hidden folders or the ones named in `skipped`
/// (build output, virtual environments), canonical.
pub fn lhp_projects_under(folder: &Path, depth: usize, skipped: &[&str]) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let mut pending = vec![(folder.to_path_buf(), 0)];
    while let Some((dir, level)) = pending.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            let name = entry.file_name();
            let name = name.to_string_lossy();
            let is_dir = entry.file_type().is_ok_and(|t| t.is_dir());
            if is_dir
                && level < depth
                && !name.starts_with('.')
                && !skipped.contains(&name.as_ref())
            {
                pending.push((entry.path(), level + 1));
            } else if !is_dir && name == "lhp.yaml" {
                found.extend(canonical(&dir));
            }
        }
    }
    found
}

/// `path` with links and `..` resolved; for a path that does not exist
/// (yet, or any more), its canonical folder joined with its name.
pub fn canonical(path: &Path) -> Option<PathBuf> {
    if let Ok(path) = std::fs::canonicalize(path) {
        return Some(path);
    }
    let parent = std::fs::canonicalize(path.parent()?).ok()?;
    Some(parent.join(path.file_name()?))
}

/// What is at `path` (project-relative `rel` under `root`) when it is no
/// regular file; `None` when it is one.
pub(crate) fn probe_missing(root: &Path, rel: &str, path: &Path) -> Option<Missing> {
    if is_file(path) {
        return None;
    }
    let Ok(meta) = std::fs::symlink_metadata(path) else {
        return Some(Missing::Absent {
            case_match: case_insensitive_match(root, rel),
        });
    };
    if meta.file_type().is_symlink() {
        let target = std::fs::read_link(path).unwrap_or_default();
        return Some(match std::fs::metadata(path) {
            Err(_) => Missing::DanglingLink(target),
            Ok(m) if m.is_dir() => Missing::LinkToFolder(target),
            Ok(_) => Missing::LinkToSpecial(target),
        });
    }
    Some(if meta.is_dir() {
        Missing::Folder
    } else {
        Missing::Special
    })
}

/// The path under `root` that matches `rel` when letter case is ignored
/// (`Expectations/x.yaml` vs `expectations/x.yaml`).
fn case_insensitive_match(root: &Path, rel: &str) -> Option<String> {
    let mut dir = root.to_path_buf();
    let mut parts = Vec::new();
    for part in rel.split('/').filter(|p| !p.is_empty() && *p != ".") {
        let entries = std::fs::read_dir(&dir).ok()?;
        let found = entries
            .filter_map(Result::ok)
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .find(|name| name.eq_ignore_ascii_case(part))?;
        dir.push(&found);
        parts.push(found);
    }
    Some(parts.join("/"))
}

/// A file's text as a load reads it from disk (size limit, binary and
/// UTF-8 checks, BOM dropped).
pub fn read_from_disk(path: &Path) -> Result<Arc<str>, String> {
    read_text(path, &Overlay::new())
}

pub(crate) fn read_text(path: &Path, overlay: &Overlay) -> Result<Arc<str>, String> {
    if let Some(text) = overlay.get(path) {
        return Ok(text.clone());
    }
    let cannot = |e: std::io::Error| format!("cannot read the file: {e}");
    let mut file = std::fs::File::open(path).map_err(cannot)?;
    // Into this thread's read buffer, without asking the file's size: for
    // a file smaller than the buffer's spare room that is one read of the
    // file and one read of its end, after the open (a `fstat` for the size
    // was a fifth of the system calls of a load of 2,800 small files).
    // `take` stops a file over the limit (or a device that never ends) one
    // byte past it; only then is it measured, for the message.
    READ_BUFFER.with_borrow_mut(|buffer| {
        buffer.clear();
        buffer.reserve(READ_BUFFER_BYTES);
        let read = Read::read_to_end(&mut Read::take(&mut file, MAX_FILE_BYTES + 1), buffer);
        let text = match read {
            Err(e) => Err(cannot(e)),
            Ok(_) if buffer.len() as u64 > MAX_FILE_BYTES => {
                let len = file.metadata().map_or(buffer.len() as u64, |m| m.len());
                Err(format!(
                    "the file is {} MB, larger than the {} MB dqlint reads",
                    len / (1024 * 1024),
                    MAX_FILE_BYTES / (1024 * 1024)
                ))
            }
            Ok(_) => decode_text(buffer),
        };
        if buffer.capacity() > READ_BUFFER_BYTES {
            // A large file's room is not kept (the language server lives
            // long and reads one file at a time).
            *buffer = Vec::new();
        }
        text
    })
}

/// Room for every file of a typical project in one read.
const READ_BUFFER_BYTES: usize = 64 * 1024;

thread_local! {
    static READ_BUFFER: std::cell::RefCell<Vec<u8>> = const { std::cell::RefCell::new(Vec::new()) };
}

pub(crate) fn decode_text(bytes: &[u8]) -> Result<Arc<str>, String> {
    let probe = &bytes[..bytes.len().min(8192)];
    if probe.contains(&0) {
        return Err("the file is binary (it contains NUL bytes), not YAML or SQL text".into());
    }
    match std::str::from_utf8(bytes) {
        // Windows editors write a BOM; YAML and SQL do not want it.
        Ok(text) => Ok(Arc::from(text.strip_prefix('\u{feff}').unwrap_or(text))),
        Err(e) => {
            let before = &bytes[..e.valid_up_to()];
            let line = before.iter().filter(|b| **b == b'\n').count() + 1;
            Err(format!(
                "the file is not valid UTF-8 (first bad byte at line {line}); save it as UTF-8"
            ))
        }
    }
}

/// The valid UTF-8 text before a file's first invalid byte, when the file
/// is text that is not UTF-8 (not binary, not too large).
fn utf8_prefix(path: &Path) -> Option<Arc<str>> {
    let meta = std::fs::metadata(path).ok()?;
    if meta.len() > MAX_FILE_BYTES {
        return None;
    }
    let bytes = std::fs::read(path).ok()?;
    if bytes[..bytes.len().min(8192)].contains(&0) {
        return None;
    }
    let err = std::str::from_utf8(&bytes).err()?;
    let prefix = std::str::from_utf8(&bytes[..err.valid_up_to()]).ok()?;
    Some(Arc::from(prefix.strip_prefix('\u{feff}').unwrap_or(prefix)))
}

pub(crate) fn load_file(
    id: FileId,
    root: &Path,
    path: PathBuf,
    kind: FileKind,
    overlay: &Overlay,
) -> SourceFile {
    let (text, read_error) = match read_text(&path, overlay) {
        Ok(text) => (text, None),
        // Not UTF-8: the text before the first bad byte is kept, so that
        // The syntax error shows where it is (at the end of that text); the file is
        // still not linted (`read_error` is set).
        Err(e) => (utf8_prefix(&path).unwrap_or_else(|| Arc::from("")), Some(e)),
    };
    file_from_text(id, root, path, kind, text, read_error)
}

/// A file whose text was already read (`read_error` when it could not be
/// read whole), parsed as its kind wants.
pub(crate) fn file_from_text(
    id: FileId,
    root: &Path,
    path: PathBuf,
    kind: FileKind,
    text: Arc<str>,
    read_error: Option<String>,
) -> SourceFile {
    let rel = relative_path(root, &path);
    let lines = LineIndex::lazy(text.clone());
    let yaml =
        (kind.is_yaml() && read_error.is_none()).then(|| Arc::new(dqlint_yaml::parse(&text)));
    SourceFile {
        id,
        path,
        rel,
        kind,
        text,
        lines,
        yaml,
        dqx: None,
        read_error,
    }
}

/// Directory entries by file name, as walkdir's `sort_by_file_name` orders
/// them, without parsing each path's components at every comparison (the
/// name of an entry the walk joined is what follows its last separator).
pub(crate) fn by_file_name(a: &walkdir::DirEntry, b: &walkdir::DirEntry) -> std::cmp::Ordering {
    fn name(entry: &walkdir::DirEntry) -> &[u8] {
        let path = entry.path().as_os_str().as_encoded_bytes();
        #[cfg(not(windows))]
        let separator = memchr::memrchr(b'/', path);
        #[cfg(windows)]
        let separator = memchr::memrchr2(b'/', b'\\', path);
        match separator {
            Some(separator) if separator + 1 < path.len() => &path[separator + 1..],
            _ => entry.file_name().as_encoded_bytes(),
        }
    }
    name(a).cmp(name(b))
}

pub fn relative_path(root: &Path, path: &Path) -> String {
    // A plain relative path (no empty or `.` component) is already what
    // joining its components says. One the walk joined below the root is
    // taken as text first: `strip_prefix` and `components` parse both paths.
    let plain = |text: &str| {
        std::path::MAIN_SEPARATOR == '/' && text.split('/').all(|c| !c.is_empty() && c != ".")
    };
    let joined_below_root = path
        .to_str()
        .zip(root.to_str())
        .and_then(|(path, root)| path.strip_prefix(root)?.strip_prefix('/'));
    if let Some(text) = joined_below_root.filter(|text| plain(text)) {
        return text.to_string();
    }
    let rel = path.strip_prefix(root).unwrap_or(path);
    if let Some(text) = rel.to_str().filter(|text| plain(text)) {
        return text.to_string();
    }
    rel.components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect::<Vec<_>>()
        .join("/")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_sort_by_file_name_as_walkdir_sorts_them() {
        let dir = tempfile::tempdir().unwrap();
        for name in ["b", "a.txt", "a-b", "A", "é", "a0", "ab", "a_b"] {
            std::fs::write(dir.path().join(name), "").unwrap();
        }
        std::fs::create_dir(dir.path().join("a")).unwrap();
        std::fs::write(dir.path().join("a").join("x"), "").unwrap();
        let walk = |ours: bool| -> Vec<PathBuf> {
            let walker = walkdir::WalkDir::new(dir.path());
            let walker = if ours {
                walker.sort_by(by_file_name)
            } else {
                walker.sort_by_file_name()
            };
            walker.into_iter().map(|e| e.unwrap().into_path()).collect()
        };
        assert_eq!(walk(true), walk(false));
    }

    #[test]
    fn a_folder_is_taken_from_the_listing_only_when_it_was_walked_as_lhp_walks() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        for rel in [
            "pipelines/b/x.yaml",
            "pipelines/a-b/y.yaml",
            "pipelines/a/z.yaml",
            "pipelines-old/w.yaml",
            "templates/t.yaml",
            "templates/generated/g.yaml",
            "blueprints/b.yaml",
        ] {
            let path = root.join(rel);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, "").unwrap();
        }
        let listing = Listing::walk(root);
        let lhp_walk = |folder: &Path| -> Vec<PathBuf> {
            walkdir::WalkDir::new(folder)
                .follow_links(true)
                .sort_by(by_file_name)
                .into_iter()
                .map(|e| e.unwrap())
                .filter(|e| e.file_type().is_file())
                .map(walkdir::DirEntry::into_path)
                .collect()
        };
        let pipelines = root.join("pipelines");
        assert_eq!(
            listing.files_below(&pipelines).unwrap(),
            lhp_walk(&pipelines)
        );
        assert_eq!(
            listing.files_below(&root.join("missing")).unwrap(),
            &[] as &[PathBuf]
        );
        // A folder holding one the listing skips is walked again.
        assert!(listing.files_below(&root.join("templates")).is_none());
        // Outside the listed root, or from no walk at all: nothing known.
        assert!(listing.files_below(Path::new("/elsewhere")).is_none());
        assert!(Listing::default().files_below(&pipelines).is_none());
        // A folder named with a trailing separator, or through `..`.
        assert_eq!(
            listing
                .files_below(&root.join("pipelines").join(""))
                .unwrap(),
            lhp_walk(&pipelines)
        );
        assert!(listing
            .files_below(&root.join("pipelines/../templates"))
            .is_none());
        #[cfg(unix)]
        {
            std::os::unix::fs::symlink(root.join("templates"), root.join("blueprints/linked"))
                .unwrap();
            let listing = Listing::walk(root);
            assert!(listing.files_below(&root.join("blueprints")).is_none());
            assert!(listing.files_below(&pipelines).is_some());
        }
    }

    #[test]
    fn relative_paths_join_components_with_slashes() {
        for root in ["/p", "/p/", "/p/.", ".", "/"] {
            let root = Path::new(root);
            for path in [
                "/p/pipelines/a.yaml",
                "/p/./pipelines//a.yaml",
                "/p/pipelines/",
                "/p",
                "/q/a.yaml",
                "/p/../x.yaml",
                "/p/a b/é.yaml",
                "/p/./x/a.yaml",
                "/px/a.yaml",
                "./x/a.yaml",
                "x/a.yaml",
                "/p//a.yaml",
            ] {
                let path = Path::new(path);
                let joined = path
                    .strip_prefix(root)
                    .unwrap_or(path)
                    .components()
                    .map(|c| c.as_os_str().to_string_lossy().into_owned())
                    .collect::<Vec<_>>()
                    .join("/");
                assert_eq!(relative_path(root, path), joined, "{root:?} {path:?}");
            }
        }
        assert_eq!(
            relative_path(Path::new("/p"), Path::new("/p/x/a.yaml")),
            "x/a.yaml"
        );
    }
}
