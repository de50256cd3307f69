// Server path resolution, without VS Code: `node --test out/test/`.

import { strict as assert } from "assert";
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "fs";
import { tmpdir } from "os";
import { join } from "path";
import { test } from "node:test";

import { expandConfigured, resolveServerPath, ResolveInput, searchPath } from "../serverPath";

function input(overrides: Partial<ResolveInput>, executables: string[]): ResolveInput {
  return {
    configured: "",
    workspaceFolders: ["/work/project"],
    extensionPath: "/ext",
    env: { PATH: "/usr/local/bin:/usr/bin", HOME: "/home/me" },
    platform: "linux",
    isExecutable: (file) => executables.includes(file),
    ...overrides,
  };
}

test("the setting wins over the bundled binary and PATH", () => {
  const found = resolveServerPath(
    input({ configured: "/opt/dqlint/bin/dqlint" }, ["/opt/dqlint/bin/dqlint", "/ext/server/dqlint", "/usr/bin/dqlint"]),
  );
  assert.deepEqual(found, { kind: "found", path: "/opt/dqlint/bin/dqlint", source: "setting" });
});

test("a setting that points nowhere is an error, not a silent fallback", () => {
  const missing = resolveServerPath(input({ configured: "/nope/dqlint" }, ["/usr/bin/dqlint"]));
  assert.equal(missing.kind, "missing");
  assert.match(missing.kind === "missing" ? missing.message : "", /\/nope\/dqlint/);
});

test("~ and ${workspaceFolder} expand; relative paths start at the workspace", () => {
  const base = input({}, []);
  assert.equal(expandConfigured("~/bin/dqlint", base), "/home/me/bin/dqlint");
  assert.equal(expandConfigured("${workspaceFolder}/target/debug/dqlint", base), "/work/project/target/debug/dqlint");
  assert.equal(expandConfigured("target/release/dqlint", base), "/work/project/target/release/dqlint");
  const found = resolveServerPath(input({ configured: "./target/debug/dqlint" }, ["/work/project/target/debug/dqlint"]));
  assert.deepEqual(found, { kind: "found", path: "/work/project/target/debug/dqlint", source: "setting" });
});

test("a bare command name in the setting is looked up on PATH", () => {
  const found = resolveServerPath(input({ configured: "dqlint-nightly" }, ["/usr/bin/dqlint-nightly"]));
  assert.deepEqual(found, { kind: "found", path: "/usr/bin/dqlint-nightly", source: "setting" });
});

test("without a setting: the bundled binary, then PATH in order", () => {
  assert.deepEqual(resolveServerPath(input({}, ["/ext/server/dqlint", "/usr/bin/dqlint"])), {
    kind: "found",
    path: "/ext/server/dqlint",
    source: "bundled",
  });
  // VS Code reports an unset setting as undefined; blanks count as unset.
  for (const configured of [undefined, "  "]) {
    assert.deepEqual(resolveServerPath(input({ configured }, ["/ext/server/dqlint", "/usr/bin/dqlint"])), {
      kind: "found",
      path: "/ext/server/dqlint",
      source: "bundled",
    });
  }
  assert.deepEqual(resolveServerPath(input({}, ["/usr/local/bin/dqlint", "/usr/bin/dqlint"])), {
    kind: "found",
    path: "/usr/local/bin/dqlint",
    source: "PATH",
  });
  const missing = resolveServerPath(input({}, []));
  assert.equal(missing.kind, "missing");
  assert.match(missing.kind === "missing" ? missing.message : "", /dqlint\.server\.path/);
});

test("Windows: .exe names, PATHEXT and ; separators", () => {
  const windows = input(
    {
      platform: "win32",
      workspaceFolders: ["C:\\work"],
      extensionPath: "C:\\ext",
      env: { Path: "C:\\tools;C:\\cargo\\bin", PATHEXT: ".COM;.EXE" },
    },
    [],
  );
  // Windows file names are case-insensitive: PATHEXT's `.EXE` finds `dqlint.exe`.
  windows.isExecutable = (f) => f.toLowerCase() === "c:\\cargo\\bin\\dqlint.exe";
  assert.deepEqual(resolveServerPath(windows), { kind: "found", path: "C:\\cargo\\bin\\dqlint.exe", source: "PATH" });
  assert.equal(searchPath("dqlint", windows), "C:\\cargo\\bin\\dqlint.EXE");
  const bundled = { ...windows, isExecutable: (f: string) => f === "C:\\ext\\server\\dqlint.exe" };
  assert.deepEqual(resolveServerPath(bundled), { kind: "found", path: "C:\\ext\\server\\dqlint.exe", source: "bundled" });
});

// The real file test, not a stub: a .vsix whose server/dqlint lost its
// executable bit (scripts/check-vsix.mjs guards against that) must not be
// started, and PATH takes over.
test("the bundled binary counts only when it is an executable file", { skip: process.platform === "win32" }, () => {
  const root = mkdtempSync(join(tmpdir(), "dqlint-server-path-"));
  try {
    const extensionPath = join(root, "ext");
    const bin = join(root, "bin");
    mkdirSync(join(extensionPath, "server"), { recursive: true });
    mkdirSync(bin);
    const bundled = join(extensionPath, "server", "dqlint");
    const onPath = join(bin, "dqlint");
    writeFileSync(bundled, "#!/bin/sh\n", { mode: 0o644 });
    writeFileSync(onPath, "#!/bin/sh\n", { mode: 0o755 });
    const real: ResolveInput = {
      configured: "",
      workspaceFolders: [],
      extensionPath,
      env: { PATH: bin },
      platform: process.platform,
    };
    assert.deepEqual(resolveServerPath(real), { kind: "found", path: onPath, source: "PATH" });
    chmodSync(bundled, 0o755);
    assert.deepEqual(resolveServerPath(real), { kind: "found", path: bundled, source: "bundled" });
    // A folder named like the binary is not one.
    rmSync(bundled);
    mkdirSync(bundled);
    assert.deepEqual(resolveServerPath(real), { kind: "found", path: onPath, source: "PATH" });
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});
