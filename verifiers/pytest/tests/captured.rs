//! The pytest verifier's interpretation of every captured pytest run in the summarizers'
//! `testdata/pytest/` (the log, the JUnit XML pytest wrote when it wrote one, and the exit code):
//! the outcome follows pytest's documented exit codes, and the failures are the XML's.

use std::path::{Path, PathBuf};
use std::time::Duration;

use verdict_core::verifier::{Captured, Exit, Workspace};
use verdict_core::{Outcome, Report, Severity, Verifier};
use verdict_pytest::Pytest;

fn testdata() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../summarizers/testdata/pytest")
}

fn cases() -> Vec<String> {
    let mut cases: Vec<String> = std::fs::read_dir(testdata())
        .expect("the captured pytest runs")
        .filter_map(|entry| {
            let name = entry.ok()?.file_name().into_string().ok()?;
            name.strip_suffix(".log").map(str::to_owned)
        })
        .collect();
    cases.sort();
    assert!(cases.len() >= 30, "expected the captured pytest runs");
    cases
}

/// The verifier's report of one captured run, with the run's exit code and JUnit XML.
fn interpret(case: &str) -> (i32, Option<Vec<u8>>, Report) {
    let dir = tempfile::tempdir().expect("temporary directory");
    std::fs::write(dir.path().join("conftest.py"), "").expect("write conftest.py");
    let workspace = Workspace::new(dir.path());
    let spec = Pytest::default()
        .command(&workspace)
        .expect("the command can be built");
    let log_path = testdata().join(format!("{case}.log"));
    let meta: serde_json::Value = serde_json::from_slice(
        &std::fs::read(testdata().join(format!("{case}.meta.json"))).expect("meta"),
    )
    .expect("meta is JSON");
    let code = meta["exit_code"].as_i64().expect("an exit code") as i32;
    let xml = std::fs::read(testdata().join(format!("{case}.truth.xml"))).ok();
    let captured = Captured {
        exit: Exit::Code { code },
        log_bytes: std::fs::metadata(&log_path).expect("log").len(),
        log_cut: 0,
        log_path,
        output_files: vec![xml.clone()],
        duration: Duration::from_millis(1),
    };
    (code, xml, Pytest::default().interpret(&spec, &captured))
}

#[test]
fn every_captured_run() {
    let mut with_xml = 0;
    for case in cases() {
        let (code, xml, report) = interpret(&case);
        with_xml += usize::from(xml.is_some());
        match code {
            0 => assert_eq!(report.outcome, Outcome::Passed, "{case}: {report:#?}"),
            1 | 2 => assert_eq!(report.outcome, Outcome::Failed, "{case}: {report:#?}"),
            3 | 5 => assert_eq!(report.outcome, Outcome::Errored, "{case}: {report:#?}"),
            // A usage error, or a conftest that does not import (the code failing to load).
            _ => {
                assert_ne!(report.outcome, Outcome::Passed, "{case}");
                assert!(
                    report.outcome == Outcome::Errored && report.error.is_some()
                        || report.diagnostics.iter().any(|d| d.root_cause),
                    "{case}: {report:#?}"
                );
            }
        }
        if let Some(xml) = xml.filter(|_| code == 1 || code == 2) {
            // The failures are the XML's, each once.
            let junit = verdict_summarizers::junit::parse("pytest", &xml);
            let names = |r: &verdict_core::Report| {
                let mut names: Vec<String> = r
                    .diagnostics
                    .iter()
                    .filter(|d| d.severity == Severity::Error)
                    .filter_map(|d| d.test.clone().or_else(|| d.file.clone()))
                    .collect();
                names.sort();
                names
            };
            assert_eq!(names(&report), names(&junit), "{case}");
            assert_eq!(
                report.counts.tests_failed, junit.counts.tests_failed,
                "{case}"
            );
            assert!(
                report.summary.is_some(),
                "{case}: pytest's own summary line"
            );
        }
    }
    assert!(with_xml >= 20, "expected the captured JUnit files");
}

/// A pytest-xdist worker that crashed in a test (`os._exit`) gave an invented failure named after
/// the worker's banner (`test_c.py — [gw1] linux -- Python 3.11.7 …`) and an error that was never
/// shown ("… and 1 more error"), where pytest says 2 failed, 2 passed. The crashed test is one
/// failure, by its node id.
#[test]
fn an_xdist_worker_crash_is_the_crashed_test_failing() {
    for case in ["xdist-crash", "pytest8-xdist-crash"] {
        let (code, _, report) = interpret(case);
        assert_eq!(code, 1, "{case}");
        assert_eq!(report.outcome, Outcome::Failed, "{case}");
        let failing: Vec<(Option<&str>, bool, &str)> = report
            .diagnostics
            .iter()
            .filter(|d| d.severity == Severity::Error)
            .map(|d| (d.test.as_deref(), d.test_error, d.message.as_str()))
            .collect();
        assert_eq!(failing.len(), 2, "{case}: {failing:?}");
        assert_eq!(failing[0].0, Some("test_crash.py::test_crash"), "{case}");
        assert!(!failing[0].1, "{case}: the test failed, no error around it");
        assert!(
            failing[0].2.starts_with("worker 'gw")
                && failing[0]
                    .2
                    .ends_with("crashed while running 'test_crash.py::test_crash'"),
            "{case}: {}",
            failing[0].2
        );
        assert_eq!(failing[1].0, Some("test_crash.py::test_d"), "{case}");
        let c = &report.counts;
        assert_eq!(
            (c.tests_failed, c.tests_passed, c.errors),
            (Some(2), Some(2), None),
            "{case}"
        );
    }
}
