//! The pyright verifier on fixture projects, with the real pyright (`cargo xtask tools` installs
//! it): detection, the command it builds, and what it makes of what pyright printed.
//!
//! Each fixture under `tests/fixtures/pyright/` is copied to a temporary directory and given a
//! `node_modules` link to the shared tool install, so nothing is installed into the repository.

use std::path::Path;

use verdict_core::process::ProcessRunner;
use verdict_core::verifier::{
    Applicability, Captured, CommandSpec, Runner, VerifierError, Workspace,
};
use verdict_core::{Evidence, Kind, Outcome, Report, Severity, Verifier};
use verdict_python_check::pyright::{Pyright, install_hint};
use verdict_test_support::{copy_dir, node_runner};

/// A fixture project copied to a temporary directory.
struct Fixture {
    _dir: tempfile::TempDir,
    workspace: Workspace,
}

/// Copies `tests/fixtures/pyright/<name>`; `node_modules` links to the shared install when
/// `installed`.
fn fixture(name: &str, installed: bool) -> Fixture {
    let dir = tempfile::tempdir().expect("temporary directory");
    let root = dir.path().join(name);
    copy_dir(
        &Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/pyright")
            .join(name),
        &root,
    );
    if installed {
        // Fails with the command that installs it when pyright is missing.
        verdict_test_support::tool("node_modules/pyright/package.json");
        verdict_test_support::link_node_modules(&root);
    }
    let run_dir = root.join(".verdict/runs/test");
    std::fs::create_dir_all(&run_dir).expect("create the run directory");
    Fixture {
        workspace: Workspace::new(&root).with_run_dir(run_dir),
        _dir: dir,
    }
}

/// Builds the command, runs it for real and interprets what it printed.
async fn run(fixture: &Fixture) -> (CommandSpec, Captured, Report) {
    let verifier = Pyright::default();
    let spec = verifier
        .command(&fixture.workspace)
        .expect("the command can be built");
    let log = fixture.workspace.run_dir.join("pyright.log");
    let runner: ProcessRunner = node_runner();
    let captured = runner.run(&spec, &log).await;
    let report = verifier.interpret(&spec, &captured);
    (spec, captured, report)
}

/// The report's diagnostics as (file, line, rule, severity), in pyright's order.
fn found(report: &Report) -> Vec<(&str, u32, &str, Severity)> {
    report
        .diagnostics
        .iter()
        .map(|d| {
            assert_eq!(d.kind, Kind::Type, "{d:?}");
            (
                d.file.as_deref().unwrap_or(""),
                d.line.unwrap_or(0),
                d.code.as_deref().unwrap_or(""),
                d.severity,
            )
        })
        .collect()
}

fn args(spec: &CommandSpec) -> Vec<&str> {
    spec.args.iter().map(String::as_str).collect()
}

#[tokio::test]
async fn a_clean_project_passes_with_evidence_of_the_files_analyzed() {
    let fixture = fixture("passing", true);
    assert_eq!(
        Pyright::default().applies(&fixture.workspace),
        Applicability::Applies("pyrightconfig.json".to_owned())
    );
    let (spec, _, report) = run(&fixture).await;
    assert_eq!(args(&spec), ["--outputjson"]);
    assert_eq!(
        spec.program,
        fixture.workspace.path("node_modules/.bin/pyright")
    );
    assert_eq!(report.outcome, Outcome::Passed, "{report:#?}");
    assert_eq!(report.counts.errors, Some(0));
    assert_eq!(report.evidence(), Evidence::Checked);
    assert!(report.evidence_needed.is_some(), "a pass needs evidence");
}

#[tokio::test]
async fn failures_are_read_with_their_files_lines_rules_and_counts() {
    let fixture = fixture("failing", true);
    assert_eq!(
        Pyright::default().applies(&fixture.workspace),
        Applicability::Applies("[tool.pyright] in pyproject.toml".to_owned())
    );
    let (_, captured, report) = run(&fixture).await;
    assert_eq!(
        captured.exit,
        verdict_core::verifier::Exit::Code { code: 1 }
    );
    assert_eq!(report.outcome, Outcome::Failed, "{report:#?}");
    assert_eq!(
        found(&report),
        [
            ("src/shop/cart.py", 11, "reportReturnType", Severity::Error),
            (
                "src/shop/cart.py",
                15,
                "reportOptionalMemberAccess",
                Severity::Warning
            ),
            (
                "src/shop/checkout.py",
                3,
                "reportMissingImports",
                Severity::Error
            ),
            (
                "src/shop/checkout.py",
                8,
                "reportOperatorIssue",
                Severity::Error
            ),
        ]
    );
    assert_eq!(report.counts.errors, Some(3));
    assert_eq!(report.counts.warnings, Some(1));
    assert_eq!(report.counts.files, Some(2));
    let first = &report.diagnostics[0];
    assert_eq!(
        first.message,
        "Type \"int\" is not assignable to return type \"str\""
    );
    assert_eq!(
        first.detail.as_deref(),
        Some("\"int\" is not assignable to \"str\"")
    );
    assert!(report.diagnostics[2].root_cause, "a missing import");
}

#[tokio::test]
async fn a_broken_configuration_is_could_not_verify_though_pyright_checked_with_defaults() {
    let fixture = fixture("broken-config", true);
    let (_, captured, report) = run(&fixture).await;
    assert_eq!(
        captured.exit,
        verdict_core::verifier::Exit::Code { code: 3 }
    );
    assert_eq!(report.outcome, Outcome::Errored, "{report:#?}");
    let error = report.error.as_deref().unwrap_or_default();
    assert!(
        error.contains("pyrightconfig.json\" could not be parsed") && error.ends_with("(exit 3)"),
        "{error}"
    );
}

#[tokio::test]
async fn a_run_that_analyzed_no_file_is_no_pass() {
    let fixture = fixture("no-files", true);
    let (_, captured, report) = run(&fixture).await;
    assert_eq!(
        captured.exit,
        verdict_core::verifier::Exit::Code { code: 0 }
    );
    assert_eq!(report.outcome, Outcome::Errored, "{report:#?}");
    assert_eq!(report.error.as_deref(), Some("pyright analyzed no file"));
}

#[tokio::test]
async fn a_rejected_command_line_is_could_not_verify() {
    let mut fixture = fixture("passing", true);
    fixture
        .workspace
        .commands
        .insert("pyright".to_owned(), "pyright --strictt".to_owned());
    let (spec, captured, report) = run(&fixture).await;
    assert_eq!(args(&spec), ["--strictt", "--outputjson"]);
    assert_eq!(
        captured.exit,
        verdict_core::verifier::Exit::Code { code: 4 }
    );
    assert_eq!(report.outcome, Outcome::Errored, "{report:#?}");
    let error = report.error.as_deref().unwrap_or_default();
    assert!(error.contains("Unexpected option --strictt"), "{error}");
}

#[tokio::test]
async fn the_projects_arguments_are_honoured_and_verdicts_own_dropped() {
    let mut fixture = fixture("failing", true);
    fixture.workspace.commands.insert(
        "pyright".to_owned(),
        "pyright --level error --verbose --outputjson -w src/shop/checkout.py".to_owned(),
    );
    let (spec, _, report) = run(&fixture).await;
    assert_eq!(
        args(&spec),
        ["--level", "error", "src/shop/checkout.py", "--outputjson"]
    );
    assert_eq!(report.outcome, Outcome::Failed, "{report:#?}");
    assert_eq!(
        found(&report),
        [
            (
                "src/shop/checkout.py",
                3,
                "reportMissingImports",
                Severity::Error
            ),
            (
                "src/shop/checkout.py",
                8,
                "reportOperatorIssue",
                Severity::Error
            ),
        ]
    );
}

#[tokio::test]
async fn a_package_json_script_that_runs_pyright_is_its_command() {
    let fixture = fixture("script", true);
    let applies = Pyright::default().applies(&fixture.workspace);
    assert!(
        matches!(&applies, Applicability::Applies(why) if why.contains("pyright app")),
        "{applies:?}"
    );
    let (spec, _, report) = run(&fixture).await;
    assert_eq!(args(&spec), ["app", "--outputjson"]);
    assert_eq!(report.outcome, Outcome::Failed, "{report:#?}");
    assert_eq!(
        found(&report),
        [("app/core.py", 2, "reportReturnType", Severity::Error)]
    );
}

#[test]
fn a_project_without_pyright_installed_gets_the_install_hint() {
    let fixture = fixture("passing", false);
    match Pyright::default().command(&fixture.workspace) {
        Err(VerifierError::NotInstalled { tool, hint }) => {
            assert_eq!(tool, "pyright");
            assert_eq!(hint, install_hint());
            assert!(hint.starts_with("npm install --save-dev pyright"), "{hint}");
        }
        other => panic!("expected NotInstalled, got {other:?}"),
    }
}

#[test]
fn a_project_without_configuration_or_command_does_not_apply() {
    let fixture = fixture("no-files", false);
    std::fs::remove_file(fixture.workspace.path("pyrightconfig.json")).expect("remove");
    assert!(matches!(
        Pyright::default().applies(&fixture.workspace),
        Applicability::DoesNotApply(_)
    ));
}

#[tokio::test]
async fn pyright_in_the_projects_virtualenv_is_found_and_the_virtualenv_comes_first_on_path() {
    let fixture = fixture("passing", false);
    let bin = fixture.workspace.path(".venv/bin");
    std::fs::create_dir_all(&bin).expect("create the virtualenv");
    std::fs::write(
        fixture.workspace.path(".venv/pyvenv.cfg"),
        "home = /usr/bin\n",
    )
    .expect("write pyvenv.cfg");
    // The real pyright, where the PyPI wrapper puts its launcher.
    let real = verdict_test_support::tool("node_modules/.bin/pyright");
    std::os::unix::fs::symlink(&real, bin.join("pyright")).expect("link pyright");
    let (spec, _, report) = run(&fixture).await;
    assert_eq!(spec.program, bin.join("pyright"));
    let path = spec.env.get("PATH").expect("PATH is set");
    assert!(
        path.starts_with(&*bin.to_string_lossy()),
        "the virtualenv first: {path}"
    );
    assert_eq!(report.outcome, Outcome::Passed, "{report:#?}");
}

#[tokio::test]
async fn warnings_pass_unless_the_project_fails_on_them() {
    let mut fixture = fixture("warnings", true);
    let (_, _, report) = run(&fixture).await;
    assert_eq!(report.outcome, Outcome::Passed, "{report:#?}");
    assert_eq!(report.counts.warnings, Some(1));

    fixture
        .workspace
        .commands
        .insert("pyright".to_owned(), "pyright --warnings".to_owned());
    let (spec, captured, report) = run(&fixture).await;
    assert_eq!(args(&spec), ["--warnings", "--outputjson"]);
    assert_eq!(
        captured.exit,
        verdict_core::verifier::Exit::Code { code: 1 }
    );
    assert_eq!(report.outcome, Outcome::Failed, "{report:#?}");
    assert_eq!(
        found(&report),
        [(
            "app/names.py",
            7,
            "reportOptionalMemberAccess",
            Severity::Warning
        )]
    );
}
