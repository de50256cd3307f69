//! The one table of rule codes. Each rule lives in
//! `rules/<family>/dq<code>_<name>.rs`;
//! that file's `//!` doc comment is the rule's user documentation.
//! Each entry also declares the rule's [`Scope`]: what its findings can
//! depend on, from which the engine derives what an edit can affect.

use crate::diagnostic::Severity;
use crate::engine::{Context, Findings};
use crate::rules;
pub use crate::scope::Scope;

pub struct RuleMeta {
    pub code: &'static str,
    pub name: &'static str,
    pub severity: Severity,
    /// The folder under `rules/` that holds the rule: rules of one family
    /// read the same part of the model and share its helpers.
    pub family: &'static str,
    /// What the rule's findings can depend on.
    pub scope: Scope,
    pub check: Check,
    source: &'static str,
}

/// How the engine runs a rule.
#[derive(Clone, Copy)]
pub enum Check {
    /// Once, over the whole project.
    Project(fn(&Context, &mut Findings)),
    /// On one DQX checks file at a time (a YAML/JSON file, or a Python
    /// source's DQX rules): what the rule finds there depends on that file
    /// alone. The engine runs every such rule on a file before going on to
    /// the next, while the file's checks are in the cache, instead of each
    /// rule sweeping every file of a large root.
    ChecksFile(fn(&Context, &crate::rules::dqx::ChecksFile, &mut Findings)),
}

impl std::fmt::Debug for RuleMeta {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} ({})", self.code, self.name)
    }
}

impl RuleMeta {
    /// The rule's documentation: its file's `//!` comment, as Markdown.
    pub fn doc(&self) -> String {
        let mut out = String::new();
        for line in self.source.lines() {
            let Some(text) = line.strip_prefix("//!") else {
                if out.is_empty() && line.trim().is_empty() {
                    continue;
                }
                break;
            };
            out.push_str(text.strip_prefix(' ').unwrap_or(text));
            out.push('\n');
        }
        out.trim_end().to_string()
    }

    /// How an editor may render the rule's findings: struck through for
    /// syntax that is deprecated, faded for text that has no effect.
    pub fn editor_tag(&self) -> Option<EditorTag> {
        match self.code {
            "DQ603" => Some(EditorTag::Deprecated),
            "DQ109" | "DQ009" => Some(EditorTag::Unnecessary),
            _ => None,
        }
    }

    /// The first paragraph of "What it does", for tables and hovers.
    pub fn summary(&self) -> String {
        let doc = self.doc();
        let body = doc.split("## What it does").nth(1).unwrap_or(&doc);
        body.trim()
            .split("\n\n")
            .next()
            .unwrap_or("")
            .replace('\n', " ")
    }

    /// The body of a `## heading` section of the doc, trimmed.
    pub fn section(&self, heading: &str) -> Option<String> {
        let doc = self.doc();
        let mut body: Option<String> = None;
        for line in doc.lines() {
            if let Some(title) = line.strip_prefix("## ") {
                if body.is_some() {
                    break;
                }
                if title.trim() == heading {
                    body = Some(String::new());
                }
                continue;
            }
            if let Some(body) = body.as_mut() {
                body.push_str(line);
                body.push('\n');
            }
        }
        body.map(|b| b.trim().to_string())
    }

    /// The whole "What it does" section (SARIF's full description).
    pub fn what_it_does(&self) -> String {
        self.section("What it does")
            .unwrap_or_default()
            .replace('\n', " ")
    }

    /// The project of the `## Example (bad)` or `## Example (good)` section
    /// (see [`DocExample`] for the convention).
    pub fn example(&self, kind: ExampleKind) -> Result<DocExample, String> {
        let heading = kind.heading();
        let section = self
            .section(heading)
            .ok_or_else(|| format!("{}: the doc has no `## {heading}` section", self.code))?;
        DocExample::parse(&section).map_err(|e| format!("{}: `## {heading}`: {e}", self.code))
    }
}

/// An editor's special rendering of a finding (LSP's diagnostic tags).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EditorTag {
    /// Deprecated syntax (a bare `{token}`).
    Deprecated,
    /// Text that has no effect (a setting LHP never applies, an unused
    /// suppression).
    Unnecessary,
}

/// Which of a rule's two doc examples.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ExampleKind {
    /// Triggers the rule, and no other.
    Bad,
    /// The same project with the mistake fixed: no finding at all.
    Good,
}

impl ExampleKind {
    pub fn heading(self) -> &'static str {
        match self {
            ExampleKind::Bad => "Example (bad)",
            ExampleKind::Good => "Example (good)",
        }
    }
}

/// A doc example: a small LHP project, checked by a test.
///
/// The convention, for the `## Example (bad)` and `## Example (good)`
/// sections of a rule's `//!` doc:
///
/// - Each fenced code block is a file of the project; the line just before
///   its fence names the file, relative to the project root, as a code span
///   followed by a colon: `` `expectations/orders.yaml`: ``. A block
///   without it is an error, so no example goes unchecked. (Not in the
///   fence's info string: rustdoc warns about attributes it does not know.)
/// - The good project is the bad one with the good section's files
///   written over it: it shows only what changes (possibly only the
///   `Linted with` line).
/// - A line `Linted with `--env dev --env prd`.` lints those environments
///   (default: every `substitutions/*.yaml`).
/// - What an example leaves out is filled in: `lhp.yaml`
///   (`name: example`), and, when no `.sql` file is given, the DDL of a
///   correct DLQ inbox and outbox for each `dlq_table:` the files name.
/// - A `dqlint.toml` among the files configures the run, as for the CLI.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DocExample {
    pub files: Vec<ExampleFile>,
    /// `--env` values; empty: every substitutions file.
    pub envs: Vec<String>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExampleFile {
    /// Relative to the project root, `/` separated.
    pub path: String,
    /// The fence's language (`yaml`, `sql`, `json`).
    pub language: String,
    pub text: String,
}

impl DocExample {
    pub fn parse(section: &str) -> Result<DocExample, String> {
        let mut example = DocExample::default();
        let mut lines = section.lines();
        let mut previous = "";
        while let Some(line) = lines.next() {
            let named = std::mem::replace(&mut previous, line).trim();
            if let Some(flags) = line.trim().strip_prefix("Linted with `") {
                let flags = flags.split('`').next().unwrap_or("");
                let mut words = flags.split_whitespace();
                while let Some(word) = words.next() {
                    match word {
                        "--env" => example.envs.extend(words.next().map(String::from)),
                        other => {
                            return Err(format!("unsupported flag `{other}` in `Linted with`"))
                        }
                    }
                }
                continue;
            }
            let Some(info) = line.trim_start().strip_prefix("```") else {
                continue;
            };
            let language = info.split_whitespace().next().unwrap_or("").to_string();
            let path = named
                .strip_prefix('`')
                .and_then(|rest| rest.strip_suffix("`:"))
                .filter(|p| !p.is_empty() && !p.contains('`'))
                .ok_or_else(|| {
                    format!(
                        "the code block `{}` is not preceded by a `` `PATH`: `` line",
                        line.trim()
                    )
                })?;
            let mut text = String::new();
            let mut closed = false;
            for line in lines.by_ref() {
                if line.trim_start().starts_with("```") {
                    closed = true;
                    break;
                }
                text.push_str(line);
                text.push('\n');
            }
            if !closed {
                return Err(format!("code block `{path}` is not closed"));
            }
            if example.files.iter().any(|f| f.path == path) {
                return Err(format!("`{path}` is given twice"));
            }
            example.files.push(ExampleFile {
                path: path.to_string(),
                language,
                text,
            });
        }
        if example.files.is_empty() && example.envs.is_empty() {
            return Err("no code block preceded by a `` `PATH`: `` line".into());
        }
        Ok(example)
    }

    /// The good example's files written over the bad example's.
    pub fn overlaid_on(&self, base: &DocExample) -> DocExample {
        let mut files = base.files.clone();
        for file in &self.files {
            match files.iter_mut().find(|f| f.path == file.path) {
                Some(existing) => *existing = file.clone(),
                None => files.push(file.clone()),
            }
        }
        let envs = if self.envs.is_empty() {
            base.envs.clone()
        } else {
            self.envs.clone()
        };
        DocExample { files, envs }
    }
}

macro_rules! check_of {
    ($check:path) => {
        Check::Project($check)
    };
    ($check:path, $unit:ident) => {
        Check::$unit($check)
    };
}

macro_rules! registry {
    ($( $code:literal $name:literal $severity:ident $scope:ident $family:ident / $module:ident $(per $unit:ident)?; )*) => {
        pub static RULES: &[RuleMeta] = &[
            $( RuleMeta {
                code: $code,
                name: $name,
                severity: Severity::$severity,
                family: stringify!($family),
                scope: Scope::$scope,
                check: check_of!(rules::$family::$module::check $(, $unit)?),
                source: include_str!(concat!(
                    "rules/", stringify!($family), "/", stringify!($module), ".rs"
                )),
            }, )*
        ];
    };
}

// code, name, default severity, scope, family/module (`per ChecksFile`:
// run on one checks file at a time, `Check::ChecksFile`).
registry! {
    "DQ001" "yaml-syntax-error" Error File structure/dq001_yaml_syntax_error;
    "DQ002" "invalid-structure" Error Flowgroup structure/dq002_invalid_structure;
    "DQ003" "unknown-key" Warning Flowgroup structure/dq003_unknown_key;
    "DQ004" "unresolved-reference" Error Library structure/dq004_unresolved_reference;
    "DQ005" "unsupported-lhp-version" Warning File structure/dq005_unsupported_lhp_version;
    "DQ009" "unused-suppression" Warning Suppressions suppression/dq009_unused_suppression;
    "DQ101" "invalid-dq-mode" Error Flowgroup action/dq101_invalid_dq_mode;
    "DQ102" "quarantine-block-missing" Error Flowgroup action/dq102_quarantine_block_missing;
    "DQ103" "quarantine-block-without-mode" Error Flowgroup action/dq103_quarantine_block_without_mode;
    "DQ104" "quarantine-field-missing" Error Flowgroup action/dq104_quarantine_field_missing;
    "DQ105" "non-stream-read-mode" Error Flowgroup action/dq105_non_stream_read_mode;
    "DQ106" "expectations-file-not-set" Error Flowgroup action/dq106_expectations_file_not_set;
    "DQ107" "expectations-file-not-found" Error Tokens action/dq107_expectations_file_not_found;
    "DQ108" "dq-source-not-single-view" Error Flowgroup action/dq108_dq_source_not_single_view;
    "DQ109" "preset-data-quality-ignored" Warning File action/dq109_preset_data_quality_ignored;
    "DQ201" "expectations-file-invalid" Error Expectations expectations/dq201_expectations_file_invalid;
    "DQ202" "no-expectations" Error Expectations expectations/dq202_no_expectations;
    "DQ203" "rule-without-expression" Error Expectations expectations/dq203_rule_without_expression;
    "DQ204" "invalid-rule-action" Error Expectations expectations/dq204_invalid_rule_action;
    "DQ205" "duplicate-rule-name" Error Expectations expectations/dq205_duplicate_rule_name;
    "DQ206" "rule-value-not-mapping" Error Expectations expectations/dq206_rule_value_not_mapping;
    "DQ207" "quarantine-coerces-action" Warning Expectations expectations/dq207_quarantine_coerces_action;
    "DQ208" "conflicting-rule-action" Warning Expectations expectations/dq208_conflicting_rule_action;
    "DQ301" "sql-syntax-error" Error Expectations sql/dq301_sql_syntax_error;
    "DQ302" "not-row-level" Error Expectations sql/dq302_not_row_level;
    "DQ303" "nondeterministic-rule" Warning Expectations sql/dq303_nondeterministic_rule;
    "DQ304" "token-in-rule" Warning Expectations sql/dq304_token_in_rule;
    "DQ305" "non-boolean-rule" Warning Expectations sql/dq305_non_boolean_rule;
    "DQ306" "unknown-sql-function" Warning Expectations sql/dq306_unknown_sql_function;
    "DQ307" "trailing-keyword-alias" Warning Expectations sql/dq307_trailing_keyword_alias;
    "DQ401" "table-name-not-qualified" Error Tokens dlq/dq401_table_name_not_qualified;
    "DQ402" "dlq-ddl-not-found" Info Quarantine dlq/dq402_dlq_ddl_not_found;
    "DQ403" "dlq-outbox-ddl-not-found" Warning Quarantine dlq/dq403_dlq_outbox_ddl_not_found;
    "DQ404" "dlq-missing-change-data-feed" Error Quarantine dlq/dq404_dlq_missing_change_data_feed;
    "DQ405" "dlq-missing-row-tracking" Error Quarantine dlq/dq405_dlq_missing_row_tracking;
    "DQ406" "dlq-missing-deletion-vectors" Error Quarantine dlq/dq406_dlq_missing_deletion_vectors;
    "DQ407" "dlq-not-clustered-by-source" Error Quarantine dlq/dq407_dlq_not_clustered_by_source;
    "DQ408" "dlq-schema-mismatch" Error Quarantine dlq/dq408_dlq_schema_mismatch;
    "DQ409" "dlq-update-not-scoped" Warning Quarantine dlq/dq409_dlq_update_not_scoped;
    "DQ501" "duplicate-source-table" Error Quarantine cross_action/dq501_duplicate_source_table;
    "DQ502" "duplicate-source-table-across-pipelines" Error Quarantine cross_action/dq502_duplicate_source_table_across_pipelines;
    "DQ503" "duplicate-quarantine-source-view" Error Quarantine cross_action/dq503_duplicate_quarantine_source_view;
    "DQ504" "quarantine-in-continuous-pipeline" Error Quarantine cross_action/dq504_quarantine_in_continuous_pipeline;
    "DQ601" "unresolved-token" Error Tokens tokens/dq601_unresolved_token;
    "DQ602" "missing-substitutions-file" Warning Project tokens/dq602_missing_substitutions_file;
    "DQ603" "deprecated-bare-token" Warning Tokens tokens/dq603_deprecated_bare_token;
    "DQ604" "secret-in-table-name" Error Flowgroup tokens/dq604_secret_in_table_name;
    "DQ605" "undefined-local-variable" Error Flowgroup tokens/dq605_undefined_local_variable;
    "DQ701" "cdc-without-sequence-by" Warning Flowgroup cdc/dq701_cdc_without_sequence_by;
    "DQ702" "cdc-sequence-by-processing-time" Warning Flowgroup cdc/dq702_cdc_sequence_by_processing_time;
    "DQ801" "dqx-checks-not-a-list" Error File dqx/dq801_dqx_checks_not_a_list per ChecksFile;
    "DQ802" "dqx-check-not-mapping" Error File dqx/dq802_dqx_check_not_mapping per ChecksFile;
    "DQ803" "dqx-check-block-missing" Error File dqx/dq803_dqx_check_block_missing per ChecksFile;
    "DQ804" "dqx-invalid-check-block" Error File dqx/dq804_dqx_invalid_check_block per ChecksFile;
    "DQ805" "dqx-invalid-field-type" Error File dqx/dq805_dqx_invalid_field_type per ChecksFile;
    "DQ806" "dqx-invalid-criticality" Error File dqx/dq806_dqx_invalid_criticality per ChecksFile;
    "DQ807" "dqx-unknown-key" Warning File dqx/dq807_dqx_unknown_key per ChecksFile;
    "DQ808" "dqx-storage-only-key" Info File dqx/dq808_dqx_storage_only_key per ChecksFile;
    "DQ809" "dqx-filter-misplaced" Warning File dqx/dq809_dqx_filter_misplaced per ChecksFile;
    "DQ810" "dqx-unknown-function" Error File dqx/dq810_dqx_unknown_function per ChecksFile;
    "DQ811" "dqx-missing-argument" Error File dqx/dq811_dqx_missing_argument per ChecksFile;
    "DQ812" "dqx-unexpected-argument" Error File dqx/dq812_dqx_unexpected_argument per ChecksFile;
    "DQ813" "dqx-argument-type" Error File dqx/dq813_dqx_argument_type per ChecksFile;
    "DQ814" "dqx-bool-for-int" Error File dqx/dq814_dqx_bool_for_int per ChecksFile;
    "DQ815" "dqx-yaml11-scalar" Warning File dqx/dq815_dqx_yaml11_scalar per ChecksFile;
    "DQ816" "dqx-for-each-column-shape" Error File dqx/dq816_dqx_for_each_column_shape per ChecksFile;
    "DQ817" "dqx-for-each-column-overrides" Warning File dqx/dq817_dqx_for_each_column_overrides per ChecksFile;
    "DQ818" "dqx-invalid-argument-value" Error File dqx/dq818_dqx_invalid_argument_value per ChecksFile;
    "DQ820" "dqx-unsafe-sql" Error File dqx/dq820_dqx_unsafe_sql per ChecksFile;
    "DQ821" "dqx-row-filter-overridden" Warning File dqx/dq821_dqx_row_filter_overridden per ChecksFile;
    "DQ822" "dqx-in-list-bare-identifier" Warning File dqx/dq822_dqx_in_list_bare_identifier per ChecksFile;
    "DQ823" "dqx-limit-is-expression" Info File dqx/dq823_dqx_limit_is_expression per ChecksFile;
    "DQ824" "dqx-unresolved-placeholder" Warning File dqx/dq824_dqx_unresolved_placeholder per ChecksFile;
    "DQ825" "dqx-invalid-regex" Error File dqx/dq825_dqx_invalid_regex per ChecksFile;
    "DQ826" "dqx-requires-dbr" Warning File dqx/dq826_dqx_requires_dbr per ChecksFile;
    "DQ827" "dqx-unknown-column" Error File dqx/dq827_dqx_unknown_column per ChecksFile;
    "DQ830" "dqx-duplicate-rule" Warning File dqx/dq830_dqx_duplicate_rule per ChecksFile;
    "DQ831" "dqx-conflicting-rule" Info File dqx/dq831_dqx_conflicting_rule per ChecksFile;
    "DQ832" "dqx-duplicate-name" Warning File dqx/dq832_dqx_duplicate_name per ChecksFile;
    "DQ850" "dqx-config-invalid" Error File dqx/dq850_dqx_config_invalid;
    "DQ851" "dqx-config-value-defaulted" Error File dqx/dq851_dqx_config_value_defaulted;
    "DQ852" "dqx-config-unknown-key" Warning File dqx/dq852_dqx_config_unknown_key;
    "DQ853" "dqx-config-invalid-location" Error File dqx/dq853_dqx_config_invalid_location;
    "DQ854" "dqx-config-duplicate-run-config" Error File dqx/dq854_dqx_config_duplicate_run_config;
    "DQ855" "dqx-no-destination" Error File dqx/dq855_dqx_no_destination;
    "DQ856" "dqx-shared-checkpoint" Error RunConfigs dqx/dq856_dqx_shared_checkpoint;
    "DQ857" "dqx-streaming-option-on-batch" Warning File dqx/dq857_dqx_streaming_option_on_batch;
    "DQ858" "dqx-stream-without-checkpoint" Warning File dqx/dq858_dqx_stream_without_checkpoint;
    "DQ859" "dqx-output-is-quarantine" Error File dqx/dq859_dqx_output_is_quarantine;
    "DQ860" "dqx-checks-and-location" Warning File dqx/dq860_dqx_checks_and_location;
    "DQ861" "dqx-prefiltered-errors" Info File dqx/dq861_dqx_prefiltered_errors;
    "DQ862" "dqx-no-checks-source" Error File dqx/dq862_dqx_no_checks_source;
    "DQ901" "dlt-unknown-expectation-decorator" Error File pipeline/dq901_dlt_unknown_expectation_decorator;
    "DQ902" "dlt-expectation-misplaced" Error File pipeline/dq902_dlt_expectation_misplaced;
    "DQ903" "dlt-expectation-arguments" Error Pipelines pipeline/dq903_dlt_expectation_arguments;
    "DQ904" "dlt-duplicate-expectation-name" Error Pipelines pipeline/dq904_dlt_duplicate_expectation_name;
    "DQ905" "dlt-unsupported-on-runtime" Error File pipeline/dq905_dlt_unsupported_on_runtime;
    "DQ906" "dlt-legacy-api" Info File pipeline/dq906_dlt_legacy_api;
    "DQ910" "dlt-constraint-python-udf" Error Pipelines pipeline/dq910_dlt_constraint_python_udf;
    "DQ911" "dlt-constraint-not-static" Info Pipelines pipeline/dq911_dlt_constraint_not_static;
    "DQ912" "dlt-warn-only-expectations" Info File pipeline/dq912_dlt_warn_only_expectations;
    "DQ920" "dlt-quarantine-not-negation" Error Pipelines pipeline/dq920_dlt_quarantine_not_negation;
    "DQ921" "dlt-quarantine-null-gap" Warning Pipelines pipeline/dq921_dlt_quarantine_null_gap;
    "DQ922" "dlt-quarantine-warn-rule" Warning Pipelines pipeline/dq922_dlt_quarantine_warn_rule;
    "DQ923" "dlt-quarantine-fail-rule" Info Pipelines pipeline/dq923_dlt_quarantine_fail_rule;
    "DQ924" "dlt-quarantine-separate-reads" Info Pipelines pipeline/dq924_dlt_quarantine_separate_reads;
    "DQ925" "dlt-reinject-schema-mismatch" Warning Pipelines pipeline/dq925_dlt_reinject_schema_mismatch;
    "DQ930" "dlt-cdc-source-not-a-name" Error Pipelines pipeline/dq930_dlt_cdc_source_not_a_name;
    "DQ931" "dlt-cdc-target-not-declared" Error Pipelines pipeline/dq931_dlt_cdc_target_not_declared;
    "DQ932" "dlt-cdc-sequence-by-missing" Error File pipeline/dq932_dlt_cdc_sequence_by_missing;
    "DQ933" "dlt-cdc-sequence-by-processing-time" Warning Pipelines pipeline/dq933_dlt_cdc_sequence_by_processing_time;
    "DQ934" "dlt-cdc-qualified-column" Error File pipeline/dq934_dlt_cdc_qualified_column;
    "DQ935" "dlt-cdc-include-and-except" Error File pipeline/dq935_dlt_cdc_include_and_except;
    "DQ936" "dlt-cdc-track-history-without-scd2" Error File pipeline/dq936_dlt_cdc_track_history_without_scd2;
    "DQ937" "dlt-cdc-invalid-scd-type" Error File pipeline/dq937_dlt_cdc_invalid_scd_type;
    "DQ950" "missing-mandatory-expectation" Error Policy policy/dq950_missing_mandatory_expectation;
    "DQ951" "mandatory-expectation-warn-only" Warning Policy policy/dq951_mandatory_expectation_warn_only;
    "DQ952" "expectation-not-from-registry" Warning Policy policy/dq952_expectation_not_from_registry;
    "DQ953" "circuit-breaker-missing" Warning Policy policy/dq953_circuit_breaker_missing;
    "DQ954" "circuit-breaker-too-loose" Warning Policy policy/dq954_circuit_breaker_too_loose;
}

/// A rule by code (`DQ107`) or name (`expectations-file-not-found`).
pub fn find(code_or_name: &str) -> Option<&'static RuleMeta> {
    RULES
        .iter()
        .find(|r| r.code.eq_ignore_ascii_case(code_or_name) || r.name == code_or_name)
}

/// `lookup!(DQ107)`: the registry entry of a code known at compile time.
pub fn rule(code: &str) -> &'static RuleMeta {
    RULES
        .iter()
        .find(|r| r.code == code)
        .unwrap_or_else(|| panic!("{code} is not in the registry"))
}
