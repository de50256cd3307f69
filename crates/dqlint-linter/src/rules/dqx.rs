//! DQX checks files (`dqlint-dqx` reads them as DQX does: YAML 1.1 or JSON,
//! strict argument types against the function catalogue) and run configs
//! (`config.yml`, read as DQX's loader, blueprint, reads it).
pub mod dq801_dqx_checks_not_a_list;
pub mod dq802_dqx_check_not_mapping;
pub mod dq803_dqx_check_block_missing;
pub mod dq804_dqx_invalid_check_block;
pub mod dq805_dqx_invalid_field_type;
pub mod dq806_dqx_invalid_criticality;
pub mod dq807_dqx_unknown_key;
pub mod dq808_dqx_storage_only_key;
pub mod dq809_dqx_filter_misplaced;
pub mod dq810_dqx_unknown_function;
pub mod dq811_dqx_missing_argument;
pub mod dq812_dqx_unexpected_argument;
pub mod dq813_dqx_argument_type;
pub mod dq814_dqx_bool_for_int;
pub mod dq815_dqx_yaml11_scalar;
pub mod dq816_dqx_for_each_column_shape;
pub mod dq817_dqx_for_each_column_overrides;
pub mod dq818_dqx_invalid_argument_value;
pub mod dq820_dqx_unsafe_sql;
pub mod dq821_dqx_row_filter_overridden;
pub mod dq822_dqx_in_list_bare_identifier;
pub mod dq823_dqx_limit_is_expression;
pub mod dq824_dqx_unresolved_placeholder;
pub mod dq825_dqx_invalid_regex;
pub mod dq826_dqx_requires_dbr;
pub mod dq827_dqx_unknown_column;
pub mod dq830_dqx_duplicate_rule;
pub mod dq831_dqx_conflicting_rule;
pub mod dq832_dqx_duplicate_name;
pub mod dq850_dqx_config_invalid;
pub mod dq851_dqx_config_value_defaulted;
pub mod dq852_dqx_config_unknown_key;
pub mod dq853_dqx_config_invalid_location;
pub mod dq854_dqx_config_duplicate_run_config;
pub mod dq855_dqx_no_destination;
pub mod dq856_dqx_shared_checkpoint;
pub mod dq857_dqx_streaming_option_on_batch;
pub mod dq858_dqx_stream_without_checkpoint;
pub mod dq859_dqx_output_is_quarantine;
pub mod dq860_dqx_checks_and_location;
pub mod dq861_dqx_prefiltered_errors;
pub mod dq862_dqx_no_checks_source;

use std::ops::Range;

use dqlint_dqx::{Catalogue, Format, Function, Kind, Loaded, Typed};
use dqlint_pipeline::dqx_api::{ApiCheck, ApiRun, DqxApi, RunSource};
use dqlint_pipeline::PythonModule;
use dqlint_project::{FileId, FileKind, SourceFile};

use crate::engine::Context;

/// A checks file with DQX's reading of it, or a Python source whose
/// `DQRowRule(...)`s are read as the checks DQX's metadata would hold.
pub struct ChecksFile<'a> {
    pub file: &'a SourceFile,
    /// DQX's reading of the file (typed at load for a one-shot lint,
    /// [`SourceFile::dqx`], else here).
    pub loaded: std::sync::Arc<Loaded>,
    /// DQX's Python API in a `.py` source (`None`: a checks file); its
    /// `checks` are [`ChecksFile::items`], in order.
    pub python: Option<DqxApi>,
    /// The items whose arguments DQX's validation has something to say
    /// about, by index ([`argument_issues`]).
    argument_issue_items: std::sync::OnceLock<Vec<usize>>,
    /// Where each item's [`CheckFields`] are, found once for all rules.
    field_positions: std::sync::OnceLock<Vec<FieldPositions>>,
}

impl ChecksFile<'_> {
    pub fn id(&self) -> FileId {
        self.file.id
    }

    /// The checks are rule constructors of a Python source: no YAML
    /// structure to check, no YAML fix to offer.
    pub fn is_python(&self) -> bool {
        self.python.is_some()
    }

    /// The Python constructor behind item `index`.
    pub fn api_check(&self, index: usize) -> Option<&ApiCheck> {
        self.python.as_ref()?.checks.get(index)
    }

    /// The Python constructor behind `item` (by its span).
    pub fn api_check_of(&self, item: &Typed) -> Option<&ApiCheck> {
        self.python
            .as_ref()?
            .checks
            .iter()
            .find(|c| c.item.span == item.span)
    }

    /// The items of the top-level list (none when it is not a list).
    pub fn items(&self) -> &[Typed] {
        self.loaded
            .root
            .as_ref()
            .and_then(|r| r.as_list())
            .unwrap_or(&[])
    }

    /// The items, each with its fields.
    pub fn checks(&self) -> impl Iterator<Item = (&Typed, CheckFields<'_>)> {
        self.items()
            .iter()
            .zip(self.field_positions())
            .map(|(item, at)| (item, at.fields(item)))
    }

    /// The fields of item `index`.
    pub fn fields(&self, index: usize) -> CheckFields<'_> {
        self.field_positions()[index].fields(&self.items()[index])
    }

    /// The check block of item `index` as DQX resolves it against the
    /// project's catalogue ([`resolved_in`]), from the item's fields found
    /// once: several rules resolve every check.
    pub fn resolved<'c>(&'c self, ctx: &'c Context, index: usize) -> Option<ResolvedCheck<'c>> {
        resolve_fields(catalogue_of(ctx), self.fields(index))
    }

    fn field_positions(&self) -> &[FieldPositions] {
        self.field_positions
            .get_or_init(|| self.items().iter().map(FieldPositions::of).collect())
    }
}

/// Every checks file of the project that parses, as DQX loads it (typed
/// once per lint run, whichever rule asks first).
pub fn checks_files<'c, 'a>(ctx: &'c Context<'a>) -> &'c [ChecksFile<'a>] {
    ctx.dqx_checks.get_or_init(|| load_checks_files(ctx))
}

fn load_checks_files<'a>(ctx: &Context<'a>) -> Vec<ChecksFile<'a>> {
    use rayon::prelude::*;
    let typed: Vec<ChecksFile<'a>> = ctx
        .project
        .files
        .par_iter()
        .filter(|f| f.kind == FileKind::DqxChecks && f.read_error.is_none())
        .filter_map(|file| {
            let loaded = match &file.dqx {
                Some(loaded) => loaded.clone(),
                None => {
                    let yaml = file.yaml.as_ref()?;
                    if !yaml.errors.is_empty() {
                        return None;
                    }
                    let format = Format::for_path(&file.rel);
                    std::sync::Arc::new(dqlint_dqx::load(&file.text, yaml, format))
                }
            };
            Some(ChecksFile {
                file,
                loaded,
                python: None,
                argument_issue_items: Default::default(),
                field_positions: Default::default(),
            })
        })
        .collect();
    typed
        .into_iter()
        .chain(python_sources(ctx).filter_map(|(file, api)| {
            if api.checks.is_empty() {
                return None;
            }
            let items = api.checks.iter().map(|c| c.item.clone()).collect();
            let loaded = std::sync::Arc::new(Loaded {
                root: Some(Typed::new(0..0, Kind::List(items))),
                errors: Vec::new(),
            });
            Some(ChecksFile {
                file,
                loaded,
                python: Some(api),
                argument_issue_items: Default::default(),
                field_positions: Default::default(),
            })
        }))
        .collect()
}

/// The project's Python sources that import `databricks.labs.dqx`, with
/// what they build with its API (against the project's catalogue).
fn python_sources<'c, 'a>(
    ctx: &'c Context<'a>,
) -> impl Iterator<Item = (&'a SourceFile, DqxApi)> + 'c {
    ctx.project
        .files
        .iter()
        .filter(|f| f.kind == FileKind::PipelinePython && f.read_error.is_none())
        .filter(|f| f.text.contains("databricks.labs.dqx"))
        .filter_map(|file| {
            let module = PythonModule::parse(&*file.text);
            if !module.discover().dqx {
                return None;
            }
            Some((
                file,
                dqlint_pipeline::dqx_api::read(&module, ctx.dqx_catalogue()),
            ))
        })
}

/// A run config file with DQX's reading of it, or a Python source whose
/// `RunConfig(...)`s and apply-and-save calls are read as run configs.
pub struct RunConfigSource<'a> {
    pub file: &'a SourceFile,
    pub config: dqlint_dqx::run_config::RunConfigFile,
    /// The Python API's runs, aligned with `config.runs` (`None`: a
    /// `config.yml`).
    pub python: Option<Vec<ApiRun>>,
    /// The Python source writes a quarantine somewhere.
    pub python_quarantine: bool,
    /// Its `_errors` prefilters.
    pub errors_filters: Vec<std::ops::Range<usize>>,
    /// The actions of the Python source that fail a run (a circuit
    /// breaker); a `config.yml` declares none (its runs name an
    /// `actions_location`).
    pub fail_actions: Vec<dqlint_pipeline::dqx_api::FailAction>,
}

impl RunConfigSource<'_> {
    pub fn id(&self) -> FileId {
        self.file.id
    }

    /// How messages name run `index`: "run config `orders`", "`RunConfig`
    /// `orders`", "the `apply_checks_and_save_in_table` call".
    pub fn label(&self, index: usize) -> String {
        let run = &self.config.runs[index];
        match self.python.as_ref().and_then(|p| p.get(index)) {
            None => format!("run config `{}`", run.name),
            Some(api) => match &api.source {
                RunSource::RunConfig => format!("`RunConfig` `{}`", run.name),
                RunSource::Call { method, .. } => format!("the `{method}` call"),
            },
        }
    }

    /// The Python API's view of run `index`.
    pub fn api_run(&self, index: usize) -> Option<&ApiRun> {
        self.python.as_ref()?.get(index)
    }
}

/// Every run config of the project that parses, as DQX's loader reads it
/// (a file that does not parse is DQ001's); read once per lint run.
pub fn run_config_files<'c, 'a>(ctx: &'c Context<'a>) -> &'c [RunConfigSource<'a>] {
    ctx.dqx_run_configs
        .get_or_init(|| load_run_config_files(ctx))
}

fn load_run_config_files<'a>(ctx: &Context<'a>) -> Vec<RunConfigSource<'a>> {
    ctx.project
        .files
        .iter()
        .filter(|f| f.kind == FileKind::DqxRunConfig && f.read_error.is_none())
        .filter_map(|file| {
            let yaml = file.yaml.as_ref()?;
            if !yaml.errors.is_empty() {
                return None;
            }
            let loaded = dqlint_dqx::load(&file.text, yaml, Format::for_path(&file.rel));
            if !loaded.errors.is_empty() {
                return None;
            }
            let config = dqlint_dqx::run_config::read(loaded.root.as_ref()?);
            Some(RunConfigSource {
                file,
                config,
                python: None,
                python_quarantine: false,
                errors_filters: Vec::new(),
                fail_actions: Vec::new(),
            })
        })
        .chain(python_sources(ctx).filter_map(|(file, api)| {
            if api.runs.is_empty() && api.errors_filters.is_empty() {
                return None;
            }
            let python_quarantine = api.has_quarantine();
            let config = dqlint_dqx::run_config::RunConfigFile {
                runs: api.runs.iter().map(|r| r.run.clone()).collect(),
                ..Default::default()
            };
            Some(RunConfigSource {
                file,
                config,
                python: Some(api.runs),
                python_quarantine,
                errors_filters: api.errors_filters,
                fail_actions: api.fail_actions,
            })
        }))
        .collect()
}

/// The file range of bytes `range` of the string value `node` (decoded
/// `text`): through the YAML scalar's quoting, or a Python string's
/// source map.
pub fn string_span(
    ctx: &Context,
    file: &ChecksFile,
    node: &Typed,
    text: &str,
    range: std::ops::Range<usize>,
) -> std::ops::Range<usize> {
    match &file.python {
        Some(api) => api
            .string_source(&node.span, range)
            .unwrap_or(node.span.clone()),
        None => crate::expressions::map_to_source(ctx.project, file.id(), &node.span, text, range),
    }
}

/// A finding on a Python source keeps no fix: the fixes write YAML.
pub fn yaml_only_fix(
    file: &ChecksFile,
    mut d: crate::diagnostic::Diagnostic,
) -> crate::diagnostic::Diagnostic {
    if file.is_python() {
        d.fix = None;
    }
    d
}

/// The default catalogue (DQX 0.17.0); rules use [`catalogue_of`].
pub fn catalogue() -> &'static Catalogue {
    Catalogue::default_version()
}

/// The catalogue the project's `[dqx]` selects (version, extras, custom
/// functions).
pub fn catalogue_of<'c>(ctx: &'c Context) -> &'c Catalogue {
    ctx.dqx_catalogue()
}

/// The fields of a check item that the DQ8xx rules read ([`ChecksFile::checks`],
/// [`ChecksFile::fields`]): found once per item for all rules, where each
/// rule asking the item for each key in turn ([`Typed::get`]) walked its
/// keys again every time. As with `get`, the last of a repeated key wins
/// (Python's dict keeps it), and a field of an item or block that is not a
/// mapping is `None`.
#[derive(Clone, Copy, Default)]
pub struct CheckFields<'a> {
    pub check: Option<&'a Typed>,
    pub criticality: Option<&'a Typed>,
    pub name: Option<&'a Typed>,
    pub filter: Option<&'a Typed>,
    pub message_expr: Option<&'a Typed>,
    pub user_metadata: Option<&'a Typed>,
    /// `check: function:`.
    pub function: Option<&'a Typed>,
    /// `check: arguments:`.
    pub arguments: Option<&'a Typed>,
    /// `check: for_each_column:`.
    pub for_each_column: Option<&'a Typed>,
}

/// Where an item's [`CheckFields`] are: positions in the item's mapping
/// (`check`, `criticality`, `name`, `filter`, `message_expr`,
/// `user_metadata`) and in its `check:` block (`function`, `arguments`,
/// `for_each_column`); [`ABSENT`] for a field not written.
#[derive(Clone, Copy)]
struct FieldPositions {
    item: [u32; 6],
    check: [u32; 3],
}

const ABSENT: u32 = u32::MAX;

impl FieldPositions {
    fn of(item: &Typed) -> FieldPositions {
        let mut at = FieldPositions {
            item: [ABSENT; 6],
            check: [ABSENT; 3],
        };
        let entries = item.as_map().unwrap_or_default();
        for (i, entry) in entries.iter().enumerate() {
            let slot = match entry.key.as_str() {
                Some("check") => 0,
                Some("criticality") => 1,
                Some("name") => 2,
                Some("filter") => 3,
                Some("message_expr") => 4,
                Some("user_metadata") => 5,
                _ => continue,
            };
            at.item[slot] = i as u32;
        }
        let block = value_at(entries, at.item[0]).and_then(Typed::as_map);
        for (i, entry) in block.unwrap_or_default().iter().enumerate() {
            let slot = match entry.key.as_str() {
                Some("function") => 0,
                Some("arguments") => 1,
                Some("for_each_column") => 2,
                _ => continue,
            };
            at.check[slot] = i as u32;
        }
        at
    }

    fn fields<'a>(&self, item: &'a Typed) -> CheckFields<'a> {
        let entries = item.as_map().unwrap_or_default();
        let check = value_at(entries, self.item[0]);
        let block = check.and_then(Typed::as_map).unwrap_or_default();
        CheckFields {
            check,
            criticality: value_at(entries, self.item[1]),
            name: value_at(entries, self.item[2]),
            filter: value_at(entries, self.item[3]),
            message_expr: value_at(entries, self.item[4]),
            user_metadata: value_at(entries, self.item[5]),
            function: value_at(block, self.check[0]),
            arguments: value_at(block, self.check[1]),
            for_each_column: value_at(block, self.check[2]),
        }
    }
}

fn value_at(entries: &[dqlint_dqx::Entry], position: u32) -> Option<&Typed> {
    entries.get(position as usize).map(|e| &e.value)
}

/// A check item whose `check:` block is well formed enough for DQX to
/// resolve its function and validate its arguments (pydantic runs the
/// argument validation only when every field is valid).
pub struct ResolvedCheck<'a> {
    pub function_node: &'a Typed,
    pub function: &'a Function,
    pub arguments: &'a [dqlint_dqx::Entry],
    pub arguments_node: Option<&'a Typed>,
    pub for_each_column: Option<&'a [Typed]>,
}

/// The check block of an item that DQX would validate arguments of,
/// against the default catalogue; rules use [`resolved_in`].
pub fn resolved(item: &Typed) -> Option<ResolvedCheck<'_>> {
    resolved_with(catalogue(), item)
}

/// [`resolved`] against the project's catalogue ([`catalogue_of`]).
pub fn resolved_in<'a>(ctx: &'a Context, item: &'a Typed) -> Option<ResolvedCheck<'a>> {
    resolved_with(catalogue_of(ctx), item)
}

fn resolved_with<'a>(cat: &'a Catalogue, item: &'a Typed) -> Option<ResolvedCheck<'a>> {
    resolve_fields(cat, FieldPositions::of(item).fields(item))
}

/// [`resolved_with`] from the item's fields (the last of a repeated key
/// wins, as in Python's dict).
fn resolve_fields<'a>(cat: &'a Catalogue, fields: CheckFields<'a>) -> Option<ResolvedCheck<'a>> {
    let function_node = fields.function?;
    let name = function_node.as_str()?;
    let function = cat.function(name, &[])?;
    let arguments = match fields.arguments {
        None => &[][..],
        Some(a) => a.as_map()?,
    };
    let for_each_column = match fields.for_each_column {
        None => None,
        Some(f) if f.is_none() => None,
        Some(f) => Some(f.as_list().filter(|l| !l.is_empty())?),
    };
    Some(ResolvedCheck {
        function_node,
        function,
        arguments,
        arguments_node: fields.arguments,
        for_each_column,
    })
}

/// The checks of `file` in which DQX's argument validation
/// (`Function::check_arguments`) finds something, each resolved against the
/// project's catalogue, with what it finds. DQ811-DQ814 each report one
/// kind of issue of the same validation: it runs once per check for the
/// four, and most checks have nothing to report.
pub fn argument_issues<'c>(ctx: &'c Context, file: &'c ChecksFile) -> Vec<ArgumentIssues<'c>> {
    let items = file.items();
    let with_issues = file.argument_issue_items.get_or_init(|| {
        (0..items.len())
            .filter(|&i| {
                file.resolved(ctx, i).is_some_and(|check| {
                    !check
                        .function
                        .check_arguments(check.arguments, check.for_each_column)
                        .is_empty()
                })
            })
            .collect()
    });
    with_issues
        .iter()
        .filter_map(|&i| {
            let item = &items[i];
            let check = file.resolved(ctx, i)?;
            let issues = check
                .function
                .check_arguments(check.arguments, check.for_each_column);
            Some((item, check, issues))
        })
        .collect()
}

/// A check item, its resolved check block, and what DQX's argument
/// validation finds in it.
pub type ArgumentIssues<'c> = (&'c Typed, ResolvedCheck<'c>, Vec<dqlint_dqx::ArgIssue<'c>>);

/// The closest of `candidates` to `name`, if close enough to suggest.
pub fn closest<'c>(name: &str, candidates: impl IntoIterator<Item = &'c str>) -> Option<&'c str> {
    let lower = name.to_ascii_lowercase();
    candidates
        .into_iter()
        .map(|c| (c, strsim::jaro_winkler(&lower, &c.to_ascii_lowercase())))
        .filter(|(_, score)| *score > 0.85)
        .max_by(|a, b| a.1.total_cmp(&b.1))
        .map(|(c, _)| c)
}

/// The whole lines from `span`'s first to its last byte, newline included,
/// when nothing else shares them but indentation and a trailing comment:
/// what a fix removes to take one block-style entry out of its mapping.
pub fn own_lines(text: &str, span: std::ops::Range<usize>) -> Option<std::ops::Range<usize>> {
    let start = text[..span.start].rfind('\n').map_or(0, |i| i + 1);
    if !text[start..span.start].trim().is_empty() {
        return None;
    }
    let line_end = text[span.end..]
        .find('\n')
        .map_or(text.len(), |i| span.end + i);
    let rest = text[span.end..line_end].trim();
    if !(rest.is_empty() || rest.starts_with('#')) {
        return None;
    }
    Some(start..(line_end + 1).min(text.len()))
}

/// Where a new block-style key can go in front of the entry whose key
/// starts at `key_start`, and the text that puts `entry` (one line, no
/// newline) there: the entry takes the key's place, the key moves to the
/// next line at the same column. `None` for a key not at the start of its
/// line (after indentation and a list dash), as in a flow mapping.
pub fn insert_before_key(text: &str, key_start: usize, entry: &str) -> Option<(usize, String)> {
    let line_start = text[..key_start].rfind('\n').map_or(0, |i| i + 1);
    let before = &text[line_start..key_start];
    let indent = before.trim_start();
    if !(indent.is_empty() || indent.trim_end() == "-") {
        return None;
    }
    let column = key_start - line_start;
    Some((key_start, format!("{entry}\n{}", " ".repeat(column))))
}

/// A value as DQX compares it: spans and quoting left out, mapping keys in
/// order (DQX compares argument dictionaries).
pub fn canonical(value: &Typed) -> String {
    use dqlint_dqx::Kind;
    match &value.kind {
        Kind::None => "None".into(),
        Kind::Bool(b) => format!("{b}"),
        Kind::Int(i) => format!("{i}"),
        Kind::Float(f) => format!("{f:?}"),
        Kind::Str(s) => format!("{s:?}"),
        Kind::Date(_) | Kind::DateTime(..) => value.shown(),
        Kind::Decimal(d) => format!("Decimal({d:?})"),
        Kind::List(items) => format!(
            "[{}]",
            items.iter().map(canonical).collect::<Vec<_>>().join(", ")
        ),
        Kind::Map(entries) => {
            let mut pairs: Vec<String> = entries
                .iter()
                .map(|e| format!("{}: {}", canonical(&e.key), canonical(&e.value)))
                .collect();
            pairs.sort();
            format!("{{{}}}", pairs.join(", "))
        }
        Kind::Object(o) => format!("<{}>", o.source),
    }
}

/// A hash of [`canonical`]`(value)` computed without writing it: values
/// with the same canonical form have the same fingerprint (mapping entries
/// combine in any order, a NaN is any NaN), so DQ830/DQ831 compare
/// fingerprints and build the canonical strings only when two agree.
pub fn fingerprint(value: &Typed) -> u64 {
    use std::hash::Hasher;
    let mut hasher = fast_hasher();
    hash_canonical(value, &mut hasher);
    hasher.finish()
}

/// A fast hasher with a fixed seed: what is hashed is the project's own
/// text, and a collision only costs a comparison of canonical strings.
pub fn fast_hasher() -> impl std::hash::Hasher {
    use std::hash::BuildHasher;
    foldhash::fast::FixedState::default().build_hasher()
}

fn hash_canonical(value: &Typed, state: &mut impl std::hash::Hasher) {
    use dqlint_dqx::Kind;
    use std::hash::{Hash, Hasher};
    std::mem::discriminant(&value.kind).hash(state);
    match &value.kind {
        Kind::None => {}
        Kind::Bool(b) => b.hash(state),
        Kind::Int(i) => i.hash(state),
        // `{:?}` prints every NaN alike and tells every other bit pattern
        // apart (`-0.0` included).
        Kind::Float(f) if f.is_nan() => 0u8.hash(state),
        Kind::Float(f) => f.to_bits().hash(state),
        Kind::Str(s) | Kind::Decimal(s) => s.hash(state),
        Kind::Date(_) | Kind::DateTime(..) => value.shown().hash(state),
        Kind::List(items) => {
            items.len().hash(state);
            for item in items {
                hash_canonical(item, state);
            }
        }
        Kind::Map(entries) => {
            // Order-free, as `canonical` sorts the entries: the sum of the
            // entries' own hashes.
            let sum = entries.iter().fold(0u64, |sum, e| {
                let mut entry = fast_hasher();
                hash_canonical(&e.key, &mut entry);
                hash_canonical(&e.value, &mut entry);
                sum.wrapping_add(entry.finish())
            });
            entries.len().hash(state);
            sum.hash(state);
        }
        Kind::Object(o) => o.source.hash(state),
    }
}

/// A DQX string as the run reads it: each `{{ name }}` with a `[dqx]
/// variables` entry replaced by its value, as DQX's `resolve_variables`
/// does before anything reads the checks, and each other placeholder
/// (DQ824's) by underscores of its length, a name, so that SQL around it
/// still parses. Keeps the way back to the written string's offsets.
pub struct Substituted {
    pub text: String,
    pieces: Vec<Piece>,
}

/// One placeholder replaced: where its replacement is in the substituted
/// text, where the placeholder is in the written string.
struct Piece {
    new: Range<usize>,
    old: Range<usize>,
    resolved: bool,
}

impl Substituted {
    /// A range of [`Substituted::text`] in the written string: a range
    /// that touches a replacement widens to the whole placeholder.
    pub fn written(&self, range: Range<usize>) -> Range<usize> {
        let start = self.written_offset(range.start, false);
        start..self.written_offset(range.end, true).max(start)
    }

    fn written_offset(&self, at: usize, is_end: bool) -> usize {
        let mut shift = 0isize;
        for piece in &self.pieces {
            let inside = if is_end {
                piece.new.start < at && at <= piece.new.end
            } else {
                piece.new.start <= at && at < piece.new.end
            };
            if inside {
                return if is_end {
                    piece.old.end
                } else {
                    piece.old.start
                };
            }
            if at < piece.new.end || (is_end && at == piece.new.end) {
                break;
            }
            shift = piece.old.end as isize - piece.new.end as isize;
        }
        at.saturating_add_signed(shift)
    }

    /// Whether a placeholder is left unresolved.
    pub fn has_unresolved(&self) -> bool {
        self.pieces.iter().any(|p| !p.resolved)
    }

    /// Whether a range of the text lies within one unresolved placeholder.
    pub fn in_unresolved(&self, range: &Range<usize>) -> bool {
        self.pieces
            .iter()
            .any(|p| !p.resolved && p.new.start <= range.start && range.end <= p.new.end)
    }
}

/// `text` with the variables substituted; see [`Substituted`].
pub fn substitute(
    text: &str,
    variables: &std::collections::BTreeMap<String, String>,
) -> Substituted {
    let mut out = String::with_capacity(text.len());
    let mut pieces = Vec::new();
    let mut from = 0;
    for (name, range) in dq824_dqx_unresolved_placeholder::placeholders(text) {
        out.push_str(&text[from..range.start]);
        let start = out.len();
        match variables.get(&name) {
            Some(value) => out.push_str(value),
            None => out.push_str(&"_".repeat(range.len())),
        }
        pieces.push(Piece {
            new: start..out.len(),
            old: range.clone(),
            resolved: variables.contains_key(&name),
        });
        from = range.end;
    }
    out.push_str(&text[from..]);
    Substituted { text: out, pieces }
}
