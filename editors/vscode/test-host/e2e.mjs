// The packaged extension in a real VS Code host: code-server (VS Code
// 1.100.3 in the browser) with the .vsix installed, driven by headless
// Chromium through puppeteer-core, on a scratch copy of fixtures/showcase.
//
//   node e2e.mjs --vsix dqlint-linux-x64.vsix --dqlint path/to/dqlint \
//                --code-server DIR [--out DIR]
//
// Checks, as a user would see them:
//   1. the server starts and the status bar's problem counts equal what
//      `dqlint lint --format json` reports for the same copy;
//   2. a hover on a finding shows the rule's documentation (the heading
//      `dqlint rule CODE` prints);
//   3. the quick fix of that finding applies, and once saved the counts
//      equal `dqlint lint` of the edited copy.
// Screenshots of the workbench at each step are kept in --out (default
// target/vscode-host). Expected values are computed from `dqlint lint` at
// run time: nothing is checked in that could drift.

import { execFileSync, spawn } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

import puppeteer from "puppeteer-core";

const here = dirname(fileURLToPath(import.meta.url));
const repo = resolve(here, "../../..");

function option(name, fallback) {
  const i = process.argv.indexOf(`--${name}`);
  if (i >= 0 && i + 1 < process.argv.length) return process.argv[i + 1];
  if (fallback !== undefined) return fallback;
  throw new Error(`e2e: --${name} is required`);
}

const vsix = resolve(option("vsix"));
const dqlint = resolve(option("dqlint"));
const codeServerDir = resolve(option("code-server"));
const outDir = resolve(option("out", join(repo, "target/vscode-host")));
const chromium = option("chromium", "/usr/bin/chromium");
const codeServer = join(codeServerDir, "node_modules/.bin/code-server");

// The finding whose hover and quick fix are checked.
const target = { file: "pipelines/bronze/order_items.yaml", code: "DQ105", fixed: "readMode: stream" };

const started = Date.now();
function log(message) {
  console.log(`[vscode-host ${((Date.now() - started) / 1000).toFixed(1)}s] ${message}`);
}

function lintCounts(project) {
  let stdout;
  try {
    stdout = execFileSync(dqlint, ["lint", project, "--format", "json", "--no-cache"], { encoding: "utf8" });
  } catch (error) {
    // Exit 1: findings. The report is still on stdout.
    if (error.status !== 1) throw error;
    stdout = error.stdout;
  }
  const report = JSON.parse(stdout);
  const s = report.summary;
  return { errors: s.errors, warnings: s.warnings, infos: s.infos, findings: report.diagnostics };
}

function freePort() {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      server.close(() => resolvePort(port));
    });
  });
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function waitFor(what, timeoutMs, probe) {
  const deadline = Date.now() + timeoutMs;
  let last;
  while (Date.now() < deadline) {
    last = await probe();
    if (last.ok) return last;
    await sleep(500);
  }
  throw new Error(`e2e: timed out waiting for ${what}; last seen: ${JSON.stringify(last)}`);
}

/** The status bar's problem counts, from the item's accessible label (e.g. "Errors: 32, Warnings: 14, Infos: 1"). */
async function problemCounts(page) {
  return page.evaluate(() => {
    const item = document.getElementById("status.problems");
    if (item === null) return null;
    const anchor = item.querySelector("a") ?? item;
    const label = anchor.getAttribute("aria-label") ?? anchor.textContent ?? "";
    const number = (word) => {
      const m = new RegExp(`${word}s?:\\s*(\\d+)`, "i").exec(label);
      return m ? Number(m[1]) : 0;
    };
    return { label, errors: number("Error"), warnings: number("Warning"), infos: number("Info") };
  });
}

async function command(page, title) {
  await page.keyboard.press("F1");
  await page.waitForSelector(".quick-input-widget input", { visible: true });
  await page.keyboard.type(`>${title}`.replace(/^>>/, ">"));
  await sleep(400);
  await page.keyboard.press("Enter");
  await sleep(400);
}

async function openFile(page, relative) {
  await page.keyboard.down("Control");
  await page.keyboard.press("KeyP");
  await page.keyboard.up("Control");
  await page.waitForSelector(".quick-input-widget input", { visible: true });
  await page.keyboard.type(relative);
  await sleep(1000);
  await page.keyboard.press("Enter");
  await page.waitForFunction(
    (name) => [...document.querySelectorAll(".tab.active")].some((t) => t.textContent.includes(name)),
    { timeout: 20000 },
    relative.split("/").pop(),
  );
  await sleep(500);
}

async function goToPosition(page, line, column) {
  await page.keyboard.down("Control");
  await page.keyboard.press("KeyG");
  await page.keyboard.up("Control");
  await page.waitForSelector(".quick-input-widget input", { visible: true });
  await page.keyboard.type(`${line}:${column}`);
  await sleep(300);
  await page.keyboard.press("Enter");
  await sleep(300);
}

async function main() {
  for (const [what, file] of [["the .vsix", vsix], ["dqlint", dqlint], ["code-server", codeServer], ["chromium", chromium]]) {
    if (!existsSync(file)) throw new Error(`e2e: ${what} not found at ${file}`);
  }
  rmSync(outDir, { recursive: true, force: true });
  mkdirSync(outDir, { recursive: true });
  const scratch = mkdtempSync(join(tmpdir(), "dqlint-vscode-"));
  const project = join(scratch, "showcase");
  cpSync(join(repo, "fixtures/showcase"), project, { recursive: true });
  const data = join(scratch, "data");
  mkdirSync(join(data, "user/User"), { recursive: true });
  writeFileSync(
    join(data, "user/User/settings.json"),
    JSON.stringify({
      "security.workspace.trust.enabled": false,
      "workbench.startupEditor": "none",
      "workbench.tips.enabled": false,
      "telemetry.telemetryLevel": "off",
      "extensions.autoUpdate": false,
      "extensions.autoCheckUpdates": false,
      "update.mode": "none",
      "editor.hover.delay": 100,
    }),
  );

  const expected = lintCounts(project);
  log(`dqlint lint: ${expected.errors} errors, ${expected.warnings} warnings, ${expected.infos} infos`);
  const finding = expected.findings.find((f) => f.code === target.code && f.file === target.file);
  if (finding === undefined) throw new Error(`e2e: dqlint lint reports no ${target.code} in ${target.file}`);
  const ruleHeading = execFileSync(dqlint, ["rule", target.code], { encoding: "utf8" }).split("\n")[0].replace(/^# /, "");

  const common = ["--user-data-dir", join(data, "user"), "--extensions-dir", join(data, "ext")];
  log(`installing ${vsix}`);
  execFileSync(codeServer, ["--install-extension", vsix, ...common], {
    stdio: "inherit",
    env: { ...process.env, XDG_CONFIG_HOME: join(scratch, "config"), XDG_DATA_HOME: join(scratch, "share") },
  });

  const port = await freePort();
  const server = spawn(
    codeServer,
    ["--auth", "none", "--bind-addr", `127.0.0.1:${port}`, "--disable-telemetry", "--disable-update-check", ...common, project],
    {
      stdio: ["ignore", "pipe", "pipe"],
      detached: true,
      // code-server writes its config.yaml there: keep it in the scratch folder.
      env: { ...process.env, XDG_CONFIG_HOME: join(scratch, "config"), XDG_DATA_HOME: join(scratch, "share") },
    },
  );
  let serverLog = "";
  server.stdout.on("data", (d) => (serverLog += d));
  server.stderr.on("data", (d) => (serverLog += d));

  let browser;
  try {
    await waitFor("code-server to listen", 60000, async () => {
      try {
        const response = await fetch(`http://127.0.0.1:${port}/healthz`);
        return { ok: response.ok, status: response.status };
      } catch (error) {
        return { ok: false, error: String(error), serverLog: serverLog.slice(-500) };
      }
    });
    log(`code-server on port ${port}`);

    browser = await puppeteer.launch({
      executablePath: chromium,
      headless: true,
      args: ["--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu", "--window-size=1600,1000"],
      defaultViewport: { width: 1600, height: 1000 },
    });
    const page = await browser.newPage();
    await page.goto(`http://127.0.0.1:${port}/?folder=${encodeURIComponent(project)}`, { waitUntil: "domcontentloaded" });
    await page.waitForSelector(".monaco-workbench", { timeout: 120000 });
    log("workbench up");

    // 1. The server's diagnostics, counted as the status bar shows them.
    const counts = await waitFor("the problem counts of dqlint lint", 120000, async () => {
      const c = await problemCounts(page);
      return {
        ok: c !== null && c.errors === expected.errors && c.warnings === expected.warnings && c.infos === expected.infos,
        seen: c,
      };
    });
    log(`status bar: ${counts.seen.label}`);
    await page.screenshot({ path: join(outDir, "1-problems.png") });

    // 2. Hover on the finding shows its rule's documentation.
    await openFile(page, target.file);
    await goToPosition(page, finding.range.start.line, finding.range.start.column + 1);
    await command(page, "Show or Focus Hover");
    const hover = await waitFor("a hover with the rule doc", 20000, async () => {
      const text = await page.evaluate(() =>
        [...document.querySelectorAll(".monaco-hover")].map((h) => h.innerText).join("\n"),
      );
      // The server's hover (not VS Code's own line for the diagnostic): the
      // rule's name and the sections of its documentation.
      const name = ruleHeading.replace(/^\S+ \((.*)\)$/, "$1");
      return { ok: text.includes(name) && text.includes("What it does") && text.includes("Why is this bad?"), text };
    });
    log(`hover shows ${ruleHeading}`);
    await page.screenshot({ path: join(outDir, "2-hover.png") });
    await page.keyboard.press("Escape");

    // 3. Its quick fix applies; saved, the counts follow dqlint lint.
    await goToPosition(page, finding.range.start.line, finding.range.start.column + 1);
    await page.keyboard.down("Control");
    await page.keyboard.press("Period");
    await page.keyboard.up("Control");
    const fixTitle = await waitFor("the quick fix menu", 20000, async () => {
      const items = await page.evaluate(() =>
        [...document.querySelectorAll(".action-widget .monaco-list-row")].map((r) => r.innerText),
      );
      return { ok: items.some((t) => t.includes("stream")), items };
    });
    log(`quick fixes offered: ${JSON.stringify(fixTitle.items)}`);
    await page.screenshot({ path: join(outDir, "3-quick-fix.png") });
    await page.evaluate(() => {
      const row = [...document.querySelectorAll(".action-widget .monaco-list-row")].find((r) =>
        r.innerText.includes("stream"),
      );
      row.dispatchEvent(new MouseEvent("mousedown", { bubbles: true }));
      row.dispatchEvent(new MouseEvent("mouseup", { bubbles: true }));
      row.click();
    });
    await sleep(1000);
    await page.keyboard.down("Control");
    await page.keyboard.press("KeyS");
    await page.keyboard.up("Control");
    const onDisk = join(project, target.file);
    await waitFor("the fixed file on disk", 20000, async () => {
      const text = readFileSync(onDisk, "utf8");
      return { ok: text.split("\n")[finding.range.start.line - 1].includes(target.fixed), line: text.split("\n")[finding.range.start.line - 1] };
    });
    const after = lintCounts(project);
    if (after.errors + after.warnings + after.infos >= expected.errors + expected.warnings + expected.infos) {
      throw new Error("e2e: the quick fix removed no finding according to dqlint lint");
    }
    const fixedCounts = await waitFor("the counts of dqlint lint after the fix", 60000, async () => {
      const c = await problemCounts(page);
      return {
        ok: c !== null && c.errors === after.errors && c.warnings === after.warnings && c.infos === after.infos,
        seen: c,
      };
    });
    log(`after the quick fix: ${fixedCounts.seen.label}`);
    await page.screenshot({ path: join(outDir, "4-fixed.png") });
    console.log("vscode-host: 3 passed, 0 failed");
  } catch (error) {
    if (browser !== undefined) {
      const [page] = await browser.pages();
      if (page !== undefined) await page.screenshot({ path: join(outDir, "failure.png") }).catch(() => {});
    }
    writeFileSync(join(outDir, "code-server.log"), serverLog);
    throw error;
  } finally {
    if (browser !== undefined) await browser.close().catch(() => {});
    try {
      process.kill(-server.pid, "SIGTERM");
    } catch {
      // already gone
    }
    rmSync(scratch, { recursive: true, force: true });
  }
}

main().catch((error) => {
  console.error(error.stack ?? String(error));
  process.exit(1);
});
