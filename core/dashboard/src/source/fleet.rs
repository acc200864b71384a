//! A fleet's queue as a [`Source`]: any [`Store`], SQLite or PostgreSQL.

use std::sync::Arc;

use async_trait::async_trait;
use verdict_fleet::Store;

use crate::error::{DashboardError, Result};
use crate::source::Source;
use crate::view::{Action, ActionDone, Analytics, Kind, Metrics, QueueQuery, QueueView, TaskView};

/// A fleet database, read through its store.
pub struct FleetSource {
    store: Arc<dyn Store>,
}

impl FleetSource {
    /// Reads `store`.
    pub fn new(store: Arc<dyn Store>) -> FleetSource {
        FleetSource { store }
    }
}

#[async_trait]
impl Source for FleetSource {
    fn describe(&self) -> String {
        self.store.describe()
    }

    fn kind(&self) -> Kind {
        Kind::Fleet
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
