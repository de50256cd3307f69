//! ## What it does
//! Reports an AUTO CDC flow that gives both `column_list` and
//! `except_column_list`, or both `track_history_column_list` and
//! `track_history_except_column_list`.
//!
//! ## Why is this bad?
//! Each pair selects columns one way or the other; the API rejects a flow
//! that sets both, and the pipeline fails to load.
//!
//! ## Example (bad)
//! `pipelines/customers.py`:
//! ```python
//! from pyspark import pipelines as dp
//!
//! dp.create_streaming_table("customers")
//!
//! dp.create_auto_cdc_flow(
//!     target="customers",
//!     source="customers_raw",
//!     keys=["customer_id"],
//!     sequence_by="updated_at",
//!     column_list=["customer_id", "name", "city", "updated_at"],
//!     except_column_list=["_rescued_data"],
//! )
//! ```
//!
//! ## Example (good)
//! `pipelines/customers.py`:
//! ```python
//! from pyspark import pipelines as dp
//!
//! dp.create_streaming_table("customers")
//!
//! dp.create_auto_cdc_flow(
//!     target="customers",
//!     source="customers_raw",
//!     keys=["customer_id"],
//!     sequence_by="updated_at",
//!     except_column_list=["_rescued_data"],
//! )
//! ```
//!
//! ## Fix
//! Keep one list of each pair: the columns to include, or the columns to
//! leave out.

use dqlint_pipeline::model::Named;
use dqlint_project::Origin;

use crate::diagnostic::Diagnostic;
use crate::engine::{Context, Findings};
use crate::registry::rule;
use crate::rules::pipeline::sources;

pub fn check(ctx: &Context, out: &mut Findings) {
    let me = rule("DQ935");
    for source in sources(ctx) {
        for cdc in &source.model.auto_cdc {
            let pairs = [
                (
                    "column_list",
                    &cdc.column_list,
                    "except_column_list",
                    &cdc.except_column_list,
                ),
                (
                    "track_history_column_list",
                    &cdc.track_history_column_list,
                    "track_history_except_column_list",
                    &cdc.track_history_except_column_list,
                ),
            ];
            for (include_name, include, except_name, except) in pairs {
                let (Some(include), Some(except)) = (non_empty(include), non_empty(except)) else {
                    continue;
                };
                let (first, last) = (&except[0].span, &except[except.len() - 1].span);
                let span = if last.end >= first.start {
                    first.start..last.end
                } else {
                    first.clone()
                };
                out.push(
                    Diagnostic::new(
                        me,
                        &Origin::new(source.id(), span),
                        format!(
                            "`{except_name}` beside `{include_name}`: an AUTO CDC flow takes \
                             one of the two, and fails to load with both"
                        ),
                    )
                    .related(
                        &Origin::new(source.id(), include[0].span.clone()),
                        format!("`{include_name}` is given here"),
                    ),
                );
            }
        }
    }
}

fn non_empty(list: &Option<Vec<Named>>) -> Option<&Vec<Named>> {
    list.as_ref().filter(|l| !l.is_empty())
}
