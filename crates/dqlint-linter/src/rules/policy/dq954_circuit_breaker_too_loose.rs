//! ## What it does
//! Reports a circuit breaker (as DQ953 recognises them) of a dataset that
//! `[policy.circuit_breaker]` selects whose threshold is looser than
//! `max_quarantine_ratio`, or which divides by a count that can be zero
//! without a guard.
//!
//! In detail:
//!
//! - its threshold lets more of a batch be quarantined than
//!   `max_quarantine_ratio` (`quarantined <= 0.2 * total` under a 5%
//!   policy), and no other breaker of the dataset keeps to it. A total
//!   that may be the clean count alone (`q <= r * clean`) is read as
//!   letting `r / (1 + r)` of the batch through, the smaller reading; or
//! - it divides by a count that is zero on an empty batch without a guard
//!   (`quarantined / total`). The finding points at the divisor.
//!   Guards recognised: an alternative for the zero count (`total = 0 OR
//!   quarantined / total <= 0.05`; DQX `input_row_count > 0 and ...`),
//!   `nullif(total, 0)` under `coalesce`, `greatest(total, 1)`, `total +
//!   1`.
//!
//! ## Why is this bad?
//! A breaker looser than the policy lets the clean table lose a fifth of
//! its rows while the update succeeds: the team's 5% rule is not enforced
//! although a breaker exists. An unguarded division breaks on the batch
//! that has no rows: Spark under ANSI mode fails the update with
//! `DIVIDE_BY_ZERO` (a pipeline stopped for nothing), without ANSI mode
//! the comparison is NULL and checks nothing; DQX's condition evaluator
//! raises `InvalidConditionError` on the `ZeroDivisionError`.
//!
//! ## Example (bad)
//! `dqlint.toml`:
//! ```toml
//! [policy.circuit_breaker]
//! datasets = ["silver_*"]
//! max_quarantine_ratio = 0.05
//! ```
//!
//! `transformations/ledger.py`:
//! ```python
//! from pyspark import pipelines as dp
//! from pyspark.sql import functions as F
//!
//! @dp.temporary_view()
//! def ledger_raw():
//!     return spark.readStream.table("bronze_ledger")
//!
//! @dp.table()
//! @dp.expect_or_drop("valid_amount", "amount IS NOT NULL AND amount > 0")
//! def silver_ledger():
//!     return spark.readStream.table("ledger_raw")
//!
//! @dp.table()
//! def quarantine_ledger():
//!     return spark.readStream.table("ledger_raw").filter(
//!         "NOT (amount IS NOT NULL AND amount > 0)"
//!     )
//!
//! @dp.materialized_view()
//! @dp.expect_or_fail("at_most_20_percent_quarantined", "quarantined / total <= 0.2")
//! def ledger_breaker():
//!     q = spark.read.table("quarantine_ledger").agg(F.count("*").alias("quarantined"))
//!     c = spark.read.table("silver_ledger").agg(F.count("*").alias("clean"))
//!     return q.crossJoin(c).withColumn("total", F.col("quarantined") + F.col("clean"))
//! ```
//!
//! ## Example (good)
//! `transformations/ledger.py`:
//! ```python
//! from pyspark import pipelines as dp
//! from pyspark.sql import functions as F
//!
//! @dp.temporary_view()
//! def ledger_raw():
//!     return spark.readStream.table("bronze_ledger")
//!
//! @dp.table()
//! @dp.expect_or_drop("valid_amount", "amount IS NOT NULL AND amount > 0")
//! def silver_ledger():
//!     return spark.readStream.table("ledger_raw")
//!
//! @dp.table()
//! def quarantine_ledger():
//!     return spark.readStream.table("ledger_raw").filter(
//!         "NOT (amount IS NOT NULL AND amount > 0)"
//!     )
//!
//! @dp.materialized_view()
//! @dp.expect_or_fail("at_most_5_percent_quarantined", "total = 0 OR quarantined / total <= 0.05")
//! def ledger_breaker():
//!     q = spark.read.table("quarantine_ledger").agg(F.count("*").alias("quarantined"))
//!     c = spark.read.table("silver_ledger").agg(F.count("*").alias("clean"))
//!     return q.crossJoin(c).withColumn("total", F.col("quarantined") + F.col("clean"))
//! ```
//!
//! ## Fix
//! Lower the threshold to the policy's ratio (or raise
//! `max_quarantine_ratio` if the team allows more), and guard the
//! division: `total = 0 OR quarantined / total <= 0.05`, or compare
//! without dividing, `quarantined <= 0.05 * total`.

use std::collections::HashSet;

use crate::diagnostic::Diagnostic;
use crate::engine::{Context, Findings};
use crate::registry::rule;
use crate::rules::policy::{breaker_state, datasets, percent, within, BreakerState};

pub fn check(ctx: &Context, out: &mut Findings) {
    if ctx.team_policy.circuit_breaker.is_none() {
        return;
    }
    let me = rule("DQ954");
    // One breaker may watch several datasets (a DQX engine's action):
    // each finding is made once.
    let mut reported: HashSet<(dqlint_project::FileId, usize, usize)> = HashSet::new();
    for dataset in datasets(ctx) {
        let BreakerState::Present {
            breakers,
            max_ratio,
        } = breaker_state(ctx, dataset)
        else {
            continue;
        };
        let keeps_to_policy = breakers
            .iter()
            .any(|b| b.max_share.is_some_and(|s| within(s, max_ratio)));
        for breaker in breakers {
            if let Some(share) = breaker.max_share.filter(|_| !keeps_to_policy) {
                let site = &breaker.site;
                if reported.insert((site.file, site.span.start, site.span.end)) {
                    out.push(Diagnostic::at(
                        me,
                        site.file,
                        site.span.clone(),
                        format!(
                            "{} lets up to {} of a batch of `{}` be quarantined before it fails; \
                             [policy.circuit_breaker] allows {}",
                            breaker.label,
                            percent(share),
                            dataset.label,
                            percent(max_ratio)
                        ),
                    ));
                }
            }
            if let Some(divisor) = &breaker.unguarded_divisor {
                if reported.insert((divisor.file, divisor.span.start, divisor.span.end)) {
                    let text = ctx
                        .project
                        .file(divisor.file)
                        .text
                        .get(divisor.span.clone());
                    let written = text.map_or_else(|| "a count".to_string(), |t| format!("`{t}`"));
                    let (outcome, guard) = if breaker.dqx {
                        (
                            "DQX's condition evaluator raises `InvalidConditionError`",
                            "`input_row_count > 0 and ...`",
                        )
                    } else {
                        (
                            "under ANSI mode the update fails, without it the check is NULL \
                             and checks nothing",
                            "`<count> = 0 OR ...`",
                        )
                    };
                    out.push(Diagnostic::at(
                        me,
                        divisor.file,
                        divisor.span.clone(),
                        format!(
                            "{} divides by {written}, which is 0 on an empty batch: {outcome}; \
                             guard it ({guard}) or compare without dividing",
                            breaker.label
                        ),
                    ));
                }
            }
        }
    }
}
