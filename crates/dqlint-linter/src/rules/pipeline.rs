//! Pipeline sources (`spec/dlt.md`): Lakeflow Declarative Pipelines in
//! Python and SQL, read by `dqlint-pipeline` into the pipeline model once
//! per lint run ([`sources`]); the DQ9xx rules read that model.

use std::ops::Range;

use dqlint_pipeline::model::{Constraint, PipelineFile};
use dqlint_project::{FileId, FileKind, SourceFile};

use crate::engine::Context;

/// One pipeline source with what it declares.
pub struct PipelineSource<'a> {
    pub file: &'a SourceFile,
    pub model: PipelineFile,
}

impl PipelineSource<'_> {
    pub fn id(&self) -> FileId {
        self.file.id
    }
}

/// Every pipeline source of the project that could be read, in project
/// order (read once per lint run, whichever rule asks first).
pub fn sources<'c, 'a>(ctx: &'c Context<'a>) -> &'c [PipelineSource<'a>] {
    ctx.pipeline_sources.get_or_init(|| read_sources(ctx))
}

fn read_sources<'a>(ctx: &Context<'a>) -> Vec<PipelineSource<'a>> {
    use rayon::prelude::*;
    let files: Vec<&'a SourceFile> = ctx
        .project
        .files
        .iter()
        .filter(|f| f.kind.is_pipeline() && f.read_error.is_none())
        .collect();
    files
        .into_par_iter()
        .map(|file| PipelineSource {
            file,
            model: read_model(ctx, file),
        })
        .collect()
}

fn read_model(ctx: &Context, file: &SourceFile) -> PipelineFile {
    match file.kind {
        FileKind::PipelineSql => dqlint_pipeline::sql::read(&file.text),
        _ => read_python(ctx, file),
    }
}

/// A Python source, with the modules of the project it imports from (one
/// level: the loader read them).
fn read_python(ctx: &Context, file: &SourceFile) -> PipelineFile {
    let project = ctx.project;
    let imports = |module: &str| -> Option<String> {
        dqlint_project::dialect::module_candidates(&file.rel, module)
            .iter()
            .find_map(|rel| {
                project
                    .files
                    .iter()
                    .find(|f| &f.rel == rel && f.read_error.is_none())
            })
            .map(|f| f.text.to_string())
    };
    dqlint_pipeline::python_model::read(&file.text, &imports)
}

/// The span a finding about a constraint points at: the whole text's
/// source, or where it was found unknown.
pub fn constraint_span(constraint: &Constraint) -> Option<Range<usize>> {
    match constraint {
        Constraint::Known(evaluated) => evaluated.source_span(0..evaluated.text.len()),
        Constraint::Unknown { span, .. } => Some(span.clone()),
    }
}
