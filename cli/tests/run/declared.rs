//! `verdict run` against the project's own declared commands (issue 9): on small real projects
//! shaped like the public ones where verdict once disagreed with the project (tests run by
//! `node --test`, unittest doctests, a `test` chain with a coverage threshold, a stray jest
//! config beside a narrower lint script, `vitest --passWithNoTests`), both `verdict run` and the
//! project's own commands run, on the pristine project and with a bug injected, and verdict must
//! pass exactly when the project's commands pass.
//!
//! The fixtures are under `cli/tests/declared/`; the real tools come from `cargo xtask tools`.

use std::path::Path;
use std::process::Command;

use crate::support::project::{Project, path_with_node};

/// A fixture, the bug injected into it, and the commands the project itself declares.
struct Case {
    /// Its folder under `cli/tests/declared/`.
    fixture: &'static str,
    /// `(file, text, replacement)`: the bug.
    bug: (&'static str, &'static str, &'static str),
    /// The project's own commands, each an argv.
    own: &'static [&'static [&'static str]],
}

/// A copy of the fixture with the shared tools linked in.
pub(super) fn project(fixture: &str) -> Project {
    let project = Project::empty();
    let from = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/declared")
        .join(fixture);
    copy(&from, project.root());
    project.link_node_modules();
    project.link_venv();
    project.git_init();
    project
}

fn copy(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("create a directory");
    for entry in std::fs::read_dir(from).expect("read a fixture") {
        let entry = entry.expect("an entry");
        let target = to.join(entry.file_name());
        if entry.file_type().expect("a type").is_dir() {
            copy(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).expect("copy a file");
        }
    }
}

/// Whether every one of the project's own commands passes, with the output of those that fail.
fn own_commands_pass(project: &Project, own: &[&[&str]]) -> (bool, String) {
    let mut failures = String::new();
    for argv in own {
        let output = Command::new(argv[0])
            .args(&argv[1..])
            .current_dir(project.root())
            .env("PATH", path_with_node())
            .env("CI", "true")
            .env_remove("NO_COLOR")
            .output()
            .unwrap_or_else(|e| panic!("{argv:?} does not start: {e}"));
        if !output.status.success() {
            failures.push_str(&format!(
                "{argv:?} exited with {:?}\n{}{}\n",
                output.status.code(),
                String::from_utf8_lossy(&output.stdout),
                String::from_utf8_lossy(&output.stderr)
            ));
        }
    }
    (failures.is_empty(), failures)
}

/// Runs the case on the pristine project and with its bug: the project's own commands pass on
/// the first and fail on the second, and `verdict run` agrees each time (exit 0 on a pass, 1 on
/// a failure in the code).
fn check(case: &Case) {
    let project = project(case.fixture);
    for buggy in [false, true] {
        if buggy {
            let (file, from, to) = case.bug;
            let text = project.read(file);
            assert!(text.contains(from), "{file} has no `{from}`");
            project.write(file, &text.replacen(from, to, 1));
        }
        let (own, why) = own_commands_pass(&project, case.own);
        assert_eq!(
            own,
            !buggy,
            "{}: the project's own commands {} {}:\n{why}",
            case.fixture,
            if own { "pass" } else { "fail" },
            if buggy { "with the bug" } else { "pristine" }
        );
        let run = project.verdict(&["run", "--no-cache"]);
        let expected = if buggy { 1 } else { 0 };
        assert_eq!(
            run.code,
            expected,
            "{}: verdict run {} where the project's own commands {}:\n{}",
            case.fixture,
            if run.code == 0 {
                "passed"
            } else {
                "did not pass"
            },
            if own { "pass" } else { "fail" },
            run.all()
        );
    }
}

#[test]
fn node_test_runs_where_the_test_script_says_node_test() {
    check(&Case {
        fixture: "node-test",
        bug: ("lib.js", ".toLowerCase()", ""),
        own: &[&["npm", "test"]],
    });
}

#[test]
fn unittest_doctests_added_by_load_tests_are_verified() {
    check(&Case {
        fixture: "unittest-doctest",
        bug: (
            "mathx/__init__.py",
            "sum(values) / len(values)",
            "sum(values) // len(values)",
        ),
        own: &[&["make", "test"]],
    });
}

#[test]
fn every_command_of_a_test_chain_runs_with_its_coverage_threshold() {
    check(&Case {
        fixture: "chain-coverage",
        bug: (
            "ms.js",
            "  return Math.round",
            "  if (ms < 0) {\n    return 0;\n  }\n  return Math.round",
        ),
        own: &[&["npm", "test"]],
    });
    // The second jest command runs as the project's script, and its report says so: the digest
    // has one `jest:` section (the verifier's) and one `script:test:edge:` section.
    let project = project("chain-coverage");
    let run = project.verdict(&["run", "--format", "json"]);
    let report = run.json();
    let edge = report["verifications"]
        .as_array()
        .and_then(|v| v.iter().find(|v| v["verifier"] == "script:test:edge"))
        .unwrap_or_else(|| panic!("no script:test:edge: {}", run.all()));
    assert_eq!(edge["report"]["tool"], "script:test:edge", "{}", run.all());
    assert!(
        report["digest"]["text"]
            .as_str()
            .is_some_and(|text| text.contains("script:test:edge: ")),
        "{}",
        run.all()
    );
}

#[test]
fn a_stray_jest_config_and_a_narrow_lint_script_are_the_projects_own() {
    check(&Case {
        fixture: "stray-jest",
        bug: ("src/sum.js", "a + b", "a - b"),
        own: &[&["npm", "test"], &["npm", "run", "lint"]],
    });
    let project = project("stray-jest");
    let list = project.verdict(&["list"]);
    let jest = list
        .stdout
        .lines()
        .find(|line| line.contains(" jest "))
        .unwrap_or_else(|| panic!("no jest line:\n{}", list.all()));
    assert!(
        jest.starts_with("  ") && jest.contains("never run jest"),
        "jest is listed as applying: {jest}"
    );
}

#[test]
fn vitest_runs_with_the_pass_with_no_tests_of_the_test_script() {
    check(&Case {
        fixture: "pass-with-no-tests",
        bug: ("src/route.js", ".filter(Boolean)", ""),
        own: &[&["npm", "test"]],
    });
}

#[test]
fn a_shell_script_running_two_tools_is_read_part_by_part() {
    // `(cd packages/a && npm test) && (cd packages/b && npm test)`: one shell command, run as
    // the project's own script; its log holds mocha's run, then node's.
    check(&Case {
        fixture: "subshell-packages",
        bug: ("packages/b/index.js", "n / 2", "n / 3"),
        own: &[&["npm", "test"]],
    });
    let project = project("subshell-packages");
    let run = project.verdict(&["run", "--format", "json"]);
    let report = run.json();
    let script = report["verifications"]
        .as_array()
        .and_then(|v| v.iter().find(|v| v["verifier"] == "script:test"))
        .unwrap_or_else(|| panic!("no script:test: {}", run.all()));
    let counts = &script["report"]["counts"];
    // mocha's one test and node's one test, each read from its own part of the log.
    assert_eq!(counts["tests_passed"], 2, "{}", run.all());
}

#[test]
fn the_tests_see_the_projects_environment_not_verdicts_colour_settings() {
    // Code that turns colour off under NO_COLOR or FORCE_COLOR=0 (as chalk and commander do):
    // `npm test` passes, and so must verdict, whose colour settings once reached the tests.
    check(&Case {
        fixture: "colour-env",
        bug: ("paint.js", "`<b>${text}</b>`", "`<i>${text}</i>`"),
        own: &[&["npm", "test"]],
    });
}

/// A project whose `test` script runs a check of its own before its tests
/// (`node check.js && node --test`, as `prettier -c && vitest run`), with the check failing.
fn chain_with_a_failing_check() -> Project {
    let project = Project::empty();
    project.write(
        "package.json",
        r#"{"name": "fixture-chain-only", "private": true,
        "scripts": {"test": "node check.js && node --test"}}"#,
    );
    project.write(
        "check.js",
        "console.error('check.js: 1 file is not formatted');\nprocess.exit(1);\n",
    );
    project.write(
        "test/add.test.js",
        "const test = require('node:test');\nconst assert = require('node:assert');\n\
         test('adds', () => assert.strictEqual(1 + 1, 2));\n",
    );
    project.link_node_modules();
    project.git_init();
    project
}

/// The outcome of verifier `name` in a JSON report.
fn status_of(run: &crate::support::project::Out, name: &str) -> String {
    run.json()["verifications"]
        .as_array()
        .and_then(|v| v.iter().find(|v| v["verifier"] == name))
        .map(|v| v["outcome"].as_str().unwrap_or_default().to_owned())
        .unwrap_or_else(|| panic!("no {name} in the run: {}", run.all()))
}

#[test]
fn only_and_skip_run_what_was_asked_whatever_the_chain_order() {
    let project = chain_with_a_failing_check();
    // The chain's order stands when nothing is asked: node-test waits for the failing check.
    let all = project.verdict(&["run", "--no-cache", "--format", "json"]);
    assert_eq!(all.code, 1, "{}", all.all());
    // Asked for by name, or with the check skipped, the tests run and pass.
    for args in [&["--only", "node-test"][..], &["--skip", "script:test"][..]] {
        let mut argv = vec!["run", "--no-cache", "--format", "json"];
        argv.extend(args);
        let run = project.verdict(&argv);
        assert_eq!(run.code, 0, "{args:?}: {}", run.all());
        assert_eq!(status_of(&run, "node-test"), "passed", "{args:?}");
    }
    // Disabled in verdict.toml, the check is not waited for either.
    project.write(
        "verdict.toml",
        "[verifiers.\"script:test\"]\nenabled = false\n",
    );
    let run = project.verdict(&["run", "--no-cache", "--format", "json"]);
    assert_eq!(run.code, 0, "{}", run.all());
    assert_eq!(status_of(&run, "node-test"), "passed");
    // `needs = []` lifts the order: both run, the check fails and the tests still pass.
    project.write("verdict.toml", "[verifiers.node-test]\nneeds = []\n");
    let run = project.verdict(&["run", "--no-cache", "--format", "json"]);
    assert_eq!(run.code, 1, "{}", run.all());
    assert_eq!(status_of(&run, "node-test"), "passed");
    assert_eq!(status_of(&run, "script:test"), "failed");
}

/// The diagnostics' messages and test names of verifier `name` in a JSON report.
fn diagnostics_of(run: &crate::support::project::Out, name: &str) -> Vec<String> {
    run.json()["verifications"]
        .as_array()
        .and_then(|v| v.iter().find(|v| v["verifier"] == name))
        .and_then(|v| v["report"]["diagnostics"].as_array())
        .unwrap_or_else(|| panic!("no {name} diagnostics: {}", run.all()))
        .iter()
        .map(|d| {
            format!(
                "{} {}",
                d["test"].as_str().unwrap_or("-"),
                d["message"].as_str().unwrap_or_default()
            )
        })
        .collect()
}

#[test]
fn mocha_under_nyc_is_verified_as_mocha_with_nycs_threshold_on_top() {
    // Three failing tests: mocha exits 3, which nyc passes on; `npm test` fails and so must
    // verdict, as a failure in the code naming the tests (once "could not verify").
    check(&Case {
        fixture: "nyc-mocha",
        bug: ("lib.js", "a + b", "a - b"),
        own: &[&["npm", "test"]],
    });
    let project = project("nyc-mocha");
    let list = project.verdict(&["list"]);
    // mocha applies, and no script runs the command beside it.
    assert!(
        list.stdout.lines().any(|line| line.starts_with("✓ mocha ")),
        "mocha is not listed as applying:\n{}",
        list.all()
    );
    assert!(
        !list.stdout.contains("script:test"),
        "the command is still a script:\n{}",
        list.all()
    );
    project.write("lib.js", &project.read("lib.js").replace("a + b", "a - b"));
    let run = project.verdict(&["run", "--no-cache", "--format", "json"]);
    assert_eq!(run.code, 1, "{}", run.all());
    assert_eq!(status_of(&run, "mocha"), "failed");
    let failures = diagnostics_of(&run, "mocha");
    for test in ["adds one and one", "adds two and three", "adds two and two"] {
        assert!(
            failures.iter().any(|f| f.contains(test)),
            "{test} is not named: {failures:#?}"
        );
    }
    // Every test passes but one function is never called: nyc's threshold fails the run.
    project.write("lib.js", &project.read("lib.js").replace("a - b", "a + b"));
    let tests = project.read("test/lib.test.js");
    project.write(
        "test/lib.test.js",
        &tests.replace(
            "  it('doubles two', () => assert.strictEqual(double(2), 4));\n",
            "",
        ),
    );
    let (own, _) = own_commands_pass(&project, &[&["npm", "test"]]);
    assert!(!own, "npm test passes below the threshold");
    let run = project.verdict(&["run", "--no-cache", "--format", "json"]);
    assert_eq!(run.code, 1, "{}", run.all());
    assert_eq!(status_of(&run, "mocha"), "failed");
    let failures = diagnostics_of(&run, "mocha");
    assert!(
        failures
            .iter()
            .any(|f| f.contains("coverage for functions") && f.contains("threshold (100%)")),
        "{failures:#?}"
    );
}

#[test]
fn node_test_under_c8_keeps_c8s_threshold() {
    let project = Project::empty();
    project.write(
        "package.json",
        r#"{"name": "fixture-c8-node", "private": true,
        "scripts": {"test": "c8 --check-coverage --functions 100 node --test"}}"#,
    );
    project.write(
        "lib.js",
        "exports.add = (a, b) => a + b;\nexports.double = (n) => n * 2;\n",
    );
    project.write(
        "test/lib.test.js",
        "const test = require('node:test');\nconst assert = require('node:assert');\n\
         const { add, double } = require('../lib');\n\
         test('adds', () => assert.strictEqual(add(1, 1), 2));\n\
         test('doubles', () => assert.strictEqual(double(2), 4));\n",
    );
    project.link_node_modules();
    project.git_init();
    let run = project.verdict(&["run", "--no-cache", "--format", "json"]);
    assert_eq!(run.code, 0, "{}", run.all());
    assert_eq!(status_of(&run, "node-test"), "passed");
    // The tests pass, but `double` is never called: c8 fails the command, and verdict the run.
    project.write(
        "test/lib.test.js",
        &project.read("test/lib.test.js").replace(
            "test('doubles', () => assert.strictEqual(double(2), 4));\n",
            "",
        ),
    );
    let run = project.verdict(&["run", "--no-cache", "--format", "json"]);
    assert_eq!(run.code, 1, "{}", run.all());
    let failures = diagnostics_of(&run, "node-test");
    assert!(
        failures
            .iter()
            .any(|f| f.contains("coverage for functions")),
        "{failures:#?}"
    );
}

#[test]
fn pytest_under_coverage_run_is_pytest_and_coverage_report_waits_for_it() {
    let project = Project::empty();
    project.write(
        "Makefile",
        ".PHONY: test\ntest:\n\tcoverage run --source=mathx -m pytest -q tests\n\
         \tcoverage report --fail-under=100\n",
    );
    project.write(
        "mathx.py",
        "def add(a, b):\n    return a + b\n\n\ndef double(n):\n    return n * 2\n",
    );
    project.write(
        "tests/test_mathx.py",
        "from mathx import add, double\n\n\ndef test_add():\n    assert add(1, 1) == 2\n\n\n\
         def test_add_more():\n    assert add(2, 3) == 5\n\n\n\
         def test_double():\n    assert double(2) == 4\n",
    );
    project.write("pytest.ini", "[pytest]\npythonpath = .\n");
    project.link_venv();
    project.git_init();
    let run = project.verdict(&["run", "--no-cache", "--format", "json"]);
    assert_eq!(run.code, 0, "{}", run.all());
    assert_eq!(status_of(&run, "pytest"), "passed");
    // Two failing tests: pytest's failures, each named.
    project.write(
        "mathx.py",
        &project.read("mathx.py").replace("a + b", "a - b"),
    );
    let run = project.verdict(&["run", "--no-cache", "--format", "json"]);
    assert_eq!(run.code, 1, "{}", run.all());
    assert_eq!(status_of(&run, "pytest"), "failed");
    let failures = diagnostics_of(&run, "pytest");
    for test in ["test_add", "test_add_more"] {
        assert!(failures.iter().any(|f| f.contains(test)), "{failures:#?}");
    }
    // The tests pass but `double` is never run: `coverage report --fail-under` fails, after
    // pytest wrote the data it reads.
    project.write(
        "mathx.py",
        &project.read("mathx.py").replace("a - b", "a + b"),
    );
    let tests = project.read("tests/test_mathx.py");
    let cut = tests.find("\n\n\ndef test_double").expect("test_double");
    project.write("tests/test_mathx.py", &format!("{}\n", &tests[..cut]));
    let run = project.verdict(&["run", "--no-cache", "--format", "json"]);
    assert_eq!(run.code, 1, "{}", run.all());
    assert_eq!(status_of(&run, "pytest"), "passed");
    let report = run.json();
    let script = report["verifications"]
        .as_array()
        .and_then(|v| {
            v.iter().find(|v| {
                v["verifier"]
                    .as_str()
                    .is_some_and(|n| n.starts_with("script:"))
            })
        })
        .unwrap_or_else(|| panic!("no coverage report script: {}", run.all()));
    assert_eq!(script["outcome"], "failed", "{script:#}");
}

#[test]
fn declared_checks_run_by_their_verifiers_and_the_rest_named_in_list_and_digest() {
    let project = Project::empty();
    project.write(
        "Makefile",
        ".PHONY: test lint\ntest:\n\tpython -m pytest -q tests\n\nlint:\n\truff check src\n",
    );
    project.write(
        "tox.ini",
        "[tox]\nenvlist = py3, typing, style, flake8\n\n[testenv]\ndeps = pytest\n\
         commands = pytest {posargs}\n\n[testenv:typing]\ndeps = mypy\ncommands = mypy src\n\n\
         [testenv:style]\ndeps = ruff\ncommands = ruff check .\n\n\
         [testenv:flake8]\ndeps = flake8\ncommands = flake8 src\n",
    );
    project.write(
        "noxfile.py",
        "import nox\n\n\n@nox.session(\n    python=[\"3.12\"],\n)\ndef tests(session):\n    \
         session.run(\"pytest\")\n\n\n@nox.session\ndef mypy(session):\n    \
         session.run(\"mypy\", \"src\")\n",
    );
    project.write(
        "src/mathx.py",
        "def add(a: int, b: int) -> int:\n    return a + b\n",
    );
    project.write(
        "tests/test_mathx.py",
        "from mathx import add\n\n\ndef test_add():\n    assert add(1, 1) == 2\n",
    );
    project.write("pytest.ini", "[pytest]\npythonpath = src\n");
    project.link_venv();
    project.git_init();
    // mypy and ruff have verifiers of their own: only flake8's check is left.
    let checks = [("tox env flake8 (flake8)", "tox -e flake8")];
    let list = project.verdict(&["list"]);
    assert_eq!(list.code, 0, "{}", list.all());
    for (check, command) in checks {
        let at = list
            .stdout
            .find(&format!("  {check}:\n"))
            .unwrap_or_else(|| panic!("`verdict list` does not name {check}:\n{}", list.all()));
        // The [[verifier]] that would run it follows.
        let block: Vec<&str> = list.stdout[at..].lines().skip(1).take(4).collect();
        let quoted = command
            .split(' ')
            .map(|w| format!("{w:?}"))
            .collect::<Vec<_>>()
            .join(", ");
        assert_eq!(block[0].trim(), "[[verifier]]", "{block:?}");
        assert_eq!(
            block[3].trim(),
            format!("command = [{quoted}]"),
            "{block:?}"
        );
    }
    let run = project.verdict(&["run", "--no-cache", "--format", "json"]);
    assert_eq!(run.code, 0, "{}", run.all());
    let report = run.json();
    let digest = report["digest"]["text"].as_str().unwrap_or_default();
    let line = digest
        .lines()
        .find(|line| line.starts_with("not verified: "))
        .unwrap_or_else(|| panic!("no `not verified` line in the digest:\n{digest}"));
    for (check, _) in &checks {
        assert!(line.contains(check), "{check} is not in: {line}");
    }
    assert!(line.contains("enable with a [[verifier]] in verdict.toml running `tox -e flake8`"));
    // The checks with verifiers ran as verifiers of their own.
    let ran: Vec<&str> = report["verifications"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|v| v["verifier"].as_str())
        .collect();
    for verifier in ["pytest", "mypy", "ruff"] {
        assert!(ran.contains(&verifier), "{verifier} did not run: {ran:?}");
    }
    // Run by a [[verifier]], a check is verified, and no longer named.
    project.write(
        "verdict.toml",
        "[[verifier]]\nname = \"tox-flake8\"\nkind = \"lint\"\ncommand = [\"tox\", \"-e\", \"flake8\"]\n",
    );
    let list = project.verdict(&["list"]);
    assert!(!list.stdout.contains("tox env flake8"), "{}", list.all());
}

/// An npm-workspaces monorepo whose root runs every package's node:test tests under c8, with
/// one failing test in `packages/x`.
fn workspaces_with_a_failing_package() -> Project {
    let project = Project::empty();
    project.write(
        "package.json",
        r#"{"name": "mono", "private": true, "workspaces": ["packages/*"],
        "scripts": {"test": "c8 node --test"}}"#,
    );
    for (name, body, expect) in [("a", "s.trim()", "'x'"), ("x", "s.toUpperCase()", "'x'")] {
        project.write(
            &format!("packages/{name}/package.json"),
            &format!(r#"{{"name": "{name}", "version": "1.0.0"}}"#),
        );
        project.write(
            &format!("packages/{name}/index.js"),
            &format!("exports.clean = (s) => {body};\n"),
        );
        project.write(
            &format!("packages/{name}/test/{name}.test.js"),
            &format!(
                "const test = require('node:test');\nconst assert = require('node:assert');\n\
                 const {{ clean }} = require('..');\n\
                 test('{name} cleans a word', () => assert.strictEqual(clean(' x '.trim()), {expect}));\n"
            ),
        );
    }
    project.link_node_modules();
    project.git_init();
    project
}

#[test]
fn a_workspace_package_runs_the_roots_tests_scoped_to_it() {
    let project = workspaces_with_a_failing_package();
    // In the failing package: the root's `node --test`, run there, finds its failing test.
    let run = project.verdict(&["run", "-C", "packages/x", "--no-cache", "--format", "json"]);
    assert_eq!(run.code, 1, "{}", run.all());
    assert_eq!(status_of(&run, "node-test"), "failed");
    let failures = diagnostics_of(&run, "node-test");
    assert!(
        failures.iter().any(|f| f.contains("x cleans a word")),
        "{failures:#?}"
    );
    // Only that package's tests ran there.
    assert!(
        !failures.iter().any(|f| f.contains("a cleans")),
        "{failures:#?}"
    );
    let run = project.verdict(&["run", "-C", "packages/a", "--no-cache", "--format", "json"]);
    assert_eq!(run.code, 0, "{}", run.all());
    assert_eq!(status_of(&run, "node-test"), "passed");
    // At the root, the same tests run for every package: no advice to run them package by
    // package, and the failure is found there too.
    let run = project.verdict(&["run", "--no-cache", "--format", "json"]);
    assert_eq!(run.code, 1, "{}", run.all());
    assert!(
        !run.stderr.contains("workspace packages"),
        "the root names packages it covers: {}",
        run.stderr
    );
    let list = project.verdict(&["list"]);
    assert!(
        !list.stdout.contains("workspace packages"),
        "{}",
        list.all()
    );
}

#[test]
fn node_tap_runs_as_the_projects_script() {
    check(&Case {
        fixture: "node-tap",
        bug: ("lib.js", ".toLowerCase()", ""),
        own: &[&["npm", "test"]],
    });
}

#[test]
fn tape_runs_as_the_projects_script() {
    check(&Case {
        fixture: "tape",
        bug: ("lib.js", ".toLowerCase()", ""),
        own: &[&["npm", "test"]],
    });
}

/// A `test` script that runs a TAP producer with no verifier of its own (node-tap, tape): its
/// digest named no failing test and said "the tool printed no totals", as the script's log was
/// read by no summarizer. Now it names the failing test and gives the tool's counts.
#[test]
fn a_tap_runners_digest_names_its_failing_tests_with_its_counts() {
    for (fixture, test, counts) in [
        (
            "node-tap",
            "slug > lowercases > joins lowercase words",
            "2 failed, 1 passed",
        ),
        ("tape", "slug > joins lowercase words", "2 failed, 1 passed"),
    ] {
        let project = project(fixture);
        let text = project.read("lib.js");
        project.write("lib.js", &text.replacen(".toLowerCase()", "", 1));
        let run = project.verdict(&["run", "--no-cache", "--format", "json"]);
        assert_eq!(run.code, 1, "{fixture}: {}", run.all());
        let report = run.json();
        let script = report["verifications"]
            .as_array()
            .and_then(|v| v.iter().find(|v| v["verifier"] == "script:test"))
            .unwrap_or_else(|| panic!("{fixture}: no script:test: {}", run.all()));
        let counts_json = &script["report"]["counts"];
        // Both `slug` assertions fail without the lowercasing; `initials` passes.
        assert_eq!(counts_json["tests_failed"], 2, "{fixture}: {}", run.all());
        assert_eq!(counts_json["tests_passed"], 1, "{fixture}: {}", run.all());
        let digest = report["digest"]["text"].as_str().unwrap_or_default();
        assert!(
            digest.contains(test) && digest.contains(counts),
            "{fixture}: the digest names `{test}` with `{counts}`:\n{digest}"
        );
        assert!(
            !digest.contains("printed no totals"),
            "{fixture}:\n{digest}"
        );
    }
}

/// The text of a JSON report's digest.
fn digest_of(run: &crate::support::project::Out) -> String {
    run.json()["digest"]["text"]
        .as_str()
        .unwrap_or_else(|| panic!("no digest: {}", run.all()))
        .to_owned()
}

/// Every test passed and the command failed on something else: a coverage threshold of
/// `node --test`, coverage.py's `report --fail-under`, a leak check at mocha's exit. The digest
/// said "1 passed" or "could not verify … see the log", without the one line that says what
/// failed; now that line is in it.
#[test]
fn a_run_whose_tests_all_pass_but_that_fails_says_why() {
    // node --test's own threshold: the node-test verifier, through reconcile.
    let project = Project::empty();
    project.write(
        "package.json",
        r#"{"name": "fixture-node-threshold", "private": true,
        "scripts": {"test": "node --test --experimental-test-coverage --test-coverage-functions=100"}}"#,
    );
    project.write(
        "lib.js",
        "exports.add = (a, b) => a + b;\nexports.double = (n) => n * 2;\n",
    );
    project.write(
        "test/lib.test.js",
        "const test = require('node:test');\nconst assert = require('node:assert');\n\
         const { add } = require('../lib');\n\
         test('adds', () => assert.strictEqual(add(1, 1), 2));\n",
    );
    project.link_node_modules();
    project.git_init();
    let (own, _) = own_commands_pass(&project, &[&["npm", "test"]]);
    assert!(!own, "npm test passes below the threshold");
    let run = project.verdict(&["run", "--no-cache", "--format", "json"]);
    assert_eq!(run.code, 1, "{}", run.all());
    assert_eq!(status_of(&run, "node-test"), "failed");
    let digest = digest_of(&run);
    assert!(
        digest.contains("66.67% function coverage does not meet threshold of 100%"),
        "{digest}"
    );

    // coverage.py's report under its threshold: a script verifier.
    let project = Project::empty();
    project.write(
        "Makefile",
        ".PHONY: test\ntest:\n\tcoverage run --source=mathx -m pytest -q tests\n\
         \tcoverage report --fail-under=100\n",
    );
    project.write(
        "mathx.py",
        "def add(a, b):\n    return a + b\n\n\ndef double(n):\n    return n * 2\n",
    );
    project.write(
        "tests/test_mathx.py",
        "from mathx import add\n\n\ndef test_add():\n    assert add(1, 1) == 2\n",
    );
    project.write("pytest.ini", "[pytest]\npythonpath = .\n");
    project.link_venv();
    project.git_init();
    let run = project.verdict(&["run", "--no-cache", "--format", "json"]);
    assert_eq!(run.code, 1, "{}", run.all());
    assert_eq!(status_of(&run, "pytest"), "passed");
    let digest = digest_of(&run);
    assert!(digest.contains("is less than fail-under=100"), "{digest}");

    // A leak check that fails mocha's run after every test passed: what it printed last.
    let project = Project::empty();
    project.write(
        "package.json",
        r#"{"name": "fixture-leak-check", "private": true,
        "scripts": {"test": "mocha --require ./leak-check.js"}}"#,
    );
    project.write(
        "leak-check.js",
        "process.on('exit', () => {\n\
         \x20 console.error('Error: leak check: 1 timer is still scheduled');\n\
         \x20 process.exit(1);\n});\n",
    );
    project.write(
        "test/add.test.js",
        "const assert = require('node:assert');\n\
         it('adds', () => assert.strictEqual(1 + 1, 2));\n",
    );
    project.link_node_modules();
    project.git_init();
    let (own, _) = own_commands_pass(&project, &[&["npm", "test"]]);
    assert!(!own, "npm test passes with the leak check failing");
    let run = project.verdict(&["run", "--no-cache", "--format", "json"]);
    assert_ne!(run.code, 0, "{}", run.all());
    assert_ne!(status_of(&run, "mocha"), "passed");
    let digest = digest_of(&run);
    assert!(
        digest.contains("leak check: 1 timer is still scheduled"),
        "{digest}"
    );
}
