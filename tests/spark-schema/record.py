#!/usr/bin/env python3
"""Records what PySpark's own parser (`pyspark.sql.types._parse_datatype_string`,
the one DQX calls) says of every string in cases.json, into verdicts.json:
"struct", "type" (parses, but is not a StructType) or "error".
Needs pyspark (4.3.0 with DQX 0.17.0, see ../shared/tools/README.md) and Java 17:
    /path/to/dqx-venv/bin/python tests/spark-schema/record.py"""
import json, os
from pyspark.sql import SparkSession, types

here = os.path.dirname(os.path.abspath(__file__))
spark = SparkSession.builder.master("local[1]").config("spark.ui.enabled", "false").getOrCreate()
verdicts = {}
for s in json.load(open(os.path.join(here, "cases.json"))):
    try:
        t = types._parse_datatype_string(s)
        verdicts[s] = "struct" if isinstance(t, types.StructType) else "type"
    except Exception:
        verdicts[s] = "error"
import pyspark
json.dump({"pyspark": pyspark.__version__, "verdicts": verdicts},
          open(os.path.join(here, "verdicts.json"), "w"), indent=1, ensure_ascii=False)
print(len(verdicts), "verdicts")
