//! Pipeline sources read statically: Lakeflow Declarative Pipelines (DLT)
//! Python modules and the predicates of their expectations.
//!
//! The project never imports or runs the code. [`python`] parses a module
//! with tree-sitter-python and says whether it is a pipeline or DQX-API
//! module; [`eval`] evaluates the string values the contract of
//! `spec/dlt.md` allows (literals, f-strings, concatenation, module-level
//! names, dicts, subscripts, comprehensions over `.items()`/`.values()`,
//! `join`, `format`) and keeps a map from every evaluated byte back to the
//! source;
//! [`predicate`] normalises row predicates to decide whether a quarantine
//! filter is the exact negation of the drop rules; [`model`] is what a
//! pipeline file declares (datasets, expectations, flows, AUTO CDC), the
//! one shape the Python and SQL readers both yield.

pub mod breaker;
pub mod dqx_api;
pub mod eval;
pub mod model;
pub mod predicate;
pub mod python;
mod python_cdc;
mod python_expect;
mod python_frame;
pub mod python_model;
pub mod quarantine;
pub mod sql;
pub mod uniqueness;
pub mod witness;

pub use eval::{Defined, Evaluated, Evaluator, Value};
pub use python::{Discovery, PythonModule, SyntaxError};
