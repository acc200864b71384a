//! The CLI's integration tests: one test binary that runs the real `verdict` binary, one module
//! per command.

mod support;

mod action;
mod bounds;
mod cache;
mod cli;
mod contain;
mod dashboard;
mod digest_paths;
mod fleet;
mod fleet_chaos;
mod guard;
mod history;
mod hook;
mod junit;
mod r#loop;
mod man;
mod mcp;
mod never_clean;
mod outputs;
mod post_edit;
mod presets;
mod run;
mod secrets;
mod shard;
mod state_dir;
