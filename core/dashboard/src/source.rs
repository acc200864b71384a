//! Where a page's data comes from: a fleet's [`Store`](verdict_fleet::Store) or a workspace's
//! loop state database, behind one trait. A source returns views whose text is redacted (the
//! view types allow nothing else) and a watermark that changes with every committed transition.

use async_trait::async_trait;
use tokio::sync::mpsc;

use crate::error::Result;
use crate::view::{Action, ActionDone, Analytics, Kind, Metrics, QueueQuery, QueueView, TaskView};

/// A database the dashboard reads. Every method is a read of committed state except
/// [`act`](Source::act).
#[async_trait]
pub trait Source: Send + Sync {
    /// What the database is, for the page's header: the file, or the URL without its password.
    fn describe(&self) -> String;

    /// A fleet's queue or a workspace's loop runs.
    fn kind(&self) -> Kind;

    /// A short text that differs after every committed change a page shows (a task's state, an
    /// attempt, an event, a hold); equal texts mean nothing a page shows has changed.
    async fn watermark(&self) -> Result<String>;

    /// The queue: counts by state, the filters' choices, one page of tasks.
    async fn queue(&self, query: &QueueQuery) -> Result<QueueView>;

    /// One task with its timeline, by id; `None` when there is no such task.
    async fn task(&self, id: &str) -> Result<Option<TaskView>>;

    /// Failures by category, common fingerprints, success per agent and campaign, time spent.
    async fn analytics(&self) -> Result<Analytics>;

    /// What `/metrics` reports.
    async fn metrics(&self) -> Result<Metrics>;

    /// Carries out a person's action. A source that takes none (a loop's database) says so
    /// with [`DashboardError::Unsupported`](crate::DashboardError::Unsupported).
    async fn act(&self, action: &Action) -> Result<ActionDone>;

    /// Hints that something changed, pushed by the database (PostgreSQL's `LISTEN`), each
    /// hint possibly standing for many changes; `None` when the database pushes nothing and
    /// the server only polls [`watermark`](Source::watermark). Hints can be lost (behind a
    /// transaction-pooling proxy), so the server polls as well.
    async fn changes(&self) -> Result<Option<mpsc::Receiver<()>>> {
        Ok(None)
    }
}

mod fleet;
mod workspace;

pub use fleet::FleetSource;
pub use workspace::LoopSource;
