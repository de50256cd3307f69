//! Walking the token-bearing strings of flowgroups (DQ601, DQ603, DQ605).

use dqlint_project::{substitution::scan_tokens, Flowgroup, Origin, Project, TokenRef, Value};
use rayon::prelude::*;

use crate::engine::Context;
use crate::text::find_in_origin;

/// A string LHP substitutes that holds a `{`, with its tokens.
pub struct BracedString<'a> {
    pub value: &'a Value,
    pub tokens: Vec<StrToken<'a>>,
}

/// For each flowgroup of the project, in order, the strings LHP
/// substitutes in it (its actions and top-level values: template parameters
/// and variables are consumed before) that can hold a token or a local
/// variable, i.e. that contain a `{`, with their tokens. Found once per run,
/// in parallel, for the three rules that read them: each walked and scanned
/// every string of every flowgroup on its own.
pub fn braced_strings<'c, 'a>(ctx: &'c Context<'a>) -> &'c [Vec<BracedString<'a>>] {
    ctx.braced_strings.get_or_init(|| {
        ctx.project
            .flowgroups
            .par_iter()
            .map(|fg| {
                braced_strings_of(fg)
                    .into_iter()
                    .map(|value| BracedString {
                        value,
                        tokens: str_tokens(value),
                    })
                    .collect()
            })
            .collect()
    })
}

fn braced_strings_of(fg: &Flowgroup) -> Vec<&Value> {
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
        root.for_each_str(&mut |text, value| {
            if memchr::memchr(b'{', text.as_bytes()).is_some() {
                out.push(value);
            }
        });
    }
    out
}

/// A token of a string value; where its text is, is found on demand
/// ([`StrToken::origin`]): most tokens resolve and are never reported, and
/// finding the place means searching the source text.
pub struct StrToken<'v> {
    pub token: TokenRef,
    value: &'v Value,
    /// How many earlier tokens of the string have the same text.
    nth: usize,
}

impl StrToken<'_> {
    /// The exact place of the token's text (its `nth` occurrence in the
    /// value's source).
    pub fn origin(&self, project: &Project) -> Origin {
        let text = self.value.as_str().unwrap_or_default();
        find_in_origin(
            project,
            &self.value.origin,
            &text[self.token.range.clone()],
            self.nth,
        )
    }
}

/// The tokens of a string value, in order.
pub fn str_tokens(value: &Value) -> Vec<StrToken<'_>> {
    let Some(text) = value.as_str() else {
        return Vec::new();
    };
    let tokens = scan_tokens(text);
    let mut out = Vec::with_capacity(tokens.len());
    for (i, token) in tokens.iter().enumerate() {
        let token_text = &text[token.range.clone()];
        let nth = tokens[..i]
            .iter()
            .filter(|t| &text[t.range.clone()] == token_text)
            .count();
        out.push(StrToken {
            token: token.clone(),
            value,
            nth,
        });
    }
    out
}
