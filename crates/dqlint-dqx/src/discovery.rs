//! Which YAML/JSON files are DQX files, by content (`dqx.md`, "Which
//! files"): a checks file is a top-level list in which some item is a
//! mapping with a `check` key, or with `criticality` and `function` (the
//! flat form); a run config is a mapping with a `run_configs` key. Files
//! named by a run config's `checks_location` or by `[dqx] checks` are
//! checks files whatever their content; the caller says so.

use dqlint_yaml::{Node, YamlFile};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DqxFileKind {
    Checks,
    RunConfig,
}

/// What the content of a parsed file says it is.
pub fn classify(yaml: &YamlFile) -> Option<DqxFileKind> {
    let root = yaml.documents.iter().find_map(|d| d.root.as_ref())?;
    if root.get("run_configs").is_some() {
        return Some(DqxFileKind::RunConfig);
    }
    let items = root.as_sequence()?;
    items
        .iter()
        .any(looks_like_check)
        .then_some(DqxFileKind::Checks)
}

fn looks_like_check(item: &Node) -> bool {
    item.get("check").is_some()
        || (item.get("criticality").is_some() && item.get("function").is_some())
}

/// The `checks_location` values of a run config (each with the run config
/// that names it), for discovery of the checks files it points to.
pub fn checks_locations(yaml: &YamlFile) -> Vec<(String, std::ops::Range<usize>)> {
    let Some(root) = yaml.documents.iter().find_map(|d| d.root.as_ref()) else {
        return Vec::new();
    };
    let Some(runs) = root.get("run_configs").and_then(|r| r.as_sequence()) else {
        return Vec::new();
    };
    runs.iter()
        .filter_map(|run| {
            let node = run.get("checks_location")?;
            Some((node.as_str()?.to_string(), node.span.clone()))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn by_content() {
        let c = |t: &str| classify(&dqlint_yaml::parse(t));
        assert_eq!(
            c("- check: {function: is_not_null}\n"),
            Some(DqxFileKind::Checks)
        );
        assert_eq!(
            c("- criticality: warn\n  function: x\n"),
            Some(DqxFileKind::Checks)
        );
        assert_eq!(c("run_configs: []\n"), Some(DqxFileKind::RunConfig));
        assert_eq!(c("- name: a\n"), None);
        assert_eq!(c("a: 1\n"), None);
        assert_eq!(c("[{\"check\": {}}]"), Some(DqxFileKind::Checks));
    }
}
