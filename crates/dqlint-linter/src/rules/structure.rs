//! Files and structure: syntax, YAML types, unknown keys, references LHP cannot resolve, the LHP version a project requires.
pub mod dq001_yaml_syntax_error;
pub mod dq002_invalid_structure;
pub mod dq003_unknown_key;
pub mod dq004_unresolved_reference;
pub mod dq005_unsupported_lhp_version;
