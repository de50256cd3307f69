//! The run cache: `<root>/.dqlint_cache/`, which replays the report of a
//! run whose inputs have not changed since.
//!
//! Why whole runs: in the common repeat (a pre-commit hook, a second
//! `dqlint lint` after reading the report) nothing changed, and replaying
//! the report skips everything: reading and parsing 13 MB, resolving
//! thousands of flowgroups and running the rules. A per-file parse cache
//! would save little since the block reader (dqlint-yaml) made parsing
//! cheap, and would still pay for resolution and rules.
//!
//! An entry is valid only when all of these are unchanged:
//! - the key: dqlint's version and the executable itself (size and mtime,
//!   so a rebuilt binary never replays an old report), the command-line
//!   arguments, the project root and reported paths, colour, and the raw
//!   bytes of the configuration file in use (`<root>/dqlint.toml` or
//!   `--config FILE`);
//! - the listing of the project tree (every file and folder name, so an
//!   added expectations or SQL file, or a renamed one, is seen);
//! - the content hash of every file the run read (inside the project or
//!   not), and whether each expectations file it looked for and did not
//!   find (an absolute path, or `../` out of the root) is still missing.
//!
//! The folder keeps the [`MAX_ENTRIES`] most recently used entries.
//!
//! The cache is safe to delete, never written outside the project root,
//! ignored by the project walk, and holds a `.gitignore` of `*`. Entries
//! are written with `--fix`'s writer (`fix_write::write_atomically`: a
//! temporary file in the folder, then a rename), so concurrent runs never
//! see half an entry; a damaged entry (truncated, bad checksum, unknown
//! format) is ignored and overwritten. `--no-cache` turns it all off.

use std::collections::hash_map::DefaultHasher;
use std::hash::Hasher;
use std::path::{Path, PathBuf};

use dqlint_project::Project;

use crate::fix_write::write_atomically;
use rayon::prelude::*;

pub const CACHE_DIR: &str = ".dqlint_cache";
const MAGIC: &[u8; 8] = b"DQLCACHE";
const FORMAT: u32 = 1;
/// Folders whose contents cannot change a run (and can be huge).
const UNWATCHED: &[&str] = &[".git", CACHE_DIR, "node_modules", "target", ".venv"];

/// The cache of one project root for one set of options.
pub struct RunCache {
    dir: PathBuf,
    entry: PathBuf,
    key: u64,
    listing: u64,
}

/// A report replayed from the cache.
pub struct Replay {
    pub output: Vec<u8>,
    pub failed: bool,
}

impl RunCache {
    /// `key_parts` are everything besides the files that decides the
    /// report (see the module doc).
    pub fn new(root: &Path, key_parts: &[&[u8]], config: Option<&Path>) -> RunCache {
        let mut key = DefaultHasher::new();
        key.write(MAGIC);
        key.write_u32(FORMAT);
        key.write(env!("CARGO_PKG_VERSION").as_bytes());
        if let Some(meta) = std::env::current_exe()
            .ok()
            .and_then(|p| std::fs::metadata(p).ok())
        {
            key.write_u64(meta.len());
            if let Ok(modified) = meta.modified() {
                key.write(format!("{modified:?}").as_bytes());
            }
        }
        for part in key_parts {
            key.write_usize(part.len());
            key.write(part);
        }
        for file in [Some(root.join("dqlint.toml").as_path()), config] {
            match file.map(std::fs::read) {
                Some(Ok(bytes)) => {
                    key.write_u8(1);
                    key.write_usize(bytes.len());
                    key.write(&bytes);
                }
                _ => key.write_u8(0),
            }
        }
        let key = key.finish();
        let dir = root.join(CACHE_DIR);
        let entry = dir.join(format!("run-{key:016x}.bin"));
        RunCache {
            dir,
            entry,
            key,
            listing: listing_hash(root),
        }
    }

    /// The stored report, if every input is unchanged.
    pub fn lookup(&self) -> Option<Replay> {
        let bytes = std::fs::read(&self.entry).ok()?;
        let entry = Entry::decode(&bytes)?;
        if entry.key != self.key || entry.listing != self.listing {
            return None;
        }
        let unchanged = entry
            .files
            .par_iter()
            .all(|(path, hash)| file_hash(Path::new(path)) == Some(*hash));
        if unchanged {
            // Marks the entry as used, for pruning.
            if let Ok(file) = std::fs::File::options().write(true).open(&self.entry) {
                let _ = file.set_modified(std::time::SystemTime::now());
            }
        }
        unchanged.then_some(Replay {
            output: entry.output,
            failed: entry.failed,
        })
    }

    /// Stores the report of a run over `project`. Best effort: a read-only
    /// project or a full disk only means no cache.
    pub fn store(&self, project: &Project, output: &[u8], failed: bool) {
        // Entries name files by UTF-8 path; a project with other paths is
        // simply not cached.
        if project.files.iter().any(|f| f.path.to_str().is_none()) {
            return;
        }
        let files: Option<Vec<(String, u64)>> = project
            .files
            .par_iter()
            .map(|file| {
                let bytes = std::fs::read(&file.path).ok();
                // The report came from `file.text`: store the hash only if
                // the disk still holds that text (a file edited during the
                // run must not be cached as seen).
                if file.read_error.is_none() {
                    let bytes = bytes.as_deref()?;
                    let body = bytes.strip_prefix("\u{feff}".as_bytes()).unwrap_or(bytes);
                    if body != file.text.as_bytes() {
                        return None;
                    }
                }
                Some((
                    file.path.to_string_lossy().into_owned(),
                    bytes.as_deref().map_or(0, content_hash),
                ))
            })
            .collect();
        let Some(mut files) = files else { return };
        // Files the run looked for but did not load (a missing
        // expectations file, inside the root or not): their appearing
        // must be seen, and the listing covers only the root.
        let loaded: std::collections::HashSet<&Path> =
            project.files.iter().map(|f| f.path.as_path()).collect();
        let envs = dqlint_project::envs_or_none(&project.envs);
        let mut probed: std::collections::BTreeSet<PathBuf> = std::collections::BTreeSet::new();
        for flowgroup in &project.flowgroups {
            for rel in flowgroup.expectations_files(&envs) {
                let full = dqlint_project::resolve_project_path(&project.root, &rel);
                if !loaded.contains(full.as_path()) {
                    probed.insert(full);
                }
            }
        }
        for path in probed {
            let Some(name) = path.to_str() else { return };
            files.push((name.to_string(), file_hash(&path).unwrap_or(0)));
        }
        let entry = Entry {
            key: self.key,
            listing: self.listing,
            files,
            failed,
            output: output.to_vec(),
        };
        let _ = self.write(&entry.encode());
    }

    fn write(&self, bytes: &[u8]) -> std::io::Result<()> {
        create_cache_dir(&self.dir)?;
        write_atomically(&self.entry, bytes)?;
        prune(&self.dir, MAX_ENTRIES);
        Ok(())
    }
}

/// Entries kept per project: the most recently used ones (a replay counts
/// as a use). Each option set and each rebuilt binary makes a new entry;
/// without a bound the folder only grows.
pub const MAX_ENTRIES: usize = 16;

/// Keeps the `keep` most recently used entries of `dir` and removes the
/// rest, with temporary files of writes that never finished (their
/// process is gone).
pub fn prune(dir: &Path, keep: usize) {
    let Ok(read) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<(std::time::SystemTime, PathBuf)> = Vec::new();
    for e in read.flatten() {
        let name = e.file_name();
        let name = name.to_string_lossy();
        let modified = e
            .metadata()
            .and_then(|m| m.modified())
            .unwrap_or(std::time::UNIX_EPOCH);
        if name.starts_with("run-") && name.ends_with(".bin") {
            entries.push((modified, e.path()));
        } else if name.starts_with(".run-")
            && name.ends_with(".tmp")
            && modified.elapsed().is_ok_and(|age| age.as_secs() > 60)
        {
            // Named so by dqlint before the cache shared `--fix`'s writer.
            let _ = std::fs::remove_file(e.path());
        }
    }
    crate::fix_write::remove_stale_temporaries([dir]);
    entries.sort_by(|a, b| b.cmp(a));
    for (_, path) in entries.into_iter().skip(keep) {
        let _ = std::fs::remove_file(path);
    }
}

/// Creates the cache folder (`<root>/.dqlint_cache`) with its `.gitignore`
/// of `*`, if it is not there yet.
pub fn create_cache_dir(dir: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)?;
    let ignore = dir.join(".gitignore");
    if !ignore.is_file() {
        write_atomically(&ignore, b"*\n")?;
    }
    Ok(())
}

fn content_hash(bytes: &[u8]) -> u64 {
    let mut h = DefaultHasher::new();
    h.write_usize(bytes.len());
    h.write(bytes);
    h.finish()
}

/// The hash of a file's bytes; 0 when it cannot be read (as
/// [`RunCache::store`] records an unreadable file).
fn file_hash(path: &Path) -> Option<u64> {
    match std::fs::read(path) {
        Ok(bytes) => Some(content_hash(&bytes)),
        Err(_) => Some(0),
    }
}

/// Names (relative paths) and types of everything under `root`, following
/// symbolic links as the project walk does, in a stable order.
fn listing_hash(root: &Path) -> u64 {
    let mut h = DefaultHasher::new();
    let walker = walkdir::WalkDir::new(root)
        .follow_links(true)
        .sort_by_file_name()
        .into_iter()
        .filter_entry(|e| {
            e.depth() == 0 || !UNWATCHED.contains(&e.file_name().to_string_lossy().as_ref())
        });
    for entry in walker {
        match entry {
            Ok(e) => {
                h.write(
                    e.path()
                        .strip_prefix(root)
                        .unwrap_or(e.path())
                        .as_os_str()
                        .as_encoded_bytes(),
                );
                h.write_u8(if e.file_type().is_dir() { b'd' } else { b'f' });
            }
            Err(e) => h.write(e.to_string().as_bytes()),
        }
    }
    h.finish()
}

/// One stored run. Layout (little-endian): magic, format, key, listing,
/// file count, (path length, path, hash) per file, failed, output length,
/// output, then a checksum of everything before it.
struct Entry {
    key: u64,
    listing: u64,
    files: Vec<(String, u64)>,
    failed: bool,
    output: Vec<u8>,
}

impl Entry {
    fn encode(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(self.output.len() + self.files.len() * 64 + 64);
        out.extend_from_slice(MAGIC);
        out.extend_from_slice(&FORMAT.to_le_bytes());
        out.extend_from_slice(&self.key.to_le_bytes());
        out.extend_from_slice(&self.listing.to_le_bytes());
        out.extend_from_slice(&(self.files.len() as u64).to_le_bytes());
        for (path, hash) in &self.files {
            out.extend_from_slice(&(path.len() as u64).to_le_bytes());
            out.extend_from_slice(path.as_bytes());
            out.extend_from_slice(&hash.to_le_bytes());
        }
        out.push(self.failed as u8);
        out.extend_from_slice(&(self.output.len() as u64).to_le_bytes());
        out.extend_from_slice(&self.output);
        let checksum = content_hash(&out);
        out.extend_from_slice(&checksum.to_le_bytes());
        out
    }

    /// `None` for anything but a complete, intact entry of this format.
    fn decode(bytes: &[u8]) -> Option<Entry> {
        let body_len = bytes.len().checked_sub(8)?;
        let (body, checksum) = bytes.split_at(body_len);
        if content_hash(body) != u64::from_le_bytes(checksum.try_into().ok()?) {
            return None;
        }
        let mut r = Cursor { bytes: body, at: 0 };
        if r.take(8)? != MAGIC || u32::from_le_bytes(r.take(4)?.try_into().ok()?) != FORMAT {
            return None;
        }
        let key = r.u64()?;
        let listing = r.u64()?;
        let count = r.u64()? as usize;
        let mut files = Vec::with_capacity(count.min(body.len() / 16));
        for _ in 0..count {
            let len = r.u64()? as usize;
            let path = String::from_utf8(r.take(len)?.to_vec()).ok()?;
            files.push((path, r.u64()?));
        }
        let failed = r.take(1)?[0] != 0;
        let len = r.u64()? as usize;
        let output = r.take(len)?.to_vec();
        (r.at == body.len()).then_some(Entry {
            key,
            listing,
            files,
            failed,
            output,
        })
    }
}

struct Cursor<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Cursor<'a> {
    fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        let end = self.at.checked_add(n)?;
        let slice = self.bytes.get(self.at..end)?;
        self.at = end;
        Some(slice)
    }

    fn u64(&mut self) -> Option<u64> {
        Some(u64::from_le_bytes(self.take(8)?.try_into().ok()?))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Entry {
        Entry {
            key: 7,
            listing: 9,
            files: vec![("/p/lhp.yaml".into(), 1), ("/p/pipelines/a.yaml".into(), 2)],
            failed: true,
            output: b"report\n".to_vec(),
        }
    }

    #[test]
    fn entries_round_trip() {
        let back = Entry::decode(&sample().encode()).expect("decodes");
        assert_eq!((back.key, back.listing, back.failed), (7, 9, true));
        assert_eq!(back.files, sample().files);
        assert_eq!(back.output, b"report\n");
    }

    #[test]
    fn every_truncation_and_every_flipped_byte_is_rejected() {
        let bytes = sample().encode();
        for len in 0..bytes.len() {
            assert!(Entry::decode(&bytes[..len]).is_none(), "truncated to {len}");
        }
        for i in 0..bytes.len() {
            let mut damaged = bytes.clone();
            damaged[i] ^= 0x20;
            assert!(Entry::decode(&damaged).is_none(), "byte {i} flipped");
        }
    }
}
