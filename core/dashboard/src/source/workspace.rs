//! The runs of `verdict loop` in one workspace as a [`Source`]: its state database
//! (`.verdict/state.db`).
//!
//! - [`snapshot`]: every run read at once, with each queue line redacted once.
//! - [`rows`]: a run's state and line in the page's terms; the queue's filters.
//! - [`timeline`]: one run's page: attempts, verifications, digests, guidance, transitions.
//! - [`figures`]: the analytics page and `/metrics`.
//!
//! The database is opened as `verdict history` opens it, and only once it exists: a workspace
//! where no loop has run yet shows no runs, and is not given an empty database. One connection
//! stays open; SQLite's `data_version` on it tells whether another connection committed, so the
//! watermark and the snapshot are read again only after a commit. The loop takes no orders from
//! the page: [`act`](Source::act) says what to run instead.

mod figures;
mod rows;
mod snapshot;
mod timeline;

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use async_trait::async_trait;
use verdict_core::state::{ChangeMarks, RunId, StateDb, StateError, now_ms};

use crate::error::{DashboardError, Result};
use crate::source::Source;
use crate::view::{
    Action, ActionDone, Analytics, Kind, Metrics, QueueQuery, QueueView, Target, TaskView,
};
use snapshot::Snapshot;

/// A workspace's state database.
pub struct LoopSource {
    path: PathBuf,
    inner: Arc<Mutex<Inner>>,
}

/// The open connection and what was last read through it.
#[derive(Default)]
struct Inner {
    db: Option<StateDb>,
    /// The connection's `data_version` when `marks` was read.
    marks: Option<(i64, ChangeMarks)>,
    /// The connection's `data_version` when `snapshot` was read.
    snapshot: Option<(i64, Arc<Snapshot>)>,
}

/// The database in `slot`, opened on first use; `None` while it does not exist.
fn opened<'a>(
    slot: &'a mut Option<StateDb>,
    path: &Path,
) -> Result<Option<&'a StateDb>, StateError> {
    if slot.is_none() && path.exists() {
        *slot = Some(StateDb::open(path)?);
    }
    Ok(slot.as_ref())
}

impl LoopSource {
    /// Reads the state database at `path` (a workspace's `.verdict/state.db`).
    pub fn new(path: PathBuf) -> LoopSource {
        LoopSource {
            path,
            inner: Arc::new(Mutex::new(Inner::default())),
        }
    }

    /// Runs `read` on the connection on a blocking thread.
    async fn with_db<T: Send + 'static>(
        &self,
        read: impl FnOnce(&mut Inner, &Path) -> Result<T> + Send + 'static,
    ) -> Result<T> {
        let inner = Arc::clone(&self.inner);
        let path = self.path.clone();
        tokio::task::spawn_blocking(move || {
            // A reader that panicked leaves nothing half-written: the cache is replaced whole.
            let mut inner = inner
                .lock()
                .unwrap_or_else(|poisoned| poisoned.into_inner());
            read(&mut inner, &path)
        })
        .await?
    }

    /// Every run, read again only when another connection committed since the last read.
    async fn snapshot(&self) -> Result<Arc<Snapshot>> {
        self.with_db(|inner, path| {
            let Some(db) = opened(&mut inner.db, path)? else {
                return Ok(Arc::new(Snapshot::empty()));
            };
            let version = db.data_version()?;
            if let Some((seen, snapshot)) = &inner.snapshot
                && *seen == version
            {
                return Ok(Arc::clone(snapshot));
            }
            let snapshot = Arc::new(Snapshot::load(db)?);
            inner.snapshot = Some((version, Arc::clone(&snapshot)));
            Ok(snapshot)
        })
        .await
    }
}

#[async_trait]
impl Source for LoopSource {
    fn describe(&self) -> String {
        self.path.display().to_string()
    }

    fn kind(&self) -> Kind {
        Kind::Loop
    }

    async fn watermark(&self) -> Result<String> {
        self.with_db(|inner, path| {
            let Some(db) = opened(&mut inner.db, path)? else {
                return Ok("none".to_owned());
            };
            let version = db.data_version()?;
            let marks = match inner.marks {
                Some((seen, marks)) if seen == version => marks,
                _ => db.change_marks()?,
            };
            inner.marks = Some((version, marks));
            let ChangeMarks {
                runs,
                attempts,
                processes,
                finished,
                verifications,
                transitions,
                events,
            } = marks;
            Ok(format!(
                "r{runs}.a{attempts}.p{processes}.f{finished}.v{verifications}.t{transitions}.\
                 e{events}"
            ))
        })
        .await
    }

    async fn queue(&self, query: &QueueQuery) -> Result<QueueView> {
        let snapshot = self.snapshot().await?;
        Ok(rows::queue(&snapshot, query, now_ms()))
    }

    async fn task(&self, id: &str) -> Result<Option<TaskView>> {
        let Some(run) = id.parse::<i64>().ok().filter(|id| *id > 0).map(RunId) else {
            return Ok(None);
        };
        self.with_db(move |inner, path| {
            let Some(db) = opened(&mut inner.db, path)? else {
                return Ok(None);
            };
            let history = match db.history(run) {
                Ok(history) => history,
                Err(StateError::NoSuchRun(_)) => return Ok(None),
                Err(error) => return Err(error.into()),
            };
            let events = db.events(run)?;
            Ok(Some(timeline::task(history, &events)))
        })
        .await
    }

    async fn analytics(&self) -> Result<Analytics> {
        let snapshot = self.snapshot().await?;
        Ok(figures::analytics(&snapshot, now_ms()))
    }

    async fn metrics(&self) -> Result<Metrics> {
        let snapshot = self.snapshot().await?;
        Ok(figures::metrics(&snapshot, now_ms()))
    }

    async fn act(&self, action: &Action) -> Result<ActionDone> {
        Err(DashboardError::Unsupported(instead(action, &self.path)))
    }
}

/// What to run instead of `action`: `verdict loop` is driven from its terminal, not the page.
fn instead(action: &Action, path: &Path) -> String {
    // `.verdict/state.db` sits in the workspace's root.
    let root = path
        .parent()
        .and_then(Path::parent)
        .map_or_else(|| ".".to_owned(), |root| root.display().to_string());
    let loop_runs =
        "a loop's runs are driven by `verdict loop` in its terminal, not from this page";
    match action {
        Action::Retry { task, .. } => format!(
            "{loop_runs}: to try run {task}'s task again with guidance, run `verdict loop -C \
             {root} --task-file FILE --guide TEXT` with its task in FILE (`verdict history {task}` \
             shows it); that starts a new run with the guidance in every retry prompt"
        ),
        Action::Cancel(target) | Action::Pause(target) => format!(
            "{loop_runs}: to stop {}, press Ctrl-C where `verdict loop` runs; the run waits, \
             interrupted, and `verdict loop -C {root} --resume` continues it",
            what(target)
        ),
        Action::Resume(target) => format!(
            "{loop_runs}: to resume {}, run `verdict loop -C {root} --resume` (the latest \
             unfinished run), or with `--task-file FILE` holding its task",
            what(target)
        ),
    }
}

/// The tasks an action names, in words.
fn what(target: &Target) -> String {
    match target {
        Target::Task(id) => format!("run {id}"),
        Target::Campaign(name) => format!("campaign {name} (a loop has none)"),
        Target::Agent(name) => format!("the runs of agent {name}"),
    }
}
