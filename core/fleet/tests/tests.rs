//! The fleet's integration tests: one binary, one module per file.
//!
//! `store.rs` is the conformance suite of the `Store` contract, written against
//! `Arc<dyn Store>` only; `backends.rs` runs it on each backend; `sqlite.rs` holds what only
//! the embedded backend has (its file, several processes on it); `workdir.rs` checks a task's
//! work directory with real git.

#[macro_use]
mod store;
mod backends;
mod sqlite;
mod workdir;
