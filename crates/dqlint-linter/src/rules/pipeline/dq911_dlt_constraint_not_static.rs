//! ## What it does
//! Reports an expectation whose constraint (or rule dict) dqlint cannot
//! know without running the code: the result of a function call, a value
//! read from a table or the Spark conf, a loop variable over anything but
//! a literal list. It says what was not known, and why.
//!
//! ## Why is this bad?
//! Nothing is wrong with the pipeline as such, but its rules are not
//! checked: a syntax error, a subquery or a misspelled column in them
//! shows only when the pipeline runs. A call of a function listed in
//! `[dlt] rule_loaders` is not reported: its entry's rules are read from
//! `[policy] registry` (DQ952 reports an entry the registry lacks), or,
//! without a registry, are the loader's to check. With a registry, such a
//! call whose argument is not a string literal is reported: the entry it
//! loads cannot be resolved.
//!
//! ## Example (bad)
//! `pipelines/orders.py`:
//! ```python
//! from pyspark import pipelines as dp
//!
//! @dp.table
//! @dp.expect_all_or_drop(load_rules("orders"))
//! def orders():
//!     return spark.readStream.table("orders_raw")
//! ```
//!
//! ## Example (good)
//! `pipelines/orders.py`:
//! ```python
//! from pyspark import pipelines as dp
//!
//! RULES = {"valid_price": "price > 0"}
//!
//! @dp.table
//! @dp.expect_all_or_drop(RULES)
//! def orders():
//!     return spark.readStream.table("orders_raw")
//! ```
//!
//! ## Fix
//! Write the rules as literals, module-level names or a dict built from
//! them (f-strings, `join`, comprehensions over `.items()`), import them
//! from a module of the project, or declare the loader in `[dlt]
//! rule_loaders`.

use dqlint_pipeline::model::Constraint;

use crate::diagnostic::Diagnostic;
use crate::engine::{Context, Findings};
use crate::registry::rule;
use crate::rules::pipeline::{loader_call, sources};

pub fn check(ctx: &Context, out: &mut Findings) {
    let me = rule("DQ911");
    for source in sources(ctx) {
        let text: &str = &source.file.text;
        for dataset in &source.model.datasets {
            for e in &dataset.expectations {
                let Constraint::Unknown { span, reason } = &e.constraint else {
                    continue;
                };
                // A loader call is resolved against the registry (DQ952 when
                // its entry is unknown); without a registry, or with an
                // argument naming an entry, it is not this rule's.
                let reason = match loader_call(text, span, &ctx.dlt.rule_loaders) {
                    None => reason.clone(),
                    Some(call) if call.entry.is_none() && !ctx.team_policy.registry.is_empty() => {
                        format!(
                            "the argument of `{}` is not a string literal, so the registry \
                             entry it loads cannot be resolved",
                            call.callee
                        )
                    }
                    Some(_) => continue,
                };
                let (what, are) = match &e.name {
                    Some(name) => (format!("the constraint of `{}`", name.name), "is"),
                    None => ("the rules of this expectation".to_string(), "are"),
                };
                out.push(Diagnostic::at(
                    me,
                    source.id(),
                    span.clone(),
                    format!(
                        "{what} on dataset `{}` {are} not known statically ({reason}): not \
                         checked",
                        dataset.name.name
                    ),
                ));
            }
        }
    }
}
