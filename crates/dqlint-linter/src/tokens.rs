//! Walking the token-bearing strings of flowgroups (DQ601, DQ603).

use dqlint_project::{substitution::scan_tokens, Flowgroup, Origin, Project, TokenRef, Value};

use crate::text::find_in_origin;

/// Every string LHP substitutes in a flowgroup: its actions and top-level
/// values (template parameters and variables are consumed before).
pub fn flowgroup_strings(fg: &Flowgroup) -> Vec<&Value> {
    let mut out: Vec<&Value> = Vec::new();
    let mut roots: Vec<&Value> = Vec::new();
    if let Some(entries) = fg.doc.as_map() {
        for e in entries {
            if !["template_parameters", "variables", "actions", "flowgroups"]
                .contains(&e.key.as_str())
            {
                roots.push(&e.value);
            }
        }
    }
    roots.extend(fg.actions.iter().map(|a| &a.value));
    for root in roots {
        root.for_each_str(&mut |_, value| out.push(value));
    }
    out
}

/// Each token of a string value with the exact place of its text.
pub fn located_tokens(project: &Project, value: &Value) -> Vec<(TokenRef, Origin)> {
    let Some(text) = value.as_str() else {
        return Vec::new();
    };
    let tokens = scan_tokens(text);
    let mut out = Vec::new();
    for (i, token) in tokens.iter().enumerate() {
        let token_text = &text[token.range.clone()];
        let nth = tokens[..i]
            .iter()
            .filter(|t| &text[t.range.clone()] == token_text)
            .count();
        out.push((
            token.clone(),
            find_in_origin(project, &value.origin, token_text, nth),
        ));
    }
    out
}
