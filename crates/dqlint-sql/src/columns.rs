//! The columns a view or table is known to have, from the SQL that makes
//! it: the select list of a `sql` transform, or a `table_schema` column
//! list. The language server completes column names in rule expressions
//! from these. Only what the text states is reported: `*` names the
//! relations whose columns it brings, for the caller to follow.

use sqlparser::ast::{ColumnDef, Expr, SelectItem, SetExpr, Statement, TableFactor};
use sqlparser::dialect::DatabricksDialect;
use sqlparser::parser::Parser;

/// The output of a `SELECT`.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct SelectColumns {
    /// Columns named in the select list (an alias, or a column reference's
    /// last part), in order.
    pub names: Vec<String>,
    /// Relations whose every column the select list brings (`*`, `t.*`),
    /// by the name the `FROM` clause gives (a view or table name).
    pub all_of: Vec<String>,
}

/// The columns of the first `SELECT` of `sql`; `None` when it does not
/// parse or is not a query.
pub fn select_columns(sql: &str) -> Option<SelectColumns> {
    let statements = Parser::parse_sql(&DatabricksDialect {}, sql).ok()?;
    let Some(Statement::Query(query)) = statements.into_iter().next() else {
        return None;
    };
    let SetExpr::Select(select) = *query.body else {
        return None;
    };
    let relations: Vec<(String, Option<String>)> = select
        .from
        .iter()
        .flat_map(|from| {
            std::iter::once(&from.relation).chain(from.joins.iter().map(|j| &j.relation))
        })
        .filter_map(|factor| match factor {
            TableFactor::Table { name, alias, .. } => Some((
                name.0.last()?.to_string(),
                alias.as_ref().map(|a| a.name.value.clone()),
            )),
            _ => None,
        })
        .collect();
    let mut out = SelectColumns::default();
    for item in &select.projection {
        match item {
            SelectItem::UnnamedExpr(expr) => out.names.extend(expr_name(expr)),
            SelectItem::ExprWithAlias { alias, .. } => out.names.push(alias.value.clone()),
            // `expr AS (a, b)`: one column per alias.
            SelectItem::ExprWithAliases { aliases, .. } => {
                out.names.extend(aliases.iter().map(|a| a.value.clone()))
            }
            SelectItem::Wildcard(_) => {
                out.all_of
                    .extend(relations.iter().map(|(name, _)| name.clone()));
            }
            SelectItem::QualifiedWildcard(kind, _) => {
                // Printed as `o` or `o.*`, depending on the form.
                let qualifier = kind.to_string();
                let qualifier = qualifier.trim_end_matches(".*");
                let qualifier = qualifier.rsplit('.').next().unwrap_or_default();
                out.all_of.extend(
                    relations
                        .iter()
                        .filter(|(name, alias)| {
                            alias.as_deref() == Some(qualifier) || name == qualifier
                        })
                        .map(|(name, _)| name.clone()),
                );
            }
        }
    }
    Some(out)
}

/// The name a select-list expression gives its column, when it is a
/// column reference.
fn expr_name(expr: &Expr) -> Option<String> {
    match expr {
        Expr::Identifier(ident) => Some(ident.value.clone()),
        Expr::CompoundIdentifier(parts) => parts.last().map(|p| p.value.clone()),
        Expr::Nested(inner) => expr_name(inner),
        _ => None,
    }
}

/// The column names of a column list such as `table_schema` holds
/// (`id BIGINT NOT NULL, name STRING COMMENT 'x'`); empty when it does not
/// parse.
pub fn column_list_names(columns: &str) -> Vec<String> {
    let statement = format!("CREATE TABLE t ({columns})");
    match Parser::parse_sql(&DatabricksDialect {}, &statement) {
        Ok(statements) => match statements.into_iter().next() {
            Some(Statement::CreateTable(table)) => table
                .columns
                .iter()
                .map(|c: &ColumnDef| c.name.value.clone())
                .collect(),
            _ => Vec::new(),
        },
        Err(_) => Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn select_lists_name_their_columns() {
        let columns = select_columns(
            "SELECT xxhash64(*) AS address_key, *, current_timestamp() AS _etl_timestamp, r.city, (zip) FROM v_address_raw r WHERE 1=1",
        )
        .unwrap();
        assert_eq!(
            columns.names,
            ["address_key", "_etl_timestamp", "city", "zip"]
        );
        assert_eq!(columns.all_of, ["v_address_raw"]);
    }

    #[test]
    fn qualified_stars_follow_their_relation() {
        let columns = select_columns(
            "SELECT o.*, c.name AS customer FROM v_orders o JOIN v_customers c ON o.cid = c.id",
        )
        .unwrap();
        assert_eq!(columns.names, ["customer"]);
        assert_eq!(columns.all_of, ["v_orders"]);
    }

    #[test]
    fn what_is_not_a_query_has_no_columns() {
        assert_eq!(select_columns("SELECT FROM WHERE"), None);
        assert_eq!(select_columns("INSERT INTO t VALUES (1)"), None);
        assert_eq!(select_columns(""), None);
    }

    #[test]
    fn column_lists_give_names() {
        assert_eq!(
            column_list_names(
                "id BIGINT NOT NULL, name STRING COMMENT 'the name', amount DECIMAL(10,2)"
            ),
            ["id", "name", "amount"]
        );
        assert!(column_list_names("id BIGINT,,").is_empty());
    }
}
