//! verdict-core's integration tests: one test binary, one module per part of the engine.

mod support;

mod agent;
mod agent_loop_parts;
mod budgets;
mod cache;
mod cache_runs;
mod digest_groups;
mod digest_once;
mod digests;
mod driver;
mod guard;
mod guard_identity;
mod lock;
mod pipeline;
mod process;
mod render;
mod schema;
mod snapshot;
mod state;
mod wild;
