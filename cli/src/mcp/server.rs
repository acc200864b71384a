//! The MCP server: its identity, its tool list, the dispatch of `tools/call` to
//! [`super::tools`], and the runs' logs as resources ([`super::resources`]). Calls of `verify` take turns (two runs of the same tools on one project at
//! once would only slow each other down); the others run at once.

use std::path::PathBuf;
use std::sync::Arc;

use anyhow::{Context, Result};
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, Implementation, JsonObject,
    ListResourcesResult, ListToolsResult, PaginatedRequestParams, ReadResourceRequestParams,
    ReadResourceResponse, ServerCapabilities, ServerConfig, Tool, ToolAnnotations,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler, ServiceExt};
use serde_json::Value;

use super::resources;
use super::schema;
use super::tools::{self, STOP_WAIT, failure};
use super::transport;

/// What the client reads about the server at initialization.
const INSTRUCTIONS: &str = "verdict runs the project's own checks (type checkers, linters, \
test runners) and returns a short, exact digest of what failed. Call `verify` after changing \
code and before saying a task is done; a result whose outcome is `failed` lists what to fix, \
`errored` means the checks could not run (never a pass). `summarize_log` digests a log you \
already have; `list_verifiers` shows which checks apply and why. Each verifier's full log, \
linked from `verify`'s result, can be read with `resources/read` (redacted).";

/// The server: the project it works on, and the turn `verify` calls take.
#[derive(Clone)]
pub(crate) struct Server {
    dir: Option<PathBuf>,
    verify_turn: Arc<tokio::sync::Mutex<()>>,
    tools: Arc<Vec<Tool>>,
}

impl Server {
    fn new(dir: Option<PathBuf>) -> Server {
        Server {
            dir,
            verify_turn: Arc::new(tokio::sync::Mutex::new(())),
            tools: Arc::new(tool_list()),
        }
    }

    /// Runs one call of a tool; a panic in it becomes an `isError` result.
    async fn call(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        let dir = self.dir.clone();
        let arguments = request.arguments;
        match request.name.as_ref() {
            "verify" => {
                // A call cancelled while it waits for its turn never starts.
                let turn = tokio::select! {
                    turn = Arc::clone(&self.verify_turn).lock_owned() => turn,
                    () = context.ct.cancelled() => return Err(ErrorData::internal_error(
                        "verify was cancelled before it started", None)),
                };
                let call = tokio::spawn(async move {
                    let result = tools::verify(dir, arguments, context).await;
                    drop(turn);
                    result
                });
                call.await
                    .unwrap_or_else(|error| Ok(failure(format!("verdict failed: {error}"))))
            }
            "summarize_log" => {
                blocking(move || tools::summarize_log(dir.as_deref(), arguments)).await
            }
            "list_verifiers" => {
                blocking(move || tools::list_verifiers(dir.as_deref(), arguments)).await
            }
            other => Err(ErrorData::invalid_params(
                format!(
                    "no tool is called `{other}`; verdict's tools: verify, summarize_log, list_verifiers"
                ),
                None,
            )),
        }
    }
}

/// Runs `work` (file reading, parsing) off the async threads.
async fn blocking(
    work: impl FnOnce() -> CallToolResult + Send + 'static,
) -> Result<CallToolResult, ErrorData> {
    Ok(tokio::task::spawn_blocking(work)
        .await
        .unwrap_or_else(|error| failure(format!("verdict failed: {error}"))))
}

/// A JSON Schema as the SDK holds it.
fn object(value: Value) -> Arc<JsonObject> {
    match value {
        Value::Object(map) => Arc::new(map),
        _ => Arc::new(JsonObject::new()),
    }
}

/// The tools, with their schemas and hints.
fn tool_list() -> Vec<Tool> {
    let names = verdict_summarizers::names();
    let read_only = |title: &str| {
        ToolAnnotations::with_title(title)
            .read_only(true)
            .open_world(false)
    };
    vec![
        Tool::new(
            "verify",
            "Run the project's checks as `verdict run` does (only those whose inputs changed since \
             they passed; the rest come from the cache) and return the digest of what failed, the \
             outcome with each verifier's counts, and a link to each verifier's full log. A \
             failing project is a normal result whose outcome is `failed`. With `files`, only \
             the checks of those files and their related tests run, and `scope.not_run` names \
             what did not: a quick check of what you just changed, not of the whole project.",
            object(schema::verify_input()),
        )
        .with_raw_output_schema(object(schema::verify_output()))
        // It runs the project's tools, which write their caches and reports, but it never edits
        // the code.
        .annotate(
            ToolAnnotations::with_title("Verify the project")
                .read_only(false)
                .destructive(false)
                .idempotent(true)
                .open_world(false),
        ),
        Tool::new(
            "summarize_log",
            "Digest a verifier's log (a file or the text) as `verdict summarize` does: the tool is \
             detected unless named, and the digest stays within the budget.",
            object(schema::summarize_input(&names)),
        )
        .with_raw_output_schema(object(schema::summarize_output()))
        .annotate(read_only("Summarize a log")),
        Tool::new(
            "list_verifiers",
            "List every verifier verdict knows for this project, whether `verify` runs it, and why.",
            object(schema::list_input()),
        )
        .with_raw_output_schema(object(schema::list_output()))
        .annotate(read_only("List the verifiers")),
    ]
}

impl ServerHandler for Server {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(
            ServerCapabilities::builder()
                .enable_tools()
                .enable_resources()
                .build(),
        )
        .with_server_info(
            Implementation::new("verdict", env!("CARGO_PKG_VERSION")).with_title("verdict"),
        )
        .with_instructions(INSTRUCTIONS)
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(self.tools.to_vec()))
    }

    fn get_tool(&self, name: &str) -> Option<Tool> {
        self.tools.iter().find(|tool| tool.name == name).cloned()
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        self.call(request, context).await.map(Into::into)
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        let dir = self.dir.clone();
        let listed = tokio::task::spawn_blocking(move || resources::list(dir.as_deref()))
            .await
            .map_err(|error| ErrorData::internal_error(format!("verdict failed: {error}"), None))?;
        Ok(ListResourcesResult::with_all_items(listed?))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        let dir = self.dir.clone();
        let uri = request.uri;
        let read = tokio::task::spawn_blocking(move || resources::read(dir.as_deref(), &uri))
            .await
            .map_err(|error| ErrorData::internal_error(format!("verdict failed: {error}"), None))?;
        read.map(Into::into)
    }
}

/// Serves on stdin and stdout until the client closes stdin, or verdict gets SIGTERM, SIGINT or
/// SIGHUP (the end of the MCP stdio shutdown sequence, a closed terminal), then lets a running
/// `verify` stop its tools.
pub(crate) async fn serve(dir: Option<PathBuf>) -> Result<()> {
    // The tokenizer loads (tens of milliseconds) while the client initializes, not in the first
    // call.
    let warm = tokio::task::spawn_blocking(|| verdict_core::digest::tokens::count("verdict"));
    let server = Server::new(dir);
    let turn = Arc::clone(&server.verify_turn);
    // Listening before the session starts: a signal that comes during the handshake is not lost
    // (nor does it kill verdict, as its default action would).
    let stop = stop_signals();
    let running = server
        .serve(transport::bounded(tokio::io::stdin(), tokio::io::stdout()))
        .await
        .context("the MCP session did not start")?;
    // A signal ends the session as a closed stdin does: every call in flight is cancelled, and a
    // `verify` stops its tools (each group, its cgroup or marked processes) before it returns.
    let session = running.cancellation_token();
    let on_signal = tokio::spawn(async move {
        stop.await;
        session.cancel();
    });
    let _ = running.waiting().await;
    on_signal.abort();
    // Ending the session cancelled every call in flight; a `verify` holds its turn until its
    // tools are gone.
    let _ = tokio::time::timeout(STOP_WAIT, turn.lock()).await;
    let _ = warm.await;
    Ok(())
}

/// Resolves at the first SIGTERM, SIGINT or SIGHUP (each one's handler installed at once; one
/// that cannot be installed is never awaited).
fn stop_signals() -> impl std::future::Future<Output = ()> + Send + 'static {
    use tokio::signal::unix::{Signal, SignalKind, signal};
    let mut term = signal(SignalKind::terminate()).ok();
    let mut int = signal(SignalKind::interrupt()).ok();
    let mut hup = signal(SignalKind::hangup()).ok();
    async fn next(stream: &mut Option<Signal>) {
        match stream {
            Some(stream) => {
                stream.recv().await;
            }
            None => std::future::pending().await,
        }
    }
    async move {
        tokio::select! {
            () = next(&mut term) => {}
            () = next(&mut int) => {}
            () = next(&mut hup) => {}
        }
    }
}
