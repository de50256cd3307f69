//! The run cache (`.dqlint_cache/`): a replayed report is byte-identical to
//! a fresh one, any change of input is seen, damaged entries are ignored,
//! concurrent runs do not corrupt it, and it stays inside the project.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn showcase() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/showcase")
}

/// A writable copy of the showcase project (it has findings of every kind).
fn project_copy() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("showcase");
    copy_tree(&showcase(), &root);
    let _ = std::fs::remove_dir_all(root.join(".dqlint_cache"));
    (dir, root)
}

fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_tree(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
}

fn run(root: &Path, extra: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_dqlint"))
        .arg("lint")
        .arg(root)
        .args(extra)
        .env("NO_COLOR", "1")
        .env("DQLINT_TIMINGS", "1")
        .output()
        .expect("the dqlint binary runs")
}

fn replayed(output: &Output) -> bool {
    String::from_utf8_lossy(&output.stderr).contains("replayed from the cache")
}

fn entries(root: &Path) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = std::fs::read_dir(root.join(".dqlint_cache"))
        .map(|d| {
            d.filter_map(Result::ok)
                .map(|e| e.path())
                .filter(|p| p.extension().is_some_and(|x| x == "bin"))
                .collect()
        })
        .unwrap_or_default();
    out.sort();
    out
}

/// The same stdout and exit status.
fn assert_same(a: &Output, b: &Output) {
    assert_eq!(
        String::from_utf8_lossy(&a.stdout),
        String::from_utf8_lossy(&b.stdout)
    );
    assert_eq!(a.status.code(), b.status.code());
}

#[test]
fn a_replayed_report_is_byte_identical_in_every_format() {
    let (_dir, root) = project_copy();
    for format in ["json", "concise", "full"] {
        let fresh = run(&root, &["--format", format, "--no-cache"]);
        let first = run(&root, &["--format", format]);
        let second = run(&root, &["--format", format]);
        assert!(!replayed(&first), "nothing to replay on the first run");
        assert!(
            replayed(&second),
            "the second run replays: {}",
            String::from_utf8_lossy(&second.stderr)
        );
        assert_eq!(fresh.status.code(), Some(1), "the showcase has errors");
        assert_same(&fresh, &first);
        assert_same(&fresh, &second);
    }
    // Other options are other entries.
    let statistics = run(&root, &["--statistics"]);
    assert!(!replayed(&statistics));
    assert_same(&statistics, &run(&root, &["--statistics", "--no-cache"]));
    assert_eq!(
        std::fs::read_to_string(root.join(".dqlint_cache/.gitignore")).unwrap(),
        "*\n"
    );
}

#[test]
fn no_cache_neither_reads_nor_writes() {
    let (_dir, root) = project_copy();
    let out = run(&root, &["--no-cache"]);
    assert!(!replayed(&out));
    assert!(!root.join(".dqlint_cache").exists());
    run(&root, &[]);
    assert!(!replayed(&run(&root, &["--no-cache"])));
}

#[test]
fn an_edited_added_or_removed_file_is_seen() {
    let (_dir, root) = project_copy();
    let before = run(&root, &["--format", "json"]);

    // Edit: a new finding appears (an unknown key on a flowgroup).
    let flowgroup = std::fs::read_dir(root.join("pipelines/bronze"))
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    let text = std::fs::read_to_string(&flowgroup).unwrap();
    std::fs::write(&flowgroup, format!("{text}\n")).unwrap();
    let same_meaning = run(&root, &["--format", "json"]);
    assert!(!replayed(&same_meaning), "a changed byte is a changed file");
    assert_same(
        &same_meaning,
        &run(&root, &["--format", "json", "--no-cache"]),
    );

    let edited = text.replacen("pipeline:", "pipelinez: x\npipeline:", 1);
    std::fs::write(&flowgroup, &edited).unwrap();
    let after = run(&root, &["--format", "json"]);
    assert!(!replayed(&after));
    assert_ne!(before.stdout, after.stdout);
    assert_same(&after, &run(&root, &["--format", "json", "--no-cache"]));

    // Added: an SQL file anywhere in the project joins the DDL catalog.
    run(&root, &["--format", "json"]);
    std::fs::write(
        root.join("extra.sql"),
        "CREATE TABLE IF NOT EXISTS a.b.c (id INT);\n",
    )
    .unwrap();
    let added = run(&root, &["--format", "json"]);
    assert!(!replayed(&added), "a new file changes the project listing");
    assert_same(&added, &run(&root, &["--format", "json", "--no-cache"]));

    // Removed.
    std::fs::remove_file(root.join("extra.sql")).unwrap();
    let removed = run(&root, &["--format", "json"]);
    assert!(!replayed(&removed));
    assert_same(&removed, &run(&root, &["--format", "json", "--no-cache"]));

    // dqlint.toml is part of the key even if nothing reads it yet.
    run(&root, &["--format", "json"]);
    std::fs::write(root.join("dqlint.toml"), "# settings\n").unwrap();
    assert!(!replayed(&run(&root, &["--format", "json"])));
}

#[test]
fn damaged_entries_are_ignored_and_replaced() {
    let (_dir, root) = project_copy();
    let fresh = run(&root, &["--format", "json", "--no-cache"]);
    run(&root, &["--format", "json"]);
    let [entry] = entries(&root).try_into().expect("one entry");
    let good = std::fs::read(&entry).unwrap();
    let damages: Vec<Vec<u8>> = vec![
        Vec::new(),
        good[..good.len() / 2].to_vec(),
        good[..good.len() - 1].to_vec(),
        {
            let mut flipped = good.clone();
            let at = flipped.len() - 20;
            flipped[at] ^= 1;
            flipped
        },
        b"not a cache entry at all".to_vec(),
    ];
    for damaged in damages {
        std::fs::write(&entry, &damaged).unwrap();
        let out = run(&root, &["--format", "json"]);
        assert!(!replayed(&out), "a damaged entry is not replayed");
        assert_same(&fresh, &out);
        assert_eq!(
            std::fs::read(&entry).unwrap(),
            good,
            "the entry is written again"
        );
    }
}

#[test]
fn concurrent_runs_leave_a_valid_cache() {
    let (_dir, root) = project_copy();
    let fresh = run(&root, &["--format", "json", "--no-cache"]);
    let children: Vec<_> = (0..6)
        .map(|_| {
            Command::new(env!("CARGO_BIN_EXE_dqlint"))
                .arg("lint")
                .arg(&root)
                .args(["--format", "json"])
                .stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    for child in children {
        assert_same(&fresh, &child.wait_with_output().unwrap());
    }
    let after = run(&root, &["--format", "json"]);
    assert!(replayed(&after), "the entry left behind is intact");
    assert_same(&fresh, &after);
    let leftovers: Vec<_> = std::fs::read_dir(root.join(".dqlint_cache"))
        .unwrap()
        .filter_map(Result::ok)
        .filter(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            name.ends_with(".tmp") || name.starts_with(dqlint::fix_write::TEMP_PREFIX)
        })
        .collect();
    assert!(
        leftovers.is_empty(),
        "no temporary files left: {leftovers:?}"
    );
}

#[test]
fn the_cache_stays_inside_the_project_and_out_of_the_walk() {
    let (dir, root) = project_copy();
    // An SQL file in the cache folder would change the DDL catalog if the
    // walk read it.
    let first = run(&root, &["--format", "json", "--no-cache"]);
    run(&root, &["--format", "json"]);
    std::fs::write(
        root.join(".dqlint_cache/stray.sql"),
        "CREATE TABLE x.y.z (a INT);\n",
    )
    .unwrap();
    let second = run(&root, &["--format", "json", "--no-cache"]);
    assert_same(&first, &second);
    let outside: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .filter_map(Result::ok)
        .map(|e| e.file_name())
        .collect();
    assert_eq!(
        outside,
        vec![std::ffi::OsString::from("showcase")],
        "nothing written next to the project"
    );
    // Linting a sub-folder caches at the project root, not in the folder.
    run(&root, &["--format", "json"]);
    let sub = root.join("pipelines");
    run(&sub, &["--format", "json"]);
    assert!(!sub.join(".dqlint_cache").exists());
}

#[test]
fn a_project_where_the_cache_cannot_be_written_still_lints() {
    let (_dir, root) = project_copy();
    let fresh = run(&root, &["--format", "json", "--no-cache"]);
    // A file where the cache folder should be: nothing can be stored.
    std::fs::write(root.join(".dqlint_cache"), "in the way").unwrap();
    for _ in 0..2 {
        let out = run(&root, &["--format", "json"]);
        assert!(!replayed(&out));
        assert_same(&fresh, &out);
    }
    assert_eq!(
        std::fs::read_to_string(root.join(".dqlint_cache")).unwrap(),
        "in the way"
    );
}

#[test]
fn fix_and_diff_runs_never_replay() {
    let (_dir, root) = project_copy();
    run(&root, &["--diff"]);
    let first = run(&root, &[]);
    assert!(!replayed(&first), "a --diff run stores nothing");
    let diff = run(&root, &["--diff"]);
    assert!(!replayed(&diff));
    assert_ne!(
        diff.stdout, first.stdout,
        "--diff prints the diff, not the report"
    );
}

/// Coloured output goes straight to the terminal: such runs must neither
/// store nor replay a report (it would lack the findings).
#[test]
fn coloured_terminal_runs_are_not_cached() {
    let has_script = Command::new("script")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !has_script {
        eprintln!("skipping: no `script` command to give dqlint a terminal");
        return;
    }
    let (_dir, root) = project_copy();
    let command = format!("{} lint {}", env!("CARGO_BIN_EXE_dqlint"), root.display());
    let on_terminal = || {
        let out = Command::new("script")
            .args(["-qec", &command, "/dev/null"])
            .env_remove("NO_COLOR")
            .env("TERM", "xterm")
            .output()
            .unwrap();
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let first = on_terminal();
    let second = on_terminal();
    assert!(
        first.contains("DQ207") && second.contains("DQ207"),
        "{second}"
    );
    assert!(
        entries(&root).is_empty(),
        "nothing stored: {:?}",
        entries(&root)
    );
}

#[test]
fn an_absolute_expectations_file_outside_the_root_is_watched() {
    let (dir, root) = project_copy();
    // An expectations file outside the project, named by absolute path,
    // that does not exist yet.
    let outside = dir.path().join("elsewhere/sales_quality.yaml");
    let flowgroup = root.join("pipelines/bronze/sales.yaml");
    let text = std::fs::read_to_string(&flowgroup).unwrap();
    let absolute = outside.to_str().unwrap();
    std::fs::write(
        &flowgroup,
        text.replace(
            "expectations_file: expectations/sales_quality.yaml",
            &format!("expectations_file: {absolute}"),
        ),
    )
    .unwrap();
    let missing = run(&root, &["--format", "concise", "--select", "DQ107"]);
    let report = String::from_utf8_lossy(&missing.stdout).into_owned();
    assert!(
        report.contains(&format!("expectations file `{absolute}` not found")),
        "{report}"
    );
    assert!(
        !report.contains("relative to the project root"),
        "no relative-path hint for an absolute path: {report}"
    );
    assert!(replayed(&run(
        &root,
        &["--format", "concise", "--select", "DQ107"]
    )));

    std::fs::create_dir_all(outside.parent().unwrap()).unwrap();
    std::fs::copy(root.join("expectations/sales_quality.yaml"), &outside).unwrap();
    let found = run(&root, &["--format", "concise", "--select", "DQ107"]);
    assert!(!replayed(&found), "the file appeared: not a replay");
    assert!(
        !String::from_utf8_lossy(&found.stdout).contains(absolute),
        "{}",
        String::from_utf8_lossy(&found.stdout)
    );
    assert_same(
        &found,
        &run(
            &root,
            &["--format", "concise", "--select", "DQ107", "--no-cache"],
        ),
    );
}

#[test]
fn a_config_file_outside_the_root_is_part_of_the_key() {
    let (dir, root) = project_copy();
    let config = dir.path().join("team-dqlint.toml");
    std::fs::write(&config, "ignore = [\"DQ105\"]\n").unwrap();
    let args = ["--format", "json", "--config", config.to_str().unwrap()];
    let first = run(&root, &args);
    assert!(replayed(&run(&root, &args)));
    std::fs::write(&config, "ignore = [\"DQ207\"]\n").unwrap();
    let changed = run(&root, &args);
    assert!(
        !replayed(&changed),
        "an edited --config file is a new input"
    );
    assert_ne!(first.stdout, changed.stdout);
}

#[test]
fn the_cache_prunes_itself() {
    let (_dir, root) = project_copy();
    let codes: Vec<&str> = dqlint_linter::RULES.iter().map(|r| r.code).collect();
    // More option sets than entries kept: one entry each.
    for code in codes.iter().take(dqlint::cache::MAX_ENTRIES + 6) {
        run(&root, &["--format", "concise", "--select", code]);
    }
    assert_eq!(entries(&root).len(), dqlint::cache::MAX_ENTRIES);
    // The most recent one survived and replays.
    let last = codes[dqlint::cache::MAX_ENTRIES + 5];
    assert!(replayed(&run(
        &root,
        &["--format", "concise", "--select", last]
    )));
    // The oldest went.
    assert!(!replayed(&run(
        &root,
        &["--format", "concise", "--select", codes[0]]
    )));
}
