//! The `LanguageServer` implementation: protocol plumbing only; the work is
//! in [`crate::workspace`] and [`crate::handlers`].

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use serde_json::Value;
use tower_lsp_server::jsonrpc::{Error, ErrorCode, Result};
use tower_lsp_server::ls_types::*;
use tower_lsp_server::{Client, LanguageServer};

use crate::convert::{uri_to_path, UriMap};
use crate::documents::Document;
use crate::handlers::{
    code_action, completion, definition, document_link, document_symbol, folding_range, hover,
    inlay_hint, references, rename, workspace_symbol,
};
use crate::settings::Settings;
use crate::workspace::{lock, panic_message, Snapshot, Workspace};

/// More files changed on disk in one notification than this, in one
/// project, and the project is loaded again instead of re-linted per file.
const MANY_CHANGES: usize = 16;

pub struct Backend {
    workspace: Arc<Workspace>,
    /// Set by `shutdown`; `exit` without it ends with status 1.
    shutdown: Arc<AtomicBool>,
    init: std::sync::Mutex<Init>,
}

#[derive(serde::Deserialize)]
pub struct InvalidMessage {
    code: i64,
    reason: String,
}

#[derive(Default)]
struct Init {
    folders: Vec<PathBuf>,
    watch_dynamically: bool,
}

impl Backend {
    pub fn new(client: Client, shutdown: Arc<AtomicBool>) -> Backend {
        Backend {
            workspace: Arc::new(Workspace::new(client)),
            shutdown,
            init: Default::default(),
        }
    }

    fn client(&self) -> &Client {
        &self.workspace.client
    }

    async fn log(&self, kind: MessageType, message: String) {
        self.client().log_message(kind, message).await;
    }

    /// The model and findings of the project holding `uri`, with every
    /// edit in; `whole` when the request reads more of the project than the
    /// file itself (references, definitions).
    async fn snapshot_for(&self, uri: &Uri, whole: bool) -> Option<(PathBuf, Arc<Snapshot>)> {
        let path = uri_to_path(uri)?;
        let project = self.workspace.project_of(&path)?;
        let snapshot = self
            .workspace
            .fresh_snapshot(&project, &path, whole)
            .await?;
        Some((path, snapshot))
    }

    /// Runs a request's computation; a panic becomes an internal error for
    /// this request only.
    async fn guarded<T>(&self, method: &str, work: impl FnOnce() -> T) -> Result<T> {
        match catch_unwind(AssertUnwindSafe(work)) {
            Ok(value) => Ok(value),
            Err(panic) => {
                let reason = panic_message(panic.as_ref());
                self.log(
                    MessageType::ERROR,
                    format!("dqlint: internal error in {method}: {reason}"),
                )
                .await;
                Err(Error::internal_error())
            }
        }
    }

    fn apply_settings(&self, value: Option<&Value>) -> Option<String> {
        match Settings::from_value(value) {
            Ok(settings) => {
                *lock(&self.workspace.settings) = settings;
                None
            }
            Err(message) => Some(format!("dqlint: {message}")),
        }
    }

    /// A frame the input guard could not pass on (see [`crate::framing`]):
    /// answered with its JSON-RPC error; logged when it was a notification.
    pub async fn invalid_message(&self, params: InvalidMessage) -> Result<()> {
        // An unknown `$/` request (MethodNotFound) is no malformed message.
        if params.code != ErrorCode::MethodNotFound.code() {
            self.log(
                MessageType::WARNING,
                format!("dqlint: ignored a malformed message: {}", params.reason),
            )
            .await;
        }
        Err(Error {
            code: ErrorCode::from(params.code),
            message: params.reason.into(),
            data: None,
        })
    }

    /// Re-lints at once what the edit of `path` affects (see
    /// [`crate::incremental`]), or schedules a load of the project when
    /// that cannot be done (a new file, `lhp.yaml`, `dqlint.toml`).
    fn edited(&self, path: &std::path::Path) {
        let Some(project) = self.workspace.project_of(path) else {
            return;
        };
        let workspace = self.workspace.clone();
        let path = path.to_path_buf();
        let ticket = project.edit(&path);
        tokio::spawn(async move {
            if !workspace.relint_edit(&project, &path, Some(ticket)).await {
                workspace.schedule(project);
            }
        });
    }

    /// A file not open in the editor changed on disk: an edit like the
    /// editor's when the project knows the file.
    fn changed_on_disk(&self, path: &std::path::Path) {
        let Some(project) = self.workspace.project_of(path) else {
            return;
        };
        match dqlint_project::files::read_from_disk(path) {
            Ok(text) => {
                project.saw_on_disk(path.to_path_buf(), text);
                self.edited(path);
            }
            Err(_) => self.workspace.schedule(project),
        }
    }
}

impl LanguageServer for Backend {
    async fn initialize(&self, params: InitializeParams) -> Result<InitializeResult> {
        let mut folders: Vec<PathBuf> = params
            .workspace_folders
            .iter()
            .flatten()
            .filter_map(|f| uri_to_path(&f.uri))
            .collect();
        #[allow(deprecated)] // Older clients send only `rootUri`.
        if folders.is_empty() {
            folders.extend(params.root_uri.as_ref().and_then(uri_to_path));
        }
        let watch_dynamically = params
            .capabilities
            .workspace
            .as_ref()
            .and_then(|w| w.did_change_watched_files.as_ref())
            .and_then(|w| w.dynamic_registration)
            .unwrap_or(false);
        *lock(&self.init) = Init {
            folders,
            watch_dynamically,
        };
        let warning = self.apply_settings(params.initialization_options.as_ref());
        if let Some(warning) = warning {
            self.log(MessageType::WARNING, warning).await;
        }
        Ok(InitializeResult {
            server_info: Some(ServerInfo {
                name: "dqlint".into(),
                version: Some(env!("CARGO_PKG_VERSION").into()),
            }),
            capabilities: ServerCapabilities {
                text_document_sync: Some(TextDocumentSyncCapability::Options(
                    TextDocumentSyncOptions {
                        open_close: Some(true),
                        change: Some(TextDocumentSyncKind::INCREMENTAL),
                        ..TextDocumentSyncOptions::default()
                    },
                )),
                hover_provider: Some(HoverProviderCapability::Simple(true)),
                code_action_provider: Some(CodeActionProviderCapability::Options(
                    CodeActionOptions {
                        code_action_kinds: Some(vec![
                            CodeActionKind::QUICKFIX,
                            code_action::fix_all_kind(),
                        ]),
                        ..CodeActionOptions::default()
                    },
                )),
                document_symbol_provider: Some(OneOf::Left(true)),
                definition_provider: Some(OneOf::Left(true)),
                references_provider: Some(OneOf::Left(true)),
                workspace: Some(WorkspaceServerCapabilities {
                    workspace_folders: Some(WorkspaceFoldersServerCapabilities {
                        supported: Some(true),
                        change_notifications: Some(OneOf::Left(true)),
                    }),
                    file_operations: None,
                }),
                completion_provider: Some(CompletionOptions {
                    trigger_characters: Some(vec!["{".into(), ":".into()]),
                    ..CompletionOptions::default()
                }),
                folding_range_provider: Some(FoldingRangeProviderCapability::Simple(true)),
                document_link_provider: Some(DocumentLinkOptions {
                    resolve_provider: Some(false),
                    work_done_progress_options: WorkDoneProgressOptions::default(),
                }),
                inlay_hint_provider: Some(OneOf::Left(true)),
                workspace_symbol_provider: Some(OneOf::Left(true)),
                rename_provider: Some(OneOf::Right(RenameOptions {
                    prepare_provider: Some(true),
                    work_done_progress_options: WorkDoneProgressOptions::default(),
                })),
                semantic_tokens_provider: Some(
                    SemanticTokensServerCapabilities::SemanticTokensOptions(
                        SemanticTokensOptions {
                            legend: crate::handlers::semantic_tokens::legend(),
                            full: Some(SemanticTokensFullOptions::Bool(true)),
                            range: None,
                            work_done_progress_options: WorkDoneProgressOptions::default(),
                        },
                    ),
                ),
                ..ServerCapabilities::default()
            },
            offset_encoding: None,
        })
    }

    async fn initialized(&self, _: InitializedParams) {
        let (folders, watch) = {
            let init = lock(&self.init);
            (init.folders.clone(), init.watch_dynamically)
        };
        self.workspace.discover(&folders);
        self.workspace.schedule_all();
        if watch {
            let watchers = [
                "**/lhp.yaml",
                "**/*.{yaml,yml}",
                "**/*.json",
                "**/*.sql",
                "**/dqlint.toml",
            ]
            .into_iter()
            .map(|glob| FileSystemWatcher {
                glob_pattern: GlobPattern::String(glob.into()),
                kind: None,
            })
            .collect();
            let options = DidChangeWatchedFilesRegistrationOptions { watchers };
            let registration = Registration {
                id: "dqlint-watched-files".into(),
                method: "workspace/didChangeWatchedFiles".into(),
                register_options: serde_json::to_value(options).ok(),
            };
            // Not awaited here: the client answers while we keep serving.
            let client = self.client().clone();
            tokio::spawn(async move {
                if let Err(e) = client.register_capability(vec![registration]).await {
                    client
                        .log_message(
                            MessageType::WARNING,
                            format!("dqlint: cannot watch files: {e}"),
                        )
                        .await;
                }
            });
        }
    }

    async fn shutdown(&self) -> Result<()> {
        self.shutdown.store(true, Ordering::SeqCst);
        Ok(())
    }

    async fn did_open(&self, params: DidOpenTextDocumentParams) {
        let doc = params.text_document;
        let Some(path) = uri_to_path(&doc.uri) else {
            return;
        };
        let text: Arc<str> = Arc::from(doc.text);
        lock(&self.workspace.documents).open(
            path.clone(),
            Document {
                uri: doc.uri,
                version: doc.version,
                text: text.clone(),
            },
        );
        // Its findings are published for the buffer's version at once.
        self.edited(&path);
    }

    async fn did_change(&self, params: DidChangeTextDocumentParams) {
        let Some(path) = uri_to_path(&params.text_document.uri) else {
            return;
        };
        let applied = catch_unwind(AssertUnwindSafe(|| {
            lock(&self.workspace.documents).change(
                &path,
                params.text_document.version,
                params.content_changes,
            )
        }));
        match applied {
            Ok(true) => self.edited(&path),
            Ok(false) => {}
            Err(panic) => {
                let reason = panic_message(panic.as_ref());
                self.log(
                    MessageType::ERROR,
                    format!(
                        "dqlint: cannot apply an edit to {}: {reason}",
                        path.display()
                    ),
                )
                .await;
            }
        }
    }

    async fn did_close(&self, params: DidCloseTextDocumentParams) {
        let Some(path) = uri_to_path(&params.text_document.uri) else {
            return;
        };
        lock(&self.workspace.documents).close(&path);
        // Findings published under the URI the client opened it with (a
        // symlinked folder) go; the file's go on under its own path, for
        // its text on disk (what the buffer held unless closed unsaved).
        if let Some(project) = self.workspace.project_of(&path) {
            if UriMap::new([]).uri(&path).as_ref() != Some(&params.text_document.uri) {
                self.workspace
                    .unpublish(&project, &params.text_document.uri)
                    .await;
            }
        }
        self.changed_on_disk(&path);
    }

    async fn did_change_watched_files(&self, params: DidChangeWatchedFilesParams) {
        // Many files at once (a branch checkout): one load per project
        // beats a quick re-lint per file.
        let mut per_project: std::collections::HashMap<PathBuf, usize> = Default::default();
        for change in &params.changes {
            if let Some(project) =
                uri_to_path(&change.uri).and_then(|p| self.workspace.project_of(&p))
            {
                *per_project.entry(project.root.clone()).or_default() += 1;
            }
        }
        let mut reloaded: Vec<PathBuf> = Vec::new();
        for (root, count) in per_project {
            if count > MANY_CHANGES {
                self.workspace.schedule(self.workspace.project(&root));
                reloaded.push(root);
            }
        }
        for change in params.changes {
            let Some(path) = uri_to_path(&change.uri) else {
                continue;
            };
            // An open buffer wins over the disk: nothing changes for it.
            if lock(&self.workspace.documents).text(&path).is_some()
                || reloaded.iter().any(|root| path.starts_with(root))
            {
                continue;
            }
            if change.typ == FileChangeType::CHANGED {
                self.changed_on_disk(&path);
            } else if let Some(project) = self.workspace.project_of(&path) {
                // A file appeared or went: the project's files change. A
                // deleted lhp.yaml still maps to its folder: the load fails
                // and drops its findings.
                self.workspace.schedule(project);
            }
        }
    }

    async fn did_change_workspace_folders(&self, params: DidChangeWorkspaceFoldersParams) {
        let added: Vec<PathBuf> = params
            .event
            .added
            .iter()
            .filter_map(|f| uri_to_path(&f.uri))
            .collect();
        let removed: Vec<PathBuf> = params
            .event
            .removed
            .iter()
            .filter_map(|f| uri_to_path(&f.uri))
            .collect();
        let remaining = {
            let mut init = lock(&self.init);
            init.folders.retain(|f| !removed.contains(f));
            init.folders.extend(added.iter().cloned());
            init.folders.clone()
        };
        for folder in &removed {
            self.workspace.forget_folder(folder, &remaining).await;
        }
        let known: Vec<PathBuf> = self
            .workspace
            .projects()
            .iter()
            .map(|p| p.root.clone())
            .collect();
        self.workspace.discover(&added);
        for project in self.workspace.projects() {
            if !known.contains(&project.root) {
                self.workspace.schedule(project);
            }
        }
    }

    async fn did_change_configuration(&self, params: DidChangeConfigurationParams) {
        if !Settings::is_addressed(&params.settings) {
            return;
        }
        if let Some(warning) = self.apply_settings(Some(&params.settings)) {
            self.log(MessageType::WARNING, warning).await;
        }
        self.workspace.schedule_all();
    }

    async fn hover(&self, params: HoverParams) -> Result<Option<Hover>> {
        let at = params.text_document_position_params;
        let Some((path, snapshot)) = self.snapshot_for(&at.text_document.uri, false).await else {
            return Ok(None);
        };
        self.guarded("hover", || hover::hover(&snapshot, &path, at.position))
            .await
    }

    async fn code_action(&self, params: CodeActionParams) -> Result<Option<CodeActionResponse>> {
        let Some((path, snapshot)) = self.snapshot_for(&params.text_document.uri, false).await
        else {
            return Ok(None);
        };
        let only = params.context.only.as_deref();
        let actions = self
            .guarded("codeAction", || {
                code_action::code_actions(&snapshot, &path, params.range, only)
            })
            .await?;
        Ok((!actions.is_empty()).then_some(actions))
    }

    async fn document_symbol(
        &self,
        params: DocumentSymbolParams,
    ) -> Result<Option<DocumentSymbolResponse>> {
        let Some((path, snapshot)) = self.snapshot_for(&params.text_document.uri, false).await
        else {
            return Ok(None);
        };
        let symbols = self
            .guarded("documentSymbol", || {
                document_symbol::document_symbols(&snapshot, &path)
            })
            .await?;
        Ok(symbols.map(DocumentSymbolResponse::Nested))
    }

    async fn goto_definition(
        &self,
        params: GotoDefinitionParams,
    ) -> Result<Option<GotoDefinitionResponse>> {
        let at = params.text_document_position_params;
        let Some((path, snapshot)) = self.snapshot_for(&at.text_document.uri, true).await else {
            return Ok(None);
        };
        let found = self
            .guarded("definition", || {
                definition::definition(&snapshot, &path, at.position)
            })
            .await?;
        if found.is_empty() {
            if let Some(why) = definition::not_in_project(&snapshot, &path) {
                self.client().show_message(MessageType::INFO, why).await;
            }
        }
        Ok((!found.is_empty()).then_some(GotoDefinitionResponse::Array(found)))
    }

    async fn completion(&self, params: CompletionParams) -> Result<Option<CompletionResponse>> {
        let at = params.text_document_position;
        let Some(path) = uri_to_path(&at.text_document.uri) else {
            return Ok(None);
        };
        let Some(text) = lock(&self.workspace.documents).text(&path) else {
            return Ok(None);
        };
        // The last lint result is enough for token names and paths: no
        // re-lint per keystroke.
        let project = self.workspace.project_of(&path).and_then(|p| p.snapshot());
        let items = self
            .guarded("completion", || {
                let catalogue = project.as_ref().map(|s| s.config.dqx.catalogue());
                completion::completions(
                    &text,
                    &path,
                    at.position,
                    project.as_ref().map(|s| &s.project),
                    catalogue
                        .as_ref()
                        .unwrap_or_else(|| crate::handlers::dqx::catalogue()),
                )
            })
            .await?;
        Ok((!items.is_empty()).then_some(CompletionResponse::Array(items)))
    }

    async fn references(&self, params: ReferenceParams) -> Result<Option<Vec<Location>>> {
        let at = params.text_document_position;
        let Some((path, snapshot)) = self.snapshot_for(&at.text_document.uri, true).await else {
            return Ok(None);
        };
        let with_declaration = params.context.include_declaration;
        let found = self
            .guarded("references", || {
                references::references(&snapshot, &path, at.position, with_declaration)
            })
            .await?;
        Ok((!found.is_empty()).then_some(found))
    }

    async fn folding_range(&self, params: FoldingRangeParams) -> Result<Option<Vec<FoldingRange>>> {
        let Some((path, snapshot)) = self.snapshot_for(&params.text_document.uri, false).await
        else {
            return Ok(None);
        };
        let ranges = self
            .guarded("foldingRange", || {
                snapshot
                    .project
                    .file_by_path(&path)
                    .map(folding_range::folding_ranges)
                    .unwrap_or_default()
            })
            .await?;
        Ok((!ranges.is_empty()).then_some(ranges))
    }

    async fn document_link(&self, params: DocumentLinkParams) -> Result<Option<Vec<DocumentLink>>> {
        let Some((path, snapshot)) = self.snapshot_for(&params.text_document.uri, true).await
        else {
            return Ok(None);
        };
        let links = self
            .guarded("documentLink", || {
                document_link::document_links(&snapshot, &path)
            })
            .await?;
        Ok((!links.is_empty()).then_some(links))
    }

    async fn semantic_tokens_full(
        &self,
        params: SemanticTokensParams,
    ) -> Result<Option<SemanticTokensResult>> {
        let Some((path, snapshot)) = self.snapshot_for(&params.text_document.uri, false).await
        else {
            return Ok(None);
        };
        let data = self
            .guarded("semanticTokens", || {
                snapshot
                    .project
                    .file_by_path(&path)
                    .map(|file| crate::handlers::semantic_tokens::semantic_tokens(&snapshot, file))
                    .unwrap_or_default()
            })
            .await?;
        Ok(Some(SemanticTokensResult::Tokens(SemanticTokens {
            result_id: None,
            data,
        })))
    }

    async fn inlay_hint(&self, params: InlayHintParams) -> Result<Option<Vec<InlayHint>>> {
        let Some((path, snapshot)) = self.snapshot_for(&params.text_document.uri, false).await
        else {
            return Ok(None);
        };
        let hints = self
            .guarded("inlayHint", || {
                snapshot
                    .project
                    .file_by_path(&path)
                    .map(|file| inlay_hint::inlay_hints(&snapshot.project, file, params.range))
                    .unwrap_or_default()
            })
            .await?;
        Ok((!hints.is_empty()).then_some(hints))
    }

    async fn symbol(
        &self,
        params: WorkspaceSymbolParams,
    ) -> Result<Option<WorkspaceSymbolResponse>> {
        // The last lint result of each project: a picker needs no re-lint.
        let snapshots: Vec<_> = self
            .workspace
            .projects()
            .iter()
            .filter_map(|p| p.snapshot())
            .collect();
        let symbols = self
            .guarded("workspace/symbol", || {
                workspace_symbol::workspace_symbols(&snapshots, &params.query)
            })
            .await?;
        Ok(Some(WorkspaceSymbolResponse::Nested(symbols)))
    }

    async fn prepare_rename(
        &self,
        params: TextDocumentPositionParams,
    ) -> Result<Option<PrepareRenameResponse>> {
        let Some((path, snapshot)) = self.snapshot_for(&params.text_document.uri, true).await
        else {
            return Ok(None);
        };
        let found = self
            .guarded("prepareRename", || {
                rename::find(&snapshot, &path, params.position).map(|found| {
                    let file = snapshot.project.file(found.here.0);
                    PrepareRenameResponse::RangeWithPlaceholder {
                        range: crate::convert::range(file, &found.here.1),
                        placeholder: found.name.clone(),
                    }
                })
            })
            .await?;
        found.map(Some).map_err(refused)
    }

    async fn rename(&self, params: RenameParams) -> Result<Option<WorkspaceEdit>> {
        let at = params.text_document_position;
        let Some((path, snapshot)) = self.snapshot_for(&at.text_document.uri, true).await else {
            return Ok(None);
        };
        let edit = self
            .guarded("rename", || {
                rename::find(&snapshot, &path, at.position)
                    .and_then(|found| rename::edits(&snapshot, &found, &params.new_name))
            })
            .await?;
        edit.map(Some).map_err(refused)
    }
}

/// A rename the server will not do: the client shows the reason.
fn refused(reason: String) -> Error {
    Error {
        code: ErrorCode::InvalidRequest,
        message: reason.into(),
        data: None,
    }
}
