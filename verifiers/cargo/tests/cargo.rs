//! The cargo verifiers on fixture crates, with the real cargo, rustc and clippy of the toolchain
//! that builds verdict: detection, the commands, and what they make of what cargo printed.
//!
//! Each fixture under `tests/fixtures/` is copied to a temporary directory (each has its own
//! `[workspace]` table, so cargo never looks above it) and built into a target directory in that
//! temporary directory, so nothing is ever written into the repository.

use std::path::Path;
use std::sync::Arc;

use verdict_cargo::{CargoCheck, CargoTest, Clippy};
use verdict_core::cache::Cache;
use verdict_core::model::Status;
use verdict_core::pipeline::{self, Entry, Options};
use verdict_core::process::ProcessRunner;
use verdict_core::verifier::{Applicability, Captured, CommandSpec, Exit, Runner, Workspace};
use verdict_core::{Kind, Outcome, Report, Severity, Verifier};
use verdict_test_support::copy_dir;

/// A fixture crate copied to a temporary directory, with a target directory next to it.
struct Fixture {
    dir: tempfile::TempDir,
    workspace: Workspace,
}

fn fixture(name: &str) -> Fixture {
    let dir = tempfile::tempdir().expect("temporary directory");
    let root = dir.path().join(name);
    copy_dir(
        &Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures")
            .join(name),
        &root,
    );
    let run_dir = root.join(".verdict/runs/test");
    std::fs::create_dir_all(&run_dir).expect("create the run directory");
    Fixture {
        workspace: Workspace::new(&root).with_run_dir(run_dir),
        dir,
    }
}

/// Runs `spec` for real, with the fixture's own target directory, and interprets the output.
async fn run_spec(
    verifier: &dyn Verifier,
    fixture: &Fixture,
    spec: &CommandSpec,
) -> (Captured, Report) {
    let runner = ProcessRunner::new().with_env(
        "CARGO_TARGET_DIR",
        fixture.dir.path().join("target").to_string_lossy(),
    );
    let log = fixture
        .workspace
        .run_dir
        .join(format!("{}.log", verifier.name()));
    let captured = runner.run(spec, &log).await;
    let report = verifier.interpret(spec, &captured);
    (captured, report)
}

async fn run(verifier: &dyn Verifier, fixture: &Fixture) -> (CommandSpec, Captured, Report) {
    let spec = verifier
        .command(&fixture.workspace)
        .expect("the command can be built");
    let (captured, report) = run_spec(verifier, fixture, &spec).await;
    (spec, captured, report)
}

fn exit_code(captured: &Captured) -> Option<i32> {
    match captured.exit {
        Exit::Code { code } => Some(code),
        _ => None,
    }
}

/// (severity, file, line, code) of every diagnostic, in order.
fn places(report: &Report) -> Vec<(Severity, String, u32, String)> {
    report
        .diagnostics
        .iter()
        .map(|d| {
            (
                d.severity,
                d.file.clone().unwrap_or_default(),
                d.line.unwrap_or(0),
                d.code.clone().unwrap_or_default(),
            )
        })
        .collect()
}

#[tokio::test]
async fn a_type_error_fails_cargo_check_at_its_place() {
    let fixture = fixture("type-error");
    let check = CargoCheck::default();
    assert!(matches!(
        check.applies(&fixture.workspace),
        Applicability::Applies(_)
    ));
    let (_, captured, report) = run(&check, &fixture).await;
    assert_eq!(exit_code(&captured), Some(101));
    assert_eq!(report.outcome, Outcome::Failed, "{report:#?}");
    assert_eq!(
        places(&report),
        [(
            Severity::Error,
            "src/lib.rs".to_owned(),
            10,
            "E0308".to_owned()
        )]
    );
    let d = &report.diagnostics[0];
    assert_eq!(d.kind, Kind::Build);
    assert_eq!(d.column, Some(5));
    assert_eq!(d.message, "mismatched types");
    assert_eq!(report.counts.errors, Some(1), "{report:#?}");
}

#[tokio::test]
async fn clippy_reports_warnings_and_fails_on_the_lint_the_project_denies() {
    let fixture = fixture("lints");
    // The crate compiles: cargo check passes.
    let (_, captured, report) = run(&CargoCheck::default(), &fixture).await;
    assert_eq!(exit_code(&captured), Some(0));
    assert_eq!(report.outcome, Outcome::Passed, "{report:#?}");

    let clippy = Clippy::default();
    let (spec, captured, report) = run(&clippy, &fixture).await;
    assert_eq!(spec.args[0], "clippy");
    assert!(!spec.args.iter().any(|a| a == "-D" || a == "warnings"));
    assert_eq!(exit_code(&captured), Some(101));
    assert_eq!(report.outcome, Outcome::Failed, "{report:#?}");
    assert_eq!(
        places(&report),
        [
            (
                Severity::Warning,
                "src/lib.rs".to_owned(),
                8,
                "clippy::needless_range_loop".to_owned()
            ),
            (
                Severity::Error,
                "src/lib.rs".to_owned(),
                16,
                "clippy::needless_return".to_owned()
            ),
        ]
    );
}

#[tokio::test]
async fn failing_tests_fail_with_counts_and_rerun_by_name() {
    let fixture = fixture("tests-failing");
    let test = CargoTest::default();
    let (spec, captured, report) = run(&test, &fixture).await;
    assert_eq!(exit_code(&captured), Some(101));
    assert_eq!(report.outcome, Outcome::Failed, "{report:#?}");
    assert_eq!(report.tool, "cargo-test");
    assert_eq!(report.counts.tests_failed, Some(2));
    assert_eq!(report.counts.tests_passed, Some(2));
    // libtest reports tests as they finish, in parallel: the order is not fixed.
    let mut failing: Vec<(&str, Option<&str>, Option<u32>)> = report
        .errors()
        .map(|d| (d.test.as_deref().unwrap_or(""), d.file.as_deref(), d.line))
        .collect();
    failing.sort();
    assert_eq!(
        failing,
        [
            ("tests::adds_negative", Some("src/lib.rs"), Some(25)),
            ("tests::rejects_garbage", Some("src/lib.rs"), Some(35))
        ]
    );
    assert!(report.errors().all(|d| d.kind == Kind::Test));

    let rerun = test
        .rerun_failed(&fixture.workspace, &report)
        .expect("a rerun command");
    assert_eq!(rerun.args[..spec.args.len()], spec.args[..]);
    let mut names = rerun.args[spec.args.len() + 2..].to_vec();
    names.sort();
    assert_eq!(rerun.args[spec.args.len()..][..2], ["--", "--exact"]);
    assert_eq!(names, ["tests::adds_negative", "tests::rejects_garbage"]);
    let (_, again) = run_spec(&test, &fixture, &rerun).await;
    assert_eq!(again.outcome, Outcome::Failed, "{again:#?}");
    assert_eq!(again.counts.tests_failed, Some(2));
    assert_eq!(again.counts.tests_passed, Some(0));
}

#[tokio::test]
async fn a_passing_crate_passes_every_cargo_verifier() {
    let fixture = fixture("passing");
    for verifier in verdict_cargo::verifiers() {
        let (_, captured, report) = run(verifier.as_ref(), &fixture).await;
        assert_eq!(exit_code(&captured), Some(0), "{}", verifier.name());
        assert_eq!(
            report.outcome,
            Outcome::Passed,
            "{}: {report:#?}",
            verifier.name()
        );
        assert!(report.errors().next().is_none(), "{}", verifier.name());
        if verifier.name() == "cargo-test" {
            assert_eq!(report.counts.tests_passed, Some(2));
            assert_eq!(report.counts.tests_failed, Some(0));
        }
    }
}

#[tokio::test]
async fn a_manifest_that_does_not_parse_is_errored_never_passed() {
    let fixture = fixture("bad-manifest");
    let (_, captured, report) = run(&CargoCheck::default(), &fixture).await;
    assert_eq!(exit_code(&captured), Some(101));
    assert_eq!(report.outcome, Outcome::Errored, "{report:#?}");
    assert!(
        report
            .error
            .as_deref()
            .is_some_and(|e| e.contains("Cargo.toml")),
        "{:?}",
        report.error
    );
}

#[tokio::test]
async fn a_cargo_that_cannot_start_is_errored() {
    let fixture = fixture("passing");
    let check = CargoCheck::default();
    let mut spec = check
        .command(&fixture.workspace)
        .expect("the command can be built");
    spec.program = fixture.workspace.path("no-such-cargo");
    let (captured, report) = run_spec(&check, &fixture, &spec).await;
    assert!(
        matches!(captured.exit, Exit::NotStarted { .. }),
        "{captured:?}"
    );
    assert_eq!(report.outcome, Outcome::Errored, "{report:#?}");
}

#[tokio::test]
async fn a_test_that_never_ends_times_out_and_is_errored() {
    let fixture = fixture("hang");
    // Build first, with no time limit, so that the limit applies to the tests alone.
    let build = CargoTest::default();
    let mut spec = build
        .command(&fixture.workspace)
        .expect("the command can be built");
    spec.args.push("--no-run".to_owned());
    let (captured, _) = run_spec(&build, &fixture, &spec).await;
    assert_eq!(exit_code(&captured), Some(0), "the tests build");

    let test = CargoTest::default().with_timeout(std::time::Duration::from_secs(5));
    let started = std::time::Instant::now();
    let (_, captured, report) = run(&test, &fixture).await;
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

/// (test, message) of every failure of a report, sorted (libtest reports in parallel).
fn failures(report: &Report) -> Vec<(String, String)> {
    let mut failures: Vec<(String, String)> = report
        .errors()
        .map(|d| (d.test.clone().unwrap_or_default(), d.message.clone()))
        .collect();
    failures.sort();
    failures
}

#[tokio::test]
async fn a_test_binary_that_aborts_is_a_failure_of_its_target() {
    let fixture = fixture("abort");
    let (_, captured, report) = run(&CargoTest::default(), &fixture).await;
    assert_eq!(exit_code(&captured), Some(101));
    assert_eq!(report.outcome, Outcome::Failed, "{report:#?}");
    assert_eq!(
        failures(&report),
        [(
            "--lib".to_owned(),
            "the test binary crashed (signal: 6, SIGABRT: process abort signal)".to_owned()
        )]
    );
    // The crash is a failure in the counts too, not `0 failed` next to a failed verifier.
    assert_eq!(report.counts.tests_failed, Some(1), "{report:#?}");
}

#[tokio::test]
async fn a_segfaulting_test_binary_counts_as_one_failure() {
    let fixture = fixture("segv");
    let (_, captured, report) = run(&CargoTest::default(), &fixture).await;
    assert_eq!(exit_code(&captured), Some(101));
    assert_eq!(report.outcome, Outcome::Failed, "{report:#?}");
    assert_eq!(report.counts.tests_failed, Some(1), "{report:#?}");
    let failures = failures(&report);
    assert_eq!(failures.len(), 1, "{failures:?}");
    assert!(
        failures[0].1.contains("crashed (signal: 11, SIGSEGV"),
        "{failures:?}"
    );
}

#[tokio::test]
async fn a_failing_harness_false_target_is_a_failure_next_to_failing_tests() {
    let fixture = fixture("custom-harness");
    let (_, captured, report) = run(&CargoTest::default(), &fixture).await;
    assert_eq!(exit_code(&captured), Some(101));
    assert_eq!(report.outcome, Outcome::Failed, "{report:#?}");
    assert_eq!(
        failures(&report),
        [
            (
                "--test custom".to_owned(),
                "the test target failed (exit status: 1)".to_owned()
            ),
            (
                "tests::returns_err".to_owned(),
                "Error: \"the value was wrong\"".to_owned()
            ),
        ]
    );
    let target = report
        .errors()
        .find(|d| d.test.as_deref() == Some("--test custom"))
        .expect("the target's failure");
    // What the target printed last is all it says about why. Its standard output and standard
    // error are two pipes, next to cargo's lines: the detail holds both of its lines however
    // the capture happened to read them.
    let detail = target.detail.as_deref().unwrap_or_default();
    assert!(
        detail.contains("check 3 failed: expected 4 got 5")
            && detail.contains("custom harness: checking things"),
        "{target:?}"
    );
    assert_eq!(report.counts.tests_failed, Some(2), "{report:#?}");
    assert_eq!(report.counts.tests_passed, Some(1), "{report:#?}");
}

#[tokio::test]
async fn a_failing_harness_false_target_alone_is_a_failure_not_errored() {
    let fixture = fixture("custom-harness");
    // Only the custom target: nothing else fails.
    let test = CargoTest::default();
    let mut spec = test
        .command(&fixture.workspace)
        .expect("the command can be built");
    spec.args.extend(["--test".to_owned(), "custom".to_owned()]);
    let (captured, report) = run_spec(&test, &fixture, &spec).await;
    assert_eq!(exit_code(&captured), Some(101));
    assert_eq!(report.outcome, Outcome::Failed, "{report:#?}");
    assert_eq!(
        failures(&report),
        [(
            "--test custom".to_owned(),
            "the test target failed (exit status: 1)".to_owned()
        )]
    );
    assert_eq!(report.counts.tests_failed, Some(1), "{report:#?}");
}

#[tokio::test]
async fn a_test_calling_process_exit_0_is_errored_as_a_binary_ended_before_its_summary() {
    let fixture = fixture("exits-early");
    let (_, captured, report) = run(&CargoTest::default(), &fixture).await;
    // cargo sees a binary that exited 0 and says nothing.
    assert_eq!(exit_code(&captured), Some(0));
    assert_eq!(report.outcome, Outcome::Errored, "{report:#?}");
    let error = report.error.as_deref().unwrap_or("");
    assert!(
        error.starts_with("a test binary ended before its summary (")
            && error.contains(" of 3 tests reported)"),
        "{error}"
    );
}

/// Writes `files` (path, content) under `root`.
fn write_files(root: &Path, files: &[(&str, &str)]) {
    for (path, content) in files {
        let path = root.join(path);
        std::fs::create_dir_all(path.parent().expect("a parent")).expect("mkdir");
        std::fs::write(path, content).expect("write a fixture file");
    }
}

/// Runs `cargo-test` on `root` through the pipeline with a cache, as `verdict run` does; the
/// status (ran or cached) and the outcome.
async fn run_cached(root: &Path, target: &Path, n: u32) -> (Status, Outcome) {
    let entries = vec![Entry::new(Arc::new(CargoTest::default()))];
    let workspace = Workspace::new(root).with_run_dir(root.join(format!(".verdict/runs/{n}")));
    let options = Options {
        cache: Some(Cache::open(root.join(".verdict/cache"))),
        ..Options::default()
    };
    let runner: Arc<dyn Runner> =
        Arc::new(ProcessRunner::new().with_env("CARGO_TARGET_DIR", target.to_string_lossy()));
    let verifications = pipeline::run(&entries, &workspace, runner, &options, &mut |_| {})
        .await
        .expect("a valid pipeline");
    (verifications[0].status, verifications[0].outcome())
}

#[tokio::test]
async fn a_data_file_the_code_includes_is_an_input_of_the_cache() {
    let dir = tempfile::tempdir().expect("temporary directory");
    let root = dir.path().join("project");
    write_files(
        &root,
        &[
            (
                "Cargo.toml",
                "[package]\nname = \"includes\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[workspace]\n",
            ),
            (
                "src/lib.rs",
                "//! Reads its expectation from a data file.\n\npub const EXPECTED: &str = include_str!(\"../data/expected.txt\");\n\n#[test]\nfn matches() {\n    assert_eq!(EXPECTED.trim(), \"42\");\n}\n",
            ),
            ("data/expected.txt", "42\n"),
            // As cargo writes it, so that the first run does not add an input.
            (
                "Cargo.lock",
                "# This file is automatically @generated by Cargo.\n# It is not intended for manual editing.\nversion = 4\n\n[[package]]\nname = \"includes\"\nversion = \"0.1.0\"\n",
            ),
        ],
    );
    let target = dir.path().join("target");
    assert_eq!(
        run_cached(&root, &target, 1).await,
        (Status::Ran, Outcome::Passed)
    );
    assert_eq!(
        run_cached(&root, &target, 2).await,
        (Status::Cached, Outcome::Passed)
    );
    // Not a Rust source, not a manifest: the build still reads it.
    std::fs::write(root.join("data/expected.txt"), "41\n").expect("edit the data file");
    assert_eq!(
        run_cached(&root, &target, 3).await,
        (Status::Ran, Outcome::Failed)
    );
}

#[tokio::test]
async fn a_path_dependency_outside_the_project_is_never_cached() {
    let dir = tempfile::tempdir().expect("temporary directory");
    write_files(
        dir.path(),
        &[
            (
                "app/Cargo.toml",
                "[package]\nname = \"app\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[workspace]\n\n[dependencies]\nshared = { path = \"../shared\" }\n",
            ),
            (
                "app/src/lib.rs",
                "//! Uses a sibling crate.\n\n#[test]\nfn uses_shared() {\n    assert_eq!(shared::VALUE, 1);\n}\n",
            ),
            (
                "shared/Cargo.toml",
                "[package]\nname = \"shared\"\nversion = \"0.1.0\"\nedition = \"2021\"\n",
            ),
            (
                "shared/src/lib.rs",
                "//! Shared.\n\npub const VALUE: u32 = 1;\n",
            ),
        ],
    );
    let root = dir.path().join("app");
    assert_eq!(
        CargoTest::default().inputs(&Workspace::new(&root)),
        None,
        "files outside the project cannot be hashed"
    );
    let target = dir.path().join("target");
    assert_eq!(
        run_cached(&root, &target, 1).await,
        (Status::Ran, Outcome::Passed)
    );
    assert_eq!(
        run_cached(&root, &target, 2).await,
        (Status::Ran, Outcome::Passed)
    );
    // The change the cache could not have seen is seen.
    std::fs::write(
        dir.path().join("shared/src/lib.rs"),
        "//! Shared.\n\npub const VALUE: u32 = 2;\n",
    )
    .expect("edit the dependency");
    assert_eq!(
        run_cached(&root, &target, 3).await,
        (Status::Ran, Outcome::Failed)
    );
}

#[tokio::test]
async fn failing_doctests_are_rerun_by_the_full_run_not_filtered_away() {
    let fixture = fixture("doctests");
    let test = CargoTest::default();
    let (_, captured, report) = run(&test, &fixture).await;
    assert_eq!(exit_code(&captured), Some(101));
    assert_eq!(report.outcome, Outcome::Failed, "{report:#?}");
    let mut failing: Vec<&str> = report.errors().filter_map(|d| d.test.as_deref()).collect();
    failing.sort();
    assert_eq!(
        failing,
        ["src/lib.rs - inc (line 6)", "src/lib.rs - other (line 15)"]
    );
    // `-- --exact 'src/lib.rs - inc (line 6)'` reaches rustdoc split at its spaces and runs no
    // doc-test ("cargo ran no test"); the pieces without `--exact` run others. Only the full run
    // re-runs them.
    assert_eq!(test.rerun_failed(&fixture.workspace, &report), None);
}

/// verdict run in one member of a workspace (`crates/app`): rustc and the test's panic name the
/// member's files from the workspace root (`crates/app/src/lib.rs`), which from the project read
/// as a file that does not exist. They are shown relative to the project, and another member's
/// file by its absolute path.
#[tokio::test]
async fn paths_in_a_workspace_member_are_relative_to_the_member() {
    let whole = fixture("member");
    let app = whole.workspace.root.join("crates/app");
    let member = Fixture {
        workspace: Workspace::new(&app).with_run_dir(whole.workspace.run_dir.clone()),
        dir: whole.dir,
    };
    let (_, _, check) = run(&CargoCheck::default(), &member).await;
    let warnings: Vec<_> = check
        .diagnostics
        .iter()
        .map(|d| (d.location().unwrap_or_default(), d.message.clone()))
        .collect();
    let util = app.join("../util/src/lib.rs");
    let util = std::path::absolute(&util).expect("absolute");
    assert!(
        warnings.contains(&(
            "src/lib.rs:4:9".to_owned(),
            "unused variable: `unused`".to_owned()
        )),
        "{warnings:?}"
    );
    let util_warning = check
        .diagnostics
        .iter()
        .find(|d| d.message.contains("unused_too"))
        .unwrap_or_else(|| panic!("{warnings:?}"));
    let util_file = util_warning.file.as_deref().unwrap_or_default();
    assert!(
        Path::new(util_file).is_absolute() && util_file.ends_with("crates/util/src/lib.rs"),
        "{util_file} is not {}",
        util.display()
    );

    let (_, _, test) = run(&CargoTest::default(), &member).await;
    assert_eq!(test.outcome, Outcome::Failed, "{test:#?}");
    let failing = test
        .errors()
        .find(|d| d.test.as_deref() == Some("tests::twice_two"))
        .unwrap_or_else(|| panic!("{test:#?}"));
    assert_eq!(failing.location().as_deref(), Some("src/lib.rs:12:9"));
}

/// The Makefile's `cargo test --features extra -- --include-ignored`: the feature-gated test
/// and the ignored one fail under the project's own command, so they must under the verifier.
#[tokio::test]
async fn the_declared_features_and_harness_flags_are_passed_on() {
    let fixture = fixture("declared-features");
    let verifier = verdict_cargo::CargoTest::default();
    let (spec, captured, report) = run(&verifier, &fixture).await;
    let args = spec.args.join(" ");
    assert!(
        args.contains("--features extra") && args.ends_with("-- --include-ignored"),
        "{args}"
    );
    assert_eq!(exit_code(&captured), Some(101), "{report:#?}");
    let mut failed: Vec<&str> = report
        .diagnostics
        .iter()
        .filter_map(|d| d.test.as_deref())
        .collect();
    failed.sort_unstable();
    assert_eq!(
        failed,
        ["tests::ignored_unless_asked", "tests::rounds_up"],
        "{report:#?}"
    );
}
