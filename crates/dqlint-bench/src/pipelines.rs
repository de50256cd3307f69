//! A generated repository of pipeline sources (`gen-pipelines`): Python
//! modules in the shape of seed 002 (a rule dict shared by a clean table
//! and its quarantine twin over one view, the negation built from the dict,
//! a re-inject flow, AUTO CDC from a named view) and SQL pipeline files
//! with `CONSTRAINT ... EXPECT`, with mistakes planted at a known rate.
//!
//! A module holds one or more feeds, each the same group of datasets: five
//! in a Python module (the view, the clean table, its quarantine twin, the
//! daily materialized view and the AUTO CDC target), three in a SQL one
//! (the view, the clean table and its quarantine twin). Issue 13 asks for
//! modules of about 20 datasets: `datasets_per_module: Some(20)` writes
//! four Python feeds (20 datasets) and seven SQL feeds (21).

use std::fmt::Write as _;
use std::path::Path;

use crate::Planted;

pub struct PipelinePlan {
    /// Python pipeline sources; one SQL source is written per five.
    pub files: usize,
    /// Plant a mistake in every n-th file (`None`: a clean repository).
    pub plant_every: Option<usize>,
    /// About how many datasets each module declares (`None`: one feed per
    /// module, five datasets in Python and three in SQL).
    pub datasets_per_module: Option<usize>,
}

/// Datasets in one feed of a Python module and of a SQL module.
const PYTHON_FEED_DATASETS: usize = 5;
const SQL_FEED_DATASETS: usize = 3;

impl PipelinePlan {
    /// Feeds per Python module and per SQL module: the nearest number of
    /// feeds to the datasets asked for, at least one.
    fn feeds(&self) -> (usize, usize) {
        let nearest =
            |datasets: usize, per_feed: usize| ((datasets + per_feed / 2) / per_feed).max(1);
        match self.datasets_per_module {
            None => (1, 1),
            Some(n) => (
                nearest(n, PYTHON_FEED_DATASETS),
                nearest(n, SQL_FEED_DATASETS),
            ),
        }
    }
}

/// The name of feed `k` of module `i`: the first keeps the one-feed name.
fn feed_suffix(i: usize, k: usize) -> String {
    if k == 0 {
        i.to_string()
    } else {
        format!("{i}_{k}")
    }
}

#[derive(Debug, Default)]
pub struct PipelineSummary {
    pub python_files: usize,
    pub sql_files: usize,
    pub datasets: usize,
    pub expectations: usize,
    pub files: usize,
    pub bytes: u64,
    pub planted: Vec<Planted>,
}

/// Python module `i` with `feeds` feeds; the first is planted if `plant`.
/// Returns the text, the datasets and the expectations it declares.
fn python_source(i: usize, feeds: usize, plant: bool) -> (String, usize, usize) {
    let mut s = String::new();
    if feeds == 1 {
        let _ = writeln!(
            s,
            "# Generated pipeline source {i}: a feed, its clean table and quarantine twin."
        );
    } else {
        let _ = writeln!(
            s,
            "# Generated pipeline source {i}: {feeds} feeds, each with its clean table and quarantine twin."
        );
    }
    s.push_str("from pyspark import pipelines as dp\nfrom pyspark.sql import functions as F\n");
    for k in 0..feeds {
        if k > 0 {
            s.push('\n');
        }
        python_feed(&mut s, &feed_suffix(i, k), plant && k == 0);
    }
    (s, feeds * PYTHON_FEED_DATASETS, feeds * 5)
}

/// One feed of a Python module: its rule dict, view, clean table and
/// quarantine twin, daily materialized view and AUTO CDC target.
fn python_feed(s: &mut String, i: &str, plant: bool) {
    let feed = format!("feed_{i}");
    s.push('\n');
    let _ = writeln!(s, "RULES_{i} = {{");
    let _ = writeln!(
        s,
        "    \"valid_amount\": \"amount IS NOT NULL AND amount > 0\","
    );
    let _ = writeln!(s, "    \"valid_id\": \"order_id IS NOT NULL\",");
    let _ = writeln!(
        s,
        "    \"known_status\": \"status IS NOT NULL AND status IN ('new', 'paid', 'shipped')\","
    );
    s.push_str("}\n\n\n");
    let _ = write!(
        s,
        "@dp.temporary_view()\ndef {feed}_view():\n    return spark.readStream.table(\"acme.bronze.{feed}\")\n\n\n"
    );
    let _ = write!(
        s,
        "@dp.table(comment=\"Orders of {feed} that pass every rule\")\n@dp.expect_all_or_drop(RULES_{i})\ndef {feed}_clean():\n    return spark.readStream.table(\"{feed}_view\")\n\n\n"
    );
    let filter = if plant {
        format!("f\"NOT ({{RULES_{i}['valid_amount']}})\"")
    } else {
        format!("\"NOT ({{0}})\".format(\" AND \".join(RULES_{i}.values()))")
    };
    let _ = write!(
        s,
        "@dp.table()\ndef {feed}_quarantine():\n    return spark.readStream.table(\"{feed}_view\").filter({filter})\n\n\n"
    );
    let _ = write!(
        s,
        "@dp.materialized_view()\n@dp.expect_or_drop(\"positive_total\", \"total >= 0\")\n@dp.expect(\"recent\", \"order_date >= '2020-01-01'\")\ndef {feed}_daily():\n    return (\n        spark.read.table(\"{feed}_clean\")\n        .groupBy(\"order_date\")\n        .agg(F.sum(\"amount\").alias(\"total\"))\n    )\n\n\n"
    );
    let _ = write!(
        s,
        "dp.create_streaming_table(\"{feed}_silver\")\n\ndp.create_auto_cdc_flow(\n    target=\"{feed}_silver\",\n    source=\"{feed}_clean\",\n    keys=[\"order_id\"],\n    sequence_by=F.col(\"updated_at\"),\n    stored_as_scd_type=2,\n)\n"
    );
}

/// SQL module `i` with `feeds` feeds; the first is planted if `plant`.
fn sql_source(i: usize, feeds: usize, plant: bool) -> String {
    let mut s = format!("-- Generated pipeline SQL {i}.\n");
    for k in 0..feeds {
        if k > 0 {
            s.push('\n');
        }
        sql_feed(&mut s, &feed_suffix(i, k), plant && k == 0);
    }
    s
}

/// One feed of a SQL module: a view, its clean table and quarantine twin.
fn sql_feed(s: &mut String, i: &str, plant: bool) {
    let feed = format!("shipments_{i}");
    let weight = if plant {
        "weight_kg > 0"
    } else {
        "weight_kg IS NOT NULL AND weight_kg > 0"
    };
    let _ = write!(
        s,
        "CREATE TEMPORARY VIEW {feed}_feed AS SELECT * FROM STREAM(acme.bronze.{feed});\n\n\
         CREATE OR REFRESH STREAMING TABLE {feed}_clean (\n\
         \x20 CONSTRAINT positive_weight EXPECT ({weight}) ON VIOLATION DROP ROW,\n\
         \x20 CONSTRAINT has_carrier EXPECT (carrier IS NOT NULL)\n\
         ) AS SELECT * FROM STREAM({feed}_feed);\n\n\
         CREATE OR REFRESH STREAMING TABLE {feed}_quarantine\n\
         AS SELECT * FROM STREAM({feed}_feed) WHERE NOT ({weight});\n"
    );
}

pub fn generate_pipelines(plan: &PipelinePlan, root: &Path) -> std::io::Result<PipelineSummary> {
    let mut summary = PipelineSummary::default();
    std::fs::create_dir_all(root)?;
    std::fs::write(root.join("databricks.yml"), "bundle:\n  name: generated\n")?;
    summary.files += 1;
    let planted = |i: usize| plan.plant_every.is_some_and(|n| i % n == n - 1);
    let (python_feeds, sql_feeds) = plan.feeds();
    for i in 0..plan.files {
        let dir = root
            .join("transformations")
            .join(format!("area_{}", i / 100));
        std::fs::create_dir_all(&dir)?;
        let (text, datasets, expectations) = python_source(i, python_feeds, planted(i));
        let rel = format!("transformations/area_{}/feed_{i}.py", i / 100);
        if planted(i) {
            summary.planted.push(Planted {
                code: "DQ920",
                file: rel.clone(),
            });
        }
        summary.bytes += text.len() as u64;
        std::fs::write(root.join(&rel), text)?;
        summary.python_files += 1;
        summary.datasets += datasets;
        summary.expectations += expectations;
        summary.files += 1;
        if i % 5 == 4 {
            let j = i / 5;
            let plant = planted(j * 5 + 2);
            let text = sql_source(j, sql_feeds, plant);
            let rel = format!("transformations/area_{}/shipments_{j}.sql", i / 100);
            if plant {
                summary.planted.push(Planted {
                    code: "DQ921",
                    file: rel.clone(),
                });
            }
            summary.bytes += text.len() as u64;
            std::fs::write(root.join(&rel), text)?;
            summary.sql_files += 1;
            summary.datasets += sql_feeds * SQL_FEED_DATASETS;
            summary.expectations += sql_feeds * 2;
            summary.files += 1;
        }
    }
    Ok(summary)
}
