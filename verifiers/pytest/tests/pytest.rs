//! The pytest verifier on fixture projects, with the real pytest (`cargo xtask tools` installs it
//! into a virtualenv): detection, the command, and what it makes of what pytest printed and wrote.
//!
//! Each fixture under `tests/fixtures/` is copied to a temporary directory and given a `.venv`
//! link to the shared virtualenv, so nothing is ever installed into the repository.

use std::path::{Path, PathBuf};

use verdict_core::process::ProcessRunner;
use verdict_core::verifier::{Applicability, Captured, CommandSpec, Exit, Runner, Workspace};
use verdict_core::{Kind, Outcome, Report, Severity, Verifier};
use verdict_pytest::Pytest;
use verdict_test_support::copy_dir;

/// The shared tool install: `$VERDICT_TOOLS`, else `<repo>/target/verdict-tools`.
fn tools() -> PathBuf {
    verdict_test_support::tool("venv/bin/pytest");
    verdict_test_support::tools()
}

/// A fixture project copied to a temporary directory.
struct Fixture {
    _dir: tempfile::TempDir,
    workspace: Workspace,
}

/// How the fixture gets its Python.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Venv {
    /// `.venv` links to the shared virtualenv, which has pytest.
    Shared,
    /// `.venv` is a fresh virtualenv without pytest (nor pip).
    Bare,
    /// `.venv/bin/python` links to an interpreter that does not exist.
    Broken,
}

/// Copies `tests/fixtures/<name>` and gives it a `.venv`.
fn fixture(name: &str, venv: Venv) -> Fixture {
    let dir = tempfile::tempdir().expect("temporary directory");
    let root = dir.path().join(name);
    copy_dir(
        &Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures")
            .join(name),
        &root,
    );
    match venv {
        Venv::Shared => {
            std::os::unix::fs::symlink(tools().join("venv"), root.join(".venv"))
                .expect("link .venv");
        }
        Venv::Bare => {
            // The shared virtualenv's interpreter makes a virtualenv of its own base Python.
            let status = std::process::Command::new(tools().join("venv/bin/python"))
                .args(["-m", "venv", "--without-pip"])
                .arg(root.join(".venv"))
                .status()
                .expect("run python -m venv");
            assert!(status.success(), "python -m venv failed");
        }
        Venv::Broken => {
            std::fs::create_dir_all(root.join(".venv/bin")).expect("mkdir .venv/bin");
            std::os::unix::fs::symlink("/nonexistent/python3", root.join(".venv/bin/python"))
                .expect("link .venv/bin/python");
        }
    }
    let run_dir = root.join(".verdict/runs/test");
    std::fs::create_dir_all(&run_dir).expect("create the run directory");
    Fixture {
        workspace: Workspace::new(&root).with_run_dir(run_dir),
        _dir: dir,
    }
}

/// Runs `spec` for real and interprets what it printed.
async fn run_spec(fixture: &Fixture, spec: &CommandSpec) -> (Captured, Report) {
    let log = fixture.workspace.run_dir.join("pytest.log");
    let captured = ProcessRunner::new().run(spec, &log).await;
    let report = Pytest::default().interpret(spec, &captured);
    (captured, report)
}

async fn run(fixture: &Fixture) -> (CommandSpec, Captured, Report) {
    let spec = Pytest::default()
        .command(&fixture.workspace)
        .expect("the command can be built");
    let (captured, report) = run_spec(fixture, &spec).await;
    (spec, captured, report)
}

/// The failing tests of a report: (node id or file, file, line, message), in order.
fn failures(report: &Report) -> Vec<(String, String, u32, String)> {
    report
        .diagnostics
        .iter()
        .filter(|d| d.severity == Severity::Error)
        .map(|d| {
            assert_eq!(d.kind, Kind::Test, "{d:?}");
            (
                d.test.clone().unwrap_or_default(),
                d.file.clone().unwrap_or_default(),
                d.line.unwrap_or(0),
                d.message.clone(),
            )
        })
        .collect()
}

/// What the log alone and the JUnit XML alone say about a run.
fn log_and_xml(fixture: &Fixture, captured: &Captured) -> (Report, Report) {
    let log = verdict_verifier_support::summarize_log_as("pytest", captured);
    let xml = verdict_summarizers::junit::parse_with_rootdir(
        "pytest",
        captured
            .output_files
            .first()
            .and_then(Option::as_deref)
            .expect("pytest wrote its JUnit report"),
        Some(&fixture.workspace.root.to_string_lossy()),
    );
    (log, xml)
}

fn exit_code(captured: &Captured) -> Option<i32> {
    match captured.exit {
        Exit::Code { code } => Some(code),
        _ => None,
    }
}

#[tokio::test]
async fn failing_tests_in_two_files_with_exact_node_ids_and_places() {
    let fixture = fixture("failing", Venv::Shared);
    assert!(matches!(
        Pytest::default().applies(&fixture.workspace),
        Applicability::Applies(ref why) if why == "pytest.ini"
    ));
    let (spec, captured, report) = run(&fixture).await;
    assert_eq!(exit_code(&captured), Some(1));
    assert!(
        matches!(captured.output_files.first(), Some(Some(_))),
        "pytest wrote its JUnit report"
    );
    assert_eq!(report.outcome, Outcome::Failed, "{report:#?}");
    assert_eq!(report.counts.tests_failed, Some(2));
    assert_eq!(report.counts.tests_passed, Some(2));
    assert_eq!(
        failures(&report),
        [
            (
                "tests/test_cart.py::test_total_adds_every_price".to_owned(),
                "tests/test_cart.py".to_owned(),
                9,
                "assert 3.0 == 6.0".to_owned()
            ),
            (
                "tests/test_prices.py::test_parse_price[1,000]".to_owned(),
                "tests/test_prices.py".to_owned(),
                8,
                "ValueError: could not convert string to float: '1,000'".to_owned()
            ),
        ]
    );
    // The summary is pytest's own line, from the log.
    assert!(
        report
            .summary
            .as_deref()
            .is_some_and(|s| s.starts_with("2 failed, 2 passed")),
        "{:?}",
        report.summary
    );
    // JUnit and the log agree on every failure, to the fingerprint.
    let log = verdict_verifier_support::summarize_log_as("pytest", &captured);
    let fingerprints = |r: &Report| {
        r.diagnostics
            .iter()
            .map(|d| d.fingerprint)
            .collect::<Vec<_>>()
    };
    assert_eq!(fingerprints(&log), fingerprints(&report));

    // Re-running the failures runs exactly those two node ids, and they still fail.
    let rerun = Pytest::default()
        .rerun_failed(&fixture.workspace, &report)
        .expect("a rerun command");
    assert_eq!(
        rerun.args[rerun.args.len() - 2..],
        [
            "tests/test_cart.py::test_total_adds_every_price",
            "tests/test_prices.py::test_parse_price[1,000]"
        ]
    );
    assert_eq!(rerun.args[..spec.args.len()], spec.args[..]);
    let (_, again) = run_spec(&fixture, &rerun).await;
    assert_eq!(again.outcome, Outcome::Failed);
    assert_eq!(again.counts.tests_failed, Some(2));
    assert_eq!(again.counts.tests_passed, Some(0));
    assert_eq!(failures(&again), failures(&report));
}

#[tokio::test]
async fn passing_tests_pass_with_their_counts() {
    let fixture = fixture("passing", Venv::Shared);
    let (_, captured, report) = run(&fixture).await;
    assert_eq!(exit_code(&captured), Some(0));
    assert_eq!(report.outcome, Outcome::Passed, "{report:#?}");
    assert_eq!(report.counts.tests_passed, Some(2));
    assert_eq!(report.counts.tests_skipped, Some(1));
    assert_eq!(report.counts.tests_failed, Some(0));
    assert!(report.diagnostics.is_empty(), "{report:#?}");
    assert_eq!(
        Pytest::default().rerun_failed(&fixture.workspace, &report),
        None
    );
}

#[tokio::test]
async fn a_test_file_that_cannot_import_fails_with_the_import_error_as_root_cause() {
    let fixture = fixture("collect-error", Venv::Shared);
    assert!(matches!(
        Pytest::default().applies(&fixture.workspace),
        Applicability::Applies(ref why) if why.contains("pyproject.toml")
    ));
    let (_, captured, report) = run(&fixture).await;
    // pytest stops after collection errors: "interrupted".
    assert_eq!(exit_code(&captured), Some(2));
    assert_eq!(report.outcome, Outcome::Failed, "{report:#?}");
    let d = report.errors().next().expect("an error");
    assert_eq!(d.file.as_deref(), Some("tests/test_payments.py"));
    assert_eq!(d.line, Some(1));
    assert_eq!(d.message, "ModuleNotFoundError: No module named 'shop'");
    assert!(d.root_cause);
    assert_eq!(report.errors().count(), 1, "{report:#?}");
    // A rerun names the file that could not be collected.
    let rerun = Pytest::default()
        .rerun_failed(&fixture.workspace, &report)
        .expect("a rerun command");
    assert_eq!(
        rerun.args.last().map(String::as_str),
        Some("tests/test_payments.py")
    );
}

#[tokio::test]
async fn no_tests_collected_is_errored_never_passed() {
    let fixture = fixture("no-tests", Venv::Shared);
    let (_, captured, report) = run(&fixture).await;
    assert_eq!(exit_code(&captured), Some(5));
    assert_eq!(report.outcome, Outcome::Errored, "{report:#?}");
    assert!(report.error.is_some());
}

#[tokio::test]
async fn a_python_without_pytest_is_errored_with_the_install_hint() {
    let fixture = fixture("failing", Venv::Bare);
    let (spec, captured, report) = run(&fixture).await;
    assert_eq!(spec.program, fixture.workspace.path(".venv/bin/python"));
    assert_ne!(exit_code(&captured), Some(0));
    assert_eq!(report.outcome, Outcome::Errored, "{report:#?}");
    let error = report.error.as_deref().unwrap_or("");
    assert!(error.contains("pytest is not installed"), "{error}");
    assert!(error.contains("-m pip install pytest"), "{error}");
}

#[tokio::test]
async fn a_python_that_cannot_start_is_errored() {
    let fixture = fixture("passing", Venv::Shared);
    let mut spec = Pytest::default()
        .command(&fixture.workspace)
        .expect("the command can be built");
    spec.program = fixture.workspace.path("no-such-python");
    let (captured, report) = run_spec(&fixture, &spec).await;
    assert!(
        matches!(captured.exit, Exit::NotStarted { .. }),
        "{captured:?}"
    );
    assert_eq!(report.outcome, Outcome::Errored, "{report:#?}");
}

#[tokio::test]
async fn a_test_that_never_ends_times_out_and_is_errored() {
    let fixture = fixture("slow", Venv::Shared);
    let pytest = Pytest::default().with_timeout(std::time::Duration::from_secs(5));
    let spec = pytest
        .command(&fixture.workspace)
        .expect("the command can be built");
    let started = std::time::Instant::now();
    let (captured, report) = run_spec(&fixture, &spec).await;
    assert_eq!(captured.exit, Exit::TimedOut);
    assert!(started.elapsed() < std::time::Duration::from_secs(60));
    assert_eq!(report.outcome, Outcome::Errored, "{report:#?}");
    assert!(
        report
            .error
            .as_deref()
            .is_some_and(|e| e.contains("timed out")),
        "{:?}",
        report.error
    );
}

#[tokio::test]
async fn pytest_crashing_in_a_plugin_hook_is_errored() {
    let fixture = fixture("internal-error", Venv::Shared);
    let (_, captured, report) = run(&fixture).await;
    assert_eq!(exit_code(&captured), Some(3));
    assert_eq!(report.outcome, Outcome::Errored, "{report:#?}");
    assert!(
        report
            .error
            .as_deref()
            .is_some_and(|e| e.contains("plugin exploded")),
        "{:?}",
        report.error
    );
}

/// A fixture that raises, in set-up or tear-down, is an error around its test (pytest's `1
/// error`), never a failed test: `verdict run` counted it as an error it then could not show
/// ("… and 1 more error"), and `--baseline` could not recognise it as the same problem.
#[tokio::test]
async fn a_fixture_error_is_a_test_error_in_the_log_and_the_xml_alike() {
    let fixture = fixture("fixture-error", Venv::Shared);
    let (_, captured, report) = run(&fixture).await;
    assert_eq!(exit_code(&captured), Some(1));
    assert_eq!(report.outcome, Outcome::Failed, "{report:#?}");
    assert_eq!(report.counts.tests_failed, Some(0));
    assert_eq!(report.counts.errors, Some(2));
    let errors: Vec<(&str, &str, bool)> = report
        .errors()
        .map(|d| {
            (
                d.test.as_deref().unwrap_or(""),
                d.message.as_str(),
                d.test_error,
            )
        })
        .collect();
    assert_eq!(
        errors,
        [
            (
                "test_fixtures.py::test_uses_broken",
                "RuntimeError: fixture exploded",
                true
            ),
            (
                "test_fixtures.py::test_teardown",
                "ValueError: teardown exploded",
                true
            ),
        ]
    );
    // The log alone and the XML alone say the same, to the fingerprint and the flag.
    let (log, xml) = log_and_xml(&fixture, &captured);
    let key = |r: &Report| {
        r.errors()
            .map(|d| (d.fingerprint, d.test_error, d.location()))
            .collect::<Vec<_>>()
    };
    assert_eq!(key(&log), key(&report));
    assert_eq!(key(&xml), key(&report));
}

/// A failing doctest (`--doctest-modules`) was reported twice — once by its node id, once as an
/// invented `pkg/mod.py::[doctest] pkg::mod::double` — and both with a line of the docstring as
/// the message. It is one failure, named as pytest names it, with the expected and actual output
/// (or the exception) as the message, at the line of the failing example.
#[tokio::test]
async fn a_failing_doctest_is_one_failure_with_expected_and_got() {
    let fixture = fixture("doctest", Venv::Shared);
    let (_, captured, report) = run(&fixture).await;
    assert_eq!(exit_code(&captured), Some(1));
    assert_eq!(report.outcome, Outcome::Failed, "{report:#?}");
    assert_eq!(report.counts.tests_failed, Some(3));
    assert_eq!(report.counts.tests_passed, Some(1));
    let expected = [
        (
            "pkg/mod.py::pkg.mod.divide".to_owned(),
            "pkg/mod.py".to_owned(),
            23,
            "ZeroDivisionError: division by zero".to_owned(),
        ),
        (
            "pkg/mod.py::pkg.mod.double".to_owned(),
            "pkg/mod.py".to_owned(),
            6,
            "Expected: 5 Got: 4".to_owned(),
        ),
        (
            "pkg/mod.py::pkg.mod.quiet".to_owned(),
            "pkg/mod.py".to_owned(),
            15,
            "Expected: 'loud' Got nothing".to_owned(),
        ),
    ];
    assert_eq!(failures(&report), expected);
    let details: Vec<Option<&str>> = report.errors().map(|d| d.detail.as_deref()).collect();
    assert_eq!(
        details,
        [
            Some(">>> divide(1, 0)"),
            Some(">>> double(2)"),
            Some(">>> quiet()")
        ]
    );
    let (log, xml) = log_and_xml(&fixture, &captured);
    assert_eq!(failures(&log), expected);
    assert_eq!(failures(&xml), expected);
}

/// pytest 9 writes a test whose fixture failed in tear-down once in the JUnit XML (pytest 8
/// twice), so passed computed as `tests − failures − errors − skipped` was one short of pytest's
/// own summary (3 passed where pytest said 4). The counts are pytest's, from the log and from the
/// XML alone alike.
#[tokio::test]
async fn a_failing_teardown_does_not_take_a_passed_test_off_the_count() {
    let fixture = fixture("fixture-error", Venv::Shared);
    let (_, captured, report) = run(&fixture).await;
    assert!(
        report
            .summary
            .as_deref()
            .is_some_and(|s| s.starts_with("2 passed, 2 errors")),
        "{:?}",
        report.summary
    );
    let (log, xml) = log_and_xml(&fixture, &captured);
    for (what, r) in [("merged", &report), ("log", &log), ("xml", &xml)] {
        let c = &r.counts;
        assert_eq!(
            (c.tests_passed, c.tests_failed, c.tests_skipped, c.errors),
            (Some(2), Some(0), Some(0), Some(2)),
            "{what}"
        );
    }
}

/// With `--tb=line` (or `-qq --tb=no`) in a project's `addopts` the failures lost their lines
/// (`test_m.py`, no line) although the log shows `test_m.py:9` and the XML the test's line. The
/// log's place comes first; without one, the XML's `line` attribute, which pytest writes 0-based.
#[tokio::test]
async fn a_failure_keeps_its_line_with_tb_line_and_tb_no() {
    let fixture = fixture("places", Venv::Shared);
    for (extra, places) in [
        (&["--tb=line"][..], [9, 14]),
        // No place in the log: the line of the `def`, or of its first decorator.
        (&["-qq", "--tb=no"][..], [8, 12]),
    ] {
        let mut spec = Pytest::default()
            .command(&fixture.workspace)
            .expect("the command can be built");
        spec.args.extend(extra.iter().map(|a| (*a).to_owned()));
        let (captured, report) = run_spec(&fixture, &spec).await;
        assert_eq!(exit_code(&captured), Some(1), "{extra:?}");
        let got: Vec<(String, String, u32)> = failures(&report)
            .into_iter()
            .map(|(test, file, line, _)| (test, file, line))
            .collect();
        assert_eq!(
            got,
            [
                (
                    "test_m.py::test_fail".to_owned(),
                    "test_m.py".to_owned(),
                    places[0]
                ),
                (
                    "test_m.py::test_p[2]".to_owned(),
                    "test_m.py".to_owned(),
                    places[1]
                ),
            ],
            "{extra:?}"
        );
    }
}

/// A project whose `.venv/bin/python` is a dangling link ran its tests with the system's Python
/// instead, silently. A virtualenv the project has but cannot run is an error naming it.
#[tokio::test]
async fn a_broken_project_venv_is_errored_never_replaced_by_another_python() {
    let fixture = fixture("passing", Venv::Broken);
    let error = Pytest::default()
        .command(&fixture.workspace)
        .expect_err("no command with a broken .venv")
        .to_string();
    assert!(error.contains("virtualenv .venv/"), "{error}");
    assert!(
        error.contains("links to /nonexistent/python3, which does not exist"),
        "{error}"
    );
    let log = fixture.workspace.run_dir.join("pytest.log");
    let report = Pytest::default()
        .verify(&fixture.workspace, &ProcessRunner::new(), &log)
        .await;
    assert_eq!(report.outcome, Outcome::Errored, "{report:#?}");
    assert!(
        report
            .error
            .as_deref()
            .is_some_and(|e| e.contains(".venv/")),
        "{:?}",
        report.error
    );

    // A `venv/` with its `pyvenv.cfg` but no interpreter is no better.
    std::fs::remove_dir_all(fixture.workspace.path(".venv")).expect("remove .venv");
    std::fs::create_dir_all(fixture.workspace.path("venv")).expect("mkdir venv");
    std::fs::write(
        fixture.workspace.path("venv/pyvenv.cfg"),
        "home = /nowhere\n",
    )
    .expect("write pyvenv.cfg");
    let error = Pytest::default()
        .command(&fixture.workspace)
        .expect_err("no command with a broken venv")
        .to_string();
    assert!(error.contains("has no venv/bin/python"), "{error}");
}

/// The cache key of the pytest verifier for the fixture as it is now.
fn cache_key(fixture: &Fixture) -> verdict_core::cache::Key {
    let pytest = Pytest::default();
    let spec = pytest
        .command(&fixture.workspace)
        .expect("the command can be built");
    let inputs = pytest
        .inputs(&fixture.workspace)
        .expect("pytest has cache inputs");
    verdict_core::cache::Cache::key(&fixture.workspace, &inputs, &spec, "salt")
        .expect("a cache key")
}

/// The cache replayed a stale pass after a test's data file changed (`templates/index.html`:
/// only Python, config and a few data extensions were inputs) and after a dependency was
/// upgraded in the virtualenv. Every project file is an input, and so is the list of installed
/// packages.
#[tokio::test]
async fn a_changed_data_file_or_an_upgraded_package_is_not_a_cached_pass() {
    let fixture = fixture("data-files", Venv::Shared);
    let (_, _, report) = run(&fixture).await;
    assert_eq!(report.outcome, Outcome::Passed, "{report:#?}");
    let passed = cache_key(&fixture);
    // Nothing changed (pytest's own caches and the run's files are no inputs): cached.
    assert_eq!(cache_key(&fixture), passed);
    std::fs::write(
        fixture.workspace.path("templates/index.html"),
        "<h1>Goodbye</h1>\n",
    )
    .expect("edit the template");
    let edited = cache_key(&fixture);
    assert_ne!(edited, passed, "a data file the test reads is an input");
    let (_, _, report) = run(&fixture).await;
    assert_eq!(report.outcome, Outcome::Failed, "{report:#?}");

    // A virtualenv of the project's own, with pip: install a package, then another version.
    let venv = fixture.workspace.path(".venv");
    std::fs::remove_file(&venv).expect("unlink the shared .venv");
    let status = std::process::Command::new(tools().join("venv/bin/python"))
        .args(["-m", "venv"])
        .arg(&venv)
        .status()
        .expect("run python -m venv");
    assert!(status.success(), "python -m venv failed");
    // A wheel made by hand (the venv has no `wheel` to build one), installed by the real pip.
    let wheels = fixture
        .workspace
        .root
        .parent()
        .expect("the fixture's temporary directory")
        .to_path_buf();
    let pip_install = |version: &str| {
        let make_wheel = format!(
            r#"
import base64, hashlib, sys, zipfile
version = "{version}"
name = f"verdict_fixture_dep-{{version}}"
files = {{
    "verdict_fixture_dep.py": f"VERSION = {{version!r}}\n",
    f"{{name}}.dist-info/METADATA": f"Metadata-Version: 2.1\nName: verdict-fixture-dep\nVersion: {{version}}\n",
    f"{{name}}.dist-info/WHEEL": "Wheel-Version: 1.0\nGenerator: verdict\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
}}
def digest(text):
    return "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(text.encode()).digest()).rstrip(b"=").decode()
record = "".join(f"{{path}},{{digest(text)}},{{len(text.encode())}}\n" for path, text in files.items())
files[f"{{name}}.dist-info/RECORD"] = record + f"{{name}}.dist-info/RECORD,,\n"
with zipfile.ZipFile(sys.argv[1], "w") as wheel:
    for path, text in files.items():
        wheel.writestr(path, text)
"#
        );
        let wheel = wheels.join(format!("verdict_fixture_dep-{version}-py3-none-any.whl"));
        let status = std::process::Command::new(tools().join("venv/bin/python"))
            .args(["-c", &make_wheel])
            .arg(&wheel)
            .status()
            .expect("make the wheel");
        assert!(status.success(), "making the wheel failed");
        let output = std::process::Command::new(venv.join("bin/python"))
            .args(["-m", "pip", "install", "--quiet", "--no-index"])
            .arg(&wheel)
            .output()
            .expect("run pip install");
        assert!(
            output.status.success(),
            "pip install failed: {}",
            String::from_utf8_lossy(&output.stderr)
        );
    };
    pip_install("1.0");
    let before = cache_key(&fixture);
    assert_eq!(cache_key(&fixture), before);
    pip_install("2.0");
    let upgraded = cache_key(&fixture);
    assert_ne!(upgraded, before, "an upgraded package is an input");
    let status = std::process::Command::new(venv.join("bin/python"))
        .args([
            "-m",
            "pip",
            "uninstall",
            "--quiet",
            "--yes",
            "verdict-fixture-dep",
        ])
        .status()
        .expect("run pip uninstall");
    assert!(status.success(), "pip uninstall failed");
    assert_ne!(
        cache_key(&fixture),
        upgraded,
        "a removed package is an input"
    );
}

/// A Makefile's `test: pytest -q tests/test_c*.py`: make's shell expands the glob before pytest
/// sees it, and the verifier passes the same files — only the cart tests run, not the prices'.
#[tokio::test]
async fn a_declared_glob_is_expanded_as_the_shell_expands_it() {
    let fixture = fixture("failing", Venv::Shared);
    std::fs::write(
        fixture.workspace.path("Makefile"),
        "test:\n\tpytest -q tests/test_c*.py\n",
    )
    .expect("write the Makefile");
    let (spec, _captured, report) = run(&fixture).await;
    assert!(
        spec.args.iter().any(|a| a == "tests/test_cart.py")
            && !spec.args.iter().any(|a| a.contains('*')),
        "{:?}",
        spec.args
    );
    assert!(
        report
            .diagnostics
            .iter()
            .all(|d| d.file.as_deref() != Some("tests/test_prices.py")),
        "{report:#?}"
    );
    assert!(
        report.counts.tests_failed.unwrap_or(0) + report.counts.tests_passed.unwrap_or(0) > 0,
        "{report:#?}"
    );
}
