//! The jest, vitest and mocha verifiers run for real on the fixture projects under
//! `tests/fixtures/<runner>/<case>/`: a failing project (two failing tests in two files, and
//! passing ones), a passing one, one with a test file that does not parse, one whose config
//! throws, one with no tests — and a re-run of only the failing tests.
//!
//! The tools come from `cargo xtask tools` (`$VERDICT_TOOLS`, else `<repo>/target/verdict-tools`):
//! each fixture is copied to a temporary directory with `node_modules` linked to that install, and
//! run through the real [`ProcessRunner`] with the pinned Node.js first on `PATH`.

use std::path::{Path, PathBuf};

use tempfile::TempDir;
use verdict_core::verifier::{
    Applicability, CommandSpec, Exit, Related, Runner, VerifierError, Workspace,
};
use verdict_core::{Outcome, Report, Verifier};
use verdict_js_test::{Jest, Mocha, Vitest};
use verdict_test_support::{copy_dir, node_runner as runner};

/// The shared install of the real tools; fails with the command that creates it.
fn tools() -> PathBuf {
    verdict_test_support::tool("node_modules");
    verdict_test_support::tools()
}

/// A copy of `fixtures/<runner>/<case>` in a temporary directory, with `node_modules` linked to
/// the shared install.
fn project(runner: &str, case: &str) -> TempDir {
    let source = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(runner)
        .join(case);
    assert!(source.is_dir(), "no fixture {}", source.display());
    // No leading dot: test runners skip hidden directories in some configurations.
    let dir = tempfile::Builder::new()
        .prefix("verdict-js-test-")
        .tempdir()
        .expect("a temporary directory");
    copy_dir(&source, dir.path());
    std::os::unix::fs::symlink(
        tools().join("node_modules"),
        dir.path().join("node_modules"),
    )
    .expect("link node_modules");
    dir
}

/// Like [`project`], but with the older major version the tools install under `alias`
/// (`jest29`) as the project's only package: `node_modules/<runner>` links to it, and
/// `node_modules/.bin/<runner>` to its `bin` script. Its own dependencies resolve from where it is
/// installed.
fn project_with_older_major(runner: &str, case: &str, alias: &str, bin: &str) -> TempDir {
    let source = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(runner)
        .join(case);
    let dir = tempfile::Builder::new()
        .prefix("verdict-js-test-")
        .tempdir()
        .expect("a temporary directory");
    copy_dir(&source, dir.path());
    let modules = dir.path().join("node_modules");
    std::fs::create_dir_all(modules.join(".bin")).expect("create node_modules/.bin");
    let installed = tools().join("node_modules").join(alias);
    assert!(
        installed.is_dir(),
        "{alias} is missing: run `cargo xtask tools` first"
    );
    std::os::unix::fs::symlink(&installed, modules.join(runner)).expect("link the package");
    std::os::unix::fs::symlink(
        Path::new("..").join(runner).join(bin),
        modules.join(".bin").join(runner),
    )
    .expect("link the binary");
    dir
}

/// What one run gave.
struct Run {
    spec: CommandSpec,
    code: Option<i32>,
    report: Report,
    log: String,
}

/// Runs `spec` for `verifier` in `workspace` and interprets it.
async fn run_spec(verifier: &dyn Verifier, workspace: &Workspace, spec: CommandSpec) -> Run {
    std::fs::create_dir_all(&workspace.run_dir).expect("create the run directory");
    let log = workspace
        .run_dir
        .join(format!("{}-{}.log", verifier.name(), spec.args.len()));
    let captured = runner().run(&spec, &log).await;
    let report = verifier.interpret(&spec, &captured);
    let code = match captured.exit {
        Exit::Code { code } => Some(code),
        ref other => panic!("{} did not exit: {other:?}", verifier.name()),
    };
    let log = std::fs::read_to_string(&log).unwrap_or_default();
    Run {
        spec,
        code,
        report,
        log,
    }
}

/// Runs `verifier` on a copy of `fixtures/<runner>/<case>`.
async fn run(verifier: &dyn Verifier, case: &str) -> (TempDir, Run) {
    let dir = project(verifier.name(), case);
    let workspace = Workspace::new(dir.path());
    let spec = verifier.command(&workspace).expect("a command");
    let run = run_spec(verifier, &workspace, spec).await;
    (dir, run)
}

fn context(run: &Run) -> String {
    format!(
        "exit {:?}\nreport: {:#?}\nlog:\n{}",
        run.code, run.report, run.log
    )
}

/// The two failing tests of the `failing` fixtures, as each runner's summarizer names them.
fn failing_tests(separator: &str) -> [(String, String); 2] {
    [
        (
            "test/math.test.js".to_owned(),
            format!("math{separator}subtracts"),
        ),
        (
            "test/text.test.js".to_owned(),
            "pads [left] with a.*".to_owned(),
        ),
    ]
}

/// The checks of the `failing` fixture: failed, two failing tests with their files and lines, the
/// passing ones counted, and an exit code the verifier calls a failure.
fn check_failing(run: &Run, separator: &str) {
    let report = &run.report;
    let context = context(run);
    assert_eq!(report.outcome, Outcome::Failed, "{context}");
    assert_eq!(report.counts.tests_failed, Some(2), "{context}");
    assert_eq!(report.counts.tests_passed, Some(2), "{context}");
    let code = run.code.expect("an exit code");
    assert!(run.spec.exit_codes.fail.contains(&code), "{context}");
    // jest and vitest: the JSON report was written where the command asked, and read.
    for file in &run.spec.output_files {
        assert!(
            file.is_file(),
            "{} was not written\n{context}",
            file.display()
        );
    }
    assert!(
        !report.notes.iter().any(|n| n.contains("JSON report")),
        "{context}"
    );
    for (file, test) in failing_tests(separator) {
        let diagnostic = report
            .diagnostics
            .iter()
            .find(|d| d.test.as_deref() == Some(test.as_str()))
            .unwrap_or_else(|| panic!("no diagnostic for `{test}`\n{context}"));
        assert_eq!(diagnostic.file.as_deref(), Some(file.as_str()), "{context}");
        // The `expect`/`assert` line of each failing test; jest's fixtures need one import
        // less than the others'.
        let offset = u32::from(report.tool != "jest");
        let line = if file.ends_with("math.test.js") { 9 } else { 8 } + offset;
        assert_eq!(diagnostic.line, Some(line), "line of `{test}`\n{context}");
        assert!(diagnostic.detail.is_some(), "detail of `{test}`\n{context}");
    }
    assert_eq!(
        report
            .diagnostics
            .iter()
            .filter(|d| d.test.is_some())
            .count(),
        2,
        "{context}"
    );
}

fn check_passing(run: &Run) {
    let context = context(run);
    assert_eq!(run.report.outcome, Outcome::Passed, "{context}");
    assert_eq!(run.report.counts.tests_passed, Some(1), "{context}");
    assert_eq!(run.report.counts.tests_failed, Some(0), "{context}");
    assert_eq!(run.code, Some(0), "{context}");
    assert!(run.report.diagnostics.is_empty(), "{context}");
}

/// A test file that does not parse: a failure in the code (the file cannot load), reported as a
/// root cause in that file; the other file's test still passes.
fn check_syntax(run: &Run) {
    let context = context(run);
    let report = &run.report;
    assert_ne!(report.outcome, Outcome::Passed, "{context}");
    let cause = report
        .diagnostics
        .iter()
        .find(|d| d.root_cause)
        .unwrap_or_else(|| panic!("no root cause\n{context}"));
    assert_eq!(
        cause.file.as_deref(),
        Some("test/broken.test.js"),
        "{context}"
    );
    assert_ne!(run.code, Some(0), "{context}");
}

/// A config that throws: nothing was verified.
fn check_config_throws(run: &Run) {
    let context = context(run);
    assert_eq!(run.report.outcome, Outcome::Errored, "{context}");
    let error = run.report.error.as_deref().unwrap_or("");
    assert!(error.contains("config exploded"), "{context}");
    assert!(
        !error.contains("verdict-js-test-"),
        "paths in the error are relative: {context}"
    );
    assert_ne!(run.code, Some(0), "{context}");
}

/// No test at all: nothing was verified.
fn check_no_tests(run: &Run) {
    let context = context(run);
    assert_eq!(run.report.outcome, Outcome::Errored, "{context}");
    assert!(run.report.error.is_some(), "{context}");
}

/// Re-runs only the failing tests of a `failing` run: the same two fail, nothing else passes.
async fn check_rerun(verifier: &dyn Verifier, dir: &TempDir, previous: &Report, separator: &str) {
    let workspace = Workspace::new(dir.path());
    let spec = verifier
        .rerun_failed(&workspace, previous)
        .expect("a command for the failing tests");
    let run = run_spec(verifier, &workspace, spec).await;
    let context = context(&run);
    assert_eq!(run.report.outcome, Outcome::Failed, "{context}");
    assert_eq!(run.report.counts.tests_failed, Some(2), "{context}");
    assert_eq!(run.report.counts.tests_passed, Some(0), "{context}");
    let mut names: Vec<_> = run
        .report
        .diagnostics
        .iter()
        .filter_map(|d| d.test.clone())
        .collect();
    names.sort();
    let mut expected: Vec<_> = failing_tests(separator).map(|(_, t)| t).into();
    expected.sort();
    assert_eq!(names, expected, "{context}");
    // Nothing failed: nothing to re-run.
    assert!(
        verifier
            .rerun_failed(&workspace, &Report::new(verifier.name(), Outcome::Passed))
            .is_none()
    );
}

/// The command that runs the tests related to `targets`, which the runner always finds itself.
fn related(verifier: &dyn Verifier, workspace: &Workspace, targets: &[&str]) -> CommandSpec {
    let targets: Vec<String> = targets.iter().map(|t| (*t).to_owned()).collect();
    match verifier.related_tests(workspace, &targets) {
        Some(Ok(Related::Tests { command, left_out })) => {
            assert!(left_out.is_empty(), "{left_out:?}");
            command
        }
        other => panic!("{}: no related-tests command: {other:?}", verifier.name()),
    }
}

/// Scoped to files in a `failing` project: a test file (by node id too) runs alone, its one
/// failing test and one passing test the whole count; a source file no test imports runs
/// nothing, which reads as a pass of no test (the pipeline's caller says it ran nothing).
async fn check_related(verifier: &dyn Verifier, dir: &TempDir, separator: &str) {
    let workspace = Workspace::new(dir.path());
    for target in ["test/text.test.js", "test/text.test.js::pads"] {
        let spec = related(verifier, &workspace, &[target]);
        let run = run_spec(verifier, &workspace, spec).await;
        let context = context(&run);
        assert_eq!(run.report.outcome, Outcome::Failed, "{context}");
        assert_eq!(run.report.counts.tests_failed, Some(1), "{context}");
        assert_eq!(run.report.counts.tests_passed, Some(1), "{context}");
        let names: Vec<_> = run
            .report
            .diagnostics
            .iter()
            .filter_map(|d| d.test.clone())
            .collect();
        assert_eq!(names, [failing_tests(separator)[1].1.clone()], "{context}");
    }
    std::fs::write(dir.path().join("src/unused.js"), "// imported by no test\n").expect("write");
    let spec = related(verifier, &workspace, &["src/unused.js"]);
    let run = run_spec(verifier, &workspace, spec).await;
    let context = context(&run);
    assert_eq!(run.code, Some(0), "{context}");
    assert_ne!(run.report.outcome, Outcome::Failed, "{context}");
    let ran =
        run.report.counts.tests_passed.unwrap_or(0) + run.report.counts.tests_failed.unwrap_or(0);
    assert_eq!(ran, 0, "{context}");
}

fn applies(verifier: &dyn Verifier, runner: &str, case: &str) -> Applicability {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(runner)
        .join(case);
    verifier.applies(&Workspace::new(dir))
}

#[tokio::test]
async fn jest_on_every_fixture() {
    let jest = Jest::default();
    let (dir, failing) = run(&jest, "failing").await;
    check_failing(&failing, " › ");
    assert!(
        failing.spec.output_files[0].ends_with("jest.json"),
        "the JSON report is read"
    );
    assert!(failing.report.summary.is_some(), "{}", context(&failing));
    check_rerun(&jest, &dir, &failing.report, " › ").await;
    check_related(&jest, &dir, " › ").await;
    check_passing(&run(&jest, "passing").await.1);
    check_syntax(&run(&jest, "syntax").await.1);
    check_config_throws(&run(&jest, "config-throws").await.1);
    let (_dir, no_tests) = run(&jest, "no-tests").await;
    check_no_tests(&no_tests);
    assert!(
        no_tests
            .report
            .error
            .as_deref()
            .is_some_and(|e| e.contains("No tests found")),
        "{}",
        context(&no_tests)
    );
}

#[tokio::test]
async fn vitest_on_every_fixture() {
    let vitest = Vitest::default();
    let (dir, failing) = run(&vitest, "failing").await;
    check_failing(&failing, " > ");
    check_rerun(&vitest, &dir, &failing.report, " > ").await;
    check_related(&vitest, &dir, " > ").await;
    check_passing(&run(&vitest, "passing").await.1);
    check_syntax(&run(&vitest, "syntax").await.1);
    check_config_throws(&run(&vitest, "config-throws").await.1);
    check_no_tests(&run(&vitest, "no-tests").await.1);
}

#[tokio::test]
async fn mocha_on_every_fixture() {
    let mocha = Mocha::default();
    let (dir, failing) = run(&mocha, "failing").await;
    check_failing(&failing, " > ");
    // Mocha's exit code is the number of failures.
    assert_eq!(failing.code, Some(2), "{}", context(&failing));
    check_rerun(&mocha, &dir, &failing.report, " > ").await;
    check_passing(&run(&mocha, "passing").await.1);
    check_syntax(&run(&mocha, "syntax").await.1);
    check_config_throws(&run(&mocha, "config-throws").await.1);
    check_no_tests(&run(&mocha, "no-tests").await.1);
}

#[test]
fn each_runner_applies_to_its_own_projects_only_and_says_why() {
    let verifiers: [(&dyn Verifier, &str); 3] = [
        (&Jest::default(), "jest"),
        (&Vitest::default(), "vitest"),
        (&Mocha::default(), "mocha"),
    ];
    for (verifier, runner) in verifiers {
        for (other, _) in verifiers {
            let applies = applies(other, runner, "failing");
            if other.name() == runner {
                let Applicability::Applies(reason) = applies else {
                    panic!("{} does not apply to its own fixture: {applies:?}", runner);
                };
                // The project's test script or its package.json says so.
                assert!(
                    reason.contains(runner)
                        && (reason.contains("script runs") || reason.contains("package.json")),
                    "{reason}"
                );
            } else {
                assert!(
                    matches!(applies, Applicability::DoesNotApply(_)),
                    "{} applies to a {runner} project: {applies:?}",
                    other.name()
                );
            }
        }
        // A config file is evidence too, where the runner is installed.
        let config = match runner {
            "jest" => "jest.config.js",
            "vitest" => "vitest.config.js",
            _ => ".mocharc.js",
        };
        let Applicability::Applies(reason) = applies(verifier, runner, "config-throws") else {
            panic!("{runner} does not apply to its config-throws fixture");
        };
        assert!(reason.contains(config), "{reason}");
    }
}

/// The verifiers of the runners installed as npm packages: all but node-test.
fn npm_runners() -> impl Iterator<Item = Box<dyn Verifier>> {
    verdict_js_test::verifiers()
        .into_iter()
        .filter(|verifier| verifier.name() != "node-test")
}

#[test]
fn a_project_without_the_tool_installed_gets_an_install_hint() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let workspace = Workspace::new(dir.path());
    // node-test runs node itself, no package (its own tests cover a missing node).
    for verifier in npm_runners() {
        match verifier.command(&workspace) {
            Err(VerifierError::NotInstalled { tool, hint }) => {
                assert_eq!(tool, verifier.name());
                assert!(hint.contains("npm install"), "{hint}");
            }
            other => panic!("{}: {other:?}", verifier.name()),
        }
    }
}

/// The older majors the tools install (jest 29, vitest 3, mocha 10): the failing fixture, and the
/// re-run of its failing tests with the same filters (vitest 3 joins titles with a space when it
/// matches `-t`, vitest 5 with ` > `).
#[tokio::test]
async fn older_majors_on_the_failing_fixture_and_its_rerun() {
    let cases: [(&dyn Verifier, &str, &str, &str); 3] = [
        (&Jest::default(), "jest29", "bin/jest.js", " › "),
        (&Vitest::default(), "vitest3", "vitest.mjs", " > "),
        (&Mocha::default(), "mocha10", "bin/mocha.js", " > "),
    ];
    for (verifier, alias, bin, separator) in cases {
        let dir = project_with_older_major(verifier.name(), "failing", alias, bin);
        let workspace = Workspace::new(dir.path());
        let spec = verifier.command(&workspace).expect("a command");
        let failing = run_spec(verifier, &workspace, spec).await;
        check_failing(&failing, separator);
        check_rerun(verifier, &dir, &failing.report, separator).await;
    }
}

/// Evidence beyond dependencies: a `vite.config.*` with a `test` section, a `jest` key in
/// `package.json`, a script that runs `_mocha`; and a `vite.config.*` without tests is none.
#[test]
fn detection_reads_vite_configs_package_keys_and_scripts() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let workspace = Workspace::new(dir.path());
    let write =
        |name: &str, text: &str| std::fs::write(dir.path().join(name), text).expect("write");
    write(
        "vite.config.ts",
        "export default { plugins: [], build: { outDir: 'dist' } };\n",
    );
    write("package.json", r#"{"name": "p"}"#);
    for verifier in verdict_js_test::verifiers() {
        assert!(
            matches!(verifier.applies(&workspace), Applicability::DoesNotApply(_)),
            "{}",
            verifier.name()
        );
    }
    write(
        "vite.config.ts",
        "export default { test: { environment: 'node' } };\n",
    );
    write(
        "package.json",
        r#"{"name": "p", "jest": {"testEnvironment": "node"}, "scripts": {"unit": "_mocha --recursive"}}"#,
    );
    let reason = |verifier: &dyn Verifier| match verifier.applies(&workspace) {
        Applicability::Applies(reason) => reason,
        other => panic!("{}: {other:?}", verifier.name()),
    };
    assert!(reason(&Vitest::default()).contains("vite.config.ts configures tests"));
    assert!(reason(&Jest::default()).contains("`jest` config"));
    assert!(reason(&Mocha::default()).contains("`unit` script runs mocha"));
}

/// The cache's view of a test run: every project file (a test may read any data file) but the
/// dependencies, the tool's version, and what package managers rewrite on every install.
#[test]
fn inputs_cover_every_project_file_the_tool_and_the_installed_packages() {
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::create_dir_all(dir.path().join("node_modules")).expect("node_modules");
    let workspace = Workspace::new(dir.path());
    for verifier in npm_runners() {
        let inputs = verifier.inputs(&workspace).expect("inputs");
        assert_eq!(inputs.globs[0], "*", "{inputs:?}");
        assert!(inputs.globs.iter().any(|g| g == "!**/node_modules/**"));
        assert_eq!(
            inputs.tool_files[0],
            PathBuf::from(format!("node_modules/{}/package.json", verifier.name()))
        );
        assert!(
            inputs
                .tool_files
                .contains(&dir.path().join("node_modules/.package-lock.json")),
            "{inputs:?}"
        );
    }
}

/// A test that never finishes: the run is stopped at the verifier's time-out, and whatever the
/// log shows so far (a passing test), the result is no pass.
#[tokio::test]
async fn a_run_stopped_at_its_time_out_is_no_pass() {
    let timeout = std::time::Duration::from_secs(4);
    let verifiers: [Box<dyn Verifier>; 3] = [
        Box::new(Jest::default().with_timeout(timeout)),
        Box::new(Vitest::default().with_timeout(timeout)),
        Box::new(Mocha::default().with_timeout(timeout)),
    ];
    for verifier in verifiers {
        let dir = project(verifier.name(), "hanging");
        let workspace = Workspace::new(dir.path());
        std::fs::create_dir_all(&workspace.run_dir).expect("create the run directory");
        let spec = verifier.command(&workspace).expect("a command");
        assert_eq!(spec.timeout, timeout);
        let log = workspace.run_dir.join("hanging.log");
        let started = std::time::Instant::now();
        let captured = runner()
            .with_grace(std::time::Duration::from_millis(500))
            .run(&spec, &log)
            .await;
        assert_eq!(captured.exit, Exit::TimedOut, "{}", verifier.name());
        assert!(started.elapsed() < std::time::Duration::from_secs(30));
        let report = verifier.interpret(&spec, &captured);
        assert_eq!(
            report.outcome,
            Outcome::Errored,
            "{}: {report:#?}",
            verifier.name()
        );
        assert!(
            report
                .error
                .as_deref()
                .is_some_and(|e| e.contains("timed out")),
            "{}: {report:#?}",
            verifier.name()
        );
        // The pipeline says it too: once was "jest timed out after 4s and was stopped; jest
        // timed out and was stopped".
        let reconciled = verdict_core::pipeline::reconcile(
            report,
            &spec,
            &captured,
            verdict_core::Kind::Test,
            false,
        );
        let error = reconciled.error.unwrap_or_default();
        assert_eq!(error.matches("timed out").count(), 1, "{error}");
    }
}

/// The older major the tools install for each runner, as [`project_with_older_major`] takes it.
fn older_major(runner: &str) -> (&'static str, &'static str) {
    match runner {
        "jest" => ("jest29", "bin/jest.js"),
        "vitest" => ("vitest3", "vitest.mjs"),
        _ => ("mocha10", "bin/mocha.js"),
    }
}

/// Runs `verifier` on `fixtures/<runner>/<case>` with the current major and with the older one:
/// both runs, each with its temporary project.
async fn run_both_majors(verifier: &dyn Verifier, case: &str) -> Vec<(TempDir, Run)> {
    let (alias, bin) = older_major(verifier.name());
    let mut runs = vec![run(verifier, case).await];
    let dir = project_with_older_major(verifier.name(), case, alias, bin);
    let workspace = Workspace::new(dir.path());
    let spec = verifier.command(&workspace).expect("a command");
    let older = run_spec(verifier, &workspace, spec).await;
    runs.push((dir, older));
    runs
}

/// The diagnostics of `report` with this message, in order.
fn with_message<'a>(report: &'a Report, message: &str) -> Vec<&'a verdict_core::Diagnostic> {
    report
        .diagnostics
        .iter()
        .filter(|d| d.message.contains(message))
        .collect()
}

/// A `beforeAll`/`afterAll` that throws inside a describe block: vitest lists it under `Failed
/// Suites` in its log only — the JSON report just marks the file failed — so it once went
/// missing: alone it made the run errored ("marked as failed without a failing test"), next to a
/// failing test it was dropped. Each is an error around its tests, where it was thrown, and the
/// run failed; a re-run runs the file whole (no test is named after a describe block).
#[tokio::test]
async fn vitest_hook_errors_are_failures_where_they_were_thrown() {
    let vitest = Vitest::default();
    for (dir, alone) in run_both_majors(&vitest, "hook-alone").await {
        let context = context(&alone);
        let report = &alone.report;
        assert_eq!(report.outcome, Outcome::Failed, "{context}");
        assert_eq!(alone.code, Some(1), "{context}");
        let hook = with_message(report, "cannot connect to db");
        assert_eq!(hook.len(), 1, "{context}");
        assert_eq!(
            hook[0].location().as_deref(),
            Some("test/db.test.js:5:11"),
            "{context}"
        );
        assert!(hook[0].test_error && hook[0].root_cause, "{context}");
        assert!(
            !report
                .notes
                .iter()
                .any(|n| n.contains("without a failing test")),
            "{context}"
        );
        let workspace = Workspace::new(dir.path());
        let rerun = vitest
            .rerun_failed(&workspace, report)
            .expect("a re-run of the file");
        assert!(
            !rerun
                .args
                .iter()
                .any(|a| a.starts_with("--testNamePattern")),
            "{:?}",
            rerun.args
        );
        assert!(rerun.args.iter().any(|a| a == "test/db.test.js"));
    }
    for (_dir, mixed) in run_both_majors(&vitest, "hooks").await {
        let context = context(&mixed);
        let report = &mixed.report;
        assert_eq!(report.outcome, Outcome::Failed, "{context}");
        assert_eq!(report.counts.tests_failed, Some(1), "{context}");
        for (message, location) in [
            ("afterAll broke", "test/db.test.js:5:11"),
            ("beforeAll broke", "test/db.test.js:17:11"),
        ] {
            let hook = with_message(report, message);
            assert_eq!(hook.len(), 1, "{message}\n{context}");
            assert_eq!(hook[0].location().as_deref(), Some(location), "{context}");
        }
        let failing = with_message(report, "expected 1 to be 2");
        assert_eq!(failing.len(), 1, "{context}");
        assert_eq!(failing[0].test.as_deref(), Some("after all > fails"));
        assert_eq!(
            failing[0].detail.as_deref(),
            Some("Expected: 2, Received: 1"),
            "{context}"
        );
    }
}

/// One test that fails twice (`expect.soft`) and two tests of the same name: each failure keeps
/// its own message, line and expected/received values (they were once all given the log's last
/// values, and the second soft failure was dropped). And a time-out reads as one: vitest 3 writes
/// `Error: STACK_TRACE_ERROR` into its JSON report, its log says `Test timed out in 300ms.`.
#[tokio::test]
async fn vitest_every_failure_keeps_its_own_values_and_time_outs_their_message() {
    for (_dir, run) in run_both_majors(&Vitest::default(), "several-failures").await {
        let context = context(&run);
        let report = &run.report;
        assert_eq!(report.outcome, Outcome::Failed, "{context}");
        let failures = |test: &str| -> Vec<(Option<u32>, Option<&str>)> {
            report
                .diagnostics
                .iter()
                .filter(|d| d.test.as_deref() == Some(test))
                .map(|d| (d.line, d.detail.as_deref()))
                .collect()
        };
        assert_eq!(
            failures("soft"),
            [
                (Some(4), Some("Expected: 2, Received: 1")),
                (Some(5), Some("Expected: 3, Received: 2")),
            ],
            "{context}"
        );
        assert_eq!(
            failures("same name"),
            [
                (Some(10), Some("Expected: 10, Received: 1")),
                (Some(10), Some("Expected: 20, Received: 2")),
            ],
            "{context}"
        );
        let timeout = with_message(report, "timed out in 300ms");
        assert_eq!(timeout.len(), 1, "{context}");
        assert_eq!(timeout[0].test.as_deref(), Some("times out"), "{context}");
        assert!(
            with_message(report, "STACK_TRACE_ERROR").is_empty(),
            "{context}"
        );
    }
}

/// A test environment that is not installed (jsdom): vitest runs no test and exits 1 with an
/// unhandled error. That says nothing about the code — could not verify, not a failure — unlike
/// a test file that cannot import the code it tests (the `syntax` fixture: failed).
#[tokio::test]
async fn vitest_without_its_test_environment_could_not_verify() {
    for (_dir, run) in run_both_majors(&Vitest::default(), "missing-environment").await {
        let context = context(&run);
        assert_eq!(run.report.outcome, Outcome::Errored, "{context}");
        let error = run.report.error.as_deref().unwrap_or("");
        assert!(error.contains("jsdom"), "{context}");
        assert_eq!(run.code, Some(1), "{context}");
    }
}

/// jest puts an `afterAll` that threw into the message of a file whose other tests failed too,
/// and an `afterEach` that threw after a failed assertion into the test's second failure
/// message: both were dropped once (`1 suite failed to run` with nothing shown for it).
#[tokio::test]
async fn jest_hook_errors_next_to_a_failing_test_are_kept() {
    for (_dir, run) in run_both_majors(&Jest::default(), "hooks").await {
        let context = context(&run);
        let report = &run.report;
        assert_eq!(report.outcome, Outcome::Failed, "{context}");
        assert_eq!(report.counts.tests_failed, Some(1), "{context}");
        let after_all = with_message(report, "afterAll broke");
        assert_eq!(after_all.len(), 1, "{context}");
        assert!(after_all[0].root_cause, "{context}");
        assert_eq!(
            after_all[0].location().as_deref(),
            Some("test/db.test.js:12:11"),
            "{context}"
        );
        let test: Vec<_> = report
            .diagnostics
            .iter()
            .filter(|d| d.test.as_deref() == Some("multi › assertion and hook"))
            .map(|d| (d.message.as_str(), d.line))
            .collect();
        assert_eq!(
            test,
            [
                ("expect(received).toBe(expected)", Some(6)),
                ("afterEach broke", Some(3)),
            ],
            "{context}"
        );
    }
}

/// `Jest encountered an unexpected token` is jest's advice, the same for every such file; the
/// error is under `Details:` — Node's `Cannot use import statement outside a module` below the
/// `path:line` it names, babel's `SyntaxError: … (3:0)`. Once only the advice was shown. (jest 30
/// on the pinned Node.js 22 loads the ES module file through `require(esm)` and says `Must use
/// import to load ES Module` instead; jest 29 cannot, and prints the `Details:`.)
#[tokio::test]
async fn jest_unexpected_token_shows_the_error_under_details() {
    let runs = run_both_majors(&Jest::default(), "unexpected-token").await;
    for (major, (_dir, run)) in runs.iter().enumerate() {
        let context = context(run);
        let report = &run.report;
        assert_eq!(report.outcome, Outcome::Failed, "{context}");
        let esm: Vec<_> = report
            .diagnostics
            .iter()
            .filter(|d| d.file.as_deref() == Some("test/esm.test.js"))
            .collect();
        assert_eq!(esm.len(), 1, "{context}");
        assert!(esm[0].root_cause, "{context}");
        if major == 1 {
            assert_eq!(
                esm[0].message, "SyntaxError: Cannot use import statement outside a module",
                "{context}"
            );
            assert_eq!(esm[0].line, Some(1), "{context}");
        }
        let babel: Vec<_> = report
            .diagnostics
            .iter()
            .filter(|d| d.file.as_deref() == Some("test/broken.test.js"))
            .collect();
        assert_eq!(babel.len(), 1, "{context}");
        assert!(
            babel[0]
                .message
                .starts_with("SyntaxError: Unexpected token"),
            "{context}"
        );
        assert_eq!(babel[0].line, Some(3), "{context}");
        assert!(
            !report
                .diagnostics
                .iter()
                .any(|d| d.message.contains("Jest encountered")),
            "{context}"
        );
    }
}

/// A coverage threshold not met fails a run whose tests passed, in jest 29's words (`Jest:
/// "global" coverage threshold for statements (95%) not met`) and in jest 30's (`Jest: Coverage
/// for statements (…) does not meet "global" threshold (95%)`), which was once not read at all.
#[tokio::test]
async fn jest_coverage_thresholds_fail_the_run_in_both_majors() {
    for (_dir, run) in run_both_majors(&Jest::default(), "coverage-threshold").await {
        let context = context(&run);
        let report = &run.report;
        assert_eq!(report.outcome, Outcome::Failed, "{context}");
        assert_eq!(run.code, Some(1), "{context}");
        let threshold: Vec<_> = report
            .diagnostics
            .iter()
            .filter(|d| d.code.as_deref() == Some("coverage-threshold"))
            .collect();
        assert_eq!(threshold.len(), 1, "{context}");
        assert!(threshold[0].message.contains("95%"), "{context}");
    }
}

/// A project whose script names its test files (`"test": "mocha --recursive 'src/**/*.test.js'
/// && echo done"`) and has no `.mocharc` spec: plain `mocha` looked in `./test` and errored with
/// `No test files found`, while detection said the script runs mocha. The script's arguments up to
/// the shell operator are taken over.
#[tokio::test]
async fn mocha_runs_the_spec_its_script_names() {
    for (_dir, run) in run_both_majors(&Mocha::default(), "script-spec").await {
        let context = context(&run);
        let report = &run.report;
        assert_eq!(report.outcome, Outcome::Failed, "{context}");
        assert_eq!(report.counts.tests_passed, Some(1), "{context}");
        assert_eq!(report.counts.tests_failed, Some(1), "{context}");
        let failing = &report.diagnostics[0];
        assert_eq!(failing.test.as_deref(), Some("math > subtracts"));
        assert_eq!(
            failing.location().as_deref(),
            Some("src/math.test.js:8:12"),
            "{context}"
        );
        assert!(
            !run.spec.args.iter().any(|a| a == "&&" || a == "done"),
            "{:?}",
            run.spec.args
        );
    }
}

/// A `.mocharc` `require` of a file that does not exist: mocha prints `✖ ERROR: … Cannot find
/// module …` and exits 1. That line is the reason the run could not verify, not "no failure could
/// be read".
#[tokio::test]
async fn mocha_cli_errors_are_the_reason_it_could_not_verify() {
    for (_dir, run) in run_both_majors(&Mocha::default(), "missing-require").await {
        let context = context(&run);
        assert_eq!(run.report.outcome, Outcome::Errored, "{context}");
        let error = run.report.error.as_deref().unwrap_or("");
        assert!(
            error.contains("Cannot find module") && error.contains("setup-that-is-missing"),
            "{context}"
        );
        assert!(!error.contains("no failure could be read"), "{context}");
    }
}

/// Checks a run of a `script-*` fixture: one test passed and `failing` failed, and none of
/// `dropped` (options verdict sets itself) reached the command line.
fn check_script_run(run: &Run, failing: &str, dropped: &[&str]) {
    let context = context(run);
    let report = &run.report;
    assert_eq!(report.outcome, Outcome::Failed, "{context}");
    assert_eq!(report.counts.tests_passed, Some(1), "{context}");
    assert_eq!(report.counts.tests_failed, Some(1), "{context}");
    let tests: Vec<_> = report
        .diagnostics
        .iter()
        .filter_map(|d| d.test.as_deref())
        .collect();
    assert_eq!(tests, [failing], "{context}");
    for option in dropped {
        assert!(
            !run.spec.args.iter().any(|arg| arg == option),
            "{option} in {:?}",
            run.spec.args
        );
    }
}

/// An ES-module project whose script is `NODE_OPTIONS=--experimental-vm-modules jest`: jest
/// without the variable fails every test file on its `import`, and verdict reported that failure
/// while `npm test` ran the tests. The script's variables are the runner's; its
/// `--outputFile=ignored.json` is verdict's to set.
#[tokio::test]
async fn jest_takes_the_variables_its_script_sets() {
    for (_dir, run) in run_both_majors(&Jest::default(), "script-esm").await {
        assert_eq!(
            run.spec.env.get("NODE_OPTIONS").map(String::as_str),
            Some("--experimental-vm-modules"),
            "{:?}",
            run.spec.env
        );
        assert!(run.spec.args.iter().any(|arg| arg == "--runInBand"));
        check_script_run(&run, "adds wrongly", &["--outputFile=ignored.json"]);
    }
}

/// A script that names jest's config (`tsc --noEmit || true; jest -c jest.checks.config.js
/// --color -u`): plain jest finds no test in `checks/*.check.js`. The config is taken over, and
/// kept for a re-run of what failed; colour and `-u` (which would rewrite snapshots instead of
/// checking them) are not.
#[tokio::test]
async fn jest_runs_with_the_config_its_script_names() {
    let verifier = Jest::default();
    for (dir, run) in run_both_majors(&verifier, "script-config").await {
        check_script_run(&run, "subtracts", &["--color", "-u"]);
        let workspace = Workspace::new(dir.path());
        let spec = verifier
            .rerun_failed(&workspace, &run.report)
            .expect("a re-run of the failing test");
        let rerun = run_spec(&verifier, &workspace, spec).await;
        let context = context(&rerun);
        assert_eq!(rerun.report.counts.tests_failed, Some(1), "{context}");
        assert_eq!(rerun.report.counts.tests_passed, Some(0), "{context}");
        assert!(
            rerun
                .spec
                .args
                .windows(2)
                .any(|w| w == ["-c", "jest.checks.config.js"]),
            "{context}"
        );
    }
}

/// A script that names vitest's config and sets a variable through cross-env (`cross-env TZ=UTC
/// vitest run --config vitest.checks.config.js --reporter=dot`): the config and the variable are
/// taken over, the script's `run` and reporter are not (verdict names its own).
#[tokio::test]
async fn vitest_runs_with_the_config_and_variables_its_script_names() {
    for (_dir, run) in run_both_majors(&Vitest::default(), "script-config").await {
        assert_eq!(run.spec.env.get("TZ").map(String::as_str), Some("UTC"));
        assert_eq!(
            run.spec.args.iter().filter(|arg| *arg == "run").count(),
            1,
            "{:?}",
            run.spec.args
        );
        check_script_run(&run, "subtracts", &["--reporter=dot"]);
    }
}
