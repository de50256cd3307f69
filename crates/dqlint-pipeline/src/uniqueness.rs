//! Uniqueness checks read statically. A row expectation sees one row at a
//! time, so DLT cannot say "`order_id` is unique" on the dataset itself;
//! teams write it as an aggregate over the dataset, grouped by the key,
//! with an expectation on each group's row count (Databricks' own example:
//! `SELECT pk, count(*) AS num_entries FROM report GROUP BY pk` with
//! `expect_or_fail("unique_pk", "num_entries = 1")`).
//!
//! [`unique_checks`] finds them: a view or materialized view whose
//! [`Grouping`] is over one table with no row filter before it, and an
//! expectation that holds only when a group has at most one row
//! ([`at_most_one`]). A streaming table is none: its counts are per
//! micro-batch, and duplicates across batches pass.

use crate::model::{Constraint, Dataset, DatasetKind, Grouping, PipelineExpectation};
use crate::quarantine::InFile;

/// An aggregate dataset checking that `grouping.keys` are unique in
/// `grouping.source`.
#[derive(Debug)]
pub struct UniqueCheck<'a> {
    pub dataset: InFile<'a, Dataset>,
    pub expectation: &'a PipelineExpectation,
    pub grouping: &'a Grouping,
}

/// Every uniqueness check among `datasets`, one per expectation on a count.
pub fn unique_checks<'a>(datasets: &[InFile<'a, Dataset>]) -> Vec<UniqueCheck<'a>> {
    let mut found = Vec::new();
    for &(file, dataset) in datasets {
        let Some(grouping) = &dataset.grouping else {
            continue;
        };
        if dataset.kind == DatasetKind::StreamingTable || grouping.rows_filtered {
            continue;
        }
        for expectation in &dataset.expectations {
            let Constraint::Known(text) = &expectation.constraint else {
                continue;
            };
            if at_most_one(&text.text, &grouping.row_counts) {
                found.push(UniqueCheck {
                    dataset: (file, dataset),
                    expectation,
                    grouping,
                });
            }
        }
    }
    found
}

/// Whether `text` holds exactly when one of `counts` is at most one:
/// `n = 1`, `n == 1`, `n <= 1`, `n < 2`, and the same with the sides
/// swapped (`1 >= n`), in parentheses or not. (A group has at least one
/// row, so `= 1` and `<= 1` say the same.)
pub fn at_most_one(text: &str, counts: &[String]) -> bool {
    let mut text = text.trim();
    while let Some(inner) = text.strip_prefix('(').and_then(|t| t.strip_suffix(')')) {
        if !balanced(inner) {
            break;
        }
        text = inner.trim();
    }
    let Some((at, op)) = ["<=", ">=", "==", "<>", "!=", "=", "<", ">"]
        .iter()
        .find_map(|op| text.find(op).map(|at| (at, *op)))
    else {
        return false;
    };
    // The first operator in the text, not the first in the list.
    let first = text.find(['<', '>', '=', '!']).unwrap_or(at);
    if first != at {
        return false;
    }
    let (left, right) = (text[..at].trim(), text[at + op.len()..].trim());
    let is_count = |side: &str| {
        let name = side.trim_matches('`');
        !name.is_empty()
            && name.chars().all(|c| c.is_alphanumeric() || c == '_')
            && counts.iter().any(|c| c.eq_ignore_ascii_case(name))
    };
    let number = |side: &str| side.parse::<i64>().ok();
    match (is_count(left), number(right), number(left), is_count(right)) {
        (true, Some(n), _, _) => matches!((op, n), ("=" | "==" | "<=", 1) | ("<", 2)),
        (_, _, Some(n), true) => matches!((op, n), ("=" | "==" | ">=", 1) | (">", 2)),
        _ => false,
    }
}

fn balanced(text: &str) -> bool {
    let mut depth = 0i32;
    for c in text.chars() {
        match c {
            '(' => depth += 1,
            ')' => depth -= 1,
            _ => {}
        }
        if depth < 0 {
            return false;
        }
    }
    depth == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    fn counts() -> Vec<String> {
        vec!["num_entries".to_string(), "count".to_string()]
    }

    #[test]
    fn comparisons_that_allow_one_row_per_group() {
        for text in [
            "num_entries = 1",
            "num_entries == 1",
            "(num_entries <= 1)",
            "NUM_ENTRIES < 2",
            "1 = num_entries",
            "1 >= `count`",
            "2 > count",
        ] {
            assert!(at_most_one(text, &counts()), "{text}");
        }
    }

    #[test]
    fn comparisons_that_do_not() {
        for text in [
            "num_entries > 1",
            "num_entries >= 1",
            "num_entries <= 2",
            "num_entries = 0",
            "num_entries != 1",
            "total = 1",
            "num_entries = 1 OR num_entries IS NULL",
            "(num_entries) + 1 <= 2",
            "num_entries",
            "",
            "(num_entries = 1) AND (x = 1)",
        ] {
            assert!(!at_most_one(text, &counts()), "{text}");
        }
    }
}
