//! LHP's token syntax is scanned in one place
//! (`dqlint_project::vocabulary::tokens`); the SQL layer, which knows no
//! LHP, blanks its own "template holes" before parsing. This holds the two
//! together: every LHP token or variable that can stand where SQL expects
//! a name sits inside a hole, so a rule expression or DDL using it parses.

use dqlint_project::vocabulary::tokens::{scan_tokens, scan_variables, TokenSyntax};
use dqlint_sql::template_holes;

/// Pieces LHP files put around tokens in SQL, and the token shapes.
const PIECES: [&str; 22] = [
    "${catalog}",
    "{schema}",
    "${secret:scope/key}",
    "${secret:key}",
    "%{table}",
    "%{v_1}",
    "${a_b}",
    "{{ jinja }}",
    "{dbutils.x}",
    ".",
    " ",
    "_",
    "a",
    "x1",
    "{",
    "}",
    "$",
    "%",
    "'",
    "\n",
    "${",
    "{_p}",
];

/// A small deterministic generator (no dependency needed for 20k strings).
struct Lcg(u64);

impl Lcg {
    fn next(&mut self, below: usize) -> usize {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((self.0 >> 33) as usize) % below
    }
}

fn covered(holes: &[std::ops::Range<usize>], range: &std::ops::Range<usize>) -> bool {
    holes
        .iter()
        .any(|h| h.start <= range.start && range.end <= h.end)
}

/// A token can stand for a name when it is not a bare `{8}` (a regex
/// quantifier to the SQL layer) and holds no quote or line break.
fn can_be_a_name(text: &str, range: &std::ops::Range<usize>, syntax: Option<TokenSyntax>) -> bool {
    let token = &text[range.clone()];
    let bare_digit = syntax == Some(TokenSyntax::Bare)
        && token.as_bytes().get(1).is_some_and(u8::is_ascii_digit);
    !bare_digit && !token.contains(['\'', '\n', '"', '`'])
}

#[test]
fn every_lhp_token_that_can_be_a_name_is_a_sql_template_hole() {
    let mut rng = Lcg(7);
    let mut checked = 0;
    for _ in 0..20_000 {
        let text: String = (0..rng.next(8) + 1)
            .map(|_| PIECES[rng.next(PIECES.len())])
            .collect();
        let holes = template_holes(&text);
        for token in scan_tokens(&text) {
            if can_be_a_name(&text, &token.range, Some(token.syntax)) {
                checked += 1;
                assert!(
                    covered(&holes, &token.range),
                    "{token:?} of {text:?} is not blanked by the SQL layer (holes {holes:?})"
                );
            }
        }
        for (name, range) in scan_variables(&text) {
            // A variable inside a token that is not a hole (it has a quote)
            // is still read by LHP first; on its own it is always a hole.
            if can_be_a_name(&text, &range, None) {
                checked += 1;
                assert!(
                    covered(&holes, &range),
                    "%{{{name}}} of {text:?} is not blanked by the SQL layer (holes {holes:?})"
                );
            }
        }
    }
    assert!(checked > 10_000, "the generator reaches tokens: {checked}");
}

#[test]
fn the_sql_layer_leaves_regex_quantifiers_and_jinja_alone() {
    for text in ["x{8}", "\\p{Alpha}", "{{ jinja }}", "{dbutils.x}"] {
        assert!(template_holes(text).is_empty(), "{text}");
    }
    assert_eq!(scan_tokens("x{8}")[0].syntax, TokenSyntax::Bare);
}
