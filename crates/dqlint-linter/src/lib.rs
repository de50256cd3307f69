//! dqlint's rules and diagnostics. Rules read the project model only; they
//! never touch the disk.

pub mod config;
pub mod damage;
pub mod ddl_catalog;
pub mod diagnostic;
pub mod engine;
pub mod expressions;
pub mod fix;
pub mod quarantine;
pub mod registry;
pub mod relint;
pub mod rules;
pub mod scope;
pub mod suppression;
pub mod text;
pub mod tokens;

pub use config::{Config, ConfigError};
pub use diagnostic::{Applicability, Diagnostic, Edit, Fix, Location, Related, Severity};
pub use engine::{lint, lint_configured, Context, Findings, Selection};
pub use registry::{find, DocExample, ExampleFile, ExampleKind, RuleMeta, RULES};
pub use rules::pipeline::read as read_pipeline_source;
pub use scope::Scope;
