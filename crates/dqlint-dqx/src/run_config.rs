//! DQX run configs (`config.yml`) read as DQX reads them: PyYAML
//! `safe_load`, then databricks-labs-blueprint's unmarshalling into
//! DQX's `WorkspaceConfig` dataclasses (0.17.0). Blueprint ignores keys no
//! field has and, where a value cannot be read as its field's type, uses
//! the field's default instead, without a word; only a required value
//! (`run_configs`, a `location`) it cannot read at the top, or a
//! `__post_init__` check, makes the load fail. [`read`] reports each of
//! these with the span of the value, and the run configs as they survive
//! the load, for the rules about what they mean.

use std::ops::Range;

use crate::value::{Kind, Typed};

/// A field type, as blueprint unmarshals it.
#[derive(Clone, Copy, Debug)]
enum Ty {
    Str,
    Bool,
    Int,
    Float,
    List(&'static Ty),
    /// `dict[str, T]`.
    Dict(&'static Ty),
    /// `T | None`.
    Opt(&'static Ty),
    /// `str | bool` (trigger values), `str | int | ...` (variables): the
    /// first variant, `str`, takes every primitive.
    StrUnion,
    /// `float | dict[object, float] | None` (`sample_fraction`).
    FloatOrDict,
    Data(&'static Dataclass),
}

#[derive(Debug)]
struct Dataclass {
    name: &'static str,
    fields: &'static [Field],
}

#[derive(Debug)]
struct Field {
    name: &'static str,
    ty: Ty,
    /// The default as Python prints it; `None`: required.
    default: Option<&'static str>,
}

const fn f(name: &'static str, ty: Ty, default: &'static str) -> Field {
    Field {
        name,
        ty,
        default: Some(default),
    }
}

const fn required(name: &'static str, ty: Ty) -> Field {
    Field {
        name,
        ty,
        default: None,
    }
}

const STR: Ty = Ty::Str;
const OPT_STR: Ty = Ty::Opt(&STR);
const STR_LIST: Ty = Ty::List(&STR);
const STR_DICT: Ty = Ty::Dict(&STR);
const OPT_STR_DICT: Ty = Ty::Opt(&STR_DICT);
const OPT_FLOAT: Ty = Ty::Opt(&Ty::Float);
const OPT_INT: Ty = Ty::Opt(&Ty::Int);

static INPUT: Dataclass = Dataclass {
    name: "InputConfig",
    fields: &[
        required("location", Ty::Str),
        f("format", Ty::Str, "'delta'"),
        f("is_streaming", Ty::Bool, "False"),
        f("schema", OPT_STR, "None"),
        f("options", STR_DICT, "{}"),
    ],
};

static OUTPUT: Dataclass = Dataclass {
    name: "OutputConfig",
    fields: &[
        required("location", Ty::Str),
        f("format", Ty::Str, "'delta'"),
        f("mode", Ty::Str, "'append'"),
        f("options", STR_DICT, "{}"),
        f("trigger", Ty::Dict(&Ty::StrUnion), "{}"),
        f("partition_by", STR_LIST, "[]"),
        f("cluster_by", STR_LIST, "[]"),
    ],
};

static PROFILER: Dataclass = Dataclass {
    name: "ProfilerConfig",
    fields: &[
        f("summary_stats_file", Ty::Str, "'profile_summary_stats.yml'"),
        f("sample_fraction", Ty::FloatOrDict, "0.3"),
        f("sample_seed", OPT_INT, "None"),
        f("sample_by_column", OPT_STR, "None"),
        f("sample_by_values_limit", Ty::Int, "1000"),
        f("limit", Ty::Int, "1000"),
        f("filter", OPT_STR, "None"),
        f("criticality", Ty::Str, "'error'"),
        f("llm_primary_key_detection", Ty::Bool, "False"),
        f("max_null_ratio", OPT_FLOAT, "None"),
        f("max_empty_ratio", OPT_FLOAT, "None"),
        f("outliers_ratio", OPT_FLOAT, "None"),
        f("profile_geospatial", Ty::Bool, "False"),
        f("geospatial_srid", Ty::Int, "3857"),
    ],
};

static ANOMALY: Dataclass = Dataclass {
    name: "AnomalyConfig",
    fields: &[
        f("columns", Ty::Opt(&STR_LIST), "None"),
        f("segment_by", Ty::Opt(&STR_LIST), "None"),
        f("model_name", OPT_STR, "None"),
        f("registry_table", OPT_STR, "None"),
    ],
};

static RUN: Dataclass = Dataclass {
    name: "RunConfig",
    fields: &[
        f("name", Ty::Str, "'default'"),
        f("input_config", Ty::Opt(&Ty::Data(&INPUT)), "None"),
        f("output_config", Ty::Opt(&Ty::Data(&OUTPUT)), "None"),
        f("quarantine_config", Ty::Opt(&Ty::Data(&OUTPUT)), "None"),
        f("metrics_config", Ty::Opt(&Ty::Data(&OUTPUT)), "None"),
        f("profiler_config", Ty::Data(&PROFILER), "ProfilerConfig()"),
        f("checks_user_requirements", OPT_STR, "None"),
        f("checks_location", Ty::Str, "'checks.yml'"),
        f("warehouse_id", OPT_STR, "None"),
        f("reference_tables", Ty::Dict(&Ty::Data(&INPUT)), "{}"),
        f("custom_check_functions", STR_DICT, "{}"),
        f("anomaly_config", Ty::Opt(&Ty::Data(&ANOMALY)), "None"),
        f("lakebase_instance_name", OPT_STR, "None"),
        f("lakebase_client_id", OPT_STR, "None"),
        f("lakebase_port", OPT_STR, "None"),
        f("actions_location", OPT_STR, "None"),
        f("action_events_location", OPT_STR, "None"),
    ],
};

static EXTRA: Dataclass = Dataclass {
    name: "ExtraParams",
    fields: &[
        f("result_column_names", STR_DICT, "{}"),
        f("user_metadata", STR_DICT, "{}"),
        f("run_time_overwrite", OPT_STR, "None"),
        f("run_id_overwrite", OPT_STR, "None"),
        f("suppress_skipped", Ty::Bool, "False"),
        f("variables", Ty::Dict(&Ty::StrUnion), "{}"),
    ],
};

static LLM_MODEL: Dataclass = Dataclass {
    name: "LLMModelConfig",
    fields: &[
        f(
            "model_name",
            Ty::Str,
            "'databricks/databricks-claude-sonnet-4-5'",
        ),
        f("api_key", Ty::Str, "''"),
        f("api_base", Ty::Str, "''"),
        f("max_tokens", Ty::Int, "1000"),
        f("temperature", Ty::Float, "0.0"),
        f("timeout", Ty::Float, "30.0"),
        f("max_retries", Ty::Int, "3"),
    ],
};

static LLM: Dataclass = Dataclass {
    name: "LLMConfig",
    fields: &[f("model", Ty::Data(&LLM_MODEL), "LLMModelConfig()")],
};

static WORKSPACE: Dataclass = Dataclass {
    name: "WorkspaceConfig",
    fields: &[
        required("run_configs", Ty::List(&Ty::Data(&RUN))),
        f("log_level", OPT_STR, "'INFO'"),
        f("serverless_clusters", Ty::Bool, "True"),
        f("upload_dependencies", Ty::Bool, "False"),
        f("extra_params", Ty::Opt(&Ty::Data(&EXTRA)), "None"),
        f("profiler_override_clusters", OPT_STR_DICT, "{}"),
        f("quality_checker_override_clusters", OPT_STR_DICT, "{}"),
        f("e2e_override_clusters", OPT_STR_DICT, "{}"),
        f("anomaly_override_clusters", OPT_STR_DICT, "{}"),
        f("profiler_spark_conf", OPT_STR_DICT, "{}"),
        f("quality_checker_spark_conf", OPT_STR_DICT, "{}"),
        f("e2e_spark_conf", OPT_STR_DICT, "{}"),
        f("anomaly_spark_conf", OPT_STR_DICT, "{}"),
        f("profiler_max_parallelism", Ty::Int, "4"),
        f("quality_checker_max_parallelism", Ty::Int, "4"),
        f("custom_metrics", Ty::Opt(&STR_LIST), "None"),
        f("llm_config", Ty::Data(&LLM), "LLMConfig()"),
    ],
};

/// Something found in the file, at a span.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Issue {
    pub span: Range<usize>,
    pub message: String,
}

/// A key no field of its dataclass has.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnknownKey {
    pub span: Range<usize>,
    pub key: String,
    /// The dataclass (`RunConfig`, `OutputConfig`, ...).
    pub within: &'static str,
    /// Its field names, for a did-you-mean.
    pub fields: Vec<&'static str>,
    /// The other keys of the same mapping.
    pub siblings: Vec<String>,
}

/// A value blueprint could not read and replaced by the field's default.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Defaulted {
    /// The value that could not be read (for a missing required value
    /// inside: the key of the mapping that lacks it).
    pub span: Range<usize>,
    /// The span of the whole value that was replaced.
    pub replaced: Range<usize>,
    /// Why it could not be read.
    pub why: String,
    /// The field replaced (`output_config.partition_by`).
    pub field: String,
    /// Its default, as Python prints it.
    pub default: &'static str,
}

/// One input or output of a run config, as it survives the load.
#[derive(Clone, Debug, PartialEq)]
pub struct Io {
    /// The key (`output_config`, or a reference table's name).
    pub key: String,
    pub key_span: Range<usize>,
    /// `location`, as the string blueprint makes of it.
    pub location: Option<(String, Range<usize>)>,
    /// Input only: `is_streaming` as loaded.
    pub is_streaming: bool,
    /// `options.checkpointLocation` (outputs).
    pub checkpoint: Option<(String, Range<usize>)>,
    /// The `trigger` key, when the trigger is not empty (outputs).
    pub trigger: Option<Range<usize>>,
}

/// One run config as it survives the load.
#[derive(Clone, Debug, PartialEq)]
pub struct Run {
    pub span: Range<usize>,
    /// The name DQX sees (`default` when absent or unreadable), with the
    /// span of the value, or of the item's start when absent.
    pub name: String,
    pub name_span: Range<usize>,
    pub name_written: bool,
    pub input: Option<Io>,
    pub output: Option<Io>,
    pub quarantine: Option<Io>,
    pub metrics: Option<Io>,
    pub reference_tables: Vec<Io>,
    /// `checks_location` as written (absent or unreadable: `None`; DQX then
    /// reads `checks.yml`).
    pub checks_location: Option<(String, Range<usize>)>,
    /// The key of an inline `checks:` list (no `RunConfig` field).
    pub inline_checks: Option<Range<usize>>,
    /// `actions_location` as written (DQX 0.16+: the actions, a circuit
    /// breaker among them, that a workflow run loads for this run config).
    pub actions_location: Option<(String, Range<usize>)>,
}

impl Run {
    /// The `checks_location` DQX uses: the written one, else `checks.yml`.
    pub fn effective_checks_location(&self) -> &str {
        self.checks_location
            .as_ref()
            .map_or("checks.yml", |(s, _)| s.as_str())
    }

    /// Output, quarantine and metrics configs that survive, with their role.
    pub fn outputs(&self) -> impl Iterator<Item = &Io> {
        [&self.output, &self.quarantine, &self.metrics]
            .into_iter()
            .flatten()
    }
}

/// A run config file as DQX loads it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RunConfigFile {
    /// What makes DQX's load fail (`SerdeError`, `IllegalState`,
    /// `InvalidParameterError`), and run configs that cannot run.
    pub invalid: Vec<Issue>,
    pub defaulted: Vec<Defaulted>,
    pub unknown: Vec<UnknownKey>,
    pub runs: Vec<Run>,
}

struct Reader {
    out: RunConfigFile,
}

/// Why a value could not be read: blueprint's `SerdeError`.
struct Serde {
    span: Range<usize>,
    why: String,
}

/// Reads a run config's root value as DQX's loader does.
pub fn read(root: &Typed) -> RunConfigFile {
    let mut reader = Reader {
        out: RunConfigFile::default(),
    };
    if root.as_map().is_none() {
        reader.out.invalid.push(Issue {
            span: root.span.clone(),
            message: format!(
                "a run config is a mapping with `run_configs`; this is {}",
                root.described()
            ),
        });
        return reader.out;
    }
    if let Some(version) = root.entry("version") {
        let ok = match &version.value.kind {
            Kind::Int(i) => *i == 1,
            Kind::Bool(b) => *b,
            Kind::Float(x) => *x == 1.0,
            _ => false,
        };
        if !ok {
            reader.out.invalid.push(Issue {
                span: version.value.span.clone(),
                message: format!(
                    "`version` must be 1, not {}: DQX does not load the file",
                    version.value.shown()
                ),
            });
        }
    }
    let start = root.span.start..root.span.start;
    if let Err(e) = reader.dataclass(Some(root), &WORKSPACE, &start, "", &["version"]) {
        reader.out.invalid.push(Issue {
            span: e.span,
            message: format!("DQX does not load this file: {}", e.why),
        });
    }
    if let Some(runs) = root.get("run_configs") {
        match runs.as_list() {
            Some([]) => reader.out.invalid.push(Issue {
                span: runs.span.clone(),
                message: "`run_configs` is empty: every DQX run fails (\"No run configurations available\")".into(),
            }),
            Some(items) => {
                for item in items {
                    if item.is_none() {
                        reader.out.invalid.push(Issue {
                            span: item.span.clone(),
                            message: "an empty run config: DQX loads it as nothing and fails when it looks up a run config".into(),
                        });
                    }
                }
            }
            None => {}
        }
    }
    let failed = !reader.out.invalid.is_empty();
    if !failed {
        let items = root
            .get("run_configs")
            .and_then(Typed::as_list)
            .unwrap_or(&[]);
        let runs: Vec<Run> = items
            .iter()
            .filter(|i| i.as_map().is_some())
            .map(|i| reader.run(i))
            .collect();
        reader.out.runs = runs;
    }
    reader.out
}

/// One run config as it survives, from a mapping with `RunConfig`'s keys
/// that is not read from a file (a `RunConfig(...)` in Python, or the
/// arguments of an apply-and-save call): nothing is defaulted.
pub fn run_of(item: &Typed) -> Run {
    Reader {
        out: RunConfigFile::default(),
    }
    .run(item)
}

impl Reader {
    /// `_unmarshal` of `value` (absent: `None`) as `ty`; `Ok(false)`: the
    /// result is `None`. `at` is where a missing value is reported.
    fn value(
        &mut self,
        value: Option<&Typed>,
        ty: Ty,
        at: &Range<usize>,
        path: &str,
    ) -> Result<bool, Serde> {
        let Some(value) = value.filter(|v| !v.is_none()) else {
            return match ty {
                Ty::Str | Ty::Bool | Ty::Int | Ty::Float => Err(Serde {
                    span: at.clone(),
                    why: "the value is missing".into(),
                }),
                _ => Ok(false),
            };
        };
        match ty {
            Ty::Str | Ty::Bool | Ty::Int | Ty::Float => primitive(value, ty).map(|_| true),
            Ty::Opt(inner) => self.value(Some(value), *inner, at, path),
            Ty::StrUnion => primitive(value, Ty::Str).map(|_| true),
            Ty::FloatOrDict => {
                if primitive(value, Ty::Float).is_ok() {
                    return Ok(true);
                }
                self.value(Some(value), Ty::Dict(&Ty::Float), at, path)
            }
            Ty::List(item) => {
                let Some(items) = value.as_list() else {
                    return Err(Serde {
                        span: value.span.clone(),
                        why: format!("it must be a list, not {}", value.described()),
                    });
                };
                for (i, v) in items.iter().enumerate() {
                    self.value(Some(v), *item, &v.span, &format!("{path}.{i}"))
                        .map_err(|e| Serde {
                            span: e.span,
                            why: format!("item {}: {}", i + 1, e.why),
                        })?;
                }
                Ok(true)
            }
            Ty::Dict(item) => {
                let Some(entries) = value.as_map() else {
                    return Err(Serde {
                        span: value.span.clone(),
                        why: format!("it must be a mapping, not {}", value.described()),
                    });
                };
                for e in entries {
                    let key = e.key.as_str().map(str::to_string).unwrap_or_default();
                    let sub = format!("{path}.{key}");
                    match (self.value(Some(&e.value), *item, &e.key.span, &sub), item) {
                        // A union that reads nothing leaves `None`, no error.
                        (Err(_), Ty::StrUnion) => {}
                        (Err(err), _) => return Err(err),
                        _ => {}
                    }
                }
                Ok(true)
            }
            Ty::Data(class) => self.dataclass(Some(value), class, at, path, &[]),
        }
    }

    fn dataclass(
        &mut self,
        value: Option<&Typed>,
        class: &'static Dataclass,
        at: &Range<usize>,
        path: &str,
        skip: &[&str],
    ) -> Result<bool, Serde> {
        let Some(value) = value.filter(|v| !v.is_none()) else {
            return Ok(false);
        };
        let Some(entries) = value.as_map() else {
            return Err(Serde {
                span: value.span.clone(),
                why: format!("it must be a mapping, not {}", value.described()),
            });
        };
        for e in entries {
            let Some(key) = e.key.as_str() else { continue };
            if !class.fields.iter().any(|f| f.name == key) && !skip.contains(&key) {
                self.out.unknown.push(UnknownKey {
                    span: e.key.span.clone(),
                    key: key.to_string(),
                    within: class.name,
                    fields: class.fields.iter().map(|f| f.name).collect(),
                    siblings: entries
                        .iter()
                        .filter_map(|e| e.key.as_str())
                        .filter(|k| *k != key)
                        .map(str::to_string)
                        .collect(),
                });
            }
        }
        for field in class.fields {
            let entry = value.entry(field.name);
            let raw = entry.map(|e| &e.value);
            let sub = if path.is_empty() {
                field.name.to_string()
            } else {
                format!("{path}.{}", field.name)
            };
            let at_key = entry.map_or(at.clone(), |e| e.key.span.clone());
            let result = self.value(raw, field.ty, &at_key, &sub);
            let got = match result {
                Ok(got) => got,
                Err(err) => match field.default {
                    Some(default) => {
                        if let Some(raw) = raw.filter(|r| !r.is_none()) {
                            self.out.defaulted.push(Defaulted {
                                span: err.span,
                                replaced: raw.span.clone(),
                                why: err.why,
                                field: sub,
                                default,
                            });
                        }
                        continue;
                    }
                    None => {
                        let why = if raw.is_none() {
                            format!("`{}` is missing", field.name)
                        } else {
                            format!("`{}`: {}", field.name, err.why)
                        };
                        return Err(Serde {
                            span: err.span,
                            why,
                        });
                    }
                },
            };
            if !got && field.default.is_none() {
                return Err(Serde {
                    span: at_key,
                    why: format!("`{}` is missing", field.name),
                });
            }
        }
        self.post_init(value, class);
        Ok(true)
    }

    /// The dataclasses' own checks, which fail the whole load.
    fn post_init(&mut self, value: &Typed, class: &Dataclass) {
        let non_empty = |key: &str| {
            value
                .get(key)
                .and_then(Typed::as_list)
                .is_some_and(|l| !l.is_empty())
        };
        if class.name == "OutputConfig" && non_empty("partition_by") && non_empty("cluster_by") {
            let span = value
                .entry("cluster_by")
                .map_or(value.span.clone(), |e| e.key.span.clone());
            self.out.invalid.push(Issue {
                span,
                message: "`partition_by` and `cluster_by` are both set: DQX does not load the file (\"Only one of partition_by or cluster_by is allowed\")".into(),
            });
        }
        if class.name == "LLMModelConfig" {
            for (key, positive) in [("max_retries", false), ("max_tokens", true)] {
                let Some(v) = value.get(key) else { continue };
                let ok = match v.kind {
                    Kind::Int(i) => {
                        if positive {
                            i > 0
                        } else {
                            i >= 0
                        }
                    }
                    // Unreadable values are defaulted before the check.
                    Kind::Bool(_) => false,
                    _ => true,
                };
                if !ok {
                    self.out.invalid.push(Issue {
                        span: v.span.clone(),
                        message: format!(
                            "`{key}` must be a {} integer: DQX does not load the file",
                            if positive { "positive" } else { "non-negative" }
                        ),
                    });
                }
            }
            if let Some(v) = value.get("temperature") {
                let bad = match v.kind {
                    Kind::Int(i) => i < 0,
                    Kind::Float(x) => x < 0.0,
                    Kind::Bool(_) => true,
                    _ => false,
                };
                if bad {
                    self.out.invalid.push(Issue {
                        span: v.span.clone(),
                        message: "`temperature` must be a non-negative number: DQX does not load the file".into(),
                    });
                }
            }
        }
    }

    fn survives(&self, span: &Range<usize>) -> bool {
        !self
            .out
            .defaulted
            .iter()
            .any(|d| d.replaced.start <= span.start && span.end <= d.replaced.end)
    }

    fn run(&self, item: &Typed) -> Run {
        let name_node = item.get("name").filter(|n| self.survives(&n.span));
        let name = name_node
            .and_then(as_python_str)
            .unwrap_or_else(|| "default".into());
        let (name_span, name_written) = match item.get("name") {
            Some(n) => (n.span.clone(), true),
            None => (
                item.as_map()
                    .and_then(|e| e.first())
                    .map_or(item.span.clone(), |e| e.key.span.clone()),
                false,
            ),
        };
        let io = |key: &str, input: bool| -> Option<Io> {
            let entry = item.entry(key)?;
            if !self.survives(&entry.value.span) || entry.value.as_map().is_none() {
                return None;
            }
            Some(self.io(key, &entry.key.span, &entry.value, input))
        };
        let reference_tables = item
            .get("reference_tables")
            .filter(|r| self.survives(&r.span))
            .and_then(Typed::as_map)
            .unwrap_or(&[])
            .iter()
            .filter(|e| e.value.as_map().is_some())
            .map(|e| {
                let key = e.key.as_str().unwrap_or_default();
                self.io(key, &e.key.span, &e.value, true)
            })
            .collect();
        let checks_location = item
            .get("checks_location")
            .filter(|c| self.survives(&c.span))
            .and_then(|c| Some((as_python_str(c)?, c.span.clone())));
        // A value the reader cannot know (a Python variable) counts as set.
        let actions_location = item
            .get("actions_location")
            .filter(|c| self.survives(&c.span))
            .filter(|c| !matches!(&c.kind, Kind::None))
            .map(|c| match &c.kind {
                Kind::Object(o) => (o.source.clone(), c.span.clone()),
                _ => (as_python_str(c).unwrap_or_default(), c.span.clone()),
            })
            .filter(|(location, _)| !location.trim().is_empty());
        Run {
            span: item.span.clone(),
            name,
            name_span,
            name_written,
            input: io("input_config", true),
            output: io("output_config", false),
            quarantine: io("quarantine_config", false),
            metrics: io("metrics_config", false),
            reference_tables,
            checks_location,
            inline_checks: item.entry("checks").map(|e| e.key.span.clone()),
            actions_location,
        }
    }

    fn io(&self, key: &str, key_span: &Range<usize>, value: &Typed, input: bool) -> Io {
        let location = value
            .get("location")
            .and_then(|l| Some((as_python_str(l)?, l.span.clone())));
        let is_streaming = input
            && value
                .get("is_streaming")
                .filter(|v| self.survives(&v.span))
                .is_some_and(|v| match &v.kind {
                    Kind::Bool(b) => *b,
                    Kind::Str(s) => s.eq_ignore_ascii_case("true"),
                    _ => false,
                });
        let options = value
            .get("options")
            .filter(|o| self.survives(&o.span))
            .and_then(Typed::as_map)
            .unwrap_or(&[]);
        let checkpoint = options
            .iter()
            .rev()
            .find(|e| e.key.as_str() == Some("checkpointLocation"))
            .and_then(|e| Some((as_python_str(&e.value)?, e.value.span.clone())));
        let trigger = value
            .entry("trigger")
            .filter(|e| self.survives(&e.value.span))
            .filter(|e| e.value.as_map().is_some_and(|m| !m.is_empty()))
            .map(|e| e.key.span.clone());
        Io {
            key: key.to_string(),
            key_span: key_span.clone(),
            location,
            is_streaming,
            checkpoint: if input { None } else { checkpoint },
            trigger: if input { None } else { trigger },
        }
    }
}

/// `str(value)` for a primitive, as blueprint coerces it.
fn as_python_str(v: &Typed) -> Option<String> {
    Some(match &v.kind {
        Kind::Str(s) => s.clone(),
        Kind::Bool(true) => "True".into(),
        Kind::Bool(false) => "False".into(),
        Kind::Int(i) => i.to_string(),
        Kind::Float(x) => python_float(*x),
        _ => return None,
    })
}

fn python_float(x: f64) -> String {
    if x.is_finite() && x.fract() == 0.0 && x.abs() < 1e16 {
        format!("{x:.1}")
    } else if x.is_nan() {
        "nan".into()
    } else if x.is_infinite() {
        if x > 0.0 { "inf" } else { "-inf" }.into()
    } else {
        x.to_string()
    }
}

/// `_unmarshal_primitive`: an instance of the type passes (a bool is an
/// int), `bool` takes only the strings `true`/`false` (any case), an
/// `int` refuses a float, everything else converts as `int()`,
/// `float()`, `str()` would; a non-primitive (null, date, list, mapping)
/// never reads.
fn primitive(v: &Typed, ty: Ty) -> Result<(), Serde> {
    let fail = |expected: &str| Serde {
        span: v.span.clone(),
        why: format!("it must be {expected}, not {}", v.described_value()),
    };
    match (&v.kind, ty) {
        (Kind::Str(_) | Kind::Bool(_) | Kind::Int(_) | Kind::Float(_), Ty::Str) => Ok(()),
        (Kind::Bool(_), Ty::Bool | Ty::Int) => Ok(()),
        (Kind::Str(s), Ty::Bool)
            if s.eq_ignore_ascii_case("true") || s.eq_ignore_ascii_case("false") =>
        {
            Ok(())
        }
        (_, Ty::Bool) => Err(fail("a boolean (`true`/`false`)")),
        (Kind::Int(_), Ty::Int) => Ok(()),
        (Kind::Str(s), Ty::Int) if python_int(s) => Ok(()),
        (_, Ty::Int) => Err(fail("an integer")),
        (Kind::Int(_) | Kind::Float(_) | Kind::Bool(_), Ty::Float) => Ok(()),
        (Kind::Str(s), Ty::Float) if python_float_str(s) => Ok(()),
        (_, Ty::Float) => Err(fail("a number")),
        _ => Err(fail("a string")),
    }
}

/// Whether `int(s)` accepts the string.
fn python_int(s: &str) -> bool {
    let t = s.trim();
    let t = t.strip_prefix(['+', '-']).unwrap_or(t);
    !t.is_empty()
        && !t.starts_with('_')
        && !t.ends_with('_')
        && !t.contains("__")
        && t.bytes().all(|b| b.is_ascii_digit() || b == b'_')
}

/// Whether `float(s)` accepts the string.
fn python_float_str(s: &str) -> bool {
    let t = s.trim().to_ascii_lowercase();
    let body = t.strip_prefix(['+', '-']).unwrap_or(&t);
    matches!(body, "inf" | "infinity" | "nan") || body.replace('_', "").parse::<f64>().is_ok()
}

impl Typed {
    /// A value named for a message: its kind and, for a scalar, itself.
    pub fn described_value(&self) -> String {
        match &self.kind {
            Kind::List(_) | Kind::Map(_) | Kind::None => self.described().to_string(),
            _ => format!("{} ({})", self.described(), self.shown()),
        }
    }
}

/// Whether `location` is one DQX can read or write: a 2- or 3-part table
/// name (each part bare `[A-Za-z0-9_]+` or backticked), or a path starting
/// with `/`, `s3:/`, `abfss:/` or `gs:/` (`config.TABLE_PATTERN`,
/// `io.STORAGE_PATH_PATTERN`).
pub fn is_valid_location(location: &str) -> bool {
    if ["/", "s3:/", "abfss:/", "gs:/"]
        .iter()
        .any(|p| location.starts_with(p))
    {
        return true;
    }
    table_parts(location).is_some_and(|parts| parts.len() == 2 || parts.len() == 3)
}

/// DQX's `is_table_location`: a table name that does not end with a
/// checks-file extension (`checks.yml` is a file).
pub fn is_table_location(location: &str) -> bool {
    let lower = location.to_ascii_lowercase();
    table_parts(location).is_some_and(|parts| parts.len() == 2 || parts.len() == 3)
        && ![".json", ".yaml", ".yml"]
            .iter()
            .any(|x| lower.ends_with(x))
}

/// The parts of a dotted table name, backticks kept; `None` when a part is
/// neither a bare identifier nor backticked.
pub fn table_parts(location: &str) -> Option<Vec<&str>> {
    let mut parts = Vec::new();
    let mut rest = location;
    loop {
        let part_len = if let Some(after) = rest.strip_prefix('`') {
            after.find('`').filter(|&i| i > 0)? + 2
        } else {
            rest.find('.').unwrap_or(rest.len())
        };
        let part = &rest[..part_len];
        let bare_ok = part.starts_with('`')
            || (!part.is_empty() && part.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_'));
        if !bare_ok {
            return None;
        }
        parts.push(part);
        rest = &rest[part_len..];
        if rest.is_empty() {
            return Some(parts);
        }
        rest = rest.strip_prefix('.')?;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::value::{load, Format};

    fn read_text(text: &str) -> RunConfigFile {
        let yaml = dqlint_yaml::parse(text);
        let loaded = load(text, &yaml, Format::Yaml);
        read(&loaded.root.unwrap())
    }

    #[test]
    fn locations() {
        for ok in [
            "a.b",
            "c.s.t",
            "c.`my table`.t",
            "/Volumes/x",
            "s3://b/k",
            "abfss://x",
            "gs://x",
            "1abc.t",
        ] {
            assert!(is_valid_location(ok), "{ok}");
        }
        for bad in [
            "orders",
            "a.b.c.d",
            "dbfs:/x",
            "",
            "a..b",
            "a.b-c",
            "https://x",
        ] {
            assert!(!is_valid_location(bad), "{bad}");
        }
    }

    #[test]
    fn defaults_and_unknown_keys_as_blueprint() {
        let text = "run_configs:\n- name: r\n  input_config: {location: a.b, is_streaming: \"yes\"}\n  output_config:\n    location: a.c\n    partition_by: day\n  quarantine_config: a.b.q\n  quarantine_table: x\n";
        let file = read_text(text);
        assert!(file.invalid.is_empty(), "{:?}", file.invalid);
        let fields: Vec<&str> = file.defaulted.iter().map(|d| d.field.as_str()).collect();
        assert_eq!(
            fields,
            [
                "run_configs.0.input_config.is_streaming",
                "run_configs.0.output_config.partition_by",
                "run_configs.0.quarantine_config"
            ]
        );
        assert_eq!(file.unknown.len(), 1);
        let run = &file.runs[0];
        assert!(run.quarantine.is_none());
        assert!(!run.input.as_ref().unwrap().is_streaming);
        assert!(run.output.is_some());
    }

    #[test]
    fn one_unreadable_value_drops_its_whole_container() {
        let text = "run_configs:\n- reference_tables:\n    a: {location: x.y}\n    b: {format: delta}\n  output_config:\n    location: a.b\n    options: {checkpointLocation: /c, nested: {x: 1}}\n";
        let file = read_text(text);
        let fields: Vec<&str> = file.defaulted.iter().map(|d| d.field.as_str()).collect();
        assert_eq!(
            fields,
            [
                "run_configs.0.output_config.options",
                "run_configs.0.reference_tables"
            ]
        );
        let run = &file.runs[0];
        assert!(run.reference_tables.is_empty());
        assert!(run.output.as_ref().unwrap().checkpoint.is_none());
        assert_eq!(run.name, "default");
    }

    #[test]
    fn load_errors() {
        assert_eq!(
            read_text("version: 2\nrun_configs: [{}]\n").invalid.len(),
            1
        );
        assert!(read_text("version: 1.0\nrun_configs: [{}]\n")
            .invalid
            .is_empty());
        assert_eq!(read_text("run_configs: a\n").invalid.len(), 1);
        assert_eq!(read_text("run_configs:\n").invalid.len(), 1);
        assert_eq!(read_text("run_configs: [a]\n").invalid.len(), 1);
        assert_eq!(
            read_text("run_configs:\n- output_config: {location: a.b, partition_by: [x], cluster_by: [y]}\n")
                .invalid
                .len(),
            1
        );
        // A run config without a readable location at the top fails the load.
        assert_eq!(
            read_text("run_configs:\n- {name: 1}\n- 5\n").invalid.len(),
            1
        );
    }
}
