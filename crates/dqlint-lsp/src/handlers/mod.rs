//! One file per LSP request.

pub mod code_action;
pub mod completion;
pub mod definition;
pub mod dlq;
pub mod document_link;
pub mod document_symbol;
pub mod dqx;
pub mod dqx_json;
pub mod dqx_python;
pub mod folding_range;
pub mod hover;
pub mod inlay_hint;
pub mod pipeline;
pub mod references;
pub mod rename;
pub mod rename_rule;
pub mod rename_token;
pub mod semantic_tokens;
pub mod suppress;
pub mod workspace_symbol;
pub mod yaml_context;

#[cfg(test)]
mod vocabulary_coverage;
