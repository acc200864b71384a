//! A fleet of loop tasks: a queue on an embedded SQLite database (one machine, nothing to start)
//! or on PostgreSQL (several machines), and the workers that take due tasks and run one attempt
//! of each at a time through the same driver as `verdict loop`.
//!
//! The pieces, one file each:
//!
//! ```text
//! task.rs      what a task is (NewTask from a JSONL line, its key, TaskRecord, TaskState)
//! store.rs     the Store contract both backends keep: add, claim, heartbeat, finish, rescue,
//!              control, status, prune — every transition one transaction, time from the database
//!              — and a dashboard's reads: list, history, facets, gauges, watermark
//! list.rs      the dashboard's queue filter, written once for both dialects
//! sqlite/      the embedded backend (WAL, BEGIN IMMEDIATE, refused on a network filesystem)
//! postgres/    the server backend (FOR UPDATE SKIP LOCKED, NOTIFY on every transition)
//! schema.rs    the one schema, migrated by verdict on both
//! workdir/     a task's work directory: a git worktree or clone at its revision, its setup
//!              command, and the branch and diff that keep what its agent changed
//! worker.rs    `verdict fleet work`: claims, leases and heartbeats, drain, rescue
//! stats.rs     fleet analytics, computed from the stored attempts of either backend
//! ```
//!
//! **Invariant:** every write of an attempt after its claim carries the claim's lease token and
//! changes nothing once the lease is lost; the database fences late writes, and a worker that
//! cannot renew its lease stops its agent before the lease expires.

pub mod error;
mod list;
pub mod postgres;
mod schema;
pub mod sqlite;
pub mod stats;
pub mod store;
pub mod task;
pub mod workdir;
pub mod worker;

pub use error::FleetError;
pub use postgres::PgStore;
pub use sqlite::SqliteStore;
pub use store::{
    AgentLimit, AttemptEnd, AttemptRecord, Claim, Control, Counts, Facets, Gauges, HistoryRecord,
    LeaseState, ListPage, ListQuery, Listed, ListedTask, Pruned, Rescued, Selector, Store,
    WorkerId,
};
pub use task::{NewTask, TaskId, TaskRecord, TaskState};
