//! Substitution tokens and local variables, per environment.
pub mod dq601_unresolved_token;
pub mod dq602_missing_substitutions_file;
pub mod dq603_deprecated_bare_token;
pub mod dq604_secret_in_table_name;
pub mod dq605_undefined_local_variable;

/// Finds the strings the token rules read before the rules start (in
/// parallel): the first of them to ask would hold the others waiting.
pub(crate) fn prepare(ctx: &crate::engine::Context, selected: &[&crate::registry::RuleMeta]) {
    if selected
        .iter()
        .any(|r| matches!(r.code, "DQ601" | "DQ603" | "DQ605"))
    {
        crate::tokens::braced_strings(ctx);
    }
}
