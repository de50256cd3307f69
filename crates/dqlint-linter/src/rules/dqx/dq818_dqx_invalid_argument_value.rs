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
//! `1..=lookback_num_intervals`; a `cidr_block` that is empty or not an
//! IPv4 (`is_ipv4_address_in_cidr`) or IPv6 (`is_ipv6_address_in_cidr`)
//! CIDR block; a negative `abs_tolerance` or `rel_tolerance`; a time window
//! that is not positive (`window_minutes`, `min_records_per_window`,
//! `lookback_windows`) and `curr_timestamp` without `trailing_gap`;
//! `column: '*'` with an aggregate other than `count` (or, without a row
//! filter, `count_distinct`); `has_json_keys` with no `keys`; and for
//! `has_valid_schema` not exactly one of `expected_schema`, `ref_df_name`,
//! `ref_table`, and a schema string (`expected_schema`, or
//! `has_valid_json_schema`'s `schema`) that Spark does not read as a struct
//! (the grammar of PySpark's `_parse_datatype_string`, which DQX calls).
//! A non-curated `aggr_type` is only a warning in DQX 0.17.0 (it runs the
//! Spark aggregate).
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

use std::ops::Range;

use crate::diagnostic::Diagnostic;
use crate::engine::{Context, Findings};
use crate::registry::rule;
use crate::rules::dqx::{closest, ChecksFile};

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

/// The aggregates DQX 0.17.0 curates for `aggr_type`
/// (`CURATED_AGGR_FUNCTIONS`; any other built-in aggregate runs with a
/// warning).
pub const CURATED_AGGREGATES: &[&str] = &[
    "count",
    "sum",
    "avg",
    "min",
    "max",
    "count_distinct",
    "approx_count_distinct",
    "count_if",
    "stddev",
    "stddev_pop",
    "stddev_samp",
    "variance",
    "var_pop",
    "var_samp",
    "median",
    "mode",
    "skewness",
    "kurtosis",
    "percentile",
    "approx_percentile",
];

/// The values an argument of `function` takes where DQX enumerates them:
/// the enumerations it checks when it builds the rule, and the curated
/// `aggr_type`s (for completion).
pub fn argument_values(function: &str, param: &str) -> Option<&'static [&'static str]> {
    if param == "aggr_type" {
        return Some(CURATED_AGGREGATES);
    }
    enumeration(function)
        .filter(|(key, ..)| *key == param)
        .map(|(_, values, _)| values)
}

pub fn check(_ctx: &Context, file: &ChecksFile, out: &mut Findings) {
    let me = rule("DQ818");
    for (_, fields) in file.checks() {
        let Some(check) = fields.check else {
            continue;
        };
        let Some(function) = fields.function.and_then(|f| f.as_str()) else {
            continue;
        };
        let Some(args) = fields.arguments.filter(|a| a.as_map().is_some()) else {
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
        let row_filter = fields
            .filter
            .or_else(|| args.get("row_filter"))
            .and_then(|f| f.as_str())
            .is_some_and(|f| !f.trim().is_empty());
        for (span, why) in build_constraints(function, args, row_filter) {
            report(span.unwrap_or_else(|| arguments_key.clone()), why);
        }
        if matches!(
            function,
            "foreign_key" | "compare_datasets" | "aggr_matches_dataset"
        ) {
            let given = |k: &str| args.get(k).filter(|v| !v.is_none());
            match (given("ref_df_name"), given("ref_table")) {
                (Some(_), Some(t)) => report(
                    t.span.clone(),
                    "both `ref_df_name` and `ref_table` are given; DQX takes exactly one".into(),
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

/// A number argument as DQX sees it (ints and floats; a bool is an int in
/// Python, but DQ813/DQ814 report those).
fn number(args: &dqlint_dqx::Typed, key: &str) -> Option<(f64, Range<usize>)> {
    let v = args.get(key)?;
    match v.kind {
        dqlint_dqx::Kind::Int(i) => Some((i as f64, v.span.clone())),
        dqlint_dqx::Kind::Float(f) => Some((f, v.span.clone())),
        dqlint_dqx::Kind::Decimal(ref d) => d.parse().ok().map(|f| (f, v.span.clone())),
        _ => None,
    }
}

/// The build-time checks of DQX 0.17.0's check functions beyond lists,
/// limits, enumerations and references: CIDR blocks, tolerances, time
/// windows, `'*'` aggregates, JSON keys and schema strings. Each finding
/// is its span (`None`: the `arguments` key) and why.
fn build_constraints(
    function: &str,
    args: &dqlint_dqx::Typed,
    row_filter: bool,
) -> Vec<(Option<Range<usize>>, String)> {
    let mut out = Vec::new();
    let given = |k: &str| args.get(k).filter(|v| !v.is_none());
    if let Some(version) = match function {
        "is_ipv4_address_in_cidr" => Some(4),
        "is_ipv6_address_in_cidr" => Some(6),
        _ => None,
    } {
        if let Some(v) = given("cidr_block") {
            if let Some(block) = v.as_str() {
                if block.is_empty() {
                    out.push((Some(v.span.clone()), "`cidr_block` is empty".into()));
                } else if !valid_cidr(block, version) {
                    out.push((
                        Some(v.span.clone()),
                        format!("`{block}` is not an IPv{version} CIDR block (address/prefix)"),
                    ));
                }
            }
        }
    }
    if matches!(
        function,
        "is_equal_to"
            | "is_not_equal_to"
            | "compare_datasets"
            | "is_aggr_equal"
            | "is_aggr_not_equal"
            | "aggr_matches_dataset"
    ) {
        for key in ["abs_tolerance", "rel_tolerance"] {
            if let Some((t, span)) = number(args, key) {
                if t < 0.0 {
                    out.push((
                        Some(span),
                        format!("`{key}` is {t}; DQX needs tolerances that are not negative"),
                    ));
                }
            }
        }
    }
    let positive = |key: &str, out: &mut Vec<(Option<Range<usize>>, String)>| {
        if let Some((n, span)) = number(args, key) {
            if n <= 0.0 {
                out.push((
                    Some(span),
                    format!("`{key}` is {n}; DQX needs a positive integer"),
                ));
            }
        }
    };
    match function {
        "is_data_fresh_per_time_window" => {
            positive("window_minutes", &mut out);
            positive("min_records_per_window", &mut out);
            positive("lookback_windows", &mut out);
        }
        "has_no_gaps_per_time_window" => {
            positive("window_minutes", &mut out);
            let trailing = args
                .get("trailing_gap")
                .is_some_and(|v| matches!(v.kind, dqlint_dqx::Kind::Bool(true)));
            if let Some(v) = given("curr_timestamp") {
                if !trailing {
                    out.push((
                        Some(v.span.clone()),
                        "`curr_timestamp` is given but `trailing_gap` is not true; DQX \
                         takes it only with `trailing_gap: true`"
                            .into(),
                    ));
                }
            }
        }
        "has_json_keys" => {
            if let Some(v) = args.get("keys") {
                if v.as_list().is_some_and(|l| l.is_empty()) {
                    out.push((Some(v.span.clone()), "`keys` is empty".into()));
                }
            }
        }
        _ => {}
    }
    // `'*'` counts rows: DQX's validate_star_aggregate
    let default_aggregate = match function {
        "is_aggr_not_greater_than"
        | "is_aggr_not_less_than"
        | "is_aggr_equal"
        | "is_aggr_not_equal"
        | "aggr_matches_dataset" => Some("count"),
        "has_no_aggr_outliers" => Some("avg"),
        _ => None,
    };
    if let Some(default) = default_aggregate {
        let aggregate = given("aggr_type")
            .and_then(|v| v.as_str())
            .unwrap_or(default);
        let star = |key: &str| given(key).filter(|v| v.as_str().is_some_and(|c| c.trim() == "*"));
        let mut sides = vec![(star("column"), row_filter)];
        if function == "aggr_matches_dataset" {
            // the reference side is aggregated on the filtered reference
            // data (no placeholder); without `ref_column` it is `column`,
            // whose verdict the checked side gives
            let reference = star("ref_column");
            sides.push((reference, false));
        }
        for (column, filtered) in sides {
            let Some(column) = column else { continue };
            let allowed: &[&str] = if filtered {
                &["count"]
            } else {
                &["count", "count_distinct"]
            };
            if !allowed.contains(&aggregate) {
                let with = if filtered { " with a row filter" } else { "" };
                out.push((
                    Some(column.span.clone()),
                    format!(
                        "column `*`{with} counts rows, and `aggr_type` is `{aggregate}`; DQX \
                         takes `*` only with {}",
                        allowed
                            .iter()
                            .map(|a| format!("`{a}`"))
                            .collect::<Vec<_>>()
                            .join(" or ")
                    ),
                ));
            }
        }
    }
    let schema_key = match function {
        "has_valid_schema" => {
            let sources: Vec<&str> = ["expected_schema", "ref_df_name", "ref_table"]
                .into_iter()
                .filter(|k| given(k).is_some())
                .collect();
            if sources.len() != 1 {
                let at = sources
                    .get(1)
                    .and_then(|k| given(k))
                    .map(|v| v.span.clone());
                out.push((
                    at,
                    format!(
                        "{}; DQX needs exactly one of `expected_schema`, `ref_df_name`, `ref_table`",
                        if sources.is_empty() {
                            "none of them is given".to_string()
                        } else {
                            format!("{} are given", sources.iter().map(|k| format!("`{k}`")).collect::<Vec<_>>().join(" and "))
                        }
                    ),
                ));
            }
            Some("expected_schema")
        }
        "has_valid_json_schema" => Some("schema"),
        _ => None,
    };
    if let Some(key) = schema_key {
        if let Some(v) = given(key) {
            if let Some(ddl) = v.as_str() {
                match dqlint_dqx::spark_schema::parse_schema(ddl) {
                    Ok(dqlint_dqx::spark_schema::SchemaShape::Struct(_)) => {}
                    Ok(dqlint_dqx::spark_schema::SchemaShape::NotStruct(ty)) => out.push((
                        Some(v.span.clone()),
                        format!("`{key}` is the single type `{ty}`, not a schema (columns or `struct<...>`)"),
                    )),
                    Err(e) => out.push((
                        Some(v.span.clone()),
                        format!("`{key}` does not parse as a Spark schema (at character {}: {})", ddl[..e.offset.min(ddl.len())].chars().count() + 1, e.message),
                    )),
                }
            }
        }
    }
    out
}

/// `address/prefix` as DQX checks it: for IPv4 its dotted-quad pattern
/// (octets without leading zeros, prefix 0-32), for IPv6 Python's
/// `ipaddress.IPv6Network(block, strict=False)` with a `/` required.
fn valid_cidr(block: &str, version: u8) -> bool {
    let Some((address, prefix)) = block.split_once('/') else {
        return false;
    };
    if version == 4 {
        let octet = |o: &str| {
            !o.is_empty()
                && o.len() <= 3
                && o.bytes().all(|b| b.is_ascii_digit())
                && (o == "0" || !o.starts_with('0'))
                && o.parse::<u16>().is_ok_and(|n| n <= 255)
        };
        let prefix_ok = !prefix.is_empty()
            && prefix.len() <= 2
            && prefix.bytes().all(|b| b.is_ascii_digit())
            && (prefix == "0" || !prefix.starts_with('0') || prefix.len() == 1)
            && prefix.parse::<u8>().is_ok_and(|n| n <= 32);
        let octets: Vec<&str> = address.split('.').collect();
        octets.len() == 4 && octets.iter().all(|o| octet(o)) && prefix_ok
    } else {
        let address = address.split_once('%').map_or(address, |(a, _)| a);
        address.parse::<std::net::Ipv6Addr>().is_ok()
            && !prefix.is_empty()
            && prefix.bytes().all(|b| b.is_ascii_digit())
            && prefix.parse::<u32>().is_ok_and(|n| n <= 128)
    }
}
