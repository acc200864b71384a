//! `verdict dashboard`: finds the database (a fleet's, or a workspace's loop runs), keeps the
//! access token, binds the address, prints where the page is and serves it until stopped.

use std::io::{self, Write};
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use anyhow::{Context, Result, bail};
use verdict_dashboard::Source;
use verdict_dashboard::server::{self, Options};
use verdict_dashboard::source::{FleetSource, LoopSource};

use crate::exit::ExitCode;
use crate::fleet::open::{STATE_ENV, absolute, current_dir};
use crate::run::load_config;

/// The environment variable that gives the token instead of the token file.
const TOKEN_ENV: &str = "VERDICT_DASHBOARD_TOKEN";

const EXAMPLES: &str = "Examples:
  verdict dashboard                                  # this directory's fleet, else its loop runs
  verdict dashboard --state postgres://fleet@db/verdict --allow-actions
  ssh -L 8470:127.0.0.1:8470 build-host               # then open the printed address locally";

/// Arguments of `verdict dashboard`.
#[derive(clap::Args)]
#[command(after_help = EXAMPLES)]
pub(crate) struct Args {
    /// The database: a fleet's file or postgres:// URL, or a workspace's state database
    /// [default: $VERDICT_FLEET_STATE, else the fleet of the current directory if it has one,
    /// else the loop runs of the project]
    #[arg(long, value_name = "FILE|URL")]
    state: Option<String>,

    /// The project whose loop runs to show [default: the directory of verdict.toml, else the
    /// current one]
    #[arg(long, short = 'C', value_name = "DIR", conflicts_with = "state")]
    dir: Option<PathBuf>,

    /// The address to listen on (port 0: any free port)
    #[arg(long, value_name = "ADDR", default_value = "127.0.0.1:8470")]
    listen: SocketAddr,

    /// Allow listening beyond loopback (the page is plain HTTP: prefer SSH port forwarding)
    #[arg(long)]
    allow_remote: bool,

    /// Another name the page is reached by, for the Host check (repeatable; the port is added
    /// when missing)
    #[arg(long = "host", value_name = "NAME")]
    hosts: Vec<String>,

    /// Let the page retry ended tasks with guidance, and cancel, pause and resume tasks,
    /// campaigns and agents
    #[arg(long)]
    allow_actions: bool,

    /// Where the access token is kept, so a restarted dashboard takes the same one [default:
    /// `dashboard-token` beside the SQLite file, or in the project's state directory; the token
    /// is $VERDICT_DASHBOARD_TOKEN when set]
    #[arg(long, value_name = "FILE")]
    token_file: Option<PathBuf>,

    /// Replace the kept token with a new one (pages opened with the old one stop working)
    #[arg(long)]
    new_token: bool,

    /// How often to look for changes when the database pushes none, in milliseconds
    #[arg(long, value_name = "MS", default_value_t = 250, hide = true)]
    poll_ms: u64,
}

/// What the dashboard reads.
enum Database {
    /// A fleet's SQLite file.
    FleetFile(PathBuf),
    /// A fleet on PostgreSQL.
    FleetPostgres(String),
    /// A workspace's loop runs.
    Loop(PathBuf),
}

/// `verdict dashboard`.
pub(crate) fn run(args: &Args) -> Result<ExitCode> {
    let address = args.listen;
    if !address.ip().is_loopback() && !args.allow_remote {
        bail!(
            "refusing to listen on {address}: beyond loopback anyone on the network can reach the \
             page; forward a loopback port over SSH, or pass --allow-remote"
        );
    }
    let database = database(args)?;
    let token = token(args, &database)?;
    crate::verify::runtime()?.block_on(serve(args, database, token))
}

async fn serve(args: &Args, database: Database, token: String) -> Result<ExitCode> {
    let (source, what): (Arc<dyn Source>, String) = match &database {
        Database::FleetFile(path) => {
            let store = verdict_fleet::SqliteStore::open(path)
                .with_context(|| format!("failed to open the fleet database {}", path.display()))?;
            let source = FleetSource::new(Arc::new(store));
            (Arc::new(source), "the fleet".into())
        }
        Database::FleetPostgres(url) => {
            let store = verdict_fleet::PgStore::connect(url)
                .await
                .context("failed to open the fleet database")?;
            let source = FleetSource::with_listener(Arc::new(store), Some(url.clone()));
            (Arc::new(source), "the fleet".into())
        }
        Database::Loop(path) => (
            Arc::new(LoopSource::new(path.clone())),
            "the loop runs".into(),
        ),
    };
    let listener = tokio::net::TcpListener::bind(args.listen)
        .await
        .with_context(|| format!("failed to listen on {}", args.listen))?;
    let bound = listener
        .local_addr()
        .context("failed to read the bound address")?;
    let actions = if args.allow_actions {
        "actions on"
    } else {
        "actions off"
    };
    let mut lines = format!(
        "verdict dashboard: {what} in {} ({actions}); stop with Ctrl-C\n",
        source.describe()
    );
    for host in server::addresses(bound) {
        lines.push_str(&format!("    http://{host}/?token={token}\n"));
    }
    let mut out = io::stdout().lock();
    out.write_all(lines.as_bytes())?;
    out.flush()?;
    drop(out);
    let options = Options {
        token,
        actions: args.allow_actions,
        hosts: args.hosts.clone(),
        poll: Duration::from_millis(args.poll_ms.max(50)),
    };
    server::serve(listener, source, options, stopped())
        .await
        .context("the dashboard's server failed")?;
    Ok(ExitCode::Success)
}

/// Completes on Ctrl-C or SIGTERM.
async fn stopped() {
    let mut term = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()).ok();
    let terminated = async {
        match term.as_mut() {
            Some(term) => {
                term.recv().await;
            }
            None => std::future::pending().await,
        }
    };
    tokio::select! {
        _ = tokio::signal::ctrl_c() => {}
        () = terminated => {}
    }
}

/// The database `--state`, `$VERDICT_FLEET_STATE` or the current directory names. A file is
/// read as a fleet or as loop runs by the tables it holds; nothing is created.
fn database(args: &Args) -> Result<Database> {
    let named = args
        .state
        .clone()
        .or_else(|| std::env::var(STATE_ENV).ok().filter(|s| !s.is_empty()));
    if let Some(url) = &named
        && (url.starts_with("postgres://") || url.starts_with("postgresql://"))
    {
        return Ok(Database::FleetPostgres(url.clone()));
    }
    if let Some(path) = named {
        let path = absolute(Path::new(&path))?;
        return file(path);
    }
    if args.dir.is_none() {
        let fleet = verdict_core::paths::fleet_db(&current_dir()?);
        if fleet.exists() {
            return file(fleet);
        }
    }
    let (root, _config) = load_config(args.dir.as_deref())?;
    let path = verdict_core::paths::state_db(&root);
    if !path.exists() {
        bail!(
            "no database to show: {} holds no loop runs yet and there is no fleet here; pass \
             --state with a fleet's file or postgres:// URL",
            root.display()
        );
    }
    Ok(Database::Loop(path))
}

/// A SQLite file, read as a fleet (a `tasks` table) or as loop runs (a `runs` table).
fn file(path: PathBuf) -> Result<Database> {
    if !path.is_file() {
        bail!("no database at {}", path.display());
    }
    let flags =
        rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY | rusqlite::OpenFlags::SQLITE_OPEN_NO_MUTEX;
    let connection = rusqlite::Connection::open_with_flags(&path, flags)
        .with_context(|| format!("failed to open {}", path.display()))?;
    let has = |table: &str| -> Result<bool> {
        let found: i64 = connection
            .query_row(
                "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = ?1",
                [table],
                |row| row.get(0),
            )
            .with_context(|| format!("failed to read {}", path.display()))?;
        Ok(found > 0)
    };
    if has("tasks")? && has("agent_slots")? {
        Ok(Database::FleetFile(path))
    } else if has("runs")? {
        Ok(Database::Loop(path))
    } else {
        bail!(
            "{} is neither a fleet's database nor a workspace's state database",
            path.display()
        )
    }
}

/// The token: `$VERDICT_DASHBOARD_TOKEN`, else the one kept in the token file, else a new one
/// written there (readable by its owner only).
fn token(args: &Args, database: &Database) -> Result<String> {
    if let Some(token) = std::env::var(TOKEN_ENV)
        .ok()
        .filter(|t| !t.trim().is_empty())
    {
        return Ok(token.trim().to_owned());
    }
    let path = match &args.token_file {
        Some(path) => path.clone(),
        None => default_token_file(args, database)?,
    };
    if !args.new_token
        && let Ok(kept) = std::fs::read_to_string(&path)
    {
        let kept = kept.trim();
        if kept.len() >= 32 && kept.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Ok(kept.to_owned());
        }
    }
    let token = verdict_dashboard::new_token().context("failed to make an access token")?;
    write_private(&path, &token)
        .with_context(|| format!("failed to keep the access token in {}", path.display()))?;
    Ok(token)
}

fn default_token_file(args: &Args, database: &Database) -> Result<PathBuf> {
    Ok(match database {
        Database::FleetFile(path) | Database::Loop(path) => path.parent().map_or_else(
            || PathBuf::from("dashboard-token"),
            |dir| dir.join("dashboard-token"),
        ),
        Database::FleetPostgres(_) => {
            let (root, _config) = load_config(args.dir.as_deref())?;
            verdict_core::paths::dir(&root).join("dashboard-token")
        }
    })
}

/// Writes `text` to a file only its owner can read, replacing it whole.
fn write_private(path: &Path, text: &str) -> io::Result<()> {
    use std::os::unix::fs::OpenOptionsExt;
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    let partial = path.with_extension("partial");
    // A leftover from a cut run may have other permissions; the new file is created afresh.
    let _ = std::fs::remove_file(&partial);
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .mode(0o600)
        .open(&partial)?;
    file.write_all(text.as_bytes())?;
    file.sync_all()?;
    std::fs::rename(&partial, path)
}
