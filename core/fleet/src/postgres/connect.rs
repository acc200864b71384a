//! Connecting: the pool of connections, what the store calls itself in messages (never the
//! password), and the migrations.

use std::sync::Mutex;
use std::time::{Duration, Instant};

use deadpool_postgres::{GenericClient, Manager, ManagerConfig, Pool, RecyclingMethod, Runtime};
use tokio_postgres::config::{Host, SslMode};
use tokio_postgres::{Config, NoTls};

use super::sql::{error, now};
use crate::error::{FleetError, Result};
use crate::schema;

/// The key of the advisory lock migrations hold: two workers starting at once on a new
/// database migrate one after the other.
const MIGRATION_LOCK: i64 = 0x7665_7264_6963_7466;

/// A fleet database on a PostgreSQL server.
pub struct PgStore {
    pub(super) pool: Pool,
    pub(super) describe: String,
    /// When this handle last ended the waiting tasks past a cap (see [`PgStore::sweep_due`]).
    swept: Mutex<Option<Instant>>,
}

impl PgStore {
    /// Connects to the database `url` names (`postgres://user:password@host:port/database`, or
    /// any form libpq takes) and brings its schema up to this verdict's. A database migrated by
    /// a newer verdict is refused. Connections are plain TCP or a unix socket: a URL that
    /// requires TLS is refused with why.
    pub async fn connect(url: &str) -> Result<PgStore> {
        let config = config(url)?;
        let describe = describe(&config);
        // Recycling checks nothing: a check is a round trip and a transaction on every use, and
        // a broken connection fails its statement anyway.
        let manager = Manager::from_config(
            config,
            NoTls,
            ManagerConfig {
                recycling_method: RecyclingMethod::Fast,
            },
        );
        let pool = Pool::builder(manager)
            .runtime(Runtime::Tokio1)
            .create_timeout(Some(Duration::from_secs(15)))
            .wait_timeout(Some(Duration::from_secs(60)))
            .build()
            .map_err(|e| FleetError::Postgres(format!("{describe}: {e}")))?;
        let store = PgStore {
            pool,
            describe,
            swept: Mutex::new(None),
        };
        store.migrate().await?;
        Ok(store)
    }

    /// Whether this claim sweeps the waiting tasks for those past a cap: the sweep reads every
    /// waiting task, so a handle runs it at most once a second (its first claim included). A
    /// task past a cap is never claimed meanwhile; it is only marked a moment later.
    pub(super) fn sweep_due(&self) -> bool {
        let mut swept = self
            .swept
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        let due = swept.is_none_or(|at| at.elapsed() >= Duration::from_secs(1));
        if due {
            *swept = Some(Instant::now());
        }
        due
    }

    /// A connection from the pool.
    pub(super) async fn client(&self) -> Result<deadpool_postgres::Client> {
        self.pool
            .get()
            .await
            .map_err(|e| FleetError::Postgres(format!("{}: {e}", self.describe)))
    }

    /// Applies the migrations this database lacks, in one transaction under an advisory lock.
    async fn migrate(&self) -> Result<()> {
        let mut client = self.client().await?;
        let tx = client.transaction().await.map_err(error)?;
        tx.execute("SELECT pg_advisory_xact_lock($1)", &[&MIGRATION_LOCK])
            .await
            .map_err(error)?;
        tx.batch_execute(
            "CREATE TABLE IF NOT EXISTS verdict_fleet_schema (
                version    INTEGER PRIMARY KEY,
                applied_at BIGINT  NOT NULL
            )",
        )
        .await
        .map_err(error)?;
        let row = tx
            .query_one(
                "SELECT coalesce(max(version), 0) FROM verdict_fleet_schema",
                &[],
            )
            .await
            .map_err(error)?;
        let applied = usize::try_from(row.get::<_, i32>(0)).unwrap_or(usize::MAX);
        if applied > schema::POSTGRES.len() {
            return Err(FleetError::Unusable {
                path: self.describe.clone(),
                message: format!(
                    "its schema is version {applied}, newer than this verdict's {}: use a newer verdict",
                    schema::POSTGRES.len()
                ),
            });
        }
        for (index, migration) in schema::POSTGRES.iter().enumerate().skip(applied) {
            let version = i32::try_from(index + 1).unwrap_or(i32::MAX);
            tx.batch_execute(migration).await.map_err(error)?;
            tx.execute(
                concat!(
                    "INSERT INTO verdict_fleet_schema (version, applied_at) VALUES ($1, ",
                    now!(),
                    ")"
                ),
                &[&version],
            )
            .await
            .map_err(error)?;
        }
        tx.commit().await.map_err(error)
    }
}

/// The connection settings `url` names, with this store's timeouts and options: plain TCP or
/// a unix socket (a URL that requires TLS is refused with why).
pub(super) fn config(url: &str) -> Result<Config> {
    // The parser's message may quote the URL, password included: it is not passed on.
    let mut config: Config = url.parse().map_err(|_| {
        FleetError::Invalid(
            "not a PostgreSQL URL (postgres://user:password@host:port/database)".into(),
        )
    })?;
    // Without TLS, `sslmode=require` would fail in a handshake whose message says little.
    if config.get_ssl_mode() == SslMode::Require {
        return Err(FleetError::Invalid(format!(
            "{}: this verdict connects to PostgreSQL without TLS, and the URL requires it \
             (sslmode=require); on a trusted network use sslmode=disable, else reach the \
             server through a tunnel",
            describe(&config)
        )));
    }
    if config.get_connect_timeout().is_none() {
        config.connect_timeout(Duration::from_secs(10));
    }
    // A worker cut off from the server learns it from a failed statement within half a
    // minute, not after the system's TCP retries (a quarter of an hour).
    if config.get_tcp_user_timeout().is_none() {
        config.tcp_user_timeout(Duration::from_secs(30));
    }
    if config.get_keepalives_idle() == Duration::from_secs(2 * 60 * 60) {
        config.keepalives_idle(Duration::from_secs(30));
    }
    // The queue's statements touch a row or a few: compiling them (which the server does
    // when an estimate looks costly, as one over a table never analyzed can) costs tens of
    // milliseconds and saves nothing. A transaction of the store waits on nothing but its
    // statements: one idle for long is a worker cut off mid-transaction, whose row locks
    // the server then releases instead of waiting hours to see the connection is dead.
    let ours = "-c jit=off -c idle_in_transaction_session_timeout=30s";
    let options = match config.get_options() {
        Some(given) => format!("{given} {ours}"),
        None => ours.to_owned(),
    };
    config.options(options);
    if config.get_application_name().is_none() {
        config.application_name("verdict-fleet");
    }
    Ok(config)
}

/// The URL without its password: `postgres://user@host:port/database`.
pub(super) fn describe(config: &Config) -> String {
    let ports = config.get_ports();
    let hosts: Vec<String> = config
        .get_hosts()
        .iter()
        .enumerate()
        .map(|(i, host)| {
            let host = match host {
                Host::Tcp(name) => name.clone(),
                Host::Unix(path) => path.display().to_string(),
            };
            match ports.get(i).or(ports.first()) {
                Some(port) => format!("{host}:{port}"),
                None => host,
            }
        })
        .collect();
    format!(
        "postgres://{}@{}/{}",
        config.get_user().unwrap_or_default(),
        hosts.join(","),
        config.get_dbname().unwrap_or_default()
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_description_leaves_the_password_out() {
        let config: Config = "postgres://fleet:s3cret@db.example:5433/queue"
            .parse()
            .expect("a URL");
        let text = describe(&config);
        assert_eq!(text, "postgres://fleet@db.example:5433/queue");
        assert!(!text.contains("s3cret"));
    }
}
