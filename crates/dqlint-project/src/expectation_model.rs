//! The shared expectation model: what every dialect says about data
//! quality, in one shape that rules, hover and policies read. A dataset,
//! its expectations (SQL or a check function), what each does to a failing
//! row, and where it was written.
//!
//! Each dialect's model yields it: LHP here ([`crate::Project::expectation_model`]),
//! DQX checks and pipeline sources in their crates (implementing
//! [`ExpectationSource`]).

use std::ops::Range;

use crate::dialect::Dialect;
use crate::expectations::RuleAction;
use crate::value::FileId;
use crate::Env;

/// One dataset and the expectations it is checked against.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DatasetExpectations {
    /// The dataset's name as its dialect writes it (an LHP action's
    /// `target` view, a pipeline table, a DQX run config's input).
    pub dataset: String,
    pub dialect: Dialect,
    /// Where the dataset is declared.
    pub origin: SourceSpan,
    pub expectations: Vec<Expectation>,
}

/// One expectation of a dataset.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Expectation {
    /// Its name, when it has one (written or defaulted by the tool).
    pub name: Option<String>,
    pub check: Check,
    pub enforcement: Enforcement,
    /// Where the expectation is written.
    pub origin: SourceSpan,
}

/// What an expectation checks.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Check {
    /// A SQL boolean expression (LHP, pipeline `@expect`, DQX `sql_expression`).
    Sql(String),
    /// A DQX check function and its arguments as written.
    Function {
        name: String,
        arguments: Vec<(String, String)>,
    },
}

/// What happens to a row that fails.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Enforcement {
    /// Pipeline semantics: keep and count, drop the row, fail the update.
    Row(RuleAction),
    /// LHP's quarantine mode: the row goes to the DLQ (every rule is `drop`).
    Quarantine,
    /// DQX criticality `error`: the row goes to the invalid output.
    DqxError,
    /// DQX criticality `warn`: the row is kept and flagged.
    DqxWarn,
}

/// A file and a byte range in it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SourceSpan {
    pub file: FileId,
    pub span: Range<usize>,
}

/// A dialect's model, as the linter plugs it in: whatever it read, it
/// yields the shared expectation model.
pub trait ExpectationSource {
    fn datasets(&self, envs: &[Env]) -> Vec<DatasetExpectations>;
}

impl ExpectationSource for crate::Project {
    fn datasets(&self, envs: &[Env]) -> Vec<DatasetExpectations> {
        self.expectation_model(envs)
    }
}

impl crate::Project {
    /// Every data_quality action as a dataset (its `target` view, else its
    /// name) with the rules of the expectations files it reads in `envs`,
    /// in the order LHP reads them; a file read in several environments
    /// counts once.
    pub fn expectation_model(&self, envs: &[Env]) -> Vec<DatasetExpectations> {
        let mut out = Vec::new();
        for (_, action) in self.actions() {
            if !action.is_data_quality() {
                continue;
            }
            let quarantine = action.is_quarantine();
            let dataset = action
                .get_str("target")
                .or_else(|| action.name())
                .unwrap_or_default()
                .to_string();
            let anchor = action.anchor();
            let mut files: Vec<String> = action.expectations_files(envs).collect();
            files.dedup();
            let mut expectations = Vec::new();
            for rel in files {
                let Some(set) = self.expectations_for(&rel) else {
                    continue;
                };
                for rule in &set.rules {
                    let (Some(expression), Some(action)) = (&rule.expression, rule.action) else {
                        continue;
                    };
                    let name = if quarantine {
                        rule.name.as_ref()
                    } else {
                        rule.dqe_name.as_ref().or(rule.name.as_ref())
                    };
                    expectations.push(Expectation {
                        name: name.map(|n| n.text.clone()),
                        check: Check::Sql(expression.text.clone()),
                        enforcement: if quarantine {
                            Enforcement::Quarantine
                        } else {
                            Enforcement::Row(action)
                        },
                        origin: SourceSpan {
                            file: set.file,
                            span: rule.span.clone(),
                        },
                    });
                }
            }
            out.push(DatasetExpectations {
                dataset,
                dialect: Dialect::Lhp,
                origin: SourceSpan {
                    file: anchor.file,
                    span: anchor.span,
                },
                expectations,
            });
        }
        out
    }
}
