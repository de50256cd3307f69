//! The rules, one file each, in folders by family (`rules/<family>/dqNNN_name.rs`);
//! `registry.rs` holds the table of codes. Helpers a family shares live in
//! the family's module file beside its folder.
pub mod action;
pub mod cdc;
pub mod cross_action;
pub mod dlq;
pub mod dqx;
pub mod expectations;
pub mod pipeline;
pub mod policy;
pub mod sql;
pub mod structure;
pub mod suppression;
pub mod tokens;
