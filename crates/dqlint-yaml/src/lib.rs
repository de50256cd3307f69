//! The YAML layer of dqlint: a tree-sitter-yaml parse of each `---` document,
//! owned typed views (mappings, sequences, scalars) with exact byte spans,
//! decoded scalar values, duplicate keys, and syntax errors that never stop
//! the rest of the file from being read.

pub mod block_reader;
mod builder;
pub mod consumer;
pub mod document;
pub mod incremental;
pub mod json_reader;
pub mod lines;
pub mod scalar;
mod syntax_error;
pub mod tree;

pub use consumer::pyyaml_rejections;
pub use document::{Document, Node, NodeKind, Pair, Scalar, ScalarKind, SyntaxError, YamlFile};
pub use incremental::{LiveYaml, ReparseStats};
pub use lines::{LineIndex, Position};
pub use scalar::ScalarStyle;
pub use tree::{parse, parse_tree_sitter_only};
