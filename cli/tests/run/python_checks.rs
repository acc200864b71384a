//! The lint and type checks Python projects declare beside their tests (issue 26), on fixture
//! projects shaped like two public ones where verdict once let them pass unseen: click, whose tox
//! `typing` environment runs mypy and pyright and whose pre-commit runs ruff, and more-itertools,
//! whose CI runs `make coverage` (a `--fail-under=99` threshold) and `make check` (ruff). Each
//! declared check runs as a verifier of its own; what verdict has no verifier for is named. A
//! check whose tool is not installed is set aside with its install command outside CI, and is
//! "could not verify" in CI and with `--strict`.

use crate::support::project::Project;

use super::declared::project;

/// The verifiers of a JSON report, `name: outcome`.
fn outcomes(report: &serde_json::Value) -> Vec<String> {
    report["verifications"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|v| {
            format!(
                "{}: {}",
                v["verifier"].as_str().unwrap_or_default(),
                v["outcome"].as_str().unwrap_or_default()
            )
        })
        .collect()
}

/// The digest's `not verified: …` lines.
fn not_verified(report: &serde_json::Value) -> Vec<String> {
    report["digest"]["text"]
        .as_str()
        .unwrap_or_default()
        .lines()
        .filter(|line| line.starts_with("not verified: "))
        .map(str::to_owned)
        .collect()
}

/// The files of a diagnostic of verifier `name`.
fn files_of(report: &serde_json::Value, name: &str) -> Vec<String> {
    report["verifications"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|v| v["verifier"] == name)
        .flat_map(|v| {
            v["report"]["diagnostics"]
                .as_array()
                .cloned()
                .unwrap_or_default()
        })
        .filter_map(|d| d["file"].as_str().map(str::to_owned))
        .collect()
}

#[test]
fn click_runs_mypy_pyright_and_ruff_as_verifiers_and_names_the_rest() {
    let project = project("click-shaped");
    let list = project.verdict(&["list"]);
    assert_eq!(list.code, 0, "{}", list.all());
    for (name, why) in [
        ("mypy", "tox's `typing` environment runs `mypy`"),
        ("pyright", "tox's `typing` environment runs `pyright`"),
        (
            "ruff",
            ".pre-commit-config.yaml's `ruff-check` hook runs `ruff check`",
        ),
        ("pytest", "tox's env_run_base commands"),
    ] {
        let row = list
            .stdout
            .lines()
            .find(|line| line.starts_with(&format!("✓ {name} ")))
            .unwrap_or_else(|| panic!("{name} does not run:\n{}", list.all()));
        assert!(row.contains(why), "{row}");
    }
    for check in [
        "tox env style (pre-commit)",
        "pre-commit hook codespell (codespell)",
    ] {
        assert!(
            list.stdout.contains(&format!("  {check}:")),
            "{}",
            list.all()
        );
    }

    let run = project.verdict(&["run", "--no-cache", "--format", "json"]);
    assert_eq!(run.code, 0, "the pristine project passes: {}", run.all());
    let report = run.json();
    let ran = outcomes(&report);
    for expected in [
        "pytest: passed",
        "mypy: passed",
        "pyright: passed",
        "ruff: passed",
    ] {
        assert!(
            ran.contains(&expected.to_owned()),
            "{expected} not in {ran:?}"
        );
    }
    let lines = not_verified(&report);
    assert!(
        lines
            .iter()
            .any(|l| l.contains("tox env style (pre-commit)")
                && l.contains("pre-commit hook codespell (codespell)")),
        "{lines:?}"
    );

    // A type error both type checkers see (in code the tests never call), and an unused
    // import ruff's settings would fix.
    let area = "src/shapes/area.py";
    let text = format!(
        "import os\n\n\n{}\n\ndef label(side: float) -> int:\n    return str(side)\n",
        project.read(area)
    );
    project.write(area, &text);
    let run = project.verdict(&["run", "--no-cache", "--format", "json"]);
    assert_eq!(run.code, 1, "{}", run.all());
    let report = run.json();
    let ran = outcomes(&report);
    for expected in [
        "pytest: passed",
        "mypy: failed",
        "pyright: failed",
        "ruff: failed",
    ] {
        assert!(
            ran.contains(&expected.to_owned()),
            "{expected} not in {ran:?}"
        );
    }
    for checker in ["mypy", "pyright", "ruff"] {
        let files = files_of(&report, checker);
        assert!(
            files.iter().any(|f| f.ends_with("shapes/area.py")),
            "{checker}: {files:?}"
        );
    }
    // `fix = true` in the project's ruff settings: verdict checks, it never edits.
    assert_eq!(project.read(area), text, "the checked file was changed");
}

#[test]
fn more_itertools_runs_its_coverage_threshold_and_its_check_target() {
    let project = project("more-itertools-shaped");
    let run = project.verdict(&["run", "--no-cache", "--format", "json"]);
    assert_eq!(run.code, 0, "the pristine project passes: {}", run.all());
    let report = run.json();
    let ran = outcomes(&report);
    assert!(ran.contains(&"unittest: passed".to_owned()), "{ran:?}");
    assert!(ran.contains(&"ruff: passed".to_owned()), "{ran:?}");
    assert_eq!(
        not_verified(&report),
        [
            "not verified: make check (stubtest) — enable with a [[verifier]] in verdict.toml \
          running `make check` (`verdict list` shows it)"
        ]
    );

    // Code the tests never run: coverage falls under the project's 99 %.
    let more = "more_things/more.py";
    let text = project.read(more);
    project.write(
        more,
        &format!(
            "{text}\n\ndef last(iterable, default=None):\n    \"\"\"Return the last item.\"\"\"\n    \
             item = default\n    for item in iterable:\n        pass\n    return item\n"
        ),
    );
    let run = project.verdict(&["run", "--no-cache", "--format", "json"]);
    assert_eq!(run.code, 1, "{}", run.all());
    let digest = run.json()["digest"]["text"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    assert!(
        digest.contains("fail-under") || digest.contains("99"),
        "{digest}"
    );
}

/// A project whose tox `typing` environment runs mypy, with a virtualenv of its own that has
/// no mypy, and tests run by unittest (in every Python).
fn without_mypy() -> Project {
    let project = Project::empty();
    project.write(
        "tox.ini",
        "[tox]\nenvlist = py3, typing\n\n[testenv]\ncommands = python -m unittest\n\n\
         [testenv:typing]\ndeps = mypy\ncommands = mypy src\n",
    );
    project.write(
        "src/calc.py",
        "def add(a: int, b: int) -> int:\n    return a + b\n",
    );
    project.write(
        "test_calc.py",
        "import sys\nimport unittest\n\nsys.path.insert(0, 'src')\nfrom calc import add  # noqa: E402\n\n\n\
         class AddTests(unittest.TestCase):\n    def test_add(self):\n        self.assertEqual(add(1, 2), 3)\n",
    );
    let status = std::process::Command::new("python3")
        .args(["-m", "venv", "--without-pip", ".venv"])
        .current_dir(project.root())
        .status()
        .expect("python3 starts");
    assert!(status.success(), "python3 -m venv failed");
    project.git_init();
    project
}

#[test]
fn a_check_whose_tool_is_missing_is_said_locally_and_could_not_verify_in_ci() {
    let project = without_mypy();
    let line = "not verified: mypy is not installed — python -m pip install mypy";

    let list = project.verdict(&["list"]);
    assert!(list.stdout.contains(line), "{}", list.all());

    let run = project.verdict(&["run", "--no-cache", "--format", "json"]);
    assert_eq!(
        run.code,
        0,
        "the tests pass, mypy is set aside: {}",
        run.all()
    );
    let report = run.json();
    assert_eq!(outcomes(&report), ["unittest: passed"]);
    assert!(
        not_verified(&report).iter().any(|l| l.starts_with(line)),
        "{:?}",
        not_verified(&report)
    );

    for (args, env) in [
        (
            &["run", "--no-cache", "--format", "json"][..],
            &[("CI", "true")][..],
        ),
        (
            &["run", "--no-cache", "--strict", "--format", "json"][..],
            &[][..],
        ),
    ] {
        let run = project.verdict_env(args, env);
        assert_eq!(run.code, 2, "{args:?} {env:?}: {}", run.all());
        let report = run.json();
        assert!(
            outcomes(&report).contains(&"mypy: errored".to_owned()),
            "{:?}",
            outcomes(&report)
        );
        assert!(
            run.stdout.contains("mypy is not installed"),
            "{}",
            run.all()
        );
    }

    project.write("verdict.toml", "[verifiers.mypy]\nenabled = false\n");
    let run = project.verdict_env(
        &["run", "--no-cache", "--format", "json"],
        &[("CI", "true")],
    );
    assert_eq!(run.code, 0, "{}", run.all());
    assert!(not_verified(&run.json()).is_empty(), "{}", run.all());
}
