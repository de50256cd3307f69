//! ## What it does
//! Reports argument values DQX rejects only when it builds the rules
//! (after `validate_checks` passed them): an empty `allowed` list
//! (`is_in_list`, `is_not_null_and_is_in_list`) or `forbidden` list
//! (`is_not_in_list`); for `foreign_key` and `compare_datasets`, both or
//! neither of `ref_df_name` and `ref_table`, and `columns` and
//! `ref_columns` of different lengths (DQX's `_validate_ref_params`;
//! `aggr_matches_dataset` needs one of the two as well); a missing limit
//! (`value`, `min_limit`/`max_limit`, `limit`: "Limit is not provided.");
//! `is_geo_covers`/`is_geo_intersects` without `resolution` while
//! `precise` is false; an enumerated value DQX does not know, with a
//! did-you-mean (`case` of `has_valid_string_case`, `code_format` of the
//! ISO code checks, `country` of `is_valid_national_id`, `time_interval`
//! of `has_no_aggr_outliers`); `has_no_aggr_outliers` with `sigma <= 0`,
//! `lookback_num_intervals < 2` or `warmup_num_intervals` outside
//! `1..=lookback_num_intervals`.
//! The other build-time constraints of the contract (CIDR blocks,
//! tolerances, schema DDL) are not checked yet; a non-curated `aggr_type`
//! is only a warning in DQX 0.17.0 (it runs the Spark aggregate).
//!
//! ## Why is this bad?
//! The checks pass validation, then building them raises
//! `InvalidParameterError` / `MissingParameterError`, and nothing runs.
//!
//! ## Example (bad)
//! `quality/orders_checks.yml`:
//! ```yaml
//! - criticality: error
//!   check:
//!     function: foreign_key
//!     arguments:
//!       columns: [customer_id, region]
//!       ref_columns: [id]
//!       ref_table: main.crm.customers
//! ```
//!
//! ## Example (good)
//! `quality/orders_checks.yml`:
//! ```yaml
//! - criticality: error
//!   check:
//!     function: foreign_key
//!     arguments:
//!       columns: [customer_id, region]
//!       ref_columns: [id, region]
//!       ref_table: main.crm.customers
//! ```
//!
//! ## Fix
//! Give a value DQX can build the check with.

use crate::diagnostic::Diagnostic;
use crate::engine::{Context, Findings};
use crate::registry::rule;
use crate::rules::dqx::{checks_files, closest};

/// The enumerated parameters DQX 0.17.0 checks when it builds the rule:
/// the parameter, its values, and whether case is ignored.
fn enumeration(function: &str) -> Option<(&'static str, &'static [&'static str], bool)> {
    Some(match function {
        "has_valid_string_case" => ("case", &["lower", "sentence", "title", "upper"], false),
        "is_valid_country_code" => ("code_format", &["alpha-2", "alpha-3", "numeric"], true),
        "is_valid_language_code" => ("code_format", &["alpha-2", "alpha-3"], true),
        "is_valid_currency_code" => ("code_format", &["alphabetic", "numeric"], true),
        "is_valid_national_id" => ("country", &["GB", "IN", "US"], true),
        "has_no_aggr_outliers" => (
            "time_interval",
            &["day", "hour", "minute", "month", "week"],
            false,
        ),
        _ => return None,
    })
}

pub fn check(ctx: &Context, out: &mut Findings) {
    let me = rule("DQ818");
    for file in checks_files(ctx) {
        for item in file.items() {
            let Some(check) = item.get("check") else {
                continue;
            };
            let Some(function) = check.get("function").and_then(|f| f.as_str()) else {
                continue;
            };
            let Some(args) = check.get("arguments").filter(|a| a.as_map().is_some()) else {
                continue;
            };
            let mut report = |span: std::ops::Range<usize>, why: String| {
                out.push(Diagnostic::at(
                    me,
                    file.id(),
                    span,
                    format!("{why}: DQX fails when it builds the checks, and nothing runs"),
                ));
            };
            let list_key = match function {
                "is_in_list" | "is_not_null_and_is_in_list" => Some("allowed"),
                "is_not_in_list" => Some("forbidden"),
                _ => None,
            };
            if let Some(key) = list_key {
                if let Some(v) = args.get(key) {
                    if v.as_list().is_some_and(|l| l.is_empty()) {
                        report(v.span.clone(), format!("`{key}` is empty"));
                    }
                }
            }
            // limits DQX's get_limit_expr needs ("Limit is not provided.")
            let limits: &[&str] = match function {
                "is_equal_to" | "is_not_equal_to" => &["value"],
                "is_in_range" | "is_not_in_range" => &["min_limit", "max_limit"],
                "is_not_greater_than" | "is_not_less_than" | "has_num_decimal_places" => &["limit"],
                _ => &[],
            };
            let arguments_key = check
                .entry("arguments")
                .map_or(args.span.clone(), |e| e.key.span.clone());
            for key in limits {
                if args.get(key).is_none_or(|v| v.is_none()) {
                    report(
                        arguments_key.clone(),
                        format!("`{key}` is not given (DQX: \"Limit is not provided.\")"),
                    );
                }
            }
            if matches!(function, "is_geo_covers" | "is_geo_intersects") {
                let precise = args
                    .get("precise")
                    .is_some_and(|v| matches!(v.kind, dqlint_dqx::Kind::Bool(true)));
                if !precise && args.get("resolution").is_none_or(|v| v.is_none()) {
                    report(
                        arguments_key.clone(),
                        "`resolution` is required when `precise` is false (its default)".into(),
                    );
                }
            }
            if let Some((key, allowed, case_insensitive)) = enumeration(function) {
                if let Some(v) = args.get(key) {
                    if let Some(text) = v.as_str() {
                        let probe = if case_insensitive {
                            text.to_ascii_lowercase()
                        } else {
                            text.to_string()
                        };
                        let known = allowed.iter().any(|a| {
                            if case_insensitive {
                                a.eq_ignore_ascii_case(&probe)
                            } else {
                                *a == probe
                            }
                        });
                        if !known {
                            let hint = closest(text, allowed.iter().copied())
                                .map(|m| format!(" (did you mean `{m}`?)"))
                                .unwrap_or_default();
                            report(
                                v.span.clone(),
                                format!(
                                    "`{key}` of `{function}` is `{text}`, not one of {}{hint}",
                                    allowed
                                        .iter()
                                        .map(|a| format!("`{a}`"))
                                        .collect::<Vec<_>>()
                                        .join(", ")
                                ),
                            );
                        }
                    }
                }
            }
            if function == "has_no_aggr_outliers" {
                let number = |k: &str| -> Option<(f64, std::ops::Range<usize>)> {
                    let v = args.get(k)?;
                    match v.kind {
                        dqlint_dqx::Kind::Int(i) => Some((i as f64, v.span.clone())),
                        dqlint_dqx::Kind::Float(f) => Some((f, v.span.clone())),
                        _ => None,
                    }
                };
                if let Some((sigma, span)) = number("sigma") {
                    if sigma <= 0.0 {
                        report(
                            span,
                            format!("`sigma` is {sigma}; DQX needs a positive number"),
                        );
                    }
                }
                let lookback = number("lookback_num_intervals");
                if let Some((n, span)) = &lookback {
                    if *n < 2.0 {
                        report(
                            span.clone(),
                            format!("`lookback_num_intervals` is {n}; DQX needs at least 2"),
                        );
                    }
                }
                let lookback = lookback.map_or(14.0, |(n, _)| n);
                if let Some((w, span)) = number("warmup_num_intervals") {
                    if w < 1.0 || w > lookback {
                        report(
                            span,
                            format!(
                                "`warmup_num_intervals` is {w}; DQX needs 1 <= warmup_num_intervals <= lookback_num_intervals ({lookback})"
                            ),
                        );
                    }
                }
            }
            if matches!(
                function,
                "foreign_key" | "compare_datasets" | "aggr_matches_dataset"
            ) {
                let given = |k: &str| args.get(k).filter(|v| !v.is_none());
                match (given("ref_df_name"), given("ref_table")) {
                    (Some(_), Some(t)) => report(
                        t.span.clone(),
                        "both `ref_df_name` and `ref_table` are given; DQX takes exactly one"
                            .into(),
                    ),
                    (None, None) => {
                        let at = check
                            .entry("arguments")
                            .map_or(args.span.clone(), |e| e.key.span.clone());
                        report(
                            at,
                            "neither `ref_df_name` nor `ref_table` is given; DQX needs exactly one"
                                .into(),
                        )
                    }
                    _ => {}
                }
                let columns = given("columns").and_then(|c| c.as_list());
                let ref_columns = given("ref_columns").and_then(|c| c.as_list());
                if let (Some(c), Some(r)) = (columns, ref_columns) {
                    if c.len() != r.len() {
                        let at = given("ref_columns")
                            .map(|v| v.span.clone())
                            .unwrap_or_default();
                        report(
                            at,
                            format!(
                                "`columns` has {} item(s) and `ref_columns` {}: DQX compares \
                                 them by position",
                                c.len(),
                                r.len()
                            ),
                        );
                    }
                }
            }
        }
    }
}
