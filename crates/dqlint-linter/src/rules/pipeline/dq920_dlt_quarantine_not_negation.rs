//! ## What it does
//! Finds a hand-made quarantine dataset (named like one, by `[dlt]
//! quarantine_names`, or built from the clean dataset's rule texts) that
//! reads the same upstream as a clean dataset with drop rules, and whose
//! row predicate is not `NOT (r1 AND ... AND rn)` over those rules. It
//! compares the two after normalising them (flattened AND/OR, NOT pushed
//! through De Morgan and comparisons, conjuncts in order), so
//! `NOT (a) OR NOT (b)` and `"NOT({0})".format(" AND ".join(RULES.values()))`
//! are recognised as the exact negation. Forms that differ are evaluated
//! on candidate rows under three-valued logic: it reports only when it
//! finds a row the two tables disagree on, and names it ("a row with
//! `price = 0, order_id = NULL` is in neither table"); `a > 0 AND a > 1`
//! against `a > 1` is no finding.
//!
//! ## Why is this bad?
//! The quarantine table exists to keep exactly the rows the clean table
//! drops. A filter on one rule of several (`NOT ({RULES['valid_price']})`
//! when `RULES` has two) loses the rows failing only the other rule: they
//! are in neither table. A per-rule `expect_all_or_drop({k: f"NOT ({v})"})`
//! keeps only rows failing **all** rules. A rule added to one side only
//! makes the tables overlap or leak. Nothing fails: rows simply vanish.
//!
//! ## Example (bad)
//! `transformations/sales.py`:
//! ```python
//! from pyspark import pipelines as dp
//!
//! RULES = {
//!     "valid_price": "price IS NOT NULL AND price > 0",
//!     "valid_id": "order_id IS NOT NULL",
//! }
//!
//! @dp.temporary_view()
//! def raw_sales():
//!     return spark.readStream.table("raw_ingestion")
//!
//! @dp.table()
//! @dp.expect_all_or_drop(RULES)
//! def sales_clean():
//!     return spark.readStream.table("raw_sales")
//!
//! @dp.table()
//! def sales_quarantine():
//!     return spark.readStream.table("raw_sales").filter(f"NOT ({RULES['valid_price']})")
//! ```
//!
//! ## Example (good)
//! `transformations/sales.py`:
//! ```python
//! from pyspark import pipelines as dp
//!
//! RULES = {
//!     "valid_price": "price IS NOT NULL AND price > 0",
//!     "valid_id": "order_id IS NOT NULL",
//! }
//!
//! @dp.temporary_view()
//! def raw_sales():
//!     return spark.readStream.table("raw_ingestion")
//!
//! @dp.table()
//! @dp.expect_all_or_drop(RULES)
//! def sales_clean():
//!     return spark.readStream.table("raw_sales")
//!
//! @dp.table()
//! def sales_quarantine():
//!     return spark.readStream.table("raw_sales").filter(
//!         "NOT ({0})".format(" AND ".join(RULES.values()))
//!     )
//! ```
//!
//! ## Fix
//! Filter the quarantine on the negation of the conjunction of every drop
//! rule, built from the same dict (`"NOT ({0})".format(" AND
//! ".join(RULES.values()))`). The unsafe fix writes the exact negation of
//! the clean dataset's drop rules in place of the filter, as a literal.

use dqlint_pipeline::model::Language;
use dqlint_pipeline::quarantine::Coverage;

use crate::diagnostic::{Applicability, Diagnostic, Edit, Fix};
use crate::engine::{Context, Findings};
use crate::registry::rule;
use crate::rules::pipeline::{
    expectation_label, expectation_site, file_at, python_string, quarantine_patterns,
    quarantine_site, sources,
};
use dqlint_project::Origin;

pub fn check(ctx: &Context, out: &mut Findings) {
    let me = rule("DQ920");
    for pattern in quarantine_patterns(ctx) {
        let Some(coverage) = &pattern.coverage else {
            continue;
        };
        if coverage.equivalent {
            continue;
        }
        let (clean_file, q_file) = (
            file_at(ctx, pattern.clean.0),
            file_at(ctx, pattern.quarantine.0),
        );
        let (clean, q) = (pattern.clean.1, pattern.quarantine.1);
        let site = quarantine_site(&pattern);
        let message = format!(
            "quarantine `{}` does not keep exactly the rows `{}` drops: {}",
            q.name.name,
            clean.name.name,
            what_differs(coverage)
        );
        let mut diagnostic = Diagnostic::at(me, q_file, site, message).related(
            &Origin::new(clean_file, clean.name.span.clone()),
            format!("the clean dataset `{}`", clean.name.name),
        );
        for rule in &coverage.uncovered {
            diagnostic = diagnostic.related(
                &Origin::new(clean_file, expectation_site(rule)),
                format!(
                    "drop rule {}: its failing rows reach neither table",
                    expectation_label(rule)
                ),
            );
        }
        // One row filter and no drop rule of its own: the filter is the
        // whole predicate, and the exact negation can take its place.
        if q.row_filters.len() == 1
            && !q
                .expectations
                .iter()
                .any(|e| e.action == dqlint_pipeline::model::ExpectAction::Drop)
        {
            let filter = &q.row_filters[0];
            let language = sources(ctx)[pattern.quarantine.0].language();
            let new_text = match language {
                Language::Python => python_string(&coverage.exact_negation),
                Language::Sql => coverage.exact_negation.clone(),
            };
            diagnostic = diagnostic.fix(Fix {
                applicability: Applicability::Unsafe,
                description: format!("filter on `{}`", coverage.exact_negation),
                edits: vec![Edit {
                    file: q_file,
                    span: filter.span.clone(),
                    new_text,
                }],
            });
        }
        out.push(diagnostic);
    }
}

fn what_differs(coverage: &Coverage) -> String {
    let mut parts = Vec::new();
    if coverage.only_rows_failing_all {
        parts.push(
            "it keeps only the rows failing every rule at once, not the rows failing any one of them"
                .to_string(),
        );
    } else if !coverage.uncovered.is_empty() {
        let labels: Vec<String> = coverage
            .uncovered
            .iter()
            .map(|r| expectation_label(r))
            .collect();
        parts.push(format!(
            "rows failing {} are dropped from the clean table and never quarantined",
            labels.join(", ")
        ));
    }
    if coverage.extra_condition {
        parts.push(
            "it also keeps rows that no rule rejects, which are then in both tables".to_string(),
        );
    }
    if parts.is_empty() {
        parts.push("its filter is not the negation of the drop rules".to_string());
    }
    let mut rows = Vec::new();
    if let Some(row) = &coverage.in_neither {
        rows.push(format!("a row with {row} is in neither table"));
    }
    if let Some(row) = &coverage.in_both {
        rows.push(format!("a row with {row} is in both"));
    }
    format!(
        "{} ({}); the exact negation is `{}`",
        parts.join(", and "),
        rows.join(", and "),
        coverage.exact_negation
    )
}
