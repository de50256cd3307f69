//! The quick re-lint after an edit: which files' findings an edit can
//! change, and the project slice that computes exactly those.
//!
//! A full re-load of a 2,800-flowgroup project takes seconds; a keystroke
//! must show its findings in milliseconds. So after each edit the server
//! lints a [`Project::slice`] of the last model ([`relint`]) and publishes
//! the findings of the *focus* files, and only those: every other file's
//! findings cannot have changed. The focus, and the flowgroups the slice
//! keeps so that the focus findings are exact:
//!
//! | edited file | focus (findings recomputed) |
//! |---|---|
//! | flowgroup | the file |
//! | template, preset, blueprint | the file, its siblings of the same kind, and the flowgroup files built from it |
//! | substitutions | every substitutions file, and every file using a token whose value changed (with the flowgroups built from such a template, preset or blueprint) |
//! | expectations | the file, and every flowgroup file reading it |
//! | `config/pipeline_config.yaml`, `.sql` | the file, and the DDL group below |
//! | DQX checks file | the file; when the edit makes it read as another kind of file or none (a file a run config names stays a checks file), no slice ([`NoSlice::KindChanged`]: the caller re-loads) |
//! | DQX run config | every run config (checkpoints are shared project-wide); when the edit changes which files are checks files (a `checks_location`) or makes it read as another kind, no slice |
//!
//! and then, for every kind:
//! - with a quarantine action among those flowgroups before or after the
//!   edit, every file with quarantine actions and every `.sql` file (rules
//!   of the quarantine scope, `dqlint_linter::Scope::Quarantine`, read
//!   every quarantine action and the DDL together);
//! - an expectations file, template, preset or blueprint those flowgroups
//!   read or are built from, with all its users, when it has findings
//!   before the edit or in a first lint without its other users. Findings
//!   there are shared by all its users; with none in either lint, the
//!   other users (unchanged) add none either. This keeps a keystroke in one
//!   of 500 flowgroups reading the same clean expectations file from
//!   re-linting all 500.
//!   With the DDL group re-linted, the same holds for the templates,
//!   presets and blueprints any quarantine action comes from.
//! - the files the previous re-lint of the same file re-linted (an edit
//!   can undo what the one before changed there);
//! - when the edit makes a model file (flowgroup, template, preset,
//!   blueprint, substitutions) start or stop parsing, every file with a
//!   suppression comment: unused suppressions (the suppressions scope) are
//!   held back in the files a broken model file feeds.
//!
//! The slice keeps the flowgroups of the focus files and those with
//! quarantine actions. Only `lhp.yaml` has no slice (the caller re-loads).
//! The `slice_equivalence` test checks, for every file of every fixture
//! project, that the focus findings equal a fresh lint and that no other
//! file's findings change.

use std::collections::{BTreeSet, HashMap};
use std::sync::Arc;

use dqlint_linter::{Config, Diagnostic as Finding, Selection};
use dqlint_project::{
    envs_or_none, Edits, Env, FileId, FileKind, Flowgroup, NoSlice, Project, Value,
};

/// The findings of the focus files, computed on a slice.
pub struct Relint {
    /// The slice the findings' file ids and spans refer to.
    pub project: Project,
    /// Files whose findings are complete in `findings` (possibly none).
    pub focus: BTreeSet<FileId>,
    /// Findings whose primary location is in a focus file.
    pub findings: Vec<Finding>,
}

/// Re-lints what an edit of `edited` affects. `edits` holds the new text of
/// every file that differs from `base` (the edited one included, or not if
/// it is unchanged); `had_findings` tells which files of `base` had
/// findings; `revisit` names the files the previous re-lint of `edited`
/// re-linted: the edit may undo what that one changed there (typing back
/// a token renamed a moment ago).
pub fn relint(
    base: &Project,
    edited: FileId,
    edits: &Edits,
    config: &Config,
    selection: &Selection,
    had_findings: &dyn Fn(FileId) -> bool,
    revisit: &BTreeSet<FileId>,
) -> Result<Relint, NoSlice> {
    let kind = base
        .files
        .get(edited.0 as usize)
        .map(|f| f.kind)
        .ok_or_else(|| NoSlice::UnknownFile(format!("file #{}", edited.0)))?;
    if matches!(kind, FileKind::ProjectConfig | FileKind::LintConfig) {
        return Err(NoSlice::LibraryChanged(base.file(edited).rel.clone()));
    }
    let text_of = |id: FileId| -> Arc<str> {
        edits
            .texts
            .get(&id)
            .cloned()
            .unwrap_or_else(|| base.file(id).text.clone())
    };

    // What the edit reaches directly: flowgroup files whose flowgroups (or
    // their resolution) change, other files whose findings it can change,
    // expectations files whose users must all be present.
    let mut plan = Plan {
        also: BTreeSet::from([edited]),
        ..Plan::default()
    };
    let mut envs: Vec<Env> = envs_or_none(&base.envs);
    match kind {
        FileKind::Flowgroup => {
            plan.reached.insert(edited);
        }
        FileKind::Template | FileKind::Preset | FileKind::Blueprint => {
            let only: HashMap<FileId, Arc<str>> = HashMap::from([(edited, text_of(edited))]);
            plan.reached.extend(base.rebuilt_by(&only));
            // Findings about the library itself (a duplicate blueprint
            // name, a preset without `name:`) sit in its sibling files.
            plan.also
                .extend(base.files.iter().filter(|f| f.kind == kind).map(|f| f.id));
        }
        FileKind::Substitutions => {
            plan.also.extend(
                base.files
                    .iter()
                    .filter(|f| f.kind == FileKind::Substitutions)
                    .map(|f| f.id),
            );
            let (new_envs, now_broken) = envs_after(base, edited, edits, &text_of(edited));
            // A substitutions file that starts or stops parsing changes
            // more than token values: unknown-token findings hold back while one is broken.
            let same_health = now_broken == base.file(edited).is_broken();
            let users = match changed_tokens(&base.envs, &new_envs).filter(|_| same_health) {
                Some(tokens) => token_users(base, &tokens, &text_of),
                None => base.files.iter().map(|f| f.id).collect(),
            };
            plan.reached.extend(flowgroups_fed_by(base, &users));
            plan.also.extend(users);
            envs.extend(envs_or_none(&new_envs));
        }
        FileKind::PipelineConfig | FileKind::Sql => plan.quarantine_wide = true,
        // Pipeline sources read each other (a quarantine table and its
        // clean twin, an AUTO CDC target declared elsewhere, imported rule
        // dicts), and a SQL one may hold DLQ DDL.
        FileKind::PipelinePython | FileKind::PipelineSql | FileKind::PythonModule => {
            plan.also.extend(pipeline_files(base));
            plan.quarantine_wide |= kind == FileKind::PipelineSql;
        }
        // Run configs share checkpoints across the project.
        FileKind::DqxRunConfig => plan.also.extend(
            base.files
                .iter()
                .filter(|f| f.kind == FileKind::DqxRunConfig)
                .map(|f| f.id),
        ),
        // Checks files: their findings are their own (the edited file is
        // in `also`).
        // The registry's rules are checked where pipeline code loads them.
        FileKind::PolicyRegistry => plan.also.extend(
            pipeline_files(base).chain(
                base.files
                    .iter()
                    .filter(|f| f.kind == FileKind::PolicyRegistry)
                    .map(|f| f.id),
            ),
        ),
        FileKind::Expectations
        | FileKind::ProjectConfig
        | FileKind::LintConfig
        | FileKind::DqxChecks => {}
    }
    // Files whose findings every flowgroup reading or built from them
    // shares: an expectations file, a template, preset or blueprint. One
    // the reached flowgroups use joins the focus, with all its users kept,
    // when it has findings before the edit or in a first lint without its
    // other users; with none in either, the other users (unchanged) add
    // none either, and it is left alone. An edited or revisited one joins
    // at once.
    for (rel, set) in &base.expectations {
        if plan.also.contains(&set.file) {
            plan.shared.insert(rel.clone());
        }
    }
    for id in revisit {
        plan.include(base, *id);
    }
    if plan.also.iter().any(|id| base.file(*id).kind.is_sql()) {
        plan.quarantine_wide = true;
    }
    // Whether the edit makes a model file start or stop parsing: unused
    // suppressions are held back in the files such a file feeds,
    // so every file with a suppression comment is re-linted then.
    let broken_before = base.broken_kinds();
    let mut suppressions_included = false;
    loop {
        let library_users = base.rebuilt_by(
            &plan
                .library
                .iter()
                .map(|id| (*id, text_of(*id)))
                .collect::<HashMap<_, _>>(),
        );
        let keep = |fg: &Flowgroup, _: &[Flowgroup]| {
            fg.has_quarantine()
                || plan.reached.contains(&fg.file)
                || library_users.contains(&fg.file)
                || fg
                    .expectations_files(&envs)
                    .iter()
                    .any(|rel| plan.shared.contains(rel))
        };
        let project = base.slice(edits, &keep)?;
        let reached_fgs = || {
            base.flowgroups
                .iter()
                .chain(&project.flowgroups)
                .filter(|fg| plan.reached.contains(&fg.file) || library_users.contains(&fg.file))
        };
        let expectations_file = |rel: &String| {
            project
                .expectations
                .get(rel)
                .or(base.expectations.get(rel))
                .map(|set| set.file)
        };

        let mut focus: BTreeSet<FileId> = plan.also.clone();
        focus.extend(plan.reached.iter().copied());
        focus.extend(plan.library.iter().copied());
        for rel in &plan.shared {
            focus.extend(expectations_file(rel));
        }
        focus.extend(
            project
                .flowgroups
                .iter()
                .filter(|fg| !plan.reached.contains(&fg.file))
                .filter(|fg| {
                    library_users.contains(&fg.file)
                        || fg
                            .expectations_files(&envs)
                            .iter()
                            .any(|rel| plan.shared.contains(rel))
                })
                .map(|fg| fg.file),
        );
        let quarantine_involved =
            plan.quarantine_wide || reached_fgs().any(Flowgroup::has_quarantine);
        if quarantine_involved {
            focus.extend(
                project
                    .flowgroups
                    .iter()
                    .chain(&base.flowgroups)
                    .filter(|fg| fg.has_quarantine())
                    .map(|fg| fg.file),
            );
            focus.extend(
                project
                    .files
                    .iter()
                    .filter(|f| f.kind.is_sql())
                    .map(|f| f.id),
            );
        }

        let findings: Vec<Finding> = dqlint_linter::lint_configured(&project, config, selection);
        let has_findings =
            |id: FileId| had_findings(id) || findings.iter().any(|f| f.primary.file == id);
        let more_expectations: BTreeSet<String> = reached_fgs()
            .flat_map(|fg| fg.expectations_files(&envs))
            .filter(|rel| !plan.shared.contains(rel))
            .filter(|rel| expectations_file(rel).is_some_and(has_findings))
            .collect();
        // With the DDL group re-linted, the templates, presets and
        // blueprints quarantine actions come from may hold quarantine-scope
        // findings too (at a templated `dlq_table`).
        let quarantine_fgs = base
            .flowgroups
            .iter()
            .chain(&project.flowgroups)
            .filter(|fg| quarantine_involved && fg.has_quarantine());
        let more_library: BTreeSet<FileId> = reached_fgs()
            .chain(quarantine_fgs)
            .flat_map(|fg| library_files_of(base, &project, fg))
            .filter(|id| !plan.library.contains(id) && has_findings(*id))
            .collect();
        if !more_expectations.is_empty() || !more_library.is_empty() {
            plan.shared.extend(more_expectations);
            plan.library.extend(more_library);
            continue;
        }
        if !suppressions_included && project.broken_kinds() != broken_before {
            suppressions_included = true;
            let suppressing: Vec<FileId> = base
                .files
                .iter()
                .filter(|f| text_of(f.id).contains("dqlint:"))
                .map(|f| f.id)
                .collect();
            drop(project);
            for id in suppressing {
                plan.include(base, id);
            }
            continue;
        }
        let findings = findings
            .into_iter()
            .filter(|f| focus.contains(&f.primary.file))
            .collect();
        return Ok(Relint {
            project,
            focus,
            findings,
        });
    }
}

/// A finding as one line of text with its files named by path, so the
/// results of two loads (which may number files differently) compare equal
/// when they report the same thing. The equivalence tests and the
/// `lsp_edits` fuzz target compare with it.
pub fn describe(project: &Project, finding: &Finding) -> String {
    let rel = |id| project.file(id).rel.clone();
    let related: Vec<String> = finding
        .related
        .iter()
        .map(|r| {
            format!(
                "{}@{:?}: {}",
                rel(r.location.file),
                r.location.span,
                r.message
            )
        })
        .collect();
    format!(
        "{} {:?} {}@{:?}: {} envs={:?} related={related:?} fix={:?}",
        finding.rule.code,
        finding.severity,
        rel(finding.primary.file),
        finding.primary.span,
        finding.message,
        finding.envs,
        finding
            .fix
            .as_ref()
            .map(|f| (&f.description, f.edits.len())),
    )
}

/// What a re-lint covers.
#[derive(Default)]
struct Plan {
    /// Flowgroup files whose flowgroups (or their resolution) change.
    reached: BTreeSet<FileId>,
    /// Other files whose findings the edit can change.
    also: BTreeSet<FileId>,
    /// Expectations files (by project-relative path) re-linted with every
    /// flowgroup reading them.
    shared: BTreeSet<String>,
    /// Templates, presets and blueprints re-linted with every flowgroup
    /// built from them.
    library: BTreeSet<FileId>,
    /// Every file with quarantine actions and every `.sql` file too.
    quarantine_wide: bool,
}

impl Plan {
    /// A whole file re-linted exactly, with what its findings depend on.
    fn include(&mut self, base: &Project, id: FileId) {
        let Some(file) = base.files.get(id.0 as usize) else {
            return;
        };
        match file.kind {
            FileKind::Flowgroup => {
                self.reached.insert(id);
            }
            FileKind::Template | FileKind::Preset | FileKind::Blueprint => {
                self.library.insert(id);
            }
            FileKind::Expectations => self
                .shared
                .extend(base.expectations_rel(id).map(str::to_string)),
            FileKind::Sql => self.quarantine_wide = true,
            FileKind::PipelinePython | FileKind::PipelineSql | FileKind::PythonModule => {
                self.also.extend(pipeline_files(base));
                self.quarantine_wide |= file.kind == FileKind::PipelineSql;
            }
            _ => {}
        }
        self.also.insert(id);
    }
}

/// Every pipeline source of the project, and the modules they import.
fn pipeline_files(base: &Project) -> impl Iterator<Item = FileId> + '_ {
    base.files
        .iter()
        .filter(|f| f.kind.is_pipeline() || f.kind == FileKind::PythonModule)
        .map(|f| f.id)
}

/// The template, preset and blueprint files `fg` is built from, before
/// (`base`) or after (`slice`) the edit.
fn library_files_of(base: &Project, slice: &Project, fg: &Flowgroup) -> Vec<FileId> {
    let mut out = Vec::new();
    for project in [base, slice] {
        if let Some((name, _)) = &fg.template {
            out.extend(project.templates.get(name).map(|t| t.file));
        }
        for (name, _) in &fg.presets {
            let mut next = Some(name.as_str());
            let mut seen = 0;
            while let Some(preset) = next.and_then(|n| project.presets.get(n)) {
                out.push(preset.file);
                next = preset.extends.as_deref();
                seen += 1;
                if seen > project.presets.len() {
                    break;
                }
            }
        }
    }
    let instance = |project: &Project| {
        project
            .files
            .get(fg.file.0 as usize)
            .is_some_and(|f| f.text.contains("use_blueprint"))
    };
    if instance(base) || instance(slice) {
        out.extend(
            base.files
                .iter()
                .filter(|f| f.kind == FileKind::Blueprint)
                .map(|f| f.id),
        );
    }
    out
}

/// The environments after the substitutions file `edited` reads `text`
/// (parsed already when the edit carries the buffer's parse), and whether
/// that text has syntax errors.
fn envs_after(base: &Project, edited: FileId, edits: &Edits, text: &str) -> (Vec<Env>, bool) {
    let yaml = edits
        .parses
        .get(&edited)
        .cloned()
        .unwrap_or_else(|| Arc::new(dqlint_yaml::parse(text)));
    let root = yaml
        .documents
        .iter()
        .find_map(|d| d.root.as_ref())
        .map(|node| Value::from_node(node, edited));
    let envs = base
        .envs
        .iter()
        .map(|env| match env.file {
            Some(id) if id == edited => Env::from_file(&env.name, id, root.as_ref()),
            _ => env.clone(),
        })
        .collect();
    (envs, !yaml.errors.is_empty())
}

/// The tokens whose value changed between two readings of the
/// environments; `None` when more than token values changed (secret scopes).
fn changed_tokens(before: &[Env], after: &[Env]) -> Option<BTreeSet<String>> {
    let mut out = BTreeSet::new();
    for (old, new) in before.iter().zip(after) {
        if old.default_secret_scope != new.default_secret_scope
            || old.secret_scopes != new.secret_scopes
        {
            return None;
        }
        for name in old.tokens.keys().chain(new.tokens.keys()) {
            let value = |env: &Env| env.tokens.get(name).map(|t| t.value.clone());
            if value(old) != value(new) {
                out.insert(name.clone());
            }
        }
    }
    Some(out)
}

/// The files whose text uses one of `tokens` (`${name}` or `{name}`).
fn token_users(
    base: &Project,
    tokens: &BTreeSet<String>,
    text_of: &dyn Fn(FileId) -> Arc<str>,
) -> BTreeSet<FileId> {
    let needles: Vec<String> = tokens.iter().map(|t| format!("{{{t}}}")).collect();
    base.files
        .iter()
        .filter(|f| f.kind != FileKind::Substitutions)
        .filter(|f| {
            let text = text_of(f.id);
            needles.iter().any(|n| text.contains(n.as_str()))
        })
        .map(|f| f.id)
        .collect()
}

/// The flowgroup files among `files`, and those whose flowgroups are built
/// from a template, preset or blueprint among them.
fn flowgroups_fed_by(base: &Project, files: &BTreeSet<FileId>) -> BTreeSet<FileId> {
    base.flowgroups
        .iter()
        .filter(|fg| {
            files.contains(&fg.file)
                || library_files_of(base, base, fg)
                    .iter()
                    .any(|id| files.contains(id))
        })
        .map(|fg| fg.file)
        .collect()
}
