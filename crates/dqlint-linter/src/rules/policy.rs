//! Team policies (`spec/policy.md`): what a team requires of every dataset,
//! checked across the three dialects. This module is the family's one view
//! of datasets: each LHP data_quality action (named by the write target it
//! feeds), each DQX run (its input and output tables) and each pipeline
//! dataset, with its names as policy globs see them, its expectations
//! classified by kind, whether it has a quarantine, and the place a
//! finding about it points at ([`datasets`], built once per lint run).
//!
//! Rule kinds are classified statically: SQL by the facts of its top-level
//! conjuncts (`dqlint_sql::conjuncts`), DQX checks by function name and
//! their `column` / `columns` / `for_each_column` arguments.

pub mod dq950_missing_mandatory_expectation;
pub mod dq951_mandatory_expectation_warn_only;
pub mod dq952_expectation_not_from_registry;
pub mod dq953_circuit_breaker_missing;
pub mod dq954_circuit_breaker_too_loose;

use dqlint_project::{
    Action, Check, Dialect, Enforcement, Env, ExpectationSource, Flowgroup, RuleAction, SourceSpan,
    Value,
};
use dqlint_sql::conjuncts::{conjunct_facts, ConjunctFact};

use crate::config::{MandatoryKind, MinAction, UNKNOWN_NAME_PART};
use crate::engine::Context;
use crate::rules::{dqx, pipeline};

/// What a rule checks, as policies count it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum RuleKind {
    NotNull,
    Unique,
    Range,
    /// Anything else.
    Other,
}

impl RuleKind {
    /// As the configuration, hovers and messages write it.
    pub fn name(self) -> &'static str {
        match self {
            RuleKind::NotNull => "not_null",
            RuleKind::Unique => "unique",
            RuleKind::Range => "range",
            RuleKind::Other => "other",
        }
    }

    /// The kind a policy names.
    pub fn of(kind: MandatoryKind) -> RuleKind {
        match kind {
            MandatoryKind::NotNull => RuleKind::NotNull,
            MandatoryKind::Unique => RuleKind::Unique,
            MandatoryKind::Range => RuleKind::Range,
        }
    }
}

/// One kind a rule has, on the columns it checks (empty when it names
/// none, as `other` rules and column-free DQX checks).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KindFact {
    pub kind: RuleKind,
    pub columns: Vec<String>,
}

impl KindFact {
    fn new(kind: RuleKind, columns: Vec<String>) -> KindFact {
        KindFact { kind, columns }
    }

    /// Whether it checks `column` (compared as Spark compares names). A
    /// `unique` rule on several columns checks their combination, which
    /// says nothing of one of them alone (`(order_id, line)` unique lets
    /// `order_id` repeat): it covers no single column.
    pub fn covers(&self, column: &str) -> bool {
        match self.kind {
            RuleKind::Unique => {
                matches!(self.columns.as_slice(), [only] if only.eq_ignore_ascii_case(column))
            }
            _ => self.columns.iter().any(|c| c.eq_ignore_ascii_case(column)),
        }
    }
}

/// The kinds of a SQL rule: one fact per top-level conjunct that is a
/// `not_null` or `range` check (the same kind on several columns merged),
/// `other` for the rest; a text that does not parse is `other`.
pub fn classify_sql(text: &str) -> Vec<KindFact> {
    let mut out: Vec<KindFact> = Vec::new();
    let mut add =
        |kind: RuleKind, column: Option<String>| match out.iter_mut().find(|f| f.kind == kind) {
            Some(fact) => fact.columns.extend(column),
            None => out.push(KindFact::new(kind, column.into_iter().collect())),
        };
    for fact in conjunct_facts(text).unwrap_or_else(|| vec![ConjunctFact::Other]) {
        match fact {
            ConjunctFact::NotNull { column } => add(RuleKind::NotNull, Some(column)),
            ConjunctFact::Range { column } => add(RuleKind::Range, Some(column)),
            ConjunctFact::Other => add(RuleKind::Other, None),
        }
    }
    out.sort_by_key(|f| f.kind);
    out
}

/// The kind of a DQX check function (by name, as DQX 0.17.0 names them).
pub fn function_kind(function: &str) -> RuleKind {
    match function {
        "is_not_null"
        | "is_not_null_and_not_empty"
        | "is_not_null_and_is_in_list"
        | "is_not_null_and_not_empty_array" => RuleKind::NotNull,
        "is_unique" => RuleKind::Unique,
        "is_in_range" | "is_not_less_than" | "is_not_greater_than" => RuleKind::Range,
        _ => RuleKind::Other,
    }
}

/// The kinds of a DQX check: its function's kind on the columns it checks;
/// `sql_expression` (not negated) by its SQL, as a pipeline rule.
pub fn classify_function(function: &str, columns: Vec<String>, sql: Option<&str>) -> Vec<KindFact> {
    match (function, sql) {
        ("sql_expression", Some(text)) => classify_sql(text),
        _ => vec![KindFact::new(function_kind(function), columns)],
    }
}

/// What an enforcement counts as against `min_action`: quarantine (LHP,
/// a DLT quarantine pair) and DQX `error` keep failing rows out of the
/// clean output, as `drop` does; DQX `warn` keeps them, as `warn` does.
pub fn action_level(enforcement: Enforcement) -> MinAction {
    match enforcement {
        Enforcement::Row(RuleAction::Warn) | Enforcement::DqxWarn => MinAction::Warn,
        Enforcement::Row(RuleAction::Drop) | Enforcement::Quarantine | Enforcement::DqxError => {
            MinAction::Drop
        }
        Enforcement::Row(RuleAction::Fail) => MinAction::Fail,
    }
}

/// How messages and tables name an enforcement.
pub fn action_name(enforcement: Enforcement) -> &'static str {
    match enforcement {
        Enforcement::Row(RuleAction::Warn) => "warn",
        Enforcement::Row(RuleAction::Drop) => "drop",
        Enforcement::Row(RuleAction::Fail) => "fail",
        Enforcement::Quarantine => "quarantine",
        Enforcement::DqxError => "error",
        Enforcement::DqxWarn => "warn",
    }
}

/// One expectation of a dataset with its kinds.
#[derive(Clone, Debug)]
pub struct PolicyExpectation {
    pub name: Option<String>,
    pub check: Check,
    /// Never empty: a rule is at least `other`.
    pub kinds: Vec<KindFact>,
    pub enforcement: Enforcement,
    pub origin: SourceSpan,
}

impl PolicyExpectation {
    fn new(
        name: Option<String>,
        check: Check,
        kinds: Vec<KindFact>,
        enforcement: Enforcement,
        origin: SourceSpan,
    ) -> PolicyExpectation {
        PolicyExpectation {
            name,
            check,
            kinds,
            enforcement,
            origin,
        }
    }

    pub fn has_kind(&self, kind: RuleKind) -> bool {
        self.kinds.iter().any(|f| f.kind == kind)
    }
}

/// A name of a dataset as policy globs see it, and the environments it
/// has that name in (empty: every environment, or no environments).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PolicyName {
    /// Resolved; a part no environment defines is [`UNKNOWN_NAME_PART`].
    pub name: String,
    pub envs: Vec<String>,
}

/// One dataset of any dialect, as policies see it.
#[derive(Clone, Debug)]
pub struct PolicyDataset {
    /// `Lhp`, `DqxRunConfig` (a DQX run, from `config.yml` or the Python
    /// API), `PipelinePython` or `PipelineSql`.
    pub dialect: Dialect,
    /// The name as messages and tables show it (as written, tokens kept).
    pub label: String,
    /// The names globs are matched against (an LHP write target per
    /// environment; a DQX run's input and output tables; a pipeline
    /// dataset's name).
    pub names: Vec<PolicyName>,
    /// Pipeline `table_properties`, LHP `write_target.table_properties`.
    pub table_properties: Vec<(String, String)>,
    pub expectations: Vec<PolicyExpectation>,
    /// Its failing rows go to a quarantine (LHP quarantine mode, a DQX
    /// quarantine output, a DLT quarantine dataset paired with it).
    pub has_quarantine: bool,
    /// It is itself a quarantine table or a check view, not a dataset a
    /// policy is about.
    pub auxiliary: bool,
    /// Where a finding about the dataset points: the LHP data_quality
    /// action's name, the DQX run's output (or input) location, the
    /// pipeline dataset's name.
    pub site: SourceSpan,
    /// The circuit breakers that watch its quarantine: DLT views reading
    /// it or its quarantine, the fail actions of a DQX run's engine.
    pub breakers: Vec<Breaker>,
    /// A DQX run whose actions are not read, so no breaker finding is
    /// made: the `actions_location` it loads them from, or (a Python run
    /// on an engine imported or built with actions not followed) its site.
    pub actions_loaded: Option<SourceSpan>,
    /// Where a missing rule would be written (DQ950's template fix).
    pub rules_home: Option<RulesHome>,
}

/// The file a dataset's rules are written in, where a template of a
/// missing rule goes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RulesHome {
    /// An LHP expectations file in YAML, keyed (`<sql>: {action, name}`)
    /// or a list of `{name, constraint, action}` items.
    LhpExpectations {
        file: dqlint_project::FileId,
        keyed: bool,
    },
    /// A DQX checks file in YAML: a list of checks.
    DqxChecks(dqlint_project::FileId),
    /// A Python pipeline dataset: a decorator line goes at `at` (the start
    /// of the `def` line), with its indentation and the pipelines module's
    /// name (`dp`, `dlt`).
    Decorator {
        file: dqlint_project::FileId,
        at: usize,
        indent: String,
        module: String,
    },
}

impl PolicyDataset {
    /// Every name, for [`crate::config::MandatoryPolicy::selects`].
    pub fn name_texts(&self) -> impl Iterator<Item = &str> {
        self.names.iter().map(|n| n.name.as_str())
    }
}

/// Every dataset of the project, LHP first, then DQX runs, then pipeline
/// datasets, each in project order (built once per lint run).
pub fn datasets<'c>(ctx: &'c Context) -> &'c [PolicyDataset] {
    ctx.policy_datasets.get_or_init(|| {
        let dlt = dlt_breakers(ctx);
        let unique = unique_views(ctx);
        let mut out = lhp_datasets(ctx, &dlt);
        out.extend(dqx_datasets(ctx));
        out.extend(pipeline_datasets(ctx, &dlt, &unique));
        for dataset in out.iter_mut().filter(|d| !d.auxiliary) {
            let keys: Vec<String> = dataset
                .name_texts()
                .map(dqlint_pipeline::quarantine::dataset_key)
                .collect();
            dataset.expectations.extend(
                unique
                    .iter()
                    .filter(|u| keys.iter().any(|key| same_table(&u.reads, key)))
                    .map(|u| u.expectation.clone()),
            );
        }
        out
    })
}

/// A uniqueness view of the pipeline sources (`dqlint_pipeline::uniqueness`):
/// the `unique` expectation it gives the dataset it groups.
struct UniqueViewFact {
    /// The view's name: an auxiliary dataset, no policy subject.
    name: SourceSpan,
    /// The dataset grouped, as a [`dqlint_pipeline::quarantine::dataset_key`].
    reads: String,
    /// `unique` on the grouping keys, with the count expectation's name,
    /// action and place.
    expectation: PolicyExpectation,
}

fn unique_views(ctx: &Context) -> Vec<UniqueViewFact> {
    if ctx.team_policy.mandatory.is_empty() {
        return Vec::new();
    }
    let sources = pipeline::sources(ctx);
    let datasets = pipeline::indexed_datasets(ctx);
    dqlint_pipeline::uniqueness::unique_checks(&datasets)
        .into_iter()
        .map(|found| {
            let (index, dataset) = found.dataset;
            let file = sources[index].id();
            let text = match &found.expectation.constraint {
                dqlint_pipeline::model::Constraint::Known(text) => text.text.clone(),
                dqlint_pipeline::model::Constraint::Unknown { .. } => String::new(),
            };
            let keys = found.grouping.keys.iter().map(|k| k.name.clone()).collect();
            UniqueViewFact {
                name: SourceSpan {
                    file,
                    span: dataset.name.span.clone(),
                },
                reads: dqlint_pipeline::quarantine::dataset_key(&found.grouping.source.name),
                expectation: PolicyExpectation::new(
                    found.expectation.name.as_ref().map(|n| n.name.clone()),
                    Check::Sql(text),
                    vec![KindFact::new(RuleKind::Unique, keys)],
                    Enforcement::Row(pipeline::rule_action(found.expectation.action)),
                    SourceSpan {
                        file,
                        span: pipeline::expectation_site(found.expectation),
                    },
                ),
            }
        })
        .collect()
}

/// One requirement of a `[[policy.mandatory]]` entry on a dataset: a kind,
/// on a column when the entry lists columns for it.
#[derive(Clone, Debug)]
pub struct Requirement<'d> {
    pub kind: MandatoryKind,
    pub column: Option<String>,
    pub status: Status<'d>,
}

/// How a dataset meets one requirement.
#[derive(Clone, Debug)]
pub enum Status<'d> {
    /// A rule of the kind at `min_action` or stronger (the first one), or
    /// `unique = "external"` (`None`).
    Met(Option<&'d PolicyExpectation>),
    /// Only rules below `min_action` have the kind.
    BelowMinAction(Vec<&'d PolicyExpectation>),
    Missing,
}

impl Requirement<'_> {
    /// `unique` or `not_null on id`, as messages say it.
    pub fn describe(&self) -> String {
        match &self.column {
            Some(column) => format!("{} on `{column}`", self.kind.name()),
            None => self.kind.name().to_string(),
        }
    }
}

/// What the entry requires of `dataset`, requirement by requirement, in
/// the order of its `kinds` (and of each kind's `columns`).
pub fn requirements<'d>(
    policy: &crate::config::MandatoryPolicy,
    dataset: &'d PolicyDataset,
) -> Vec<Requirement<'d>> {
    let mut out = Vec::new();
    for &kind in &policy.kinds {
        let columns = policy.columns_of(kind);
        let targets: Vec<Option<&String>> = if columns.is_empty() {
            vec![None]
        } else {
            columns.iter().map(Some).collect()
        };
        for column in targets {
            let status = if kind == MandatoryKind::Unique && policy.unique_external {
                Status::Met(None)
            } else {
                let having: Vec<&PolicyExpectation> = dataset
                    .expectations
                    .iter()
                    .filter(|e| {
                        e.kinds.iter().any(|f| {
                            f.kind == RuleKind::of(kind) && column.is_none_or(|c| f.covers(c))
                        })
                    })
                    .collect();
                match having
                    .iter()
                    .find(|e| action_level(e.enforcement) >= policy.min_action)
                {
                    Some(strong) => Status::Met(Some(strong)),
                    None if having.is_empty() => Status::Missing,
                    None => Status::BelowMinAction(having),
                }
            };
            out.push(Requirement {
                kind,
                column: column.cloned(),
                status,
            });
        }
    }
    out
}

/// The `[[policy.mandatory]]` entries that apply to `dataset`, with their
/// index (none for a quarantine table or a check view).
pub fn policies_of<'c>(
    ctx: &'c Context,
    dataset: &PolicyDataset,
) -> Vec<(usize, &'c crate::config::MandatoryPolicy)> {
    if dataset.auxiliary {
        return Vec::new();
    }
    ctx.team_policy
        .mandatory
        .iter()
        .enumerate()
        .filter(|(_, p)| p.selects(dataset.name_texts(), &dataset.table_properties))
        .collect()
}

/// The environments a selected dataset is selected in, when not all of
/// its names are (an LHP write target that only some environments name
/// so).
pub fn selected_envs(
    policy: &crate::config::MandatoryPolicy,
    dataset: &PolicyDataset,
) -> Vec<String> {
    let matching: Vec<&PolicyName> = dataset
        .names
        .iter()
        .filter(|n| policy.selects(std::iter::once(n.name.as_str()), &[]))
        .collect();
    if matching.len() == dataset.names.len() || matching.is_empty() {
        return Vec::new();
    }
    matching
        .iter()
        .flat_map(|n| n.envs.iter().cloned())
        .collect()
}

/// Whether a `[[policy.mandatory]]` entry governs the pipeline dataset
/// declared at `span` of `file` (DQ912 then gives way to DQ951).
pub fn governs_pipeline_dataset(
    ctx: &Context,
    file: dqlint_project::FileId,
    span: &std::ops::Range<usize>,
) -> bool {
    !ctx.team_policy.mandatory.is_empty()
        && datasets(ctx).iter().any(|d| {
            matches!(d.dialect, Dialect::PipelinePython | Dialect::PipelineSql)
                && d.site.file == file
                && &d.site.span == span
                && !policies_of(ctx, d).is_empty()
        })
}

/// A recognised circuit breaker: something that fails the run when too
/// much of a batch is quarantined.
#[derive(Clone, Debug)]
pub struct Breaker {
    /// How messages name it: `` the view `ledger_breaker` ``, `the
    /// FailPipeline action`.
    pub label: String,
    /// Its comparison: the DLT expectation's constraint, the DQX action's
    /// condition (the action itself when it has none).
    pub site: SourceSpan,
    /// The largest share of a batch it lets be quarantined before it
    /// fails, when it bounds one (`None`: an action without a condition,
    /// a bound on an absolute count or on warnings).
    pub max_share: Option<f64>,
    /// A division by a count that is zero on an empty batch, with no
    /// guard: the divisor.
    pub unguarded_divisor: Option<SourceSpan>,
    /// A DQX action (else a DLT expectation).
    pub dqx: bool,
}

impl Breaker {
    /// From a count bound: the share it lets pass is its ratio when the
    /// total counts the bad rows too (`q / (q + c)`, DQX's
    /// `input_row_count`); a total that may be the clean count alone
    /// (`q <= r * c`) lets `r / (1 + r)` of a batch pass, the smaller of
    /// the two readings, so a looseness is never overstated.
    fn from_bound(
        label: String,
        site: SourceSpan,
        bound: &dqlint_pipeline::breaker::CountBound,
        divisor: impl Fn(&std::ops::Range<usize>) -> Option<std::ops::Range<usize>>,
    ) -> Breaker {
        let total_has_bad = bound.bad.iter().all(|b| bound.total.contains(b))
            || bound.total.iter().any(|t| t == "input_row_count");
        let ratio = bound.max_ratio;
        let max_share = if total_has_bad {
            ratio
        } else {
            ratio / (1.0 + ratio)
        };
        let unguarded_divisor =
            bound
                .division
                .as_ref()
                .filter(|d| !d.guarded)
                .map(|d| SourceSpan {
                    file: site.file,
                    span: divisor(&d.divisor).unwrap_or_else(|| site.span.clone()),
                });
        Breaker {
            label,
            site,
            max_share: Some(max_share),
            unguarded_divisor,
            dqx: false,
        }
    }
}

/// A share as messages write it: `5%`, `4.8%`.
pub fn percent(share: f64) -> String {
    let value = format!("{:.1}", share * 100.0);
    let value = value.strip_suffix(".0").unwrap_or(&value);
    format!("{value}%")
}

/// What `[policy.circuit_breaker]` finds of a dataset's breaker.
#[derive(Clone, Debug)]
pub enum BreakerState<'d> {
    /// No `[policy.circuit_breaker]` selects the dataset.
    NotRequired,
    /// Selected, but nothing is quarantined: no breaker is needed.
    NoQuarantine,
    /// A DQX run whose actions are not read: loaded from
    /// `actions_location`, or on an engine built elsewhere.
    Loaded(&'d SourceSpan),
    /// Selected, quarantined, and no breaker watches it (DQ953).
    Missing,
    /// Its breakers, and the policy's largest share.
    Present {
        breakers: &'d [Breaker],
        max_ratio: f64,
    },
}

impl BreakerState<'_> {
    /// The breaker column of the coverage view (`dqlint policy`).
    pub fn text(&self) -> String {
        match self {
            BreakerState::NotRequired => "-".into(),
            BreakerState::NoQuarantine => "no quarantine".into(),
            BreakerState::Loaded(_) => "actions not read".into(),
            BreakerState::Missing => "missing".into(),
            BreakerState::Present {
                breakers,
                max_ratio,
            } => {
                let tightest = breakers
                    .iter()
                    .filter_map(|b| b.max_share)
                    .min_by(f64::total_cmp);
                let mut text = match tightest {
                    Some(share) if within(share, *max_ratio) => format!("ok ({})", percent(share)),
                    Some(share) => format!("too loose ({})", percent(share)),
                    None => "present".into(),
                };
                if breakers.iter().any(|b| b.unguarded_divisor.is_some()) {
                    text.push_str(", unguarded division");
                }
                text
            }
        }
    }
}

/// Whether a share keeps to the policy's ratio (a rounding's worth of
/// slack: `q * 100 <= 5 * t` is 5%).
pub fn within(share: f64, max_ratio: f64) -> bool {
    share <= max_ratio + 1e-9
}

/// What the circuit-breaker policy finds of `dataset`.
pub fn breaker_state<'d>(ctx: &Context, dataset: &'d PolicyDataset) -> BreakerState<'d> {
    let Some(policy) = &ctx.team_policy.circuit_breaker else {
        return BreakerState::NotRequired;
    };
    if dataset.auxiliary || !policy.selects(dataset.name_texts()) {
        return BreakerState::NotRequired;
    }
    if !dataset.has_quarantine {
        return BreakerState::NoQuarantine;
    }
    if let Some(loaded) = &dataset.actions_loaded {
        return BreakerState::Loaded(loaded);
    }
    if dataset.breakers.is_empty() {
        return BreakerState::Missing;
    }
    BreakerState::Present {
        breakers: &dataset.breakers,
        max_ratio: policy.max_quarantine_ratio,
    }
}

/// Every DLT breaker of the pipeline sources, with the datasets it reads.
struct DltBreakerFact {
    /// The breaker dataset's name: a check view, no policy subject.
    name: SourceSpan,
    reads: Vec<String>,
    breaker: Breaker,
}

fn dlt_breakers(ctx: &Context) -> Vec<DltBreakerFact> {
    if ctx.team_policy.circuit_breaker.is_none() {
        return Vec::new();
    }
    let sources = pipeline::sources(ctx);
    let datasets = pipeline::indexed_datasets(ctx);
    dqlint_pipeline::breaker::dlt_breakers(&datasets)
        .into_iter()
        .map(|found| {
            let (index, dataset) = found.dataset;
            let file = sources[index].id();
            let text = match &found.expectation.constraint {
                dqlint_pipeline::model::Constraint::Known(text) => Some(text),
                dqlint_pipeline::model::Constraint::Unknown { .. } => None,
            };
            let kind = match dataset.kind {
                dqlint_pipeline::model::DatasetKind::MaterializedView => "materialized view",
                _ => "view",
            };
            let breaker = Breaker::from_bound(
                format!("the {kind} `{}`", dataset.name.name),
                SourceSpan {
                    file,
                    span: pipeline::expectation_site(found.expectation),
                },
                &found.bound,
                |divisor| text.and_then(|t| t.source_span(divisor.clone())),
            );
            DltBreakerFact {
                name: SourceSpan {
                    file,
                    span: dataset.name.span.clone(),
                },
                reads: dataset
                    .reads
                    .iter()
                    .map(|r| dqlint_pipeline::quarantine::dataset_key(&r.source.name))
                    .collect(),
                breaker,
            }
        })
        .collect()
}

/// The DLT breakers reading one of `names` (compared as Spark resolves
/// names: a qualified name and an unqualified one meet on the parts they
/// share, `silver.orders` reads `main.silver.orders`).
fn breakers_reading(dlt: &[DltBreakerFact], names: &[String]) -> Vec<Breaker> {
    let keys: Vec<String> = names
        .iter()
        .map(|n| dqlint_pipeline::quarantine::dataset_key(n))
        .collect();
    dlt.iter()
        .filter(|b| {
            b.reads
                .iter()
                .any(|read| keys.iter().any(|key| same_table(read, key)))
        })
        .map(|b| b.breaker.clone())
        .collect()
}

/// Whether two lowercased names are one table: equal, or one a dotted
/// suffix of the other.
fn same_table(a: &str, b: &str) -> bool {
    let (short, long) = if a.len() <= b.len() { (a, b) } else { (b, a) };
    long == short
        || long
            .strip_suffix(short)
            .is_some_and(|head| head.ends_with('.'))
}

/// The DQX breakers of a run: its engine's fail actions (the Python
/// module's).
fn dqx_breakers(source: &dqx::RunConfigSource) -> Vec<Breaker> {
    let file = source.id();
    source
        .fail_actions
        .iter()
        .map(|action| {
            let site = SourceSpan {
                file,
                span: action
                    .condition
                    .as_ref()
                    .map_or(action.span.clone(), |(span, _)| span.clone()),
            };
            let label = "the `FailPipeline` action".to_string();
            match (&action.bound, &action.condition) {
                // A bound on error rows: the quarantined ones.
                (Some(bound), Some((_, text)))
                    if bound.bad.iter().any(|b| b == "error_row_count") =>
                {
                    Breaker {
                        dqx: true,
                        ..Breaker::from_bound(label, site, bound, |divisor| {
                            text.source_span(divisor.clone())
                        })
                    }
                }
                _ => Breaker {
                    label,
                    site,
                    max_share: None,
                    unguarded_divisor: None,
                    dqx: true,
                },
            }
        })
        .collect()
}

/// The kinds a dataset has, each with the actions of its rules (in
/// order, without repeats) and the columns they check: the coverage view.
pub fn kind_summary(dataset: &PolicyDataset) -> Vec<(RuleKind, Vec<&'static str>, Vec<String>)> {
    let mut out: Vec<(RuleKind, Vec<&'static str>, Vec<String>)> = Vec::new();
    for e in &dataset.expectations {
        for fact in &e.kinds {
            let index = match out.iter().position(|(k, _, _)| *k == fact.kind) {
                Some(i) => i,
                None => {
                    out.push((fact.kind, Vec::new(), Vec::new()));
                    out.len() - 1
                }
            };
            let (_, actions, columns) = &mut out[index];
            let action = action_name(e.enforcement);
            if !actions.contains(&action) {
                actions.push(action);
            }
            for c in &fact.columns {
                if !columns.iter().any(|x| x.eq_ignore_ascii_case(c)) {
                    columns.push(c.clone());
                }
            }
        }
    }
    out.sort_by_key(|(k, _, _)| *k);
    out
}

// --- LHP -------------------------------------------------------------------

fn lhp_datasets(ctx: &Context, dlt: &[DltBreakerFact]) -> Vec<PolicyDataset> {
    let model = ctx.project.expectation_model(&ctx.envs);
    ctx.dq_actions()
        .zip(model)
        .map(|((fg, action), model)| {
            let write = write_fed_by(fg, action);
            let target = write.and_then(|w| w.get("write_target"));
            let written = target.and_then(table_name);
            let label = written.clone().unwrap_or_else(|| model.dataset.clone());
            let names = match &written {
                Some(name) => names_per_env(name, &ctx.envs),
                None => vec![PolicyName {
                    name: model.dataset.clone(),
                    envs: Vec::new(),
                }],
            };
            let table_properties = target
                .and_then(|t| t.get("table_properties"))
                .map(string_entries)
                .unwrap_or_default();
            let expectations = model
                .expectations
                .into_iter()
                .map(|e| {
                    let kinds = match &e.check {
                        Check::Sql(text) => classify_sql(text),
                        Check::Function { name, .. } => classify_function(name, Vec::new(), None),
                    };
                    PolicyExpectation::new(e.name, e.check, kinds, e.enforcement, e.origin)
                })
                .collect();
            // A breaker reads the table written or the DLQ.
            let mut watched: Vec<String> = names.iter().map(|n| n.name.clone()).collect();
            if let Some(dlq) = action
                .get("quarantine")
                .and_then(|q| q.get_str("dlq_table"))
            {
                watched.extend(names_per_env(dlq, &ctx.envs).into_iter().map(|n| n.name));
            }
            let breakers = breakers_reading(dlt, &watched);
            let rules_home = lhp_rules_home(ctx, action);
            PolicyDataset {
                dialect: Dialect::Lhp,
                label,
                names,
                table_properties,
                expectations,
                has_quarantine: action.is_quarantine(),
                auxiliary: false,
                site: model.origin,
                breakers,
                actions_loaded: None,
                rules_home,
            }
        })
        .collect()
}

/// The YAML expectations file an LHP data_quality action applies, when
/// its top level is one a rule can be appended to.
fn lhp_rules_home(ctx: &Context, action: &Action) -> Option<RulesHome> {
    use dqlint_project::expectations::Shape;
    let (set, _) = ctx
        .expectation_sets()
        .find(|(_, users)| users.iter().any(|(_, a)| std::ptr::eq(*a, action)))?;
    let file = ctx.project.file(set.file);
    let yaml = file.rel.ends_with(".yaml") || file.rel.ends_with(".yml");
    let keyed = match set.shape {
        Shape::Keyed => true,
        Shape::List => false,
        Shape::Invalid => return None,
    };
    let block_top = file.text.lines().any(|l| {
        let l = l.trim_end();
        match keyed {
            true => l.ends_with(':') && !l.starts_with([' ', '#', '-', '{']),
            false => l.starts_with("- "),
        }
    });
    (yaml && block_top).then_some(RulesHome::LhpExpectations {
        file: set.file,
        keyed,
    })
}

/// The write action the data_quality action's output reaches in its
/// flowgroup: the write reading its `target` view, directly or through
/// transforms that read it (a few steps).
pub fn write_fed_by<'f>(fg: &'f Flowgroup, action: &'f Action) -> Option<&'f Action> {
    let mut view = action.get_str("target")?.to_string();
    for _ in 0..8 {
        let readers: Vec<&Action> = fg
            .actions
            .iter()
            .filter(|a| !std::ptr::eq(*a, action) && reads_view(a, &view))
            .collect();
        if let Some(write) = readers.iter().find(|a| a.action_type() == Some("write")) {
            return Some(write);
        }
        match readers.as_slice() {
            [one] if one.action_type() == Some("transform") => {
                view = one.get_str("target")?.to_string();
            }
            _ => return None,
        }
    }
    None
}

fn reads_view(action: &Action, view: &str) -> bool {
    match action.get("source") {
        Some(v) => match v.as_seq() {
            Some(items) => items.iter().any(|i| i.as_str() == Some(view)),
            None => v.as_str() == Some(view) || v.get_str("view") == Some(view),
        },
        None => false,
    }
}

/// `catalog.schema.table` of a write target (`catalog` + `schema`, or
/// `database`, and `table`), tokens unresolved; `None` without a table (a
/// sink).
pub fn table_name(target: &Value) -> Option<String> {
    let table = target.get_str("table")?.trim();
    if table.is_empty() {
        return None;
    }
    let mut parts: Vec<&str> = Vec::new();
    match target.get_str("database") {
        Some(database) if target.get_str("schema").is_none() => parts.push(database.trim()),
        _ => {
            parts.extend(target.get_str("catalog").map(str::trim));
            parts.extend(target.get_str("schema").map(str::trim));
        }
    }
    parts.retain(|p| !p.is_empty());
    parts.push(table);
    Some(parts.join("."))
}

/// A written name in each environment: tokens resolved where the
/// environment defines them, else [`UNKNOWN_NAME_PART`] (so that
/// `${catalog}.silver.orders` matches `*.silver.*` everywhere); one entry
/// per distinct name, with the environments it holds in.
pub fn names_per_env(written: &str, envs: &[Env]) -> Vec<PolicyName> {
    let mut out: Vec<PolicyName> = Vec::new();
    for env in envs {
        let resolved = env.resolve(written).text;
        let mut name = String::with_capacity(resolved.len());
        let mut last = 0;
        for token in dqlint_project::substitution::scan_tokens(&resolved) {
            name.push_str(&resolved[last..token.range.start]);
            name.push(UNKNOWN_NAME_PART);
            last = token.range.end;
        }
        name.push_str(&resolved[last..]);
        let env_name = (!env.name.is_empty()).then(|| env.name.clone());
        match out.iter_mut().find(|n| n.name == name) {
            Some(existing) => existing.envs.extend(env_name),
            None => out.push(PolicyName {
                name,
                envs: env_name.into_iter().collect(),
            }),
        }
    }
    if out.len() == 1 {
        out[0].envs.clear();
    }
    out
}

/// The string entries of a mapping (numbers and booleans as written).
fn string_entries(map: &Value) -> Vec<(String, String)> {
    map.as_map()
        .unwrap_or(&[])
        .iter()
        .filter_map(|e| {
            let value = match &e.value.kind {
                dqlint_project::ValueKind::Bool(b) => b.to_string(),
                _ => e.value.as_str()?.to_string(),
            };
            Some((e.key.clone(), value))
        })
        .collect()
}

// --- DQX -------------------------------------------------------------------

fn dqx_datasets(ctx: &Context) -> Vec<PolicyDataset> {
    let checks = dqx::checks_files(ctx);
    let mut out = Vec::new();
    for source in dqx::run_config_files(ctx) {
        for run in &source.config.runs {
            let tables: Vec<&(String, std::ops::Range<usize>)> = [&run.input, &run.output]
                .into_iter()
                .flatten()
                .filter_map(|io| io.location.as_ref())
                .filter(|(location, _)| dqlint_dqx::run_config::is_table_location(location))
                .collect();
            let Some(&(label, _)) = tables.last() else {
                continue;
            };
            let site = tables
                .last()
                .map_or(run.name_span.clone(), |(_, s)| s.clone());
            let file = match (&run.checks_location, source.python.is_some()) {
                // A Python call given `checks=`: the module's own rules.
                (None, true) => checks.iter().find(|c| c.id() == source.id()),
                _ => {
                    let location = run.effective_checks_location();
                    let rel = relative_to(&source.file.rel, location);
                    checks.iter().find(|c| c.file.rel == rel && !c.is_python())
                }
            };
            let expectations = file.map(|f| dqx_expectations(ctx, f)).unwrap_or_default();
            let rules_home = file
                .filter(|f| !f.is_python() && !f.file.rel.ends_with(".json"))
                .filter(|f| f.file.text.lines().any(|l| l.starts_with("- ")))
                .map(|f| RulesHome::DqxChecks(f.id()));
            // A Python run whose engine is built elsewhere (imported), or
            // built with actions this reader does not follow, may well have
            // a breaker: its actions count as not read.
            let actions_loaded = run
                .actions_location
                .as_ref()
                .map(|(_, span)| span.clone())
                .or_else(|| {
                    (source.python.is_some()
                        && source.fail_actions.is_empty()
                        && engine_actions_unknown(&source.file.text))
                    .then(|| site.clone())
                });
            out.push(PolicyDataset {
                dialect: Dialect::DqxRunConfig,
                label: label.clone(),
                names: tables
                    .iter()
                    .map(|(name, _)| PolicyName {
                        name: name.clone(),
                        envs: Vec::new(),
                    })
                    .collect(),
                table_properties: Vec::new(),
                expectations,
                has_quarantine: run.quarantine.is_some(),
                auxiliary: false,
                site: SourceSpan {
                    file: source.id(),
                    span: site,
                },
                breakers: dqx_breakers(source),
                actions_loaded: actions_loaded.map(|span| SourceSpan {
                    file: source.id(),
                    span,
                }),
                rules_home,
            });
        }
    }
    out
}

/// Whether a Python source's DQX engine may carry actions the reader does
/// not see: no `DQEngine(...)` is built in it (the engine is imported), or
/// one is built with an `actions=` argument.
fn engine_actions_unknown(text: &str) -> bool {
    let built: Vec<usize> = text.match_indices("DQEngine(").map(|(i, _)| i).collect();
    built.is_empty()
        || built.iter().any(|&start| {
            let mut depth = 0usize;
            let call = text[start..]
                .char_indices()
                .find_map(|(i, c)| {
                    match c {
                        '(' => depth += 1,
                        ')' => {
                            depth = depth.saturating_sub(1);
                            if depth == 0 {
                                return Some(&text[start..start + i]);
                            }
                        }
                        _ => {}
                    }
                    None
                })
                .unwrap_or(&text[start..]);
            call.contains("actions")
        })
}

/// `location` read from the folder holding `rel` (project-relative, `/`).
fn relative_to(rel: &str, location: &str) -> String {
    let folder = rel.rsplit_once('/').map_or("", |(f, _)| f);
    let joined = if folder.is_empty() || location.starts_with('/') {
        location.to_string()
    } else {
        format!("{folder}/{location}")
    };
    dqlint_project::normalize_rel(&joined)
}

/// The checks of a checks file (or a Python module's rules) with their
/// kinds; checks DQX would not resolve are left out.
pub fn dqx_expectations(ctx: &Context, file: &dqx::ChecksFile) -> Vec<PolicyExpectation> {
    file.items()
        .iter()
        .filter_map(|item| {
            let resolved = dqx::resolved_in(ctx, item)?;
            let function = resolved.function_node.as_str()?.to_string();
            let argument = |name: &str| {
                resolved
                    .arguments
                    .iter()
                    .find(|e| e.key.as_str() == Some(name))
                    .map(|e| &e.value)
            };
            let mut columns = Vec::new();
            let mut add_columns = |value: &dqlint_dqx::Typed| match value.as_list() {
                Some(items) => columns.extend(items.iter().filter_map(column_name)),
                None => columns.extend(column_name(value)),
            };
            for name in ["column", "columns"] {
                if let Some(value) = argument(name) {
                    add_columns(value);
                }
            }
            for target in resolved.for_each_column.unwrap_or(&[]) {
                add_columns(target);
            }
            let negated =
                argument("negate").is_some_and(|n| n.kind == dqlint_dqx::Kind::Bool(true));
            let sql = argument("expression")
                .and_then(|e| e.as_str())
                .filter(|_| !negated);
            let kinds = classify_function(&function, columns, sql);
            let enforcement = match item.get("criticality").and_then(|c| c.as_str()) {
                Some("warn") => Enforcement::DqxWarn,
                _ => Enforcement::DqxError,
            };
            let arguments = resolved
                .arguments
                .iter()
                .filter_map(|e| Some((e.key.as_str()?.to_string(), dqx::canonical(&e.value))))
                .collect();
            Some(PolicyExpectation::new(
                item.get("name")
                    .and_then(|n| n.as_str())
                    .map(str::to_string),
                Check::Function {
                    name: function,
                    arguments,
                },
                kinds,
                enforcement,
                SourceSpan {
                    file: file.id(),
                    span: item.span.clone(),
                },
            ))
        })
        .collect()
}

/// A column argument given as a name (`"id"`; `F.col(...)` and other
/// expressions are not names).
fn column_name(value: &dqlint_dqx::Typed) -> Option<String> {
    let text = value.as_str()?.trim().trim_matches('`');
    let plain = !text.is_empty()
        && text
            .chars()
            .all(|c| c.is_alphanumeric() || c == '_' || c == '.');
    plain.then(|| text.rsplit('.').next().unwrap_or(text).to_string())
}

// --- Pipeline sources ------------------------------------------------------

fn pipeline_datasets(
    ctx: &Context,
    dlt: &[DltBreakerFact],
    unique: &[UniqueViewFact],
) -> Vec<PolicyDataset> {
    let sources = pipeline::sources(ctx);
    let model = pipeline::PipelineExpectations(sources).datasets(&ctx.envs);
    let patterns = pipeline::quarantine_patterns(ctx);
    let paired = |dataset: &dqlint_pipeline::model::Dataset, clean: bool| {
        patterns.iter().any(|p| {
            let (_, side) = if clean { p.clean } else { p.quarantine };
            std::ptr::eq(side, dataset)
        })
    };
    let declared = sources
        .iter()
        .flat_map(|s| s.model.datasets.iter().map(move |d| (s, d)));
    declared
        .zip(model)
        .map(|((source, dataset), model)| {
            let name = &dataset.name.name;
            let mut expectations: Vec<PolicyExpectation> = model
                .expectations
                .into_iter()
                .map(|e| {
                    let kinds = match &e.check {
                        Check::Sql(text) => classify_sql(text),
                        Check::Function { name, .. } => classify_function(name, Vec::new(), None),
                    };
                    PolicyExpectation::new(e.name, e.check, kinds, e.enforcement, e.origin)
                })
                .collect();
            expectations.extend(registry_expectations(ctx, source, dataset));
            // A breaker reads the dataset or the quarantine paired with it.
            let mut watched = vec![name.clone()];
            watched.extend(
                patterns
                    .iter()
                    .filter(|p| std::ptr::eq(p.clean.1, dataset))
                    .map(|p| p.quarantine.1.name.name.clone()),
            );
            let breakers = breakers_reading(dlt, &watched);
            let rules_home = decorator_home(source, dataset);
            PolicyDataset {
                dialect: model.dialect,
                label: name.clone(),
                names: vec![PolicyName {
                    name: name.trim_matches('`').to_string(),
                    envs: Vec::new(),
                }],
                table_properties: dataset.table_properties.clone(),
                expectations,
                has_quarantine: paired(dataset, true),
                auxiliary: paired(dataset, false)
                    || ctx.dlt.is_quarantine_name(name)
                    || dlt.iter().any(|b| b.name == model.origin)
                    || unique.iter().any(|u| u.name == model.origin),
                site: model.origin,
                breakers,
                actions_loaded: None,
                rules_home,
            }
        })
        .collect()
}

/// Where a decorator of a Python dataset goes: the start of its `def`
/// line, below a decorator of the pipelines module (`@dp.table`), whose
/// name it reuses.
fn decorator_home(
    source: &pipeline::PipelineSource,
    dataset: &dqlint_pipeline::model::Dataset,
) -> Option<RulesHome> {
    if source.language() != dqlint_pipeline::model::Language::Python {
        return None;
    }
    let text: &str = &source.file.text;
    let at = text[..dataset.name.span.start]
        .rfind('\n')
        .map_or(0, |i| i + 1);
    let def_line = &text[at..];
    let indent: String = def_line.chars().take_while(|c| *c == ' ').collect();
    if !def_line[indent.len()..].starts_with("def ") || at == 0 {
        return None;
    }
    let above = text[..at - 1].rsplit('\n').next()?.trim_start();
    let module = above.strip_prefix('@')?.split('.').next()?;
    let plain = !module.is_empty() && module.chars().all(|c| c.is_alphanumeric() || c == '_');
    plain.then(|| RulesHome::Decorator {
        file: source.id(),
        at,
        indent,
        module: module.to_string(),
    })
}

/// The rules a dataset loads from the registry: each expectation whose
/// argument is a `[dlt] rule_loaders` call naming a registry entry has
/// the entry's rules, with the expectation's action, at the loader call
/// (where the action is chosen).
fn registry_expectations(
    ctx: &Context,
    source: &pipeline::PipelineSource,
    dataset: &dqlint_pipeline::model::Dataset,
) -> Vec<PolicyExpectation> {
    use dqlint_pipeline::model::Constraint;
    if ctx.team_policy.registry.is_empty() {
        return Vec::new();
    }
    let mut out = Vec::new();
    for e in &dataset.expectations {
        let Constraint::Unknown { span, .. } = &e.constraint else {
            continue;
        };
        let Some(call) = pipeline::loader_call(&source.file.text, span, &ctx.dlt.rule_loaders)
        else {
            continue;
        };
        let Some((entry, _)) = &call.entry else {
            continue;
        };
        let action = pipeline::rule_action(e.action);
        for (_, rule) in pipeline::registry_rules(ctx, entry) {
            let text = rule.constraint.text.clone();
            out.push(PolicyExpectation::new(
                rule.name.as_ref().map(|n| n.text.clone()),
                Check::Sql(text.clone()),
                classify_sql(&text),
                Enforcement::Row(action),
                SourceSpan {
                    file: source.id(),
                    span: span.clone(),
                },
            ));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(text: &str) -> Vec<(RuleKind, Vec<String>)> {
        classify_sql(text)
            .into_iter()
            .map(|f| (f.kind, f.columns))
            .collect()
    }

    fn fact(kind: RuleKind, columns: &[&str]) -> (RuleKind, Vec<String>) {
        (kind, columns.iter().map(|c| c.to_string()).collect())
    }

    #[test]
    fn sql_kinds_with_their_columns() {
        assert_eq!(kinds("id IS NOT NULL"), [fact(RuleKind::NotNull, &["id"])]);
        assert_eq!(
            kinds("id IS NOT NULL AND price >= 0 AND isnotnull(sku) AND status IN ('a')"),
            [
                fact(RuleKind::NotNull, &["id", "sku"]),
                fact(RuleKind::Range, &["price"]),
                fact(RuleKind::Other, &[]),
            ]
        );
        assert_eq!(
            kinds("price > 0 OR price IS NULL"),
            [fact(RuleKind::Other, &[])]
        );
        assert_eq!(kinds("price >"), [fact(RuleKind::Other, &[])]);
    }

    #[test]
    fn dqx_function_kinds() {
        for (function, kind) in [
            ("is_not_null", RuleKind::NotNull),
            ("is_not_null_and_not_empty", RuleKind::NotNull),
            ("is_not_null_and_is_in_list", RuleKind::NotNull),
            ("is_not_null_and_not_empty_array", RuleKind::NotNull),
            ("is_unique", RuleKind::Unique),
            ("is_in_range", RuleKind::Range),
            ("is_not_less_than", RuleKind::Range),
            ("is_not_greater_than", RuleKind::Range),
            ("is_in_list", RuleKind::Other),
            ("is_not_in_range", RuleKind::Other),
            ("regex_match", RuleKind::Other),
        ] {
            assert_eq!(function_kind(function), kind, "{function}");
        }
        assert_eq!(
            classify_function("sql_expression", vec![], Some("qty BETWEEN 1 AND 9")),
            [KindFact::new(RuleKind::Range, vec!["qty".into()])]
        );
        assert_eq!(
            classify_function("sql_expression", vec![], None),
            [KindFact::new(RuleKind::Other, vec![])]
        );
    }

    #[test]
    fn actions_against_min_action() {
        assert_eq!(
            action_level(Enforcement::Row(RuleAction::Warn)),
            MinAction::Warn
        );
        assert_eq!(action_level(Enforcement::DqxWarn), MinAction::Warn);
        assert_eq!(action_level(Enforcement::Quarantine), MinAction::Drop);
        assert_eq!(action_level(Enforcement::DqxError), MinAction::Drop);
        assert_eq!(
            action_level(Enforcement::Row(RuleAction::Fail)),
            MinAction::Fail
        );
    }

    #[test]
    fn write_target_names() {
        let parse = |yaml: &str| {
            let file = dqlint_yaml::parse(yaml);
            let node = file.documents[0].root.clone().unwrap();
            Value::from_node(&node, dqlint_project::FileId(0))
        };
        assert_eq!(
            table_name(&parse(
                "catalog: ${catalog}\nschema: silver\ntable: orders\n"
            ))
            .as_deref(),
            Some("${catalog}.silver.orders")
        );
        assert_eq!(
            table_name(&parse("database: ${catalog}.silver\ntable: orders\n")).as_deref(),
            Some("${catalog}.silver.orders")
        );
        assert_eq!(table_name(&parse("type: sink\nsink_type: kafka\n")), None);
    }
}
