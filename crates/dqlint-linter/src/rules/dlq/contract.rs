//! The DLQ tables LHP's quarantine mode writes to and recycles from: the
//! columns and table properties of the inbox (`dlq_table`) and its outbox
//! (`<dlq_table>_outbox`), and the DDL that creates them as the contract
//! wants (the fixes of DQ402/DQ403 write it; DQ404-DQ408 compare with it).

/// DLQ inbox contract: (column, canonical type, NOT NULL).
pub const DLQ_INBOX_COLUMNS: &[(&str, &str, bool)] = &[
    ("_dlq_sk", "STRING", true),
    ("_dlq_source_table", "STRING", true),
    ("_dlq_status", "STRING", true),
    ("_dlq_timestamp", "TIMESTAMP", true),
    (
        "_dlq_failed_rules",
        "ARRAY<STRUCT<NAME: STRING, RULE: STRING>>",
        false,
    ),
    ("_dlq_rescued_data", "STRING", false),
    ("_row_data", "VARIANT", true),
];

/// DLQ outbox contract: (column, canonical type, NOT NULL).
pub const DLQ_OUTBOX_COLUMNS: &[(&str, &str, bool)] = &[
    ("_dlq_sk", "STRING", true),
    ("_dlq_source_table", "STRING", true),
    ("_row_data", "VARIANT", true),
    ("_dlq_recycled_at", "TIMESTAMP", true),
];

/// Table properties the inbox needs (`'key' = 'true'`).
pub const DLQ_INBOX_PROPERTIES: &[&str] = &[
    "delta.enableChangeDataFeed",
    "delta.enableRowTracking",
    "delta.enableDeletionVectors",
];

/// Table properties the outbox needs (`'key' = 'true'`).
pub const DLQ_OUTBOX_PROPERTIES: &[&str] =
    &["delta.enableRowTracking", "delta.enableDeletionVectors"];

/// The canonical inbox DDL for a table name (as written in the YAML).
pub fn dlq_inbox_ddl(table: &str) -> String {
    contract_ddl(table, DLQ_INBOX_COLUMNS, DLQ_INBOX_PROPERTIES)
}

/// The canonical outbox DDL for an outbox table name (`<dlq_table>_outbox`).
pub fn dlq_outbox_ddl(table: &str) -> String {
    contract_ddl(table, DLQ_OUTBOX_COLUMNS, DLQ_OUTBOX_PROPERTIES)
}

fn contract_ddl(table: &str, columns: &[(&str, &str, bool)], props: &[&str]) -> String {
    let mut s = format!("CREATE TABLE IF NOT EXISTS {table} (\n");
    for (i, (name, ty, not_null)) in columns.iter().enumerate() {
        let ty = if ty.starts_with("ARRAY<STRUCT") {
            "ARRAY<STRUCT<name: STRING, rule: STRING>>"
        } else {
            ty
        };
        s.push_str(&format!("    {name:<18} {ty}"));
        if *not_null {
            s.push_str(" NOT NULL");
        }
        s.push_str(if i + 1 < columns.len() { ",\n" } else { "\n" });
    }
    s.push_str(")\nCLUSTER BY (_dlq_source_table)\nTBLPROPERTIES (\n");
    for (i, p) in props.iter().enumerate() {
        s.push_str(&format!("    '{p}' = 'true'"));
        s.push_str(if i + 1 < props.len() { ",\n" } else { "\n" });
    }
    s.push_str(");\n");
    s
}

#[cfg(test)]
mod tests {
    use dqlint_sql::ddl::{parse_sql_file, CreateTable, DdlStatement};

    use super::*;

    fn one_create(sql: &str) -> CreateTable {
        let file = parse_sql_file(sql);
        assert!(file.errors.is_empty(), "{:?}", file.errors);
        let mut creates = file.statements.into_iter().filter_map(|s| match s {
            DdlStatement::CreateTable(c) => Some(c),
            _ => None,
        });
        let create = creates.next().expect("one CREATE TABLE");
        assert!(creates.next().is_none());
        create
    }

    fn properties(create: &CreateTable) -> Vec<(&str, &str)> {
        create.tblproperties.as_ref().map_or(Vec::new(), |p| {
            p.entries
                .iter()
                .map(|e| (e.key.as_str(), e.value.as_str()))
                .collect()
        })
    }

    fn columns(create: &CreateTable) -> Vec<(String, String, bool)> {
        create
            .columns
            .iter()
            .map(|c| (c.name.clone(), c.data_type.clone(), c.not_null))
            .collect()
    }

    fn contract(columns: &[(&str, &str, bool)]) -> Vec<(String, String, bool)> {
        columns
            .iter()
            .map(|(n, t, nn)| (n.to_string(), t.to_string(), *nn))
            .collect()
    }

    #[test]
    fn the_written_ddl_reads_back_as_the_contract() {
        let inbox = one_create(&dlq_inbox_ddl("main.ops.orders_dlq"));
        assert_eq!(inbox.name, "main.ops.orders_dlq");
        assert_eq!(columns(&inbox), contract(DLQ_INBOX_COLUMNS));
        assert_eq!(inbox.cluster_by.as_ref().unwrap().0, ["_dlq_source_table"]);
        let want: Vec<(&str, &str)> = DLQ_INBOX_PROPERTIES.iter().map(|p| (*p, "true")).collect();
        assert_eq!(properties(&inbox), want);

        let outbox = one_create(&dlq_outbox_ddl("main.ops.orders_dlq_outbox"));
        assert_eq!(columns(&outbox), contract(DLQ_OUTBOX_COLUMNS));
        assert_eq!(outbox.cluster_by.as_ref().unwrap().0, ["_dlq_source_table"]);
        let want: Vec<(&str, &str)> = DLQ_OUTBOX_PROPERTIES.iter().map(|p| (*p, "true")).collect();
        assert_eq!(properties(&outbox), want);
    }
}
