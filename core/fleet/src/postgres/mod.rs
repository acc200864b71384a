//! The PostgreSQL backend: several machines on one server. Due tasks and free agent slots are
//! taken with `SELECT … FOR UPDATE SKIP LOCKED`, so claimers never wait on each other; each
//! transition is one transaction, timed by the server's `now()`; every committed transition
//! sends `pg_notify('verdict_fleet', <task id>)` (`hold` for a provider held) and bumps the
//! counter a dashboard's watermark reads.
//!
//! ```text
//! connect.rs   PgStore: the pool, the URL without its password, migrations
//! add.rs       adding tasks, a thousand to a statement
//! sql.rs       the statements, and the helpers that run them
//! claim.rs     claim, heartbeat, rescue: leases and agent slots
//! finish.rs    how an attempt ended
//! control.rs   add's transaction, limits, cancel/pause/resume, retry, prune
//! read.rs      tasks, attempts, events, counts
//! dashboard.rs a dashboard's reads: the queue's pages, history, facets, gauges, watermark
//! listen.rs    LISTEN verdict_fleet on a connection of its own, for a dashboard's live page
//! rows.rs      rows into records
//! store.rs     the Store contract, each method handed to one of the above
//! ```

mod add;
mod claim;
mod connect;
mod control;
mod dashboard;
mod finish;
mod listen;
mod read;
mod rows;
mod sql;
mod store;

pub use connect::PgStore;
pub use listen::listen;
