//! `--fix`, `--unsafe-fixes` and `--diff`: lint, apply what can be fixed,
//! re-lint, repeat, all in memory (the project is re-read through an
//! overlay of the fixed texts); only then write the changed files, or show
//! their diffs.

use std::collections::{BTreeMap, BTreeSet};
use std::io::Write;
use std::path::PathBuf;
use std::sync::Arc;

use dqlint_linter::Diagnostic;
use dqlint_project::{Overlay, Project};

use crate::fix::{apply_plan, ChangedFile, FixMode, FixPlan, Rejected};
use crate::fix_write::{self, PlannedWrite, ReadState, WriteOutcome};

/// Rounds of lint-and-fix before giving up on reaching a fixed point (a
/// fix whose edits overlap another's waits a round; ruff does the same).
pub const MAX_ROUNDS: usize = 8;

/// What fixing a project did, and what is left.
pub struct FixOutcome {
    /// The project as fixed (its files' texts are the fixed ones).
    pub project: Project,
    /// The findings left after fixing.
    pub remaining: Vec<Diagnostic>,
    /// Files whose text changed: original and fixed text.
    pub changed: Vec<ChangedFile>,
    /// How many fixes were applied, per rule code.
    pub applied: BTreeMap<&'static str, usize>,
    /// Files left as they were because their fixes would break them, or
    /// because they may not be written.
    pub rejected: Vec<Rejected>,
    /// Each file's length and mtime right after it was first read, to
    /// see at write time whether something else changed it since.
    pub read: BTreeMap<PathBuf, ReadState>,
}

impl FixOutcome {
    pub fn fixed_count(&self) -> usize {
        self.applied.values().sum()
    }
}

/// Lints (through `lint`, which loads the project with the given overlay)
/// and fixes until nothing more applies or [`MAX_ROUNDS`] is reached.
pub fn fix_project(
    mode: FixMode,
    mut lint: impl FnMut(&Overlay) -> Result<(Project, Vec<Diagnostic>), String>,
) -> Result<FixOutcome, String> {
    let mut overlay = Overlay::new();
    let mut originals: BTreeMap<PathBuf, (String, String)> = BTreeMap::new();
    let mut applied: BTreeMap<&'static str, usize> = BTreeMap::new();
    let mut rejected: Vec<Rejected> = Vec::new();
    let mut rejected_paths: BTreeSet<PathBuf> = BTreeSet::new();
    let mut read: BTreeMap<PathBuf, ReadState> = BTreeMap::new();
    let mut round = 0;
    let (project, remaining) = loop {
        let (project, diagnostics) = lint(&overlay)?;
        if round == 0 {
            for file in &project.files {
                if file.read_error.is_some() {
                    continue;
                }
                if let Some(state) = ReadState::of(&file.path) {
                    read.insert(file.path.clone(), state);
                }
            }
            // A file the user may not write is never fixed; the findings
            // that remain then match the files as they are.
            let mut touched: BTreeSet<dqlint_project::FileId> = BTreeSet::new();
            for d in &diagnostics {
                if let Some(fix) = d.fix.as_ref().filter(|f| mode.allows(f.applicability)) {
                    touched.extend(fix.edits.iter().map(|e| e.file));
                }
            }
            for id in touched {
                let file = project.file(id);
                if let Some(reason) = fix_write::not_writable(&file.path) {
                    rejected_paths.insert(file.path.clone());
                    rejected.push(Rejected {
                        rel: file.rel.clone(),
                        reason,
                    });
                }
            }
        }
        if round == MAX_ROUNDS {
            break (project, diagnostics);
        }
        round += 1;
        let plan = FixPlan::choose(&diagnostics, mode, |f| {
            rejected_paths.contains(&project.file(f).path)
        });
        if plan.is_empty() {
            break (project, diagnostics);
        }
        let result = apply_plan(&project, plan);
        for (file, why) in result.rejected {
            rejected_paths.insert(project.file(file).path.clone());
            rejected.push(why);
        }
        if result.changed.is_empty() {
            // Every fix was rejected or changed nothing: another round
            // would find the same fixes.
            break (project, diagnostics);
        }
        for (code, n) in result.applied {
            *applied.entry(code).or_default() += n;
        }
        for change in result.changed {
            originals
                .entry(change.path.clone())
                .or_insert((change.rel.clone(), change.before.clone()));
            overlay.insert(change.path, Arc::from(change.after.as_str()));
        }
    };
    let changed = originals
        .into_iter()
        .filter_map(|(path, (rel, before))| {
            let after = overlay.get(&path)?.to_string();
            (after != before).then_some(ChangedFile {
                path,
                rel,
                before,
                after,
            })
        })
        .collect();
    Ok(FixOutcome {
        project,
        remaining,
        changed,
        applied,
        rejected,
        read,
    })
}

/// Writes the fixed files, checking first that none changed since it was
/// read (see [`fix_write`]).
pub fn write_changes(outcome: &FixOutcome) -> Result<WriteOutcome, String> {
    let files: Vec<PlannedWrite> = outcome
        .changed
        .iter()
        .map(|c| PlannedWrite {
            path: &c.path,
            rel: &c.rel,
            before: &c.before,
            after: &c.after,
            read: outcome.read.get(&c.path),
        })
        .collect();
    fix_write::write_all(&files)
}

/// `--diff`: a unified diff per changed file, paths relative to the root.
pub fn write_diff(out: &mut dyn Write, changed: &[ChangedFile]) -> std::io::Result<()> {
    for change in changed {
        let diff = similar::TextDiff::from_lines(&change.before, &change.after);
        let a = format!("a/{}", change.rel);
        let b = format!("b/{}", change.rel);
        write!(
            out,
            "{}",
            diff.unified_diff().context_radius(3).header(&a, &b)
        )?;
    }
    Ok(())
}

/// What `--fix`/`--diff` tell on stderr: files written (or that would be),
/// fixes per rule, and files left alone because a fix would break them.
pub fn write_fix_summary(
    out: &mut dyn Write,
    outcome: &FixOutcome,
    dry_run: bool,
    quiet: bool,
) -> std::io::Result<()> {
    for r in &outcome.rejected {
        writeln!(
            out,
            "dqlint: warning: left {} unchanged: {}",
            r.rel, r.reason
        )?;
    }
    if quiet {
        return Ok(());
    }
    let verb = if dry_run { "would fix" } else { "fixed" };
    let rules: Vec<String> = outcome
        .applied
        .iter()
        .map(|(code, n)| format!("{code} x{n}"))
        .collect();
    // Unsafe fixes left over were not asked for (with --unsafe-fixes
    // they would have been applied): say they exist.
    let unsafe_left = outcome
        .remaining
        .iter()
        .filter(|d| {
            d.fix
                .as_ref()
                .is_some_and(|f| f.applicability == dqlint_linter::Applicability::Unsafe)
        })
        .count();
    let unsafe_hint = match unsafe_left {
        0 => String::new(),
        n => format!(
            "; {n} unsafe fix{} available (they change behaviour): add --unsafe-fixes to {} {}",
            if n == 1 { "" } else { "es" },
            if dry_run { "see" } else { "apply" },
            if n == 1 { "it" } else { "them" }
        ),
    };
    if outcome.changed.is_empty() {
        writeln!(out, "dqlint: nothing to fix{unsafe_hint}")?;
    } else {
        writeln!(
            out,
            "dqlint: {verb} {} finding(s) in {} file(s) ({}){unsafe_hint}",
            outcome.fixed_count(),
            outcome.changed.len(),
            rules.join(", ")
        )?;
        for change in &outcome.changed {
            writeln!(out, "  {}", change.rel)?;
        }
    }
    Ok(())
}
