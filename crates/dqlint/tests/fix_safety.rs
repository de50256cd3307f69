//! `--fix` never loses a byte it did not mean to change (issue 16): edits
//! made while it runs (an editor saving, a second `--fix`), what the file
//! system holds besides the text (BOM, mode, hard links, read-only files),
//! interrupted runs and broken pipes.
//!
//! No timing: `DQLINT_TEST_PAUSE_BEFORE_WRITE` makes `--fix` stop between
//! reading the project and writing the fixes until the test says resume.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};

fn showcase_copy() -> tempfile::TempDir {
    let tmp = tempfile::tempdir().unwrap();
    let from = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/showcase");
    copy_dir(&from, tmp.path());
    tmp
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        if entry.file_name() == ".dqlint_cache" {
            continue;
        }
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
}

fn dqlint(dir: &Path) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_dqlint"));
    c.arg("lint").arg(dir).env("NO_COLOR", "1");
    c
}

fn run(dir: &Path, args: &[&str]) -> Output {
    dqlint(dir).args(args).output().unwrap()
}

/// A `--fix` run stopped between its read and its write.
struct Paused {
    child: Child,
    hook: tempfile::TempDir,
}

impl Paused {
    fn start(dir: &Path, args: &[&str]) -> Paused {
        let hook = tempfile::tempdir().unwrap();
        let child = dqlint(dir)
            .args(args)
            .env("DQLINT_TEST_PAUSE_BEFORE_WRITE", hook.path())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        // Waits for the pause, which comes after every read of the run.
        let started = std::time::Instant::now();
        while !hook.path().join("paused").exists() {
            assert!(started.elapsed().as_secs() < 120, "--fix never paused");
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
        Paused { child, hook }
    }

    fn resume(self) -> Output {
        std::fs::write(self.hook.path().join("resume"), "").unwrap();
        self.child.wait_with_output().unwrap()
    }
}

fn text(path: PathBuf) -> String {
    std::fs::read_to_string(path).unwrap()
}

fn temporaries(dir: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).unwrap().flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else if entry
                .file_name()
                .to_string_lossy()
                .starts_with(".dqlint-fix-")
            {
                found.push(path);
            }
        }
    }
    found
}

#[test]
fn an_editor_saving_while_fix_runs_loses_nothing() {
    let tmp = showcase_copy();
    let dir = tmp.path();
    let edited = dir.join("pipelines/bronze/order_items.yaml");
    let other = dir.join("pipelines/bronze/returns.yaml");
    let other_before = text(other.clone());
    let fixer = Paused::start(dir, &["--fix", "--select", "DQ105,DQ603"]);
    // The editor saves while --fix holds the old text in memory.
    let saved = format!("{}# saved by the editor\n", text(edited.clone()));
    std::fs::write(&edited, &saved).unwrap();
    let out = fixer.resume();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("pipelines/bronze/order_items.yaml changed while fixing: re-run"),
        "{stderr}"
    );
    assert_eq!(text(edited.clone()), saved, "the editor's save survives");
    assert_eq!(
        text(other),
        other_before,
        "nothing is written when one file changed"
    );
    assert!(temporaries(dir).is_empty());
    // The re-run it asks for fixes the file, keeping the save.
    let again = run(dir, &["--fix", "--select", "DQ105,DQ603"]);
    assert!(matches!(again.status.code(), Some(0 | 1)));
    let fixed = text(edited);
    assert!(fixed.contains("readMode: stream") && fixed.ends_with("# saved by the editor\n"));
}

#[test]
fn two_fixers_at_once_keep_both_fixes() {
    let tmp = showcase_copy();
    let dir = tmp.path();
    let file = dir.join("pipelines/bronze/order_items.yaml");
    // Both rules' fixes land in this one file: DQ105 (readMode) and DQ603
    // (a `{catalog}` token written without its `$`).
    let original = text(file.clone()).replace(
        "path: ${landing}/order_items",
        "path: \"/Volumes/{catalog}/landing/order_items\"",
    );
    std::fs::write(&file, original).unwrap();
    let first = Paused::start(dir, &["--fix", "--select", "DQ105"]);
    let mut second = dqlint(dir)
        .args(["--fix", "--select", "DQ603"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // The second run says it waits for the first (its first line), and
    // does: it reads the project only after the first has written.
    let mut err = BufReader::new(second.stderr.take().unwrap());
    let mut line = String::new();
    err.read_line(&mut line).unwrap();
    assert!(
        line.contains("waiting for another `dqlint lint --fix` on this project"),
        "{line}"
    );
    let first = first.resume();
    assert!(
        matches!(first.status.code(), Some(0 | 1)),
        "{}",
        String::from_utf8_lossy(&first.stderr)
    );
    let mut rest = String::new();
    std::io::Read::read_to_string(&mut err, &mut rest).unwrap();
    let second = second.wait().unwrap();
    assert!(matches!(second.code(), Some(0 | 1)), "{rest}");
    let fixed = text(file);
    assert!(
        fixed.contains("readMode: stream"),
        "DQ105's fix kept:\n{fixed}"
    );
    assert!(
        fixed.contains("/Volumes/${catalog}/landing/order_items"),
        "DQ603's fix kept:\n{fixed}"
    );
    let left = run(dir, &["--diff", "--select", "DQ105,DQ603"]);
    assert_eq!(left.status.code(), Some(0), "nothing left to fix");
}

#[test]
fn a_bom_stays() {
    let tmp = showcase_copy();
    let file = tmp.path().join("pipelines/bronze/order_items.yaml");
    let mut bytes = b"\xEF\xBB\xBF".to_vec();
    bytes.extend(std::fs::read(&file).unwrap());
    std::fs::write(&file, &bytes).unwrap();
    run(tmp.path(), &["--fix", "--select", "DQ105"]);
    let after = std::fs::read(&file).unwrap();
    assert!(after.starts_with(b"\xEF\xBB\xBF"), "BOM kept");
    assert!(String::from_utf8_lossy(&after).contains("readMode: stream"));
}

#[cfg(unix)]
#[test]
fn mode_and_hard_links_stay() {
    use std::os::unix::fs::{MetadataExt, PermissionsExt};
    let tmp = showcase_copy();
    let file = tmp.path().join("pipelines/bronze/order_items.yaml");
    std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o640)).unwrap();
    let outside = tempfile::tempdir().unwrap();
    let link = outside.path().join("order_items.yaml");
    std::fs::hard_link(&file, &link).unwrap();
    let ino = std::fs::metadata(&file).unwrap().ino();
    run(tmp.path(), &["--fix", "--select", "DQ105"]);
    assert!(
        text(link).contains("readMode: stream"),
        "the other link sees the fix"
    );
    let meta = std::fs::metadata(&file).unwrap();
    assert_eq!(meta.ino(), ino, "still the same file");
    assert_eq!(meta.permissions().mode() & 0o777, 0o640);
}

#[cfg(unix)]
#[test]
fn a_read_only_file_is_never_fixed() {
    use std::os::unix::fs::PermissionsExt;
    let tmp = showcase_copy();
    let file = tmp.path().join("pipelines/bronze/order_items.yaml");
    let before = text(file.clone());
    std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o444)).unwrap();
    let out = run(
        tmp.path(),
        &["--fix", "--select", "DQ105", "--format", "concise"],
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(text(file), before, "0444 is respected even by its owner");
    assert!(
        stderr.contains("left pipelines/bronze/order_items.yaml unchanged: the file is read-only"),
        "{stderr}"
    );
    // The finding is still reported: the file was not fixed.
    assert!(String::from_utf8_lossy(&out.stdout).contains("DQ105"));
}

#[cfg(unix)]
#[test]
fn stale_temporaries_are_removed_by_the_next_fix() {
    let tmp = showcase_copy();
    // What a `--fix` killed mid-write (pid long gone) leaves behind.
    let stale = tmp
        .path()
        .join("pipelines/bronze/.dqlint-fix-4000000000-Xy12Ab");
    std::fs::write(&stale, "half a file").unwrap();
    run(tmp.path(), &["--fix", "--select", "DQ105"]);
    assert!(!stale.exists());
}

#[cfg(unix)]
#[test]
fn ctrl_c_while_paused_leaves_no_temporary_file_and_no_change() {
    let tmp = showcase_copy();
    let dir = tmp.path();
    let before = text(dir.join("pipelines/bronze/order_items.yaml"));
    let fixer = Paused::start(dir, &["--fix"]);
    // SAFETY: signals the child this test started.
    unsafe { libc::kill(fixer.child.id() as libc::pid_t, libc::SIGINT) };
    let out = fixer.child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(130));
    assert_eq!(text(dir.join("pipelines/bronze/order_items.yaml")), before);
    assert!(temporaries(dir).is_empty());
}

/// Runs dqlint with stdout (and stderr, like `2>&1`) a pipe whose reader
/// is already gone, as `| head -1` becomes after its line.
#[cfg(unix)]
fn with_closed_pipe(dir: &Path, args: &[&str]) -> std::process::ExitStatus {
    use std::os::fd::{FromRawFd, OwnedFd};
    let mut fds = [0; 2];
    // SAFETY: `fds` has room for the two descriptors.
    assert_eq!(unsafe { libc::pipe(fds.as_mut_ptr()) }, 0);
    // SAFETY: both descriptors were just opened and are owned here.
    let (read, write) = unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) };
    drop(read);
    let err = write.try_clone().unwrap();
    dqlint(dir)
        .args(args)
        .stdout(Stdio::from(write))
        .stderr(Stdio::from(err))
        .status()
        .unwrap()
}

#[cfg(unix)]
#[test]
fn broken_pipes_end_quietly() {
    use std::os::unix::process::ExitStatusExt;
    let tmp = showcase_copy();
    for args in [
        &["--diff"][..],
        &["--no-cache"][..],
        &["--fix", "--select", "DQ105"][..],
    ] {
        let status = with_closed_pipe(tmp.path(), args);
        assert_eq!(
            status.signal(),
            Some(libc::SIGPIPE),
            "{args:?}: ends as Unix tools do on a closed pipe, not {status:?}"
        );
    }
    // --fix wrote its file before anything went to the pipe.
    assert!(text(tmp.path().join("pipelines/bronze/order_items.yaml")).contains("readMode: stream"));
}

/// Root fixing someone else's file: the replacement is theirs, not root's.
/// (Only root can give a file away; elsewhere this checks one's own file.)
#[cfg(unix)]
#[test]
fn owner_and_group_stay() {
    use std::os::unix::fs::MetadataExt;
    let tmp = showcase_copy();
    let file = tmp.path().join("pipelines/bronze/order_items.yaml");
    // SAFETY: plain queries of this process's ids.
    let root = unsafe { libc::geteuid() } == 0;
    if root {
        std::os::unix::fs::chown(&file, Some(4321), Some(4322)).unwrap();
    }
    let before = std::fs::metadata(&file).unwrap();
    run(tmp.path(), &["--fix", "--select", "DQ105"]);
    let after = std::fs::metadata(&file).unwrap();
    assert!(text(file).contains("readMode: stream"));
    assert_eq!((after.uid(), after.gid()), (before.uid(), before.gid()));
    if root {
        assert_eq!((after.uid(), after.gid()), (4321, 4322));
    }
}
