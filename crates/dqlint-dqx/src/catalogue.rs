//! The DQX check-function catalogue, per DQX version: every registered
//! function with its rule type, minimum DBR and parameters (types, defaults,
//! required flags). The data is generated from the installed package by
//! `dqx_gen_catalogue.py` (see `data/README.md`) and embedded.
//!
//! Shared by every reader of DQX checks: checks files here, `DQRowRule(...)`
//! in Python sources (the pipelines reader), the editor.

use std::collections::{BTreeMap, HashMap};
use std::sync::OnceLock;

use serde::Deserialize;

use crate::types::{type_issues, ParamType, TypeIssue};
use crate::value::{Entry, Typed};

/// The versions whose catalogue is embedded, oldest first.
pub const VERSIONS: &[&str] = &["0.16.0", "0.17.0"];
/// The version checked when `[dqx] version` is not set.
pub const DEFAULT_VERSION: &str = "0.17.0";

const DATA_0_16: &str = include_str!("../data/functions-0.16.0.json");
const DATA_0_17: &str = include_str!("../data/functions-0.17.0.json");

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RuleType {
    /// `DQRowRule`: one verdict per row.
    Row,
    /// `DQDatasetRule`: computed over the dataset (or groups).
    Dataset,
}

impl RuleType {
    pub fn as_str(self) -> &'static str {
        match self {
            RuleType::Row => "row",
            RuleType::Dataset => "dataset",
        }
    }
}

/// An optional DQX module whose functions exist only when its extra is
/// installed (`pip install databricks-labs-dqx[pii]`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Extra {
    Pii,
    Anomaly,
}

impl Extra {
    pub fn name(self) -> &'static str {
        match self {
            Extra::Pii => "pii",
            Extra::Anomaly => "anomaly",
        }
    }

    pub fn parse(name: &str) -> Option<Extra> {
        match name {
            "pii" => Some(Extra::Pii),
            "anomaly" => Some(Extra::Anomaly),
            _ => None,
        }
    }
}

#[derive(Clone, Debug)]
pub struct Function {
    pub name: String,
    pub rule_type: RuleType,
    /// `requires_dbr_version(...)` of the function (the geo checks: 17.1).
    pub min_dbr: Option<String>,
    /// The module that defines it, relative to `databricks/labs/dqx`.
    pub module: String,
    /// Set for functions of an optional module.
    pub extra: Option<Extra>,
    pub params: Vec<Param>,
    /// A custom check function declared in `dqlint.toml` (`[dqx]
    /// custom_functions`): parameters untyped, rule type unknown (row).
    pub custom: bool,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Param {
    pub name: String,
    /// The annotation as written (`str | Column`).
    pub type_text: String,
    pub ty: ParamType,
    pub required: bool,
    /// The default as Python source (`'count'`, `None`, `3.0`).
    pub default: Option<String>,
    pub keyword_only: bool,
}

#[derive(Debug)]
pub struct Catalogue {
    pub version: &'static str,
    /// By name, in name order (listings and suggestions).
    functions: BTreeMap<String, Function>,
    /// The same functions hashed by name: every rule looks up the function
    /// of every check, and a tree of ~100 names costs several string
    /// compares per lookup. The names are the catalogue's own and the
    /// project's `custom_functions`, so a fast hash (not SipHash, which
    /// guards against chosen keys) does: it was a fifth of a lookup.
    index: HashMap<String, Function, foldhash::fast::FixedState>,
    /// Extras installed in every lookup ([`Catalogue::configured`]).
    installed: Vec<Extra>,
}

#[derive(Deserialize)]
struct RawFunction {
    module: String,
    rule_type: String,
    min_dbr: Option<String>,
    params: Vec<RawParam>,
}

#[derive(Deserialize)]
struct RawParam {
    name: String,
    #[serde(rename = "type")]
    ty: Option<String>,
    required: bool,
    default: Option<String>,
    kind: String,
}

fn read(data: &str) -> BTreeMap<String, RawFunction> {
    let value: serde_json::Value = serde_json::from_str(data).expect("embedded catalogue is JSON");
    let functions = value.get("functions").cloned().unwrap_or(value);
    serde_json::from_value(functions).expect("embedded catalogue has the generator's shape")
}

fn build(version: &'static str, data: &str, borrow_extras_from: Option<&str>) -> Catalogue {
    let mut raw = read(data);
    // The 0.17.0 catalogue was generated without the optional extras
    // installed; their functions keep the 0.16.0 signatures.
    if let Some(other) = borrow_extras_from {
        for (name, f) in read(other) {
            if extra_of(&f.module).is_some() {
                raw.entry(name).or_insert(f);
            }
        }
    }
    let functions = raw
        .into_iter()
        .map(|(name, f)| {
            let function = Function {
                rule_type: if f.rule_type == "dataset" {
                    RuleType::Dataset
                } else {
                    RuleType::Row
                },
                min_dbr: f.min_dbr,
                extra: extra_of(&f.module),
                module: f
                    .module
                    .trim_start_matches("databricks/labs/dqx/")
                    .to_string(),
                params: f
                    .params
                    .into_iter()
                    .filter(|p| p.kind != "var_keyword" && p.kind != "var_positional")
                    .map(|p| {
                        let type_text = p.ty.unwrap_or_default();
                        Param {
                            ty: ParamType::parse(&type_text),
                            type_text,
                            name: p.name,
                            required: p.required,
                            default: p.default,
                            keyword_only: p.kind == "keyword_only",
                        }
                    })
                    .collect(),
                name: name.clone(),
                custom: false,
            };
            (name, function)
        })
        .collect();
    Catalogue::new(version, functions, Vec::new())
}

fn extra_of(module: &str) -> Option<Extra> {
    if module.contains("/pii/") {
        Some(Extra::Pii)
    } else if module.contains("/anomaly/") {
        Some(Extra::Anomaly)
    } else {
        None
    }
}

/// The catalogue of an embedded version (`0.17.0`, also `0.17`).
pub fn catalogue(version: &str) -> Option<&'static Catalogue> {
    static V16: OnceLock<Catalogue> = OnceLock::new();
    static V17: OnceLock<Catalogue> = OnceLock::new();
    match version.trim() {
        "0.16.0" | "0.16" => Some(V16.get_or_init(|| build("0.16.0", DATA_0_16, None))),
        "0.17.0" | "0.17" => Some(V17.get_or_init(|| build("0.17.0", DATA_0_17, Some(DATA_0_16)))),
        _ => None,
    }
}

impl Catalogue {
    fn new(
        version: &'static str,
        functions: BTreeMap<String, Function>,
        installed: Vec<Extra>,
    ) -> Catalogue {
        let index = functions
            .iter()
            .map(|(name, f)| (name.clone(), f.clone()))
            .collect();
        Catalogue {
            version,
            functions,
            index,
            installed,
        }
    }

    pub fn default_version() -> &'static Catalogue {
        catalogue(DEFAULT_VERSION).expect("the default version is embedded")
    }

    /// A function that exists with these extras installed (and those of
    /// [`Catalogue::configured`]).
    pub fn function(&self, name: &str, extras: &[Extra]) -> Option<&Function> {
        self.index.get(name).filter(|f| {
            f.extra
                .is_none_or(|e| extras.contains(&e) || self.installed.contains(&e))
        })
    }

    /// This catalogue as a project configures it: `extras` installed, and
    /// custom check functions by name with their parameters (`column`
    /// required, `limit=10` optional with that default), which replace a
    /// built-in function of the same name as DQX's `custom_check_functions`
    /// do.
    pub fn configured(&self, extras: &[Extra], custom: &[(String, Vec<String>)]) -> Catalogue {
        let mut functions = self.functions.clone();
        for (name, params) in custom {
            let params = params
                .iter()
                .map(|p| {
                    let (param, default) = match p.split_once('=') {
                        Some((n, d)) => (n.trim(), Some(d.trim().to_string())),
                        None => (p.trim(), None),
                    };
                    Param {
                        name: param.to_string(),
                        type_text: String::new(),
                        ty: ParamType::Any,
                        required: default.is_none(),
                        default,
                        keyword_only: false,
                    }
                })
                .collect();
            functions.insert(
                name.clone(),
                Function {
                    name: name.clone(),
                    rule_type: RuleType::Row,
                    min_dbr: None,
                    module: "custom".into(),
                    extra: None,
                    params,
                    custom: true,
                },
            );
        }
        Catalogue::new(self.version, functions, extras.to_vec())
    }

    /// A function of the catalogue, extras or not.
    pub fn any_function(&self, name: &str) -> Option<&Function> {
        self.index.get(name)
    }

    pub fn functions(&self) -> impl Iterator<Item = &Function> {
        self.functions.values()
    }

    /// Embedded versions other than this one that have `name`.
    pub fn other_versions_with(&self, name: &str) -> Vec<&'static str> {
        VERSIONS
            .iter()
            .filter(|v| **v != self.version)
            .filter(|v| catalogue(v).is_some_and(|c| c.functions.contains_key(name)))
            .copied()
            .collect()
    }
}

impl Function {
    pub fn param(&self, name: &str) -> Option<&Param> {
        self.params.iter().find(|p| p.name == name)
    }

    pub fn param_names(&self) -> Vec<&str> {
        self.params.iter().map(|p| p.name.as_str()).collect()
    }

    /// `column`, `columns`: what `for_each_column` fills in (DQX puts each
    /// item in `columns` when the function has it, else in `column`).
    pub fn for_each_target(&self) -> &'static str {
        if self.param("columns").is_some() {
            "columns"
        } else {
            "column"
        }
    }

    /// `name(column: str | Column, trim_strings: bool | None = False)`.
    pub fn signature(&self) -> String {
        let mut out = format!("{}(", self.name);
        let mut star = false;
        for (i, p) in self.params.iter().enumerate() {
            if i > 0 {
                out.push_str(", ");
            }
            if p.keyword_only && !star {
                out.push_str("*, ");
                star = true;
            }
            out.push_str(&p.name);
            if !p.type_text.is_empty() {
                out.push_str(": ");
                out.push_str(&p.type_text);
            }
            if let Some(d) = p.default.as_ref().filter(|_| !p.required) {
                out.push_str(" = ");
                out.push_str(d);
            }
        }
        out.push(')');
        out
    }

    /// DQX's argument validation of one check (`_validate_check_function_arguments`):
    /// `arguments` as written (the mapping's entries), `for_each_column`
    /// items if given. With `for_each_column` DQX validates once per item;
    /// here identical issues are reported once.
    pub fn check_arguments<'a>(
        &'a self,
        arguments: &'a [Entry],
        for_each_column: Option<&'a [Typed]>,
    ) -> Vec<ArgIssue<'a>> {
        let mut issues: Vec<ArgIssue<'a>> = Vec::new();
        let push = |issue: ArgIssue<'a>, issues: &mut Vec<ArgIssue<'a>>| {
            if !issues.contains(&issue) {
                issues.push(issue);
            }
        };
        let target = self.for_each_target();
        let runs: Vec<Option<&Typed>> = match for_each_column {
            Some(items) if !items.is_empty() => items.iter().map(Some).collect(),
            _ => vec![None],
        };
        for injected in runs {
            let mut args: Vec<(&str, &Typed, bool)> = arguments
                .iter()
                .filter_map(|e| Some((e.key.as_str()?, &e.value, false)))
                .filter(|(name, _, _)| injected.is_none() || *name != target)
                .collect();
            if let Some(item) = injected {
                args.push((target, item, true));
            }
            if args.is_empty() && !self.params.is_empty() {
                push(ArgIssue::NoArguments, &mut issues);
                continue;
            }
            for (name, value, from_for_each) in &args {
                let Some(param) = self.param(name) else {
                    push(
                        ArgIssue::Unexpected {
                            name,
                            from_for_each: *from_for_each,
                        },
                        &mut issues,
                    );
                    continue;
                };
                for (issue, span) in type_issues(&param.ty, value) {
                    push(
                        ArgIssue::Type {
                            param,
                            issue,
                            span,
                            from_for_each: *from_for_each,
                        },
                        &mut issues,
                    );
                }
                if param.ty.accepts_bool_as_int(value) {
                    push(
                        ArgIssue::BoolForInt {
                            param,
                            span: value.span.clone(),
                        },
                        &mut issues,
                    );
                }
            }
            for param in self.params.iter().filter(|p| p.required) {
                if !args.iter().any(|(n, _, _)| *n == param.name) {
                    push(ArgIssue::Missing { param }, &mut issues);
                }
            }
        }
        issues
    }
}

/// One problem DQX's validation finds with a check's arguments.
#[derive(Clone, Debug, PartialEq)]
pub enum ArgIssue<'a> {
    /// `arguments` empty (after `for_each_column`) for a function that has
    /// parameters, even optional ones.
    NoArguments,
    /// A name not in the signature (or `column` injected by
    /// `for_each_column` into a function without it).
    Unexpected {
        name: &'a str,
        from_for_each: bool,
    },
    Type {
        param: &'a Param,
        issue: TypeIssue,
        span: std::ops::Range<usize>,
        from_for_each: bool,
    },
    /// A boolean that passes only through the bool-for-int carve-out.
    BoolForInt {
        param: &'a Param,
        span: std::ops::Range<usize>,
    },
    Missing {
        param: &'a Param,
    },
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_versions_load() {
        let v17 = catalogue("0.17.0").unwrap();
        assert_eq!(v17.functions().filter(|f| f.extra.is_none()).count(), 89);
        assert!(v17.function("has_num_decimal_places", &[]).is_some());
        assert!(v17.function("does_not_contain_pii", &[]).is_none());
        assert!(v17
            .function("does_not_contain_pii", &[Extra::Pii])
            .is_some());
        let v16 = catalogue("0.16.0").unwrap();
        assert!(v16.function("has_num_decimal_places", &[]).is_none());
        assert_eq!(
            v16.other_versions_with("has_num_decimal_places"),
            vec!["0.17.0"]
        );
        let rows = v17
            .functions()
            .filter(|f| f.extra.is_none() && f.rule_type == RuleType::Row)
            .count();
        assert_eq!(rows, 73);
        assert_eq!(
            v17.function("is_not_null", &[]).unwrap().signature(),
            "is_not_null(column: str | Column)"
        );
    }
}
