//! The dead-letter queue: table names and the inbox/outbox DDL contract LHP's quarantine mode relies on.
pub mod contract;
pub mod dq401_table_name_not_qualified;
pub mod dq402_dlq_ddl_not_found;
pub mod dq403_dlq_outbox_ddl_not_found;
pub mod dq404_dlq_missing_change_data_feed;
pub mod dq405_dlq_missing_row_tracking;
pub mod dq406_dlq_missing_deletion_vectors;
pub mod dq407_dlq_not_clustered_by_source;
pub mod dq408_dlq_schema_mismatch;
pub mod dq409_dlq_update_not_scoped;
