//! The built-in functions of Spark and Databricks SQL, for the unknown-function check
//! (unknown SQL function).
//!
//! * `data/spark_functions.txt` is generated from Spark's own function
//!   registry (`SHOW SYSTEM FUNCTIONS` on a local pyspark session) by
//!   `data/gen_spark_functions.py`; its first line names the Spark version.
//!   Regenerate with
//!   `python crates/dqlint-sql/data/gen_spark_functions.py > crates/dqlint-sql/data/spark_functions.txt`.
//! * `data/databricks_functions.txt` holds, by hand and with its source,
//!   the Databricks SQL built-ins Spark lacks; a line ending in `*` is a
//!   prefix family (`ai_*`, `h3_*`, `st_*`).

use std::collections::HashSet;
use std::sync::OnceLock;

const SPARK: &str = include_str!("../data/spark_functions.txt");
const DATABRICKS: &str = include_str!("../data/databricks_functions.txt");

struct Builtins {
    names: HashSet<&'static str>,
    prefixes: Vec<&'static str>,
    /// Every exact name, sorted, for suggestions.
    sorted: Vec<&'static str>,
}

fn entries(text: &'static str) -> impl Iterator<Item = &'static str> {
    text.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
}

fn builtins() -> &'static Builtins {
    static B: OnceLock<Builtins> = OnceLock::new();
    B.get_or_init(|| {
        let mut names = HashSet::new();
        let mut prefixes = Vec::new();
        for e in entries(SPARK).chain(entries(DATABRICKS)) {
            match e.strip_suffix('*') {
                Some(prefix) => prefixes.push(prefix),
                None => {
                    names.insert(e);
                }
            }
        }
        let mut sorted: Vec<&'static str> = names.iter().copied().collect();
        sorted.sort_unstable();
        Builtins {
            names,
            prefixes,
            sorted,
        }
    })
}

/// The Spark version `spark_functions.txt` was generated from.
pub fn spark_version() -> &'static str {
    SPARK
        .lines()
        .next()
        .and_then(|l| l.strip_prefix("# Spark "))
        .and_then(|l| l.split_whitespace().next())
        .unwrap_or("unknown")
}

/// Whether `name` (any case) is a Spark or Databricks SQL built-in.
pub fn is_builtin(name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    let b = builtins();
    b.names.contains(lower.as_str()) || b.prefixes.iter().any(|p| lower.starts_with(p))
}

/// The built-in closest to a name that is not one, if close enough to be
/// the intended one (`lenght` -> `length`).
pub fn closest_builtin(name: &str) -> Option<&'static str> {
    let lower = name.to_ascii_lowercase();
    let score = |c: &str| {
        let d = strsim::damerau_levenshtein(&lower, c);
        let allowed = if lower.len() <= 4 { 1 } else { 2 };
        (d <= allowed).then_some(d)
    };
    builtins()
        .sorted
        .iter()
        .filter_map(|c| score(c).map(|d| (d, *c)))
        .min_by_key(|(d, c)| (*d, lower.len().abs_diff(c.len())))
        .map(|(_, c)| c)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_lists_load() {
        assert!(spark_version().starts_with('4'));
        for n in [
            "length",
            "LENGTH",
            "count",
            "ai_query",
            "h3_isvalid",
            "try_cast",
            "getdate",
        ] {
            assert!(is_builtin(n), "{n}");
        }
        for n in ["lenght", "my_udf", "iff"] {
            assert!(!is_builtin(n), "{n}");
        }
        assert_eq!(closest_builtin("lenght"), Some("length"));
        assert_eq!(closest_builtin("coalese"), Some("coalesce"));
        assert_eq!(closest_builtin("is_valid_sku"), None);
    }
}
