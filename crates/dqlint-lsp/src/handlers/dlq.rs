//! Where a `dlq_table` value's tables are created: per environment, the
//! resolved inbox and outbox and the `CREATE TABLE` of each in the
//! project's `.sql` files (as the DLQ DDL rules find them). Hover
//! and definition on a `dlq_table` read it.

use std::ops::Range;

use dqlint_linter::ddl_catalog;
use dqlint_linter::engine::Context;
use dqlint_project::{FileId, Project};

/// One environment's view of a DLQ.
pub struct DlqTables {
    /// The environment's name (empty without substitutions files).
    pub env: String,
    /// Resolved names; `None` when a token does not resolve there.
    pub inbox: Option<String>,
    pub outbox: Option<String>,
    /// The `CREATE TABLE` names of the inbox and outbox, when some `.sql`
    /// file creates them.
    pub inbox_ddl: Option<(FileId, Range<usize>)>,
    pub outbox_ddl: Option<(FileId, Range<usize>)>,
}

/// The DLQ named `written` (a `dlq_table` value, tokens unresolved) in
/// every environment of `project`.
pub fn dlq_tables(project: &Project, written: &str) -> Vec<DlqTables> {
    let ctx = Context::new(project);
    let catalog = ddl_catalog::catalog(&ctx);
    ctx.envs
        .iter()
        .enumerate()
        .map(|(i, env)| {
            let resolved = env.resolve(written);
            let inbox = (resolved.unresolved.is_empty() && !resolved.has_secret)
                .then(|| dqlint_sql::ident::normalize_table_name(&resolved.text))
                .flatten();
            let outbox = inbox.as_ref().map(|name| format!("{name}_outbox"));
            let created = |name: &Option<String>| {
                let table = catalog.tables.get(i)?.get(name.as_ref()?)?;
                Some((table.file, table.create.name_range.clone()))
            };
            DlqTables {
                env: env.name.clone(),
                inbox_ddl: created(&inbox),
                outbox_ddl: created(&outbox),
                inbox,
                outbox,
            }
        })
        .collect()
}
