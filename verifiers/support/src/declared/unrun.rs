//! The checks a project declares that verdict does not run: tox environments, nox sessions and
//! Makefile targets that run linters and type checkers (`[testenv:typing]` with mypy, a `lint`
//! session with ruff, `make lint`) beside the test command verdict takes from them. Until such
//! checks have verifiers of their own, `verdict list` and the digest name each one and the
//! `[[verifier]]` that would run it: a check the project's CI runs is never dropped silently.

use std::path::Path;

use verdict_model::split::split_command;

use super::{
    Command, Makefile, nox_sessions, program_name, program_start, python_calls,
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

/// Programs that check code without changing it (some only with an option, see
/// [`checks_code`]).
const CHECKERS: &[&str] = &[
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
const CHECK_NAMES: &[&str] = &[
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

/// The checks of the project at `root` that verdict does not run, given the commands it does
/// run (`commands`, whose origins say which Makefile targets were followed).
pub(super) fn of(root: &Path, commands: &[Command]) -> Vec<Unrun> {
    let mut unrun = Vec::new();
    tox(root, &mut unrun);
    nox(root, &mut unrun);
    make(root, commands, &mut unrun);
    unrun
}

/// tox.ini's `[testenv:NAME]` sections with commands of their own (one without inherits
/// `[testenv]`'s, the test run verdict takes), and tox 4's `[env.NAME]` of `tox.toml` or
/// `[tool.tox.env.NAME]` of pyproject.toml.
fn tox(root: &Path, unrun: &mut Vec<Unrun>) {
    let mut envs: Vec<(String, Vec<String>)> = Vec::new();
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
            if let Some(lines) = tox_ini_section_commands(&text, &format!("testenv:{name}")) {
                envs.push((name.trim().to_owned(), lines));
            }
        }
    } else {
        envs = tox_toml_envs(root);
    }
    for (name, lines) in envs {
        if let Some(check) = check(&name, &lines, "tox env", &["tox", "-e"], "tox") {
            unrun.push(check);
        }
    }
}

/// tox 4's TOML environments with commands of their own: `[env.NAME]` of `tox.toml`, else
/// `[tool.tox.env.NAME]` of pyproject.toml.
fn tox_toml_envs(root: &Path) -> Vec<(String, Vec<String>)> {
    let table = match std::fs::read_to_string(root.join("tox.toml")) {
        Ok(text) => toml::from_str::<toml::Table>(&text).ok(),
        Err(_) => std::fs::read_to_string(root.join("pyproject.toml"))
            .ok()
            .and_then(|text| toml::from_str::<toml::Table>(&text).ok())
            .and_then(|pyproject| pyproject.get("tool")?.get("tox")?.as_table().cloned()),
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
                    .map(super::quote)
                    .collect();
                tox_substitute(&words.join(" "))
            })
            .filter(|line| !line.is_empty())
            .collect();
        found.push((name.clone(), lines));
    }
    found
}

/// noxfile.py's sessions but the test session and those it hands its work to.
fn nox(root: &Path, unrun: &mut Vec<Unrun>) {
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
        if let Some(check) = check(name, &lines, "nox session", &["nox", "-s"], "nox") {
            unrun.push(check);
        }
    }
}

/// The Makefile's targets named as checks ([`CHECK_NAMES`]) that no declared command was
/// followed through.
fn make(root: &Path, commands: &[Command], unrun: &mut Vec<Unrun>) {
    let Some(makefile) = Makefile::read(root) else {
        return;
    };
    for target in CHECK_NAMES {
        let Some((_, recipe)) = makefile.rules.get(*target) else {
            continue;
        };
        let followed = commands
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
        if let Some(check) = check(target, &lines, "make", &["make"], "make") {
            unrun.push(Unrun {
                what: format!("make {target}"),
                ..check
            });
        }
    }
}

/// An [`Unrun`] for the environment, session or target `name` with command `lines`, when it is
/// a check: its name says so, or it runs a checker.
fn check(name: &str, lines: &[String], what: &str, runner: &[&str], prefix: &str) -> Option<Unrun> {
    let mut tools: Vec<String> = Vec::new();
    for line in lines {
        if let Some(tool) = checks_code(line)
            && !tools.contains(&tool)
        {
            tools.push(tool);
        }
    }
    let lower = name.to_ascii_lowercase();
    if tools.is_empty() && !CHECK_NAMES.contains(&lower.as_str()) {
        return None;
    }
    let typed = TYPE_NAMES.contains(&lower.as_str())
        || tools.iter().any(|t| TYPE_CHECKERS.contains(&t.as_str()));
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
    Some(Unrun {
        what: format!("{what} {name}"),
        tools,
        argv,
        name: format!("{prefix}-{slug}"),
        kind: if typed { "type" } else { "lint" },
    })
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

    fn check(files: &[(&str, &str)], expect: &[&str]) {
        let dir = tempfile::tempdir().expect("temp dir");
        for (name, text) in files {
            std::fs::write(dir.path().join(name), text).expect("write");
        }
        let declared = Declared::from_files(dir.path());
        let got: Vec<String> = declared
            .unrun
            .iter()
            .map(|u| format!("{} [{}] {}", u.describe(), u.kind, u.argv.join(" ")))
            .collect();
        assert_eq!(got, expect);
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
                "tox env typing (mypy) [type] tox -e typing",
                "tox env style (ruff) [lint] tox -e style",
                "tox env flake8 (flake8) [lint] tox -e flake8",
            ],
        );
    }

    #[test]
    fn nox_sessions_but_the_test_session_and_makefile_lint_targets() {
        check(
            &[(
                "noxfile.py",
                "import nox\n\n\n@nox.session(\n    python=[\"3.11\", \"3.12\"],\n)\ndef tests(session: nox.Session) -> None:\n    session.install(\".[test]\")\n    session.run(\"pytest\", *session.posargs)\n\n\n\
                 @nox.session(python=\"3.12\")\ndef mypy(session):\n    session.install(\"mypy\")\n    session.run(\"mypy\", \"src\")\n\n\n\
                 @nox.session(name=\"lint\")\ndef run_linters(session):\n    session.run(\"python\", \"-m\", \"flake8\", \"src\")\n\n\n\
                 @nox.session\ndef docs(session):\n    session.run(\"sphinx-build\", \"docs\", \"out\")\n",
            )],
            &[
                "nox session lint (flake8) [lint] nox -s lint",
                "nox session mypy (mypy) [type] nox -s mypy",
            ],
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
        check(
            &[(
                "Makefile",
                ".PHONY: test lint typecheck\ntest:\n\tpython -m pytest\n\nlint:\n\truff check src\n\ntypecheck:\n\tmypy src\n",
            )],
            &[
                "make lint (ruff) [lint] make lint",
                "make typecheck (mypy) [type] make typecheck",
            ],
        );
        // A lint target the test target runs is run.
        check(
            &[(
                "Makefile",
                "test: lint\n\tpython -m pytest\n\nlint:\n\truff check src\n",
            )],
            &[],
        );
    }
}
