//! The registry is the single source of truth: every rule is documented.
//! (The README's rule table and `docs/rules/` are generated from it and
//! checked by `crates/dqlint/tests/rule_docs.rs`; the doc examples run in
//! `tests/doc_examples.rs`.)

use dqlint_linter::RULES;

#[test]
fn every_rule_has_a_complete_doc() {
    for rule in RULES {
        let doc = rule.doc();
        for section in [
            "## What it does",
            "## Why is this bad?",
            "## Example (bad)",
            "## Example (good)",
            "## Fix",
        ] {
            assert!(
                doc.contains(section),
                "{} ({}) lacks `{section}` in its doc comment",
                rule.code,
                rule.name
            );
        }
        assert!(!rule.summary().is_empty(), "{} has no summary", rule.code);
    }
}

#[test]
fn codes_and_names_are_unique_and_well_formed() {
    for (i, a) in RULES.iter().enumerate() {
        assert!(a.code.len() == 5 && a.code.starts_with("DQ"), "{}", a.code);
        assert!(
            a.name.starts_with(|c: char| c.is_ascii_lowercase())
                && a.name
                    .chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-'),
            "{}",
            a.name
        );
        for b in &RULES[i + 1..] {
            assert_ne!(a.code, b.code);
            assert_ne!(a.name, b.name);
        }
    }
}

#[test]
fn every_rule_lives_in_its_family_folder_and_declares_a_scope() {
    use dqlint_linter::Scope;
    for rule in RULES {
        assert!(!rule.family.is_empty(), "{} has no family", rule.code);
        // Rules that compare findings of other rules see everything; no
        // other rule may claim that scope.
        assert_eq!(
            rule.scope == Scope::Suppressions,
            rule.family == "suppression",
            "{}: only the suppression family reads other rules' findings",
            rule.code
        );
        assert!(!rule.scope.describe().is_empty());
    }
}
