//! Opening the fleet's database named by `--state`, `$VERDICT_FLEET_STATE`, or the default file
//! where verdict keeps its state for the current directory.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::{Context, Result};
use verdict_core::paths;
use verdict_fleet::Store;

use super::StateArg;

/// The environment variable that names the fleet's database when `--state` does not.
pub(crate) const STATE_ENV: &str = "VERDICT_FLEET_STATE";

/// What `--state` names.
pub(crate) enum Target {
    /// A SQLite file.
    File(PathBuf),
    /// A PostgreSQL URL.
    Postgres(String),
}

impl StateArg {
    /// What the fleet's database is.
    pub(crate) fn target(&self) -> Result<Target> {
        let named = self
            .state
            .clone()
            .or_else(|| std::env::var(STATE_ENV).ok().filter(|s| !s.is_empty()));
        Ok(match named {
            Some(url) if url.starts_with("postgres://") || url.starts_with("postgresql://") => {
                Target::Postgres(url)
            }
            Some(path) => Target::File(PathBuf::from(path)),
            None => Target::File(paths::fleet_db(&current_dir()?)),
        })
    }

    /// Opens (creating and migrating) the fleet's database.
    pub(crate) async fn open(&self) -> Result<Arc<dyn Store>> {
        Ok(match self.target()? {
            Target::File(path) => {
                Arc::new(verdict_fleet::SqliteStore::open(&path).with_context(|| {
                    format!("failed to open the fleet database {}", path.display())
                })?)
            }
            Target::Postgres(url) => Arc::new(
                verdict_fleet::PgStore::connect(&url)
                    .await
                    .context("failed to open the fleet database")?,
            ),
        })
    }
}

/// The current directory, canonical.
pub(crate) fn current_dir() -> Result<PathBuf> {
    let dir = std::env::current_dir().context("failed to read the current directory")?;
    Ok(std::fs::canonicalize(&dir).unwrap_or(dir))
}

/// A path given on the command line, made absolute against the current directory.
pub(crate) fn absolute(path: &Path) -> Result<PathBuf> {
    Ok(if path.is_absolute() {
        path.to_path_buf()
    } else {
        current_dir()?.join(path)
    })
}

/// A runtime for the fleet's commands.
pub(crate) fn runtime() -> Result<tokio::runtime::Runtime> {
    crate::verify::runtime()
}
