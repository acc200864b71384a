//! The ruff verifier on fixture projects, with the real ruff (`cargo xtask tools` installs it in
//! the shared venv): detection, the command it builds, and what it makes of what ruff wrote.
//!
//! Each fixture under `tests/fixtures/ruff/` is copied to a temporary directory and given a
//! `.venv` link to the shared install, so nothing is installed into the repository. Every report
//! goes through the pipeline's `reconcile`, as a run reads it: a pass needs the evidence.

use std::path::Path;

use verdict_core::process::ProcessRunner;
use verdict_core::verifier::{
    Applicability, Captured, CommandSpec, Exit, Runner, VerifierError, Workspace,
};
use verdict_core::{Kind, Outcome, Report, Severity, Verifier};
use verdict_python_check::ruff::{Ruff, install_hint};
use verdict_test_support::{copy_dir, link_venv};

/// A fixture project copied to a temporary directory.
struct Fixture {
    _dir: tempfile::TempDir,
    workspace: Workspace,
}

/// Copies `tests/fixtures/ruff/<name>`; `.venv` links to the shared install when `installed`.
fn fixture(name: &str, installed: bool) -> Fixture {
    let dir = tempfile::tempdir().expect("temporary directory");
    let root = dir.path().join(name);
    copy_dir(
        &Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/ruff")
            .join(name),
        &root,
    );
    if installed {
        // Fails with the command that installs it when the pinned ruff is missing.
        verdict_test_support::tool("venv/bin/ruff");
        link_venv(&root);
    }
    let run_dir = root.join(".verdict/runs/test");
    std::fs::create_dir_all(&run_dir).expect("create the run directory");
    Fixture {
        workspace: Workspace::new(&root).with_run_dir(run_dir),
        _dir: dir,
    }
}

/// Builds the command, runs it for real, interprets what it wrote and reconciles the report
/// with the exit code as the pipeline does.
async fn run(fixture: &Fixture) -> (CommandSpec, Captured, Report) {
    let ruff = Ruff::default();
    let spec = ruff
        .command(&fixture.workspace)
        .expect("the command can be built");
    let log = fixture.workspace.run_dir.join("ruff.log");
    let captured = ProcessRunner::new().run(&spec, &log).await;
    let report = ruff.interpret(&spec, &captured);
    let report = verdict_core::pipeline::reconcile(report, &spec, &captured, Kind::Lint, false);
    (spec, captured, report)
}

/// The (file, line, code) of every diagnostic, in ruff's order; each an error of a lint.
fn found(report: &Report) -> Vec<(&str, u32, &str)> {
    report
        .diagnostics
        .iter()
        .map(|d| {
            assert_eq!(d.severity, Severity::Error, "{d:?}");
            assert_eq!(d.kind, Kind::Lint, "{d:?}");
            (
                d.file.as_deref().unwrap_or(""),
                d.line.unwrap_or(0),
                d.code.as_deref().unwrap_or(""),
            )
        })
        .collect()
}

#[tokio::test]
async fn a_clean_project_passes_with_the_files_it_checked_as_evidence() {
    let fixture = fixture("passing", true);
    assert_eq!(
        Ruff::default().applies(&fixture.workspace),
        Applicability::Applies("pyproject.toml [tool.ruff]".to_owned())
    );
    let (spec, captured, report) = run(&fixture).await;
    let report_file = fixture.workspace.run_dir.join("ruff.json");
    assert_eq!(
        spec.args,
        [
            "check",
            "--no-fix",
            "--output-format",
            "json",
            "-o",
            &report_file.to_string_lossy(),
            "-v"
        ]
    );
    assert_eq!(spec.program, fixture.workspace.path(".venv/bin/ruff"));
    assert_eq!(captured.exit, Exit::Code { code: 0 });
    assert_eq!(report.outcome, Outcome::Passed, "{report:#?}");
    assert_eq!(report.counts.errors, Some(0));
    let log = std::fs::read_to_string(&captured.log_path).expect("the log");
    assert!(log.contains("Checked 4 files in"), "{log}");
}

#[tokio::test]
async fn a_failing_project_gives_every_diagnostic_with_file_line_and_rule() {
    let fixture = fixture("failing", true);
    let (_, captured, report) = run(&fixture).await;
    assert_eq!(captured.exit, Exit::Code { code: 1 });
    assert_eq!(report.outcome, Outcome::Failed, "{report:#?}");
    assert_eq!(
        found(&report),
        [
            ("src/shop/cart.py", 1, "I001"),
            ("src/shop/cart.py", 1, "F401"),
            ("src/shop/cart.py", 2, "F401"),
            ("src/shop/cart.py", 3, "F401"),
            ("src/shop/cart.py", 17, "F841"),
            ("src/shop/cart.py", 18, "F821"),
            ("src/shop/checkout.py", 6, "F541"),
            ("src/shop/prices.py", 9, "E722"),
            ("src/shop/prices.py", 9, "S110"),
        ]
    );
    assert_eq!(report.counts.errors, Some(9));
    assert_eq!(report.counts.files, Some(3));
    let unused = &report.diagnostics[1];
    assert_eq!(unused.message, "`os` imported but unused");
    assert_eq!(unused.column, Some(8));
    assert_eq!(unused.detail.as_deref(), Some("Remove unused import: `os`"));
}

#[tokio::test]
async fn a_configuration_ruff_cannot_read_is_could_not_verify_with_its_cause() {
    let fixture = fixture("config-error", true);
    let (_, captured, report) = run(&fixture).await;
    assert_eq!(captured.exit, Exit::Code { code: 2 });
    assert_eq!(report.outcome, Outcome::Errored, "{report:#?}");
    let error = report.error.unwrap_or_default();
    assert!(
        error.starts_with("ruff failed: Failed to parse ")
            && error.contains("TOML parse error at line 6, column 15")
            && error.contains("invalid type: string \"long\", expected i64"),
        "{error}"
    );
}

#[tokio::test]
async fn no_python_file_to_check_is_no_pass() {
    let fixture = fixture("no-files", true);
    let (_, captured, report) = run(&fixture).await;
    // ruff itself is content: it exits 0 and writes `[]`.
    assert_eq!(captured.exit, Exit::Code { code: 0 });
    assert_eq!(report.outcome, Outcome::Errored, "{report:#?}");
    let error = report.error.unwrap_or_default();
    assert!(
        error.starts_with("ruff found no Python file to check"),
        "{error}"
    );
}

#[tokio::test]
async fn a_project_without_ruff_installed_names_the_install_command() {
    // The tests' environment has ruff only in the shared venv, which is not linked here.
    let bare = fixture("passing", false);
    match Ruff::default().command(&bare.workspace) {
        Err(VerifierError::NotInstalled { tool, hint }) => {
            assert_eq!(tool, "ruff");
            assert_eq!(hint, install_hint());
        }
        other => panic!("expected NotInstalled, got {other:?}"),
    }
    // And a project with no configuration nor declared command is not ruff's.
    let plain = fixture("unconfigured", false);
    assert!(matches!(
        Ruff::default().applies(&plain.workspace),
        Applicability::DoesNotApply(_)
    ));
}

#[tokio::test]
async fn the_projects_declared_arguments_are_honoured_and_verdicts_own_dropped() {
    let mut fixture = fixture("failing", true);
    fixture.workspace.commands.insert(
        "ruff".to_owned(),
        "ruff check --exit-zero --output-format=github src/shop/cart.py --select F401".to_owned(),
    );
    let (spec, captured, report) = run(&fixture).await;
    assert_eq!(
        spec.args[..5],
        ["check", "--no-fix", "src/shop/cart.py", "--select", "F401"]
    );
    assert!(
        !spec.args.iter().any(|a| a == "--exit-zero"),
        "{:?}",
        spec.args
    );
    assert_eq!(captured.exit, Exit::Code { code: 1 });
    assert_eq!(
        found(&report),
        [
            ("src/shop/cart.py", 1, "F401"),
            ("src/shop/cart.py", 2, "F401"),
            ("src/shop/cart.py", 3, "F401"),
        ]
    );
}

#[tokio::test]
async fn a_declared_format_check_reports_the_files_it_would_change() {
    let mut fixture = fixture("unformatted", true);
    fixture
        .workspace
        .commands
        .insert("ruff".to_owned(), "ruff format --diff .".to_owned());
    let before = std::fs::read_to_string(fixture.workspace.path("a.py")).expect("a.py");
    let (spec, captured, report) = run(&fixture).await;
    assert_eq!(
        spec.args,
        ["format", "--check", ".", "--output-format", "concise"]
    );
    assert_eq!(captured.exit, Exit::Code { code: 1 });
    assert_eq!(report.outcome, Outcome::Failed, "{report:#?}");
    assert_eq!(
        found(&report),
        [("a.py", 4, "unformatted"), ("c.py", 5, "unformatted")]
    );
    assert_eq!(report.counts.errors, Some(2));
    // `--check`: nothing was rewritten.
    let after = std::fs::read_to_string(fixture.workspace.path("a.py")).expect("a.py");
    assert_eq!(before, after);
}

/// Regression: with the project's `fix = true`, ruff rewrote the files it was asked to check
/// (the unused imports vanished, and the check passed).
#[tokio::test]
async fn a_project_that_sets_fix_is_checked_never_fixed() {
    let fixture = fixture("fixes-on", true);
    let file = fixture.workspace.root.join("src/tally.py");
    let before = std::fs::read_to_string(&file).expect("read the source");
    let (spec, _, report) = run(&fixture).await;
    assert!(
        spec.args.contains(&"--no-fix".to_owned()),
        "{:?}",
        spec.args
    );
    assert_eq!(report.outcome, Outcome::Failed, "{report:?}");
    assert_eq!(
        found(&report),
        [("src/tally.py", 1, "F401"), ("src/tally.py", 2, "F401")]
    );
    let after = std::fs::read_to_string(&file).expect("read the source");
    assert_eq!(after, before, "ruff changed the file it checked");
}
