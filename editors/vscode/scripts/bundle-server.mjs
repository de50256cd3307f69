// Puts the dqlint executable into server/, where the packaged extension
// looks first (src/serverPath.ts). `npm run package` runs it before vsce.
//   DQLINT_BINARY=/path/to/dqlint node scripts/bundle-server.mjs
// Without DQLINT_BINARY: the repository's target/release/dqlint.
// DQLINT_VSCODE_TARGET (default: this machine) picks the file name.

import { chmodSync, copyFileSync, mkdirSync, rmSync, statSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

import { packageTarget, serverBinaryName } from "./target.mjs";

const extensionDir = dirname(dirname(fileURLToPath(import.meta.url)));
const target = packageTarget();
const name = serverBinaryName(target);
const fromEnv = process.env.DQLINT_BINARY?.trim();
// A relative DQLINT_BINARY is taken from where `npm run` was typed (INIT_CWD).
const source = fromEnv
  ? resolve(process.env.INIT_CWD ?? process.cwd(), fromEnv)
  : resolve(extensionDir, "../../target/release", name);

let size;
try {
  const stat = statSync(source);
  if (!stat.isFile()) {
    throw new Error("not a file");
  }
  size = stat.size;
} catch {
  const where = fromEnv ? `DQLINT_BINARY=${fromEnv}` : "the default, the repository's target/release";
  console.error(
    `bundle-server: there is no dqlint binary at ${source} (${where}), so the .vsix would have no server.\n` +
      `  Build it at the repository root: cargo build --release --locked -p dqlint\n` +
      `  or set DQLINT_BINARY to a dqlint executable built for ${target}.`,
  );
  process.exit(1);
}

// A fresh folder: a binary left over from packaging another platform
// (dqlint.exe beside dqlint) must not ship too.
const serverDir = join(extensionDir, "server");
rmSync(serverDir, { recursive: true, force: true });
mkdirSync(serverDir);
const destination = join(serverDir, name);
copyFileSync(source, destination);
// vsce stores the file mode in the .vsix and VS Code restores it on install:
// without the executable bit the extension could not start its server.
chmodSync(destination, 0o755);
console.log(`bundle-server: server/${name} <- ${source} (${(size / 1048576).toFixed(1)} MiB, for ${target})`);
