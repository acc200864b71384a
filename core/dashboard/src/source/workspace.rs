//! The runs of `verdict loop` in one workspace as a [`Source`]: its state database.

use std::path::PathBuf;

use async_trait::async_trait;

use crate::error::{DashboardError, Result};
use crate::source::Source;
use crate::view::{Action, ActionDone, Analytics, Kind, Metrics, QueueQuery, QueueView, TaskView};

/// A workspace's state database.
pub struct LoopSource {
    path: PathBuf,
}

impl LoopSource {
    /// Reads the state database at `path`.
    pub fn new(path: PathBuf) -> LoopSource {
        LoopSource { path }
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
        Err(DashboardError::Unsupported("not yet".into()))
    }

    async fn queue(&self, _query: &QueueQuery) -> Result<QueueView> {
        Err(DashboardError::Unsupported("not yet".into()))
    }

    async fn task(&self, _id: &str) -> Result<Option<TaskView>> {
        Err(DashboardError::Unsupported("not yet".into()))
    }

    async fn analytics(&self) -> Result<Analytics> {
        Err(DashboardError::Unsupported("not yet".into()))
    }

    async fn metrics(&self) -> Result<Metrics> {
        Err(DashboardError::Unsupported("not yet".into()))
    }

    async fn act(&self, _action: &Action) -> Result<ActionDone> {
        Err(DashboardError::Unsupported("not yet".into()))
    }
}
