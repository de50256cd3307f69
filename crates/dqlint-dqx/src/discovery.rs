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

/// The checks files the run configs of a run config file read, as DQX
/// resolves them: each run config's `checks_location` (`checks.yml` when
/// absent or unreadable), with the span of the value (the run config's
/// start for the default). Only locations that can be local files are
/// kept: relative paths, which DQX reads relative to the folder holding
/// `config.yml` (its installation folder), with a `.yml`, `.yaml` or
/// `.json` extension; tables and absolute workspace or volume paths
/// cannot be resolved here.
pub fn checks_locations(text: &str, yaml: &YamlFile) -> Vec<(String, std::ops::Range<usize>)> {
    if !yaml.errors.is_empty() {
        return Vec::new();
    }
    let loaded = crate::load(text, yaml, crate::Format::Yaml);
    let Some(root) = loaded.root.as_ref() else {
        return Vec::new();
    };
    if root.get("run_configs").is_none() {
        return Vec::new();
    }
    crate::run_config::read(root)
        .runs
        .iter()
        .filter_map(|run| {
            let location = run.effective_checks_location();
            let span = run
                .checks_location
                .as_ref()
                .map_or(run.span.start..run.span.start, |(_, s)| s.clone());
            let local = !location.starts_with('/')
                && !location.contains("://")
                && !crate::run_config::is_table_location(location)
                && [".yml", ".yaml", ".json"]
                    .iter()
                    .any(|x| location.to_ascii_lowercase().ends_with(x));
            local.then(|| (location.to_string(), span))
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

    #[test]
    fn checks_locations_are_the_local_files_dqx_reads() {
        let text = "run_configs:\n- name: a\n  checks_location: quality/a.yml\n- name: b\n- name: c\n  checks_location: main.dq.checks\n- name: d\n  checks_location: /Workspace/x/checks.yml\n";
        let got: Vec<String> = checks_locations(text, &dqlint_yaml::parse(text))
            .into_iter()
            .map(|(l, _)| l)
            .collect();
        assert_eq!(got, ["quality/a.yml", "checks.yml"]);
    }
}
