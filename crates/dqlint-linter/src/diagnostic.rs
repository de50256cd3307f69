//! What a rule reports.

use std::ops::Range;

use dqlint_project::{FileId, Origin, Via};

use crate::registry::RuleMeta;

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Severity {
    Error,
    Warning,
    Info,
}

impl Severity {
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Info => "info",
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Location {
    pub file: FileId,
    pub span: Range<usize>,
}

impl Location {
    pub fn new(file: FileId, span: Range<usize>) -> Location {
        Location { file, span }
    }
}

impl From<&Origin> for Location {
    fn from(origin: &Origin) -> Location {
        Location {
            file: origin.file,
            span: origin.span.clone(),
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Related {
    pub location: Location,
    pub message: String,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Applicability {
    /// Keeps the meaning the user intended; `--fix` applies it.
    Safe,
    /// Changes behaviour; applied only on request.
    Unsafe,
}

impl Applicability {
    pub fn as_str(self) -> &'static str {
        match self {
            Applicability::Safe => "safe",
            Applicability::Unsafe => "unsafe",
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Edit {
    pub file: FileId,
    pub span: Range<usize>,
    pub new_text: String,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fix {
    pub applicability: Applicability,
    pub description: String,
    pub edits: Vec<Edit>,
}

#[derive(Clone, Debug)]
pub struct Diagnostic {
    pub rule: &'static RuleMeta,
    pub severity: Severity,
    pub message: String,
    pub primary: Location,
    pub related: Vec<Related>,
    /// The environments the finding holds in (empty: it does not depend on
    /// token resolution).
    pub envs: Vec<String>,
    pub fix: Option<Fix>,
}

impl Diagnostic {
    pub fn new(rule: &'static RuleMeta, at: &Origin, message: impl Into<String>) -> Diagnostic {
        let mut diagnostic = Diagnostic {
            rule,
            severity: rule.severity,
            message: message.into(),
            primary: at.into(),
            related: Vec::new(),
            envs: Vec::new(),
            fix: None,
        };
        diagnostic.add_provenance(at);
        diagnostic
    }

    pub fn at(
        rule: &'static RuleMeta,
        file: FileId,
        span: Range<usize>,
        message: impl Into<String>,
    ) -> Diagnostic {
        Diagnostic::new(rule, &Origin::new(file, span), message)
    }

    pub fn severity(mut self, severity: Severity) -> Diagnostic {
        self.severity = severity;
        self
    }

    /// A related location; its own template/preset provenance comes along.
    pub fn related(mut self, at: &Origin, message: impl Into<String>) -> Diagnostic {
        self.related.push(Related {
            location: at.into(),
            message: message.into(),
        });
        self.add_provenance(at);
        self
    }

    pub fn env(mut self, env: &str) -> Diagnostic {
        if !env.is_empty() {
            self.envs = vec![env.to_string()];
        }
        self
    }

    pub fn fix(mut self, fix: Fix) -> Diagnostic {
        self.fix = Some(fix);
        self
    }

    /// A value that came through a template or preset also points at where
    /// that template or preset was used, naming the flowgroup.
    fn add_provenance(&mut self, at: &Origin) {
        let Some(via) = &at.via else { return };
        let (site, message) = match via.as_ref() {
            Via::Template {
                name,
                flowgroup,
                use_site,
            } => (
                use_site,
                format!("from template `{name}`, instantiated by flowgroup `{flowgroup}` here"),
            ),
            Via::Preset {
                name,
                flowgroup,
                use_site,
            } => (
                use_site,
                format!("set by preset `{name}`, applied to flowgroup `{flowgroup}` here"),
            ),
            Via::Blueprint { name, use_site } => (
                use_site,
                format!("from blueprint `{name}`, stamped by this instance"),
            ),
        };
        let related = Related {
            location: site.into(),
            message,
        };
        if !self.related.contains(&related) {
            self.related.push(related);
        }
    }
}
