// VS Code client for `dqlint server` (LSP over stdio).

import * as vscode from "vscode";
import {
  LanguageClient,
  LanguageClientOptions,
  RevealOutputChannelOn,
  ServerOptions,
  TransportKind,
} from "vscode-languageclient/node";

import { claims, MARKERS } from "./activation";
import { resolveServerPath } from "./serverPath";
import { serverSettings, ServerSettings } from "./settings";

let client: LanguageClient | undefined;
let output: vscode.LogOutputChannel | undefined;

function settings(): ServerSettings {
  const config = vscode.workspace.getConfiguration("dqlint");
  return serverSettings((key) => config.get<unknown>(key));
}

function createClient(context: vscode.ExtensionContext): LanguageClient | undefined {
  const resolution = resolveServerPath({
    configured: vscode.workspace.getConfiguration("dqlint").get<string>("server.path"),
    workspaceFolders: (vscode.workspace.workspaceFolders ?? []).map((f) => f.uri.fsPath),
    extensionPath: context.extensionPath,
    env: process.env,
    platform: process.platform,
  });
  if (resolution.kind === "missing") {
    output?.error(resolution.message);
    void vscode.window.showErrorMessage(resolution.message, "Open settings").then((choice) => {
      if (choice === "Open settings") {
        void vscode.commands.executeCommand("workbench.action.openSettings", "dqlint.server.path");
      }
    });
    return undefined;
  }
  output?.info(`Starting ${resolution.path} server (from ${resolution.source})`);

  // vscode-languageclient appends `--stdio` for this transport; `dqlint
  // server` accepts it (shared/spec/lsp.md).
  const serverOptions: ServerOptions = {
    command: resolution.path,
    args: ["server"],
    transport: TransportKind.stdio,
  };
  const clientOptions: LanguageClientOptions = {
    // Every file an LHP project may hold: the server ignores files outside
    // a folder with lhp.yaml.
    documentSelector: [
      { scheme: "file", language: "yaml" },
      { scheme: "file", language: "json" },
      { scheme: "file", language: "sql" },
      { scheme: "file", language: "python" },
      { scheme: "file", pattern: "**/*.{yaml,yml,json,sql,py}" },
    ],
    initializationOptions: settings(),
    // Sends `workspace/didChangeConfiguration` with `{ dqlint: {...} }`.
    synchronize: { configurationSection: "dqlint" },
    outputChannel: output,
    // The server's stderr lands in this channel: show it when it fails.
    revealOutputChannelOn: RevealOutputChannelOn.Error,
    initializationFailedHandler: (error) => {
      reportFailure(`The dqlint server failed to initialize: ${errorText(error)}`);
      return false;
    },
  };
  return new LanguageClient("dqlint", "dqlint", serverOptions, clientOptions);
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** Logs `message`, brings the output channel (with the server's own stderr) to the front and says so in a toast. */
function reportFailure(message: string): void {
  output?.error(message);
  output?.show(true);
  void vscode.window.showErrorMessage(message, "Show output").then((choice) => {
    if (choice === "Show output") {
      output?.show();
    }
  });
}

async function start(context: vscode.ExtensionContext): Promise<void> {
  client = createClient(context);
  if (client !== undefined) {
    try {
      await client.start();
    } catch (error) {
      reportFailure(`The dqlint server did not start: ${errorText(error)}`);
      client = undefined;
    }
  }
}

async function stop(): Promise<void> {
  const running = client;
  client = undefined;
  if (running !== undefined) {
    await running.stop();
  }
}

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  output = vscode.window.createOutputChannel("dqlint", { log: true });
  context.subscriptions.push(
    output,
    vscode.commands.registerCommand("dqlint.restartServer", async () => {
      await stop();
      await start(context);
    }),
    vscode.commands.registerCommand("dqlint.showOutput", () => output?.show()),
    vscode.workspace.onDidChangeConfiguration(async (event) => {
      // A different executable needs a new process; other settings travel
      // through didChangeConfiguration.
      if (event.affectsConfiguration("dqlint.server.path")) {
        await stop();
        await start(context);
      }
    }),
  );
  // A project marker in the workspace: start now. Else (activated by a
  // Python or YAML document) wait for a document a dialect claims.
  const marked = await vscode.workspace.findFiles(MARKERS, "**/node_modules/**", 1);
  const claimed = (doc: vscode.TextDocument) =>
    doc.uri.scheme === "file" && claims(doc.languageId, doc.fileName, doc.getText());
  if (marked.length > 0 || vscode.workspace.textDocuments.some(claimed)) {
    await start(context);
    return;
  }
  output.info("No LHP, DQX or pipeline file yet: the server starts with the first one opened");
  const waiting = vscode.workspace.onDidOpenTextDocument(async (doc) => {
    if (client === undefined && claimed(doc)) {
      waiting.dispose();
      await start(context);
    }
  });
  context.subscriptions.push(waiting);
}

export async function deactivate(): Promise<void> {
  await stop();
}
