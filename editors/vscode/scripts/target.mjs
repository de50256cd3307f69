// The VS Code platform a .vsix is packaged for (`vsce package --target`).
// A .vsix that bundles a native binary must name its platform, or the
// Marketplace would offer a Linux binary to Windows and macOS users too.
// Shared by bundle-server.mjs, package.mjs and check-vsix.mjs.

/** Every platform VS Code publishes extensions for. */
export const TARGETS = [
  "win32-x64",
  "win32-arm64",
  "linux-x64",
  "linux-arm64",
  "linux-armhf",
  "alpine-x64",
  "alpine-arm64",
  "darwin-x64",
  "darwin-arm64",
];

/** `DQLINT_VSCODE_TARGET` when set, else the platform this machine runs. */
export function packageTarget(env = process.env) {
  const requested = env.DQLINT_VSCODE_TARGET?.trim();
  if (requested) {
    if (!TARGETS.includes(requested)) {
      throw new Error(`DQLINT_VSCODE_TARGET=${requested} is not a VS Code platform; use one of ${TARGETS.join(", ")}`);
    }
    return requested;
  }
  const host = hostTarget();
  if (host === undefined) {
    throw new Error(
      `no VS Code platform for ${process.platform}-${process.arch}; set DQLINT_VSCODE_TARGET to one of ${TARGETS.join(", ")}`,
    );
  }
  return host;
}

/** The VS Code platform of this machine, or undefined when VS Code has none. */
export function hostTarget() {
  const arch = { x64: "x64", arm64: "arm64", arm: "armhf" }[process.arch];
  let os = process.platform;
  if (os === "linux" && !process.report.getReport().header.glibcVersionRuntime) {
    os = "alpine"; // musl libc
  }
  const target = `${os}-${arch}`;
  return TARGETS.includes(target) ? target : undefined;
}

/** The executable's name in `server/` for a target (`serverPath.ts` looks for it). */
export function serverBinaryName(target) {
  return target.startsWith("win32-") ? "dqlint.exe" : "dqlint";
}
