//! The report formats of `dqlint lint` (see `spec/cli.md`): `full`,
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
}

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
        let (errors, warnings, infos) = self.counts();
        let document = json!({
            "version": 1,
            "tool": {"name": "dqlint", "version": env!("CARGO_PKG_VERSION")},
            "root": self.project.root.display().to_string(),
            "envs": self.project.envs.iter().map(|e| e.name.clone()).collect::<Vec<_>>(),
            "diagnostics": diagnostics,
            "summary": {"files": self.project.files.len(), "errors": errors, "warnings": warnings, "infos": infos},
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
                file.rel,
                p.line,
                p.column,
                d.severity.as_str(),
                d.rule.code,
                Self::message_with_envs(d)
            )?;
        }
        if !quiet {
            self.summary(out)?;
        }
        Ok(())
    }

    fn summary(&self, out: &mut dyn Write) -> std::io::Result<()> {
        let (errors, warnings, infos) = self.counts();
        if self.diagnostics.is_empty() {
            writeln!(out, "No findings in {} files.", self.project.files.len())
        } else {
            writeln!(
                out,
                "Found {errors} error(s), {warnings} warning(s), {infos} info(s)."
            )
        }
    }

    pub fn full(&self, out: &mut dyn Write, color: bool, quiet: bool) -> std::io::Result<()> {
        let mut files = SimpleFiles::new();
        let mut ids = BTreeMap::new();
        let mut file_id = |files: &mut SimpleFiles<String, String>, at: &Location| {
            *ids.entry(at.file).or_insert_with(|| {
                let f = self.project.file(at.file);
                files.add(f.rel.clone(), f.text.to_string())
            })
        };
        let choice = if color {
            termcolor::ColorChoice::Always
        } else {
            termcolor::ColorChoice::Never
        };
        let mut writer = termcolor::StandardStream::stdout(choice);
        let mut buffer = Vec::new();
        let config = term::Config::default();
        for d in self.diagnostics {
            let primary = file_id(&mut files, &d.primary);
            let mut labels = vec![Label::primary(primary, d.primary.span.clone())];
            for r in &d.related {
                let id = file_id(&mut files, &r.location);
                labels.push(
                    Label::secondary(id, r.location.span.clone()).with_message(r.message.clone()),
                );
            }
            let severity = match d.severity {
                Severity::Error => SnippetSeverity::Error,
                Severity::Warning => SnippetSeverity::Warning,
                Severity::Info => SnippetSeverity::Note,
            };
            let mut notes = Vec::new();
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
            if color {
                term::emit_to_write_style(&mut writer, &config, &files, &snippet)
                    .map_err(std::io::Error::other)?;
            } else {
                term::emit_to_io_write(&mut buffer, &config, &files, &snippet)
                    .map_err(std::io::Error::other)?;
            }
        }
        if !color {
            out.write_all(&buffer)?;
        } else {
            use std::io::Write as _;
            writer.flush()?;
        }
        if !quiet {
            self.summary(out)?;
        }
        Ok(())
    }

    pub fn statistics(&self, out: &mut dyn Write) -> std::io::Result<()> {
        let mut counts: BTreeMap<(&str, &str), usize> = BTreeMap::new();
        for d in self.diagnostics {
            *counts.entry((d.rule.code, d.rule.name)).or_default() += 1;
        }
        for ((code, name), n) in counts {
            writeln!(out, "{n:>6}  {code}  {name}")?;
        }
        self.summary(out)
    }
}
