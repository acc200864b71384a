//! The `unittest` verifier run for real, with the `python3` on `PATH` (unittest is in the
//! standard library), on the fixture projects `tests/fixtures/unittest-*`: a passing project
//! (its Makefile declares the command, a virtualenv of its own runs it), a failing one (tox's
//! `commands`: a failed assertion, an error, a failing subtest, a skip and an expected
//! failure), one with a test module that does not import, and one whose `load_tests` adds
//! doctests (pyproject's hatch script runs plain `python -m unittest`).
//!
//! unittest writes no structured report; the ground truth is what its verbose log says, the
//! same in two runs, and the project's own command run as it declares it must agree with the
//! verifier on pass or fail.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;

use verdict_core::pipeline::{self, Entry, Options};
use verdict_core::process::ProcessRunner;
use verdict_core::verifier::{
    Applicability, Captured, CommandSpec, Exit, ExitCodes, Runner, Workspace,
};
use verdict_core::{Kind, Outcome, Report, Verifier};
use verdict_pytest::Unittest;
use verdict_test_support::copy_dir;

/// A copy of `fixtures/<name>` in a temporary directory, and its workspace.
fn project(name: &str) -> (tempfile::TempDir, Workspace) {
    assert!(
        verdict_verifier_support::on_path("python3").is_some(),
        "python3 is missing: install Python 3"
    );
    let dir = tempfile::tempdir().expect("temporary directory");
    let root = dir.path().join(name);
    copy_dir(
        &Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures")
            .join(name),
        &root,
    );
    let workspace = Workspace::new(&root).with_run_dir(root.join(".verdict/runs/test"));
    std::fs::create_dir_all(&workspace.run_dir).expect("create the run directory");
    (dir, workspace)
}

fn code(captured: &Captured) -> Option<i32> {
    match captured.exit {
        Exit::Code { code } => Some(code),
        _ => None,
    }
}

async fn run_spec(workspace: &Workspace, spec: &CommandSpec, log: &str) -> (Captured, Report) {
    let captured = ProcessRunner::new()
        .run(spec, &workspace.run_dir.join(log))
        .await;
    let report = Unittest::default().interpret(spec, &captured);
    (captured, report)
}

async fn run(workspace: &Workspace, log: &str) -> (CommandSpec, Captured, Report) {
    let spec = Unittest::default()
        .command(workspace)
        .expect("the command can be built");
    let (captured, report) = run_spec(workspace, &spec, log).await;
    (spec, captured, report)
}

/// Runs the verifier twice: both runs must read the same (the ground truth of a tool without a
/// structured report is what its log says, every time).
async fn run_twice(workspace: &Workspace) -> (CommandSpec, Captured, Report) {
    let (spec, captured, report) = run(workspace, "unittest.log").await;
    let (_, again_captured, again) = run(workspace, "unittest-again.log").await;
    assert_eq!(code(&captured), code(&again_captured));
    assert_eq!(report.outcome, again.outcome);
    assert_eq!(report.counts, again.counts);
    assert_eq!(failing(&report), failing(&again));
    (spec, captured, report)
}

/// The failing tests of `report`, by name.
fn failing(report: &Report) -> Vec<String> {
    let mut names: Vec<String> = report
        .errors()
        .filter(|d| d.kind == Kind::Test)
        .map(|d| {
            d.test
                .clone()
                .unwrap_or_else(|| d.file.clone().unwrap_or_default())
        })
        .collect();
    names.sort();
    names.dedup();
    names
}

/// Whether the project's own command passes: `make test` for a Makefile, else the command its
/// tox.ini or pyproject.toml declares, run by `sh -c` from the project root.
async fn project_passes(workspace: &Workspace, command: &str) -> bool {
    let spec = CommandSpec {
        program: "sh".into(),
        args: vec!["-c".to_owned(), command.to_owned()],
        env: BTreeMap::new(),
        cwd: workspace.root.clone(),
        timeout: std::time::Duration::from_secs(120),
        exit_codes: ExitCodes {
            pass: vec![0],
            fail: vec![1],
        },
        output_files: Vec::new(),
    };
    let captured = ProcessRunner::new()
        .run(&spec, &workspace.run_dir.join("own.log"))
        .await;
    code(&captured) == Some(0)
}

#[tokio::test]
async fn a_passing_project_passes_with_its_own_virtualenv() {
    let (_dir, workspace) = project("unittest-passing");
    // The project's virtualenv runs its tests, as the pytest verifier finds it.
    let status = std::process::Command::new("python3")
        .args(["-m", "venv", "--without-pip", ".venv"])
        .current_dir(&workspace.root)
        .status()
        .expect("run python3 -m venv");
    assert!(status.success());
    let verifier = Unittest::default();
    match verifier.applies(&workspace) {
        Applicability::Applies(why) => assert!(why.contains("Makefile"), "{why}"),
        other => panic!("{other:?}"),
    }
    let (spec, captured, report) = run_twice(&workspace).await;
    assert_eq!(spec.program, workspace.root.join(".venv/bin/python"));
    assert_eq!(
        spec.args,
        ["-m", "unittest", "discover", "-v", "-s", "tests", "-t", "."]
    );
    assert_eq!(code(&captured), Some(0));
    assert_eq!(report.outcome, Outcome::Passed, "{report:#?}");
    assert_eq!(report.counts.tests_passed, Some(2), "{report:#?}");
    assert_eq!(report.counts.tests_skipped, Some(1), "{report:#?}");
    assert!(project_passes(&workspace, "make test").await);
    // The cache hashes the project's files, not its virtualenv, and sees what is installed in
    // it.
    let inputs = verifier.inputs(&workspace).expect("inputs");
    assert!(inputs.globs.iter().any(|glob| glob == "!/.venv/**"));
    assert!(
        inputs
            .tool_files
            .contains(&workspace.root.join(".venv/pyvenv.cfg")),
        "{:?}",
        inputs.tool_files
    );
}

#[tokio::test]
async fn failures_errors_and_subtests_fail_by_name_and_rerun_by_name() {
    let (_dir, workspace) = project("unittest-failing");
    match Unittest::default().applies(&workspace) {
        Applicability::Applies(why) => assert!(why.contains("tox.ini"), "{why}"),
        other => panic!("{other:?}"),
    }
    let (spec, captured, report) = run_twice(&workspace).await;
    // tox's `{posargs}` is no argument.
    assert_eq!(
        spec.args,
        ["-m", "unittest", "discover", "-v", "-s", "tests", "-t", "."]
    );
    assert_eq!(code(&captured), Some(1));
    assert_eq!(report.outcome, Outcome::Failed, "{report:#?}");
    // Read from the log: `FAILED (failures=2, errors=1, skipped=1, expected failures=1)` over
    // six tests, the failures being test_adds_wrong and test_values's subtest (value=2), the
    // error test_raises.
    let names = failing(&report);
    for method in ["test_adds_wrong", "test_raises", "test_values"] {
        assert!(
            names
                .iter()
                .any(|name| name.starts_with("tests.test_calc.TestAdd.") && name.contains(method)),
            "{method} not in {names:?}"
        );
    }
    assert_eq!(names.len(), 3, "{names:?}");
    let wrong = report
        .errors()
        .find(|d| {
            d.test
                .as_deref()
                .is_some_and(|t| t.contains("test_adds_wrong"))
        })
        .expect("test_adds_wrong");
    assert_eq!(
        (wrong.file.as_deref(), wrong.line),
        (Some("tests/test_calc.py"), Some(11))
    );
    assert!(wrong.message.contains("4 != 5"), "{wrong:?}");
    assert!(!project_passes(&workspace, "python3 -m unittest discover -s tests -t .").await);

    // The re-run names the failing tests, and runs only them.
    let rerun = Unittest::default()
        .rerun_failed(&workspace, &report)
        .expect("a re-run");
    assert!(
        rerun
            .args
            .iter()
            .any(|a| a == "tests.test_calc.TestAdd.test_adds_wrong"),
        "{:?}",
        rerun.args
    );
    let (captured, again) = run_spec(&workspace, &rerun, "unittest-rerun.log").await;
    assert_eq!(code(&captured), Some(1));
    assert_eq!(failing(&again), names);
    assert_eq!(again.counts.tests_passed.unwrap_or(0), 0, "{again:#?}");
}

#[tokio::test]
async fn a_test_module_that_does_not_import_is_never_a_pass() {
    let (_dir, workspace) = project("unittest-import-error");
    let (_, captured, report) = run_twice(&workspace).await;
    assert_eq!(code(&captured), Some(1));
    assert_ne!(report.outcome, Outcome::Passed, "{report:#?}");
    let broken = report
        .errors()
        .find(|d| {
            d.file.as_deref() == Some("tests/test_broken.py")
                || d.test.as_deref().is_some_and(|t| t.contains("test_broken"))
        })
        .unwrap_or_else(|| panic!("the module that did not import in {report:#?}"));
    assert!(
        broken.message.contains("no_such_module") || broken.message.contains("import"),
        "{broken:?}"
    );
    assert!(!project_passes(&workspace, "make test").await);
    // Its module cannot be named for a re-run: the whole run again.
    assert_eq!(Unittest::default().rerun_failed(&workspace, &report), None);
}

#[tokio::test]
async fn a_failing_doctest_added_by_load_tests_fails_the_run() {
    let (_dir, workspace) = project("unittest-doctest");
    match Unittest::default().applies(&workspace) {
        Applicability::Applies(why) => assert!(why.contains("pyproject.toml"), "{why}"),
        other => panic!("{other:?}"),
    }
    let (spec, captured, report) = run_twice(&workspace).await;
    assert_eq!(spec.args, ["-m", "unittest", "-v"]);
    assert_eq!(code(&captured), Some(1));
    assert_eq!(report.outcome, Outcome::Failed, "{report:#?}");
    // `Ran 3 tests … FAILED (failures=1)`: the doctest of mathx.mean.
    let names = failing(&report);
    assert_eq!(names.len(), 1, "{names:?}");
    assert!(names[0].contains("mean"), "{names:?}");
    assert!(!project_passes(&workspace, "python -m unittest").await);
    // A doctest has no name unittest loads: the whole run again.
    assert_eq!(Unittest::default().rerun_failed(&workspace, &report), None);

    // The docstring fixed, the same run passes.
    let module = workspace.root.join("mathx/__init__.py");
    let text = std::fs::read_to_string(&module).expect("read the module");
    std::fs::write(&module, text.replace("    1.0\n", "    1.5\n")).expect("fix the doctest");
    let (_, captured, report) = run(&workspace, "unittest-fixed.log").await;
    assert_eq!(code(&captured), Some(0));
    assert_eq!(report.outcome, Outcome::Passed, "{report:#?}");
    assert_eq!(report.counts.tests_passed, Some(3), "{report:#?}");
}

#[tokio::test]
async fn the_pipeline_agrees_with_the_projects_own_command_and_no_test_is_no_pass() {
    for (name, command, outcome) in [
        ("unittest-passing", "make test", Outcome::Passed),
        (
            "unittest-failing",
            "python3 -m unittest discover -s tests -t .",
            Outcome::Failed,
        ),
        ("unittest-doctest", "python3 -m unittest", Outcome::Failed),
    ] {
        let (_dir, workspace) = project(name);
        let verification = run_pipeline(&workspace).await;
        assert_eq!(verification.outcome(), outcome, "{name}: {verification:#?}");
        assert_eq!(
            project_passes(&workspace, command).await,
            outcome == Outcome::Passed,
            "{name}"
        );
    }
    // No test module left: unittest runs nothing (exit 0 and `Ran 0 tests` on Python 3.11, exit
    // 5 and `NO TESTS RAN` from 3.12), which verifies nothing.
    let (_dir, workspace) = project("unittest-passing");
    std::fs::remove_file(workspace.root.join("tests/test_calc.py")).expect("remove the tests");
    let verification = run_pipeline(&workspace).await;
    assert_eq!(
        verification.outcome(),
        Outcome::Errored,
        "{verification:#?}"
    );
}

async fn run_pipeline(workspace: &Workspace) -> verdict_core::model::Verification {
    let entries = vec![Entry::new(Arc::new(Unittest::default()))];
    let runner: Arc<dyn Runner> = Arc::new(ProcessRunner::new());
    let mut verifications = pipeline::run(
        &entries,
        workspace,
        runner,
        &Options::default(),
        &mut |_| {},
    )
    .await
    .expect("a valid pipeline");
    verifications.remove(0)
}
