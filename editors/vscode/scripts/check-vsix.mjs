// Checks what a packaged .vsix holds: the built extension, its runtime
// dependencies and the bundled dqlint server for the platform the package
// names, and none of the sources, tests, source maps or build tools.
//   node scripts/check-vsix.mjs dqlint-linux-x64.vsix
// Reads the zip itself (no unzip needed on CI).

import { spawnSync } from "node:child_process";
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { inflateRawSync } from "node:zlib";

import { hostTarget, serverBinaryName } from "./target.mjs";

const file = process.argv[2];
const zip = readFileSync(file);

/** The central directory: name, Unix mode and where each entry's data is. */
function entries(buffer) {
  // End of central directory: signature 0x06054b50, within the last 64 KiB.
  let end = -1;
  for (let i = buffer.length - 22; i >= Math.max(0, buffer.length - 65557); i--) {
    if (buffer.readUInt32LE(i) === 0x06054b50) {
      end = i;
      break;
    }
  }
  if (end < 0) {
    throw new Error(`${file} is not a zip archive`);
  }
  const count = buffer.readUInt16LE(end + 10);
  let at = buffer.readUInt32LE(end + 16);
  const list = [];
  for (let n = 0; n < count; n++) {
    if (buffer.readUInt32LE(at) !== 0x02014b50) {
      throw new Error(`${file}: broken central directory`);
    }
    const nameLength = buffer.readUInt16LE(at + 28);
    const extraLength = buffer.readUInt16LE(at + 30);
    const commentLength = buffer.readUInt16LE(at + 32);
    list.push({
      name: buffer.toString("utf8", at + 46, at + 46 + nameLength),
      method: buffer.readUInt16LE(at + 10),
      compressedSize: buffer.readUInt32LE(at + 20),
      // The high 16 bits of the external attributes hold the Unix mode;
      // VS Code restores it when it installs the extension.
      mode: buffer.readUInt32LE(at + 38) >>> 16,
      localHeader: buffer.readUInt32LE(at + 42),
    });
    at += 46 + nameLength + extraLength + commentLength;
  }
  return list;
}

function contents(buffer, entry) {
  if (entry.compressedSize === 0xffffffff || entry.localHeader === 0xffffffff) {
    throw new Error(`${file}: ${entry.name} is a Zip64 entry, which this check does not read`);
  }
  const at = entry.localHeader;
  if (buffer.readUInt32LE(at) !== 0x04034b50) {
    throw new Error(`${file}: broken local header for ${entry.name}`);
  }
  const start = at + 30 + buffer.readUInt16LE(at + 26) + buffer.readUInt16LE(at + 28);
  const data = buffer.subarray(start, start + entry.compressedSize);
  if (entry.method === 0) {
    return data;
  }
  if (entry.method === 8) {
    return inflateRawSync(data);
  }
  throw new Error(`${file}: ${entry.name} uses zip method ${entry.method}`);
}

/** The platform an executable was built for, from its header, as a VS Code target's parts. */
function executablePlatform(bytes) {
  if (bytes.length >= 20 && bytes.readUInt32BE(0) === 0x7f454c46) {
    const machine = { 62: "x64", 183: "arm64", 40: "armhf" }[bytes.readUInt16LE(18)];
    return { os: "linux", arch: machine ?? `ELF machine ${bytes.readUInt16LE(18)}` };
  }
  if (bytes.length >= 64 && bytes.toString("latin1", 0, 2) === "MZ") {
    const pe = bytes.readUInt32LE(60);
    if (pe + 6 <= bytes.length && bytes.readUInt32BE(pe) === 0x50450000) {
      const machine = { 0x8664: "x64", 0xaa64: "arm64" }[bytes.readUInt16LE(pe + 4)];
      return { os: "win32", arch: machine ?? `PE machine ${bytes.readUInt16LE(pe + 4)}` };
    }
  }
  if (bytes.length >= 8 && bytes.readUInt32LE(0) === 0xfeedfacf) {
    const cpu = { 0x01000007: "x64", 0x0100000c: "arm64" }[bytes.readUInt32LE(4)];
    return { os: "darwin", arch: cpu ?? `Mach-O CPU ${bytes.readUInt32LE(4)}` };
  }
  return undefined;
}

/** A `key = "string"` in a `[section]` of a Cargo.toml (enough for `version`). */
function tomlString(text, section, key) {
  let inSection = false;
  for (const line of text.split(/\r?\n/)) {
    if (/^\s*\[/.test(line)) {
      inSection = line.trim() === `[${section}]`;
    } else if (inSection) {
      const match = new RegExp(`^\\s*${key}\\s*=\\s*"([^"]+)"`).exec(line);
      if (match) {
        return match[1];
      }
    }
  }
  return undefined;
}

/** The version `dqlint --version` must print: the crate's, which it takes from the workspace. */
function workspaceVersion() {
  const root = join(dirname(fileURLToPath(import.meta.url)), "../../..");
  const crate = readFileSync(join(root, "crates/dqlint/Cargo.toml"), "utf8");
  const version =
    tomlString(crate, "package", "version") ?? tomlString(readFileSync(join(root, "Cargo.toml"), "utf8"), "workspace.package", "version");
  if (version === undefined) {
    throw new Error(`no version in crates/dqlint/Cargo.toml [package] or Cargo.toml [workspace.package] under ${root}`);
  }
  return version;
}

const list = entries(zip);
const names = list.map((entry) => entry.name);
const problems = [];

const manifest = list.find((entry) => entry.name === "extension.vsixmanifest");
const target = manifest && /TargetPlatform="([^"]+)"/.exec(contents(zip, manifest).toString("utf8"))?.[1];
if (target === undefined) {
  problems.push("names no target platform (vsce package --target): the Marketplace would offer its binary to every platform");
}

const binaryName = `extension/server/${serverBinaryName(target ?? "")}`;
const required = [
  "extension/package.json",
  "extension/readme.md",
  "extension/out/extension.js",
  "extension/out/serverPath.js",
  "extension/out/settings.js",
  "extension/node_modules/vscode-languageclient/package.json",
  "extension/node_modules/vscode-languageclient/lib/node/main.js",
  binaryName,
];
const forbidden = [
  [/^extension\/src\//, "TypeScript sources"],
  [/^extension\/out\/test\//, "unit tests"],
  [/\.map$/, "source maps"],
  [/\.ts$/, "TypeScript files"],
  [/^extension\/node_modules\/(typescript|@types|@vscode\/vsce|\.bin)\//, "build tools"],
  [/^extension\/(tsconfig\.json|package-lock\.json|scripts\/)/, "build files"],
];
for (const name of required) {
  if (!names.includes(name)) {
    problems.push(`missing ${name}`);
  }
}
for (const name of names) {
  for (const [pattern, what] of forbidden) {
    if (pattern.test(name)) {
      problems.push(`holds ${what}: ${name}`);
    }
  }
  if (name.startsWith("extension/server/") && name !== binaryName) {
    problems.push(`holds ${name} beside ${binaryName}`);
  }
}

let serverNote = "";
const server = list.find((entry) => entry.name === binaryName);
if (server !== undefined && target !== undefined) {
  const executableBits = server.mode & 0o111;
  if (executableBits !== 0o111) {
    problems.push(
      `${binaryName} has mode ${server.mode === 0 ? "none" : (server.mode & 0o777).toString(8)}, not executable: ` +
        "VS Code installs it with that mode and could not start it",
    );
  }
  const bytes = contents(zip, server);
  const built = executablePlatform(bytes);
  const [os, arch] = target.split("-");
  const expectedOs = os === "alpine" ? "linux" : os;
  if (built === undefined) {
    problems.push(`${binaryName} is not an executable (no ELF, PE or Mach-O header)`);
  } else if (built.os !== expectedOs || built.arch !== arch) {
    problems.push(`${binaryName} is built for ${built.os}-${built.arch}, but the package is for ${target}`);
  } else if (target === hostTarget()) {
    const expected = `dqlint ${workspaceVersion()}`;
    const dir = mkdtempSync(join(tmpdir(), "check-vsix-"));
    try {
      const extracted = join(dir, serverBinaryName(target));
      writeFileSync(extracted, bytes);
      // Run it whatever its mode: the mode has its own check above.
      chmodSync(extracted, 0o755);
      const run = spawnSync(extracted, ["--version"], { encoding: "utf8", timeout: 30_000 });
      const printed = (run.stdout ?? "").trim().split("\n")[0];
      if (run.error !== undefined || run.status !== 0) {
        problems.push(`${binaryName} --version failed: ${run.error?.message ?? `exit ${run.status}`} ${run.stderr ?? ""}`.trim());
      } else if (printed !== expected) {
        problems.push(`${binaryName} --version printed "${printed}", expected "${expected}" (the workspace version)`);
      } else {
        serverNote = `${printed} (${(bytes.length / 1048576).toFixed(1)} MiB) for ${target}`;
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  } else {
    serverNote = `a dqlint for ${target} (not run: this machine is ${hostTarget() ?? `${process.platform}-${process.arch}`})`;
  }
}

if (problems.length > 0) {
  console.error(`${file}: ${problems.length} problem(s):\n  ${problems.join("\n  ")}`);
  process.exit(1);
}
console.log(`${file}: ${names.length} entries: the built extension, its runtime dependencies and ${serverNote}`);
