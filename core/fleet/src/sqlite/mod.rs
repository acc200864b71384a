//! The embedded backend: one SQLite file in WAL mode, for a fleet on one machine with no
//! service to start. Several worker processes may share the file: every write is one
//! `BEGIN IMMEDIATE` transaction (the write lock taken up front), writers wait for each other
//! (a long busy timeout, and a retry of `SQLITE_BUSY` on top), and readers never block writers.
//!
//! ```text
//! open.rs     opening: the directory, the network-filesystem check, pragmas, migrations
//! run.rs      the connection behind a mutex, run on tokio's blocking threads, busy retries
//! store.rs    the Store trait, each method one transaction handed to run.rs
//! claim.rs    claim (with the expiry of waiting tasks past their deadline or cost cap), heartbeat
//! finish.rs   finish and rescue: how an attempt ends
//! control.rs  add, limits, cancel/pause/resume, retry, prune
//! read.rs     rows to records, and the read-only queries
//! dashboard.rs a dashboard's reads: the queue's pages, history, facets, gauges, watermark
//! ```

mod claim;
mod control;
mod dashboard;
mod finish;
mod open;
mod read;
mod run;
mod store;

pub use open::SqliteStore;
