//! Opening a fleet database: its directory, the refusal of network filesystems, the pragmas and
//! the migrations.

use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicI64;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use rusqlite::{Connection, TransactionBehavior};

use super::run::retry_busy;
use crate::error::{FleetError, Result};
use crate::schema;

/// How long a writer waits for another inside SQLite before `SQLITE_BUSY`; [`retry_busy`]
/// retries beyond it. Transactions here last milliseconds, so reaching this means a stuck
/// process, not load.
pub(super) const BUSY_TIMEOUT: Duration = Duration::from_secs(60);

/// A fleet's queue in an embedded SQLite database.
///
/// One handle holds one connection; the handle is cheap to share (`Arc<dyn Store>`) and its
/// calls queue on the connection. Several processes (or handles) may open the same file.
pub struct SqliteStore {
    pub(super) path: PathBuf,
    pub(super) conn: Arc<Mutex<Connection>>,
    /// When this handle's last claim swept every waiting task for expiry (database time).
    pub(super) last_sweep: Arc<AtomicI64>,
}

impl std::fmt::Debug for SqliteStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SqliteStore")
            .field("path", &self.path)
            .finish()
    }
}

impl SqliteStore {
    /// Opens (or creates) the database at `path`: creates its directory (mode 0700, the queue
    /// holds task texts and diffs), refuses a network filesystem, sets WAL and the pragmas, and
    /// applies the migrations this verdict knows. A database migrated by a newer verdict is
    /// refused.
    pub fn open(path: &Path) -> Result<SqliteStore> {
        let dir = match path.parent() {
            Some(dir) if !dir.as_os_str().is_empty() => dir.to_path_buf(),
            _ => PathBuf::from("."),
        };
        create_dir(&dir)?;
        refuse_network_fs(&dir, path)?;
        let sqlite = |source| FleetError::Sqlite {
            path: path.to_path_buf(),
            source,
        };
        let mut conn = Connection::open(path).map_err(sqlite)?;
        let mode = retry_busy(|| configure(&conn)).map_err(sqlite)?;
        if !mode.eq_ignore_ascii_case("wal") {
            return Err(FleetError::Unusable {
                path: path.display().to_string(),
                message: format!("the database cannot use WAL (its journal mode stays {mode})"),
            });
        }
        migrate(&mut conn, path)?;
        Ok(SqliteStore {
            path: path.to_path_buf(),
            conn: Arc::new(Mutex::new(conn)),
            last_sweep: Arc::new(AtomicI64::new(0)),
        })
    }
}

fn create_dir(dir: &Path) -> Result<()> {
    use std::os::unix::fs::DirBuilderExt;
    std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(dir)
        .map_err(|source| FleetError::Io {
            what: format!("failed to create {}", dir.display()),
            source,
        })
}

/// The pragmas every connection sets. `synchronous=FULL`: a committed claim or finish survives
/// a power cut, so an attempt is never run twice because its claim was lost after the agent
/// started (the loop's state database makes the same choice).
/// Returns the journal mode SQLite settled on.
fn configure(conn: &Connection) -> rusqlite::Result<String> {
    conn.busy_timeout(BUSY_TIMEOUT)?;
    let mode: String = conn.query_row("PRAGMA journal_mode = WAL", [], |row| row.get(0))?;
    conn.execute_batch("PRAGMA synchronous = FULL; PRAGMA foreign_keys = ON;")?;
    Ok(mode)
}

/// Applies the migrations not yet applied, each in its own write transaction that re-reads the
/// version (two processes may open a new database at once).
///
/// The version is read first without the write lock: a database that is up to date is opened
/// without waiting for a writer, so a reader (`status`, `history`, the dashboard) still answers
/// while a worker holds the lock, stuck or stopped.
fn migrate(conn: &mut Connection, path: &Path) -> Result<()> {
    let known = schema::SQLITE.len();
    let current: i64 = retry_busy(|| conn.query_row("PRAGMA user_version", [], |row| row.get(0)))
        .map_err(|source| FleetError::Sqlite {
        path: path.to_path_buf(),
        source,
    })?;
    if usize::try_from(current).is_ok_and(|applied| applied == known) {
        return Ok(());
    }
    loop {
        let step = retry_busy(|| {
            let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
            let version: i64 = tx.query_row("PRAGMA user_version", [], |row| row.get(0))?;
            let Ok(applied) = usize::try_from(version) else {
                return Ok(Err(version));
            };
            if applied >= known {
                return Ok(if applied > known {
                    Err(version)
                } else {
                    Ok(false)
                });
            }
            tx.execute_batch(schema::SQLITE[applied])?;
            tx.execute_batch(&format!("PRAGMA user_version = {}", applied + 1))?;
            tx.commit()?;
            Ok(Ok(true))
        })
        .map_err(|source| FleetError::Sqlite {
            path: path.to_path_buf(),
            source,
        })?;
        match step {
            Ok(true) => continue,
            Ok(false) => return Ok(()),
            Err(version) => {
                return Err(FleetError::Unusable {
                    path: path.display().to_string(),
                    message: format!(
                        "schema version {version} is not one this verdict knows (it knows up to \
                         {known}); a newer verdict migrated it"
                    ),
                });
            }
        }
    }
}

/// Filesystems whose locks or shared memory WAL cannot rely on, by `statfs` magic number.
const NETWORK_FS: &[(i64, &str)] = &[
    (0x6969, "NFS"),
    (0x517B, "SMB"),
    (0xFF53_4D42, "CIFS"),
    (0xFE53_4D42, "SMB2"),
    (0x5346_414F, "AFS"),
    (0x6B41_4653, "kAFS"),
    (0x0102_1997, "9P"),
    (0x00C3_6400, "Ceph"),
    (0x7375_7245, "Coda"),
    (0x564C, "NCP"),
    (0x0BD0_0BD0, "Lustre"),
    (0x4750_4653, "GPFS"),
    (0x0116_1970, "GFS2"),
    (0x7461_636F, "OCFS2"),
    (0x2003_0528, "OrangeFS"),
];

/// The network filesystem a `statfs` magic number names, if it names one.
pub(crate) fn network_fs_name(magic: i64) -> Option<&'static str> {
    // The kernel's field is signed on some targets: compare the low 32 bits, as the magic
    // numbers are 32-bit.
    let magic = magic & 0xFFFF_FFFF;
    NETWORK_FS
        .iter()
        .find(|(m, _)| *m == magic)
        .map(|(_, name)| *name)
}

#[cfg(target_os = "linux")]
fn refuse_network_fs(dir: &Path, path: &Path) -> Result<()> {
    let stat = rustix::fs::statfs(dir).map_err(|error| FleetError::Io {
        what: format!("failed to read the filesystem of {}", dir.display()),
        source: error.into(),
    })?;
    #[allow(
        clippy::useless_conversion,
        reason = "f_type is i64 here and i32 on other targets"
    )]
    let magic = i64::from(stat.f_type);
    match network_fs_name(magic) {
        None => Ok(()),
        Some(name) => Err(FleetError::Unusable {
            path: path.display().to_string(),
            message: format!(
                "the directory is on a network filesystem ({name}), where SQLite's WAL mode does \
                 not work; put the fleet database on a local disk (--state) or use PostgreSQL"
            ),
        }),
    }
}

#[cfg(not(target_os = "linux"))]
fn refuse_network_fs(_dir: &Path, _path: &Path) -> Result<()> {
    // Elsewhere `statfs` names filesystems differently; the check is Linux's for now.
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn network_filesystems_are_named_local_ones_not() {
        assert_eq!(network_fs_name(0x6969), Some("NFS"));
        // CIFS's magic read through a signed 32-bit field, as on some targets.
        assert_eq!(
            network_fs_name(i64::from(0xFF53_4D42_u32 as i32)),
            Some("CIFS")
        );
        assert_eq!(network_fs_name(0xFE53_4D42), Some("SMB2"));
        for local in [0xEF53, 0x0102_1994, 0x9123_683E, 0x5846_5342, 0x794C_7630] {
            assert_eq!(network_fs_name(local), None, "{local:#x}");
        }
    }

    #[test]
    fn the_bundled_sqlite_has_subsecond_unixepoch() {
        let conn = Connection::open_in_memory().expect("a database");
        let now: i64 = conn
            .query_row(
                "SELECT CAST(unixepoch('subsec') * 1000 AS INTEGER)",
                [],
                |row| row.get(0),
            )
            .expect("unixepoch('subsec')");
        let wall = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .expect("after 1970")
            .as_millis();
        assert!(
            (i128::from(now) - wall as i128).abs() < 5_000,
            "{now} against {wall}"
        );
    }
}
