//! `--format github`: GitHub Actions workflow commands, which the runner
//! turns into annotations on the pull request's diff.
//!
//! `::error file=F,line=L,col=C,endLine=L2,endColumn=C2,title=CODE::message`
//! (`warning` -> `::warning`, `info` -> `::notice`). Paths are relative to
//! the working directory (the repository checkout in CI), since that is
//! what GitHub resolves them against.

use std::io::Write;
use std::path::Path;

use dqlint_linter::{Diagnostic, Severity};

use super::Report;

/// Escapes the message of a workflow command (`%`, CR, LF).
pub fn escape_data(text: &str) -> String {
    text.replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

/// Escapes a property value: also `:` and `,`, which end a property.
pub fn escape_property(text: &str) -> String {
    escape_data(text).replace(':', "%3A").replace(',', "%2C")
}

fn command(severity: Severity) -> &'static str {
    match severity {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Info => "notice",
    }
}

impl Report<'_> {
    pub fn github(&self, out: &mut dyn Write, base: &Path, quiet: bool) -> std::io::Result<()> {
        for d in self.diagnostics {
            writeln!(out, "{}", self.annotation(d, base))?;
        }
        if !quiet {
            self.summary(out)?;
        }
        Ok(())
    }

    fn annotation(&self, d: &Diagnostic, base: &Path) -> String {
        let file = self.project.file(d.primary.file);
        let start = file.lines.position(&file.text, d.primary.span.start);
        let end = file.lines.position(&file.text, d.primary.span.end);
        let mut message = Self::message_with_envs(d);
        message.push_str(&format!(" ({})", d.rule.name));
        format!(
            "::{} file={},line={},col={},endLine={},endColumn={},title={}::{}",
            command(d.severity),
            escape_property(&self.display_path(d.primary.file, base)),
            start.line,
            start.column,
            end.line,
            end.column,
            escape_property(d.rule.code),
            escape_data(&message),
        )
    }
}
