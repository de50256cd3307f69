#!/usr/bin/env python3
"""Writes cases.json: schema strings for crates/dqlint-dqx/tests/spark_schema.rs,
every primitive type name Spark 4 knows and near misses, in the three forms
PySpark's _parse_datatype_string tries (table schema, one data type, struct
fields), with column options, nesting and malformed variants."""
import itertools, json, os

types = ["BOOLEAN", "tinyint", "byte", "SMALLINT", "short", "INT", "integer", "BIGINT", "long",
         "FLOAT", "real", "DOUBLE", "DATE", "TIMESTAMP", "timestamp_ntz", "TIMESTAMP_LTZ",
         "STRING", "BINARY", "void", "VARIANT", "time", "time(6)", "DECIMAL", "decimal(10)",
         "DECIMAL(10,2)", "dec(5, 1)", "numeric(3,0)", "CHAR(3)", "character(2)", "VARCHAR(20)",
         "interval", "INTERVAL YEAR", "interval year to month", "INTERVAL DAY TO SECOND",
         "interval hour to minute", "interval minute to second", "interval day to hour",
         "string collate UTF8_LCASE", "ARRAY<INT>", "array<array<string>>", "MAP<STRING, INT>",
         "map<string,array<struct<a:int>>>", "STRUCT<a: INT, b: STRING>", "struct<a int>",
         "struct<>", "STRUCT<`x y`: DOUBLE NOT NULL COMMENT 'c'>"]
bad_types = ["INTT", "varchar", "char", "text", "number", "decimal(10,2,3)", "decimal()",
             "interval month to year", "interval second to day", "interval year to second",
             "array<int", "array<>", "map<string>", "map<string,int,int>", "struct<a int",
             "'int'", "int unsigned", "double precision", "timestamp(3)", "string(10)",
             "geometry", "uuid", "json", "datetime", "array(int)", "struct<a int,>", "object"]
cases = []
for t in types + bad_types:
    cases += [f"a {t}", f"a: {t}", t, f"id BIGINT, v {t}", f"struct<v: {t}>", f"v {t} NOT NULL"]
cases += [
    "", " ", "a", "a,", ",", "a int,", ",a int", "a int,, b int", "a int b int",
    "a int not null", "a int null", "a int not", "a int comment 'x'", "a int comment x",
    'a int comment "x, y"', "a int default 1", "a int not null comment 'c', b string",
    "`a b` string", "`a``b` string", "`a int", "1a int", "1 int", "_a int", "a-b int",
    "a.b int", "é int", "select int", "from string", "int int", "string string",
    "a int, a int", "a int;", "a int -- comment", "a int /* c */, b int", "a int /* open", "(a int)", "a:int", "a : int, b : string",
    "struct<a:int>, b int", "STRUCT < a : INT >", "a array < int >", "a int COLLATE x",
    "a string collate", "a map<string, int> not null comment 'm'",
]
seen = []
for c in cases:
    if c not in seen:
        seen.append(c)
out = os.path.join(os.path.dirname(__file__), "cases.json")
json.dump(seen, open(out, "w"), indent=1, ensure_ascii=False)
print(len(seen), "cases")
