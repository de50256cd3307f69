//! Suppression comments: `# dqlint: ignore[DQ207] reason` (YAML) or
//! `-- dqlint: ignore[DQ402] reason` (SQL).
//!
//! * At the end of a line, a directive covers the findings that start on
//!   that line; on a line of its own, the findings that start on the next
//!   line that is not itself only a comment (so a directive may sit above
//!   another comment).
//! * `dqlint: ignore-file[...]` in the file's leading comments (before any
//!   content) covers the whole file.
//! * Inside the brackets: codes, code prefixes or names, comma-separated,
//!   as `--select` takes them. A bare `dqlint: ignore` (no brackets) covers
//!   every rule on its line; `ignore-file` without brackets, every rule in
//!   the file.
//! * Only an explicit `DQ009` / `unused-suppression` entry covers DQ009: a
//!   bare or prefix directive that suppresses nothing is reported, never
//!   hidden by itself.
//!
//! JSON files have no comments; the configuration is their only switch.

use std::collections::{HashMap, HashSet};
use std::ops::Range;

use dqlint_project::{FileId, FileKind, Project, SourceFile};
use dqlint_yaml::LineIndex;

use crate::config::{is_known_selector, selector_matches, Config, Policy};
use crate::diagnostic::{Diagnostic, Edit};
use crate::registry::{rule, RuleMeta};
use crate::rules::suppression::dq009_unused_suppression::{self, Usage};

/// What a directive covers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scope {
    /// Findings starting on this 0-based line.
    Line(usize),
    File,
}

/// One rule entry between the brackets.
#[derive(Clone, Debug)]
pub struct Entry {
    pub text: String,
    pub span: Range<usize>,
}

impl Entry {
    pub fn is_known(&self) -> bool {
        is_known_selector(&self.text)
    }

    /// DQ009 is covered only when named exactly: a directive can never
    /// hide its own "unused" report through a prefix.
    pub fn covers(&self, rule: &RuleMeta) -> bool {
        if rule.code == UNUSED_SUPPRESSION {
            self.names_unused_suppression()
        } else {
            selector_matches(&self.text, rule)
        }
    }

    pub fn names_unused_suppression(&self) -> bool {
        self.text.eq_ignore_ascii_case(UNUSED_SUPPRESSION) || self.text == "unused-suppression"
    }
}

pub const UNUSED_SUPPRESSION: &str = "DQ009";

/// A `dqlint: ignore...` directive found in a comment.
#[derive(Clone, Debug)]
pub struct Directive {
    pub file: FileId,
    pub scope: Scope,
    /// From `dqlint:` to the closing `]` (or the end of `ignore`).
    pub span: Range<usize>,
    /// The whole comment, marker (`#`, `--`) included.
    pub comment: Range<usize>,
    /// Empty: a bare directive, covering every rule.
    pub entries: Vec<Entry>,
    /// The text between the brackets.
    pub list: Option<Range<usize>>,
    /// Why the directive cannot work (malformed, misplaced); it then
    /// suppresses nothing.
    pub problem: Option<String>,
}

impl Directive {
    pub fn is_bare(&self) -> bool {
        self.list.is_none()
    }
}

/// The comment ranges of a file that may hold directives: YAML `#`
/// comments, SQL `--` comments; none in JSON.
fn comments(file: &SourceFile) -> Vec<Range<usize>> {
    if file.kind.is_sql() {
        return dqlint_sql::line_comments(&file.text);
    }
    if matches!(file.kind, FileKind::PipelinePython | FileKind::PythonModule) {
        return dqlint_pipeline::PythonModule::parse(file.text.to_string()).comments();
    }
    if file
        .path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("json"))
    {
        return Vec::new();
    }
    file.yaml
        .as_ref()
        .map(|y| y.comments.clone())
        .unwrap_or_default()
}

/// Every directive of a file, in source order.
pub fn directives(file: &SourceFile) -> Vec<Directive> {
    if file.read_error.is_some() || !file.text.contains("dqlint:") {
        return Vec::new();
    }
    directives_in(
        file.id,
        &file.text,
        &file.lines,
        comments(file),
        &header_comments(file.kind, &file.text),
    )
}

/// Block comments that count as leading comments: a SQL file's
/// `/* ... */` licence header.
fn header_comments(kind: FileKind, text: &str) -> Vec<Range<usize>> {
    if kind.is_sql() {
        dqlint_sql::block_comments(text)
    } else {
        Vec::new()
    }
}

fn directives_in(
    id: FileId,
    text: &str,
    lines: &LineIndex,
    comments: Vec<Range<usize>>,
    block_comments: &[Range<usize>],
) -> Vec<Directive> {
    let own_line = |c: &Range<usize>| {
        let line = lines.line_of(c.start);
        text[lines.line_start(line)..c.start].trim().is_empty()
    };
    let mut comment_only_lines: HashSet<usize> = comments
        .iter()
        .filter(|c| own_line(c))
        .map(|c| lines.line_of(c.start))
        .collect();
    for block in block_comments.iter().filter(|c| own_line(c)) {
        let last = lines.line_of(block.end);
        if text[block.end..lines.line_range(text, last).end]
            .trim()
            .is_empty()
        {
            comment_only_lines.extend(lines.line_of(block.start)..=last);
        }
    }
    // Lines before the first line holding anything but blanks, comments
    // and a YAML document start (`---`).
    let leading = (0..lines.line_count())
        .find(|&l| {
            let content = text[lines.line_range(text, l)].trim();
            !comment_only_lines.contains(&l) && !content.is_empty() && content != "---"
        })
        .unwrap_or(lines.line_count());

    let mut out = Vec::new();
    for comment in comments {
        let Some(mut d) = parse(id, text, comment.clone()) else {
            continue;
        };
        let line = lines.line_of(comment.start);
        let alone = own_line(&comment);
        match d.scope {
            Scope::File => {
                if d.problem.is_none() && !(alone && line < leading) {
                    d.problem = Some("`ignore-file` works only in the file's leading comments (before any content): move it to the top of the file".into());
                }
            }
            Scope::Line(_) => {
                let target = if alone {
                    (line + 1..lines.line_count())
                        .find(|l| !comment_only_lines.contains(l))
                        .unwrap_or(line + 1)
                } else {
                    line
                };
                d.scope = Scope::Line(target);
            }
        }
        out.push(d);
    }
    out
}

/// Reads the directive in one comment, if the comment holds one.
fn parse(file: FileId, text: &str, comment: Range<usize>) -> Option<Directive> {
    let body = &text[comment.clone()];
    let at = body.find("dqlint:")?;
    let start = comment.start + at;
    let mut i = start + "dqlint:".len();
    let bytes = text.as_bytes();
    while i < comment.end && (bytes[i] == b' ' || bytes[i] == b'\t') {
        i += 1;
    }
    let word_start = i;
    while i < comment.end
        && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'-' || bytes[i] == b'_')
    {
        i += 1;
    }
    let word = &text[word_start..i];
    let scope = match word {
        "ignore" => Scope::Line(0),
        "ignore-file" => Scope::File,
        w if w.to_ascii_lowercase().starts_with("ignore") => {
            let mut d = Directive {
                file,
                scope: Scope::Line(0),
                span: start..i,
                comment,
                entries: Vec::new(),
                list: Some(i..i),
                problem: None,
            };
            d.problem = Some(format!("`{w}` is not a dqlint directive (expected `ignore[...]` or `ignore-file[...]`); it suppresses nothing"));
            return Some(d);
        }
        // Prose that mentions dqlint, not a directive.
        _ => return None,
    };
    let mut directive = Directive {
        file,
        scope,
        span: start..i,
        comment: comment.clone(),
        entries: Vec::new(),
        list: None,
        problem: None,
    };
    if bytes.get(i) == Some(&b'[') && i < comment.end {
        let open = i + 1;
        let Some(close) = text[open..comment.end].find(']').map(|p| open + p) else {
            directive.span = start..comment.end;
            directive.list = Some(open..comment.end);
            directive.problem =
                Some("this suppression has no closing `]`; it suppresses nothing".into());
            return Some(directive);
        };
        directive.span = start..close + 1;
        directive.list = Some(open..close);
        let mut offset = open;
        for part in text[open..close].split(',') {
            let lead = part.len() - part.trim_start().len();
            let entry = part.trim();
            if !entry.is_empty() {
                let s = offset + lead;
                directive.entries.push(Entry {
                    text: entry.to_string(),
                    span: s..s + entry.len(),
                });
            }
            offset += part.len() + 1;
        }
        if directive.entries.is_empty() {
            directive.problem = Some("`[]` lists no rule: write the codes (`ignore[DQ207]`) or drop the brackets to cover every rule".into());
        }
    } else {
        // `dqlint: ignore DQ207`: the code was meant as a code, not as the reason.
        let next = text[i..comment.end]
            .split_whitespace()
            .next()
            .unwrap_or_default();
        let next = next.trim_end_matches([',', '.', ';', ':']);
        if next.to_ascii_uppercase().starts_with("DQ") && is_known_selector(next) {
            directive.problem = Some(format!("write the rule codes in brackets: `{word}[{next}]`; as written it is a reason, and the directive would cover every rule"));
        }
    }
    Some(directive)
}

/// The edit that removes a whole directive: the comment, or its line when
/// the comment is alone on it, or only the directive when the comment says
/// something else before or after it (`# dqlint: ignore[DQ207] legacy
/// feed, see OPS-12` keeps `# legacy feed, see OPS-12`: the explanation is
/// the user's, not the directive's).
pub fn removal(file: &SourceFile, d: &Directive) -> Range<usize> {
    let text: &str = &file.text;
    let marker_end = {
        let body = &text[d.comment.clone()];
        let marker = if body.starts_with("--") { 2 } else { 1 };
        d.comment.start + marker
    };
    let after = &text[d.span.end..d.comment.end];
    // A separator between the directive and the explanation goes with the
    // directive (`ignore[DQ207]: reason`, `ignore[DQ207] -- reason`).
    let explanation = after.trim_start_matches(|c: char| {
        c.is_whitespace() || matches!(c, ':' | '-' | ',' | ';' | '\u{2013}' | '\u{2014}')
    });
    if !explanation.trim().is_empty() {
        let explanation_start = d.comment.end - explanation.len();
        return d.span.start..explanation_start;
    }
    let before_in_comment = text[marker_end..d.span.start].trim();
    let mut end = d.comment.end;
    while end > d.span.end && text[..end].ends_with(['\r', ' ', '\t']) {
        end -= 1;
    }
    if !before_in_comment.is_empty() {
        // `# note  dqlint: ignore[...]`: keep the note.
        let start =
            d.span.start - (text[..d.span.start].len() - text[..d.span.start].trim_end().len());
        return start.max(marker_end)..end;
    }
    let line = file.lines.line_of(d.comment.start);
    let line_start = file.lines.line_start(line);
    if text[line_start..d.comment.start].trim().is_empty() {
        let next = file.lines.line_start(line + 1);
        let stop = if next > d.comment.end {
            next
        } else {
            text.len()
        };
        return line_start..stop;
    }
    let start = text[..d.comment.start].trim_end_matches([' ', '\t']).len();
    start..end
}

/// The edit that makes a directive cover `rule` for the finding starting
/// at `offset`: the code added to a directive that already covers that
/// line, else `# dqlint: ignore[CODE]` (`--` in SQL) at the end of the
/// line, else on its own line above with the same indentation. Each
/// candidate is checked by reading the edited text back (inside a YAML
/// block scalar a `#` is text, not a comment): `None` when no placement
/// works, and for JSON.
pub fn suppress_edit(file: &SourceFile, rule: &RuleMeta, offset: usize) -> Option<Edit> {
    let marker = comment_marker(file)?;
    let text: &str = &file.text;
    let line = file.lines.line_of(offset);
    let range = file.lines.line_range(text, line);
    let code = rule.code;
    let mut candidates = extend_existing(file, Scope::Line(line), code);
    let end = text[..range.end]
        .trim_end_matches([' ', '\t'])
        .len()
        .max(range.start);
    candidates.push(Edit {
        file: file.id,
        span: end..range.end,
        new_text: format!("  {marker} dqlint: ignore[{code}]"),
    });
    let indent: String = text[range.clone()]
        .chars()
        .take_while(|c| *c == ' ' || *c == '\t')
        .collect();
    candidates.push(Edit {
        file: file.id,
        span: range.start..range.start,
        new_text: format!("{indent}{marker} dqlint: ignore[{code}]\n"),
    });
    // The line's number after the edit: an inserted line pushes it down.
    let target = |e: &Edit| {
        if e.new_text.ends_with('\n') {
            line + 1
        } else {
            line
        }
    };
    candidates
        .into_iter()
        .find(|e| edit_works(file, e, Scope::Line(target(e)), rule))
}

/// The edit that suppresses `rule` in the whole file: the code added to an
/// `ignore-file` directive of the leading comments, else a new one on the
/// first line. `None` for JSON, or where it would not work.
pub fn suppress_file_edit(file: &SourceFile, rule: &RuleMeta) -> Option<Edit> {
    let marker = comment_marker(file)?;
    let mut candidates = extend_existing(file, Scope::File, rule.code);
    candidates.push(Edit {
        file: file.id,
        span: 0..0,
        new_text: format!("{marker} dqlint: ignore-file[{}]\n", rule.code),
    });
    candidates
        .into_iter()
        .find(|e| edit_works(file, e, Scope::File, rule))
}

/// `#` or `--`; `None` where a directive cannot be written (JSON, a file
/// that could not be read).
fn comment_marker(file: &SourceFile) -> Option<&'static str> {
    let json = file
        .path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("json"));
    match file.kind {
        _ if file.read_error.is_some() || json => None,
        FileKind::Sql | FileKind::PipelineSql => Some("--"),
        FileKind::PipelinePython | FileKind::PythonModule => Some("#"),
        _ => file.yaml.as_ref().map(|_| "#"),
    }
}

/// Adding `code` to the list of a working directive with this scope.
fn extend_existing(file: &SourceFile, scope: Scope, code: &str) -> Vec<Edit> {
    directives(file)
        .into_iter()
        .filter(|d| d.problem.is_none() && d.scope == scope)
        .filter_map(|d| d.list)
        .map(|list| {
            let sep = if file.text[list.clone()].trim().is_empty() {
                ""
            } else {
                ", "
            };
            Edit {
                file: file.id,
                span: list.end..list.end,
                new_text: format!("{sep}{code}"),
            }
        })
        .collect()
}

/// Whether the edited text holds a working directive with `scope` that
/// covers `rule`, without new YAML syntax errors.
fn edit_works(file: &SourceFile, edit: &Edit, scope: Scope, rule: &RuleMeta) -> bool {
    let mut edited = file.text.to_string();
    edited.replace_range(edit.span.clone(), &edit.new_text);
    let comments = if file.kind.is_sql() {
        dqlint_sql::line_comments(&edited)
    } else if matches!(file.kind, FileKind::PipelinePython | FileKind::PythonModule) {
        let before = dqlint_pipeline::PythonModule::parse(file.text.to_string());
        let parsed = dqlint_pipeline::PythonModule::parse(edited.clone());
        if parsed.syntax_errors().len() > before.syntax_errors().len() {
            return false;
        }
        parsed.comments()
    } else {
        let parsed = dqlint_yaml::parse(&edited);
        let before = file.yaml.as_ref().map_or(0, |y| y.errors.len());
        if parsed.errors.len() > before {
            return false;
        }
        parsed.comments
    };
    directives_in(
        file.id,
        &edited,
        &LineIndex::new(&edited),
        comments,
        &header_comments(file.kind, &edited),
    )
    .iter()
    .any(|d| d.problem.is_none() && d.scope == scope && d.entries.iter().any(|e| e.covers(rule)))
}

/// Drops the findings that a directive covers, then reports the
/// directives that covered nothing (DQ009). Runs once, after the findings
/// of every environment are merged: DQ009 findings are only ever hidden by
/// an explicit `DQ009` entry, so the pass cannot feed itself.
pub fn apply(project: &Project, policy: &Policy, findings: Vec<Diagnostic>) -> Vec<Diagnostic> {
    let by_file: HashMap<FileId, Vec<Directive>> = project
        .files
        .iter()
        .map(|f| (f.id, directives(f)))
        .filter(|(_, d)| !d.is_empty())
        .collect();
    if by_file.is_empty() {
        return findings;
    }
    let mut usage: HashMap<FileId, Vec<Usage>> = by_file
        .iter()
        .map(|(id, dirs)| {
            (
                *id,
                dirs.iter()
                    .map(|d| Usage {
                        entries: vec![false; d.entries.len()],
                        bare: false,
                    })
                    .collect(),
            )
        })
        .collect();
    let mut kept = Vec::with_capacity(findings.len());
    for finding in findings {
        let Some(dirs) = by_file.get(&finding.primary.file) else {
            kept.push(finding);
            continue;
        };
        let file = project.file(finding.primary.file);
        let line = file.lines.line_of(finding.primary.span.start);
        let used = usage
            .get_mut(&finding.primary.file)
            .expect("usage per file with directives");
        let mut suppressed = false;
        for (d, u) in dirs.iter().zip(used.iter_mut()) {
            let covers_line = match d.scope {
                Scope::File => true,
                Scope::Line(l) => l == line,
            };
            if d.problem.is_some() || !covers_line {
                continue;
            }
            if d.is_bare() {
                u.bare = true;
                suppressed = true;
            }
            for (e, flag) in d.entries.iter().zip(u.entries.iter_mut()) {
                if e.covers(finding.rule) {
                    *flag = true;
                    suppressed = true;
                }
            }
        }
        if !suppressed {
            kept.push(finding);
        }
    }

    let me = rule(UNUSED_SUPPRESSION);
    if envs_narrowed(project, policy.config) {
        return kept;
    }
    let broken = project.broken_kinds();
    for (id, dirs) in &by_file {
        let file = project.file(*id);
        if !policy.enabled(me, &file.rel) {
            continue;
        }
        let paused = fed_by_broken(file.kind, &broken);
        let ran = |r: &RuleMeta| policy.enabled(r, &file.rel);
        for (d, u) in dirs.iter().zip(&usage[id]) {
            // With a file it depends on broken, only what the directive
            // itself shows is reported: malformed, or naming no rule.
            if paused && !self_contained_mistake(d) {
                continue;
            }
            let Some(report) = dq009_unused_suppression::unused(file, d, u, ran) else {
                continue;
            };
            let line = file.lines.line_of(report.primary.span.start);
            let allowed = d.entries.iter().any(Entry::names_unused_suppression)
                || dirs.iter().any(|other| {
                    other.problem.is_none()
                        && (other.scope == Scope::File || other.scope == Scope::Line(line))
                        && other.entries.iter().any(Entry::names_unused_suppression)
                });
            if !allowed {
                kept.push(report);
            }
        }
    }
    kept
}

/// A directive whose mistake needs no other file to see: it cannot be
/// read, or none of its entries names a rule.
fn self_contained_mistake(d: &Directive) -> bool {
    d.problem.is_some() || (!d.entries.is_empty() && d.entries.iter().all(|e| !e.is_known()))
}

/// The files whose unused-suppression check (beyond malformed directives)
/// waits because a file they depend on does not parse: for telling the
/// user the check is paused.
pub fn paused_unused_checks(project: &Project) -> Vec<FileId> {
    let broken = project.broken_kinds();
    if broken.is_empty() {
        return Vec::new();
    }
    project
        .files
        .iter()
        .filter(|f| fed_by_broken(f.kind, &broken))
        .filter(|f| directives(f).iter().any(|d| !self_contained_mistake(d)))
        .map(|f| f.id)
        .collect()
}

/// Whether a file's findings may be missing because a file it depends on is
/// broken: the unreadable lines may hold what made the finding (a `mode:
/// quarantine` lost to a missing `:` takes the DQ207 of its expectations
/// file and the DQ409 of its DLQ's SQL with it). Unused-suppression reports
/// in such files wait until the syntax is repaired; within the broken file
/// itself, the damaged blocks already hold their reports back.
fn fed_by_broken(kind: FileKind, broken: &HashSet<FileKind>) -> bool {
    use FileKind::*;
    let model = |k: &FileKind| {
        matches!(
            k,
            ProjectConfig | Flowgroup | Template | Preset | Blueprint | Substitutions
        )
    };
    match kind {
        // Their findings come from the actions that use them.
        Expectations | Sql => broken.iter().any(model),
        // Their actions come through templates, presets, blueprints and
        // tokens.
        Flowgroup => broken.iter().any(|k| model(k) && *k != Flowgroup),
        Template | Preset | Blueprint => broken.iter().any(model),
        ProjectConfig | Substitutions | PipelineConfig | DqxChecks | DqxRunConfig | LintConfig
        | PipelinePython | PipelineSql | PythonModule | PolicyRegistry => false,
    }
}

/// Whether this run checks fewer environments than the project declares
/// (`dqlint.toml` `envs`, else every substitutions file): a directive may
/// then be for a finding of an environment not checked.
fn envs_narrowed(project: &Project, config: &Config) -> bool {
    let checked: Vec<&str> = project.envs.iter().map(|e| e.name.as_str()).collect();
    match &config.envs {
        Some(declared) => declared.iter().any(|d| !checked.contains(&d.as_str())),
        None => project
            .files
            .iter()
            .filter(|f| f.kind == FileKind::Substitutions)
            .filter_map(|f| {
                std::path::Path::new(&f.rel)
                    .file_stem()
                    .map(|s| s.to_string_lossy().into_owned())
            })
            .any(|stem| !checked.contains(&stem.as_str())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parsed(comment: &str) -> Option<Directive> {
        parse(FileId(0), comment, 0..comment.len())
    }

    #[test]
    fn reads_codes_prefixes_and_names() {
        let d = parsed("# dqlint: ignore[DQ207, DQ4,unknown-key] the reason").unwrap();
        assert_eq!(d.scope, Scope::Line(0));
        let texts: Vec<&str> = d.entries.iter().map(|e| e.text.as_str()).collect();
        assert_eq!(texts, ["DQ207", "DQ4", "unknown-key"]);
        let c = "# dqlint: ignore[DQ207, DQ4,unknown-key] the reason";
        assert_eq!(&c[d.entries[1].span.clone()], "DQ4");
        assert_eq!(&c[d.span.clone()], "dqlint: ignore[DQ207, DQ4,unknown-key]");
        assert!(d.problem.is_none());
    }

    #[test]
    fn bare_file_and_malformed_directives() {
        let bare = parsed("# dqlint: ignore because reasons").unwrap();
        assert!(bare.is_bare() && bare.problem.is_none());
        assert_eq!(
            parsed("-- dqlint: ignore-file[DQ402]").unwrap().scope,
            Scope::File
        );
        assert!(parsed("# dqlint: ignore[DQ207")
            .unwrap()
            .problem
            .unwrap()
            .contains("closing"));
        assert!(parsed("# dqlint: ignore[]").unwrap().problem.is_some());
        assert!(parsed("# dqlint: ignore DQ207")
            .unwrap()
            .problem
            .unwrap()
            .contains("brackets"));
        assert!(parsed("# dqlint: ignorefile[DQ207]")
            .unwrap()
            .problem
            .is_some());
        assert!(parsed("# checked by dqlint: see the README").is_none());
        assert!(parsed("# no directive").is_none());
    }
}
