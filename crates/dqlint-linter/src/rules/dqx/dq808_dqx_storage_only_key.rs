//! ## What it does
//! Reports the keys DQX's checks storage writes beside each check
//! (`run_config_name`, `created_at`, `rule_fingerprint`,
//! `rule_set_fingerprint`) when they appear in a checks file.
//!
//! ## Why is this bad?
//! DQX drops them when it loads the file: a `run_config_name` written here
//! does not tie the check to that run config, and a fingerprint is not
//! checked. They usually come from an export of a checks table and can go.
//!
//! ## Example (bad)
//! `quality/orders_checks.yml`:
//! ```yaml
//! - criticality: error
//!   run_config_name: orders
//!   check:
//!     function: is_not_null
//!     arguments:
//!       column: order_id
//! ```
//!
//! ## Example (good)
//! `quality/orders_checks.yml`:
//! ```yaml
//! - criticality: error
//!   check:
//!     function: is_not_null
//!     arguments:
//!       column: order_id
//! ```
//!
//! ## Fix
//! Remove the key; to apply checks per run config, give each run config
//! its own `checks_location`.

use crate::diagnostic::Diagnostic;
use crate::engine::{Context, Findings};
use crate::registry::rule;
use crate::rules::dqx::ChecksFile;

pub fn check(_ctx: &Context, file: &ChecksFile, out: &mut Findings) {
    let me = rule("DQ808");
    if file.is_python() {
        return;
    }
    for item in file.items() {
        for entry in item.as_map().unwrap_or(&[]) {
            let Some(key) = entry.key.as_str() else {
                continue;
            };
            if dqlint_dqx::STORAGE_KEYS.contains(&key) {
                out.push(Diagnostic::at(
                    me,
                    file.id(),
                    entry.key.span.clone(),
                    format!(
                        "`{key}` is a key DQX's checks storage writes; DQX drops it when it loads this file, so it has no effect"
                    ),
                ));
            }
        }
    }
}
