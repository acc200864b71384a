//! How the jest and vitest verifiers read a run from its JSON report and its log together, over
//! real captured runs (`summarizers/testdata/`): what only the log shows is added, a report that
//! is missing or cut off never makes a pass.

use std::path::{Path, PathBuf};
use std::time::Duration;

use verdict_core::verifier::{Captured, CommandSpec, Exit, ExitCodes};
use verdict_core::{Outcome, Report, Verifier};
use verdict_js_test::{Jest, Vitest};

fn testdata(tool: &str, file: &str) -> Vec<u8> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../summarizers/testdata")
        .join(tool)
        .join(file);
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The project root of a captured run: the directory above `test/` of its first test file.
fn root_of(json: &[u8]) -> PathBuf {
    let value: serde_json::Value = serde_json::from_slice(json).expect("JSON");
    let name = value["testResults"][0]["name"]
        .as_str()
        .expect("a test file");
    let at = name.rfind("/test/").expect("a test directory");
    PathBuf::from(&name[..at])
}

/// Interprets a captured run: `log` as the output, `json` as the report file (`None`: not
/// written), `code` as the exit code.
fn interpret(
    verifier: &dyn Verifier,
    log: &[u8],
    json: Option<Vec<u8>>,
    code: i32,
    root: PathBuf,
) -> Report {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let log_path = dir.path().join("run.log");
    std::fs::write(&log_path, log).expect("write the log");
    let spec = CommandSpec {
        program: PathBuf::from("node_modules/.bin").join(verifier.name()),
        args: Vec::new(),
        env: Default::default(),
        cwd: root,
        timeout: Duration::from_secs(60),
        exit_codes: ExitCodes {
            pass: vec![0],
            fail: vec![1],
        },
        output_files: vec![dir.path().join("report.json")],
    };
    let captured = Captured {
        exit: Exit::Code { code },
        log_path,
        log_bytes: log.len() as u64,
        log_cut: 0,
        output_files: vec![json],
        duration: Duration::from_secs(1),
    };
    verifier.interpret(&spec, &captured)
}

#[test]
fn vitest_unhandled_errors_come_from_the_log_and_fail_the_run() {
    let json = testdata("vitest", "unhandled.truth.json");
    let root = root_of(&json);
    let report = interpret(
        &Vitest::default(),
        &testdata("vitest", "unhandled.log"),
        Some(json),
        1,
        root,
    );
    assert_eq!(report.outcome, Outcome::Failed);
    assert_eq!(report.counts.tests_failed, Some(1));
    assert_eq!(report.counts.errors, Some(2), "{report:#?}");
    let unhandled: Vec<_> = report
        .diagnostics
        .iter()
        .filter(|d| d.test.is_none())
        .collect();
    assert_eq!(unhandled.len(), 2, "{report:#?}");
    assert_eq!(
        unhandled[0].location().as_deref(),
        Some("test/timer.test.js:5:11")
    );
    assert!(report.summary.is_some(), "the log's summary line is kept");
}

#[test]
fn jest_failures_come_from_the_report_with_the_logs_summary() {
    let json = testdata("jest", "failing.truth.json");
    let root = root_of(&json);
    let report = interpret(
        &Jest::default(),
        &testdata("jest", "failing.log"),
        Some(json.clone()),
        1,
        root.clone(),
    );
    let alone =
        verdict_summarizers::jest_json::parse_relative_to("jest", &json, &root.to_string_lossy());
    assert_eq!(report.outcome, Outcome::Failed);
    assert_eq!(report.counts, alone.counts);
    assert_eq!(report.diagnostics, alone.diagnostics);
    assert_eq!(
        report.summary.as_deref(),
        Some("Tests: 40 failed, 1 skipped, 1 todo, 7 passed, 49 total")
    );
}

/// jest writes a report of no tests with `success: true` and exits 1: the log says why.
#[test]
fn jest_no_tests_found_is_errored_with_the_logs_words() {
    let json = br#"{"numFailedTestSuites":0,"numFailedTests":0,"numPassedTestSuites":0,"numPassedTests":0,"numPendingTestSuites":0,"numPendingTests":0,"numRuntimeErrorTestSuites":0,"numTodoTests":0,"numTotalTestSuites":0,"numTotalTests":0,"openHandles":[],"success":true,"testResults":[],"wasInterrupted":false}"#;
    let report = interpret(
        &Jest::default(),
        &testdata("jest", "no-tests.log"),
        Some(json.to_vec()),
        1,
        PathBuf::from("/project"),
    );
    assert_eq!(report.outcome, Outcome::Errored);
    assert!(
        report
            .error
            .as_deref()
            .is_some_and(|e| e.starts_with("No tests found")),
        "{report:#?}"
    );
}

/// A run that wrote no report did not finish: whatever its log looks like, it has not passed.
#[test]
fn no_report_is_never_a_pass() {
    for (tool, verifier) in [
        ("jest", &Jest::default() as &dyn Verifier),
        ("vitest", &Vitest::default()),
    ] {
        let json = testdata(tool, "passing.truth.json");
        let root = root_of(&json);
        let log = testdata(tool, "passing.log");
        let with = interpret(verifier, &log, Some(json), 0, root.clone());
        assert_eq!(with.outcome, Outcome::Passed, "{tool}: {with:#?}");
        let without = interpret(verifier, &log, None, 0, root);
        assert_eq!(without.outcome, Outcome::Errored, "{tool}");
        assert!(without.notes.iter().any(|n| n.contains("no JSON report")));
    }
}

/// A report cut off (the tool killed while writing it): the log's failures stand, with a note.
#[test]
fn a_cut_report_falls_back_to_the_log() {
    let json = testdata("jest", "failing.truth.json");
    let root = root_of(&json);
    let cut = json[..json.len() / 2].to_vec();
    let report = interpret(
        &Jest::default(),
        &testdata("jest", "failing.log"),
        Some(cut),
        1,
        root,
    );
    assert_eq!(report.outcome, Outcome::Failed);
    assert_eq!(report.counts.tests_failed, Some(40));
    assert!(
        report.notes.iter().any(|n| n.contains("JSON report")),
        "{:?}",
        report.notes
    );
    assert!(
        report
            .diagnostics
            .iter()
            .all(|d| d.file.as_deref().is_none_or(|f| !f.starts_with('/'))),
        "files are relative"
    );
}

/// A JSON report of a pass beside a log of failures: the two readings disagree, and the run is
/// not passed.
#[test]
fn a_passing_report_beside_a_failing_log_is_errored() {
    let json = testdata("jest", "passing.truth.json");
    let root = root_of(&json);
    let report = interpret(
        &Jest::default(),
        &testdata("jest", "single-file.log"),
        Some(json),
        0,
        root,
    );
    assert_eq!(report.outcome, Outcome::Errored, "{report:#?}");
}
