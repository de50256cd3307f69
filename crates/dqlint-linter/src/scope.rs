//! What a rule reads: its scope. Each registry entry declares one, and the
//! language server's re-lint after an edit follows from them: an edit can
//! change a rule's findings only in the files its scope joins together.

/// The files one finding of a rule can depend on, from narrowest to widest.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Scope {
    /// This file only: its text and its parse.
    File,
    /// A flowgroup as LHP resolves it: its file, and the templates, presets
    /// and blueprints it is built from.
    Flowgroup,
    /// A flowgroup with the library it is built from, and that library as a
    /// whole (a preset no file names, two blueprints of one name).
    Library,
    /// An expectations file and every data_quality action using it.
    Expectations,
    /// A file's tokens, with every substitutions file that resolves them.
    Tokens,
    /// Every quarantine action, every `.sql` file (the DLQ DDL) and
    /// `config/pipeline_config.yaml`.
    Quarantine,
    /// Every pipeline source (Python, SQL) and the modules they import:
    /// a quarantine table and its clean twin, an AUTO CDC target declared
    /// in another file.
    Pipelines,
    /// Every DQX run config of the project: the `run_configs` of config
    /// files and the configs built in Python (`InputConfig`, apply-and-save
    /// calls), with the modules they import values from.
    RunConfigs,
    /// Every dataset of every dialect, read against the team policy of
    /// `dqlint.toml` (`[policy]`); without a policy these rules say nothing.
    Policy,
    /// The whole project as loaded: the environments requested, `lhp.yaml`,
    /// which files exist.
    Project,
    /// Suppression comments, against every other rule's findings.
    Suppressions,
}

impl Scope {
    /// How the scope reads in docs and `dqlint rule`.
    pub fn describe(self) -> &'static str {
        match self {
            Scope::File => "this file only",
            Scope::Flowgroup => {
                "a flowgroup, with the templates, presets and blueprints it is built from"
            }
            Scope::Library => {
                "a flowgroup, with every template, preset and blueprint of the project"
            }
            Scope::Expectations => "an expectations file and the actions using it",
            Scope::Tokens => "a file's tokens and every substitutions file",
            Scope::Quarantine => {
                "every quarantine action, the DLQ DDL in `.sql` files and `config/pipeline_config.yaml`"
            }
            Scope::Pipelines => "every pipeline source and the modules they import",
            Scope::RunConfigs => "every DQX run config, in config files and in Python",
            Scope::Policy => "every dataset of every dialect, against the team policy",
            Scope::Project => "the whole project",
            Scope::Suppressions => "suppression comments and every other rule's findings",
        }
    }
}
