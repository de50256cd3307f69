// Which `dqlint` executable the extension starts. Kept free of the `vscode`
// module so it can be unit-tested with plain node.

import * as fs from "fs";
import * as os from "os";
import * as path from "path";

export interface ResolveInput {
  /** The `dqlint.server.path` setting (may be empty). */
  configured: string | undefined;
  /** Workspace folders (file system paths), first one first. */
  workspaceFolders: string[];
  /** The extension's install folder (a bundled binary lives in `server/`). */
  extensionPath: string;
  /** Environment (`PATH`, `PATHEXT`, `HOME`). */
  env: NodeJS.ProcessEnv;
  platform: NodeJS.Platform;
  /** File test, replaceable in tests. */
  isExecutable?: (file: string) => boolean;
}

export type Resolution =
  | { kind: "found"; path: string; source: "setting" | "bundled" | "PATH" }
  | { kind: "missing"; message: string };

function defaultIsExecutable(file: string): boolean {
  try {
    const stat = fs.statSync(file);
    if (!stat.isFile()) {
      return false;
    }
    if (process.platform === "win32") {
      return true;
    }
    fs.accessSync(file, fs.constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

function binaryName(platform: NodeJS.Platform): string {
  return platform === "win32" ? "dqlint.exe" : "dqlint";
}

function pathApi(platform: NodeJS.Platform): path.PlatformPath {
  return platform === "win32" ? path.win32 : path.posix;
}

/** Expands `~` and `${workspaceFolder}`, and anchors a relative path at the first workspace folder. */
export function expandConfigured(configured: string, input: ResolveInput): string {
  const p = pathApi(input.platform);
  let value = configured.trim();
  const home = input.env.HOME ?? input.env.USERPROFILE ?? os.homedir();
  if (value === "~" || value.startsWith("~/") || value.startsWith("~\\")) {
    value = p.join(home, value.slice(1));
  }
  const folder = input.workspaceFolders[0];
  if (folder !== undefined) {
    value = value.split("${workspaceFolder}").join(folder);
  }
  if (!p.isAbsolute(value) && folder !== undefined && (value.includes("/") || value.includes("\\"))) {
    value = p.join(folder, value);
  }
  return value;
}

/** Looks a bare command name up on `PATH` (with `PATHEXT` on Windows). */
export function searchPath(name: string, input: ResolveInput): string | undefined {
  const isExecutable = input.isExecutable ?? defaultIsExecutable;
  const p = pathApi(input.platform);
  const separator = input.platform === "win32" ? ";" : ":";
  const pathValue = input.env.PATH ?? input.env.Path ?? "";
  const extensions =
    input.platform === "win32" && p.extname(name) === ""
      ? (input.env.PATHEXT ?? ".EXE;.CMD;.BAT").split(";").filter((e) => e !== "")
      : [""];
  for (const dir of pathValue.split(separator)) {
    if (dir === "") {
      continue;
    }
    for (const ext of extensions) {
      const candidate = p.join(dir, name + ext);
      if (isExecutable(candidate)) {
        return candidate;
      }
    }
  }
  return undefined;
}

/**
 * The setting wins (and must point at something runnable); then a binary
 * bundled with the extension; then `dqlint` on `PATH`.
 */
export function resolveServerPath(input: ResolveInput): Resolution {
  const isExecutable = input.isExecutable ?? defaultIsExecutable;
  const p = pathApi(input.platform);
  const configured = input.configured?.trim() ?? "";
  if (configured !== "") {
    const expanded = expandConfigured(configured, input);
    if (!p.isAbsolute(expanded) && !expanded.includes("/") && !expanded.includes("\\")) {
      const found = searchPath(expanded, input);
      if (found !== undefined) {
        return { kind: "found", path: found, source: "setting" };
      }
      return { kind: "missing", message: `dqlint.server.path is "${configured}", which is not on PATH.` };
    }
    if (isExecutable(expanded)) {
      return { kind: "found", path: expanded, source: "setting" };
    }
    return {
      kind: "missing",
      message: `dqlint.server.path is "${configured}", but ${expanded} is not an executable file.`,
    };
  }
  const bundled = p.join(input.extensionPath, "server", binaryName(input.platform));
  if (isExecutable(bundled)) {
    return { kind: "found", path: bundled, source: "bundled" };
  }
  const onPath = searchPath(binaryName(input.platform), input);
  if (onPath !== undefined) {
    return { kind: "found", path: onPath, source: "PATH" };
  }
  return {
    kind: "missing",
    message:
      "Cannot find the dqlint executable: it is not bundled with this extension and not on PATH. " +
      "Install it (cargo install --path crates/dqlint) or set dqlint.server.path.",
  };
}
