//! ## What it does
//! Reports a `required_lhp_version` in `lhp.yaml` that excludes LHP 0.9.3,
//! the version whose behaviour dqlint checks against, or that is not a
//! PEP 440 version specifier at all.
//!
//! ## Why is this bad?
//! LHP compares the installed version with this specifier before anything
//! else: LHP 0.9.3 stops the whole run with LHP-CFG-007 on a project that
//! excludes it (LHP-CFG-008 for a specifier it cannot parse, whatever the
//! version). And a project written for another LHP may use keys and
//! behaviour that version has and 0.9.3 lacks (or the reverse), so dqlint's
//! other findings may not hold for the LHP that runs it.
//!
//! ## Example (bad)
//! `lhp.yaml`:
//! ```yaml
//! name: example
//! required_lhp_version: ">=0.5.0,<0.8.0"
//! ```
//!
//! ## Example (good)
//! `lhp.yaml`:
//! ```yaml
//! name: example
//! required_lhp_version: ">=0.5.0,<0.10.0"
//! ```
//!
//! ## Fix
//! Widen the specifier if the project works with LHP 0.9.3 (run
//! `lhp validate` with it), or lint with the dqlint release that models the
//! LHP the project targets. `LHP_IGNORE_VERSION=1` makes LHP skip its check,
//! not dqlint's: suppress this rule in `dqlint.toml` for the same effect.

use std::cmp::Ordering;

use crate::diagnostic::Diagnostic;
use crate::engine::{Context, Findings};
use crate::registry::rule;

/// The LHP release dqlint's model follows.
pub const MODELLED_LHP: &str = "0.9.3";

pub fn check(ctx: &Context, out: &mut Findings) {
    let me = rule("DQ005");
    let Some(root) = ctx
        .project
        .project_config()
        .and_then(|f| f.first_document())
    else {
        return;
    };
    let Some(value) = root.get("required_lhp_version") else {
        return;
    };
    if value.is_null() {
        return;
    }
    let Some(spec) = value.as_str() else {
        out.push(Diagnostic::new(
            me,
            &value.origin,
            format!(
                "`required_lhp_version` is a {}, not a PEP 440 specifier string such as \">=0.9.0,<0.10.0\"",
                value.type_name()
            ),
        ));
        return;
    };
    if spec.trim().is_empty() {
        return;
    }
    let modelled = parse_version(MODELLED_LHP).expect("a valid version");
    match allows(spec, &modelled) {
        Err(why) => out.push(Diagnostic::new(
            me,
            &value.origin,
            format!(
                "`required_lhp_version: {spec}` is not a PEP 440 version specifier ({why}): LHP stops every run with LHP-CFG-008"
            ),
        )),
        Ok(false) => out.push(Diagnostic::new(
            me,
            &value.origin,
            format!(
                "this project requires LHP `{spec}`, which excludes LHP {MODELLED_LHP}, the version dqlint checks against: LHP {MODELLED_LHP} refuses to run it (LHP-CFG-007), and findings may not hold for the LHP it targets"
            ),
        )),
        Ok(true) => {}
    }
}

/// A version as PEP 440 orders it, for what specifiers need: the release
/// numbers and a pre/post/dev rank.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Version {
    release: Vec<u64>,
    /// (rank, number): dev 0, a 1, b 2, rc 3, final 4, post 5.
    phase: (u8, u64),
}

impl Version {
    fn cmp_release(&self, other: &Version) -> Ordering {
        let n = self.release.len().max(other.release.len());
        for i in 0..n {
            let a = self.release.get(i).copied().unwrap_or(0);
            let b = other.release.get(i).copied().unwrap_or(0);
            match a.cmp(&b) {
                Ordering::Equal => {}
                o => return o,
            }
        }
        Ordering::Equal
    }
}

impl Ord for Version {
    fn cmp(&self, other: &Self) -> Ordering {
        self.cmp_release(other).then(self.phase.cmp(&other.phase))
    }
}

impl PartialOrd for Version {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

/// Parses `1.2.3`, `v1.2`, `1.0rc1`, `1.0.post2`, `1.0.dev3` (the forms
/// PEP 440 normalises; epochs and local versions are refused).
pub fn parse_version(text: &str) -> Option<Version> {
    let t = text.trim().to_ascii_lowercase();
    let t = t.strip_prefix('v').unwrap_or(&t);
    let digits_end = t
        .char_indices()
        .find(|(_, c)| !(c.is_ascii_digit() || *c == '.'))
        .map_or(t.len(), |(i, _)| i);
    let (release_text, rest) = t.split_at(digits_end);
    let release_text = release_text.trim_end_matches('.');
    let release: Vec<u64> = release_text
        .split('.')
        .map(|p| p.parse().ok())
        .collect::<Option<_>>()?;
    let rest = rest.trim_start_matches(['.', '-', '_']);
    let phase = if rest.is_empty() {
        (4, 0)
    } else {
        let (rank, number) = [
            ("dev", 0),
            ("alpha", 1),
            ("a", 1),
            ("beta", 2),
            ("b", 2),
            ("rc", 3),
            ("c", 3),
            ("post", 5),
        ]
        .iter()
        .find_map(|(word, rank)| rest.strip_prefix(word).map(|n| (*rank, n)))?;
        let number = number.trim_start_matches(['.', '-', '_']);
        let number = if number.is_empty() {
            0
        } else {
            number.parse().ok()?
        };
        (rank, number)
    };
    Some(Version { release, phase })
}

/// Whether `version` satisfies every clause of the comma-separated
/// specifier set, or why the set does not parse.
pub fn allows(spec: &str, version: &Version) -> Result<bool, String> {
    let mut all = true;
    for clause in spec.split(',') {
        let clause = clause.trim();
        let op_len = clause
            .find(|c: char| !matches!(c, '<' | '>' | '=' | '!' | '~'))
            .unwrap_or(clause.len());
        let (op, operand) = clause.split_at(op_len);
        let operand = operand.trim();
        if op.is_empty() {
            return Err(format!("`{clause}` has no operator such as `==` or `>=`"));
        }
        let (operand, wildcard) = match operand.strip_suffix(".*") {
            Some(v) if op == "==" || op == "!=" => (v, true),
            _ => (operand, false),
        };
        let Some(other) = parse_version(operand) else {
            return Err(format!("`{operand}` is not a version"));
        };
        let ok = match op {
            "==" | "!=" | "===" => {
                let equal = if wildcard {
                    other
                        .release
                        .iter()
                        .enumerate()
                        .all(|(i, n)| version.release.get(i).copied().unwrap_or(0) == *n)
                } else {
                    version.cmp(&other) == Ordering::Equal
                };
                equal == (op != "!=")
            }
            "~=" => {
                if other.release.len() < 2 {
                    return Err(format!(
                        "`{clause}`: `~=` needs at least two release numbers"
                    ));
                }
                let prefix = &other.release[..other.release.len() - 1];
                *version >= other
                    && prefix
                        .iter()
                        .enumerate()
                        .all(|(i, n)| version.release.get(i).copied().unwrap_or(0) == *n)
            }
            ">=" => *version >= other,
            "<=" => *version <= other,
            ">" => *version > other,
            "<" => *version < other,
            _ => return Err(format!("`{op}` is not a comparison operator")),
        };
        all &= ok;
    }
    Ok(all)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn allows_modelled(spec: &str) -> Result<bool, String> {
        allows(spec, &parse_version(MODELLED_LHP).unwrap())
    }

    /// The answers of Python's `packaging` (what LHP uses) for 0.9.3.
    #[test]
    fn specifiers_as_packaging_reads_them() {
        for (spec, expected) in [
            (">=0.5.0,<0.8.0", false),
            ("~=0.4.1", false),
            ("==0.9.*", true),
            (">=0.8.2", true),
            (">= 0.9 , < 1.0", true),
            ("<0.9.3rc1", false),
            ("!=0.9.3", false),
            (">=0.5.0,<=0.9.9", true),
            (">=0.5.0,<0.10.0", true),
            ("~=0.9.0", true),
            ("==0.9", false),
            ("==0.9.3.0", true),
        ] {
            assert_eq!(allows_modelled(spec), Ok(expected), "{spec}");
        }
        assert!(allows_modelled("0.9.3").is_err());
        assert!(allows_modelled(">=zero").is_err());
        assert!(allows_modelled("~=1").is_err());
    }
}
