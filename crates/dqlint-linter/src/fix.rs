//! The one fix engine: applying the fixes that diagnostics carry, in
//! memory. `dqlint lint --fix`/`--diff` and the language server's quick
//! fixes and `source.fixAll` all go through it, so they share one conflict
//! rule and one refusal of edits that break a file.
//!
//! A fix is a set of byte-range edits (`Fix::edits`), possibly over several
//! files. [`FixPlan`] picks the fixes to apply in one round: a fix whose
//! edits overlap an edit already taken is left for the next round (after a
//! re-lint its edits are recomputed on the new text), like ruff does.
//! Applying edits splices bytes, so comments, formatting and everything
//! outside the edited ranges stay byte-for-byte the same; inserted line
//! breaks follow the file's own line endings (CRLF stays CRLF).
//!
//! A file whose edited text has more parse errors than before (YAML through
//! `dqlint-yaml`, `.sql` through `dqlint-sql`'s DDL parser) is not changed
//! at all: a fix must never turn a file the linter understands into one it
//! does not.

use std::collections::BTreeMap;
use std::ops::Range;
use std::path::{Path, PathBuf};

use crate::{Applicability, Diagnostic};
use dqlint_project::{FileId, Project};

/// Which fixes `--fix` may apply.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FixMode {
    /// Only fixes that keep what the user meant (`--fix`).
    SafeOnly,
    /// Also fixes that change behaviour (`--fix --unsafe-fixes`).
    IncludeUnsafe,
}

impl FixMode {
    pub fn allows(self, applicability: Applicability) -> bool {
        applicability == Applicability::Safe || self == FixMode::IncludeUnsafe
    }
}

/// One replacement in one file's text, in bytes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TextEdit {
    pub span: Range<usize>,
    pub new_text: String,
}

impl TextEdit {
    /// Two edits conflict when their ranges share a byte, or when both
    /// insert at the same point (their order would be a guess).
    fn conflicts_with(&self, other: &TextEdit) -> bool {
        let (a, b) = (&self.span, &other.span);
        if a.start == a.end && b.start == b.end {
            return a.start == b.start;
        }
        // Also true for an insertion strictly inside the other range.
        a.start < b.end && b.start < a.end
    }
}

/// A fix chosen for this round: its rule and its edits, by file.
#[derive(Clone, Debug)]
pub struct ChosenFix {
    pub code: &'static str,
    pub edits: Vec<(FileId, TextEdit)>,
}

/// The fixes of one round, no two of them overlapping.
#[derive(Debug, Default)]
pub struct FixPlan {
    pub fixes: Vec<ChosenFix>,
}

impl FixPlan {
    /// Takes the fixes of `diagnostics` in order; a fix conflicting with
    /// one already taken waits for the next round. `skip` names files that
    /// must not be touched (rejected in an earlier round).
    pub fn choose<'a>(
        diagnostics: impl IntoIterator<Item = &'a Diagnostic>,
        mode: FixMode,
        skip: impl Fn(FileId) -> bool,
    ) -> FixPlan {
        let mut plan = FixPlan::default();
        for d in diagnostics {
            let Some(fix) = &d.fix else { continue };
            if !mode.allows(fix.applicability)
                || fix.edits.is_empty()
                || fix.edits.iter().any(|e| skip(e.file))
            {
                continue;
            }
            let candidate = ChosenFix {
                code: d.rule.code,
                edits: fix
                    .edits
                    .iter()
                    .map(|e| {
                        (
                            e.file,
                            TextEdit {
                                span: e.span.clone(),
                                new_text: e.new_text.clone(),
                            },
                        )
                    })
                    .collect(),
            };
            if !plan.conflicts(&candidate) {
                plan.fixes.push(candidate);
            }
        }
        plan
    }

    fn conflicts(&self, candidate: &ChosenFix) -> bool {
        candidate.edits.iter().enumerate().any(|(i, (file, edit))| {
            let taken = self
                .fixes
                .iter()
                .flat_map(|f| f.edits.iter())
                .chain(&candidate.edits[..i]);
            taken
                .filter(|(f, _)| f == file)
                .any(|(_, other)| edit.conflicts_with(other))
        })
    }

    pub fn is_empty(&self) -> bool {
        self.fixes.is_empty()
    }

    /// The edits of each file.
    pub fn by_file(&self) -> BTreeMap<FileId, Vec<TextEdit>> {
        let mut files: BTreeMap<FileId, Vec<TextEdit>> = BTreeMap::new();
        for (file, edit) in self.fixes.iter().flat_map(|f| f.edits.iter()) {
            files.entry(*file).or_default().push(edit.clone());
        }
        files
    }

    /// Drops every fix touching `file`, its edits in other files too: a
    /// fix is applied whole or not at all.
    pub fn drop_file(&mut self, file: FileId) {
        self.fixes
            .retain(|f| !f.edits.iter().any(|(f, _)| *f == file));
    }
}

/// How a file's line breaks are written.
fn uses_crlf(text: &str) -> bool {
    text.find('\n')
        .is_some_and(|i| i > 0 && text.as_bytes()[i - 1] == b'\r')
}

/// Writes `\n` in inserted text as `\r\n` in a CRLF file.
fn with_line_endings(new_text: &str, crlf: bool) -> String {
    if !crlf {
        return new_text.to_string();
    }
    let mut out = String::with_capacity(new_text.len() + 8);
    let mut previous = '\0';
    for c in new_text.chars() {
        if c == '\n' && previous != '\r' {
            out.push('\r');
        }
        out.push(c);
        previous = c;
    }
    out
}

/// Applies non-overlapping edits to `text`. An edit out of bounds or not
/// on character boundaries is an error, never a panic.
pub fn apply_edits(text: &str, edits: &[TextEdit]) -> Result<String, String> {
    let crlf = uses_crlf(text);
    let mut sorted: Vec<&TextEdit> = edits.iter().collect();
    sorted.sort_by_key(|e| (e.span.start, e.span.end));
    let mut out = String::with_capacity(text.len() + 64);
    let mut at = 0;
    for e in sorted {
        let Range { start, end } = e.span;
        if start < at
            || end < start
            || end > text.len()
            || !text.is_char_boundary(start)
            || !text.is_char_boundary(end)
        {
            return Err(format!(
                "edit {start}..{end} does not fit the file ({} bytes)",
                text.len()
            ));
        }
        out.push_str(&text[at..start]);
        out.push_str(&with_line_endings(&e.new_text, crlf));
        at = end;
    }
    out.push_str(&text[at..]);
    Ok(out)
}

/// The kind of parse a file gets to check a fix kept it well-formed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Syntax {
    Yaml,
    Sql,
    /// A Python pipeline source (tree-sitter-python's errors).
    Python,
    /// A SQL pipeline source (the pipeline SQL reader's errors: the DDL
    /// parser does not read CREATE STREAMING TABLE or AUTO CDC).
    PipelineSql,
}

impl Syntax {
    pub fn of(path: &Path) -> Syntax {
        match path.extension().and_then(|e| e.to_str()) {
            Some(ext) if ext.eq_ignore_ascii_case("sql") => Syntax::Sql,
            Some(ext) if ext.eq_ignore_ascii_case("py") => Syntax::Python,
            _ => Syntax::Yaml,
        }
    }

    /// The syntax of a project file: by its kind for pipeline sources, by
    /// its extension otherwise.
    pub fn of_file(file: &dqlint_project::SourceFile) -> Syntax {
        match file.kind {
            dqlint_project::FileKind::PipelinePython => Syntax::Python,
            dqlint_project::FileKind::PipelineSql => Syntax::PipelineSql,
            _ => Syntax::of(&file.path),
        }
    }

    /// The parse errors of `text`: messages with their byte ranges.
    pub fn errors(self, text: &str) -> Vec<(Range<usize>, String)> {
        match self {
            Syntax::Yaml => dqlint_yaml::parse(text)
                .errors
                .into_iter()
                .map(|e| (e.span, e.message))
                .collect(),
            Syntax::Sql => dqlint_sql::ddl::parse_sql_file(text)
                .errors
                .into_iter()
                .map(|e| (e.range, e.message))
                .collect(),
            Syntax::Python => dqlint_pipeline::PythonModule::parse(text)
                .syntax_errors()
                .into_iter()
                .map(|e| (e.span, e.message))
                .collect(),
            Syntax::PipelineSql => dqlint_pipeline::sql::read(text).syntax_errors,
        }
    }
}

/// The new text of a file, or why its fixes were not applied.
///
/// Checked on the text as it would be written, before anything is: no
/// more parse errors than before, and for YAML no more of what PyYAML's
/// safe loader (LHP's and DQX's reader) refuses although the YAML parses
/// (a tag on the wrong kind of node, an unknown tag).
pub fn fixed_text(syntax: Syntax, before: &str, edits: &[TextEdit]) -> Result<String, String> {
    let after = apply_edits(before, edits)?;
    let errors_before = syntax.errors(before).len();
    let errors_after = syntax.errors(&after);
    if errors_after.len() > errors_before {
        let what = match syntax {
            Syntax::Yaml => "YAML",
            Syntax::Sql | Syntax::PipelineSql => "SQL",
            Syntax::Python => "Python",
        };
        let (_, first) = &errors_after[0];
        return Err(format!(
            "the fixed file would not be valid {what} ({first})"
        ));
    }
    if syntax == Syntax::Yaml {
        let refused_before = dqlint_yaml::pyyaml_rejections(before).len();
        let refused_after = dqlint_yaml::pyyaml_rejections(&after);
        if refused_after.len() > refused_before {
            return Err(format!(
                "PyYAML, LHP's reader, could not load the fixed file ({})",
                refused_after[0].message
            ));
        }
    }
    Ok(after)
}

/// A file whose fixes could not be applied, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rejected {
    pub rel: String,
    pub reason: String,
}

/// The outcome of one round: the new text of each changed file.
#[derive(Debug, Default)]
pub struct RoundResult {
    pub changed: Vec<ChangedFile>,
    /// The fixes applied (each whole: none of its edits was refused).
    pub fixes: Vec<ChosenFix>,
    /// How many fixes were applied, per rule code.
    pub applied: BTreeMap<&'static str, usize>,
    pub rejected: Vec<(FileId, Rejected)>,
}

#[derive(Debug, Clone)]
pub struct ChangedFile {
    pub path: PathBuf,
    pub rel: String,
    pub before: String,
    pub after: String,
}

/// Applies `plan` to the project's texts in memory. A file whose fixes
/// fail (bad range, new parse errors) drops every fix touching it and the
/// rest is recomputed, so multi-file fixes stay whole.
pub fn apply_plan(project: &Project, mut plan: FixPlan) -> RoundResult {
    let mut result = RoundResult::default();
    'retry: loop {
        let mut changed = Vec::new();
        for (file, edits) in plan.by_file() {
            let source = project.file(file);
            match fixed_text(Syntax::of_file(source), &source.text, &edits) {
                Ok(after) => changed.push(ChangedFile {
                    path: source.path.clone(),
                    rel: source.rel.clone(),
                    before: source.text.to_string(),
                    after,
                }),
                Err(reason) => {
                    plan.drop_file(file);
                    result.rejected.push((
                        file,
                        Rejected {
                            rel: source.rel.clone(),
                            reason,
                        },
                    ));
                    continue 'retry;
                }
            }
        }
        result.changed = changed
            .into_iter()
            .filter(|c| c.before != c.after)
            .collect();
        for fix in &plan.fixes {
            *result.applied.entry(fix.code).or_default() += 1;
        }
        result.fixes = plan.fixes;
        return result;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn edit(span: Range<usize>, new_text: &str) -> TextEdit {
        TextEdit {
            span,
            new_text: new_text.into(),
        }
    }

    #[test]
    fn edits_splice_bytes_and_keep_the_rest() {
        let text = "a: 1  # keep me\nb: warn\n";
        let at = text.find("warn").unwrap();
        let out = apply_edits(text, &[edit(at..at + 4, "drop"), edit(0..0, "# top\n")]).unwrap();
        assert_eq!(out, "# top\na: 1  # keep me\nb: drop\n");
    }

    #[test]
    fn inserted_line_breaks_follow_the_file() {
        let crlf = "a: 1\r\nb: 2\r\n";
        assert_eq!(
            apply_edits(crlf, &[edit(6..6, "x: 0\n")]).unwrap(),
            "a: 1\r\nx: 0\r\nb: 2\r\n"
        );
        assert_eq!(
            apply_edits(crlf, &[edit(6..6, "x: 0\r\n")]).unwrap(),
            "a: 1\r\nx: 0\r\nb: 2\r\n"
        );
        let lf = "a: 1\nb: 2\n";
        assert_eq!(
            apply_edits(lf, &[edit(5..5, "x: 0\n")]).unwrap(),
            "a: 1\nx: 0\nb: 2\n"
        );
    }

    #[test]
    fn bad_ranges_are_errors_not_panics() {
        assert!(apply_edits("abc", &[edit(2..9, "x")]).is_err());
        #[allow(clippy::reversed_empty_ranges)] // the point: a reversed range from a buggy rule
        let reversed = edit(2..1, "x");
        assert!(apply_edits("abc", &[reversed]).is_err());
        assert!(
            apply_edits("é", &[edit(1..2, "x")]).is_err(),
            "inside a character"
        );
        assert!(
            apply_edits("abcdef", &[edit(1..4, "x"), edit(2..3, "y")]).is_err(),
            "overlap"
        );
    }

    #[test]
    fn conflicts() {
        let a = edit(5..10, "");
        assert!(a.conflicts_with(&edit(9..12, "")));
        assert!(a.conflicts_with(&edit(7..7, "")), "insertion inside");
        assert!(!a.conflicts_with(&edit(10..12, "")), "touching ranges");
        assert!(!a.conflicts_with(&edit(5..5, "")), "insertion at the start");
        assert!(!a.conflicts_with(&edit(10..10, "")), "insertion at the end");
        assert!(
            edit(3..3, "x").conflicts_with(&edit(3..3, "y")),
            "two insertions at one point"
        );
    }

    #[test]
    fn a_fix_that_breaks_yaml_is_refused() {
        let text = "order_id IS NOT NULL:\n  action: drop\n  name: valid_order_id\n";
        let at = text.find("drop").unwrap();
        let good = fixed_text(Syntax::Yaml, text, &[edit(at..at + 4, "warn")]).unwrap();
        assert!(good.contains("action: warn"));
        // A synthetic bad fix: an unclosed flow mapping.
        let err = fixed_text(Syntax::Yaml, text, &[edit(at..at + 4, "{drop")]).unwrap_err();
        assert!(err.contains("valid YAML"), "{err}");
    }

    /// Issue 16, case 6: `!!str drop` rewritten to `!!str {action: drop}`
    /// parses as YAML (tags do not change the tree) but PyYAML rejects it.
    #[test]
    fn a_fix_pyyaml_cannot_load_is_refused() {
        let text = "price > 0: !!str drop\n";
        let at = text.find("drop").unwrap();
        let err =
            fixed_text(Syntax::Yaml, text, &[edit(at..at + 4, "{action: drop}")]).unwrap_err();
        assert!(err.contains("PyYAML"), "{err}");
        let tag = text.find("!!str").unwrap();
        let ok = fixed_text(Syntax::Yaml, text, &[edit(tag..at + 4, "{action: drop}")]).unwrap();
        assert_eq!(ok, "price > 0: {action: drop}\n");
        // A file PyYAML already refuses may still get a fix elsewhere.
        let custom = "a: !custom x\nb: warn\n";
        let at = custom.find("warn").unwrap();
        assert!(fixed_text(Syntax::Yaml, custom, &[edit(at..at + 4, "drop")]).is_ok());
    }

    #[test]
    fn a_fix_that_breaks_sql_is_refused() {
        let text = "CREATE TABLE main.ops.dlq (id STRING) TBLPROPERTIES ('a' = 'true');\n";
        let at = text.find("TBLPROPERTIES").unwrap();
        let err = fixed_text(Syntax::Sql, text, &[edit(at..at, "TBLPROPERTIES (")]).unwrap_err();
        assert!(err.contains("valid SQL"), "{err}");
        let ok = fixed_text(Syntax::Sql, text, &[edit(at..at, "CLUSTER BY (id)\n")]).unwrap();
        assert!(ok.contains("CLUSTER BY (id)\nTBLPROPERTIES"));
    }

    #[test]
    fn a_file_already_broken_may_still_be_fixed_if_it_gets_no_worse() {
        let text = "a: [1\nb: drop\n";
        let at = text.find("drop").unwrap();
        assert!(fixed_text(Syntax::Yaml, text, &[edit(at..at + 4, "warn")]).is_ok());
    }

    #[test]
    fn syntax_by_extension() {
        assert_eq!(Syntax::of(Path::new("sql/dlq.SQL")), Syntax::Sql);
        assert_eq!(Syntax::of(Path::new("expectations/a.json")), Syntax::Yaml);
    }
}
