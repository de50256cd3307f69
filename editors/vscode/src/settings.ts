// VS Code settings -> the server's `initializationOptions`. Kept free of the
// `vscode` module so it can be unit-tested with plain node.

/** What `dqlint server` reads (see crates/dqlint-lsp/src/settings.rs). */
export interface ServerSettings {
  envs: string[];
  select: string[];
  ignore: string[];
}

/**
 * Reads `dqlint.envs`, `dqlint.select` and `dqlint.ignore` through `read`
 * (a `WorkspaceConfiguration.get`). A value of the wrong type (a string
 * typed into settings.json where a list belongs) would make the server
 * ignore all settings: it becomes the default instead, and blank entries
 * are dropped.
 */
export function serverSettings(read: (key: string) => unknown): ServerSettings {
  const list = (key: string): string[] => {
    const value = read(key);
    if (typeof value === "string") {
      return value.trim() === "" ? [] : [value.trim()];
    }
    if (!Array.isArray(value)) {
      return [];
    }
    return value
      .filter((item): item is string => typeof item === "string")
      .map((item) => item.trim())
      .filter((item) => item !== "");
  };
  return { envs: list("envs"), select: list("select"), ignore: list("ignore") };
}
