//! The `unittest` verifier: a Python project's tests run as the project runs them, with
//! `python -m unittest`, where the project uses it instead of pytest.
//!
//! unittest and pytest do not run the same tests: a module's `load_tests` protocol (which often
//! adds doctests with `doctest.DocTestSuite`) is unittest's alone, so a broken doctest that
//! `python -m unittest` fails is never collected by pytest.
//!
//! It applies where the project declares `python -m unittest` as its test command (see
//! [`declared_command`]): a `package.json` script, a Makefile's `test` target, tox's `commands`,
//! or the `test` script of a pyproject.toml task runner (hatch's `scripts`, poe's `tasks`). It
//! runs the project's Python (its virtualenv, as the pytest verifier finds it) with `-m unittest`,
//! the declared arguments (`discover -s tests`, test module names, `-k`, `-b`, …) and `-v`, so
//! that each test's name and outcome is in the log, read by the `unittest` summarizer.
//!
//! Fail-closed: exit 0 passed, 1 failures or errors; anything else — and `NO TESTS RAN` (exit 5
//! since Python 3.12), a test module that does not import (a failure of that module), a run whose
//! closing `Ran N tests` never came — is never a pass.

use std::collections::BTreeMap;
use std::path::Path;
use std::time::Duration;

use verdict_model::split::split_command;
use verdict_model::verifier::{
    Applicability, Captured, CommandSpec, ExitCodes, Infrastructure, Inputs, VerifierError,
    Workspace,
};
use verdict_model::{Kind, Outcome, Report, Verifier};
use verdict_verifier_support::declared::Declared;
use verdict_verifier_support::{infra, summarize_log};

const NAME: &str = "unittest";

/// How long a unittest run may take by default.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(30 * 60);

/// The most failing tests [`Unittest::rerun_failed`] names on a command line.
pub const MAX_RERUN_TESTS: usize = 500;

/// The `unittest` verifier (see the module docs).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unittest {
    timeout: Duration,
}

impl Default for Unittest {
    fn default() -> Self {
        Unittest {
            timeout: DEFAULT_TIMEOUT,
        }
    }
}

impl Unittest {
    /// The same verifier with another time-out.
    pub fn with_timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }
}

/// The project's declared test command, as far as Python's test runners go.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TestCommand {
    /// It runs `python -m unittest` with these arguments.
    Unittest {
        /// Where it is declared, for people.
        origin: String,
        /// The words after `-m unittest`.
        args: Vec<String>,
    },
    /// It runs pytest.
    Pytest {
        /// Where it is declared.
        origin: String,
    },
}

/// The first Python test command the project declares — `unittest` or pytest — searched in its
/// `package.json` scripts (`test` first), its Makefile's `test` target, tox.ini's `commands`, and
/// the `test` scripts of `[tool.hatch.envs.*.scripts]` and `[tool.poe.tasks]` in pyproject.toml.
///
/// This is the one place that reads what the project declares, so that a shared reading of the
/// project's commands can replace it.
pub fn declared_command(workspace: &Workspace) -> Option<TestCommand> {
    let declared = Declared::of(workspace);
    // The first declared command that runs unittest or pytest (see
    // `verdict_verifier_support::declared`): the same reading every verifier takes.
    declared
        .commands
        .iter()
        .find_map(|command| match command.verifier()? {
            "unittest" | "pytest" => classify(&command.text, &command.origin),
            _ => None,
        })
}

/// What a declared command line runs, when it runs a Python test runner.
fn classify(line: &str, origin: &str) -> Option<TestCommand> {
    let words = split_command(line).ok()?;
    for command in words.split(|word| matches!(word.as_str(), "&&" | "||" | ";" | "|")) {
        let mut words = command
            .iter()
            .map(|word| word.trim_end_matches(';'))
            .skip_while(|word| is_assignment(word) || *word == "env");
        let Some(program) = words.next() else {
            continue;
        };
        let rest: Vec<&str> = words.collect();
        let name = program.rsplit('/').next().unwrap_or(program);
        if matches!(name, "pytest" | "py.test") {
            return Some(TestCommand::Pytest {
                origin: origin.to_owned(),
            });
        }
        // `python -m unittest`, and `coverage run -m unittest` or `python -m coverage run -m
        // unittest` (the same run, measured): the last `-m` names the runner.
        let module_at =
            if is_python(program) || (name == "coverage" && rest.first() == Some(&"run")) {
                rest.iter().rposition(|word| *word == "-m")
            } else {
                None
            };
        let Some(at) = module_at else {
            continue;
        };
        match rest.get(at + 1).copied() {
            Some("unittest") => {
                return Some(TestCommand::Unittest {
                    origin: origin.to_owned(),
                    args: rest[at + 2..]
                        .iter()
                        .filter_map(|word| tox_substitution(word))
                        .collect(),
                });
            }
            Some("pytest") => {
                return Some(TestCommand::Pytest {
                    origin: origin.to_owned(),
                });
            }
            _ => {}
        }
    }
    None
}

/// Whether `word` names a Python interpreter: `python`, `python3`, `python3.12`, a path to one,
/// make's `$(PYTHON)` and tox's `{envpython}`.
fn is_python(word: &str) -> bool {
    let name = word.rsplit('/').next().unwrap_or(word);
    let version = name.strip_prefix("python").unwrap_or("x");
    version.chars().all(|c| c.is_ascii_digit() || c == '.')
        || matches!(word, "$(PYTHON)" | "${PYTHON}" | "$PYTHON" | "{envpython}")
}

/// A word of a tox command with tox's substitutions made: `{posargs}` is nothing (no positional
/// arguments are given), `{posargs:tests}` its default; `{toxinidir}` the project root.
fn tox_substitution(word: &str) -> Option<String> {
    if word == "{posargs}" {
        return None;
    }
    if let Some(default) = word
        .strip_prefix("{posargs:")
        .and_then(|rest| rest.strip_suffix('}'))
    {
        return (!default.is_empty()).then(|| default.to_owned());
    }
    Some(word.replace("{toxinidir}/", "").replace("{toxinidir}", "."))
}

fn is_assignment(word: &str) -> bool {
    word.split_once('=').is_some_and(|(name, _)| {
        !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
    })
}

/// The declared arguments with `-v` added where unittest takes it: after `discover` (which must
/// come first), else first. `-q`/`--quiet` are dropped: they would hide the tests' names.
fn args_with_verbose(declared: &[String]) -> Vec<String> {
    let mut args: Vec<String> = declared
        .iter()
        .filter(|word| !matches!(word.as_str(), "-q" | "--quiet" | "-v" | "--verbose"))
        .cloned()
        .collect();
    let at = usize::from(args.first().is_some_and(|first| first == "discover"));
    args.insert(at, "-v".to_owned());
    args
}

impl Unittest {
    fn spec(
        &self,
        workspace: &Workspace,
        args: Option<Vec<String>>,
    ) -> Result<CommandSpec, VerifierError> {
        let declared = match declared_command(workspace) {
            Some(TestCommand::Unittest { args, .. }) => args,
            _ => {
                return Err(VerifierError::Project {
                    tool: NAME.to_owned(),
                    message: "the project declares no `python -m unittest` command".to_owned(),
                });
            }
        };
        let python = crate::python(workspace).map_err(|message| VerifierError::Project {
            tool: NAME.to_owned(),
            message,
        })?;
        let program = python.ok_or_else(|| VerifierError::NotInstalled {
            tool: "python".to_owned(),
            hint: "install Python 3".to_owned(),
        })?;
        let mut argv = vec!["-m".to_owned(), NAME.to_owned()];
        argv.extend(args.unwrap_or_else(|| args_with_verbose(&declared)));
        Ok(CommandSpec {
            program,
            args: argv,
            env: [("PYTHONUNBUFFERED", "1"), ("PY_COLORS", "0")]
                .into_iter()
                .map(|(k, v)| (k.to_owned(), v.to_owned()))
                .collect::<BTreeMap<_, _>>(),
            cwd: workspace.root.clone(),
            timeout: self.timeout,
            exit_codes: ExitCodes {
                pass: vec![0],
                fail: vec![1],
            },
            output_files: Vec::new(),
        })
    }
}

impl Verifier for Unittest {
    fn name(&self) -> &str {
        NAME
    }

    fn kind(&self) -> Kind {
        Kind::Test
    }

    fn applies(&self, workspace: &Workspace) -> Applicability {
        match declared_command(workspace) {
            Some(TestCommand::Unittest { origin, .. }) => {
                Applicability::Applies(format!("{origin} runs `python -m unittest`"))
            }
            Some(TestCommand::Pytest { origin }) => Applicability::DoesNotApply(format!(
                "{origin} runs pytest, not `python -m unittest`"
            )),
            None => Applicability::DoesNotApply(
                "the project declares no `python -m unittest` command".to_owned(),
            ),
        }
    }

    /// The declared command, through its coverage wrapper when it has one (`coverage run -m
    /// unittest`); a narrowed re-run goes without it, as it covers less than any threshold asks.
    fn command(&self, workspace: &Workspace) -> Result<CommandSpec, VerifierError> {
        verdict_verifier_support::coverage::wrap(self.spec(workspace, None)?, workspace, NAME)
    }

    fn interpret(&self, spec: &CommandSpec, captured: &Captured) -> Report {
        let mut report = match verdict_summarizers::by_name(NAME) {
            Some(summarizer) => summarize_log(summarizer, captured),
            None => Report::errored(NAME, "no summarizer reads unittest's log"),
        };
        report.tool = NAME.to_owned();
        relative_files(&mut report, &spec.cwd);
        verdict_verifier_support::coverage::add_wrapper_failures(&mut report, spec, captured);
        fail_closed(report, spec, captured)
    }

    /// As pytest's: every project file but virtualenvs and caches, and the listing of the
    /// packages installed for the Python that runs the tests.
    fn inputs(&self, workspace: &Workspace) -> Option<Inputs> {
        let mut inputs = crate::Pytest::default().inputs(workspace)?;
        inputs.globs.retain(|glob| !glob.contains("pytest_cache"));
        Some(inputs)
    }

    /// What decides how the tests run beside the test packages themselves (whose `__init__.py`
    /// and `load_tests` the guard judges as tests): the interpreter's `sitecustomize.py`, the
    /// files that declare the command, and the configuration of its coverage wrapper.
    fn infrastructure(&self, workspace: &Workspace) -> Infrastructure {
        match infra::declared(workspace, NAME, infra::tool_configs(NAME)) {
            (Some(command), infra) => infra::coverage_wrapper(infra, &command),
            (None, infra) => infra,
        }
    }

    /// The failing tests by their dotted names (`tests.test_x.TestX.test_y`), which unittest
    /// loads from the project root. `None` — the whole run — when a failure has no such name (a
    /// doctest added by `load_tests`, a module that did not import), when the declared command
    /// discovers from a start directory that is not the top-level one (its names would not
    /// import from the root), or when there are too many.
    fn rerun_failed(&self, workspace: &Workspace, previous: &Report) -> Option<CommandSpec> {
        let Some(TestCommand::Unittest { args, .. }) = declared_command(workspace) else {
            return None;
        };
        if !names_import_from_root(&args) {
            return None;
        }
        let mut names: Vec<String> = Vec::new();
        for d in previous.errors().filter(|d| d.kind == Kind::Test) {
            // A failing subtest (`tests.t.K.test_x (i=2)`) re-runs as its test.
            let name = d.test.as_deref()?.split(" (").next().unwrap_or_default();
            let dotted = name.contains('.')
                && name.split('.').all(|part| {
                    !part.is_empty() && part.chars().all(|c| c.is_alphanumeric() || c == '_')
                });
            // A doctest is named by the object it documents, which unittest cannot load.
            let doctest = d.message.starts_with("Failed example") || d.message.contains("doctest");
            if !dotted || doctest || d.root_cause || name.starts_with("unittest.") {
                return None;
            }
            if !names.iter().any(|n| n == name) {
                names.push(name.to_owned());
            }
        }
        if names.is_empty() || names.len() > MAX_RERUN_TESTS {
            return None;
        }
        let mut argv = vec!["-v".to_owned()];
        // The declared options that change how tests run (not which): buffering, locals.
        argv.extend(
            args.iter()
                .filter(|a| matches!(a.as_str(), "-b" | "--buffer" | "--locals"))
                .cloned(),
        );
        argv.extend(names);
        self.spec(workspace, Some(argv)).ok()
    }
}

/// Whether the test names of a run of `args` import from the project root: no `discover`, or a
/// discovery whose top-level directory (`-t`, else the start directory `-s`) is the root.
fn names_import_from_root(args: &[String]) -> bool {
    if args.first().is_none_or(|first| first != "discover") {
        return true;
    }
    let value = |short: &str, long: &str| {
        args.iter().enumerate().find_map(|(i, a)| {
            if a == short || a == long {
                args.get(i + 1).cloned()
            } else {
                a.strip_prefix(&format!("{long}=")).map(str::to_owned)
            }
        })
    };
    let positional: Vec<&String> = args[1..].iter().filter(|a| !a.starts_with('-')).collect();
    let top = value("-t", "--top-level-directory")
        .or_else(|| value("-s", "--start-directory"))
        .or_else(|| positional.get(2).map(|s| (*s).clone()))
        .or_else(|| positional.first().map(|s| (*s).clone()));
    top.is_none_or(|top| matches!(top.trim_end_matches('/'), "." | ""))
}

/// Makes the report's absolute paths under `root` relative to it.
fn relative_files(report: &mut Report, root: &Path) {
    let root = std::path::absolute(root).unwrap_or_else(|_| root.to_path_buf());
    let prefix = format!("{}/", root.to_string_lossy().trim_end_matches('/'));
    let mut changed = false;
    for d in &mut report.diagnostics {
        if let Some(file) = d.file.as_deref()
            && let Some(relative) = file.strip_prefix(&prefix)
        {
            d.file = Some(relative.to_owned());
            changed = true;
        }
    }
    if changed {
        report.refresh_fingerprints();
    }
}

/// Marks a report errored when unittest's exit says nothing was verified, whatever was parsed.
fn fail_closed(mut report: Report, spec: &CommandSpec, captured: &Captured) -> Report {
    use verdict_model::verifier::Exit;
    report.needs_evidence("unittest printed no `Ran N tests` line to show it ran any test");
    let reason = match &captured.exit {
        Exit::Code { code } if spec.exit_codes.pass.contains(code) => return report,
        Exit::Code { code: 5 } if report.outcome == Outcome::Errored => return report,
        Exit::Code { code: 5 } => "unittest ran no tests (NO TESTS RAN, exit code 5)".to_owned(),
        Exit::Code { .. } if report.outcome != Outcome::Passed => return report,
        Exit::Code { code } => {
            // Every test passed and the run failed (`coverage run` under its `fail_under`):
            // the lines that say why are the report's.
            verdict_model::exit_reason::explain(
                &mut report,
                "unittest",
                *code,
                captured,
                Kind::Test,
            );
            return report;
        }
        Exit::Signal { signal } => format!("python was killed by signal {signal}"),
        Exit::TimedOut => "unittest timed out and was stopped".to_owned(),
        Exit::Cancelled => "unittest was stopped: the run was interrupted".to_owned(),
        Exit::NotStarted { message } => format!("failed to start python: {message}"),
    };
    report.outcome = Outcome::Errored;
    report.error = Some(reason);
    report
}

#[cfg(test)]
mod tests {
    use super::*;

    fn project_with(files: &[(&str, &str)]) -> (tempfile::TempDir, Workspace) {
        let dir = tempfile::tempdir().expect("temp dir");
        for (path, text) in files {
            std::fs::write(dir.path().join(path), text).expect("write");
        }
        let workspace = Workspace::new(dir.path());
        (dir, workspace)
    }

    /// The infrastructure unittest names in a project of `files` (see `infra::lines`).
    fn check_infrastructure(files: &[(&str, &str)], expect: &[&str]) {
        let (_dir, workspace) = project_with(files);
        assert_eq!(
            infra::lines(&Unittest::default().infrastructure(&workspace)),
            expect
        );
    }

    #[test]
    fn infrastructure_names_the_declaration_and_the_coverage_config() {
        check_infrastructure(
            &[(
                "package.json",
                r#"{"scripts": {"test": "coverage run -m unittest discover -s tests"}}"#,
            )],
            &[
                "**/sitecustomize.py",
                "**/usercustomize.py",
                "package.json json:scripts.pretest",
                "package.json json:scripts.test",
                "package.json json:scripts.posttest",
                ".coveragerc",
                "setup.cfg ini:coverage:*",
                "tox.ini ini:coverage:*",
                "pyproject.toml toml:tool.coverage",
            ],
        );
        check_infrastructure(
            &[("Makefile", "test:\n\tpython -m unittest -v\n")],
            &["**/sitecustomize.py", "**/usercustomize.py", "Makefile"],
        );
    }

    fn unittest_args(files: &[(&str, &str)]) -> Option<Vec<String>> {
        let (_dir, workspace) = project_with(files);
        match declared_command(&workspace)? {
            TestCommand::Unittest { args, .. } => Some(args),
            TestCommand::Pytest { .. } => None,
        }
    }

    #[test]
    fn each_declaration_is_read() {
        let make = "PYTHON ?= python3\n.PHONY: test\n\ntest: lint\n\t@$(PYTHON) -m unittest discover -s tests -t .\n\nlint:\n\truff check .\n";
        assert_eq!(
            unittest_args(&[("Makefile", make)]).expect("Makefile"),
            ["discover", "-s", "tests", "-t", "."]
        );
        let tox = "[tox]\nenvlist = py311\n\n[testenv]\ncommands =\n    python -m unittest {posargs:discover}\n";
        assert_eq!(
            unittest_args(&[("tox.ini", tox)]).expect("tox"),
            ["discover"]
        );
        // Under coverage, unittest's verifier runs it, through `coverage run` (whose data feeds
        // `coverage report`, which waits for it).
        let coverage = "[tox]\nenvlist = py311\n\n[testenv]\ndeps = coverage\ncommands =\n    coverage run -m unittest {posargs:discover}\n    coverage report\n";
        assert_eq!(
            unittest_args(&[("tox.ini", coverage)]).expect("coverage"),
            ["discover"]
        );
        let hatch =
            "[tool.hatch.envs.default.scripts]\ntest = \"python -m unittest -b tests.test_a\"\n";
        assert_eq!(
            unittest_args(&[("pyproject.toml", hatch)]).expect("hatch"),
            ["-b", "tests.test_a"]
        );
        let poe = "[tool.poe.tasks]\ntest = { cmd = \"python3 -m unittest\" }\n";
        assert_eq!(
            unittest_args(&[("pyproject.toml", poe)]).expect("poe"),
            Vec::<String>::new()
        );
        let package = r#"{"scripts": {"test": "python3 -m unittest -v"}}"#;
        assert_eq!(
            unittest_args(&[("package.json", package)]).expect("package.json"),
            ["-v"]
        );
    }

    #[test]
    fn a_project_whose_tests_run_pytest_is_not_unittests() {
        let (_dir, workspace) = project_with(&[(
            "Makefile",
            "test:\n\tpython -m pytest -q\n\nother:\n\tpython -m unittest\n",
        )]);
        assert!(matches!(
            declared_command(&workspace),
            Some(TestCommand::Pytest { .. })
        ));
        assert!(matches!(
            Unittest::default().applies(&workspace),
            Applicability::DoesNotApply(_)
        ));
        let (_dir, workspace) = project_with(&[("tox.ini", "[testenv]\ncommands = pytest\n")]);
        assert!(matches!(
            Unittest::default().applies(&workspace),
            Applicability::DoesNotApply(_)
        ));
        let (_dir, workspace) = project_with(&[("setup.py", "")]);
        assert_eq!(declared_command(&workspace), None);
    }

    #[test]
    fn verbose_goes_where_unittest_takes_it() {
        let words = |w: &[&str]| w.iter().map(|s| (*s).to_owned()).collect::<Vec<_>>();
        assert_eq!(
            args_with_verbose(&words(&["discover", "-s", "tests", "-q"])),
            ["discover", "-v", "-s", "tests"]
        );
        assert_eq!(
            args_with_verbose(&words(&["tests.test_a"])),
            ["-v", "tests.test_a"]
        );
        assert_eq!(args_with_verbose(&[]), ["-v"]);
    }

    #[test]
    fn names_import_from_the_root_only_where_discovery_starts_there() {
        let words = |w: &[&str]| w.iter().map(|s| (*s).to_owned()).collect::<Vec<_>>();
        assert!(names_import_from_root(&words(&[])));
        assert!(names_import_from_root(&words(&["tests.test_a"])));
        assert!(names_import_from_root(&words(&["discover"])));
        assert!(names_import_from_root(&words(&[
            "discover", "-s", "tests", "-t", "."
        ])));
        assert!(!names_import_from_root(&words(&[
            "discover", "-s", "tests"
        ])));
        assert!(!names_import_from_root(&words(&["discover", "tests"])));
    }
}
