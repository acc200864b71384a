//! The `pytest` verifier: runs a Python project's tests with the project's own pytest.
//!
//! It applies when the project configures pytest (`pytest.ini`, `[tool.pytest.ini_options]` or
//! `[tool.pytest]` in `pyproject.toml`, `[tool:pytest]` in `setup.cfg`, `[pytest]` in `tox.ini`)
//! or has pytest-style tests (`conftest.py` in the root, `tests/` or `test/`; `test_*.py` or
//! `*_test.py` anywhere a few directories down, dependencies, virtualenvs and hidden directories
//! left out).
//!
//! What it runs, and why: `<python> -m pytest --junitxml=<run_dir>/pytest.xml -o
//! junit_family=xunit1 --color=no`, where `<python>` is the project's virtualenv
//! (`.venv/bin/python`, `venv/bin/python`, then `$VIRTUAL_ENV/bin/python`), else `python3` on
//! `PATH`. `python -m pytest` runs the pytest installed for that interpreter and puts the project
//! root on `sys.path`, as the project's own CI usually does. A virtualenv of the project whose
//! Python cannot run (a dangling `bin/python`) is an error naming it, never replaced by another
//! interpreter.
//! - `--junitxml` is pytest's machine-readable report: exact counts and one element per failing
//!   test, read by [`verdict_summarizers::junit`]. The `xunit1` family adds each test's `file`
//!   and `line`, which make the node id exact (`xunit2`, the default, leaves only the dotted
//!   classname). The human log is kept too: it holds what JUnit lacks (the summary line, the
//!   warnings summary, usage and conftest errors that stop pytest before any report is written).
//! - `--color=no` and `PY_COLORS=0` keep escape sequences out of the log.
//! - The cache plugin stays on: a project whose `addopts` use `--lf` or `--ff` would fail with a
//!   usage error without it. Re-running failed tests does not depend on it either: verdict names
//!   the failing node ids itself (they are relative to pytest's rootdir, which is the workspace
//!   root whenever pytest's configuration is there).
//!
//! Inputs for the cache: every file of the project that `.gitignore` does not ignore (tests read
//! templates and data of any kind), but virtualenvs, caches and coverage output; and what lists
//! the packages installed for the Python that runs pytest (each `*.dist-info/RECORD` of its
//! site-packages, with `*.egg-info`, `*.egg-link` and `*.pth`), so that installing, upgrading or
//! removing a package is seen. An environment that cannot be listed has no cache.
//!
//! Exit codes (pytest's documented ones): 0 all passed; 1 tests failed; 2 interrupted (collection
//! errors: the code does not load, a failure); 3 internal error, 4 usage error (also a conftest
//! that fails to import) — errored unless the output shows the code failing to load; 5 no tests
//! collected — errored.
//! A Python without pytest prints `No module named pytest`: errored, with the install hint.

use std::collections::{HashMap, HashSet};
use std::ffi::OsString;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::time::Duration;
use verdict_model::Tool;

use verdict_model::verifier::{
    Applicability, Captured, CommandSpec, Exit, ExitCodes, InfraFile, Infrastructure, Inputs, Part,
    Related, Sharding, VerifierError, Workspace,
};
use verdict_model::{Kind, Outcome, Report, Severity, Verifier};
use verdict_verifier_support::declared::{self, Declared, Purpose};
use verdict_verifier_support::{infra, summarize_log_as};

mod shard;
pub mod unittest;

pub use unittest::Unittest;

const NAME: &str = "pytest";

/// How long pytest may run by default.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(30 * 60);

/// The JUnit file pytest writes, in the run directory.
pub const JUNIT_FILE: &str = "pytest.xml";

/// The most failing tests [`Pytest::rerun_failed`] names on a command line; with more, the whole
/// suite is run again.
pub const MAX_RERUN_TESTS: usize = 500;

/// How much of the start of the log is searched for pytest's `rootdir:` line and for Python's
/// `No module named pytest`.
const LOG_HEAD: u64 = 64 * 1024;

/// All the verifiers of this crate: [`Pytest`] and [`Unittest`].
pub fn verifiers() -> Vec<Box<dyn Verifier>> {
    vec![Box::new(Pytest::default()), Box::new(Unittest::default())]
}

/// The `pytest` verifier (see the crate docs).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pytest {
    timeout: Duration,
}

impl Default for Pytest {
    fn default() -> Self {
        Pytest {
            timeout: DEFAULT_TIMEOUT,
        }
    }
}

impl Pytest {
    /// The same verifier with another time-out.
    pub fn with_timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }
}

/// Why pytest applies to `workspace` (`Ok`), or what is missing (`Err`).
pub fn project(workspace: &Workspace) -> Result<String, String> {
    let contains = |file: &str, needle: &str| {
        std::fs::read_to_string(workspace.path(file)).is_ok_and(|text| {
            text.lines()
                .any(|line| line.split('#').next().unwrap_or("").trim() == needle)
        })
    };
    if workspace.path("pytest.ini").is_file() {
        return Ok("pytest.ini".to_owned());
    }
    if contains("pyproject.toml", "[tool.pytest.ini_options]")
        || contains("pyproject.toml", "[tool.pytest]")
    {
        return Ok("pyproject.toml configures pytest".to_owned());
    }
    if contains("setup.cfg", "[tool:pytest]") {
        return Ok("setup.cfg configures pytest".to_owned());
    }
    if contains("tox.ini", "[pytest]") {
        return Ok("tox.ini configures pytest".to_owned());
    }
    for conftest in ["conftest.py", "tests/conftest.py", "test/conftest.py"] {
        if workspace.path(conftest).is_file() {
            return Ok(conftest.to_owned());
        }
    }
    if let Some(file) = find_test_file(&workspace.root) {
        return Ok(format!("pytest-style tests ({file})"));
    }
    Err("no pytest configuration, conftest.py or test_*.py files".to_owned())
}

/// How deep [`find_test_file`] looks: `tests/unit/api/v2/test_x.py` is four directories down.
const MAX_TEST_DEPTH: usize = 5;

/// How many directory entries [`find_test_file`] reads at most, so that detection stays fast in
/// any tree.
const MAX_TEST_ENTRIES: usize = 20_000;

/// Directories no project test lives in: dependencies, virtualenvs, caches and build output.
const NOT_TESTS: [&str; 9] = [
    "node_modules",
    "venv",
    "site-packages",
    "__pycache__",
    "target",
    "build",
    "dist",
    "htmlcov",
    "env",
];

/// Whether `name` is a pytest-style test file: `test_*.py` or `*_test.py`.
fn is_test_file(name: &str) -> bool {
    name.ends_with(".py") && (name.starts_with("test_") || name.ends_with("_test.py"))
}

/// The first pytest-style test file under `root` (relative, with `/`), breadth first and by name
/// in each directory, at most [`MAX_TEST_DEPTH`] directories down and [`MAX_TEST_ENTRIES`]
/// entries read; hidden directories (`.git`, `.venv`, `.tox`), the [`NOT_TESTS`] ones, any
/// virtualenv (a `pyvenv.cfg`) and `*.egg-info` are not entered, nor are links followed.
fn find_test_file(root: &Path) -> Option<String> {
    let mut queue = std::collections::VecDeque::from([(root.to_path_buf(), String::new(), 0)]);
    let mut read = 0;
    while let Some((dir, shown, depth)) = queue.pop_front() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        let mut files = Vec::new();
        let mut dirs = Vec::new();
        for entry in entries.filter_map(Result::ok) {
            read += 1;
            if read > MAX_TEST_ENTRIES {
                return None;
            }
            let Ok(name) = entry.file_name().into_string() else {
                continue;
            };
            // The entry's own type: a link is neither a file nor a directory here.
            let Ok(kind) = entry.file_type() else {
                continue;
            };
            if kind.is_file() && is_test_file(&name) {
                files.push(name);
            } else if kind.is_dir()
                && depth < MAX_TEST_DEPTH
                && !name.starts_with('.')
                && !NOT_TESTS.contains(&name.as_str())
                && !name.ends_with(".egg-info")
                && !entry.path().join("pyvenv.cfg").exists()
            {
                dirs.push(name);
            }
        }
        files.sort();
        if let Some(file) = files.into_iter().next() {
            return Some(format!("{shown}{file}"));
        }
        dirs.sort();
        for name in dirs {
            queue.push_back((dir.join(&name), format!("{shown}{name}/"), depth + 1));
        }
    }
    None
}

/// The Python to run pytest with: the project's virtualenv, the active one, else `python3` on
/// `PATH`; `None` when there is none. `Err` names a virtualenv of the project whose Python cannot
/// run (see [`find_python`]).
pub fn python(workspace: &Workspace) -> Result<Option<PathBuf>, String> {
    find_python(
        workspace,
        std::env::var_os("VIRTUAL_ENV").map(PathBuf::from),
        std::env::var_os("PATH"),
    )
}

/// [`python`] given the values of `VIRTUAL_ENV` and `PATH`.
///
/// A project with a virtualenv (`.venv/` or `venv/` holding `pyvenv.cfg` or `bin/python`) means
/// its tests to run in it: when its Python cannot run (a dangling link, say, after the Python it
/// was made from was removed) the answer is an error naming it, never another interpreter, which
/// would run the tests against other packages or not find them at all.
pub fn find_python(
    workspace: &Workspace,
    virtual_env: Option<PathBuf>,
    path: Option<OsString>,
) -> Result<Option<PathBuf>, String> {
    for name in [".venv", "venv"] {
        let dir = workspace.path(name);
        let python = dir.join("bin").join("python");
        let link = python.symlink_metadata();
        if !dir.join("pyvenv.cfg").is_file() && link.is_err() {
            continue;
        }
        if is_executable(&python) {
            return Ok(Some(python));
        }
        let why = match (link, std::fs::read_link(&python)) {
            (Err(_), _) => format!("it has no {name}/bin/python"),
            (Ok(_), Ok(target)) if !python.exists() => format!(
                "{name}/bin/python links to {}, which does not exist",
                target.display()
            ),
            (Ok(_), _) => format!("{name}/bin/python is not an executable file"),
        };
        return Err(format!(
            "the project's virtualenv {name}/ has no Python that can run: {why}; recreate it \
             (`python3 -m venv {name}`, then install the project's dependencies) or remove it \
             — pytest is not run with another Python"
        ));
    }
    Ok(virtual_env
        .map(|venv| venv.join("bin").join("python"))
        .filter(|path| path.is_file())
        .or_else(|| {
            let path = path?;
            ["python3", "python"].iter().find_map(|name| {
                std::env::split_paths(&path)
                    .map(|dir| dir.join(name))
                    .find(|candidate| is_executable(candidate))
            })
        }))
}

fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    path.metadata()
        .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

/// The hint shown when pytest is missing for `python`.
fn install_hint(python: &Path) -> String {
    format!("{} -m pip install pytest", python.display())
}

/// The argv after the program: `-m pytest` and verdict's reporting options.
fn base_args(workspace: &Workspace) -> Vec<String> {
    vec![
        "-m".to_owned(),
        "pytest".to_owned(),
        format!(
            "--junitxml={}",
            workspace.run_dir.join(JUNIT_FILE).to_string_lossy()
        ),
        "-o".to_owned(),
        "junit_family=xunit1".to_owned(),
        "--color=no".to_owned(),
    ]
}

/// The arguments (paths, `-k`, `--cov-fail-under`, markers) and variables of the project's
/// declared pytest command (`pytest --cov=pkg --cov-fail-under=90 tests/`), but for
/// `owned` in the table of tools; none when it declares none.
fn declared_args(workspace: &Workspace) -> (Vec<String>, Vec<(String, String)>) {
    let declared = Declared::of(workspace);
    let Some(command) = declared.for_verifier(NAME) else {
        return (Vec::new(), Vec::new());
    };
    // Under a coverage wrapper (`coverage run -m pytest …`), pytest's own words.
    let words = command.runner_words();
    // `pytest …`, `py.test …` or `python -m pytest …`.
    let skip = if words.get(1).is_some_and(|w| w == "-m") {
        3
    } else {
        1
    };
    let mut args = Vec::new();
    let mut rest = words.iter().skip(skip);
    while let Some(word) = rest.next() {
        let option = word.split_once('=').map_or(word.as_str(), |(o, _)| o);
        match Tool::Pytest
            .spec()
            .owned
            .iter()
            .find(|(name, _)| *name == option)
        {
            Some(&(_, takes_value)) => {
                if takes_value && !word.contains('=') {
                    rest.next();
                }
            }
            // pytest does not expand globs; `npm run` or make's shell did, before pytest saw them.
            None if command.globs && word.contains(['*', '?', '[']) => {
                args.extend(verdict_verifier_support::glob::expand(
                    &workspace.root,
                    word,
                ));
            }
            None => args.push(word.clone()),
        }
    }
    (args, command.env().into_iter().collect())
}

impl Pytest {
    fn spec(&self, workspace: &Workspace, args: Vec<String>) -> Result<CommandSpec, VerifierError> {
        let python = python(workspace).map_err(|message| VerifierError::Project {
            tool: NAME.to_owned(),
            message,
        })?;
        self.spec_with(workspace, args, python)
    }

    /// [`Pytest::spec`] with the Python found (or not).
    fn spec_with(
        &self,
        workspace: &Workspace,
        args: Vec<String>,
        python: Option<PathBuf>,
    ) -> Result<CommandSpec, VerifierError> {
        project(workspace).map_err(|message| VerifierError::Project {
            tool: NAME.to_owned(),
            message,
        })?;
        let program = python.ok_or_else(|| VerifierError::NotInstalled {
            tool: "python".to_owned(),
            hint: "install Python 3, then `python3 -m pip install pytest`".to_owned(),
        })?;
        Ok(CommandSpec {
            program,
            args,
            env: [("PY_COLORS".to_owned(), "0".to_owned())]
                .into_iter()
                .collect(),
            cwd: workspace.root.clone(),
            timeout: self.timeout,
            exit_codes: ExitCodes {
                pass: vec![0],
                fail: vec![1, 2],
            },
            output_files: vec![workspace.run_dir.join(JUNIT_FILE)],
        })
    }
}

/// The first [`LOG_HEAD`] bytes of the captured log, as text.
fn log_head(captured: &Captured) -> String {
    let mut head = Vec::new();
    if let Ok(file) = captured.open_log() {
        let _ = file.take(LOG_HEAD).read_to_end(&mut head);
    }
    String::from_utf8_lossy(&head).into_owned()
}

/// Combines the JUnit report with the log's: JUnit's failures (exact node ids), the log's summary
/// line and its counts, its warnings, and failures only the log shows.
///
/// The counts are pytest's own summary line's when the log has one that agrees with the XML on
/// whether anything failed: the XML's `tests` attribute counts a test whose fixture failed in
/// tear-down twice in pytest 8 and once in pytest 9, and pytest-xdist writes a crashed test as an
/// error; the summary line is what pytest itself says. The XML's counts stay when the log has no
/// summary line (`-qq`), or when the two disagree on a failure (the log's line can be printed by a
/// test run with `-s`).
pub fn merge(junit: Report, log: Report) -> Report {
    if junit.outcome == Outcome::Errored && log.outcome != Outcome::Errored {
        // A JUnit file that cannot be read (cut short, say) is no evidence of a pass either way:
        // the log decides, and the fault is noted.
        let mut report = log;
        if let Some(error) = junit.error {
            report.note(error);
        }
        return report;
    }
    let mut report = junit;
    report.tool = NAME.to_owned();
    take_log_places(&mut report, &log);
    // What the XML names: tests by node id, and files that failed to collect.
    let known: HashSet<(Option<String>, Option<String>)> = report
        .diagnostics
        .iter()
        .map(|d| match &d.test {
            Some(test) => (Some(test.clone()), None),
            None => (None, d.file.clone()),
        })
        .collect();
    // A log that shows no short test summary (`-rN`) names a failure from its block title and
    // traceback, which may miss the class or the file: a test the XML has by the same function
    // name is that failure.
    let functions: HashSet<&str> = report
        .diagnostics
        .iter()
        .filter_map(|d| d.test.as_deref())
        .map(function_name)
        .collect();
    let mut extra = Vec::new();
    for d in log.diagnostics {
        let only_in_log = match d.severity {
            Severity::Error => {
                let key = match &d.test {
                    Some(test) => (Some(test.clone()), None),
                    None => (None, d.file.clone()),
                };
                !known.contains(&key)
                    && !d
                        .test
                        .as_deref()
                        .is_some_and(|test| functions.contains(function_name(test)))
            }
            _ => true,
        };
        if only_in_log {
            extra.push(d);
        }
    }
    for d in extra {
        report.push(d);
    }
    report.diagnostics_dropped += log.diagnostics_dropped;
    let failing =
        |c: &verdict_model::Counts| c.tests_failed.unwrap_or(0) + c.errors.unwrap_or(0) > 0;
    if log.counts.tests_passed.is_some() && failing(&log.counts) == failing(&report.counts) {
        report.counts.tests_passed = log.counts.tests_passed;
        report.counts.tests_failed = log.counts.tests_failed;
        report.counts.tests_skipped = log.counts.tests_skipped;
        report.counts.errors = log.counts.errors;
    }
    report.counts.warnings = log.counts.warnings;
    // Only the log counts the tests left out: the XML has no element for them.
    report.counts.tests_deselected = log.counts.tests_deselected;
    if log.summary.is_some() {
        report.summary = log.summary;
    }
    for note in log.notes {
        report.note(note);
    }
    if log.outcome == Outcome::Errored && report.outcome != Outcome::Failed {
        report.outcome = Outcome::Errored;
        report.error = report.error.or(log.error);
    } else if report.outcome == Outcome::Passed && report.errors().next().is_some() {
        report.outcome = Outcome::Failed;
    }
    report
}

/// With `--tb=line` the XML holds no place but the test's `def` line, where the log shows the
/// line that failed: the log's place is the better one, in the same file.
fn take_log_places(report: &mut Report, log: &Report) {
    let log_places: HashMap<&str, (&str, u32)> = log
        .diagnostics
        .iter()
        .filter(|d| d.severity == Severity::Error)
        .filter_map(|d| Some((d.test.as_deref()?, (d.file.as_deref()?, d.line?))))
        .collect();
    let mut improved = Vec::new();
    for (i, d) in report.diagnostics.iter().enumerate() {
        if let Some(&(file, line)) = d.test.as_deref().and_then(|t| log_places.get(t))
            && d.file.as_deref().is_none_or(|f| f == file)
            && d.line != Some(line)
        {
            improved.push((i, file.to_owned(), line));
        }
    }
    for (i, file, line) in improved {
        if let Some(d) = report.diagnostics.get_mut(i) {
            let new_file = d.file.is_none();
            d.file = Some(file);
            d.line = Some(line);
            if new_file {
                d.refresh_fingerprint();
            }
        }
    }
}

/// The function (and parameters) of a node id: `tests/a.py::K::test_x[1]` → `test_x[1]`; a short
/// name `K.test_x[1]` gives the same.
fn function_name(test: &str) -> &str {
    let bare = test.split('[').next().unwrap_or(test);
    let start = bare
        .rfind("::")
        .map(|i| i + 2)
        .into_iter()
        .chain(bare.rfind('.').map(|i| i + 1))
        .max()
        .unwrap_or(0);
    &test[start..]
}

/// Marks a report errored when pytest's exit says nothing was verified, whatever was parsed.
fn fail_closed(mut report: Report, spec: &CommandSpec, captured: &Captured) -> Report {
    report.needs_evidence(
        "pytest printed no summary and wrote no JUnit report to show it ran any test",
    );
    let reason = match &captured.exit {
        Exit::Code { code } if spec.exit_codes.pass.contains(code) => return report,
        Exit::Code { code: 5 } if report.outcome == Outcome::Errored => return report,
        Exit::Code { code: 5 } => "pytest collected no tests (exit code 5)".to_owned(),
        Exit::Code { .. } if report.outcome != Outcome::Passed => return report,
        Exit::Code { code } => {
            // Every test passed and the run failed: the lines that say why are the report's.
            verdict_model::exit_reason::explain(&mut report, NAME, *code, captured, Kind::Test);
            return report;
        }
        Exit::Signal { signal } => format!("pytest was killed by signal {signal}"),
        Exit::TimedOut => "pytest timed out and was stopped".to_owned(),
        Exit::Cancelled => "pytest was stopped: the run was interrupted".to_owned(),
        Exit::NotStarted { message } => format!("failed to start python: {message}"),
    };
    report.outcome = Outcome::Errored;
    report.error = Some(reason);
    report
}

impl Verifier for Pytest {
    fn name(&self) -> &str {
        NAME
    }

    fn kind(&self) -> Kind {
        Kind::Test
    }

    fn applies(&self, workspace: &Workspace) -> Applicability {
        declared::applicability(workspace, NAME, Purpose::Test, true, || {
            match project(workspace) {
                Ok(found) => Applicability::Applies(found),
                Err(reason) => Applicability::DoesNotApply(reason),
            }
        })
    }

    /// Split by test file (see [`shard`]): pytest has no sharding of its own. A project that
    /// collects doctests too (`--doctest-modules`, `--doctest-glob`) runs whole in shard 1:
    /// its modules and text files are no test files of the split, and would run in no shard.
    fn sharding(&self, workspace: &Workspace) -> Sharding {
        if shard::collects_doctests(workspace, &declared_args(workspace).0) {
            Sharding::Whole
        } else {
            Sharding::Split
        }
    }

    fn command(&self, workspace: &Workspace) -> Result<CommandSpec, VerifierError> {
        let (mut args, env) = declared_args(workspace);
        let mut spec = self.spec(workspace, base_args(workspace))?;
        if let Some(shard) = workspace.shard.filter(|shard| shard.total > 1) {
            // This shard's test files in place of the command's own test paths.
            let (rest, paths) = shard::take_paths(workspace, args);
            let files = shard::files_for(workspace, shard, &paths);
            if files.is_empty() {
                return Err(VerifierError::EmptyShard {
                    tool: NAME.to_owned(),
                    shard,
                });
            }
            args = rest;
            // Not after `--`: verdict.toml's `args` come after these.
            args.extend(files.into_iter().map(|file| {
                if file.starts_with('-') {
                    format!("./{file}")
                } else {
                    file
                }
            }));
        }
        spec.args.extend(args);
        for (name, value) in env {
            spec.env.entry(name).or_insert(value);
        }
        // Through the project's coverage wrapper, as its command runs pytest (not a narrowed
        // re-run, which covers less than any threshold asks).
        verdict_verifier_support::coverage::wrap(spec, workspace, NAME)
    }

    fn interpret(&self, spec: &CommandSpec, captured: &Captured) -> Report {
        let head = log_head(captured);
        if matches!(captured.exit, Exit::Code { code } if code != 0)
            && head.lines().any(|line| {
                line.contains("No module named pytest")
                    || line.ends_with("No module named 'pytest'")
            })
        {
            return Report::errored(
                NAME,
                format!(
                    "pytest is not installed for {}: {}",
                    spec.program.display(),
                    install_hint(&spec.program)
                ),
            );
        }
        let log = summarize_log_as(NAME, captured);
        let rootdir = head
            .lines()
            .find_map(|line| line.strip_prefix("rootdir: "))
            .map(|rest| rest.split(", ").next().unwrap_or(rest).to_owned())
            .unwrap_or_else(|| spec.cwd.to_string_lossy().into_owned());
        let report = match captured.output_files.first() {
            Some(Some(xml)) => merge(
                verdict_summarizers::junit::parse_with_rootdir(NAME, xml, Some(&rootdir)),
                log,
            ),
            _ => {
                let mut log = log;
                if matches!(captured.exit, Exit::Code { code } if code <= 2) {
                    log.note("pytest wrote no JUnit XML report; the report is read from its log");
                }
                log
            }
        };
        let mut report = report;
        verdict_verifier_support::coverage::add_wrapper_failures(&mut report, spec, captured);
        fail_closed(report, spec, captured)
    }

    /// Every file of the project that `.gitignore` does not ignore — tests read templates, data
    /// and fixtures of any kind — but virtualenvs, caches and what a run writes; and, as tool
    /// files, what names the packages installed for the Python that runs pytest (see
    /// [`environment_files`]), so that installing, upgrading or removing one is seen. `None` (no
    /// cache) when that environment cannot be told.
    fn inputs(&self, workspace: &Workspace) -> Option<Inputs> {
        let python = python(workspace).ok().flatten()?;
        let tool_files = environment_files(&python)?;
        Some(Inputs {
            globs: [
                "*",
                "!/.venv/**",
                "!/venv/**",
                "!**/.pytest_cache/**",
                "!**/__pycache__/**",
                "!**/.mypy_cache/**",
                "!**/.ruff_cache/**",
                "!**/.hypothesis/**",
                "!**/.tox/**",
                "!**/.nox/**",
                "!**/node_modules/**",
                "!/htmlcov/**",
                "!.coverage",
                "!.coverage.*",
                "!/.git/**",
                "!/.verdict/**",
            ]
            .into_iter()
            .map(str::to_owned)
            .collect(),
            tool_files,
            root: None,
        })
    }

    /// What decides which tests pytest collects and what it counts as a pass: every
    /// `conftest.py` (its hooks rewrite reports), pytest's configuration wherever pytest may find
    /// it (`addopts = --deselect …`), the interpreter's `sitecustomize.py`, coverage.py's
    /// configuration (pytest-cov's `fail_under`); from the declared command, the files that
    /// declare it, its `-c` file and the project's own plugins it loads with `-p`.
    fn infrastructure(&self, workspace: &Workspace) -> Infrastructure {
        infrastructure(workspace)
    }

    /// pytest with the test files and node ids among the targets as arguments, which run
    /// themselves (pytest then ignores `testpaths`); a source file is left out and said to be,
    /// since nothing maps it to its tests without running the suite. Neither the declared
    /// command's paths nor its coverage wrapper apply: a threshold is for the whole suite.
    fn related_tests(
        &self,
        workspace: &Workspace,
        targets: &[String],
    ) -> Option<Result<Related, VerifierError>> {
        Some(related_tests(self, workspace, targets))
    }

    /// pytest with the failing node ids as arguments (and the files that failed to collect): no
    /// dependence on pytest's cache. `None` when the previous run names no failing test, or too
    /// many.
    fn rerun_failed(&self, workspace: &Workspace, previous: &Report) -> Option<CommandSpec> {
        let ids = failing_node_ids(previous);
        if ids.is_empty() || ids.len() > MAX_RERUN_TESTS {
            return None;
        }
        let mut args = base_args(workspace);
        args.extend(ids);
        self.spec(workspace, args).ok()
    }
}

/// The targets of a scoped check that pytest runs by themselves: node ids
/// (`tests/test_x.py::test_y`) and the test files its `python_files` names; and the rest, source
/// files, which no standard mapping leads to their tests.
fn split_targets(workspace: &Workspace, targets: &[String]) -> (Vec<String>, Vec<String>) {
    targets
        .iter()
        .cloned()
        .partition(|target| target.contains("::") || shard::is_test_file(workspace, target))
}

/// See [`Pytest::related_tests`].
fn related_tests(
    pytest: &Pytest,
    workspace: &Workspace,
    targets: &[String],
) -> Result<Related, VerifierError> {
    let (tests, left_out) = split_targets(workspace, targets);
    if tests.is_empty() {
        return Ok(Related::Nothing(
            "none of the files is a test file or node id, and pytest has no standard way to \
             find the tests of a source file"
                .to_owned(),
        ));
    }
    let mut args = base_args(workspace);
    args.extend(tests.into_iter().map(|test| {
        if test.starts_with('-') {
            format!("./{test}")
        } else {
            test
        }
    }));
    let mut command = pytest.spec(workspace, args)?;
    for (name, value) in declared_args(workspace).1 {
        command.env.entry(name).or_insert(value);
    }
    Ok(Related::Tests { command, left_out })
}

/// See [`Pytest::infrastructure`].
fn infrastructure(workspace: &Workspace) -> Infrastructure {
    let infra = infra::tool_configs(NAME);
    let (command, mut infra) = infra::declared(workspace, NAME, infra);
    let Some(command) = command else {
        return infra;
    };
    let words = command.runner_words();
    for config in infra::option_values(&words, &["-c", "--config-file"], false) {
        if let Some(path) = infra::project_path(workspace, "", &config, &[""]) {
            infra = infra::path(infra, &path);
        }
    }
    let mut plugins = infra::option_values(&words, &["-p"], false);
    if let Some(list) = command.env().get("PYTEST_PLUGINS") {
        plugins.extend(list.split(',').map(str::to_owned));
    }
    for plugin in plugins {
        // `-p no:cacheprovider` turns a plugin off; a package's plugin lies outside the project.
        for glob in infra::python_module(workspace, plugin.trim()) {
            infra = infra::add(
                infra,
                InfraFile {
                    glob,
                    part: Part::Whole,
                },
            );
        }
    }
    infra::coverage_wrapper(infra, &command)
}

/// The node ids of the failing tests in `report` (and the files that failed to collect), each
/// once, in order.
pub fn failing_node_ids(report: &Report) -> Vec<String> {
    let mut ids: Vec<String> = Vec::new();
    for d in report
        .diagnostics
        .iter()
        .filter(|d| d.kind == Kind::Test && d.severity == Severity::Error)
    {
        let id = match (&d.test, &d.file) {
            (Some(test), _) if test.contains("::") => test.clone(),
            (None, Some(file)) if file.ends_with(".py") && !file.starts_with('/') => file.clone(),
            _ => continue,
        };
        if !ids.contains(&id) {
            ids.push(id);
        }
    }
    ids
}

/// The most entries of one package directory [`environment_files`] reads; with more, there is no
/// cache.
const MAX_PACKAGE_ENTRIES: usize = 20_000;

/// Files that change whenever a package is installed, upgraded or removed for `python`: in each of
/// its package directories (`<prefix>/lib/python3.*/site-packages`, Debian's `dist-packages`, and
/// for an interpreter outside a virtualenv the user's `~/.local` ones), the `RECORD` of every
/// `*.dist-info` (its path names the package and version, its content the hash of every file pip
/// wrote), the `PKG-INFO` of every `*.egg-info`, and every `*.egg-link` and `*.pth` (editable and
/// path installs); and the virtualenv's `pyvenv.cfg` (the Python it was made from).
///
/// The listing is the key: a package pip adds or removes adds or removes a path (the cache hashes
/// the paths of tool files, and a missing one as absent). `None` — no cache — when no package
/// directory is found, when a directory holds more than [`MAX_PACKAGE_ENTRIES`] entries, or
/// when the virtualenv also sees the system's packages (`include-system-site-packages = true`),
/// which are not listed.
pub fn environment_files(python: &Path) -> Option<Vec<PathBuf>> {
    // The prefix of the path as given, not of the interpreter a venv's link leads to.
    let prefix = python.parent()?.parent()?;
    let pyvenv = prefix.join("pyvenv.cfg");
    let venv = match std::fs::read_to_string(&pyvenv) {
        Ok(config) => {
            let system = config.lines().any(|line| {
                line.split_once('=').is_some_and(|(key, value)| {
                    key.trim() == "include-system-site-packages"
                        && value.trim().eq_ignore_ascii_case("true")
                })
            });
            if system {
                return None;
            }
            true
        }
        Err(_) => false,
    };
    let mut lib_dirs = vec![prefix.join("lib"), prefix.join("local").join("lib")];
    if !venv && let Some(home) = std::env::var_os("HOME") {
        lib_dirs.push(PathBuf::from(home).join(".local").join("lib"));
    }
    let mut package_dirs = Vec::new();
    for lib in &lib_dirs {
        let Ok(entries) = std::fs::read_dir(lib) else {
            continue;
        };
        let mut versions: Vec<PathBuf> = entries
            .filter_map(Result::ok)
            .filter(|e| e.file_name().to_string_lossy().starts_with("python3"))
            .map(|e| e.path())
            .collect();
        versions.sort();
        for version in versions {
            for name in ["site-packages", "dist-packages"] {
                let dir = version.join(name);
                if dir.is_dir() {
                    package_dirs.push(dir);
                }
            }
        }
    }
    if package_dirs.is_empty() {
        return None;
    }
    let mut files = vec![pyvenv];
    for dir in package_dirs {
        let mut names: Vec<String> = Vec::new();
        for entry in std::fs::read_dir(&dir).ok()? {
            let name = entry.ok()?.file_name().to_string_lossy().into_owned();
            if names.len() >= MAX_PACKAGE_ENTRIES {
                return None;
            }
            names.push(name);
        }
        names.sort();
        for name in names {
            let path = dir.join(&name);
            if name.ends_with(".dist-info") {
                files.push(path.join("RECORD"));
            } else if name.ends_with(".egg-info") {
                // A directory with its `PKG-INFO`, or (older installs) the file itself.
                if path.is_dir() {
                    files.push(path.join("PKG-INFO"));
                } else {
                    files.push(path);
                }
            } else if name.ends_with(".egg-link") || name.ends_with(".pth") {
                files.push(path);
            }
        }
    }
    Some(files)
}

#[cfg(test)]
mod tests {
    use super::*;
    use verdict_model::Diagnostic;

    /// A workspace in a temporary directory holding `files` (path, text).
    pub(crate) fn workspace_with(files: &[(&str, &str)]) -> (tempfile::TempDir, Workspace) {
        let dir = tempfile::tempdir().expect("temp dir");
        for (path, text) in files {
            let path = dir.path().join(path);
            std::fs::create_dir_all(path.parent().expect("a parent")).expect("mkdir");
            std::fs::write(path, text).expect("write");
        }
        let workspace = Workspace::new(dir.path());
        (dir, workspace)
    }

    /// The infrastructure pytest names in a project of `files`, one line a file (see
    /// `infra::lines`), but for the configuration every project has.
    fn check_infrastructure(files: &[(&str, &str)], expect: &[&str]) {
        let (_dir, workspace) = workspace_with(files);
        let every = infra::lines(&infrastructure(&Workspace::new("/nowhere")));
        let got: Vec<String> = infra::lines(&Pytest::default().infrastructure(&workspace))
            .into_iter()
            .filter(|line| !every.contains(line))
            .collect();
        assert_eq!(got, expect);
    }

    #[test]
    fn infrastructure_names_config_plugins_and_the_declared_command() {
        let every = infra::lines(&infrastructure(&Workspace::new("/nowhere")));
        for line in [
            "**/conftest.py",
            "**/pytest.ini",
            "**/pytest.toml",
            "**/pyproject.toml toml:tool.pytest",
            "**/setup.cfg ini:tool:pytest",
            "**/tox.ini ini:pytest",
            "**/sitecustomize.py",
            "pyproject.toml toml:tool.coverage",
        ] {
            assert!(every.contains(&line.to_owned()), "{line} in {every:?}");
        }
        check_infrastructure(
            &[
                (
                    "Makefile",
                    "test:\n\tpytest -c ci/pytest.ini -p tests.plugin -p no:cacheprovider tests\n",
                ),
                ("ci/pytest.ini", "[pytest]\n"),
                ("tests/plugin.py", ""),
            ],
            &["Makefile", "ci/pytest.ini", "tests/plugin.py"],
        );
        check_infrastructure(
            &[
                (
                    "tox.ini",
                    "[testenv]\ncommands = coverage run --rcfile=ci/cov.ini -m pytest\n",
                ),
                ("pkg/__init__.py", ""),
            ],
            &["tox.ini ini:testenv", "ci/cov.ini"],
        );
        check_infrastructure(&[("test_a.py", "def test_a(): pass\n")], &[]);
    }

    #[test]
    fn detection_by_config_or_test_files() {
        let applies = [
            vec![("pytest.ini", "[pytest]\n")],
            vec![("pyproject.toml", "[project]\n[tool.pytest.ini_options]\n")],
            vec![("setup.cfg", "[tool:pytest]\naddopts = -q\n")],
            vec![("tox.ini", "[tox]\n[pytest]\n")],
            vec![("conftest.py", "")],
            vec![("tests/test_a.py", "def test_a(): pass\n")],
            vec![("a_test.py", "def test_a(): pass\n")],
        ];
        for files in applies {
            let (_dir, workspace) = workspace_with(&files);
            assert!(
                matches!(
                    Pytest::default().applies(&workspace),
                    Applicability::Applies(_)
                ),
                "{files:?}"
            );
        }
        let not = [
            vec![],
            vec![(
                "pyproject.toml",
                "[project]\nname = \"a\"\n# [tool.pytest]\n",
            )],
            vec![("tests/helpers.py", "")],
            vec![("setup.cfg", "[flake8]\n")],
        ];
        for files in not {
            let (_dir, workspace) = workspace_with(&files);
            assert!(
                matches!(
                    Pytest::default().applies(&workspace),
                    Applicability::DoesNotApply(_)
                ),
                "{files:?}"
            );
        }
    }

    /// A project whose tests are only in subfolders of `tests/` (no configuration, no conftest)
    /// was not detected: `verdict list` said pytest did not apply, though pytest finds them.
    #[test]
    fn tests_only_in_subfolders_are_detected_but_not_those_of_dependencies() {
        let found = |files: &[(&str, &str)]| {
            let (_dir, workspace) = workspace_with(files);
            match Pytest::default().applies(&workspace) {
                Applicability::Applies(why) => Some(why),
                _ => None,
            }
        };
        assert_eq!(
            found(&[("tests/unit/test_a.py", "def test_a(): pass\n")]).as_deref(),
            Some("pytest-style tests (tests/unit/test_a.py)")
        );
        assert_eq!(
            found(&[
                ("src/pkg/tests/api/test_b.py", ""),
                ("src/pkg/tests/api/v2/test_a.py", ""),
                ("src/pkg/tests/helpers.py", ""),
            ])
            .as_deref(),
            Some("pytest-style tests (src/pkg/tests/api/test_b.py)")
        );
        // Test files of dependencies, virtualenvs, caches and hidden directories are not the
        // project's; nor is anything too deep to be a test layout.
        for file in [
            "node_modules/pkg/test_x.py",
            "lib/python3.11/site-packages/pkg/test_x.py",
            "venv/lib/test_x.py",
            ".venv/lib/test_x.py",
            ".git/test_x.py",
            ".tox/py311/test_x.py",
            "tests/__pycache__/test_x.py",
            "pkg.egg-info/test_x.py",
            "a/b/c/d/e/f/test_deep.py",
        ] {
            assert_eq!(found(&[(file, "")]), None, "{file}");
        }
        assert_eq!(
            found(&[("env2/pyvenv.cfg", ""), ("env2/lib/test_x.py", "")]),
            None
        );
    }

    /// Detection reads a bounded number of entries, whatever the tree holds.
    #[test]
    fn detection_stops_after_its_entry_budget() {
        let (dir, workspace) = workspace_with(&[]);
        for i in 0..MAX_TEST_ENTRIES + 10 {
            std::fs::write(dir.path().join(format!("f{i}.txt")), "").expect("write");
        }
        std::fs::create_dir_all(dir.path().join("tests")).expect("mkdir");
        std::fs::write(dir.path().join("tests/test_a.py"), "").expect("write");
        assert!(matches!(
            Pytest::default().applies(&workspace),
            Applicability::DoesNotApply(_)
        ));
    }

    #[test]
    fn the_project_venv_comes_first() {
        let (dir, workspace) = workspace_with(&[(".venv/bin/python", ""), ("conftest.py", "")]);
        make_executable(&dir.path().join(".venv/bin/python"));
        let spec = Pytest::default().command(&workspace).expect("a command");
        assert_eq!(spec.program, dir.path().join(".venv/bin/python"));
        assert_eq!(spec.args[..2], ["-m", "pytest"]);
        assert!(spec.args.iter().any(|a| a.starts_with("--junitxml=")));
        assert_eq!(spec.output_files, [workspace.run_dir.join(JUNIT_FILE)]);
    }

    #[test]
    fn python_from_the_active_venv_then_path_else_not_installed() {
        let (dir, workspace) = workspace_with(&[("conftest.py", "")]);
        let venv = dir.path().join("active");
        std::fs::create_dir_all(venv.join("bin")).expect("mkdir");
        std::fs::write(venv.join("bin/python"), "").expect("write");
        assert_eq!(
            find_python(&workspace, Some(venv.clone()), None),
            Ok(Some(venv.join("bin/python")))
        );
        let empty = Some(OsString::from(dir.path().join("empty")));
        assert_eq!(find_python(&workspace, None, empty.clone()), Ok(None));
        let error = Pytest::default()
            .spec_with(&workspace, base_args(&workspace), None)
            .expect_err("no python");
        assert!(matches!(error, VerifierError::NotInstalled { .. }));
        assert!(error.to_string().contains("pip install pytest"), "{error}");
    }

    fn make_executable(path: &Path) {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    }

    #[test]
    fn merge_keeps_the_xml_failures_and_adds_only_what_the_log_alone_shows() {
        let failure = |test: &str| {
            Diagnostic::new(NAME, Kind::Test, Severity::Error, "assert 1 == 2")
                .at("tests/test_a.py", Some(3), None)
                .with_test(test)
        };
        let mut junit = Report::new(NAME, Outcome::Failed);
        junit.push(failure("tests/test_a.py::test_x"));
        junit.counts.tests_failed = Some(1);
        let mut log = Report::new(NAME, Outcome::Failed);
        log.push(failure("tests/test_a.py::test_x").with_detail("other words"));
        log.push(failure("tests/test_a.py::test_only_in_log"));
        log.push(
            Diagnostic::new(NAME, Kind::Test, Severity::Warning, "deprecated").at(
                "tests/test_a.py",
                Some(1),
                None,
            ),
        );
        log.summary = Some("1 failed, 1 warning in 0.01s".to_owned());
        log.counts.warnings = Some(1);
        let merged = merge(junit.clone(), log.clone());
        let tests: Vec<Option<&str>> = merged
            .diagnostics
            .iter()
            .map(|d| d.test.as_deref())
            .collect();
        assert_eq!(
            tests,
            [
                Some("tests/test_a.py::test_x"),
                Some("tests/test_a.py::test_only_in_log"),
                None
            ]
        );
        assert_eq!(merged.summary, log.summary);
        assert_eq!(merged.counts.warnings, Some(1));
        assert_eq!(merged.counts.tests_failed, Some(1));

        // An unreadable XML is no evidence: the log decides, and the fault is noted.
        let broken = Report::errored(NAME, "unreadable JUnit XML: cut short");
        let merged = merge(broken, log.clone());
        assert_eq!(merged.outcome, Outcome::Failed);
        assert!(merged.notes.iter().any(|n| n.contains("cut short")));

        // A log that shows pytest did not finish keeps a clean XML from passing.
        let mut passed = Report::new(NAME, Outcome::Passed);
        passed.counts.tests_passed = Some(3);
        let merged = merge(passed, Report::errored(NAME, "INTERNALERROR: boom"));
        assert_eq!(merged.outcome, Outcome::Errored);
        assert_eq!(merged.error.as_deref(), Some("INTERNALERROR: boom"));
    }

    #[test]
    fn function_names_of_node_ids_and_short_names() {
        assert_eq!(
            function_name("tests/a.py::K::test_x[1.5-a::b]"),
            "test_x[1.5-a::b]"
        );
        assert_eq!(function_name("K.test_x[1]"), "test_x[1]");
        assert_eq!(function_name("tests/a.py::test_y"), "test_y");
        assert_eq!(function_name("test_z"), "test_z");
    }

    #[test]
    fn scoped_targets_run_test_files_and_node_ids_and_leave_sources_out() {
        let (_dir, workspace) = workspace_with(&[
            (
                "pytest.ini",
                "[pytest]\npython_files = check_*.py test_*.py\n",
            ),
            ("calc.py", ""),
        ]);
        let targets: Vec<String> = [
            "calc.py",
            "tests/check_calc.py",
            "tests/test_a.py",
            "tests/calc_test.py",
            "calc.py::doc",
        ]
        .map(str::to_owned)
        .into();
        let (tests, left_out) = split_targets(&workspace, &targets);
        // The configured `python_files` replace pytest's default, which named `*_test.py`.
        assert_eq!(
            tests,
            ["tests/check_calc.py", "tests/test_a.py", "calc.py::doc"]
        );
        assert_eq!(left_out, ["calc.py", "tests/calc_test.py"]);
        let sources = ["calc.py".to_owned()];
        assert!(matches!(
            Pytest::default().related_tests(&workspace, &sources),
            Some(Ok(Related::Nothing(_)))
        ));
    }

    #[test]
    fn rerun_names_node_ids_and_uncollectable_files() {
        let (_dir, workspace) = workspace_with(&[("conftest.py", "")]);
        let mut report = Report::new(NAME, Outcome::Failed);
        report.push(
            Diagnostic::new(NAME, Kind::Test, Severity::Error, "assert 1 == 2")
                .at("tests/test_a.py", Some(3), None)
                .with_test("tests/test_a.py::test_x[a b]"),
        );
        report.push(
            Diagnostic::new(NAME, Kind::Test, Severity::Error, "ImportError").at(
                "tests/test_b.py",
                None,
                None,
            ),
        );
        report.push(
            Diagnostic::new(NAME, Kind::Test, Severity::Warning, "deprecated")
                .at("tests/test_c.py", Some(1), None)
                .with_test("tests/test_c.py::test_y"),
        );
        let spec = Pytest::default()
            .rerun_failed(&workspace, &report)
            .expect("a rerun");
        let tail: Vec<&str> = spec.args.iter().rev().take(2).map(String::as_str).collect();
        assert_eq!(tail, ["tests/test_b.py", "tests/test_a.py::test_x[a b]"]);
        assert_eq!(
            Pytest::default().rerun_failed(&workspace, &Report::new(NAME, Outcome::Failed)),
            None
        );
    }
}
