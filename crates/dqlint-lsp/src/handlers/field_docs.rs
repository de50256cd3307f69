//! What the keys of a data_quality action (and its `quarantine` block) mean
//! to LHP, for hovers. Facts from `reference/lhp-behaviour.md` §2.

pub const FIELDS: &[(&str, &str)] = &[
    ("name", "The action's name; unique within the flowgroup."),
    ("type", "`load`, `transform`, `write` or `test`. A data_quality action is a `transform`."),
    (
        "transform_type",
        "For a transform: `sql`, `python`, `data_quality`, `temp_table` or `schema`.",
    ),
    (
        "source",
        "For a data_quality action: a single view name. A list passes `lhp validate` but generates `spark.readStream.table(\"\")`.",
    ),
    ("target", "The temporary view the action produces; unique within the flowgroup."),
    (
        "expectations_file",
        "Path (from the project root) of the YAML or JSON rules file. Required, but only `lhp generate` checks it in dqe mode.",
    ),
    (
        "mode",
        "`dqe` (default): expectations decorate a view (`warn`/`drop`/`fail`). `quarantine`: failing rows go to a DLQ table and every rule is enforced as `drop`; needs a `quarantine:` block.",
    ),
    (
        "quarantine",
        "With `mode: quarantine` only: `dlq_table` and `source_table`, both `catalog.schema.table` after substitution. Other keys are dropped silently.",
    ),
    (
        "dlq_table",
        "The shared dead-letter table (`catalog.schema.table`) failing rows are merged into; its outbox is `<dlq_table>_outbox`. Needs change data feed and row tracking.",
    ),
    (
        "source_table",
        "The name recorded in `_dlq_source_table` for rows of this action; it must be unique per DLQ across the project.",
    ),
    (
        "readMode",
        "`stream` (default) is the only value a data_quality action accepts; anything else fails at `lhp generate` (LHP-VAL-068).",
    ),
    ("description", "Docstring of the generated view."),
    ("operational_metadata", "Metadata columns added to the output view (`true` or a list of column names)."),
    ("depends_on", "Extra dependency edges (table names with at most three parts)."),
];

pub fn lookup(key: &str) -> Option<&'static str> {
    FIELDS.iter().find(|(k, _)| *k == key).map(|(_, doc)| *doc)
}
