//! The Python pipeline reader against the contract (`spec/dlt.md`): one
//! test per construct, each with a twin that must not be read as one, and
//! the seed code of 002 and 004 typed in as fixtures.

use std::ops::Range;

use dqlint_pipeline::model::{
    ApiMisuse, CdcSource, Constraint, Dataset, DatasetKind, ExpectAction, Misplacement,
    PipelineFile,
};
use dqlint_pipeline::python_model::read;
use dqlint_pipeline::quarantine;
use dqlint_pipeline::Evaluated;

fn no_imports(_: &str) -> Option<String> {
    None
}

fn parse(source: &str) -> PipelineFile {
    let file = read(source, &no_imports);
    check_spans(source, &file);
    file
}

fn at<'s>(source: &'s str, span: &Range<usize>) -> &'s str {
    &source[span.clone()]
}

fn known(c: &Constraint) -> &Evaluated {
    match c {
        Constraint::Known(e) => e,
        Constraint::Unknown { reason, .. } => panic!("unknown: {reason}"),
    }
}

fn dataset<'f>(file: &'f PipelineFile, name: &str) -> &'f Dataset {
    file.datasets
        .iter()
        .find(|d| d.name.name == name)
        .unwrap_or_else(|| panic!("no dataset {name} in {:?}", names(file)))
}

fn names(file: &PipelineFile) -> Vec<&str> {
    file.datasets.iter().map(|d| d.name.name.as_str()).collect()
}

fn fixture(path: &str) -> String {
    let path = format!(
        "{}/../../fixtures/pipelines/{path}",
        env!("CARGO_MANIFEST_DIR")
    );
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// Every span of the model lies on character boundaries of the source.
fn check_spans(source: &str, file: &PipelineFile) {
    let ok = |r: &Range<usize>| {
        assert!(
            r.start <= r.end && source.get(r.clone()).is_some(),
            "bad span {r:?} in {source:?}"
        )
    };
    let constraint = |c: &Constraint| match c {
        Constraint::Known(e) => {
            assert_eq!(e.origin.len(), e.text.len());
            for o in e.origin.iter().flatten() {
                assert!(*o < source.len(), "origin {o} past the end");
            }
            if let Some(r) = e.source_span(0..e.text.len()) {
                ok(&r);
            }
        }
        Constraint::Unknown { span, .. } => ok(span),
    };
    for (r, _) in &file.syntax_errors {
        ok(r);
    }
    for d in &file.datasets {
        ok(&d.span);
        ok(&d.name.span);
        d.reads.iter().for_each(|r| ok(&r.source.span));
        for f in &d.row_filters {
            ok(&f.span);
            constraint(&f.predicate);
        }
        d.select_list.iter().flatten().for_each(|n| ok(&n.span));
        d.computed_columns.iter().for_each(|c| ok(&c.name.span));
        for e in &d.expectations {
            ok(&e.origin);
            e.name.iter().for_each(|n| ok(&n.span));
            e.from_dict.iter().for_each(ok);
            constraint(&e.constraint);
        }
    }
    for f in &file.flows {
        ok(&f.span);
        f.name
            .iter()
            .chain(f.target.iter())
            .for_each(|n| ok(&n.span));
    }
    for c in &file.auto_cdc {
        ok(&c.span);
        c.target.iter().for_each(|n| ok(&n.span));
        c.keys.iter().for_each(|n| ok(&n.span));
        c.sequence_by.iter().for_each(|n| ok(&n.span));
        match &c.source {
            Some(CdcSource::Name(n)) => ok(&n.span),
            Some(CdcSource::NotAName { span, .. }) => ok(span),
            None => {}
        }
    }
    file.declared_targets.iter().for_each(|n| ok(&n.span));
    file.legacy.iter().for_each(|l| ok(&l.span));
    file.python_udfs.iter().for_each(|n| ok(&n.span));
    for m in &file.api_misuses {
        match m {
            ApiMisuse::UnknownExpectation { written } => ok(&written.span),
            ApiMisuse::MisplacedExpectation {
                decorator,
                belongs_at,
                ..
            } => {
                ok(decorator);
                if let Some(b) = belongs_at {
                    ok(&(*b..*b));
                }
            }
            ApiMisuse::BadArguments { span, .. } => ok(span),
            ApiMisuse::DuplicateDictKey { first, second, .. } => {
                ok(first);
                ok(second);
            }
        }
    }
}

const DP: &str = "from pyspark import pipelines as dp\nfrom pyspark.sql import functions as F\n";

#[test]
fn datasets_from_each_decorator_and_their_kinds() {
    let source = format!(
        "{DP}
@dp.table
def bronze():
    return spark.readStream.format('cloudFiles').load('/Volumes/raw')

@dp.table(name='silver_orders', comment='c')
def silver():
    return spark.readStream.table('bronze')

@dp.table()
def batch_table():
    return spark.read.table('bronze')

@dp.materialized_view(name='daily')
def daily():
    return spark.read.table('silver_orders').groupBy('day').count()

@dp.temporary_view
def v():
    return dp.read_stream('bronze')

@dp.table
def unknown_read():
    return make_frame()
"
    );
    let file = parse(&source);
    assert!(file.syntax_errors.is_empty(), "{:?}", file.syntax_errors);
    let kinds: Vec<_> = file
        .datasets
        .iter()
        .map(|d| (d.name.name.as_str(), d.kind))
        .collect();
    assert_eq!(
        kinds,
        [
            ("bronze", DatasetKind::StreamingTable),
            ("silver_orders", DatasetKind::StreamingTable),
            ("batch_table", DatasetKind::MaterializedView),
            ("daily", DatasetKind::MaterializedView),
            ("v", DatasetKind::View),
            ("unknown_read", DatasetKind::Table),
        ]
    );
    let silver = dataset(&file, "silver_orders");
    assert_eq!(at(&source, &silver.name.span), "silver_orders");
    assert_eq!(at(&source, &silver.reads[0].source.span), "bronze");
    assert!(silver.reads[0].streaming);
    assert!(at(&source, &silver.span).starts_with("@dp.table(name="));
    assert!(
        dataset(&file, "bronze").reads.is_empty(),
        "load() is no dataset read"
    );
    let v = dataset(&file, "v");
    assert_eq!(v.reads[0].source.name, "bronze");
    assert!(v.reads[0].streaming);
}

#[test]
fn calls_named_table_that_are_not_the_pipeline_api_are_not_datasets() {
    let source = "\
from pyspark import pipelines as dp
import other

@other.table()
@other.expect_or_drop('a', 'x > 0')
def not_a_dataset():
    return spark.read.table('a')

@table
def also_not():
    return 1

def plain():
    return spark.table('a')
";
    let file = parse(source);
    assert!(file.datasets.is_empty(), "{:?}", names(&file));
    assert!(file.api_misuses.is_empty(), "{:?}", file.api_misuses);
    // Nothing at all in a module that is no pipeline source.
    let file =
        parse("import os\n@table\n@expect('a', 'b')\ndef t():\n    return spark.read.table('x')\n");
    assert!(file.datasets.is_empty() && file.api_misuses.is_empty());
}

#[test]
fn legacy_dlt_decorators_and_imported_names() {
    let source = "\
import dlt
from dlt import expect_or_fail as must

@dlt.view
def v():
    return dlt.read_stream('bronze')

@dlt.table
@must('id', 'id IS NOT NULL')
def t():
    return dlt.read('v')
";
    let file = parse(source);
    assert_eq!(names(&file), ["v", "t"]);
    assert_eq!(file.datasets[0].kind, DatasetKind::View);
    assert_eq!(file.datasets[1].kind, DatasetKind::MaterializedView);
    assert_eq!(file.datasets[1].expectations[0].action, ExpectAction::Fail);
    let legacy: Vec<_> = file
        .legacy
        .iter()
        .map(|l| {
            (
                l.written.as_str(),
                l.replacement.as_str(),
                at(source, &l.span),
            )
        })
        .collect();
    assert_eq!(
        legacy,
        [
            (
                "import dlt",
                "from pyspark import pipelines as dp",
                "import dlt"
            ),
            (
                "from dlt import",
                "from pyspark import pipelines as dp",
                "from dlt import expect_or_fail as must"
            ),
            ("@dlt.view", "@dp.temporary_view", "@dlt.view"),
        ]
    );
    // The current API is no legacy use.
    let file = parse(&format!(
        "{DP}@dp.temporary_view\ndef v():\n    return spark.read.table('a')\n"
    ));
    assert!(file.legacy.is_empty(), "{:?}", file.legacy);
}

#[test]
fn table_properties_literal_entries() {
    let source = format!(
        "{DP}PROPS = {{'quality': 'gold'}}
@dp.table(table_properties={{'quality': 'silver', 'pipelines.reset.allowed': False, 'n': 3, 'x': some()}})
def a():
    return spark.read.table('s')

@dp.table(table_properties=PROPS)
def b():
    return spark.read.table('s')
"
    );
    let file = parse(&source);
    let props = |d: &Dataset| d.table_properties.clone();
    let s = |a: &str, b: &str| (a.to_string(), b.to_string());
    assert_eq!(
        props(&file.datasets[0]),
        [
            s("quality", "silver"),
            s("pipelines.reset.allowed", "false"),
            s("n", "3")
        ]
    );
    assert_eq!(props(&file.datasets[1]), [s("quality", "gold")]);
}

#[test]
fn expectations_of_every_api_with_names_and_keywords() {
    let source = format!(
        "{DP}COL = 'price'
@dp.table
@dp.expect('warn_one', 'a > 0')
@dp.expect_or_drop(name='drop_one', constraint=f'{{COL}} > 0')
@dp.expect_or_fail('fail_one', constraint=\"b\" ' IS NOT NULL')
@dp.expect_all({{'w1': 'c > 0', 'w2': 'd > 0'}})
@dp.expect_all_or_drop(expectations={{'d1': 'e > 0'}})
@dp.expect_all_or_fail({{'f1': 'f > 0'}})
def t():
    return spark.read.table('s')
"
    );
    let file = parse(&source);
    assert!(file.api_misuses.is_empty(), "{:?}", file.api_misuses);
    let t = dataset(&file, "t");
    let got: Vec<_> = t
        .expectations
        .iter()
        .map(|e| {
            (
                e.name.as_ref().unwrap().name.as_str(),
                known(&e.constraint).text.as_str(),
                e.action,
                e.from_dict.is_some(),
            )
        })
        .collect();
    use ExpectAction::*;
    assert_eq!(
        got,
        [
            ("warn_one", "a > 0", Warn, false),
            ("drop_one", "price > 0", Drop, false),
            ("fail_one", "b IS NOT NULL", Fail, false),
            ("w1", "c > 0", Warn, true),
            ("w2", "d > 0", Warn, true),
            ("d1", "e > 0", Drop, true),
            ("f1", "f > 0", Fail, true),
        ]
    );
    let drop_one = &t.expectations[1];
    assert_eq!(
        at(&source, &drop_one.name.as_ref().unwrap().span),
        "drop_one"
    );
    assert!(at(&source, &drop_one.origin).starts_with("@dp.expect_or_drop(name="));
    // `price` comes from COL's literal, ` > 0` from the f-string.
    let c = known(&drop_one.constraint);
    assert_eq!(at(&source, &c.source_span(0..5).unwrap()), "price");
    assert_eq!(
        at(&source, &t.expectations[3].from_dict.clone().unwrap()),
        "'w1': 'c > 0'"
    );
}

#[test]
fn rule_dicts_from_module_names_comprehensions_and_subscripts() {
    let source = format!(
        "{DP}RULES = {{
    'valid_price': 'price IS NOT NULL AND price > 0',
    'valid_id': 'id IS NOT NULL',
}}
RULES['valid_qty'] = 'qty > 0'
QUARANTINE = {{k: f'NOT ({{v}})' for k, v in RULES.items()}}

@dp.table
@dp.expect_all_or_drop(RULES)
def clean():
    return spark.readStream.table('raw')

@dp.table
@dp.expect_all_or_drop(QUARANTINE)
@dp.expect('only_price', RULES['valid_price'])
def quarantine():
    return spark.readStream.table('raw')
"
    );
    let file = parse(&source);
    let clean = dataset(&file, "clean");
    let got: Vec<_> = clean
        .expectations
        .iter()
        .map(|e| {
            (
                e.name.as_ref().unwrap().name.as_str(),
                known(&e.constraint).text.as_str(),
            )
        })
        .collect();
    assert_eq!(
        got,
        [
            ("valid_price", "price IS NOT NULL AND price > 0"),
            ("valid_id", "id IS NOT NULL"),
            ("valid_qty", "qty > 0"),
        ]
    );
    assert_eq!(
        at(&source, &clean.expectations[0].from_dict.clone().unwrap()),
        "'valid_price': 'price IS NOT NULL AND price > 0'"
    );
    assert_eq!(
        at(&source, &clean.expectations[2].from_dict.clone().unwrap()),
        "RULES['valid_qty'] = 'qty > 0'"
    );
    let q = dataset(&file, "quarantine");
    let first = known(&q.expectations[0].constraint);
    assert_eq!(first.text, "NOT (price IS NOT NULL AND price > 0)");
    // The rule's bytes map back into RULES, the comprehension's entry is RULES'.
    let i = first.text.find("price > 0").unwrap();
    let span = first.source_span(i..i + 9).unwrap();
    assert_eq!(at(&source, &span), "price > 0");
    assert!(span.end < source.find("RULES['valid_qty']").unwrap());
    assert_eq!(
        at(&source, &q.expectations[0].from_dict.clone().unwrap()),
        "'valid_price': 'price IS NOT NULL AND price > 0'"
    );
    assert_eq!(
        known(&q.expectations[3].constraint).text,
        "price IS NOT NULL AND price > 0"
    );
}

#[test]
fn unknown_values_are_unknown_with_a_reason() {
    let source = format!(
        "{DP}
@dp.table
@dp.expect_all_or_drop(get_rules('silver'))
@dp.expect('x', spark.conf.get('rule'))
@dp.expect_all({{'k': load('k')}})
def t():
    return spark.read.table('s')
"
    );
    let file = parse(&source);
    assert!(file.api_misuses.is_empty(), "{:?}", file.api_misuses);
    let t = dataset(&file, "t");
    assert_eq!(t.expectations.len(), 3);
    for e in &t.expectations {
        let Constraint::Unknown { span, reason } = &e.constraint else {
            panic!("{e:?}")
        };
        assert!(!reason.is_empty());
        assert!(!at(&source, span).is_empty());
    }
    assert!(t.expectations[0].name.is_none());
    let Constraint::Unknown { reason, span } = &t.expectations[0].constraint else {
        unreachable!()
    };
    assert!(reason.contains("get_rules"), "{reason}");
    assert_eq!(at(&source, span), "get_rules('silver')");
    assert_eq!(t.expectations[2].name.as_ref().unwrap().name, "k");
}

#[test]
fn unknown_expectation_api_is_a_misuse() {
    let source = format!(
        "{DP}
@dp.table
@dp.expect_or_quarantine('a', 'x > 0')
@dp.expect_or_drop('b', 'y > 0')
def t():
    return spark.read.table('s')
"
    );
    let file = parse(&source);
    let [ApiMisuse::UnknownExpectation { written }] = file.api_misuses.as_slice() else {
        panic!("{:?}", file.api_misuses)
    };
    assert_eq!(written.name, "expect_or_quarantine");
    assert_eq!(at(&source, &written.span), "expect_or_quarantine");
    assert_eq!(dataset(&file, "t").expectations.len(), 1);
}

#[test]
fn misplaced_expectations() {
    let source = format!(
        "{DP}
@dp.expect_or_drop('above', 'x > 0')
@dp.table(
    name='t',
)
@dp.expect('below', 'y > 0')
def t():
    return spark.read.table('s')

@dp.expect('nowhere', 'z > 0')
def helper():
    return 1

@dp.append_flow(target='t')
@dp.expect('on_flow', 'w > 0')
def f():
    return spark.readStream.table('s2')
"
    );
    let file = parse(&source);
    let got: Vec<_> = file
        .api_misuses
        .iter()
        .map(|m| match m {
            ApiMisuse::MisplacedExpectation {
                decorator,
                why,
                belongs_at,
            } => (at(&source, decorator), *why, *belongs_at),
            other => panic!("{other:?}"),
        })
        .collect();
    let below = source.find("@dp.expect('below'").unwrap();
    assert_eq!(
        got,
        [
            (
                "@dp.expect_or_drop('above', 'x > 0')",
                Misplacement::AboveDataset,
                Some(below)
            ),
            (
                "@dp.expect('nowhere', 'z > 0')",
                Misplacement::NoDataset,
                None
            ),
            (
                "@dp.expect('on_flow', 'w > 0')",
                Misplacement::OnAppendFlow,
                None
            ),
        ]
    );
    let t = dataset(&file, "t");
    let applied: Vec<_> = t
        .expectations
        .iter()
        .map(|e| e.name.as_ref().unwrap().name.as_str())
        .collect();
    assert_eq!(
        applied,
        ["below"],
        "a misplaced expectation applies to nothing"
    );
    assert_eq!(file.flows.len(), 1);
}

#[test]
fn bad_arguments() {
    let source = format!(
        "{DP}RULE_LIST = ['a > 0']
@dp.table
@dp.expect('only_a_name')
@dp.expect_or_drop('a', 'b', 'c')
@dp.expect_all('name', 'x > 0')
@dp.expect_all(RULE_LIST)
@dp.expect_all_or_drop({{'k': 1}})
@dp.expect_or_fail('n', {{'x': 'y'}})
@dp.expect
@dp.expect_or_drop('a', constraint='x', action='drop')
@dp.expect('fine', 'x > 0')
def t():
    return spark.read.table('s')
"
    );
    let file = parse(&source);
    let got: Vec<_> = file
        .api_misuses
        .iter()
        .map(|m| match m {
            ApiMisuse::BadArguments { span, api, detail } => {
                (api.as_str(), detail.as_str(), at(&source, span))
            }
            other => panic!("{other:?}"),
        })
        .collect();
    assert_eq!(
        got,
        [
            (
                "expect",
                "takes 2 arguments (name, constraint), got 1",
                "('only_a_name')"
            ),
            (
                "expect_or_drop",
                "takes 2 arguments (name, constraint), got 3",
                "('a', 'b', 'c')"
            ),
            (
                "expect_all",
                "takes 1 argument (a dict of expectation name to constraint), got 2",
                "('name', 'x > 0')"
            ),
            (
                "expect_all",
                "takes a dict of expectation name to constraint, got a list",
                "RULE_LIST"
            ),
            (
                "expect_all_or_drop",
                "the constraint of `k` is an int, not a str",
                "{'k': 1}"
            ),
            (
                "expect_or_fail",
                "the constraint is a dict, not a str",
                "('n', {'x': 'y'})"
            ),
            (
                "expect",
                "is used without arguments: it must be called",
                "@dp.expect"
            ),
            (
                "expect_or_drop",
                "has no argument `action`",
                "('a', constraint='x', action='drop')"
            ),
        ]
    );
    let t = dataset(&file, "t");
    assert_eq!(t.expectations.len(), 1, "{:?}", t.expectations);
}

#[test]
fn duplicate_dict_keys_and_python_keeps_the_last() {
    let source = format!(
        "{DP}RULES = {{'a': 'x > 0', 'b': 'y > 0', 'a': 'x > 1'}}
UNUSED = {{'z': '1', 'z': '2'}}
@dp.table
@dp.expect_all_or_drop(RULES)
@dp.expect_all({{'c': 'w > 0', 'c': 'w > 1'}})
def t():
    return spark.read.table('s')
"
    );
    let file = parse(&source);
    let got: Vec<_> = file
        .api_misuses
        .iter()
        .map(|m| match m {
            ApiMisuse::DuplicateDictKey { key, first, second } => {
                (key.as_str(), at(&source, first), at(&source, second))
            }
            other => panic!("{other:?}"),
        })
        .collect();
    assert_eq!(
        got,
        [
            ("a", "'a': 'x > 0'", "'a': 'x > 1'"),
            ("c", "'c': 'w > 0'", "'c': 'w > 1'"),
        ],
        "a dict that holds no expectations is not checked"
    );
    let t = dataset(&file, "t");
    let got: Vec<_> = t
        .expectations
        .iter()
        .map(|e| {
            (
                e.name.as_ref().unwrap().name.as_str(),
                known(&e.constraint).text.as_str(),
                at(&source, e.from_dict.as_ref().unwrap()),
            )
        })
        .collect();
    assert_eq!(
        got,
        [
            ("a", "x > 1", "'a': 'x > 1'"),
            ("b", "y > 0", "'b': 'y > 0'"),
            ("c", "w > 1", "'c': 'w > 1'"),
        ]
    );
}

#[test]
fn reads_filters_select_and_computed_columns_through_locals_and_helpers() {
    let source = format!(
        "{DP}
def bronze_stream():
    return spark.readStream.option('skipChangeCommits', 'true').table('bronze')

COND = 'status <> \\'test\\''

@dp.table
def silver():
    df = bronze_stream()
    ref = spark.read.table('ref')
    cond = 'amount > 0'
    out = df.join(ref, 'id').where(COND).filter(cond).filter(F.expr('qty > 0'))
    return (out
        .filter(F.col('x') > 0)
        .withColumn('loaded_at', F.current_timestamp())
        .select('id', F.col('amount'), col('t.qty').alias('quantity'), 'loaded_at'))

@dp.table
def renamed():
    return (spark.readStream.table('bronze')
        .select('a', 'b')
        .withColumnRenamed('a', 'c')
        .drop('b')
        .withColumn('d', F.lit('x')))

@dp.table
def not_literal():
    return spark.readStream.table('bronze').select(*COLS)

@dp.table
def joined_after_select():
    return spark.readStream.table('bronze').select('a').join(other, 'a')
"
    );
    let file = parse(&source);
    let silver = dataset(&file, "silver");
    assert_eq!(silver.kind, DatasetKind::StreamingTable);
    let reads: Vec<_> = silver
        .reads
        .iter()
        .map(|r| (r.source.name.as_str(), r.streaming))
        .collect();
    assert_eq!(reads, [("bronze", true), ("ref", false)]);
    let filters: Vec<_> = silver
        .row_filters
        .iter()
        .map(|f| match &f.predicate {
            Constraint::Known(e) => e.text.clone(),
            Constraint::Unknown { reason, .. } => format!("?{reason}"),
        })
        .collect();
    assert_eq!(
        filters,
        [
            "status <> 'test'",
            "amount > 0",
            "qty > 0",
            "?a Column expression (`F.col('x') > 0`), not a SQL string",
        ]
    );
    assert_eq!(
        at(&source, &silver.row_filters[2].span),
        "F.expr('qty > 0')"
    );
    let select: Vec<_> = silver
        .select_list
        .as_ref()
        .unwrap()
        .iter()
        .map(|n| (n.name.as_str(), at(&source, &n.span)))
        .collect();
    assert_eq!(
        select,
        [
            ("id", "id"),
            ("amount", "amount"),
            ("quantity", "quantity"),
            ("loaded_at", "loaded_at")
        ]
    );
    let computed: Vec<_> = silver
        .computed_columns
        .iter()
        .map(|c| (c.name.name.as_str(), c.expression.as_str()))
        .collect();
    assert_eq!(
        computed,
        [("loaded_at", "current_timestamp()")],
        "a renamed column is not computed"
    );
    let renamed = dataset(&file, "renamed");
    let select: Vec<_> = renamed
        .select_list
        .as_ref()
        .unwrap()
        .iter()
        .map(|n| n.name.as_str())
        .collect();
    assert_eq!(select, ["c", "d"]);
    assert_eq!(renamed.computed_columns[0].expression, "'x'");
    assert!(dataset(&file, "not_literal").select_list.is_none());
    assert!(dataset(&file, "joined_after_select").select_list.is_none());
}

#[test]
fn a_function_parameter_is_not_a_module_level_name() {
    let source = format!(
        "{DP}name = 'global_rule'
def make(name, src):
    @dp.table(name=name)
    @dp.expect('r', f'{{name}} > 0')
    def t():
        return spark.readStream.table(src).union(spark.read.table(name))
    return t
"
    );
    let file = parse(&source);
    let [t] = file.datasets.as_slice() else {
        panic!("{:?}", names(&file))
    };
    assert_eq!(t.name.name, "name", "an unknown name is kept as written");
    assert!(
        t.reads.is_empty(),
        "the enclosing function's `name` is no module-level name: {:?}",
        t.reads
    );
    let Constraint::Unknown { reason, .. } = &t.expectations[0].constraint else {
        panic!()
    };
    assert!(reason.contains("parameter"), "{reason}");
}

#[test]
fn a_for_over_a_literal_list_declares_one_dataset_per_item() {
    let source = format!(
        "{DP}TABLES = ['orders', 'customers']
for t in TABLES:
    @dp.table(name=f'{{t}}_silver')
    @dp.expect_or_drop('id', f'{{t}}_id IS NOT NULL')
    def silver():
        return spark.readStream.table(f'{{t}}_bronze')

for row in spark.table('config').collect():
    @dp.table(name=row.name)
    @dp.expect('r', row.rule)
    def dynamic():
        return spark.read.table('x')
"
    );
    let file = parse(&source);
    let got: Vec<_> = file
        .datasets
        .iter()
        .map(|d| {
            (
                d.name.name.as_str(),
                d.reads.first().map(|r| r.source.name.as_str()),
                match &d.expectations[0].constraint {
                    Constraint::Known(e) => e.text.clone(),
                    Constraint::Unknown { .. } => "?".into(),
                },
            )
        })
        .collect();
    assert_eq!(
        got,
        [
            (
                "orders_silver",
                Some("orders_bronze"),
                "orders_id IS NOT NULL".to_string()
            ),
            (
                "customers_silver",
                Some("customers_bronze"),
                "customers_id IS NOT NULL".to_string()
            ),
            ("row.name", Some("x"), "?".to_string()),
        ]
    );
}

#[test]
fn names_imported_from_another_module_of_the_project() {
    let rules = "RULES = {'valid_price': 'price > 0'}\nBASE = 'raw'\n";
    let source = format!(
        "{DP}from conf.rules import RULES, BASE as SOURCE
from .missing import NOTHING

@dp.table
@dp.expect_all_or_drop(RULES)
@dp.expect('n', NOTHING)
def t():
    return spark.readStream.table(SOURCE)
"
    );
    let imports = |name: &str| (name == "conf.rules").then(|| rules.to_string());
    let file = read(&source, &imports);
    check_spans(&source, &file);
    let t = dataset(&file, "t");
    let c = known(&t.expectations[0].constraint);
    assert_eq!(c.text, "price > 0");
    assert_eq!(t.expectations[0].name.as_ref().unwrap().name, "valid_price");
    // The other file's bytes are not this file's: the map points at the
    // import, and the definition at the characters of the module.
    let span = c.source_span(0..c.text.len()).unwrap();
    assert_eq!(at(&source, &span), "RULES");
    let (module, defined) = c.definition(0..c.text.len()).unwrap();
    assert_eq!((module, &rules[defined]), ("conf.rules", "price > 0"));
    let (_, defined) = c.definition(6..9).unwrap();
    assert_eq!(&rules[defined], "> 0");
    assert_eq!(t.reads[0].source.name, "raw");
    assert_eq!(at(&source, &t.reads[0].source.span), "SOURCE");
    assert!(matches!(
        t.expectations[1].constraint,
        Constraint::Unknown { .. }
    ));

    // `import conf.rules as r` then `r.RULES`; `from conf.rules import *`.
    let source = format!(
        "{DP}import conf.rules as r
@dp.table
@dp.expect_all_or_drop(r.RULES)
def a():
    return spark.readStream.table(r.BASE)
"
    );
    let file = read(&source, &imports);
    check_spans(&source, &file);
    let a = dataset(&file, "a");
    assert_eq!(known(&a.expectations[0].constraint).text, "price > 0");
    assert_eq!(a.reads[0].source.name, "raw");
    let source = format!(
        "{DP}from conf.rules import *
@dp.table
@dp.expect_all_or_drop(RULES)
def b():
    return spark.readStream.table(BASE)
"
    );
    let file = read(&source, &imports);
    check_spans(&source, &file);
    let b = dataset(&file, "b");
    let c = known(&b.expectations[0].constraint);
    assert_eq!(c.text, "price > 0");
    assert_eq!(at(&source, &c.source_span(0..c.text.len()).unwrap()), "*");
    let (_, defined) = c.definition(0..c.text.len()).unwrap();
    assert_eq!(&rules[defined], "price > 0");

    // Text of this file around an imported rule: the rule's bytes are the
    // module's, the rest this file's own.
    let source = format!(
        "{DP}from conf.rules import RULES
@dp.table
@dp.expect_or_drop('not_valid', f\"NOT ({{RULES['valid_price']}})\")
def q():
    return spark.readStream.table('raw')
"
    );
    let file = read(&source, &imports);
    check_spans(&source, &file);
    let c = known(&dataset(&file, "q").expectations[0].constraint);
    assert_eq!(c.text, "NOT (price > 0)");
    assert_eq!(c.definition(0..c.text.len()), None);
    assert_eq!(c.definition(0..4), None);
    let (module, defined) = c.definition(5..14).unwrap();
    assert_eq!((module, &rules[defined]), ("conf.rules", "price > 0"));
}

#[test]
fn append_flows() {
    let source = format!(
        "{DP}dp.create_streaming_table('target')
@dp.append_flow(target='target', name='backfill')
def f():
    return spark.readStream.table('old').select('id', 'amount')

@dp.append_flow(target='target')
def live_flow():
    return spark.readStream.table('new')
"
    );
    let file = parse(&source);
    assert_eq!(names(&file), ["target"], "flows are no datasets");
    let got: Vec<_> = file
        .flows
        .iter()
        .map(|f| {
            (
                f.name.as_ref().unwrap().name.as_str(),
                f.target.as_ref().unwrap().name.as_str(),
                f.reads[0].source.name.as_str(),
                f.select_list.as_ref().map(|s| s.len()),
            )
        })
        .collect();
    assert_eq!(
        got,
        [
            ("backfill", "target", "old", Some(2)),
            ("live_flow", "target", "new", None)
        ]
    );
    assert_eq!(file.declared_targets[0].name, "target");
}

#[test]
fn a_declared_streaming_table_is_a_dataset_with_its_rules() {
    let source = format!(
        "{DP}RULES = {{'valid_id': 'id IS NOT NULL'}}
dp.create_streaming_table(
    'target',
    expect_all_or_drop=RULES,
    expect_all={{'recent': 'ts > 0'}},
    table_properties={{'quality': 'silver'}},
)
dp.create_streaming_table('bare')
"
    );
    let file = parse(&source);
    let declared: Vec<_> = file
        .declared_targets
        .iter()
        .map(|n| n.name.as_str())
        .collect();
    assert_eq!(declared, ["target", "bare"]);
    let target = dataset(&file, "target");
    assert_eq!(target.kind, DatasetKind::StreamingTable);
    assert!(target.reads.is_empty());
    let rules: Vec<_> = target
        .expectations
        .iter()
        .map(|e| {
            (
                e.name.as_ref().unwrap().name.as_str(),
                e.action,
                at(&source, &e.origin),
            )
        })
        .collect();
    assert_eq!(
        rules,
        [
            ("valid_id", ExpectAction::Drop, "expect_all_or_drop=RULES"),
            (
                "recent",
                ExpectAction::Warn,
                "expect_all={'recent': 'ts > 0'}"
            ),
        ]
    );
    assert_eq!(target.table_properties.len(), 1);
    assert!(dataset(&file, "bare").expectations.is_empty());
}

#[test]
fn auto_cdc_with_every_argument() {
    let source = format!(
        "{DP}dp.create_streaming_table(name='customers')
dp.create_auto_cdc_flow(
    target='customers',
    source='customers_raw',
    keys=['customer_id', F.col('region')],
    sequence_by=F.struct('ts', 'seq'),
    stored_as_scd_type=2,
    except_column_list=['operation'],
    track_history_except_column_list=[col('city')],
)
dp.create_auto_cdc_flow(target='t2', source='s2', keys=['id'], sequence_by='ts',
    column_list=['id', 'name'], stored_as_scd_type='1', track_history_column_list=None)
dp.create_auto_cdc_flow(target='t3', source='s3', keys=['id'], sequence_by=F.expr('ts + 1'))
"
    );
    let file = parse(&source);
    assert_eq!(file.declared_targets[0].name, "customers");
    let [a, b, c] = file.auto_cdc.as_slice() else {
        panic!("{:?}", file.auto_cdc)
    };
    assert!(!a.legacy);
    assert_eq!(a.target.as_ref().unwrap().name, "customers");
    let Some(CdcSource::Name(s)) = &a.source else {
        panic!("{:?}", a.source)
    };
    assert_eq!(at(&source, &s.span), "customers_raw");
    let keys: Vec<_> = a.keys.iter().map(|k| k.name.as_str()).collect();
    assert_eq!(keys, ["customer_id", "region"]);
    let seq = a.sequence_by.as_ref().unwrap();
    assert_eq!(seq.name, "struct(ts, seq)");
    assert_eq!(at(&source, &seq.span), "F.struct('ts', 'seq')");
    assert_eq!(a.stored_as_scd_type.as_ref().unwrap().name, "2");
    assert_eq!(a.except_column_list.as_ref().unwrap()[0].name, "operation");
    assert_eq!(
        a.track_history_except_column_list.as_ref().unwrap()[0].name,
        "city"
    );
    assert!(a.column_list.is_none() && a.track_history_column_list.is_none());
    assert_eq!(b.sequence_by.as_ref().unwrap().name, "ts");
    assert_eq!(b.stored_as_scd_type.as_ref().unwrap().name, "1");
    assert_eq!(b.column_list.as_ref().unwrap().len(), 2);
    assert!(b.track_history_column_list.is_none());
    assert_eq!(c.sequence_by.as_ref().unwrap().name, "ts + 1");
    assert!(file.legacy.is_empty());
}

#[test]
fn legacy_apply_changes_and_a_missing_sequence_by() {
    let source = "\
import dlt
dlt.create_streaming_live_table('silver')
dlt.apply_changes(target='silver', source='bronze', keys=['id'], sequence_by=col('ts'))
dlt.apply_changes(target='silver', source='bronze', keys=['id'])
";
    let file = parse(source);
    assert_eq!(file.declared_targets[0].name, "silver");
    let legacy: Vec<_> = file
        .legacy
        .iter()
        .map(|l| (l.written.as_str(), l.replacement.as_str()))
        .collect();
    assert_eq!(
        legacy,
        [
            ("import dlt", "from pyspark import pipelines as dp"),
            (
                "dlt.create_streaming_live_table",
                "dp.create_streaming_table"
            ),
            ("dlt.apply_changes", "dp.create_auto_cdc_flow"),
            ("dlt.apply_changes", "dp.create_auto_cdc_flow"),
        ]
    );
    assert!(file.auto_cdc.iter().all(|c| c.legacy));
    assert_eq!(file.auto_cdc[0].sequence_by.as_ref().unwrap().name, "ts");
    assert!(file.auto_cdc[1].sequence_by.is_none());
}

#[test]
fn cdc_source_dataframes_and_names() {
    let source = format!(
        "{DP}SRC = 'bronze'
fixed = (spark.readStream.table('quarantine')
    .withColumn('ts', F.current_timestamp())
    .select('id', 'ts'))
dp.create_auto_cdc_flow(target='t', source=fixed, keys=['id'], sequence_by='ts')
dp.create_auto_cdc_flow(target='t', source=SRC, keys=['id'], sequence_by='ts')
dp.create_auto_cdc_flow(target='t', source=spark.readStream.table('x'), keys=['id'], sequence_by='ts')
def make(src):
    dp.create_auto_cdc_flow(target='t', source=src, keys=['id'], sequence_by='ts')
"
    );
    let file = parse(&source);
    let [df, name, inline, param] = file.auto_cdc.as_slice() else {
        panic!("{:?}", file.auto_cdc)
    };
    let Some(CdcSource::NotAName { span, text }) = &df.source else {
        panic!("{:?}", df.source)
    };
    assert_eq!(text, "fixed");
    assert_eq!(at(&source, span), "fixed");
    assert_eq!(df.source_reads[0].source.name, "quarantine");
    let select: Vec<_> = df
        .source_select_list
        .as_ref()
        .unwrap()
        .iter()
        .map(|n| n.name.as_str())
        .collect();
    assert_eq!(select, ["id", "ts"]);
    assert_eq!(df.source_computed_columns[0].name.name, "ts");
    assert_eq!(
        df.source_computed_columns[0].expression,
        "current_timestamp()"
    );
    assert!(matches!(&name.source, Some(CdcSource::Name(n)) if n.name == "bronze"));
    assert!(matches!(&inline.source, Some(CdcSource::NotAName { .. })));
    assert_eq!(inline.source_reads[0].source.name, "x");
    assert!(
        param.source.is_none(),
        "a parameter may be a name: not claimed"
    );
}

#[test]
fn python_udfs() {
    let source = format!(
        "{DP}from pyspark.sql.functions import udf, pandas_udf
@udf('boolean')
def is_valid(x):
    return x > 0

@F.udf
def plain(x):
    return x

@pandas_udf('double')
def scaled(s):
    return s * 2

to_upper = F.udf(lambda s: s.upper())
spark.udf.register('valid_sku', lambda s: True)

@dp.table
def not_a_udf():
    return spark.read.table('s')
"
    );
    let file = parse(&source);
    let udfs: Vec<_> = file.python_udfs.iter().map(|n| n.name.as_str()).collect();
    assert_eq!(
        udfs,
        ["is_valid", "plain", "scaled", "to_upper", "valid_sku"]
    );
    assert_eq!(at(&source, &file.python_udfs[4].span), "valid_sku");
}

#[test]
fn syntax_errors_never_hide_the_rest() {
    let source = format!(
        "{DP}
@dp.table
def broken(:
    return spark.read.table('a')

@dp.table
@dp.expect_or_drop('ok', 'x > 0')
def fine():
    return spark.read.table('b')
"
    );
    let file = parse(&source);
    assert!(!file.syntax_errors.is_empty());
    assert!(names(&file).contains(&"fine"), "{:?}", names(&file));
}

#[test]
fn notebook_cells_and_a_broken_cell() {
    let source = "\
# Databricks notebook source
from pyspark import pipelines as dp
RULES = {'a': 'x > 0'}

# COMMAND ----------

@dp.table(
def broken(
    return ((

# COMMAND ----------

# MAGIC %md
# MAGIC # Silver

# COMMAND ----------

@dp.table
@dp.expect_all_or_drop(RULES)
def silver():
    return spark.readStream.table('bronze')
";
    let file = parse(source);
    assert!(!file.syntax_errors.is_empty());
    assert_eq!(names(&file), ["silver"]);
    let silver = &file.datasets[0];
    assert_eq!(known(&silver.expectations[0].constraint).text, "x > 0");
    assert_eq!(at(source, &silver.reads[0].source.span), "bronze");
}

#[test]
fn seed_002_before_drops_rows_silently() {
    let source = fixture("seed-002/before.py");
    let file = parse(&source);
    let [silver] = file.datasets.as_slice() else {
        panic!("{:?}", names(&file))
    };
    assert_eq!(silver.name.name, "sales_silver");
    assert_eq!(silver.kind, DatasetKind::StreamingTable);
    assert_eq!(silver.reads[0].source.name, "raw_ingestion");
    let e = &silver.expectations[0];
    assert_eq!(e.action, ExpectAction::Drop);
    assert_eq!(known(&e.constraint).text, "price IS NOT NULL AND price > 0");
}

#[test]
fn seed_002_quarantine_remediate_reinject() {
    let source = fixture("seed-002/pipeline.py");
    let file = parse(&source);
    assert!(file.syntax_errors.is_empty(), "{:?}", file.syntax_errors);
    assert!(file.api_misuses.is_empty(), "{:?}", file.api_misuses);
    assert!(file.legacy.is_empty(), "{:?}", file.legacy);
    let kinds: Vec<_> = file
        .datasets
        .iter()
        .map(|d| (d.name.name.as_str(), d.kind))
        .collect();
    assert_eq!(
        kinds,
        [
            ("raw_ingestion_view", DatasetKind::View),
            ("sales_clean", DatasetKind::StreamingTable),
            ("sales_quarantine", DatasetKind::StreamingTable),
            ("sales_silver", DatasetKind::StreamingTable),
        ]
    );
    assert!(dataset(&file, "sales_silver").reads.is_empty());
    let clean = dataset(&file, "sales_clean");
    let [rule] = clean.expectations.as_slice() else {
        panic!("{:?}", clean.expectations)
    };
    assert_eq!(rule.name.as_ref().unwrap().name, "valid_price");
    assert_eq!(rule.action, ExpectAction::Drop);
    assert_eq!(
        known(&rule.constraint).text,
        "price IS NOT NULL AND price > 0"
    );
    assert_eq!(
        at(&source, rule.from_dict.as_ref().unwrap()),
        "\"valid_price\": \"price IS NOT NULL AND price > 0\""
    );
    let q = dataset(&file, "sales_quarantine");
    let filter = known(&q.row_filters[0].predicate);
    assert_eq!(filter.text, "NOT (price IS NOT NULL AND price > 0)");
    assert_eq!(
        at(&source, &q.row_filters[0].span),
        "f\"NOT ({RULES['valid_price']})\""
    );

    // The quarantine pair, on one shared read, is the exact negation.
    let datasets: Vec<_> = file.datasets.iter().map(|d| (0, d)).collect();
    let patterns = quarantine::patterns(&datasets, |n| n.contains("quarantine"));
    let [pattern] = patterns.as_slice() else {
        panic!("{patterns:?}")
    };
    assert_eq!(pattern.clean.1.name.name, "sales_clean");
    assert_eq!(pattern.quarantine.1.name.name, "sales_quarantine");
    assert_eq!(pattern.clean_read.source.name, "raw_ingestion_view");
    let coverage = pattern.coverage.as_ref().expect("both texts are known");
    assert!(coverage.equivalent, "{coverage:?}");
    assert!(coverage.null_gaps.is_empty());

    assert_eq!(file.declared_targets[0].name, "sales_silver");
    let [flow] = file.flows.as_slice() else {
        panic!("{:?}", file.flows)
    };
    assert_eq!(flow.target.as_ref().unwrap().name, "sales_silver");
    assert_eq!(flow.reads[0].source.name, "sales_clean");
    assert!(flow.select_list.is_none());

    let [cdc] = file.auto_cdc.as_slice() else {
        panic!("{:?}", file.auto_cdc)
    };
    assert_eq!(cdc.target.as_ref().unwrap().name, "sales_silver");
    let Some(CdcSource::NotAName { text, span }) = &cdc.source else {
        panic!("{:?}", cdc.source)
    };
    assert_eq!(text, "remediated_quarantine");
    assert_eq!(at(&source, span), "remediated_quarantine");
    let reads: Vec<_> = cdc
        .source_reads
        .iter()
        .map(|r| (r.source.name.as_str(), r.streaming))
        .collect();
    assert_eq!(
        reads,
        [
            ("sales_quarantine", true),
            ("product_reference_prices", false)
        ]
    );
    let select: Vec<_> = cdc
        .source_select_list
        .as_ref()
        .unwrap()
        .iter()
        .map(|n| n.name.as_str())
        .collect();
    assert_eq!(
        select,
        ["order_id", "product_id", "ingestion_time", "price"]
    );
    assert_eq!(
        cdc.source_computed_columns[0].expression,
        "coalesce(reference_price, price)"
    );
    assert_eq!(cdc.keys[0].name, "order_id");
    assert_eq!(cdc.sequence_by.as_ref().unwrap().name, "ingestion_time");
    assert!(!cdc.legacy);
}

#[test]
fn seed_004_before_is_warn_only() {
    let source = fixture("seed-004/before.py");
    let file = parse(&source);
    let [ledger] = file.datasets.as_slice() else {
        panic!("{:?}", names(&file))
    };
    assert_eq!(ledger.name.name, "silver_ledger");
    assert_eq!(ledger.kind, DatasetKind::MaterializedView);
    assert_eq!(ledger.reads[0].source.name, "bronze_ledger");
    assert!(ledger
        .expectations
        .iter()
        .all(|e| e.action == ExpectAction::Warn));
    assert_eq!(file.legacy[0].written, "import dlt");
}

#[test]
fn seed_004_after_has_a_quarantine_pair_on_separate_reads() {
    let source = fixture("seed-004/after.py");
    let file = parse(&source);
    assert!(file.syntax_errors.is_empty());
    let silver = dataset(&file, "silver_ledger");
    assert_eq!(
        silver.table_properties,
        [("quality".to_string(), "silver".to_string())]
    );
    assert_eq!(silver.expectations[0].action, ExpectAction::Drop);
    let q = dataset(&file, "quarantine_ledger");
    assert_eq!(
        known(&q.row_filters[0].predicate).text,
        "currency_code IS NULL"
    );
    let datasets: Vec<_> = file.datasets.iter().map(|d| (0, d)).collect();
    let patterns = quarantine::patterns(&datasets, |n| n.contains("quarantine"));
    let [pattern] = patterns.as_slice() else {
        panic!("{patterns:?}")
    };
    assert_eq!(pattern.clean.1.name.name, "silver_ledger");
    assert_eq!(pattern.quarantine_read.source.name, "bronze_ledger");
    // Two reads of one source (not one shared view), which the seed shows.
    assert_ne!(
        pattern.clean_read.source.span,
        pattern.quarantine_read.source.span
    );
    assert!(pattern.coverage.as_ref().unwrap().equivalent);
}

/// No input makes the reader panic, and every span stays on the text:
/// every truncation of the fixtures, and random token soups.
#[test]
fn truncations_and_token_soup_never_panic() {
    for path in [
        "seed-002/before.py",
        "seed-002/pipeline.py",
        "seed-004/before.py",
        "seed-004/after.py",
    ] {
        let source = fixture(path);
        for end in (0..=source.len()).filter(|i| source.is_char_boundary(*i)) {
            let cut = &source[..end];
            check_spans(cut, &read(cut, &no_imports));
            let tail = &source[end..];
            check_spans(tail, &read(tail, &no_imports));
        }
    }
    let pieces = [
        "@dp.table",
        "@dp.expect_all_or_drop",
        "(",
        ")",
        "{",
        "}",
        "[",
        "]",
        ":",
        ",",
        "'a'",
        "f'{R[\"k\"]}'",
        "R",
        "=",
        "def",
        "f",
        "return",
        "spark.readStream.table",
        ".filter",
        ".select",
        "F.col",
        "\n",
        "\n    ",
        "dp.create_auto_cdc_flow",
        "source=",
        "for",
        "in",
        "#",
        "\\",
        "é",
        "\"\"\"",
        "lambda",
        "*",
        "**",
        ".alias",
        "import dlt",
        "from",
    ];
    let mut seed: u64 = 0x2545_f491_4f6c_dd1d;
    for _ in 0..2000 {
        let mut s = String::from("from pyspark import pipelines as dp\n");
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        for _ in 0..(seed % 60) {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            s.push_str(pieces[(seed % pieces.len() as u64) as usize]);
            s.push(' ');
        }
        check_spans(&s, &read(&s, &no_imports));
    }
}

#[test]
fn the_first_dlt_release_decorators_declare_datasets() {
    let source = "import dlt\n\n@dlt.create_table(comment=\"x\")\n@dlt.expect_or_drop(\"id\", \"id IS NOT NULL\")\ndef orders():\n    return dlt.read_stream(\"raw\")\n\n@dlt.create_view()\ndef raw_view():\n    return dlt.read(\"raw\")\n";
    let file = dqlint_pipeline::python_model::read(source, &|_| None);
    assert!(file.api_misuses.is_empty(), "{:?}", file.api_misuses);
    let names: Vec<&str> = file.datasets.iter().map(|d| d.name.name.as_str()).collect();
    assert_eq!(names, ["orders", "raw_view"]);
    assert_eq!(file.datasets[0].expectations.len(), 1);
    assert_eq!(
        file.datasets[1].kind,
        dqlint_pipeline::model::DatasetKind::View
    );
    let legacy: Vec<&str> = file.legacy.iter().map(|l| l.replacement.as_str()).collect();
    assert!(
        legacy.contains(&"@dp.table") && legacy.contains(&"@dp.temporary_view"),
        "{legacy:?}"
    );
}

/// `(source, keys, row counts, rows filtered)` of a dataset's grouping.
fn grouping(file: &PipelineFile, name: &str) -> Option<(String, Vec<String>, Vec<String>, bool)> {
    let g = dataset(file, name).grouping.clone()?;
    Some((
        g.source.name,
        g.keys.into_iter().map(|k| k.name).collect(),
        g.row_counts,
        g.rows_filtered,
    ))
}

#[test]
fn aggregates_grouped_by_plain_columns_and_counted() {
    let source = format!(
        r#"{DP}
from pyspark.sql import functions as F

@dp.materialized_view
@dp.expect_or_fail("unique_pk", "num_entries = 1")
def report_pk_tests():
    return spark.sql("""
        SELECT pk, count(*) AS num_entries
        FROM LIVE.report
        GROUP BY pk
    """)

@dp.materialized_view
def counted():
    orders = spark.read.table("silver.orders")
    return orders.groupBy("order_id", F.col("line")).count().withColumnRenamed("count", "n")

@dp.materialized_view
def aggregated():
    return (
        spark.read.table("orders")
        .filter("status <> 'test'")
        .groupBy(["order_id"])
        .agg(F.count("*").alias("n"), F.count(F.lit(1)).alias("m"), F.sum("x").alias("s"))
        .filter("n > 1")
    )

@dp.materialized_view
def deduplicated_first():
    return spark.read.table("orders").dropDuplicates(["order_id"]).groupBy("order_id").count()

@dp.materialized_view
def limited_groups():
    return spark.read.table("orders").groupBy("order_id").count().limit(10)

@dp.materialized_view
def by_expression():
    return spark.read.table("orders").groupBy(F.to_date("ts")).count()

@dp.table
def streaming_counts():
    return spark.readStream.table("orders").groupBy("order_id").count()

@dp.materialized_view
def joined():
    return spark.sql("SELECT k, count(*) AS n FROM a JOIN b USING (k) GROUP BY k")
"#
    );
    let file = parse(&source);
    let strings = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    let expect = |src: &str, keys: &[&str], counts: &[&str], filtered: bool| {
        Some((src.to_string(), strings(keys), strings(counts), filtered))
    };
    assert_eq!(
        grouping(&file, "report_pk_tests"),
        expect("report", &["pk"], &["num_entries"], false)
    );
    let pk = &dataset(&file, "report_pk_tests")
        .grouping
        .as_ref()
        .unwrap()
        .keys[0];
    assert_eq!(at(&source, &pk.span), "pk");
    assert_eq!(
        grouping(&file, "counted"),
        expect("silver.orders", &["order_id", "line"], &["n"], false)
    );
    assert_eq!(
        grouping(&file, "aggregated"),
        expect("orders", &["order_id"], &["n", "m"], true)
    );
    for name in [
        "deduplicated_first",
        "limited_groups",
        "by_expression",
        "streaming_counts",
        "joined",
    ] {
        assert_eq!(grouping(&file, name), None, "{name}");
    }
}
