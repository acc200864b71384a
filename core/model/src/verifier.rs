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
    /// This run's part of a test run split across machines (`verdict run --shard 2/3`), or `None`
    /// for a whole run. Only verifiers whose [`Verifier::sharding`] is [`Sharding::Split`] see
    /// their command run in a shard other than the first, and they must then run only their
    /// part of the tests: the tool's own option (`--shard`, `--partition`) or [`Shard::split`]
    /// over their test files.
    pub shard: Option<Shard>,
    /// How long each test file took in an earlier run, in milliseconds, by path relative to the
    /// root (summed over its tests): what [`Shard::split`] balances shards by. Empty: by count.
    pub test_durations: BTreeMap<String, u64>,
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
            shard: None,
            test_durations: BTreeMap::new(),
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

/// One part of a run split across `total` machines: `index` is 1-based (`--shard 2/3`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Shard {
    /// Which part, from 1 to [`Shard::total`].
    pub index: u32,
    /// How many parts the run is split into (at least 1).
    pub total: u32,
}

/// Why `i/n` is not a shard.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid shard `{0}`: expected INDEX/TOTAL with 1 <= INDEX <= TOTAL, such as 1/3")]
pub struct InvalidShard(pub String);

impl Shard {
    /// Shard `index` of `total`; `None` unless `1 <= index <= total`.
    pub fn new(index: u32, total: u32) -> Option<Shard> {
        (index >= 1 && index <= total).then_some(Shard { index, total })
    }

    /// Whether this is the first shard, the one that runs what cannot be split.
    pub fn is_first(self) -> bool {
        self.index == 1
    }

    /// This shard's part of `files` (paths relative to the root): the files are dealt into
    /// [`Shard::total`] lists of about equal weight and this shard's list comes back, sorted.
    ///
    /// The weight of a file is its duration in `durations` (an earlier run's); a file that has
    /// none weighs the mean of those that do (1 when none does, which splits by count). Files are
    /// dealt heaviest first, each to the lightest list so far (the lowest index on a tie), so the
    /// split depends only on the files and the durations, never on the order they come in or on
    /// the machine: every shard computes the same lists, and each file is in exactly one.
    pub fn split(self, files: &[String], durations: &BTreeMap<String, u64>) -> Vec<String> {
        let mut files: Vec<&String> = files.iter().collect();
        files.sort();
        files.dedup();
        let known: Vec<u64> = files
            .iter()
            .filter_map(|file| durations.get(file.as_str()).copied())
            .collect();
        let fallback = if known.is_empty() {
            1
        } else {
            (known.iter().sum::<u64>() / known.len() as u64).max(1)
        };
        let weight = |file: &str| durations.get(file).copied().unwrap_or(fallback).max(1);
        // Heaviest first; the names break ties, so the order never depends on the input's.
        files.sort_by(|a, b| weight(b).cmp(&weight(a)).then_with(|| a.cmp(b)));
        let total = self.total.max(1) as usize;
        let mut loads = vec![0u64; total];
        let mut mine = Vec::new();
        for file in files {
            let lightest = (0..total).min_by_key(|&i| (loads[i], i)).unwrap_or(0);
            loads[lightest] = loads[lightest].saturating_add(weight(file));
            if lightest + 1 == self.index as usize {
                mine.push(file.clone());
            }
        }
        mine.sort();
        mine
    }
}

impl std::fmt::Display for Shard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}", self.index, self.total)
    }
}

impl std::str::FromStr for Shard {
    type Err = InvalidShard;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let invalid = || InvalidShard(text.to_owned());
        let (index, total) = text.split_once('/').ok_or_else(invalid)?;
        let number = |part: &str| {
            // Digits only: no sign, no spaces, no `+1`.
            if part.is_empty() || !part.bytes().all(|b| b.is_ascii_digit()) {
                return None;
            }
            part.parse::<u32>().ok()
        };
        let (index, total) = (
            number(index).ok_or_else(invalid)?,
            number(total).ok_or_else(invalid)?,
        );
        Shard::new(index, total).ok_or_else(invalid)
    }
}

/// How a verifier takes part in a run split into shards ([`Workspace::shard`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Sharding {
    /// It runs whole, in the first shard only, and the other shards list it as not run there:
    /// type checkers, linters, builds, scripts, and test runners that cannot split their tests.
    Whole,
    /// It runs in every shard, and its command runs only that shard's part of the tests (the
    /// tool's own option, or [`Shard::split`] over its test files). A shard left with none of
    /// its tests says so with [`VerifierError::EmptyShard`] or by running no test: the pipeline
    /// then lists it as not run in that shard, neither a pass nor a failure.
    Split,
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
    /// How many bytes were written there: the file's length.
    pub log_bytes: u64,
    /// How many bytes of output the log left out. A runner may keep only the first and the last
    /// part of an output larger than its limit, with a line between them saying what it cut; a
    /// report built on such a log may miss what was in the middle. 0 when the log holds it all.
    pub log_cut: u64,
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

/// The files that decide how a verifier's tool runs and what it counts as a pass, beside the code
/// and the tests it checks: its configuration, set-up files, plugins and reporters, the scripts that
/// start it. The loop's cheating guard judges a change to them as it judges a change to tests: an
/// attempt's pass counts only if it still passes with the starting tree's versions put back.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Infrastructure {
    /// The files, each with the part of it that belongs to the tool.
    pub files: Vec<InfraFile>,
}

impl Infrastructure {
    /// Adds `glob` whole.
    pub fn whole(mut self, glob: &str) -> Infrastructure {
        self.files.push(InfraFile {
            glob: glob.to_owned(),
            part: Part::Whole,
        });
        self
    }

    /// Adds the `part` of the files `glob` matches.
    pub fn part(mut self, glob: &str, part: Part) -> Infrastructure {
        self.files.push(InfraFile {
            glob: glob.to_owned(),
            part,
        });
        self
    }
}

/// One file (or set of files) of a verifier's [`Infrastructure`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InfraFile {
    /// A gitignore-style glob, `/` separated, matched against paths relative to the workspace
    /// root: `jest.config.*`, `**/conftest.py`, `.config/nextest.toml`.
    pub glob: String,
    /// The part of the file that is the tool's; the rest (a project's dependencies in
    /// `package.json`) may change freely.
    pub part: Part,
}

/// Which part of an [`InfraFile`] belongs to the tool.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Part {
    /// All of it.
    Whole,
    /// The value at a path of keys of a JSON document: `["jest"]`, `["scripts", "test"]`. A last
    /// key ending in `*` matches every key it starts (`["scripts", "test*"]`).
    Json(Vec<String>),
    /// The table or value at a path of keys of a TOML document: `["tool", "pytest"]`, `["lib"]`;
    /// the last key may end in `*` as for [`Part::Json`].
    Toml(Vec<String>),
    /// The sections of an INI file (`setup.cfg`, `tox.ini`) with this name: `tool:pytest`; a name
    /// ending in `*` matches every section it starts (`testenv*`).
    Ini(String),
}

/// What a test verifier runs for a check scoped to some files ([`Verifier::related_tests`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Related {
    /// This command runs the tests related to the targets. A run that finds none of them ran
    /// nothing: the caller says so, never that it passed.
    Tests {
        /// The command.
        command: CommandSpec,
        /// The targets it runs no test for, since the tool maps them to none without running
        /// the whole suite (a source file pytest has no test of by name).
        left_out: Vec<String>,
    },
    /// None of the targets leads to a test the tool can run on its own; the reason says why.
    Nothing(String),
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
    /// A run split into shards left this shard none of the verifier's test files
    /// ([`Sharding::Split`]): not a pass, not a failure; the pipeline lists it as not run here.
    #[error("{tool} has no test file for shard {shard}: more shards than test files")]
    EmptyShard {
        /// The tool's name.
        tool: String,
        /// The shard.
        shard: Shard,
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

    /// A command that runs only the tests related to `targets`, for a check scoped to some files
    /// (MCP's `verify` with `files`). Each target is a path relative to the workspace root of an
    /// existing file, or a test's node id (`tests/test_x.py::test_y`) whose file exists; what
    /// "related" means is the tool's own (jest's `--findRelatedTests`, `vitest related`, test
    /// files named by path). `None` (the default) when the tool cannot run part of its tests by
    /// file: the caller then does not run it rather than run it whole.
    fn related_tests(
        &self,
        _workspace: &Workspace,
        _targets: &[String],
    ) -> Option<Result<Related, VerifierError>> {
        None
    }

    /// The files that decide how its tool runs and what it counts as a pass (see
    /// [`Infrastructure`]). The default is none: a configured or plugin verifier's command is
    /// the project's, and the guard's own rules (files beside the tests) still apply.
    fn infrastructure(&self, _workspace: &Workspace) -> Infrastructure {
        Infrastructure::default()
    }

    /// How it takes part in a run split into shards (see [`Sharding`]). The default,
    /// [`Sharding::Whole`], runs it whole in the first shard only; a test verifier that splits its
    /// tests returns [`Sharding::Split`] and reads [`Workspace::shard`] in [`Verifier::command`].
    fn sharding(&self, _workspace: &Workspace) -> Sharding {
        Sharding::Whole
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
    fn shards_parse_from_index_slash_total_only() {
        assert_eq!("2/3".parse(), Ok(Shard { index: 2, total: 3 }));
        assert_eq!("1/1".parse(), Ok(Shard { index: 1, total: 1 }));
        for bad in [
            "0/3", "4/3", "1/0", "0/0", "x", "1/", "/3", "1/3/1", "-1/3", "+1/3", " 1/3", "1.0/3",
            "1 / 3",
        ] {
            assert!(bad.parse::<Shard>().is_err(), "{bad} parsed");
        }
    }

    fn split_all(
        total: u32,
        files: &[String],
        durations: &BTreeMap<String, u64>,
    ) -> Vec<Vec<String>> {
        (1..=total)
            .map(|index| Shard { index, total }.split(files, durations))
            .collect()
    }

    #[test]
    fn every_file_lands_in_exactly_one_shard_whatever_the_input_order() {
        let files: Vec<String> = (0..10).map(|i| format!("tests/test_{i}.py")).collect();
        let parts = split_all(3, &files, &BTreeMap::new());
        let mut all: Vec<String> = parts.concat();
        all.sort();
        assert_eq!(all, files);
        // By count: 4, 3, 3.
        assert_eq!(parts.iter().map(Vec::len).collect::<Vec<_>>(), [4, 3, 3]);
        let mut reversed = files.clone();
        reversed.reverse();
        assert_eq!(split_all(3, &reversed, &BTreeMap::new()), parts);
        // More shards than files: the last shards are empty.
        let two = &files[..2];
        let parts = split_all(3, two, &BTreeMap::new());
        assert_eq!(parts.iter().map(Vec::len).collect::<Vec<_>>(), [1, 1, 0]);
    }

    #[test]
    fn durations_balance_the_shards() {
        let files: Vec<String> = ["a", "b", "c", "d", "e"]
            .iter()
            .map(|f| format!("{f}.py"))
            .collect();
        // One slow file and four fast ones: by count the slow one would share a shard; by
        // duration it has a shard to itself.
        let durations: BTreeMap<String, u64> = [
            ("a.py", 9000),
            ("b.py", 1000),
            ("c.py", 1000),
            ("d.py", 1000),
            ("e.py", 1000),
        ]
        .into_iter()
        .map(|(f, d)| (f.to_owned(), d))
        .collect();
        let parts = split_all(2, &files, &durations);
        assert_eq!(parts[0], ["a.py"]);
        assert_eq!(parts[1], ["b.py", "c.py", "d.py", "e.py"]);
        let by_count = split_all(2, &files, &BTreeMap::new());
        assert_eq!(by_count[0], ["a.py", "c.py", "e.py"]);
        // A file with no duration weighs the mean of the others (here 2600 ms).
        let mut with_new = files.clone();
        with_new.push("f.py".to_owned());
        let parts = split_all(2, &with_new, &durations);
        assert_eq!(parts[0], ["a.py"]);
        assert_eq!(parts[1].len(), 5);
    }

    #[test]
    fn verifier_is_object_safe() {
        fn assert_dyn(_: Option<Box<dyn Verifier>>) {}
        assert_dyn(None);
    }
}
