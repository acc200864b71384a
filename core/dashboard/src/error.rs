//! The dashboard's errors.

/// What went wrong reading a source or serving a page.
#[derive(Debug, thiserror::Error)]
pub enum DashboardError {
    /// The fleet's database failed.
    #[error(transparent)]
    Fleet(#[from] verdict_fleet::FleetError),
    /// The workspace's state database failed.
    #[error(transparent)]
    State(#[from] verdict_core::state::StateError),
    /// The source does not take this action.
    #[error("{0}")]
    Unsupported(String),
    /// The action or query is not valid.
    #[error("{0}")]
    Invalid(String),
    /// A blocking read could not finish.
    #[error("a database read stopped: {0}")]
    Join(#[from] tokio::task::JoinError),
}

/// The dashboard's result.
pub type Result<T, E = DashboardError> = std::result::Result<T, E>;
