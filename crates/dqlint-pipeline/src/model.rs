//! The pipeline model: what one pipeline source file (Python or SQL)
//! declares, as typed facts with exact spans. The Python reader and the SQL
//! reader both yield a [`PipelineFile`]; rules, hover and policies
//! read it, and it yields the shared expectation model.
//!
//! Spans are byte ranges in the file's text. A constraint keeps its
//! [`Evaluated`] text, whose source map points every evaluated byte back to
//! the file (for SQL files the map is the identity).

use std::ops::Range;

use crate::eval::Evaluated;

/// Which reader produced the file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Language {
    Python,
    Sql,
}

/// Everything one pipeline source file declares.
#[derive(Clone, Debug, Default)]
pub struct PipelineFile {
    pub datasets: Vec<Dataset>,
    pub flows: Vec<Flow>,
    pub auto_cdc: Vec<AutoCdc>,
    /// `create_streaming_table(...)` / `CREATE STREAMING TABLE` without a
    /// query: targets declared for flows.
    pub declared_targets: Vec<Named>,
    /// Legacy API uses (`import dlt`, `APPLY CHANGES INTO`, `LIVE.`, ...)
    /// with the replacement the docs name.
    pub legacy: Vec<LegacyUse>,
    /// Python UDFs the file defines (`@udf`, `@pandas_udf`,
    /// `spark.udf.register("name", ...)`), by SQL-callable name.
    pub python_udfs: Vec<Named>,
    /// Syntax errors (tree-sitter ERROR/MISSING nodes, or a SQL statement
    /// the scanner could not read); the rest of the file is still read.
    pub syntax_errors: Vec<(Range<usize>, String)>,
    /// Misuses of the expectation API the Python reader saw (decorators
    /// and their arguments): facts, the linter decides the findings.
    pub api_misuses: Vec<ApiMisuse>,
}

/// A misuse of the expectation API, as written in the source.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ApiMisuse {
    /// `@dp.expect_or_quarantine(...)`: an `expect*` attribute of the
    /// pipeline module that is no expectation API (`written` is the
    /// attribute, at its span).
    UnknownExpectation { written: Named },
    /// An expectation decorator that no dataset decorator applies to.
    MisplacedExpectation {
        /// The decorator line (from `@` to the end of its call).
        decorator: Range<usize>,
        why: Misplacement,
        /// Where the decorator belongs: the byte offset of the line below
        /// the dataset decorator, for a decorator above it.
        belongs_at: Option<usize>,
    },
    /// `expect*` without `(name: str, constraint: str)`, or `expect_all*`
    /// without one dict of str to str, when the arguments are known.
    BadArguments {
        /// The call's argument list.
        span: Range<usize>,
        /// The API as written (`expect_or_drop`).
        api: String,
        /// What is wrong, in words (`takes 2 arguments, got 1`).
        detail: String,
    },
    /// One key twice in one dict literal: Python keeps the last entry.
    DuplicateDictKey {
        key: String,
        first: Range<usize>,
        second: Range<usize>,
    },
}

/// Why an expectation decorator applies to no dataset.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Misplacement {
    /// The function has no dataset decorator at all.
    NoDataset,
    /// It sits above the dataset decorator (decorators apply bottom-up).
    AboveDataset,
    /// The function is an `append_flow`, which takes no expectations.
    OnAppendFlow,
}

/// A column the dataset computes, `withColumn("c", F.current_timestamp())`
/// or `current_timestamp() AS c`: its name, and the expression as SQL-ish
/// text (`F.current_timestamp()` -> `current_timestamp()`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ComputedColumn {
    pub name: Named,
    pub expression: String,
}

/// A name as written, and where.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Named {
    pub name: String,
    pub span: Range<usize>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DatasetKind {
    /// `@dp.table` on a streaming read, `CREATE STREAMING TABLE ... AS`.
    StreamingTable,
    /// `@dp.materialized_view`, `@dp.table` on a batch read, `CREATE MATERIALIZED VIEW`.
    MaterializedView,
    /// `@dp.temporary_view`, `@dlt.view`, `CREATE TEMPORARY VIEW`.
    View,
    /// `@dp.table` whose read the reader cannot tell.
    Table,
}

/// A dataset: a decorated function or a `CREATE ... AS` statement.
#[derive(Clone, Debug)]
pub struct Dataset {
    /// The dataset's name (`name=` argument, or the function name, or the
    /// statement's name), unqualified as written.
    pub name: Named,
    pub kind: DatasetKind,
    /// The whole declaration (decorated function, or statement).
    pub span: Range<usize>,
    /// `table_properties={...}` / `TBLPROPERTIES (...)`, literal entries only.
    pub table_properties: Vec<(String, String)>,
    /// Upstream reads: `spark.readStream.table(x)`, `dp.read_stream(x)`,
    /// `STREAM(x)`, `FROM x`.
    pub reads: Vec<Read>,
    /// `.filter(...)` / `.where(...)` / `WHERE` predicates on the rows read.
    pub row_filters: Vec<RowFilter>,
    /// The output column names of a literal `.select(...)` / `SELECT` list
    /// (`F.col("x").alias("y")` gives `y`), when every item is literal.
    pub select_list: Option<Vec<Named>>,
    /// Columns computed from an expression (`withColumn`, `expr AS c`).
    pub computed_columns: Vec<ComputedColumn>,
    /// The grouped aggregation the dataset returns, when it is one
    /// `GROUP BY` / `.groupBy(...)` over the rows read.
    pub grouping: Option<Grouping>,
    pub expectations: Vec<PipelineExpectation>,
}

/// A grouped aggregation: `SELECT k, count(*) AS n FROM t GROUP BY k`,
/// `spark.read.table("t").groupBy("k").count()`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Grouping {
    /// The one table (or view) grouped, as written.
    pub source: Named,
    /// The grouping keys, every one a plain column of the rows read.
    pub keys: Vec<Named>,
    /// The output columns that count the rows of a group (`count(*) AS n`,
    /// `count(1)`, `.count()`'s `count`, `F.count("*").alias("n")`).
    pub row_counts: Vec<String>,
    /// Rows are filtered before they are grouped (`WHERE`, a `.filter`
    /// before `.groupBy`): the counts are of those rows only.
    pub rows_filtered: bool,
}

/// An upstream read of a dataset.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Read {
    pub source: Named,
    pub streaming: bool,
}

/// What a failing row does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ExpectAction {
    /// `expect` / `EXPECT (...)` alone: kept and counted.
    Warn,
    /// `expect_or_drop` / `ON VIOLATION DROP ROW`.
    Drop,
    /// `expect_or_fail` / `ON VIOLATION FAIL UPDATE`.
    Fail,
}

/// One expectation on a dataset.
#[derive(Clone, Debug)]
pub struct PipelineExpectation {
    /// The expectation's name, when known.
    pub name: Option<Named>,
    pub constraint: Constraint,
    pub action: ExpectAction,
    /// The decorator, or the `CONSTRAINT ...` clause.
    pub origin: Range<usize>,
    /// The dict entry it came from, for `expect_all*` (the related location of a duplicate).
    pub from_dict: Option<Range<usize>>,
}

/// A row filter: its predicate, and the argument (or `WHERE` clause) as
/// written, which a fix replaces.
#[derive(Clone, Debug)]
pub struct RowFilter {
    pub predicate: Constraint,
    pub span: Range<usize>,
}

/// A constraint (or row filter) text: known with its source map, or not.
#[derive(Clone, Debug)]
pub enum Constraint {
    Known(Evaluated),
    /// Not statically known: where, and why.
    Unknown {
        span: Range<usize>,
        reason: String,
    },
}

/// `@dp.append_flow(target=...)` or `CREATE FLOW ... AS INSERT INTO`.
#[derive(Clone, Debug)]
pub struct Flow {
    pub name: Option<Named>,
    pub target: Option<Named>,
    pub span: Range<usize>,
    pub reads: Vec<Read>,
    pub select_list: Option<Vec<Named>>,
}

/// `create_auto_cdc_flow(...)` / `apply_changes(...)` / `AUTO CDC INTO` /
/// `APPLY CHANGES INTO`.
#[derive(Clone, Debug)]
pub struct AutoCdc {
    /// The call or statement.
    pub span: Range<usize>,
    pub target: Option<Named>,
    pub source: Option<CdcSource>,
    pub keys: Vec<Named>,
    /// `sequence_by=` / `SEQUENCE BY`, as SQL-ish text (`col("ts")` -> `ts`).
    pub sequence_by: Option<Named>,
    pub stored_as_scd_type: Option<Named>,
    pub column_list: Option<Vec<Named>>,
    pub except_column_list: Option<Vec<Named>>,
    pub track_history_column_list: Option<Vec<Named>>,
    pub track_history_except_column_list: Option<Vec<Named>>,
    /// When `source=` is a DataFrame (an expression, or a module-level
    /// name bound to one): the datasets it reads and its literal select
    /// list, so a re-injected branch can be compared with the clean one.
    pub source_reads: Vec<Read>,
    pub source_select_list: Option<Vec<Named>>,
    /// The columns such a DataFrame source computes (`withColumn`).
    pub source_computed_columns: Vec<ComputedColumn>,
    /// The legacy spelling (`apply_changes`, `APPLY CHANGES INTO`).
    pub legacy: bool,
}

/// What `source=` is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CdcSource {
    /// A dataset name (a string, or an identifier in SQL).
    Name(Named),
    /// Anything else (a DataFrame variable, a call): the API takes a name.
    NotAName { span: Range<usize>, text: String },
}

/// One use of a legacy API.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LegacyUse {
    pub span: Range<usize>,
    /// What is written (`import dlt`, `APPLY CHANGES INTO`, `LIVE.`).
    pub written: String,
    /// The documented replacement.
    pub replacement: String,
}

impl Evaluated {
    /// A text that is its own source, starting at byte `start` of the file
    /// (SQL pipeline files: the identity map).
    pub fn verbatim(text: &str, start: usize) -> Evaluated {
        Evaluated {
            text: text.to_string(),
            origin: (start..start + text.len()).map(Some).collect(),
            defined: Vec::new(),
        }
    }
}
