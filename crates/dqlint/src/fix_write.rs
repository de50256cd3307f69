//! Writing what `--fix` changed without losing a byte it did not mean to
//! change.
//!
//! - **Optimistic concurrency.** [`ReadState`] records each file's length
//!   and modification time right after the project was read. Before any
//!   file is written, every file to write is read again and compared with
//!   the text the fixes were computed on (and its length and mtime with
//!   the recorded ones); if one changed (an editor saved it, another tool
//!   rewrote it), nothing at all is written and the run says "changed
//!   while fixing: re-run". The same comparison is repeated for each file
//!   just before its rename.
//! - **One fixer at a time.** [`FixLock`] is an advisory lock
//!   (`.dqlint_cache/fix.lock`, `flock`) held for the whole `--fix` run, so
//!   a second `--fix` on the same project waits (saying so) and then reads
//!   the first one's result instead of overwriting it.
//! - **What `--fix` does not own stays.** A UTF-8 BOM is written back; the
//!   replacement keeps the mode, owner and group; a file with several hard
//!   links is rewritten in place (a rename would split the links), others
//!   atomically (temporary file in the same folder, then a rename); a file
//!   whose permissions do not allow writing is never fixed, even when the
//!   user could replace it (root, or the owner of a 0444 file).
//! - **Interrupts.** Ctrl-C (or SIGTERM) while a file is being written
//!   lets that one file finish, then stops; temporary files are named
//!   `.dqlint-fix-<pid>-*`, and a later run removes those whose process is
//!   gone.

use std::collections::BTreeSet;
use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::SystemTime;

/// The UTF-8 byte order mark, dropped when a file is read (see
/// `dqlint_project::read_from_disk`) and written back by `--fix`.
const BOM: &[u8] = b"\xEF\xBB\xBF";
/// The prefix of `--fix`'s temporary files; the process id follows.
pub const TEMP_PREFIX: &str = ".dqlint-fix-";
/// Test hook: a folder. Before writing, `--fix` creates `paused` in it
/// and waits until `resume` exists, so tests can edit files or start a
/// second fixer between the read and the write without timing guesses.
pub const PAUSE_ENV: &str = "DQLINT_TEST_PAUSE_BEFORE_WRITE";

/// What a file looked like when the project was read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReadState {
    pub len: u64,
    pub modified: Option<SystemTime>,
}

impl ReadState {
    pub fn of(path: &Path) -> Option<ReadState> {
        let meta = std::fs::metadata(path).ok()?;
        Some(ReadState {
            len: meta.len(),
            modified: meta.modified().ok(),
        })
    }
}

/// Why `path` must not be fixed at all, if it must not: its permissions
/// do not allow writing it.
pub fn not_writable(path: &Path) -> Option<String> {
    let meta = std::fs::metadata(path).ok()?;
    if meta.permissions().readonly() {
        return Some("the file is read-only (its permissions do not allow writing)".into());
    }
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStrExt;
        let c = std::ffi::CString::new(path.as_os_str().as_bytes()).ok()?;
        // SAFETY: `c` is a valid NUL-terminated path for the call.
        if unsafe { libc::access(c.as_ptr(), libc::W_OK) } != 0 {
            return Some("you may not write this file".into());
        }
    }
    None
}

/// One file to write: the text the fixes were computed on and the fixed one.
pub struct PlannedWrite<'a> {
    pub path: &'a Path,
    pub rel: &'a str,
    pub before: &'a str,
    pub after: &'a str,
    pub read: Option<&'a ReadState>,
}

/// What writing the fixed files did.
#[derive(Debug, PartialEq, Eq)]
pub enum WriteOutcome {
    Written,
    /// `changed` changed on disk since they were read and were left
    /// alone. `written` is empty when the change was seen before any
    /// write (the usual case); a change in the last instant before a
    /// rename only stops that one file.
    ChangedWhileFixing {
        changed: Vec<String>,
        written: Vec<String>,
    },
    /// Ctrl-C: the file being written was finished, the rest not written.
    Interrupted,
}

/// The bytes of `path` if they are still what was read: `before` (with or
/// without a BOM) and the recorded length and mtime. `Ok(None)` when the
/// file changed; the flag says whether it had a BOM.
fn still_as_read(
    path: &Path,
    before: &str,
    read: Option<&ReadState>,
) -> std::io::Result<Option<bool>> {
    let bytes = std::fs::read(path)?;
    let (bom, body) = match bytes.strip_prefix(BOM) {
        Some(body) => (true, body),
        None => (false, &bytes[..]),
    };
    if body != before.as_bytes() {
        return Ok(None);
    }
    if let Some(read) = read {
        if ReadState::of(path).as_ref() != Some(read) {
            return Ok(None);
        }
    }
    Ok(Some(bom))
}

/// Writes the fixed files: all of them are checked first (nothing is
/// written if one changed), then each is written.
pub fn write_all(files: &[PlannedWrite]) -> Result<WriteOutcome, String> {
    pause_for_tests();
    let mut changed = Vec::new();
    for f in files {
        match still_as_read(f.path, f.before, f.read) {
            Ok(Some(_)) => {}
            Ok(None) => changed.push(f.rel.to_string()),
            Err(e) => return Err(format!("cannot read {} again: {e}", f.path.display())),
        }
    }
    if !changed.is_empty() {
        return Ok(WriteOutcome::ChangedWhileFixing {
            changed,
            written: Vec::new(),
        });
    }
    let mut written = Vec::new();
    for f in files {
        if INTERRUPTED.load(Ordering::SeqCst) {
            return Ok(WriteOutcome::Interrupted);
        }
        WRITING.store(true, Ordering::SeqCst);
        let result = write_one(f);
        WRITING.store(false, Ordering::SeqCst);
        match result {
            Ok(true) => written.push(f.rel.to_string()),
            Ok(false) => changed.push(f.rel.to_string()),
            Err(e) => return Err(format!("cannot write {}: {e}", f.path.display())),
        }
    }
    if !changed.is_empty() {
        return Ok(WriteOutcome::ChangedWhileFixing { changed, written });
    }
    if INTERRUPTED.load(Ordering::SeqCst) {
        return Ok(WriteOutcome::Interrupted);
    }
    Ok(WriteOutcome::Written)
}

/// Writes one file; `Ok(false)` when it changed since it was read (and was
/// left alone).
fn write_one(f: &PlannedWrite) -> std::io::Result<bool> {
    // A symlink is followed: the link stays a link and its target changes.
    let path = std::fs::canonicalize(f.path)?;
    let Some(bom) = still_as_read(&path, f.before, f.read)? else {
        return Ok(false);
    };
    let mut bytes = Vec::with_capacity(f.after.len() + 3);
    if bom {
        bytes.extend_from_slice(BOM);
    }
    bytes.extend_from_slice(f.after.as_bytes());
    replace_file(&path, &bytes, || {
        Ok(still_as_read(&path, f.before, f.read)?.is_some())
    })
}

/// Writes `bytes` as the content of `path` through a temporary file in
/// the same folder (`.dqlint-fix-<pid>-*`), `fsync` and a rename, so a
/// reader sees the old content or the new one, never a mix; what the
/// file's content is not (mode, owner, group, other hard links) stays.
/// A file with several links, or whose owner the replacement could not
/// get, is rewritten in place instead. `unchanged` is asked last, just
/// before the content is replaced: `Ok(false)` from it leaves the file
/// alone and returns `Ok(false)`.
///
/// The one writer of dqlint: `--fix` and the run cache both use it.
pub fn replace_file(
    path: &Path,
    bytes: &[u8],
    unchanged: impl FnOnce() -> std::io::Result<bool>,
) -> std::io::Result<bool> {
    // A new file (a cache entry) has nothing to keep.
    let meta = match std::fs::metadata(path) {
        Ok(meta) => Some(meta),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
        Err(e) => return Err(e),
    };
    if !meta.as_ref().is_some_and(several_links) {
        let dir = path
            .parent()
            .filter(|p| !p.as_os_str().is_empty())
            .unwrap_or(Path::new("."));
        let mut tmp = tempfile::Builder::new()
            .prefix(&format!("{TEMP_PREFIX}{}-", std::process::id()))
            .tempfile_in(dir)?;
        tmp.write_all(bytes)?;
        if let Some(meta) = &meta {
            tmp.as_file().set_permissions(meta.permissions())?;
        }
        // Otherwise the replacement would belong to someone else (a file
        // owned by another user, fixed by root or through group rights):
        // writing in place, below, keeps the owner and group.
        if meta.as_ref().is_none_or(|m| same_owner(tmp.as_file(), m)) {
            tmp.as_file().sync_all()?;
            if !unchanged()? {
                return Ok(false); // `tmp` is removed when dropped
            }
            tmp.persist(path).map_err(|e| e.error)?;
            return Ok(true);
        }
    }
    if !unchanged()? {
        return Ok(false);
    }
    write_in_place(path, bytes)?;
    Ok(true)
}

/// [`replace_file`] for a file dqlint owns (a cache entry): no check.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    replace_file(path, bytes, || Ok(true)).map(|_| ())
}

fn write_in_place(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let mut file = std::fs::OpenOptions::new().write(true).open(path)?;
    file.set_len(0)?;
    file.write_all(bytes)?;
    file.sync_all()
}

#[cfg(unix)]
fn several_links(meta: &std::fs::Metadata) -> bool {
    use std::os::unix::fs::MetadataExt;
    meta.nlink() > 1
}

#[cfg(not(unix))]
fn several_links(_: &std::fs::Metadata) -> bool {
    false
}

/// Gives `tmp` the owner and group of the original; false when that is
/// not allowed.
#[cfg(unix)]
fn same_owner(tmp: &File, original: &std::fs::Metadata) -> bool {
    use std::os::unix::fs::MetadataExt;
    let Ok(now) = tmp.metadata() else {
        return false;
    };
    if now.uid() == original.uid() && now.gid() == original.gid() {
        return true;
    }
    std::os::unix::fs::fchown(tmp, Some(original.uid()), Some(original.gid())).is_ok()
}

#[cfg(not(unix))]
fn same_owner(_: &File, _: &std::fs::Metadata) -> bool {
    true
}

fn pause_for_tests() {
    let Some(dir) = std::env::var_os(PAUSE_ENV) else {
        return;
    };
    let dir = PathBuf::from(dir);
    let _ = std::fs::write(dir.join("paused"), std::process::id().to_string());
    let started = std::time::Instant::now();
    while !dir.join("resume").exists() && started.elapsed().as_secs() < 120 {
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
}

static WRITING: AtomicBool = AtomicBool::new(false);
static INTERRUPTED: AtomicBool = AtomicBool::new(false);

/// Ctrl-C and SIGTERM during `--fix`: before and after the writes the
/// process exits at once (status 130; no temporary file exists then);
/// while a file is written, that file is finished and the rest skipped.
pub fn handle_interrupts() {
    #[cfg(unix)]
    {
        extern "C" fn on_signal(_: libc::c_int) {
            if WRITING.load(Ordering::SeqCst) {
                INTERRUPTED.store(true, Ordering::SeqCst);
            } else {
                // SAFETY: `_exit` is async-signal-safe.
                unsafe { libc::_exit(130) };
            }
        }
        let handler = on_signal as extern "C" fn(libc::c_int) as libc::sighandler_t;
        // SAFETY: the handler only touches atomics and calls `_exit`.
        unsafe {
            libc::signal(libc::SIGINT, handler);
            libc::signal(libc::SIGTERM, handler);
        }
    }
}

/// Removes `--fix` temporary files left in `folders` by a process that no
/// longer runs (killed while writing). Returns how many were removed.
pub fn remove_stale_temporaries<'a>(folders: impl IntoIterator<Item = &'a Path>) -> usize {
    let mut removed = 0;
    let folders: BTreeSet<&Path> = folders.into_iter().collect();
    for dir in folders {
        let Ok(entries) = std::fs::read_dir(dir) else {
            continue;
        };
        for entry in entries.flatten() {
            let name = entry.file_name();
            let Some(rest) = name.to_str().and_then(|n| n.strip_prefix(TEMP_PREFIX)) else {
                continue;
            };
            let stale = match rest
                .split_once('-')
                .and_then(|(pid, _)| pid.parse::<u32>().ok())
            {
                Some(pid) => !process_alive(pid),
                // Written by a dqlint from before the pid was in the name
                // (`.dqlint-fix-XXXXXX`): stale once it is a minute old.
                None => entry
                    .metadata()
                    .and_then(|m| m.modified())
                    .ok()
                    .and_then(|t| t.elapsed().ok())
                    .is_some_and(|age| age.as_secs() > 60),
            };
            if stale && entry.file_type().is_ok_and(|t| t.is_file()) {
                removed += usize::from(std::fs::remove_file(entry.path()).is_ok());
            }
        }
    }
    removed
}

#[cfg(unix)]
fn process_alive(pid: u32) -> bool {
    let Ok(pid) = libc::pid_t::try_from(pid) else {
        return false;
    };
    // SAFETY: signal 0 only checks that the process exists.
    let ok = unsafe { libc::kill(pid, 0) } == 0;
    ok || std::io::Error::last_os_error().raw_os_error() != Some(libc::ESRCH)
}

#[cfg(not(unix))]
fn process_alive(_: u32) -> bool {
    true
}

/// The advisory lock that serialises `--fix` runs on one project; released
/// when dropped (or when the process ends, however it ends).
pub struct FixLock {
    _file: Option<File>,
}

impl FixLock {
    /// Takes `<root>/.dqlint_cache/fix.lock`, telling `wait` (stderr) when
    /// another fixer holds it. A project where the lock file cannot be
    /// created (read-only) is fixed without it: the writes are still
    /// checked one by one.
    pub fn acquire(root: &Path, wait: &mut dyn Write) -> FixLock {
        let dir = root.join(crate::cache::CACHE_DIR);
        let _ = crate::cache::create_cache_dir(&dir);
        let path = dir.join("fix.lock");
        let Ok(file) = std::fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&path)
        else {
            return FixLock { _file: None };
        };
        #[cfg(unix)]
        {
            use std::os::unix::io::AsRawFd;
            let fd = file.as_raw_fd();
            // SAFETY: `fd` is an open descriptor owned by `file`.
            if unsafe { libc::flock(fd, libc::LOCK_EX | libc::LOCK_NB) } != 0 {
                let _ = writeln!(
                    wait,
                    "dqlint: waiting for another `dqlint lint --fix` on this project to finish (lock: {})",
                    path.display()
                );
                let _ = wait.flush();
                // SAFETY: as above; blocks until the other run ends.
                while unsafe { libc::flock(fd, libc::LOCK_EX) } != 0 {
                    if std::io::Error::last_os_error().kind() != std::io::ErrorKind::Interrupted {
                        break;
                    }
                }
            }
        }
        FixLock { _file: Some(file) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The run cache writes through the same writer as `--fix`: a new
    /// file is created, an existing one replaced whole with its mode kept,
    /// and no temporary file stays.
    #[test]
    fn the_cache_writer_is_the_fix_writer() {
        let dir = tempfile::tempdir().unwrap();
        let entry = dir.path().join("run-1.bin");
        write_atomically(&entry, b"first").unwrap();
        assert_eq!(std::fs::read(&entry).unwrap(), b"first");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&entry, std::fs::Permissions::from_mode(0o640)).unwrap();
        }
        write_atomically(&entry, b"second").unwrap();
        assert_eq!(std::fs::read(&entry).unwrap(), b"second");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(&entry).unwrap().permissions().mode();
            assert_eq!(mode & 0o777, 0o640);
        }
        let names: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        assert_eq!(names, ["run-1.bin"]);
        // A refusal at the last moment leaves the file and no temporary.
        assert!(!replace_file(&entry, b"third", || Ok(false)).unwrap());
        assert_eq!(std::fs::read(&entry).unwrap(), b"second");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
    }

    fn plan<'a>(
        path: &'a Path,
        before: &'a str,
        after: &'a str,
        read: Option<&'a ReadState>,
    ) -> PlannedWrite<'a> {
        PlannedWrite {
            path,
            rel: "a.yaml",
            before,
            after,
            read,
        }
    }

    #[test]
    fn a_bom_is_written_back() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.yaml");
        std::fs::write(&path, b"\xEF\xBB\xBFa: warn\n").unwrap();
        let read = ReadState::of(&path).unwrap();
        let out = write_all(&[plan(&path, "a: warn\n", "a: drop\n", Some(&read))]).unwrap();
        assert_eq!(out, WriteOutcome::Written);
        assert_eq!(std::fs::read(&path).unwrap(), b"\xEF\xBB\xBFa: drop\n");
    }

    #[test]
    fn a_file_changed_since_it_was_read_is_not_written() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.yaml");
        let other = dir.path().join("b.yaml");
        std::fs::write(&path, "a: warn\n").unwrap();
        std::fs::write(&other, "b: warn\n").unwrap();
        let read = ReadState::of(&path).unwrap();
        let read_other = ReadState::of(&other).unwrap();
        std::fs::write(&path, "a: warn\n# saved by an editor\n").unwrap();
        let out = write_all(&[
            plan(&other, "b: warn\n", "b: drop\n", Some(&read_other)),
            plan(&path, "a: warn\n", "a: drop\n", Some(&read)),
        ])
        .unwrap();
        assert_eq!(
            out,
            WriteOutcome::ChangedWhileFixing {
                changed: vec!["a.yaml".into()],
                written: vec![]
            }
        );
        assert_eq!(
            std::fs::read_to_string(&path).unwrap(),
            "a: warn\n# saved by an editor\n"
        );
        assert_eq!(
            std::fs::read_to_string(&other).unwrap(),
            "b: warn\n",
            "nothing written"
        );
    }

    #[cfg(unix)]
    #[test]
    fn mode_and_hard_links_are_kept() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.yaml");
        let link = dir.path().join("link.yaml");
        std::fs::write(&path, "a: warn\n").unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o640)).unwrap();
        std::fs::hard_link(&path, &link).unwrap();
        let read = ReadState::of(&path).unwrap();
        write_all(&[plan(&path, "a: warn\n", "a: drop\n", Some(&read))]).unwrap();
        assert_eq!(
            std::fs::read_to_string(&link).unwrap(),
            "a: drop\n",
            "the other link sees the fix"
        );
        let mode = std::fs::metadata(&path).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o640);
        std::fs::remove_file(&link).unwrap();
        let read = ReadState::of(&path).unwrap();
        write_all(&[plan(&path, "a: drop\n", "a: fail\n", Some(&read))]).unwrap();
        let mode = std::fs::metadata(&path).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o640, "the atomic path keeps the mode too");
        assert_eq!(
            std::fs::read_dir(dir.path()).unwrap().count(),
            1,
            "no temporary file left"
        );
    }

    #[cfg(unix)]
    #[test]
    fn read_only_files_are_not_writable_even_for_their_owner() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.yaml");
        std::fs::write(&path, "a: warn\n").unwrap();
        assert_eq!(not_writable(&path), None);
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o444)).unwrap();
        assert!(not_writable(&path).unwrap().contains("read-only"));
    }

    #[test]
    fn stale_temporaries_of_dead_processes_are_removed() {
        let dir = tempfile::tempdir().unwrap();
        // No process has pid 4000000000 (beyond pid_max everywhere).
        let dead = dir.path().join(format!("{TEMP_PREFIX}4000000000-abc123"));
        let alive = dir
            .path()
            .join(format!("{TEMP_PREFIX}{}-abc123", std::process::id()));
        let unrelated = dir.path().join("notes.yaml");
        for p in [&dead, &alive, &unrelated] {
            std::fs::write(p, "x").unwrap();
        }
        assert_eq!(remove_stale_temporaries([dir.path()]), 1);
        assert!(!dead.exists());
        assert!(alive.exists() && unrelated.exists());
    }

    #[cfg(unix)]
    #[test]
    fn a_symlink_stays_a_link_and_its_target_changes() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("shared.yaml");
        let link = dir.path().join("link.yaml");
        std::fs::write(&target, "a: warn\n").unwrap();
        std::os::unix::fs::symlink(&target, &link).unwrap();
        let read = ReadState::of(&link).unwrap();
        write_all(&[plan(&link, "a: warn\n", "a: drop\n", Some(&read))]).unwrap();
        assert!(std::fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink());
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "a: drop\n");
    }
}
