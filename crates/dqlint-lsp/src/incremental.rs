//! The quick re-lint after an edit: which files' findings an edit can
//! change, and the project slice that computes exactly those.
//!
//! A full re-load of a 2,800-flowgroup project takes seconds; a keystroke
//! must show its findings in milliseconds. So after each edit the server
//! lints a [`Project::slice`] of the last full load ([`relint`]) and
//! publishes the findings of the *focus* files, then re-loads the whole
//! project once typing pauses, which publishes whatever else changed
//! (a template's findings, a token used everywhere). The focus is chosen so
//! that the slice holds every flowgroup its findings depend on:
//!
//! | edited file | focus (findings recomputed) | flowgroups in the slice |
//! |---|---|---|
//! | flowgroup | the file; with quarantine actions before or after the edit, also every file with quarantine actions and every `.sql` file (DQ4xx, DQ5xx) | its own, those with quarantine actions |
//! | expectations | the file and the flowgroup files using it | the users, those with quarantine actions |
//! | `.sql` | every `.sql` file and every file with quarantine actions | those with quarantine actions |
//!
//! Cross-flowgroup rules only compare quarantine actions (DQ501-DQ503), and
//! the DDL rules only look at DLQs named by quarantine actions: keeping those
//! flowgroups is what makes the slice exact. The `slice_equivalence` test
//! checks it for every file of every fixture project.

use std::collections::{BTreeSet, HashMap};
use std::sync::Arc;

use dqlint_linter::{Config, Diagnostic as Finding, Selection};
use dqlint_project::{envs_or_none, normalize_rel, FileId, FileKind, Flowgroup, NoSlice, Project};

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
/// it is unchanged).
pub fn relint(
    base: &Project,
    edited: FileId,
    edits: &HashMap<FileId, Arc<str>>,
    config: &Config,
    selection: &Selection,
) -> Result<Relint, NoSlice> {
    let kind = base
        .files
        .get(edited.0 as usize)
        .map(|f| f.kind)
        .ok_or_else(|| NoSlice::UnknownFile(format!("file #{}", edited.0)))?;
    let rel = expectations_rel(base, edited);
    let keep = |fg: &Flowgroup| {
        has_quarantine(fg)
            || match kind {
                FileKind::Flowgroup => fg.file == edited,
                FileKind::Expectations => rel.as_deref().is_some_and(|rel| uses(base, fg, rel)),
                _ => false,
            }
    };
    let project = base.slice(edits, &keep)?;

    let mut focus: BTreeSet<FileId> = BTreeSet::from([edited]);
    let quarantine_files = |p: &Project| -> Vec<FileId> {
        p.flowgroups
            .iter()
            .filter(|fg| has_quarantine(fg))
            .map(|fg| fg.file)
            .collect()
    };
    let sql_files = project
        .files
        .iter()
        .filter(|f| f.kind == FileKind::Sql)
        .map(|f| f.id);
    match kind {
        FileKind::Flowgroup => {
            let involved = |p: &Project| {
                p.flowgroups
                    .iter()
                    .any(|fg| fg.file == edited && has_quarantine(fg))
            };
            if involved(base) || involved(&project) {
                focus.extend(quarantine_files(&project));
                focus.extend(sql_files);
            }
        }
        FileKind::Expectations => {
            if let Some(rel) = &rel {
                focus.extend(
                    project
                        .flowgroups
                        .iter()
                        .filter(|fg| uses(&project, fg, rel))
                        .map(|fg| fg.file),
                );
            }
        }
        FileKind::Sql => {
            focus.extend(quarantine_files(&project));
            focus.extend(sql_files);
        }
        _ => {}
    }

    let findings = dqlint_linter::lint_configured(&project, config, selection)
        .into_iter()
        .filter(|f| focus.contains(&f.primary.file))
        .collect();
    Ok(Relint {
        project,
        focus,
        findings,
    })
}

fn has_quarantine(fg: &Flowgroup) -> bool {
    fg.actions.iter().any(|a| a.is_quarantine())
}

/// The project-relative path under which an expectations file is known.
fn expectations_rel(project: &Project, file: FileId) -> Option<String> {
    project
        .expectations
        .iter()
        .find(|(_, set)| set.file == file)
        .map(|(rel, _)| rel.clone())
}

/// Whether a data_quality action of `fg` reads the expectations file `rel`
/// in some environment (as the engine pairs them).
fn uses(project: &Project, fg: &Flowgroup, rel: &str) -> bool {
    let envs = envs_or_none(&project.envs);
    fg.actions.iter().filter(|a| a.is_data_quality()).any(|a| {
        a.get_str("expectations_file").is_some_and(|path| {
            envs.iter().any(|env| {
                let resolved = env.resolve(path);
                resolved.unresolved.is_empty() && normalize_rel(&resolved.text) == rel
            })
        })
    })
}
