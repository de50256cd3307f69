// Which documents start the server in a workspace with no project marker.

import { strict as assert } from "assert";
import { test } from "node:test";

import { claims } from "../activation";

test("pipeline sources and DQX code: every import form", () => {
  for (const text of [
    "import dlt\n\n@dlt.table\ndef t(): ...\n",
    "from dlt import table\n",
    "from pyspark import pipelines as dp\n",
    "import pyspark.pipelines as dp\n",
    "from pyspark.pipelines import table\n",
    "# header\nfrom databricks.labs.dqx.engine import DQEngine\n",
    "import databricks.labs.dqx\n",
  ]) {
    assert.equal(claims("python", "/r/p.py", text), true, text);
  }
});

test("other Python is not claimed", () => {
  for (const text of ["import dltx\n", "import pandas as pd\n", "# import dlt\n", "x = 'from dlt import t'\n"]) {
    assert.equal(claims("python", "/r/p.py", text), false, text);
  }
});

test("DQX checks files in YAML and JSON; other YAML not", () => {
  const checks = "- criticality: error\n  check:\n    function: is_not_null\n    arguments:\n      column: id\n";
  assert.equal(claims("yaml", "/r/checks.yml", checks), true);
  assert.equal(claims("json", "/r/checks.json", '[{"check": {"function": "is_not_null"}}]'), true);
  assert.equal(claims("yaml", "/r/.github/workflows/ci.yml", "jobs:\n  build:\n    steps: []\n"), false);
  assert.equal(claims("yaml", "/r/docker-compose.yml", "services:\n  app:\n    image: x\n"), false);
  assert.equal(claims("sql", "/r/a.sql", "select 1"), false);
});
