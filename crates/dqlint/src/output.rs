//! The report formats of `dqlint lint` (see `docs/cli.md`): `full`,
//! `concise`, `json` and `--statistics` here, `github` and `sarif` in their
//! own modules.

pub mod github;
pub mod sarif;

use std::collections::BTreeMap;
use std::io::Write;
use std::path::Path;

use codespan_reporting::diagnostic::{Diagnostic as Snippet, Label, Severity as SnippetSeverity};
use codespan_reporting::files::SimpleFiles;
use codespan_reporting::term::{self, termcolor};
use dqlint_linter::{Diagnostic, Location, Severity};
use dqlint_project::Project;
use serde_json::{json, Value as Json};

pub struct Report<'a> {
    pub project: &'a Project,
    pub diagnostics: &'a [Diagnostic],
    /// The working directory: `full`, `concise`, `github` and `sarif`
    /// print paths relative to it (clickable where the command ran), as
    /// ruff does; JSON keeps them relative to the project root.
    pub base: &'a Path,
    /// How many of the project's files lie under the PATHs given (the
    /// summary counts those; JSON's `summary.files` counts the project).
    pub scoped_files: usize,
    /// The project's root as shown, when one run lints several projects:
    /// the summary says which project it counts.
    pub label: Option<String>,
}

/// `NO_COLOR` set to a non-empty value turns colour off (no-color.org:
/// an empty value does not).
pub fn no_color_requested_by(value: Option<&std::ffi::OsStr>) -> bool {
    value.is_some_and(|v| !v.is_empty())
}

/// A related place as `full` compares them: file, span, message.
type RelatedKey<'a> = (dqlint_project::FileId, usize, usize, &'a str);

/// "1 file", "2 files".
pub fn plural(n: usize, word: &str) -> String {
    if n == 1 {
        format!("{n} {word}")
    } else {
        format!("{n} {word}s")
    }
}

/// Source lines longer than this are cut around the marked characters in
/// `full` (a minified JSON file is one line of megabytes).
pub const MAX_SNIPPET_LINE: usize = 160;

impl Report<'_> {
    fn rel(&self, at: &Location) -> &str {
        &self.project.file(at.file).rel
    }

    /// The path shown to CI services: relative to `base` (the working
    /// directory, i.e. the repository checkout) when the file is under it,
    /// else absolute; `/` separators.
    fn display_path(&self, file: dqlint_project::FileId, base: &Path) -> String {
        let path = &self.project.file(file).path;
        let shown = path.strip_prefix(base).unwrap_or(path);
        shown.to_string_lossy().replace('\\', "/")
    }

    fn position(&self, at: &Location, offset: usize) -> Json {
        let file = self.project.file(at.file);
        let p = file.lines.position(&file.text, offset);
        json!({"line": p.line, "column": p.column})
    }

    fn range(&self, at: &Location) -> Json {
        json!({"start": self.position(at, at.span.start), "end": self.position(at, at.span.end)})
    }

    fn message_with_envs(d: &Diagnostic) -> String {
        if d.envs.is_empty() {
            d.message.clone()
        } else {
            format!("{} [env: {}]", d.message, d.envs.join(", "))
        }
    }

    fn counts(&self) -> (usize, usize, usize) {
        let count = |s: Severity| self.diagnostics.iter().filter(|d| d.severity == s).count();
        (
            count(Severity::Error),
            count(Severity::Warning),
            count(Severity::Info),
        )
    }

    pub fn json(&self, out: &mut dyn Write) -> std::io::Result<()> {
        let diagnostics: Vec<Json> = self
            .diagnostics
            .iter()
            .map(|d| {
                let mut item = json!({
                    "code": d.rule.code,
                    "name": d.rule.name,
                    "severity": d.severity.as_str(),
                    "message": d.message,
                    "file": self.rel(&d.primary),
                    "range": self.range(&d.primary),
                });
                if !d.envs.is_empty() {
                    item["envs"] = json!(d.envs);
                }
                item["related"] = d
                    .related
                    .iter()
                    .map(|r| json!({"file": self.rel(&r.location), "range": self.range(&r.location), "message": r.message}))
                    .collect();
                if let Some(fix) = &d.fix {
                    item["fix"] = json!({
                        "applicability": fix.applicability.as_str(),
                        "description": fix.description,
                        "edits": fix.edits.iter().map(|e| {
                            let at = Location::new(e.file, e.span.clone());
                            json!({"file": self.rel(&at), "range": self.range(&at), "new_text": e.new_text})
                        }).collect::<Vec<_>>(),
                    });
                }
                item
            })
            .collect();
        let document = json!({
            "version": 1,
            "tool": {"name": "dqlint", "version": env!("CARGO_PKG_VERSION")},
            "root": self.project.root.display().to_string(),
            "envs": self.project.envs.iter().map(|e| e.name.clone()).collect::<Vec<_>>(),
            "diagnostics": diagnostics,
            "summary": self.summary_json(),
        });
        serde_json::to_writer_pretty(&mut *out, &document)?;
        writeln!(out)
    }

    pub fn concise(&self, out: &mut dyn Write, quiet: bool) -> std::io::Result<()> {
        for d in self.diagnostics {
            let file = self.project.file(d.primary.file);
            let p = file.lines.position(&file.text, d.primary.span.start);
            writeln!(
                out,
                "{}:{}:{}: {}[{}] {}",
                self.display_path(d.primary.file, self.base),
                p.line,
                p.column,
                d.severity.as_str(),
                d.rule.code,
                one_line(&Self::message_with_envs(d))
            )?;
        }
        if !quiet {
            self.summary(out)?;
        }
        Ok(())
    }

    /// The LHP version the project says it targets (`required_lhp_version`
    /// in `lhp.yaml`), when it says one.
    fn required_lhp_version(&self) -> Option<String> {
        let root = self.project.project_config()?.first_document()?;
        let spec = root
            .get("required_lhp_version")?
            .as_str()?
            .trim()
            .to_string();
        (!spec.is_empty()).then_some(spec)
    }

    fn summary(&self, out: &mut dyn Write) -> std::io::Result<()> {
        if let Some(spec) = self.required_lhp_version() {
            writeln!(
                out,
                "lhp.yaml requires LHP `{spec}`; dqlint checks as LHP {}.",
                dqlint_linter::rules::structure::dq005_unsupported_lhp_version::MODELLED_LHP
            )?;
        }
        let (errors, warnings, infos) = self.counts();
        let mut line = match &self.label {
            Some(label) => format!("{label}: "),
            None => String::new(),
        };
        if self.diagnostics.is_empty() {
            line.push_str(&format!(
                "No findings in {}.",
                plural(self.scoped_files, "file")
            ));
        } else {
            line.push_str(&format!(
                "Found {errors} error(s), {warnings} warning(s), {infos} info(s)."
            ));
        }
        let (safe, unsafe_) = self.fixable();
        if safe > 0 {
            line.push_str(&format!(" {safe} fixable with --fix"));
            if unsafe_ > 0 {
                line.push_str(&format!(" ({unsafe_} more with --fix --unsafe-fixes)"));
            }
            line.push('.');
        } else if unsafe_ > 0 {
            line.push_str(&format!(" {unsafe_} fixable with --fix --unsafe-fixes."));
        }
        writeln!(out, "{line}")
    }

    /// Findings with a safe fix, and with an unsafe one.
    pub fn fixable(&self) -> (usize, usize) {
        let count = |a: dqlint_linter::Applicability| {
            self.diagnostics
                .iter()
                .filter(|d| d.fix.as_ref().is_some_and(|f| f.applicability == a))
                .count()
        };
        (
            count(dqlint_linter::Applicability::Safe),
            count(dqlint_linter::Applicability::Unsafe),
        )
    }

    pub fn full(&self, out: &mut dyn Write, color: bool, quiet: bool) -> std::io::Result<()> {
        let mut files = SimpleFiles::new();
        let mut ids = BTreeMap::new();
        let config = term::Config::default();
        // A block of related places (the actions sharing a DLQ) is shown
        // once, under the first finding that has it; the others refer to it.
        let mut shown_related: Vec<(Vec<RelatedKey>, &str)> = Vec::new();
        for d in self.diagnostics {
            let mut places: Vec<(&Location, Option<&str>)> = vec![(&d.primary, None)];
            let mut notes = Vec::new();
            let key: Vec<_> = d
                .related
                .iter()
                .map(|r| {
                    (
                        r.location.file,
                        r.location.span.start,
                        r.location.span.end,
                        r.message.as_str(),
                    )
                })
                .collect();
            let seen = (key.len() >= 3)
                .then(|| shown_related.iter().find(|(k, _)| *k == key))
                .flatten();
            match seen {
                Some((_, first)) => notes.push(format!(
                    "related: the same {} places as the {first} finding above",
                    key.len()
                )),
                None => {
                    if key.len() >= 3 {
                        shown_related.push((key, d.rule.code));
                    }
                    places.extend(
                        d.related
                            .iter()
                            .map(|r| (&r.location, Some(r.message.as_str()))),
                    );
                }
            }
            let mut labels = Vec::new();
            for (i, (at, message)) in places.iter().enumerate() {
                let spans: Vec<std::ops::Range<usize>> = places
                    .iter()
                    .filter(|(other, _)| other.file == at.file)
                    .map(|(other, _)| other.span.clone())
                    .collect();
                let f = self.project.file(at.file);
                let name = self.display_path(at.file, self.base);
                let (id, span) = match clip_long_lines(&f.text, &spans) {
                    // One virtual file per finding: the lines are cut
                    // around this finding's places.
                    Some((text, mapped)) => {
                        let index = spans.iter().position(|s| *s == at.span).unwrap_or(0);
                        (files.add(name, text), mapped[index].clone())
                    }
                    None => (
                        *ids.entry(at.file)
                            .or_insert_with(|| files.add(name, f.text.to_string())),
                        at.span.clone(),
                    ),
                };
                labels.push(match (i, message) {
                    (0, _) => Label::primary(id, span),
                    (_, Some(m)) => Label::secondary(id, span).with_message(m.to_string()),
                    (_, None) => Label::secondary(id, span),
                });
            }
            let severity = match d.severity {
                Severity::Error => SnippetSeverity::Error,
                Severity::Warning => SnippetSeverity::Warning,
                Severity::Info => SnippetSeverity::Note,
            };
            if let Some(fix) = &d.fix {
                notes.push(format!(
                    "fix ({}): {}",
                    fix.applicability.as_str(),
                    fix.description
                ));
            }
            notes.push(format!(
                "see `dqlint rule {}` ({})",
                d.rule.code, d.rule.name
            ));
            let snippet = Snippet::new(severity)
                .with_code(d.rule.code)
                .with_message(Self::message_with_envs(d))
                .with_labels(labels)
                .with_notes(notes);
            let mut rendered = if color {
                let mut writer = termcolor::Ansi::new(Vec::new());
                term::emit_to_write_style(&mut writer, &config, &files, &snippet)
                    .map_err(std::io::Error::other)?;
                writer.into_inner()
            } else {
                let mut buffer = Vec::new();
                term::emit_to_io_write(&mut buffer, &config, &files, &snippet)
                    .map_err(std::io::Error::other)?;
                buffer
            };
            if d.severity == Severity::Info {
                // codespan has no `info` severity: its `note` header is
                // renamed to what dqlint.toml and the other formats say.
                if let Some(at) = find(&rendered, b"note[") {
                    rendered.splice(at..at + 4, b"info".iter().copied());
                }
            }
            out.write_all(&rendered)?;
        }
        if !quiet {
            self.summary(out)?;
        }
        Ok(())
    }

    /// Findings per rule (code, name): how many, and how many have a fix.
    fn rule_counts(&self) -> BTreeMap<(&'static str, &'static str), (usize, usize)> {
        let mut counts: BTreeMap<(&str, &str), (usize, usize)> = BTreeMap::new();
        for d in self.diagnostics {
            let entry = counts.entry((d.rule.code, d.rule.name)).or_default();
            entry.0 += 1;
            if d.fix.is_some() {
                entry.1 += 1;
            }
        }
        counts
    }

    /// The per-rule counts as `--statistics --format json` (and the SARIF
    /// run's property bag) give them:
    /// `[{"code", "name", "count", "fixable"}]`, by code.
    pub fn statistics_json(&self) -> Json {
        self.rule_counts()
            .iter()
            .map(|((code, name), (n, fixable))| {
                json!({"code": code, "name": name, "count": n, "fixable": fixable})
            })
            .collect()
    }

    /// `summary` of the JSON document: files read, findings by severity.
    pub fn summary_json(&self) -> Json {
        let (errors, warnings, infos) = self.counts();
        json!({"files": self.project.files.len(), "errors": errors, "warnings": warnings, "infos": infos})
    }

    pub fn statistics(&self, out: &mut dyn Write, json: bool, quiet: bool) -> std::io::Result<()> {
        let counts = self.rule_counts();
        if json {
            let document = json!({
                "version": 1,
                "tool": {"name": "dqlint", "version": env!("CARGO_PKG_VERSION")},
                "root": self.project.root.display().to_string(),
                "statistics": self.statistics_json(),
                "summary": self.summary_json(),
            });
            serde_json::to_writer_pretty(&mut *out, &document)?;
            return writeln!(out);
        }
        for ((code, name), (n, fixable)) in counts {
            let mark = if fixable > 0 { "[*]" } else { "   " };
            writeln!(out, "{n:>6}  {code}  {mark} {name}")?;
        }
        if !quiet {
            self.summary(out)?;
        }
        Ok(())
    }
}

/// A message on one line (`concise` is one finding a line): line breaks
/// inside a quoted value become `\n`.
pub fn one_line(message: &str) -> String {
    message.replace("\r\n", "\\n").replace(['\n', '\r'], "\\n")
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

/// When a line holding one of `spans` is longer than [`MAX_SNIPPET_LINE`]
/// characters, a copy of `text` with each such line cut to a window
/// around its first span (`…` where it was cut), and the spans mapped
/// into the copy. Line numbers are kept: only line contents change.
pub fn clip_long_lines(
    text: &str,
    spans: &[std::ops::Range<usize>],
) -> Option<(String, Vec<std::ops::Range<usize>>)> {
    const LEAD: usize = 40;
    // Each line: (start, end) in `text`, and the kept window (start, end).
    let mut lines: Vec<(usize, usize, usize, usize)> = Vec::new();
    let mut start = 0;
    for piece in text.split_inclusive('\n') {
        let end = start + piece.trim_end_matches(['\n', '\r']).len();
        lines.push((start, end, start, end));
        start += piece.len();
    }
    fn line_of(lines: &[(usize, usize, usize, usize)], offset: usize) -> usize {
        lines.partition_point(|l| l.0 <= offset).saturating_sub(1)
    }
    let mut clipped = false;
    for span in spans {
        let index = line_of(&lines, span.start);
        let Some(line) = lines.get_mut(index) else {
            continue;
        };
        let (from, to) = (line.0, line.1);
        if text[from..to].chars().count() <= MAX_SNIPPET_LINE || (line.2, line.3) != (from, to) {
            continue;
        }
        let mut ws = span.start.saturating_sub(LEAD).max(from);
        while !text.is_char_boundary(ws) {
            ws -= 1;
        }
        let we = text[ws..to]
            .char_indices()
            .nth(MAX_SNIPPET_LINE)
            .map_or(to, |(i, _)| ws + i);
        *line = (from, to, ws, we);
        clipped = true;
    }
    if !clipped {
        return None;
    }
    let mut out = String::with_capacity(text.len().min(1 << 20));
    // Per line: where its kept window starts in `out`.
    let mut starts: Vec<usize> = Vec::with_capacity(lines.len());
    for (i, &(from, to, ws, we)) in lines.iter().enumerate() {
        let next = lines.get(i + 1).map_or(text.len(), |l| l.0);
        if ws > from {
            out.push('…');
        }
        starts.push(out.len());
        out.push_str(&text[ws..we]);
        if we < to {
            out.push('…');
        }
        out.push_str(&text[to..next]);
    }
    let map = |offset: usize| {
        let i = line_of(&lines, offset);
        let (_, _, ws, we) = lines[i];
        starts[i] + offset.clamp(ws, we) - ws
    };
    let mapped = spans
        .iter()
        .map(|s| {
            let a = map(s.start);
            a..map(s.end).max(a)
        })
        .collect();
    Some((out, mapped))
}
