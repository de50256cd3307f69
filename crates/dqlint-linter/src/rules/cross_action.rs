//! Facts across actions and pipelines: shared source tables and views, continuous pipelines.
pub mod dq501_duplicate_source_table;
pub mod dq502_duplicate_source_table_across_pipelines;
pub mod dq503_duplicate_quarantine_source_view;
pub mod dq504_quarantine_in_continuous_pipeline;
