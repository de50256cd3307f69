//! Expectations files: their shape, rule actions and names, and what quarantine mode does to them.
pub mod dq201_expectations_file_invalid;
pub mod dq202_no_expectations;
pub mod dq203_rule_without_expression;
pub mod dq204_invalid_rule_action;
pub mod dq205_duplicate_rule_name;
pub mod dq206_rule_value_not_mapping;
pub mod dq207_quarantine_coerces_action;
pub mod dq208_conflicting_rule_action;
