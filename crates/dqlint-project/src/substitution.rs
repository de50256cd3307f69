//! `substitutions/<env>.yaml` and the token syntaxes LHP resolves with it:
//! `${token}`, the deprecated bare `{token}`, and `${secret:scope/key}`.

use std::collections::HashMap;

use crate::value::{FileId, Origin, Value, ValueKind};
pub use crate::vocabulary::tokens::{scan_tokens, TokenRef, TokenSyntax};

/// Token values are re-expanded this many times (LHP's limit).
const NESTING_PASSES: usize = 10;

/// One environment's token map.
#[derive(Clone, Debug)]
pub struct Env {
    pub name: String,
    /// `substitutions/<env>.yaml`, if it exists.
    pub file: Option<FileId>,
    pub tokens: HashMap<String, TokenValue>,
    pub default_secret_scope: Option<String>,
    pub secret_scopes: HashMap<String, String>,
}

#[derive(Clone, Debug)]
pub struct TokenValue {
    /// Fully expanded value (nested tokens resolved where possible).
    pub value: String,
    /// Where the token is defined (`None` for the reserved ones).
    pub origin: Option<Origin>,
}

/// The result of substituting one string for one environment.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Resolved {
    pub text: String,
    /// Tokens with no value in this environment.
    pub unresolved: Vec<TokenRef>,
    /// Whether a secret reference was part of the string.
    pub has_secret: bool,
}

impl Env {
    /// An environment with no substitutions file: nothing resolves.
    pub fn without_file(name: &str) -> Env {
        let mut env = Env {
            name: name.to_string(),
            file: None,
            tokens: HashMap::new(),
            default_secret_scope: None,
            secret_scopes: HashMap::new(),
        };
        env.add_reserved();
        env
    }

    fn add_reserved(&mut self) {
        for reserved in ["workspace_env", "logical_env"] {
            self.tokens
                .entry(reserved.to_string())
                .or_insert(TokenValue {
                    value: self.name.clone(),
                    origin: None,
                });
        }
    }

    /// Reads the env block, `global` and `secrets` of a substitutions file.
    pub fn from_file(name: &str, file: FileId, root: Option<&Value>) -> Env {
        let mut env = Env::without_file(name);
        env.file = Some(file);
        env.tokens.clear();
        let Some(root) = root else {
            env.add_reserved();
            return env;
        };
        for block in ["global", name] {
            if let Some(entries) = root.get(block).and_then(Value::as_map) {
                for entry in entries {
                    if let Some(value) = token_string(&entry.value) {
                        env.tokens.insert(
                            entry.key.clone(),
                            TokenValue {
                                value,
                                origin: Some(entry.key_origin.clone()),
                            },
                        );
                    }
                }
            }
        }
        if let Some(secrets) = root.get("secrets") {
            env.default_secret_scope = secrets.get_str("default_scope").map(str::to_string);
            if let Some(scopes) = secrets.get("scopes").and_then(Value::as_map) {
                for entry in scopes {
                    if let Some(real) = entry.value.as_str() {
                        env.secret_scopes
                            .insert(entry.key.clone(), real.to_string());
                    }
                }
            }
        }
        env.add_reserved();
        env.expand_nested();
        env
    }

    /// Token values may use other tokens; expand them a bounded number of
    /// times, so a cycle stops expanding instead of looping.
    fn expand_nested(&mut self) {
        for _ in 0..NESTING_PASSES {
            let snapshot: HashMap<String, String> = self
                .tokens
                .iter()
                .map(|(k, v)| (k.clone(), v.value.clone()))
                .collect();
            let mut changed = false;
            for token in self.tokens.values_mut() {
                if !token.value.contains('{') {
                    continue;
                }
                let next =
                    replace_tokens(&token.value, |name| snapshot.get(name).map(String::as_str)).0;
                if next != token.value {
                    token.value = next;
                    changed = true;
                }
            }
            if !changed {
                break;
            }
        }
    }

    pub fn has_token(&self, name: &str) -> bool {
        self.tokens.contains_key(name)
    }

    /// Substitutes every token of `text` for this environment.
    pub fn resolve(&self, text: &str) -> Resolved {
        if !text.contains('{') {
            return Resolved {
                text: text.to_string(),
                unresolved: Vec::new(),
                has_secret: false,
            };
        }
        let value_of = |name: &str| self.tokens.get(name).map(|t| t.value.as_str());
        let (out, mut unresolved, has_secret) = replace_tokens(text, value_of);
        // A token whose own value never finished expanding (a cycle in the
        // substitutions file) is as unresolved as an unknown one.
        for token in scan_tokens(text) {
            let cyclic = value_of(&token.name).is_some_and(|v| {
                scan_tokens(v)
                    .iter()
                    .any(|t| t.syntax != TokenSyntax::Secret)
            });
            if cyclic && token.syntax != TokenSyntax::Secret {
                unresolved.push(token);
            }
        }
        Resolved {
            text: out,
            unresolved,
            has_secret,
        }
    }
}

/// Replaces known tokens; returns the text, the unknown tokens (with ranges
/// in the input) and whether a secret was seen. Secrets become a
/// placeholder without dots, as in LHP.
fn replace_tokens<'v>(
    text: &str,
    value_of: impl Fn(&str) -> Option<&'v str>,
) -> (String, Vec<TokenRef>, bool) {
    let mut out = String::with_capacity(text.len());
    let mut unresolved = Vec::new();
    let mut has_secret = false;
    let mut last = 0;
    for token in scan_tokens(text) {
        out.push_str(&text[last..token.range.start]);
        match token.syntax {
            TokenSyntax::Secret => {
                has_secret = true;
                out.push_str("__SECRET__");
            }
            _ => match value_of(&token.name) {
                Some(value) => out.push_str(value),
                None => {
                    out.push_str(&text[token.range.clone()]);
                    unresolved.push(token.clone());
                }
            },
        }
        last = token.range.end;
    }
    out.push_str(&text[last..]);
    (out, unresolved, has_secret)
}

/// Token values as LHP stringifies them: bools lowercase, numbers as
/// written; mappings and lists cannot be addressed by any token syntax.
fn token_string(value: &Value) -> Option<String> {
    match &value.kind {
        ValueKind::Str(s) | ValueKind::Number(s) => Some(s.clone()),
        ValueKind::Bool(b) => Some(b.to_string()),
        ValueKind::Null => Some("None".to_string()),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nested_values_and_cycles() {
        let mut env = Env::without_file("dev");
        for (k, v) in [
            ("catalog", "main"),
            ("path", "/v/${catalog}/{schema}"),
            ("schema", "s"),
            ("x", "${y}"),
            ("y", "${x}"),
        ] {
            env.tokens.insert(
                k.into(),
                TokenValue {
                    value: v.into(),
                    origin: None,
                },
            );
        }
        env.expand_nested();
        assert_eq!(env.tokens["path"].value, "/v/main/s");
        let resolved = env.resolve("${x}");
        assert_eq!(
            resolved.unresolved.len(),
            1,
            "a cycle stays unresolved: {resolved:?}"
        );
        assert_eq!(env.resolve("${logical_env}").text, "dev");
        assert_eq!(env.resolve("${nope}").unresolved.len(), 1);
    }
}
