//! The data_quality action itself: mode, quarantine block, readMode, expectations_file, source.
pub mod dq101_invalid_dq_mode;
pub mod dq102_quarantine_block_missing;
pub mod dq103_quarantine_block_without_mode;
pub mod dq104_quarantine_field_missing;
pub mod dq105_non_stream_read_mode;
pub mod dq106_expectations_file_not_set;
pub mod dq107_expectations_file_not_found;
pub mod dq108_dq_source_not_single_view;
pub mod dq109_preset_data_quality_ignored;
