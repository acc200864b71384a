//! The one module that spawns processes: [`ProcessRunner`], the [`Runner`](crate::verifier::Runner) every verifier's
//! command goes through.
//!
//! What it guarantees, in the manner of cargo-nextest's runner:
//!
//! - **No shell.** The program and its arguments are an argv vector. A bare program name is looked
//!   up on the `PATH` the command will see (the spec's, else the runner's, else verdict's own); a
//!   relative path with a `/` is resolved against the command's working directory. Standard input is
//!   `/dev/null`, so a tool that waits for input cannot hang a run — unless
//!   [`ProcessRunner::run_with`] is given bytes for it (an agent's prompt), which are written and
//!   then the pipe is closed.
//! - **A process group per command.** The child is the leader of a new process group, so that a
//!   time-out, Ctrl-C or cleanup reaches every process it started (the node processes that `npx`
//!   spawns, a test runner's workers), not just the first one.
//! - **Stopping is graceful, then certain.** On a time-out the group gets `SIGTERM`, then, if
//!   anything is still alive after the grace period, `SIGKILL`. On cancellation (Ctrl-C) the group
//!   first gets `SIGINT` — what the tool would have received from the terminal had it been in the
//!   foreground group — then the same grace → `SIGTERM` → grace → `SIGKILL` flow. A second cancel
//!   (a second Ctrl-C) skips what is left of the grace periods. A tool ended by a signal it did not
//!   get from us is [`Exit::Signal`](crate::verifier::Exit::Signal).
//! - **Pipes drained while the tool runs.** Standard output and standard error are read
//!   concurrently and written to the log file in the order they arrive, so a tool that writes
//!   megabytes to one of them never blocks, and memory stays bounded whatever the output size.
//! - **Logs are bounded and private.** A log keeps the first and the last 16 MiB of an output
//!   larger than its limit (32 MiB by default), with a line between them saying how many bytes
//!   were left out, and [`Captured::log_cut`](crate::verifier::Captured::log_cut) says so to the
//!   pipeline, which never passes a run whose kept output lacks the tool's summary. Logs are
//!   created 0600 in directories created 0700: they are raw output, secrets included.
//! - **Nothing is left behind.** Once the tool exits, its pipes get a short *leak timeout* to close
//!   (a grandchild that inherited them may keep them open); then any process still in the group is
//!   stopped with the same grace flow, and the tool itself is always reaped. Processes that left the
//!   group (`setsid`, a daemonizing tool) are out of reach of the group's signals; the command's
//!   containment (see [`Mechanism`]: its cgroup, else a walk for its marker with verdict as
//!   subreaper) stops them on every path, and their hold on the pipes is cut after the leak
//!   timeout so they cannot hang verdict. A member that is already a zombie counts as gone.
//! - **Recorded while running.** With [`ProcessRunner::with_records`], each command is recorded
//!   until it is stopped, and [`stop_leftovers`] stops what a verdict killed with `-9` left.
//! - **Output files are fresh.** [`CommandSpec::output_files`](crate::verifier::CommandSpec::output_files) (relative ones against the working
//!   directory) are deleted before the tool starts and read back after it ends, so a tool that
//!   dies before writing its report is never credited with the previous run's. One that was not
//!   written, cannot be read, or is larger than the cap (256 MiB by default) is handed over as
//!   `None`, with a warning: the verifier then falls back on the log, or reports the run as
//!   errored if it cannot do without the file — never a pass built on a cut-off report.
//! - **Fail closed.** A program that cannot be started, a working directory that does not exist, a
//!   stale output file that cannot be removed or a log that cannot be written all end as
//!   [`Exit::NotStarted`](crate::verifier::Exit::NotStarted) with a message naming what failed — an errored verification, never a pass.

mod cancel;
mod contain;
mod drain;
pub(crate) mod group;
mod outputs;
mod record;
mod runner;
mod stop;
mod supervise;

pub use cancel::CancelHandle;
pub use contain::{
    CONTAINMENT_ENV, MARKER_ENV, Mechanism, describe as describe_containment, mechanism,
};
pub use group::{GroupEnd, ProcStat, parse_stat, proc_stat, process_start_time, stop_group};
pub use record::stop_leftovers;
pub use runner::{
    DEFAULT_GRACE, DEFAULT_LEAK_TIMEOUT, DEFAULT_LOG_LIMIT, DEFAULT_MAX_OUTPUT_FILE, ProcessRunner,
    RunExtras,
};
pub(crate) use supervise::resolve_program;
