//! The DQX dialect model (databrickslabs/dqx): checks files and run
//! configs read exactly as DQX reads them, and what DQX knows about its
//! check functions.
//!
//! - [`yaml11`]: PyYAML `safe_load` scalar typing (YAML 1.1).
//! - [`value`]: the typed-value layer over the `dqlint-yaml` CST, with
//!   spans; JSON as `json.load`; `{__decimal__: ...}`.
//! - [`catalogue`]: the check functions of each embedded DQX version.
//! - [`types`]: DQX's strict argument type check.
//! - [`discovery`]: which files are checks files or run configs.
//! - [`run_config`]: `config.yml` as DQX's loader (blueprint) reads it.
//! - [`spark_schema`]: Spark DDL schema strings as PySpark parses them.
//!
//! Like the other dialect models it knows no rule code: the `dqx` rules of
//! `dqlint-linter` turn what it reports into findings.

pub mod catalogue;
pub mod discovery;
pub mod run_config;
pub mod spark_schema;
pub mod types;
pub mod value;
pub mod yaml11;

pub use catalogue::{catalogue, ArgIssue, Catalogue, Extra, Function, Param, RuleType};
pub use discovery::{classify, DqxFileKind};
pub use types::{ParamType, TypeIssue};
pub use value::{load, load_taking, Entry, Format, Kind, LoadError, Loaded, PyObject, Typed};

/// The keys DQX reads on a check item (`CheckSpec`).
pub const ITEM_KEYS: &[&str] = &[
    "check",
    "criticality",
    "name",
    "filter",
    "user_metadata",
    "message_expr",
];

/// Keys DQX's storage adds and its loader drops (`project_to_check_schema`).
pub const STORAGE_KEYS: &[&str] = &[
    "run_config_name",
    "created_at",
    "rule_fingerprint",
    "rule_set_fingerprint",
];

/// The keys DQX reads in a `check:` block (`CheckBlock`).
pub const CHECK_KEYS: &[&str] = &["function", "arguments", "for_each_column"];

/// `Criticality`'s values.
pub const CRITICALITIES: &[&str] = &["error", "warn"];
