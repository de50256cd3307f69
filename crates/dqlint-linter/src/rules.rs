//! One file per rule; `registry.rs` holds the table of codes.
pub mod dq001_yaml_syntax_error;
pub mod dq002_invalid_structure;
pub mod dq003_unknown_key;
pub mod dq004_unresolved_reference;
pub mod dq009_unused_suppression;
pub mod dq101_invalid_dq_mode;
pub mod dq102_quarantine_block_missing;
pub mod dq103_quarantine_block_without_mode;
pub mod dq104_quarantine_field_missing;
pub mod dq105_non_stream_read_mode;
pub mod dq106_expectations_file_not_set;
pub mod dq107_expectations_file_not_found;
pub mod dq108_dq_source_not_single_view;
pub mod dq109_preset_data_quality_ignored;
pub mod dq201_expectations_file_invalid;
pub mod dq202_no_expectations;
pub mod dq203_rule_without_expression;
pub mod dq204_invalid_rule_action;
pub mod dq205_duplicate_rule_name;
pub mod dq206_rule_value_not_mapping;
pub mod dq207_quarantine_coerces_action;
pub mod dq208_conflicting_rule_action;
pub mod dq301_sql_syntax_error;
pub mod dq302_not_row_level;
pub mod dq303_nondeterministic_rule;
pub mod dq304_token_in_rule;
pub mod dq305_non_boolean_rule;
pub mod dq401_table_name_not_qualified;
pub mod dq402_dlq_ddl_not_found;
pub mod dq403_dlq_outbox_ddl_not_found;
pub mod dq404_dlq_missing_change_data_feed;
pub mod dq405_dlq_missing_row_tracking;
pub mod dq406_dlq_missing_deletion_vectors;
pub mod dq407_dlq_not_clustered_by_source;
pub mod dq408_dlq_schema_mismatch;
pub mod dq409_dlq_update_not_scoped;
pub mod dq501_duplicate_source_table;
pub mod dq502_duplicate_source_table_across_pipelines;
pub mod dq503_duplicate_quarantine_source_view;
pub mod dq504_quarantine_in_continuous_pipeline;
pub mod dq601_unresolved_token;
pub mod dq602_missing_substitutions_file;
pub mod dq603_deprecated_bare_token;
pub mod dq604_secret_in_table_name;
pub mod dq605_undefined_local_variable;
pub mod dq701_cdc_without_sequence_by;
pub mod dq702_cdc_sequence_by_processing_time;

use crate::diagnostic::Diagnostic;
use crate::engine::{Context, Findings};
use crate::registry::rule;

/// The five DQ3xx rules share one pass over the expressions.
pub(crate) fn report_expression_findings(ctx: &Context, out: &mut Findings, code: &str) {
    let me = rule(code);
    for f in crate::expressions::findings(ctx)
        .iter()
        .filter(|f| f.code == code)
    {
        out.push(Diagnostic::at(
            me,
            f.file,
            f.span.clone(),
            f.message.clone(),
        ));
    }
}
