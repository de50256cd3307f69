//! The registry is the single source of truth: every rule is documented,
//! and the README's rule table says exactly what the registry says.

use dqlint_linter::RULES;

#[test]
fn every_rule_has_a_complete_doc() {
    for rule in RULES {
        let doc = rule.doc();
        for section in ["## What it does", "## Why is this bad?", "## Example", "## Fix"] {
            assert!(doc.contains(section), "{} ({}) lacks `{section}` in its doc comment", rule.code, rule.name);
        }
        assert!(!rule.summary().is_empty(), "{} has no summary", rule.code);
    }
}

#[test]
fn codes_and_names_are_unique_and_well_formed() {
    for (i, a) in RULES.iter().enumerate() {
        assert!(a.code.len() == 5 && a.code.starts_with("DQ"), "{}", a.code);
        assert!(a.name.chars().all(|c| c.is_ascii_lowercase() || c == '-'), "{}", a.name);
        for b in &RULES[i + 1..] {
            assert_ne!(a.code, b.code);
            assert_ne!(a.name, b.name);
        }
    }
}

#[test]
fn readme_rule_table_matches_the_registry() {
    let readme = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../README.md")).unwrap();
    let rows: Vec<&str> = readme.lines().filter(|l| l.starts_with("| DQ")).collect();
    assert_eq!(rows.len(), RULES.len(), "README lists {} rules, the registry {}", rows.len(), RULES.len());
    for rule in RULES {
        let row = format!("| {} | `{}` | {} | {} |", rule.code, rule.name, rule.severity.as_str(), rule.summary());
        assert!(rows.contains(&row.as_str()), "README row for {} is stale; expected:\n{row}", rule.code);
    }
}
