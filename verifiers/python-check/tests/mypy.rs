//! The mypy verifier on fixture projects, with the real mypy (`cargo xtask tools` installs it):
//! detection, the command it builds, and what it makes of what mypy printed, as the pipeline
//! judges it against the exit code.
//!
//! Each fixture under `tests/fixtures/mypy/` is copied to a temporary directory and given a
//! `.venv` link to the shared virtualenv, so nothing is ever installed into the repository.

use std::path::Path;

use verdict_core::pipeline;
use verdict_core::process::ProcessRunner;
use verdict_core::verifier::{
    Applicability, Captured, CommandSpec, Runner, VerifierError, Workspace,
};
use verdict_core::{Evidence, Outcome, Report, Severity, Verifier};
use verdict_python_check::mypy::Mypy;
use verdict_test_support::copy_dir;

/// A fixture project copied to a temporary directory.
struct Fixture {
    _dir: tempfile::TempDir,
    workspace: Workspace,
}

/// What the project's `.venv` is.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Venv {
    /// A link to the shared virtualenv, which has mypy.
    Shared,
    /// A virtualenv without mypy.
    WithoutMypy,
}

/// Copies `tests/fixtures/mypy/<name>` and gives it a `.venv`.
fn fixture(name: &str, venv: Venv) -> Fixture {
    let dir = tempfile::tempdir().expect("temporary directory");
    let root = dir.path().join(name);
    copy_dir(
        &Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/mypy")
            .join(name),
        &root,
    );
    match venv {
        Venv::Shared => {
            verdict_test_support::tool("venv/bin/mypy");
            verdict_test_support::link_venv(&root);
        }
        Venv::WithoutMypy => {
            std::fs::create_dir_all(root.join(".venv/bin")).expect("mkdir .venv/bin");
            std::fs::write(root.join(".venv/pyvenv.cfg"), "home = /usr/bin\n").expect("pyvenv");
        }
    }
    let run_dir = root.join(".verdict/runs/test");
    std::fs::create_dir_all(&run_dir).expect("create the run directory");
    Fixture {
        workspace: Workspace::new(&root).with_run_dir(run_dir),
        _dir: dir,
    }
}

/// Builds the command, runs it for real, interprets what it printed and reconciles the report
/// with the exit code as the pipeline does.
async fn run(fixture: &Fixture) -> (CommandSpec, Captured, Report) {
    let verifier = Mypy::default();
    let spec = verifier
        .command(&fixture.workspace)
        .expect("the command can be built");
    let log = fixture.workspace.run_dir.join("mypy.log");
    let captured = ProcessRunner::new().run(&spec, &log).await;
    let report = verifier.interpret(&spec, &captured);
    let report = pipeline::reconcile(report, &spec, &captured, verifier.kind(), false);
    (spec, captured, report)
}

/// The errors of a report: (file, line, code), in mypy's order.
fn errors(report: &Report) -> Vec<(&str, u32, &str)> {
    report
        .diagnostics
        .iter()
        .filter(|d| d.severity == Severity::Error)
        .map(|d| {
            (
                d.file.as_deref().unwrap_or(""),
                d.line.unwrap_or(0),
                d.code.as_deref().unwrap_or(""),
            )
        })
        .collect()
}

#[tokio::test]
async fn a_clean_project_passes_with_the_modules_it_checked_as_evidence() {
    let fixture = fixture("clean", Venv::Shared);
    let (spec, captured, report) = run(&fixture).await;
    assert_eq!(spec.args[..2], ["-O", "json"]);
    assert!(
        spec.args.contains(&"--linecount-report".to_owned()),
        "{spec:?}"
    );
    // The files come from `[tool.mypy] files`: no path is added.
    assert!(!spec.args.contains(&".".to_owned()), "{spec:?}");
    assert!(
        captured.output_files[0].is_some(),
        "the linecount report was written"
    );
    assert_eq!(report.outcome, Outcome::Passed, "{report:#?}");
    assert_eq!(report.evidence(), Evidence::Checked);
    assert_eq!(report.summary.as_deref(), Some("mypy checked 2 module(s)"));
}

#[tokio::test]
async fn failures_are_read_from_the_json_with_their_codes_and_hints() {
    let fixture = fixture("failing", Venv::Shared);
    let (spec, _, report) = run(&fixture).await;
    // No configured files and no declared command: the project, as `mypy .`.
    assert_eq!(spec.args.last().map(String::as_str), Some("."));
    assert_eq!(report.outcome, Outcome::Failed, "{report:#?}");
    let mut found = errors(&report);
    found.sort();
    assert_eq!(
        found,
        [
            ("shop/cart.py", 6, "return-value"),
            ("shop/cart.py", 9, "attr-defined"),
            ("shop/net.py", 2, "import-not-found"),
        ],
        "{report:#?}"
    );
    assert_eq!(report.counts.errors, Some(3));
    assert_eq!(report.counts.files, Some(2));
    let import = report
        .diagnostics
        .iter()
        .find(|d| d.code.as_deref() == Some("import-not-found"))
        .expect("the import error");
    assert_eq!(
        import.column,
        Some(1),
        "JSON columns are 0-based, reports' 1-based"
    );
    assert!(
        import
            .detail
            .as_deref()
            .is_some_and(|d| d.contains("missing-imports")),
        "{import:?}"
    );
}

#[tokio::test]
async fn the_declared_commands_options_are_honoured_and_verdicts_dropped() {
    let mut fixture = fixture("loose", Venv::Shared);
    // Clean as configured: the functions have no annotations.
    let (_, _, report) = run(&fixture).await;
    assert_eq!(report.outcome, Outcome::Passed, "{report:#?}");
    fixture.workspace.commands.insert(
        "mypy".to_owned(),
        "python -m mypy --strict --pretty -O text pkg".to_owned(),
    );
    let (spec, _, report) = run(&fixture).await;
    assert!(
        spec.args
            .ends_with(&["--strict".to_owned(), "pkg".to_owned()]),
        "{spec:?}"
    );
    assert!(!spec.args.contains(&"--pretty".to_owned()), "{spec:?}");
    assert!(!spec.args.contains(&"text".to_owned()), "{spec:?}");
    assert_eq!(report.outcome, Outcome::Failed, "{report:#?}");
    assert_eq!(errors(&report), [("pkg/books.py", 4, "no-untyped-def")]);
}

#[tokio::test]
async fn a_configuration_error_is_errored_never_a_pass() {
    let fixture = fixture("plugin-missing", Venv::Shared);
    let (_, captured, report) = run(&fixture).await;
    assert_eq!(
        captured.exit,
        verdict_core::verifier::Exit::Code { code: 2 }
    );
    assert_eq!(report.outcome, Outcome::Errored, "{report:#?}");
    let error = report.error.as_deref().unwrap_or_default();
    assert!(error.contains("Error importing plugin"), "{error}");
}

#[tokio::test]
async fn a_syntax_error_fails_at_its_line() {
    let fixture = fixture("syntax", Venv::Shared);
    let (_, _, report) = run(&fixture).await;
    assert_eq!(report.outcome, Outcome::Failed, "{report:#?}");
    assert_eq!(errors(&report), [("pkg/broken.py", 4, "syntax")]);
}

#[tokio::test]
async fn an_unknown_option_is_errored_with_mypys_words() {
    let mut fixture = fixture("clean", Venv::Shared);
    fixture
        .workspace
        .commands
        .insert("mypy".to_owned(), "mypy --strictt pkg".to_owned());
    let (_, _, report) = run(&fixture).await;
    assert_eq!(report.outcome, Outcome::Errored, "{report:#?}");
    assert_eq!(
        report.error.as_deref(),
        Some("mypy: error: unrecognized arguments: --strictt")
    );
}

#[tokio::test]
async fn an_older_mypy_is_read_through_its_standard_lines() {
    // A virtualenv whose installed mypy says 1.10, which has no `-O json`; the program is the
    // real mypy, so its standard lines are what the verifier reads.
    let fixture = fixture_with_old_mypy("failing");
    let (spec, _, report) = run(&fixture).await;
    assert!(!spec.args.contains(&"json".to_owned()), "{spec:?}");
    assert!(spec.output_files.is_empty(), "{spec:?}");
    assert_eq!(report.outcome, Outcome::Failed, "{report:#?}");
    assert_eq!(
        report.summary.as_deref(),
        Some("Found 3 errors in 2 files (checked 3 source files)")
    );
    assert_eq!(errors(&report).len(), 3);

    let clean = fixture_with_old_mypy("clean");
    let (_, _, report) = run(&clean).await;
    assert_eq!(report.outcome, Outcome::Passed, "{report:#?}");
    assert_eq!(
        report.summary.as_deref(),
        Some("Success: no issues found in 2 source files")
    );
}

/// A fixture whose `.venv` holds the real mypy but says it is mypy 1.10.
fn fixture_with_old_mypy(name: &str) -> Fixture {
    let fixture = fixture(name, Venv::WithoutMypy);
    let venv = fixture.workspace.path(".venv");
    verdict_test_support::symlink(
        &verdict_test_support::tool("venv/bin/mypy"),
        &venv.join("bin/mypy"),
    );
    std::fs::create_dir_all(venv.join("lib/python3.11/site-packages/mypy-1.10.1.dist-info"))
        .expect("mkdir dist-info");
    fixture
}

#[test]
fn a_missing_mypy_is_not_installed_with_the_install_command() {
    let fixture = fixture("clean", Venv::WithoutMypy);
    match Mypy::default().command(&fixture.workspace) {
        Err(VerifierError::NotInstalled { tool, hint }) => {
            assert_eq!(tool, "mypy");
            assert!(hint.contains("pip install mypy"), "{hint}");
        }
        other => panic!("expected NotInstalled, got {other:?}"),
    }
}

#[test]
fn it_applies_where_mypy_is_configured_or_declared() {
    let applies = |fixture: &Fixture| Mypy::default().applies(&fixture.workspace);
    assert_eq!(
        applies(&fixture("clean", Venv::WithoutMypy)),
        Applicability::Applies("pyproject.toml configures mypy".to_owned())
    );
    assert_eq!(
        applies(&fixture("failing", Venv::WithoutMypy)),
        Applicability::Applies("mypy.ini configures mypy".to_owned())
    );
    let mut bare = fixture("unconfigured", Venv::WithoutMypy);
    assert!(
        matches!(applies(&bare), Applicability::DoesNotApply(_)),
        "{:?}",
        applies(&bare)
    );
    bare.workspace
        .commands
        .insert("mypy".to_owned(), "mypy pkg".to_owned());
    assert!(
        matches!(applies(&bare), Applicability::Applies(_)),
        "{:?}",
        applies(&bare)
    );
}

#[test]
fn its_configuration_is_infrastructure() {
    let fixture = fixture("failing", Venv::WithoutMypy);
    let infra = Mypy::default().infrastructure(&fixture.workspace);
    let globs: Vec<&str> = infra.files.iter().map(|f| f.glob.as_str()).collect();
    for glob in ["mypy.ini", ".mypy.ini", "pyproject.toml", "setup.cfg"] {
        assert!(globs.contains(&glob), "{globs:?}");
    }
}
