//! `verdict mcp`: verdict as a Model Context Protocol server over stdio, on the official Rust SDK
//! (`rmcp`), and `verdict mcp install`, which writes its entry into an MCP client's config.
//!
//! The server offers three tools (docs/mcp.md has their schemas): `verify` runs the project's
//! verification exactly as `verdict run` does (the same preparation, pipeline and digest, from
//! `run.rs`), `summarize_log` is `verdict summarize`, and `list_verifiers` is `verdict list`.
//! The logs `verify` links to are its resources: `resources/read` serves them (redacted), so a
//! client without the server's file system can follow the links.
//! One process serves a whole agent session, so the tokenizer is loaded once, at start, and
//! the result cache and the stat cache stay hot between calls.
//!
//! stdout carries the protocol alone: nothing else of verdict prints there while it serves. A
//! message over 16 MiB is skipped without being held and answered with a JSON-RPC error
//! (`transport`), and the server goes on serving.

mod install;
mod resources;
mod schema;
mod server;
mod tools;
mod transport;
mod workspace;

use std::path::PathBuf;
use std::time::Duration;

use anyhow::{Context, Result};

use crate::exit::ExitCode;

const EXAMPLES: &str = "\
Examples:
  verdict mcp                                 # serve on stdio (what an MCP client starts)
  verdict mcp install claude                  # .mcp.json of this project
  verdict mcp install codex --scope user      # ~/.codex/config.toml
  verdict mcp install cursor
  verdict mcp install gemini --scope user     # ~/.gemini/settings.json

The tools are `verify`, `summarize_log` and `list_verifiers`; docs/mcp.md describes them.";

/// Arguments of `verdict mcp`.
#[derive(clap::Args)]
#[command(after_help = EXAMPLES)]
pub(crate) struct Args {
    #[command(subcommand)]
    command: Option<McpCommand>,

    /// The project the tools work on [default: the directory of verdict.toml, else the current
    /// one]
    #[arg(long, short = 'C', value_name = "DIR")]
    dir: Option<PathBuf>,
}

#[derive(clap::Subcommand)]
enum McpCommand {
    /// Write verdict's entry into an MCP client's config (idempotent)
    Install(install::Args),
}

/// Runs `verdict mcp …` and returns the exit code.
pub(crate) fn run(args: &Args) -> Result<ExitCode> {
    match &args.command {
        Some(McpCommand::Install(install_args)) => install::run(install_args),
        None => serve(args.dir.clone()),
    }
}

/// Serves MCP on stdin and stdout until the client closes stdin.
fn serve(dir: Option<PathBuf>) -> Result<ExitCode> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("failed to start the async runtime")?;
    runtime.block_on(server::serve(dir))?;
    // A handler still stopping its tools has had its bounded wait in `serve`; nothing else of
    // ours runs by now.
    runtime.shutdown_timeout(Duration::from_millis(100));
    Ok(ExitCode::Success)
}
