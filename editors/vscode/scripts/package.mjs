// `npm run package`: bundles the server, packages a platform-specific
// dqlint-<target>.vsix and checks what it holds.
//   DQLINT_BINARY=<dqlint executable>         default: ../../target/release/dqlint
//   DQLINT_VSCODE_TARGET=<VS Code platform>   default: this machine's
// Each step runs as its own process so that a failure names the step.

import { spawnSync } from "node:child_process";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

import { packageTarget } from "./target.mjs";

const extensionDir = dirname(dirname(fileURLToPath(import.meta.url)));
const scripts = join(extensionDir, "scripts");
// vsce's own entry point, run with this node: no .cmd shim to spawn on Windows.
const vsce = join(dirname(createRequire(import.meta.url).resolve("@vscode/vsce/package.json")), "vsce");

let target;
try {
  target = packageTarget();
} catch (error) {
  console.error(`package: ${error.message}`);
  process.exit(1);
}
const vsix = `dqlint-${target}.vsix`;

function run(step, args) {
  const result = spawnSync(process.execPath, args, { cwd: extensionDir, stdio: "inherit" });
  if (result.status !== 0) {
    console.error(`package: ${step} failed (${result.error?.message ?? `exit ${result.status ?? result.signal}`})`);
    process.exit(1);
  }
}

run("bundle-server", [join(scripts, "bundle-server.mjs")]);
run("vsce package", [vsce, "package", "--target", target, "--allow-missing-repository", "--skip-license", "--out", vsix]);
run("check-vsix", [join(scripts, "check-vsix.mjs"), vsix]);
