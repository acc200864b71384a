//! `verdict loop`: drives a coding agent to a green verification (the loop itself is
//! `verdict_core::agent_loop`; this is its command line).
//!
//! One file per job:
//! - `args.rs`: the command line (`Args`, its help and exit codes);
//! - `command.rs`: the command — the task, the sink and guide, the run, its exit code;
//! - `settings.rs`: the run's settings — flags over a resumed run's own over `verdict.toml`'s
//!   `[loop]` over the embedded defaults;
//! - `build.rs`: what a run needs from them (the agents, the verification, the policies), built
//!   alike for `verdict loop` and a fleet's attempts;
//! - `verify.rs`: `verdict run`'s pipeline as the loop's verification, and the flaky re-run;
//! - `output.rs` and `describe.rs`: the events as NDJSON (`--events FILE`, `--format jsonl`), a
//!   line per step on stderr for people, and the result on stdout.

mod args;
mod build;
mod command;
mod describe;
mod output;
mod settings;
mod verify;

pub(crate) use args::Args;
pub(crate) use build::{Built, build, policies};
pub(crate) use command::run;
