//! The fleet's integration tests: one binary, one module per file.
//!
//! `store.rs` is the conformance suite of the `Store` contract, written against
//! `Arc<dyn Store>` only; `backends.rs` runs it on each backend; `sqlite.rs` holds what only
//! the embedded backend has (its file, several processes on it), `postgres.rs` what only the
//! server backend has (many claimers at once, its transactions, its notifications) on a
//! throw-away cluster (`pg_backend.rs`); `workdir.rs` checks a task's work directory with real
//! git.

#[macro_use]
mod store;
mod backends;
mod pg_backend;
mod postgres;
mod sqlite;
mod workdir;
