// Checks what a packaged .vsix holds: the built extension and its runtime
// dependencies, and none of the sources, tests, source maps or build tools.
//   node scripts/check-vsix.mjs dqlint.vsix
// Reads the zip's central directory itself (no unzip needed on CI).

import { readFileSync } from "node:fs";

const file = process.argv[2];
const zip = readFileSync(file);

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
  const names = [];
  for (let n = 0; n < count; n++) {
    if (buffer.readUInt32LE(at) !== 0x02014b50) {
      throw new Error(`${file}: broken central directory`);
    }
    const nameLength = buffer.readUInt16LE(at + 28);
    const extraLength = buffer.readUInt16LE(at + 30);
    const commentLength = buffer.readUInt16LE(at + 32);
    names.push(buffer.toString("utf8", at + 46, at + 46 + nameLength));
    at += 46 + nameLength + extraLength + commentLength;
  }
  return names;
}

const names = entries(zip);
const required = [
  "extension/package.json",
  "extension/readme.md",
  "extension/out/extension.js",
  "extension/out/serverPath.js",
  "extension/out/settings.js",
  "extension/node_modules/vscode-languageclient/package.json",
  "extension/node_modules/vscode-languageclient/lib/node/main.js",
];
const forbidden = [
  [/^extension\/src\//, "TypeScript sources"],
  [/^extension\/out\/test\//, "unit tests"],
  [/\.map$/, "source maps"],
  [/\.ts$/, "TypeScript files"],
  [/^extension\/node_modules\/(typescript|@types|@vscode\/vsce|\.bin)\//, "build tools"],
  [/^extension\/(tsconfig\.json|package-lock\.json|scripts\/)/, "build files"],
];
const problems = [];
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
}
if (problems.length > 0) {
  console.error(`${file}: ${problems.length} problem(s):\n  ${problems.join("\n  ")}`);
  process.exit(1);
}
console.log(`${file}: ${names.length} entries, built extension and runtime dependencies only`);
