//! `dqlint: ignore` comments that hide nothing.
pub mod dq009_unused_suppression;
