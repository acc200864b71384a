//! `verdict mcp install <client>`: writes verdict's server entry into an MCP client's config, in
//! the client's own format, keeping every other key of the file. The entry starts `verdict mcp`:
//! in a project's config, shared with the team through git, `verdict` from the `PATH` (an
//! absolute path of this machine would start nothing on a teammate's); in the user's config, the
//! binary that runs the install, by its absolute path. An entry already equal leaves the file
//! byte for byte as it was. docs/mcp.md shows what each client gets.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};

use crate::exit::ExitCode;
use crate::json_doc::{self as json, Json};
use crate::{config, config_file};

/// Seconds a client may give one tool call: `verify` runs whole test suites. Codex's default
/// (60 s) and Gemini CLI's (10 min) are written out at this value.
const TOOL_TIMEOUT_SECS: u64 = 600;

/// Arguments of `verdict mcp install`.
#[derive(clap::Args)]
pub(crate) struct Args {
    /// The MCP client whose config gets verdict's entry
    #[arg(value_enum)]
    client: Client,

    /// Where: the project's config (shared with the team), or the user's (every project)
    #[arg(long, value_enum, default_value_t = Scope::Project)]
    scope: Scope,

    /// The project [default: the root of the current one: its verdict.toml, else its
    /// repository, else the current directory]
    #[arg(long, short = 'C', value_name = "DIR")]
    dir: Option<PathBuf>,
}

/// An MCP client verdict can install itself into.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
enum Client {
    /// Claude Code: `.mcp.json`, or `~/.claude.json`
    Claude,
    /// Codex: `.codex/config.toml`, or `~/.codex/config.toml` (`$CODEX_HOME`)
    Codex,
    /// Cursor: `.cursor/mcp.json`, or `~/.cursor/mcp.json`
    Cursor,
    /// Gemini CLI: `.gemini/settings.json`, or `~/.gemini/settings.json`
    Gemini,
}

/// Which config file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
enum Scope {
    /// The project's config
    Project,
    /// The user's config under the home directory
    User,
}

/// Runs the command.
pub(crate) fn run(args: &Args) -> Result<ExitCode> {
    let path = config_path(args.client, args.scope, args.dir.as_deref())?;
    let binary = match args.scope {
        // A client starts a server's command without a shell, looking it up in its `PATH`.
        Scope::Project => "verdict".to_owned(),
        Scope::User => std::env::current_exe()
            .context("failed to find the verdict binary's own path")?
            .to_string_lossy()
            .into_owned(),
    };
    let changed = match args.client {
        Client::Codex => install_toml(&path, &binary)?,
        Client::Claude | Client::Cursor | Client::Gemini => {
            install_json(args.client, &path, &binary)?
        }
    };
    if changed {
        println!(
            "verdict: added the MCP server `verdict` ({binary} mcp) to {}",
            path.display()
        );
        if let Some(step) = next_step(args.client, args.scope) {
            println!("verdict: {step}");
        }
    } else {
        println!(
            "verdict: {} already has the MCP server `verdict`; nothing changed",
            path.display()
        );
    }
    Ok(ExitCode::Success)
}

/// What the user still has to do for the client to start the server.
fn next_step(client: Client, scope: Scope) -> Option<&'static str> {
    match (client, scope) {
        (Client::Claude, Scope::Project) => Some(
            "Claude Code asks to approve a project's .mcp.json servers when it starts; /mcp shows them",
        ),
        (Client::Codex, Scope::Project) => {
            Some("Codex reads .codex/config.toml of trusted projects only; /mcp shows the server")
        }
        (Client::Gemini, Scope::Project) => {
            Some("Gemini CLI reads .gemini/settings.json of trusted folders; /mcp shows the server")
        }
        (Client::Cursor, _) => {
            Some("Cursor lists the server under its MCP settings; enable it there")
        }
        _ => None,
    }
}

/// The config file of `client` at `scope`.
fn config_path(client: Client, scope: Scope, dir: Option<&Path>) -> Result<PathBuf> {
    match scope {
        Scope::Project => {
            let start = match dir {
                Some(dir) => dir.to_path_buf(),
                None => std::env::current_dir().context("failed to read the current directory")?,
            };
            // The project's root, as `verdict run` finds it, whatever the working directory.
            let root = config::discover(&start)
                .map(|config| config.project_dir().to_path_buf())
                .unwrap_or(start);
            Ok(match client {
                Client::Claude => root.join(".mcp.json"),
                Client::Codex => root.join(".codex").join("config.toml"),
                Client::Cursor => root.join(".cursor").join("mcp.json"),
                Client::Gemini => root.join(".gemini").join("settings.json"),
            })
        }
        Scope::User => {
            if client == Client::Codex
                && let Some(home) = std::env::var_os("CODEX_HOME").filter(|h| !h.is_empty())
            {
                return Ok(PathBuf::from(home).join("config.toml"));
            }
            let Some(home) = std::env::var_os("HOME").filter(|h| !h.is_empty()) else {
                bail!("HOME is not set, so the user's config cannot be found");
            };
            let home = PathBuf::from(home);
            Ok(match client {
                Client::Claude => home.join(".claude.json"),
                Client::Codex => home.join(".codex").join("config.toml"),
                Client::Cursor => home.join(".cursor").join("mcp.json"),
                Client::Gemini => home.join(".gemini").join("settings.json"),
            })
        }
    }
}

/// The `mcpServers.verdict` entry of a JSON client, key by key.
fn json_entry(client: Client, binary: &str) -> Vec<(&'static str, Json)> {
    let mut entry = Vec::new();
    match client {
        Client::Claude | Client::Cursor => entry.push(("type", Json::from("stdio"))),
        // Milliseconds.
        Client::Gemini => entry.push(("timeout", Json::from(TOOL_TIMEOUT_SECS * 1000))),
        Client::Codex => {}
    }
    entry.push(("command", Json::from(binary)));
    entry.push(("args", Json::Array(vec![Json::from("mcp")])));
    entry
}

/// Sets `mcpServers.verdict` in the JSON file at `path`; `false` when it already was so. Every
/// other key keeps its place: `~/.claude.json` is Claude Code's own state.
fn install_json(client: Client, path: &Path, binary: &str) -> Result<bool> {
    let path = &config_file::follow_links(path)?;
    let mut document = config_file::read_json(path)?;
    let Json::Object(root) = &mut document else {
        bail!("{} holds no JSON object", path.display());
    };
    let Json::Object(servers) = json::entry(root, "mcpServers", || Json::Object(Vec::new())) else {
        bail!("`mcpServers` in {} is not an object", path.display());
    };
    let Json::Object(entry) = json::entry(servers, "verdict", || Json::Object(Vec::new())) else {
        bail!(
            "`mcpServers.verdict` in {} is not an object",
            path.display()
        );
    };
    // Keys of the user's own (`env`, `cwd`, `trust`) stay; verdict's are set.
    let mut changed = false;
    for (key, value) in json_entry(client, binary) {
        let slot = json::entry(entry, key, || Json::Null);
        if *slot != value {
            *slot = value;
            changed = true;
        }
    }
    if !changed {
        return Ok(false);
    }
    config_file::write_json(path, &document)?;
    Ok(true)
}

/// Sets `[mcp_servers.verdict]` in Codex's TOML config at `path`, keeping its comments and
/// layout; `false` when it already was so.
fn install_toml(path: &Path, binary: &str) -> Result<bool> {
    use toml_edit::{Array, DocumentMut, Item, Table, value};

    let path = &config_file::follow_links(path)?;
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => String::new(),
        Err(error) => {
            return Err(error).with_context(|| format!("failed to read {}", path.display()));
        }
    };
    let mut document: DocumentMut = text
        .parse()
        .with_context(|| format!("{} is not valid TOML; fix it first", path.display()))?;
    let servers = document.entry("mcp_servers").or_insert_with(|| {
        // Only `[mcp_servers.verdict]` is written, not an empty `[mcp_servers]` above it.
        let mut table = Table::new();
        table.set_implicit(true);
        Item::Table(table)
    });
    let Some(servers) = servers.as_table_like_mut() else {
        bail!("`mcp_servers` in {} is not a table", path.display());
    };
    if servers.get("verdict").is_none() {
        servers.insert("verdict", Item::Table(Table::new()));
    }
    let Some(entry) = servers.get_mut("verdict").and_then(Item::as_table_like_mut) else {
        bail!("`mcp_servers.verdict` in {} is not a table", path.display());
    };
    let args: Array = ["mcp"].into_iter().collect();
    let wanted: [(&str, Item); 3] = [
        ("command", value(binary)),
        ("args", value(args)),
        ("tool_timeout_sec", value(TOOL_TIMEOUT_SECS as i64)),
    ];
    let mut changed = false;
    for (key, item) in wanted {
        let same = match (entry.get(key).and_then(Item::as_value), item.as_value()) {
            (Some(old), Some(new)) => old.to_string().trim() == new.to_string().trim(),
            _ => false,
        };
        if !same {
            entry.insert(key, item);
            changed = true;
        }
    }
    if !changed {
        return Ok(false);
    }
    config_file::write_atomically(path, &document.to_string())?;
    Ok(true)
}
