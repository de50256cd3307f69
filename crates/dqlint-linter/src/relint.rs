//! The quick re-lint after an edit: which files' findings an edit can
//! change, and the project slice that computes exactly those.
//!
//! A full re-load of a 2,800-flowgroup project takes seconds; a keystroke
//! must show its findings in milliseconds. So after each edit the language
//! server calls [`relint`], which lints a [`Project::slice`] of the last
//! model and returns the findings of the *focus* files, and only those:
//! every other file's findings cannot have changed.
//!
//! The focus is derived from the rules' declared [`Scope`]s, never from
//! their codes: the scopes of the rules that can report (under the
//! configuration and the command line) each say what an edit of a file
//! of some kind reaches (`Scope::reach`) and what a file's findings
//! depend on (`Scope::depends`):
//!
//! | scope | an edit of ... reaches |
//! |---|---|
//! | file | the file (a flowgroup file with its flowgroups) |
//! | flowgroup | a template, preset or blueprint: the flowgroup files built from it |
//! | library | a template, preset or blueprint: its siblings of the same kind |
//! | expectations | an expectations file: every flowgroup file reading it |
//! | tokens | a substitutions file: every substitutions file, and every file using a token whose value changed (with the flowgroups built from such a template, preset or blueprint) |
//! | quarantine | `.sql`, `config/pipeline_config.yaml`: every file with quarantine actions and every `.sql` file |
//! | pipelines | a pipeline source or imported module: every pipeline source and module |
//! | run configs | a DQX run config or Python source: every run config and Python source |
//! | policy (with `[policy]`) | anything: every file |
//! | project | nothing: `lhp.yaml` and `dqlint.toml` have no slice (the caller re-loads) |
//!
//! and then, whatever the scopes:
//! - with a quarantine action among the reached flowgroups before or after
//!   the edit, the whole quarantine group (quarantine rules read every
//!   quarantine action and the DDL together);
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
//! An edit that makes a DQX or pipeline file read as another kind of file
//! (or a run config name other checks files) has no slice either
//! ([`NoSlice::KindChanged`]). The `slice_equivalence` test checks, for
//! every file of every fixture project, that the focus findings equal a
//! fresh lint and that no other file's findings change.

use std::collections::{BTreeSet, HashMap};
use std::sync::Arc;

use crate::{Config, Diagnostic as Finding, Scope, Selection, RULES};
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

    // What the edit reaches, scope by scope: flowgroup files whose
    // flowgroups (or their resolution) change, other files whose findings
    // it can change, expectations files whose users must all be present.
    let scopes = scopes_in_use(config, selection);
    let mut plan = Plan {
        also: BTreeSet::from([edited]),
        ..Plan::default()
    };
    let mut envs: Vec<Env> = envs_or_none(&base.envs);
    let edit = EditOf {
        base,
        file: edited,
        kind,
        edits,
        text_of: &text_of,
    };
    for scope in &scopes {
        if let Some(new_envs) = scope.reach(&edit, &mut plan) {
            envs.extend(envs_or_none(&new_envs));
        }
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
        plan.include(base, *id, &scopes);
    }
    if scopes.contains(&Scope::Quarantine)
        && plan.also.iter().any(|id| base.file(*id).kind.is_sql())
    {
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
            plan.everything
                || fg.has_quarantine()
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
        if plan.everything {
            focus.extend(project.files.iter().chain(&base.files).map(|f| f.id));
        }
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
        let quarantine_involved = scopes.contains(&Scope::Quarantine)
            && (plan.quarantine_wide || reached_fgs().any(Flowgroup::has_quarantine));
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

        let findings: Vec<Finding> = crate::lint_configured(&project, config, selection);
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
                plan.include(base, id, &scopes);
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
    /// Every file of the project, with every flowgroup kept.
    everything: bool,
}

impl Plan {
    /// A whole file re-linted exactly, with what its findings depend on in
    /// each scope in use.
    fn include(&mut self, base: &Project, id: FileId, scopes: &BTreeSet<Scope>) {
        let Some(file) = base.files.get(id.0 as usize) else {
            return;
        };
        for scope in scopes {
            scope.depends(base, file.id, file.kind, self);
        }
        self.also.insert(id);
    }
}

/// The scopes of the rules that can report under `config` and `selection`:
/// only their reach matters. Policy rules say nothing without a policy.
fn scopes_in_use(config: &Config, selection: &Selection) -> BTreeSet<Scope> {
    let policy = crate::config::Policy {
        config,
        cli: selection,
    };
    RULES
        .iter()
        .filter(|rule| policy.may_run(rule))
        .map(|rule| rule.scope)
        .filter(|scope| *scope != Scope::Policy || !config.team_policy.is_empty())
        .collect()
}

/// The edit a re-lint follows: which file, of which kind, and the texts.
struct EditOf<'a> {
    base: &'a Project,
    file: FileId,
    kind: FileKind,
    edits: &'a Edits,
    text_of: &'a dyn Fn(FileId) -> Arc<str>,
}

impl Scope {
    /// Adds to `plan` the files whose findings, for the rules of this
    /// scope, an edit can change; the environments after the edit when it
    /// changes them (a substitutions file).
    ///
    /// Every scope answers here: a new one does not compile until it says
    /// what an edit reaches, and the language server, which only asks
    /// [`relint`], never changes for a new rule.
    fn reach(self, edit: &EditOf, plan: &mut Plan) -> Option<Vec<Env>> {
        let EditOf {
            base,
            file: edited,
            kind,
            ..
        } = *edit;
        match self {
            // The flowgroups built from an edited template, preset or
            // blueprint, rebuilt with its new text.
            Scope::Flowgroup if is_library(kind) => {
                let only: HashMap<FileId, Arc<str>> =
                    HashMap::from([(edited, (edit.text_of)(edited))]);
                plan.reached.extend(base.rebuilt_by(&only));
            }
            // Findings about the library itself (a duplicate blueprint
            // name, a preset without `name:`) sit in its sibling files.
            Scope::Library if is_library(kind) => {
                plan.also.extend(files_of(base, kind));
            }
            Scope::Tokens if kind == FileKind::Substitutions => {
                return Some(token_reach(edit, plan));
            }
            // Here an edit reaches what the file's findings depend on: its
            // own flowgroups; an expectations file's users; the quarantine
            // group for the DLQ DDL, the pipeline configuration and SQL
            // pipeline sources; every pipeline source, which read each
            // other (a quarantine table and its clean twin, an AUTO CDC
            // target declared elsewhere, imported rule dicts); every run
            // config, which share checkpoints in config files and in
            // Python; and, with a policy, which reads every dataset with
            // the expectations, breakers and uniqueness views around it,
            // every file.
            Scope::File
            | Scope::Flowgroup
            | Scope::Expectations
            | Scope::Quarantine
            | Scope::Pipelines
            | Scope::RunConfigs
            | Scope::Policy => self.depends(base, edited, kind, plan),
            // The project as loaded changes only by a re-load (`lhp.yaml`,
            // `dqlint.toml`: no slice); suppressions are followed after the
            // lint, once the edit's effect on the model files is known (see
            // [`relint`]).
            Scope::Library | Scope::Tokens | Scope::Project | Scope::Suppressions => {}
        }
        None
    }

    /// Adds to `plan` what the findings of `file` (of `kind`) depend on for
    /// the rules of this scope, so that they come out exact.
    fn depends(self, base: &Project, file: FileId, kind: FileKind, plan: &mut Plan) {
        match self {
            Scope::File => {
                if kind == FileKind::Flowgroup {
                    plan.reached.insert(file);
                }
            }
            Scope::Flowgroup | Scope::Library => {
                if kind == FileKind::Flowgroup {
                    plan.reached.insert(file);
                } else if is_library(kind) {
                    plan.library.insert(file);
                }
            }
            Scope::Expectations => {
                if kind == FileKind::Expectations {
                    plan.shared
                        .extend(base.expectations_rel(file).map(str::to_string));
                }
            }
            Scope::Quarantine => plan.quarantine_wide |= holds_quarantine_facts(kind),
            Scope::Pipelines => {
                if kind.is_pipeline() || kind == FileKind::PythonModule {
                    plan.also.extend(pipeline_files(base));
                }
            }
            Scope::RunConfigs => {
                if writes_run_configs(kind) {
                    plan.also.extend(run_config_files(base));
                }
            }
            Scope::Policy => plan.everything = true,
            Scope::Tokens | Scope::Project | Scope::Suppressions => {}
        }
    }
}

/// What an edit of a substitutions file reaches: every substitutions file,
/// and the files using a token whose value changed (with the flowgroups
/// built from them); the environments after the edit.
fn token_reach(edit: &EditOf, plan: &mut Plan) -> Vec<Env> {
    let EditOf {
        base, file: edited, ..
    } = *edit;
    plan.also.extend(files_of(base, FileKind::Substitutions));
    let text = (edit.text_of)(edited);
    let (new_envs, now_broken) = envs_after(base, edited, edit.edits, &text);
    // A substitutions file that starts or stops parsing changes more than
    // token values: unknown-token findings hold back while one is broken.
    let same_health = now_broken == base.file(edited).is_broken();
    let users = match changed_tokens(&base.envs, &new_envs).filter(|_| same_health) {
        Some(tokens) => token_users(base, &tokens, edit.text_of),
        None => base.files.iter().map(|f| f.id).collect(),
    };
    plan.reached.extend(flowgroups_fed_by(base, &users));
    plan.also.extend(users);
    new_envs
}

fn is_library(kind: FileKind) -> bool {
    matches!(
        kind,
        FileKind::Template | FileKind::Preset | FileKind::Blueprint
    )
}

/// Files the quarantine scope reads besides quarantine actions: the DLQ
/// DDL (`.sql`, also in a SQL pipeline source) and the pipeline
/// configuration.
fn holds_quarantine_facts(kind: FileKind) -> bool {
    kind.is_sql() || kind == FileKind::PipelineConfig
}

/// Files that may hold DQX run configs (or values they import).
fn writes_run_configs(kind: FileKind) -> bool {
    matches!(
        kind,
        FileKind::DqxRunConfig | FileKind::PipelinePython | FileKind::PythonModule
    )
}

/// The files of one kind.
fn files_of(base: &Project, kind: FileKind) -> impl Iterator<Item = FileId> + '_ {
    base.files
        .iter()
        .filter(move |f| f.kind == kind)
        .map(|f| f.id)
}

/// Where DQX run configs are written: config files, and Python (DQX API
/// modules and the modules they import values from).
fn run_config_files(base: &Project) -> impl Iterator<Item = FileId> + '_ {
    base.files
        .iter()
        .filter(|f| writes_run_configs(f.kind))
        .map(|f| f.id)
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
