//! The eslint verifier on fixture projects, with the real eslint (`cargo xtask tools` installs
//! it): detection, the command it builds, the JSON report it reads, re-running only the files
//! that failed, and the crashes and configuration errors that must never pass.
//!
//! Each fixture under `tests/fixtures/` is copied to a temporary directory and given a
//! `node_modules` link to the shared tool install, so nothing is ever installed into the repository.

use std::path::{Path, PathBuf};
use std::time::Duration;

use verdict_core::process::ProcessRunner;
use verdict_core::verifier::{
    Applicability, Captured, CommandSpec, Exit, Runner, VerifierError, Workspace,
};
use verdict_core::{Kind, Outcome, Report, Severity, Verifier};
use verdict_eslint::Eslint;
use verdict_test_support::{copy_dir, node_runner as runner};

/// The shared tool install: `$VERDICT_TOOLS`, else `<repo>/target/verdict-tools`.
fn tools() -> PathBuf {
    verdict_test_support::tool("node_modules/eslint/package.json");
    verdict_test_support::tools()
}

/// A fixture project copied to a temporary directory.
struct Fixture {
    _dir: tempfile::TempDir,
    /// Where the fixture was copied (the workspace root, or a monorepo's root).
    copy: PathBuf,
    workspace: Workspace,
}

/// Copies `tests/fixtures/<name>`, links `node_modules` to the shared install when `installed`,
/// and makes `<copy>/<root>` the workspace root.
fn fixture_at(name: &str, root: &str, installed: bool) -> Fixture {
    let dir = tempfile::tempdir().expect("temporary directory");
    let copy = dir.path().join(name);
    copy_dir(
        &Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures")
            .join(name),
        &copy,
    );
    if installed {
        std::os::unix::fs::symlink(tools().join("node_modules"), copy.join("node_modules"))
            .expect("link node_modules");
    }
    let root = copy.join(root);
    let run_dir = root.join(".verdict/runs/test");
    std::fs::create_dir_all(&run_dir).expect("create the run directory");
    Fixture {
        workspace: Workspace::new(&root).with_run_dir(run_dir),
        copy,
        _dir: dir,
    }
}

fn fixture(name: &str, installed: bool) -> Fixture {
    fixture_at(name, "", installed)
}

/// Gives the fixture a `node_modules` whose eslint is the shared install's eslint 10.
fn install_eslint10(fixture: &Fixture) {
    let node_modules = fixture.copy.join("node_modules");
    std::fs::create_dir_all(node_modules.join(".bin")).expect("create node_modules/.bin");
    let shared = tools().join("node_modules");
    for (link, target) in [("eslint", "eslint10"), ("@eslint", "@eslint")] {
        std::os::unix::fs::symlink(shared.join(target), node_modules.join(link))
            .expect("link a package");
    }
    std::os::unix::fs::symlink("../eslint/bin/eslint.js", node_modules.join(".bin/eslint"))
        .expect("link the eslint bin");
}

/// Runs `spec` for real and interprets what it printed.
async fn run_spec(fixture: &Fixture, spec: &CommandSpec) -> (Captured, Report) {
    let log = fixture.workspace.run_dir.join("eslint.log");
    let captured = runner().run(spec, &log).await;
    let report = Eslint::default().interpret(spec, &captured);
    (captured, report)
}

async fn run(verifier: &Eslint, fixture: &Fixture) -> (CommandSpec, Captured, Report) {
    let spec = verifier
        .command(&fixture.workspace)
        .expect("the command can be built");
    let (captured, report) = run_spec(fixture, &spec).await;
    (spec, captured, report)
}

/// One expected problem: file, line, rule, severity.
type Problem = (&'static str, u32, &'static str, Severity);

/// Checks the outcome and the exact list of problems, in eslint's order.
fn check(report: &Report, outcome: Outcome, problems: &[Problem]) {
    assert_eq!(report.outcome, outcome, "{report:#?}");
    let found: Vec<(&str, u32, &str, Severity)> = report
        .diagnostics
        .iter()
        .map(|d| {
            assert_eq!(d.kind, Kind::Lint, "{d:?}");
            (
                d.file.as_deref().unwrap_or(""),
                d.line.unwrap_or(0),
                d.code.as_deref().unwrap_or(""),
                d.severity,
            )
        })
        .collect();
    assert_eq!(found, problems, "{report:#?}");
}

fn args(spec: &CommandSpec) -> Vec<&str> {
    spec.args.iter().map(String::as_str).collect()
}

const E: Severity = Severity::Error;
const W: Severity = Severity::Warning;

const FAILING: &[Problem] = &[
    ("src/app.js", 1, "no-unused-vars", E),
    ("src/app.js", 4, "no-undef", E),
    ("src/app.js", 4, "no-empty", E),
    ("src/util.js", 3, "no-unreachable", E),
    ("src/util.js", 7, "no-self-assign", E),
    ("src/util.js", 8, "no-console", W),
    ("src/warn.js", 2, "no-console", W),
];

#[tokio::test]
async fn failing_project_is_read_from_the_json_report() {
    let fixture = fixture("failing", true);
    let eslint = Eslint::default();
    assert_eq!(
        eslint.applies(&fixture.workspace),
        Applicability::Applies("the `lint` script runs `eslint .`; eslint.config.mjs".to_owned())
    );
    let (spec, captured, report) = run(&eslint, &fixture).await;
    let json = fixture.workspace.run_dir.join("eslint.json");
    assert_eq!(
        args(&spec),
        ["-f", "json", "-o", json.to_str().expect("UTF-8 path"), "."]
    );
    assert_eq!(spec.output_files, [json]);
    assert_eq!(
        spec.program,
        fixture.workspace.path("node_modules/.bin/eslint")
    );
    assert!(spec.env.is_empty(), "{:?}", spec.env);
    assert_eq!(spec.timeout, Duration::from_secs(600));
    assert_eq!(captured.exit, Exit::Code { code: 1 });
    assert!(
        captured.output_files[0]
            .as_deref()
            .is_some_and(|json| json.starts_with(b"[{\"filePath\":")),
        "eslint wrote its JSON report"
    );
    check(&report, Outcome::Failed, FAILING);
    assert_eq!(report.counts.errors, Some(5));
    assert_eq!(report.counts.warnings, Some(2));
    assert_eq!(report.counts.files, Some(3));
    assert!(
        report.diagnostics[1]
            .message
            .contains("'limit' is not defined")
    );
}

#[tokio::test]
async fn rerun_lints_only_the_files_with_errors_that_still_exist() {
    let fixture = fixture("failing", true);
    let eslint = Eslint::default();
    let (_, _, first) = run(&eslint, &fixture).await;
    assert_eq!(first.outcome, Outcome::Failed);

    let spec = eslint
        .rerun_failed(&fixture.workspace, &first)
        .expect("files to re-lint");
    // warn.js had only a warning: it is not re-linted.
    assert_eq!(
        args(&spec)[4..],
        [
            "--no-error-on-unmatched-pattern",
            "--no-warn-ignored",
            "src/app.js",
            "src/util.js"
        ]
    );
    let (captured, report) = run_spec(&fixture, &spec).await;
    assert_eq!(captured.exit, Exit::Code { code: 1 });
    check(&report, Outcome::Failed, &FAILING[..6]);

    // util.js was fixed by deleting it: only app.js is left to re-lint.
    std::fs::remove_file(fixture.workspace.path("src/util.js")).expect("remove util.js");
    let spec = eslint
        .rerun_failed(&fixture.workspace, &report)
        .expect("one file to re-lint");
    assert_eq!(args(&spec).last(), Some(&"src/app.js"));
    assert!(!spec.args.iter().any(|a| a == "src/util.js"));
    let (_, report) = run_spec(&fixture, &spec).await;
    check(&report, Outcome::Failed, &FAILING[..3]);

    // Nothing to re-run once no file has an error.
    assert_eq!(
        eslint.rerun_failed(&fixture.workspace, &Report::new("eslint", Outcome::Passed)),
        None
    );
}

#[tokio::test]
async fn warnings_alone_pass() {
    let fixture = fixture("passing", true);
    let (_, captured, report) = run(&Eslint::default(), &fixture).await;
    assert_eq!(captured.exit, Exit::Code { code: 0 });
    check(
        &report,
        Outcome::Passed,
        &[("src/warn.js", 2, "no-console", W)],
    );
    assert_eq!(report.counts.warnings, Some(1));
    assert_eq!(report.counts.errors, Some(0));
}

#[tokio::test]
async fn config_that_throws_is_errored_with_eslint_message() {
    let fixture = fixture("broken-config", true);
    let (_, captured, report) = run(&Eslint::default(), &fixture).await;
    assert_eq!(captured.exit, Exit::Code { code: 2 });
    assert_eq!(captured.output_files, [None]);
    assert_eq!(report.outcome, Outcome::Errored, "{report:#?}");
    let error = report.error.as_deref().unwrap_or("");
    assert!(error.contains("this config refuses to load"), "{error}");
}

#[tokio::test]
async fn missing_config_is_errored_not_passed() {
    let fixture = fixture("no-config", true);
    let eslint = Eslint::default();
    match eslint.applies(&fixture.workspace) {
        Applicability::Applies(reason) => {
            assert!(reason.contains("depends on eslint"), "{reason}")
        }
        other => panic!("eslint is a dependency, so it applies: {other:?}"),
    }
    let (_, captured, report) = run(&eslint, &fixture).await;
    assert_eq!(captured.exit, Exit::Code { code: 2 });
    assert_eq!(report.outcome, Outcome::Errored, "{report:#?}");
    let error = report.error.as_deref().unwrap_or("");
    assert!(error.contains("couldn't find"), "{error}");
}

#[tokio::test]
async fn legacy_config_is_read_by_eslint9_with_flat_config_off() {
    let fixture = fixture("legacy", true);
    let eslint = Eslint::default();
    match eslint.applies(&fixture.workspace) {
        Applicability::Applies(reason) => {
            assert!(
                reason.contains("; .eslintrc.json")
                    && reason.contains("ESLINT_USE_FLAT_CONFIG=false"),
                "{reason}"
            )
        }
        other => panic!("{other:?}"),
    }
    let (spec, _, report) = run(&eslint, &fixture).await;
    assert_eq!(
        spec.env.get("ESLINT_USE_FLAT_CONFIG").map(String::as_str),
        Some("false")
    );
    check(
        &report,
        Outcome::Failed,
        &[
            ("src/old.js", 1, "no-unused-vars", E),
            ("src/old.js", 2, "no-undef", E),
        ],
    );
    // A re-run in eslintrc mode must not pass the flat-config-only flag.
    let rerun = eslint
        .rerun_failed(&fixture.workspace, &report)
        .expect("a file to re-lint");
    assert!(
        !rerun.args.iter().any(|a| a == "--no-warn-ignored"),
        "{rerun:?}"
    );
    let (_, again) = run_spec(&fixture, &rerun).await;
    assert_eq!(again.outcome, Outcome::Failed, "{again:#?}");
}

#[tokio::test]
async fn eslint10_lints_flat_configs_and_refuses_legacy_ones() {
    let flat = fixture("failing", false);
    install_eslint10(&flat);
    let (_, captured, report) = run(&Eslint::default(), &flat).await;
    assert_eq!(captured.exit, Exit::Code { code: 1 });
    check(&report, Outcome::Failed, FAILING);

    let legacy = fixture("legacy", false);
    install_eslint10(&legacy);
    match Eslint::default().applies(&legacy.workspace) {
        Applicability::Applies(reason) => {
            assert!(reason.contains("eslint 10 cannot read"), "{reason}")
        }
        other => panic!("{other:?}"),
    }
    match Eslint::default().command(&legacy.workspace) {
        Err(VerifierError::Project { tool, message }) => {
            assert_eq!(tool, "eslint");
            assert!(
                message.contains("eslint 10.") && message.contains(".eslintrc.json"),
                "{message}"
            );
        }
        other => panic!("eslint 10 cannot read .eslintrc: {other:?}"),
    }
}

#[tokio::test]
async fn monorepo_package_uses_the_config_and_eslint_of_the_repository_root() {
    let fixture = fixture_at("monorepo", "packages/app", true);
    let eslint = Eslint::default();
    assert_eq!(
        eslint.applies(&fixture.workspace),
        Applicability::Applies("../../eslint.config.mjs".to_owned())
    );
    let (spec, _, report) = run(&eslint, &fixture).await;
    assert_eq!(spec.program, fixture.copy.join("node_modules/.bin/eslint"));
    check(
        &report,
        Outcome::Failed,
        &[("src/index.js", 1, "no-undef", E)],
    );
    let inputs = eslint.inputs(&fixture.workspace).expect("inputs");
    assert!(
        inputs
            .tool_files
            .contains(&PathBuf::from("../../eslint.config.mjs")),
        "{inputs:?}"
    );
}

#[tokio::test]
async fn not_installed_is_errored_with_an_install_hint() {
    let fixture = fixture("not-installed", false);
    let eslint = Eslint::default();
    assert!(matches!(
        eslint.applies(&fixture.workspace),
        Applicability::Applies(_)
    ));
    match eslint.command(&fixture.workspace) {
        Err(VerifierError::NotInstalled { tool, hint }) => {
            assert_eq!(tool, "eslint");
            assert_eq!(hint, "npm install --save-dev eslint");
        }
        other => panic!("expected NotInstalled, got {other:?}"),
    }
    let log = fixture.workspace.run_dir.join("eslint.log");
    let report = eslint.verify(&fixture.workspace, &runner(), &log).await;
    assert_eq!(report.outcome, Outcome::Errored);
    assert!(
        report
            .error
            .as_deref()
            .is_some_and(|e| e.contains("npm install --save-dev eslint")),
        "{report:#?}"
    );
}

#[tokio::test]
async fn timed_out_run_is_never_a_pass() {
    let fixture = fixture("passing", true);
    let eslint = Eslint::default().with_timeout(Duration::from_millis(1));
    let (_, captured, report) = run(&eslint, &fixture).await;
    assert_eq!(captured.exit, Exit::TimedOut);
    assert_eq!(report.outcome, Outcome::Errored, "{report:#?}");
    assert!(
        report
            .error
            .as_deref()
            .is_some_and(|e| e.contains("timed out"))
    );
}

#[test]
fn does_not_apply_without_config_or_dependency() {
    let dir = tempfile::tempdir().expect("temporary directory");
    let workspace = Workspace::new(dir.path());
    assert!(matches!(
        Eslint::default().applies(&workspace),
        Applicability::DoesNotApply(_)
    ));
    std::fs::write(
        dir.path().join("package.json"),
        r#"{"dependencies": {"react": "19"}}"#,
    )
    .expect("write package.json");
    assert!(matches!(
        Eslint::default().applies(&workspace),
        Applicability::DoesNotApply(_)
    ));
    std::fs::write(
        dir.path().join("package.json"),
        r#"{"eslintConfig": {"extends": "eslint:recommended"}}"#,
    )
    .expect("write package.json");
    match Eslint::default().applies(&workspace) {
        Applicability::Applies(reason) => {
            assert!(
                reason.starts_with("package.json (eslintConfig)"),
                "{reason}"
            )
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn inputs_name_the_sources_configs_and_the_installed_eslint() {
    let fixture = fixture("failing", true);
    let inputs = Eslint::default()
        .inputs(&fixture.workspace)
        .expect("eslint knows its inputs");
    for glob in ["*.js", "*.mjs", "*.ts", "*.json", "!**/node_modules/**"] {
        assert!(inputs.globs.iter().any(|g| g == glob), "{glob}: {inputs:?}");
    }
    let package: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(&inputs.tool_files[0]).expect("the tool file exists"),
    )
    .expect("valid JSON");
    assert_eq!(package["name"], "eslint");
    assert_eq!(package["version"], "9.39.5");
}

/// `node_modules/.bin/eslint` is a script run by `node`: without `node` on `PATH` it cannot start.
#[tokio::test]
async fn node_missing_from_path_is_errored_with_a_hint() {
    let fixture = fixture("failing", true);
    let eslint = Eslint::default();
    let spec = eslint.command(&fixture.workspace).expect("the command");
    let empty = tempfile::tempdir().expect("an empty directory for PATH");
    let runner = ProcessRunner::new().with_env("PATH", empty.path().to_string_lossy());
    let captured = runner
        .run(&spec, &fixture.workspace.run_dir.join("eslint.log"))
        .await;
    assert_eq!(captured.exit, Exit::Code { code: 127 });
    let report = eslint.interpret(&spec, &captured);
    assert_eq!(report.outcome, Outcome::Errored, "{report:#?}");
    assert!(
        report
            .error
            .as_deref()
            .is_some_and(|e| e.contains("`node` on PATH")),
        "{report:#?}"
    );
}

/// The eslint major decides how a config is asked for; eslint 8 is not in the shared install, so
/// this builds the command against a package that only says its version (nothing is run).
#[test]
fn eslint8_is_told_which_config_format_to_use() {
    let command_with = |config: (&str, &str)| {
        let dir = tempfile::tempdir().expect("temporary directory");
        let package = dir.path().join("node_modules/eslint");
        std::fs::create_dir_all(package.join("bin")).expect("create the package");
        std::fs::create_dir_all(dir.path().join("node_modules/.bin")).expect("create .bin");
        std::fs::write(
            package.join("package.json"),
            r#"{"name": "eslint", "version": "8.57.1"}"#,
        )
        .expect("write package.json");
        std::fs::write(package.join("bin/eslint.js"), "").expect("write the bin");
        std::os::unix::fs::symlink(
            "../eslint/bin/eslint.js",
            dir.path().join("node_modules/.bin/eslint"),
        )
        .expect("link the bin");
        std::fs::write(dir.path().join(config.0), config.1).expect("write the config");
        let workspace = Workspace::new(dir.path());
        let spec = Eslint::default().command(&workspace).expect("the command");
        spec.env.get("ESLINT_USE_FLAT_CONFIG").cloned()
    };
    assert_eq!(
        command_with(("eslint.config.mjs", "export default [];")),
        Some("true".to_owned())
    );
    // eslint 8 reads .eslintrc by default: nothing to set.
    assert_eq!(command_with((".eslintrc.json", "{}")), None);
}

/// `target` as a path relative to `from` (both absolute).
fn relative_path(from: &Path, target: &Path) -> PathBuf {
    let from: Vec<_> = from.components().collect();
    let target: Vec<_> = target.components().collect();
    let common = from.iter().zip(&target).take_while(|(a, b)| a == b).count();
    let mut path = PathBuf::new();
    for _ in common..from.len() {
        path.push("..");
    }
    for component in &target[common..] {
        path.push(component);
    }
    path
}

/// `verdict run some/dir` gives a root relative to verdict's directory; eslint runs inside it, so
/// its program, working directory and report path must not be relative to anything.
#[tokio::test]
async fn relative_workspace_root_still_finds_eslint_and_its_report() {
    let fixture = fixture("failing", true);
    let cwd = std::env::current_dir().expect("the current directory");
    let root = relative_path(&cwd, &fixture.workspace.root);
    assert!(root.is_relative());
    let workspace = Workspace::new(&root).with_run_dir(root.join(".verdict/runs/test"));
    let eslint = Eslint::default();
    let spec = eslint.command(&workspace).expect("the command");
    assert!(
        spec.program.is_absolute() && spec.cwd.is_absolute(),
        "{spec:?}"
    );
    assert!(spec.output_files[0].is_absolute(), "{spec:?}");
    let captured = runner()
        .run(&spec, &workspace.run_dir.join("eslint.log"))
        .await;
    let report = eslint.interpret(&spec, &captured);
    check(&report, Outcome::Failed, FAILING);
}

#[test]
fn the_crate_registers_one_lint_verifier_named_eslint() {
    let verifiers = verdict_eslint::verifiers();
    let named: Vec<(&str, Kind)> = verifiers.iter().map(|v| (v.name(), v.kind())).collect();
    assert_eq!(named, [("eslint", Kind::Lint)]);
}

/// Rewrites the fixture's `lint` script.
fn set_lint_script(fixture: &Fixture, script: &str) {
    let package = serde_json::json!({
        "name": "eslint-max-warnings",
        "private": true,
        "type": "module",
        "scripts": { "lint": script },
    });
    std::fs::write(fixture.workspace.path("package.json"), package.to_string())
        .expect("write package.json");
}

#[tokio::test]
async fn max_warnings_of_the_lint_script_is_honoured() {
    // `"lint": "eslint --max-warnings 0 'src' && echo linted"`, and src/warn.js has one warning:
    // `npm run lint` fails, and so must the verifier, which lints what the script lints.
    let fixture = fixture("max-warnings", true);
    let eslint = Eslint::default();
    let (spec, captured, report) = run(&eslint, &fixture).await;
    assert_eq!(args(&spec)[4..], ["--max-warnings", "0", "src"]);
    assert_eq!(captured.exit, Exit::Code { code: 1 });
    check(
        &report,
        Outcome::Failed,
        &[("src/warn.js", 2, "no-console", W), ("", 0, "", E)],
    );
    assert_eq!(
        report.diagnostics[1].message,
        "1 warning, more than --max-warnings 0 allows"
    );
    assert!(report.diagnostics[1].root_cause);
    assert_eq!(
        (report.counts.errors, report.counts.warnings),
        (Some(0), Some(1))
    );

    // Within the limit, warnings pass.
    set_lint_script(&fixture, "eslint --max-warnings=1 .");
    let (spec, captured, report) = run(&eslint, &fixture).await;
    assert_eq!(args(&spec)[4..], ["--max-warnings", "1", "."]);
    assert_eq!(captured.exit, Exit::Code { code: 0 });
    check(
        &report,
        Outcome::Passed,
        &[("src/warn.js", 2, "no-console", W)],
    );
}

#[tokio::test]
async fn quiet_lint_script_hides_warnings_but_max_warnings_still_counts_them() {
    let fixture = fixture("max-warnings", true);
    let eslint = Eslint::default();
    set_lint_script(&fixture, "eslint --quiet .");
    let (spec, captured, report) = run(&eslint, &fixture).await;
    assert_eq!(args(&spec)[4..], ["--quiet", "."]);
    assert_eq!(captured.exit, Exit::Code { code: 0 });
    check(&report, Outcome::Passed, &[]);

    // eslint counts the warnings it does not report against the limit, and says so only in
    // its log.
    set_lint_script(&fixture, "eslint --max-warnings 0 --quiet .");
    let (spec, captured, report) = run(&eslint, &fixture).await;
    assert_eq!(args(&spec)[4..], ["--max-warnings", "0", "--quiet", "."]);
    assert_eq!(captured.exit, Exit::Code { code: 1 });
    check(&report, Outcome::Failed, &[("", 0, "", E)]);
    assert_eq!(
        report.diagnostics[0].message,
        "more warnings than --max-warnings 0 allows (--quiet leaves them unreported)"
    );
}
