//! The DDL of the project's `.sql` files, for the DLQ rules (DQ402-DQ409).
//!
//! Every `.sql` file is parsed once ([`catalog`], cached in the
//! [`Context`]). Per environment, each `CREATE TABLE` is keyed by its name
//! after substitution, lower-cased and unbackticked; `ALTER TABLE ... SET /
//! UNSET TBLPROPERTIES` and `ALTER TABLE ... CLUSTER BY` are then applied in
//! file order (files sorted by project-relative path) after the `CREATE`.

use std::collections::HashMap;
use std::ops::Range;

use dqlint_project::{Env, FileId};
use dqlint_sql::ddl::{parse_sql_file, AlterOp, CreateTable, DdlStatement, SqlFile, UpdateStmt};
use dqlint_sql::ident::normalize_table_name;

use crate::diagnostic::{Applicability, Diagnostic, Edit, Fix, Severity};
use crate::engine::Context;
use crate::quarantine::{resolved_uses, tokenized, QuarantineUse};

/// The parsed `.sql` files and, per environment, the tables they define.
pub struct DdlCatalog {
    /// `.sql` files in path order, parsed.
    pub files: Vec<(FileId, SqlFile)>,
    /// Indexed like `Context::envs`: tables by normalized resolved name.
    pub tables: Vec<HashMap<String, TableDdl>>,
    /// Indexed like `Context::envs`: every `UPDATE` whose table name
    /// resolves, with that normalized name.
    pub updates: Vec<Vec<(FileId, UpdateStmt, String)>>,
}

/// One table's DDL after the ALTERs.
#[derive(Clone, Debug)]
pub struct TableDdl {
    pub file: FileId,
    pub create: CreateTable,
    /// The name as written in the `CREATE` (tokens unresolved), for
    /// messages that hold in every environment.
    pub written: String,
    /// Whether the `CREATE` name used substitution tokens.
    pub tokenized: bool,
    /// Effective properties: lower-cased key -> state.
    pub properties: HashMap<String, PropState>,
    /// Effective clustering columns (`None`: not clustered).
    pub cluster_by: Option<Vec<String>>,
    /// An `ALTER TABLE ... CLUSTER BY` changed the clustering.
    pub cluster_altered: bool,
}

#[derive(Clone, Debug)]
pub struct PropState {
    /// `None`: unset by an `ALTER ... UNSET TBLPROPERTIES`.
    pub value: Option<String>,
    /// Last written by an `ALTER` (a fix in the `CREATE` would not help).
    pub altered: bool,
}

impl TableDdl {
    /// Whether `'key' = 'true'` holds after the ALTERs (keys compare
    /// case-insensitively, as Delta does).
    pub fn property_is_true(&self, key: &str) -> bool {
        self.properties
            .get(&key.to_ascii_lowercase())
            .and_then(|p| p.value.as_deref())
            .is_some_and(|v| v.trim().eq_ignore_ascii_case("true"))
    }

    /// Where property findings point: the `TBLPROPERTIES (...)` list, or
    /// the table name when the list is absent.
    pub fn property_span(&self) -> Range<usize> {
        match &self.create.tblproperties {
            Some(list) => list.range.clone(),
            None => self.create.name_range.clone(),
        }
    }

    /// Whether the effective clustering includes `_dlq_source_table`.
    pub fn clustered_by_source(&self) -> bool {
        self.cluster_by.as_ref().is_some_and(|cols| {
            cols.iter().any(|c| {
                c.trim_matches('`')
                    .eq_ignore_ascii_case("_dlq_source_table")
            })
        })
    }

    /// A text edit that makes `'key' = 'true'` hold, in the `CREATE`
    /// statement; `None` when an `ALTER` decides the property.
    pub fn property_fix(&self, text: &str, key: &str) -> Option<Fix> {
        let state = self.properties.get(&key.to_ascii_lowercase());
        if state.is_some_and(|s| s.altered) {
            return None;
        }
        let entry = format!("'{key}' = 'true'");
        let edit = match &self.create.tblproperties {
            Some(list) => {
                if let Some(existing) = list
                    .entries
                    .iter()
                    .rev()
                    .find(|e| e.key.eq_ignore_ascii_case(key))
                {
                    Edit {
                        file: self.file,
                        span: existing.range.clone(),
                        new_text: entry,
                    }
                } else if let Some(last) = list.entries.last() {
                    let indent = line_indent(text, last.range.start);
                    let multiline = text
                        .get(list.open_paren..last.range.start)
                        .is_some_and(|t| t.contains('\n'));
                    let edits =
                        append_to_list(self.file, text, last.range.end, multiline, &indent, &entry);
                    return Some(Fix {
                        applicability: Applicability::Safe,
                        description: format!(
                            "Set `'{key}' = 'true'` in the table's `TBLPROPERTIES`"
                        ),
                        edits,
                    });
                } else {
                    let at = list.open_paren + 1;
                    Edit {
                        file: self.file,
                        span: at..at,
                        new_text: entry,
                    }
                }
            }
            None => {
                let end = self.create.statement_range.end;
                // After a trailing `-- comment` of the statement's last
                // line, so the comment stays with the text it annotates.
                let at = trailing_comment_end(text, end).unwrap_or(end);
                Edit {
                    file: self.file,
                    span: at..at,
                    new_text: format!("\nTBLPROPERTIES (\n    {entry}\n)"),
                }
            }
        };
        Some(Fix {
            applicability: Applicability::Safe,
            description: format!("Set `'{key}' = 'true'` in the table's `TBLPROPERTIES`"),
            edits: vec![edit],
        })
    }

    /// A text edit that clusters the `CREATE` by `_dlq_source_table`;
    /// `None` when an `ALTER` decides the clustering.
    pub fn cluster_fix(&self, text: &str) -> Option<Fix> {
        if self.cluster_altered {
            return None;
        }
        let clause = "CLUSTER BY (_dlq_source_table)".to_string();
        let (edit, applicability, description) = if let Some((_, range)) = &self.create.cluster_by {
            (
                Edit {
                    file: self.file,
                    span: range.clone(),
                    new_text: clause,
                },
                Applicability::Safe,
                "Cluster the table by `_dlq_source_table`",
            )
        } else if let Some((_, range)) = &self.create.partitioned_by {
            (
                Edit {
                    file: self.file,
                    span: range.clone(),
                    new_text: clause,
                },
                Applicability::Unsafe,
                "Replace the partitioning by `CLUSTER BY (_dlq_source_table)`",
            )
        } else {
            let end = if self.create.columns_range.is_empty() {
                self.create.name_range.end
            } else {
                self.create.columns_range.end
            };
            let at = trailing_comment_end(text, end).unwrap_or(end);
            (
                Edit {
                    file: self.file,
                    span: at..at,
                    new_text: format!("\n{clause}"),
                },
                Applicability::Safe,
                "Add `CLUSTER BY (_dlq_source_table)`",
            )
        };
        Some(Fix {
            applicability,
            description: description.to_string(),
            edits: vec![edit],
        })
    }
}

/// The edits that append `item` to a comma-separated SQL list (columns,
/// properties) after its last element, which ends at `last_end`: on a line
/// of its own in a multi-line list. When a `-- comment` follows the last
/// element on its line, the comma goes before the comment and the new
/// line after it, so the comment stays with the element it annotates.
pub(crate) fn append_to_list(
    file: dqlint_project::FileId,
    text: &str,
    last_end: usize,
    multiline: bool,
    indent: &str,
    item: &str,
) -> Vec<Edit> {
    if !multiline {
        return vec![Edit {
            file,
            span: last_end..last_end,
            new_text: format!(", {item}"),
        }];
    }
    match trailing_comment_end(text, last_end) {
        Some(eol) => vec![
            Edit {
                file,
                span: last_end..last_end,
                new_text: ",".into(),
            },
            Edit {
                file,
                span: eol..eol,
                new_text: format!("\n{indent}{item}"),
            },
        ],
        None => vec![Edit {
            file,
            span: last_end..last_end,
            new_text: format!(",\n{indent}{item}"),
        }],
    }
}

/// When the rest of the line after `at` is only a `-- comment`: the end
/// of that line (before its line break), where an insertion leaves the
/// comment on the line it annotates.
pub(crate) fn trailing_comment_end(text: &str, at: usize) -> Option<usize> {
    let rest = text.get(at..)?;
    let line = &rest[..rest.find('\n').unwrap_or(rest.len())];
    if !line.trim_start().starts_with("--") {
        return None;
    }
    Some(at + line.strip_suffix('\r').unwrap_or(line).len())
}

fn line_indent(text: &str, at: usize) -> String {
    let Some(before) = text.get(..at) else {
        return String::new();
    };
    let start = before.rfind('\n').map(|i| i + 1).unwrap_or(0);
    before[start..]
        .chars()
        .take_while(|c| c.is_whitespace())
        .collect()
}

/// The project's DDL, parsed on first use.
pub fn catalog<'c>(ctx: &'c Context) -> &'c DdlCatalog {
    ctx.ddl_catalog.get_or_init(|| build(ctx))
}

fn resolved_name(env: &Env, name: &str) -> Option<String> {
    let resolved = env.resolve(name);
    if !resolved.unresolved.is_empty() || resolved.has_secret {
        return None;
    }
    normalize_table_name(&resolved.text)
}

fn build(ctx: &Context) -> DdlCatalog {
    let mut sql: Vec<_> = ctx
        .project
        .files
        .iter()
        .filter(|f| f.kind.is_sql() && f.read_error.is_none())
        .collect();
    sql.sort_by(|a, b| a.rel.cmp(&b.rel));
    let files: Vec<(FileId, SqlFile)> = sql
        .iter()
        .map(|f| (f.id, parse_sql_file(&f.text)))
        .collect();
    let mut tables = Vec::new();
    let mut updates = Vec::new();
    for env in &ctx.envs {
        let mut by_name: HashMap<String, TableDdl> = HashMap::new();
        let mut env_updates = Vec::new();
        for (file, parsed) in &files {
            for stmt in &parsed.statements {
                match stmt {
                    DdlStatement::CreateTable(create) => {
                        let Some(name) = resolved_name(env, &create.name) else {
                            continue;
                        };
                        if by_name.contains_key(&name) && !create.or_replace {
                            continue;
                        }
                        let mut properties = HashMap::new();
                        if let Some(list) = &create.tblproperties {
                            for p in &list.entries {
                                properties.insert(
                                    p.key.to_ascii_lowercase(),
                                    PropState {
                                        value: Some(p.value.clone()),
                                        altered: false,
                                    },
                                );
                            }
                        }
                        let text = &ctx.project.file(*file).text;
                        let written = text
                            .get(create.name_range.clone())
                            .unwrap_or(&create.name)
                            .to_string();
                        by_name.insert(
                            name,
                            TableDdl {
                                file: *file,
                                create: create.clone(),
                                written,
                                tokenized: create.name.contains('{'),
                                properties,
                                cluster_by: create
                                    .cluster_by
                                    .as_ref()
                                    .map(|(cols, _)| cols.clone()),
                                cluster_altered: false,
                            },
                        );
                    }
                    DdlStatement::AlterTable(alter) => {
                        let Some(name) = resolved_name(env, &alter.name) else {
                            continue;
                        };
                        let Some(table) = by_name.get_mut(&name) else {
                            continue;
                        };
                        for op in &alter.ops {
                            match op {
                                AlterOp::SetProperties(props) => {
                                    for p in props {
                                        table.properties.insert(
                                            p.key.to_ascii_lowercase(),
                                            PropState {
                                                value: Some(p.value.clone()),
                                                altered: true,
                                            },
                                        );
                                    }
                                }
                                AlterOp::UnsetProperties(keys) => {
                                    for k in keys {
                                        table.properties.insert(
                                            k.to_ascii_lowercase(),
                                            PropState {
                                                value: None,
                                                altered: true,
                                            },
                                        );
                                    }
                                }
                                AlterOp::ClusterBy(cols) => {
                                    table.cluster_by = if cols.is_empty() {
                                        None
                                    } else {
                                        Some(cols.clone())
                                    };
                                    table.cluster_altered = true;
                                }
                            }
                        }
                    }
                    DdlStatement::Update(update) => {
                        if let Some(name) = resolved_name(env, &update.table) {
                            env_updates.push((*file, update.clone(), name));
                        }
                    }
                }
            }
        }
        tables.push(by_name);
        updates.push(env_updates);
    }
    DdlCatalog {
        files,
        tables,
        updates,
    }
}

/// The quarantine actions of one environment that write to one DLQ.
pub struct DlqGroup<'a> {
    /// Normalized inbox name.
    pub inbox: String,
    /// Normalized outbox name (`<inbox>_outbox`).
    pub outbox: String,
    pub users: Vec<QuarantineUse<'a>>,
}

impl DlqGroup<'_> {
    /// Shared by two or more quarantine actions.
    pub fn shared(&self) -> bool {
        self.users.len() >= 2
    }

    /// Whether the YAML side of the finding depends on token resolution.
    pub fn tokenized(&self) -> bool {
        self.users.iter().any(|u| {
            tokenized(&[u
                .action
                .get("quarantine")
                .and_then(|q| q.get_str("dlq_table"))
                .unwrap_or("")])
        })
    }

    /// Related locations: every using action's `dlq_table`; the env when
    /// names depend on tokens.
    pub fn annotate(&self, mut d: Diagnostic, env: &Env, table: Option<&TableDdl>) -> Diagnostic {
        let shared = self.shared();
        for u in &self.users {
            let msg = if shared {
                format!(
                    "`dlq_table` of quarantine action {} (one of {} sharing this DLQ)",
                    u.label(),
                    self.users.len()
                )
            } else {
                format!("`dlq_table` of quarantine action {}", u.label())
            };
            d = d.related(&u.dlq_origin, msg);
        }
        if self.tokenized() || table.is_some_and(|t| t.tokenized) {
            d = d.env(&env.name);
        }
        d
    }

    /// Error when shared, else warning (DQ406, DQ407).
    pub fn sharing_severity(&self) -> Severity {
        if self.shared() {
            Severity::Error
        } else {
            Severity::Warning
        }
    }

    pub fn sharing_note(&self) -> String {
        if self.shared() {
            format!(
                " (the DLQ is shared by {} quarantine actions)",
                self.users.len()
            )
        } else {
            String::new()
        }
    }
}

/// The DLQs of one environment, in order of first use; actions whose
/// `dlq_table` does not resolve are skipped.
pub fn dlq_groups<'a>(ctx: &Context<'a>, env: &Env) -> Vec<DlqGroup<'a>> {
    let mut groups: Vec<DlqGroup<'a>> = Vec::new();
    for u in resolved_uses(ctx.quarantine_actions(), env) {
        let Some(inbox) = normalize_table_name(&u.dlq_table) else {
            continue;
        };
        match groups.iter_mut().find(|g| g.inbox == inbox) {
            Some(g) => {
                if !g.users.iter().any(|x| std::ptr::eq(x.action, u.action)) {
                    g.users.push(u);
                }
            }
            None => {
                let outbox = format!("{inbox}_outbox");
                groups.push(DlqGroup {
                    inbox,
                    outbox,
                    users: vec![u],
                });
            }
        }
    }
    groups
}

/// DQ404-DQ406: a required `'key' = 'true'` property missing from the inbox
/// and/or the outbox.
pub(crate) fn report_missing_property(
    ctx: &Context,
    out: &mut crate::engine::Findings,
    code: &str,
    key: &str,
    check_outbox: bool,
    by_sharing: bool,
    why: &str,
) {
    let me = crate::registry::rule(code);
    let cat = catalog(ctx);
    for (ei, env) in ctx.envs.iter().enumerate() {
        let tables = &cat.tables[ei];
        for g in dlq_groups(ctx, env) {
            let mut targets = vec![("inbox", &g.inbox)];
            if check_outbox {
                targets.push(("outbox", &g.outbox));
            }
            for (role, name) in targets {
                let Some(t) = tables.get(name.as_str()) else {
                    continue;
                };
                if t.property_is_true(key) {
                    continue;
                }
                let note = if by_sharing {
                    g.sharing_note()
                } else {
                    String::new()
                };
                let mut d = Diagnostic::at(
                    me,
                    t.file,
                    t.property_span(),
                    format!(
                        "DLQ {role} `{}` lacks `'{key}' = 'true'`: {why}{note}",
                        t.written
                    ),
                );
                if by_sharing {
                    d = d.severity(g.sharing_severity());
                }
                if let Some(fix) = t.property_fix(&ctx.project.file(t.file).text, key) {
                    d = d.fix(fix);
                }
                out.push(g.annotate(d, env, Some(t)));
            }
        }
    }
}
