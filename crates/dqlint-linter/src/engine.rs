//! Runs the rules over a project and merges what they find.

use std::collections::{BTreeMap, HashMap};

use dqlint_project::{
    envs_or_none, normalize_rel, Action, Env, ExpectationSet, Flowgroup, Origin, Project, Value,
};

use rayon::prelude::*;

use crate::config::{Config, Policy};
use crate::diagnostic::{Diagnostic, Location};
use crate::registry::{Check, RuleMeta, RULES};

/// What rules read: the project and the environments to check.
pub struct Context<'a> {
    pub project: &'a Project,
    /// The environments, or one pseudo-environment (empty name) in which no
    /// token resolves when the project has no substitutions.
    pub envs: Vec<Env>,
    /// For each expectations file (project-relative path), the
    /// data_quality actions that use it in some environment.
    pub expectation_users: BTreeMap<String, Vec<(&'a Flowgroup, &'a Action)>>,
    /// `[sql] udfs` of `dqlint.toml` (lower case): not unknown functions.
    pub udfs: Vec<String>,
    /// DQ3xx findings, computed once for the SQL rules.
    pub expression_findings: std::sync::OnceLock<Vec<crate::expressions::ExpressionFinding>>,
    /// The DDL of the project's `.sql` files, computed once for DQ402-DQ409.
    pub ddl_catalog: std::sync::OnceLock<crate::ddl_catalog::DdlCatalog>,
    /// DQX checks files and run configs as DQX loads them, typed once for
    /// the thirty-odd DQ8xx rules (`rules::dqx::checks_files`).
    pub(crate) dqx_checks: std::sync::OnceLock<Vec<crate::rules::dqx::ChecksFile<'a>>>,
    pub(crate) dqx_run_configs: std::sync::OnceLock<Vec<crate::rules::dqx::RunConfigSource<'a>>>,
    /// The strings of each flowgroup that can hold a token, for the token
    /// rules (`tokens::braced_strings`).
    pub(crate) braced_strings: std::sync::OnceLock<Vec<Vec<crate::tokens::BracedString<'a>>>>,
    /// The data_quality actions, found once: a dozen rules walk them, some
    /// once per environment, and finding them means reading every action.
    dq_actions: Vec<(&'a Flowgroup, &'a Action)>,
    /// `[dqx]` of `dqlint.toml` (the defaults without one).
    pub dqx: crate::config::DqxConfig,
    /// The DQX catalogue `dqx` selects, with its extras and custom
    /// functions, built once.
    dqx_catalogue: std::sync::OnceLock<dqlint_dqx::Catalogue>,
    /// `[dlt]` of `dqlint.toml` (the defaults without one).
    pub dlt: crate::config::DltConfig,
    /// The pipeline sources read into the pipeline model, once for the
    /// DQ9xx rules (`rules::pipeline::sources`).
    pub(crate) pipeline_sources:
        std::sync::OnceLock<Vec<crate::rules::pipeline::PipelineSource<'a>>>,
    /// `[policy]` of `dqlint.toml` (empty without one: no policy rule
    /// reports anything).
    pub team_policy: crate::config::TeamPolicy,
    /// Every dataset of every dialect as policies see it, built once for
    /// the policy rules (`rules::policy::datasets`).
    pub(crate) policy_datasets: std::sync::OnceLock<Vec<crate::rules::policy::PolicyDataset>>,
    /// The quarantine patterns among them, by position, once for DQ920-DQ925
    /// (`rules::pipeline::quarantine_patterns`).
    pub(crate) quarantine_patterns:
        std::sync::OnceLock<Vec<dqlint_pipeline::quarantine::PatternAt>>,
    /// The team's rule registry (`[policy] registry`), read once.
    rule_registry: std::sync::OnceLock<Vec<dqlint_project::rule_registry::RegistryFile>>,
}

/// Where rules put what they find.
#[derive(Default)]
pub struct Findings {
    items: Vec<Diagnostic>,
}

impl Findings {
    pub fn push(&mut self, diagnostic: Diagnostic) {
        self.items.push(diagnostic);
    }
}

impl<'a> Context<'a> {
    /// The context with `dqlint.toml`'s `[dqx]` settings.
    pub fn with_dqx(project: &'a Project, dqx: &crate::config::DqxConfig) -> Context<'a> {
        let mut ctx = Context::new(project);
        ctx.dqx = dqx.clone();
        ctx
    }

    /// The DQX function catalogue checked against: `[dqx] version` (default
    /// 0.17.0), its `extras` installed, its `custom_functions` registered.
    pub fn dqx_catalogue(&self) -> &dqlint_dqx::Catalogue {
        self.dqx_catalogue.get_or_init(|| self.dqx.catalogue())
    }

    pub fn new(project: &'a Project) -> Context<'a> {
        let envs = envs_or_none(&project.envs);
        let dq_actions: Vec<(&'a Flowgroup, &'a Action)> = project
            .actions()
            .filter(|(_, a)| a.is_data_quality())
            .collect();
        let mut expectation_users: BTreeMap<String, Vec<(&'a Flowgroup, &'a Action)>> =
            BTreeMap::new();
        for &(fg, action) in &dq_actions {
            let Some(path) = action.get_str("expectations_file") else {
                continue;
            };
            for env in &envs {
                let resolved = env.resolve(path);
                if !resolved.unresolved.is_empty() {
                    continue;
                }
                let users = expectation_users
                    .entry(normalize_rel(&resolved.text))
                    .or_default();
                // Actions come one at a time: if this one already uses the
                // file (through another environment), it was the last added.
                if !users.last().is_some_and(|(_, a)| std::ptr::eq(*a, action)) {
                    users.push((fg, action));
                }
            }
        }
        Context {
            dqx: Default::default(),
            dqx_catalogue: Default::default(),
            project,
            envs,
            expectation_users,
            udfs: Vec::new(),
            expression_findings: Default::default(),
            ddl_catalog: Default::default(),
            dqx_checks: Default::default(),
            dqx_run_configs: Default::default(),
            dq_actions,
            dlt: Default::default(),
            pipeline_sources: Default::default(),
            team_policy: Default::default(),
            policy_datasets: Default::default(),
            braced_strings: Default::default(),
            quarantine_patterns: Default::default(),
            rule_registry: Default::default(),
        }
    }

    /// The files of the team's rule registry (`[policy] registry`; none
    /// without it), each read once.
    pub fn rule_registry(&self) -> &[dqlint_project::rule_registry::RegistryFile] {
        self.rule_registry
            .get_or_init(|| self.project.rule_registry())
    }

    /// Every `transform_type: data_quality` action.
    pub fn dq_actions(&self) -> impl Iterator<Item = (&'a Flowgroup, &'a Action)> + '_ {
        self.dq_actions.iter().copied()
    }

    /// Every `mode: quarantine` data_quality action.
    pub fn quarantine_actions(&self) -> impl Iterator<Item = (&'a Flowgroup, &'a Action)> + '_ {
        self.dq_actions
            .iter()
            .copied()
            .filter(|(_, a)| a.is_quarantine())
    }

    /// Whether the environments resolve tokens at all (a project without
    /// substitutions resolves nothing: token-dependent checks skip).
    /// The expectations files in use, with the actions using each.
    pub fn expectation_sets(
        &self,
    ) -> impl Iterator<Item = (&'a ExpectationSet, &[(&'a Flowgroup, &'a Action)])> + '_ {
        self.expectation_users.iter().filter_map(|(rel, users)| {
            self.project
                .expectations_for(rel)
                .map(|set| (set, users.as_slice()))
        })
    }

    pub fn resolves_tokens(&self) -> bool {
        self.envs.iter().any(|e| e.file.is_some())
    }
}

/// Which rules to run.
#[derive(Clone, Debug, Default)]
pub struct Selection {
    /// Codes, code prefixes or names; empty means all.
    pub select: Vec<String>,
    pub ignore: Vec<String>,
}

impl Selection {
    pub fn matches(&self, rule: &RuleMeta) -> bool {
        let hit = |pattern: &String| {
            let p = pattern.trim();
            rule.code.eq_ignore_ascii_case(p)
                || rule.name == p
                || (!p.is_empty()
                    && rule
                        .code
                        .to_ascii_uppercase()
                        .starts_with(&p.to_ascii_uppercase()))
        };
        (self.select.is_empty() || self.select.iter().any(hit)) && !self.ignore.iter().any(hit)
    }
}

/// Lints with the default configuration (suppression comments still apply).
pub fn lint(project: &Project, selection: &Selection) -> Vec<Diagnostic> {
    lint_configured(project, &Config::default(), selection)
}

/// The one entry point shared by the CLI and the language server: the
/// rules, then the configuration (selection per file, severities), then
/// suppression comments and DQ009.
pub fn lint_configured(
    project: &Project,
    config: &Config,
    selection: &Selection,
) -> Vec<Diagnostic> {
    let policy = Policy {
        config,
        cli: selection,
    };
    let mut ctx = Context::with_dqx(project, &config.dqx);
    ctx.udfs = config.udfs.clone();
    ctx.dlt = config.dlt.clone();
    ctx.team_policy = config.team_policy.clone();
    // Rules are independent readers of the context: run them in parallel,
    // and concatenate their findings in a fixed order (the project-wide
    // rules in registry order, then each checks file's in file order, its
    // rules in registry order) so the result does not depend on the number
    // of threads.
    let selected: Vec<&RuleMeta> = RULES.iter().filter(|r| policy.may_run(r)).collect();
    // What many rules read, built before they start (in parallel itself):
    // a rule building it would hold the other threads waiting.
    crate::rules::dqx::checks_files(&ctx);
    dqlint_project::timings::phase_done("lint: DQX checks typed");
    crate::rules::pipeline::prepare(&ctx, &selected);
    crate::rules::tokens::prepare(&ctx, &selected);
    dqlint_project::timings::phase_done("lint: shared facts");
    let (per_checks_file, whole_project): (Vec<&RuleMeta>, Vec<&RuleMeta>) = selected
        .iter()
        .partition(|rule| matches!(rule.check, Check::ChecksFile(_)));
    let (per_rule, per_file) = rayon::join(
        || {
            whole_project
                .par_iter()
                .map(|rule| {
                    let mut findings = Findings::default();
                    if let Check::Project(check) = rule.check {
                        check(&ctx, &mut findings);
                    }
                    findings.items
                })
                .collect::<Vec<_>>()
        },
        || {
            if per_checks_file.is_empty() {
                return Vec::new();
            }
            crate::rules::dqx::checks_files(&ctx)
                .par_iter()
                .map(|file| {
                    let mut findings = Findings::default();
                    for rule in &per_checks_file {
                        if let Check::ChecksFile(check) = rule.check {
                            check(&ctx, file, &mut findings);
                        }
                    }
                    findings.items
                })
                .collect::<Vec<_>>()
        },
    );
    dqlint_project::timings::phase_done("lint: rules");
    let merged = configure(
        project,
        &policy,
        merge(per_rule.into_iter().chain(per_file).flatten().collect()),
    );
    // Suppressions see every finding, so a directive inside a block that a
    // syntax error breaks is not reported unused while the block is withheld.
    let mut merged = crate::suppression::apply(project, &policy, merged);
    let damage = crate::damage::Damage::of(project);
    merged.retain(|d| !damage.hides(d));
    dqlint_project::timings::phase_done("lint: merged, configured, suppressed");
    // Stable output: by file path, then position, then code.
    merged.sort_by(|a, b| {
        let key = |d: &Diagnostic| {
            (
                project.file(d.primary.file).rel.clone(),
                d.primary.span.start,
                d.primary.span.end,
                d.rule.code,
                d.message.clone(),
            )
        };
        key(a).cmp(&key(b))
    });
    merged
}

/// Keeps the findings their file's configuration selects, at the
/// configured severity.
fn configure(project: &Project, policy: &Policy, findings: Vec<Diagnostic>) -> Vec<Diagnostic> {
    findings
        .into_iter()
        .filter_map(|mut d| {
            let rel = &project.file(d.primary.file).rel;
            if !policy.enabled(d.rule, rel) {
                return None;
            }
            if let Some(severity) = policy.config.severity_for(d.rule, rel) {
                d.severity = severity;
            }
            Some(d)
        })
        .collect()
}

/// One finding per (rule, place, message): environments and related
/// locations of repeats are merged; then sorted by file, position, code.
fn merge(items: Vec<Diagnostic>) -> Vec<Diagnostic> {
    const MAX_RELATED: usize = 20;
    let mut index: HashMap<(&'static str, Location, String), usize> = HashMap::new();
    let mut out: Vec<Diagnostic> = Vec::new();
    for d in items {
        let key = (d.rule.code, d.primary.clone(), d.message.clone());
        match index.get(&key) {
            Some(&i) => {
                let existing = &mut out[i];
                for env in d.envs {
                    if !existing.envs.contains(&env) {
                        existing.envs.push(env);
                    }
                }
                for r in d.related {
                    if existing.related.len() < MAX_RELATED && !existing.related.contains(&r) {
                        existing.related.push(r);
                    }
                }
            }
            None => {
                index.insert(key, out.len());
                out.push(d);
            }
        }
    }
    for d in &mut out {
        d.envs.sort();
    }
    out
}

/// Where a value of an action is, or the action's anchor if it is absent.
pub fn origin_of(action: &Action, key: &str) -> Origin {
    action
        .get(key)
        .map(|v| v.origin.clone())
        .unwrap_or_else(|| action.anchor())
}

/// The key of `key` in the action mapping, for "missing field" findings.
pub fn key_origin(value: &Value, key: &str) -> Option<Origin> {
    value.entry(key).map(|e| e.key_origin.clone())
}
