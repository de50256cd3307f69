//! Client settings: `initializationOptions` and
//! `workspace/didChangeConfiguration`, either bare or under a `dqlint` key.

use std::time::Duration;

use dqlint_linter::Selection;
use serde::Deserialize;
use serde_json::Value;

/// Where `codeDescription` links point; `{code}` and `{name}` are replaced.
pub const DEFAULT_RULE_DOCS_URL: &str =
    "https://github.com/dqlint/dqlint/blob/main/docs/rules/{code}-{name}.md";

const DEFAULT_DEBOUNCE_MS: u64 = 150;

#[derive(Clone, Debug, Default, Deserialize, PartialEq)]
#[serde(rename_all = "camelCase", default)]
pub struct Settings {
    /// Environments to resolve tokens for; empty: every substitutions file.
    pub envs: Vec<String>,
    pub select: Vec<String>,
    pub ignore: Vec<String>,
    /// A `dqlint.toml` to use instead of the project's own.
    pub config_path: Option<String>,
    /// Template of the rule documentation link; `""` turns links off.
    pub rule_docs_url: Option<String>,
    /// Quiet time after an edit before the whole project is re-loaded and
    /// linted (the edited file's own findings are published at once).
    pub debounce_ms: Option<u64>,
}

impl Settings {
    /// Reads settings from a client value; returns the reason when the
    /// value is not usable (the caller keeps the defaults then).
    pub fn from_value(value: Option<&Value>) -> Result<Settings, String> {
        let Some(value) = value.filter(|v| !v.is_null()) else {
            return Ok(Settings::default());
        };
        let value = value.get("dqlint").unwrap_or(value);
        Settings::deserialize(value).map_err(|e| format!("ignoring the dqlint settings: {e}"))
    }

    /// Whether a `didChangeConfiguration` payload says anything to dqlint
    /// (some clients send `{}` or `null` just to announce a change).
    pub fn is_addressed(value: &Value) -> bool {
        value.get("dqlint").is_some() || value.as_object().is_some_and(|o| !o.is_empty())
    }

    pub fn selection(&self) -> Selection {
        Selection {
            select: self.select.clone(),
            ignore: self.ignore.clone(),
        }
    }

    pub fn debounce(&self) -> Duration {
        Duration::from_millis(self.debounce_ms.unwrap_or(DEFAULT_DEBOUNCE_MS))
    }

    pub fn rule_docs_url(&self, code: &str, name: &str) -> Option<String> {
        let template = self
            .rule_docs_url
            .as_deref()
            .unwrap_or(DEFAULT_RULE_DOCS_URL);
        (!template.is_empty()).then(|| template.replace("{code}", code).replace("{name}", name))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn reads_bare_and_nested_settings() {
        let bare =
            Settings::from_value(Some(&json!({ "envs": ["dev"], "debounceMs": 0 }))).unwrap();
        assert_eq!(bare.envs, vec!["dev"]);
        assert_eq!(bare.debounce(), Duration::ZERO);
        let nested =
            Settings::from_value(Some(&json!({ "dqlint": { "ignore": ["DQ6"] } }))).unwrap();
        assert_eq!(nested.ignore, vec!["DQ6"]);
        assert_eq!(Settings::from_value(None).unwrap(), Settings::default());
        assert!(Settings::from_value(Some(&json!({ "envs": "dev" }))).is_err());
        assert!(!Settings::is_addressed(&json!({})) && !Settings::is_addressed(&Value::Null));
        assert!(Settings::is_addressed(&json!({ "dqlint": {} })));
    }

    #[test]
    fn docs_links_follow_the_template() {
        let settings = Settings::default();
        let any = &dqlint_linter::RULES[0];
        assert!(settings
            .rule_docs_url(any.code, "x")
            .unwrap()
            .ends_with(&format!("/{}-x.md", any.code)));
        // The default links name the pages `dqlint rule --generate-docs` writes.
        let docs = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/rules");
        for rule in dqlint_linter::RULES {
            let url = settings.rule_docs_url(rule.code, rule.name).unwrap();
            let page = url.rsplit('/').next().unwrap();
            assert!(
                docs.join(page).is_file(),
                "{url} names no page in docs/rules"
            );
        }
        let off = Settings {
            rule_docs_url: Some(String::new()),
            ..Settings::default()
        };
        assert_eq!(off.rule_docs_url(any.code, "x"), None);
    }
}
