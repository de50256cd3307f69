//! DQX checks files (`dqlint-dqx` reads them as DQX does: YAML 1.1 or JSON,
//! strict argument types against the function catalogue).
pub mod dq802_dqx_check_not_mapping;
pub mod dq803_dqx_check_block_missing;
pub mod dq804_dqx_invalid_check_block;
pub mod dq805_dqx_invalid_field_type;
pub mod dq806_dqx_invalid_criticality;
pub mod dq807_dqx_unknown_key;
pub mod dq810_dqx_unknown_function;
pub mod dq811_dqx_missing_argument;
pub mod dq812_dqx_unexpected_argument;
pub mod dq813_dqx_argument_type;
pub mod dq814_dqx_bool_for_int;

use dqlint_dqx::{Catalogue, Format, Function, Loaded, Typed};
use dqlint_project::{FileId, FileKind, SourceFile};

use crate::engine::Context;

/// A checks file with DQX's reading of it.
pub struct ChecksFile<'a> {
    pub file: &'a SourceFile,
    pub loaded: Loaded,
}

impl ChecksFile<'_> {
    pub fn id(&self) -> FileId {
        self.file.id
    }

    /// The items of the top-level list (none when it is not a list).
    pub fn items(&self) -> &[Typed] {
        self.loaded
            .root
            .as_ref()
            .and_then(|r| r.as_list())
            .unwrap_or(&[])
    }
}

/// Every checks file of the project that parses, as DQX loads it.
pub fn checks_files<'a>(ctx: &Context<'a>) -> Vec<ChecksFile<'a>> {
    ctx.project
        .files
        .iter()
        .filter(|f| f.kind == FileKind::DqxChecks && f.read_error.is_none())
        .filter_map(|file| {
            let yaml = file.yaml.as_ref()?;
            if !yaml.errors.is_empty() {
                return None;
            }
            let loaded = dqlint_dqx::load(&file.text, yaml, Format::for_path(&file.rel));
            Some(ChecksFile { file, loaded })
        })
        .collect()
}

/// The catalogue checked against (DQX 0.17.0).
pub fn catalogue() -> &'static Catalogue {
    Catalogue::default_version()
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

/// The check block of an item that DQX would validate arguments of.
pub fn resolved(item: &Typed) -> Option<ResolvedCheck<'_>> {
    let check = item.get("check")?;
    check.as_map()?;
    let function_node = check.get("function")?;
    let name = function_node.as_str()?;
    let function = catalogue().function(name, &[])?;
    let arguments_node = check.get("arguments");
    let arguments = match arguments_node {
        None => &[][..],
        Some(a) => a.as_map()?,
    };
    let for_each_column = match check.get("for_each_column") {
        None => None,
        Some(f) if f.is_none() => None,
        Some(f) => Some(f.as_list().filter(|l| !l.is_empty())?),
    };
    Some(ResolvedCheck {
        function_node,
        function,
        arguments,
        arguments_node,
        for_each_column,
    })
}

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
