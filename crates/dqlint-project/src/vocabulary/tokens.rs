//! LHP's token syntax: the one scanner of `${token}`, `{token}`,
//! `${secret:scope/key}` and `%{variable}` that the model, the rules and
//! the editor read.
//!
//! LHP substitutes in two passes, and so do we:
//! - a flowgroup's local `variables:` first (`%{name}`, [`scan_variables`]),
//!   before templates and presets apply;
//! - then, per environment, the tokens of `substitutions/<env>.yaml`
//!   ([`scan_tokens`]): `${name}`, the deprecated bare `{name}`
//!   (LHP-DEPR-001) and secret references, which LHP turns into
//!   `dbutils.secrets.get` calls instead of substituting.
//!
//! `{{ jinja }}` is neither (templates' parameters are a YAML structure,
//! not a string syntax), and neither is `{dbutils.x}` or a regex
//! quantifier that is not a word. The SQL layer, which knows no LHP,
//! blanks a superset of these before parsing (`dqlint_sql`'s
//! `template_holes`); the linter's `token_syntax` test holds the two
//! together.

use std::ops::Range;

/// A token occurrence in a string.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TokenRef {
    pub syntax: TokenSyntax,
    /// The name (for a secret: `scope/key` or `key`).
    pub name: String,
    /// Byte range of the whole token text in the scanned string.
    pub range: Range<usize>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TokenSyntax {
    /// `${name}`
    Dollar,
    /// `{name}` (deprecated, LHP-DEPR-001)
    Bare,
    /// `${secret:scope/key}` or `${secret:key}`
    Secret,
}

/// Every substitution token of `text`, in order. `{{ jinja }}` and
/// `%{var}` are not tokens; `{dbutils....}` is exempt as in LHP.
pub fn scan_tokens(text: &str) -> Vec<TokenRef> {
    let bytes = text.as_bytes();
    let mut found = Vec::new();
    let mut i = 0;
    // `i` only ever stops after an ASCII byte, so it is a char boundary.
    while let Some(at) = memchr::memchr(b'{', &bytes[i..]) {
        i += at;
        let dollar = i > 0 && bytes[i - 1] == b'$';
        let percent = i > 0 && bytes[i - 1] == b'%';
        let doubled = bytes.get(i + 1) == Some(&b'{') || (i > 0 && bytes[i - 1] == b'{');
        let Some(close) = memchr::memchr(b'}', &bytes[i + 1..]).map(|c| i + 1 + c) else {
            break;
        };
        let inner = &text[i + 1..close];
        if percent || doubled {
            i += 1;
            continue;
        }
        if dollar {
            if let Some(secret) = inner.strip_prefix("secret:") {
                found.push(TokenRef {
                    syntax: TokenSyntax::Secret,
                    name: secret.to_string(),
                    range: i - 1..close + 1,
                });
                i = close + 1;
                continue;
            }
        }
        if is_name(inner) {
            let (syntax, start) = if dollar {
                (TokenSyntax::Dollar, i - 1)
            } else {
                (TokenSyntax::Bare, i)
            };
            found.push(TokenRef {
                syntax,
                name: inner.to_string(),
                range: start..close + 1,
            });
            i = close + 1;
        } else {
            i += 1;
        }
    }
    found
}

/// Every `%{name}` local-variable reference of `text`: (name, byte range).
/// A pass of its own, as in LHP: variables are substituted before tokens
/// are read, so one may sit inside a token (`${secret:%{scope}/key}`).
pub fn scan_variables(text: &str) -> Vec<(String, Range<usize>)> {
    let mut found = Vec::new();
    let mut rest = 0;
    while let Some(start) = find_pair(text, rest, *b"%{") {
        let Some(close) = memchr::memchr(b'}', &text.as_bytes()[start + 2..]) else {
            break;
        };
        let name = &text[start + 2..start + 2 + close];
        if is_name(name) {
            found.push((name.to_string(), start..start + 3 + close));
        }
        rest = start + 2;
    }
    found
}

/// Where the two ASCII bytes `pair` next occur in `text` from byte `from`
/// on: a byte search for the first, then a look at the one after it. (A
/// `str::find` with a two-character pattern sets up a substring searcher
/// at every call: ten times the cost on the short strings of a project.)
pub fn find_pair(text: &str, from: usize, pair: [u8; 2]) -> Option<usize> {
    let bytes = text.as_bytes();
    let mut at = from;
    while let Some(found) = memchr::memchr(pair[0], bytes.get(at..)?) {
        let first = at + found;
        if bytes.get(first + 1) == Some(&pair[1]) {
            return Some(first);
        }
        at = first + 1;
    }
    None
}

/// A token or variable name: one or more ASCII letters, digits or `_`.
fn is_name(text: &str) -> bool {
    !text.is_empty() && text.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scans_every_token_syntax() {
        let tokens = scan_tokens("${a}.{b}.${secret:s/k} %{v} {{ p }} x{8}");
        let names: Vec<_> = tokens.iter().map(|t| (t.syntax, t.name.as_str())).collect();
        assert_eq!(
            names,
            vec![
                (TokenSyntax::Dollar, "a"),
                (TokenSyntax::Bare, "b"),
                (TokenSyntax::Secret, "s/k"),
                (TokenSyntax::Bare, "8"),
            ]
        );
        assert_eq!(tokens[0].range, 0..4);
        assert_eq!(tokens[1].range, 5..8);
    }

    #[test]
    fn pairs_are_found_where_str_find_finds_them() {
        for (text, from) in [
            ("a%{b%{c", 0),
            ("a%{b%{c", 2),
            ("%%{", 0),
            ("%", 0),
            ("é%{", 0),
            ("x", 1),
        ] {
            let expected = text[from..].find("%{").map(|i| from + i);
            assert_eq!(
                find_pair(text, from, *b"%{"),
                expected,
                "{text:?} from {from}"
            );
        }
    }

    #[test]
    fn variables_are_a_pass_of_their_own() {
        assert_eq!(
            scan_variables("a_%{x}_%{y_1}"),
            vec![("x".into(), 2..6), ("y_1".into(), 7..13)]
        );
        // Inside a secret reference, which the token pass reads whole.
        let text = "${secret:%{scope}/key}";
        assert_eq!(scan_variables(text), vec![("scope".into(), 9..17)]);
        assert_eq!(scan_tokens(text)[0].syntax, TokenSyntax::Secret);
        assert!(scan_variables("%{} %{a.b} %{{x}}").is_empty());
    }
}
