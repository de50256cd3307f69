//! The quick re-lint is exact and complete: for every file of every fixture
//! project but `lhp.yaml` (flowgroups, templates, presets, blueprints,
//! substitutions, pipeline_config, expectations, `.sql`), as it is, after
//! deleting one of its lines (which breaks YAML, drops keys and tokens,
//! changes DLQ names...) and with a syntax error at the top:
//! - the findings [`relint`] computes for its focus files equal those of a
//!   fresh `Project::load` + `lint` of the same text, and
//! - every other file's findings are the same before and after the edit,
//!   so re-linting only the focus leaves nothing stale;
//! - or, for a DQX file the edit makes read as another kind of file (or
//!   none), or a run config edit that changes which files are checks
//!   files, the slice is refused and a fresh load does classify the DQX
//!   files otherwise.
//!
//! The deleted line is deleted as in an editor buffer: the slice gets the
//! buffer's parse kept up to date by `LiveYaml`, as the server gives it.

use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use dqlint_linter::relint::{describe, relint};
use dqlint_linter::{Config, Diagnostic, Selection};
use dqlint_project::{Edits, FileKind, LoadOptions, Overlay, Project};
use dqlint_yaml::{LiveYaml, YamlFile};

fn fixture_projects() -> Vec<PathBuf> {
    let repo = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut out = vec![repo.join("fixtures/showcase")];
    let rules = repo.join("fixtures/rules");
    for entry in std::fs::read_dir(&rules).expect("fixtures/rules") {
        let dir = entry.unwrap().path();
        for twin in ["bad", "good"] {
            if ["lhp.yaml", "dqlint.toml", "databricks.yml"]
                .iter()
                .any(|root| dir.join(twin).join(root).is_file())
            {
                out.push(dir.join(twin));
            }
        }
    }
    for group in ["pipelines", "policy"] {
        for entry in std::fs::read_dir(repo.join("fixtures").join(group)).expect("fixtures") {
            let dir = entry.unwrap().path();
            if dir.is_dir() {
                out.push(dir);
            }
        }
    }
    out.push(repo.join("fixtures/dqx-run-configs"));
    let acmi = repo.join("../../shared/corpus/lhp-examples/acmi");
    if acmi.join("lhp.yaml").is_file() {
        out.push(acmi);
    }
    out.sort();
    out
}

/// The showcase with a `dqlint.toml` that selects `.sql` files, changes a
/// severity and ignores rules in some files, and with unused suppressions
/// in files fed by flowgroups: the slice must honour them too.
fn configured_showcase() -> tempfile::TempDir {
    fn copy(from: &Path, to: &Path) {
        std::fs::create_dir_all(to).unwrap();
        for entry in std::fs::read_dir(from).unwrap() {
            let entry = entry.unwrap();
            if entry.file_type().unwrap().is_dir() {
                copy(&entry.path(), &to.join(entry.file_name()));
            } else {
                std::fs::copy(entry.path(), to.join(entry.file_name())).unwrap();
            }
        }
    }
    let dir = tempfile::tempdir().unwrap();
    let showcase = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/showcase");
    copy(&showcase, dir.path());
    std::fs::write(
        dir.path().join("dqlint.toml"),
        "ignore = [\"DQ402\"]\nddl = [\"sql/dlq/**\"]\n\n[severity]\nDQ403 = \"error\"\n\n\
         [[overrides]]\nfiles = [\"pipelines/bronze/order_items.yaml\", \"expectations/orders_quality.json\"]\nignore = [\"DQ105\", \"DQ2\"]\n",
    )
    .unwrap();
    // Suppressions nothing uses: their DQ009 is held back while a model
    // file does not parse, here a flowgroup without quarantine actions
    // (which the slices leave out; the showcase's broken vendors.yaml has
    // one, so it goes).
    std::fs::remove_file(dir.path().join("pipelines/bronze/vendors.yaml")).unwrap();
    std::fs::write(
        dir.path().join("pipelines/bronze/notes.yaml"),
        "pipeline: bronze\nflowgroup: notes\nactions\n  - name: load_notes\n    type: load\n",
    )
    .unwrap();
    for (rel, comment) in [
        ("sql/dlq/create_dlq.sql", "-- dqlint: ignore-file[DQ404]\n"),
        (
            "expectations/customers_quality.yaml",
            "# dqlint: ignore-file[DQ205]\n",
        ),
    ] {
        let path = dir.path().join(rel);
        let text = std::fs::read_to_string(&path).unwrap();
        std::fs::write(&path, format!("{comment}{text}")).unwrap();
    }
    dir
}

fn findings_in(project: &Project, findings: &[Diagnostic], file: &str) -> Vec<String> {
    findings
        .iter()
        .filter(|d| project.file(d.primary.file).rel == file)
        .map(|d| describe(project, d))
        .collect()
}

/// The byte range of the `n`-th line of `text` (counted modulo the line
/// count), newline included.
fn line_range(text: &str, n: usize) -> std::ops::Range<usize> {
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    if lines.is_empty() {
        return 0..0;
    }
    let skip = n % lines.len();
    let start: usize = lines[..skip].iter().map(|l| l.len()).sum();
    start..start + lines[skip].len()
}

/// A fixture project as loaded, with its findings.
struct Loaded<'a> {
    root: &'a Path,
    config: &'a Config,
    project: &'a Project,
    findings: &'a [Diagnostic],
}

/// The project at `root` loaded afresh with `path` holding `text`.
fn fresh_load(root: &Path, config: &Config, path: &Path, text: Arc<str>) -> Project {
    let overlay: Overlay = HashMap::from([(path.to_path_buf(), text)]);
    Project::load(
        root,
        &LoadOptions {
            overlay,
            ..config.load_options(&[])
        },
    )
    .unwrap()
}

fn check_edit(
    loaded: &Loaded,
    rel: &str,
    new_text: Arc<str>,
    parse: Option<Arc<YamlFile>>,
    failures: &mut Vec<String>,
) {
    let Loaded {
        root,
        config,
        project: base,
        findings: base_findings,
    } = *loaded;
    let selection = Selection::default();
    let file = base.files.iter().find(|f| f.rel == rel).unwrap();
    let mut edits = Edits::from(HashMap::from([(file.id, new_text.clone())]));
    edits.parses.extend(parse.map(|yaml| (file.id, yaml)));
    let had_findings: std::collections::HashSet<_> =
        base_findings.iter().map(|d| d.primary.file).collect();
    let quick = match relint(
        base,
        file.id,
        &edits,
        config,
        &selection,
        &|id| had_findings.contains(&id),
        &BTreeSet::new(),
    ) {
        Ok(quick) => quick,
        // A file found by its content that reads as another kind after the
        // edit: the server loads the project again, which is the fresh
        // lint. Right only when the fresh load does classify it otherwise.
        Err(dqlint_project::NoSlice::KindChanged(_)) => {
            let fresh = fresh_load(root, config, &file.path, new_text);
            // Which kind each file is read as: the edited one, or (a run
            // config's `checks_location`) the files it names.
            let kinds = |project: &Project| -> BTreeSet<(String, String)> {
                project
                    .files
                    .iter()
                    .map(|f| (f.rel.clone(), format!("{:?}", f.kind)))
                    .collect()
            };
            if kinds(&fresh) == kinds(base) {
                failures.push(format!(
                    "{}: {rel}: no slice (kind changed) but a fresh load reads every file as the same kind ({rel}: {:?})",
                    root.display(),
                    file.kind
                ));
            }
            return;
        }
        Err(e) => {
            failures.push(format!("{}: {rel}: no slice: {e:?}", root.display()));
            return;
        }
    };
    let fresh = fresh_load(root, config, &file.path, new_text);
    let fresh_findings = dqlint_linter::lint_configured(&fresh, config, &selection);
    let focus: BTreeSet<String> = quick
        .focus
        .iter()
        .map(|id| quick.project.file(*id).rel.clone())
        .collect();
    for focus_rel in &focus {
        let expected = findings_in(&fresh, &fresh_findings, focus_rel);
        let got = findings_in(&quick.project, &quick.findings, focus_rel);
        if expected != got {
            failures.push(format!(
                "{}: editing {rel}, findings of {focus_rel} differ\n  fresh: {expected:#?}\n  slice: {got:#?}",
                root.display()
            ));
        }
    }
    let files: BTreeSet<String> = fresh
        .files
        .iter()
        .chain(&base.files)
        .map(|f| f.rel.clone())
        .collect();
    for other in files.difference(&focus) {
        let before = findings_in(base, base_findings, other);
        let after = findings_in(&fresh, &fresh_findings, other);
        if before != after {
            failures.push(format!(
                "{}: editing {rel} changes the findings of {other}, which the quick re-lint leaves out\n  before: {before:#?}\n  after: {after:#?}",
                root.display()
            ));
        }
    }
}

#[test]
fn slice_findings_equal_a_fresh_lint() {
    let mut failures = Vec::new();
    let mut checked = 0;
    let configured = configured_showcase();
    let mut roots = fixture_projects();
    roots.push(configured.path().to_path_buf());
    for root in roots {
        let config = Config::discover(&root, None).unwrap();
        let base = Project::load(&root, &config.load_options(&[])).unwrap();
        let base_findings = dqlint_linter::lint_configured(&base, &config, &Selection::default());
        let editable: Vec<(String, Arc<str>)> = base
            .files
            .iter()
            .filter(|f| f.kind != FileKind::ProjectConfig)
            .map(|f| (f.rel.clone(), f.text.clone()))
            .collect();
        let loaded = Loaded {
            root: &root,
            config: &config,
            project: &base,
            findings: &base_findings,
        };
        for (i, (rel, text)) in editable.iter().enumerate() {
            check_edit(&loaded, rel, text.clone(), None, &mut failures);
            // A line deleted, the way an editor buffer is: a YAML buffer's
            // parse brought up to date by `LiveYaml` goes with the text.
            let deleted = line_range(text, i * 7 + 3);
            let mut live = LiveYaml::new(text);
            live.edit(deleted.start, deleted.end, "");
            let broken: Arc<str> = Arc::from(live.text());
            let parse = (!rel.ends_with(".sql")).then(|| live.yaml());
            check_edit(&loaded, rel, broken, parse, &mut failures);
            // A syntax error at the top: whether a model file parses
            // decides whether unused suppressions elsewhere are reported.
            let unparsable = Arc::from(format!("broken: [\n{text}"));
            check_edit(&loaded, rel, unparsable, None, &mut failures);
            checked += 1;
        }
    }
    assert!(
        checked > 100,
        "only {checked} files checked: fixtures missing?"
    );
    assert!(
        failures.is_empty(),
        "{} mismatches:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn only_an_edit_of_lhp_yaml_needs_a_full_load() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/showcase");
    let base = Project::load(&root, &LoadOptions::default()).unwrap();
    let relint_of = |kind: FileKind, text: &str| {
        let file = base.files.iter().find(|f| f.kind == kind).unwrap();
        let edits = Edits::from(HashMap::from([(file.id, Arc::from(text))]));
        relint(
            &base,
            file.id,
            &edits,
            &Config::default(),
            &Selection::default(),
            &|_| true,
            &BTreeSet::new(),
        )
    };
    assert!(matches!(
        relint_of(FileKind::ProjectConfig, "name: renamed\n"),
        Err(dqlint_project::NoSlice::LibraryChanged(_))
    ));
    let substitutions = relint_of(FileKind::Substitutions, "dev: {}\n").unwrap();
    assert!(
        substitutions.focus.len() > 1,
        "emptying the substitutions re-lints the files using its tokens"
    );
}

#[test]
fn a_buffer_parse_given_with_the_edit_is_used_not_redone() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/showcase");
    let base = Project::load(&root, &LoadOptions::default()).unwrap();
    let file = base
        .files
        .iter()
        .find(|f| f.kind == FileKind::Flowgroup)
        .unwrap();
    let text: Arc<str> = Arc::from(format!("{}\n# edited\n", file.text));
    let live = LiveYaml::new(&text);
    let mut edits = Edits::from(HashMap::from([(file.id, text)]));
    edits.parses.insert(file.id, live.yaml());
    let slice = base.slice(&edits, &|_, _| true).unwrap();
    let used = slice.file(file.id).yaml.as_ref().unwrap();
    assert!(Arc::ptr_eq(used, &live.yaml()));
}
