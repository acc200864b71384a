//! The [`Verifier`] trait: one check a project can run (tsc, eslint, a test runner, cargo, …).
//!
//! A verifier does not spawn processes itself. It *describes* the command it needs
//! ([`CommandSpec`]: program, argv, environment, working directory, timeout, what exit codes mean)
//! and *interprets* what that command printed ([`Captured`] → [`Report`]). Running the command —
//! process groups, time-outs, killing whole process trees, draining pipes — is the job of one
//! [`Runner`], so that every verifier gets it right the same way, and so that verifiers loaded as
//! plugins exchange only plain data with the host.
//!
//! **Invariant:** verifier crates never spawn processes; only a [`Runner`] does.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use async_trait::async_trait;
use serde::{Deserialize, Serialize};

use crate::model::{Kind, Report};

/// The project a verifier looks at.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Workspace {
    /// The project's root directory.
    pub root: PathBuf,
    /// This run's directory (`.verdict/runs/<run-id>/` under the root), where logs go and where a
    /// verifier puts the files its tool writes machine-readable output to
    /// (`<run_dir>/<verifier>.json`). It exists before [`Verifier::command`] is called.
    pub run_dir: PathBuf,
    /// Command lines that stand, for the verifier they name, in place of what the project's own
    /// files declare (`[verifiers.<name>] command` in verdict.toml): the verifier takes its tool's
    /// arguments, paths and environment from it. Plain text, split as a shell would split it,
    /// never run by one.
    pub commands: BTreeMap<String, String>,
}

impl Workspace {
    /// A workspace rooted at `root`, with its run directory at `.verdict/runs/current`.
    pub fn new(root: impl Into<PathBuf>) -> Self {
        let root = root.into();
        let run_dir = root.join(".verdict").join("runs").join("current");
        Workspace {
            root,
            run_dir,
            commands: BTreeMap::new(),
        }
    }

    /// The same workspace with another run directory.
    pub fn with_run_dir(mut self, run_dir: impl Into<PathBuf>) -> Self {
        self.run_dir = run_dir.into();
        self
    }

    /// `relative` resolved against the root.
    pub fn path(&self, relative: impl AsRef<Path>) -> PathBuf {
        self.root.join(relative)
    }
}

/// Whether a verifier applies to a workspace, and why — shown by `verdict list`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Applicability {
    /// It applies; the reason names the files that said so (`tsconfig.json`).
    Applies(String),
    /// It does not; the reason says what is missing.
    DoesNotApply(String),
}

/// What a command's exit code means, as far as the tool documents it.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct ExitCodes {
    /// Exit codes that mean the tool ran and found nothing (usually `[0]`).
    pub pass: Vec<i32>,
    /// Exit codes that mean the tool ran and found failures in the code (tsc and eslint: `[1]`,
    /// pytest: `[1]`).
    pub fail: Vec<i32>,
}

/// A command a verifier needs run: plain data, with no shell involved anywhere.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CommandSpec {
    /// The program: a path, or a name looked up on `PATH`.
    pub program: PathBuf,
    /// The arguments, one element each; never joined into a shell string.
    pub args: Vec<String>,
    /// Extra environment variables.
    #[serde(default)]
    pub env: BTreeMap<String, String>,
    /// The working directory.
    pub cwd: PathBuf,
    /// How long the command may run before its whole process tree is stopped.
    pub timeout: Duration,
    /// What its exit codes mean.
    pub exit_codes: ExitCodes,
    /// Files the tool writes its machine-readable output to (eslint `-o`, jest `--outputFile`,
    /// pytest `--junitxml`), read back after it exits and handed to [`Verifier::interpret`].
    #[serde(default)]
    pub output_files: Vec<PathBuf>,
}

/// How a command ended.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "status")]
pub enum Exit {
    /// It exited with this code.
    Code {
        /// The exit code.
        code: i32,
    },
    /// It was ended by this signal.
    Signal {
        /// The signal number.
        signal: i32,
    },
    /// It ran past its time-out and was stopped.
    TimedOut,
    /// It was stopped because the run was interrupted (Ctrl-C).
    Cancelled,
    /// It could not be started (not installed, not executable); the message says why.
    NotStarted {
        /// Why it could not start.
        message: String,
    },
}

/// What a command printed and how it ended, as handed back by a [`Runner`].
///
/// The output itself is not held in memory (a tool may print gigabytes): the runner writes standard
/// output and standard error, interleaved as they arrived, to [`Captured::log_path`], and a
/// verifier streams it from there ([`Captured::open_log`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Captured {
    /// How it ended.
    pub exit: Exit,
    /// Where the full output was written (what a CI log would show).
    pub log_path: PathBuf,
    /// How many bytes of output were written there.
    pub log_bytes: u64,
    /// The contents of [`CommandSpec::output_files`], in order; `None` for a file not written.
    pub output_files: Vec<Option<Vec<u8>>>,
    /// How long it ran.
    pub duration: Duration,
}

impl Captured {
    /// Opens the output log for reading.
    pub fn open_log(&self) -> std::io::Result<std::fs::File> {
        std::fs::File::open(&self.log_path)
    }
}

/// The files a verifier's result depends on, for the cache that skips a verifier whose inputs are
/// unchanged since it last passed.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Inputs {
    /// Gitignore-style globs, relative to the workspace root, of the project files the tool reads
    /// (`**/*.ts`, `tsconfig.json`). Files ignored by the project's `.gitignore` never count.
    pub globs: Vec<String>,
    /// Files outside that set whose content identifies the tool's version or configuration
    /// (`node_modules/typescript/package.json`, `Cargo.lock`); missing ones count as absent.
    pub tool_files: Vec<PathBuf>,
    /// The directory `globs` are matched from, when the result depends on files above the
    /// workspace root: a package of a monorepo imports its sibling packages. `None` is the
    /// workspace root. Absolute, or relative to the workspace root.
    pub root: Option<PathBuf>,
}

/// Why a verifier could not even describe its command.
#[derive(Debug, thiserror::Error)]
pub enum VerifierError {
    /// The tool is not installed in the project; the hint says how to install it.
    #[error("{tool} is not installed: {hint}")]
    NotInstalled {
        /// The tool's name.
        tool: String,
        /// How to install it (`npm install --save-dev typescript`).
        hint: String,
    },
    /// The project's files could not be read or make no sense to the verifier.
    #[error("failed to read the project for {tool}: {message}")]
    Project {
        /// The tool's name.
        tool: String,
        /// What went wrong.
        message: String,
    },
}

/// A time-out as reports write it (`90s`, `10m`, `500ms`); verifiers that word their own time-out
/// use it too, so that the two read alike.
pub fn human_duration(duration: Duration) -> String {
    let secs = duration.as_secs();
    if secs >= 60 && secs.is_multiple_of(60) {
        format!("{}m", secs / 60)
    } else if secs >= 1 {
        format!("{secs}s")
    } else {
        format!("{}ms", duration.as_millis())
    }
}

/// The one component that spawns processes (see the module docs).
#[async_trait]
pub trait Runner: Send + Sync {
    /// Runs `spec` to completion (or its time-out, or cancellation), writing its interleaved
    /// output to `log` (created, with its parent directories), and returns how it ended.
    async fn run(&self, spec: &CommandSpec, log: &Path) -> Captured;
}

/// One check a project can run.
///
/// Contract: [`Verifier::name`] is stable (it is what `--only` takes and what reports show);
/// [`Verifier::applies`] only reads files; [`Verifier::command`] only builds data;
/// [`Verifier::interpret`] is a pure function of the captured output and must fail closed — a
/// crash, a time-out, or a failing exit code with nothing understood is never a pass.
#[async_trait]
pub trait Verifier: Send + Sync {
    /// The verifier's name: `tsc`, `eslint`, `jest`, `cargo-test`, or a project-defined one.
    fn name(&self) -> &str;

    /// The kind of diagnostics it reports.
    fn kind(&self) -> Kind;

    /// Whether it applies to `workspace`, judged from the project's own files.
    fn applies(&self, workspace: &Workspace) -> Applicability;

    /// The command to run in `workspace`.
    fn command(&self, workspace: &Workspace) -> Result<CommandSpec, VerifierError>;

    /// Turns what the command printed into a report. It need not check the exit code against
    /// what it parsed: the pipeline does that for every verifier alike.
    fn interpret(&self, spec: &CommandSpec, captured: &Captured) -> Report;

    /// The files its result depends on. `None` (the default) means it cannot tell, and it is
    /// never skipped by the cache.
    fn inputs(&self, _workspace: &Workspace) -> Option<Inputs> {
        None
    }

    /// A command that re-runs only what failed in `previous` with the tool's own filters (jest
    /// `--onlyFailures`, pytest `--lf`, test names), for `--failed-first`. `None` (the default)
    /// when the tool has no such filter or `previous` names nothing to re-run.
    fn rerun_failed(&self, _workspace: &Workspace, _previous: &Report) -> Option<CommandSpec> {
        None
    }

    /// A command that checks only `files` (paths relative to the workspace root, each an
    /// existing file), for the check after an agent's edit. `None` (the default) when the tool
    /// cannot check files apart from its whole project (tsc needs the whole program) or none of
    /// `files` is of a kind it checks.
    fn command_for_files(
        &self,
        _workspace: &Workspace,
        _files: &[String],
    ) -> Option<Result<CommandSpec, VerifierError>> {
        None
    }

    /// Runs the verifier with `runner`, writing the output to `log`: describe, run, interpret.
    /// Rarely overridden.
    async fn verify(&self, workspace: &Workspace, runner: &dyn Runner, log: &Path) -> Report {
        match self.command(workspace) {
            Ok(spec) => {
                let captured = runner.run(&spec, log).await;
                self.interpret(&spec, &captured)
            }
            Err(error) => Report::errored(self.name(), error.to_string()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The trait must stay object-safe: linked, configured and plugin verifiers share one registry.
    #[test]
    fn verifier_is_object_safe() {
        fn assert_dyn(_: Option<Box<dyn Verifier>>) {}
        assert_dyn(None);
    }
}
