//! Substitution tokens and local variables, per environment.
pub mod dq601_unresolved_token;
pub mod dq602_missing_substitutions_file;
pub mod dq603_deprecated_bare_token;
pub mod dq604_secret_in_table_name;
pub mod dq605_undefined_local_variable;
