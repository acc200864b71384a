//! The lint and type checks a project declares beside its tests: tox environments, nox
//! sessions and Makefile targets that run linters and type checkers (`[testenv:typing]` with
//! mypy, a `lint` session with ruff, `make lint`), pre-commit hooks, and the check tasks of
//! pyproject.toml's task runners. A command of theirs that runs a tool with a verifier of its own
//! (ruff, mypy, pyright, in the table of tools) becomes a declared command, which that verifier
//! runs. The rest — a check whose tools verdict has no verifier for (flake8, pre-commit's own
//! hooks), or that runs none it knows — `verdict list` and the digest name, with the
//! `[[verifier]]` that would run it: a check the project's CI runs is never dropped silently.

use std::path::Path;

use verdict_model::Kind;
use verdict_model::split::split_command;
use verdict_model::verifier::{InfraFile, Part as InfraPart};

use super::{
    Builder, Makefile, Purpose, nox_sessions, program_name, program_start, python_calls, quote,
    tox_ini_section_commands, tox_substitute,
};

/// A declared check that verdict does not run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unrun {
    /// What it is, for people: `tox env typing`, `nox session mypy`, `make lint`.
    pub what: String,
    /// The checkers its commands run (`mypy`, `ruff`), in order; empty when it runs none that
    /// verdict knows by name (its name says it is a check).
    pub tools: Vec<String>,
    /// The command that runs it: `tox -e typing`, `nox -s mypy`, `make lint`.
    pub argv: Vec<String>,
    /// A name for the `[[verifier]]` that would run it: `tox-typing`.
    pub name: String,
    /// That verifier's kind: `type` for a type checker, else `lint`.
    pub kind: &'static str,
}

impl Unrun {
    /// `tox env typing (mypy)`.
    pub fn describe(&self) -> String {
        if self.tools.is_empty() {
            self.what.clone()
        } else {
            format!("{} ({})", self.what, self.tools.join(", "))
        }
    }

    /// The `[[verifier]]` table of verdict.toml that runs it, on one line per key.
    pub fn verifier_toml(&self) -> String {
        let command = self
            .argv
            .iter()
            .map(|word| format!("{word:?}"))
            .collect::<Vec<_>>()
            .join(", ");
        format!(
            "[[verifier]]\nname = \"{}\"\nkind = \"{}\"\ncommand = [{command}]",
            self.name, self.kind
        )
    }
}

/// A check found in the project's files, before it is known which of its commands a verifier
/// runs.
pub(super) struct Found {
    /// What it is, for people: `tox env typing`.
    pub(super) what: String,
    /// Where its commands come from, for their origin: ``tox.ini's `typing` environment``.
    pub(super) origin: String,
    /// The command that runs it as the project does: `tox -e typing`.
    pub(super) argv: Vec<String>,
    /// A slug for the `[[verifier]]` that would run it: `tox-typing`.
    pub(super) name: String,
    /// Its command lines.
    pub(super) lines: Vec<String>,
    /// The file, or the part of it, that declares it.
    pub(super) source: InfraFile,
    /// Whether its name says it is a check, whatever it runs (`lint`, `typing`).
    pub(super) named_check: bool,
    /// Whether its name says it is a type check.
    pub(super) named_type: bool,
    /// The checkers it runs that are not in its lines (a pre-commit hook's id).
    pub(super) tools: Vec<String>,
}

impl Found {
    /// A check called `name` of the kind `what` (`tox env`), run by `runner` followed by its
    /// name, its verifier name made from `prefix` and its name.
    pub(super) fn new(
        name: &str,
        what: &str,
        origin: String,
        runner: &[&str],
        prefix: &str,
        lines: Vec<String>,
        source: InfraFile,
    ) -> Found {
        let lower = name.to_ascii_lowercase();
        let mut argv: Vec<String> = runner.iter().map(|w| (*w).to_owned()).collect();
        argv.push(name.to_owned());
        let slug: String = lower
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || c == '_' {
                    c
                } else {
                    '-'
                }
            })
            .collect();
        Found {
            what: format!("{what} {name}"),
            origin,
            argv,
            name: format!("{prefix}-{slug}"),
            lines,
            source,
            named_check: CHECK_NAMES.contains(&lower.as_str()),
            named_type: TYPE_NAMES.contains(&lower.as_str()),
            tools: Vec::new(),
        }
    }
}

/// Programs that check code without changing it (some only with an option, see
/// [`checks_code`]).
pub(super) const CHECKERS: &[&str] = &[
    "mypy",
    "pyright",
    "basedpyright",
    "pytype",
    "flake8",
    "pylint",
    "pycodestyle",
    "pydocstyle",
    "pyflakes",
    "bandit",
    "codespell",
    "ruff",
    "black",
    "isort",
    "pre-commit",
];

/// The checkers among [`CHECKERS`] that check types.
const TYPE_CHECKERS: &[&str] = &["mypy", "pyright", "basedpyright", "pytype"];

/// Names of environments, sessions and targets that are checks whatever they run.
pub(super) const CHECK_NAMES: &[&str] = &[
    "lint",
    "linting",
    "linters",
    "typing",
    "types",
    "type",
    "typecheck",
    "type-check",
    "type_check",
    "check-types",
    "mypy",
    "pyright",
    "style",
    "flake8",
    "pylint",
    "ruff",
    "check",
    "format-check",
    "check-format",
];

/// Names of the environments that are a type check.
const TYPE_NAMES: &[&str] = &[
    "typing",
    "types",
    "type",
    "typecheck",
    "type-check",
    "type_check",
    "check-types",
    "mypy",
    "pyright",
];

/// Adds to `builder` the commands of the project's checks that verifiers run, and gives the
/// checks that no verifier runs.
pub(super) fn add(root: &Path, builder: &mut Builder) -> Vec<Unrun> {
    let mut found = Vec::new();
    tox(root, &mut found);
    nox(root, &mut found);
    super::precommit::hooks(root, &mut found);
    super::tasks::checks(root, &mut found);
    let mut unrun = Vec::new();
    for check in found {
        let mut scratch = Builder::default();
        let purpose = if check.named_type {
            Purpose::Typecheck
        } else {
            Purpose::Lint
        };
        scratch.python_sequence(
            root,
            &check.lines,
            purpose,
            &check.origin,
            check.source.clone(),
        );
        unrun.extend(take(builder, scratch, &check));
    }
    make(root, builder, &mut unrun);
    unrun
}

/// Moves the commands of `scratch` (one check's) that a lint or type verifier runs into
/// `builder`, and gives the check as not run when some of its commands are left: a checker with
/// no verifier, or another program (`stubtest`) in a check. A check is what its name says is
/// one, or what runs a checker.
fn take(builder: &mut Builder, scratch: Builder, check: &Found) -> Option<Unrun> {
    let mut covered = false;
    let mut checkers = check.tools.clone();
    let mut others: Vec<String> = Vec::new();
    let add = |list: &mut Vec<String>, name: String| {
        if !list.contains(&name) {
            list.push(name);
        }
    };
    for mut command in scratch.commands {
        let tool = command
            .verifier()
            .and_then(verdict_model::Tool::of_verifier);
        let purpose = match tool.map(|tool| tool.spec().kind) {
            Some(Kind::Type) => Some(Purpose::Typecheck),
            Some(Kind::Lint) => Some(Purpose::Lint),
            // A test run is the test command's business, a build the build's.
            _ => None,
        };
        if let Some(purpose) = purpose {
            // Each check is a verifier of its own: one failing does not hide another.
            command.after.clear();
            command.purpose = purpose;
            command.python = true;
            command.run_by = vec![check.argv.clone()];
            covered = true;
            builder.commands.push(command);
        } else if let Some(checker) = checks_code(&command.text) {
            add(&mut checkers, checker);
        } else if tool.is_none()
            && let Some(program) = command.program_words().first()
        {
            add(&mut others, program_name(program));
        }
    }
    if others.is_empty() && checkers.is_empty() && !covered {
        // Not followed (a recipe make alone can expand): its lines say what it runs.
        for line in &check.lines {
            if let Some(checker) = checks_code(line) {
                add(&mut checkers, checker);
            }
        }
    }
    if !check.named_check && checkers.is_empty() && !covered {
        return None;
    }
    let typed = check.named_type || checkers.iter().any(|t| TYPE_CHECKERS.contains(&t.as_str()));
    let mut tools = checkers;
    tools.extend(others);
    if tools.is_empty() && covered {
        return None;
    }
    Some(Unrun {
        what: check.what.clone(),
        tools,
        argv: check.argv.clone(),
        name: check.name.clone(),
        kind: if typed { "type" } else { "lint" },
    })
}

/// tox.ini's `[testenv:NAME]` sections with commands of their own (one without inherits
/// `[testenv]`'s, the test run verdict takes), and tox 4's `[env.NAME]` of `tox.toml` or
/// `[tool.tox.env.NAME]` of pyproject.toml.
fn tox(root: &Path, found: &mut Vec<Found>) {
    let mut envs: Vec<(String, Vec<String>, InfraFile)> = Vec::new();
    if let Ok(text) = std::fs::read_to_string(root.join("tox.ini")) {
        for line in text.lines() {
            let Some(name) = line
                .trim()
                .strip_prefix("[testenv:")
                .and_then(|rest| rest.strip_suffix(']'))
            else {
                continue;
            };
            // A generative name (`py{311,312}`) names test runs, not a check.
            if name.contains(['{', ',']) {
                continue;
            }
            let section = format!("testenv:{}", name.trim());
            if let Some(lines) = tox_ini_section_commands(&text, &section) {
                let source = InfraFile {
                    glob: "tox.ini".to_owned(),
                    part: InfraPart::Ini(section),
                };
                envs.push((name.trim().to_owned(), lines, source));
            }
        }
    } else {
        envs = tox_toml_envs(root);
    }
    for (name, lines, source) in envs {
        let origin = format!("tox's `{name}` environment");
        found.push(Found::new(
            &name,
            "tox env",
            origin,
            &["tox", "-e"],
            "tox",
            lines,
            source,
        ));
    }
}

/// tox 4's TOML environments with commands of their own: `[env.NAME]` of `tox.toml`, else
/// `[tool.tox.env.NAME]` of pyproject.toml.
fn tox_toml_envs(root: &Path) -> Vec<(String, Vec<String>, InfraFile)> {
    let (table, file, keys): (_, _, &[&str]) = match std::fs::read_to_string(root.join("tox.toml"))
    {
        Ok(text) => (
            toml::from_str::<toml::Table>(&text).ok(),
            "tox.toml",
            &["env"],
        ),
        Err(_) => (
            std::fs::read_to_string(root.join("pyproject.toml"))
                .ok()
                .and_then(|text| toml::from_str::<toml::Table>(&text).ok())
                .and_then(|pyproject| pyproject.get("tool")?.get("tox")?.as_table().cloned()),
            "pyproject.toml",
            &["tool", "tox", "env"],
        ),
    };
    let Some(envs) = table
        .as_ref()
        .and_then(|t| t.get("env"))
        .and_then(toml::Value::as_table)
    else {
        return Vec::new();
    };
    let mut found = Vec::new();
    for (name, env) in envs {
        let Some(commands) = env.get("commands").and_then(toml::Value::as_array) else {
            continue;
        };
        let lines: Vec<String> = commands
            .iter()
            .filter_map(toml::Value::as_array)
            .map(|words| {
                let words: Vec<String> = words
                    .iter()
                    .filter_map(toml::Value::as_str)
                    .map(quote)
                    .collect();
                tox_substitute(&words.join(" "))
            })
            .filter(|line| !line.is_empty())
            .collect();
        let source = InfraFile {
            glob: file.to_owned(),
            part: InfraPart::Toml(
                keys.iter()
                    .map(|k| (*k).to_owned())
                    .chain([name.clone()])
                    .collect(),
            ),
        };
        found.push((name.clone(), lines, source));
    }
    found
}

/// noxfile.py's sessions but the test session and those it hands its work to.
fn nox(root: &Path, found: &mut Vec<Found>) {
    let Ok(text) = std::fs::read_to_string(root.join("noxfile.py")) else {
        return;
    };
    let sessions = nox_sessions(&text);
    let mut followed: Vec<String> = Vec::new();
    let mut next = ["test", "tests"]
        .into_iter()
        .find(|name| sessions.contains_key(*name))
        .map(str::to_owned);
    while let Some(name) = next.take() {
        if followed.contains(&name) {
            break;
        }
        next = sessions.get(&name).and_then(|body| {
            python_calls(body, "session.notify(")
                .into_iter()
                .flatten()
                .next()?
                .into_iter()
                .next()
        });
        followed.push(name);
    }
    for (name, body) in &sessions {
        if followed.contains(name) {
            continue;
        }
        let lines: Vec<String> = python_calls(body, "session.run(")
            .into_iter()
            .flatten()
            .map(|words| words.join(" "))
            .collect();
        let source = InfraFile {
            glob: "noxfile.py".to_owned(),
            part: InfraPart::Whole,
        };
        let origin = format!("noxfile.py's `{name}` session");
        found.push(Found::new(
            name,
            "nox session",
            origin,
            &["nox", "-s"],
            "nox",
            lines,
            source,
        ));
    }
}

/// The Makefile's targets named as checks ([`CHECK_NAMES`]) that no declared command was
/// followed through: their commands, prerequisites first, as make runs them.
fn make(root: &Path, builder: &mut Builder, unrun: &mut Vec<Unrun>) {
    let Some(makefile) = Makefile::read(root) else {
        return;
    };
    for target in CHECK_NAMES {
        let Some((_, recipe)) = makefile.rules.get(*target) else {
            continue;
        };
        let followed = builder
            .commands
            .iter()
            .any(|c| c.origin.contains("Makefile") && c.origin.contains(&format!("`{target}`")));
        if followed {
            continue;
        }
        let lines: Vec<String> = recipe
            .iter()
            .map(|line| {
                let line = makefile.expand_line(line).unwrap_or_else(|| line.clone());
                line.trim().trim_start_matches(['@', '-']).trim().to_owned()
            })
            .collect();
        let origin = format!("the Makefile's `{target}` target");
        let check = Found::new(
            target,
            "make",
            origin,
            &["make"],
            "make",
            lines,
            makefile.source(),
        );
        let mut scratch = Builder::default();
        let purpose = if check.named_type {
            Purpose::Typecheck
        } else {
            Purpose::Lint
        };
        if makefile.plain(target) {
            makefile.expand(&mut scratch, root, target, purpose, &check.origin, &[]);
        }
        unrun.extend(take(builder, scratch, &check));
    }
}

/// The checker a command line runs without changing code (`mypy src`, `ruff check .`, `black
/// --check .`, `python -m mypy`), or `None`: formatters that rewrite files and fixers are not
/// checks.
fn checks_code(line: &str) -> Option<String> {
    let words = split_command(line).ok()?;
    let words = program_start(&words);
    let mut program = program_name(words.first()?);
    let mut rest = &words[1..];
    if program.starts_with("python") && rest.first().is_some_and(|w| w == "-m") {
        program = rest.get(1)?.clone();
        rest = &rest[2..];
    }
    if !CHECKERS.contains(&program.as_str()) {
        return None;
    }
    let has = |option: &str| rest.iter().any(|w| w == option);
    let checking = match program.as_str() {
        "black" | "isort" => has("--check") || has("--check-only") || has("--diff"),
        "ruff" if rest.first().is_some_and(|w| w == "format") => has("--check") || has("--diff"),
        "ruff" => !has("--fix"),
        _ => true,
    };
    checking.then_some(program)
}

#[cfg(test)]
mod tests {
    use super::super::Declared;

    /// The commands the project's checks add (`origin: text [verifier]`), and the checks said
    /// not to be run.
    fn check(files: &[(&str, &str)], commands: &[&str], unrun: &[&str]) {
        let dir = tempfile::tempdir().expect("temp dir");
        for (name, text) in files {
            let path = dir.path().join(name);
            std::fs::create_dir_all(path.parent().expect("a parent")).expect("mkdir");
            std::fs::write(path, text).expect("write");
        }
        let declared = Declared::from_files(dir.path());
        let got: Vec<String> = declared
            .commands
            .iter()
            .filter(|c| c.purpose != super::Purpose::Test)
            .map(|c| {
                format!(
                    "{}: {} [{}]",
                    c.origin,
                    c.text,
                    c.verifier().unwrap_or("script")
                )
            })
            .collect();
        assert_eq!(got, commands, "commands");
        let got: Vec<String> = declared
            .unrun
            .iter()
            .map(|u| format!("{} [{}] {}", u.describe(), u.kind, u.argv.join(" ")))
            .collect();
        assert_eq!(got, unrun, "not run");
    }

    #[test]
    fn tox_environments_beside_the_test_run() {
        check(
            &[(
                "tox.ini",
                "[tox]\nenvlist = py3, typing, style, flake8\n\n[testenv]\ndeps = pytest\ncommands = pytest {posargs}\n\n\
                 [testenv:py312]\nbasepython = python3.12\n\n\
                 [testenv:typing]\ndeps = mypy\ncommands = mypy src\n\n\
                 [testenv:style]\ndeps = ruff\ncommands =\n    ruff check .\n    ruff format --check .\n\n\
                 [testenv:flake8]\ncommands = flake8 src tests\n\n\
                 [testenv:docs]\ncommands = sphinx-build docs build\n\n\
                 [testenv:fmt]\ncommands = black .\n",
            )],
            &[
                "tox's `typing` environment: mypy src [mypy]",
                "tox's `style` environment: ruff check . [ruff]",
                "tox's `style` environment: ruff format --check . [ruff]",
            ],
            &["tox env flake8 (flake8) [lint] tox -e flake8"],
        );
    }

    #[test]
    fn nox_sessions_but_the_test_session() {
        check(
            &[(
                "noxfile.py",
                "import nox\n\n\n@nox.session(\n    python=[\"3.11\", \"3.12\"],\n)\ndef tests(session: nox.Session) -> None:\n    session.install(\".[test]\")\n    session.run(\"pytest\", *session.posargs)\n\n\n\
                 @nox.session(python=\"3.12\")\ndef mypy(session):\n    session.install(\"mypy\")\n    session.run(\"mypy\", \"src\")\n\n\n\
                 @nox.session(name=\"lint\")\ndef run_linters(session):\n    session.run(\"python\", \"-m\", \"flake8\", \"src\")\n\n\n\
                 @nox.session\ndef docs(session):\n    session.run(\"sphinx-build\", \"docs\", \"out\")\n",
            )],
            &["noxfile.py's `mypy` session: mypy src [mypy]"],
            &["nox session lint (flake8) [lint] nox -s lint"],
        );
        // The `tests` session, under a decorator of several lines, is the test run.
        let dir = tempfile::tempdir().expect("temp dir");
        std::fs::write(
            dir.path().join("noxfile.py"),
            "import nox\n\n@nox.session(\n    python=[\"3.12\"],\n    reuse_venv=True,\n)\ndef tests(session):\n    session.run(\"pytest\", \"-x\", *session.posargs)\n",
        )
        .expect("write");
        let declared = Declared::from_files(dir.path());
        let tests: Vec<(&str, &str)> = declared
            .commands
            .iter()
            .map(|c| (c.origin.as_str(), c.text.as_str()))
            .collect();
        assert_eq!(tests, [("noxfile.py's `tests` session", "pytest -x")]);
    }

    #[test]
    fn makefile_check_targets() {
        check(
            &[(
                "Makefile",
                ".PHONY: test lint typecheck\ntest:\n\tpython -m pytest\n\nlint:\n\tpip install ruff\n\truff check src\n\ntypecheck:\n\tmypy src\n\tpyright\n",
            )],
            &[
                "the Makefile's `lint` target: ruff check src [ruff]",
                "the Makefile's `typecheck` target: mypy src [mypy]",
                "the Makefile's `typecheck` target: pyright [pyright]",
            ],
            &[],
        );
        // A lint target the test target runs is run with the tests.
        check(
            &[(
                "Makefile",
                "test: lint\n\tpython -m pytest\n\nlint:\n\truff check src\n",
            )],
            &[],
            &[],
        );
    }

    /// more-itertools' Makefile (November 2026): CI runs `make coverage` and `make requirements
    /// check`.
    #[test]
    fn more_itertools_runs_its_coverage_threshold_and_its_check_target() {
        let makefile = ".PHONY: all-checks\nall-checks: requirements coverage check docs package\n\n\
            .PHONY: requirements\nrequirements:\n\tpython -m pip install --upgrade -r requirements/development.txt\n\tpython -m pip install --editable .\n\n\
            .PHONY: check\ncheck:\n\truff format --check .\n\truff check more_itertools tests\n\tstubtest more_itertools.more more_itertools.recipes\n\n\
            .PHONY: format\nformat:\n\truff format .\n\n\
            .PHONY: coverage\ncoverage:\n\tpython -m pip install --upgrade -r requirements/testing.txt\n\tcoverage run --include=\"more_itertools/*.py\" -m unittest\n\tcoverage report --show-missing --fail-under=99\n\n\
            .PHONY: test\ntest:\n\tpython -m unittest -v ${tests}\n";
        let dir = tempfile::tempdir().expect("temp dir");
        std::fs::write(dir.path().join("Makefile"), makefile).expect("write");
        let declared = Declared::from_files(dir.path());
        let tests: Vec<(&str, Option<&str>)> = declared
            .commands
            .iter()
            .filter(|c| c.purpose == super::Purpose::Test)
            .map(|c| (c.text.as_str(), c.verifier()))
            .collect();
        assert_eq!(
            tests,
            [
                (
                    "coverage run --include=\"more_itertools/*.py\" -m unittest",
                    Some("unittest")
                ),
                ("coverage report --show-missing --fail-under=99", None),
            ]
        );
        check(
            &[("Makefile", makefile)],
            &[
                "the Makefile's `check` target: ruff format --check . [ruff]",
                "the Makefile's `check` target: ruff check more_itertools tests [ruff]",
            ],
            &["make check (stubtest) [lint] make check"],
        );
    }

    /// click's configuration (November 2026): tox 4 in pyproject.toml, pre-commit.
    #[test]
    fn click_runs_mypy_pyright_and_ruff_and_names_the_rest() {
        let pyproject = "[project]\nname = \"click\"\n\n[tool.mypy]\nfiles = [\"src\", \"tests/typing\"]\nstrict = true\n\n\
            [tool.tox]\nenv_list = [\"py3.14\", \"style\", \"typing\", \"docs\"]\n\n\
            [tool.tox.env_run_base]\ncommands = [[\n    \"pytest\", \"-v\", \"--tb=short\", \"--basetemp={env_tmp_dir}\",\n    {replace = \"posargs\", default = [], extend = true},\n]]\n\n\
            [tool.tox.env.style]\nskip_install = true\ncommands = [[\"pre-commit\", \"run\", \"--all-files\"]]\n\n\
            [tool.tox.env.typing]\ncommands = [\n    [\"mypy\"],\n    [\"pyright\", \"--ignoreexternal\", \"--verifytypes\", \"click\"],\n]\n\n\
            [tool.tox.env.docs]\ncommands = [[\"sphinx-build\", \"-E\", \"-W\", \"-b\", \"dirhtml\", \"docs\", \"docs/_build/dirhtml\"]]\n";
        let precommit = "repos:\n  - repo: https://github.com/astral-sh/ruff-pre-commit\n    rev: c60c980e561ed3e73101667fe8365c609d19a438  # frozen: v0.15.9\n    hooks:\n      - id: ruff-check\n      - id: ruff-format\n\
            \x20 - repo: https://github.com/codespell-project/codespell\n    rev: 2ccb47ff45ad361a21071a7eedda4c37e6ae8c5a  # frozen: v2.4.2\n    hooks:\n      - id: codespell\n        args: ['--write-changes', '--ignore-words-list=inout,te']\n\
            \x20 - repo: https://github.com/pre-commit/pre-commit-hooks\n    rev: 3e8a8703264a2f4a69428a0aa4dcb512790b2c8c  # frozen: v6.0.0\n    hooks:\n      - id: check-merge-conflict\n      - id: trailing-whitespace\n";
        check(
            &[
                ("pyproject.toml", pyproject),
                (".pre-commit-config.yaml", precommit),
            ],
            &[
                "tox's `typing` environment: mypy [mypy]",
                "tox's `typing` environment: pyright --ignoreexternal --verifytypes click [pyright]",
                ".pre-commit-config.yaml's `ruff-check` hook: ruff check [ruff]",
                ".pre-commit-config.yaml's `ruff-format` hook: ruff format --check [ruff]",
            ],
            &[
                "tox env style (pre-commit) [lint] tox -e style",
                "pre-commit hook codespell (codespell) [lint] pre-commit run codespell --all-files",
            ],
        );
    }

    #[test]
    fn pre_commit_hooks_take_their_args_and_local_entries() {
        let precommit = "repos:\n- repo: https://github.com/astral-sh/ruff-pre-commit\n  rev: v0.17.6\n  hooks:\n  - id: ruff\n    args: [--fix, --exit-non-zero-on-fix, --select, I]\n\
            - repo: https://github.com/pre-commit/mirrors-mypy\n  rev: v2.4.1\n  hooks:\n  - id: mypy\n    args: [--strict]\n    additional_dependencies: [types-requests]\n\
            - repo: local\n  hooks:\n  - id: pyright\n    name: pyright\n    entry: pyright src\n    language: system\n    types: [python]\n  - id: slow\n    entry: mypy --strict tests\n    language: system\n    stages: [manual]\n";
        check(
            &[(".pre-commit-config.yaml", precommit)],
            &[
                ".pre-commit-config.yaml's `ruff` hook: ruff check --select I [ruff]",
                ".pre-commit-config.yaml's `mypy` hook: mypy --strict . [mypy]",
                ".pre-commit-config.yaml's `pyright` hook: pyright src [pyright]",
            ],
            &[],
        );
        // Not YAML, or not pre-commit's shape: nothing, and no panic.
        check(&[(".pre-commit-config.yaml", "repos: [\n  {")], &[], &[]);
        check(&[(".pre-commit-config.yaml", "- 1\n- 2\n")], &[], &[]);
    }

    #[test]
    fn task_runner_checks_in_pyproject() {
        let pyproject = "[tool.hatch.envs.types]\nextra-dependencies = [\"mypy\"]\n\n\
            [tool.hatch.envs.types.scripts]\ncheck = \"mypy --install-types --non-interactive {args:src/pkg tests}\"\n\n\
            [tool.poe.tasks]\nlint = \"ruff check src\"\ntest = \"pytest\"\n\n\
            [tool.pdm.scripts]\ntypecheck = { cmd = \"pyright\" }\n";
        check(
            &[("pyproject.toml", pyproject)],
            &[
                "pyproject.toml's [tool.hatch.envs.types.scripts] check: mypy --install-types --non-interactive src/pkg tests [mypy]",
                "pyproject.toml's [tool.poe.tasks] lint: ruff check src [ruff]",
                "pyproject.toml's [tool.pdm.scripts] typecheck: pyright [pyright]",
            ],
            &[],
        );
    }
}
