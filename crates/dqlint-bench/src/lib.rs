//! Synthetic LHP projects of any size, shaped like the real ones in the
//! corpus (`performance_testing`, `acmi`): domains of 100 flowgroups over
//! five layers (raw, bronze, silver, gold, modelled), each a pipeline.
//!
//! The mix per domain: single-flowgroup files and `flowgroups:` batch files
//! that instantiate a template; `---` multi-document files; presets; tokens
//! resolved per environment (dev, tst, prod); data_quality actions in `dqe`
//! mode (JSON and YAML expectations files) and in `quarantine` mode, all
//! quarantine actions of a domain sharing one dead-letter queue whose DDL
//! (table and outbox) is in `sql/dlq/`; CDC writes; test actions (which
//! LHP drops for validation).
//!
//! A generated project lints clean. With [`Plan::plant_every`] some
//! flowgroups get one known mistake each, listed in [`Summary::planted`],
//! so a test can demand exactly those findings and nothing else: the
//! generator doubles as a false-positive check at any scale.

use std::fmt::Write as _;
use std::path::Path;

mod dqx;
mod pipelines;

pub use dqx::{generate_dqx, DqxPlan, DqxSummary};
pub use pipelines::{generate_pipelines, PipelinePlan, PipelineSummary};

/// What to generate.
#[derive(Clone, Debug)]
pub struct Plan {
    pub flowgroups: usize,
    /// Plant a mistake in every n-th bronze flowgroup (`None`: a clean project).
    pub plant_every: Option<usize>,
}

/// A mistake planted on purpose: the rule that must report it and the file
/// (project-relative) where it is.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Planted {
    pub code: &'static str,
    pub file: String,
}

#[derive(Debug, Default)]
pub struct Summary {
    pub flowgroups: usize,
    pub files: usize,
    pub bytes: u64,
    pub dq_actions: usize,
    pub quarantine_actions: usize,
    pub planted: Vec<Planted>,
}

const ENTITIES: [&str; 20] = [
    "order",
    "customer",
    "product",
    "invoice",
    "payment",
    "shipment",
    "refund",
    "supplier",
    "warehouse",
    "inventory",
    "cart",
    "wishlist",
    "promotion",
    "review",
    "address",
    "carrier",
    "return_request",
    "gift_card",
    "loyalty",
    "store",
];
const LAYERS: [&str; 5] = ["raw", "bronze", "silver", "gold", "modelled"];
/// Raw entities from this index on are instantiated from the template in
/// one `flowgroups:` batch file; silver and gold ones go to `---` files.
const BATCHED_FROM: usize = 12;
const ENVS: [&str; 3] = ["dev", "tst", "prod"];

struct Writer<'a> {
    root: &'a Path,
    summary: Summary,
}

impl Writer<'_> {
    fn write(&mut self, rel: &str, text: &str) -> std::io::Result<()> {
        let path = self.root.join(rel);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)?;
        }
        std::fs::write(path, text)?;
        self.summary.files += 1;
        self.summary.bytes += text.len() as u64;
        Ok(())
    }
}

/// Writes the project into `root` (created if missing).
pub fn generate(plan: &Plan, root: &Path) -> std::io::Result<Summary> {
    let mut w = Writer {
        root,
        summary: Summary::default(),
    };
    std::fs::create_dir_all(root)?;
    w.write("lhp.yaml", LHP_YAML)?;
    for (i, env) in ENVS.iter().enumerate() {
        w.write(&format!("substitutions/{env}.yaml"), &substitutions(env, i))?;
    }
    w.write("templates/csv_ingestion_template.yaml", CSV_TEMPLATE)?;
    w.write("presets/default_delta_properties.yaml", DELTA_PRESET)?;
    w.write("expectations/generic_quality.json", GENERIC_EXPECTATIONS)?;
    w.write(
        "expectations/quarantine_quality.yaml",
        QUARANTINE_EXPECTATIONS,
    )?;
    w.write("expectations/modelled_quality.yaml", MODELLED_EXPECTATIONS)?;

    let domains = plan.flowgroups.div_ceil(100);
    let mut planted_so_far = 0;
    for d in 0..domains {
        let domain = format!("domain_{d:04}");
        let in_domain = (plan.flowgroups - d * 100).min(100);
        let mut batches: [String; 5] = Default::default();
        let mut has_quarantine = false;
        for k in 0..in_domain {
            let (layer, e) = (k / 20, k % 20);
            let entity = ENTITIES[e];
            let index = d * 100 + k;
            let pipeline = format!("{domain}_{}", LAYERS[layer]);
            let dir = format!("pipelines/{:02}_{}/{domain}", layer + 1, LAYERS[layer]);
            w.summary.flowgroups += 1;
            match layer {
                0 if e >= BATCHED_FROM => {
                    if batches[0].is_empty() {
                        write!(batches[0], "pipeline: {pipeline}\nuse_template: csv_ingestion_template\npresets:\n  - default_delta_properties\n\nflowgroups:\n").unwrap();
                    }
                    batches[0].push_str(&raw_batch_entry(entity));
                }
                0 => w.write(
                    &format!("{dir}/{entity}_ingestion.yaml"),
                    &raw_flowgroup(&pipeline, entity),
                )?,
                1 => {
                    let plant = plan.plant_every.is_some_and(|n| index % n == 0).then(|| {
                        planted_so_far += 1;
                        PLANTS[(planted_so_far - 1) % PLANTS.len()]
                    });
                    let rel = format!("{dir}/{entity}_bronze.yaml");
                    w.write(&rel, &bronze_flowgroup(&pipeline, entity, plant))?;
                    w.summary.dq_actions += 1;
                    if let Some(plant) = plant {
                        w.summary.planted.push(Planted {
                            code: plant.code,
                            file: rel,
                        });
                    }
                }
                2 => {
                    has_quarantine = true;
                    w.summary.dq_actions += 1;
                    w.summary.quarantine_actions += 1;
                    let text = silver_flowgroup(&pipeline, &domain, entity);
                    if e >= BATCHED_FROM {
                        if !batches[2].is_empty() {
                            batches[2].push_str("---\n");
                        }
                        batches[2].push_str(&text);
                    } else {
                        w.write(&format!("{dir}/{entity}_silver.yaml"), &text)?;
                    }
                }
                3 => {
                    let text = gold_flowgroup(&pipeline, entity);
                    if e >= BATCHED_FROM {
                        if !batches[3].is_empty() {
                            batches[3].push_str("\n---\n");
                        }
                        batches[3].push_str(&text);
                    } else {
                        w.write(&format!("{dir}/{entity}_gold.yaml"), &text)?;
                    }
                }
                _ => {
                    w.summary.dq_actions += 1;
                    w.write(
                        &format!("{dir}/{entity}_modelled.yaml"),
                        &modelled_flowgroup(&pipeline, entity),
                    )?;
                }
            }
        }
        for (layer, text) in batches.iter().enumerate() {
            if !text.is_empty() {
                let rel = format!(
                    "pipelines/{:02}_{}/{domain}/{domain}_{}_batch.yaml",
                    layer + 1,
                    LAYERS[layer],
                    LAYERS[layer]
                );
                w.write(&rel, text)?;
            }
        }
        if has_quarantine {
            w.write(&format!("sql/dlq/dlq_{domain}.sql"), &dlq_ddl(&domain))?;
        }
    }
    w.summary.planted.sort();
    Ok(w.summary)
}

/// A mistake and the rule that reports it.
#[derive(Clone, Copy, Debug)]
struct Plant {
    code: &'static str,
}

/// The kinds planted, in turn: an unknown key on a data_quality action,
/// a batch read feeding it, and a token no environment defines.
const PLANTS: [Plant; 3] = [
    Plant { code: "DQ003" },
    Plant { code: "DQ105" },
    Plant { code: "DQ601" },
];

const LHP_YAML: &str = r#"# Synthetic project written by `dqlint-bench gen`
name: synthetic_edw
version: "1.0"
description: "Generated LHP project for dqlint benchmarks"
author: "dqlint-bench"

operational_metadata:
  columns:
    _processing_timestamp:
      expression: "F.current_timestamp()"
      description: "When the record was processed by the pipeline"
      applies_to: ["streaming_table", "materialized_view", "view"]
"#;

fn substitutions(env: &str, i: usize) -> String {
    format!(
        "# Tokens for `{env}`\n{env}:\n  env: {env}\n  catalog: synthetic_{env}\n  landing_volume: /Volumes/synthetic_{env}/landing/incoming\n  \
         raw_schema: edw_raw\n  bronze_schema: edw_bronze\n  silver_schema: edw_silver\n  gold_schema: edw_gold\n  \
         modelled_schema: edw_modelled\n  ops_schema: ops\n  max_files: {}\n",
        50 * (i + 1)
    )
}

const CSV_TEMPLATE: &str = r#"name: csv_ingestion_template
version: "1.0"
description: "Ingest CSV files from the landing volume into a raw streaming table"

parameters:
  - name: table_name
    required: true
    description: "Name of the table to ingest"
  - name: landing_folder
    required: true
    description: "Name of the landing folder"

actions:
  - name: load_{{ table_name }}_csv
    type: load
    readMode: stream
    operational_metadata:
      - "_processing_timestamp"
    source:
      type: cloudfiles
      path: "${landing_volume}/{{ landing_folder }}/*.csv"
      format: csv
      options:
        header: "True"
        delimiter: ","
        cloudFiles.maxFilesPerTrigger: "${max_files}"
        cloudFiles.rescuedDataColumn: _rescued_data
    target: v_{{ table_name }}_cloudfiles
    description: "Load {{ table_name }} CSV files from the landing volume"

  - name: write_{{ table_name }}_cloudfiles
    type: write
    source: v_{{ table_name }}_cloudfiles
    write_target:
      type: streaming_table
      catalog: "${catalog}"
      schema: "${raw_schema}"
      table: "{{ table_name }}"
"#;

const DELTA_PRESET: &str = r#"name: "default_delta_properties"
version: "1.0"
description: "Delta table properties for every streaming table"

defaults:
  write_actions:
    streaming_table:
      table_properties:
        delta.enableRowTracking: "true"
        # delta.autoOptimize.optimizeWrite: true
"#;

const GENERIC_EXPECTATIONS: &str = r#"{
  "version": "1.0",
  "table": "generic",
  "expectations": [
    {"name": "key_not_null", "expression": "_key IS NOT NULL", "failureAction": "warn"},
    {"name": "recent_enough", "expression": "_etl_timestamp > '2000-01-01'", "failureAction": "warn"}
  ]
}
"#;

const QUARANTINE_EXPECTATIONS: &str = r#"# Rules of the quarantined silver tables: failing rows go to the DLQ.
_key IS NOT NULL:
  action: drop
  name: valid_key
length(_key) <= 64:
  action: drop
  name: short_key
"#;

const MODELLED_EXPECTATIONS: &str = r#"expectations:
  - name: positive_amount
    expression: "amount >= 0"
    failureAction: warn
  - name: known_currency
    expression: "currency IN ('EUR', 'USD', 'GBP')"
    failureAction: drop
"#;

fn raw_flowgroup(pipeline: &str, entity: &str) -> String {
    format!(
        r#"pipeline: {pipeline}
flowgroup: {entity}_ingestion
presets:
  - default_delta_properties
actions:
  - name: load_{entity}_cloudfiles
    type: load
    operational_metadata:
      - "_processing_timestamp"
    source:
      type: cloudfiles
      path: "${{landing_volume}}/{entity}/*.parquet"
      format: parquet
      options:
        cloudFiles.maxFilesPerTrigger: 50
        cloudFiles.schemaEvolutionMode: "addNewColumns"
    target: v_{entity}_cloudfiles
    description: "Load {entity} from the landing volume"

  - name: write_{entity}_raw
    type: write
    source: v_{entity}_cloudfiles
    write_target:
      type: streaming_table
      catalog: "${{catalog}}"
      schema: "${{raw_schema}}"
      table: "{entity}_raw"

  - name: tst_{entity}_raw_completeness
    type: test
    test_type: completeness
    source: v_{entity}_cloudfiles
    required_columns: [_processing_timestamp]
    on_violation: warn
"#
    )
}

fn raw_batch_entry(entity: &str) -> String {
    format!(
        r#"  - flowgroup: {entity}_csv_ingestion
    template_parameters:
      table_name: {entity}_csv_raw
      landing_folder: {entity}
    actions:
      - name: tst_{entity}_csv_uniqueness
        type: test
        test_type: uniqueness
        source: v_{entity}_csv_raw_cloudfiles
        columns: [_rescued_data]
        on_violation: warn

"#
    )
}

fn bronze_flowgroup(pipeline: &str, entity: &str, plant: Option<Plant>) -> String {
    let read_mode = if plant.is_some_and(|p| p.code == "DQ105") {
        "batch"
    } else {
        "stream"
    };
    let extra_key = if plant.is_some_and(|p| p.code == "DQ003") {
        "    expectation_mode: strict\n"
    } else {
        ""
    };
    let schema = if plant.is_some_and(|p| p.code == "DQ601") {
        "${bronze_schemas}"
    } else {
        "${bronze_schema}"
    };
    format!(
        r#"pipeline: {pipeline}
flowgroup: {entity}_bronze
presets:
  - default_delta_properties
actions:
  - name: {entity}_raw_load
    type: load
    operational_metadata: ["_processing_timestamp"]
    readMode: stream
    source:
      type: delta
      catalog: "${{catalog}}"
      schema: "${{raw_schema}}"
      table: {entity}_raw
    target: v_{entity}_raw
    description: "Load {entity} from the raw schema"

  - name: {entity}_bronze_cleanse
    type: transform
    transform_type: sql
    source: v_{entity}_raw
    target: v_{entity}_bronze_cleaned
    sql: |
      SELECT
        xxhash64(*) AS _key,
        *,
        current_timestamp() AS _etl_timestamp
      FROM stream(v_{entity}_raw)

  - name: {entity}_bronze_dqe
    type: transform
    transform_type: data_quality
    source: v_{entity}_bronze_cleaned
    target: v_{entity}_bronze_dqe
    readMode: {read_mode}
    expectations_file: "expectations/generic_quality.json"
{extra_key}    description: "Apply data quality checks to {entity}"

  - name: write_{entity}_bronze
    type: write
    source: v_{entity}_bronze_dqe
    write_target:
      create_table: true
      type: streaming_table
      catalog: "${{catalog}}"
      schema: "{schema}"
      table: "{entity}"
"#
    )
}

fn silver_flowgroup(pipeline: &str, domain: &str, entity: &str) -> String {
    format!(
        r#"pipeline: {pipeline}
flowgroup: {entity}_silver
presets:
  - default_delta_properties
actions:
  - name: {entity}_silver_load
    type: load
    readMode: stream
    source:
      type: delta
      catalog: "${{catalog}}"
      schema: "${{bronze_schema}}"
      table: {entity}
    target: v_{entity}_bronze
    description: "Load {entity} from bronze for the silver layer"

  - name: {entity}_silver_quarantine
    type: transform
    transform_type: data_quality
    source: v_{entity}_bronze
    target: v_{entity}_validated
    readMode: stream
    expectations_file: expectations/quarantine_quality.yaml
    mode: quarantine
    quarantine:
      dlq_table: ${{catalog}}.${{ops_schema}}.dlq_{domain}
      source_table: ${{catalog}}.${{silver_schema}}.{entity}_fct

  - name: write_{entity}_silver
    type: write
    source: v_{entity}_validated
    write_target:
      type: streaming_table
      catalog: "${{catalog}}"
      schema: "${{silver_schema}}"
      table: "{entity}_fct"
      mode: "cdc"
      cdc_config:
        keys: ["_key"]
        sequence_by: "_etl_timestamp"
        scd_type: 2
"#
    )
}

fn gold_flowgroup(pipeline: &str, entity: &str) -> String {
    format!(
        r#"pipeline: {pipeline}
flowgroup: {entity}_gold
actions:
  - name: {entity}_gold_load
    type: load
    readMode: batch
    source:
      type: delta
      catalog: "${{catalog}}"
      schema: "${{silver_schema}}"
      table: {entity}_fct
    target: v_{entity}_silver

  - name: {entity}_daily
    type: transform
    transform_type: sql
    source: v_{entity}_silver
    target: v_{entity}_daily
    sql: >-
      SELECT date_trunc('DAY', _etl_timestamp) AS day, count(*) AS n
      FROM v_{entity}_silver GROUP BY 1

  - name: write_{entity}_daily
    type: write
    source: v_{entity}_daily
    write_target:
      type: materialized_view
      catalog: "${{catalog}}"
      schema: "${{gold_schema}}"
      table: "{entity}_daily"
"#
    )
}

fn modelled_flowgroup(pipeline: &str, entity: &str) -> String {
    format!(
        r#"pipeline: {pipeline}
flowgroup: {entity}_modelled
actions:
  - name: {entity}_modelled_load
    type: load
    readMode: stream
    source:
      type: delta
      catalog: "${{catalog}}"
      schema: "${{gold_schema}}"
      table: {entity}_daily
    target: v_{entity}_modelled_in

  - name: {entity}_modelled_dqe
    type: transform
    transform_type: data_quality
    source: v_{entity}_modelled_in
    target: v_{entity}_modelled_checked
    readMode: stream
    expectations_file: expectations/modelled_quality.yaml

  - name: write_{entity}_modelled
    type: write
    source: v_{entity}_modelled_checked
    write_target:
      type: streaming_table
      catalog: "${{catalog}}"
      schema: "${{modelled_schema}}"
      table: "{entity}_model"
"#
    )
}

fn dlq_ddl(domain: &str) -> String {
    format!(
        r#"-- Dead-letter queue shared by the quarantine actions of {domain}, and its outbox.
CREATE TABLE IF NOT EXISTS ${{catalog}}.${{ops_schema}}.dlq_{domain} (
    _dlq_sk            STRING    NOT NULL,
    _dlq_source_table  STRING    NOT NULL,
    _dlq_status        STRING    NOT NULL,
    _dlq_timestamp     TIMESTAMP NOT NULL,
    _dlq_failed_rules  ARRAY<STRUCT<name: STRING, rule: STRING>>,
    _dlq_rescued_data  STRING,
    _row_data          VARIANT   NOT NULL
)
CLUSTER BY (_dlq_source_table)
TBLPROPERTIES (
    'delta.enableChangeDataFeed' = 'true',
    'delta.enableRowTracking' = 'true',
    'delta.enableDeletionVectors' = 'true'
);

CREATE TABLE IF NOT EXISTS ${{catalog}}.${{ops_schema}}.dlq_{domain}_outbox (
    _dlq_sk            STRING    NOT NULL,
    _dlq_source_table  STRING    NOT NULL,
    _row_data          VARIANT   NOT NULL,
    _dlq_recycled_at   TIMESTAMP NOT NULL
)
CLUSTER BY (_dlq_source_table)
TBLPROPERTIES (
    'delta.enableRowTracking' = 'true',
    'delta.enableDeletionVectors' = 'true'
);
"#
    )
}
