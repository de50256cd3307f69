//! Change data capture write targets.
pub mod dq701_cdc_without_sequence_by;
pub mod dq702_cdc_sequence_by_processing_time;
