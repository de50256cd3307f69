// When the extension starts its server, without VS Code (unit-tested):
// a workspace with a project marker starts it at once; otherwise the first
// open document a dialect claims does (a DLT / Lakeflow pipeline source or
// a DQX checks file in a repository with no marker).

/** Files whose presence in the workspace makes it dqlint's (package.json's `workspaceContains` events). */
export const MARKERS = "{**/lhp.yaml,**/dqlint.toml,**/.dqx/config.yml,**/databricks.yml,**/*.pipeline.yml}";

// `import dlt`, `from pyspark import pipelines`, `import pyspark.pipelines as dp`,
// `from databricks.labs.dqx... import ...`: the imports a pipeline source
// or DQX code starts with.
const PIPELINE_IMPORT =
  /^\s*(?:import\s+dlt\b|from\s+dlt\s+import\b|from\s+pyspark\s+import\s+(?:[\w\s,()]*\b)?pipelines\b|import\s+pyspark\.pipelines\b|from\s+pyspark\.pipelines\b|import\s+databricks\.labs\.dqx\b|from\s+databricks\.labs\.dqx\b)/m;

// A DQX checks file: items with a `check:` holding a `function:`.
const DQX_CHECK = /^\s*(?:-\s+)?check:\s*(?:#.*)?$/m;
const DQX_FUNCTION = /^\s+function:\s*\S/m;

/** Whether a document of `languageId` with `text` is one the server reads without a project marker. */
export function claims(languageId: string, fileName: string, text: string): boolean {
  if (languageId === "python" || fileName.endsWith(".py")) {
    return PIPELINE_IMPORT.test(text);
  }
  if (languageId === "yaml" || /\.ya?ml$/.test(fileName)) {
    return DQX_CHECK.test(text) && DQX_FUNCTION.test(text);
  }
  if (languageId === "json" || fileName.endsWith(".json")) {
    return /"check"\s*:\s*\{/.test(text) && /"function"\s*:/.test(text);
  }
  return false;
}
