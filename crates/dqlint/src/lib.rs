//! The `dqlint` command line as a library: the binary (`main.rs`) parses
//! arguments and calls into these modules; tests call them directly.

pub mod cache;
pub mod fix;
pub mod fix_loop;
pub mod fix_write;
pub mod output;
pub mod policy_view;
pub mod rule_docs;
