//! One file per LSP request.

pub mod code_action;
pub mod completion;
pub mod definition;
pub mod dlq;
pub mod document_symbol;
pub mod dqx;
pub mod hover;
pub mod references;
pub mod suppress;
pub mod yaml_context;

#[cfg(test)]
mod vocabulary_coverage;
