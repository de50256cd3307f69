//! ## What it does
//! Reports a check whose function needs a minimum Databricks Runtime (the
//! geo functions: 17.1): a warning, or an error when `[dqx] dbr` in
//! `dqlint.toml` names an older runtime. Silent when `dbr` is at least the
//! minimum.
//!
//! ## Why is this bad?
//! Before running, DQX compares the runtime with the highest minimum of
//! all the checks it applies (`_validate_dbr_version_requirements`) and
//! raises `InvalidCheckError` when it is older, or when it runs outside
//! Databricks: **the whole run fails**, not only that check. Checked
//! with `dqx_oracle.py --apply` on a local Spark session: validation and
//! building pass, applying raises `InvalidCheckError` ("Check functions
//! with a DBR version requirement can only run on Databricks Runtime").
//!
//! ## Example (bad)
//! `dqlint.toml`:
//! ```toml
//! [dqx]
//! dbr = "16.4"
//! ```
//!
//! `quality/stores_checks.yml`:
//! ```yaml
//! - criticality: error
//!   check:
//!     function: is_geometry
//!     arguments:
//!       column: location
//! ```
//!
//! ## Example (good)
//! `dqlint.toml`:
//! ```toml
//! [dqx]
//! dbr = "17.1"
//! ```
//!
//! ## Fix
//! Run the checks on a runtime at least as recent as the function needs
//! (and say so in `[dqx] dbr`), or drop the check.

use crate::diagnostic::{Diagnostic, Severity};
use crate::engine::{Context, Findings};
use crate::registry::rule;
use crate::rules::dqx::ChecksFile;

/// `MAJOR.MINOR` as numbers (`17.1` -> (17, 1)).
fn version(text: &str) -> Option<(u64, u64)> {
    let (major, minor) = text.trim().split_once('.')?;
    Some((major.parse().ok()?, minor.parse().ok()?))
}

pub fn check(ctx: &Context, file: &ChecksFile, out: &mut Findings) {
    let me = rule("DQ826");
    let target = ctx.dqx.dbr.as_deref();
    for index in 0..file.items().len() {
        let Some(check) = file.resolved(ctx, index) else {
            continue;
        };
        let Some(min) = check.function.min_dbr.as_deref() else {
            continue;
        };
        let name = &check.function.name;
        let finding = match target.and_then(|t| Some((t, version(t)?))) {
            Some((_, now)) if version(min).is_some_and(|m| now >= m) => continue,
            Some((t, _)) => Diagnostic::at(
                me,
                file.id(),
                check.function_node.span.clone(),
                format!(
                    "`{name}` needs Databricks Runtime {min} or later and `[dqx] dbr` is {t}: DQX fails the whole run (InvalidCheckError)"
                ),
            )
            .severity(Severity::Error),
            None => Diagnostic::at(
                me,
                file.id(),
                check.function_node.span.clone(),
                format!(
                    "`{name}` needs Databricks Runtime {min} or later: on an older runtime, or outside Databricks, DQX fails the whole run (set `[dqx] dbr` in dqlint.toml to the runtime the checks run on)"
                ),
            ),
        };
        out.push(finding);
    }
}
