//! `cargo-test` on projects that configure cargo-nextest (`.config/nextest.toml`), run with the
//! real `cargo nextest` (`cargo install cargo-nextest --locked`): the profile's settings honoured,
//! every failure found — checked against the JUnit report nextest writes in the same run — a
//! crash, a test that does not compile, and a re-run of the failing tests by name.
//!
//! Each fixture is copied to a temporary directory and built there: nextest writes its store
//! (and the JUnit report) under the workspace root's `target/nextest/`, so the target directory
//! stays the fixture's own.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;

use verdict_cargo::{CargoTest, nextest_config};
use verdict_core::pipeline::{self, Entry, Options};
use verdict_core::process::ProcessRunner;
use verdict_core::verifier::{Applicability, Captured, CommandSpec, Exit, Runner, Workspace};
use verdict_core::{Kind, Outcome, Report, Verifier};
use verdict_test_support::copy_dir;

/// A fixture copied to a temporary directory; the directory lives as long as the workspace.
struct Fixture {
    _dir: tempfile::TempDir,
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
        _dir: dir,
    }
}

/// A test never passes because cargo-nextest is missing: it fails with the command that
/// installs it.
fn require_nextest() {
    assert!(
        verdict_cargo::nextest::nextest_program().is_some(),
        "cargo-nextest is missing: run `cargo install cargo-nextest --locked`"
    );
}

/// The runner: the fixture's own target directory whatever the caller's environment says, and
/// the default profile.
fn runner(fixture: &Fixture) -> ProcessRunner {
    ProcessRunner::new()
        .with_env(
            "CARGO_TARGET_DIR",
            fixture.workspace.root.join("target").to_string_lossy(),
        )
        .with_env("NEXTEST_PROFILE", "default")
}

async fn run_spec(fixture: &Fixture, spec: &CommandSpec, log: &str) -> (Captured, Report) {
    let log = fixture.workspace.run_dir.join(log);
    let captured = runner(fixture).run(spec, &log).await;
    let report = CargoTest::default().interpret(spec, &captured);
    (captured, report)
}

fn exit_code(captured: &Captured) -> Option<i32> {
    match captured.exit {
        Exit::Code { code } => Some(code),
        _ => None,
    }
}

/// `attr="value"` of an XML start tag, unescaped enough for test names.
fn attr(tag: &str, name: &str) -> String {
    let key = format!(" {name}=\"");
    tag.find(&key)
        .map(|at| &tag[at + key.len()..])
        .and_then(|rest| rest.split('"').next())
        .unwrap_or("")
        .replace("&apos;", "'")
        .replace("&quot;", "\"")
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&amp;", "&")
}

/// nextest's JUnit report: each test case's name and whether it failed, and the root's counts.
struct Truth {
    cases: BTreeMap<String, bool>,
    tests: u64,
    failures: u64,
}

fn read_junit(xml: &[u8]) -> Truth {
    let xml = String::from_utf8_lossy(xml);
    let root = xml
        .split("<testsuites ")
        .nth(1)
        .and_then(|rest| rest.split('>').next())
        .expect("a <testsuites> element");
    let number = |name: &str| attr(&format!(" {root}"), name).parse::<u64>().expect(name);
    let mut cases = BTreeMap::new();
    for case in xml.split("<testcase ").skip(1) {
        let tag = format!(" {}", case.split('>').next().unwrap_or(""));
        // A case ends at its own closing tag, or at once when it is empty (`/>`).
        let body = if tag.ends_with('/') {
            ""
        } else {
            case.split("</testcase>").next().unwrap_or("")
        };
        let failed = body.contains("<failure") || body.contains("<error");
        cases.insert(attr(&tag, "name"), failed);
    }
    Truth {
        cases,
        tests: number("tests"),
        failures: number("failures") + number("errors"),
    }
}

/// The failing tests of `report`, each with how often it is reported.
fn failing(report: &Report) -> BTreeMap<String, usize> {
    let mut failing = BTreeMap::new();
    for d in report.diagnostics.iter().filter(|d| d.kind == Kind::Test) {
        *failing
            .entry(d.test.clone().unwrap_or_default())
            .or_default() += 1;
    }
    failing
}

#[tokio::test]
async fn failing_and_crashing_tests_under_nextest_are_those_of_its_junit_report() {
    require_nextest();
    let fixture = fixture("nextest-failing");
    let verifier = CargoTest::default();
    match verifier.applies(&fixture.workspace) {
        Applicability::Applies(why) => assert!(why.contains("cargo nextest"), "{why}"),
        other => panic!("{other:?}"),
    }
    let spec = verifier
        .command(&fixture.workspace)
        .expect("the command can be built");
    assert_eq!(spec.args[..2], ["nextest", "run"]);
    assert!(spec.args.contains(&"--no-fail-fast".to_owned()));
    let junit = fixture
        .workspace
        .root
        .join("target/nextest/default/junit.xml");
    assert_eq!(spec.output_files, [junit]);

    let (captured, report) = run_spec(&fixture, &spec, "cargo-test.log").await;
    assert_eq!(exit_code(&captured), Some(100), "{report:#?}");
    let xml = captured.output_files[0]
        .as_deref()
        .expect("nextest wrote its JUnit report");
    let truth = read_junit(xml);
    assert_eq!(truth.tests, 5);
    assert_eq!(report.outcome, Outcome::Failed, "{report:#?}");
    assert_eq!(report.tool, "cargo-test");
    let expected: BTreeMap<String, usize> = truth
        .cases
        .iter()
        .filter(|(_, failed)| **failed)
        .map(|(name, _)| (name.clone(), 1))
        .collect();
    assert_eq!(failing(&report), expected);
    assert_eq!(report.counts.tests_failed, Some(truth.failures));
    assert_eq!(
        report.counts.tests_passed,
        Some(truth.tests - truth.failures)
    );
    // The crash and the assertion, each where and how it ended.
    let by_name = |name: &str| {
        report
            .diagnostics
            .iter()
            .find(|d| d.test.as_deref() == Some(name))
            .unwrap_or_else(|| panic!("{name} in {report:#?}"))
    };
    assert!(
        by_name("tests::aborts").message.contains("SIGABRT"),
        "{report:#?}"
    );
    let wrong = by_name("tests::adds_wrong");
    assert_eq!(
        (wrong.file.as_deref(), wrong.line),
        (Some("src/lib.rs"), Some(18))
    );
    assert!(wrong.message.contains("two and two"), "{wrong:?}");
    let missing = by_name("integration_fails");
    assert_eq!(missing.file.as_deref(), Some("tests/integration.rs"));

    // The re-run names the three failing tests and runs only them.
    let rerun = verifier
        .rerun_failed(&fixture.workspace, &report)
        .expect("a re-run");
    let filter = rerun
        .args
        .iter()
        .skip_while(|a| *a != "-E")
        .nth(1)
        .expect("a filterset");
    assert!(filter.contains("test(=tests::aborts)"), "{filter}");
    let (captured, again) = run_spec(&fixture, &rerun, "cargo-test-rerun.log").await;
    assert_eq!(exit_code(&captured), Some(100));
    assert_eq!(failing(&again), failing(&report));
    assert_eq!(again.counts.tests_passed, Some(0), "{again:#?}");
}

#[tokio::test]
async fn the_profile_retries_a_flaky_test_as_the_project_does() {
    require_nextest();
    let fixture = fixture("nextest-flaky");
    let config = nextest_config(&fixture.workspace.root).expect("nextest is configured");
    assert_eq!(config.junit, None);
    // Through the pipeline, as `verdict run` runs it: reconcile agrees with the exit code.
    let entries = vec![Entry::new(Arc::new(CargoTest::default()))];
    let runner: Arc<dyn Runner> = Arc::new(runner(&fixture));
    let verifications = pipeline::run(
        &entries,
        &fixture.workspace,
        runner,
        &Options::default(),
        &mut |_| {},
    )
    .await
    .expect("a valid pipeline");
    let report = &verifications[0].report;
    assert_eq!(verifications[0].outcome(), Outcome::Passed, "{report:#?}");
    assert_eq!(report.counts.tests_passed, Some(2), "{report:#?}");
    assert_eq!(report.counts.tests_failed.unwrap_or(0), 0);
    // The first try did fail: the marker it left says so.
    assert!(fixture.workspace.root.join("flaky-tried").is_file());
}

#[tokio::test]
async fn a_test_that_does_not_compile_fails_at_its_place_under_nextest() {
    require_nextest();
    let fixture = fixture("nextest-failing");
    std::fs::write(
        fixture.workspace.root.join("tests/integration.rs"),
        "//! Does not compile.\n\n#[test]\nfn broken() {\n    let x: i32 = \"text\";\n    assert_eq!(x, 1);\n}\n",
    )
    .expect("write the broken test");
    let spec = CargoTest::default()
        .command(&fixture.workspace)
        .expect("the command can be built");
    let (captured, report) = run_spec(&fixture, &spec, "cargo-test.log").await;
    assert_eq!(exit_code(&captured), Some(101), "{report:#?}");
    assert_eq!(report.outcome, Outcome::Failed, "{report:#?}");
    let error = report
        .diagnostics
        .iter()
        .find(|d| d.kind == Kind::Build)
        .unwrap_or_else(|| panic!("a build error in {report:#?}"));
    assert_eq!(
        (error.file.as_deref(), error.line, error.code.as_deref()),
        (Some("tests/integration.rs"), Some(5), Some("E0308"))
    );
    // No JUnit report was written: noted, and no pass either way.
    assert_eq!(captured.output_files, [None]);
}

/// Split across shards, nextest runs each shard's part (`--partition count:i/n`) and together
/// the parts are the whole run; a shard it deals no test is not run there, neither a pass nor a
/// failure.
#[tokio::test]
async fn shards_partition_the_tests_and_an_empty_one_is_not_run_there() {
    require_nextest();
    let fixture = fixture("nextest-failing");
    let run = |workspace: Workspace| {
        let runner: Arc<dyn Runner> = Arc::new(runner(&fixture));
        async move {
            let entries = vec![Entry::new(Arc::new(CargoTest::default()))];
            pipeline::run(
                &entries,
                &workspace,
                runner,
                &Options::default(),
                &mut |_| {},
            )
            .await
            .expect("a valid pipeline")
            .remove(0)
        }
    };
    let whole = run(fixture.workspace.clone()).await;
    assert_eq!(whole.outcome(), Outcome::Failed, "{whole:#?}");
    // Five tests in seven shards: at least two get none (nextest deals each test binary's tests
    // apart, so more may).
    let total = 7;
    let (mut passed, mut failed, mut empty) = (0, 0, 0);
    let mut failures = BTreeMap::new();
    for index in 1..=total {
        let mut workspace = fixture.workspace.clone();
        workspace.shard = verdict_core::verifier::Shard::new(index, total);
        let verification = run(workspace).await;
        let command = verification.command.clone().unwrap_or_default();
        assert!(
            command.contains(&format!("count:{index}/{total}")),
            "{command:?}"
        );
        if verification.status == verdict_core::Status::NotInShard {
            assert_eq!(verification.outcome(), Outcome::Errored);
            empty += 1;
            continue;
        }
        let report = &verification.report;
        passed += report.counts.tests_passed.unwrap_or(0);
        failed += report.counts.tests_failed.unwrap_or(0);
        failures.extend(failing(report));
    }
    assert!(empty >= 2, "{empty} empty shards");
    assert_eq!(Some(passed), whole.report.counts.tests_passed);
    assert_eq!(Some(failed), whole.report.counts.tests_failed);
    assert_eq!(failures, failing(&whole.report));
    assert_eq!(whole.report.counts.tests_skipped, Some(0), "{whole:#?}");
}
