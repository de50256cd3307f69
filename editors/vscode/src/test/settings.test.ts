// Settings mapping, without VS Code: `node --test out/test/`.

import { strict as assert } from "assert";
import { test } from "node:test";

import { serverSettings } from "../settings";

function reader(values: Record<string, unknown>): (key: string) => unknown {
  return (key) => values[key];
}

test("unset settings send empty lists (every environment, every rule)", () => {
  assert.deepEqual(serverSettings(reader({})), { envs: [], select: [], ignore: [] });
});

test("lists travel under the names the server reads", () => {
  const settings = serverSettings(reader({ envs: ["dev", "prod"], select: ["DQ4"], ignore: ["DQ603", "unknown-key"] }));
  assert.deepEqual(settings, { envs: ["dev", "prod"], select: ["DQ4"], ignore: ["DQ603", "unknown-key"] });
  assert.deepEqual(Object.keys(settings).sort(), ["envs", "ignore", "select"]);
});

test("a single string is a one-item list; blanks and non-strings are dropped", () => {
  assert.deepEqual(serverSettings(reader({ envs: " dev ", select: ["", " DQ1 ", 7, null], ignore: "" })), {
    envs: ["dev"],
    select: ["DQ1"],
    ignore: [],
  });
});

test("values of another type fall back to the default", () => {
  assert.deepEqual(serverSettings(reader({ envs: { dev: true }, select: 3, ignore: true })), {
    envs: [],
    select: [],
    ignore: [],
  });
});
