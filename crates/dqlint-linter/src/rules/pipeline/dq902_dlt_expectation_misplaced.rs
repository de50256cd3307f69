//! ## What it does
//! Reports an expectation decorator that no dataset decorator applies to:
//! on a function without `@dp.table`, `@dp.materialized_view`,
//! `@dp.temporary_view` (or the legacy `@dlt.view`), above the dataset
//! decorator, or on an `@dp.append_flow`.
//!
//! ## Why is this bad?
//! Decorators apply bottom-up: the dataset decorator collects the
//! expectations written below it. One above it, or on a function that
//! declares no dataset, checks no row of any dataset. A flow takes no
//! expectations: its rows are checked by the target's.
//!
//! ## Example (bad)
//! `pipelines/orders.py`:
//! ```python
//! from pyspark import pipelines as dp
//!
//! @dp.expect_or_drop("valid_price", "price > 0")
//! @dp.table
//! def orders():
//!     return spark.readStream.table("orders_raw")
//! ```
//!
//! ## Example (good)
//! `pipelines/orders.py`:
//! ```python
//! from pyspark import pipelines as dp
//!
//! @dp.table
//! @dp.expect_or_drop("valid_price", "price > 0")
//! def orders():
//!     return spark.readStream.table("orders_raw")
//! ```
//!
//! ## Fix
//! Put the expectation decorators below the dataset decorator; a safe fix
//! moves one written above it. For an append flow, declare the rules on its
//! target (`create_streaming_table(..., expect_all_or_drop=...)`) or on the
//! dataset the flow reads.

use dqlint_pipeline::model::{ApiMisuse, Misplacement};

use crate::diagnostic::{Applicability, Diagnostic, Edit, Fix};
use crate::engine::{Context, Findings};
use crate::registry::rule;
use crate::rules::pipeline::sources;

pub fn check(ctx: &Context, out: &mut Findings) {
    let me = rule("DQ902");
    for source in sources(ctx) {
        let text: &str = &source.file.text;
        for misuse in &source.model.api_misuses {
            let ApiMisuse::MisplacedExpectation {
                decorator,
                why,
                belongs_at,
            } = misuse
            else {
                continue;
            };
            let message = match why {
                Misplacement::NoDataset => {
                    "this expectation is on a function that declares no dataset (no `table`, \
                     `materialized_view` or `temporary_view` decorator): it checks no rows"
                }
                Misplacement::AboveDataset => {
                    "this expectation is above the dataset decorator, which collects only the \
                     expectations below it: it checks no rows"
                }
                Misplacement::OnAppendFlow => {
                    "an append flow takes no expectations: declare them on its target \
                     (`create_streaming_table(..., expect_all_or_drop=...)`) or on the dataset \
                     it reads"
                }
            };
            let mut d = Diagnostic::at(me, source.id(), decorator.clone(), message);
            if let Some(to) = belongs_at {
                if let Some(fix) = move_below(text, decorator.clone(), *to) {
                    d = d.fix(Fix {
                        description: "Move the expectation below the dataset decorator".to_string(),
                        applicability: Applicability::Safe,
                        edits: fix
                            .into_iter()
                            .map(|(span, new_text)| Edit {
                                file: source.id(),
                                span,
                                new_text,
                            })
                            .collect(),
                    });
                }
            }
            out.push(d);
        }
    }
}

/// The edits that move the decorator's lines to the line starting at `to`:
/// `None` when the lines hold anything else.
fn move_below(
    text: &str,
    decorator: std::ops::Range<usize>,
    to: usize,
) -> Option<Vec<(std::ops::Range<usize>, String)>> {
    let start = text
        .get(..decorator.start)?
        .rfind('\n')
        .map_or(0, |i| i + 1);
    let rest = text.get(decorator.end..)?;
    let end = rest
        .find('\n')
        .map_or(text.len(), |i| decorator.end + i + 1);
    if !text[start..decorator.start].trim().is_empty()
        || !text[decorator.end..end].trim().is_empty()
        || to < end
        || to > text.len()
    {
        return None;
    }
    let mut lines = text[start..end].to_string();
    if !lines.ends_with('\n') {
        lines.push('\n');
    }
    Some(vec![(start..end, String::new()), (to..to, lines)])
}
